//! `pbc fmt`: one layout for Puppet and bindings files. It owns the blanks and line ends between
//! tokens: each line indented two spaces per open bracket (a line that continues an expression
//! one step more), the `=>`s of a hash, a resource's attributes or a `site`'s entries aligned,
//! and the `=`s of a class's or define's parameters; on a line no blank inside `(` and `[`, one
//! after a comma, around an operator and inside braces, one where there were several; no
//! trailing blanks, at most one blank line in a row, one line end at the end; a comma after a
//! broken list's last entry, lines past the width broken at a bracket or an `and`/`or`
//! (`wrap`), a relationship arrow on its right operand's line (`relationships`). It must not
//! change a token (it adds only that comma, and moves only that arrow), a comment's text or
//! anything inside a string, a heredoc or a regex, and it proves it: the formatted text is
//! parsed again and its PN (Puppet's own serialisation of the tree) must be the one of the text
//! given, or the layout is refused. A file that does not parse is left as it is. It reads and
//! writes no file (the CLI does).
//!
//! Comments are taken from the text between tokens: the lexer gives every token's span, so
//! what lies between two of them is blanks, line ends and comments, or (a heredoc's end, the
//! few spaces Unicode has besides the ASCII ones) text this module leaves as written, to the
//! end of its line. The lexer is not asked to keep its trivia: the check and the language
//! server lex without them at full speed, and the formatter, which needs them, finds them.

use crate::diag::{codes, Diagnostic};
use crate::lexer::{self, Tok};
use crate::span::{FileId, Span};

/// Spaces per level of indentation (Puppet's style guide).
pub const INDENT: usize = 2;

/// What formatting a file gives.
#[derive(Debug)]
pub enum Formatted {
    /// The file laid out (the same text when it already was).
    Text(String),
    /// The file does not parse: it is left as it is, with its errors.
    NotParsed(Vec<Diagnostic>),
    /// The layout would have changed what the file means: a bug in pbc, reported as such; the
    /// file is left as it is.
    Refused(Diagnostic),
}

/// Lays out `src` (the text of `file`); see the module's documentation.
pub fn format_source(file: FileId, src: &str) -> Formatted {
    let before = crate::parser::parse_file(file, src);
    let errors: Vec<Diagnostic> = before
        .diagnostics
        .into_iter()
        .filter(Diagnostic::is_error)
        .collect();
    let program = match before.program {
        Some(program) if errors.is_empty() => program,
        _ => return Formatted::NotParsed(errors),
    };
    let moved = relationships::arrows_to_their_right_operand(file, src);
    let laid_out = wrap::lists_and_long_lines(file, layout(file, moved.as_deref().unwrap_or(src)));
    let pn_before = crate::pn::program_to_json(&program);
    drop(program);
    match meaning_kept(file, &pn_before, &laid_out) {
        None => Formatted::Text(laid_out),
        Some(refusal) => Formatted::Refused(refusal),
    }
}

/// Every file of a `pbc fmt`: the texts of those whose layout changes, and what stops the others.
pub struct FormatReport {
    /// Every file read, by id in path order, for rendering the diagnostics.
    pub files: crate::span::SourceMap,
    /// The files laid out anew (their id in `files`, which has their text as it was), with
    /// their new text, in path order.
    pub changed: Vec<(std::path::PathBuf, FileId, String)>,
    /// How many files were laid out as they already were.
    pub unchanged: usize,
    /// Files that cannot be read, are not UTF-8 or do not parse (left as they are), and any
    /// layout refused.
    pub diagnostics: Vec<Diagnostic>,
}

