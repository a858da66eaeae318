//! Puppet's `new` for the types Hiera's `convert_to` lookup option names: reading the type as
//! Puppet's type parser does, converting a found value as Puppet 7's `new` does for that type
//! (`Integer`'s radixes and leading-zero octal, `Float` and `Numeric` from strings, `Boolean`
//! from `yes`/`no`, `String` through Puppet's string converter, `Array` with or without
//! `wrap`, `Hash` from pairs, `Sensitive`, `Optional[T]`), then checking the result against the
//! whole type (`Integer[0, 5]`, `Array[String]`) as `new` does.
//!
//! It owns no diagnostics: a type pbc does not model is [`ConvertError::NotSupported`], a
//! conversion Puppet refuses is [`ConvertError::Failed`] with Puppet's reason, and the caller
//! (the Hiera engine) gives either its code and place. Only data (what Hiera files hold) and
//! `Sensitive` values reach it.

use super::value::{Map, Value, MAX_VALUE_ELEMENTS};
use crate::ast::{Expr, ExprKind};
use smol_str::SmolStr;
use std::sync::Arc;

/// Why a conversion gives no value.
#[derive(Clone, Debug, PartialEq)]
pub enum ConvertError {
    /// The type text is not a type at all (Puppet: "Invalid data type in lookup_options").
    NotAType(String),
    /// A type or argument pbc does not model (Puppet would try it): the type as written and
    /// what is missing.
    NotSupported(String),
    /// Puppet's `new` fails for this value.
    Failed(String),
    /// Puppet's `new` gives an infinity (`"1e400"`), which pbc's values do not hold (they are
    /// JSON's): what was given and what it would be.
    NotFinite(String),
}

/// A size or integer range, `from..=to` (`to` `None`: unbounded).
#[derive(Clone, Debug, PartialEq)]
pub struct IntRange {
    pub from: i64,
    pub to: Option<i64>,
}

impl IntRange {
    const ANY: IntRange = IntRange { from: 0, to: None };

    fn holds(&self, n: i64) -> bool {
        n >= self.from && self.to.is_none_or(|to| n <= to)
    }
}

/// A type `convert_to` can name, as Puppet's type system reads it: the part of that system
/// data from Hiera can meet.
#[derive(Clone, Debug, PartialEq)]
pub enum NewType {
    Any,
    Data,
    Scalar,
    ScalarData,
    Undef,
    Boolean,
    /// `String[min, max]`: the number of characters.
    String(IntRange),
    Integer(IntRange),
    Float(f64, f64),
    Numeric(f64, f64),
    Enum(Vec<SmolStr>),
    Array(Box<NewType>, IntRange),
    Hash(Box<NewType>, Box<NewType>, IntRange),
    Optional(Option<Box<NewType>>),
    NotUndef(Option<Box<NewType>>),
    Variant(Vec<NewType>),
    Sensitive(Box<NewType>),
}

/// `convert_to` of one key: the type and the arguments after the value.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvertTo {
    pub target: NewType,
    /// The type as written in the option.
    pub written: String,
    pub args: Vec<Value>,
}

impl ConvertTo {
    /// Reads the option's value: a type name (`Sensitive`, `'Integer[0, 5]'`) or an array of
    /// the type name and `new`'s further arguments (`[Array, true]`).
    pub fn from_option(option: &Value) -> Result<ConvertTo, ConvertError> {
        let (first, args) = match option {
            Value::Array(items) => match items.split_first() {
                Some((first, rest)) => (first, rest.to_vec()),
                None => {
                    return Err(ConvertError::NotAType(
                        "`convert_to` is an empty array; it names a type, or a type and the arguments of its `new`".into(),
                    ))
                }
            },
            other => (other, Vec::new()),
        };
        let Value::String(text) = first else {
            return Err(ConvertError::NotAType(format!(
                "`convert_to` names a type as a string, not the {} {first}",
                first.type_name()
            )));
        };
        Ok(ConvertTo {
            target: parse_type(text)?,
            written: text.to_string(),
            args,
        })
    }

    /// Puppet's `new(T, value, args...)`: the value itself when it already is a `T` and no
    /// argument is given, otherwise the type's conversion, whose result must be a `T`.
    pub fn apply(&self, value: Value) -> Result<Value, ConvertError> {
        if self.args.is_empty() && self.target.holds(&value) {
            return Ok(value);
        }
        let result = self.target.new_instance(value, &self.args, &self.written)?;
        if self.target.holds(&result) {
            Ok(result)
        } else {
            let article = if self.written.starts_with(['A', 'E', 'I', 'O', 'U']) {
                "an"
            } else {
                "a"
            };
            Err(ConvertError::Failed(format!(
                "Converted value from {}.new() has wrong type, expects {article} {} value, got {}",
                self.written,
                self.written,
                describe(&result)
            )))
        }
    }
}

