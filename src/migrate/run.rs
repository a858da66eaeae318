//! `pbc migrate hiera DIR -o OUT [--nodes FACTSDIR]`: loads the tree, plans the migration
//! ([`super::plan`]), writes the migrated copy, and with factsets checks that every node gets
//! the same answers from both trees (`pbc lookup --nodes --all` on each).

use crate::inject::command::{LookupOptions, LookupOutcome};
use std::path::{Path, PathBuf};

/// What the command prints and its exit status (0 done, and identical when checked; 1 the
/// answers differ or the tree has errors; 2 usage or I/O).
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub status: u8,
}

fn fail(status: u8, message: String) -> Outcome {
    Outcome {
        stdout: String::new(),
        stderr: format!("pbc: {message}\n"),
        status,
    }
}

pub fn run(tree: &Path, out: &Path, nodes: Option<&Path>, colour: bool) -> Outcome {
    if out.exists() {
        return fail(
            2,
            format!("`{}` exists: migrate writes a new directory", out.display()),
        );
    }
    let confdir = std::fs::canonicalize(tree).unwrap_or_else(|_| tree.to_path_buf());
    let request = crate::load::Request::default();
    let loaded = match crate::load::environment::prepare(&confdir, &request) {
        Ok((_, loaded)) => loaded,
        Err(crate::load::environment::PrepareError::Io(e)) => {
            return fail(2, format!("{}: {e}", tree.display()))
        }
        Err(crate::load::environment::PrepareError::Diagnostics {
            files, diagnostics, ..
        }) => {
            return Outcome {
                stdout: String::new(),
                stderr: crate::diag::render(&files, &diagnostics, colour),
                status: 1,
            }
        }
    };
    if loaded.has_errors() {
        return Outcome {
            stdout: String::new(),
            stderr: crate::diag::render(&loaded.check.files, &loaded.check.diagnostics, colour),
            status: 1,
        };
    }
    if tree.join("bindings/default.pp").exists()
        || tree.join("manifests/site.pp").exists() && loaded.has_site()
    {
        return fail(
            1,
            "this tree already has bindings (bindings/default.pp): migrate a plain Hiera 5 environment".into(),
        );
    }
    let plan = match super::plan(&loaded.hiera, loaded.has_site()) {
        Ok(p) => p,
        Err(why) => return fail(1, why),
    };
    if let Err(e) = write(tree, out, &plan, &loaded) {
        let _ = std::fs::remove_dir_all(out);
        return fail(2, format!("{}: {e}", out.display()));
    }
    let mut stdout = format!("migrated {} into {}\n", tree.display(), out.display());
    for line in &plan.report {
        stdout.push_str(&format!("  {line}\n"));
    }
    for (file, _) in &plan.write {
        stdout.push_str(&format!("  wrote {file}\n"));
    }
    let mut status = 0;
    if let Some(facts) = nodes {
        let answers = |dir: &Path| {
            crate::inject::command::run(&LookupOptions {
                tree: dir.to_path_buf(),
                nodes: Some(facts.to_path_buf()),
                all: true,
                quiet: true,
                ..Default::default()
            })
        };
        let (before, after): (LookupOutcome, LookupOutcome) = (answers(tree), answers(out));
        let differ = compare(&before.stdout, &after.stdout);
        let count = before.stdout.lines().count();
        if differ.is_empty() && before.status == after.status {
            stdout.push_str(&format!(
                "  answers: identical for every key of {count} nodes\n"
            ));
        } else {
            status = 1;
            stdout.push_str(&format!("  answers differ on {} nodes:\n", differ.len()));
            for d in differ.iter().take(20) {
                stdout.push_str(&format!("    {d}\n"));
            }
        }
    }
    Outcome {
        stdout,
        stderr: String::new(),
        status,
    }
}

