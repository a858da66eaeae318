//! The rules only the composed layers show (D6, D11, D13): two bindings of one key in one layer
//! with equal precedence, an `override` with nothing to override, an abstract binding that no
//! binding makes concrete, and layer includes that name bindings the tree does not have.
//!
//! No request is known here, so each rule asks whether *some* request meets it: every binding is
//! reduced to the alternative sets of `when` predicates under which it applies, and two bindings
//! can meet only when their predicates agree on every category both name. A predicate value that
//! is not a literal could be anything, so it never proves a conflict and never hides a match:
//! the rules only report what every request the bindings apply to would show.

use super::{TreeFacts, TreeInput};
use crate::ast::{BindItem, Expr, Predicate};
use crate::diag::{codes, Diagnostic};
use crate::lower::keys::{keys_of, KeyedBinding};
use crate::lower::layers::{compose, default_layers, BindingsSource, MissingRef};
use crate::span::Span;
use crate::tree::FileRole;
use smol_str::SmolStr;
use std::collections::{BTreeMap, BTreeSet};

/// `or`s multiply through nested `when`s; a binding with more alternatives than this is not
/// analysed (it could only produce findings no one can read).
const MAX_ALTERNATIVES: usize = 64;

pub(super) fn check(inputs: &[TreeInput], facts: &TreeFacts, out: &mut Vec<Diagnostic>) {
    let order = CategoryPrecedence::of_site(facts);
    let mut sources: Vec<BindingsSource> = Vec::new();
    let mut files: Vec<BindingsFile> = Vec::new();
    for input in inputs {
        let FileRole::Bindings {
            expected_name,
            module,
        } = input.role
        else {
            continue;
        };
        let Some(block) = input.program.bindings_blocks().next() else {
            continue;
        };
        sources.push(BindingsSource {
            module: module.as_deref(),
            name: expected_name,
        });
        let mut candidates = Vec::new();
        flatten(&block.items, &[Conjunction::new()], &order, &mut candidates);
        files.push(BindingsFile { candidates });
    }
    let specs = facts.layers.clone().unwrap_or_else(default_layers);
    let (layers, missing) = compose(&specs, &sources);
    // A site checked without any bindings (`pbc check manifests/site.pp`) cannot tell what the
    // tree lacks.
    if !sources.is_empty() {
        for m in &missing {
            missing_bindings(m, out);
        }
    }

    // Without a site, the site that will use these bindings may supply what is missing.
    let without_site = |d: Diagnostic| {
        if facts.has_site {
            return d;
        }
        Diagnostic {
            severity: crate::diag::Severity::Warning,
            ..d
        }
        .with_note(
            "note: no site is part of this check; the site that uses these bindings may supply it",
        )
    };
    let mut reported: BTreeSet<(Span, Span)> = BTreeSet::new();
    let mut placed = vec![false; files.len()];
    let mut by_key: BTreeMap<String, Vec<Placed>> = BTreeMap::new();
    for (layer_index, layer) in layers.iter().enumerate() {
        let mut in_layer: Vec<&Candidate> = Vec::new();
        for &f in &layer.files {
            placed[f] = true;
            for c in &files[f].candidates {
                in_layer.push(c);
                by_key.entry(c.binding.key.id()).or_default().push(Placed {
                    candidate: c,
                    layer: layer_index,
                });
            }
        }
        conflicts(&in_layer, &order, Some(&layer.name), &mut reported, out);
    }
    // A file no layer includes still conflicts with itself wherever it is included later.
    for (f, file) in files.iter().enumerate() {
        if !placed[f] {
            let own: Vec<&Candidate> = file.candidates.iter().collect();
            conflicts(&own, &order, None, &mut reported, out);
        }
    }
    let layer_names: Vec<&str> = layers.iter().map(|l| l.name.as_str()).collect();
    let mut judged: BTreeSet<Span> = BTreeSet::new();
    for entries in by_key.values() {
        for p in entries {
            if !judged.insert(p.candidate.binding.span) {
                continue;
            }
            if p.candidate.binding.is_override {
                if let Some(d) = unresolved_override(p, entries, &order) {
                    out.push(without_site(d));
                }
            }
            if p.candidate.binding.is_abstract {
                if let Some(d) = abstract_not_overridden(p, entries, &order, &layer_names) {
                    out.push(without_site(d));
                }
            }
        }
    }
}

