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
    settings.set_snapshot_path("../../snapshots");
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

/// Writes a tree under `CARGO_TARGET_TMPDIR/<group>/<name>` (emptied first): the `defaults`
/// (path, text) that `files` does not replace, then `files`.
pub fn write_tree(
    group: &str,
    name: &str,
    defaults: &[(&str, &str)],
    files: &[(&str, &str)],
) -> PathBuf {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(group)
        .join(name);
    let _ = std::fs::remove_dir_all(&root);
    let kept = defaults
        .iter()
        .filter(|(p, _)| !files.iter().any(|(f, _)| f == p));
    for (path, text) in kept.chain(files) {
        let p = root.join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    root
}

/// Runs the `pbc` binary from the package root: (exit status, stdout, stderr).
pub fn pbc(args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_pbc"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("pbc runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Every file below `root` that `wanted` takes, sorted.
pub fn files_below(root: &Path, wanted: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).expect("a directory") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if wanted(&path) {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Copies the directory `from` to `to` (files and directories only).
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("target dir");
    for entry in std::fs::read_dir(from).expect("source dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}
