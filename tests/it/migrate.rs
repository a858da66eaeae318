//! `pbc migrate hiera` over `corpus/migrate/trees/*/`: each tree (a Hiera 5 environment with
//! factsets in `facts/`) is migrated into a scratch directory with `--nodes facts`, which looks
//! every key up for every node in both trees and fails when any answer differs. The report, the
//! written site and bindings, and the data files left are snapshotted per tree. The generated
//! environments of `scripts/hiera-conformance.sh` round-trip as well (see docs/development.md).

use crate::common;

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

/// Issue 56 item 12 and issue 62 item 2: an output inside the tree (which the copy would copy
/// into itself) or around it is refused; an output that exists as anything but an empty
/// directory (a file, a link, a dangling link) is refused and left as it was; an empty
/// directory is written into.
#[test]
fn outputs_that_are_not_new_are_refused_and_left_alone() {
    let scratch = std::env::temp_dir().join(format!("pbc-migrate-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).expect("scratch");
    let tree = scratch.join("tree");
    let copy = Command::new("cp")
        .arg("-r")
        .arg("corpus/migrate/trees/hierarchy")
        .arg(&tree)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cp runs");
    assert!(copy.success());
    let migrate = |dir: &std::path::Path, out: &std::path::Path| {
        let run = Command::new(env!("CARGO_BIN_EXE_pbc"))
            .args(["migrate", "hiera"])
            .arg(dir)
            .arg("-o")
            .arg(out)
            .output()
            .expect("pbc runs");
        (
            run.status.code(),
            String::from_utf8_lossy(&run.stderr).into_owned(),
        )
    };
    // Inside the tree (also through a link to it), and around it (a directory that holds
    // the tree is never empty).
    std::os::unix::fs::symlink(&tree, scratch.join("tree-link")).expect("link");
    for out in [
        tree.join("migrated"),
        scratch.join("tree-link/deeper/migrated"),
    ] {
        let (code, stderr) = migrate(&tree, &out);
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains("inside"), "{stderr}");
    }
    assert!(!tree.join("migrated").exists() && !tree.join("deeper").exists());
    let (code, stderr) = migrate(&tree, &scratch);
    assert_eq!(code, Some(2), "{stderr}");
    // A dangling link, a link to an empty directory, a file: refused, still there.
    let dangling = scratch.join("dangling");
    std::os::unix::fs::symlink(scratch.join("nowhere"), &dangling).expect("link");
    let empty = scratch.join("empty");
    std::fs::create_dir(&empty).expect("empty dir");
    let to_empty = scratch.join("to-empty");
    std::os::unix::fs::symlink(&empty, &to_empty).expect("link");
    let file = scratch.join("file");
    std::fs::write(&file, "mine").expect("file");
    for out in [&dangling, &to_empty, &file] {
        let (code, stderr) = migrate(&tree, out);
        assert_eq!(code, Some(2), "{}: {stderr}", out.display());
        assert!(stderr.contains("exists"), "{stderr}");
        assert!(
            std::fs::symlink_metadata(out).is_ok(),
            "{} was removed",
            out.display()
        );
    }
    assert_eq!(std::fs::read_to_string(&file).ok().as_deref(), Some("mine"));
    // An empty directory is the output.
    let (code, stderr) = migrate(&tree, &empty);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(empty.join("manifests/site.pp").is_file());
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A migration that would write a tree pbc itself refuses (here a kept key's alias to an
/// anchor of a key that moved to bindings, which cutting the file by its lines leaves
/// dangling) writes nothing: the written tree is checked, and on failure removed (exit 1).
#[test]
fn a_migration_that_does_not_check_leaves_nothing() {
    let scratch = std::env::temp_dir().join(format!("pbc-migrate-check-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).expect("scratch");
    let tree = scratch.join("tree");
    let copy = Command::new("cp")
        .arg("-r")
        .arg("corpus/migrate/trees/hierarchy")
        .arg(&tree)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .status()
        .expect("cp runs");
    assert!(copy.success());
    std::fs::write(
        tree.join("data/os/Debian.yaml"),
        "profile::repo: &mirror deb.example.com\nprofile::packages: [*mirror]\n",
    )
    .expect("data");
    let out = scratch.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_pbc"))
        .args(["migrate", "hiera"])
        .arg(&tree)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("pbc runs");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("does not check"), "{stderr}");
    assert!(!out.exists(), "{} was left", out.display());
    let _ = std::fs::remove_dir_all(&scratch);
}
