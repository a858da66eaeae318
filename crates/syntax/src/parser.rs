//! The parser: glue between the lexer, the generated LALR parser and the AST.
//!
//! Owns the grammar actions' helper ([`Builder`]): Puppet's parse-time transformations
//! (statement calls without parentheses, untitled resources, adjacent hash pairs, string
//! interpolation rewrites, nested class names), the depth counter behind the nesting limit, error
//! recovery and the conversion of lalrpop errors into diagnostics; and, in `driver.rs`, the LR
//! loop the fast parser runs in. Callers see only [`parse_file`] and [`Parsed`]; generated
//! types never leave this module.
//! It must not validate semantics (that is `validate/`) nor decide what characters mean (that is
//! `lexer/`).

use crate::ast::*;
use crate::diag::{codes, expected, Diagnostic};
use crate::lexer::{self, DecodedTexts, NumberTok, Text, Tok};
use crate::span::{FileId, Span};
use lalrpop_util::{ErrorRecovery, ParseError};
use smol_str::SmolStr;

/// The generated parsers. Their style is lalrpop's, not ours, so our lints do not apply to them.
/// `grammar` is the fast one, which parses every file; `reporting` (the same grammar with some
/// levels not inlined, see `build.rs`) parses again a file that has something to report: it
/// notices an error after the operand before it is complete, where the expected tokens are
/// what may close or follow it (`]`, `,`), not every operator that could extend it.
#[allow(
    clippy::all,
    clippy::pedantic,
    clippy::unwrap_used,
    unused_parens,
    unused_imports,
    dead_code
)]
mod generated {
    lalrpop_util::lalrpop_mod!(pub grammar, "/puppet.rs");
    lalrpop_util::lalrpop_mod!(pub reporting, "/puppet_reporting.rs");
}
use generated::reporting;

mod driver;
mod pieces;

/// The deepest AST accepted (counted while parsing). Brackets are capped earlier by the lexer;
/// this catches unbracketed nesting such as `- - - 1`, `$a = $b = ...` or long `elsif` chains.
/// Low enough that every recursive pass (serde's AST JSON is the hungriest, about 10 KiB a level
/// in debug builds) fits a 2 MiB thread stack; `tests/it/limits.rs` holds it to that.
pub const MAX_DEPTH: u32 = 128;

/// At most this many syntax errors are reported per file.
pub const MAX_SYNTAX_ERRORS: usize = 50;

/// The lexer's error type as lalrpop sees it. The lexer never fails (errors are tokens), so this
/// has no values.
#[derive(Clone, Debug, PartialEq)]
pub enum LexStop {}

/// The result of parsing one file: the program when it has no errors, and all diagnostics.
#[derive(Clone)]
pub struct Parsed {
    pub program: Option<Program>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Lexes and parses one file. Never panics; every problem is a diagnostic.
pub fn parse_file(file: FileId, src: &str) -> Parsed {
    parse_file_at(file, src, 0)
}

/// [`parse_file`] for source text that stands at byte `base` of `file` (a Puppet string in a
/// data file): every span, in the AST and in diagnostics, is placed there.
pub fn parse_file_at(file: FileId, src: &str, base: usize) -> Parsed {
    // A large file is parsed in pieces on every core when each piece parses cleanly.
    if let Some(cuts) = pieces::cuts_for(src) {
        let mut body = Vec::new();
        if pieces::parse_in_pieces(file, src, base, &cuts, &mut |e| body.push(e)).is_ok() {
            return Parsed {
                program: Some(pieces::program_of_pieces(file, src, base, body)),
                diagnostics: Vec::new(),
            };
        }
    }
    // Most files have nothing to report: they are parsed as their tokens are lexed, without
    // holding them all. A file with anything to say is parsed again from all its tokens and
    // its bracket structure, which the error recovery needs.
    if let Some(clean) = parse_streaming(file, src, base) {
        return clean;
    }
    parse_with_recovery(file, src, base)
}

/// The parse of a file with something to report: from all its tokens and its bracket
/// structure, which the error recovery needs.
fn parse_with_recovery(file: FileId, src: &str, base: usize) -> Parsed {
    let mut lexed = lexer::lex(file, src);
    for d in &mut lexed.diagnostics {
        shift(d, base);
    }
    let stop_at = if lexed.stopped {
        lexed.tokens.last().map_or(0, |t| t.0)
    } else {
        usize::MAX
    };
    let brackets = bracket_tree(&lexed.tokens);
    let mut builder = Builder::new(file, src, base, brackets, stop_at, lexed.decoded.clone());
    let tokens = lexed.tokens;
    let result = reporting::ProgramParser::new()
        .parse(&mut builder, tokens.into_iter().map(Ok::<_, LexStop>));
    let body = match result {
        Ok(body) => Some(body),
        Err(e) => {
            builder.report(e);
            None
        }
    };
    let mut diagnostics = lexed.diagnostics;
    diagnostics.append(&mut builder.diags);
    if builder.syntax_errors > MAX_SYNTAX_ERRORS {
        let span = Span::new(file, base + src.len(), base + src.len());
        diagnostics.push(Diagnostic::error(
            codes::TOO_MANY_ERRORS,
            span,
            format!(
                "{} more syntax errors in this file are not shown",
                builder.syntax_errors - MAX_SYNTAX_ERRORS
            ),
        ));
    }
    crate::diag::sort(&mut diagnostics);
    let has_errors = diagnostics.iter().any(Diagnostic::is_error);
    let program = match body {
        Some(body) if !has_errors => Some(program(file, src, base, body)),
        _ => None,
    };
    Parsed {
        program,
        diagnostics,
    }
}

/// [`parse_file_at`] for a file with nothing to report: `None` as soon as the lexer or the
/// parser has anything to say.
fn parse_streaming(file: FileId, src: &str, base: usize) -> Option<Parsed> {
    with_tokens(file, src, |tokens| {
        parse_streaming_from(file, src, base, tokens)
    })
}

/// The program [`parse_file`] gives a large file on more than one core, with `src` cut before
/// `cuts` (line starts, such as [`definition_lines`] finds) whatever its size: `None` when a
/// piece does not parse cleanly or a cut is not trusted, where [`parse_file`] parses the whole
/// file instead. For tests and fuzzing, which hold it to the whole file's parse on any cut.
pub fn parse_cut_at(file: FileId, src: &str, cuts: &[usize]) -> Option<Program> {
    let mut body = Vec::new();
    pieces::parse_in_pieces(file, src, 0, cuts, &mut |e| body.push(e)).ok()?;
    Some(pieces::program_of_pieces(file, src, 0, body))
}

pub use pieces::definition_lines;

/// Runs `parse` on the tokens of `src`: lexed on a second core while it runs when the file is
/// large enough and there is one, else here.
fn with_tokens<R>(file: FileId, src: &str, parse: impl FnOnce(lexer::TokenSource<'_>) -> R) -> R {
    if lexes_elsewhere(src) {
        return std::thread::scope(|scope| {
            parse(lexer::TokenSource::Elsewhere(lexer::LexedElsewhere::start(
                scope, file, src,
            )))
        });
    }
    parse(lexer::TokenSource::Here(lexer::TokenStream::new(file, src)))
}

/// From this size a file is lexed on a second core while it is parsed
/// ([`lexer::LexedElsewhere`]): starting a thread and handing chunks over costs some tens of
/// microseconds, a thousandth of such a file's parse.
const LEXED_ELSEWHERE_FROM: usize = 1 << 20;

/// Whether `src` is large enough to be lexed on another core, and there is one.
fn lexes_elsewhere(src: &str) -> bool {
    src.len() >= LEXED_ELSEWHERE_FROM
        && std::thread::available_parallelism().is_ok_and(|n| n.get() > 1)
}

fn parse_streaming_from(
    file: FileId,
    src: &str,
    base: usize,
    mut tokens: lexer::TokenSource<'_>,
) -> Option<Parsed> {
    let mut builder = Builder::new(file, src, base, Vec::new(), usize::MAX, tokens.decoded());
    let result = driver::parse_program(&mut builder, &mut tokens);
    if tokens.troubled() || !builder.diags.is_empty() || builder.syntax_errors > 0 {
        return None;
    }
    Some(Parsed {
        program: Some(program(file, src, base, result?)),
        diagnostics: Vec::new(),
    })
}

/// Where [`parse_file_statements`] hands each top-level statement as soon as it is complete.
struct TopLevelHandOver<'h> {
    /// The bracket depth of the parser's lookahead token, set as the parser reads it
    /// ([`Builder::read`]), and how many brackets are open after it.
    lookahead_depth: u32,
    open: u32,
    /// The folded statement that the next may still take as its argument (`notice` before
    /// `"x"`).
    pending: Vec<Expr>,
    /// How many statements have been handed over.
    handed: usize,
    each: &'h mut dyn FnMut(Expr),
}

impl TopLevelHandOver<'_> {
    fn hand_over(&mut self, statements: impl Iterator<Item = Expr>) {
        for mut statement in statements {
            qualify_nested_names(std::slice::from_mut(&mut statement), None);
            (self.each)(statement);
            self.handed += 1;
        }
    }
}

/// Parses one file and hands `each` its top-level statements in order, each as soon as it is
/// complete, so that a large manifest's tree is never held whole (`pbc parse`, which prints
/// nothing or PN). The statements are the program [`parse_file`] makes, and the diagnostics
/// are its diagnostics. When they hold an error, `each` has been given some statements but not
/// a whole program.
pub fn parse_file_statements(
    file: FileId,
    src: &str,
    each: &mut (dyn FnMut(Expr) + Send),
) -> Vec<Diagnostic> {
    let mut handed = 0;
    if let Some(cuts) = pieces::cuts_for(src) {
        match pieces::parse_in_pieces(file, src, 0, &cuts, each) {
            Ok(()) => return Vec::new(),
            Err(given) => handed = given,
        }
    }
    if handed == 0 {
        return with_tokens(file, src, |tokens| statements_from(file, src, each, tokens));
    }
    // A piece did not parse cleanly: the whole file is parsed, and the statements the pieces
    // before it handed over (the same as this parse's first ones) are not handed again.
    let mut rest = |statement: Expr| {
        if handed > 0 {
            handed -= 1;
        } else {
            each(statement);
        }
    };
    with_tokens(file, src, |tokens| {
        statements_from(file, src, &mut rest, tokens)
    })
}

fn statements_from(
    file: FileId,
    src: &str,
    each: &mut dyn FnMut(Expr),
    mut tokens: lexer::TokenSource<'_>,
) -> Vec<Diagnostic> {
    let mut builder = Builder::new(file, src, 0, Vec::new(), usize::MAX, tokens.decoded());
    builder.top_level = Some(TopLevelHandOver {
        lookahead_depth: 0,
        open: 0,
        pending: Vec::new(),
        handed: 0,
        each: &mut *each,
    });
    let result = driver::parse_program(&mut builder, &mut tokens);
    if result.is_some()
        && !tokens.troubled()
        && builder.diags.is_empty()
        && builder.syntax_errors == 0
    {
        return Vec::new();
    }
    if result.is_none() {
        builder.hand_over_the_last_statement();
    }
    let handed = builder.top_level.as_ref().map_or(0, |top| top.handed);
    drop(builder);
    // A lexing thread stops as soon as nobody takes its tokens.
    drop(tokens);
    // Anything to report: the whole parse says what, and when nothing of it is an error the
    // statements not yet handed over come from its program (the same program).
    let parsed = parse_with_recovery(file, src, 0);
    if let Some(program) = parsed.program {
        program.body.into_iter().skip(handed).for_each(each);
    }
    parsed.diagnostics
}

/// A list the grammar grows by pushes (`v.push(x); v`), from its first entry, with room for
/// four: most attribute and statement lists get a second entry, and grown from a list of one,
/// each was moved then. [`fit`] cuts an attribute list to its length when its node is made; a
/// statement list lives only until its body is folded, and is kept for the next one.
pub(crate) fn list_starting_with<T>(first: T) -> Vec<T> {
    let mut list = Vec::with_capacity(4);
    list.push(first);
    list
}

