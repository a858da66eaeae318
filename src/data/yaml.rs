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
                let span = span_at(mark.index(), len);
                let kind = scalar(value, style, tag.as_ref())
                    .map_err(|message| SyntaxError { span, message })?;
                Node { kind, span }
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

/// A scalar as Puppet reads it: quoted ones are strings, plain ones as [`plain_scalar`];
/// `!!str`, `!!int` ... tags are obeyed. Facts and ENC output are read with it too.
pub(crate) fn scalar(
    text: String,
    style: yaml_rust2::scanner::TScalarStyle,
    tag: Option<&yaml_rust2::parser::Tag>,
) -> Result<NodeKind, String> {
    use yaml_rust2::Yaml;
    let tagged = match (tag, style) {
        (_, s) if s != yaml_rust2::scanner::TScalarStyle::Plain => {
            return Ok(NodeKind::String(text))
        }
        (Some(t), _) if t.handle == "tag:yaml.org,2002:" => match t.suffix.as_str() {
            "int" | "float" | "bool" | "null" => Yaml::from_str(&text),
            _ => return Ok(NodeKind::String(text)),
        },
        (Some(_), _) => return Ok(NodeKind::String(text)),
        (None, _) => {
            return Ok(match plain_scalar(&text)? {
                Plain::Null => NodeKind::Null,
                Plain::Bool(b) => NodeKind::Bool(b),
                Plain::Integer(i) => NodeKind::Integer(i),
                Plain::Float(f) => NodeKind::Float(f),
                Plain::String => NodeKind::String(text),
            })
        }
    };
    Ok(match tagged {
        Yaml::Null => NodeKind::Null,
        Yaml::Boolean(b) => NodeKind::Bool(b),
        Yaml::Integer(i) => NodeKind::Integer(i),
        Yaml::Real(r) => match r.parse::<f64>() {
            Ok(f) if f.is_finite() => NodeKind::Float(f),
            _ => NodeKind::String(r),
        },
        Yaml::String(s) => NodeKind::String(s),
        _ => NodeKind::Null,
    })
}

/// What a plain (unquoted, untagged) scalar is.
#[derive(Clone, Debug, PartialEq)]
pub enum Plain {
    Null,
    Bool(bool),
    Integer(i64),
    Float(f64),
    /// The text itself.
    String,
}

/// A plain scalar as Puppet reads it: Ruby's YAML (Psych), which is YAML 1.1's schema and not
/// 1.2's. `yes`/`no`/`on`/`off` are Booleans, `010` is octal, `1,000` and `1_000` are
/// integers, `12:30` is sexagesimal (45000), a float needs its dot (`1e3` is a string,
/// `1.0e+3` is not). A date or a time is an error, since Puppet refuses to load them. A
/// symbol (`:backends`), numbers beyond 64 bits and infinities, which pbc's values cannot
/// hold, are their text.
pub fn plain_scalar(text: &str) -> Result<Plain, String> {
    if text.is_empty() {
        return Ok(Plain::Null);
    }
    if word_like(text) || text.contains('\n') {
        if text.chars().count() > 5
            || !text.starts_with(['y', 'Y', 't', 'T', 'o', 'O', 'n', 'N', 'f', 'F', '~'])
        {
            return Ok(Plain::String);
        }
        let lower = text.to_ascii_lowercase();
        return Ok(match lower.as_str() {
            "~" | "null" => Plain::Null,
            "yes" | "true" | "on" => Plain::Bool(true),
            "no" | "false" | "off" => Plain::Bool(false),
            _ => Plain::String,
        });
    }
    if is_time(text) {
        return Err(format!(
            "`{text}` is a time to YAML, which Puppet does not load (quote it to make it a string)"
        ));
    }
    if is_date(text) {
        return Err(format!(
            "`{text}` is a date to YAML, which Puppet does not load (quote it to make it a string)"
        ));
    }
    // `:name` is a Ruby symbol, which Hiera 3's configuration uses for its keys: its text.
    if text.len() > 1 && text.starts_with(':') {
        return Ok(Plain::String);
    }
    if let Some(v) = sexagesimal(text) {
        return Ok(v);
    }
    if yaml_float(text) {
        if matches!(text, "." | "+." | "-.") {
            return Ok(Plain::String);
        }
        let cleaned: String = text.chars().filter(|c| !matches!(c, ',' | '_')).collect();
        // Ruby's `Float` wants no dot right before the exponent or at the end.
        let cleaned = cleaned.replace(".e", "e").replace(".E", "E");
        let cleaned = cleaned.strip_suffix('.').unwrap_or(&cleaned);
        return Ok(match cleaned.parse::<f64>() {
            Ok(f) if f.is_finite() => Plain::Float(f),
            _ => Plain::String,
        });
    }
    if let Some(i) = yaml_integer(text) {
        return Ok(i.map_or(Plain::String, Plain::Integer));
    }
    Ok(Plain::String)
}

