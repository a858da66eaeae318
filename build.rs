//! Generates the LALR parsers from `grammar/puppet.lalrpop` into `OUT_DIR`, each from its own
//! copy of the grammar: the fast parser (`puppet.rs`) without the error-recovery alternatives
//! marked `// reporting parser only`, and the reporting parser (`puppet_reporting.rs`) without
//! the inlinings marked `#[inline] // fast parser only`. Both accept the same language and build
//! the same AST; the fast one stops at a file's first error, and the reporting one then parses
//! the file again to report every error, where the inlinings it leaves out change where an error
//! is noticed and what is then listed as expected (see "Two parsers" in the grammar's header).
//! The fast parser's state machine is then made visible to the crate (`expose_state_machine`),
//! for the LR loop of its own that `src/parser/driver.rs` runs it with.
use std::path::{Path, PathBuf};

/// The line that marks an inlining the reporting parser leaves out.
const FAST_ONLY_INLINE: &str = "#[inline] // fast parser only";

/// How an alternative the fast parser leaves out ends its line.
const REPORTING_ONLY: &str = "// reporting parser only";

fn main() {
    println!("cargo:rerun-if-changed=grammar");
    let out_dir =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts"));
    let source = Path::new("grammar/puppet.lalrpop");
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
    // on them would rerun it on every build (the source's directive is printed above).
    let process = |path: &Path| {
        lalrpop::Configuration::new()
            .set_out_dir(&out_dir)
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
    expose_state_machine(&out_dir.join("puppet.rs"));
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

/// Makes the fast parser's state machine visible to the crate, so that `src/parser/driver.rs`
/// can run its tables with a loop of its own through lalrpop's public `ParserDefinition` trait.
/// Only the visibility of the module, the struct and its two fields changes: the tables, the
/// reductions and the actions are lalrpop's as generated. lalrpop regenerates the file only when
/// the grammar changes, so a file already opened up is left as it is. Any other shape (a new
/// lalrpop) stops the build here rather than leaving the driver to fail to compile.
fn expose_state_machine(path: &Path) {
    let text = std::fs::read_to_string(path).expect("lalrpop wrote the fast parser");
    let exposed = |private: &str| {
        private
            .replace("\nmod ", "\npub(crate) mod ")
            .replace("\n    struct ", "\n    pub(crate) struct ")
            .replace("\n        b: ", "\n        pub(crate) b: ")
            .replace("\n        __phantom: ", "\n        pub(crate) __phantom: ")
    };
    let mut opened = text.clone();
    for private in [PARSER_MODULE, STATE_MACHINE] {
        let public = exposed(private);
        if opened.matches(public.as_str()).count() == 1 {
            continue;
        }
        assert_eq!(
            opened.matches(private).count(),
            1,
            "the fast parser lalrpop generated has no single `{}`: lalrpop's output changed; \
             see `expose_state_machine` in build.rs",
            private.trim()
        );
        opened = opened.replacen(private, &public, 1);
    }
    if opened != text {
        std::fs::write(path, opened).expect("OUT_DIR is writable");
    }
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
