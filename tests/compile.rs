//! `pbc compile` over `corpus/compile/`: each file in `files/` is compiled on its own and each
//! directory in `trees/` as a whole tree; the model JSON is snapshotted. Every ARM-8 example of
//! the parse corpus compiles, except those whose check finds errors (listed). Output does not
//! depend on the order of the files.

mod common;

use common::{arm8_example_names, relative, snapshot_settings, sorted_dirs, ARM8_DIR};
use puppet_bindings::{compile_sources, compile_tree_files, tree, CompileMode, SourceInput};
use std::path::{Path, PathBuf};

/// Compiles `paths` and returns the model, or the rendered diagnostics when there is none.
fn compile(paths: &[PathBuf], root: Option<&Path>, mode: CompileMode) -> Result<String, String> {
    let files = tree::discover(paths).expect("corpus is readable");
    let report = compile_tree_files(&files, root, mode).expect("corpus is readable");
    report.model.ok_or_else(|| {
        puppet_bindings::diag::render_text(&report.check.files, &report.check.diagnostics)
    })
}

#[test]
fn compile_files() {
    snapshot_settings().bind(|| {
        insta::glob!("../corpus/compile", "files/*.pp", |path| {
            let rel = relative(path);
            let model = compile(std::slice::from_ref(&rel), None, CompileMode::Files)
                .unwrap_or_else(|d| panic!("{} must compile:\n{d}", rel.display()));
            insta::assert_snapshot!(model);
        });
    });
}

#[test]
fn compile_trees() {
    for dir in sorted_dirs("corpus/compile/trees") {
        let rel = relative(&dir);
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let model = compile(std::slice::from_ref(&rel), Some(&rel), CompileMode::Tree)
            .unwrap_or_else(|d| panic!("{} must compile:\n{d}", rel.display()));
        snapshot_settings().bind(|| insta::assert_snapshot!(format!("compile_tree@{name}"), model));
    }
}

/// The sample tree places each bindings file in the layer its site names, and the excluded
/// module nowhere.
#[test]
fn sample_tree_layers() {
    let dir = PathBuf::from("corpus/compile/trees/sample");
    let model = compile(std::slice::from_ref(&dir), Some(&dir), CompileMode::Tree)
        .expect("the sample compiles");
    let doc: serde_json::Value = serde_json::from_str(&model).expect("JSON");
    let layers: Vec<(String, Vec<String>)> = doc["layers"]["layers"]
        .as_array()
        .expect("layers")
        .iter()
        .map(|l| {
            let names = l["bindings"]
                .as_array()
                .expect("bindings")
                .iter()
                .map(|b| b["name"].as_str().unwrap_or("?").to_string())
                .collect();
            (l["name"].as_str().unwrap_or("?").to_string(), names)
        })
        .collect();
    let want: Vec<(String, Vec<String>)> = [
        ("site", &["default"][..]),
        ("roles", &["roles::web"]),
        ("modules", &["apache::default", "ntp::default"]),
        ("puppet-default", &["puppet::default"]),
    ]
    .iter()
    .map(|(l, b)| (l.to_string(), b.iter().map(|s| s.to_string()).collect()))
    .collect();
    assert_eq!(layers, want);
    let categories: Vec<&str> = doc["categories"]["categories"]
        .as_array()
        .expect("categories")
        .iter()
        .map(|c| c["categorization"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(categories, ["node", "data_center", "environment", "common"]);
}

/// Two runs, the second with the files in reverse order: byte-identical models.
#[test]
fn output_does_not_depend_on_file_order() {
    let dir = PathBuf::from("corpus/compile/trees/sample");
    let files = tree::discover(std::slice::from_ref(&dir)).expect("readable");
    let run = |order: Vec<&tree::TreeFile>| {
        let inputs = order
            .iter()
            .map(|f| SourceInput {
                name: f.display.clone(),
                role: f.role.clone(),
                bytes: std::fs::read(&f.path).expect("readable"),
            })
            .collect();
        let origins = order
            .iter()
            .map(|f| {
                f.path
                    .strip_prefix(&dir)
                    .map(|p| p.to_string_lossy().into_owned())
                    .unwrap_or_default()
            })
            .collect();
        compile_sources(inputs, origins, CompileMode::Tree)
            .model
            .expect("compiles")
    };
    let forward = run(files.iter().collect());
    let backward = run(files.iter().rev().collect());
    assert_eq!(forward, backward);
}

/// Every ARM-8 example compiles, but for those the check rejects (their errors are listed in
/// `tests/check.rs`); each model is snapshotted.
#[test]
fn arm8_examples_compile() {
    let rejected = ["bindings_names.pp", "classes_parameters.pp", "variables.pp"];
    let dir = PathBuf::from(ARM8_DIR);
    let names = arm8_example_names();
    let mut failed = Vec::new();
    for name in &names {
        match compile(&[dir.join(name)], None, CompileMode::Files) {
            Ok(model) => snapshot_settings()
                .bind(|| insta::assert_snapshot!(format!("compile_arm8@{name}"), model)),
            Err(_) => failed.push(name.as_str()),
        }
    }
    assert_eq!(failed, rejected);
}
