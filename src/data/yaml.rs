//! YAML (and JSON, which is read as the YAML it is) as a tree of nodes that keep their place in
//! the file, for configuration and data files whose every diagnostic must point at a line and
//! column: `hiera.yaml`, data files, `binder_config.yaml`.
//!
//! Built from the parser's events with an explicit stack (no recursion, whatever the nesting),
//! nesting bounded by [`MAX_NESTING`], aliases refused: these files never need them, and an
//! alias can expand a small file into gigabytes.

use crate::span::{FileId, Span};

/// How deep a document may nest.
pub const MAX_NESTING: usize = 128;

/// A value with the span of its text in the file (a scalar's text, a collection's opening).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Null,
    Bool(bool),
    Integer(i64),
    Float(f64),
    String(String),
    Sequence(Vec<Node>),
    /// Entries in file order (keys may repeat: the reader reports it).
    Mapping(Vec<(Node, Node)>),
}

impl Node {
    /// What the node is, as a message names it.
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            NodeKind::Null => "null",
            NodeKind::Bool(_) => "a Boolean",
            NodeKind::Integer(_) => "an Integer",
            NodeKind::Float(_) => "a Float",
            NodeKind::String(_) => "a String",
            NodeKind::Sequence(_) => "an Array",
            NodeKind::Mapping(_) => "a Hash",
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value of `key` in a mapping (the first, if it repeats).
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// The key node and value of `key` in a mapping (the first, if it repeats): the key is where
    /// a message about the whole entry points.
    pub fn entry(&self, key: &str) -> Option<(&Node, &Node)> {
        match &self.kind {
            NodeKind::Mapping(entries) => entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(k, v)| (k, v)),
            _ => None,
        }
    }
}

/// Why a file is not a YAML document, and where.
#[derive(Debug, PartialEq)]
pub struct SyntaxError {
    pub span: Span,
    pub message: String,
}