/// Whether a Sensitive is anywhere in the value (walked with an explicit stack).
fn holds_sensitive(v: &Value) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Value::Sensitive(_) => return true,
            Value::Array(items) => stack.extend(items.iter()),
            Value::Hash(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    false
}

/// A value's type in a message (`Integer`, `Sensitive[Integer]`).
fn describe(v: &Value) -> String {
    match v {
        Value::Sensitive(inner) => format!("Sensitive[{}]", describe(inner)),
        other => other.type_name().to_string(),
    }
}

/// Reads a type written as Puppet source (`Integer[0, 5]`, `Optional[Array[String]]`).
pub fn parse_type(text: &str) -> Result<NewType, ConvertError> {
    let not_a_type = || ConvertError::NotAType(format!("`{text}` is not a type"));
    let program = crate::parser::parse_file(crate::span::FileId(0), text)
        .program
        .ok_or_else(not_a_type)?;
    let [e] = program.body.as_slice() else {
        return Err(not_a_type());
    };
    type_of(e, text)
}

fn type_of(e: &Expr, text: &str) -> Result<NewType, ConvertError> {
    match &e.kind {
        ExprKind::QualifiedReference { name } => named(name, &[], text),
        ExprKind::Access { target, keys } => match &target.kind {
            ExprKind::QualifiedReference { name } => named(name, keys, text),
            _ => Err(ConvertError::NotAType(format!("`{text}` is not a type"))),
        },
        _ => Err(ConvertError::NotAType(format!("`{text}` is not a type"))),
    }
}

/// The built-in type names `convert_to` can meet, for "did you mean".
const KNOWN: &[&str] = &[
    "Any",
    "Data",
    "Scalar",
    "ScalarData",
    "Undef",
    "Boolean",
    "String",
    "Integer",
    "Float",
    "Numeric",
    "Enum",
    "Array",
    "Hash",
    "Optional",
    "NotUndef",
    "Variant",
    "Sensitive",
];

fn named(name: &str, params: &[Expr], text: &str) -> Result<NewType, ConvertError> {
    let bad = |why: &str| ConvertError::NotAType(format!("`{text}`: {name} {why}"));
    let no_params = |t: NewType| {
        if params.is_empty() {
            Ok(t)
        } else {
            Err(bad("takes no parameters"))
        }
    };
    let types = |params: &[Expr]| -> Result<Vec<NewType>, ConvertError> {
        params.iter().map(|p| type_of(p, text)).collect()
    };
    match name {
        "Any" => no_params(NewType::Any),
        "Data" => no_params(NewType::Data),
        "Scalar" => no_params(NewType::Scalar),
        "ScalarData" => no_params(NewType::ScalarData),
        "Undef" => no_params(NewType::Undef),
        "Boolean" => no_params(NewType::Boolean),
        "String" => Ok(NewType::String(int_range(params, 0, text, name)?)),
        "Integer" => Ok(NewType::Integer(int_range(params, i64::MIN, text, name)?)),
        "Float" | "Numeric" => {
            let (from, to) = float_range(params, text, name)?;
            Ok(if name == "Float" {
                NewType::Float(from, to)
            } else {
                NewType::Numeric(from, to)
            })
        }
        "Enum" => params
            .iter()
            .map(|p| match &p.kind {
                ExprKind::String { value } | ExprKind::QualifiedName { name: value } => {
                    Ok(value.clone())
                }
                _ => Err(bad("takes strings")),
            })
            .collect::<Result<_, _>>()
            .map(NewType::Enum),
        "Array" => {
            let (elem, size) = match params.split_first() {
                None => (NewType::Any, IntRange::ANY),
                Some((t, rest)) => (type_of(t, text)?, int_range(rest, 0, text, name)?),
            };
            Ok(NewType::Array(Box::new(elem), size))
        }
        "Hash" => match params {
            [] => Ok(NewType::Hash(
                Box::new(NewType::Any),
                Box::new(NewType::Any),
                IntRange::ANY,
            )),
            [k, v, size @ ..] => Ok(NewType::Hash(
                Box::new(type_of(k, text)?),
                Box::new(type_of(v, text)?),
                int_range(size, 0, text, name)?,
            )),
            [_] => Err(bad("takes a key and a value type")),
        },
        "Optional" | "NotUndef" => {
            let inner = match params {
                [] => None,
                [t] => Some(Box::new(type_of(t, text)?)),
                _ => return Err(bad("takes one type")),
            };
            Ok(if name == "Optional" {
                NewType::Optional(inner)
            } else {
                NewType::NotUndef(inner)
            })
        }
        "Variant" => Ok(NewType::Variant(types(params)?)),
        "Sensitive" => match params {
            [] => Ok(NewType::Sensitive(Box::new(NewType::Any))),
            [t] => Ok(NewType::Sensitive(Box::new(type_of(t, text)?))),
            _ => Err(bad("takes one type")),
        },
        other => {
            let hint = crate::diag::did_you_mean(other, KNOWN)
                .map(|s| format!(" (did you mean `{s}`?)"))
                .unwrap_or_default();
            Err(ConvertError::NotSupported(format!(
                "`{text}`: pbc converts to the built-in data types and Sensitive, not `{other}`{hint}"
            )))
        }
    }
}