/// The keys a bindings file binds.
struct BindingsFile {
    candidates: Vec<Candidate>,
}

/// One key a binding defines and the alternatives under which it applies.
struct Candidate {
    binding: KeyedBinding,
    /// Never empty: a binding that can never apply is dropped.
    alternatives: Vec<Conjunction>,
}

/// A candidate in a layer (a file two layers include is in both).
struct Placed<'a> {
    candidate: &'a Candidate,
    /// Index in the layer list: 0 is the highest.
    layer: usize,
}

/// What a predicate requires of its category.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Requirement {
    /// `common`: every request.
    Always,
    /// A literal value, lower-cased (D9 compares case-insensitively).
    Value(String),
    /// A value only the request can tell.
    Unknown,
}

/// The predicates of one alternative, by category.
type Conjunction = BTreeMap<SmolStr, Requirement>;

/// The site's categories, highest first, with `node` and `environment` where D8 puts them and
/// `common` last (D10 when the site declares none).
struct CategoryPrecedence {
    names: Vec<SmolStr>,
}

impl CategoryPrecedence {
    fn of_site(facts: &TreeFacts) -> CategoryPrecedence {
        let mut names: Vec<SmolStr> = Vec::new();
        if let Some(decl) = facts.categories.first() {
            for (n, _) in &decl.names {
                if n != "common" && !names.contains(n) {
                    names.push(n.clone());
                }
            }
        }
        if !names.iter().any(|n| n == "node") {
            names.insert(0, SmolStr::new_static("node"));
        }
        if !names.iter().any(|n| n == "environment") {
            names.push(SmolStr::new_static("environment"));
        }
        CategoryPrecedence { names }
    }

    /// D6: first listed is highest, `common` is 0; `None` for a category the site lacks.
    fn of(&self, category: &str) -> Option<u32> {
        if category == "common" {
            return Some(0);
        }
        let i = self.names.iter().position(|n| n == category)?;
        Some((self.names.len() - i) as u32)
    }

    /// D6: the precedences of the matched predicates, highest first.
    fn vector(&self, conj: &Conjunction) -> Vec<u32> {
        let mut v: Vec<u32> = conj.keys().filter_map(|c| self.of(c)).collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        v
    }
}

fn flatten(
    items: &[BindItem],
    alternatives: &[Conjunction],
    order: &CategoryPrecedence,
    out: &mut Vec<Candidate>,
) {
    for item in items {
        match item {
            BindItem::When {
                condition, items, ..
            } => {
                let mut next = Vec::new();
                for alt in alternatives {
                    for conj in condition {
                        if let Some(c) = extend(alt, conj, order) {
                            next.push(c);
                        }
                    }
                    if next.len() > MAX_ALTERNATIVES {
                        break;
                    }
                }
                if !next.is_empty() && next.len() <= MAX_ALTERNATIVES {
                    flatten(items, &next, order, out);
                }
            }
            BindItem::Operation(op) => {
                for binding in keys_of(op) {
                    let alternatives = alternatives
                        .iter()
                        .map(|a| {
                            if a.is_empty() {
                                // Top level is the `common` category (D5).
                                Conjunction::from([(
                                    SmolStr::new_static("common"),
                                    Requirement::Always,
                                )])
                            } else {
                                a.clone()
                            }
                        })
                        .collect();
                    out.push(Candidate {
                        binding,
                        alternatives,
                    });
                }
            }
            BindItem::Error { .. } => {}
        }
    }
}

