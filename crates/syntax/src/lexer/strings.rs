//! Hand scanners for single- and double-quoted strings, interpolation and heredocs.
//!
//! Text is decoded here (escapes, heredoc margins, trimming) so that the grammar only sees
//! finished `Str` / `DqPre` / `DqMid` / `DqPost` texts. `${ ... }` re-enters the code scanner
//! with an `Interp` frame; the nesting limit in [`Lexer::open`] bounds that recursion.

use super::{is_blank_char, is_word_byte, CodeEnd, DecodedTexts, FrameKind, Lexer, Text, Tok};
use crate::bytewise;
use crate::diag::{codes, Diagnostic};

/// Which escapes a piece of text honours.
#[derive(Clone, Copy)]
struct Escapes {
    /// Double-quoted string rules (all escapes, warnings for unknown ones).
    dq: bool,
    /// Heredoc flags `t r n s u L $` as a bit set (bit order of `HEREDOC_FLAGS`).
    heredoc: u8,
}

const HEREDOC_FLAGS: &str = "trnsuL$";

impl Escapes {
    fn heredoc_has(self, flag: char) -> bool {
        HEREDOC_FLAGS
            .find(flag)
            .is_some_and(|i| self.heredoc & (1 << i) != 0)
    }
    fn any(self) -> bool {
        self.dq || self.heredoc != 0
    }
}

/// The decoded text of a string segment. While it is one run of the source (no escape, no
/// heredoc margin: most strings) it is kept as that run, and its token points into the source;
/// only text that is not a run is copied, and then appended to the lexer's decoded texts. (A
/// `String` per string token was a quarter of the lexer's allocations and frees.)
#[derive(Default)]
struct SegmentText {
    copied: String,
    /// Byte offsets of the run not copied; only while `copied` is empty.
    run: Option<(usize, usize)>,
}

impl SegmentText {
    /// Appends the source's bytes `from..to`.
    fn push_run(&mut self, src: &str, from: usize, to: usize) {
        match self.run {
            Some((start, end)) if end == from => self.run = Some((start, to)),
            None if self.copied.is_empty() => self.run = Some((from, to)),
            _ => self.owned(src).push_str(&src[from..to]),
        }
    }

    /// The text as a `String`, to append decoded characters to.
    fn owned(&mut self, src: &str) -> &mut String {
        if let Some((start, end)) = self.run.take() {
            self.copied.push_str(&src[start..end]);
        }
        &mut self.copied
    }

    /// The text so far, leaving it empty for the next segment: the run, or the copy put in
    /// `decoded`.
    fn take(&mut self, src: &str, decoded: &DecodedTexts) -> Text {
        let text = match self.run.take() {
            Some((start, end)) => decoded.run(src, start, end),
            // Nothing since the last segment (`${a}${b}`): an empty run, with nothing to keep.
            None if self.copied.is_empty() => decoded.run(src, 0, 0),
            None => decoded.push(&self.copied),
        };
        self.copied.clear();
        text
    }
}

/// How a piece of string text ends and what it honours.
struct TextMode {
    escapes: Escapes,
    interpolate: bool,
    /// `Some('"')` for a double-quoted string; `None` for a heredoc body (ends at `region_end`).
    terminator: Option<u8>,
    region_end: usize,
    /// The heredoc margin removed from the start of each line.
    margin: String,
}

impl<'s> Lexer<'s> {
    /// `'...'`: only `\\` and `\'` are escapes. Returns false on an unclosed quote (fatal).
    pub(super) fn lex_sq(&mut self, start: usize) -> bool {
        let (b, src, end) = (self.bytes, self.src, self.end);
        let mut p = start + 1;
        let mut text = SegmentText::default();
        let mut chunk = p;
        while p < end {
            // The text up to the next quote or backslash, in one scan.
            p += quote_or_backslash(&b[p..end]).unwrap_or(end - p);
            if p == end {
                break;
            }
            if b[p] == b'\'' {
                text.push_run(src, chunk, p);
                self.pos = p + 1;
                self.push(start, Tok::Str(text.take(src, &self.decoded)), p + 1);
                return true;
            }
            if p + 1 < end && matches!(b[p + 1], b'\\' | b'\'') {
                text.push_run(src, chunk, p);
                text.owned(src).push(b[p + 1] as char);
                p += 2;
                chunk = p;
            } else {
                p += 1;
            }
        }
        self.unclosed_quote(start, None, '\'');
        false
    }

