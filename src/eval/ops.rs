//! Puppet's operators on values: arithmetic, comparison, `in`, `<<`, access (`$x[1]`,
//! `$h['k']`, slices) and regexes. Type errors name both operand types.

use super::{EvalError, EvalResult, Value};
use crate::ast::BinaryOp;
use crate::span::Span;
use std::cmp::Ordering;
use std::sync::Arc;

/// Compiles a Puppet regex (Ruby syntax; what the `regex` crate does not support, such as
/// look-around and back-references, is an error naming the pattern).
pub(super) fn regex(source: &str, span: Span) -> EvalResult<Arc<super::value::RegexValue>> {
    match regex::Regex::new(source) {
        Ok(regex) => Ok(Arc::new(super::value::RegexValue {
            source: source.into(),
            regex,
        })),
        Err(e) => Err(EvalError::type_error(
            span,
            format!("the regular expression /{source}/ cannot be used"),
        )
        .with_note(format!(
            "note: {}",
            e.to_string().lines().last().unwrap_or("invalid pattern")
        ))),
    }
}

/// `$0` (the whole match) and the groups; unmatched groups are undef.
pub(super) fn captures(c: &regex::Captures) -> Vec<Value> {
    c.iter()
        .map(|m| m.map_or(Value::Undef, |m| Value::string(m.as_str())))
        .collect()
}

pub(super) fn negate(v: Value, span: Span) -> EvalResult {
    match number(&v) {
        Some(Value::Integer(i)) => i
            .checked_neg()
            .map(Value::Integer)
            .ok_or_else(|| overflow(span)),
        Some(Value::Float(f)) => Ok(Value::Float(-f)),
        _ => Err(EvalError::type_error(
            span,
            format!("`-` needs a number, not {}", v.type_name()),
        )),
    }
}

fn overflow(span: Span) -> EvalError {
    EvalError::type_error(span, "integer overflow")
}

/// A number, or a string that reads as one (Puppet converts numeric strings in arithmetic).
fn number(v: &Value) -> Option<Value> {
    match v {
        Value::Integer(_) | Value::Float(_) => Some(v.clone()),
        Value::String(s) => {
            let t = s.trim();
            if let Ok(i) = t.parse::<i64>() {
                Some(Value::Integer(i))
            } else if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                i64::from_str_radix(hex, 16).ok().map(Value::Integer)
            } else {
                t.parse::<f64>()
                    .ok()
                    .filter(|f| f.is_finite())
                    .map(Value::Float)
            }
        }
        _ => None,
    }
}

