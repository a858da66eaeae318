//! Places as an editor names them: a file's `file://` URI and a position counted in lines and
//! in the code units the client and the server agreed on (UTF-16 unless the client offers
//! UTF-8), and their conversion to and from paths and byte offsets. It knows nothing of Puppet.

use lsp_types::{Position, PositionEncodingKind, Range};
use std::path::{Path, PathBuf};

/// How the columns of a position are counted, as agreed at initialisation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

impl Encoding {
    /// The encoding to use of those the client offers: UTF-8 when offered (no conversion), else
    /// UTF-16, which every client must accept.
    pub fn choose(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        match offered {
            Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }
}

/// Where each line of a text starts, to turn byte offsets into positions and back. Lines end at
/// `\n` (a `\r` before it stays in the line, as LSP counts it: clients send `\r\n` files whole).
pub struct LineIndex<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

/// Byte `offset` of `text`, held to the text and to the start of the character it falls in
/// (an offset found in an older text, or sent by the editor, may fall inside one).
pub fn char_start(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

impl<'t> LineIndex<'t> {
    pub fn new(text: &'t str) -> LineIndex<'t> {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| i + 1),
        );
        LineIndex { text, starts }
    }

    /// The position of byte `offset` (held to the text, and to the start of the character it
    /// falls in).
    pub fn position(&self, offset: usize, encoding: Encoding) -> Position {
        let offset = char_start(self.text, offset);
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let before = &self.text[self.starts[line]..offset];
        let character = match encoding {
            Encoding::Utf8 => before.len(),
            Encoding::Utf16 => before.chars().map(char::len_utf16).sum(),
        };
        Position::new(to_u32(line), to_u32(character))
    }

    pub fn range(&self, start: usize, end: usize, encoding: Encoding) -> Range {
        Range::new(
            self.position(start, encoding),
            self.position(end.max(start), encoding),
        )
    }

    /// The byte offset of character `character` (counted in characters, as pbc's messages
    /// count columns) of line `line`, both from 0; held to the line's end and the text's.
    pub fn char_offset(&self, line: usize, character: usize) -> usize {
        let Some(&start) = self.starts.get(line) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(line + 1)
            .map_or(self.text.len(), |&next| next - 1);
        let line_text = &self.text[start..end];
        start
            + line_text
                .char_indices()
                .nth(character)
                .map_or(line_text.len(), |(i, _)| i)
    }

    /// The byte offset of `position`: a line past the end is the end of the text, a column past
    /// the end of its line is the line's end, and a column inside a character its start.
    pub fn offset(&self, position: Position, encoding: Encoding) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return self.text.len();
        };
        let end = self
            .starts
            .get(position.line as usize + 1)
            .map_or(self.text.len(), |&next| next - 1);
        let line = &self.text[start..end];
        let wanted = position.character as usize;
        let mut units = 0;
        for (i, c) in line.char_indices() {
            if units >= wanted {
                return start + i;
            }
            units += match encoding {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
            if units > wanted {
                return start + i;
            }
        }
        end
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The path a `file:` URI names, or `None` for any other URI (an unsaved buffer's `untitled:`,
/// a remote file): pbc reads only the local tree. Percent-escapes are decoded; a path that is
/// not UTF-8 after decoding is kept as its bytes.
pub fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///p` (no authority) or `file://localhost/p`; another host is not this machine.
    let path = match rest.find('/') {
        Some(0) => rest,
        Some(i) if rest[..i].eq_ignore_ascii_case("localhost") => &rest[i..],
        _ => return None,
    };
    let path = path.split(['?', '#']).next().unwrap_or_default();
    let bytes = percent_decode(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(bytes)))
    }
    #[cfg(not(unix))]
    {
        Some(PathBuf::from(String::from_utf8(bytes).ok()?))
    }
}

fn percent_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = text.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

/// The `file://` URI of an absolute path, with every byte outside the unreserved set and `/`
/// percent-escaped, as VS Code and Neovim write them.
pub fn path_to_uri(path: &Path) -> String {
    #[cfg(unix)]
    let bytes = {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    };
    #[cfg(not(unix))]
    let bytes = path.to_string_lossy().replace('\\', "/").into_bytes();
    let mut uri = String::from("file://");
    for b in bytes {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(char::from(b));
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_or_bytes_as_agreed() {
        let text = "a\n\u{e9}\u{1f600}x\r\nlast";
        let index = LineIndex::new(text);
        let x = text.find('x').unwrap_or_default();
        assert_eq!(index.position(x, Encoding::Utf16), Position::new(1, 3));
        assert_eq!(index.position(x, Encoding::Utf8), Position::new(1, 6));
        assert_eq!(index.offset(Position::new(1, 3), Encoding::Utf16), x);
        assert_eq!(index.offset(Position::new(1, 6), Encoding::Utf8), x);
        // Inside the emoji's surrogate pair: its start.
        assert_eq!(index.offset(Position::new(1, 2), Encoding::Utf16), x - 4);
        // Past a line's end, past the last line.
        assert_eq!(index.offset(Position::new(0, 99), Encoding::Utf16), 1);
        assert_eq!(
            index.offset(Position::new(9, 0), Encoding::Utf16),
            text.len()
        );
        assert_eq!(
            index.position(text.len() + 5, Encoding::Utf16),
            Position::new(2, 4)
        );
        // A byte offset inside a character is that character's start.
        assert_eq!(index.position(3, Encoding::Utf8), Position::new(1, 0));
        // Columns in characters, as pbc's messages give them.
        assert_eq!(index.char_offset(1, 2), x);
        assert_eq!(
            index.char_offset(1, 99),
            text.find('\r').unwrap_or_default() + 1
        );
        assert_eq!(index.char_offset(7, 0), text.len());
    }

    #[test]
    fn file_uris_and_paths_round_trip() {
        let path = Path::new("/srv/code/env 1/données#x.pp");
        let uri = path_to_uri(path);
        assert_eq!(uri, "file:///srv/code/env%201/donn%C3%A9es%23x.pp");
        assert_eq!(uri_to_path(&uri).as_deref(), Some(path));
        assert_eq!(
            uri_to_path("file://localhost/a/b.pp").as_deref(),
            Some(Path::new("/a/b.pp"))
        );
        assert_eq!(uri_to_path("untitled:Untitled-1"), None);
        assert_eq!(uri_to_path("file://elsewhere/a.pp"), None);
        assert_eq!(uri_to_path("file:///a%2"), None);
    }
}