    /// A string that runs to the end of the input. Puppet's lexer reports it where it last
    /// resumed scanning the string: the opening quote, or the end of the last interpolation
    /// (`${...}` or `$name`), which is where a missing quote or brace usually shows. pbc reports
    /// the same place and points at the opening quote as well.
    fn unclosed_quote(&mut self, start: usize, resumed: Option<usize>, quote: char) {
        let from = resumed.unwrap_or(start + 1);
        let follow: String = self.src[from..self.end].chars().take(20).collect();
        let follow = follow.escape_debug();
        let diag = match resumed {
            None => Diagnostic::error(
                codes::UNCLOSED_QUOTE,
                self.span(start, start + 1),
                format!("unclosed quote after `{quote}` followed by `{follow}`"),
            ),
            Some(at) => {
                let width = match self.src[at..self.end].chars().next() {
                    Some(c) if c != '\n' && c != '\r' => c.len_utf8(),
                    _ => 0,
                };
                Diagnostic::error(
                    codes::UNCLOSED_QUOTE,
                    self.span(at, at + width),
                    format!(
                        "unclosed quote: no closing `{quote}` after this interpolation, followed by `{follow}`"
                    ),
                )
                .with_label(self.span(start, start + 1), "the string opens here")
            }
        };
        self.diags.push(diag);
        self.push(start, Tok::Error, self.end);
        self.pos = self.end;
        self.stopped = true;
    }

    /// `"..."` with escapes and interpolation.
    pub(super) fn lex_dq(&mut self, start: usize) -> CodeEnd {
        let mode = TextMode {
            escapes: Escapes {
                dq: true,
                heredoc: 0,
            },
            interpolate: true,
            terminator: Some(b'"'),
            region_end: self.end,
            margin: String::new(),
        };
        self.lex_text(start, start + 1, &mode)
    }

    /// Scans text from `p` (the token opened at `open`), emitting `Str` or `DqPre`/`DqMid`/
    /// `DqPost` around the interpolated tokens.
    fn lex_text(&mut self, open: usize, mut p: usize, mode: &TextMode) -> CodeEnd {
        let (b, src) = (self.bytes, self.src);
        let mut text = SegmentText::default();
        let mut seg_start = open;
        let mut interpolated = false;
        // Where scanning of the text last resumed after an interpolation.
        let mut resumed: Option<usize> = None;
        let mut at_line_start = mode.terminator.is_none();
        loop {
            if at_line_start {
                at_line_start = false;
                if !mode.margin.is_empty() && self.src[p..mode.region_end].starts_with(&mode.margin)
                {
                    p += mode.margin.len();
                }
            }
            if p >= mode.region_end {
                if mode.terminator.is_some() {
                    self.unclosed_quote(open, resumed, '"');
                    return CodeEnd::Stop;
                }
                let segment = text.take(src, &self.decoded);
                let tok = if interpolated {
                    Tok::DqPost(segment)
                } else {
                    Tok::Str(segment)
                };
                self.push(seg_start, tok, mode.region_end);
                return CodeEnd::Eof;
            }
            let c = b[p];
            if Some(c) == mode.terminator {
                let segment = text.take(src, &self.decoded);
                let tok = if interpolated {
                    Tok::DqPost(segment)
                } else {
                    Tok::Str(segment)
                };
                self.pos = p + 1;
                self.push(seg_start, tok, p + 1);
                return CodeEnd::Eof;
            }
            match c {
                b'\\' if mode.escapes.any() => {
                    p = self.escape(text.owned(src), p, mode);
                    if p > 0 && b[p - 1] == b'\n' {
                        at_line_start = true;
                    }
                }
                b'$' if mode.interpolate && p + 1 < mode.region_end && b[p + 1] == b'{' => {
                    let segment = text.take(src, &self.decoded);
                    let tok = if interpolated {
                        Tok::DqMid(segment)
                    } else {
                        Tok::DqPre(segment)
                    };
                    interpolated = true;
                    self.push(seg_start, tok, p);
                    let first = self.out.len();
                    let ctx = self.ctx().nested();
                    if !self.open(FrameKind::Interp, ctx, p) {
                        return CodeEnd::Stop;
                    }
                    let saved_end = self.end;
                    self.end = mode.region_end;
                    self.pos = p + 2;
                    let ended = self.lex_code();
                    self.end = saved_end;
                    match ended {
                        CodeEnd::InterpClosed => {}
                        CodeEnd::Eof => {
                            if mode.terminator.is_some() {
                                self.unclosed_quote(open, None, '"');
                            } else {
                                self.error(
                                    codes::UNCLOSED_QUOTE,
                                    p,
                                    p + 2,
                                    "unclosed interpolation `${` in heredoc text",
                                );
                                self.stopped = true;
                            }
                            return CodeEnd::Stop;
                        }
                        // A scan within a scan never pauses.
                        CodeEnd::Stop | CodeEnd::Paused => return CodeEnd::Stop,
                    }
                    self.rewrite_interpolation(first);
                    p = self.pos;
                    seg_start = p - 1;
                    resumed = Some(p);
                }
                b'$' if mode.interpolate => {
                    let var_end = scan_variable_name(b, p + 1, mode.region_end);
                    if var_end > p + 1 {
                        let segment = text.take(src, &self.decoded);
                        let tok = if interpolated {
                            Tok::DqMid(segment)
                        } else {
                            Tok::DqPre(segment)
                        };
                        interpolated = true;
                        self.push(seg_start, tok, p);
                        self.push(p, Tok::Variable(self.text_run(p + 1, var_end)), var_end);
                        p = var_end;
                        seg_start = p;
                        resumed = Some(p);
                    } else {
                        text.push_run(src, p, p + 1);
                        p += 1;
                    }
                }
                _ => {
                    // Copy a run of ordinary text at once.
                    let mut q = p + 1;
                    while q < mode.region_end
                        && !matches!(b[q], b'\\' | b'$' | b'\n')
                        && Some(b[q]) != mode.terminator
                    {
                        q += 1;
                    }
                    if b[p] == b'\n' {
                        at_line_start = true;
                        q = p + 1;
                    }
                    text.push_run(src, p, q);
                    p = q;
                }
            }
        }
    }