/// Lays out every `.pp` file that `paths` names (files, or directories searched for them),
/// on every core; writes nothing.
pub fn format_paths(
    paths: &[std::path::PathBuf],
    options: &crate::Options,
) -> std::io::Result<FormatReport> {
    let found = crate::source::expand_paths(paths, &options.files)?;
    let results =
        crate::parallel::parallel_map(found.len(), |i| -> std::io::Result<(String, Formatted)> {
            let id = FileId(u32::try_from(i).unwrap_or(u32::MAX));
            let bytes = crate::source::read_file(&found[i], "manifest", &options.files)?;
            let (text, bad) = crate::source::decode(id, bytes);
            let formatted = match bad {
                Some(bad) => Formatted::NotParsed(vec![bad]),
                None => format_source(id, &text),
            };
            Ok((text, formatted))
        });
    let mut report = FormatReport {
        files: crate::span::SourceMap::with_capacity(found.len()),
        changed: Vec::new(),
        unchanged: 0,
        diagnostics: Vec::new(),
    };
    for (path, result) in found.into_iter().zip(results) {
        let (text, formatted): (String, Formatted) = result?;
        let name = path.to_string_lossy().into_owned();
        let same = matches!(&formatted, Formatted::Text(laid_out) if *laid_out == text);
        let id = report.files.add(name.as_str(), text);
        match formatted {
            Formatted::Text(_) if same => report.unchanged += 1,
            Formatted::Text(laid_out) => report.changed.push((path, id, laid_out)),
            Formatted::NotParsed(diagnostics) => report.diagnostics.extend(diagnostics),
            Formatted::Refused(refusal) => report.diagnostics.push(refusal),
        }
    }
    Ok(report)
}

/// `None` when `after` parses to the PN `pn_before`; otherwise why the layout is refused.
pub fn meaning_kept(file: FileId, pn_before: &str, after: &str) -> Option<Diagnostic> {
    let parsed = crate::parser::parse_file(file, after);
    let same = match &parsed.program {
        Some(program) if !parsed.diagnostics.iter().any(Diagnostic::is_error) => {
            crate::pn::program_to_json(program) == pn_before
        }
        _ => false,
    };
    if same {
        return None;
    }
    Some(
        Diagnostic::error(
            codes::FORMAT_CHANGED_MEANING,
            Span::new(file, 0, 0),
            "pbc fmt would change what this file means; it is left as it was",
        )
        .with_note(
            "note: the laid-out text does not parse to the same program (its PN differs): this is a bug in pbc, please report it with the file",
        ),
    )
}

/// One token, in the order of the text.
struct Token {
    start: usize,
    end: usize,
    kind: Kind,
    role: Role,
    /// An operator between two operands (`=`, `==`, `+`, `->`, a `-` or `*` after an operand),
    /// which the layout gives a blank on each side on its line.
    binary: bool,
}

/// Whether `tok` is an operator between two operands; `after_operand`: whether the token
/// before it ends one (a `-` or a `*` is otherwise a negation or a splat).
fn is_binary(tok: &Tok, after_operand: bool) -> bool {
    match tok {
        // `in` is a word, with the blanks of any word; `!` has no left operand.
        Tok::In | Tok::Not => false,
        Tok::Minus | Tok::Times => after_operand,
        Tok::QMark => true,
        _ => kind_of(tok) == Kind::WantsMore || role_of(tok) == Role::Relationship,
    }
}

/// What the wrapping of long lines (`wrap`) needs to know of a token besides its kind.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Comma,
    /// `|`, around a lambda's parameters.
    Pipe,
    Dot,
    /// A type's name (`Hash` in `Hash[String, Integer]`).
    TypeName,
    /// `@(TAG)`: its text starts on the next line.
    HeredocTag,
    /// `->`, `~>`, `<-` or `<~`.
    Relationship,
    /// `class` or `define`: a `(` two tokens on opens its parameters.
    Definition,
    /// `=`: aligned with the others of a class's or define's parameters, before their defaults.
    Assign,
    /// `and` or `or`: a long condition breaks before one.
    Logical,
    /// A token whose arrow is a statement's, not a list entry's: a selector's `?` (when no brace
    /// follows it) or a site's `bindings`. A brace with one of these in it holds statements.
    ArrowOfAStatement,
    Plain,
}