/// `[from, to]` parameters of a sized or ranged type; `default` for an open end.
fn int_range(params: &[Expr], min: i64, text: &str, name: &str) -> Result<IntRange, ConvertError> {
    let bound = |e: &Expr| -> Result<Option<i64>, ConvertError> {
        match super::literal_value(e) {
            Some(Value::Integer(i)) => Ok(Some(i)),
            _ if matches!(e.kind, ExprKind::Default) => Ok(None),
            _ => Err(ConvertError::NotAType(format!(
                "`{text}`: the bounds of {name} are integers or `default`"
            ))),
        }
    };
    let (from, to) = match params {
        [] => (None, None),
        [from] => (bound(from)?, None),
        [from, to] => (bound(from)?, bound(to)?),
        _ => {
            return Err(ConvertError::NotAType(format!(
                "`{text}`: {name} takes at most two bounds"
            )))
        }
    };
    let range = IntRange {
        from: from.unwrap_or(min),
        to,
    };
    if range.to.is_some_and(|to| to < range.from) {
        return Err(ConvertError::NotAType(format!(
            "`{text}`: the lower bound of {name} is above the upper"
        )));
    }
    Ok(range)
}

fn float_range(params: &[Expr], text: &str, name: &str) -> Result<(f64, f64), ConvertError> {
    let bound = |e: &Expr, open: f64| -> Result<f64, ConvertError> {
        match super::literal_value(e) {
            Some(Value::Integer(i)) => Ok(i as f64),
            Some(Value::Float(f)) => Ok(f),
            _ if matches!(e.kind, ExprKind::Default) => Ok(open),
            _ => Err(ConvertError::NotAType(format!(
                "`{text}`: the bounds of {name} are numbers or `default`"
            ))),
        }
    };
    let (from, to) = match params {
        [] => (f64::NEG_INFINITY, f64::INFINITY),
        [from] => (bound(from, f64::NEG_INFINITY)?, f64::INFINITY),
        [from, to] => (bound(from, f64::NEG_INFINITY)?, bound(to, f64::INFINITY)?),
        _ => {
            return Err(ConvertError::NotAType(format!(
                "`{text}`: {name} takes at most two bounds"
            )))
        }
    };
    if to < from {
        return Err(ConvertError::NotAType(format!(
            "`{text}`: the lower bound of {name} is above the upper"
        )));
    }
    Ok((from, to))
}

impl NewType {
    /// Puppet's `instance?`.
    pub fn holds(&self, v: &Value) -> bool {
        match self {
            NewType::Any => true,
            // Puppet's Data holds no Sensitive (pbc's `is_data` lets one stand for its value).
            NewType::Data => v.is_data() && !holds_sensitive(v),
            NewType::Scalar => matches!(
                v,
                Value::Boolean(_)
                    | Value::Integer(_)
                    | Value::Float(_)
                    | Value::String(_)
                    | Value::Regex(_)
            ),
            NewType::ScalarData => matches!(
                v,
                Value::Boolean(_) | Value::Integer(_) | Value::Float(_) | Value::String(_)
            ),
            NewType::Undef => matches!(v, Value::Undef),
            NewType::Boolean => matches!(v, Value::Boolean(_)),
            NewType::String(size) => match v {
                Value::String(s) => size.holds(s.chars().count() as i64),
                _ => false,
            },
            NewType::Integer(range) => matches!(v, Value::Integer(i) if range.holds(*i)),
            NewType::Float(from, to) => matches!(v, Value::Float(f) if f >= from && f <= to),
            NewType::Numeric(from, to) => match v {
                Value::Integer(i) => (*i as f64) >= *from && (*i as f64) <= *to,
                Value::Float(f) => f >= from && f <= to,
                _ => false,
            },
            NewType::Enum(values) => match v {
                Value::String(s) => values.is_empty() || values.contains(s),
                _ => false,
            },
            NewType::Array(elem, size) => match v {
                Value::Array(items) => {
                    size.holds(items.len() as i64) && items.iter().all(|i| elem.holds(i))
                }
                _ => false,
            },
            NewType::Hash(k, x, size) => match v {
                Value::Hash(map) => {
                    size.holds(map.len() as i64)
                        && map
                            .iter()
                            .all(|(key, value)| k.holds(key) && x.holds(value))
                }
                _ => false,
            },
            NewType::Optional(t) => {
                matches!(v, Value::Undef) || t.as_ref().is_none_or(|t| t.holds(v))
            }
            NewType::NotUndef(t) => {
                !matches!(v, Value::Undef) && t.as_ref().is_none_or(|t| t.holds(v))
            }
            NewType::Variant(ts) => ts.iter().any(|t| t.holds(v)),
            NewType::Sensitive(t) => matches!(v, Value::Sensitive(inner) if t.holds(inner)),
        }
    }

