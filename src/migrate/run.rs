//! `pbc migrate hiera DIR -o OUT [--nodes FACTSDIR]`: loads the tree, plans the migration
//! ([`super::plan`]), writes the migrated copy, and with factsets checks that every node gets
//! the same answers from both trees (every node's answers to `--all`, as `pbc lookup --nodes`
//! gives them, on each).

use crate::inject::query::LookupOptions;
use crate::outcome::{Outcome, Said};
use crate::types::PType;
use std::path::{Path, PathBuf};

/// Where `out` would be, every link of its existing part resolved (it need not exist).
fn resolved(out: &Path) -> PathBuf {
    let absolute = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// Whether `out` may be written: it does not exist, or it is an empty directory (not a link
/// to one). Anything else there is the user's and stays untouched.
fn output_ready(out: &Path) -> Result<bool, String> {
    match std::fs::symlink_metadata(out) {
        Err(_) => Ok(false),
        Ok(meta) if meta.is_dir() => {
            let empty = std::fs::read_dir(out)
                .map(|mut entries| entries.next().is_none())
                .unwrap_or(false);
            if empty {
                Ok(true)
            } else {
                Err(format!(
                    "`{}` exists and is not empty: migrate writes a new directory (or an empty one)",
                    out.display()
                ))
            }
        }
        Ok(meta) => Err(format!(
            "`{}` exists and is {}: migrate writes a new directory (or an empty one)",
            out.display(),
            if meta.file_type().is_symlink() {
                "a link"
            } else {
                "not a directory"
            }
        )),
    }
}

/// Migrates `tree` into `out`. Exit 0 done (and identical when checked); 1 the answers differ
/// or the tree has errors; 2 usage or I/O.
pub fn run(
    tree: &Path,
    out: &Path,
    nodes: Option<&Path>,
    options: &crate::options::Options,
) -> Outcome {
    let out_existed = match output_ready(out) {
        Ok(existed) => existed,
        Err(why) => return Outcome::failed(2, why),
    };
    let confdir = std::fs::canonicalize(tree).unwrap_or_else(|_| tree.to_path_buf());
    // A copy into itself would copy what it has written (64 levels deep), and an input inside
    // the output would be copied over.
    let target = resolved(out);
    if target.starts_with(&confdir) || confdir.starts_with(&target) {
        return Outcome::failed(
            2,
            format!(
                "`{}` is {} `{}`: migrate writes its copy beside the tree, not inside it or around it",
                out.display(),
                if target.starts_with(&confdir) { "inside" } else { "around" },
                tree.display()
            ),
        );
    }
    let request = crate::load::Request::new(options);
    let loaded = match crate::load::environment::prepare(&confdir, &request, options) {
        Ok((_, loaded)) => loaded,
        Err(crate::load::environment::PrepareError::Io(e)) => {
            return Outcome::failed(2, format!("{}: {e}", tree.display()))
        }
        Err(crate::load::environment::PrepareError::Diagnostics {
            files, diagnostics, ..
        }) => return Outcome::diagnostics(files, diagnostics),
    };
    if tree.join("bindings/default.pp").exists()
        || tree.join("manifests/site.pp").exists() && loaded.has_site()
    {
        return Outcome::failed(
            1,
            "this tree already has bindings (bindings/default.pp): migrate a plain Hiera 5 environment",
        );
    }
    if loaded.has_errors() {
        return Outcome::placed(&loaded.check.files, loaded.check.diagnostics.clone());
    }
    let plan = match super::plan(&loaded.hiera, loaded.has_site()) {
        Ok(p) => p,
        Err(why) => return Outcome::failed(1, why),
    };
    // Only what migrate made is taken away again: the directory it created, or what it wrote
    // into the empty one it was given.
    let clean_up = || {
        if out_existed {
            if let Ok(entries) = std::fs::read_dir(out) {
                for entry in entries.flatten() {
                    let path = entry.path();
                    let _ = match entry.file_type() {
                        Ok(t) if t.is_dir() => std::fs::remove_dir_all(&path),
                        _ => std::fs::remove_file(&path),
                    };
                }
            }
        } else if std::fs::symlink_metadata(out).is_ok_and(|m| m.is_dir()) {
            let _ = std::fs::remove_dir_all(out);
        }
    };
    if !out_existed {
        if let Err(e) = std::fs::create_dir(out) {
            return Outcome::failed(2, format!("{}: {e}", out.display()));
        }
    }
    if let Err(e) = write(tree, out, &plan, &loaded) {
        clean_up();
        return Outcome::failed(2, format!("{}: {e}", out.display()));
    }
    // The written tree must check: a migration that wrote something pbc itself refuses is no
    // migration, whatever its answers.
    let written = std::fs::canonicalize(out).unwrap_or_else(|_| out.to_path_buf());
    let refused = match crate::load::environment::prepare(&written, &request, options) {
        Ok((_, migrated)) if !migrated.has_errors() => None,
        Ok((_, migrated)) => Some(Outcome::placed(
            &migrated.check.files,
            migrated.check.diagnostics.clone(),
        )),
        Err(crate::load::environment::PrepareError::Diagnostics {
            files, diagnostics, ..
        }) => Some(Outcome::diagnostics(files, diagnostics)),
        Err(crate::load::environment::PrepareError::Io(e)) => {
            clean_up();
            return Outcome::failed(2, format!("{}: {e}", out.display()));
        }
    };
    if let Some(mut found) = refused {
        clean_up();
        found.said.push(Said::pbc(format!(
            "the migrated tree does not check (above), so nothing was written to `{}`: this is a bug in pbc's migration; please report it with the tree",
            out.display()
        )));
        return found;
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
        // Every node's answers from each tree, as data: a JSON value per node and whether any
        // key failed (what `pbc lookup --nodes --all` prints, one line each, and its status).
        let answers = |dir: &Path| -> (Vec<serde_json::Value>, u8) {
            let opts = LookupOptions {
                tree: dir.to_path_buf(),
                nodes: Some(facts.to_path_buf()),
                all: true,
                quiet: true,
                ..Default::default()
            };
            match crate::inject::nodes::answer_all(&opts, facts, &PType::Data, None, options) {
                Ok((answers, _)) => {
                    let failed = answers.iter().any(|a| !a.errors.is_empty());
                    (
                        answers.iter().map(|a| a.to_json()).collect(),
                        u8::from(failed),
                    )
                }
                Err(outcome) => (Vec::new(), outcome.status),
            }
        };
        let (before, before_status) = answers(tree);
        let (after, after_status) = answers(out);
        let differ = compare(&before, &after);
        let count = before.len();
        if differ.is_empty() && before_status == after_status {
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
        said: Vec::new(),
        status,
    }
}

/// The nodes (and keys) whose answers differ.
fn compare(a: &[serde_json::Value], b: &[serde_json::Value]) -> Vec<String> {
    let mut out = Vec::new();
    if a.len() != b.len() {
        out.push(format!("{} nodes before, {} after", a.len(), b.len()));
        return out;
    }
    for (x, y) in a.iter().zip(b) {
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
    if let Some(flow) = kept_flow_entries(text, &datums, keys) {
        return flow;
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

/// A data file whose top-level mapping is written in flow style (`{a: 1, b: [2, 3]}`, several
/// keys on a line): the kept entries as written (each from its key to the end of its value, as
/// the reader found them), in a new flow mapping. Its structure, not its lines, says where an
/// entry ends. `None` for a block mapping, whose entries are whole lines.
fn kept_flow_entries(
    text: &str,
    datums: &[&crate::lower::model::hiera::HieraDatum],
    keys: &[String],
) -> Option<String> {
    let root = crate::data::yaml::parse_hiera_data(crate::span::FileId(0), text).ok()??;
    let mut rest = text.get(root.span.start as usize..)?;
    // A tag or an anchor may stand before the mapping.
    loop {
        rest = rest.trim_start();
        if rest.starts_with(['!', '&']) {
            rest = rest.trim_start_matches(|c: char| !c.is_whitespace());
        } else {
            break;
        }
    }
    if !rest.starts_with('{') {
        return None;
    }
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let mut entries = Vec::new();
    for d in datums.iter().filter(|d| keys.contains(&d.key)) {
        let line = *line_starts.get(d.line.checked_sub(1)?)?;
        let key_at = line
            + text[line..]
                .chars()
                .take(d.column.checked_sub(1)?)
                .map(char::len_utf8)
                .sum::<usize>();
        if d.value_span.is_none() {
            return None;
        }
        let end = flow_value_end(text, d.value_span.start as usize, d.value_span.end as usize)?;
        if end < key_at {
            return None;
        }
        entries.push(text.get(key_at..end)?);
    }
    Some(format!("{{{}}}\n", entries.join(", ")))
}

/// Where a flow value that the reader found at `start..end` ends: a scalar's span is whole,
/// a collection's is its first character, so its end is its closing bracket's (quotes and
/// comments skipped). A tag or an anchor may stand first.
fn flow_value_end(text: &str, start: usize, end: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = start;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i < b.len() && matches!(b[i], b'!' | b'&') {
            while i < b.len() && !b[i].is_ascii_whitespace() {
                i += 1;
            }
        } else {
            break;
        }
    }
    if !matches!(b.get(i), Some(b'[' | b'{')) {
        return Some(end);
    }
    let mut depth = 0usize;
    // A quote begins a quoted scalar where a scalar may begin, not inside plain text (`it's`).
    let opens = |i: usize| {
        b[..i]
            .iter()
            .rev()
            .find(|c| !c.is_ascii_whitespace())
            .is_some_and(|c| matches!(c, b'[' | b'{' | b',' | b':' | b'?'))
    };
    while i < b.len() {
        match b[i] {
            b'[' | b'{' => depth += 1,
            b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'"' if opens(i) => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' if opens(i) => {
                i += 1;
                while i < b.len() {
                    if b[i] == b'\'' {
                        if b.get(i + 1) == Some(&b'\'') {
                            i += 1;
                        } else {
                            break;
                        }
                    }
                    i += 1;
                }
            }
            b'#' if i > 0 && b[i - 1].is_ascii_whitespace() => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
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

#[cfg(test)]
mod tests {
    use super::compare;
    use serde_json::json;

    /// A node whose value for a key changed is named with the key, both values, and nothing
    /// else; a node whose answers are the same is not named; a change in how many nodes answer
    /// is said as such.
    #[test]
    fn answers_that_differ_are_named_by_node_and_key() {
        let node = |name: &str, port: i64| {
            json!({"node": name, "environment": "production",
                   "values": {"ntp::port": port, "ntp::iburst": true}, "errors": {}})
        };
        let before = [node("a", 123), node("b", 123)];
        assert!(compare(&before, &before).is_empty());
        let after = [node("a", 123), node("b", 124)];
        assert_eq!(compare(&before, &after), ["b: ntp::port: 123 -> 124"]);
        assert_eq!(compare(&before, &after[..1]), ["2 nodes before, 1 after"]);
    }
}