/// The first document of `text`, or `None` when the file holds no data (empty, only comments
/// and `---`, or a null document).
pub fn parse(file: FileId, text: &str) -> Result<Option<Node>, SyntaxError> {
    use yaml_rust2::parser::{Event, Parser};
    let offsets = ByteOffsets::new(text);
    let span_at = |index: usize, len: usize| {
        let start = offsets.byte(index);
        Span::new(file, start, (start + len).min(text.len()))
    };
    let mut parser = Parser::new_from_str(text);
    // Each open collection: its node (with the entries so far) and, for a mapping, the key
    // waiting for its value.
    let mut stack: Vec<(Node, Option<Node>)> = Vec::new();
    loop {
        let (event, mark) = parser.next_token().map_err(|e| SyntaxError {
            span: span_at(e.marker().index(), 1),
            message: e.info().to_string(),
        })?;
        let here = span_at(mark.index(), 1);
        let done = match event {
            Event::StreamEnd => return Ok(None),
            Event::Nothing | Event::StreamStart | Event::DocumentStart | Event::DocumentEnd => {
                continue
            }
            Event::Alias(_) => {
                return Err(SyntaxError {
                    span: here,
                    message: "YAML aliases (`*name`) are not allowed here".into(),
                })
            }
            Event::SequenceStart(..) | Event::MappingStart(..) => {
                if stack.len() == MAX_NESTING {
                    return Err(SyntaxError {
                        span: here,
                        message: format!("it nests more than {MAX_NESTING} levels deep"),
                    });
                }
                let kind = if matches!(event, Event::SequenceStart(..)) {
                    NodeKind::Sequence(Vec::new())
                } else {
                    NodeKind::Mapping(Vec::new())
                };
                stack.push((Node { kind, span: here }, None));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match stack.pop() {
                Some((node, _)) => node,
                None => {
                    return Err(SyntaxError {
                        span: here,
                        message: "unbalanced collection".into(),
                    })
                }
            },
            Event::Scalar(value, style, _, tag) => {
                let len = scalar_length(text, offsets.byte(mark.index()), &value, style);
                Node {
                    kind: scalar(value, style, tag.as_ref()),
                    span: span_at(mark.index(), len),
                }
            }
        };
        match stack.last_mut() {
            // `---` alone is an empty document: no data, like an empty file.
            None if done.kind == NodeKind::Null => return Ok(None),
            None => return Ok(Some(done)),
            Some((parent, key)) => match &mut parent.kind {
                NodeKind::Sequence(items) => items.push(done),
                NodeKind::Mapping(entries) => match key.take() {
                    None => *key = Some(done),
                    Some(k) => entries.push((k, done)),
                },
                _ => {}
            },
        }
    }
}

/// How many bytes of the file a scalar's text covers, for its span: the value's own length for
/// a plain scalar, up to the closing quote for a quoted one on its line.
fn scalar_length(
    text: &str,
    start: usize,
    value: &str,
    style: yaml_rust2::scanner::TScalarStyle,
) -> usize {
    use yaml_rust2::scanner::TScalarStyle;
    let rest = text.get(start..).unwrap_or("");
    let line = rest.split('\n').next().unwrap_or("");
    match style {
        TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted => {
            let quote = if style == TScalarStyle::SingleQuoted {
                '\''
            } else {
                '"'
            };
            line.char_indices()
                .skip(1)
                .find(|&(_, c)| c == quote)
                .map_or(line.len(), |(i, _)| i + 1)
        }
        TScalarStyle::Plain => value.len().min(line.len()).max(1),
        _ => line.len().max(1),
    }
}

/// A scalar as YAML 1.2's core schema reads it: quoted ones are strings, plain ones may be
/// null, Booleans or numbers; `!!str`, `!!int` ... tags are obeyed.
fn scalar(
    text: String,
    style: yaml_rust2::scanner::TScalarStyle,
    tag: Option<&yaml_rust2::parser::Tag>,
) -> NodeKind {
    use yaml_rust2::Yaml;
    let resolved = match (tag, style) {
        (_, s) if s != yaml_rust2::scanner::TScalarStyle::Plain => Yaml::String(text),
        (Some(t), _) if t.handle == "tag:yaml.org,2002:" => match t.suffix.as_str() {
            "int" | "float" | "bool" | "null" => Yaml::from_str(&text),
            _ => Yaml::String(text),
        },
        (Some(_), _) => Yaml::String(text),
        (None, _) => Yaml::from_str(&text),
    };
    match resolved {
        Yaml::Null => NodeKind::Null,
        Yaml::Boolean(b) => NodeKind::Bool(b),
        Yaml::Integer(i) => NodeKind::Integer(i),
        Yaml::Real(r) => match r.parse::<f64>() {
            Ok(f) if f.is_finite() => NodeKind::Float(f),
            _ => NodeKind::String(r),
        },
        Yaml::String(s) => NodeKind::String(s),
        _ => NodeKind::Null,
    }
}

/// The parser's markers count characters; spans count bytes.
struct ByteOffsets {
    /// `None` for ASCII text, where the two are the same.
    of_char: Option<Vec<usize>>,
    len: usize,
}

impl ByteOffsets {
    fn new(text: &str) -> ByteOffsets {
        ByteOffsets {
            of_char: (!text.is_ascii()).then(|| text.char_indices().map(|(i, _)| i).collect()),
            len: text.len(),
        }
    }

    fn byte(&self, char_index: usize) -> usize {
        match &self.of_char {
            None => char_index.min(self.len),
            Some(v) => v.get(char_index).copied().unwrap_or(self.len),
        }
    }
}

/// The value as plain JSON (the model holds Hiera data so): a key that is not a string is
/// written as its text; a float JSON cannot hold (NaN, infinity) is null. Nesting is bounded by
/// the reader ([`MAX_NESTING`]).
pub fn to_json(node: &Node) -> serde_json::Value {
    use serde_json::Value as J;
    match &node.kind {
        NodeKind::Null => J::Null,
        NodeKind::Bool(b) => J::Bool(*b),
        NodeKind::Integer(i) => J::from(*i),
        NodeKind::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
        NodeKind::String(s) => J::String(s.clone()),
        NodeKind::Sequence(items) => J::Array(items.iter().map(to_json).collect()),
        NodeKind::Mapping(pairs) => J::Object(
            pairs
                .iter()
                .map(|(k, v)| {
                    let key = match &k.kind {
                        NodeKind::String(s) => s.clone(),
                        NodeKind::Integer(i) => i.to_string(),
                        NodeKind::Float(f) => f.to_string(),
                        NodeKind::Bool(b) => b.to_string(),
                        _ => String::new(),
                    };
                    (key, to_json(v))
                })
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(text: &str) -> Node {
        parse(FileId(0), text).expect("parses").expect("a document")
    }

    #[test]
    fn nodes_keep_their_place() {
        let text = "version: 3\nhierarchy:\n  - category: 'node'\n    path: \"${fqdn}\"\n";
        let d = doc(text);
        let version = d.get("version").expect("version");
        assert_eq!(version.kind, NodeKind::Integer(3));
        assert_eq!(
            &text[version.span.start as usize..version.span.end as usize],
            "3"
        );
        let NodeKind::Sequence(entries) = &d.get("hierarchy").expect("hierarchy").kind else {
            panic!("a sequence");
        };
        let path = entries[0].get("path").expect("path");
        assert_eq!(path.as_str(), Some("${fqdn}"));
        assert_eq!(
            &text[path.span.start as usize..path.span.end as usize],
            "\"${fqdn}\""
        );
        let category = entries[0].get("category").expect("category");
        assert_eq!(
            &text[category.span.start as usize..category.span.end as usize],
            "'node'"
        );
    }

    #[test]
    fn non_ascii_text_gets_byte_offsets() {
        let text = "é: 1\nb: ü\n";
        let d = doc(text);
        let b = d.get("b").expect("b");
        assert_eq!(&text[b.span.start as usize..b.span.end as usize], "ü");
    }

    #[test]
    fn errors_have_a_place_and_bounds_hold() {
        let e = parse(FileId(0), "a: [1, 2\nb: 3\n").expect_err("unclosed");
        assert!(e.span.start > 0, "{e:?}");
        let deep = format!("{}x{}", "[".repeat(200), "]".repeat(200));
        assert!(parse(FileId(0), &deep).is_err());
        assert!(parse(FileId(0), "a: &x 1\nb: *x\n").is_err());
        assert_eq!(parse(FileId(0), "# nothing\n---\n").expect("empty"), None);
    }
}
