//! The fast parser's LR loop: runs the tables, reductions and actions lalrpop generated for the
//! fast parser, through lalrpop's public `ParserDefinition` trait, in place of lalrpop's own
//! driver. It owns only the loop: what a state does on a token, what a reduction builds and
//! which tokens are accepted stay lalrpop's, and nothing here knows the grammar.
//!
//! Why a loop of our own: lalrpop's driver is written for every grammar and every token source.
//! Each token goes through its `Result` with a `ParseError`, its `NextToken`, and a stack symbol
//! built in a temporary, copied whole into another and then into the stack; each copy read
//! pieces that had just been written at other offsets, and each such read waited for the writes
//! to drain. That was a third of lalrpop's loop's samples. Here a token is taken from the stream
//! as it is, and its symbol is written where it goes on the stack (`resize_with` makes room
//! first, then builds the entry in place). A state whose only action is one reduction makes it
//! without reading the action table (`__DEFAULT_REDUCTION`, which build.rs derives from
//! lalrpop's tables): a token that is an error there is then refused a few reductions later,
//! by a state that reads it, and never shifted, so the same files are accepted.
//!
//! It must not report errors: the fast parser stops at a file's first error, and the reporting
//! parser (with lalrpop's driver and its error recovery) then parses the file again.

use super::generated::grammar::__parse__Program::{
    __StateMachine as FastParser, __DEFAULT_REDUCTION as DEFAULT_REDUCTION,
};
use super::Builder;
use crate::ast::Expr;
use crate::lexer::TokenSource;
use lalrpop_util::state_machine::{ParserAction, ParserDefinition};

/// Room for this many LR stack entries at first, which most files stay within (it grows past
/// them). Started empty, the stack was moved to a larger place several times in each file, at
/// 128 bytes an entry: the corpus parses 3% faster with the room made at once.
const STACK_ROOM: usize = 64;

/// What the fast parser's action table says a state does.
enum Step {
    Shift(i16),
    Reduce(i16),
    Fail,
}

fn step(action: i16) -> Step {
    // lalrpop encodes the actions of all its tables in the same way; the trait decodes them.
    if let Some(state) = ParserAction::<FastParser<'_, '_, '_>>::as_shift(action) {
        Step::Shift(state)
    } else if let Some(reduction) = ParserAction::<FastParser<'_, '_, '_>>::as_reduce(action) {
        Step::Reduce(reduction)
    } else {
        Step::Fail
    }
}

/// Parses `tokens` with the fast parser: the program's statements, or `None` at the first token
/// that cannot continue it (where lalrpop's driver returns an error, and only there).
pub(super) fn parse_program(
    b: &mut Builder<'_, '_>,
    tokens: &mut TokenSource<'_>,
) -> Option<Vec<Expr>> {
    let mut parser = FastParser {
        b,
        __phantom: std::marker::PhantomData,
    };
    let mut states = Vec::with_capacity(STACK_ROOM);
    states.push(parser.start_state());
    let mut symbols = Vec::with_capacity(STACK_ROOM);
    for (start, token, end) in tokens {
        parser.b.read(&token);
        let terminal = parser.token_to_index(&token)?;
        loop {
            let state = *states.last()?;
            // A state whose only action is one reduction makes it without reading its row of
            // the action table (build.rs, `add_default_reductions`). On a token that is an
            // error there, the error is met in a state that reads the token, before shifting it.
            let action = match DEFAULT_REDUCTION.get(state as usize) {
                Some(&only) if only != 0 => only,
                _ => parser.action(state, terminal),
            };
            match step(action) {
                Step::Shift(state) => {
                    states.push(state);
                    symbols.resize_with(symbols.len() + 1, || {
                        (start, parser.token_to_symbol(terminal, token), end)
                    });
                    break;
                }
                Step::Reduce(reduction) => {
                    // A reduction that ends the program while tokens remain: the grammar has
                    // no place for the token (lalrpop's driver says "extra token").
                    if parser
                        .reduce(reduction, Some(&start), &mut states, &mut symbols)
                        .is_some()
                    {
                        return None;
                    }
                }
                Step::Fail => return None,
            }
        }
    }
    loop {
        let Step::Reduce(reduction) = step(parser.eof_action(*states.last()?)) else {
            return None;
        };
        if let Some(result) = parser.reduce(reduction, None, &mut states, &mut symbols) {
            return result.ok();
        }
    }
}
