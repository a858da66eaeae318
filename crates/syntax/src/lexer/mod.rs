//! The lexer: turns one file's text into the token vector the grammar reads, and owns **all**
//! context sensitivity of Puppet's syntax. The grammar never looks at raw text and never decides
//! what a character means.
//!
//! Design. A logos scanner (`token::Raw`) recognises the context-free tokens one at a time
//! (the commonest kinds, plain names, variables and single punctuation, are told from their
//! first bytes without it, by `common_raw`, which always agrees with it); this driver keeps
//! the state Puppet's own lexer keeps (reference 1.6) and decides the rest:
//! - `[` is `ListStart` at offset 0 or after whitespace, else `LBrack` (only `LBrack` makes an
//!   access); `(` is `WsLParen` when it is the first thing on its line (only `LParen` makes a
//!   call); `{` after `?` is `SelBrace`; `/` is a regex only after tokens that cannot end an
//!   operand;
//! - strings, interpolation and heredocs are scanned by hand (`strings.rs`); `${ ... }` re-enters
//!   the code scanner until the `}` that closes it, and then applies Puppet's variable rewrite
//!   (`${x}`, `${x[1]}`, `${x.y}` start with a variable);
//! - heredoc bodies start on the line after their header; the code scanner jumps over them at the
//!   next newline (`newline_jump`), so several heredocs may start on one line;
//! - the bindings words are keywords only inside `bindings NAME { }` and `site { }` bodies and
//!   only where the bindings grammar can use them (DECISIONS D1): a stack of open brackets
//!   remembers which body each bracket belongs to.
//!
//! Tokens are small and `Copy`: one with a text carries where the text is (a [`Text`]: a run
//! of the source, or one of the [`DecodedTexts`] the lexer made), and the parser's builder makes
//! the string when a grammar rule takes it.
//!
//! Nesting is counted here: more than [`MAX_NESTING`] open brackets, braces and interpolations
//! stop the file with one `NESTING_TOO_DEEP` diagnostic, so no later stage sees deep input.
//! The lexer never panics and never stops at the first error: bad input becomes a diagnostic plus
//! an `Error` or `Other` token, and lexing goes on where that is meaningful.

mod strings;
pub mod token;

use crate::bytewise;
use crate::diag::{codes, Diagnostic};
use crate::span::{FileId, Span};
use logos::Logos;
use smol_str::SmolStr;
use std::cell::RefCell;
use std::rc::Rc;
use token::{puppet_keyword, Raw};
pub use token::{NumberTok, Text, Tok};

/// The deepest bracket/brace/interpolation nesting accepted. Real manifests stay below 20.
pub const MAX_NESTING: usize = 100;

/// A token with its byte range.
pub type SpannedTok = (usize, Tok, usize);

/// `text` as a `SmolStr`. Most token texts fit inline, and `SmolStr::new_inline`, inlined
/// here, stores them in place. `SmolStr::new` is a call that copies the text into a stack
/// buffer and at once reads the buffer back, at other offsets, into its result: those reads
/// wait for the copy's stores to drain (measured: 4% of the parse bench's time on bindings
/// files, three quarters of it on two such reads).
#[inline]
pub(crate) fn smol(text: &str) -> SmolStr {
    if text.len() <= SmolStr::INLINE_CAP {
        SmolStr::new_inline(text)
    } else {
        SmolStr::new(text)
    }
}

/// The texts the lexer decoded (escapes, heredoc margins, `\/` in a regex), which tokens point
/// to with a [`Text`]; also any run of the source too far in or too long for a `Text` to hold
/// its place (files are smaller than that: this keeps a string given to the parser directly
/// exact). The lexer appends and the parser's builder reads, both at once while a file is
/// streamed, so the list is shared; neither holds a borrow across a call of the other.
#[derive(Clone, Debug, Default)]
pub struct DecodedTexts(Rc<RefCell<Vec<SmolStr>>>);

impl DecodedTexts {
    fn push(&self, text: &str) -> Text {
        let mut texts = self.0.borrow_mut();
        // Every decoded text is a token's, and a source with more than 4 Gi tokens would need
        // far more memory than exists.
        let index = u32::try_from(texts.len()).unwrap_or(u32::MAX);
        texts.push(smol(text));
        Text::decoded(index)
    }

    /// The source's bytes `start..end` as a token's text.
    fn run(&self, src: &str, start: usize, end: usize) -> Text {
        Text::run(start, end).unwrap_or_else(|| self.push(&src[start..end]))
    }

    /// A token's text, whether a run of `src` or decoded.
    pub fn with_text<R>(&self, text: Text, src: &str, then: impl FnOnce(&str) -> R) -> R {
        match text.decoded_index() {
            None => then(text.in_source(src).unwrap_or_default()),
            Some(index) => then(self.0.borrow().get(index).map_or("", SmolStr::as_str)),
        }
    }

    /// A token's text as a `SmolStr`.
    pub fn text(&self, text: Text, src: &str) -> SmolStr {
        match text.decoded_index() {
            None => smol(text.in_source(src).unwrap_or_default()),
            Some(index) => self.0.borrow().get(index).cloned().unwrap_or_default(),
        }
    }
}

/// What a file lexes to: tokens, diagnostics, and whether lexing had to stop early (after which
/// the parser's complaints about the missing rest are noise).
#[derive(Debug, Default)]
pub struct Lexed {
    pub tokens: Vec<SpannedTok>,
    pub decoded: DecodedTexts,
    pub diagnostics: Vec<Diagnostic>,
    pub stopped: bool,
}

/// Lexes one file.
pub fn lex(file: FileId, src: &str) -> Lexed {
    // A whole file's tokens: about one per four bytes of source in dense code.
    let mut lx = Lexer::new(file, src, src.len() / 4);
    lx.run();
    Lexed {
        tokens: lx.out,
        decoded: lx.decoded,
        diagnostics: lx.diags,
        stopped: lx.stopped,
    }
}

/// The tokens of `src` as the parser takes them, a few thousand at a time: the whole file's
/// tokens are never held at once. Lexing a file this way gives the same tokens as [`lex`]; the
/// parser uses it for the common case of a file without errors, and [`lex`] (which also sees
/// the file's whole bracket structure) when there are errors to report.
pub struct TokenStream<'s> {
    lexer: Lexer<'s>,
    /// The tokens lexed and not yet handed over. Once they are, the chunk takes the lexer's
    /// next tokens: a file's two chunks are its only room for tokens, however long it is.
    ready: Chunk,
    /// Whether the lexer's first token is a copy of one already handed over, kept for it to
    /// look back at.
    lookback: bool,
    done: bool,
}

