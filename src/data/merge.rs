//! Hiera's merge algebra and `lookup_options`, as Puppet 7 has them: the strategies
//! (`first`, `unique`, `hash`, `deep` with its options, Puppet's `MergeStrategy`), a merge over
//! the places a key is found (`merge_lookup`), Ruby's text of a value where Puppet shows one,
//! and what a `lookup_options` hash may say (its checks for `pbc check`, and the strategy and
//! `convert_to` it names for a key). It merges values it is given; it reads no file and looks
//! nothing up (the injector does).

use crate::diag::codes;
use crate::eval::convert::{ConvertError, ConvertTo};
use crate::eval::{EvalError, EvalResult, Map, Value};
use crate::span::Span;
use std::rc::Rc;

/// A merge strategy with its options (Puppet's `MergeStrategy`).
#[derive(Clone, Debug, PartialEq)]
pub enum Merge {
    First,
    Unique,
    Hash,
    Deep(DeepOptions),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeepOptions {
    pub knockout_prefix: Option<String>,
    pub sort_merged_arrays: bool,
    pub merge_hash_arrays: bool,
}

impl Merge {
    /// A strategy as `lookup_options` or `--merge` names it: `'deep'` or
    /// `{strategy => 'deep', knockout_prefix => '--', ...}`.
    pub fn from_value(v: &Value) -> Result<Merge, String> {
        let (name, options) = match v {
            Value::String(s) => (s.to_string(), None),
            Value::Hash(h) => match h.get(&Value::string("strategy")) {
                Some(Value::String(s)) => (s.to_string(), Some(h)),
                _ => {
                    return Err(
                        "the hash given as `merge` must name its strategy under `strategy`".into(),
                    )
                }
            },
            other => {
                return Err(format!(
                    "a merge is a strategy's name or a hash, not {}",
                    other.type_name()
                ))
            }
        };
        let flag = |name: &str| -> Result<bool, String> {
            match options.and_then(|o| o.get(&Value::string(name))) {
                None | Some(Value::Undef) => Ok(false),
                Some(Value::Boolean(b)) => Ok(*b),
                Some(other) => Err(format!(
                    "`{name}` must be a Boolean, not {}",
                    other.type_name()
                )),
            }
        };
        let known = |allowed: &[&str]| -> Result<(), String> {
            if let Some(o) = options {
                for k in o.keys() {
                    let k = k.to_display_string();
                    if k != "strategy" && !allowed.contains(&k.as_str()) {
                        return Err(format!("the merge strategy `{name}` takes no option `{k}`"));
                    }
                }
            }
            Ok(())
        };
        match name.as_str() {
            "first" | "default" => known(&[]).map(|()| Merge::First),
            "unique" => known(&[]).map(|()| Merge::Unique),
            "hash" => known(&[]).map(|()| Merge::Hash),
            "deep" => {
                known(&[
                    "knockout_prefix",
                    "sort_merged_arrays",
                    "merge_hash_arrays",
                    "merge_debug",
                ])?;
                let knockout_prefix = match options
                    .and_then(|o| o.get(&Value::string("knockout_prefix")))
                {
                    None | Some(Value::Undef) => None,
                    Some(Value::String(s)) if !s.is_empty() => Some(s.to_string()),
                    Some(_) => return Err("`knockout_prefix` must be a non-empty String".into()),
                };
                Ok(Merge::Deep(DeepOptions {
                    knockout_prefix,
                    sort_merged_arrays: flag("sort_merged_arrays")?,
                    merge_hash_arrays: flag("merge_hash_arrays")?,
                }))
            }
            other => Err(format!(
                "unknown merge strategy `{other}` (first, unique, hash or deep)"
            )),
        }
    }

    pub fn name(&self) -> &'static str {
        match self {
            Merge::First => "first",
            Merge::Unique => "unique",
            Merge::Hash => "hash",
            Merge::Deep(_) => "deep",
        }
    }