    /// The conversion `new` runs for this type (before the result is checked against it).
    fn new_instance(&self, v: Value, args: &[Value], written: &str) -> Result<Value, ConvertError> {
        match self {
            NewType::Integer(_) => {
                let (radix, abs) = match args {
                    [] => (None, false),
                    [r] => (Some(radix(r)?), false),
                    [r, Value::Boolean(abs)] => (Some(radix(r)?), *abs),
                    _ => return Err(arguments("Integer", args)),
                };
                let i = integer_new(&v, radix.flatten())?;
                Ok(Value::Integer(if abs { absolute(i)? } else { i }))
            }
            NewType::Float(..) | NewType::Numeric(..) => {
                let abs = match args {
                    [] => false,
                    [Value::Boolean(abs)] => *abs,
                    _ => return Err(arguments(written, args)),
                };
                let n = if matches!(self, NewType::Float(..)) {
                    Value::Float(float_new(&v)?)
                } else {
                    numeric_new(&v)?
                };
                if let (Value::Float(f), Value::String(s)) = (&n, &v) {
                    if !f.is_finite() {
                        return Err(ConvertError::NotFinite(format!(
                            "`{written}` of the string \"{s}\" is {} in Puppet, and pbc's values hold finite Floats only",
                            if *f > 0.0 { "Infinity" } else { "-Infinity" }
                        )));
                    }
                }
                Ok(match n {
                    Value::Integer(i) if abs => Value::Integer(absolute(i)?),
                    Value::Float(f) if abs => Value::Float(f.abs()),
                    n => n,
                })
            }
            NewType::Boolean => match args {
                [] => boolean_new(&v),
                _ => Err(arguments("Boolean", args)),
            },
            NewType::String(_) => match args {
                [] => Ok(Value::string(to_puppet_string(&v))),
                _ => Err(ConvertError::NotSupported(format!(
                    "`{written}` with a format ({}): pbc converts to String with Puppet's default formats only",
                    args_text(args)
                ))),
            },
            NewType::Array(..) => match args {
                [] | [Value::Boolean(false)] => array_new(v),
                [Value::Boolean(true)] => Ok(match v {
                    Value::Array(_) => v,
                    other => Value::array(vec![other]),
                }),
                _ => Err(arguments("Array", args)),
            },
            NewType::Hash(..) => match args {
                [] => hash_new(v),
                [Value::String(option)] if option == "tree" || option == "hash_tree" => {
                    Err(ConvertError::NotSupported(format!(
                        "`{written}` with `{option}`: pbc builds hashes from pairs or a flat array only"
                    )))
                }
                _ => Err(arguments("Hash", args)),
            },
            NewType::Sensitive(_) => match (args, v) {
                ([], v @ Value::Sensitive(_)) => Ok(v),
                ([], v) => Ok(Value::Sensitive(Arc::new(v))),
                _ => Err(arguments("Sensitive", args)),
            },
            NewType::Optional(Some(t)) | NewType::NotUndef(Some(t)) => {
                t.new_instance(v, args, written)
            }
            NewType::NotUndef(None) => Ok(v),
            NewType::Any
            | NewType::Data
            | NewType::Scalar
            | NewType::ScalarData
            | NewType::Undef
            | NewType::Enum(_)
            | NewType::Variant(_)
            | NewType::Optional(None) => Err(ConvertError::Failed(format!(
                "Creation of new instance of type '{written}' is not supported"
            ))),
        }
    }
}

fn args_text(args: &[Value]) -> String {
    args.iter()
        .map(|a| a.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn arguments(name: &str, args: &[Value]) -> ConvertError {
    ConvertError::Failed(format!(
        "'new' {name} does not take the arguments ({})",
        args_text(args)
    ))
}

/// `Integer.new`'s radix: 2, 8, 10 or 16 (`Some(None)`: `default`, as written).
fn radix(v: &Value) -> Result<Option<u32>, ConvertError> {
    match v {
        Value::Integer(r @ (2 | 8 | 10 | 16)) => Ok(Some(*r as u32)),
        Value::String(s) if s == "default" => Ok(None),
        other => Err(ConvertError::Failed(format!(
            "Illegal radix: {other}, expected 2, 8, 10, 16, or default"
        ))),
    }
}

fn absolute(i: i64) -> Result<i64, ConvertError> {
    i.checked_abs()
        .ok_or_else(|| ConvertError::Failed(format!("the absolute value of {i} is too large")))
}

/// Ruby's `\s`.
fn is_ruby_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r')
}

/// `[+-]?\s*` then the rest.
fn sign_and_body(s: &str) -> (bool, &str) {
    let (negative, rest) = split_sign(s);
    (negative, rest.trim_start_matches(is_ruby_space))
}

fn all_digits(s: &str, radix: u32) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_digit(radix))
}