/// `alt` and `preds` together; `None` when no request can meet both (two values for one
/// category) or a category the site lacks (its bindings never apply; reported elsewhere).
fn extend(
    alt: &Conjunction,
    preds: &[Predicate],
    order: &CategoryPrecedence,
) -> Option<Conjunction> {
    let mut out = alt.clone();
    for p in preds {
        order.of(&p.category)?;
        let req = if p.category == "common" {
            Requirement::Always
        } else {
            p.value
                .as_ref()
                .map_or(Requirement::Unknown, requirement_of)
        };
        match out.get(&p.category) {
            Some(Requirement::Value(a)) => match &req {
                Requirement::Value(b) if a != b => return None,
                Requirement::Unknown => {
                    out.insert(p.category.clone(), Requirement::Unknown);
                }
                _ => {}
            },
            Some(_) => {}
            None => {
                out.insert(p.category.clone(), req);
            }
        }
    }
    Some(out)
}

fn requirement_of(e: &Expr) -> Requirement {
    match crate::lower::predicate_text(e) {
        Some(t) => Requirement::Value(t.to_lowercase()),
        None => Requirement::Unknown,
    }
}

/// Whether one request can meet both.
fn compatible(a: &Conjunction, b: &Conjunction) -> bool {
    a.iter().all(|(cat, ra)| match (ra, b.get(cat)) {
        (Requirement::Value(x), Some(Requirement::Value(y))) => x == y,
        _ => true,
    })
}

/// Whether every request that meets `inner` meets `outer` (as far as literals tell).
fn covers(outer: &Conjunction, inner: &Conjunction) -> bool {
    outer.iter().all(|(cat, ro)| match ro {
        Requirement::Always | Requirement::Unknown => true,
        Requirement::Value(v) => match inner.get(cat) {
            Some(Requirement::Value(w)) => v == w,
            Some(Requirement::Unknown) => true,
            _ => false,
        },
    })
}

/// The text identifying an alternative with only literal requirements (equal texts, equal
/// predicates); `None` when a requirement is unknown.
fn canonical(conj: &Conjunction) -> Option<String> {
    let mut s = String::new();
    for (cat, r) in conj {
        match r {
            Requirement::Always => s.push_str(cat),
            Requirement::Value(v) => {
                s.push_str(cat);
                s.push(' ');
                s.push_str(v);
            }
            Requirement::Unknown => return None,
        }
        s.push('\n');
    }
    Some(s)
}

/// How a user would write the alternative, highest category first:
/// `when node kermit and virtual true`.
fn describe(conj: &Conjunction, order: &CategoryPrecedence) -> String {
    let mut by_precedence: Vec<(&SmolStr, &Requirement)> = conj.iter().collect();
    by_precedence.sort_by_key(|(cat, _)| std::cmp::Reverse(order.of(cat)));
    let parts: Vec<String> = by_precedence
        .into_iter()
        .filter(|(_, r)| **r != Requirement::Always)
        .map(|(cat, r)| match r {
            Requirement::Value(v) if v.chars().all(|c| c.is_alphanumeric() || c == '_') => {
                format!("{cat} {v}")
            }
            Requirement::Value(v) => format!("{cat} '{v}'"),
            _ => format!("{cat} ..."),
        })
        .collect();
    if parts.is_empty() {
        "in `common`".to_string()
    } else {
        format!("when `{}`", parts.join(" and "))
    }
}

fn missing_bindings(m: &MissingRef, out: &mut Vec<Diagnostic>) {
    let Some(span) = m.span else { return };
    let path = m.uri.split_once(':').map(|(scheme, rest)| {
        let name = rest.split('?').next().unwrap_or("").trim_matches('/');
        let name = name.strip_prefix("::").unwrap_or(name);
        match (scheme, name.split_once("::")) {
            ("module", Some((module, rest))) => {
                format!("modules/{module}/bindings/{}.pp", rest.replace("::", "/"))
            }
            _ => format!("bindings/{}.pp", name.replace("::", "/")),
        }
    });
    let mut d = Diagnostic::error(
        codes::MISSING_BINDINGS,
        span,
        format!(
            "the layer `{}` includes `{}`, but the tree has no such bindings",
            m.layer, m.uri
        ),
    );
    if let Some(path) = path {
        d = d.with_note(format!(
            "help: add `{path}`, or make the reference optional: `{}?optional`",
            m.uri
        ));
    }
    out.push(d);
}

