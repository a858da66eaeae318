//! Facts for a request: a JSON or YAML object of facts, or what `puppet facts` prints
//! (`{"name": ..., "values": {...}}`, in YAML with its `!ruby/object` tag), from a file or from
//! `<node>.json`, `.yaml` or `.yml` in a directory of factsets; then `--fact key=value` on top.
//! `trusted` in a facts file becomes `$trusted`, `server_facts` `$server_facts`. [`read_data`]
//! also reads ENC output.

use super::Request;
use crate::diag::{codes, Diagnostic};
use crate::eval::Value;
use crate::span::Span;
use std::path::{Path, PathBuf};

/// How messages name a data file: its path, or standard input for `-`.
pub fn shown(path: &Path) -> String {
    if path.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        path.display().to_string()
    }
}

fn problem(message: String) -> Diagnostic {
    Diagnostic::error(codes::INVALID_FACTS, Span::NONE, message)
}

/// The facts file for `node` in a factsets directory, or `path` itself.
pub fn facts_file(path: &Path, node: Option<&str>) -> Result<PathBuf, Diagnostic> {
    if path.as_os_str() == "-" || !path.is_dir() {
        return Ok(path.to_path_buf());
    }
    let Some(node) = node else {
        return Err(problem(format!(
            "{} is a directory of factsets: name the node with --node",
            path.display()
        )));
    };
    // A node's name picks a file in the directory; it never leads out of it.
    if node.is_empty() || node == "." || node == ".." || node.contains(['/', '\\', '\0']) {
        return Err(problem(format!(
            "`{node}` is not a node's name: --node takes a certname such as `web01.example.com`, not a path"
        )));
    }
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

/// How deep a facts file or ENC output may nest (serde_json's own limit for JSON).
pub const MAX_DATA_DEPTH: usize = 128;

/// A JSON or YAML document (by extension: `.yaml`/`.yml` are YAML) as a value; `what` names
/// the file's purpose in messages. The file must be a regular file within the size limit;
/// nesting is bounded and YAML aliases are refused (facts and ENC output never need them, and
/// they can expand a small file into gigabytes). The path `-` is standard input, JSON when it
/// starts with `{` or `[`, else YAML.
pub fn read_data(
    path: &Path,
    what: &str,
    code: &'static str,
    access: &crate::source::FileAccess,
) -> Result<Value, ReadError> {
    let problem = |message: String| Diagnostic::error(code, Span::NONE, message);
    let stdin = path.as_os_str() == "-";
    let bytes = if stdin {
        crate::source::read_stdin(what, access)
    } else {
        crate::source::read_file(path, what, access)
    }
    .map_err(|e| ReadError::Unreadable(e.to_string()))?;
    let text = String::from_utf8(bytes)
        .map_err(|_| problem(format!("{}: the {what} is not UTF-8", shown(path))))?;
    let is_yaml = if stdin {
        !text.trim_start().starts_with(['{', '['])
    } else {
        path.extension().is_some_and(|e| e == "yaml" || e == "yml")
    };
    parse_data(&text, is_yaml).map_err(|e| {
        ReadError::Invalid(problem(format!(
            "{}:{}:{}: the {what} is not {}: {}",
            shown(path),
            e.line,
            e.column,
            if is_yaml { "YAML data" } else { "JSON" },
            e.message
        )))
    })
}

/// Why facts or ENC output could not be used: the file could not be read (an I/O problem,
/// exit status 2), or what it holds is not valid (a diagnostic).
#[derive(Debug)]
pub enum ReadError {
    Unreadable(String),
    Invalid(Diagnostic),
}

impl From<Diagnostic> for ReadError {
    fn from(d: Diagnostic) -> ReadError {
        ReadError::Invalid(d)
    }
}

/// Why a document is not data, and where.
#[derive(Debug)]
pub struct DataError {
    pub line: usize,
    pub column: usize,
    pub message: String,
}

/// A JSON or YAML document as a value, within the same bounds as [`read_data`] (nesting,
/// no YAML aliases, finite numbers).
pub fn parse_data(text: &str, yaml: bool) -> Result<Value, DataError> {
    if yaml {
        return yaml_value(text).map_err(|(line, column, message)| DataError {
            line,
            column,
            message,
        });
    }
    let json: serde_json::Value = serde_json::from_str(text).map_err(|e| DataError {
        line: e.line(),
        column: e.column(),
        message: e.to_string(),
    })?;
    Ok(Value::from_json(&json))
}

/// A partly built YAML collection.
enum Open {
    Sequence(Vec<Value>),
    /// A mapping and the key waiting for its value.
    Mapping(crate::eval::Map, Option<Value>),
}

/// The first YAML document of `text` as Puppet data, built from the parser's events with an
/// explicit stack (no recursion, whatever the nesting). Errors give the line and column.
fn yaml_value(text: &str) -> Result<Value, (usize, usize, String)> {
    use yaml_rust2::parser::{Event, Parser};
    let mut parser = Parser::new_from_str(text);
    let mut stack: Vec<Open> = Vec::new();
    loop {
        let (event, mark) = parser.next_token().map_err(|e| {
            (
                e.marker().line(),
                e.marker().col() + 1,
                e.info().to_string(),
            )
        })?;
        let at = |why: String| (mark.line(), mark.col() + 1, why);
        let done = match event {
            Event::StreamEnd => return Err(at("the document is empty".into())),
            Event::Nothing | Event::StreamStart | Event::DocumentStart | Event::DocumentEnd => {
                continue
            }
            Event::Alias(_) => return Err(at("YAML aliases (`*name`) are not allowed".into())),
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if stack.len() == MAX_DATA_DEPTH {
                    return Err(at(format!(
                        "it nests more than {MAX_DATA_DEPTH} levels deep"
                    )));
                }
                stack.push(if matches!(event, Event::SequenceStart(..)) {
                    Open::Sequence(Vec::new())
                } else {
                    Open::Mapping(crate::eval::Map::new(), None)
                });
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some(Open::Sequence(items)) => Value::array(items),
                Some(Open::Mapping(map, _)) => Value::hash(map),
                None => return Err(at("unbalanced collection".into())),
            },
            Event::Scalar(text, style, _, tag) => scalar(text, style, tag).map_err(at)?,
        };
        // Place the finished value in its parent, or return it as the document.
        match stack.last_mut() {
            None => return Ok(done),
            Some(Open::Sequence(items)) => items.push(done),
            Some(Open::Mapping(map, key)) => match key.take() {
                None => *key = Some(done),
                Some(k) => {
                    map.insert(k, done);
                }
            },
        }
    }
}

