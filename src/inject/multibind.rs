//! Multibinds (reference section 5.4 with its defects fixed, D14): contributions of every
//! layer in D14 order, each type-checked, then combined. Array: concatenated (non-arrays
//! appended), `priority_on_named`/`priority_on_unnamed`, `flatten`, `uniq`, or a `combinator`
//! lambda `|$memo, $x|`. Hash: named contributions, `conflict_resolution` (`priority`,
//! `ignore`, `error`, `append`, `merge`), or a `combinator` lambda `|$key, $current, $value|`.

use super::compose::Contribution;
use super::{at_origin, option, ptype, Code, Injector};
use crate::diag::codes;
use crate::eval::functions::flatten;
use crate::eval::{EvalError, EvalResult, Map, Value};
use crate::lower::keys::Key;
use crate::lower::model::Multibinding;
use crate::types::PType;

/// One contribution's value and what ordering decided about it.
pub struct Produced {
    pub name: Option<String>,
    pub value: Value,
    pub layer: usize,
    pub precedence: super::compose::Precedence,
    pub origin: String,
    pub span: crate::span::Span,
    pub conditions: std::rc::Rc<[super::compose::PredicateOutcome]>,
    /// How it was combined (for `--explain`).
    pub how: String,
}

pub(super) fn produce<'m>(
    inj: &mut Injector<'m>,
    m: &'m Multibinding<Code<'m>>,
    key: &Key,
) -> EvalResult<Value> {
    let (value, _) = combine(inj, m, key)?;
    match option(&m.producer_args, "transformer") {
        Some(Code::Lambda(l)) => inj.call_lambda(l, vec![value]),
        _ => Ok(value),
    }
}

/// The combined value (before a `transformer`) and every contribution with how it was
/// combined.
pub(super) fn combine<'m>(
    inj: &mut Injector<'m>,
    m: &'m Multibinding<Code<'m>>,
    key: &Key,
) -> EvalResult<(Value, Vec<Produced>)> {
    let mut produced = contributions(inj, m)?;
    let ty = ptype(&m.type_);
    let value = match &ty {
        PType::Array(element) => array(inj, m, key, element, &mut produced)?,
        PType::Hash(_, element) => hash(inj, m, key, element, &mut produced)?,
        _ => {
            return Err(at_origin(
                codes::EVAL_TYPE_ERROR,
                &m.origin,
                format!("the multibind `{key}` must be an Array or a Hash, not {ty}"),
            ))
        }
    };
    Ok((value, produced))
}

/// The contributions that apply to the request, produced, in D14 order.
pub(super) fn contributions<'m>(
    inj: &mut Injector<'m>,
    m: &'m Multibinding<Code<'m>>,
) -> EvalResult<Vec<Produced>> {
    let Some(id) = m.id.as_deref().or(m.name.as_deref()) else {
        return Ok(Vec::new());
    };
    type Entry<'m> = (
        &'m crate::lower::model::Binding<Code<'m>>,
        usize,
        super::compose::Precedence,
        std::rc::Rc<[super::compose::PredicateOutcome]>,
    );
    let list: Vec<Entry<'m>> = inj
        .composition
        .contributions
        .get(id)
        .map(|l| {
            l.iter()
                .filter_map(|c: &Contribution<'m>| {
                    c.precedence
                        .clone()
                        .map(|p| (c.binding, c.layer, p, c.conditions.clone()))
                })
                .collect()
        })
        .unwrap_or_default();
    let mut out = Vec::with_capacity(list.len());
    for (b, layer, precedence, conditions) in list {
        let Some(p) = &b.producer else { continue };
        let name = Key::new(ptype(&b.type_), b.name.clone().unwrap_or_default());
        let Some(value) = inj.produce(p, &b.producer_args, &name, &b.origin)? else {
            continue;
        };
        out.push(Produced {
            name: b.name.clone(),
            value,
            layer,
            precedence,
            origin: super::origin_text(&b.origin),
            span: b.origin.span,
            conditions,
            how: String::new(),
        });
    }
    Ok(out)
}

