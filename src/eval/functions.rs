//! The function library: what bindings expressions call. Each function checks its argument
//! count and types and says what it expected; an unknown name gets a "did you mean".
//! `lookup` and `inject` go to the evaluator's [`super::Host`].

use super::{EvalError, EvalResult, Evaluator, LogLevel, Map, Value};
use crate::ast::Lambda;
use crate::diag::{codes, did_you_mean};
use crate::span::Span;
use crate::types::PType;

/// Every function pbc evaluates, sorted.
pub const FUNCTIONS: &[&str] = &[
    "capitalize",
    "concat",
    "defined",
    "dig",
    "downcase",
    "each",
    "empty",
    "fail",
    "filter",
    "flatten",
    "inject",
    "join",
    "keys",
    "length",
    "lookup",
    "map",
    "merge",
    "notice",
    "reduce",
    "regsubst",
    "size",
    "sort",
    "split",
    "sprintf",
    "strip",
    "unique",
    "upcase",
    "values",
    "warning",
    "with",
];

/// One call's arguments, for checking counts and types with messages that name the function.
struct Args<'a> {
    name: &'a str,
    span: Span,
    values: Vec<Value>,
}

impl Args<'_> {
    fn count(&self, min: usize, max: usize) -> EvalResult<()> {
        let n = self.values.len();
        if n < min || n > max {
            let expected = match (min, max) {
                (a, b) if a == b => format!("{a}"),
                (a, usize::MAX) => format!("at least {a}"),
                (a, b) => format!("{a} to {b}"),
            };
            return Err(EvalError::type_error(
                self.span,
                format!(
                    "`{}` takes {expected} argument{}, got {n}",
                    self.name,
                    if expected == "1" { "" } else { "s" }
                ),
            ));
        }
        Ok(())
    }

    fn wrong(&self, index: usize, expected: &str) -> EvalError {
        let got = self.values.get(index).map_or("nothing", Value::type_name);
        EvalError::type_error(
            self.span,
            format!(
                "`{}` expects {expected} as argument {}, got {got}",
                self.name,
                index + 1
            ),
        )
    }

    fn string(&self, index: usize) -> EvalResult<&str> {
        match self.values.get(index) {
            Some(Value::String(s)) => Ok(s),
            _ => Err(self.wrong(index, "a String")),
        }
    }

    fn array(&self, index: usize) -> EvalResult<&[Value]> {
        match self.values.get(index) {
            Some(Value::Array(a)) => Ok(a),
            _ => Err(self.wrong(index, "an Array")),
        }
    }

    fn lambda<'l>(&self, lambda: Option<&'l Lambda>, arities: &[usize]) -> EvalResult<&'l Lambda> {
        match lambda {
            Some(l) if arities.contains(&l.params.len()) => Ok(l),
            Some(l) => Err(EvalError::type_error(
                l.span,
                format!(
                    "`{}` takes a lambda with {} parameter{}, not {}",
                    self.name,
                    arities
                        .iter()
                        .map(|a| a.to_string())
                        .collect::<Vec<_>>()
                        .join(" or "),
                    if arities == [1] { "" } else { "s" },
                    l.params.len()
                ),
            )),
            None => Err(EvalError::type_error(
                self.span,
                format!("`{}` needs a lambda (`|$x| {{ ... }}`)", self.name),
            )),
        }
    }
}