/// `Integer.new`'s accepted strings: `\A[+-]?\s*(?:\d+|0[xX]hex+|0[bB][01]+)\z`.
fn integer_text(s: &str) -> bool {
    let (_, body) = sign_and_body(s);
    all_digits(body, 10)
        || prefixed(body, 'x').is_some_and(|d| all_digits(d, 16))
        || prefixed(body, 'b').is_some_and(|d| all_digits(d, 2))
}

/// `Float.new`'s and `Numeric.new`'s accepted strings: a decimal with an optional fraction
/// and exponent (no leading zero), or a hexadecimal, octal or binary integer.
fn float_text(s: &str) -> bool {
    let (_, body) = sign_and_body(s);
    decimal_float(body)
        || prefixed(body, 'x').is_some_and(|d| all_digits(d, 16))
        || prefixed(body, 'b').is_some_and(|d| all_digits(d, 2))
        || body.strip_prefix('0').is_some_and(|d| all_digits(d, 8))
}

/// `(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE]-?\d+)?`.
fn decimal_float(s: &str) -> bool {
    let int_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (int, mut rest) = s.split_at(int_end);
    if int.is_empty() || (int.len() > 1 && int.starts_with('0')) {
        return false;
    }
    if let Some(fraction) = rest.strip_prefix('.') {
        let end = fraction
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(fraction.len());
        if end == 0 {
            return false;
        }
        rest = &fraction[end..];
    }
    if let Some(exponent) = rest.strip_prefix(['e', 'E']) {
        let exponent = exponent.strip_prefix('-').unwrap_or(exponent);
        return all_digits(exponent, 10);
    }
    rest.is_empty()
}

/// The digits after `0x`/`0X` (or `0b`/`0B`).
fn prefixed(s: &str, letter: char) -> Option<&str> {
    let rest = s.strip_prefix('0')?;
    rest.strip_prefix(letter)
        .or_else(|| rest.strip_prefix(letter.to_ascii_uppercase()))
}

/// Ruby's `Integer(s)` / `Integer(s, radix)` on a string `integer_text` accepted: leading
/// whitespace, a sign directly before the number, `0x`/`0b`/leading-zero octal by default.
fn ruby_integer(s: &str, radix: Option<u32>) -> Option<i64> {
    let s = s.trim_start_matches(is_ruby_space);
    let (negative, body) = split_sign(s);
    let (digits, base) = match radix {
        None => {
            if let Some(d) = prefixed(body, 'x') {
                (d, 16)
            } else if let Some(d) = prefixed(body, 'b') {
                (d, 2)
            } else if body.len() > 1 && body.starts_with('0') {
                (&body[1..], 8)
            } else {
                (body, 10)
            }
        }
        Some(16) => (prefixed(body, 'x').unwrap_or(body), 16),
        Some(2) => (prefixed(body, 'b').unwrap_or(body), 2),
        Some(base) => (body, base),
    };
    if !all_digits(digits, base) {
        return None;
    }
    let magnitude = i128::from_str_radix(digits, base).ok()?;
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

/// `Integer.new(value, radix)`.
fn integer_new(v: &Value, radix: Option<u32>) -> Result<i64, ConvertError> {
    match v {
        Value::Integer(i) => Ok(*i),
        Value::Boolean(b) => Ok(i64::from(*b)),
        Value::Float(f) => {
            let t = f.trunc();
            if t.is_finite() && t >= i64::MIN as f64 && t < i64::MAX as f64 {
                Ok(t as i64)
            } else {
                Err(ConvertError::Failed(format!(
                    "'new' {f} cannot be converted to Integer"
                )))
            }
        }
        Value::String(s) if integer_text(s) => ruby_integer(s, radix)
            .or_else(|| retry_without_blanks(s).and_then(|s| ruby_integer(&s, radix)))
            .map_or_else(
                || {
                    Err(ConvertError::Failed(format!(
                        "invalid value for Integer(): \"{s}\""
                    )))
                },
                Ok,
            ),
        other => Err(refused("new", other, "Integer")),
    }
}

/// Puppet's message for a value its `new` function (`new_float` ...) does not take.
fn refused(function: &str, v: &Value, target: &str) -> ConvertError {
    ConvertError::Failed(match v {
        Value::String(s) => {
            format!("'{function}' The string '{s}' cannot be converted to {target}")
        }
        other => format!(
            "'{function}' Value of type {} cannot be converted to {target}",
            describe(other)
        ),
    })
}

/// A leading `-` or `+`, and the rest.
fn split_sign(s: &str) -> (bool, &str) {
    match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    }
}

