//! Lookups from the compiled model, as whole `pbc` processes: `cargo bench --bench model
//! [FILES]` (default 10,000 bindings files, about 110,000 bindings; the tree of
//! `benches/inject.rs`). Prints, best of five each: compiling the model (JSON and the indexed
//! cache), one key looked up on the tree, from the JSON model and from the cache, `--all` for
//! one node, and `--nodes` over 1,000 factsets with 10 keys. Goals (issue 16): one key from the
//! model of 110,000 bindings within 50 ms, `--nodes` of 1,000 factsets × 10 keys within 2 s on
//! two cores.

mod common;

use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Runs pbc in `dir` `rounds` times; the best wall time in seconds, and the last output's size.
fn best(dir: &Path, args: &[&str], rounds: usize) -> (f64, usize) {
    let mut best = f64::MAX;
    let mut size = 0;
    for _ in 0..rounds {
        let start = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_pbc"))
            .args(args)
            .current_dir(dir)
            .output()
            .expect("pbc runs");
        best = best.min(start.elapsed().as_secs_f64());
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "pbc {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        size = out.stdout.len();
    }
    (best, size)
}

fn main() {
    let files = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(10_000);
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("model-{files}"));
    let spec = common::TreeSpec {
        files,
        bindings_per_file: 10,
        categories: 10,
    };
    let generated = common::generate(&root, &spec).expect("the tree is written");
    // 1,000 factsets: the nodes spread over every category's values.
    let facts = root.join("factsets");
    std::fs::create_dir_all(&facts).expect("factsets dir");
    for n in 0..1000 {
        let mut f = format!("{{\"fqdn\": \"node{n}.example.com\"");
        for c in 0..spec.categories {
            f.push_str(&format!(", \"fact{c}\": \"v{}\"", (n + c) % 7));
        }
        f.push('}');
        std::fs::write(facts.join(format!("node{n}.example.com.json")), f).expect("factset");
    }
    std::fs::copy(
        facts.join("node1.example.com.json"),
        root.join("node1.json"),
    )
    .expect("facts");
    println!(
        "tree: {} bindings in {} files ({:.1} MB)",
        generated.bindings,
        generated.files,
        generated.bytes as f64 / 1e6
    );
    let (compile, _) = best(&root, &["compile", "--compact", "-o", "model.json", "."], 1);
    let (cache, _) = best(&root, &["compile", "--cache", "-o", "model.pbcm", "."], 1);
    let size = |f: &str| std::fs::metadata(root.join(f)).map_or(0, |m| m.len()) as f64 / 1e6;
    println!(
        "compile: JSON {:.2} s ({:.1} MB), cache {:.2} s ({:.1} MB)",
        compile,
        size("model.json"),
        cache,
        size("model.pbcm")
    );

    let key = ["--facts", "node1.json", "m5::k0"];
    let (tree, _) = best(&root, &[&["lookup"], &key[..]].concat(), 5);
    let (json, _) = best(
        &root,
        &[&["lookup", "--model", "model.json"], &key[..]].concat(),
        5,
    );
    let (cached, _) = best(
        &root,
        &[&["lookup", "--model", "model.pbcm"], &key[..]].concat(),
        5,
    );
    println!(
        "one key, whole process: tree {:.0} ms, JSON model {:.0} ms, cache {:.1} ms ({:.0}x the tree)",
        tree * 1e3,
        json * 1e3,
        cached * 1e3,
        tree / cached
    );

    let all = ["--facts", "node1.json", "--all"];
    let (tree_all, bytes) = best(&root, &[&["lookup"], &all[..]].concat(), 3);
    let (json_all, _) = best(
        &root,
        &[&["lookup", "--model", "model.json"], &all[..]].concat(),
        3,
    );
    let (cache_all, _) = best(
        &root,
        &[&["lookup", "--model", "model.pbcm"], &all[..]].concat(),
        3,
    );
    println!(
        "--all for one node ({:.1} MB of values), whole process: tree {:.2} s, JSON model {:.2} s, cache {:.2} s",
        bytes as f64 / 1e6,
        tree_all,
        json_all,
        cache_all
    );

    let keys: Vec<String> = (0..10)
        .map(|m| format!("m{}::k{}", m * 97, m % 10))
        .collect();
    let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
    let nodes = |model: &[&str]| {
        best(
            &root,
            &[&["lookup"], model, &["--nodes", "factsets"], &keys[..]].concat(),
            3,
        )
        .0
    };
    let (tree_nodes, json_nodes, cache_nodes) = (
        nodes(&[]),
        nodes(&["--model", "model.json"]),
        nodes(&["--model", "model.pbcm"]),
    );
    println!(
        "--nodes, 1,000 factsets x 10 keys, whole process: tree {:.2} s, JSON model {:.2} s, cache {:.2} s",
        tree_nodes, json_nodes, cache_nodes
    );
}