pub(super) fn call(
    ev: &mut Evaluator,
    name: &str,
    name_span: Span,
    values: Vec<Value>,
    lambda: Option<&Lambda>,
    span: Span,
) -> EvalResult {
    let a = Args { name, span, values };
    match name {
        "lookup" | "inject" => lookup(ev, &a, lambda),
        "with" => {
            let l = a.lambda(lambda, &[a.values.len()])?;
            ev.call_lambda(l, a.values)
        }
        "each" | "map" | "filter" => iterate(ev, &a, lambda),
        "reduce" => reduce(ev, &a, lambda),
        "flatten" => {
            ev.may_expand(&a.values, span)?;
            Ok(Value::array(flatten(&a.values, usize::MAX)))
        }
        "concat" => {
            a.count(1, usize::MAX)?;
            let mut out: Vec<Value> = a.array(0)?.to_vec();
            for v in &a.values[1..] {
                match v {
                    Value::Array(items) => out.extend(items.iter().cloned()),
                    other => out.push(other.clone()),
                }
            }
            Ok(Value::array(out))
        }
        "merge" => {
            a.count(1, usize::MAX)?;
            let mut out = Map::new();
            for (i, v) in a.values.iter().enumerate() {
                match v {
                    Value::Hash(h) => {
                        for (k, v) in h.iter() {
                            out.insert(k.clone(), v.clone());
                        }
                    }
                    Value::Undef => {}
                    _ => return Err(a.wrong(i, "a Hash")),
                }
            }
            Ok(Value::hash(out))
        }
        "join" => {
            a.count(1, 2)?;
            ev.may_expand(&a.values, span)?;
            let sep = if a.values.len() == 2 {
                a.string(1)?
            } else {
                ""
            };
            let items = a.array(0)?;
            Ok(Value::string(
                items
                    .iter()
                    .map(Value::to_display_string)
                    .collect::<Vec<_>>()
                    .join(sep),
            ))
        }
        "split" => {
            a.count(2, 2)?;
            let s = a.string(0)?;
            let parts: Vec<Value> = match &a.values[1] {
                Value::Regex(r) => r.regex.split(s).map(Value::string).collect(),
                Value::String(p) => {
                    let r = super::ops::regex(p, span)?;
                    r.regex.split(s).map(Value::string).collect()
                }
                _ => return Err(a.wrong(1, "a String or Regexp")),
            };
            // Ruby's split drops trailing empty fields.
            let mut parts = parts;
            while matches!(parts.last(), Some(Value::String(p)) if p.is_empty()) {
                parts.pop();
            }
            Ok(Value::array(parts))
        }
        "keys" | "values" => {
            a.count(1, 1)?;
            match &a.values[0] {
                Value::Hash(h) => Ok(Value::array(if name == "keys" {
                    h.keys().cloned().collect()
                } else {
                    h.values().cloned().collect()
                })),
                _ => Err(a.wrong(0, "a Hash")),
            }
        }
        "size" | "length" => {
            a.count(1, 1)?;
            Ok(Value::Integer(match &a.values[0] {
                Value::Array(x) => x.len() as i64,
                Value::Hash(h) => h.len() as i64,
                Value::String(s) => s.chars().count() as i64,
                _ => return Err(a.wrong(0, "an Array, Hash or String")),
            }))
        }
        // `$facts.dig('os', 'family')`: undef where a key or index is missing.
        "dig" => {
            a.count(1, usize::MAX)?;
            let mut v = a.values[0].clone();
            for (i, step) in a.values.iter().enumerate().skip(1) {
                v = match (&v, step) {
                    (Value::Undef, _) => return Ok(Value::Undef),
                    (Value::Array(items), Value::Integer(n)) => usize::try_from(*n)
                        .ok()
                        .and_then(|n| items.get(n).cloned())
                        .unwrap_or(Value::Undef),
                    (Value::Hash(h), k) => h.get(k).cloned().unwrap_or(Value::Undef),
                    (other, _) => {
                        return Err(EvalError::type_error(
                            a.span,
                            format!(
                                "`dig` cannot go into {} with argument {}",
                                other.type_name(),
                                i + 1
                            ),
                        ))
                    }
                };
            }
            Ok(v)
        }
        "empty" => {
            a.count(1, 1)?;
            Ok(Value::Boolean(match &a.values[0] {
                Value::Array(x) => x.is_empty(),
                Value::Hash(h) => h.is_empty(),
                Value::String(s) => s.is_empty(),
                Value::Undef => true,
                Value::Integer(_) | Value::Float(_) => false,
                _ => return Err(a.wrong(0, "an Array, Hash, String or number")),
            }))
        }
        "sort" => {
            a.count(1, 1)?;
            let mut items: Vec<Value> = a.array(0)?.to_vec();
            let mut failed = false;
            items.sort_by(|x, y| {
                super::ops::compare(x, y).unwrap_or_else(|| {
                    failed = true;
                    std::cmp::Ordering::Equal
                })
            });
            if failed {
                return Err(EvalError::type_error(
                    span,
                    "`sort` needs all strings or all numbers",
                ));
            }
            Ok(Value::array(items))
        }
        "unique" => {
            a.count(1, 1)?;
            Ok(Value::array(unique(a.array(0)?.iter().cloned())))
        }
        "upcase" | "downcase" | "capitalize" | "strip" => {
            a.count(1, 1)?;
            let f = |s: &str| -> String {
                match name {
                    "upcase" => s.to_uppercase(),
                    "downcase" => s.to_lowercase(),
                    "strip" => s.trim().to_string(),
                    _ => {
                        let mut c = s.chars();
                        match c.next() {
                            Some(first) => first.to_uppercase().chain(c).collect(),
                            None => String::new(),
                        }
                    }
                }
            };
            match &a.values[0] {
                Value::String(s) => Ok(Value::string(f(s))),
                Value::Array(items) => items
                    .iter()
                    .map(|v| match v {
                        Value::String(s) => Ok(Value::string(f(s))),
                        _ => Err(a.wrong(0, "a String or an Array of String")),
                    })
                    .collect::<EvalResult<Vec<_>>>()
                    .map(Value::array),
                _ => Err(a.wrong(0, "a String or an Array of String")),
            }
        }
        "regsubst" => regsubst(&a, ev.remaining()),
        "sprintf" => {
            a.count(1, usize::MAX)?;
            ev.may_expand(&a.values, span)?;
            sprintf(a.string(0)?, &a.values[1..], span).map(Value::string)
        }
        "fail" => Err(EvalError::new(
            codes::EVAL_FAILED,
            span,
            a.values
                .iter()
                .map(Value::to_display_string)
                .collect::<Vec<_>>()
                .join(" "),
        )),
        "warning" | "notice" => {
            let message = a
                .values
                .iter()
                .map(Value::to_display_string)
                .collect::<Vec<_>>()
                .join(" ");
            let level = if name == "warning" {
                LogLevel::Warning
            } else {
                LogLevel::Notice
            };
            ev.host().log(level, message, span);
            Ok(Value::Undef)
        }
        "defined" => {
            a.count(1, usize::MAX)?;
            let mut all = true;
            for i in 0..a.values.len() {
                let what = a.string(i)?;
                all &= match what.strip_prefix('$') {
                    Some(var) => !matches!(ev.variable(var, span), Ok(Value::Undef) | Err(_)),
                    None => FUNCTIONS.contains(&what),
                };
            }
            Ok(Value::Boolean(all))
        }
        _ => {
            let mut e = EvalError::new(
                codes::UNKNOWN_FUNCTION,
                name_span,
                format!("unknown function `{name}`"),
            );
            if let Some(s) = did_you_mean(name, FUNCTIONS) {
                e = e.did_you_mean(name, s);
            }
            Err(e.with_note("note: bindings can call the functions listed in pbc's README"))
        }
    }
}