    /// Decodes the escape at `p` (a backslash) into `buf`; returns the offset after it.
    fn escape(&mut self, buf: &mut String, p: usize, mode: &TextMode) -> usize {
        let b = self.bytes;
        let end = mode.region_end;
        if p + 1 >= end {
            buf.push('\\');
            return p + 1;
        }
        let next = b[p + 1];
        let esc = mode.escapes;
        let enabled = |flag: char| esc.dq || esc.heredoc_has(flag);
        match next {
            b'\\' => {
                buf.push('\\');
                p + 2
            }
            b'$' if enabled('$') => {
                buf.push('$');
                p + 2
            }
            b'"' | b'\'' if esc.dq => {
                buf.push(next as char);
                p + 2
            }
            b'n' if enabled('n') => {
                buf.push('\n');
                p + 2
            }
            b't' if enabled('t') => {
                buf.push('\t');
                p + 2
            }
            b'r' if enabled('r') => {
                buf.push('\r');
                p + 2
            }
            b's' if enabled('s') => {
                buf.push(' ');
                p + 2
            }
            b'\n' if enabled('L') => p + 2,
            b'\r' if enabled('L') && p + 2 < end && b[p + 2] == b'\n' => p + 3,
            b'u' if enabled('u') => match unicode_escape(&self.src[p + 2..end]) {
                Some((c, len)) => {
                    buf.push(c);
                    p + 2 + len
                }
                None => {
                    if esc.dq {
                        self.warning(
                            codes::ILLEGAL_UNICODE_ESCAPE,
                            p,
                            p + 2,
                            "unicode escape `\\u` must be followed by 4 hex digits or 1-6 hex digits in braces",
                        );
                    }
                    buf.push_str("\\u");
                    p + 2
                }
            },
            _ => {
                // Unknown escapes stay as written; only double-quoted strings warn.
                let c = self.src[p + 1..].chars().next().unwrap_or('\\');
                if esc.dq && c != '\n' && c != '\r' {
                    self.warning(
                        codes::UNRECOGNIZED_ESCAPE,
                        p,
                        p + 1 + c.len_utf8(),
                        format!("unrecognized escape sequence `\\{c}`"),
                    );
                }
                buf.push('\\');
                p + 1
            }
        }
    }

