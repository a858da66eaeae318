//! A large manifest parsed in pieces, one per core at a time: the file is cut before lines
//! that start a definition (`class `, `define `, `node `), each piece is lexed and parsed on
//! its own with the fast parser, and the pieces' statements are handed over in file order.
//! It owns only where to cut and when a cut holds; what a piece parses to is the fast parser's.
//!
//! It must never give a program the whole file's parse would not. A cut is only a guess (the
//! line may stand in a heredoc, a string or a comment, or follow a word the definition would
//! continue), so it is trusted only when the piece before it parsed cleanly to its end and did
//! not end in a bare word:
//! - the lexer then ended that piece outside every string, comment, heredoc and bracket, so the
//!   whole file's lexer stands at the cut between two tokens, outside brackets, and lexes the
//!   rest as a piece lexed from its start does (a definition keyword is lexed alike after any
//!   token);
//! - the parser accepted the piece as a program, and outside brackets `class`, `define` and
//!   `node` can only start a statement, so the whole file's parser ends a top-level statement
//!   there too. The one exception is a bare word before the keyword: `notice` takes the next
//!   statement as its argument, and `bindings` followed by a name and a brace starts a bindings
//!   block. A piece that ends in a bare word is not trusted.
//!
//! The statements then carry the whole file's spans too: a piece is parsed at its place in the
//! file, and a statement ends at its last token, not where the next one starts (the grammar
//! makes an `if`'s else part optional rather than empty for that: an empty part would end at
//! the next token, which a piece does not have).
//!
//! When a piece is not trusted, the caller parses the whole file as it would have without
//! pieces (the statements already handed over are the same as that parse's first ones).
//! `tests` in this module hold pieces to the whole file's parse on every cut of the corpus, and
//! the `parse` fuzz target on every cut of what it makes.

use super::{parse_streaming_from, Program};
use crate::ast::{Expr, ExprKind};
use crate::lexer::{TokenSource, TokenStream};
use crate::span::{FileId, Span};

/// About how many bytes a piece holds: parsing one takes a millisecond or more, far more than
/// handing it between threads, and its tree stays small while it waits for its turn (`pbc
/// parse` of a 64.6 MB manifest peaks at 74 MB with pieces of 128 KiB, 83 MB with 1 MiB, in the
/// same time).
const PIECE_SIZE: usize = 256 << 10;

/// From this size a file is parsed in pieces, when there is more than one core and a line to
/// cut before. A smaller one is lexed on a second core while it is parsed
/// ([`super::LEXED_ELSEWHERE_FROM`]), within a few milliseconds of the pieces' time.
pub(super) const PIECES_FROM: usize = 2 * super::LEXED_ELSEWHERE_FROM;

/// How many parsed pieces a core may hold while they wait for their turn: pieces take unequal
/// times, and a core that held one waited for the other's slower piece (the two cores of a 64.6
/// MB manifest's parse were busy about 85% of the time).
const PIECES_HELD: usize = 4;

/// A piece's parser's stack. The parser's loop does not recurse; the passes over a statement do,
/// to the bounded AST depth, which fits a 2 MiB stack (`MAX_DEPTH`).
const PIECE_STACK: usize = 16 << 20;

/// Where `src` is cut into pieces when it is parsed on more than one core: `None` when it is
/// small, there is one core, or there is no line to cut before.
pub(super) fn cuts_for(src: &str) -> Option<Vec<usize>> {
    if src.len() < PIECES_FROM || !std::thread::available_parallelism().is_ok_and(|n| n.get() > 1) {
        return None;
    }
    let cuts = cut_points(src);
    (!cuts.is_empty()).then_some(cuts)
}

/// The first line start that begins with a definition keyword at or after every
/// [`PIECE_SIZE`] bytes, without a piece shorter than that.
fn cut_points(src: &str) -> Vec<usize> {
    let bytes = src.as_bytes();
    let mut cuts = Vec::new();
    let mut from = PIECE_SIZE;
    while from < bytes.len() {
        let Some(cut) = next_definition_line(bytes, from) else {
            break;
        };
        cuts.push(cut);
        from = cut + PIECE_SIZE;
    }
    cuts
}

/// Every line start of `src` that begins with `class `, `define ` or `node `: where a piece
/// may start.
pub fn definition_lines(src: &str) -> Vec<usize> {
    let bytes = src.as_bytes();
    let mut lines = Vec::new();
    if starts_a_definition(bytes) {
        lines.push(0);
    }
    let mut from = 0;
    while let Some(line) = next_definition_line(bytes, from) {
        lines.push(line);
        from = line;
    }
    lines
}