/// `lookup(name[, type][, default])`; `inject(name)`, `inject(type[, name])` (D23: ARM-8's
/// named binding and its typed form).
/// `inject(name)`, `inject(Type, name)` (ARM-8), and `lookup` with every signature of ARM-9
/// (D23): `lookup(key)`, `lookup(key, type)`, `lookup(key, type, default)`,
/// `lookup(key, options)`, `lookup(options)`; a type as a Type or a String naming one; options
/// `key` (or `name`), `type`, `first_found`, `default`, `accept_undef`; and a lambda
/// (`|$result|`, `|$name, $result|`, `|$name, $result, $default|`) that receives undef when
/// nothing is found and whose result is the value.
fn lookup(ev: &mut Evaluator, a: &Args, lambda: Option<&Lambda>) -> EvalResult {
    if a.name == "inject" {
        a.count(1, 2)?;
        let (name, ty) = match (&a.values[0], a.values.len()) {
            (Value::Type(t), 1) => (String::new(), (**t).clone()),
            (Value::Type(t), _) => (a.string(1)?.to_string(), (**t).clone()),
            (Value::String(name), 1) => (name.to_string(), PType::Data),
            _ => return Err(a.wrong(0, "a Type, or the name of a Data binding")),
        };
        return match ev.host().lookup(&name, &ty, a.span)? {
            Some(v) => Ok(v),
            None => Err(not_found(a, &name, &ty)),
        };
    }
    a.count(1, 3)?;
    let mut request = LookupRequest::default();
    match (&a.values[0], a.values.get(1)) {
        (Value::Hash(options), None) => request.options(a, options)?,
        (Value::Hash(_), Some(_)) => return Err(a.wrong(0, "a key (the options hash comes last)")),
        (first, rest) => {
            request.keys = key_names(a, first, 0)?;
            match rest {
                None => {}
                Some(Value::Hash(options)) if a.values.len() == 2 => request.options(a, options)?,
                Some(ty) => {
                    request.ty = type_argument(a, ty, 1)?;
                    if let Some(d) = a.values.get(2) {
                        request.default = Some(d.clone());
                    }
                }
            }
        }
    }
    if request.keys.is_empty() {
        return Err(EvalError::type_error(
            a.span,
            "`lookup` needs a key: `lookup('ntp::servers')`, or `key`/`first_found` in its options",
        ));
    }
    let mut found: Option<(String, Value)> = None;
    for key in &request.keys {
        if let Some(v) = ev.host().lookup(key, &request.ty, a.span)? {
            found = Some((key.clone(), v));
            break;
        }
    }
    let value = match lambda {
        Some(_) => {
            let l = a.lambda(lambda, &[1, 2, 3])?;
            let name = found
                .as_ref()
                .map_or_else(|| request.keys[0].clone(), |(k, _)| k.clone());
            let result = found.map_or(Value::Undef, |(_, v)| v);
            let default = request.default.clone().unwrap_or(Value::Undef);
            let args = match l.params.len() {
                1 => vec![result],
                2 => vec![Value::string(&name), result],
                _ => vec![Value::string(&name), result, default],
            };
            Some(ev.call_lambda(l, args)?).filter(|v| !matches!(v, Value::Undef))
        }
        None => found.map(|(_, v)| v),
    };
    let value = match (value, request.default) {
        (Some(v), _) => v,
        (None, Some(d)) => d,
        (None, None) if request.accept_undef => Value::Undef,
        (None, None) => return Err(not_found(a, &request.keys[0], &request.ty)),
    };
    if !matches!(value, Value::Undef) && !value.is_instance(&request.ty) {
        return Err(EvalError::new(
            codes::LOOKUP_TYPE_MISMATCH,
            a.span,
            format!(
                "`lookup` of `{}` expects {}, got {}",
                request.keys[0],
                request.ty,
                value.infer_type()
            ),
        ));
    }
    Ok(value)
}