/// Psych's test for a word: `^[^\d.:-]?[[:alpha:]_\s!@#$%^&*(){}<>|/\\~;=]+` (a prefix).
fn word_like(text: &str) -> bool {
    let word =
        |c: char| c.is_alphabetic() || is_ruby_space(c) || "_!@#$%^&*(){}<>|/\\~;=".contains(c);
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    if word(first) {
        return true;
    }
    !(first.is_ascii_digit() || matches!(first, '.' | ':' | '-')) && chars.next().is_some_and(word)
}

fn digits(s: &str) -> usize {
    s.bytes().take_while(u8::is_ascii_digit).count()
}

/// `^\d{4}-(?:1[012]|0\d|\d)-(?:[12]\d|3[01]|0\d|\d)$`.
fn is_date(text: &str) -> bool {
    let parts: Vec<&str> = text.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return false;
    };
    let number = |s: &str| !s.is_empty() && digits(s) == s.len();
    y.len() == 4
        && number(y)
        && number(m)
        && number(d)
        && (m.len() == 1
            || (m.len() == 2 && (m.starts_with('0') || matches!(*m, "10" | "11" | "12"))))
        && (d.len() == 1
            || (d.len() == 2 && (d.starts_with(['0', '1', '2']) || matches!(*d, "30" | "31"))))
}

/// Psych's time: `^-?\d{4}-\d{1,2}-\d{1,2}(?:[Tt]|\s+)\d{1,2}:\d\d:\d\d(?:\.\d*)?`
/// `(?:\s*(?:Z|[-+]\d{1,2}:?(?:\d\d)?))?$`.
fn is_time(text: &str) -> bool {
    fn number(s: &str, min: usize, max: usize) -> Option<&str> {
        let n = digits(s);
        (min..=max).contains(&n).then(|| &s[n..])
    }
    let t = text.strip_prefix('-').unwrap_or(text);
    let parse = || -> Option<&str> {
        let rest = number(t, 4, 4)?.strip_prefix('-')?;
        let rest = number(rest, 1, 2)?.strip_prefix('-')?;
        let rest = number(rest, 1, 2)?;
        let rest = match rest.strip_prefix(['T', 't']) {
            Some(r) => r,
            None => {
                let trimmed = rest.trim_start_matches(is_ruby_space);
                (trimmed.len() < rest.len()).then_some(trimmed)?
            }
        };
        let rest = number(rest, 1, 2)?.strip_prefix(':')?;
        let rest = number(rest, 2, 2)?.strip_prefix(':')?;
        let mut rest = number(rest, 2, 2)?;
        if let Some(fraction) = rest.strip_prefix('.') {
            rest = &fraction[digits(fraction)..];
        }
        let zone = rest.trim_start_matches(is_ruby_space);
        if zone.is_empty() {
            return Some(zone);
        }
        if let Some(r) = zone.strip_prefix('Z') {
            return Some(r);
        }
        let r = number(zone.strip_prefix(['-', '+'])?, 1, 2)?;
        let r = r.strip_prefix(':').unwrap_or(r);
        Some(number(r, 2, 2).unwrap_or(r))
    };
    parse().is_some_and(str::is_empty)
}

/// Ruby's `\s`.
fn is_ruby_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// `^[-+]?[0-9][0-9_]*(:[0-5]?[0-9]){1,2}$` (an integer) or the same with a `.` fraction
/// after the last part (a float), as Psych reckons it: each part times 60 to the power of its
/// distance from the third.
fn sexagesimal(text: &str) -> Option<Plain> {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    let parts: Vec<&str> = body.split(':').collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let first = parts[0];
    if !first.starts_with(|c: char| c.is_ascii_digit())
        || !first.chars().all(|c| c.is_ascii_digit() || c == '_')
    {
        return None;
    }
    let last = parts.len() - 1;
    let (last_whole, fraction) = match parts[last].split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (parts[last], None),
    };
    let sixty = |p: &str| {
        (1..=2).contains(&p.len())
            && p.chars().all(|c| c.is_ascii_digit())
            && (p.len() == 1 || p.as_bytes()[0] <= b'5')
    };
    if !parts[1..last].iter().all(|p| sixty(p)) || !sixty(last_whole) {
        return None;
    }
    if fraction.is_some_and(|f| !f.chars().all(|c| c.is_ascii_digit() || c == '_')) {
        return None;
    }
    // Ruby's `to_i`/`to_f` of each part (the sign stays on the first).
    let signed_first = &text[..text.len() - body.len() + first.len()];
    let whole = |p: &str| -> i64 {
        let negative = p.starts_with('-');
        let n: i64 = p
            .trim_start_matches(['-', '+'])
            .chars()
            .filter(|c| *c != '_')
            .collect::<String>()
            .parse()
            .unwrap_or(0);
        if negative {
            -n
        } else {
            n
        }
    };
    let power = |e: usize| 60i64.pow(e.abs_diff(2) as u32);
    let mut parts_text: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
    parts_text[0] = signed_first.to_string();
    match fraction {
        None => {
            let mut total: i64 = 0;
            for (e, p) in parts_text.iter().enumerate() {
                total = total.checked_add(whole(p).checked_mul(power(e))?)?;
            }
            Some(Plain::Integer(total))
        }
        Some(_) => {
            let mut total = 0.0;
            for (e, p) in parts_text.iter().enumerate() {
                let value: f64 = if e == last {
                    p.chars()
                        .filter(|c| *c != '_')
                        .collect::<String>()
                        .parse()
                        .ok()?
                } else {
                    whole(p) as f64
                };
                total += value * power(e) as f64;
            }
            Some(Plain::Float(total))
        }
    }
}

