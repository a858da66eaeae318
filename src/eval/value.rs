//! Runtime values of the evaluator and the injector: Puppet's data (undef, booleans, numbers,
//! strings, arrays, ordered hashes), regexes and types. Collections are shared (`Arc`), so a
//! constant binding's value is handed out without copying.
//!
//! Two equalities: [`PartialEq`] is exact (hash keys, `unique`), [`Value::puppet_eq`] is
//! Puppet's `==` (strings case-insensitively, numbers across Integer and Float).

use crate::types::PType;
use indexmap::IndexMap;
use smol_str::SmolStr;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

pub type Map = IndexMap<Value, Value>;

#[derive(Clone, Debug)]
pub enum Value {
    Undef,
    /// The `default` selector/case matcher.
    Default,
    Boolean(bool),
    Integer(i64),
    Float(f64),
    String(SmolStr),
    Regex(Arc<RegexValue>),
    Array(Arc<Vec<Value>>),
    Hash(Arc<Map>),
    Type(Arc<PType>),
    /// Puppet's `Sensitive`: a value that prints as `Sensitive [value redacted]` (what
    /// `convert_to: Sensitive` makes of Hiera data).
    Sensitive(Arc<Value>),
}

/// How a [`Value::Sensitive`] prints, in text and JSON alike (as Puppet prints one).
pub const REDACTED: &str = "Sensitive [value redacted]";

#[derive(Debug)]
pub struct RegexValue {
    /// As written between the slashes.
    pub source: SmolStr,
    pub regex: regex::Regex,
}

/// The most elements (array items, hash entries, scalars) a produced value may have, counting
/// a shared part once per place it appears: what printing or type-checking it walks.
pub const MAX_VALUE_ELEMENTS: usize = 10_000_000;
/// The deepest a produced value may nest.
pub const MAX_VALUE_NESTING: usize = 512;

