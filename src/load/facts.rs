//! Facts for a request: a JSON or YAML object of facts, or what `puppet facts` prints
//! (`{"name": ..., "values": {...}}`, in YAML with its `!ruby/object` tag), from a file or from
//! `<node>.json`, `.yaml` or `.yml` in a directory of factsets; then `--fact key=value` on top.
//! `trusted` in a facts file becomes `$trusted`. [`read_data`] also reads ENC output.

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
    for ext in ["json", "yaml", "yml"] {
        let file = path.join(format!("{node}.{ext}"));
        if file.is_file() {
            return Ok(file);
        }
    }
    let mut known: Vec<String> = std::fs::read_dir(path)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    [".json", ".yaml", ".yml"]
                        .iter()
                        .find_map(|ext| name.strip_suffix(ext).map(str::to_string))
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

/// A JSON or YAML document (by extension: `.yaml`/`.yml` are YAML) as a value; `what` names
/// the file's purpose in messages.
pub fn read_data(path: &Path, what: &str) -> Result<Value, Diagnostic> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| problem(format!("cannot read the {what} {}: {e}", path.display())))?;
    let is_yaml = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
    if is_yaml {
        let docs = yaml_rust2::YamlLoader::load_from_str(&text).map_err(|e| {
            problem(format!(
                "{}:{}:{}: the {what} is not YAML: {}",
                path.display(),
                e.marker().line(),
                e.marker().col() + 1,
                e.info()
            ))
        })?;
        let Some(doc) = docs.first() else {
            return Err(problem(format!("{}: the {what} is empty", path.display())));
        };
        return from_yaml(doc).ok_or_else(|| {
            problem(format!(
                "{}: the {what} uses YAML that is not data (aliases or bad values)",
                path.display()
            ))
        });
    }
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| {
        problem(format!(
            "{}:{}:{}: the {what} is not JSON: {e}",
            path.display(),
            e.line(),
            e.column()
        ))
    })?;
    Ok(Value::from_json(&json))
}

/// YAML as Puppet data (an explicit stack is not needed: the YAML parser bounds nesting).
fn from_yaml(y: &yaml_rust2::Yaml) -> Option<Value> {
    use yaml_rust2::Yaml;
    Some(match y {
        Yaml::Null => Value::Undef,
        Yaml::Boolean(b) => Value::Boolean(*b),
        Yaml::Integer(i) => Value::Integer(*i),
        Yaml::Real(r) => Value::Float(r.parse().ok()?),
        Yaml::String(s) => Value::string(s.as_str()),
        Yaml::Array(items) => Value::array(items.iter().map(from_yaml).collect::<Option<_>>()?),
        Yaml::Hash(map) => {
            let mut out = crate::eval::Map::with_capacity(map.len());
            for (k, v) in map {
                out.insert(from_yaml(k)?, from_yaml(v)?);
            }
            Value::hash(out)
        }
        Yaml::Alias(_) | Yaml::BadValue => return None,
    })
}

/// Reads facts into a request (replacing its facts).
pub fn load(path: &Path, request: &mut Request) -> Result<(), Diagnostic> {
    let Value::Hash(mut map) = read_data(path, "facts file")? else {
        return Err(problem(format!(
            "{}: facts must be an object (a hash of names to values)",
            path.display()
        )));
    };
    // `puppet facts` wraps the facts: {"name": "node", "values": {...}}.
    if let (Some(Value::Hash(values)), true) = (
        map.get(&Value::string("values")).cloned(),
        map.contains_key(&Value::string("name")),
    ) {
        map = values;
    }
    request.facts.clear();
    for (k, v) in map.iter() {
        let name = k.to_display_string();
        if name == "trusted" {
            request.trusted = Some(v.clone());
        } else {
            request.facts.insert(name.into(), v.clone());
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