/// What a `lookup` call asks for.
struct LookupRequest {
    /// Tried in order; the first bound wins.
    keys: Vec<String>,
    ty: PType,
    default: Option<Value>,
    accept_undef: bool,
}

impl Default for LookupRequest {
    fn default() -> Self {
        LookupRequest {
            keys: Vec::new(),
            ty: PType::Data,
            default: None,
            accept_undef: false,
        }
    }
}

const LOOKUP_OPTIONS: &[&str] = &[
    "key",
    "name",
    "type",
    "first_found",
    "default",
    "accept_undef",
];

impl LookupRequest {
    fn options(&mut self, a: &Args, options: &Map) -> EvalResult<()> {
        for (k, v) in options.iter() {
            let name = k.to_display_string();
            match name.as_str() {
                // ARM-9 improvements: `key` and `first_found` are alternatives.
                "key" | "name" | "first_found" if !self.keys.is_empty() => {
                    return Err(EvalError::type_error(
                        a.span,
                        format!("`lookup` takes one key, a list of keys, or `first_found`, not also `{name}`"),
                    ))
                }
                "key" | "name" | "first_found" => self.keys = key_names(a, v, 0)?,
                "type" => self.ty = type_argument(a, v, 0)?,
                "default" => self.default = Some(v.clone()),
                "accept_undef" => match v {
                    Value::Boolean(b) => self.accept_undef = *b,
                    _ => {
                        return Err(EvalError::type_error(
                            a.span,
                            format!("`accept_undef` is true or false, not {}", v.type_name()),
                        ))
                    }
                },
                _ => {
                    let mut e =
                        EvalError::type_error(a.span, format!("`lookup` has no option `{name}`"));
                    if let Some(s) = crate::diag::did_you_mean(&name, LOOKUP_OPTIONS) {
                        e = e.did_you_mean(&name, s);
                    }
                    return Err(e);
                }
            }
        }
        Ok(())
    }
}

