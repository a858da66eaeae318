//! Throughput of `pbc compile` on a generated tree: `cargo bench --bench compile [FILES]`
//! (default 10,000 bindings files, 10 bindings each, 10 site categories, three layers; see
//! `common/mod.rs`). Prints files/s and MB/s for the whole command (discover, read, check,
//! lower, serialise) and for the in-memory part, and the model's size.
//!
//! `cargo bench --bench compile -- scaling [FILES...]` (default 1,000, 10,000 and 30,000) runs
//! `pbc compile --compact` and `pbc check` as whole processes on trees of each size and prints
//! the time, the peak memory per source byte and the ratio to the previous size per file
//! (near 1.0 when a command stays linear).

mod common;

use puppet_bindings::{compile_tree_files, tree, CompileMode, JsonLayout};
use std::time::Instant;

fn main() {
    if std::env::args().any(|a| a == "scaling") {
        return scaling();
    }
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
        let discovered =
            tree::discover(std::slice::from_ref(&root), &Default::default()).expect("readable");
        let read = Instant::now();
        let mut model = None;
        let report = compile_tree_files(
            &discovered,
            Some(&root),
            CompileMode::Tree,
            JsonLayout::Indented,
            puppet_bindings::keep_text(&mut model),
            &Default::default(),
        )
        .expect("readable");
        if report.written.is_none() {
            let text =
                puppet_bindings::diag::render_text(&report.check.files, &report.check.diagnostics);
            panic!(
                "the generated tree must compile:\n{}",
                &text[..text.len().min(4000)]
            );
        }
        let model = model.unwrap_or_default();
        let done = Instant::now();
        model_len = model.len();
        best_total = best_total.min((done - start).as_secs_f64());
        best_compile = best_compile.min((done - read).as_secs_f64());
    }
    // The check alone on the same files, read beforehand: what lowering and JSON add.
    let discovered =
        tree::discover(std::slice::from_ref(&root), &Default::default()).expect("readable");
    let mut best_check = f64::MAX;
    for _ in 0..rounds {
        let inputs = discovered
            .iter()
            .map(|f| puppet_bindings::SourceInput {
                name: f.display.clone(),
                role: f.role.clone(),
                bytes: std::fs::read(&f.path).expect("readable").into(),
            })
            .collect();
        let start = Instant::now();
        std::hint::black_box(puppet_bindings::check_sources(inputs, &Default::default()));
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

fn scaling() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![1_000, 10_000, 30_000]
    } else {
        sizes
    };
    let mut previous: Option<(usize, f64, f64)> = None;
    for files in sizes {
        let root =
            std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("compile-{files}"));
        let spec = common::TreeSpec {
            files,
            bindings_per_file: 10,
            categories: 10,
        };
        let generated = common::generate(&root, &spec).expect("the tree is written");
        let dir = root.to_string_lossy().into_owned();
        let (compile, compile_kb) = common::run_timed(&["compile", "--compact", &dir]);
        let (check, check_kb) = common::run_timed(&["check", "-q", &dir]);
        let per_byte = |kb: u64| kb as f64 * 1024.0 / generated.bytes as f64;
        let ratio = |now: f64, before: f64, before_files: usize| {
            (now / files as f64) / (before / before_files as f64)
        };
        let ratios = previous.map_or(String::new(), |(f, c, k)| {
            format!(
                "; per file vs {f}: compile {:.2}x, check {:.2}x",
                ratio(compile, c, f),
                ratio(check, k, f)
            )
        });
        println!(
            "{files} files ({:.1} MB): compile {compile:.2} s, {:.0} bytes per source byte; check {check:.2} s, {:.0} bytes per source byte{ratios}",
            generated.bytes as f64 / 1e6,
            per_byte(compile_kb),
            per_byte(check_kb),
        );
        previous = Some((files, compile, check));
    }
}