    /// Puppet's rewrite of `${...}` contents: a lone name, word, number or keyword, or one followed
    /// by `.` or `[`, is a variable (`${x}`, `${x[1]}`, `${x.y}`).
    fn rewrite_interpolation(&mut self, first: usize) {
        let count = self.out.len() - first;
        let applies =
            count == 1 || (count >= 2 && matches!(self.out[first + 1].1, Tok::Dot | Tok::LBrack));
        if !applies {
            return;
        }
        let (s, ref tok, e) = self.out[first];
        let replacement = match tok {
            Tok::Boolean(v) => Tok::BoolVariable(*v),
            Tok::Name(_) | Tok::Word(_) | Tok::Number(_) => Tok::Variable(self.text_run(s, e)),
            t if t.is_puppet_keyword() || t.is_bindings_keyword() => {
                Tok::Variable(self.text_run(s, e))
            }
            _ => return,
        };
        self.out[first].1 = replacement;
    }

    /// `@(TAG[:syntax][/flags])`: emits `Heredoc(syntax)` and the body's text tokens, and arranges
    /// for the next newline to jump past the body.
    pub(super) fn heredoc(&mut self, start: usize) -> CodeEnd {
        let b = self.bytes;
        let end = self.end;
        let mut p = start + 2;
        while p < end && !matches!(b[p], b':' | b'/' | b')' | b'\r' | b'\n') {
            p += 1;
        }
        let tag_raw = &self.src[start + 2..p];
        let mut syntax_text = self.text_run(start, start);
        let mut flags: Option<&str> = None;
        let mut header_ok = true;
        if p < end && b[p] == b':' {
            p += 1;
            p = self.skip_blanks(p, end);
            let s = p;
            while p < end && (b[p].is_ascii_alphanumeric() || b[p] == b'_' || b[p] == b'+') {
                p += 1;
            }
            let syntax = &self.src[s..p];
            syntax_text = self.text_run(s, p);
            let valid = syntax.len() >= 2 && syntax.as_bytes()[0].is_ascii_lowercase();
            p = self.skip_blanks(p, end);
            if !valid || (p < end && !matches!(b[p], b'/' | b')')) {
                self.error(
                    codes::HEREDOC_INVALID_SYNTAX,
                    s,
                    p.max(s + 1).min(end),
                    "invalid syntax name in heredoc: it must match `[a-z][a-zA-Z0-9_+]+`",
                );
                header_ok = false;
            }
        }
        if header_ok && p < end && b[p] == b'/' {
            p += 1;
            let s = p;
            while p < end && (is_word_byte(b[p]) || b[p] == b'$') {
                p += 1;
            }
            flags = Some(&self.src[s..p]);
            p = self.skip_blanks(p, end);
        }
        if !header_ok || p >= end || b[p] != b')' {
            if header_ok {
                self.error(
                    codes::HEREDOC_UNCLOSED_PARENTHESIS,
                    start,
                    p.min(end),
                    "unclosed parenthesis after `@(`",
                );
            }
            // Skip the rest of the header line and go on with the code after it.
            while p < end && b[p] != b'\n' {
                p += 1;
            }
            self.pos = p;
            self.push(start, Tok::Error, p);
            return CodeEnd::Eof;
        }
        let header_end = p + 1;
        let mut tag = tag_raw.trim_matches(|c: char| c == ' ' || is_blank_char(c));
        let interpolate = tag.len() >= 2 && tag.starts_with('"') && tag.ends_with('"');
        if interpolate {
            tag = &tag[1..tag.len() - 1];
        }
        let mut ok = true;
        if tag.is_empty() {
            self.error(
                codes::HEREDOC_EMPTY_ENDTAG,
                start,
                header_end,
                "heredoc with an empty end tag",
            );
            ok = false;
        }
        let mut escapes = Escapes {
            dq: false,
            heredoc: 0,
        };
        if let Some(letters) = flags {
            if letters.is_empty() {
                escapes.heredoc = 0x7f;
            }
            for c in letters.chars() {
                match HEREDOC_FLAGS.find(c) {
                    Some(i) if escapes.heredoc & (1 << i) != 0 => {
                        self.error(
                            codes::HEREDOC_MULTIPLE_AT_ESCAPES,
                            start,
                            header_end,
                            format!("heredoc escape `{c}` is given more than once"),
                        );
                        ok = false;
                    }
                    Some(i) => escapes.heredoc |= 1 << i,
                    None => {
                        self.error(
                            codes::HEREDOC_INVALID_ESCAPE,
                            start,
                            header_end,
                            format!(
                                "invalid heredoc escape `{c}`: the escapes are `t r n s u L $`"
                            ),
                        );
                        ok = false;
                    }
                }
            }
        }
        self.push(start, Tok::Heredoc(syntax_text), header_end);
        self.pos = header_end;
        if !ok {
            self.mark_last_error();
            return CodeEnd::Eof;
        }
        let body_start = match self.newline_jump {
            Some(j) => j,
            None => match self.src[header_end..end].find('\n') {
                Some(i) => header_end + i + 1,
                None => {
                    self.error(
                        codes::HEREDOC_WITHOUT_TEXT,
                        start,
                        header_end,
                        "heredoc without any following lines of text",
                    );
                    self.mark_last_error();
                    return CodeEnd::Eof;
                }
            },
        };
        let Some(found) = find_end_line(self.src, body_start, end, tag) else {
            self.error(
                codes::HEREDOC_WITHOUT_END_TAGGED_LINE,
                start,
                header_end,
                format!("heredoc without an end-tagged line: no line ends with `{tag}`"),
            );
            self.mark_last_error();
            self.stopped = true;
            return CodeEnd::Stop;
        };
        let mut region_end = found.line_start;
        if found.trim {
            if self.src[body_start..region_end].ends_with("\r\n") {
                region_end -= 2;
            } else if self.src[body_start..region_end].ends_with('\n') {
                region_end -= 1;
            }
        }
        let mode = TextMode {
            escapes,
            interpolate,
            terminator: None,
            region_end,
            margin: found.margin,
        };
        let saved = (
            self.end,
            self.origin,
            self.line_start,
            self.newline_jump.take(),
        );
        self.origin = body_start;
        self.line_start = body_start;
        let result = self.lex_text(body_start, body_start, &mode);
        self.end = saved.0;
        self.origin = saved.1;
        self.line_start = saved.2;
        self.newline_jump = Some(found.after);
        self.pos = header_end;
        if result == CodeEnd::Stop {
            return CodeEnd::Stop;
        }
        CodeEnd::Eof
    }