fn role_of(tok: &Tok) -> Role {
    match tok {
        Tok::Comma => Role::Comma,
        Tok::Pipe => Role::Pipe,
        Tok::Dot => Role::Dot,
        Tok::ClassRef(_) => Role::TypeName,
        Tok::Heredoc(_) => Role::HeredocTag,
        Tok::InEdge | Tok::InEdgeSub | Tok::OutEdge | Tok::OutEdgeSub => Role::Relationship,
        Tok::QMark | Tok::KwSiteBindings => Role::ArrowOfAStatement,
        Tok::Class | Tok::Define => Role::Definition,
        Tok::Equals => Role::Assign,
        Tok::And | Tok::Or => Role::Logical,
        _ => Role::Plain,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Opens,
    Closes,
    /// `=>` or `+>`.
    Arrow,
    /// A token after which the expression goes on (`=`, `+`, `and`, `->`, `to`...).
    WantsMore,
    /// A token that only ever continues an expression (`->`, `.`, `and`, `?`...).
    Continues,
    /// `:`, after a resource's title or a case's values.
    Colon,
    /// `;`, between a resource's bodies.
    Semicolon,
    Other,
}

fn kind_of(tok: &Tok) -> Kind {
    if tok.opens_bracket() {
        return Kind::Opens;
    }
    if tok.closes_bracket() {
        return Kind::Closes;
    }
    match tok {
        Tok::FArrow | Tok::PArrow => Kind::Arrow,
        Tok::Colon => Kind::Colon,
        Tok::Semic => Kind::Semicolon,
        Tok::InEdge
        | Tok::InEdgeSub
        | Tok::OutEdge
        | Tok::OutEdgeSub
        | Tok::Dot
        | Tok::And
        | Tok::Or
        | Tok::QMark
        | Tok::KwTo
        | Tok::KwAs
        | Tok::KwInId => Kind::Continues,
        Tok::Equals
        | Tok::Appends
        | Tok::Deletes
        | Tok::Plus
        | Tok::Minus
        | Tok::Times
        | Tok::Div
        | Tok::Modulo
        | Tok::IsEqual
        | Tok::NotEqual
        | Tok::Match
        | Tok::NoMatch
        | Tok::Less
        | Tok::LessEqual
        | Tok::Greater
        | Tok::GreaterEqual
        | Tok::LShift
        | Tok::RShift
        | Tok::In
        | Tok::Not => Kind::WantsMore,
        _ => Kind::Other,
    }
}

/// The text's tokens in text order (those inside strings left out); by the start of a token,
/// the end of the text the layout must leave as written from there (a string with what it
/// interpolates, a regex); the starts of heredocs' texts.
struct Lexed {
    tokens: Vec<Token>,
    verbatim: std::collections::BTreeMap<usize, usize>,
    heredoc_texts: std::collections::BTreeSet<usize>,
}

impl Lexed {
    /// Where the text the layout writes from `token` on ends: the token's end, or that of the
    /// string or regex it starts, with what the string interpolates.
    fn end_of(&self, token: &Token) -> usize {
        self.verbatim
            .get(&token.start)
            .map_or(token.end, |&e| e.max(token.end))
    }
}

fn lexed(file: FileId, src: &str) -> Lexed {
    let lexed = lexer::lex(file, src);
    let mut verbatim = std::collections::BTreeMap::new();
    let mut heredoc_texts = std::collections::BTreeSet::new();
    let mut tokens = Vec::with_capacity(lexed.tokens.len());
    // The start of the outermost string being read, and how deep its interpolations go.
    let mut string: Option<(usize, usize)> = None;
    let mut heredoc_text_next = false;
    // Whether the last token kept ends an operand (Puppet's lexer asks the same to tell a
    // regex from a division; a hash's `}` ends one too).
    let mut after_operand = false;
    for (start, tok, end) in &lexed.tokens {
        let (start, end) = (*start, *end);
        if heredoc_text_next && string.is_none() {
            heredoc_texts.insert(start);
        }
        heredoc_text_next = matches!(tok, Tok::Heredoc(_)) && string.is_none();
        match (&mut string, tok) {
            (Some((_, depth)), Tok::DqPre(_)) => {
                *depth += 1;
                continue;
            }
            (Some((from, depth)), Tok::DqPost(_)) => {
                *depth -= 1;
                if *depth == 0 {
                    verbatim.insert(*from, end);
                    string = None;
                }
                continue;
            }
            (Some(_), _) => continue,
            (None, Tok::DqPre(_)) => string = Some((start, 1)),
            (None, Tok::Str(_) | Tok::DqMid(_) | Tok::DqPost(_) | Tok::Regex(_)) => {
                verbatim.insert(start, end);
            }
            (None, _) => {}
        }
        tokens.push(Token {
            start,
            end,
            kind: kind_of(tok),
            role: role_of(tok),
            binary: is_binary(tok, after_operand),
        });
        after_operand = !tok.allows_regex_after() || *tok == Tok::RBrace;
    }
    // A heredoc's text comes right after its tag among the tokens, and after the rest of the
    // tag's line in the text.
    tokens.sort_by_key(|t| t.start);
    Lexed {
        tokens,
        verbatim,
        heredoc_texts,
    }
}

/// The comments of `src` in order, each without the blanks that end its line: what a layout
/// must keep, the same and in the same order (`pbc fmt`'s tests count them before and after).
pub fn comments(file: FileId, src: &str) -> Vec<String> {
    let lexed = lexed(file, src);
    // The text between tokens, outside what is left as written, and after the last token.
    let mut gaps = Vec::with_capacity(lexed.tokens.len() + 1);
    let mut pos = 0;
    for token in &lexed.tokens {
        if let Some(gap) = src.get(pos..token.start) {
            gaps.push(gap);
            pos = lexed.end_of(token);
        }
    }
    gaps.push(src.get(pos..).unwrap_or_default());
    gaps.into_iter()
        .flat_map(pieces)
        .filter_map(|piece| match piece {
            Piece::Comment(text) => Some(text.trim_end_matches([' ', '\t']).to_string()),
            _ => None,
        })
        .collect()
}

/// What lies between two tokens, read piece by piece.
enum Piece<'s> {
    Blanks(&'s str),
    LineEnd(&'s str),
    Comment(&'s str),
    /// Text that is neither (a heredoc's end line): left as written, to the end of its line.
    Verbatim(&'s str),
}

fn pieces(gap: &str) -> Vec<Piece<'_>> {
    let bytes = gap.as_bytes();
    // A carriage return that does not end a line is a blank to Puppet's lexer, as a space is.
    // Kept as text, it was written back with a line end after it, which the next layout then
    // took for a blank line and removed: the layout was not its own fixed point.
    let blank = |i: usize| match bytes[i] {
        b' ' | b'\t' => true,
        b'\r' => bytes.get(i + 1) != Some(&b'\n'),
        _ => false,
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        match bytes[i] {
            _ if blank(i) => {
                while i < bytes.len() && blank(i) {
                    i += 1;
                }
                out.push(Piece::Blanks(&gap[start..i]));
            }
            b'\n' => {
                out.push(Piece::LineEnd(&gap[i..i + 1]));
                i += 1;
            }
            b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                out.push(Piece::LineEnd(&gap[i..i + 2]));
                i += 2;
            }
            b'#' => {
                let end = gap[i..].find('\n').map_or(gap.len(), |n| i + n);
                let end = if gap[..end].ends_with('\r') {
                    end - 1
                } else {
                    end
                };
                i = end;
                out.push(Piece::Comment(&gap[start..end]));
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let end = gap[i + 2..].find("*/").map_or(gap.len(), |n| i + 2 + n + 2);
                i = end;
                out.push(Piece::Comment(&gap[start..end]));
            }
            _ => {
                let end = gap[i..].find('\n').map_or(gap.len(), |n| i + n);
                i = end;
                out.push(Piece::Verbatim(&gap[start..end]));
            }
        }
    }
    out
}

/// A bracket open at some point of the text: where it is, and the indentation of the lines
/// inside it. A resource's body (after its title's `:`, to the `;` or `}` that ends it) is one
/// too: its attributes are indented under the title, and aligned among themselves.
struct Open {
    token: usize,
    inner: usize,
    body: bool,
    /// A class's or define's parameters, whose `=`s are aligned as arrows are.
    parameters: bool,
}

/// An `=>` (or a parameter's `=`) that may be aligned with the others of its bracket: where
/// its padding starts in the output.
struct ArrowAt {
    bracket: usize,
    line: usize,
    padding_at: usize,
    /// A parameter's `=`, not an arrow.
    equals: bool,
}

/// The layout itself (see the module's documentation); the text is the same but for blanks and
/// line ends between tokens outside strings and heredocs.
fn layout(file: FileId, src: &str) -> String {
    let lexed = lexed(file, src);
    let Lexed {
        tokens,
        heredoc_texts,
        ..
    } = &lexed;
    let newline = if src.contains("\r\n") { "\r\n" } else { "\n" };
    let mut out = String::with_capacity(src.len() + src.len() / 8);
    let mut opens: Vec<Open> = Vec::new();
    // The indentation of the line being written, less any continuation step: what a bracket
    // opened on it indents its lines from.
    let mut line_base = 0usize;
    let mut arrows: Vec<ArrowAt> = Vec::new();
    let mut line = 0usize;
    let mut pos = 0usize;
    for (i, token) in tokens.iter().enumerate() {
        // Only a token inside text already written (none: a string's tokens are left out)
        // starts before the position.
        let Some(gap) = src.get(pos..token.start) else {
            continue;
        };
        let previous = i.checked_sub(1).map(|p| &tokens[p]);
        let closes = token.kind == Kind::Closes;
        if closes {
            while opens.last().is_some_and(|o| o.body) {
                opens.pop();
            }
        }
        let continues = !closes
            && previous.is_some_and(|p| p.kind != Kind::Opens)
            && (token.kind == Kind::Continues
                || previous.is_some_and(|p| {
                    matches!(p.kind, Kind::WantsMore | Kind::Continues | Kind::Arrow)
                }));
        let base = match (closes, opens.last()) {
            (true, Some(open)) => open.inner.saturating_sub(INDENT),
            (_, Some(open)) => open.inner,
            (_, None) => 0,
        };
        let indent = base + if continues { INDENT } else { 0 };
        if let Some(previous) = previous.filter(|_| blanks_only(gap)) {
            out.push_str(blank_between(src, previous, token, gap));
        } else if heredoc_texts.contains(&token.start) {
            // The line end before a heredoc's text, and any margin outside its token: text.
            out.push_str(gap);
            line += gap.matches('\n').count();
        } else {
            let breaks = write_gap(
                &mut out,
                gap,
                GapLayout {
                    at_start: pos == 0,
                    at_end: None,
                    indent,
                    comment_indent: match (closes, opens.last()) {
                        (true, Some(open)) => open.inner,
                        _ => indent,
                    },
                },
            );
            if breaks > 0 || pos == 0 {
                line_base = base;
            }
            line += breaks;
        }
        let aligned = |open: &Open| {
            token.kind == Kind::Arrow || (token.role == Role::Assign && open.parameters)
        };
        if !gap.contains('\n') {
            if let Some(open) = opens.last().filter(|open| aligned(open)) {
                // The arrow's blank is made one space, then widened once every arrow of the
                // bracket is known. (No heredoc's text ends on an arrow's line.)
                trim_line_end(&mut out, 0);
                if !out.is_empty() && !out.ends_with('\n') {
                    arrows.push(ArrowAt {
                        bracket: open.token,
                        line,
                        padding_at: out.len(),
                        equals: token.role == Role::Assign,
                    });
                    out.push(' ');
                }
            }
        }
        // The token, or the text left as written that starts with it.
        let end = lexed.end_of(token);
        let text = &src[token.start..end];
        out.push_str(text);
        line += text.matches('\n').count();
        pos = end;
        match token.kind {
            Kind::Opens => opens.push(Open {
                token: i,
                inner: line_base + INDENT,
                body: false,
                parameters: text == "(" && i >= 2 && tokens[i - 2].role == Role::Definition,
            }),
            Kind::Closes => {
                opens.pop();
            }
            // A case's values are followed by their block; a title by its attributes.
            Kind::Colon if tokens.get(i + 1).is_some_and(|t| t.kind != Kind::Opens) => {
                opens.push(Open {
                    token: i,
                    inner: line_base + INDENT,
                    body: true,
                    parameters: false,
                })
            }
            Kind::Semicolon if opens.last().is_some_and(|o| o.body) => {
                opens.pop();
            }
            _ => {}
        }
    }
    write_gap(
        &mut out,
        &src[pos..],
        GapLayout {
            at_start: pos == 0,
            at_end: Some(newline),
            indent: 0,
            comment_indent: 0,
        },
    );
    align_arrows(out, &arrows)
}

/// The blanks between two tokens on one line (`gap`, blanks only, maybe none): none inside
/// `(` and `[` or before a comma; one after a comma or an arrow, around an operator between
/// two operands, before a `{` and inside a brace that holds something; none in an empty
/// bracket; else one where there were any and none where there were none (Puppet reads
/// `$a [1]` and `$a[1]` differently: before a `[` that follows an operand, a blank stays, and
/// none is added).
fn blank_between(src: &str, previous: &Token, token: &Token, gap: &str) -> &'static str {
    if previous.kind == Kind::Arrow {
        return " ";
    }
    let opener = |t: &Token| (t.kind == Kind::Opens).then(|| src.as_bytes()[t.start]);
    let closer = |t: &Token| (t.kind == Kind::Closes).then(|| src.as_bytes()[t.start]);
    match (opener(previous), closer(token)) {
        (Some(_), Some(_)) => return "",
        (Some(b'(' | b'['), _) | (_, Some(b')' | b']')) => return "",
        (Some(b'{'), _) | (_, Some(b'}')) => return " ",
        _ => {}
    }
    if opener(token) == Some(b'{') || token.binary || previous.binary {
        return " ";
    }
    if token.role == Role::Comma {
        ""
    } else if previous.role == Role::Comma || !gap.is_empty() {
        " "
    } else {
        ""
    }
}

struct GapLayout {
    at_start: bool,
    /// At the end of the text: the line end it ends with.
    at_end: Option<&'static str>,
    /// The indentation of the next token's line, if it starts one.
    indent: usize,
    /// The indentation of a comment on a line of its own.
    comment_indent: usize,
}

/// Writes the blanks, line ends and comments of `gap`; returns how many line ends it wrote.
fn write_gap(out: &mut String, gap: &str, how: GapLayout) -> usize {
    // What was written before the gap is a token's, and is never trimmed: the text of a heredoc
    // whose end line says `|-` stops before its last line end, and may end in blanks that are
    // its own (Puppet keeps them).
    let floor = out.len();
    let pieces = pieces(gap);
    let mut breaks = 0;
    // Line ends in a row with nothing between them but blanks.
    let mut ends_in_a_row = 0usize;
    let mut line_started = !out.is_empty() && !out.ends_with('\n');
    let mut written_any = false;
    let mut pending_blank: Option<&str> = None;
    for piece in &pieces {
        match piece {
            Piece::Blanks(blanks) => pending_blank = Some(blanks),
            Piece::LineEnd(end) => {
                pending_blank = None;
                trim_line_end(out, floor);
                if !line_started {
                    // A blank line: at most one, none at the start of the file.
                    if ends_in_a_row >= 1 || (how.at_start && !written_any) {
                        continue;
                    }
                }
                out.push_str(end);
                breaks += 1;
                ends_in_a_row += usize::from(!line_started);
                line_started = false;
            }
            Piece::Comment(text) | Piece::Verbatim(text) => {
                let comment = matches!(piece, Piece::Comment(_));
                if !comment {
                    // A heredoc's end line: its margin is its text's.
                    if let Some(blanks) = pending_blank.take() {
                        out.push_str(blanks);
                    }
                } else if line_started {
                    if let Some(blanks) = pending_blank.take() {
                        out.push_str(one_blank(blanks));
                    }
                } else {
                    push_indent(out, how.comment_indent);
                }
                let text = if comment && !text.starts_with("/*") {
                    text.trim_end_matches([' ', '\t'])
                } else {
                    text
                };
                out.push_str(text);
                written_any = true;
                line_started = true;
                ends_in_a_row = 0;
            }
        }
    }
    if let Some(newline) = how.at_end {
        trim_line_end(out, floor);
        while out.len() > floor && out.ends_with('\n') {
            out.pop();
            if out.ends_with('\r') {
                out.pop();
            }
        }
        if !out.is_empty() {
            out.push_str(newline);
        }
        return breaks;
    }
    if line_started {
        if let Some(blanks) = pending_blank {
            out.push_str(one_blank(blanks));
        }
    } else if !how.at_start || written_any {
        push_indent(out, how.indent);
    }
    breaks
}

/// Whether a gap between two tokens is only blanks, on one line. A carriage return there ends no
/// line (a line end is a `\n`, which fails the test): a blank, as in `pieces`.
fn blanks_only(gap: &str) -> bool {
    gap.bytes().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// The blanks between two things on a line as they are written: as they were when they are
/// spaces, else one space (a tab's width, or a carriage return's, is not the layout's to keep).
fn one_blank(blanks: &str) -> &str {
    if blanks.contains(['\t', '\r']) {
        " "
    } else {
        blanks
    }
}

/// Takes the blanks off the end of `out`'s last line, none of them before `floor`.
fn trim_line_end(out: &mut String, floor: usize) {
    while out.len() > floor && out.ends_with([' ', '\t']) {
        out.pop();
    }
}

fn push_indent(out: &mut String, indent: usize) {
    out.extend(std::iter::repeat_n(' ', indent));
}

/// Widens each aligned arrow's padding so that the arrows of one bracket, one to a line, stand
/// in one column: one space after the longest key (puppet-lint's `arrow_alignment`, which asks
/// for it however long the lines get). The `=`s of parameters stand in one column too, but
/// never so far right that an aligned line passes the width: the parameters whose names stand
/// furthest right are left out of it, one space before their `=`, until the others' lines fit;
/// a line past the width as it is stays out too.
fn align_arrows(out: String, arrows: &[ArrowAt]) -> String {
    // A line with two arrows of one bracket aligns neither.
    let mut per_line: std::collections::BTreeMap<(usize, usize), usize> = Default::default();
    for a in arrows {
        *per_line.entry((a.bracket, a.line)).or_default() += 1;
    }
    // Each arrow one to its line, by bracket (with whether they are `=`s): its column, how many
    // characters follow the padding to the end of the line, and where the padding goes.
    type Placed = (usize, usize, usize);
    let mut by_bracket: std::collections::BTreeMap<usize, (bool, Vec<Placed>)> = Default::default();
    for a in arrows
        .iter()
        .filter(|a| per_line[&(a.bracket, a.line)] == 1)
    {
        let line_start = out[..a.padding_at].rfind('\n').map_or(0, |i| i + 1);
        let column = out[line_start..a.padding_at].chars().count();
        let tail = if a.equals {
            let line_end = out[a.padding_at..]
                .find('\n')
                .map_or(out.len(), |i| a.padding_at + i);
            out[a.padding_at..line_end]
                .trim_end_matches('\r')
                .chars()
                .count()
        } else {
            0
        };
        if !a.equals || column + tail <= WIDTH {
            let (equals, items) = by_bracket.entry(a.bracket).or_default();
            *equals = a.equals;
            items.push((column, tail, a.padding_at));
        }
    }
    let mut widened: Vec<(usize, usize)> = Vec::new();
    for (_, (equals, mut items)) in by_bracket {
        items.sort_unstable();
        // The longest keys first out, until the column leaves every line within the width.
        let mut widest_tail = 0;
        let mut fitting = 0;
        for (k, &(column, tail, _)) in items.iter().enumerate() {
            widest_tail = widest_tail.max(tail);
            if equals && column + widest_tail > WIDTH {
                break;
            }
            fitting = k + 1;
        }
        let Some(&(column_of_all, _, _)) = items[..fitting].last() else {
            continue;
        };
        widened.extend(
            items[..fitting]
                .iter()
                .filter(|&&(column, _, _)| column < column_of_all)
                .map(|&(column, _, at)| (at, column_of_all - column)),
        );
    }
    if widened.is_empty() {
        return out;
    }
    widened.sort_unstable();
    let mut laid = String::with_capacity(out.len() + widened.iter().map(|w| w.1).sum::<usize>());
    let mut from = 0;
    for (at, extra) in widened {
        laid.push_str(&out[from..at]);
        push_indent(&mut laid, extra);
        from = at;
    }
    laid.push_str(&out[from..]);
    laid
}

mod relationships;
#[cfg(test)]
mod tests;
mod wrap;

pub use wrap::WIDTH;