/// A key, or an array of keys tried in order.
fn key_names(a: &Args, v: &Value, index: usize) -> EvalResult<Vec<String>> {
    match v {
        Value::String(s) => Ok(vec![s.to_string()]),
        Value::Array(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(s.to_string()),
                _ => Err(a.wrong(index, "a key, or an Array of keys")),
            })
            .collect(),
        _ => Err(a.wrong(index, "a key, or an Array of keys")),
    }
}

/// A type given as a Type (`Array[String]`) or as a String naming one (`'Array[String]'`).
fn type_argument(a: &Args, v: &Value, index: usize) -> EvalResult<PType> {
    match v {
        Value::Type(t) => Ok((**t).clone()),
        Value::Undef => Ok(PType::Data),
        Value::String(text) => crate::types::parse_type(text)
            .ok_or_else(|| EvalError::type_error(a.span, format!("`{text}` is not a type"))),
        _ => Err(a.wrong(index, "a Type, or a String naming one")),
    }
}

fn not_found(a: &Args, name: &str, ty: &PType) -> EvalError {
    EvalError::new(
        codes::KEY_NOT_FOUND,
        a.span,
        format!("nothing is bound to `{name}` for this request"),
    )
    .with_note(format!(
        "help: give a default: {}('{name}', {ty}, ...)",
        a.name
    ))
}

fn iterate(ev: &mut Evaluator, a: &Args, lambda: Option<&Lambda>) -> EvalResult {
    a.count(1, 1)?;
    let l = a.lambda(lambda, &[1, 2])?;
    let pairs: Vec<(Value, Value)> = match &a.values[0] {
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (Value::Integer(i as i64), v.clone()))
            .collect(),
        Value::Hash(h) => h.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        _ => return Err(a.wrong(0, "an Array or a Hash")),
    };
    let is_hash = matches!(a.values[0], Value::Hash(_));
    let mut mapped = Vec::new();
    let mut kept_array = Vec::new();
    let mut kept_hash = Map::new();
    for (k, v) in pairs {
        let args = match (l.params.len(), is_hash) {
            (1, true) => vec![Value::array(vec![k.clone(), v.clone()])],
            (1, false) => vec![v.clone()],
            _ => vec![k.clone(), v.clone()],
        };
        let r = ev.call_lambda(l, args)?;
        match a.name {
            "map" => mapped.push(r),
            "filter" if r.is_truthy() => {
                if is_hash {
                    kept_hash.insert(k, v);
                } else {
                    kept_array.push(v);
                }
            }
            _ => {}
        }
    }
    Ok(match a.name {
        "map" => Value::array(mapped),
        "filter" if is_hash => Value::hash(kept_hash),
        "filter" => Value::array(kept_array),
        _ => a.values[0].clone(),
    })
}

fn reduce(ev: &mut Evaluator, a: &Args, lambda: Option<&Lambda>) -> EvalResult {
    a.count(1, 2)?;
    let l = a.lambda(lambda, &[2])?;
    let items: Vec<Value> = match &a.values[0] {
        Value::Array(items) => items.to_vec(),
        Value::Hash(h) => h
            .iter()
            .map(|(k, v)| Value::array(vec![k.clone(), v.clone()]))
            .collect(),
        _ => return Err(a.wrong(0, "an Array or a Hash")),
    };
    let mut items = items.into_iter();
    let mut memo = match a.values.get(1) {
        Some(start) => start.clone(),
        None => match items.next() {
            Some(first) => first,
            None => return Ok(Value::Undef),
        },
    };
    for v in items {
        memo = ev.call_lambda(l, vec![memo, v])?;
    }
    Ok(memo)
}