fn starts_a_definition(line: &[u8]) -> bool {
    line.starts_with(b"class ") || line.starts_with(b"define ") || line.starts_with(b"node ")
}

/// The start of the first line after `from` that begins with `class `, `define ` or `node `.
fn next_definition_line(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from;
    loop {
        let newline = at + bytes.get(at..)?.iter().position(|&b| b == b'\n')?;
        let line = newline + 1;
        if starts_a_definition(bytes.get(line..)?) {
            return Some(line);
        }
        at = line;
    }
}

/// Parses `src` (standing at `base` of `file`) cut at `cuts`, the pieces on every core, and
/// hands `each` the statements in file order. `Err(handed)` when a piece did not parse cleanly
/// or ended where its cut is not trusted: the file must then be parsed whole, and `each` has
/// been given its first `handed` statements.
///
/// Each core takes the next piece nobody has taken, parses it, and hands it over itself when
/// its turn comes, so that a piece's tree is freed (by `pbc parse`, as soon as it is written)
/// on the core whose allocator made it: freed by another core, each block goes back to its
/// owner through a shared list. A core parses on while it holds fewer than [`PIECES_HELD`]
/// pieces waiting for their turn, and waits otherwise, so the pieces in memory stay a few
/// whatever the file's size.
pub(super) fn parse_in_pieces(
    file: FileId,
    src: &str,
    base: usize,
    cuts: &[usize],
    each: &mut (dyn FnMut(Expr) + Send),
) -> Result<(), usize> {
    let mut bounds = Vec::with_capacity(cuts.len() + 2);
    bounds.push(0);
    bounds.extend(cuts.iter().copied().filter(|&c| c > 0 && c < src.len()));
    bounds.push(src.len());
    bounds.dedup();
    let pieces = bounds.len() - 1;
    let lanes = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .clamp(1, pieces.max(1));
    let turn = Turn {
        state: std::sync::Mutex::new(TurnState {
            next: 0,
            failed: false,
            handed: 0,
            each,
        }),
        changed: std::sync::Condvar::new(),
    };
    let untaken = std::sync::atomic::AtomicUsize::new(0);
    let lane = || {
        // A core that panics (a bug) stops the others instead of leaving them waiting for a
        // turn it would never give; the scope then reports the panic.
        let _stop_the_others = StopOnPanic(&turn);
        let mut held = std::collections::VecDeque::with_capacity(PIECES_HELD);
        loop {
            if turn.failed() {
                return;
            }
            // Pieces are taken in file order, so the next to hand over is always being parsed
            // or held by a core that hands it over before it waits.
            let i = untaken.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if i >= pieces {
                break;
            }
            let parsed = parse_piece(file, src, base, bounds[i]..bounds[i + 1], i + 1 == pieces);
            held.push_back((i, parsed));
            turn.hand_over(&mut held, PIECES_HELD - 1);
        }
        turn.hand_over(&mut held, 0);
    };
    std::thread::scope(|scope| {
        for _ in 1..lanes {
            let spawned = std::thread::Builder::new()
                .stack_size(PIECE_STACK)
                .spawn_scoped(scope, lane);
            if spawned.is_err() {
                // No thread to spare: the cores already parsing take every piece.
                break;
            }
        }
        lane();
    });
    let state = turn.state.into_inner().unwrap_or_else(|e| e.into_inner());
    if state.failed || state.next < pieces {
        return Err(state.handed);
    }
    Ok(())
}

/// Stops every core's parse of pieces when the one holding it panics.
struct StopOnPanic<'t, 'e>(&'t Turn<'e>);

impl Drop for StopOnPanic<'_, '_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.fail();
        }
    }
}

/// Whose turn it is to hand a piece over, shared by the cores parsing pieces.
struct Turn<'e> {
    state: std::sync::Mutex<TurnState<'e>>,
    changed: std::sync::Condvar,
}

struct TurnState<'e> {
    /// The piece to hand over next.
    next: usize,
    /// A piece did not parse cleanly, or a core panicked: nothing more is handed over.
    failed: bool,
    /// How many statements have been handed over.
    handed: usize,
    each: &'e mut (dyn FnMut(Expr) + Send),
}

impl<'e> Turn<'e> {
    fn lock(&self) -> std::sync::MutexGuard<'_, TurnState<'e>> {
        // A core that panicked while handing over leaves the state as it was: the scope's join
        // reports the panic.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn failed(&self) -> bool {
        self.lock().failed
    }

