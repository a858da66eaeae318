//! `pbc migrate hiera` over `corpus/migrate/trees/*/`: each tree (a Hiera 5 environment with
//! factsets in `facts/`) is migrated into a scratch directory with `--nodes facts`, which looks
//! every key up for every node in both trees and fails when any answer differs. The report, the
//! written site and bindings, and the data files left are snapshotted per tree. The generated
//! environments of `scripts/hiera-conformance.sh` round-trip as well (see docs/development.md).

mod common;

use common::{snapshot_settings, sorted_dirs};
use std::process::Command;

#[test]
fn migrated_trees_answer_as_the_original() {
    let scratch = std::env::temp_dir().join(format!("pbc-migrate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).expect("scratch");
    let mut trees = 0;
    for dir in sorted_dirs("corpus/migrate/trees") {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let out = scratch.join(&name);
        let run = Command::new(env!("CARGO_BIN_EXE_pbc"))
            .args(["migrate", "hiera", "."])
            .arg("-o")
            .arg(&out)
            .args(["--nodes", "facts"])
            .current_dir(&dir)
            .output()
            .expect("pbc runs");
        let stdout = String::from_utf8_lossy(&run.stdout).replace(&*out.to_string_lossy(), "OUT");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert!(
            run.status.success() && stdout.contains("answers: identical"),
            "{name}: {stdout}{stderr}"
        );
        let mut shown = format!("$ pbc migrate hiera . -o OUT --nodes facts\n{stdout}");
        let mut files: Vec<std::path::PathBuf> = Vec::new();
        collect(&out, &mut files);
        files.sort();
        for f in files {
            let rel = f
                .strip_prefix(&out)
                .unwrap_or(&f)
                .to_string_lossy()
                .replace('\\', "/");
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            let original = std::fs::read_to_string(dir.join(&rel)).ok();
            if original.as_deref() != Some(text.as_str()) {
                shown.push_str(&format!("\n--- {rel}\n{text}"));
            }
        }
        // Files the migration removed.
        let mut before: Vec<std::path::PathBuf> = Vec::new();
        collect(&dir, &mut before);
        before.sort();
        for f in before {
            let rel = f.strip_prefix(&dir).unwrap_or(&f);
            if !out.join(rel).exists() {
                shown.push_str(&format!("\n--- removed {}\n", rel.to_string_lossy()));
            }
        }
        snapshot_settings().bind(|| insta::assert_snapshot!(format!("migrate@{name}"), shown));
        trees += 1;
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(trees >= 1);
}

/// A tree that is not a plain Hiera 5 environment is refused, saying why, and writes nothing.
#[test]
fn trees_with_bindings_are_refused() {
    let scratch = std::env::temp_dir().join(format!("pbc-migrate-refused-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    for (tree, why) in [
        ("corpus/lookup/trees/hiera5", "already has bindings"),
        ("corpus/lookup/trees/example", "already"),
    ] {
        let run = Command::new(env!("CARGO_BIN_EXE_pbc"))
            .args(["migrate", "hiera", tree, "-o"])
            .arg(&scratch)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("pbc runs");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{tree}: {stderr}");
        assert!(stderr.contains(why), "{tree}: {stderr}");
        assert!(!scratch.exists(), "{tree}: wrote {}", scratch.display());
    }
}

fn collect(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else {
            out.push(p);
        }
    }
}
