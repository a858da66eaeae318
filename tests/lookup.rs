//! `pbc lookup` over `corpus/lookup/trees/*/`: each tree has a `requests` file, one command
//! line per line (flags and keys, run by the `pbc` binary in the tree's directory, which is
//! the default tree). Every request's status, stdout and stderr are snapshotted per tree,
//! after what `pbc check .` says of the tree: the two must tell one story (D18).

mod common;

use common::{snapshot_settings, sorted_dirs};
use std::process::Command;

#[test]
fn lookup_trees() {
    for dir in sorted_dirs("corpus/lookup/trees") {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let requests = std::fs::read_to_string(dir.join("requests"))
            .unwrap_or_else(|e| panic!("{}/requests: {e}", dir.display()));
        let mut out = String::new();
        let check = std::iter::once(("check", "."));
        let lookups = requests
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .map(|l| ("lookup", l));
        for (command, line) in check.chain(lookups) {
            let run = Command::new(env!("CARGO_BIN_EXE_pbc"))
                .arg(command)
                .args(line.split_whitespace())
                .current_dir(&dir)
                .output()
                .expect("pbc runs");
            let (stdout, stderr) = (
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&run.stderr),
            );
            out.push_str(&format!(
                "$ pbc {command} {line}\nstatus: {}\n{}{}\n",
                run.status.code().unwrap_or(-1),
                if stdout.is_empty() {
                    String::new()
                } else {
                    format!("--- stdout\n{stdout}")
                },
                if stderr.is_empty() {
                    String::new()
                } else {
                    format!("--- stderr\n{stderr}")
                },
            ));
        }
        snapshot_settings().bind(|| insta::assert_snapshot!(format!("lookup@{name}"), out));
    }
}

fn pbc_in(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let run = Command::new(env!("CARGO_BIN_EXE_pbc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("pbc runs");
    (
        run.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&run.stdout).into_owned(),
    )
}

/// `--nodes FACTSDIR` gives each node exactly what a lookup of that node alone gives: on every
/// corpus tree with a factsets directory, every node's `--all` values, and its status.
#[test]
fn every_node_at_once_answers_as_each_node_alone() {
    let mut compared = 0;
    for dir in sorted_dirs("corpus/lookup/trees") {
        if !dir.join("facts").is_dir() {
            continue;
        }
        let (status, lines) = pbc_in(&dir, &["lookup", "--nodes", "facts", "--all"]);
        let lines: Vec<serde_json::Value> = lines
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line per node"))
            .collect();
        let mut any_failed = false;
        for line in &lines {
            let node = line["node"].as_str().expect("node");
            let file = ["json", "yaml", "yml"]
                .iter()
                .map(|ext| format!("facts/{node}.{ext}"))
                .find(|f| dir.join(f).is_file())
                .expect("the node's facts");
            let (alone_status, alone) = pbc_in(&dir, &["lookup", "--facts", &file, "--all"]);
            let failed = !line["errors"].as_object().expect("errors").is_empty();
            any_failed |= failed;
            assert_eq!(
                alone_status != 0,
                failed,
                "{}: {node}: {line}",
                dir.display()
            );
            if alone_status == 0 {
                let alone: serde_json::Value = serde_json::from_str(&alone).expect("JSON");
                assert_eq!(line["values"], alone, "{}: {node}", dir.display());
            }
            compared += 1;
        }
        assert_eq!(status, i32::from(any_failed), "{}", dir.display());
    }
    assert!(compared >= 20, "only {compared} nodes compared");
}