/// Puppet retries a sign followed by blanks (`+ 42`) without them.
fn retry_without_blanks(s: &str) -> Option<String> {
    let sign = s.chars().next().filter(|c| matches!(c, '+' | '-'))?;
    let rest = &s[1..];
    let number = rest.trim_start_matches([' ', '\t']);
    (number.len() < rest.len() && !number.contains('\n')).then(|| format!("{sign}{number}"))
}

/// Ruby's `Float(s)` on a string `float_text` accepted (decimal, `0x` hexadecimal; a leading
/// zero is decimal).
fn ruby_float(s: &str) -> Option<f64> {
    let s = s.trim_start_matches(is_ruby_space);
    let (negative, body) = split_sign(s);
    let magnitude = if let Some(hex) = prefixed(body, 'x') {
        let i = i128::from_str_radix(hex, 16).ok()?;
        i as f64
    } else if body.starts_with(|c: char| c.is_ascii_digit()) {
        body.parse::<f64>().ok()?
    } else {
        return None;
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// `Float.new(value)`.
fn float_new(v: &Value) -> Result<f64, ConvertError> {
    match v {
        Value::Float(f) => Ok(*f),
        Value::Integer(i) => Ok(*i as f64),
        Value::Boolean(b) => Ok(if *b { 1.0 } else { 0.0 }),
        Value::String(s) if float_text(s) => {
            let failed = || ConvertError::Failed(format!("invalid value for Float(): \"{s}\""));
            // Puppet reads `0b...` as an integer first, and fails on a lone `0` (it looks at
            // the character after the zero).
            if s.as_str() == "0" {
                return Err(ConvertError::Failed(
                    "undefined method `casecmp' for nil:NilClass".into(),
                ));
            }
            float_or_binary(s)
                .or_else(|| retry_without_blanks(s).and_then(|s| float_or_binary(&s)))
                .ok_or_else(failed)
        }
        other => Err(refused("new_float", other, "Float")),
    }
}

/// `0b...` as an integer (Puppet tests the first two characters), the rest as Ruby's `Float`.
fn float_or_binary(s: &str) -> Option<f64> {
    if prefixed(s, 'b').is_some() {
        return ruby_integer(s, None).map(|i| i as f64);
    }
    ruby_float(s)
}

/// `Numeric.new(value)`: an Integer or a Float, as the text reads.
fn numeric_new(v: &Value) -> Result<Value, ConvertError> {
    match v {
        Value::Float(_) | Value::Integer(_) => Ok(v.clone()),
        Value::Boolean(b) => Ok(Value::Integer(i64::from(*b))),
        Value::String(s) if float_text(s) => {
            let failed = || {
                ConvertError::Failed(format!(
                    "Converted value from Numeric.new() has wrong type, expects a Numeric value, got Undef (`{s}`)"
                ))
            };
            if prefixed(s, 'x').is_some() || prefixed(s, 'b').is_some() {
                return ruby_integer(s, None).map(Value::Integer).ok_or_else(failed);
            }
            puppet_to_n(s).ok_or_else(failed)
        }
        other => Err(refused("new_numeric", other, "Numeric")),
    }
}

/// Puppet's `Utils.to_n`: blanks around, a sign, then a hexadecimal, a (leading-zero octal)
/// integer, or a decimal with a fraction or exponent (none for a zero raised to a power).
fn puppet_to_n(s: &str) -> Option<Value> {
    let blank = |c: char| c == ' ' || c == '\t';
    let s = s.trim_matches(blank);
    let (negative, body) = split_sign(s);
    let body = body.trim_start_matches(blank);
    let signed = |i: i64| if negative { -i } else { i };
    if let Some(hex) = prefixed(body, 'x') {
        return all_digits(hex, 16)
            .then(|| i64::from_str_radix(hex, 16).ok())
            .flatten()
            .map(|i| Value::Integer(signed(i)));
    }
    // `(0?\d+)((?:\.\d+)?(?:[eE]-?\d+)?)`
    let int_end = body
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(body.len());
    let (int, tail) = body.split_at(int_end);
    if int.is_empty() {
        return None;
    }
    if tail.is_empty() {
        return ruby_integer(int, None).map(|i| Value::Integer(signed(i)));
    }
    if !decimal_tail(tail) {
        return None;
    }
    // A zero with only zeros before an exponent is no number to Puppet.
    let zero = ruby_integer(int, None)? == 0;
    let zeros_then_exponent = tail
        .strip_prefix('.')
        .unwrap_or(tail)
        .trim_start_matches('0')
        .starts_with(['e', 'E']);
    if zero && zeros_then_exponent {
        return None;
    }
    // An infinity (`1e999`) is Ruby's `Float`'s answer too; the caller refuses it.
    let f: f64 = format!("{int}{tail}").parse().ok()?;
    Some(Value::Float(if negative { -f } else { f }))
}

/// `(?:\.\d+)?(?:[eE]-?\d+)?`, not empty.
fn decimal_tail(s: &str) -> bool {
    decimal_float(&format!("1{s}"))
}

/// `Boolean.new(value)`.
fn boolean_new(v: &Value) -> Result<Value, ConvertError> {
    match v {
        Value::Boolean(_) => Ok(v.clone()),
        Value::Integer(i) => Ok(Value::Boolean(*i != 0)),
        Value::Float(f) => Ok(Value::Boolean(*f != 0.0)),
        Value::String(s) => match s.to_lowercase().as_str() {
            "true" | "yes" | "y" => Ok(Value::Boolean(true)),
            "false" | "no" | "n" => Ok(Value::Boolean(false)),
            _ => Err(refused("new_boolean", v, "Boolean")),
        },
        other => Err(refused("new_boolean", other, "Boolean")),
    }
}

/// What Puppet iterates: a string's characters, an integer's `0...n`.
fn iterate(v: &Value) -> Option<Result<Vec<Value>, ConvertError>> {
    match v {
        Value::String(s) => Some(Ok(s
            .chars()
            .map(|c| Value::string(c.to_string()))
            .collect())),
        // Puppet does not iterate a negative integer.
        Value::Integer(n) if *n >= 0 => Some(if *n > MAX_VALUE_ELEMENTS as i64 {
            Err(ConvertError::Failed(format!(
                "iterating {n} gives more than {MAX_VALUE_ELEMENTS} elements"
            )))
        } else {
            Ok((0..*n).map(Value::Integer).collect())
        }),
        _ => None,
    }
}

/// `Array.new(value)` (without `wrap`).
fn array_new(v: Value) -> Result<Value, ConvertError> {
    match v {
        Value::Array(_) => Ok(v),
        Value::Hash(map) => Ok(Value::array(
            map.iter()
                .map(|(k, x)| Value::array(vec![k.clone(), x.clone()]))
                .collect(),
        )),
        other => match iterate(&other) {
            Some(items) => Ok(Value::array(items?)),
            None => Err(refused("new_array", &other, "Array")),
        },
    }
}

/// `Hash.new(value)`: from an array of pairs, a flat array of keys and values, or what
/// Puppet iterates.
fn hash_new(v: Value) -> Result<Value, ConvertError> {
    let items = match &v {
        Value::Hash(_) => return Ok(v),
        Value::Array(items) => {
            let pairs = !items.is_empty()
                && items
                    .iter()
                    .all(|i| matches!(i, Value::Array(p) if p.len() == 2));
            if pairs {
                let mut map = Map::with_capacity(items.len());
                for pair in items.iter() {
                    if let Value::Array(p) = pair {
                        map.insert(p[0].clone(), p[1].clone());
                    }
                }
                return Ok(Value::hash(map));
            }
            items.to_vec()
        }
        other => match iterate(other) {
            Some(items) => items?,
            None => {
                return Err(ConvertError::Failed(format!(
                    "Value of type {} cannot be converted to Hash",
                    describe(other)
                )))
            }
        },
    };
    if items.len() % 2 != 0 {
        return Err(ConvertError::Failed(
            "odd number of arguments for Hash".into(),
        ));
    }
    let mut map = Map::with_capacity(items.len() / 2);
    for pair in items.chunks(2) {
        map.insert(pair[0].clone(), pair[1].clone());
    }
    Ok(Value::hash(map))
}

/// `String.new(value)` with Puppet's default formats: a string as it is, `undef` as nothing,
/// a float with six decimals (`%f`), a collection in Puppet's notation.
pub fn to_puppet_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.to_string(),
        Value::Undef => String::new(),
        Value::Float(f) if f.is_nan() => "NaN".into(),
        Value::Float(f) if f.is_infinite() => if *f > 0.0 { "Inf" } else { "-Inf" }.into(),
        Value::Float(f) => format!("{f:.6}"),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn convert(to: &str, v: Value) -> Result<Value, ConvertError> {
        ConvertTo::from_option(&Value::string(to))?.apply(v)
    }

    fn s(text: &str) -> Value {
        Value::string(text)
    }

    /// Each answer was checked against Puppet 7's lookup with `convert_to`.
    #[test]
    fn integers_as_puppet_reads_them() {
        for (text, want) in [
            ("010", Some(8)),
            ("09", None),
            ("+ 42", Some(42)),
            ("-0x10", Some(-16)),
            ("1_000", None),
            (" 42", Some(42)),
            ("0b101", Some(5)),
            ("42 ", None),
        ] {
            let got = convert("Integer", s(text)).ok();
            assert_eq!(got, want.map(Value::Integer), "{text:?}");
        }
        assert_eq!(
            convert("Integer", Value::Float(-3.9)),
            Ok(Value::Integer(-3))
        );
        assert_eq!(
            convert("Integer", Value::Boolean(true)),
            Ok(Value::Integer(1))
        );
        assert!(matches!(
            convert("Integer[0, 5]", s("7")),
            Err(ConvertError::Failed(_))
        ));
        let hex = ConvertTo::from_option(&Value::array(vec![s("Integer"), Value::Integer(16)]))
            .expect("reads");
        assert_eq!(hex.apply(s("ff")).ok(), None, "the pattern comes first");
        assert_eq!(hex.apply(s("10")), Ok(Value::Integer(16)));
    }

    #[test]
    fn floats_and_numerics_as_puppet_reads_them() {
        for (text, want) in [
            ("010", Some(10.0)),
            ("0x10", Some(16.0)),
            ("1e3", Some(1000.0)),
            ("0B11", Some(3.0)),
            ("1.", None),
            ("0", None),
        ] {
            assert_eq!(
                convert("Float", s(text)).ok(),
                want.map(Value::Float),
                "{text:?}"
            );
        }
        for (text, want) in [
            ("010", Some(Value::Integer(8))),
            ("1.5", Some(Value::Float(1.5))),
            ("0x1f", Some(Value::Integer(31))),
            (" 12 ", None),
            ("1e2", Some(Value::Float(100.0))),
            ("- 3", Some(Value::Integer(-3))),
            ("0e5", None),
        ] {
            assert_eq!(convert("Numeric", s(text)).ok(), want, "{text:?}");
        }
    }

    #[test]
    fn strings_booleans_and_collections() {
        let nested = Value::array(vec![
            s("it's"),
            s("a\"b"),
            s("tab\there"),
            Value::Float(1.5),
            Value::Undef,
            s("$x"),
        ]);
        assert_eq!(
            convert("String", nested),
            Ok(s(r#"['it\'s', 'a"b', "tab\there", 1.5, undef, '$x']"#))
        );
        assert_eq!(convert("String", Value::Float(2.5)), Ok(s("2.500000")));
        assert_eq!(convert("String", Value::Undef), Ok(s("")));
        assert_eq!(convert("Boolean", s("Yes")), Ok(Value::Boolean(true)));
        assert_eq!(convert("Boolean", s("N")), Ok(Value::Boolean(false)));
        assert!(convert("Boolean", s("maybe")).is_err());
        assert_eq!(
            convert("Array", s("ab")),
            Ok(Value::array(vec![s("a"), s("b")]))
        );
        assert_eq!(
            convert("Array", Value::Integer(2)),
            Ok(Value::array(vec![Value::Integer(0), Value::Integer(1)]))
        );
        let wrap = ConvertTo::from_option(&Value::array(vec![s("Array"), Value::Boolean(true)]))
            .expect("reads");
        assert_eq!(
            wrap.apply(Value::Undef),
            Ok(Value::array(vec![Value::Undef]))
        );
        let hash = convert("Hash", s("abcd")).expect("converts");
        assert_eq!(hash.to_string(), "{'a' => 'b', 'c' => 'd'}");
        assert!(convert(
            "Hash",
            Value::array(vec![s("a"), Value::Integer(1), s("b")])
        )
        .is_err());
    }

    #[test]
    fn sensitive_optional_and_unknown_types() {
        let secret = convert("Sensitive", s("hunter2")).expect("converts");
        assert_eq!(secret.to_string(), "Sensitive [value redacted]");
        assert_eq!(convert("Sensitive", secret.clone()), Ok(secret.clone()));
        assert!(convert("Sensitive[String]", Value::Integer(5)).is_err());
        // Puppet's Data holds no Sensitive: `new` is asked, and Data has none.
        assert!(convert("Data", Value::array(vec![secret.clone()])).is_err());
        assert_eq!(convert("Optional[Integer]", Value::Undef), Ok(Value::Undef));
        assert_eq!(convert("Optional[Integer]", s("5")), Ok(Value::Integer(5)));
        assert!(matches!(
            convert("Timestamp", s("2020-01-01")),
            Err(ConvertError::NotSupported(_))
        ));
        assert!(matches!(
            convert("Integer[", s("1")),
            Err(ConvertError::NotAType(_))
        ));
        assert!(matches!(
            convert("Variant[Integer, String]", Value::Float(1.5)),
            Err(ConvertError::Failed(_))
        ));
    }
}
