//! A test of the library's shape, not of its behaviour: the modules of each crate depend on
//! each other one way. Every `crate::...` and `super::...` path in a module's code (its tests
//! left out) is an edge from that module to the one it names, at each depth of the module tree
//! (`inject` → `load`; `inject::command` → `inject::query`); a module and the modules inside
//! it are one unit. A cycle among the edges fails the test, naming the modules on it and a
//! line that makes each step.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Where one module names another: the file and line, for the failure message.
type Edges = BTreeMap<String, BTreeMap<String, String>>;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file holds, as its path components (`src/inject/mod.rs` is `inject`).
fn module_of(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).unwrap_or(file).with_extension("");
    let mut parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|p| p == "mod" || p == "lib") {
        parts.pop();
    }
    parts
}

/// The identifiers of a path that starts at `at` in `text` (`a::b::c` gives a, b, c).
fn path_after(text: &str, at: usize) -> Vec<String> {
    let mut parts = Vec::new();
    let mut rest = &text[at..];
    loop {
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if len == 0 {
            break;
        }
        parts.push(rest[..len].to_string());
        rest = &rest[len..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    parts
}

/// The edges between the modules of the crate whose sources are under `root`, at every depth.
fn module_edges(root: &Path, leave_out: &[&str]) -> (Edges, BTreeSet<String>) {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    files.sort();
    let modules: Vec<(PathBuf, Vec<String>)> = files
        .into_iter()
        .map(|f| {
            let m = module_of(root, &f);
            (f, m)
        })
        .filter(|(_, m)| !m.is_empty() && !leave_out.contains(&m[0].as_str()))
        .collect();
    let mut known: BTreeSet<String> = BTreeSet::new();
    for (_, m) in &modules {
        for depth in 1..=m.len() {
            known.insert(m[..depth].join("::"));
        }
    }
    let mut out: Edges = BTreeMap::new();
    for (file, module) in &modules {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        // Tests may use anything.
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap_or("");
        for (number, line) in code.lines().enumerate() {
            let line = line.split("//").next().unwrap_or("");
            for (prefix, base) in [
                ("crate::", Vec::new()),
                // `super` of the module `a::b` (`a/b.rs` or `a/b/mod.rs`) is `a`.
                ("super::", module[..module.len() - 1].to_vec()),
            ] {
                let mut from = 0;
                while let Some(found) = line[from..].find(prefix) {
                    let at = from + found;
                    from = at + prefix.len();
                    if at > 0 && line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                        continue;
                    }
                    let mut target = base.clone();
                    target.extend(path_after(line, at + prefix.len()));
                    let place = format!("{}:{}", file.display(), number + 1);
                    for depth in 1..=module.len().min(target.len()) {
                        let (a, b) = (module[..depth].join("::"), target[..depth].join("::"));
                        if a == b || !known.contains(&b) {
                            continue;
                        }
                        // A module and the modules inside it are one unit.
                        if a.starts_with(&format!("{b}::")) || b.starts_with(&format!("{a}::")) {
                            continue;
                        }
                        out.entry(a).or_default().entry(b).or_insert(place.clone());
                    }
                }
            }
        }
    }
    (out, known)
}

/// A cycle among `edges`, as the modules on it in order, if there is one.
fn a_cycle(edges: &Edges, known: &BTreeSet<String>) -> Option<Vec<String>> {
    // 0 unvisited, 1 on the current path, 2 done; the path is kept on an explicit stack.
    let mut state: BTreeMap<&str, u8> = BTreeMap::new();
    for start in known {
        if state.get(start.as_str()).copied().unwrap_or(0) != 0 {
            continue;
        }
        let mut stack: Vec<(&str, Vec<&str>)> = vec![(start, Vec::new())];
        let mut path: Vec<&str> = Vec::new();
        while let Some((node, pending)) = stack.last_mut() {
            let node = *node;
            if state.get(node).copied().unwrap_or(0) == 0 {
                state.insert(node, 1);
                path.push(node);
                *pending = edges
                    .get(node)
                    .map(|m| m.keys().map(String::as_str).collect())
                    .unwrap_or_default();
            }
            match pending.pop() {
                Some(next) => match state.get(next).copied().unwrap_or(0) {
                    0 => stack.push((next, Vec::new())),
                    1 => {
                        let from = path.iter().position(|m| *m == next).unwrap_or(0);
                        let mut cycle: Vec<String> =
                            path[from..].iter().map(|m| m.to_string()).collect();
                        cycle.push(next.to_string());
                        return Some(cycle);
                    }
                    _ => {}
                },
                None => {
                    state.insert(node, 2);
                    path.pop();
                    stack.pop();
                }
            }
        }
    }
    None
}

fn assert_one_way(root: &Path, leave_out: &[&str]) {
    let (edges, known) = module_edges(root, leave_out);
    assert!(
        edges.len() > 3,
        "{}: the modules' references were not read",
        root.display()
    );
    if let Some(cycle) = a_cycle(&edges, &known) {
        let steps: Vec<String> = cycle
            .windows(2)
            .map(|w| format!("  {} -> {} ({})", w[0], w[1], edges[&w[0]][&w[1]]))
            .collect();
        panic!(
            "modules depend on each other in a circle:\n{}",
            steps.join("\n")
        );
    }
}

#[test]
fn the_engines_modules_depend_one_way() {
    // The command line (`src/cli`, `src/main.rs`) is the binary's, not the library's.
    assert_one_way(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        &["cli", "main"],
    );
}

#[test]
fn the_syntax_crates_modules_depend_one_way() {
    assert_one_way(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("crates/syntax/src"),
        &[],
    );
}

/// The check finds a circle where there is one.
#[test]
fn a_circle_is_found() {
    let dir = tempfile::tempdir().expect("temporary directory");
    for (name, text) in [
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n"),
        ("a.rs", "use crate::b::X;\n"),
        ("b/mod.rs", "pub mod inner;\n"),
        ("b/inner.rs", "fn f() { crate::c::g() }\n"),
        (
            "c.rs",
            "// crate::a is only named in a comment\nuse super::a::Y;\n",
        ),
        ("d.rs", "use crate::a::Y;\n"),
    ] {
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().expect("a directory")).expect("directory");
        std::fs::write(&path, text).expect("written");
    }
    let (edges, known) = module_edges(dir.path(), &[]);
    let cycle = a_cycle(&edges, &known).expect("a circle");
    assert_eq!(cycle.first(), cycle.last());
    let on: BTreeSet<&str> = cycle.iter().map(String::as_str).collect();
    assert_eq!(on, BTreeSet::from(["a", "b", "c"]), "{cycle:?}");
    std::fs::write(dir.path().join("c.rs"), "// crate::a\n").expect("written");
    let (edges, known) = module_edges(dir.path(), &[]);
    assert_eq!(a_cycle(&edges, &known), None);
}
