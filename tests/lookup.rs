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