/// The nodes (and keys) whose JSON lines differ.
fn compare(before: &str, after: &str) -> Vec<String> {
    let parse = |text: &str| -> Vec<serde_json::Value> {
        text.lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    };
    let (a, b) = (parse(before), parse(after));
    let mut out = Vec::new();
    if a.len() != b.len() {
        out.push(format!("{} nodes before, {} after", a.len(), b.len()));
        return out;
    }
    for (x, y) in a.iter().zip(&b) {
        if x == y {
            continue;
        }
        let node = x["node"].as_str().unwrap_or("?");
        let empty = serde_json::Map::new();
        let xv = x["values"].as_object().unwrap_or(&empty);
        let yv = y["values"].as_object().unwrap_or(&empty);
        let keys: std::collections::BTreeSet<&String> = xv.keys().chain(yv.keys()).collect();
        let differing: Vec<String> = keys
            .into_iter()
            .filter(|k| xv.get(*k) != yv.get(*k))
            .map(|k| {
                format!(
                    "{k}: {} -> {}",
                    xv.get(k).map_or("(none)".into(), ToString::to_string),
                    yv.get(k).map_or("(none)".into(), ToString::to_string)
                )
            })
            .collect();
        if differing.is_empty() {
            out.push(format!("{node}: errors differ"));
        } else {
            out.push(format!("{node}: {}", differing.join("; ")));
        }
    }
    out
}

/// The tree copied, its migrated data files cut down, the new files written.
fn write(
    tree: &Path,
    out: &Path,
    plan: &super::Plan,
    loaded: &crate::load::LoadedTree,
) -> std::io::Result<()> {
    copy_dir(tree, out, 0)?;
    for (file, kept) in &plan.rewrite {
        let target = out.join(file);
        match kept {
            None => std::fs::remove_file(&target)?,
            Some(keys) => {
                let text = std::fs::read_to_string(tree.join(file))?;
                std::fs::write(&target, keep_keys(&text, file, keys, loaded))?;
            }
        }
    }
    for (file, text) in &plan.write {
        let target = out.join(file);
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)?;
        }
        // A manifest already there keeps its code; the site is added after it.
        let existing = std::fs::read_to_string(&target).unwrap_or_default();
        let joined = if existing.is_empty() {
            text.clone()
        } else {
            format!("{existing}\n{text}")
        };
        std::fs::write(&target, joined)?;
    }
    Ok(())
}

/// A data file with only `keys` at its top level: YAML keeps its text for them (the lines from
/// each key to the next), JSON is written again.
fn keep_keys(text: &str, file: &str, keys: &[String], loaded: &crate::load::LoadedTree) -> String {
    let datums: Vec<&crate::lower::model::hiera::HieraDatum> = loaded
        .hiera
        .iter()
        .flat_map(|l| &l.files)
        .filter(|f| f.file == file)
        .flat_map(|f| &f.keys)
        .collect();
    if file.ends_with(".json") {
        let map: serde_json::Map<String, serde_json::Value> = datums
            .iter()
            .filter(|d| keys.contains(&d.key))
            .map(|d| (d.key.clone(), d.value.clone()))
            .collect();
        return serde_json::to_string_pretty(&map).unwrap_or_default() + "\n";
    }
    let lines: Vec<&str> = text.lines().collect();
    let mut starts: Vec<(usize, bool)> = datums
        .iter()
        .map(|d| (d.line.saturating_sub(1), keys.contains(&d.key)))
        .collect();
    starts.sort_unstable();
    let mut out = String::new();
    if let Some(&(first, _)) = starts.first() {
        for line in &lines[..first.min(lines.len())] {
            out.push_str(line);
            out.push('\n');
        }
    }
    for (i, &(start, kept)) in starts.iter().enumerate() {
        let end = starts
            .get(i + 1)
            .map_or(lines.len(), |n| n.0)
            .min(lines.len());
        if kept {
            for line in &lines[start.min(end)..end] {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// Every regular file and directory below `from` (links are not followed: a migrated tree
/// holds what the tree holds). Nesting is bounded like the tree walk's.
fn copy_dir(from: &Path, to: &Path, depth: usize) -> std::io::Result<()> {
    if depth > 64 {
        return Ok(());
    }
    std::fs::create_dir_all(to)?;
    let mut entries: Vec<PathBuf> = std::fs::read_dir(from)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    for path in entries {
        let meta = std::fs::symlink_metadata(&path)?;
        let Some(name) = path.file_name() else {
            continue;
        };
        if meta.is_dir() {
            copy_dir(&path, &to.join(name), depth + 1)?;
        } else if meta.is_file() {
            std::fs::copy(&path, to.join(name))?;
        }
    }
    Ok(())
}