/// Two candidates of one key in one layer under equal predicates (D13). Each pair is reported
/// once, at the later binding.
fn conflicts(
    group: &[&Candidate],
    order: &CategoryPrecedence,
    layer: Option<&str>,
    reported: &mut BTreeSet<(Span, Span)>,
    out: &mut Vec<Diagnostic>,
) {
    // Abstract against concrete is no conflict: the concrete binding wins (D13).
    let mut first: BTreeMap<(String, String, bool), &Candidate> = BTreeMap::new();
    for &c in group {
        for alt in &c.alternatives {
            let Some(canon) = canonical(alt) else {
                continue;
            };
            let slot = (c.binding.key.id(), canon, c.binding.is_abstract);
            let Some(&earlier) = first.get(&slot) else {
                first.insert(slot, c);
                continue;
            };
            if std::ptr::eq(earlier, c) || !reported.insert((earlier.binding.span, c.binding.span))
            {
                continue;
            }
            let key = &c.binding.key;
            let mut d = Diagnostic::error(
                codes::CONFLICTING_BINDINGS,
                c.binding.span,
                format!(
                    "`{key}` is bound twice {} with equal precedence",
                    describe(alt, order)
                ),
            )
            .with_label(
                earlier.binding.span,
                format!("the other binding of `{key}`"),
            );
            d = d.with_note(match layer {
                Some(l) => format!("note: both are in the layer `{l}`; no request can choose between them"),
                None => "note: no layer includes this file; wherever it is included, no request can choose between them".to_string(),
            });
            out.push(d.with_note(
                "help: remove one, or put one under a more specific `when` (the more specific binding wins)",
            ));
        }
    }
}

/// D13: an `override` must replace a binding of its key in a lower layer, or one it beats in
/// its own layer.
fn unresolved_override(
    p: &Placed,
    entries: &[Placed],
    order: &CategoryPrecedence,
) -> Option<Diagnostic> {
    let me = p.candidate;
    // A higher layer that binds the key hides this binding: its flag cannot matter.
    if entries.iter().any(|q| q.layer < p.layer) {
        return None;
    }
    let resolved = entries.iter().any(|q| {
        if q.layer > p.layer {
            return true;
        }
        if std::ptr::eq(q.candidate, me) {
            return false;
        }
        me.alternatives.iter().any(|a| {
            q.candidate.alternatives.iter().any(|b| {
                compatible(a, b)
                    && (order.vector(a) > order.vector(b)
                        || (!me.binding.is_abstract && q.candidate.binding.is_abstract))
            })
        })
    });
    if resolved {
        return None;
    }
    let key = &me.binding.key;
    Some(
        Diagnostic::error(
            codes::UNRESOLVED_OVERRIDE,
            me.binding.span,
            format!("this `override` of `{key}` has nothing to override"),
        )
        .with_note(format!(
            "note: an override replaces a binding of `{key}` in a lower layer, or a less specific one in its own layer; there is none"
        ))
        .with_note("help: drop `override`, or check the type and name against the binding it should replace"),
    )
}