impl Value {
    /// Whether the value, expanded as printing or a type check walks it, stays within
    /// [`MAX_VALUE_ELEMENTS`] and [`MAX_VALUE_NESTING`]. Walked with an explicit stack and
    /// stopped at the first limit, so a value of 2^40 shared elements is refused at once.
    pub fn within_bounds(&self) -> Result<(), String> {
        // Most values are scalars, or collections of scalars, well within both limits: they
        // are counted without a stack.
        let leaf = |v: &Value| !matches!(v, Value::Array(_) | Value::Hash(_));
        match self {
            Value::Array(items) if items.len() < MAX_VALUE_ELEMENTS && items.iter().all(leaf) => {
                return Ok(())
            }
            Value::Hash(map)
                if map.len() < MAX_VALUE_ELEMENTS / 2
                    && map.iter().all(|(k, v)| leaf(k) && leaf(v)) =>
            {
                return Ok(())
            }
            Value::Array(_) | Value::Hash(_) => {}
            _ => return Ok(()),
        }
        let mut stack: Vec<(&Value, usize)> = vec![(self, 1)];
        let mut elements = 0usize;
        while let Some((v, depth)) = stack.pop() {
            elements += 1;
            if elements > MAX_VALUE_ELEMENTS {
                return Err(format!(
                    "it has more than {MAX_VALUE_ELEMENTS} elements (counting each place a shared part appears)"
                ));
            }
            if depth > MAX_VALUE_NESTING {
                return Err(format!(
                    "it nests more than {MAX_VALUE_NESTING} levels deep"
                ));
            }
            match v {
                Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
                Value::Hash(map) => {
                    for (k, x) in map.iter() {
                        stack.push((k, depth + 1));
                        stack.push((x, depth + 1));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    pub fn string(s: impl Into<SmolStr>) -> Value {
        Value::String(s.into())
    }

    pub fn array(items: Vec<Value>) -> Value {
        Value::Array(Arc::new(items))
    }

    pub fn hash(map: Map) -> Value {
        Value::Hash(Arc::new(map))
    }

    /// The bytes this value's own string or collection holds, not counting what its elements
    /// hold: what building it costs against a lookup's value budget.
    pub fn own_bytes(&self) -> u64 {
        (match self {
            Value::String(s) => s.len(),
            Value::Array(items) => items.len() * std::mem::size_of::<Value>(),
            Value::Hash(map) => map.len() * 2 * std::mem::size_of::<Value>(),
            _ => 0,
        }) as u64
    }

    /// The bytes this value would take written out whole, nothing shared ([`Value::own_bytes`]
    /// of it and of everything in it), or `None` once that passes `limit`. Each element counts
    /// at least its slot, so the walk stops after `limit` divided by a slot's size elements,
    /// however much the value shares (`[$m, $m]` forty times over holds 2^40 leaves in a few
    /// kilobytes): what `flatten`, `join`, `sprintf` and interpolation would write out is known
    /// before it is written.
    pub fn expanded_bytes_within(&self, limit: u64) -> Option<u64> {
        let mut total = 0u64;
        let mut stack = vec![self];
        while let Some(v) = stack.pop() {
            total = total.saturating_add(v.own_bytes());
            if total > limit {
                return None;
            }
            match v {
                Value::Array(items) => stack.extend(items.iter()),
                Value::Hash(map) => {
                    for (k, v) in map.iter() {
                        stack.push(k);
                        stack.push(v);
                    }
                }
                Value::Sensitive(inner) => stack.push(inner),
                _ => {}
            }
        }
        Some(total)
    }

    /// Where an array's or hash's elements live: the same address after an operation means it
    /// extended the value in place.
    pub fn storage(&self) -> Option<*const ()> {
        match self {
            Value::Array(a) => Some(Arc::as_ptr(a) as *const ()),
            Value::Hash(h) => Some(Arc::as_ptr(h) as *const ()),
            _ => None,
        }
    }

    /// Puppet's truthiness: `undef` and `false` are false, everything else is true.
    pub fn is_truthy(&self) -> bool {
        !matches!(self, Value::Undef | Value::Boolean(false))
    }

    /// The Puppet type name used in messages (`Integer`, `Array`, ...).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Undef => "Undef",
            Value::Default => "Default",
            Value::Boolean(_) => "Boolean",
            Value::Integer(_) => "Integer",
            Value::Float(_) => "Float",
            Value::String(_) => "String",
            Value::Regex(_) => "Regexp",
            Value::Array(_) => "Array",
            Value::Hash(_) => "Hash",
            Value::Type(_) => "Type",
            Value::Sensitive(_) => "Sensitive",
        }
    }

    /// The most specific ARM-8 type of the value (for type checks and messages).
    pub fn infer_type(&self) -> PType {
        match self {
            Value::Undef => PType::Nil,
            Value::Default => PType::Any,
            Value::Boolean(_) => PType::Boolean,
            Value::Integer(_) => PType::Integer,
            Value::Float(_) => PType::Float,
            Value::String(_) => PType::String,
            Value::Regex(_) => PType::Pattern,
            Value::Array(items) => {
                let mut t = PType::Nil;
                for v in items.iter() {
                    t = crate::types::common(&t, &v.infer_type());
                }
                PType::Array(Box::new(t))
            }
            Value::Hash(map) => {
                let (mut k, mut v) = (PType::Nil, PType::Nil);
                for (key, value) in map.iter() {
                    k = crate::types::common(&k, &key.infer_type());
                    v = crate::types::common(&v, &value.infer_type());
                }
                PType::Hash(Box::new(k), Box::new(v))
            }
            Value::Type(t) => PType::Runtime(Some(SmolStr::new(t.to_string()))),
            // ARM-8 has no Sensitive type: only `Any` holds one.
            Value::Sensitive(_) => PType::Any,
        }
    }

    /// Whether the value is an instance of `t` (ARM-8's type system; classes, resources and
    /// runtime types only match type values naming them).
    pub fn is_instance(&self, t: &PType) -> bool {
        match (t, self) {
            (PType::Any, _) => true,
            (_, Value::Undef) => matches!(t, PType::Nil | PType::Data | PType::Literal),
            (PType::Data, v) => v.is_data(),
            (PType::Literal, v) => matches!(
                v,
                Value::Boolean(_)
                    | Value::Integer(_)
                    | Value::Float(_)
                    | Value::String(_)
                    | Value::Regex(_)
            ),
            (PType::String, Value::String(_)) => true,
            (PType::Integer, Value::Integer(_)) => true,
            (PType::Float, Value::Float(_)) => true,
            (PType::Number, Value::Integer(_) | Value::Float(_)) => true,
            (PType::Boolean, Value::Boolean(_)) => true,
            (PType::Pattern, Value::Regex(_)) => true,
            (PType::Array(e), Value::Array(items)) => items.iter().all(|v| v.is_instance(e)),
            (PType::Hash(k, v), Value::Hash(map)) => map
                .iter()
                .all(|(key, value)| key.is_instance(k) && value.is_instance(v)),
            (PType::Class(_) | PType::Resource { .. } | PType::Runtime(_), Value::Type(own)) => {
                t.assignable_from(own)
            }
            _ => false,
        }
    }

    /// Puppet's `Data`: undef, scalars, and arrays and string-keyed hashes of data. A
    /// `Sensitive` holding data counts too: Hiera's keys are bound as Data and `convert_to`
    /// makes Sensitive answers of them (ARM-8's types have no Sensitive).
    pub fn is_data(&self) -> bool {
        // Each collection is looked at once, however often the value shares it (`[$m, $m]`
        // forty times holds 2^40 leaves in forty arrays), and without recursion.
        let mut seen: foldhash::HashSet<*const ()> = foldhash::HashSet::default();
        let mut stack = vec![self];
        while let Some(v) = stack.pop() {
            match v {
                Value::Undef
                | Value::Boolean(_)
                | Value::Integer(_)
                | Value::Float(_)
                | Value::String(_) => {}
                Value::Array(items) => {
                    if seen.insert(Arc::as_ptr(items) as *const ()) {
                        stack.extend(items.iter());
                    }
                }
                Value::Hash(map) => {
                    if seen.insert(Arc::as_ptr(map) as *const ()) {
                        for (k, v) in map.iter() {
                            if !matches!(k, Value::String(_)) {
                                return false;
                            }
                            stack.push(v);
                        }
                    }
                }
                Value::Sensitive(inner) => stack.push(inner),
                Value::Default | Value::Regex(_) | Value::Type(_) => return false,
            }
        }
        true
    }

    /// Puppet's `==`.
    pub fn puppet_eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::String(a), Value::String(b)) => {
                a.len() == b.len() && a.to_lowercase() == b.to_lowercase()
            }
            (Value::Integer(a), Value::Float(b)) | (Value::Float(b), Value::Integer(a)) => {
                (*a as f64) == *b
            }
            (Value::Array(a), Value::Array(b)) => {
                Arc::ptr_eq(a, b)
                    || a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.puppet_eq(y))
            }
            // Keys match exactly (as hash lookups do), values by `==`.
            (Value::Hash(a), Value::Hash(b)) => {
                Arc::ptr_eq(a, b)
                    || a.len() == b.len()
                        && a.iter()
                            .all(|(k, v)| b.get(k).is_some_and(|w| v.puppet_eq(w)))
            }
            _ => self == other,
        }
    }

    /// Interpolation and `join`: strings as they are, undef as nothing, collections in
    /// Puppet's notation (strings inside quoted).
    pub fn to_display_string(&self) -> String {
        let mut out = String::new();
        self.write_display(&mut out);
        out
    }

    /// [`Value::to_display_string`], appended to `out` (an interpolation writes each value
    /// straight into its string).
    pub fn write_display(&self, out: &mut String) {
        match self {
            Value::String(s) => out.push_str(s),
            Value::Undef => {}
            other => {
                use std::fmt::Write;
                // Writing to a String cannot fail.
                let _ = write!(out, "{other}");
            }
        }
    }

    /// JSON for `pbc lookup` output (hash keys that are not strings are written as strings).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Undef => J::Null,
            Value::Default => J::String("default".into()),
            Value::Boolean(b) => J::Bool(*b),
            Value::Integer(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::String(s) => J::String(s.to_string()),
            Value::Regex(r) => J::String(format!("/{}/", r.source)),
            Value::Array(items) => J::Array(items.iter().map(Value::to_json).collect()),
            Value::Hash(map) => J::Object(
                map.iter()
                    .map(|(k, v)| (k.to_display_string(), v.to_json()))
                    .collect(),
            ),
            Value::Type(t) => J::String(t.to_string()),
            Value::Sensitive(_) => J::String(REDACTED.into()),
        }
    }

    /// Puppet's "rich data" JSON, as its `ToDataConverter` writes it and `FromDataConverter`
    /// reads it back into the same Puppet value: JSON where JSON says it (a Float stays a Float,
    /// `1.0`), and `{"__ptype": ..., "__pvalue": ...}` where it cannot: `Sensitive` (the value
    /// inside, for the server that asked), `default`, a Regexp, a Type, a Hash whose keys are
    /// not all strings (its keys and values in turn).
    pub fn to_rich_data(&self) -> serde_json::Value {
        use serde_json::Value as J;
        let typed = |ptype: &str, value: Option<J>| {
            let mut map = serde_json::Map::new();
            map.insert("__ptype".into(), J::String(ptype.into()));
            if let Some(v) = value {
                map.insert("__pvalue".into(), v);
            }
            J::Object(map)
        };
        match self {
            Value::Default => typed("Default", None),
            Value::Regex(r) => typed("Regexp", Some(J::String(r.source.to_string()))),
            Value::Type(t) => typed("Type", Some(J::String(t.to_string()))),
            Value::Sensitive(inner) => typed("Sensitive", Some(inner.to_rich_data())),
            Value::Array(items) => J::Array(items.iter().map(Value::to_rich_data).collect()),
            Value::Hash(map) => {
                let plain = map
                    .iter()
                    .all(|(k, _)| matches!(k, Value::String(s) if s != "__ptype"));
                if plain {
                    J::Object(
                        map.iter()
                            .map(|(k, v)| (k.to_display_string(), v.to_rich_data()))
                            .collect(),
                    )
                } else {
                    let pairs = map
                        .iter()
                        .flat_map(|(k, v)| [k.to_rich_data(), v.to_rich_data()])
                        .collect();
                    typed("Hash", Some(J::Array(pairs)))
                }
            }
            scalar => scalar.to_json(),
        }
    }

    /// A value from JSON (facts files).
    pub fn from_json(j: &serde_json::Value) -> Value {
        use serde_json::Value as J;
        match j {
            J::Null => Value::Undef,
            J::Bool(b) => Value::Boolean(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => Value::Integer(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            J::String(s) => Value::string(s.as_str()),
            J::Array(items) => Value::array(items.iter().map(Value::from_json).collect()),
            J::Object(map) => Value::hash(
                map.iter()
                    .map(|(k, v)| (Value::string(k.as_str()), Value::from_json(v)))
                    .collect(),
            ),
        }
    }
}

/// Exact equality (hash keys, `unique`): floats by their bits, regexes by source.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Undef, Value::Undef) | (Value::Default, Value::Default) => true,
            (Value::Boolean(a), Value::Boolean(b)) => a == b,
            (Value::Integer(a), Value::Integer(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Regex(a), Value::Regex(b)) => a.source == b.source,
            // A part shared by both sides is equal without a look inside: a value that shares
            // its parts (`[$m, $m]` forty times) is compared in its depth, not its 2^40 leaves.
            (Value::Array(a), Value::Array(b)) => Arc::ptr_eq(a, b) || a == b,
            (Value::Hash(a), Value::Hash(b)) => {
                Arc::ptr_eq(a, b)
                    || a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x == y)
            }
            (Value::Type(a), Value::Type(b)) => a == b,
            (Value::Sensitive(a), Value::Sensitive(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

/// How many of a value's nodes its hash takes in: equal values hash their first nodes alike,
/// and a value that shares its parts (2^40 leaves in forty arrays) hashes in bounded time.
const HASHED_NODES: usize = 256;

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self {
            Value::String(s) => {
                std::mem::discriminant(self).hash(state);
                return s.hash(state);
            }
            Value::Integer(i) => {
                std::mem::discriminant(self).hash(state);
                return i.hash(state);
            }
            _ => {}
        }
        // The first nodes in a fixed order (depth first), each with its size: equal values
        // (as `PartialEq` says) visit the same nodes, so they hash alike.
        let mut stack = vec![self];
        let mut nodes = 0;
        while let Some(v) = stack.pop() {
            nodes += 1;
            if nodes > HASHED_NODES {
                break;
            }
            std::mem::discriminant(v).hash(state);
            match v {
                Value::Undef | Value::Default => {}
                Value::Boolean(b) => b.hash(state),
                Value::Integer(i) => i.hash(state),
                Value::Float(f) => f.to_bits().hash(state),
                Value::String(s) => s.hash(state),
                Value::Regex(r) => r.source.hash(state),
                Value::Array(items) => {
                    items.len().hash(state);
                    stack.extend(items.iter().take(HASHED_NODES).rev());
                }
                Value::Hash(map) => {
                    map.len().hash(state);
                    let first: Vec<(&Value, &Value)> = map.iter().take(HASHED_NODES).collect();
                    for (k, v) in first.into_iter().rev() {
                        stack.push(v);
                        stack.push(k);
                    }
                }
                Value::Type(t) => t.to_string().hash(state),
                Value::Sensitive(v) => stack.push(v),
            }
        }
    }
}

/// Puppet's notation: `'a'` inside collections, `[1, 'a']`, `{'k' => 'v'}`, `/re/`.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Undef => f.write_str("undef"),
            Value::Default => f.write_str("default"),
            Value::Boolean(b) => write!(f, "{b}"),
            Value::Integer(i) => write!(f, "{i}"),
            Value::Float(x) => {
                let mut s = String::new();
                crate::pn::write_ruby_float(&mut s, *x);
                f.write_str(&s)
            }
            Value::String(s) => f.write_str(&puppet_quote(s)),
            Value::Regex(r) => write!(f, "/{}/", r.source),
            Value::Array(items) => {
                f.write_str("[")?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str("]")
            }
            Value::Hash(map) => {
                f.write_str("{")?;
                for (i, (k, v)) in map.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k} => {v}")?;
                }
                f.write_str("}")
            }
            Value::Type(t) => write!(f, "{t}"),
            Value::Sensitive(_) => f.write_str(REDACTED),
        }
    }
}