    /// `MergeStrategy#merge_single`: a value found in the only variant of a level.
    fn single(&self, v: Value) -> Value {
        match (self, v) {
            (Merge::Unique, Value::Array(items)) => Value::array(unique(items.iter().cloned())),
            (_, v) => v,
        }
    }

    /// `MergeStrategy#convert_value`: the first value found among several variants.
    fn convert(&self, v: Value) -> Value {
        match self {
            Merge::Unique => Value::array(flatten(v)),
            _ => v,
        }
    }

    /// `MergeStrategy#merge(e1, e2)`: `e1` was found first (it wins).
    fn merge(&self, e1: Value, e2: Value) -> Result<Value, String> {
        match self {
            Merge::First => Ok(e1),
            Merge::Unique => {
                for (which, e) in [("first", &e1), ("second", &e2)] {
                    if matches!(e, Value::Hash(_) | Value::Undef) {
                        return Err(format!(
                            "the {which} element of the merge has the wrong type: `unique` merges Scalars and Arrays, not {}",
                            e.type_name()
                        ));
                    }
                }
                let mut all = flatten(e1);
                all.extend(flatten(e2));
                Ok(Value::array(unique(all)))
            }
            Merge::Hash => {
                let (Value::Hash(h1), Value::Hash(h2)) = (&e1, &e2) else {
                    let wrong = if matches!(e1, Value::Hash(_)) {
                        &e2
                    } else {
                        &e1
                    };
                    return Err(format!("`hash` merges Hashes, not {}", wrong.type_name()));
                };
                // Ruby's `e2.merge(e1)`: the second's order, the first's values.
                let mut out: Map = (**h2).clone();
                for (k, v) in h1.iter() {
                    out.insert(k.clone(), v.clone());
                }
                Ok(Value::hash(out))
            }
            Merge::Deep(options) => Ok(deep_merge(e1, e2, options)),
        }
    }
}

pub(crate) fn flatten(v: Value) -> Vec<Value> {
    let mut out = Vec::new();
    let mut stack = vec![v];
    // Depth-first, left to right, without recursion.
    while let Some(v) = stack.pop() {
        match v {
            Value::Array(items) => stack.extend(items.iter().rev().cloned()),
            other => out.push(other),
        }
    }
    out
}

/// Ruby's `Array#|` and `uniq`, which Hiera's `unique` and `deep` merges use: the first of
/// each distinct value, in order, hashed (a search of what came before was quadratic: two
/// lists of 40,000 took 22 s).
pub(crate) fn unique(items: impl IntoIterator<Item = Value>) -> Vec<Value> {
    crate::eval::functions::unique(items)
}

/// Ruby's truthiness (`dest[key]` in `deep_merge!`).
pub(crate) fn truthy(v: &Value) -> bool {
    !matches!(v, Value::Undef | Value::Boolean(false))
}

