//! Facts for a request: a JSON object of facts, or what `puppet facts` prints
//! (`{"name": ..., "values": {...}}`), from a file or from `<node>.json` in a directory of
//! factsets; then `--fact key=value` on top. `trusted` in a facts file becomes `$trusted`.

use super::Request;
use crate::diag::{codes, Diagnostic};
use crate::eval::Value;
use crate::span::Span;
use std::path::{Path, PathBuf};

fn problem(message: String) -> Diagnostic {
    Diagnostic::error(codes::INVALID_FACTS, Span::NONE, message)
}

/// The facts file for `node` in a factsets directory, or `path` itself.
pub fn facts_file(path: &Path, node: Option<&str>) -> Result<PathBuf, Diagnostic> {
    if !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    let Some(node) = node else {
        return Err(problem(format!(
            "{} is a directory of factsets: name the node with --node",
            path.display()
        )));
    };
    let file = path.join(format!("{node}.json"));
    if file.is_file() {
        return Ok(file);
    }
    let mut known: Vec<String> = std::fs::read_dir(path)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .strip_suffix(".json")
                        .map(str::to_string)
                })
                .collect()
        })
        .unwrap_or_default();
    known.sort();
    let mut d = problem(format!(
        "no facts for the node `{node}` in {}",
        path.display()
    ));
    d = d.with_note(format!(
        "note: nodes with facts there: {}",
        known.join(", ")
    ));
    Err(d)
}

/// Reads facts into a request (replacing its facts).
pub fn load(path: &Path, request: &mut Request) -> Result<(), Diagnostic> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        problem(format!(
            "cannot read the facts file {}: {e}",
            path.display()
        ))
    })?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        problem(format!(
            "{}:{}:{}: the facts file is not JSON: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })?;
    let serde_json::Value::Object(mut map) = json else {
        return Err(problem(format!(
            "{}: facts must be a JSON object",
            path.display()
        )));
    };
    // `puppet facts` wraps the facts: {"name": "node", "values": {...}}.
    if let (Some(serde_json::Value::Object(values)), true) =
        (map.get("values").cloned(), map.contains_key("name"))
    {
        map = values;
    }
    request.facts.clear();
    for (k, v) in &map {
        if k == "trusted" {
            request.trusted = Some(Value::from_json(v));
        } else {
            request.facts.insert(k.as_str().into(), Value::from_json(v));
        }
    }
    Ok(())
}

/// `--fact key=value`: the value is JSON when it reads as JSON (`42`, `true`, `["a"]`), a
/// string otherwise.
pub fn set_fact(request: &mut Request, assignment: &str) -> Result<(), Diagnostic> {
    let Some((k, v)) = assignment.split_once('=') else {
        return Err(problem(format!(
            "--fact takes key=value, not `{assignment}`"
        )));
    };
    let value = serde_json::from_str::<serde_json::Value>(v)
        .map(|j| Value::from_json(&j))
        .unwrap_or_else(|_| Value::string(v));
    request.facts.insert(k.trim().into(), value);
    Ok(())
}