/// A Boolean option (the check has made sure it is one when given).
fn flag(m: &Multibinding<Code>, name: &str, default: bool) -> bool {
    match option(&m.producer_args, name) {
        Some(Code::Value(Value::Boolean(b))) => *b,
        _ => default,
    }
}

fn array<'m>(
    inj: &mut Injector<'m>,
    m: &'m Multibinding<Code<'m>>,
    key: &Key,
    element: &PType,
    produced: &mut [Produced],
) -> EvalResult<Value> {
    check_types(m, key, element, produced, true)?;
    // Named contributions: the first (highest) of a name wins with `priority_on_named`
    // (default), unnamed ones are all kept unless `priority_on_unnamed`.
    let on_named = flag(m, "priority_on_named", true);
    let on_unnamed = flag(m, "priority_on_unnamed", false);
    let combinator = match option(&m.producer_args, "combinator") {
        Some(Code::Lambda(l)) => Some(*l),
        _ => None,
    };
    let mut seen_names: Vec<Option<String>> = Vec::new();
    let mut kept: Vec<Value> = Vec::new();
    for p in produced.iter_mut() {
        let name = p.name.clone().filter(|n| !n.is_empty());
        let repeated = seen_names.contains(&name);
        seen_names.push(name.clone());
        if repeated && name.is_some() && on_named {
            p.how =
                "dropped: an earlier contribution of this name has priority (priority_on_named)"
                    .into();
            continue;
        }
        if repeated && name.is_none() && on_unnamed {
            p.how = "dropped: an earlier unnamed contribution has priority (priority_on_unnamed)"
                .into();
            continue;
        }
        p.how = match (&combinator, &p.value) {
            (Some(_), _) => "passed to the combinator",
            (None, Value::Array(_)) => "concatenated",
            (None, _) => "appended",
        }
        .into();
        kept.push(p.value.clone());
    }
    if let Some(l) = combinator {
        let mut memo = Value::array(Vec::new());
        for v in kept {
            memo = inj.call_lambda(l, vec![memo, v])?;
        }
        return Ok(memo);
    }
    let mut out: Vec<Value> = Vec::new();
    for v in kept {
        match v {
            Value::Array(items) => out.extend(items.iter().cloned()),
            v => out.push(v),
        }
    }
    match option(&m.producer_args, "flatten") {
        Some(Code::Value(Value::Boolean(true))) => out = flatten(&out, usize::MAX),
        Some(Code::Value(Value::Integer(depth))) if *depth >= 0 => {
            out = flatten(&out, *depth as usize)
        }
        _ => {}
    }
    if flag(m, "uniq", false) {
        let mut unique: Vec<Value> = Vec::with_capacity(out.len());
        for v in out {
            if !unique.contains(&v) {
                unique.push(v);
            }
        }
        out = unique;
    }
    Ok(Value::array(out))
}