/// Lists grown by the grammar (`v.push(x); v`) keep up to twice their length (at least four
/// entries once pushed to): an AST keeps them exactly, which is a quarter of a large
/// manifest's tree.
#[inline(always)]
fn fit(kind: &mut ExprKind) {
    fn exact<T>(v: &mut Vec<T>) {
        if v.capacity() > v.len() {
            v.shrink_to_fit();
        }
    }
    // A chain's operators are one fewer than its operands; the room past them goes.
    fn exact_operators<Op>(operators: &mut Box<[Op]>, operands: usize) {
        let len = operands.saturating_sub(1);
        if operators.len() > len {
            let mut kept = std::mem::take(operators).into_vec();
            kept.truncate(len);
            *operators = kept.into_boxed_slice();
        }
    }
    match kind {
        ExprKind::Block { statements } => exact(statements),
        ExprKind::Concat { segments } => exact(segments),
        ExprKind::Array { elements } => exact(elements),
        ExprKind::Hash { entries } => exact(entries),
        ExprKind::Binary {
            operands,
            operators,
        } => {
            exact(operands);
            exact_operators(operators, operands.len());
        }
        ExprKind::Access { keys, .. } => exact(keys),
        ExprKind::Selector { entries, .. } => exact(entries),
        ExprKind::Relationship {
            operands,
            operators,
        } => {
            exact(operands);
            exact_operators(operators, operands.len());
        }
        ExprKind::Call { args, .. } => exact(args),
        ExprKind::Case { options, .. } => exact(options),
        ExprKind::Resource { bodies, .. } => {
            exact(bodies);
            for b in bodies.iter_mut() {
                exact(&mut b.ops);
            }
        }
        ExprKind::ResourceDefaults { ops, .. }
        | ExprKind::ResourceOverride { ops, .. }
        | ExprKind::Collect { ops, .. }
        | ExprKind::Layer { ops, .. }
        | ExprKind::Categories { entries: ops } => exact(ops),
        _ => {}
    }
}

/// Puts `op` after the first `len` of a chain's `operators` while the chain grows
/// ([`Builder::reduce_top`]). An AST's chain keeps its operators in a boxed slice, which is
/// a word smaller than a `Vec` (every expression is as large as its largest kind); while it
/// grows, the slice's length is its room, the slots past `len` hold copies of an operator,
/// and the room doubles when it is full, so that a long chain is built in linear time.
/// [`fit`] cuts the room off when the chain is complete.
fn push_operator<Op: Copy>(operators: &mut Box<[Op]>, len: usize, op: Op) {
    if len >= operators.len() {
        let mut grown = Vec::with_capacity((len * 2).max(4));
        grown.extend_from_slice(operators);
        grown.resize(grown.capacity(), op);
        *operators = grown.into_boxed_slice();
    }
    if let Some(slot) = operators.get_mut(len) {
        *slot = op;
    }
}

/// The program of a file that parsed without errors.
fn program(file: FileId, src: &str, base: usize, mut body: Vec<Expr>) -> Program {
    qualify_nested_names(&mut body, None);
    body.shrink_to_fit();
    Program {
        body,
        span: Span::new(file, base, base + src.len()),
    }
}

/// Every bracket of the file with where it closes and the bracket around it (from the token
/// stream, which keeps the true structure even when the parser has to recover). A few bytes
/// per bracket rather than per token: the error recovery asks about it only at errors.
fn bracket_tree(tokens: &[lexer::SpannedTok]) -> Vec<Bracket> {
    let mut brackets: Vec<Bracket> = Vec::new();
    // Index into `brackets` of each open bracket, and its opener.
    let mut open: Vec<(usize, Tok)> = Vec::new();
    for (l, tok, _) in tokens {
        if tok.closes_bracket() {
            if let Some((i, opener)) = open.pop() {
                let matched = matches!(
                    (&opener, tok),
                    (Tok::LBrace | Tok::SelBrace, Tok::RBrace)
                        | (Tok::LBrack | Tok::ListStart, Tok::RBrack)
                        | (Tok::LParen | Tok::WsLParen, Tok::RParen)
                );
                brackets[i].close = Some(*l);
                brackets[i].matched = matched;
            }
        } else if tok.opens_bracket() {
            brackets.push(Bracket {
                open: *l,
                close: None,
                matched: false,
                parent: open.last().map(|(i, _)| *i),
            });
            open.push((brackets.len() - 1, *tok));
        }
    }
    brackets
}

/// One opening bracket of the file: where it closes (`None`: never), whether by the closer of
/// its kind, and the bracket it is in.
struct Bracket {
    open: usize,
    close: Option<usize>,
    matched: bool,
    parent: Option<usize>,
}

/// Where [`Builder::region_at`] stands: the brackets opened before `offset` that it has met
/// (`next`), and of them the ones around the last (indexes into `Builder::brackets`).
#[derive(Default)]
struct RegionCursor {
    offset: usize,
    next: usize,
    open: Vec<usize>,
}

/// A bind operation in its box, its span set by the item around it.
pub fn operation(kind: BindOpKind) -> Box<BindOperation> {
    Box::new(BindOperation {
        kind,
        span: Span::NONE,
    })
}

/// A call argument, array entry or access key: a value, or a bare `key => value` pair that is
/// merged with its neighbours into one hash.
pub enum Operand {
    Value(Expr),
    Pair(Box<HashEntry>),
}

/// A statement as the grammar reads it: an expression, or a comma list of them, which only a
/// statement call may take (as its arguments). Most statements are one expression, and need no
/// list of their own.
pub enum ParsedStatement {
    One(Expr),
    /// Two expressions or more.
    List(Vec<Expr>),
}

impl ParsedStatement {
    /// The statement with `next` after a comma.
    pub fn and(self, next: Expr) -> ParsedStatement {
        match self {
            ParsedStatement::One(first) => ParsedStatement::List(vec![first, next]),
            ParsedStatement::List(mut list) => {
                list.push(next);
                ParsedStatement::List(list)
            }
        }
    }
}

/// Marks a call as standing as a statement of its own, or not (it is another call's argument).
fn mark_statement(e: &mut Expr, statement: bool) {
    if let ExprKind::Call {
        statement: flag, ..
    } = &mut e.kind
    {
        *flag = statement;
    }
}

/// One step after the first operand of an operator sequence.
pub enum OperatorTail {
    Binary(BinaryOp, Expr),
    /// `? { entries }` with the offset after `}` and any postfix forms applied to the result.
    Selector(Vec<SelectorEntry>, usize, Vec<(SuffixForm, usize)>),
}

pub enum SuffixForm {
    Access(Vec<Expr>),
    Method(SmolStr, Vec<Expr>, Option<Box<Lambda>>),
}

/// What stands between the braces of `X { ... }`.
pub enum BodyContent {
    Untitled(Vec<AttributeOp>),
    Titled(Vec<ResourceBody>),
}

/// A bind key as parsed, before it is classified. Small enough for the LR stack without a box
/// of its own: the type of a typed key is boxed here, where `BindKey::TypedName` keeps it.
pub enum RawKey {
    Empty,
    Parameters(Vec<(bool, usize, usize)>, Expr),
    Variables(Vec<(bool, usize, usize)>, Option<Expr>),
    One(Expr),
    Two(Box<Expr>, Expr),
}

/// Words the bindings grammar treats as keywords, for "did you mean" on a misspelt one.
const BIND_WORDS: &[&str] = &[
    "variables",
    "parameters",
    "abstract",
    "override",
    "map",
    "alias",
    "renamed",
    "dependency",
    "to",
    "as",
    "in",
    "optional",
    "producer",
];

/// The grammar actions' context: the file, collected diagnostics, and the depth limit.
pub struct Builder<'s, 'h> {
    file: FileId,
    /// Every opening bracket, in order.
    brackets: Vec<Bracket>,
    region_cursor: RegionCursor,
    /// The bracket region of the last reported syntax error.
    last_error_region: Option<Option<usize>>,
    src: &'s str,
    /// Where the tokens' texts that are not runs of `src` are.
    decoded: DecodedTexts,
    diags: Vec<Diagnostic>,
    syntax_errors: usize,
    depth_reported: bool,
    last_error_at: Option<usize>,
    /// Where the line of `last_error_at` ends (found once per reported error, so that asking
    /// about many later offsets never rescans the line).
    last_error_line_end: usize,
    /// Where the last complete (or recovered) item of a bindings block ended: past it the
    /// parser is back at the start of an item, so a later error in the same block is a new
    /// mistake, not a cascade.
    bind_item_end: usize,
    lexer_stop: usize,
    /// Where the source text stands in its file (see [`parse_file_at`]).
    base: usize,
    /// Set when the caller takes top-level statements as they are parsed
    /// ([`parse_file_statements`]).
    top_level: Option<TopLevelHandOver<'h>>,
    /// Lists that live only while the parser builds something else, kept for the next one (see
    /// [`Builder::statements_starting_with`], [`Builder::tails_starting_with`] and
    /// [`Builder::fold_operators`]).
    scratch: Scratch,
}

/// The builder's spare working lists. A body's statement list, an operator sequence's steps,
/// and the stacks that fold them by precedence, were lists allocated, grown and freed for each
/// body and each sequence; a file now reuses the same few. At most [`Scratch::KEPT`] spare
/// lists of a kind are kept: more are open at once only in code nested that deep.
#[derive(Default)]
struct Scratch {
    statements: Vec<Vec<ParsedStatement>>,
    tails: Vec<Vec<OperatorTail>>,
    operands: Vec<Expr>,
    operators: Vec<BinaryOp>,
}

impl Scratch {
    const KEPT: usize = 8;
}

/// A list starting with `first`: one of `spares` when there is one, else a new one with room
/// for four ([`list_starting_with`]).
fn spare_starting_with<T>(spares: &mut Vec<Vec<T>>, first: T) -> Vec<T> {
    match spares.pop() {
        Some(mut list) => {
            list.push(first);
            list
        }
        None => list_starting_with(first),
    }
}

/// Keeps `list`'s room among `spares` for the next list of its kind, emptied.
fn keep_spare<T>(spares: &mut Vec<Vec<T>>, mut list: Vec<T>) {
    if spares.len() < Scratch::KEPT && list.capacity() > 0 {
        list.clear();
        spares.push(list);
    }
}

impl<'s, 'h> Builder<'s, 'h> {
    fn new(
        file: FileId,
        src: &'s str,
        base: usize,
        brackets: Vec<Bracket>,
        lexer_stop: usize,
        decoded: DecodedTexts,
    ) -> Builder<'s, 'h> {
        Builder {
            file,
            brackets,
            region_cursor: RegionCursor::default(),
            last_error_region: None,
            src,
            decoded,
            diags: Vec::new(),
            syntax_errors: 0,
            depth_reported: false,
            last_error_at: None,
            last_error_line_end: 0,
            bind_item_end: 0,
            lexer_stop,
            base,
            top_level: None,
            scratch: Scratch::default(),
        }
    }
}

impl Builder<'_, '_> {
    /// Whether `offset` lies after an already reported syntax error on the same line: such a
    /// finding is almost always a consequence of the first (a cascade), so it is not reported.
    fn follows_error_on_same_line(&self, offset: usize) -> bool {
        self.last_error_at
            .is_some_and(|prev| prev <= offset && offset < self.last_error_line_end)
    }

    /// Whether the bracket opened at `open` is never closed by a closer of its kind and is
    /// still open at `offset`: everything until its wrong closer is mis-nested, so a syntax
    /// error there is a consequence of the one already reported in it.
    fn broken_bracket_open_at(&self, open: usize, offset: usize) -> bool {
        let i = self.brackets.partition_point(|b| b.open < open);
        self.brackets.get(i).is_some_and(|b| {
            b.open == open && !b.matched && b.close.is_none_or(|close| offset < close)
        })
    }

    /// The offset of the innermost bracket open around the token at `offset` (a bracket's own
    /// opener and closer are outside it). Errors come in file order, so a cursor walks the
    /// brackets once for all of them (a query before the last starts it again).
    fn region_at(&mut self, offset: usize) -> Option<usize> {
        let cursor = &mut self.region_cursor;
        if offset < cursor.offset {
            *cursor = RegionCursor::default();
        }
        cursor.offset = offset;
        while let Some(b) = self.brackets.get(cursor.next).filter(|b| b.open < offset) {
            // The brackets around this one are the ones left open on the stack.
            while cursor.open.last().is_some_and(|&top| Some(top) != b.parent) {
                cursor.open.pop();
            }
            cursor.open.push(cursor.next);
            cursor.next += 1;
        }
        while let Some(&top) = cursor.open.last() {
            let b = &self.brackets[top];
            if b.close.is_none_or(|close| close > offset) {
                return Some(b.open);
            }
            cursor.open.pop();
        }
        None
    }

    /// Records a diagnostic found by a grammar action, unless it is a cascade of a syntax error.
    fn push(&mut self, d: Diagnostic) {
        if !self.follows_error_on_same_line((d.span.start as usize).saturating_sub(self.base)) {
            self.diags.push(d);
        }
    }

    /// A position of a span already made, as an offset into this parse's source text.
    fn rel(&self, position: u32) -> usize {
        (position as usize).saturating_sub(self.base)
    }

    pub fn sp(&self, l: usize, r: usize) -> Span {
        Span::new(self.file, self.base + l, self.base + r)
    }

    /// Makes a node without children (a literal, a name, a `nop`): depth 1, nothing to fit or
    /// check. Most of a bindings file's nodes are these, so the grammar makes every leaf here
    /// and leaves [`Builder::mk`] to the nodes with children (and to error nodes, which are rare).
    #[inline]
    pub fn leaf(&self, l: usize, r: usize, kind: ExprKind) -> Expr {
        debug_assert_eq!(child_depth(&kind), 0, "not a leaf: {kind:?}");
        Expr {
            kind,
            span: self.sp(l, r),
            depth: 1,
        }
    }

