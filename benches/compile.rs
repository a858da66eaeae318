//! Throughput of `pbc compile` on a generated tree: `cargo bench --bench compile [FILES]`
//! (default 10,000 bindings files, 10 bindings each, 10 site categories, three layers; see
//! `common/mod.rs`). Prints files/s and MB/s for the whole command (discover, read, check,
//! lower, serialise) and for the in-memory part, and the model's size.

mod common;

use puppet_bindings::{compile_tree_files, tree, CompileMode, JsonLayout};
use std::time::Instant;

fn main() {
    let files = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(10_000);
    let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("compile-{files}"));
    let spec = common::TreeSpec {
        files,
        bindings_per_file: 10,
        categories: 10,
    };
    let generated = common::generate(&root, &spec).expect("the tree is written");
    let mb = generated.bytes as f64 / 1e6;
    println!(
        "tree: {} files ({} bindings files), {} bindings, {mb:.2} MB",
        generated.files, files, generated.bindings
    );

    let rounds = 5;
    let mut best_total = f64::MAX;
    let mut best_compile = f64::MAX;
    let mut model_len = 0;
    for _ in 0..rounds {
        let start = Instant::now();
        let discovered = tree::discover(std::slice::from_ref(&root)).expect("readable");
        let read = Instant::now();
        let report = compile_tree_files(
            &discovered,
            Some(&root),
            CompileMode::Tree,
            JsonLayout::Indented,
        )
        .expect("readable");
        let done = Instant::now();
        let Some(model) = report.model else {
            let text =
                puppet_bindings::diag::render_text(&report.check.files, &report.check.diagnostics);
            panic!(
                "the generated tree must compile:\n{}",
                &text[..text.len().min(4000)]
            );
        };
        model_len = model.len();
        best_total = best_total.min((done - start).as_secs_f64());
        best_compile = best_compile.min((done - read).as_secs_f64());
    }
    // The check alone on the same files, read beforehand: what lowering and JSON add.
    let discovered = tree::discover(std::slice::from_ref(&root)).expect("readable");
    let mut best_check = f64::MAX;
    for _ in 0..rounds {
        let inputs = discovered
            .iter()
            .map(|f| puppet_bindings::SourceInput {
                name: f.display.clone(),
                role: f.role.clone(),
                bytes: std::fs::read(&f.path).expect("readable"),
            })
            .collect();
        let start = Instant::now();
        std::hint::black_box(puppet_bindings::check_sources(inputs));
        best_check = best_check.min(start.elapsed().as_secs_f64());
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "compile (discover + read + check + lower + JSON): best of {rounds}: {:.0} ms, {:.0} files/s, {:.1} MB/s on {cores} cores",
        best_total * 1e3,
        generated.files as f64 / best_total,
        mb / best_total
    );
    println!(
        "compile without discovery: best of {rounds}: {:.0} ms, {:.0} files/s, {:.1} MB/s; model {:.1} MB",
        best_compile * 1e3,
        generated.files as f64 / best_compile,
        mb / best_compile,
        model_len as f64 / 1e6
    );
    println!(
        "check alone (files in memory): best of {rounds}: {:.0} ms, {:.1} MB/s",
        best_check * 1e3,
        mb / best_check
    );
}