/// How many tokens a [`TokenStream`] lexes ahead.
const STREAM_CHUNK: usize = 4096;

impl<'s> TokenStream<'s> {
    pub fn new(file: FileId, src: &'s str) -> TokenStream<'s> {
        // Only a chunk is ever waiting: no room for the whole file's tokens is asked for (for a
        // large file that was hundreds of megabytes of address space, never used). Every file
        // takes a whole chunk's room, whatever its size, from those the files before it on the
        // same thread left ([`spare_chunk`]). Sized to each file (about half its bytes), each
        // size took fresh pages of its own: `pbc parse` of the Debian corpus took 2,190 page
        // faults and 35.3 ms of CPU, 1,640 and 33.7 ms with one size. Each file's room asked
        // for and freed cost more where freed memory goes back to the system at once (`pbc
        // lsp`, src/main.rs): each file's chunk was handed back, and its pages faulted in again
        // for the next (a sixth of the language server's first check of a 10,000-file tree).
        let mut lexer = Lexer::new(file, src, 0);
        lexer.out = spare_chunk();
        lexer.pause_at = STREAM_CHUNK;
        lexer.start();
        TokenStream {
            lexer,
            ready: Chunk::default(),
            lookback: false,
            done: false,
        }
    }

    /// Where the texts of the tokens that are not runs of the source are.
    pub fn decoded(&self) -> DecodedTexts {
        self.lexer.decoded.clone()
    }

    /// Whether the lexer found anything to say (then [`lex`] is the way to report it).
    pub fn troubled(&self) -> bool {
        self.lexer.stopped || !self.lexer.diags.is_empty()
    }
}

/// The room for one chunk of tokens: [`STREAM_CHUNK`], and the tokens that one more token of
/// the source (an interpolated string) may add before the lexer pauses.
const CHUNK_ROOM: usize = STREAM_CHUNK + 64;

/// How many chunks' room a thread keeps for its next file: a file lexed here holds two.
const SPARE_CHUNKS_KEPT: usize = 2;

thread_local! {
    /// The chunks the token streams that ended on this thread left, empty, for the next.
    static SPARE_CHUNKS: RefCell<Vec<Vec<SpannedTok>>> = const { RefCell::new(Vec::new()) };
}

/// An empty chunk with [`CHUNK_ROOM`]: one a stream left on this thread, else a new one.
fn spare_chunk() -> Vec<SpannedTok> {
    SPARE_CHUNKS
        .try_with(|spare| spare.try_borrow_mut().ok()?.pop())
        .ok()
        .flatten()
        .unwrap_or_else(|| Vec::with_capacity(CHUNK_ROOM))
}

impl Drop for TokenStream<'_> {
    /// The stream's chunks are left to the next file this thread lexes. One that grew past
    /// its room (a string of thousands of interpolations) is let go.
    fn drop(&mut self) {
        for mut chunk in [
            std::mem::take(&mut self.ready.tokens),
            std::mem::take(&mut self.lexer.out),
        ] {
            if chunk.capacity() != CHUNK_ROOM {
                continue;
            }
            chunk.clear();
            let _ = SPARE_CHUNKS.try_with(|spare| {
                if let Ok(mut spare) = spare.try_borrow_mut() {
                    if spare.len() < SPARE_CHUNKS_KEPT {
                        spare.push(chunk);
                    }
                }
            });
        }
    }
}

impl Iterator for TokenStream<'_> {
    type Item = SpannedTok;

    /// Inlined into the parser's loop. The chunk is refilled first and the token then taken
    /// from it, so that every token comes from one place, the chunk: when the refill returned
    /// the first token of each chunk itself, the two ways in met in a slot on the stack that the
    /// parser then read back at other offsets than it was written, and each read waited for the
    /// writes to drain (a fifth of the parser loop's samples; the corpus parses 3% faster
    /// without it, bindings files 6-8%).
    #[inline]
    fn next(&mut self) -> Option<SpannedTok> {
        if self.ready.spent() {
            self.refill();
        }
        self.ready.take()
    }
}

/// Tokens handed over to the parser a chunk at a time, and how far it has taken them:
/// `tokens[next..]` are still to come.
#[derive(Default)]
struct Chunk {
    tokens: Vec<SpannedTok>,
    next: usize,
}

impl Chunk {
    #[inline]
    fn spent(&self) -> bool {
        self.next >= self.tokens.len()
    }

    #[inline]
    fn take(&mut self) -> Option<SpannedTok> {
        let token = *self.tokens.get(self.next)?;
        self.next += 1;
        Some(token)
    }

    /// Makes the chunk empty, keeping its room.
    fn clear(&mut self) {
        self.tokens.clear();
        self.next = 0;
    }
}

impl TokenStream<'_> {
    /// Lexes the next chunk into `ready`, leaving none to hand over only at the end. The
    /// chunk handed over and the lexer's trade places: no room is asked for per chunk.
    #[inline(never)]
    fn refill(&mut self) {
        self.ready.clear();
        while !self.done {
            if self.lexer.lex_code() != CodeEnd::Paused {
                self.done = true;
            }
            std::mem::swap(&mut self.ready.tokens, &mut self.lexer.out);
            if !self.done {
                if self.lexer.out.capacity() == 0 {
                    self.lexer.out = spare_chunk();
                }
                // The lexer looks back at the last token it made (`/` after a value is a
                // division): it keeps a copy of that one, which the next chunk then skips.
                if let Some(&last) = self.ready.tokens.last() {
                    self.lexer.out.push(last);
                }
            }
            self.ready.next = usize::from(std::mem::replace(&mut self.lookback, !self.done));
            if !self.ready.spent() {
                return;
            }
            self.ready.clear();
        }
    }

    /// The next tokens, never none, as a chunk of their own and where they start in it;
    /// `None` at the end.
    fn next_chunk(&mut self) -> Option<(Vec<SpannedTok>, usize)> {
        self.refill();
        if self.ready.spent() {
            return None;
        }
        let chunk = std::mem::replace(&mut self.ready.tokens, Vec::with_capacity(CHUNK_ROOM));
        Some((chunk, std::mem::take(&mut self.ready.next)))
    }
}