pub(super) fn binary(op: BinaryOp, lhs: Value, rhs: Value, span: Span) -> EvalResult {
    use BinaryOp::*;
    match op {
        Eq => Ok(Value::Boolean(lhs.puppet_eq(&rhs))),
        Ne => Ok(Value::Boolean(!lhs.puppet_eq(&rhs))),
        Lt | Le | Gt | Ge => {
            let ord = compare(&lhs, &rhs).ok_or_else(|| {
                EvalError::type_error(
                    span,
                    format!(
                        "`{}` cannot compare {} with {}",
                        op.text(),
                        lhs.type_name(),
                        rhs.type_name()
                    ),
                )
            })?;
            Ok(Value::Boolean(match op {
                Lt => ord == Ordering::Less,
                Le => ord != Ordering::Greater,
                Gt => ord == Ordering::Greater,
                _ => ord != Ordering::Less,
            }))
        }
        In => Ok(Value::Boolean(contains(&rhs, &lhs))),
        // The left side is extended in place when nothing else holds it (a `reduce` memo the
        // lambda reads once), so building a collection step by step stays linear.
        Add => match (lhs, rhs) {
            (Value::Array(mut a), Value::Array(b)) => {
                Arc::make_mut(&mut a).extend(b.iter().cloned());
                Ok(Value::Array(a))
            }
            (Value::Array(mut a), Value::Hash(h)) => {
                Arc::make_mut(&mut a).extend(
                    h.iter()
                        .map(|(k, v)| Value::array(vec![k.clone(), v.clone()])),
                );
                Ok(Value::Array(a))
            }
            (Value::Array(mut a), other) => {
                Arc::make_mut(&mut a).push(other);
                Ok(Value::Array(a))
            }
            (Value::Hash(mut a), Value::Hash(b)) => {
                let out = Arc::make_mut(&mut a);
                for (k, v) in b.iter() {
                    out.insert(k.clone(), v.clone());
                }
                Ok(Value::Hash(a))
            }
            (lhs, rhs) => arithmetic(op, &lhs, &rhs, span),
        },
        Sub => match (&lhs, &rhs) {
            (Value::Array(a), Value::Array(b)) => Ok(Value::array(
                a.iter()
                    .filter(|x| !b.iter().any(|y| x.puppet_eq(y)))
                    .cloned()
                    .collect(),
            )),
            (Value::Array(a), other) => Ok(Value::array(
                a.iter().filter(|x| !x.puppet_eq(other)).cloned().collect(),
            )),
            (Value::Hash(a), Value::Hash(b)) => Ok(Value::hash(
                a.iter()
                    .filter(|(k, _)| !b.contains_key(*k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            )),
            (Value::Hash(a), Value::Array(keys)) => Ok(Value::hash(
                a.iter()
                    .filter(|(k, _)| !keys.contains(k))
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            )),
            (Value::Hash(a), key) => Ok(Value::hash(
                a.iter()
                    .filter(|(k, _)| *k != key)
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
            )),
            _ => arithmetic(op, &lhs, &rhs, span),
        },
        Shl => match lhs {
            Value::Array(mut a) => {
                Arc::make_mut(&mut a).push(rhs);
                Ok(Value::Array(a))
            }
            lhs => arithmetic(op, &lhs, &rhs, span),
        },
        Mul | Div | Mod | Shr => arithmetic(op, &lhs, &rhs, span),
        // Evaluated with short-circuits by the caller.
        And | Or | Match | NoMatch => Err(EvalError::type_error(span, "internal: not here")),
    }
}

fn arithmetic(op: BinaryOp, lhs: &Value, rhs: &Value, span: Span) -> EvalResult {
    use BinaryOp::*;
    let bad = || {
        EvalError::type_error(
            span,
            format!(
                "`{}` is not defined for {} and {}",
                op.text(),
                lhs.type_name(),
                rhs.type_name()
            ),
        )
    };
    let (a, b) = match (number(lhs), number(rhs)) {
        (Some(a), Some(b)) => (a, b),
        _ => return Err(bad()),
    };
    match (a, b) {
        (Value::Integer(a), Value::Integer(b)) => {
            let r = match op {
                Add => a.checked_add(b),
                Sub => a.checked_sub(b),
                Mul => a.checked_mul(b),
                Div | Mod if b == 0 => {
                    return Err(EvalError::type_error(span, "division by zero"));
                }
                Div => a.checked_div(b),
                Mod => a.checked_rem(b),
                Shl => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
                Shr => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
                _ => None,
            };
            r.map(Value::Integer).ok_or_else(|| overflow(span))
        }
        (a, b) => {
            let (x, y) = (as_f64(&a), as_f64(&b));
            let r = match op {
                Add => x + y,
                Sub => x - y,
                Mul => x * y,
                Div if y == 0.0 => return Err(EvalError::type_error(span, "division by zero")),
                Div => x / y,
                _ => return Err(bad()),
            };
            // JSON has no Infinity or NaN: a result beyond the Float range is an error here,
            // where it arises, not a `null` in the output.
            if !r.is_finite() {
                return Err(EvalError::type_error(
                    span,
                    "the result is beyond the range of a Float",
                ));
            }
            Ok(Value::Float(r))
        }
    }
}

fn as_f64(v: &Value) -> f64 {
    match v {
        Value::Integer(i) => *i as f64,
        Value::Float(f) => *f,
        _ => f64::NAN,
    }
}

/// Numbers by value, strings case-insensitively; anything else does not compare.
pub(super) fn compare(a: &Value, b: &Value) -> Option<Ordering> {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Some(x.to_lowercase().cmp(&y.to_lowercase())),
        (Value::Integer(x), Value::Integer(y)) => Some(x.cmp(y)),
        (Value::Integer(_) | Value::Float(_), Value::Integer(_) | Value::Float(_)) => {
            as_f64(a).partial_cmp(&as_f64(b))
        }
        _ => None,
    }
}

/// `needle in haystack`.
fn contains(haystack: &Value, needle: &Value) -> bool {
    match (haystack, needle) {
        (Value::String(h), Value::String(n)) => h.to_lowercase().contains(&n.to_lowercase()),
        (Value::String(h), Value::Regex(r)) => r.regex.is_match(h),
        (Value::Array(items), Value::Regex(r)) => items
            .iter()
            .any(|v| matches!(v, Value::String(s) if r.regex.is_match(s))),
        (Value::Array(items), Value::Type(t)) => items.iter().any(|v| v.is_instance(t)),
        (Value::Array(items), n) => items.iter().any(|v| v.puppet_eq(n)),
        (Value::Hash(map), n) => map.keys().any(|k| k.puppet_eq(n)),
        _ => false,
    }
}

/// `$a[i]`, `$a[i, n]`, `$h[k]`, `$s[i]`, `$s[i, n]` (negative indexes count from the end; out
/// of range is undef).
pub(super) fn access(target: &Value, keys: &[Value], span: Span) -> EvalResult {
    let index = |len: usize, i: i64| -> Option<usize> {
        let i = if i < 0 { len as i64 + i } else { i };
        (0..len as i64).contains(&i).then_some(i as usize)
    };
    match (target, keys) {
        (Value::Hash(map), [k]) => Ok(map.get(k).cloned().unwrap_or(Value::Undef)),
        (Value::Hash(map), ks) => Ok(Value::array(
            ks.iter().filter_map(|k| map.get(k).cloned()).collect(),
        )),
        (Value::Array(items), [Value::Integer(i)]) => {
            Ok(index(items.len(), *i).map_or(Value::Undef, |i| items[i].clone()))
        }
        (Value::Array(items), [Value::Integer(i), Value::Integer(n)]) => Ok(Value::array(
            slice(items.len(), *i, *n).map_or_else(Vec::new, |r| items[r].to_vec()),
        )),
        (Value::String(s), [Value::Integer(i)]) => {
            let chars: Vec<char> = s.chars().collect();
            Ok(
                index(chars.len(), *i)
                    .map_or(Value::Undef, |i| Value::string(chars[i].to_string())),
            )
        }
        (Value::String(s), [Value::Integer(i), Value::Integer(n)]) => {
            let chars: Vec<char> = s.chars().collect();
            Ok(Value::string(
                slice(chars.len(), *i, *n).map_or_else(String::new, |r| chars[r].iter().collect()),
            ))
        }
        (Value::Undef, _) => Err(EvalError::type_error(span, "`undef` cannot be indexed")
            .with_note("help: check that the variable is set, or give a default")),
        _ => Err(EvalError::type_error(
            span,
            format!(
                "{} cannot be indexed with [{}]",
                target.type_name(),
                keys.iter()
                    .map(Value::type_name)
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )),
    }
}

/// Ruby's `a[start, count]`: a negative count counts from the end.
fn slice(len: usize, start: i64, count: i64) -> Option<std::ops::Range<usize>> {
    let start = if start < 0 { len as i64 + start } else { start };
    if start < 0 || start > len as i64 {
        return None;
    }
    let end = if count < 0 {
        len as i64 + count + 1
    } else {
        start.saturating_add(count)
    };
    let end = end.clamp(start, len as i64);
    Some(start as usize..end as usize)
}
