//! Source files and byte spans. Owns the file store that diagnostics render against; it knows
//! nothing about tokens or syntax.

use codespan_reporting::files::Files;
use serde::Serialize;
use std::sync::{Arc, OnceLock};

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Default)]
#[serde(transparent)]
pub struct FileId(pub u32);

/// A byte range in one file. Offsets are `u32`: files over 4 GiB are refused when they are read
/// (`--max-file-size` goes no higher).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    /// No place in any file: for what the command line or the request (not a source file)
    /// got wrong. Rendered without a source excerpt.
    pub const NONE: Span = Span {
        file: FileId(u32::MAX),
        start: 0,
        end: 0,
    };

    pub fn is_none(self) -> bool {
        self.file == FileId(u32::MAX)
    }

    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        Span {
            file,
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The first `len` bytes (at most the whole span): a keyword or name a node starts with.
    pub fn prefix(self, len: usize) -> Span {
        Span {
            file: self.file,
            start: self.start,
            end: (self.start as usize + len).min(self.end as usize) as u32,
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// The span is written as `[start, end]` byte offsets: the file is implied by the document.
impl Serialize for Span {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        [self.start, self.end].serialize(s)
    }
}

/// A file's text: its own, or shared with a copy kept elsewhere (the files the language
/// server keeps between checks), so that a check of a kept file does not copy it.
#[derive(Clone, Debug)]
pub enum SourceText {
    Owned(String),
    Shared(std::sync::Arc<str>),
}

impl SourceText {
    pub fn as_str(&self) -> &str {
        match self {
            SourceText::Owned(text) => text,
            SourceText::Shared(text) => text,
        }
    }

    /// Whether `other` is the same text, told without reading it when both share one copy.
    pub fn same_as(&self, other: &SourceText) -> bool {
        self.shares_copy_with(other) || self.as_str() == other.as_str()
    }

    /// Whether both are one shared copy.
    pub fn shares_copy_with(&self, other: &SourceText) -> bool {
        matches!((self, other), (SourceText::Shared(a), SourceText::Shared(b)) if std::sync::Arc::ptr_eq(a, b))
    }

    /// Becomes `now` (the same text, read again) when `now` is a shared copy this is not: what
    /// keeps a text past its check holds the copy the next check shares, not one of its own.
    pub fn take_shared_copy(&mut self, now: &SourceText) {
        if matches!(now, SourceText::Shared(_)) && !self.shares_copy_with(now) {
            *self = now.clone();
        }
    }
}

impl std::ops::Deref for SourceText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for SourceText {
    fn from(text: String) -> SourceText {
        SourceText::Owned(text)
    }
}

impl From<&str> for SourceText {
    fn from(text: &str) -> SourceText {
        SourceText::Owned(text.to_string())
    }
}

impl From<&String> for SourceText {
    fn from(text: &String) -> SourceText {
        SourceText::Owned(text.clone())
    }
}

impl From<std::sync::Arc<str>> for SourceText {
    fn from(text: std::sync::Arc<str>) -> SourceText {
        SourceText::Shared(text)
    }
}

/// All files of one run, addressed by [`FileId`].
#[derive(Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

/// One file. Its line index is built on first use: a clean file never needs one, and
/// building it for every file cost a tenth of a whole check.
struct SourceFile {
    /// Shared with whoever else holds the file's name (the walk that found it, the language
    /// server's memos): a tree's ten thousand names were otherwise held seven times.
    name: Arc<str>,
    source: SourceText,
    /// Where each line starts. Held to the end once built (a compiled tree's origins need
    /// every bindings file's), so it is sized exactly, with offsets as spans hold them.
    line_starts: OnceLock<Box<[u32]>>,
    /// How many characters come before each [`CHAR_MARK`]-th byte, built on the first column
    /// asked for far into a long line: a column counted from the line's start each time made
    /// the keys of a one-line data file (minified JSON, a flow collection) quadratic.
    char_marks: OnceLock<Box<[u32]>>,
}

/// Bytes between two [`SourceFile::char_marks`].
const CHAR_MARK: usize = 4096;

/// The characters that begin in `bytes` (its bytes that are not UTF-8 continuations).
fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

impl SourceFile {
    /// How many characters come before byte `at`.
    fn chars_before(&self, at: usize) -> usize {
        let bytes = self.source.as_bytes();
        let marks = self.char_marks.get_or_init(|| {
            let mut marks = Vec::with_capacity(bytes.len() / CHAR_MARK + 1);
            let mut count = 0usize;
            marks.push(0);
            for piece in bytes.chunks(CHAR_MARK) {
                count += chars_in(piece);
                marks.push(offset_of(count));
            }
            marks.into_boxed_slice()
        });
        let mark = at / CHAR_MARK;
        marks.get(mark).map_or(0, |&m| m as usize) + chars_in(&bytes[mark * CHAR_MARK..at])
    }

    fn line_starts(&self) -> &[u32] {
        self.line_starts.get_or_init(|| {
            let bytes = self.source.as_bytes();
            let mut lines = 0;
            after_newlines(bytes, |_| lines += 1);
            let mut starts = Vec::with_capacity(lines + 1);
            starts.push(0);
            after_newlines(bytes, |i| starts.push(offset_of(i)));
            starts.into_boxed_slice()
        })
    }

    fn line_index(&self, byte_index: usize) -> usize {
        match self.line_starts().binary_search(&offset_of(byte_index)) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    /// The byte range of line `line` (with its newline); the line after the last is empty.
    fn line_range(
        &self,
        line: usize,
    ) -> Result<std::ops::Range<usize>, codespan_reporting::files::Error> {
        let starts = self.line_starts();
        let start_of = |i: usize| match i.cmp(&starts.len()) {
            std::cmp::Ordering::Less => Ok(starts[i] as usize),
            std::cmp::Ordering::Equal => Ok(self.source.len()),
            std::cmp::Ordering::Greater => Err(codespan_reporting::files::Error::LineTooLarge {
                given: i,
                max: starts.len() - 1,
            }),
        };
        Ok(start_of(line)?..start_of(line + 1)?)
    }
}

/// A byte offset as spans hold it: files over 4 GiB are refused when they are read.
/// Calls `each` with the offset after each newline in `bytes`, in order. Newlines are searched
/// for eight bytes at a time ([`crate::bytewise`]): the index is built for every bindings file
/// a compile writes origins for, and a byte loop made it a fortieth of the compile.
fn after_newlines(bytes: &[u8], mut each: impl FnMut(usize)) {
    let mut at = 0;
    while let Some(i) = crate::bytewise::position(
        &bytes[at..],
        |word| crate::bytewise::equal(word, b'\n'),
        |c| c == b'\n',
    ) {
        at += i + 1;
        each(at);
    }
}

fn offset_of(byte_index: usize) -> u32 {
    u32::try_from(byte_index).unwrap_or(u32::MAX)
}

impl SourceMap {
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// A map with room for `files` files: a tree's files, added one by one, would leave the
    /// map's earlier copies behind them (about a megabyte per 10,000 files).
    pub fn with_capacity(files: usize) -> SourceMap {
        SourceMap {
            files: Vec::with_capacity(files),
        }
    }

    pub fn add(&mut self, name: impl Into<Arc<str>>, source: impl Into<SourceText>) -> FileId {
        self.files.push(SourceFile {
            name: name.into(),
            source: source.into(),
            line_starts: OnceLock::new(),
            char_marks: OnceLock::new(),
        });
        FileId(self.files.len() as u32 - 1)
    }

    pub fn name(&self, id: FileId) -> &str {
        &self.files[id.0 as usize].name
    }

    /// The file's name, shared: a copy that holds no text of its own.
    pub fn shared_name(&self, id: FileId) -> Arc<str> {
        self.files[id.0 as usize].name.clone()
    }

    pub fn source(&self, id: FileId) -> &str {
        &self.files[id.0 as usize].source
    }

    /// The text of `id` as held: a kept copy shares it (see [`SourceText`]).
    pub fn source_text(&self, id: FileId) -> &SourceText {
        &self.files[id.0 as usize].source
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The 1-based lines and columns where `span` starts and ends, or `None` for a span in no
    /// file of this map ([`Span::NONE`]): what every renderer asks before it shows a place.
    pub fn positions(&self, span: Span) -> Option<((usize, usize), (usize, usize))> {
        if span.is_none() || span.file.0 as usize >= self.files.len() {
            return None;
        }
        Some((
            self.line_col(span.file, span.start),
            self.line_col(span.file, span.end),
        ))
    }

    /// 1-based line and column (column counted in characters, as Puppet does). The line is
    /// found by binary search over the file's line starts.
    pub fn line_col(&self, id: FileId, offset: u32) -> (usize, usize) {
        let file = &self.files[id.0 as usize];
        let src = &file.source;
        let offset = floor_char_boundary(src, (offset as usize).min(src.len()));
        let line = file.line_index(offset);
        let line_start = file.line_range(line).map_or(0, |r| r.start).min(offset);
        let col = if offset - line_start <= CHAR_MARK {
            chars_in(&src.as_bytes()[line_start..offset]) + 1
        } else {
            file.chars_before(offset) - file.chars_before(line_start) + 1
        };
        (line + 1, col)
    }
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

impl<'a> Files<'a> for SourceMap {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, codespan_reporting::files::Error> {
        self.files
            .get(id.0 as usize)
            .map(|f| &*f.name)
            .ok_or(codespan_reporting::files::Error::FileMissing)
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, codespan_reporting::files::Error> {
        self.files
            .get(id.0 as usize)
            .map(|f| f.source.as_str())
            .ok_or(codespan_reporting::files::Error::FileMissing)
    }

    fn line_index(
        &'a self,
        id: FileId,
        byte_index: usize,
    ) -> Result<usize, codespan_reporting::files::Error> {
        Ok(self
            .files
            .get(id.0 as usize)
            .ok_or(codespan_reporting::files::Error::FileMissing)?
            .line_index(byte_index))
    }

    fn line_range(
        &'a self,
        id: FileId,
        line_index: usize,
    ) -> Result<std::ops::Range<usize>, codespan_reporting::files::Error> {
        self.files
            .get(id.0 as usize)
            .ok_or(codespan_reporting::files::Error::FileMissing)?
            .line_range(line_index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Columns far into a long line (past the character marks) count characters as the
    /// short way does, multi-byte ones included.
    #[test]
    fn columns_on_long_lines_count_characters() {
        let mut text = String::from("ab\n");
        for i in 0..5_000 {
            text.push_str(if i % 3 == 0 { "é\u{10348}" } else { "xy" });
        }
        let mut map = SourceMap::new();
        let id = map.add("f", text.clone());
        for (at, _) in text.char_indices().step_by(97) {
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let expected = text[line_start..at].chars().count() + 1;
            let line = text[..at].matches('\n').count() + 1;
            assert_eq!(map.line_col(id, at as u32), (line, expected), "at {at}");
        }
    }

    /// Each newline is found wherever it falls in or across the eight-byte words, next to bytes
    /// whose masks borrow into it (`\n\x0b`, `\n\n`) and beside multi-byte characters.
    #[test]
    fn line_starts_follow_every_newline() {
        let pieces = [
            "\n",
            "\n\x0b",
            "\x0b\n",
            "\n\n",
            "\r\n",
            "ab",
            "é",
            "\u{10348}",
            "\x00",
        ];
        for len in 0..20 {
            for piece in pieces {
                for at in 0..len {
                    let mut text = "x".repeat(len);
                    text.insert_str(at, piece);
                    text.push_str(piece);
                    let file = SourceFile {
                        name: Arc::from(""),
                        source: text.clone().into(),
                        line_starts: OnceLock::new(),
                        char_marks: OnceLock::new(),
                    };
                    let expected: Vec<u32> = std::iter::once(0)
                        .chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1))
                        .collect();
                    assert_eq!(file.line_starts(), &expected[..], "{text:?}");
                }
            }
        }
    }
}