/// The `deep_merge` gem's `deep_merge!(source, dest)` as Puppet calls it
/// (`preserve_unmergeables: false`): `source` (found first) merged into `dest`.
pub(crate) fn deep_merge(source: Value, dest: Value, options: &DeepOptions) -> Value {
    if matches!(source, Value::Undef) {
        return dest;
    }
    if !truthy(&dest) {
        return source;
    }
    let knockout = options.knockout_prefix.as_deref();
    match source {
        Value::Hash(s) => match dest {
            Value::Hash(d) => {
                let mut d: Map = (*d).clone();
                for (k, sv) in s.iter() {
                    let merged = match d.get(k) {
                        Some(dv) if truthy(dv) => deep_merge(sv.clone(), dv.clone(), options),
                        _ => deep_merge(sv.clone(), sv.clone(), options),
                    };
                    d.insert(k.clone(), merged);
                }
                Value::hash(d)
            }
            // Ruby overwrites once per key of the source: an empty one leaves it be.
            dest if s.is_empty() => dest,
            _ => overwrite(Value::Hash(s), knockout),
        },
        Value::Array(s) => {
            let mut source: Vec<Value> = (*s).clone();
            let mut dest = dest;
            if let Some(prefix) = knockout {
                let whole = Value::string(prefix);
                if source.contains(&whole) {
                    dest = match dest {
                        Value::Array(_) => Value::array(Vec::new()),
                        Value::Hash(_) => Value::hash(Map::new()),
                        Value::String(_) => Value::string(""),
                        _ => Value::Undef,
                    };
                    source.retain(|v| *v != whole);
                }
            }
            match dest {
                Value::Array(d) => {
                    let mut dest: Vec<Value> = (*d).clone();
                    if let Some(prefix) = knockout {
                        source.retain(|item| {
                            let Value::String(s) = item else { return true };
                            let Some(stripped) = s.strip_prefix(prefix) else {
                                return true;
                            };
                            let stripped = Value::string(stripped);
                            dest.retain(|v| *v != stripped && v != item);
                            false
                        });
                    }
                    let all_hashes = |l: &[Value]| l.iter().all(|v| matches!(v, Value::Hash(_)));
                    let mut merged =
                        if options.merge_hash_arrays && all_hashes(&source) && all_hashes(&dest) {
                            let mut list: Vec<Value> = dest
                                .iter()
                                .enumerate()
                                .map(|(i, d)| {
                                    let s = source
                                        .get(i)
                                        .cloned()
                                        .unwrap_or_else(|| Value::hash(Map::new()));
                                    deep_merge(s, d.clone(), options)
                                })
                                .collect();
                            list.extend(source.iter().skip(dest.len()).cloned());
                            list
                        } else {
                            // Ruby's `dest | source`.
                            unique(dest.into_iter().chain(source))
                        };
                    if options.sort_merged_arrays {
                        sort_values(&mut merged);
                    }
                    Value::array(merged)
                }
                _ => overwrite(Value::array(source), knockout),
            }
        }
        other => overwrite(other, knockout),
    }
}

/// `overwrite_unmergeables`: the source replaces the destination, without its knocked-out
/// elements (a knocked-out string gives `''`).
pub(crate) fn overwrite(source: Value, knockout: Option<&str>) -> Value {
    let Some(prefix) = knockout else {
        return source;
    };
    match source {
        Value::String(s) if s.starts_with(prefix) => Value::string(""),
        Value::Array(items) => Value::array(
            items
                .iter()
                .filter(|v| !matches!(v, Value::String(s) if s.starts_with(prefix)))
                .cloned()
                .collect(),
        ),
        other => other,
    }
}

/// Ruby's `sort!` where it can compare (all strings, or all numbers); otherwise as they are.
pub(crate) fn sort_values(items: &mut [Value]) {
    if items.iter().all(|v| matches!(v, Value::String(_))) {
        items.sort_by_cached_key(Value::to_display_string);
    } else if items
        .iter()
        .all(|v| matches!(v, Value::Integer(_) | Value::Float(_)))
    {
        let num = |v: &Value| match v {
            Value::Integer(i) => *i as f64,
            Value::Float(f) => *f,
            _ => 0.0,
        };
        items.sort_by(|a, b| num(a).total_cmp(&num(b)));
    }
}

/// Ruby's `to_s` of a value interpolated into a string.
pub fn ruby_text(v: &Value) -> String {
    match v {
        Value::Undef => String::new(),
        Value::String(s) => s.to_string(),
        Value::Array(_) | Value::Hash(_) => ruby_inspect(v),
        other => other.to_display_string(),
    }
}