/// Psych's float: `^[-+]?([0-9][0-9_,]*)?\.[0-9]*([eE][-+][0-9]+)?$`.
fn yaml_float(text: &str) -> bool {
    let body = text.strip_prefix(['-', '+']).unwrap_or(text);
    let Some((int, rest)) = body.split_once('.') else {
        return false;
    };
    if !int.is_empty()
        && (!int.starts_with(|c: char| c.is_ascii_digit())
            || !int
                .chars()
                .all(|c| c.is_ascii_digit() || c == '_' || c == ','))
    {
        return false;
    }
    let fraction = digits(rest);
    let exponent = &rest[fraction..];
    if exponent.is_empty() {
        return true;
    }
    let Some(e) = exponent.strip_prefix(['e', 'E']) else {
        return false;
    };
    let Some(e) = e.strip_prefix(['-', '+']) else {
        return false;
    };
    !e.is_empty() && digits(e) == e.len()
}

/// Psych's integers (its legacy forms, with `,` allowed): binary `0b`, octal with a leading
/// `0`, decimal, hexadecimal `0x`. `Some(None)`: one too large for 64 bits.
fn yaml_integer(text: &str) -> Option<Option<i64>> {
    let (negative, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let sep = |c: char| c == '_' || c == ',';
    let (digits_text, radix) = if let Some(b) = body.strip_prefix("0b") {
        (b, 2)
    } else if let Some(h) = body.strip_prefix("0x") {
        (h, 16)
    } else if body.len() > 1 && body.starts_with('0') {
        (&body[1..], 8)
    } else if body == "0" {
        (body, 10)
    } else {
        // `[1-9](?:[0-9]|,[0-9]|_[0-9])*`: a separator is followed by a digit.
        let bytes = body.as_bytes();
        let ok = bytes.first().is_some_and(|b| (b'1'..=b'9').contains(b))
            && bytes.iter().enumerate().all(|(i, b)| {
                b.is_ascii_digit()
                    || ((*b == b'_' || *b == b',')
                        && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
            });
        if !ok {
            return None;
        }
        (body, 10)
    };
    if digits_text.is_empty() || !digits_text.chars().all(|c| c.is_digit(radix) || sep(c)) {
        return None;
    }
    let clean: String = digits_text.chars().filter(|c| !sep(*c)).collect();
    if clean.is_empty() {
        // `0_` is octal zero; `0b_`, which Ruby's `Integer` refuses, is a string here.
        return Some((radix == 8).then_some(0));
    }
    let magnitude = i128::from_str_radix(&clean, radix).ok();
    Some(magnitude.and_then(|m| i64::try_from(if negative { -m } else { m }).ok()))
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

#[cfg(test)]
mod psych_tests {
    use super::*;

    /// Each reading was checked against Ruby's YAML as Puppet 7 loads data.
    #[test]
    fn plain_scalars_read_as_puppet_reads_them() {
        use Plain::*;
        for (text, want) in [
            ("", Null),
            ("~", Null),
            ("null", Null),
            ("NULL", Null),
            ("yes", Bool(true)),
            ("On", Bool(true)),
            ("off", Bool(false)),
            ("y", String),
            ("true", Bool(true)),
            ("hello world", String),
            ("010", Integer(8)),
            ("08", String),
            ("1,000", Integer(1000)),
            ("1_000", Integer(1000)),
            ("0x1F", Integer(31)),
            ("-0b101", Integer(-5)),
            ("12:30", Integer(45000)),
            ("1:30.5", Float(5430.0)),
            ("1e3", String),
            ("1e-2", String),
            ("0.0e1", String),
            ("1.", Float(1.0)),
            ("1.0e+3", Float(1000.0)),
            (".5", Float(0.5)),
            ("-.", String),
            ("1.2.3", String),
            ("-1", Integer(-1)),
            ("123456789012345678901234", String),
            ("web01", String),
            ("10.0.0.1", String),
            ("1:60", String),
            ("1:5:07", Integer(3907)),
            ("-1:30", Integer(-1800)),
            ("0_", Integer(0)),
            ("+0x1f", Integer(31)),
            ("1,,0", String),
            ("1_", String),
            ("0o17", String),
            ("1.5e3", String),
            ("1.5E+3", Float(1500.0)),
            ("_a", String),
            ("-a", String),
            ("a:b", String),
        ] {
            assert_eq!(plain_scalar(text), Ok(want), "{text:?}");
        }
        assert_eq!(plain_scalar(":backends"), Ok(String));
        for refused in [
            "2026-01-01",
            "2001-12-14 21:59:43.10 -05:00",
            "2001-12-14t21:59:43Z",
        ] {
            assert!(plain_scalar(refused).is_err(), "{refused:?}");
        }
        assert_eq!(plain_scalar("2026-13-01"), Ok(String));
    }
}
