//! Generates the LALR parsers from `grammar/puppet.lalrpop` into `OUT_DIR`: the fast parser
//! (`puppet.rs`) as written, and the reporting parser (`puppet_reporting.rs`) from the same
//! grammar with the levels marked `#[inline] // fast parser only` kept as nonterminals of their
//! own. Both accept the same language and build the same AST; they differ only in their LR
//! states, and so in where a syntax error is noticed and what is then listed as expected (see
//! "Two parsers" in the grammar's header).
use std::path::{Path, PathBuf};

/// The line that marks an inlining the reporting parser leaves out.
const FAST_ONLY_INLINE: &str = "#[inline] // fast parser only";

fn main() {
    println!("cargo:rerun-if-changed=grammar");
    let out_dir =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR for build scripts"));
    let reporting = write_reporting_grammar(Path::new("grammar/puppet.lalrpop"), &out_dir);
    // The two tables are built at once, one per core: each takes most of the build script's time.
    std::thread::scope(|scope| {
        let fast = scope.spawn(|| {
            lalrpop::Configuration::new()
                .set_in_dir("grammar")
                .set_out_dir(&out_dir)
                .emit_rerun_directives(true)
                .process()
                .map_err(|e| e.to_string())
        });
        // Not `emit_rerun_directives`: the reporting grammar is written by this script, and a
        // rerun directive on it would rerun the script on every build.
        let reporting = lalrpop::Configuration::new()
            .set_out_dir(&out_dir)
            .process_file(&reporting)
            .map_err(|e| e.to_string());
        let fast = fast
            .join()
            .expect("the fast parser's thread does not panic");
        fast.expect("lalrpop failed to generate the fast parser");
        reporting.expect("lalrpop failed to generate the reporting parser");
    });
}

/// Writes the reporting parser's grammar (the fast-only inlinings dropped) into `out_dir`,
/// leaving the file untouched when its text is the same, and returns its path.
fn write_reporting_grammar(fast: &Path, out_dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fast).expect("the grammar is readable");
    let mut dropped = 0;
    let reporting: String = text
        .split_inclusive('\n')
        .filter(|line| {
            let fast_only = line.trim() == FAST_ONLY_INLINE;
            dropped += usize::from(fast_only);
            !fast_only
        })
        .collect();
    // Without a marked line the two parsers would be the same, and the error messages those
    // inlinings change would silently change with them.
    assert!(dropped > 0, "no `{FAST_ONLY_INLINE}` line in the grammar");
    let path = out_dir.join("reporting").join("puppet_reporting.lalrpop");
    std::fs::create_dir_all(path.parent().expect("the path has a folder"))
        .expect("OUT_DIR is writable");
    if std::fs::read_to_string(&path).ok().as_deref() != Some(reporting.as_str()) {
        std::fs::write(&path, reporting).expect("OUT_DIR is writable");
    }
    path
}