/// A YAML scalar as Puppet reads it ([`crate::data::yaml::scalar`], which data files use).
fn scalar(
    text: String,
    style: yaml_rust2::scanner::TScalarStyle,
    tag: Option<yaml_rust2::parser::Tag>,
) -> Result<Value, String> {
    use crate::data::yaml::NodeKind;
    use crate::data::yaml::ScalarStyle;
    let style = match style {
        yaml_rust2::scanner::TScalarStyle::Plain => ScalarStyle::Plain,
        _ => ScalarStyle::Quoted,
    };
    let tag = tag.map(|t| format!("{}{}", t.handle, t.suffix));
    Ok(
        match crate::data::yaml::scalar(text, style, tag.as_deref())? {
            NodeKind::Null => Value::Undef,
            NodeKind::Bool(b) => Value::Boolean(b),
            NodeKind::Integer(i) => Value::Integer(i),
            NodeKind::Float(f) => Value::Float(f),
            // A fact's number pbc cannot hold stays its text, as Puppet interpolates it.
            NodeKind::String(s) | NodeKind::Unrepresentable(s) => Value::string(s.as_str()),
            NodeKind::Sequence(_) | NodeKind::Mapping(_) => {
                return Err("a value that is not data".into())
            }
        },
    )
}

/// Reads facts into a request (replacing its facts).
pub fn load(
    path: &Path,
    request: &mut Request,
    access: &crate::source::FileAccess,
) -> Result<(), ReadError> {
    let facts = read_data(path, "facts file", codes::INVALID_FACTS, access)?;
    set_facts(facts, &shown(path), request).map_err(ReadError::Invalid)
}

/// Facts already read (`facts`, from `from`) into a request, replacing its facts: an object of
/// facts, or what `puppet facts` prints; its `trusted` becomes `$trusted`, its `server_facts`
/// `$server_facts`.
pub fn set_facts(facts: Value, from: &str, request: &mut Request) -> Result<(), Diagnostic> {
    let Value::Hash(mut map) = facts else {
        return Err(problem(format!(
            "{from}: facts must be an object (a hash of names to values)"
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
        } else if name == "server_facts" {
            request.server_facts = Some(v.clone());
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
