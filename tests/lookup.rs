//! `pbc lookup` over `corpus/lookup/trees/*/`: each tree has a `requests` file, one lookup per
//! line (flags and keys as on the command line; the tree is the directory, `--facts` is
//! relative to it). Every request's status, stdout and stderr are snapshotted per tree.

mod common;

use common::{relative, snapshot_settings, sorted_dirs};
use puppet_bindings::inject::command::{run, LookupOptions};
use std::path::Path;

/// The flags of `pbc lookup` (as `main.rs` declares them) read from one line.
fn options(tree: &Path, line: &str) -> LookupOptions {
    let mut o = LookupOptions {
        tree: tree.to_path_buf(),
        ..LookupOptions::default()
    };
    let mut words = line.split_whitespace();
    while let Some(w) = words.next() {
        let mut value = || {
            words
                .next()
                .unwrap_or_else(|| panic!("{w} needs a value"))
                .to_string()
        };
        match w {
            "--facts" => o.facts = Some(tree.join(value())),
            "--node" => o.node = Some(value()),
            "--fact" => o.fact.push(value()),
            "--env" => o.environment = Some(value()),
            "--agent-environment" => o.agent_environment = Some(value()),
            "--type" => o.type_ = Some(value()),
            "--default" => o.default = Some(value()),
            "--enc" => o.enc = Some(tree.join(value())),
            "--format" => o.json = value() == "json",
            "--all" => o.all = true,
            "--explain" => o.explain = true,
            "--strict" => o.strict = true,
            key => o.keys.push(key.to_string()),
        }
    }
    o
}

#[test]
fn lookup_trees() {
    for dir in sorted_dirs("corpus/lookup/trees") {
        let tree = relative(&dir);
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let requests = std::fs::read_to_string(dir.join("requests"))
            .unwrap_or_else(|e| panic!("{}/requests: {e}", tree.display()));
        let mut out = String::new();
        for line in requests
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        {
            let outcome = run(&options(&tree, line));
            out.push_str(&format!(
                "$ pbc lookup {line}\nstatus: {}\n{}{}\n",
                outcome.status,
                if outcome.stdout.is_empty() {
                    String::new()
                } else {
                    format!("--- stdout\n{}", outcome.stdout)
                },
                if outcome.stderr.is_empty() {
                    String::new()
                } else {
                    format!("--- stderr\n{}", outcome.stderr)
                },
            ));
        }
        snapshot_settings().bind(|| insta::assert_snapshot!(format!("lookup@{name}"), out));
    }
}