/// A file's tokens as the parser takes them: lexed here ([`TokenStream`]) or on a thread of
/// its own ([`LexedElsewhere`]). One type, not a trait the parser is generic over: the
/// parser's loop is then compiled once, and the grammar's `token_to_symbol` (a match over every
/// terminal), called from that one place, is inlined into it. When the loop was compiled four
/// times (each stream, with and without the top-level hand-over), it called that function out
/// of line, and a bindings-dense tree parsed about 15% slower.
pub enum TokenSource<'s> {
    Here(TokenStream<'s>),
    Elsewhere(LexedElsewhere),
}

impl TokenSource<'_> {
    /// Where the texts of the tokens that are not runs of the source are, for the parser's
    /// builder.
    pub fn decoded(&self) -> DecodedTexts {
        match self {
            TokenSource::Here(tokens) => tokens.decoded(),
            TokenSource::Elsewhere(tokens) => tokens.decoded(),
        }
    }

    /// Whether the lexer found anything to say (then [`lex`] is the way to report it). Known
    /// once the stream has ended.
    pub fn troubled(&self) -> bool {
        match self {
            TokenSource::Here(tokens) => tokens.troubled(),
            TokenSource::Elsewhere(tokens) => tokens.troubled(),
        }
    }
}

impl Iterator for TokenSource<'_> {
    type Item = SpannedTok;

    #[inline]
    fn next(&mut self) -> Option<SpannedTok> {
        match self {
            TokenSource::Here(tokens) => tokens.next(),
            TokenSource::Elsewhere(tokens) => tokens.next(),
        }
    }
}

/// A large file's [`TokenStream`] lexed on a second core while the parser builds on the first:
/// lexing is about a third of parsing, so a large manifest parses in about two thirds of the
/// time. Chunks of tokens cross in a queue of [`LEXED_AHEAD`], with the texts the lexer decoded
/// for them (appended here in the order the lexer numbered them, so each token's [`Text`] finds
/// its own); the lexer never runs further ahead, and stops when the parser does (the queue's
/// other end is dropped).
pub struct LexedElsewhere {
    chunks: std::sync::mpsc::Receiver<Handed>,
    /// The tokens arrived and not yet taken.
    ready: Chunk,
    decoded: DecodedTexts,
    troubled: bool,
    ended: bool,
}

/// How many chunks of tokens the lexing thread may be ahead of the parser.
const LEXED_AHEAD: usize = 4;

/// What the lexing thread hands over.
enum Handed {
    /// A chunk of tokens, where they start in it, and the texts decoded for them.
    Tokens(Vec<SpannedTok>, usize, Vec<SmolStr>),
    End {
        troubled: bool,
    },
}

impl LexedElsewhere {
    /// Starts lexing `src` on a thread of `scope`.
    pub fn start<'scope, 'src: 'scope>(
        scope: &'scope std::thread::Scope<'scope, '_>,
        file: FileId,
        src: &'src str,
    ) -> LexedElsewhere {
        let (give, chunks) = std::sync::mpsc::sync_channel(LEXED_AHEAD);
        scope.spawn(move || {
            // The lexer, and the shared list of its decoded texts, never leave this thread.
            let mut stream = TokenStream::new(file, src);
            let decoded = stream.decoded();
            let mut texts_given = 0;
            while let Some((chunk, start)) = stream.next_chunk() {
                let texts = {
                    let all = decoded.0.borrow();
                    let new = all.get(texts_given..).unwrap_or_default().to_vec();
                    texts_given = all.len();
                    new
                };
                if give.send(Handed::Tokens(chunk, start, texts)).is_err() {
                    return;
                }
            }
            let _ = give.send(Handed::End {
                troubled: stream.troubled(),
            });
        });
        LexedElsewhere {
            chunks,
            ready: Chunk::default(),
            decoded: DecodedTexts::default(),
            troubled: false,
            ended: false,
        }
    }

    #[inline(never)]
    fn refill(&mut self) {
        if self.ended {
            return;
        }
        match self.chunks.recv() {
            Ok(Handed::Tokens(tokens, start, texts)) => {
                self.decoded.0.borrow_mut().extend(texts);
                self.ready = Chunk {
                    tokens,
                    next: start,
                };
            }
            Ok(Handed::End { troubled }) => {
                self.troubled = troubled;
                self.ended = true;
            }
            // The lexing thread ended without saying how: the scope's join reports its panic.
            Err(_) => {
                self.troubled = true;
                self.ended = true;
            }
        }
    }
}

impl Iterator for LexedElsewhere {
    type Item = SpannedTok;

    #[inline]
    fn next(&mut self) -> Option<SpannedTok> {
        if self.ready.spent() {
            self.refill();
        }
        self.ready.take()
    }
}

impl LexedElsewhere {
    /// Where the texts its tokens carry are found: a list shared with the taker, which grows
    /// as chunks arrive.
    pub fn decoded(&self) -> DecodedTexts {
        self.decoded.clone()
    }

    /// Whether the lexer found anything to say; known once the stream has ended.
    pub fn troubled(&self) -> bool {
        self.troubled
    }
}

/// Which body an open bracket belongs to. Decides what the bindings words mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ctx {
    Puppet,
    /// Directly in `site { }`.
    SiteBody,
    /// Inside some bracket within a site body.
    SiteNested,
    /// Directly in `bindings NAME { }` or a `when ... { }` in it: bind operations start here.
    BindingsBody,
    /// Inside some bracket within bindings (a producer, an options hash, a lambda).
    BindingsNested,
}