/// `values` with arrays unfolded `depth` levels deep (`usize::MAX`: all the way), for
/// `flatten()` and the multibind option. An explicit stack: arrays nest as deep as their
/// source allowed, and passes must not recurse.
pub(crate) fn flatten(values: &[Value], depth: usize) -> Vec<Value> {
    let mut out = Vec::with_capacity(values.len());
    let mut stack: Vec<std::slice::Iter<Value>> = vec![values.iter()];
    while let Some(top) = stack.last_mut() {
        match top.next() {
            // The stack holds the top level plus one entry per level unfolded.
            Some(Value::Array(inner)) if stack.len() <= depth => stack.push(inner.iter()),
            Some(v) => out.push(v.clone()),
            None => {
                stack.pop();
            }
        }
    }
    out
}

/// `regsubst(target, pattern, replacement[, flags])`: `G` replaces every match, `I` ignores
/// case; `\1` in the replacement is a group. A target array is substituted element-wise.
/// `regsubst`, its results held to `limit` bytes together while they are built: a global
/// replacement of an empty match multiplies its input by the replacement's length.
fn regsubst(a: &Args, limit: u64) -> EvalResult {
    a.count(3, 4)?;
    let flags = if a.values.len() == 4 {
        a.string(3)?
    } else {
        ""
    };
    let source = match &a.values[1] {
        Value::Regex(r) => r.source.to_string(),
        Value::String(s) => s.to_string(),
        _ => return Err(a.wrong(1, "a String or Regexp")),
    };
    let source = if flags.contains('I') {
        format!("(?i){source}")
    } else {
        source
    };
    let re = super::ops::regex(&source, a.span)?;
    let replacement = ruby_replacement(a.string(2)?);
    let global = flags.contains('G');
    let mut left = limit;
    let mut subst = |s: &str| -> EvalResult<String> {
        let mut out = String::new();
        let mut last = 0;
        for caps in re
            .regex
            .captures_iter(s)
            .take(if global { usize::MAX } else { 1 })
        {
            let Some(whole) = caps.get(0) else { continue };
            out.push_str(&s[last..whole.start()]);
            caps.expand(replacement.as_str(), &mut out);
            last = whole.end();
            if out.len() as u64 > left {
                return Err(EvalError::new(
                    codes::EVAL_LIMIT,
                    a.span,
                    format!(
                        "`regsubst` would build more than the {} MiB a lookup may build",
                        super::MAX_VALUE_BYTES / (1024 * 1024)
                    ),
                ));
            }
        }
        out.push_str(&s[last..]);
        left = left.saturating_sub(out.len() as u64);
        Ok(out)
    };
    match &a.values[0] {
        Value::String(s) => Ok(Value::string(subst(s)?)),
        Value::Array(items) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(Value::string(subst(s)?)),
                _ => Err(a.wrong(0, "a String or an Array of String")),
            })
            .collect::<EvalResult<Vec<_>>>()
            .map(Value::array),
        _ => Err(a.wrong(0, "a String or an Array of String")),
    }
}

/// Ruby's `\0`..`\9` and `\\` in a replacement, as the `regex` crate writes them.
fn ruby_replacement(r: &str) -> String {
    let mut out = String::with_capacity(r.len());
    let mut chars = r.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek().copied()) {
            ('\\', Some(d)) if d.is_ascii_digit() => {
                chars.next();
                out.push_str(&format!("${{{d}}}"));
            }
            ('\\', Some('\\')) => {
                chars.next();
                out.push('\\');
            }
            ('$', _) => out.push_str("$$"),
            (c, _) => out.push(c),
        }
    }
    out
}

/// `sprintf` with Ruby's common directives: `%s %d %i %f %x %X %o %b %e %%`, flags `-+0 `,
/// width and precision.
/// The first of each distinct value, in order (hashed: linear, not quadratic).
// A regex value holds caches with interior mutability; its hash and equality use only its
// source text, which never changes.
#[allow(clippy::mutable_key_type)]
pub fn unique(items: impl IntoIterator<Item = Value>) -> Vec<Value> {
    let mut seen: foldhash::HashSet<Value> = foldhash::HashSet::default();
    items
        .into_iter()
        .filter(|v| seen.insert(v.clone()))
        .collect()
}