    /// Makes a node, counting its depth; past [`MAX_DEPTH`] the node becomes an error.
    /// Inlined, with [`child_depth`] and [`fit`]: most callers make a kind they name, and
    /// there each match on the kind folds to that kind's arm. Called, both were a jump through
    /// a table on a kind written a moment before (the corpus parses 3% faster inlined).
    #[inline(always)]
    pub fn mk(&mut self, l: usize, r: usize, kind: ExprKind) -> Expr {
        let depth = child_depth(&kind) + 1;
        self.mk_with_depth(l, r, kind, depth)
    }

    #[inline(always)]
    fn mk_with_depth(&mut self, l: usize, r: usize, mut kind: ExprKind, depth: u32) -> Expr {
        fit(&mut kind);
        self.mk_unfitted(l, r, kind, depth)
    }

    /// [`Self::mk_with_depth`] leaving the node's lists as they are: for a chain of operators
    /// still being extended, which [`Self::fold_operators`] fits once it is complete (fitting
    /// at each extension would copy the whole chain each time).
    #[inline(always)]
    fn mk_unfitted(&mut self, l: usize, r: usize, kind: ExprKind, depth: u32) -> Expr {
        if depth > MAX_DEPTH {
            return self.too_deep(l, r);
        }
        Expr {
            kind,
            span: self.sp(l, r),
            depth,
        }
    }

    /// What stands for an expression nested deeper than [`MAX_DEPTH`], reported once a file.
    #[cold]
    #[inline(never)]
    fn too_deep(&mut self, l: usize, r: usize) -> Expr {
        if !self.depth_reported {
            self.depth_reported = true;
            let span = self.sp(l, r.min(l + 1));
            self.push(
                Diagnostic::error(
                    codes::NESTING_TOO_DEEP,
                    span,
                    format!("expressions nest more than {MAX_DEPTH} levels deep"),
                )
                .with_note("help: split the expression, or move the inner parts into variables"),
            );
        }
        Expr {
            kind: ExprKind::Error,
            span: self.sp(l, r),
            depth: 1,
        }
    }

    pub fn string(&mut self, l: usize, r: usize, s: &str) -> Expr {
        self.leaf(
            l,
            r,
            ExprKind::String {
                value: crate::lexer::smol(s),
            },
        )
    }

    /// A token's text.
    pub fn text(&self, text: Text) -> SmolStr {
        self.decoded.text(text, self.src)
    }

    pub fn number(&mut self, l: usize, r: usize, n: NumberTok) -> Expr {
        let text = self.text(n.text);
        let kind = if n.radix == 0 {
            // The lexer accepted the text only as a finite float.
            let value = text.parse().unwrap_or(f64::INFINITY);
            ExprKind::Float { text, value }
        } else {
            ExprKind::Integer {
                text,
                radix: u32::from(n.radix),
            }
        };
        self.leaf(l, r, kind)
    }

    // ---- statement lists -------------------------------------------------------------

    /// Puppet's `transform_calls`: a statement-call name followed by an expression (or a comma
    /// list) becomes a call; other comma lists are errors.
    pub fn statements(&mut self, mut lists: Vec<ParsedStatement>) -> Vec<Expr> {
        let mut memo: Vec<Expr> = Vec::with_capacity(lists.len());
        for list in lists.drain(..) {
            self.fold_statement(&mut memo, list);
        }
        keep_spare(&mut self.scratch.statements, lists);
        memo
    }

    /// A statement list starting with `first`: a spare one when there is one ([`Scratch`]).
    pub fn statements_starting_with(&mut self, first: ParsedStatement) -> Vec<ParsedStatement> {
        spare_starting_with(&mut self.scratch.statements, first)
    }

    /// One step of [`Builder::statements`]: folds the next syntactic statement into `memo`.
    fn fold_statement(&mut self, memo: &mut Vec<Expr>, parsed: ParsedStatement) {
        let prev_is_call_name = matches!(
            memo.last().map(|e| &e.kind),
            Some(ExprKind::QualifiedName { name }) if is_statement_call(name)
        );
        let mut list = match parsed {
            ParsedStatement::One(mut e) if !prev_is_call_name => {
                mark_statement(&mut e, true);
                memo.push(e);
                return;
            }
            ParsedStatement::One(e) => vec![e],
            ParsedStatement::List(list) => list,
        };
        if prev_is_call_name {
            let name = memo.pop().expect("checked above");
            for arg in &mut list {
                mark_statement(arg, false);
            }
            let end = list.last().map_or(name.span.end, |e| e.span.end);
            let call = self.mk(
                self.rel(name.span.start),
                self.rel(end),
                ExprKind::Call {
                    functor: Box::new(name),
                    args: list,
                    lambda: None,
                    statement: true,
                },
            );
            memo.push(call);
        } else if list.len() > 1 {
            let second = &list[1];
            let (message, code) = match memo.last().map(|e| &e.kind) {
                Some(ExprKind::QualifiedName { name }) if list.len() > 1 => (
                    format!("attempt to pass an argument list to the function `{name}`, which cannot be called without parentheses"),
                    codes::CALL_WITHOUT_PARENTHESES,
                ),
                _ => (
                    "illegal comma-separated argument list".to_string(),
                    codes::ILLEGAL_COMMA_LIST,
                ),
            };
            let last = list.last().map_or(second.span.end, |e| e.span.end);
            let span = Span::new(self.file, list[0].span.start as usize, last as usize);
            let mut d = Diagnostic::error(code, span, message);
            if code == codes::CALL_WITHOUT_PARENTHESES {
                d = d.with_note("help: add parentheses around the arguments");
            }
            self.push(d);
            memo.extend(list);
        } else if let Some(mut e) = list.pop() {
            mark_statement(&mut e, true);
            memo.push(e);
        }
    }

    /// The parser has read `token` as its lookahead: where statements are handed over as they
    /// are parsed, its bracket depth is noted (an opening bracket stands outside what it opens,
    /// a closing one inside what it closes).
    #[inline]
    pub(crate) fn read(&mut self, token: &Tok) {
        if let Some(top) = self.top_level.as_mut() {
            top.lookahead_depth = top.open;
            if token.opens_bracket() {
                top.open += 1;
            } else if token.closes_bracket() {
                top.open = top.open.saturating_sub(1);
            }
        }
    }

    /// Called as a statement joins a `Statements` list. When the caller takes top-level
    /// statements as they come and the parser's lookahead stands outside every bracket (so the
    /// list is the program's, not a body's), the list is folded and handed over, all but its
    /// last statement, which the next may still take as its argument.
    pub fn hand_over_top_level(&mut self, lists: &mut Vec<ParsedStatement>) {
        // Most reductions hand nothing over: an ordinary parse, a body, or after a syntax error
        // (the program is not made then).
        let at_top = self
            .top_level
            .as_ref()
            .is_some_and(|top| top.lookahead_depth == 0);
        if !at_top || self.syntax_errors > 0 {
            return;
        }
        let Some(mut top) = self.top_level.take() else {
            return;
        };
        let mut pending = std::mem::take(&mut top.pending);
        for list in lists.drain(..) {
            self.fold_statement(&mut pending, list);
        }
        let keep = pending.len().saturating_sub(1);
        top.hand_over(pending.drain(..keep));
        top.pending = pending;
        self.top_level = Some(top);
    }

    /// Where the parse stopped at a syntax error, the statement held back in case the next
    /// took it as its argument is handed over unless it is a name that could take one
    /// (`notice`): no statement comes after it now, and the program it would have joined is
    /// not made.
    fn hand_over_the_last_statement(&mut self) {
        let Some(top) = self.top_level.as_mut() else {
            return;
        };
        let takes_argument = matches!(
            top.pending.last().map(|e| &e.kind),
            Some(ExprKind::QualifiedName { name }) if is_statement_call(name)
        );
        if !takes_argument {
            let pending = std::mem::take(&mut top.pending);
            top.hand_over(pending.into_iter());
        }
    }

    /// The program's statement list, folded; when the caller takes top-level statements as
    /// they come, they are all handed over and the program body left empty.
    pub fn program_statements(&mut self, lists: Vec<ParsedStatement>) -> Vec<Expr> {
        match self.top_level.take() {
            // After a syntax error the program is not made: nothing more is handed over.
            Some(mut top) if self.syntax_errors == 0 => {
                let mut pending = std::mem::take(&mut top.pending);
                for list in lists {
                    self.fold_statement(&mut pending, list);
                }
                top.hand_over(pending.drain(..));
                self.top_level = Some(top);
                Vec::new()
            }
            top => {
                self.top_level = top;
                self.statements(lists)
            }
        }
    }

    // ---- error recovery ----------------------------------------------------------------

    pub fn recover(&mut self, e: ErrorRecovery<usize, Tok, LexStop>) -> Expr {
        let (l, r) = error_location(&e.error);
        self.report(e.error);
        Expr {
            kind: ExprKind::Error,
            span: self.sp(l, r),
            depth: 1,
        }
    }

    /// An attribute operation in a resource body that did not parse: recovery resumes at the
    /// next `,` or `}`.
    pub fn recover_attribute(&mut self, e: ErrorRecovery<usize, Tok, LexStop>) -> AttributeOp {
        let value = self.recover(e);
        AttributeOp {
            name: SmolStr::new_static(""),
            op: AttributeOpKind::Set,
            span: value.span,
            value,
        }
    }

    /// A bindings block's item that did not parse: the error, the tokens recovery dropped and
    /// the expression it swallowed after them (`bind 'k' => 1`: `1`).
    pub fn recover_item(
        &mut self,
        e: ErrorRecovery<usize, Tok, LexStop>,
        swallowed: Option<Expr>,
    ) -> BindItem {
        let (l, r) = error_location(&e.error);
        let dropped = e.dropped_tokens.last().map_or(r, |(_, _, end)| *end);
        let swallowed = swallowed.map_or(0, |x| self.rel(x.span.end));
        self.report(e.error);
        self.bind_item_done(dropped.max(swallowed));
        BindItem::Error {
            span: self.sp(l, r),
        }
    }

    /// Whether the `{` at `open` begins the body of a `bindings NAME` or `when ...` block (not an
    /// options hash or an expression's brace), judged by the words before it on its line.
    fn opens_bindings_body(&self, open: usize) -> bool {
        let line_start = self.src[..open].rfind('\n').map_or(0, |i| i + 1);
        let before = self.src[line_start..open].trim_start();
        before.starts_with("bindings ") || before.starts_with("when ")
    }

    /// A bindings block's item (a binding, or a recovered error) ended at `end`.
    pub fn bind_item_done(&mut self, end: usize) {
        self.bind_item_end = self.bind_item_end.max(end);
    }

    /// Converts a parse error into a diagnostic, unless the lexer already explained it or it
    /// repeats the previous one.
    fn report(&mut self, e: ParseError<usize, Tok, LexStop>) {
        let (l, _) = error_location(&e);
        if l >= self.lexer_stop || self.follows_error_on_same_line(l) {
            return;
        }
        if let ParseError::UnrecognizedToken {
            token: (_, Tok::Error, _),
            ..
        } = &e
        {
            return;
        }
        // After a recovered error, a closing brace or the end of the file that no longer fits is
        // the recovery's doing (it resumed at a different nesting level), not a new mistake.
        let closing = matches!(
            &e,
            ParseError::UnrecognizedEof { .. }
                | ParseError::UnrecognizedToken {
                    token: (_, Tok::RBrace, _),
                    ..
                }
        );
        if closing && self.syntax_errors > 0 {
            return;
        }
        // One syntax error per bracket pair: once recovery has lost track of the structure, later
        // complaints inside the same (lexically still open) brackets are cascades. Errors at top
        // level, or in other brackets, are independent and reported.
        let region = self.region_at(l);
        // In the body of a `bindings` or `when` block, recovery resumes at the next item: an
        // error after an item that ended since the last error is a new mistake.
        let next_item = self
            .last_error_at
            .is_some_and(|prev| self.bind_item_end > prev)
            && region.is_some_and(|open| self.opens_bindings_body(open));
        if region.is_some() && self.last_error_region == Some(region) && !next_item {
            return;
        }
        // An error inside a bracket that the last error's bracket, left unclosed, still holds.
        if let Some(Some(previous)) = self.last_error_region {
            if self.broken_bracket_open_at(previous, l) {
                return;
            }
        }
        self.last_error_region = Some(region);
        self.last_error_at = Some(l);
        self.last_error_line_end = self
            .src
            .get(l..)
            .and_then(|rest| rest.find('\n'))
            .map_or(usize::MAX, |n| l + n);
        self.syntax_errors += 1;
        if self.syntax_errors > MAX_SYNTAX_ERRORS {
            return;
        }
        let d = match e.into_unrecognized(expected_or_empty()) {
            ParseError::UnrecognizedEof { location, expected } => {
                let span = self.sp(location, location);
                if let Some((message, help, fix)) = self.bind_mistake(location, location, &expected)
                {
                    let message = format!("unexpected end of file: {message}");
                    let mut d =
                        Diagnostic::error(codes::UNEXPECTED_EOF, span, message).with_note(help);
                    if let Some((at, replacement)) = fix {
                        d = d.with_fix(self.sp(at.start, at.end), replacement);
                    }
                    self.diags.push(d);
                    return;
                }
                let mut d =
                    Diagnostic::error(codes::UNEXPECTED_EOF, span, "unexpected end of file");
                if let Some(list) = expected::describe(&expected) {
                    d = d.with_note(format!("expected {list}"));
                }
                d
            }
            ParseError::UnrecognizedToken {
                token: (l, tok, r),
                expected,
            } => self.unexpected(l, r, &tok, &expected),
            ParseError::ExtraToken { token: (l, tok, r) } => self.unexpected(l, r, &tok, &[]),
            ParseError::InvalidToken { location } => {
                let span = self.sp(location, location + 1);
                Diagnostic::error(codes::SYNTAX_ERROR, span, "invalid token")
            }
            ParseError::User { error } => match error {},
        };
        self.diags.push(d);
    }

