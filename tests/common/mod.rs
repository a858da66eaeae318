//! Helpers shared by the corpus-driven test files (each test file uses some of them).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// Paths relative to the package root, as users would type them (snapshots stay portable).
pub fn relative(path: &Path) -> PathBuf {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path)
        .to_path_buf()
}

/// Snapshots live in `snapshots/`, named without the test module.
pub fn snapshot_settings() -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings
}

/// The sub-directories of `dir` (relative to the package root), sorted; at least one.
pub fn sorted_dirs(dir: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "{dir} has no trees");
    dirs
}

/// The ARM-8 examples of the parse corpus (`corpus/parse/valid/arm8`), by file name, sorted.
pub const ARM8_DIR: &str = "corpus/parse/valid/arm8";

pub fn arm8_example_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(ARM8_DIR)
        .expect("arm8 examples")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".pp"))
        .collect();
    names.sort();
    assert!(names.len() >= 10);
    names
}
