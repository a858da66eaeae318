//! Multibinds (reference section 5.4 with its defects fixed, D14): contributions of every
//! layer in D14 order, each type-checked, then combined. Array: concatenated (non-arrays
//! appended), `priority_on_named`/`priority_on_unnamed`, `flatten`, `uniq`, or a `combinator`
//! lambda `|$memo, $x|`. Hash: named contributions, `conflict_resolution` (`priority`,
//! `ignore`, `error`, `append`, `merge`), or a `combinator` lambda `|$key, $current, $value|`.

use super::{at_origin, option, ptype, Code, Injector};
use crate::compose::multibind::{flag, Entry, Fate, Resolution, Rules};
use crate::compose::Bindings;
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
    pub precedence: crate::compose::Precedence,
    pub origin: String,
    pub span: crate::span::Span,
    /// The innermost `when` around it (its predicates are worked out for `--explain`).
    pub when: Option<usize>,
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
    let Some(id) = Bindings::multibind_id(m) else {
        return Ok(Vec::new());
    };
    let list: Vec<_> = inj
        .composition
        .contributions(id)
        .into_iter()
        .map(|(c, p)| (c.binding, c.layer, p, c.when))
        .collect();
    let mut out = Vec::with_capacity(list.len());
    for (b, layer, precedence, when) in list {
        let Some(p) = &b.producer else { continue };
        let name = Key::new(ptype(&b.type_), b.name.clone().unwrap_or_default());
        let Some(value) = inj.produce(p, b.producer_args(), &name, &b.origin)? else {
            continue;
        };
        out.push(Produced {
            name: b.name.as_deref().map(str::to_string),
            value,
            layer,
            precedence,
            origin: super::origin_text(&b.origin),
            span: b.origin.span,
            when,
            how: String::new(),
        });
    }
    Ok(out)
}

/// The fate of each produced contribution under the multibind's rules (D18).
fn fates(rules: Rules, produced: &[Produced]) -> Vec<Fate> {
    let entries: Vec<Entry> = produced
        .iter()
        .map(|p| Entry {
            name: p.name.as_deref(),
            layer: p.layer,
            precedence: &p.precedence,
        })
        .collect();
    rules.fates(&entries)
}

/// Two contributions of one name that nothing can choose between.
fn duplicate(key: &Key, what: &str, first: &Produced, second: &Produced) -> EvalError {
    let name = match second.name.as_deref().filter(|n| !n.is_empty()) {
        Some(n) => format!("named '{n}'"),
        None => "without a name".to_string(),
    };
    // Equal rank, or `conflict_resolution => error`, which refuses a name twice whatever
    // the ranks: say which.
    let why = if first.layer == second.layer && first.precedence == second.precedence {
        "with the same precedence"
    } else {
        "and its `conflict_resolution => error` allows one per name"
    };
    EvalError::new(
        codes::MULTIBIND_CONTRIBUTION,
        second.span,
        format!("the {what} multibind `{key}` gets two contributions {name} {why}"),
    )
    .with_note(format!("note: from {} and {}", first.origin, second.origin))
}

fn array<'m>(
    inj: &mut Injector<'m>,
    m: &'m Multibinding<Code<'m>>,
    key: &Key,
    element: &PType,
    produced: &mut [Produced],
) -> EvalResult<Value> {
    check_types(m, key, element, produced, true)?;
    let combinator = match option(&m.producer_args, "combinator") {
        Some(Code::Lambda(l)) => Some(&**l),
        _ => None,
    };
    let mut kept: Vec<Value> = Vec::new();
    for (i, fate) in fates(Rules::of(m, false), produced).into_iter().enumerate() {
        let option_name = if produced[i].name.as_deref().is_some_and(|n| !n.is_empty()) {
            "priority_on_named"
        } else {
            "priority_on_unnamed"
        };
        match fate {
            Fate::Duplicate { first } => {
                return Err(
                    duplicate(key, "Array", &produced[first], &produced[i]).with_note(format!(
                "help: give one a higher precedence, or set `{option_name} => false` to keep both"
            )),
                )
            }
            Fate::Dropped { .. } => {
                produced[i].how = format!(
                    "dropped: a contribution of this name from a higher layer or precedence wins ({option_name})"
                );
                continue;
            }
            _ => {}
        }
        let p = &mut produced[i];
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
    Ok(Value::array(flatten_and_uniq(m, out)))
}

/// The `flatten` and `uniq` options, applied to a collected array.
fn flatten_and_uniq(m: &Multibinding<Code>, mut items: Vec<Value>) -> Vec<Value> {
    match option(&m.producer_args, "flatten") {
        Some(Code::Value(Value::Boolean(true))) => items = flatten(&items, usize::MAX),
        Some(Code::Value(Value::Integer(depth))) if *depth >= 0 => {
            items = flatten(&items, *depth as usize)
        }
        _ => {}
    }
    if flag(&m.producer_args, "uniq", false) {
        items = crate::eval::functions::unique(items);
    }
    items
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
    let rules = Rules::of(m, true);
    let append = rules == Rules::Hash(Resolution::Append);
    check_types(m, key, element, produced, append)?;
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
    for (i, fate) in fates(rules, produced).into_iter().enumerate() {
        let k = Value::string(produced[i].name.clone().unwrap_or_default());
        match fate {
            // D18: under `append` a key's first value is `[v]` (an array stays one element).
            Fate::Kept if append => {
                produced[i].how =
                    "added as the key's first element (conflict_resolution append)".into();
                let items = flatten_and_uniq(m, vec![produced[i].value.clone()]);
                out.insert(k, Value::array(items));
            }
            Fate::Kept => {
                produced[i].how = "added".into();
                out.insert(k, produced[i].value.clone());
            }
            Fate::Duplicate { first } => {
                let help = if rules == Rules::Hash(Resolution::Error) {
                    "note: `conflict_resolution => error` allows each key once"
                } else {
                    "help: give one a higher precedence, or set `conflict_resolution`"
                };
                return Err(duplicate(key, "Hash", &produced[first], &produced[i]).with_note(help));
            }
            Fate::Dropped { .. } => {
                produced[i].how = "dropped: the key came from a higher layer or precedence".into()
            }
            Fate::Ignored { .. } => {
                produced[i].how =
                    "ignored: the key came earlier (conflict_resolution ignore)".into()
            }
            Fate::Combined { .. } if append => {
                produced[i].how =
                    "appended to the key's value as one element (conflict_resolution append)"
                        .into();
                let mut items: Vec<Value> = match out.get(&k) {
                    Some(Value::Array(a)) => a.to_vec(),
                    Some(v) => vec![v.clone()],
                    None => Vec::new(),
                };
                items.push(produced[i].value.clone());
                out.insert(k, Value::array(flatten_and_uniq(m, items)));
            }
            Fate::Combined { first } => {
                // `merge`: the earlier (higher) contribution's keys win; the later fills gaps.
                match (out.get(&k), &produced[i].value) {
                    (Some(Value::Hash(earlier)), Value::Hash(later)) => {
                        let mut merged: Map = (**later).clone();
                        for (kk, vv) in earlier.iter() {
                            merged.insert(kk.clone(), vv.clone());
                        }
                        produced[i].how =
                            "merged under the earlier value (conflict_resolution merge)".into();
                        out.insert(k, Value::hash(merged));
                    }
                    _ => {
                        return Err(duplicate(key, "Hash", &produced[first], &produced[i])
                            .with_note("note: `merge` needs both values to be hashes"))
                    }
                }
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