/// Ruby's `inspect` (how an Array or Hash reads when interpolated).
pub(crate) fn ruby_inspect(v: &Value) -> String {
    let mut out = String::new();
    // An explicit stack of what is left to write.
    enum Step<'a> {
        Value(&'a Value),
        Text(&'static str),
    }
    let mut stack = vec![Step::Value(v)];
    while let Some(step) = stack.pop() {
        match step {
            Step::Text(t) => out.push_str(t),
            Step::Value(v) => match v {
                Value::Undef => out.push_str("nil"),
                Value::String(s) => {
                    out.push('"');
                    for c in s.chars() {
                        match c {
                            '"' => out.push_str("\\\""),
                            '\\' => out.push_str("\\\\"),
                            '\n' => out.push_str("\\n"),
                            '\t' => out.push_str("\\t"),
                            c => out.push(c),
                        }
                    }
                    out.push('"');
                }
                Value::Array(items) => {
                    stack.push(Step::Text("]"));
                    for (i, item) in items.iter().enumerate().rev() {
                        stack.push(Step::Value(item));
                        if i > 0 {
                            stack.push(Step::Text(", "));
                        }
                    }
                    stack.push(Step::Text("["));
                }
                Value::Hash(map) => {
                    stack.push(Step::Text("}"));
                    let entries: Vec<_> = map.iter().collect();
                    for (i, (k, v)) in entries.into_iter().enumerate().rev() {
                        stack.push(Step::Value(v));
                        stack.push(Step::Text("=>"));
                        stack.push(Step::Value(k));
                        if i > 0 {
                            stack.push(Step::Text(", "));
                        }
                    }
                    stack.push(Step::Text("{"));
                }
                other => out.push_str(&other.to_display_string()),
            },
        }
    }
    out
}

/// `MergeStrategy#lookup` over `variants`: `first` takes the first found; the others merge
/// every one found in order (the first converted, a lone variant's value taken as single).
/// `find` gives `Ok(None)` for a variant that does not find the key.
pub fn merge_lookup<T>(
    merge: &Merge,
    variants: &[T],
    find: &mut dyn FnMut(&T) -> EvalResult<Option<Value>>,
    at: Span,
) -> EvalResult<Option<Value>> {
    if *merge == Merge::First {
        for v in variants {
            if let Some(found) = find(v)? {
                return Ok(Some(found));
            }
        }
        return Ok(None);
    }
    match variants {
        [] => Ok(None),
        [only] => Ok(find(only)?.map(|v| merge.single(v))),
        _ => {
            let mut memo: Option<Value> = None;
            for v in variants {
                if let Some(found) = find(v)? {
                    memo = Some(match memo {
                        None => merge.convert(found),
                        Some(m) => merge
                            .merge(m, found)
                            .map_err(|why| EvalError::new(codes::HIERA_MERGE_MISMATCH, at, why))?,
                    });
                }
            }
            Ok(memo)
        }
    }
}

pub(crate) fn invalid_options(at: Span, message: String) -> EvalError {
    EvalError::new(codes::HIERA_INVALID_LOOKUP_OPTIONS, at, message)
}

/// `validate_lookup_options`: a hash; in a module, every key (or pattern) of that module.
pub(crate) fn validate_options(
    v: Option<Value>,
    module: Option<&str>,
    at: Span,
) -> EvalResult<Option<Value>> {
    let Some(v) = v else { return Ok(None) };
    let Value::Hash(map) = &v else {
        return Err(invalid_options(
            at,
            format!("`lookup_options` must be a hash, not {}", v.type_name()),
        ));
    };
    if let Some(m) = module {
        let prefix = format!("{m}::");
        for k in map.keys() {
            let k = k.to_display_string();
            let ok = match k.strip_prefix('^') {
                Some(pattern) => pattern.starts_with(&prefix),
                None => k.starts_with(&prefix),
            };
            if !ok {
                return Err(invalid_options(
                    at,
                    format!("the module `{m}`'s `lookup_options` has `{k}`: all its keys and patterns must start with `{prefix}`"),
                ));
            }
        }
    }
    Ok(Some(v))
}

/// What `pbc check` says of a data file's `lookup_options` (`value`, at `at`), as Puppet would
/// fail every lookup that reads them: not a hash, a module's key that is not its own, a
/// pattern that is no regular expression, an unknown merge strategy, a `convert_to` that is
/// no type. Every problem, not the first.
pub fn lookup_options_problems(
    value: &serde_json::Value,
    module: Option<&str>,
    at: Span,
) -> Vec<crate::diag::Diagnostic> {
    // The lookups that read these options fail (Puppet's do too); nothing else does.
    let to_diagnostic = |e: EvalError| {
        let mut d = crate::diag::Diagnostic::error(e.code, at, e.message).per_value();
        for note in e.notes {
            d = d.with_note(note);
        }
        d
    };
    let value = Value::from_json(value);
    let map = match validate_options(Some(value), module, at) {
        Ok(Some(Value::Hash(map))) => map,
        Ok(_) => return Vec::new(),
        Err(e) => return vec![to_diagnostic(e)],
    };
    let mut out = Vec::new();
    for (k, options) in map.iter() {
        let k = k.to_display_string();
        if k.starts_with('^') {
            if let Err(e) = regex::Regex::new(&k) {
                out.push(to_diagnostic(invalid_options(
                    at,
                    format!("the `lookup_options` pattern `{k}` is not a regular expression: {e}"),
                )));
            }
        }
        if let Err(e) = merge_of(Some(options), &k, at) {
            out.push(to_diagnostic(e));
        }
        if let Err(e) = convert_of(Some(options), &k, at) {
            if e.code == codes::HIERA_INVALID_LOOKUP_OPTIONS {
                out.push(to_diagnostic(e));
            }
        }
    }
    out
}

/// Two places' options: `first` wins where both name a key.
pub(crate) fn combine(
    hash: &Merge,
    first: Option<Value>,
    second: Option<Value>,
    at: Span,
) -> EvalResult<Option<Value>> {
    Ok(match (first, second) {
        (None, s) => s,
        (f, None) => f,
        (Some(f), Some(s)) => Some(hash.merge(f, s).map_err(|why| invalid_options(at, why))?),
    })
}

/// The key's `convert_to` option, read.
pub(crate) fn convert_of(
    options: Option<&Value>,
    root: &str,
    at: Span,
) -> EvalResult<Option<Rc<ConvertTo>>> {
    let Some(Value::Hash(o)) = options else {
        return Ok(None);
    };
    match o.get(&Value::string("convert_to")) {
        None | Some(Value::Undef) => Ok(None),
        Some(c) => ConvertTo::from_option(c)
            .map(|c| Some(Rc::new(c)))
            .map_err(|e| convert_error(e, root, at)),
    }
}

/// The found value converted as the key's `convert_to` says (Puppet's `new`).
pub(crate) fn convert_value(
    c: &ConvertTo,
    root: &str,
    found: Value,
    at: Span,
) -> EvalResult<Value> {
    c.apply(found).map_err(|e| convert_error(e, root, at))
}

pub(crate) fn convert_error(e: ConvertError, root: &str, at: Span) -> EvalError {
    match e {
        ConvertError::NotAType(why) => invalid_options(
            at,
            format!("`lookup_options` for `{root}`: `convert_to`: {why}"),
        ),
        ConvertError::NotSupported(why) => EvalError::new(
            codes::HIERA_CONVERT_TO_NOT_SUPPORTED,
            at,
            format!("`convert_to` for `{root}` names {why}"),
        )
        .with_note(
            "help: write the value in the type it should have, or convert it where it is used",
        ),
        ConvertError::Failed(why) => EvalError::new(
            codes::HIERA_CONVERT_TO_FAILED,
            at,
            format!("`convert_to` cannot convert the value found for `{root}`: {why}"),
        ),
        ConvertError::NotFinite(why) => EvalError::new(
            codes::EVAL_TYPE_ERROR,
            at,
            format!("`convert_to` for `{root}`: {why}"),
        ),
    }
}

pub(crate) fn has_merge(options: Option<&Value>) -> bool {
    matches!(options, Some(Value::Hash(o)) if !matches!(o.get(&Value::string("merge")), None | Some(Value::Undef)))
}

/// The strategy a key's options name (`merge`), `first` without one.
pub(crate) fn merge_of(options: Option<&Value>, root: &str, at: Span) -> EvalResult<Merge> {
    match options {
        Some(Value::Hash(o)) => match o.get(&Value::string("merge")) {
            None | Some(Value::Undef) => Ok(Merge::First),
            Some(m) => Merge::from_value(m).map_err(|why| {
                invalid_options(at, format!("`lookup_options` for `{root}`: {why}"))
            }),
        },
        _ => Ok(Merge::First),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn j(text: &str) -> Value {
        Value::from_json(&serde_json::from_str(text).expect("JSON"))
    }

    #[test]
    fn merges_as_puppet_does() {
        let hash = Merge::Hash;
        assert_eq!(
            hash.merge(j(r#"{"a":1,"c":3}"#), j(r#"{"b":2,"a":0}"#))
                .expect("merges"),
            j(r#"{"b":2,"a":1,"c":3}"#)
        );
        assert!(hash.merge(j("[1]"), j("{}")).is_err());
        let unique = Merge::Unique;
        assert_eq!(
            unique.merge(j("[1,[2,1]]"), j("[3,2]")).expect("merges"),
            j("[1,2,3]")
        );
        assert_eq!(unique.convert(j("[[1,1]]")), j("[1,1]"));
        assert_eq!(unique.single(j("[1,1,[2]]")), j("[1,[2]]"));
        let deep = Merge::Deep(DeepOptions::default());
        assert_eq!(
            deep.merge(
                j(r#"{"a":{"x":1,"l":[1,2]},"b":false}"#),
                j(r#"{"a":{"y":2,"l":[3,1]},"b":true,"c":null}"#)
            )
            .expect("merges"),
            j(r#"{"a":{"y":2,"l":[3,1,2],"x":1},"b":false,"c":null}"#)
        );
    }

    #[test]
    fn knockout_and_sorting() {
        let deep = Merge::Deep(DeepOptions {
            knockout_prefix: Some("--".into()),
            sort_merged_arrays: true,
            merge_hash_arrays: false,
        });
        assert_eq!(
            deep.merge(j(r#"{"l":["--b","d"]}"#), j(r#"{"l":["c","b","a"]}"#))
                .expect("merges"),
            j(r#"{"l":["a","c","d"]}"#)
        );
        assert_eq!(
            deep.merge(j(r#"{"l":["--","x"]}"#), j(r#"{"l":["c"]}"#))
                .expect("merges"),
            j(r#"{"l":["x"]}"#)
        );
    }

    #[test]
    fn strategies_read_from_values() {
        assert_eq!(
            Merge::from_value(&j(r#""deep""#)),
            Ok(Merge::Deep(DeepOptions::default()))
        );
        assert!(Merge::from_value(&j(r#""sideways""#)).is_err());
        assert!(Merge::from_value(&j(r#"{"strategy":"hash","knockout_prefix":"--"}"#)).is_err());
        assert_eq!(
            Merge::from_value(&j(r#"{"strategy":"deep","merge_hash_arrays":true}"#)),
            Ok(Merge::Deep(DeepOptions {
                merge_hash_arrays: true,
                ..DeepOptions::default()
            }))
        );
    }

    #[test]
    fn interpolated_collections_read_as_ruby_writes_them() {
        assert_eq!(ruby_text(&j(r#"["a",1,null]"#)), r#"["a", 1, nil]"#);
        assert_eq!(ruby_text(&j(r#"{"a":[true]}"#)), r#"{"a"=>[true]}"#);
    }
}