/// D13: an abstract binding must be made concrete, in its own layer or a higher one, for every
/// request it applies to.
fn abstract_not_overridden(
    p: &Placed,
    entries: &[Placed],
    order: &CategoryPrecedence,
    layer_names: &[&str],
) -> Option<Diagnostic> {
    let me = p.candidate;
    let counts = |q: &Placed| {
        !std::ptr::eq(q.candidate, me)
            && (q.layer < p.layer || (q.layer == p.layer && !q.candidate.binding.is_abstract))
    };
    let uncovered = me.alternatives.iter().find(|a| {
        !entries
            .iter()
            .any(|q| counts(q) && q.candidate.alternatives.iter().any(|b| covers(b, a)))
    })?;
    let key = &me.binding.key;
    let partial: Vec<&Placed> = entries.iter().filter(|q| counts(q)).collect();
    let lower: Vec<&Placed> = entries
        .iter()
        .filter(|q| q.layer > p.layer && !q.candidate.binding.is_abstract)
        .collect();
    let mut d = if partial.is_empty() {
        Diagnostic::error(
            codes::ABSTRACT_NOT_OVERRIDDEN,
            me.binding.span,
            format!("the abstract binding `{key}` is never made concrete"),
        )
    } else {
        let mut d = Diagnostic::error(
            codes::ABSTRACT_NOT_OVERRIDDEN,
            me.binding.span,
            if uncovered.values().all(|r| *r == Requirement::Always) {
                format!("the abstract binding `{key}` is made concrete only for some requests")
            } else {
                format!(
                    "the abstract binding `{key}` is not made concrete {}",
                    describe(uncovered, order)
                )
            },
        );
        for q in partial {
            let only: Vec<String> = q
                .candidate
                .alternatives
                .iter()
                .map(|a| describe(a, order))
                .collect();
            d = d.with_label(
                q.candidate.binding.span,
                format!("this binding applies only {}", only.join(", or ")),
            );
        }
        d
    };
    for q in lower {
        d = d.with_label(
            q.candidate.binding.span,
            format!(
                "this binding is in the lower layer `{}`, which the abstract binding hides",
                layer_names.get(q.layer).copied().unwrap_or("?")
            ),
        );
    }
    Some(d.with_note(format!(
        "help: bind `{key}` in the layer `{}` or a higher one",
        layer_names.get(p.layer).copied().unwrap_or("?")
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conj(pairs: &[(&str, &str)]) -> Conjunction {
        pairs
            .iter()
            .map(|(c, v)| {
                let r = match *v {
                    "" => Requirement::Always,
                    "?" => Requirement::Unknown,
                    v => Requirement::Value(v.to_string()),
                };
                (SmolStr::new(c), r)
            })
            .collect()
    }

    #[test]
    fn precedence_vectors_follow_d6() {
        let order = CategoryPrecedence {
            names: vec!["node".into(), "data_center".into(), "environment".into()],
        };
        let v = |pairs: &[(&str, &str)]| order.vector(&conj(pairs));
        let node_env = v(&[("node", "a"), ("environment", "dev")]);
        let node = v(&[("node", "a")]);
        let env = v(&[("environment", "dev")]);
        let dc_env = v(&[("data_center", "x"), ("environment", "dev")]);
        let common = v(&[("common", "")]);
        assert!(node_env > node && node > dc_env && dc_env > env && env > common);
        assert_eq!(order.of("common"), Some(0));
        assert_eq!(order.of("rack"), None);
    }

    #[test]
    fn meeting_and_covering() {
        let a = conj(&[("node", "a")]);
        let b = conj(&[("node", "b")]);
        let a_dev = conj(&[("node", "a"), ("environment", "dev")]);
        let unknown = conj(&[("node", "?")]);
        let common = conj(&[("common", "")]);
        assert!(!compatible(&a, &b));
        assert!(compatible(&a, &a_dev) && compatible(&a, &unknown));
        assert!(covers(&common, &a) && covers(&a, &a_dev) && covers(&unknown, &a));
        assert!(!covers(&a_dev, &a) && !covers(&a, &common));
        assert_eq!(canonical(&unknown), None);
        let order = CategoryPrecedence {
            names: vec!["node".into(), "environment".into()],
        };
        assert_eq!(
            describe(&a_dev, &order),
            "when `node a and environment dev`"
        );
        assert_eq!(describe(&common, &order), "in `common`");
    }
}
