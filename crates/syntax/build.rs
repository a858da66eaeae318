//! Generates the LALR parsers from the repository's `grammar/puppet.lalrpop` into `OUT_DIR`,
//! each from its own copy of the grammar: the fast parser (`puppet.rs`) without the error-recovery alternatives
//! marked `// reporting parser only`, and the reporting parser (`puppet_reporting.rs`) without
//! the inlinings marked `#[inline] // fast parser only`. Both accept the same language and build
//! the same AST; the fast one stops at a file's first error, and the reporting one then parses
//! the file again to report every error, where the inlinings it leaves out change where an error
//! is noticed and what is then listed as expected (see "Two parsers" in the grammar's header).
//! The fast parser's state machine is then made visible to the crate (`expose_state_machine`),
//! for the LR loop of its own that `crates/syntax/src/parser/driver.rs` runs it with, and its reductions take
//! a terminal's value off the stack without calling the stack symbol's drop
//! (`pop_terminals_without_drop`), it gains a table of the states whose only action is one
//! reduction (`add_default_reductions`), and its goto function reads tables instead of jumping
//! through nested `match`es (`goto_as_tables`).
use std::path::{Path, PathBuf};

/// The line that marks an inlining the reporting parser leaves out.
const FAST_ONLY_INLINE: &str = "#[inline] // fast parser only";

/// How an alternative the fast parser leaves out ends its line.
const REPORTING_ONLY: &str = "// reporting parser only";

fn main() {
    // The grammar stays at the repository's top level, two levels above this crate.
    println!("cargo:rerun-if-changed=../../grammar");
    let out_dir =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts"));
    let source = Path::new("../../grammar/puppet.lalrpop");
    let fast = write_grammar(source, &out_dir, "fast", "puppet.lalrpop", |line| {
        line.trim_end().ends_with(REPORTING_ONLY)
    });
    let reporting = write_grammar(
        source,
        &out_dir,
        "reporting",
        "puppet_reporting.lalrpop",
        |line| line.trim() == FAST_ONLY_INLINE,
    );
    // The two tables are built at once, one per core: each takes most of the build script's time.
    // Neither emits rerun directives: both grammars are written by this script, and a directive
    // on them would rerun it on every build (the source's directive is printed above). Both are
    // generated whenever the script runs (after a change of the grammar or of this script), even
    // where lalrpop would keep a parser it made before: the patches below then always apply to
    // lalrpop's own output, never to a file an older version of this script patched.
    let process = |path: &Path| {
        lalrpop::Configuration::new()
            .set_out_dir(&out_dir)
            .force_build(true)
            .process_file(path)
            .map_err(|e| e.to_string())
    };
    std::thread::scope(|scope| {
        let fast = scope.spawn(|| process(&fast));
        let reporting = process(&reporting);
        let fast = fast
            .join()
            .expect("the fast parser's thread does not panic");
        fast.expect("lalrpop failed to generate the fast parser");
        reporting.expect("lalrpop failed to generate the reporting parser");
    });
    let fast_parser = out_dir.join("puppet.rs");
    let generated = std::fs::read_to_string(&fast_parser).expect("lalrpop wrote the fast parser");
    let patched = goto_as_tables(add_default_reductions(pop_terminals_without_drop(
        expose_state_machine(generated.clone()),
    )));
    if patched != generated {
        std::fs::write(&fast_parser, patched).expect("OUT_DIR is writable");
    }
}