fn hash<'m>(
    inj: &mut Injector<'m>,
    m: &'m Multibinding<Code<'m>>,
    key: &Key,
    element: &PType,
    produced: &mut [Produced],
) -> EvalResult<Value> {
    for p in produced.iter() {
        if p.name.as_deref().is_none_or(str::is_empty) {
            return Err(EvalError::new(
                codes::MULTIBIND_CONTRIBUTION,
                p.span,
                format!("a contribution to the Hash multibind `{key}` has no name"),
            )
            .with_note("help: name it: `bind 'name' to ... in 'id'`"));
        }
    }
    let resolution = match option(&m.producer_args, "conflict_resolution") {
        Some(Code::Value(Value::String(s))) => s.to_string(),
        _ => "priority".to_string(),
    };
    check_types(m, key, element, produced, resolution == "append")?;
    let mut out = Map::new();
    if let Some(Code::Lambda(l)) = option(&m.producer_args, "combinator") {
        for p in produced.iter_mut() {
            let k = Value::string(p.name.clone().unwrap_or_default());
            let current = out.get(&k).cloned().unwrap_or(Value::Undef);
            p.how = "passed to the combinator".into();
            let v = inj.call_lambda(l, vec![k.clone(), current, p.value.clone()])?;
            out.insert(k, v);
        }
        return Ok(Value::hash(out));
    }
    let mut ranks: Vec<(Value, usize, super::compose::Precedence, String)> = Vec::new();
    for p in produced.iter_mut() {
        let k = Value::string(p.name.clone().unwrap_or_default());
        let Some(existing) = out.get(&k).cloned() else {
            ranks.push((k.clone(), p.layer, p.precedence.clone(), p.origin.clone()));
            p.how = "added".into();
            out.insert(k, p.value.clone());
            continue;
        };
        let first = ranks.iter().find(|r| r.0 == k).cloned();
        let duplicate = || {
            EvalError::new(
                codes::MULTIBIND_CONTRIBUTION,
                p.span,
                format!(
                    "the Hash multibind `{key}` gets the key '{}' twice",
                    p.name.as_deref().unwrap_or("")
                ),
            )
            .with_note(format!(
                "note: from {} and {}",
                first.as_ref().map_or("?", |f| f.3.as_str()),
                p.origin
            ))
        };
        match resolution.as_str() {
            "ignore" => p.how = "ignored: the key came earlier (conflict_resolution ignore)".into(),
            "error" => return Err(duplicate()),
            "append" => {
                p.how = "appended to the key's value (conflict_resolution append)".into();
                let mut items: Vec<Value> = match existing {
                    Value::Array(a) => a.to_vec(),
                    v => vec![v],
                };
                match &p.value {
                    Value::Array(a) => items.extend(a.iter().cloned()),
                    v => items.push(v.clone()),
                }
                if matches!(
                    option(&m.producer_args, "flatten"),
                    Some(Code::Value(Value::Boolean(true)))
                ) {
                    items = flatten(&items, usize::MAX);
                }
                if flag(m, "uniq", false) {
                    let mut unique = Vec::with_capacity(items.len());
                    for v in items {
                        if !unique.contains(&v) {
                            unique.push(v);
                        }
                    }
                    items = unique;
                }
                out.insert(k, Value::array(items));
            }
            "merge" => {
                // The earlier (higher) contribution's keys win; the later one fills gaps.
                if let (Value::Hash(earlier), Value::Hash(later)) = (&existing, &p.value) {
                    p.how = "merged under the earlier value (conflict_resolution merge)".into();
                    let mut merged: Map = (**later).clone();
                    for (kk, vv) in earlier.iter() {
                        merged.insert(kk.clone(), vv.clone());
                    }
                    out.insert(k, Value::hash(merged));
                } else {
                    return Err(
                        duplicate().with_note("note: `merge` needs both values to be hashes")
                    );
                }
            }
            _ => {
                // `priority`: contributions come highest first; an equal one is a conflict.
                if let Some((_, layer, precedence, _)) = &first {
                    if *layer == p.layer && *precedence == p.precedence {
                        return Err(duplicate().with_note(
                            "help: give one a higher precedence, or set `conflict_resolution`",
                        ));
                    }
                }
                p.how = "dropped: the key came from a higher layer or precedence".into();
            }
        }
    }
    Ok(Value::hash(out))
}

/// Every contribution has the element type (or, with `arrays`, is an array of it).
fn check_types(
    m: &Multibinding<Code>,
    key: &Key,
    element: &PType,
    produced: &[Produced],
    arrays: bool,
) -> EvalResult<()> {
    for p in produced {
        let fits = p.value.is_instance(element)
            || (arrays
                && matches!(&p.value, Value::Array(items) if items.iter().all(|v| v.is_instance(element))));
        if !fits {
            return Err(contribution_type(m, key, element, p));
        }
    }
    Ok(())
}

fn contribution_type(
    m: &Multibinding<Code>,
    key: &Key,
    element: &PType,
    p: &Produced,
) -> EvalError {
    EvalError::new(
        codes::INCOMPATIBLE_TYPE,
        p.span,
        format!(
            "this contribution to the multibind `{key}` is {}, not {element}",
            p.value.infer_type()
        ),
    )
    .with_note(format!(
        "note: the multibind is at {}",
        super::origin_text(&m.origin)
    ))
}