/// The widest field and the longest precision `sprintf` accepts: enough for any report, far
/// from the gigabytes a hostile `%10000000000s` would allocate.
pub const MAX_FORMAT_WIDTH: usize = 10_000;

/// A `sprintf` width or precision, within [`MAX_FORMAT_WIDTH`].
fn format_number(digits: &str, what: &str, span: Span) -> EvalResult<usize> {
    match digits.parse::<usize>() {
        Ok(n) if n <= MAX_FORMAT_WIDTH => Ok(n),
        _ => Err(EvalError::new(
            codes::EVAL_LIMIT,
            span,
            format!("`sprintf` {what} {digits} is over the limit of {MAX_FORMAT_WIDTH}"),
        )),
    }
}

fn sprintf(format: &str, args: &[Value], span: Span) -> EvalResult<String> {
    let mut out = String::new();
    let mut args = args.iter();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut flags = String::new();
        while let Some(&f) = chars.peek() {
            if "-+0 #".contains(f) {
                flags.push(f);
                chars.next();
            } else {
                break;
            }
        }
        let mut width = String::new();
        while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
            width.push(d);
            chars.next();
        }
        let mut precision: Option<usize> = None;
        if chars.peek() == Some(&'.') {
            chars.next();
            let mut p = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                p.push(d);
                chars.next();
            }
            precision = Some(if p.is_empty() {
                0
            } else {
                format_number(&p, "precision", span)?
            });
        }
        let Some(conv) = chars.next() else {
            return Err(EvalError::type_error(
                span,
                "`sprintf` format ends after `%`",
            ));
        };
        if conv == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = args.next() else {
            return Err(EvalError::type_error(
                span,
                "`sprintf` has more directives than arguments",
            ));
        };
        let number = |v: &Value| -> EvalResult<f64> {
            match v {
                Value::Integer(i) => Ok(*i as f64),
                Value::Float(f) => Ok(*f),
                Value::String(s) => s.trim().parse::<f64>().map_err(|_| {
                    EvalError::type_error(
                        span,
                        format!("`sprintf` %{conv} needs a number, got '{s}'"),
                    )
                }),
                other => Err(EvalError::type_error(
                    span,
                    format!(
                        "`sprintf` %{conv} needs a number, got {}",
                        other.type_name()
                    ),
                )),
            }
        };
        let plus = if flags.contains('+') { "+" } else { "" };
        let body = match conv {
            's' => {
                let s = arg.to_display_string();
                match precision {
                    Some(p) => s.chars().take(p).collect(),
                    None => s,
                }
            }
            'd' | 'i' => {
                let n = number(arg)?.trunc() as i64;
                if n >= 0 {
                    format!("{plus}{n}")
                } else {
                    n.to_string()
                }
            }
            'f' => {
                let n = number(arg)?;
                let s = format!("{:.*}", precision.unwrap_or(6), n);
                if n >= 0.0 {
                    format!("{plus}{s}")
                } else {
                    s
                }
            }
            'e' => format!("{:.*e}", precision.unwrap_or(6), number(arg)?),
            'x' => format!("{:x}", number(arg)? as i64),
            'X' => format!("{:X}", number(arg)? as i64),
            'o' => format!("{:o}", number(arg)? as i64),
            'b' => format!("{:b}", number(arg)? as i64),
            other => {
                return Err(EvalError::type_error(
                    span,
                    format!("`sprintf` does not know the directive %{other}"),
                ))
            }
        };
        let width: usize = if width.is_empty() {
            0
        } else {
            format_number(&width, "width", span)?
        };
        let len = body.chars().count();
        if len >= width {
            out.push_str(&body);
        } else if flags.contains('-') {
            out.push_str(&body);
            out.push_str(&" ".repeat(width - len));
        } else if flags.contains('0') && conv != 's' {
            let (sign, digits) = match body.strip_prefix(['-', '+']) {
                Some(rest) => (&body[..1], rest),
                None => ("", body.as_str()),
            };
            out.push_str(sign);
            out.push_str(&"0".repeat(width - len));
            out.push_str(digits);
        } else {
            out.push_str(&" ".repeat(width - len));
            out.push_str(&body);
        }
    }
    Ok(out)
}