    fn fail(&self) {
        self.lock().failed = true;
        self.changed.notify_all();
    }

    /// Hands over the statements of the pieces `held` (in file order) whose turn has come,
    /// waiting for turns while more than `keep` are held; stops every core at a piece that did
    /// not parse.
    fn hand_over(
        &self,
        held: &mut std::collections::VecDeque<(usize, Option<Vec<Expr>>)>,
        keep: usize,
    ) {
        let mut state = self.lock();
        let mut handed_any = false;
        while !state.failed {
            match held.front() {
                Some((i, _)) if *i == state.next => {}
                _ if held.len() <= keep => break,
                _ => {
                    state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
                    continue;
                }
            }
            let Some((_, parsed)) = held.pop_front() else {
                break;
            };
            handed_any = true;
            match parsed {
                Some(statements) => {
                    for statement in statements {
                        (state.each)(statement);
                        state.handed += 1;
                    }
                    state.next += 1;
                }
                None => state.failed = true,
            }
        }
        drop(state);
        if handed_any {
            self.changed.notify_all();
        }
    }
}

/// One piece's statements when it parsed cleanly and, unless it is the last, may be followed by
/// the next piece's first statement.
fn parse_piece(
    file: FileId,
    src: &str,
    base: usize,
    range: std::ops::Range<usize>,
    last: bool,
) -> Option<Vec<Expr>> {
    let text = src.get(range.clone())?;
    let tokens = TokenSource::Here(TokenStream::new(file, text));
    let parsed = parse_streaming_from(file, text, base + range.start, tokens)?;
    let body = parsed.program?.body;
    let ends_in_bare_word = matches!(
        body.last().map(|e| &e.kind),
        Some(ExprKind::QualifiedName { .. })
    );
    (last || !ends_in_bare_word).then_some(body)
}

