//! Byte tests eight bytes at a time: eight bytes read as one word, and a mask with the high
//! bit of each byte that passes the test. Text that is scanned for a few bytes that seldom
//! occur is scanned this way: a single-quoted string for its quote or backslash and a comment
//! for its line end (the lexer), a JSON string for a byte that needs an escape (PN and the
//! compact model), a file for its newlines (its line index) and a path for its separators;
//! and so are runs of one byte, the spaces that indent a line, and names, to the first byte
//! that cannot continue one (the lexer's commonest tokens). This module owns only that
//! arithmetic and the search for a first match; what a match means, and what is done on one,
//! is the caller's.
//!
//! The masks are exact where it matters: a byte that passes is always flagged, and a flag on a
//! byte that does not pass can only come from a borrow out of a lower byte that does. So a
//! mask is nonzero exactly when some byte passes, and its lowest flag marks the first that does.

const ONES: u64 = u64::from_le_bytes([0x01; 8]);
const HIGHS: u64 = u64::from_le_bytes([0x80; 8]);

/// Eight bytes as one word, the first byte lowest.
pub fn word(bytes: [u8; 8]) -> u64 {
    u64::from_le_bytes(bytes)
}

/// The bytes of `word` below `n` (at most 0x80).
pub fn below(word: u64, n: u8) -> u64 {
    word.wrapping_sub(ONES * u64::from(n)) & !word & HIGHS
}

/// The bytes of `word` equal to `byte`.
pub fn equal(word: u64, byte: u8) -> u64 {
    below(word ^ (ONES * u64::from(byte)), 1)
}

/// The bytes of `word` that are not `\w` in Puppet's lexer (an ASCII letter or digit, or `_`):
/// the bytes that end a name. Each byte is tested on its own, so every flag is exact. A byte's
/// low seven bits are compared by adding to them what carries a byte in the range into its high
/// bit; no sum passes 0xff, so nothing carries into the next byte. A letter is told with its
/// case bit set, which maps `A`-`Z` onto `a`-`z` and nothing else below 0x80 there.
pub fn not_word(word: u64) -> u64 {
    let low = word & !HIGHS;
    let at_least = |v: u64, n: u8| (v + ONES * u64::from(0x80 - n)) & HIGHS;
    let at_most = |v: u64, n: u8| !(v + ONES * u64::from(0x7f - n)) & HIGHS;
    let folded = low | (ONES * 0x20);
    let letter = at_least(folded, b'a') & at_most(folded, b'z');
    let digit = at_least(low, b'0') & at_most(low, b'9');
    let underscore = at_most(low ^ (ONES * u64::from(b'_')), 0);
    !((letter | digit | underscore) & !word) & HIGHS
}

/// Which byte the lowest flag of a nonzero `mask` is on.
pub fn first(mask: u64) -> usize {
    mask.trailing_zeros() as usize / 8
}

/// Where the first byte of `b` that passes is: `mask` flags a word's passing bytes, as
/// [`below`] and [`equal`] do, and `passes` tests one of the last bytes, fewer than a word.
#[inline(always)]
pub fn position(b: &[u8], mask: impl Fn(u64) -> u64, passes: impl Fn(u8) -> bool) -> Option<usize> {
    let mut words = b.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut words {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(chunk);
        let flags = mask(word(bytes));
        if flags != 0 {
            return Some(at + first(flags));
        }
        at += 8;
    }
    let tail = words.remainder();
    tail.iter().position(|&c| passes(c)).map(|i| at + i)
}

/// How many bytes at the start of `b` are `byte`: eight compared at a time, for the runs of
/// spaces that indent a line or align its `=>`s.
#[inline(always)]
pub fn run_of(b: &[u8], byte: u8) -> usize {
    // The first byte that is not `byte` ends the run. The word xor `byte` in every byte is zero
    // exactly in the bytes that are `byte`, so its lowest nonzero byte is that first one, which
    // is all `position` reads of a mask.
    position(b, |word| word ^ (ONES * u64::from(byte)), |c| c != byte).unwrap_or(b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A test's name, its mask, and what it tests for one byte at a time.
    type Case = (&'static str, fn(u64) -> u64, fn(u8) -> bool);

    /// Every mask's lowest flag is the first byte that passes, whatever the bytes around it:
    /// each pair of bytes (all 65,536) at the start, middle and end of the word, with the rest
    /// of the word filled with six byte values from 0 to 255 in turn.
    #[test]
    fn the_lowest_flag_is_the_first_byte_that_passes() {
        let tests: [Case; 5] = [
            ("below 0x20", |w| below(w, 0x20), |b| b < 0x20),
            ("equal '\"'", |w| equal(w, b'"'), |b| b == b'"'),
            ("equal '\\''", |w| equal(w, b'\''), |b| b == b'\''),
            ("equal '\\\\'", |w| equal(w, b'\\'), |b| b == b'\\'),
            ("not \\w", not_word, |b| {
                !(b.is_ascii_alphanumeric() || b == b'_')
            }),
        ];
        for (name, mask, passes) in tests {
            for fill in (0..=255u8).step_by(51) {
                for at in [0, 3, 6] {
                    for pair in 0..=u16::MAX {
                        let mut bytes = [fill; 8];
                        let [a, b] = pair.to_le_bytes();
                        bytes[at] = a;
                        bytes[at + 1] = b;
                        let expected = bytes.iter().position(|&c| passes(c));
                        let m = mask(word(bytes));
                        let got = (m != 0).then(|| first(m));
                        assert_eq!(got, expected, "{name} on {bytes:?}");
                    }
                }
            }
        }
    }

    /// A run is counted to its end wherever that falls in a word, or past the last whole word:
    /// runs of 0 to 20 bytes, ended by every byte value or by the end of the text.
    #[test]
    fn a_run_ends_at_the_first_other_byte() {
        for byte in [b' ', b'\t', 0, 0xff] {
            for run in 0..=20 {
                let mut text = vec![byte; run];
                assert_eq!(run_of(&text, byte), run, "{byte} × {run}, then the end");
                for other in (0..=255u8).filter(|&b| b != byte) {
                    text.truncate(run);
                    text.extend([other, byte, byte]);
                    assert_eq!(run_of(&text, byte), run, "{byte} × {run}, then {other}");
                }
            }
        }
    }
}