    fn mark_last_error(&mut self) {
        if let Some(t) = self.out.last_mut() {
            t.1 = Tok::Error;
        }
    }

    fn skip_blanks(&self, mut p: usize, end: usize) -> usize {
        while p < end {
            let c = self.src[p..].chars().next().unwrap_or('\n');
            if !is_blank_char(c) {
                break;
            }
            p += c.len_utf8();
        }
        p
    }
}

/// Where the first `'` or `\` in `b` is: the end of a single-quoted string's plain run.
/// Eight bytes at a time ([`crate::bytewise`]), because a byte loop spent seven instructions
/// on every byte of a string, the bulk of bindings files.
fn quote_or_backslash(b: &[u8]) -> Option<usize> {
    bytewise::position(
        b,
        |word| bytewise::equal(word, b'\'') | bytewise::equal(word, b'\\'),
        |c| c == b'\'' || c == b'\\',
    )
}

/// `(::)?(\w+::)*\w+` after a `$` in a string; returns the end (== `p` when nothing matches).
fn scan_variable_name(b: &[u8], p: usize, end: usize) -> usize {
    let mut q = p;
    if q + 2 < end && b[q] == b':' && b[q + 1] == b':' && is_word_byte(b[q + 2]) {
        q += 2;
    }
    let mut last_good = p;
    loop {
        let s = q;
        while q < end && is_word_byte(b[q]) {
            q += 1;
        }
        if q == s {
            return last_good;
        }
        last_good = q;
        if q + 2 < end && b[q] == b':' && b[q + 1] == b':' && is_word_byte(b[q + 2]) {
            q += 2;
        } else {
            return last_good;
        }
    }
}

/// `XXXX` or `{X...}` (1-6 hex digits) after `\u`: the character and the length consumed.
fn unicode_escape(rest: &str) -> Option<(char, usize)> {
    if let Some(inner) = rest.strip_prefix('{') {
        let close = inner.find('}')?;
        let hex = &inner[..close];
        if hex.is_empty() || hex.len() > 6 || !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
        return Some((c, close + 2));
    }
    let hex = rest.get(..4)?;
    if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let c = char::from_u32(u32::from_str_radix(hex, 16).ok()?)?;
    Some((c, 4))
}