impl Ctx {
    fn nested(self) -> Ctx {
        match self {
            Ctx::Puppet => Ctx::Puppet,
            Ctx::SiteBody | Ctx::SiteNested => Ctx::SiteNested,
            Ctx::BindingsBody | Ctx::BindingsNested => Ctx::BindingsNested,
        }
    }
    fn in_bindings(self) -> bool {
        matches!(self, Ctx::BindingsBody | Ctx::BindingsNested)
    }
    fn in_site(self) -> bool {
        matches!(self, Ctx::SiteBody | Ctx::SiteNested)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FrameKind {
    Brace,
    Bracket,
    Paren,
    /// `${` in a string; closed by the `}` that balances it.
    Interp,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    kind: FrameKind,
    ctx: Ctx,
}

/// How a call to [`Lexer::lex_code`] ended.
#[derive(PartialEq, Eq)]
enum CodeEnd {
    /// Reached the end of the input (or of the heredoc body being lexed).
    Eof,
    /// Met the `}` that closes the innermost interpolation.
    InterpClosed,
    /// A fatal error: stop everything.
    Stop,
    /// Streaming: enough tokens are waiting; call again to go on.
    Paused,
}

pub(crate) struct Lexer<'s> {
    file: FileId,
    src: &'s str,
    bytes: &'s [u8],
    pos: usize,
    /// Where the current scan must stop (the end of a heredoc body, or of the file).
    end: usize,
    /// Offset that counts as "offset 0" for the `ListStart` rule (0, or a heredoc body start).
    origin: usize,
    out: Vec<SpannedTok>,
    decoded: DecodedTexts,
    diags: Vec<Diagnostic>,
    /// Offset just after the last newline the dispatcher handled (`line_lexical_start`).
    line_start: usize,
    /// Where the next dispatcher newline jumps to, past pending heredoc bodies.
    newline_jump: Option<usize>,
    frames: Vec<Frame>,
    /// The context the next `{` opens (set by `site`, `bindings NAME` and `when`).
    pending_body: Option<(Ctx, usize)>,
    stopped: bool,
    /// Streaming ([`TokenStream`]): the outermost scan pauses between tokens once this many
    /// are waiting (`usize::MAX`: never).
    pause_at: usize,
    /// How many scans are running (interpolations and heredoc bodies scan within a scan).
    scans: usize,
}

impl<'s> Lexer<'s> {
    /// `tokens`: room for how many tokens to make at first.
    fn new(file: FileId, src: &'s str, tokens: usize) -> Lexer<'s> {
        Lexer {
            file,
            src,
            bytes: src.as_bytes(),
            pos: 0,
            end: src.len(),
            origin: 0,
            out: Vec::with_capacity(tokens),
            decoded: DecodedTexts::default(),
            diags: Vec::new(),
            line_start: 0,
            newline_jump: None,
            // Room for the brackets most files nest, so that the first few do not grow it.
            frames: Vec::with_capacity(16),
            pending_body: None,
            stopped: false,
            pause_at: usize::MAX,
            scans: 0,
        }
    }

    fn span(&self, start: usize, end: usize) -> Span {
        Span::new(self.file, start, end)
    }

    fn error(&mut self, code: &'static str, start: usize, end: usize, msg: impl Into<String>) {
        let span = self.span(start, end);
        self.diags.push(Diagnostic::error(code, span, msg));
    }

    fn warning(&mut self, code: &'static str, start: usize, end: usize, msg: impl Into<String>) {
        let span = self.span(start, end);
        self.diags.push(Diagnostic::warning(code, span, msg));
    }

    fn push(&mut self, start: usize, tok: Tok, end: usize) {
        self.out.push((start, tok, end));
    }

    /// `text`, decoded, as a token's text.
    fn decode(&self, text: &str) -> Text {
        self.decoded.push(text)
    }

    /// The source's bytes `start..end` as a token's text.
    fn text_run(&self, start: usize, end: usize) -> Text {
        self.decoded.run(self.src, start, end)
    }

    fn prev(&self) -> Option<&Tok> {
        self.out.last().map(|(_, t, _)| t)
    }

    fn ctx(&self) -> Ctx {
        self.frames.last().map_or(Ctx::Puppet, |f| f.ctx)
    }

    fn run(&mut self) {
        self.start();
        let _ = self.lex_code();
    }

    /// What comes before the first token.
    fn start(&mut self) {
        if self.src.starts_with('\u{feff}') {
            self.error(
                codes::ILLEGAL_BOM,
                0,
                3,
                "illegal UTF-8 byte order mark at the beginning of the input: [EF BB BF]",
            );
            self.diags[0]
                .notes
                .push("help: remove these bytes from the Puppet source".into());
            self.pos = 3;
            self.line_start = 3;
            self.origin = 3;
        }
    }

    /// Opens a bracket frame, enforcing the nesting limit.
    fn open(&mut self, kind: FrameKind, ctx: Ctx, start: usize) -> bool {
        if self.frames.len() >= MAX_NESTING {
            let end = (start + 1).min(self.src.len());
            let span = self.span(start, end);
            self.diags.push(
                Diagnostic::error(
                    codes::NESTING_TOO_DEEP,
                    span,
                    format!("brackets, blocks and interpolations nest more than {MAX_NESTING} levels deep"),
                )
                .with_note("help: split the expression, or move the inner parts into variables or functions"),
            );
            self.stopped = true;
            return false;
        }
        self.frames.push(Frame { kind, ctx });
        true
    }

    /// Scans code tokens from `self.pos` until the end of input, or until the `}` that closes
    /// the innermost open interpolation frame.
    fn lex_code(&mut self) -> CodeEnd {
        self.scans += 1;
        let end = self.scan_code();
        self.scans -= 1;
        end
    }

    fn scan_code(&mut self) -> CodeEnd {
        while self.pos < self.end {
            if self.out.len() >= self.pause_at && self.scans == 1 {
                return CodeEnd::Paused;
            }
            // Most trivia is ASCII blanks, line ends and comments between tokens: skipped here,
            // without starting the token machine (which still takes the Unicode spaces, and a
            // line end that a heredoc's text follows). The position stays in a local, and the
            // bytes are cut at the end once, so that the loop checks no bounds of its own.
            // Indentation, and the spaces that align `=>`s, are skipped eight at a time; the
            // blank between two tokens is mostly one space, for which a word's test is slower.
            // The byte is tested in the order of how often each case comes (a space, then the
            // first byte of a token or a comment), in tests that each have their own branch: as
            // one `match`, the five cases were a jump table, an indirect jump the processor
            // mispredicted more often (the corpus parsed 1% slower).
            let code = &self.bytes[..self.end];
            let mut p = self.pos;
            while let Some(&byte) = code.get(p) {
                if byte == b' ' {
                    p += 1;
                    if code.get(p) == Some(&b' ') {
                        p += bytewise::run_of(&code[p..], b' ');
                    }
                } else if byte > b' ' {
                    if byte != b'#' {
                        break;
                    }
                    p = self.line_end(p);
                } else if byte == b'\n' && self.newline_jump.is_none() {
                    p += 1;
                    self.line_start = p;
                    p += bytewise::run_of(&code[p..], b' ');
                } else if byte == b'\t' || byte == b'\r' {
                    p += 1;
                } else {
                    break;
                }
            }
            self.pos = p;
            if p == code.len() {
                break;
            }
            let start = p;
            let (kind, stop) = match common_raw(&code[start..]) {
                Some((kind, len)) => (kind, start + len),
                None => {
                    let rest = &self.src[start..self.end];
                    let mut raw = Raw::lexer(rest);
                    let kind = raw.next();
                    let stop = start + raw.span().end.max(1);
                    match kind {
                        Some(Ok(k)) => (k, stop),
                        _ => {
                            self.other_run(start);
                            continue;
                        }
                    }
                }
            };
            match kind {
                Raw::Blank => self.pos = stop,
                Raw::Newline => {
                    self.pos = match self.newline_jump.take() {
                        Some(j) if j > stop => j,
                        _ => stop,
                    };
                    self.line_start = self.pos;
                }
                Raw::LineComment => self.pos = stop,
                Raw::BlockCommentStart => match self.src[start + 2..self.end].find("*/") {
                    Some(i) => self.pos = start + 2 + i + 2,
                    None => {
                        self.error(
                            codes::UNCLOSED_MLCOMMENT,
                            start,
                            start + 2,
                            "unclosed multiline comment",
                        );
                        self.stopped = true;
                        return CodeEnd::Stop;
                    }
                },
                Raw::Name => {
                    self.pos = stop;
                    self.name(start, stop);
                }
                Raw::Word => {
                    self.pos = stop;
                    self.push(start, Tok::Word(self.text_run(start, stop)), stop);
                }
                Raw::ClassRef => {
                    self.pos = stop;
                    self.class_ref(start, stop);
                }
                Raw::LoneColonColon => {
                    self.pos = stop;
                    self.error(
                        codes::ILLEGAL_FULLY_QUALIFIED_NAME,
                        start,
                        stop,
                        "illegal fully qualified name: `::` must be followed by a name",
                    );
                    self.push(start, Tok::Error, stop);
                }
                Raw::Variable => {
                    self.pos = stop;
                    self.push(start, Tok::Variable(self.text_run(start + 1, stop)), stop);
                }
                Raw::Digit => self.number(start),
                Raw::DoubleQuote => {
                    if self.lex_dq(start) == CodeEnd::Stop {
                        return CodeEnd::Stop;
                    }
                }
                Raw::SingleQuote => {
                    if !self.lex_sq(start) {
                        return CodeEnd::Stop;
                    }
                }
                Raw::HeredocStart => {
                    if self.heredoc(start) == CodeEnd::Stop {
                        return CodeEnd::Stop;
                    }
                }
                Raw::Slash => {
                    self.pos = stop;
                    let regex_ok = self.prev().is_none_or(Tok::allows_regex_after);
                    if !(regex_ok && self.regex(start)) {
                        self.push(start, Tok::Div, stop);
                    }
                }
                Raw::LBrack => {
                    self.pos = stop;
                    let ws_before = start == self.origin
                        || self.src[..start]
                            .chars()
                            .next_back()
                            .is_some_and(is_whitespace_char);
                    let ctx = self.ctx().nested();
                    if !self.open(FrameKind::Bracket, ctx, start) {
                        return CodeEnd::Stop;
                    }
                    let tok = if ws_before {
                        Tok::ListStart
                    } else {
                        Tok::LBrack
                    };
                    self.push(start, tok, stop);
                }
                Raw::RBrack => {
                    self.pos = stop;
                    if self
                        .frames
                        .last()
                        .is_some_and(|f| f.kind == FrameKind::Bracket)
                    {
                        self.frames.pop();
                    }
                    self.push(start, Tok::RBrack, stop);
                }
                Raw::LParen => {
                    self.pos = stop;
                    let first_on_line = self.src[self.line_start.min(start)..start]
                        .chars()
                        .all(|c| c == '\r' || is_blank_char(c));
                    let ctx = self.ctx().nested();
                    if !self.open(FrameKind::Paren, ctx, start) {
                        return CodeEnd::Stop;
                    }
                    let tok = if first_on_line {
                        Tok::WsLParen
                    } else {
                        Tok::LParen
                    };
                    self.push(start, tok, stop);
                }
                Raw::RParen => {
                    self.pos = stop;
                    if self
                        .frames
                        .last()
                        .is_some_and(|f| f.kind == FrameKind::Paren)
                    {
                        self.frames.pop();
                    }
                    self.push(start, Tok::RParen, stop);
                }
                Raw::LBrace => {
                    self.pos = stop;
                    let sel = matches!(self.prev(), Some(Tok::QMark));
                    let depth = self.frames.len();
                    let ctx = match self.pending_body.take() {
                        Some((ctx, d)) if d == depth => ctx,
                        other => {
                            self.pending_body = other;
                            self.ctx().nested()
                        }
                    };
                    if !self.open(FrameKind::Brace, ctx, start) {
                        return CodeEnd::Stop;
                    }
                    self.push(start, if sel { Tok::SelBrace } else { Tok::LBrace }, stop);
                }
                Raw::RBrace => {
                    self.pos = stop;
                    // Like Puppet's brace counter, a `}` closes the innermost brace or
                    // interpolation even if brackets inside it were left open.
                    if let Some(i) = self
                        .frames
                        .iter()
                        .rposition(|f| matches!(f.kind, FrameKind::Brace | FrameKind::Interp))
                    {
                        let kind = self.frames[i].kind;
                        self.frames.truncate(i);
                        if kind == FrameKind::Interp {
                            return CodeEnd::InterpClosed;
                        }
                    }
                    self.push(start, Tok::RBrace, stop);
                }
                Raw::DoubleQMark => {
                    self.pos = stop;
                    if self.ctx().in_bindings() {
                        self.push(start, Tok::Query, stop);
                    } else {
                        self.push(start, Tok::QMark, start + 1);
                        self.push(start + 1, Tok::QMark, stop);
                    }
                }
                simple => {
                    self.pos = stop;
                    let tok = simple_tok(simple);
                    self.push(start, tok, stop);
                }
            }
            if self.stopped {
                return CodeEnd::Stop;
            }
        }
        CodeEnd::Eof
    }

    /// A run of characters that start no token becomes one `Other` token (so that a megabyte of
    /// junk gives one syntax error, not a million).
    fn other_run(&mut self, start: usize) {
        let mut p = start;
        for (i, c) in self.src[start..self.end].char_indices() {
            if i > 0 && starts_token(c) {
                break;
            }
            p = start + i + c.len_utf8();
        }
        self.pos = p;
        self.push(start, Tok::Other(self.text_run(start, p)), p);
    }

    fn class_ref(&mut self, start: usize, stop: usize) {
        let text = &self.src[start..stop];
        if self.src[stop..self.end].starts_with("::") {
            // `A::b`, `A::3`: Puppet rejects the whole word.
            let mut e = stop + 2;
            while e < self.end && is_word_byte(self.bytes[e]) {
                e += 1;
            }
            self.pos = e;
            self.error(
                codes::ILLEGAL_CLASS_REFERENCE,
                start,
                e,
                format!(
                    "illegal class reference `{}`: every segment must start with an upper case letter",
                    &self.src[start..e]
                ),
            );
            self.push(start, Tok::Error, e);
            return;
        }
        // D2: upper-case spellings of the bindings keywords.
        if self.ctx() == Ctx::BindingsBody {
            let kw = match text {
                "AS" => Some(("as", Tok::KwAs)),
                "TO" => Some(("to", Tok::KwTo)),
                "IN" => Some(("in", Tok::KwInId)),
                _ => None,
            };
            if let Some((lower, tok)) = kw {
                let span = self.span(start, stop);
                self.diags.push(
                    Diagnostic::error(
                        codes::KEYWORD_CASE,
                        span,
                        format!("keywords are lower case: write `{lower}`, not `{text}`"),
                    )
                    .did_you_mean(text, lower),
                );
                self.push(start, tok, stop);
                return;
            }
        }
        self.push(start, Tok::ClassRef(self.text_run(start, stop)), stop);
    }

    /// A name: a Puppet keyword, a bindings keyword (by context) or a NAME. (The scanner has
    /// told names from the other bare words, which are WORDs.)
    fn name(&mut self, start: usize, stop: usize) {
        let text = &self.src[start..stop];
        let ctx = self.ctx();
        if let Some(tok) = self.contextual_keyword(text, ctx, stop) {
            self.push(start, tok, stop);
            return;
        }
        if let Some(kw) = puppet_keyword(text) {
            let kw = if kw == Tok::Class && ctx.in_bindings() {
                Tok::KwClassType
            } else {
                kw
            };
            self.push(start, kw, stop);
            return;
        }
        self.push(start, Tok::Name(self.text_run(start, stop)), stop);
    }

    /// The bindings keywords (DECISIONS D1): only in bindings and site bodies, and only where a
    /// bindings rule can start with them. After `.` and before `=>` a word is always a name, so
    /// `$x.map`, `{ alias => 1 }` and option names keep working.
    fn contextual_keyword(&mut self, text: &str, ctx: Ctx, stop: usize) -> Option<Tok> {
        if ctx == Ctx::Puppet {
            if self.frames.is_empty() && self.at_statement_start() {
                let next = self.skip_trivia(stop);
                match text {
                    "site" if self.bytes.get(next) == Some(&b'{') => {
                        self.pending_body = Some((Ctx::SiteBody, 0));
                        return Some(Tok::KwSite);
                    }
                    "bindings" if self.name_then_brace(next) => {
                        self.pending_body = Some((Ctx::BindingsBody, 0));
                        return Some(Tok::KwBindings);
                    }
                    _ => {}
                }
            }
            return None;
        }
        if matches!(self.prev(), Some(Tok::Dot)) {
            return None;
        }
        if ctx == Ctx::SiteBody && text == "bindings" {
            return Some(Tok::KwSiteBindings);
        }
        if self.followed_by_farrow(stop) {
            return None;
        }
        let prev = self.prev();
        if ctx.in_site() {
            return match text {
                // Nested in site code (`if ... { categories { } }`) it is still the keyword,
                // so that the checker can say categories may not be conditional.
                "categories"
                    if ctx == Ctx::SiteBody
                        || self.bytes.get(self.skip_trivia(stop)) == Some(&b'{') =>
                {
                    Some(Tok::KwCategories)
                }
                "layer" if self.bytes.get(self.skip_trivia(stop)) == Some(&b'{') => {
                    Some(Tok::KwLayer)
                }
                _ => None,
            };
        }
        let after_bind = matches!(prev, Some(Tok::KwBind));
        let after_flags = matches!(
            prev,
            Some(Tok::KwBind | Tok::KwMultibind | Tok::KwAbstract | Tok::KwOverride)
        );
        let body = ctx == Ctx::BindingsBody;
        let tok = match text {
            "bind" if body => Tok::KwBind,
            "multibind" if body => Tok::KwMultibind,
            "rebind" if body => Tok::KwRebind,
            "include" if body => Tok::KwInclude,
            "exclude" if body => Tok::KwExclude,
            "when" if body => {
                self.pending_body = Some((Ctx::BindingsBody, self.frames.len()));
                Tok::KwWhen
            }
            "to" if body => Tok::KwTo,
            "as" if body => Tok::KwAs,
            "in" if body => Tok::KwInId,
            "abstract" | "override"
                if after_flags
                    || matches!(
                        prev,
                        Some(
                            Tok::KwParameters
                                | Tok::KwVariables
                                | Tok::KwAs
                                | Tok::KwMap
                                | Tok::KwRebind
                        )
                    ) =>
            {
                if text == "abstract" {
                    Tok::KwAbstract
                } else {
                    Tok::KwOverride
                }
            }
            "parameters" | "parameter" if after_flags => Tok::KwParameters,
            "variables" | "variable" if after_flags => Tok::KwVariables,
            "map" if after_bind => Tok::KwMap,
            "alias" if after_bind => Tok::KwAlias,
            "renamed" if after_bind => Tok::KwRenamed,
            "dependency" if after_bind => Tok::KwDependency,
            "optional" if matches!(prev, Some(Tok::KwTo)) => Tok::KwOptional,
            "producer" if matches!(prev, Some(Tok::KwTo | Tok::KwOptional)) => Tok::KwProducer,
            _ => return None,
        };
        Some(tok)
    }

    /// Whether a top-level statement may start here (for `site` and `bindings`): at the start,
    /// after `}` or `;`, or after a token that ends an operand (statements juxtapose).
    fn at_statement_start(&self) -> bool {
        match self.prev() {
            None => true,
            Some(Tok::Name(n)) => {
                !self
                    .decoded
                    .with_text(*n, self.src, crate::ast::is_statement_call)
            }
            Some(t) => matches!(
                t,
                Tok::RBrace
                    | Tok::Semic
                    | Tok::RParen
                    | Tok::RBrack
                    | Tok::RCollect
                    | Tok::RRCollect
                    | Tok::Word(_)
                    | Tok::ClassRef(_)
                    | Tok::Variable(_)
                    | Tok::Number(_)
                    | Tok::Str(_)
                    | Tok::DqPost(_)
                    | Tok::Regex(_)
                    | Tok::Boolean(_)
                    | Tok::Undef
                    | Tok::Default
            ),
        }
    }

    /// The offset of the next character that is not blank, newline or comment.
    #[inline(always)]
    fn skip_trivia(&self, p: usize) -> usize {
        // This looks past every bindings word, and the trivia there is nearly always one space.
        if p + 1 < self.end
            && self.bytes[p] == b' '
            && !matches!(
                self.bytes[p + 1],
                b' ' | b'\t' | b'\r' | b'\n' | b'#' | b'/' | 0x80..
            )
        {
            return p + 1;
        }
        self.skip_trivia_run(p)
    }

    /// Where the line holding `p` ends: its `\n`, or the end of the input. Found eight bytes at
    /// a time, which takes 4% off the corpus's parse against a byte at a time (`memchr` was no
    /// faster: its setup outweighs most comments).
    fn line_end(&self, p: usize) -> usize {
        bytewise::position(
            &self.bytes[p..self.end],
            |word| bytewise::equal(word, b'\n'),
            |c| c == b'\n',
        )
        .map_or(self.end, |i| p + i)
    }

    // Out of line, so that `skip_trivia` inlines only its one-space test where it is called.
    #[inline(never)]
    fn skip_trivia_run(&self, mut p: usize) -> usize {
        // Byte by byte: only a non-ASCII byte is decoded (a Unicode space is a blank too).
        while p < self.end {
            match self.bytes[p] {
                b' ' | b'\t' | b'\r' | b'\n' => p += 1,
                b'#' => p = self.line_end(p),
                b'/' if p + 1 < self.end && self.bytes[p + 1] == b'*' => {
                    match self.src[p + 2..self.end].find("*/") {
                        Some(i) => p += i + 4,
                        None => return self.end,
                    }
                }
                0x80.. => match self.src[p..self.end].chars().next() {
                    Some(c) if is_blank_char(c) => p += c.len_utf8(),
                    _ => return p,
                },
                _ => return p,
            }
        }
        self.end
    }

    fn followed_by_farrow(&self, stop: usize) -> bool {
        let p = self.skip_trivia(stop);
        self.bytes[p..self.end].starts_with(b"=>")
    }

    /// `bindings` must be followed by a name and `{` to open a bindings block.
    fn name_then_brace(&self, p: usize) -> bool {
        let mut raw = Raw::lexer(&self.src[p..self.end]);
        if !matches!(raw.next(), Some(Ok(Raw::Name | Raw::Word))) {
            return false;
        }
        let after = self.skip_trivia(p + raw.span().end);
        self.bytes.get(after) == Some(&b'{')
    }

    /// A `/` in operand position: the regex runs to the next unescaped `/` (newlines included).
    /// Returns false (the caller emits `Div`) when there is no closing `/`.
    fn regex(&mut self, start: usize) -> bool {
        let body_start = start + 1;
        let mut p = body_start;
        loop {
            let Some(i) = self.src[p..self.end].find('/') else {
                return false;
            };
            let slash = p + i;
            let backslashes = self.src[body_start..slash]
                .bytes()
                .rev()
                .take_while(|&b| b == b'\\')
                .count();
            if backslashes % 2 == 1 {
                p = slash + 1;
                continue;
            }
            let source = &self.src[body_start..slash];
            let text = if source.contains("\\/") {
                self.decode(&source.replace("\\/", "/"))
            } else {
                self.text_run(body_start, slash)
            };
            self.pos = slash + 1;
            self.push(start, Tok::Regex(text), slash + 1);
            return true;
        }
    }

    /// Numbers follow Puppet's pattern
    /// `\b(?:0[xX][0-9A-Fa-f]*|0?\d+(?:\.\d+)?(?:[eE]-?\d+)?)\b` with its backtracking, then
    /// Puppet's checks for hex, octal and decimal forms.
    fn number(&mut self, start: usize) {
        let b = self.bytes;
        let end = self.end;
        let digits = |mut p: usize| {
            while p < end && b[p].is_ascii_digit() {
                p += 1;
            }
            p
        };
        let boundary = |p: usize| p >= end || !is_word_byte(b[p]);
        let mut matched: Option<usize> = None;
        if b[start] == b'0' && start + 1 < end && (b[start + 1] | 0x20) == b'x' {
            let mut p = start + 2;
            while p < end && b[p].is_ascii_hexdigit() {
                p += 1;
            }
            if boundary(p) {
                matched = Some(p);
            }
        }
        if matched.is_none() {
            let int_end = digits(start);
            let frac_end =
                (int_end + 1 < end && b[int_end] == b'.' && b[int_end + 1].is_ascii_digit())
                    .then(|| digits(int_end + 1));
            let exp = |p: usize| -> Option<usize> {
                if p < end && (b[p] | 0x20) == b'e' {
                    let mut q = p + 1;
                    if q < end && b[q] == b'-' {
                        q += 1;
                    }
                    if q < end && b[q].is_ascii_digit() {
                        return Some(digits(q));
                    }
                }
                None
            };
            // The longest forms first; in place, as every number in a file comes through here.
            let candidates = [
                frac_end.and_then(exp),
                frac_end,
                exp(int_end),
                Some(int_end),
            ];
            matched = candidates.into_iter().flatten().find(|&p| boundary(p));
        }
        let Some(stop) = matched else {
            let mut p = start;
            while p < end && is_word_byte(b[p]) {
                p += 1;
            }
            self.pos = p;
            self.error(
                codes::ILLEGAL_NUMBER,
                start,
                p,
                format!("illegal number `{}`", &self.src[start..p]),
            );
            self.push(start, Tok::Error, p);
            return;
        };
        self.pos = stop;
        let text = &self.src[start..stop];
        let radix = if text.len() > 1 && (text.as_bytes()[1] | 0x20) == b'x' {
            if text.len() == 2 {
                self.error(
                    codes::INVALID_HEX_NUMBER,
                    start,
                    stop,
                    format!("not a valid hex number `{text}`"),
                );
                self.push(start, Tok::Error, stop);
                return;
            }
            16
        } else if text.contains(['.', 'e', 'E']) {
            let value: f64 = text.parse().unwrap_or(f64::INFINITY);
            let mantissa_zero = text
                .split(['e', 'E'])
                .next()
                .is_some_and(|m| m.bytes().all(|c| c == b'0' || c == b'.'));
            if !value.is_finite() || (mantissa_zero && text.contains(['e', 'E'])) {
                self.error(
                    codes::INVALID_DECIMAL_NUMBER,
                    start,
                    stop,
                    format!("not a valid decimal number `{text}`"),
                );
                self.push(start, Tok::Error, stop);
                return;
            }
            if text.starts_with('0') && text.len() > 1 && text.as_bytes()[1].is_ascii_digit() {
                self.error(
                    codes::INVALID_DECIMAL_NUMBER,
                    start,
                    stop,
                    format!("not a valid decimal number `{text}`"),
                );
                self.push(start, Tok::Error, stop);
                return;
            }
            0
        } else if text.len() > 1 && text.starts_with('0') {
            if !text.bytes().all(|c| (b'0'..=b'7').contains(&c)) {
                self.error(
                    codes::INVALID_OCTAL_NUMBER,
                    start,
                    stop,
                    format!("not a valid octal number `{text}`"),
                );
                self.push(start, Tok::Error, stop);
                return;
            }
            8
        } else {
            10
        };
        let text = self.text_run(start, stop);
        self.push(start, Tok::Number(NumberTok { text, radix }), stop);
    }
}

/// The token at the start of `rest` and its length, for the kinds most tokens are, found
/// without the scanner: a name that no `::` or `-` continues, a variable that no `::`
/// continues, and the punctuation that never starts a longer token. Anything else is `None`,
/// and the scanner decides. The answer is always the scanner's (the test
/// `common_tokens_are_the_scanners` compares them on every short text of the bytes that
/// matter); it is here because the scanner's call and its state machine were a third of the
/// lexer's time, and these kinds start 87% of the Debian corpus's tokens.
#[inline(always)]
fn common_raw(rest: &[u8]) -> Option<(Raw, usize)> {
    let (&first, after) = rest.split_first()?;
    let word_end = || 1 + word_run(after);
    let kind = match first {
        b'a'..=b'z' => {
            let end = word_end();
            return match rest.get(end) {
                Some(b':' | b'-') => None,
                _ => Some((Raw::Name, end)),
            };
        }
        b'$' => {
            let end = word_end();
            return match rest.get(end) {
                Some(b':') => None,
                _ => Some((Raw::Variable, end)),
            };
        }
        b',' => Raw::Comma,
        b';' => Raw::Semic,
        b'(' => Raw::LParen,
        b')' => Raw::RParen,
        b'[' => Raw::LBrack,
        b']' => Raw::RBrack,
        b'{' => Raw::LBrace,
        b'}' => Raw::RBrace,
        b'.' => Raw::Dot,
        b'\'' => Raw::SingleQuote,
        b'"' => Raw::DoubleQuote,
        b'0'..=b'9' => Raw::Digit,
        b'=' => {
            return match rest.get(1) {
                Some(b'>') => Some((Raw::FArrow, 2)),
                Some(b'=' | b'~') => None,
                _ => Some((Raw::Equals, 1)),
            };
        }
        _ => return None,
    };
    Some((kind, 1))
}

fn simple_tok(raw: Raw) -> Tok {
    match raw {
        Raw::Equals => Tok::Equals,
        Raw::IsEqual => Tok::IsEqual,
        Raw::Match => Tok::Match,
        Raw::FArrow => Tok::FArrow,
        Raw::Plus => Tok::Plus,
        Raw::Appends => Tok::Appends,
        Raw::PArrow => Tok::PArrow,
        Raw::Minus => Tok::Minus,
        Raw::Deletes => Tok::Deletes,
        Raw::InEdge => Tok::InEdge,
        Raw::Not => Tok::Not,
        Raw::NotEqual => Tok::NotEqual,
        Raw::NoMatch => Tok::NoMatch,
        Raw::Less => Tok::Less,
        Raw::LessEqual => Tok::LessEqual,
        Raw::LShift => Tok::LShift,
        Raw::LCollect => Tok::LCollect,
        Raw::LLCollect => Tok::LLCollect,
        Raw::OutEdge => Tok::OutEdge,
        Raw::OutEdgeSub => Tok::OutEdgeSub,
        Raw::Greater => Tok::Greater,
        Raw::GreaterEqual => Tok::GreaterEqual,
        Raw::RShift => Tok::RShift,
        Raw::Pipe => Tok::Pipe,
        Raw::RCollect => Tok::RCollect,
        Raw::RRCollect => Tok::RRCollect,
        Raw::InEdgeSub => Tok::InEdgeSub,
        Raw::Times => Tok::Times,
        Raw::Modulo => Tok::Modulo,
        Raw::Dot => Tok::Dot,
        Raw::Comma => Tok::Comma,
        Raw::Colon => Tok::Colon,
        Raw::Semic => Tok::Semic,
        Raw::QMark => Tok::QMark,
        Raw::At => Tok::At,
        Raw::AtAt => Tok::AtAt,
        // The driver handles every other raw kind itself before calling this.
        _ => Tok::Error,
    }
}

/// `[[:blank:]]`: tab and the Unicode space separators.
fn is_blank_char(c: char) -> bool {
    c == '\t' || c == ' ' || (c as u32 >= 0x80 && is_unicode_space_separator(c))
}

fn is_unicode_space_separator(c: char) -> bool {
    matches!(
        c,
        '\u{a0}' | '\u{1680}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}'
    )
}

fn is_whitespace_char(c: char) -> bool {
    c == '\n' || c == '\r' || is_blank_char(c)
}

/// `\w` in Puppet's lexer: an ASCII letter or digit, or `_`.
#[inline(always)]
pub(crate) fn is_word_byte(b: u8) -> bool {
    WORD_BYTES[usize::from(b)]
}

/// How many bytes at the start of `b` are word bytes ([`is_word_byte`]), eight tested at a
/// time: a name's end is found by arithmetic on its words, where a loop over its bytes ended in
/// a branch the processor mispredicted at most names' ends (about 4% of the lexer's time).
#[inline(always)]
pub(crate) fn word_run(b: &[u8]) -> usize {
    bytewise::position(b, bytewise::not_word, |c| !is_word_byte(c)).unwrap_or(b.len())
}

/// [`is_word_byte`] for every byte: one load per byte of a name, where the test's ranges were
/// four compares and their branches.
static WORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'_';
        b += 1;
    }
    table
};

/// Whether a character can start some token (ends a run of `Other` characters).
fn starts_token(c: char) -> bool {
    c.is_ascii_alphanumeric()
        || is_whitespace_char(c)
        || "_$\"'@/[]{}()=+-!<>|~*%.,:;?#".contains(c)
}

#[cfg(test)]
mod tests;
