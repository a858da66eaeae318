//! Throughput: `cargo bench --bench parse [CORPUS_DIR] [--big MB]` (default: the bundled
//! corpus). Files are read into memory first. `parse` is lex + parse + AST construction on one
//! core; `parse + PN JSON` adds writing Puppet's PN form; `check` is all of `pbc check`
//! (parsing, Puppet's parse-time rules, the ARM-8 rules, sorting), using every core as the
//! command does. `--big MB` also writes one manifest of about MB megabytes (the corpus files
//! that parse cleanly, repeated) and times whole `pbc parse` processes on it, with and without
//! PN output, under `/usr/bin/time`: MB/s and peak memory against the source's size.
use std::time::Instant;

mod common;

fn main() {
    let dir = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .unwrap_or_else(|| concat!(env!("CARGO_MANIFEST_DIR"), "/corpus").to_string());
    let paths = puppet_bindings::source::expand_paths(&[dir.clone().into()], &Default::default())
        .unwrap_or_default();
    let sources: Vec<String> = paths
        .iter()
        .filter_map(|p| std::fs::read(p).ok())
        .filter_map(|b| String::from_utf8(b).ok())
        .collect();
    let bytes: usize = sources.iter().map(String::len).sum();
    if bytes == 0 {
        eprintln!("no .pp files under {dir}");
        return;
    }
    let rounds = (200_000_000 / bytes).clamp(1, 50);
    let mut best = f64::MAX;
    let mut errors = 0;
    for _ in 0..rounds {
        let start = Instant::now();
        errors = 0;
        for src in &sources {
            let parsed = puppet_bindings::parse_file(puppet_bindings::span::FileId(0), src);
            if parsed.program.is_none() {
                errors += 1;
            }
        }
        best = best.min(start.elapsed().as_secs_f64());
    }
    // The same files parsed and written as PN JSON (`pbc parse --format pn`).
    let mut best_pn = f64::MAX;
    for _ in 0..rounds {
        let start = Instant::now();
        for src in &sources {
            let parsed = puppet_bindings::parse_file(puppet_bindings::span::FileId(0), src);
            if let Some(p) = parsed.program {
                std::hint::black_box(puppet_bindings::pn::program_to_json(&p));
            }
        }
        best_pn = best_pn.min(start.elapsed().as_secs_f64());
    }
    // `pbc check` without the disk.
    let trees: Vec<(String, puppet_bindings::tree::FileRole)> = paths
        .iter()
        .map(|p| {
            (
                p.to_string_lossy().into_owned(),
                puppet_bindings::tree::role_of(p),
            )
        })
        .collect();
    let raw: Vec<Vec<u8>> = paths.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    let mut best_check = f64::MAX;
    let mut findings = 0;
    for _ in 0..rounds {
        let inputs: Vec<puppet_bindings::SourceInput> = trees
            .iter()
            .zip(&raw)
            .map(|((name, role), bytes)| puppet_bindings::SourceInput {
                name: name.as_str().into(),
                role: role.clone(),
                bytes: bytes.clone().into(),
            })
            .collect();
        let start = Instant::now();
        let report = puppet_bindings::check_sources(inputs, &Default::default());
        best_check = best_check.min(start.elapsed().as_secs_f64());
        findings = report.diagnostics.len();
    }
    let mb = bytes as f64 / 1e6;
    println!(
        "parse: {} files, {:.2} MB, best of {rounds}: {:.1} ms, {:.1} MB/s ({errors} files with errors)",
        sources.len(),
        mb,
        best * 1e3,
        mb / best
    );
    println!(
        "parse + PN JSON: best of {rounds}: {:.1} ms, {:.1} MB/s",
        best_pn * 1e3,
        mb / best_pn
    );
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "check: best of {rounds}: {:.1} ms, {:.1} MB/s on {cores} cores ({findings} findings)",
        best_check * 1e3,
        mb / best_check
    );
    let args: Vec<String> = std::env::args().collect();
    if let Some(target) = args
        .iter()
        .position(|a| a == "--big")
        .and_then(|i| args.get(i + 1))
        .and_then(|m| m.parse::<usize>().ok())
    {
        big_file(&sources, target);
    }
}

/// One large manifest, parsed as a whole process: `pbc parse` and `pbc parse --format pn`.
fn big_file(sources: &[String], megabytes: usize) {
    let clean: Vec<&String> = sources
        .iter()
        .filter(|s| {
            puppet_bindings::parse_file(puppet_bindings::span::FileId(0), s)
                .diagnostics
                .is_empty()
        })
        .collect();
    let once: usize = clean.iter().map(|s| s.len() + 1).sum();
    if once == 0 {
        return;
    }
    let mut text = String::with_capacity(megabytes * 1_000_000 + once);
    while text.len() < megabytes * 1_000_000 {
        for s in &clean {
            text.push_str(s);
            text.push('\n');
        }
    }
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("big.pp");
    if std::fs::write(&path, &text).is_err() {
        eprintln!("cannot write {}", path.display());
        return;
    }
    let mb = text.len() as f64 / 1e6;
    let start = Instant::now();
    let parsed = puppet_bindings::parse_file(puppet_bindings::span::FileId(0), &text);
    let in_memory = start.elapsed().as_secs_f64();
    let ok = parsed.program.is_some();
    drop(parsed);
    println!(
        "big file: {mb:.1} MB ({} clean files repeated), in memory: {:.2} s, {:.1} MB/s{}",
        clean.len(),
        in_memory,
        mb / in_memory,
        if ok { "" } else { " (errors!)" }
    );
    let file = path.to_string_lossy().into_owned();
    for (what, args) in [
        ("pbc parse", vec!["parse", file.as_str()]),
        (
            "pbc parse --format pn",
            vec!["parse", "--format", "pn", file.as_str()],
        ),
    ] {
        let (seconds, kb) = common::run_timed(&args);
        println!(
            "{what}: {seconds:.2} s, {:.1} MB/s, peak {:.0} MB ({:.2} bytes per source byte)",
            mb / seconds,
            kb as f64 / 1e3,
            kb as f64 * 1e3 / text.len() as f64
        );
    }
}