/// The generated module that holds the fast parser, as lalrpop declares it (private).
const PARSER_MODULE: &str = "
mod __parse__Program {";
/// The fast parser's state machine in that module, as lalrpop declares it (private).
const STATE_MACHINE: &str = "
    struct __StateMachine<'b, 's, 'h>
    where 's: 'b, 'h: 'b
    {
        b: &'b mut Builder<'s, 'h>,
        __phantom: core::marker::PhantomData<(&'b (), &'s (), &'h ())>,
    }";

/// Makes the fast parser's state machine visible to the crate, so that `crates/syntax/src/parser/driver.rs`
/// can run its tables with a loop of its own through lalrpop's public `ParserDefinition` trait.
/// Only the visibility of the module, the struct and its two fields changes: the tables, the
/// reductions and the actions are lalrpop's as generated. Any other shape (a new lalrpop) stops
/// the build here rather than leaving the driver to fail to compile.
fn expose_state_machine(text: String) -> String {
    let exposed = |private: &str| {
        private
            .replace("\nmod ", "\npub(crate) mod ")
            .replace("\n    struct ", "\n    pub(crate) struct ")
            .replace("\n        b: ", "\n        pub(crate) b: ")
            .replace("\n        __phantom: ", "\n        pub(crate) __phantom: ")
    };
    let mut opened = text;
    for private in [PARSER_MODULE, STATE_MACHINE] {
        let public = exposed(private);
        assert_eq!(
            opened.matches(private).count(),
            1,
            "the fast parser lalrpop generated has no single `{}`: lalrpop's output changed; \
             see `expose_state_machine` in build.rs",
            private.trim()
        );
        opened = opened.replacen(private, &public, 1);
    }
    opened
}

/// The types of the values the fast parser's terminals carry: the token itself, and what a
/// terminal's pattern takes out of it. All are `Copy`.
const TERMINAL_VALUE_TYPES: [&str; 4] = ["Tok", "Text", "NumberTok", "bool"];

/// Rewrites the functions that take a terminal's value off the fast parser's stack, so that
/// they do not call the stack symbol's drop. As generated, each matches the popped symbol and
/// copies the value out: a `Copy` value is copied, not moved, so the whole symbol is still there
/// to be dropped, and that drop is a call into the one function for every kind of symbol, which
/// jumps through a table on the kind only to find nothing to free. That call came with every
/// punctuation token and every name a reduction took (2.9% of the corpus's samples; the corpus
/// parses 1-1.5% faster without it, bindings files 3%). Once the value is copied out, the
/// symbol is of a kind with nothing to free, and is forgotten instead; a symbol of another kind
/// still stops at lalrpop's "symbol type mismatch" first. The value is read where it lies,
/// before the symbol is popped: popped first, the whole 120-byte entry was copied out in 16-byte
/// pieces that straddled the narrower stores the shift had just made, and each such load waited
/// for those stores to reach the cache (the corpus parses 3% faster read in place; the popped
/// entry, never read, is not copied). `*__v` only compiles for a `Copy` value, so a terminal
/// type that stopped being one would fail the build. Each function must occur once, as
/// generated; any other shape stops the build, as in `expose_state_machine`.
fn pop_terminals_without_drop(mut text: String) -> String {
    for value in TERMINAL_VALUE_TYPES {
        let head = format!(") -> (usize, {value}, usize)\n     {{\n");
        let mut heads = text.match_indices(head.as_str()).map(|(at, _)| at);
        let (Some(at), None) = (heads.next(), heads.next()) else {
            panic!(
                "the fast parser lalrpop generated has no single function popping a `{value}`: \
                 lalrpop's output changed; see `pop_terminals_without_drop` in build.rs"
            );
        };
        let body = at + head.len();
        let pops = "        match __symbols.pop() {\n            Some((__l, __Symbol::Variant";
        let variant: String = text[body..]
            .strip_prefix(pops)
            .unwrap_or_default()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect();
        let generated = format!(
            "{pops}{variant}(__v), __r)) => (__l, __v, __r),\n            \
             _ => __symbol_type_mismatch()\n        }}\n"
        );
        assert!(
            text[body..].starts_with(&generated),
            "the fast parser's function popping a `{value}` has a shape build.rs does not know: \
             lalrpop's output changed; see `pop_terminals_without_drop` in build.rs"
        );
        let patched = format!(
            "        // build.rs: the value is read in place and the symbol forgotten, not dropped\n\
             \x20       // (`pop_terminals_without_drop`).\n\
             \x20       let __value = match __symbols.last() {{\n\
             \x20           Some((__l, __Symbol::Variant{variant}(__v), __r)) => (*__l, *__v, *__r),\n\
             \x20           _ => __symbol_type_mismatch()\n\
             \x20       }};\n\
             \x20       core::mem::forget(__symbols.pop());\n\
             \x20       __value\n"
        );
        text.replace_range(body..body + generated.len(), &patched);
    }
    text
}

/// Where lalrpop's action table for the fast parser starts (every terminal of state 0, then
/// of state 1, ...), and where its table for the end of input starts (one action a state).
const ACTION_TABLE: &str = "\n    const __ACTION: &[i16] = &[";
const EOF_ACTION_TABLE: &str = "\n    const __EOF_ACTION: &[i16] = &[";
/// The function that reads the action table, before which the new table is written.
const ACTION_FUNCTION: &str = "\n    fn __action(state: i16, integer: usize) -> i16 {";

/// Adds `__DEFAULT_REDUCTION` to the fast parser's module: for each state, the reduction that
/// is its only action whatever comes next (on every terminal and at the end of input, the
/// others being errors), else 0. The driver then reduces without reading the state's row of
/// the action table, 210 bytes a state; the corpus parses 2-3% faster. Yacc and Bison do the
/// same ("default reductions"): on a token that is an error there, the reduction is made
/// anyway, and the error is met at the next state that must read the token, before the token
/// is shifted; the fast parser gives up at a file's first error, so it gives up on the same
/// token. The tables are read from lalrpop's output, in the shape that the assertions hold.
fn add_default_reductions(mut text: String) -> String {
    let actions = table_of(&text, ACTION_TABLE);
    let eof_actions = table_of(&text, EOF_ACTION_TABLE);
    let states = eof_actions.len();
    assert!(
        states > 0 && actions.len() % states == 0,
        "the fast parser's action tables do not have a row for each state: lalrpop's output \
         changed; see `add_default_reductions` in build.rs"
    );
    let terminals = actions.len() / states;
    // lalrpop writes a shift as the next state plus one, a reduction as minus its index plus
    // one, and an error as 0.
    let defaults: Vec<String> = actions
        .chunks(terminals)
        .zip(&eof_actions)
        .map(|(row, eof)| {
            let mut taken = row.iter().chain([eof]).filter(|&&a| a != 0);
            let first = taken.next().copied().unwrap_or(0);
            let only = first < 0 && taken.all(|&a| a == first);
            if only { first } else { 0 }.to_string()
        })
        .collect();
    let mut places = text.match_indices(ACTION_FUNCTION).map(|(at, _)| at);
    let (Some(at), None) = (places.next(), places.next()) else {
        panic!(
            "the fast parser lalrpop generated has no single `__action` function: lalrpop's \
             output changed; see `add_default_reductions` in build.rs"
        );
    };
    let table = format!(
        "\n    // build.rs: each state's only reduction, else 0 (`add_default_reductions`).\n    \
         pub(crate) const __DEFAULT_REDUCTION: &[i16] = &[{}];",
        defaults.join(", ")
    );
    text.insert_str(at, &table);
    text
}

/// How lalrpop's goto function for the fast parser starts and ends: a `match` on the
/// nonterminal, each arm the next state or a `match` on the state.
const GOTO_FUNCTION: &str = "\n    fn __goto(state: i16, nt: usize) -> i16 {\n        match nt {\n";
const GOTO_END: &str = "            _ => 0,\n        }\n    }\n";

/// What lalrpop's goto function gives for one nonterminal: the next state after most states,
/// and the states after which it is another.
#[derive(Default)]
struct GotoRow {
    usual: i16,
    exceptions: Vec<(usize, i16)>,
}

/// Rewrites the fast parser's goto function (the state after a reduction, from the state under
/// the reduced symbols and the nonterminal made) as a lookup in two tables, the same answers
/// as lalrpop's nested `match`. As generated, every reduction went through a jump on the
/// nonterminal and then a jump, a search or a test of bits on the state: the jump's target
/// changes with every reduction and was often mispredicted (`__goto` was 5% of the samples in
/// the reductions). Here the nonterminal's row gives its usual state and where its exceptions
/// start in a packed table of (nonterminal, state) entries; an entry owned by the row is the
/// answer, anything else the usual state. The rows' exceptions are packed by first fit, the
/// rows with most first (as yacc packs its tables). Every nonterminal and state is looked up
/// in both forms here, and any difference, or any line of another shape, stops the build.
fn goto_as_tables(mut text: String) -> String {
    let mut heads = text.match_indices(GOTO_FUNCTION).map(|(at, _)| at);
    let (Some(at), None) = (heads.next(), heads.next()) else {
        panic!(
            "the fast parser lalrpop generated has no single `__goto` function: lalrpop's output \
             changed; see `goto_as_tables` in build.rs"
        );
    };
    let body_at = at + GOTO_FUNCTION.len();
    let body_len = text[body_at..]
        .find(GOTO_END)
        .unwrap_or_else(|| panic!("`__goto` has no end: lalrpop's output changed"));
    let rows = goto_rows(&text[body_at..body_at + body_len]);
    let states = table_of(&text, EOF_ACTION_TABLE).len();
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by_key(|&nt| std::cmp::Reverse(rows[nt].exceptions.len()));
    let mut entries: Vec<Option<(usize, i16)>> = Vec::new();
    let mut starts = vec![0usize; rows.len()];
    for nt in order {
        let exceptions = &rows[nt].exceptions;
        if exceptions.is_empty() {
            continue;
        }
        let start = (0..)
            .find(|&start| {
                exceptions
                    .iter()
                    .all(|&(state, _)| entries.get(start + state).is_none_or(Option::is_none))
            })
            .unwrap_or_default();
        for &(state, next) in exceptions {
            if entries.len() <= start + state {
                entries.resize(start + state + 1, None);
            }
            entries[start + state] = Some((nt, next));
        }
        starts[nt] = start;
    }
    let looked_up = |state: usize, nt: usize| match entries.get(starts[nt] + state) {
        Some(&Some((owner, next))) if owner == nt => next,
        _ => rows[nt].usual,
    };
    for (nt, row) in rows.iter().enumerate() {
        for state in 0..states {
            let matched = row
                .exceptions
                .iter()
                .find(|&&(s, _)| s == state)
                .map_or(row.usual, |&(_, next)| next);
            assert_eq!(
                looked_up(state, nt),
                matched,
                "the goto tables differ from lalrpop's `__goto` after state {state} on \
                 nonterminal {nt}: see `goto_as_tables` in build.rs"
            );
        }
    }
    let row_table: Vec<String> = rows
        .iter()
        .zip(&starts)
        .map(|(row, start)| format!("({start}, {})", row.usual))
        .collect();
    // An unowned entry names a nonterminal past the last, which no row is.
    let entry_table: Vec<String> = entries
        .iter()
        .map(|entry| match entry {
            Some((nt, next)) => format!("({nt}, {next})"),
            None => format!("({}, 0)", rows.len()),
        })
        .collect();
    let function = format!(
        "\n    // build.rs: lalrpop's `match` as tables (`goto_as_tables`).\n    \
         const __GOTO_ROWS: &[(u32, i16)] = &[{}];\n    \
         const __GOTO_ENTRIES: &[(u16, i16)] = &[{}];\n    \
         fn __goto(state: i16, nt: usize) -> i16 {{\n        \
         let Some(&(start, usual)) = __GOTO_ROWS.get(nt) else {{\n            \
         return 0;\n        }};\n        \
         match __GOTO_ENTRIES.get(start as usize + state as u16 as usize) {{\n            \
         Some(&(owner, next)) if owner as usize == nt => next,\n            \
         _ => usual,\n        }}\n    }}\n",
        row_table.join(", "),
        entry_table.join(", ")
    );
    text.replace_range(at..body_at + body_len + GOTO_END.len(), &function);
    text
}

/// The rows of lalrpop's goto function from the arms of its `match` on the nonterminal, which
/// are `N => S,` or `N => match state { P | P.. => S, ... _ => S },` with each `P` a state or
/// a range of states.
fn goto_rows(arms: &str) -> Vec<GotoRow> {
    let changed = |line: &str| -> ! {
        panic!(
            "`__goto` holds `{line}`: lalrpop's output changed; see `goto_as_tables` in build.rs"
        )
    };
    let number =
        |text: &str, line: &str| -> usize { text.trim().parse().unwrap_or_else(|_| changed(line)) };
    let state =
        |text: &str, line: &str| -> i16 { text.trim().parse().unwrap_or_else(|_| changed(line)) };
    let mut rows: Vec<GotoRow> = Vec::new();
    let mut open: Option<usize> = None;
    for line in arms.lines() {
        let row_of = |rows: &mut Vec<GotoRow>, nt: usize| {
            if rows.len() <= nt {
                rows.resize_with(nt + 1, GotoRow::default);
            }
        };
        match open {
            None => {
                let Some((nt, value)) = line.trim().split_once(" => ") else {
                    changed(line)
                };
                let nt = number(nt, line);
                row_of(&mut rows, nt);
                if value == "match state {" {
                    open = Some(nt);
                } else {
                    rows[nt].usual = state(
                        value.strip_suffix(',').unwrap_or_else(|| changed(line)),
                        line,
                    );
                }
            }
            Some(nt) => {
                if line.trim() == "}," {
                    open = None;
                    continue;
                }
                let Some((patterns, value)) = line.trim().split_once(" => ") else {
                    changed(line)
                };
                let next = state(
                    value.strip_suffix(',').unwrap_or_else(|| changed(line)),
                    line,
                );
                if patterns == "_" {
                    rows[nt].usual = next;
                    continue;
                }
                for pattern in patterns.split(" | ") {
                    let (first, last) = match pattern.split_once("..=") {
                        Some((first, last)) => (number(first, line), number(last, line)),
                        None => (number(pattern, line), number(pattern, line)),
                    };
                    rows[nt]
                        .exceptions
                        .extend((first..=last).map(|s| (s, next)));
                }
            }
        }
    }
    if open.is_some() {
        panic!("`__goto` ends inside an arm: lalrpop's output changed; see `goto_as_tables` in build.rs");
    }
    rows
}

/// The numbers of the table that starts at `head`, lalrpop's comments (`// State 12`) left out.
fn table_of(text: &str, head: &str) -> Vec<i16> {
    let mut heads = text.match_indices(head).map(|(at, _)| at);
    let (Some(at), None) = (heads.next(), heads.next()) else {
        panic!(
            "the fast parser lalrpop generated has no single `{}`: lalrpop's output changed; see \
             `add_default_reductions` in build.rs",
            head.trim()
        );
    };
    let body = &text[at + head.len()..];
    let end = body
        .find("];")
        .unwrap_or_else(|| panic!("`{}` has no end: lalrpop's output changed", head.trim()));
    body[..end]
        .lines()
        .map(|line| line.split("//").next().unwrap_or_default())
        .flat_map(|line| line.split(','))
        .map(str::trim)
        .filter(|number| !number.is_empty())
        .map(|number| {
            number.parse().unwrap_or_else(|_| {
                panic!(
                    "`{}` holds `{number}`: lalrpop's output changed",
                    head.trim()
                )
            })
        })
        .collect()
}

/// Writes the grammar without the lines `drop` picks into `out_dir/folder/name`, leaving the
/// file untouched when its text is the same, and returns its path.
fn write_grammar(
    source: &Path,
    out_dir: &Path,
    folder: &str,
    name: &str,
    drop: impl Fn(&str) -> bool,
) -> PathBuf {
    let text = std::fs::read_to_string(source).expect("the grammar is readable");
    let mut dropped = 0;
    let kept: String = text
        .split_inclusive('\n')
        .filter(|line| {
            let left_out = drop(line);
            dropped += usize::from(left_out);
            !left_out
        })
        .collect();
    // Without a marked line the two parsers would be the same: the error messages the inlinings
    // change, or the fast parser's speed, would silently change with them.
    assert!(dropped > 0, "no line of the grammar is left out of {name}");
    let path = out_dir.join(folder).join(name);
    std::fs::create_dir_all(path.parent().expect("the path has a folder"))
        .expect("OUT_DIR is writable");
    if std::fs::read_to_string(&path).ok().as_deref() != Some(kept.as_str()) {
        std::fs::write(&path, kept).expect("OUT_DIR is writable");
    }
    path
}