/// The program of `src` at `base` of `file` made from its pieces' statements, which are
/// complete (their nested names qualified).
pub(super) fn program_of_pieces(
    file: FileId,
    src: &str,
    base: usize,
    mut body: Vec<Expr>,
) -> Program {
    body.shrink_to_fit();
    Program {
        body,
        span: Span::new(file, base, base + src.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{corpus_files, on_a_big_stack, valid_corpus_repeated};
    use super::super::{parse_cut_at, parse_file, parse_file_statements, parse_with_recovery};
    use super::*;

    /// On every file of `corpus/`, and every two files of it joined as a large manifest joins
    /// them, and every line where a piece may start, alone and all together: pieces trusted
    /// give the whole file's program, and are never trusted in a file where the whole parse
    /// finds anything to report. Enough cuts are trusted, and refused, for both to be tested.
    #[test]
    fn pieces_cut_at_any_definition_line_parse_as_the_whole_file() {
        let (trusted, refused) = on_a_big_stack(|| {
            let (mut trusted, mut refused) = (0, 0);
            let texts: Vec<(String, String)> = corpus_files()
                .iter()
                .filter_map(|path| {
                    let text = std::fs::read_to_string(path).ok()?;
                    Some((path.display().to_string(), text))
                })
                .collect();
            let joined = texts.windows(2).map(|two| {
                (
                    format!("{} then {}", two[0].0, two[1].0),
                    format!("{}\n{}", two[0].1, two[1].1),
                )
            });
            for (path, src) in texts.iter().cloned().chain(joined) {
                let whole = parse_file(FileId(0), &src);
                let whole_program = format!("{:?}", whole.program);
                let lines: Vec<usize> = definition_lines(&src)
                    .into_iter()
                    .filter(|&l| l > 0)
                    .collect();
                let mut cuts: Vec<Vec<usize>> = lines.iter().map(|&l| vec![l]).collect();
                if lines.len() > 1 {
                    cuts.push(lines.clone());
                }
                for cut in cuts {
                    match parse_cut_at(FileId(0), &src, &cut) {
                        Some(program) => {
                            trusted += 1;
                            assert_eq!(whole.diagnostics, [], "{path} cut at {cut:?}");
                            assert_eq!(
                                format!("{:?}", Some(program)),
                                whole_program,
                                "{path} cut at {cut:?}"
                            );
                        }
                        None => refused += 1,
                    }
                }
            }
            (trusted, refused)
        });
        assert!(
            trusted > 100 && refused > 10,
            "{trusted} trusted, {refused} refused"
        );
    }

    /// Lines that start with a definition keyword but stand inside something, or after a word
    /// that takes them in: each cut there is refused, and the whole file is parsed.
    #[test]
    fn a_cut_inside_a_statement_is_not_trusted() {
        let cases = [
            "$x = @(END)\nclass a {}\nEND\nnotice($x)\n",
            "$x = @(\"END\")\nnode b {}\n  | END\nnotice($x)\n",
            "$x = \"one\nclass a {}\n\"\n",
            "$x = 'one\ndefine a {}\n'\n",
            "/* a comment\nclass a {}\n*/\n",
            "notice\nclass { 'a': }\n",
            "bindings\nclass {\n}\n",
            "Class['a']\n->\nclass { 'b': }\n",
            "$x = [1,\nnode a {}\n]\n",
            "node a,\nnode b {}\n",
            "if $x {\nclass a {}\n}\n",
            "class a inherits\nclass {}\n",
        ];
        for src in cases {
            let cuts = definition_lines(src);
            assert!(!cuts.is_empty(), "{src:?} has a line to cut before");
            for cut in cuts.iter().filter(|&&c| c > 0) {
                assert!(
                    parse_cut_at(FileId(0), src, &[*cut]).is_none(),
                    "{src:?} cut at {cut}"
                );
            }
        }
        // Between definitions a cut holds.
        let src = "class a {}\ndefine b() {}\nnode c {}\n$x = 1\nclass d {}\n";
        let cuts = definition_lines(src);
        assert_eq!(cuts.len(), 4);
        let pieces = parse_cut_at(FileId(0), src, &cuts[1..]);
        assert_eq!(
            format!("{pieces:?}"),
            format!("{:?}", parse_file(FileId(0), src).program)
        );
    }

    /// A panic while pieces are handed over (a bug) is reported as a panic: no core is left
    /// waiting for a turn that never comes.
    #[test]
    fn a_panic_in_one_core_stops_the_others() {
        let src = "class a {}\nclass b {}\nclass c {}\nclass d {}\n";
        let cuts = definition_lines(src);
        for panic_at in 0..4 {
            let mut seen = 0;
            let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                parse_in_pieces(FileId(0), src, 0, &cuts[1..], &mut |_| {
                    seen += 1;
                    assert!(seen <= panic_at, "statement {seen}");
                })
            }));
            assert!(
                run.is_err(),
                "the panic at statement {} is reported",
                panic_at + 1
            );
        }
    }

    /// A file large enough to be parsed in pieces, in the parse `pbc parse` and `pbc check`
    /// run: where every cut holds, the program and the statements handed over are the whole
    /// file's; where a cut falls in a heredoc after a piece was handed over, the whole file is
    /// parsed and every statement is handed over once.
    #[test]
    fn a_large_file_parsed_in_pieces_parses_as_a_whole() {
        let src = valid_corpus_repeated(PIECES_FROM + PIECE_SIZE);
        let filler = "notice('x')\n".repeat(PIECES_FROM / 2 / 12 + 1);
        let with_heredoc =
            format!("{filler}class a {{}}\n{filler}$x = @(END)\nclass b {{}}\nEND\n{filler}");
        for (src, every_cut_holds) in [(src, true), (with_heredoc, false)] {
            let (whole, pieces, whole_body, handed) = on_a_big_stack(move || {
                let cuts = cuts_for(&src).expect("more than one core here, and lines to cut");
                assert_eq!(
                    parse_cut_at(FileId(0), &src, &cuts).is_some(),
                    every_cut_holds
                );
                if !every_cut_holds {
                    let tried = parse_in_pieces(FileId(0), &src, 0, &cuts, &mut drop);
                    assert!(matches!(tried, Err(handed) if handed > 0), "{tried:?}");
                }
                let whole = parse_with_recovery(FileId(0), &src, 0);
                assert_eq!(whole.diagnostics, []);
                let pieces = parse_file(FileId(0), &src);
                assert_eq!(pieces.diagnostics, []);
                let mut handed = Vec::new();
                let said = parse_file_statements(FileId(0), &src, &mut |e| handed.push(e));
                assert_eq!(said, []);
                let whole_body = whole.program.as_ref().map(|p| format!("{:?}", p.body));
                (
                    format!("{:?}", whole.program),
                    format!("{:?}", pieces.program),
                    whole_body,
                    format!("{handed:?}"),
                )
            });
            assert_eq!(pieces, whole);
            assert_eq!(Some(handed), whole_body);
        }
    }
}