/// A string as Puppet's string converter quotes it inside a collection: single quotes (a
/// quote escaped, a backslash kept with the character it escapes), or double quotes with
/// escapes when the string holds a control character.
pub fn puppet_quote(s: &str) -> String {
    if s.chars().any(|c| (c as u32) < 0x20) {
        let mut out = String::from('"');
        for c in s.chars() {
            match c {
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '"' => out.push_str("\\\""),
                '$' => out.push_str("\\$"),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        return out;
    }
    let mut out = String::from('\'');
    let mut escaped = false;
    for c in s.chars() {
        if escaped {
            out.push('\\');
            out.push(c);
            escaped = false;
        } else if c == '\'' {
            out.push_str("\\'");
        } else if c == '\\' {
            escaped = true;
        } else {
            out.push(c);
        }
    }
    if escaped {
        out.push('\\');
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Strings inside collections are quoted as Puppet's string converter quotes them (checked
    /// against Puppet's `String.new`): a backslash is kept with what it escapes, a quote is
    /// escaped, a control character makes the string double-quoted.
    #[test]
    fn strings_are_quoted_as_puppet_quotes_them() {
        for (text, quoted) in [
            ("plain", "'plain'"),
            ("it's", r"'it\'s'"),
            (r"back\slash", r"'back\slash'"),
            (r"ends\", r"'ends\'"),
            ("a\"b", "'a\"b'"),
            ("tab\there $x", r#""tab\there \$x""#),
            ("nl\nx", r#""nl\nx""#),
            ("bell\u{7}", r#""bell\u{7}""#),
        ] {
            assert_eq!(puppet_quote(text), quoted, "{text:?}");
        }
    }
}