struct EndLine {
    line_start: usize,
    after: usize,
    margin: String,
    trim: bool,
}

/// Finds the heredoc's end line: the first line that ends with the tag (after blanks, an optional
/// `|` and an optional `-`). Like Puppet, the match is not anchored at the start of the line.
fn find_end_line(src: &str, body_start: usize, end: usize, tag: &str) -> Option<EndLine> {
    let mut ls = body_start;
    while ls < end {
        let le = src[ls..end].find('\n').map_or(end, |i| ls + i);
        let line = &src[ls..le];
        let trimmed = line.trim_end_matches(|c: char| c == '\r' || c == ' ' || is_blank_char(c));
        if let Some(before) = trimmed.strip_suffix(tag) {
            let is_blank = |c: char| c == ' ' || is_blank_char(c);
            let before = before.trim_end_matches(is_blank);
            let (before, trim) = match before.strip_suffix('-') {
                Some(b) => (b.trim_end_matches(is_blank), true),
                None => (before, false),
            };
            let margin = match before.strip_suffix('|') {
                Some(b) => {
                    let lead = b.trim_end_matches(is_blank);
                    b[lead.len()..].to_string()
                }
                None => String::new(),
            };
            return Some(EndLine {
                line_start: ls,
                after: (le + 1).min(end.max(le)),
                margin,
                trim,
            });
        }
        ls = le + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{quote_or_backslash, DecodedTexts, SegmentText};

    /// The word-at-a-time search finds what a byte loop finds: every position of the first
    /// stop in and across words, a stop after another wanted byte's near misses (`&` and `[`
    /// differ from `'` and `\` by one bit, `(` and `]` sit next to them), bytes with the high
    /// bit set, and no stop at all.
    #[test]
    fn quote_or_backslash_finds_the_first_stop() {
        let fillers: &[u8] = &[b'a', b'&', b'[', b'(', b']', 0x80, 0xff, 0x00];
        for len in 0..20 {
            for &filler in fillers {
                let plain = vec![filler; len];
                assert_eq!(quote_or_backslash(&plain), None, "{len} x {filler:#x}");
                for at in 0..len {
                    for stop in [b'\'', b'\\'] {
                        let mut b = plain.clone();
                        b[at] = stop;
                        // A later stop of the other kind must not win.
                        if at + 1 < len {
                            b[len - 1] = if stop == b'\'' { b'\\' } else { b'\'' };
                        }
                        let expected = b.iter().position(|&c| c == b'\'' || c == b'\\');
                        assert_eq!(quote_or_backslash(&b), expected, "{b:?}");
                        assert_eq!(expected, Some(at));
                    }
                }
            }
        }
    }

    /// A segment's text is what appending every piece to a `String` gives, whether its runs
    /// join (kept as one run of the source) or not (copied), and `take` leaves it empty.
    #[test]
    fn segment_text_is_its_pieces_in_order() {
        let src = "abc\ndef$ghi\u{e9}jkl";
        // (from, to) pushes a run of `src`; (usize::MAX, c) appends the character `c`.
        let cases: &[&[(usize, usize)]] = &[
            &[],
            &[(0, 3)],
            &[(0, 3), (3, 4), (4, 7)],
            &[(0, 3), (4, 7)],
            &[(4, 7), (0, 3), (3, 4)],
            &[(0, 2), (usize::MAX, 'x' as usize), (2, 5)],
            &[(usize::MAX, '\\' as usize), (0, 4)],
            &[(8, 11), (11, 13), (usize::MAX, 'n' as usize), (13, 16)],
            &[(5, 5), (5, 8)],
        ];
        let mut text = SegmentText::default();
        let decoded = DecodedTexts::default();
        for pieces in cases {
            let mut expected = String::new();
            for &(from, to) in *pieces {
                if from == usize::MAX {
                    let c = char::from_u32(to as u32).expect("a character");
                    expected.push(c);
                    text.owned(src).push(c);
                } else {
                    expected.push_str(&src[from..to]);
                    text.push_run(src, from, to);
                }
            }
            let taken = text.take(src, &decoded);
            decoded.with_text(taken, src, |t| assert_eq!(t, expected, "{pieces:?}"));
            let then = text.take(src, &decoded);
            decoded.with_text(then, src, |t| assert_eq!(t, "", "{pieces:?} then nothing"));
        }
    }
}