    fn unexpected(&self, l: usize, r: usize, tok: &Tok, expected: &[String]) -> Diagnostic {
        let text = self.src.get(l..r).unwrap_or("");
        // Control characters are shown escaped (`\0`); quotes stay as written.
        let shown: String = text
            .chars()
            .take(40)
            .map(|c| {
                if c.is_control() {
                    c.escape_debug().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect();
        let span = self.sp(l, r);
        if let Some((message, help, fix)) = self.bind_mistake(l, r, expected) {
            let d = Diagnostic::error(codes::SYNTAX_ERROR, span, message).with_note(help);
            return match fix {
                Some((at, replacement)) => d.with_fix(self.sp(at.start, at.end), replacement),
                None => d,
            };
        }
        let mut d = Diagnostic::error(
            codes::SYNTAX_ERROR,
            span,
            format!("syntax error at `{shown}`"),
        );
        if let Some(list) = expected::describe(expected) {
            d = d.with_note(format!("expected {list}"));
        }
        // D2-style hints: a capitalised or misspelt keyword the grammar wanted here.
        let word = match tok {
            Tok::Name(n) | Tok::ClassRef(n) => Some(self.text(*n)),
            _ => None,
        };
        if let Some(word) = word {
            let wanted: Vec<&str> = expected
                .iter()
                .map(|e| e.trim_matches('"'))
                .filter(|e| e.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
                .collect();
            let lower = word.to_ascii_lowercase();
            if wanted.contains(&lower.as_str()) && lower != word {
                d = d
                    .with_note(format!(
                        "help: keywords are lower case: did you mean `{lower}`?"
                    ))
                    .with_fix(span, lower);
            } else if let Some(s) = crate::diag::did_you_mean(&word, &wanted) {
                d = d.did_you_mean(&word, s);
            }
        }
        d
    }

    /// The common mistakes in a `bind`, said as what is missing with the statement rewritten as
    /// it should be (the grammar's list of expected tokens reads like a puzzle there): a value
    /// without `to`, `=>`/`=`/`:` for `to`, `as` on a `bind`, a typed key without its comma,
    /// nothing after `to` or `in`, and a function called without parentheses. `l..r` is the
    /// unexpected token (empty at the end of the file). With the message and the help comes
    /// the edit that does what the help says, where it is one edit (a byte range and its new
    /// text).
    fn bind_mistake(
        &self,
        l: usize,
        r: usize,
        expected: &[String],
    ) -> Option<(String, String, Option<TextEdit>)> {
        let wants = |t: &str| expected.iter().any(|e| e.trim_matches('"') == t);
        // The line of the last thing before the token (`}` after `bind 'k' to` is on the next).
        let previous_end = self.src[..l].trim_end().len();
        let line_start = self.src[..previous_end].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.src[r..].find('\n').map_or(self.src.len(), |i| r + i);
        let before = &self.src[line_start..l];
        let found = self.src[l..r].trim();
        // The rest of the statement: up to a `}` that closes an enclosing block.
        let mut open = 0usize;
        let rest_len = self.src[r..line_end]
            .char_indices()
            .find(|&(_, c)| {
                match c {
                    '{' => open += 1,
                    '}' if open == 0 => return true,
                    '}' => open -= 1,
                    _ => {}
                }
                false
            })
            .map_or(line_end - r, |(i, _)| i);
        let rest = self.src[r..r + rest_len].trim_end();
        // The statement so far, from its keyword: `bind 'k'`, `bind String 'k' to`.
        let keyword = before.rmatch_indices("bind ").map(|(i, _)| i).next()?;
        let keyword = ["multibind ", "rebind "]
            .iter()
            .find(|k| before[..keyword + 5].ends_with(*k))
            .map_or(keyword, |k| keyword + 5 - k.len());
        if before[..keyword].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let statement = before[keyword..].trim_end();
        // `rebind` takes no value and a multibind's value is its contributions: only a `bind`
        // misses its `to`.
        let is_bind = statement.starts_with("bind");
        let last_word = statement.rsplit(char::is_whitespace).next().unwrap_or("");
        let key = statement
            .split_whitespace()
            .skip(1)
            .find(|w| !matches!(*w, "abstract" | "override" | "final"))
            .unwrap_or("");
        // Right after a bind's key, `to` or `in` (the lexer's IN_ID there) comes next.
        let starts_value = found.starts_with(|c: char| {
            c.is_alphanumeric() || matches!(c, '\'' | '"' | '$' | '[' | '{')
        });
        let rebind = statement.starts_with("rebind");
        if is_bind && wants("to") && (wants("in") || wants("IN_ID") || rebind) && !wants("optional")
        {
            if matches!(found, "=>" | "=" | ":" | "->" | "value" | "is" | "with") {
                return Some((
                    format!("expected `to` after the binding's key, not `{found}`"),
                    format!("help: write `{statement} to{rest}`"),
                    Some((l..r, "to".to_string())),
                ));
            }
            if found == "as" {
                return Some((
                    "`as` gives a multibind its id; a `bind` takes its value after `to`".into(),
                    format!("help: write `{statement} to VALUE`, or `multibind {} as 'id'` to declare a multibind", &statement[statement.find(' ').map_or(0, |i| i + 1)..]),
                    None,
                ));
            }
            if key.starts_with(|c: char| c.is_ascii_uppercase()) && found.starts_with(['\'', '"']) {
                return Some((
                    "expected `,` between the key's type and its name".into(),
                    format!("help: write `{statement}, {found}{rest}`"),
                    Some((previous_end..previous_end, ",".to_string())),
                ));
            }
            if starts_value {
                return Some((
                    "expected `to` between the binding's key and its value".into(),
                    format!("help: write `{statement} to {found}{rest}`"),
                    Some((l..l, "to ".to_string())),
                ));
            }
        }
        if is_bind && wants("optional") && wants("producer") {
            return Some((
                "expected the binding's value after `to`".into(),
                format!("help: write `{statement} VALUE` (`to producer EXPR` for a producer), or drop `to` and write `bind abstract ...` if someone else binds it"),
                None,
            ));
        }
        if is_bind && last_word == "in" && !found.starts_with(['\'', '"']) {
            return Some((
                "expected the id of the multibind to contribute to after `in`".into(),
                format!("help: write `{statement} 'ID'`, the id of a `multibind ... as 'ID'`"),
                None,
            ));
        }
        // `lookup 'x'`: a name right before a value the grammar cannot take there.
        let name_before = last_word.trim_start_matches("::").split("::").all(|p| {
            p.starts_with(|c: char| c.is_ascii_lowercase())
                && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        let value_found = found.starts_with(['\'', '"', '$', '['])
            || found.starts_with(|c: char| c.is_ascii_digit());
        if name_before
            && value_found
            && !is_statement_call(last_word)
            && lexer::token::puppet_keyword(last_word).is_none()
            && !matches!(
                last_word,
                "bind" | "multibind" | "rebind" | "to" | "in" | "as" | "when"
            )
        {
            return Some((
                format!("`{last_word}` is called without parentheses"),
                format!(
                    "help: write `{last_word}({found}{})`",
                    if rest.trim().is_empty() { "" } else { " ..." }
                ),
                None,
            ));
        }
        None
    }

    // ---- operators -------------------------------------------------------------------

    pub fn assignment(&mut self, l: usize, r: usize, op: AssignOp, t: Expr, v: Expr) -> Expr {
        self.mk(
            l,
            r,
            ExprKind::Assignment {
                op,
                target: Box::new(t),
                value: Box::new(v),
            },
        )
    }

    pub fn relationship(
        &mut self,
        l: usize,
        r: usize,
        first: Expr,
        rest: Vec<(RelationshipOp, Expr)>,
    ) -> Expr {
        if rest.is_empty() {
            return first;
        }
        let mut operands = Vec::with_capacity(rest.len() + 1);
        let mut operators = Vec::with_capacity(rest.len());
        operands.push(first);
        for (op, e) in rest {
            operators.push(op);
            operands.push(e);
        }
        self.mk(
            l,
            r,
            ExprKind::Relationship {
                operands,
                operators: operators.into_boxed_slice(),
            },
        )
    }

    pub fn unary(&mut self, l: usize, r: usize, op: UnaryOp, e: Expr) -> Expr {
        self.mk(
            l,
            r,
            ExprKind::Unary {
                op,
                operand: Box::new(e),
            },
        )
    }

    /// Folds `first (op operand | ?{...})* [? m => v]` by precedence climbing, with an explicit
    /// operator stack (no recursion). Operators of one level become one flat `Binary` node.
    pub fn fold_operators(
        &mut self,
        first: Expr,
        mut tails: Vec<OperatorTail>,
        single: Option<SelectorEntry>,
    ) -> Expr {
        if tails.is_empty() && single.is_none() {
            keep_spare(&mut self.scratch.tails, tails);
            return first;
        }
        let mut operands = std::mem::take(&mut self.scratch.operands);
        let mut ops = std::mem::take(&mut self.scratch.operators);
        operands.push(first);
        for tail in tails.drain(..) {
            match tail {
                OperatorTail::Binary(op, rhs) => {
                    while ops
                        .last()
                        .is_some_and(|top| top.precedence() >= op.precedence())
                    {
                        self.reduce_top(&mut operands, &mut ops);
                    }
                    ops.push(op);
                    operands.push(rhs);
                }
                OperatorTail::Selector(entries, r, suffixes) => {
                    while ops
                        .last()
                        .is_some_and(|top| top.precedence() >= SELECTOR_PRECEDENCE)
                    {
                        self.reduce_top(&mut operands, &mut ops);
                    }
                    let mut subject = operands.pop().expect("an operand precedes every operator");
                    fit(&mut subject.kind);
                    let l = self.rel(subject.span.start);
                    let mut e = self.mk(
                        l,
                        r,
                        ExprKind::Selector {
                            subject: Box::new(subject),
                            entries,
                        },
                    );
                    for (suffix, r) in suffixes {
                        e = match suffix {
                            SuffixForm::Access(keys) => self.access(l, r, e, keys),
                            SuffixForm::Method(name, args, lambda) => {
                                self.method_call(l, r, e, name, args, lambda)
                            }
                        };
                    }
                    operands.push(e);
                }
            }
        }
        if let Some(entry) = single {
            while ops
                .last()
                .is_some_and(|top| top.precedence() >= SELECTOR_PRECEDENCE)
            {
                self.reduce_top(&mut operands, &mut ops);
            }
            let mut subject = operands.pop().expect("an operand precedes every operator");
            fit(&mut subject.kind);
            let l = self.rel(subject.span.start);
            let r = self.rel(entry.span.end);
            let e = self.mk(
                l,
                r,
                ExprKind::Selector {
                    subject: Box::new(subject),
                    entries: vec![entry],
                },
            );
            operands.push(e);
        }
        while !ops.is_empty() {
            self.reduce_top(&mut operands, &mut ops);
        }
        let mut folded = operands.pop().expect("folding leaves one operand");
        fit(&mut folded.kind);
        self.scratch.operands = operands;
        self.scratch.operators = ops;
        keep_spare(&mut self.scratch.tails, tails);
        folded
    }

    /// A list of an operator sequence's steps, starting with `first`: a spare one when there
    /// is one ([`Scratch`]).
    pub fn tails_starting_with(&mut self, first: OperatorTail) -> Vec<OperatorTail> {
        spare_starting_with(&mut self.scratch.tails, first)
    }

    /// Combines the top operator with its two operands. A chain of one level is extended in
    /// place and fitted only when it is complete: when it becomes an operand of another level
    /// (here) or the whole expression ([`Self::fold_operators`]).
    fn reduce_top(&mut self, operands: &mut Vec<Expr>, ops: &mut Vec<BinaryOp>) {
        let (Some(op), Some(mut rhs), Some(lhs)) = (ops.pop(), operands.pop(), operands.pop())
        else {
            return;
        };
        fit(&mut rhs.kind);
        let l = self.rel(lhs.span.start);
        let r = self.rel(rhs.span.end);
        // Extend a chain of the same level instead of nesting (left associativity). The depth
        // is updated incrementally: recomputing it over the whole chain would be quadratic.
        let depth = lhs.depth.max(rhs.depth + 1);
        let kind = match lhs.kind {
            ExprKind::Binary {
                mut operands,
                mut operators,
            } if operators[0].precedence() == op.precedence() => {
                push_operator(&mut operators, operands.len() - 1, op);
                operands.push(rhs);
                ExprKind::Binary {
                    operands,
                    operators,
                }
            }
            mut kind => {
                fit(&mut kind);
                let lhs = Expr {
                    kind,
                    span: lhs.span,
                    depth: lhs.depth,
                };
                ExprKind::Binary {
                    operands: vec![lhs, rhs],
                    operators: Box::new([op]),
                }
            }
        };
        let e = self.mk_unfitted(l, r, kind, depth);
        operands.push(e);
    }

    // ---- postfix forms ---------------------------------------------------------------

    pub fn access(&mut self, l: usize, r: usize, target: Expr, keys: Vec<Expr>) -> Expr {
        self.mk(
            l,
            r,
            ExprKind::Access {
                target: Box::new(target),
                keys,
            },
        )
    }

    pub fn call(
        &mut self,
        l: usize,
        r: usize,
        functor: Expr,
        args: Vec<Expr>,
        lambda: Option<Box<Lambda>>,
    ) -> Expr {
        self.mk(
            l,
            r,
            ExprKind::Call {
                functor: Box::new(functor),
                args,
                lambda,
                statement: false,
            },
        )
    }

    pub fn method_call(
        &mut self,
        l: usize,
        r: usize,
        receiver: Expr,
        method: SmolStr,
        args: Vec<Expr>,
        lambda: Option<Box<Lambda>>,
    ) -> Expr {
        self.mk(
            l,
            r,
            ExprKind::MethodCall(Box::new(MethodCall {
                receiver,
                method,
                args,
                lambda,
            })),
        )
    }

    pub fn collect(&mut self, l: usize, r: usize, type_expr: Expr, query: CollectQuery) -> Expr {
        self.mk(
            l,
            r,
            ExprKind::Collect {
                type_expr: Box::new(type_expr),
                query: Box::new(query),
                ops: Vec::new(),
            },
        )
    }

    // ---- literals --------------------------------------------------------------------

    /// Adjacent `key => value` pairs become one hash (`f(a => 1, b => 2, 3)` has two args).
    pub fn merge_pairs(&mut self, items: Vec<Operand>) -> Vec<Expr> {
        if items.iter().all(|item| matches!(item, Operand::Value(_))) {
            // The common case, no pairs: the values are taken out in place, in the list's own
            // memory (an `Operand` is an `Expr`'s size).
            return items
                .into_iter()
                .filter_map(|item| match item {
                    Operand::Value(v) => Some(v),
                    Operand::Pair(_) => None,
                })
                .collect();
        }
        let mut out = Vec::with_capacity(items.len());
        let mut pending: Vec<HashEntry> = Vec::new();
        for item in items {
            match item {
                Operand::Pair(p) => pending.push(*p),
                Operand::Value(v) => {
                    self.flush_pairs(&mut pending, &mut out);
                    out.push(v);
                }
            }
        }
        self.flush_pairs(&mut pending, &mut out);
        out
    }

    fn flush_pairs(&mut self, pending: &mut Vec<HashEntry>, out: &mut Vec<Expr>) {
        if pending.is_empty() {
            return;
        }
        let l = self.rel(pending[0].span.start);
        let r = self.rel(pending[pending.len() - 1].span.end);
        let entries = std::mem::take(pending);
        out.push(self.mk(l, r, ExprKind::Hash { entries }));
    }

    pub fn array(&mut self, l: usize, r: usize, items: Vec<Operand>) -> Expr {
        let elements = self.merge_pairs(items);
        self.mk(l, r, ExprKind::Array { elements })
    }

    #[allow(clippy::too_many_arguments)]
    pub fn concat(
        &mut self,
        l: usize,
        r: usize,
        pre: (Text, usize, usize),
        first: Expr,
        mids: Vec<((Text, usize, usize), Expr)>,
        post: (Text, usize, usize),
    ) -> Expr {
        let mut segments = Vec::with_capacity(2 + mids.len() * 2);
        self.push_segment(&mut segments, pre);
        segments.push(first);
        for (text, e) in mids {
            self.push_segment(&mut segments, text);
            segments.push(e);
        }
        self.push_segment(&mut segments, post);
        self.mk(l, r, ExprKind::Concat { segments })
    }

    fn push_segment(&mut self, segments: &mut Vec<Expr>, (text, l, r): (Text, usize, usize)) {
        let value = self.text(text);
        if !value.is_empty() {
            segments.push(self.leaf(l, r, ExprKind::String { value }));
        }
    }

    /// `${...}`: Puppet's factory turns a name or a decimal integer at the head into a variable.
    pub fn text_expression(&mut self, l: usize, r: usize, mut e: Expr) -> Expr {
        rewrite_text_head(&mut e);
        self.mk(l, r, ExprKind::Text { expr: Box::new(e) })
    }

    pub fn dotted_name(&mut self, l: usize, r: usize, parts: Vec<(usize, usize)>) -> Expr {
        let mut text = String::new();
        for (i, (pl, pr)) in parts.iter().enumerate() {
            if i > 0 {
                text.push('.');
            }
            text.push_str(self.src.get(*pl..*pr).unwrap_or(""));
        }
        self.string(l, r, &text)
    }

    // ---- conditionals ----------------------------------------------------------------

    pub fn if_expr(
        &mut self,
        l: usize,
        r: usize,
        (test, then_body, else_body): (Expr, Vec<Expr>, Vec<Expr>),
    ) -> Expr {
        self.mk(
            l,
            r,
            ExprKind::If {
                test: Box::new(test),
                then_body: then_body.into_boxed_slice(),
                else_body: else_body.into_boxed_slice(),
            },
        )
    }

    // ---- resources -------------------------------------------------------------------

    pub fn virtualize(&mut self, l: usize, r: usize, form: ResourceForm, mut e: Expr) -> Expr {
        match &mut e.kind {
            ExprKind::Resource { form: f, .. }
            | ExprKind::ResourceDefaults { form: f, .. }
            | ExprKind::ResourceOverride { form: f, .. } => {
                *f = form;
                e.span = self.sp(l, r);
                e
            }
            ExprKind::Error => e,
            _ => {
                let (code, what) = match form {
                    ResourceForm::Exported => (codes::EXPORTED_NOT_RESOURCE, "exported (@@)"),
                    _ => (codes::VIRTUAL_NOT_RESOURCE, "virtual (@)"),
                };
                let span = self.sp(l, r);
                self.push(Diagnostic::error(
                    code,
                    span,
                    format!("{what} can only be applied to a resource expression"),
                ));
                Expr {
                    kind: ExprKind::Error,
                    span,
                    depth: 1,
                }
            }
        }
    }

    pub fn bodies_with_first(
        &mut self,
        l: usize,
        r: usize,
        title: Expr,
        ops: Vec<AttributeOp>,
        mut more: Vec<ResourceBody>,
    ) -> Vec<ResourceBody> {
        let first = ResourceBody {
            title,
            ops,
            span: self.sp(l, r),
        };
        // Most resources have one body: a list of exactly one, which `fit` keeps as it is.
        // Put in front of an empty list, it was given room for four, then moved into one.
        if more.is_empty() {
            return vec![first];
        }
        more.insert(0, first);
        more
    }

    pub fn resource(&mut self, l: usize, r: usize, t: Expr, content: BodyContent) -> Expr {
        match content {
            BodyContent::Titled(bodies) => self.mk(
                l,
                r,
                ExprKind::Resource {
                    form: ResourceForm::Regular,
                    type_expr: Box::new(t),
                    bodies,
                },
            ),
            BodyContent::Untitled(ops) => self.untitled(l, r, t, ops),
        }
    }

    /// `X { attr => value }`: defaults for a type, an override for an access, collector
    /// attributes, or Puppet's "name followed by a hash" for a bare name.
    fn untitled(&mut self, l: usize, r: usize, t: Expr, ops: Vec<AttributeOp>) -> Expr {
        match t.kind {
            ExprKind::QualifiedReference { .. } => self.mk(
                l,
                r,
                ExprKind::ResourceDefaults {
                    form: ResourceForm::Regular,
                    type_expr: Box::new(t),
                    ops,
                },
            ),
            ExprKind::Access { .. } => self.mk(
                l,
                r,
                ExprKind::ResourceOverride {
                    form: ResourceForm::Regular,
                    resources: Box::new(t),
                    ops,
                },
            ),
            ExprKind::Collect {
                type_expr,
                query,
                ops: existing,
            } if existing.is_empty() => self.mk(
                l,
                r,
                ExprKind::Collect {
                    type_expr,
                    query,
                    ops,
                },
            ),
            ExprKind::QualifiedName { .. } => {
                if let Some(op) = ops.iter().find(|o| o.op == AttributeOpKind::Append) {
                    let span = op.span;
                    self.push(Diagnostic::error(
                        codes::RESOURCE_APPEND_WITHOUT_TITLE,
                        span,
                        "syntax error: a resource body without a title cannot use `+>`",
                    ));
                    return self.mk(l, r, ExprKind::Error);
                }
                let hl = ops.first().map_or(r, |o| self.rel(o.span.start));
                let entries = ops
                    .into_iter()
                    .map(|op| {
                        let key = Expr {
                            kind: ExprKind::String { value: op.name },
                            span: Span {
                                end: op.span.start + 1,
                                ..op.span
                            },
                            depth: 1,
                        };
                        HashEntry {
                            key,
                            value: op.value,
                            span: op.span,
                        }
                    })
                    .collect();
                let hash = self.mk(hl.min(r), r, ExprKind::Hash { entries });
                let mut stmts =
                    self.statements(vec![ParsedStatement::One(t), ParsedStatement::One(hash)]);
                if stmts.len() == 1 {
                    stmts.pop().expect("one statement")
                } else {
                    self.mk(l, r, ExprKind::Block { statements: stmts })
                }
            }
            ExprKind::Error => self.mk(l, r, ExprKind::Error),
            // A body the parser had to recover in says nothing sure about what the braces were
            // meant to be (`if ($a in [1] { fail() }` lacks a `)`); the syntax error stands alone,
            // as in Puppet.
            _ if ops.iter().any(|o| matches!(o.value.kind, ExprKind::Error)) => {
                self.mk(l, r, ExprKind::Error)
            }
            _ => {
                let span = t.span;
                self.push(Diagnostic::error(
                    codes::NOT_A_RESOURCE,
                    span,
                    "expression is not valid as a resource, resource-default, or resource-override",
                ));
                self.mk(l, r, ExprKind::Error)
            }
        }
    }

    pub fn class_resource(
        &mut self,
        l: usize,
        r: usize,
        cl: usize,
        cr: usize,
        bodies: Vec<ResourceBody>,
    ) -> Expr {
        let t = self.mk(
            cl,
            cr,
            ExprKind::QualifiedName {
                name: SmolStr::new_static("class"),
            },
        );
        self.mk(
            l,
            r,
            ExprKind::Resource {
                form: ResourceForm::Regular,
                type_expr: Box::new(t),
                bodies,
            },
        )
    }

    // ---- definitions -----------------------------------------------------------------

    pub fn class_keyword_as_name(&mut self, l: usize, r: usize) -> (SmolStr, usize, usize) {
        let span = self.sp(l, r);
        self.push(Diagnostic::error(
            codes::CLASS_KEYWORD_AS_NAME,
            span,
            "`class` keyword not allowed at this location",
        ));
        (SmolStr::new_static("class"), l, r)
    }

    /// `type Name [inherits Parent] { ... }`.
    pub fn type_definition(
        &mut self,
        l: usize,
        r: usize,
        name: Text,
        parent: Option<Text>,
        body: Vec<Expr>,
    ) -> Expr {
        let name = self.text(name);
        let parent = parent.map(|p| self.text(p));
        self.mk(
            l,
            r,
            ExprKind::TypeDefinition(Box::new(TypeDefinitionDef { name, parent, body })),
        )
    }

    pub fn quoted_name(&mut self, l: usize, r: usize, s: SmolStr) -> (SmolStr, usize, usize) {
        let span = self.sp(l, r);
        self.push(
            Diagnostic::error(
                codes::QUOTED_NAME,
                span,
                "a quoted string is not valid as a name here",
            )
            .with_note(format!("help: write the name without quotes: `{s}`")),
        );
        (s, l, r)
    }

    pub fn type_alias(&mut self, l: usize, r: usize, name: Expr, value: Expr) -> Expr {
        match name.kind {
            ExprKind::QualifiedReference { name } => self.mk(
                l,
                r,
                ExprKind::TypeAlias {
                    name,
                    type_expr: Box::new(value),
                },
            ),
            _ => self.mk(
                l,
                r,
                ExprKind::TypeMapping {
                    mapping: Box::new(name),
                    target: Box::new(value),
                },
            ),
        }
    }

    /// `type X = T { ... }`: `Object[{..., parent => T}]`, or `T[{...}]` for `Object`/`TypeSet`.
    pub fn object_type(&mut self, l: usize, r: usize, t: Expr, hash: Expr) -> Expr {
        let direct = matches!(&t.kind, ExprKind::QualifiedReference { name } if name == "Object" || name == "TypeSet");
        if direct {
            return self.access(l, r, t, vec![hash]);
        }
        let (hl, hr) = (self.rel(hash.span.start), self.rel(hash.span.end));
        let mut entries = match hash.kind {
            ExprKind::Hash { entries } => entries,
            _ => Vec::new(),
        };
        let key = self.mk(
            self.rel(t.span.start),
            self.rel(t.span.end),
            ExprKind::QualifiedName {
                name: SmolStr::new_static("parent"),
            },
        );
        let span = t.span;
        entries.push(HashEntry {
            key,
            value: t,
            span,
        });
        let hash = self.mk(hl, hr, ExprKind::Hash { entries });
        let object = self.mk(
            l,
            l,
            ExprKind::QualifiedReference {
                name: SmolStr::new_static("Object"),
            },
        );
        self.access(l, r, object, vec![hash])
    }

    pub fn object_type_from_hash(&mut self, l: usize, r: usize, hash: Expr) -> Expr {
        let object = self.mk(
            l,
            l,
            ExprKind::QualifiedReference {
                name: SmolStr::new_static("Object"),
            },
        );
        self.access(l, r, object, vec![hash])
    }

    // ---- bindings extension ----------------------------------------------------------

    /// Sorts a site body's statements into the site items ARM-8 defines.
    pub fn site(&mut self, l: usize, r: usize, body: Vec<Expr>) -> Expr {
        let mut items = Vec::with_capacity(body.len());
        for e in body {
            let span = e.span;
            let item = match e.kind {
                ExprKind::Categories { entries } => {
                    let entries = entries
                        .into_iter()
                        .map(|op| {
                            if op.op != AttributeOpKind::Set {
                                self.push(Diagnostic::error(
                                    codes::SYNTAX_ERROR,
                                    op.span,
                                    "a category is written `name => value expression`",
                                ));
                            }
                            Category {
                                name: op.name,
                                value: op.value,
                                span: op.span,
                            }
                        })
                        .collect();
                    SiteItem::Categories { entries, span }
                }
                ExprKind::Layers { layers } => {
                    let list = match layers.kind {
                        ExprKind::Array { elements } => elements,
                        _ => {
                            self.push(
                                Diagnostic::error(
                                    codes::SYNTAX_ERROR,
                                    layers.span,
                                    "`bindings =>` takes an array of `layer { ... }`",
                                )
                                .with_note("help: write `bindings => [ layer { 'site': include => 'confdir:/default' } ]`"),
                            );
                            Vec::new()
                        }
                    };
                    let mut out = Vec::with_capacity(list.len());
                    for el in list {
                        match el.kind {
                            ExprKind::Layer { name, ops } => out.push(Layer {
                                name: *name,
                                ops,
                                span: el.span,
                            }),
                            _ => self.push(Diagnostic::error(
                                codes::SYNTAX_ERROR,
                                el.span,
                                "expected `layer { 'name': ... }` in the layer list",
                            )),
                        }
                    }
                    SiteItem::Layers { layers: out, span }
                }
                ExprKind::ResourceDefaults { type_expr, ops, .. } if matches!(&type_expr.kind, ExprKind::QualifiedReference { name } if name == "Environment") => {
                    SiteItem::EnvironmentDefaults { ops, span }
                }
                ExprKind::Resource {
                    type_expr,
                    bodies,
                    form,
                } => match &type_expr.kind {
                    ExprKind::QualifiedName { name } if name == "environment" => {
                        SiteItem::Environment { bodies, span }
                    }
                    ExprKind::QualifiedName { name } if name == "dynamic_environments" => {
                        SiteItem::DynamicEnvironments { bodies, span }
                    }
                    _ => SiteItem::Statement {
                        expr: Expr {
                            kind: ExprKind::Resource {
                                type_expr,
                                bodies,
                                form,
                            },
                            span,
                            depth: e.depth,
                        },
                    },
                },
                kind => SiteItem::Statement {
                    expr: Expr {
                        kind,
                        span,
                        depth: e.depth,
                    },
                },
            };
            items.push(item);
        }
        let span = self.sp(l, r);
        self.mk(l, r, ExprKind::Site(Box::new(Site { items, span })))
    }

    pub fn bindings_block(
        &mut self,
        l: usize,
        r: usize,
        name: SmolStr,
        nl: usize,
        nr: usize,
        items: Vec<BindItem>,
    ) -> Expr {
        let span = self.sp(l, r);
        let block = BindingsBlock {
            name,
            name_span: self.sp(nl, nr),
            items,
            span,
        };
        self.mk(l, r, ExprKind::Bindings(Box::new(block)))
    }

    pub fn flags(&mut self, flags: Vec<(bool, usize, usize)>) -> BindFlags {
        let mut out = BindFlags::default();
        self.merge_flags(&mut out, flags);
        out
    }

    fn merge_flags(&mut self, out: &mut BindFlags, flags: Vec<(bool, usize, usize)>) {
        for (is_abstract, l, r) in flags {
            let span = self.sp(l, r);
            let slot = if is_abstract {
                &mut out.abstract_
            } else {
                &mut out.override_
            };
            if let Some(first) = *slot {
                let word = if is_abstract { "abstract" } else { "override" };
                self.push(
                    Diagnostic::error(
                        codes::DUPLICATE_BIND_FLAG,
                        span,
                        format!("`{word}` is given twice"),
                    )
                    .with_label(first, "first given here"),
                );
            } else {
                *slot = Some(span);
            }
        }
    }

    /// Classifies a bind key, folding flags written after `parameters`/`variables` (D3) into
    /// the operation's flags.
    pub fn key_and_flags(
        &mut self,
        flags: Vec<(bool, usize, usize)>,
        key: RawKey,
    ) -> (BindFlags, BindKey) {
        let mut out = BindFlags::default();
        self.merge_flags(&mut out, flags);
        let key = match key {
            RawKey::Empty => BindKey::Inferred,
            RawKey::Parameters(f, target) => {
                self.merge_flags(&mut out, f);
                BindKey::Parameters { target }
            }
            RawKey::Variables(f, type_expr) => {
                self.merge_flags(&mut out, f);
                if let Some(t) = &type_expr {
                    self.expect_type(t, "the type of bound variables");
                }
                BindKey::Variables { type_expr }
            }
            RawKey::One(e) => {
                if is_string_like(&e) {
                    BindKey::Name { name: e }
                } else if is_type_like(&e) {
                    BindKey::Type { type_expr: e }
                } else {
                    self.invalid_key(&e);
                    BindKey::Name { name: e }
                }
            }
            RawKey::Two(t, n) => {
                self.expect_type(&t, "the first part of a typed key");
                if !is_string_like(&n) {
                    self.invalid_key(&n);
                }
                BindKey::TypedName {
                    type_expr: t,
                    name: n,
                }
            }
        };
        (out, key)
    }

    pub fn bind_key(&mut self, key: RawKey) -> BindKey {
        self.key_and_flags(Vec::new(), key).1
    }

    fn expect_type(&mut self, e: &Expr, what: &str) {
        if !is_type_like(e) {
            self.push(Diagnostic::error(
                codes::INVALID_BIND_KEY,
                e.span,
                format!("{what} must be a type such as `Integer`, `Array[String]` or `class ntp`"),
            ));
        }
    }

    fn invalid_key(&mut self, e: &Expr) {
        let mut d = Diagnostic::error(
            codes::INVALID_BIND_KEY,
            e.span,
            "a binding key must be a quoted name, a type, or `Type, 'name'`",
        );
        if let ExprKind::QualifiedName { name } = &e.kind {
            if let Some(s) = crate::diag::did_you_mean(name, BIND_WORDS) {
                d = d.with_note(format!("help: did you mean the keyword `{s}`?"));
            } else {
                d = d.with_note(format!("help: quote the name: `'{name}'`"));
            }
        }
        self.push(d);
    }

    pub fn class_list(&mut self, e: Expr) -> Expr {
        let is_name = |x: &Expr| {
            matches!(
                x.kind,
                ExprKind::QualifiedName { .. } | ExprKind::String { .. } | ExprKind::Concat { .. }
            )
        };
        let ok = match &e.kind {
            ExprKind::Array { elements } => elements.iter().all(is_name),
            _ => is_name(&e),
        };
        if !ok {
            self.push(
                Diagnostic::error(
                    codes::INVALID_CLASS_LIST,
                    e.span,
                    "`include` and `exclude` take a class name or an array of class names",
                )
                .with_note("help: write `include ntp` or `include [ntp, ssh]`"),
            );
        }
        e
    }

    pub fn bind_option(
        &mut self,
        l: usize,
        r: usize,
        (name, bare): (SmolStr, bool),
        nl: usize,
        nr: usize,
        value: OptionValue,
    ) -> BindOption {
        let name_span = self.sp(nl, nr);
        if !bare {
            self.push(
                Diagnostic::error(
                    codes::INVALID_OPTION,
                    name_span,
                    format!("option names are bare words, not strings: `'{name}'`"),
                )
                .with_note(format!("help: write `{name} => ...`")),
            );
        }
        BindOption {
            name,
            name_span,
            value,
            span: self.sp(l, r),
        }
    }
}

/// Moves a diagnostic found in text that stands at `base` of its file to its place there.
fn shift(d: &mut Diagnostic, base: usize) {
    let by = |span: &mut Span| {
        if !span.is_none() {
            *span = Span::new(
                span.file,
                base + span.start as usize,
                base + span.end as usize,
            );
        }
    };
    d.for_each_span_mut(by);
}

/// A byte range of the source and the text to write in its place.
type TextEdit = (std::ops::Range<usize>, String);

fn expected_or_empty() -> Vec<String> {
    Vec::new()
}

/// lalrpop's `ExtraToken` has no expected list; treat it like an unrecognized token.
trait IntoUnrecognized {
    fn into_unrecognized(self, expected: Vec<String>) -> ParseError<usize, Tok, LexStop>;
}

impl IntoUnrecognized for ParseError<usize, Tok, LexStop> {
    fn into_unrecognized(self, expected: Vec<String>) -> ParseError<usize, Tok, LexStop> {
        match self {
            ParseError::ExtraToken { token } => ParseError::UnrecognizedToken { token, expected },
            other => other,
        }
    }
}

fn error_location(e: &ParseError<usize, Tok, LexStop>) -> (usize, usize) {
    match e {
        ParseError::UnrecognizedEof { location, .. } | ParseError::InvalidToken { location } => {
            (*location, *location)
        }
        ParseError::UnrecognizedToken { token, .. } | ParseError::ExtraToken { token } => {
            (token.0, token.2)
        }
        ParseError::User { error } => match *error {},
    }
}

fn is_string_like(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::String { .. } | ExprKind::Concat { .. } | ExprKind::Heredoc { .. }
    )
}

fn is_type_like(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::QualifiedReference { .. } | ExprKind::ClassType { .. } => true,
        ExprKind::Access { target, .. } => is_type_like(target),
        _ => false,
    }
}

fn rewrite_text_head(e: &mut Expr) {
    let mut cur = e;
    loop {
        let name = match &cur.kind {
            ExprKind::QualifiedName { name } => Some(name.clone()),
            ExprKind::Integer { text, radix: 10 } => Some(text.clone()),
            _ => None,
        };
        if let Some(name) = name {
            cur.kind = ExprKind::Variable { name };
            return;
        }
        cur = match &mut cur.kind {
            ExprKind::Access { target, .. } => target,
            ExprKind::MethodCall(call) => &mut call.receiver,
            _ => return,
        };
    }
}

/// `class a { class b {} }` defines `a::b` (Puppet prefixes nested classes and defines).
fn qualify_nested_names(body: &mut [Expr], prefix: Option<&str>) {
    for e in body {
        match &mut e.kind {
            ExprKind::Class(def) => {
                let ClassDef { name, body, .. } = &mut **def;
                if let Some(p) = prefix {
                    *name = SmolStr::new(format!("{p}::{name}"));
                }
                let n = name.clone();
                qualify_nested_names(body, Some(&n));
            }
            ExprKind::Define(def) => {
                let DefineDef { name, .. } = &mut **def;
                if let Some(p) = prefix {
                    *name = SmolStr::new(format!("{p}::{name}"));
                }
            }
            ExprKind::Block { statements } => qualify_nested_names(statements, prefix),
            _ => {}
        }
    }
}

fn max_depth<'a>(it: impl IntoIterator<Item = &'a Expr>) -> u32 {
    it.into_iter().map(|e| e.depth).max().unwrap_or(0)
}

fn params_depth(ps: &[Parameter]) -> u32 {
    ps.iter()
        .map(|p| max_depth(p.type_expr.iter().chain(p.default.iter()).map(|b| &**b)))
        .max()
        .unwrap_or(0)
}

fn ops_depth(ops: &[AttributeOp]) -> u32 {
    max_depth(ops.iter().map(|o| &o.value))
}

fn lambda_depth(l: &Option<Box<Lambda>>) -> u32 {
    l.as_ref().map_or(0, |l| {
        params_depth(&l.params)
            .max(max_depth(&l.body))
            .max(max_depth(l.return_type.iter().map(|b| &**b)))
            + 1
    })
}

/// The greatest depth among a node's direct children (bindings blocks are bounded by the lexer's
/// bracket limit and count as 1).
#[inline(always)]
fn child_depth(kind: &ExprKind) -> u32 {
    match kind {
        ExprKind::Block { statements } => max_depth(statements),
        ExprKind::Concat { segments } => max_depth(segments),
        ExprKind::Text { expr } | ExprKind::Paren { expr } | ExprKind::Query { expr } => expr.depth,
        ExprKind::Heredoc { text, .. } => text.depth,
        ExprKind::Array { elements } => max_depth(elements),
        ExprKind::Hash { entries } => {
            entries
                .iter()
                .map(|e| e.key.depth.max(e.value.depth))
                .max()
                .unwrap_or(0)
                + 1
        }
        ExprKind::Binary { operands, .. } | ExprKind::Relationship { operands, .. } => {
            max_depth(operands)
        }
        ExprKind::Unary { operand, .. } => operand.depth,
        ExprKind::Access { target, keys } => target.depth.max(max_depth(keys)),
        ExprKind::Selector { subject, entries } => subject.depth.max(
            entries
                .iter()
                .map(|e| e.matcher.depth.max(e.value.depth) + 1)
                .max()
                .unwrap_or(0),
        ),
        ExprKind::Assignment { target, value, .. } => target.depth.max(value.depth),
        ExprKind::Call {
            functor,
            args,
            lambda,
            ..
        } => functor.depth.max(max_depth(args)).max(lambda_depth(lambda)),
        ExprKind::MethodCall(call) => call
            .receiver
            .depth
            .max(max_depth(&call.args))
            .max(lambda_depth(&call.lambda)),
        ExprKind::If {
            test,
            then_body,
            else_body,
        }
        | ExprKind::Unless {
            test,
            then_body,
            else_body,
        } => test
            .depth
            .max(max_depth(then_body))
            .max(max_depth(else_body)),
        ExprKind::Case { test, options } => test.depth.max(
            options
                .iter()
                .map(|o| max_depth(&o.values).max(max_depth(&o.body)) + 1)
                .max()
                .unwrap_or(0),
        ),
        ExprKind::Resource {
            type_expr, bodies, ..
        } => type_expr.depth.max(
            bodies
                .iter()
                .map(|b| b.title.depth.max(ops_depth(&b.ops)) + 1)
                .max()
                .unwrap_or(0),
        ),
        ExprKind::ResourceDefaults { type_expr, ops, .. } => type_expr.depth.max(ops_depth(ops)),
        ExprKind::ResourceOverride { resources, ops, .. } => resources.depth.max(ops_depth(ops)),
        ExprKind::Collect {
            type_expr,
            query,
            ops,
        } => type_expr
            .depth
            .max(query.expr.as_ref().map_or(0, |e| e.depth))
            .max(ops_depth(ops)),
        ExprKind::Class(def) => params_depth(&def.params).max(max_depth(&def.body)),
        ExprKind::Define(def) => params_depth(&def.params).max(max_depth(&def.body)),
        ExprKind::Function(def) => params_depth(&def.params)
            .max(max_depth(&def.body))
            .max(max_depth(def.return_type.iter().map(|b| &**b))),
        ExprKind::Node(def) => max_depth(&def.matches)
            .max(max_depth(&def.body))
            .max(max_depth(def.parent.iter().map(|b| &**b))),
        ExprKind::TypeAlias { type_expr, .. } => type_expr.depth,
        ExprKind::TypeMapping { mapping, target } => mapping.depth.max(target.depth),
        ExprKind::TypeDefinition(def) => max_depth(&def.body),
        ExprKind::Categories { entries } => ops_depth(entries),
        ExprKind::Layers { layers } => layers.depth,
        ExprKind::Layer { name, ops } => name.depth.max(ops_depth(ops)),
        ExprKind::Site(site) => site
            .items
            .iter()
            .map(|i| match i {
                SiteItem::Statement { expr } => expr.depth,
                _ => 1,
            })
            .max()
            .unwrap_or(0),
        ExprKind::Bindings(_) => 1,
        ExprKind::Nop
        | ExprKind::String { .. }
        | ExprKind::Integer { .. }
        | ExprKind::Float { .. }
        | ExprKind::Boolean { .. }
        | ExprKind::Undef
        | ExprKind::Default
        | ExprKind::Regex { .. }
        | ExprKind::QualifiedName { .. }
        | ExprKind::QualifiedReference { .. }
        | ExprKind::ReservedWord { .. }
        | ExprKind::Variable { .. }
        | ExprKind::BooleanVariable { .. }
        | ExprKind::ClassType { .. }
        | ExprKind::Error => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;

    /// A chain grows in room that doubles (`push_operator`), with copies of an operator in the
    /// room it has not used: the AST keeps exactly its operators, in order, whether the chain
    /// is the whole expression or an operand of a looser operator.
    #[test]
    fn a_grown_chain_keeps_exactly_its_operators() {
        fn operators_of(e: &Expr) -> Option<(usize, Vec<BinaryOp>)> {
            match &e.kind {
                ExprKind::Binary {
                    operands,
                    operators,
                } => Some((operands.len(), operators.to_vec())),
                _ => None,
            }
        }
        for n in [1, 2, 3, 4, 5, 8, 9, 100] {
            let expected: Vec<BinaryOp> = (0..n)
                .map(|i| {
                    if i % 3 == 1 {
                        BinaryOp::Sub
                    } else {
                        BinaryOp::Add
                    }
                })
                .collect();
            let mut chain = String::from("1");
            for (i, op) in expected.iter().enumerate() {
                let op = if *op == BinaryOp::Sub { "-" } else { "+" };
                chain.push_str(&format!(" {op} {}", i + 2));
            }
            for looser in [false, true] {
                let src = if looser {
                    format!("$x = {chain} == 7\n")
                } else {
                    format!("$x = {chain}\n")
                };
                let parsed = parse_file(FileId(0), &src);
                let program = parsed.program.expect("parses");
                let Some(ExprKind::Assignment { value, .. }) =
                    program.body.first().map(|e| &e.kind)
                else {
                    panic!("{src}: not an assignment");
                };
                let chain = if looser {
                    assert_eq!(operators_of(value), Some((2, vec![BinaryOp::Eq])), "{src}");
                    let ExprKind::Binary { operands, .. } = &value.kind else {
                        unreachable!("checked above");
                    };
                    &operands[0]
                } else {
                    &**value
                };
                assert_eq!(
                    operators_of(chain),
                    Some((n + 1, expected.clone())),
                    "{src}"
                );
            }
        }
    }

    /// The builder reuses a file's emptied statement lists and operator lists ([`Scratch`]):
    /// each statement of a file parses as it does alone in a file of its own, where every list
    /// is new. The statements nest bodies and sequences deeper than the spare lists kept, hold
    /// statement calls (`include x`, whose name waits for its argument) and comma lists.
    #[test]
    fn reused_working_lists_leave_nothing_behind() {
        let nested = (0..Scratch::KEPT + 4).fold("notice 1 + 2 * 3 - 4".to_string(), |body, i| {
            format!("if $a{i} + 1 < 2 * $b ? {{ 1 => 2, default => 3 }} {{ {body} include c{i} }}")
        });
        let statements = [
            "class a { include x $y = 1 + 2 * 3 notice $y }".to_string(),
            "class b { notice 'z' }".to_string(),
            "$z = [1 + 2, 3 * 4 - 5] == $x and $y or !$w".to_string(),
            nested,
            "define d($p = 1 + 2) { require a, b include c contain $p }".to_string(),
            "if $x { include a } else { notice 1 - 2 $q = $r =~ /s/ }".to_string(),
            "node 'n' { include a include b $c = 1 << 2 }".to_string(),
            "include last".to_string(),
        ];
        let pn = |src: &str| {
            let parsed = parse_file(FileId(0), src);
            assert!(
                parsed.diagnostics.is_empty(),
                "{src}: {:?}",
                parsed.diagnostics
            );
            let program = parsed.program.expect("no errors, so a program");
            crate::pn::program_to_json(&program).trim_end().to_string()
        };
        let alone: Vec<String> = statements.iter().map(|s| pn(s)).collect();
        let whole = pn(&statements.join("\n"));
        assert_eq!(whole, format!("{{\"^\":[\"block\",{}]}}", alone.join(",")));
    }

    /// An attribute list starts with room for four (`list_starting_with`) and a resource's
    /// bodies are put in one list: the tree keeps each list at its length, in every node that
    /// holds attributes (resources, defaults, overrides, a site's categories and layers).
    #[test]
    fn attribute_and_body_lists_are_kept_at_their_length() {
        fn exact<T>(what: &str, list: &Vec<T>) {
            assert_eq!(list.capacity(), list.len(), "{what}: room past its length");
        }
        for ops in ["ensure => present", "ensure => present, mode => '0644'"] {
            let src = format!(
                "file {{ '/a': {ops} }}
file {{ '/b': {ops}; '/c': {ops} }}
                 File {{ {ops} }}
File['/a'] {{ {ops} }}
                 site {{
  categories {{ node => $::fqdn }}
                   bindings => [ layer {{ 'site': include => 'confdir:/default' }} ]
}}
"
            );
            let parsed = parse_file(FileId(0), &src);
            assert!(
                parsed.diagnostics.is_empty(),
                "{src}: {:?}",
                parsed.diagnostics
            );
            let program = parsed.program.expect("no errors, so a program");
            let mut seen = 0;
            for e in &program.body {
                match &e.kind {
                    ExprKind::Resource { bodies, .. } => {
                        exact("bodies", bodies);
                        for body in bodies {
                            exact("a body's attributes", &body.ops);
                        }
                    }
                    ExprKind::ResourceDefaults { ops, .. }
                    | ExprKind::ResourceOverride { ops, .. } => exact("attributes", ops),
                    ExprKind::Site(site) => {
                        for item in &site.items {
                            match item {
                                SiteItem::Categories { entries, .. } => {
                                    exact("categories", entries)
                                }
                                SiteItem::Layers { layers, .. } => {
                                    for layer in layers {
                                        exact("a layer's attributes", &layer.ops);
                                    }
                                }
                                other => panic!("{src}: unexpected {other:?}"),
                            }
                        }
                    }
                    other => panic!("{src}: unexpected {other:?}"),
                }
                seen += 1;
            }
            assert_eq!(seen, 5, "{src}");
        }
    }

    /// Top-level statements are handed over while the parse goes on, not at its end: those
    /// before a syntax error are handed even though the file has no program (the last one
    /// before the error too). A body's statements stay in their body, and a statement call
    /// keeps the argument that follows it.
    #[test]
    fn top_level_statements_are_handed_over_as_they_are_parsed() {
        let src = "class a { class b { } notice(1) $x = 1 }\nnotice 'hi'\n$y = [1, 2]\n\n$z = ";
        let mut handed = Vec::new();
        let found = parse_file_statements(FileId(0), src, &mut |e| handed.push(e));
        assert!(found.iter().any(Diagnostic::is_error));
        let kinds: Vec<String> = handed
            .iter()
            .map(|e| match &e.kind {
                ExprKind::Class(def) => {
                    format!("class {} ({} statements)", def.name, def.body.len())
                }
                ExprKind::Call { functor, args, .. } => {
                    format!("call {:?} ({} args)", functor.kind, args.len())
                }
                other => format!("{other:?}").chars().take(6).collect(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "class a (3 statements)",
                "call QualifiedName { name: \"notice\" } (1 args)",
                "Assign",
            ]
        );
        // The nested class is named after the one around it, as in the whole parse.
        let ExprKind::Class(def) = &handed[0].kind else {
            unreachable!("checked above")
        };
        assert!(matches!(&def.body[0].kind, ExprKind::Class(b) if b.name == "a::b"));
    }

    /// Text parsed where it stands in a larger file (a piece of a large manifest, Puppet code
    /// in a data file) has every span placed there, a statement call's as well, and an `if`
    /// ends at its `}` whatever follows it, as Puppet ends it.
    #[test]
    fn spans_stand_where_the_text_does() {
        let parsed = parse_file_at(
            FileId(0),
            "include ntp, apt\nif $x { }\n\n# after\n$y = 1\n",
            100,
        );
        let body = parsed.program.expect("parses").body;
        let spans: Vec<(u32, u32)> = body.iter().map(|e| (e.span.start, e.span.end)).collect();
        assert_eq!(spans, [(100, 116), (117, 126), (136, 142)]);
    }

    /// The files of the valid parse corpus that parse without a word, one after another,
    /// repeated until they are more than `size` bytes: a large file that parses cleanly.
    pub(super) fn valid_corpus_repeated(size: usize) -> String {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../corpus/parse/valid");
        let mut paths = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(dir)];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|x| x == "pp") {
                    paths.push(path);
                }
            }
        }
        paths.sort();
        let mut once = String::new();
        for path in &paths {
            let text = std::fs::read_to_string(path).unwrap_or_default();
            if parse_file(FileId(0), &text).diagnostics.is_empty() {
                once.push_str(&text);
                once.push('\n');
            }
        }
        assert!(once.len() > 10_000, "{} bytes of corpus", once.len());
        let mut src = String::new();
        while src.len() <= size {
            src.push_str(&once);
        }
        src
    }

    /// A file from [`LEXED_ELSEWHERE_FROM`] bytes on is lexed on another thread while it is
    /// parsed: the program, the statements handed over and the diagnostics are those of the
    /// reporting parse, which lexes the whole file first, here. The file is the valid parse
    /// corpus, repeated.
    #[test]
    fn a_large_file_lexed_elsewhere_parses_as_lexed_here() {
        let src = valid_corpus_repeated(LEXED_ELSEWHERE_FROM);
        assert!(
            lexes_elsewhere(&src),
            "one core here: nothing is lexed elsewhere"
        );
        assert!(pieces::cuts_for(&src).is_none(), "too small for pieces");
        let here = parse_with_recovery(FileId(0), &src, 0);
        assert!(
            here.diagnostics.is_empty(),
            "{:?}",
            here.diagnostics.first()
        );
        let elsewhere = parse_file(FileId(0), &src);
        assert!(elsewhere.diagnostics.is_empty());
        let program = format!("{:?}", here.program);
        assert_eq!(format!("{:?}", elsewhere.program), program);
        let mut handed = Vec::new();
        let said = parse_file_statements(FileId(0), &src, &mut |e| handed.push(e));
        assert!(said.is_empty());
        assert_eq!(
            format!("{handed:?}"),
            format!("{:?}", here.program.map(|p| p.body).unwrap_or_default())
        );

        // An error at the end: reported as the reporting parse reports it.
        let bad = format!("{src}\n$x = [1,\n");
        let here = parse_with_recovery(FileId(0), &bad, 0);
        assert!(here.diagnostics.iter().any(Diagnostic::is_error));
        assert_eq!(parse_file(FileId(0), &bad).diagnostics, here.diagnostics);
        assert_eq!(
            parse_file_statements(FileId(0), &bad, &mut drop),
            here.diagnostics
        );
    }

    /// A file with warnings only is parsed again whole for them: the statements handed over
    /// before that are not handed again, and the rest follow, so the program is given once.
    #[test]
    fn a_file_with_warnings_hands_each_statement_over_once() {
        let src = "notice 'a'\n$x = 1\n$y = \"\\q\"\n$z = [2]\n";
        let whole = parse_file(FileId(0), src);
        let program = whole.program.expect("warnings only");
        assert!(!whole.diagnostics.is_empty());
        let mut handed = Vec::new();
        let found = parse_file_statements(FileId(0), src, &mut |e| handed.push(e));
        assert_eq!(found, whole.diagnostics);
        assert_eq!(format!("{handed:?}"), format!("{:?}", program.body));
        assert_eq!(handed.len(), 4);
    }

    /// Every `.pp` file of the repository's `corpus/`, in path order.
    pub(super) fn corpus_files() -> Vec<std::path::PathBuf> {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../corpus");
        let mut dirs = vec![corpus];
        let mut files = Vec::new();
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir)
                .expect("the corpus is readable")
                .flatten()
            {
                let path = entry.path();
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "pp") {
                    files.push(path);
                }
            }
        }
        files.sort();
        assert!(files.len() > 100, "the corpus is found");
        files
    }

    /// Runs `parse` on a thread with a big stack: the corpus holds nesting at the limits, which
    /// the CLI parses on such a thread too.
    pub(super) fn on_a_big_stack<T: Send + 'static>(
        parse: impl FnOnce() -> T + Send + 'static,
    ) -> T {
        std::thread::Builder::new()
            .stack_size(64 * 1024 * 1024)
            .spawn(parse)
            .expect("the thread starts")
            .join()
            .expect("no file panics")
    }

    /// The fast parser and the reporting parser (the same grammar, some levels not inlined)
    /// accept the same files and build the same tree: on every file of `corpus/`, a file the
    /// fast parser accepts without a word gets the same program and nothing to report from the
    /// reporting parser, and a file it does not gets at least one diagnostic from it. Which
    /// parser ran is seen in an error's expected list: the reporting parser lists what may
    /// close the array.
    #[test]
    fn both_parsers_accept_the_same_files_and_build_the_same_tree() {
        let files = corpus_files();
        let (clean, reported) = on_a_big_stack(move || {
            let (mut clean, mut reported) = (0, 0);
            for path in &files {
                let Ok(src) = std::fs::read_to_string(path) else {
                    continue;
                };
                let fast = parse_streaming(FileId(0), &src, 0);
                let reporting = parse_with_recovery(FileId(0), &src, 0);
                match fast {
                    Some(fast) => {
                        clean += 1;
                        assert_eq!(reporting.diagnostics, [], "{}", path.display());
                        assert_eq!(
                            format!("{:?}", reporting.program),
                            format!("{:?}", fast.program),
                            "{}",
                            path.display()
                        );
                    }
                    None => {
                        reported += 1;
                        assert_ne!(reporting.diagnostics, [], "{}", path.display());
                    }
                }
            }
            (clean, reported)
        });
        assert!(
            clean > 100 && reported > 20,
            "{clean} clean, {reported} reported"
        );
        let parsed = parse_file(FileId(0), "$x = ['a', 'b'\n$y = 1\n");
        let notes: Vec<&String> = parsed.diagnostics.iter().flat_map(|d| &d.notes).collect();
        assert_eq!(notes, ["expected one of `]`, `=>`, or `,`"]);
    }

    /// The fast parser's own loop (`parser/driver.rs`) runs lalrpop's tables as lalrpop's driver
    /// does: on every file of `corpus/` and on inputs that end early, go on after a complete
    /// program or hold a token no state takes, both accept the same files, build the same tree
    /// and leave the builder with the same findings.
    #[test]
    fn the_fast_parsers_loop_runs_the_tables_as_lalrpop_does() {
        let mut sources: Vec<String> = corpus_files()
            .iter()
            .filter_map(|path| std::fs::read_to_string(path).ok())
            .collect();
        assert!(sources.len() > 100, "the corpus is read");
        sources.extend(
            [
                "",
                "# a comment only\n",
                "$x = ",
                "class a {",
                "notice 'a' }",
                "1 2 3",
                "$x = 1 )",
                "file { 'x': ensure => present }",
                "bindings m { bind 'a' to 1 }",
                "site { categories { node => $fqdn } }",
                "]",
            ]
            .map(String::from),
        );
        let (accepted, refused) = on_a_big_stack(move || {
            let (mut accepted, mut refused) = (0, 0);
            for src in &sources {
                let builder = |tokens: &lexer::TokenStream| {
                    Builder::new(FileId(0), src, 0, Vec::new(), usize::MAX, tokens.decoded())
                };
                let ours_tokens = lexer::TokenStream::new(FileId(0), src);
                let mut ours_builder = builder(&ours_tokens);
                let ours = driver::parse_program(
                    &mut ours_builder,
                    &mut lexer::TokenSource::Here(ours_tokens),
                );
                let mut lalrpops_tokens = lexer::TokenStream::new(FileId(0), src);
                let mut lalrpops_builder = builder(&lalrpops_tokens);
                let lalrpops = generated::grammar::ProgramParser::new().parse(
                    &mut lalrpops_builder,
                    lalrpops_tokens.by_ref().map(Ok::<_, LexStop>),
                );
                assert_eq!(
                    format!("{ours:?}"),
                    format!("{:?}", lalrpops.as_ref().ok()),
                    "{src}"
                );
                assert_eq!(ours_builder.diags, lalrpops_builder.diags, "{src}");
                assert_eq!(
                    ours_builder.syntax_errors, lalrpops_builder.syntax_errors,
                    "{src}"
                );
                if ours.is_some() {
                    accepted += 1;
                } else {
                    refused += 1;
                }
            }
            (accepted, refused)
        });
        assert!(
            accepted > 100 && refused > 20,
            "{accepted} accepted, {refused} refused"
        );
    }

    /// The fast parser stops at a file's first syntax error, without recovering (the reporting
    /// parser then parses the file again and reports every error): one file for each of the
    /// grammar's recovery points (a statement, a resource attribute, a bindings item), each with
    /// a second error after the first. The reporting parser, run on the same files, does recover.
    #[test]
    fn the_fast_parser_stops_at_the_first_error() {
        let files = [
            "$a = = 1\n$b = = 2\n",
            "file { 'x': ensure => , }\n$b = = 2\n",
            "bindings m {\n  bind 'a' => 1\n  bind 'b' to ]\n}\n",
        ];
        for src in files {
            let tokens = lexer::TokenStream::new(FileId(0), src);
            let mut builder =
                Builder::new(FileId(0), src, 0, Vec::new(), usize::MAX, tokens.decoded());
            let result = driver::parse_program(&mut builder, &mut lexer::TokenSource::Here(tokens));
            assert!(result.is_none(), "{src}");
            assert_eq!(
                builder.syntax_errors, 0,
                "the fast parser recovered in {src}"
            );
            assert!(builder.diags.is_empty(), "{src}");
            let reported = parse_file(FileId(0), src);
            let errors = reported.diagnostics.iter().filter(|d| d.is_error()).count();
            assert!(errors >= 2, "{src}: {:?}", reported.diagnostics);
        }
    }

    /// An expression is 64 bytes: its kind 48 (every kind's fields within 40 bytes, and a
    /// call's `statement` flag holds the tag), its span and depth 16. A kind with one more word
    /// made every expression 72 bytes, and every boxed one 80 (the allocator's next size).
    #[test]
    fn an_expression_is_64_bytes() {
        assert!(
            size_of::<ExprKind>() <= 48,
            "ExprKind is {}",
            size_of::<ExprKind>()
        );
        assert!(size_of::<Expr>() <= 64, "Expr is {}", size_of::<Expr>());
    }

    /// lalrpop keeps every grammar symbol in one enum on its LR stack and moves it on every
    /// reduction, so the largest nonterminal type sets the parser's speed. An entry (the symbol
    /// and its two positions) past 128 bytes was once moved by a `memcpy` call, whose stores the
    /// next read stalled on (measured: 27% of the time on bindings files). Larger payloads are
    /// boxed in the grammar (`Box<ResourceBody>`, `Box<Predicate>`, `Box<HashEntry>`, ...), and
    /// this keeps every unboxed one within 104 bytes, lalrpop's own `ErrorRecovery` among them
    /// (in the reporting parser only: the fast parser has no recovery alternatives, see
    /// `build.rs`). `AttributeOp` is never on a stack (the grammar inlines its rule), though the
    /// enum still has a variant for it, which is the largest: with 64-byte expressions it is
    /// 104 bytes (112 before), and the entries 120. Smaller entries are no faster
    /// (docs/benchmarks.md: entries of 96 bytes parsed the corpus 3-5% slower, twice).
    #[test]
    fn lr_stack_symbols_stay_small() {
        const MOST: usize = 104;
        assert!(
            size_of::<lalrpop_util::ErrorRecovery<usize, Tok, LexStop>>() <= MOST,
            "ErrorRecovery"
        );
        assert!(size_of::<AttributeOp>() <= MOST, "AttributeOp");
        assert!(size_of::<Expr>() <= MOST, "Expr is {}", size_of::<Expr>());
        assert!(size_of::<Operand>() <= MOST);
        // `Builder::merge_pairs` takes a list's values out in its own memory.
        assert_eq!(size_of::<Operand>(), size_of::<Expr>(), "Operand");
        assert!(size_of::<(Expr, Vec<OperatorTail>)>() <= MOST);
        assert!(size_of::<(RelationshipOp, Expr)>() <= MOST);
        assert!(size_of::<ParsedStatement>() <= MOST);
        assert!(size_of::<Producer>() <= MOST);
        assert!(
            size_of::<RawKey>() <= MOST,
            "RawKey is {}",
            size_of::<RawKey>()
        );
        assert!(size_of::<ProducerKind>() <= MOST);
        assert!(size_of::<OptionValue>() <= MOST);
        assert!(size_of::<BindItem>() <= MOST);
        assert!(size_of::<CaseOption>() <= MOST);
        assert!(size_of::<Parameter>() <= MOST);
        assert!(size_of::<BodyContent>() <= MOST);
        assert!(size_of::<CollectQuery>() <= MOST);
        assert!(size_of::<Tok>() <= MOST);
        assert!(size_of::<(SuffixForm, usize)>() <= MOST);
    }
}
