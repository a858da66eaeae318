//! The effective bindings of one request (reference section 4.3 as amended by D6, D11-D14):
//! every binding of every layer becomes a [`Candidate`] of its key, with the outcome of its
//! `when` predicates and its precedence vector; per key, the winner is chosen layer by layer.
//!
//! Candidates that do not match stay recorded (for `--explain`) but never shadow anything.
//! Errors of composition (conflicts, unresolved overrides, abstract bindings that surface) are
//! kept per key and reported when the key is looked up.

use super::Code;
use crate::lower::keys::Key;
use crate::lower::model::{
    AbstractBinding, Binding, Category, Multibinding, NamedLayer, Origin, Rebinding, TypeModel,
};
use crate::types::PType;
use smol_str::SmolStr;
use std::collections::HashMap;
use std::rc::Rc;

/// A precedence vector (D6): the precedences of the matched predicates, highest first; `[0]`
/// for a binding with none. Compared lexicographically, a longer vector beating its prefix.
/// Shared by every binding of one `when`.
pub type Precedence = Rc<[u16]>;

/// How one `when` predicate fared for the request.
#[derive(Clone, Debug)]
pub struct PredicateOutcome {
    pub category: SmolStr,
    /// The value the predicate names (as written, lower-cased).
    pub value: SmolStr,
    pub matched: bool,
}

/// What a candidate binds.
#[derive(Clone, Copy)]
pub enum Bound<'m> {
    Binding(&'m Binding<Code<'m>>),
    Multibinding(&'m Multibinding<Code<'m>>),
    Alias(&'m Rebinding),
    Renamed(&'m Rebinding),
    Rebind(&'m Rebinding),
    /// `bind parameters T to R[t]`, `bind map`: they need resources pbc does not evaluate.
    NeedsRuntime(&'m str),
}

pub struct Candidate<'m> {
    pub bound: Bound<'m>,
    pub layer: usize,
    /// The `bindings NAME` it is written in.
    pub bindings: &'m str,
    pub origin: &'m Origin,
    pub conditions: Rc<[PredicateOutcome]>,
    /// `None` when a predicate does not match the request.
    pub precedence: Option<Precedence>,
    pub is_abstract: bool,
    pub is_override: bool,
}

/// A contribution to a multibind (`bind ... in 'id'`), in D14 order once sorted.
pub struct Contribution<'m> {
    pub binding: &'m Binding<Code<'m>>,
    pub layer: usize,
    pub precedence: Option<Precedence>,
    pub conditions: Rc<[PredicateOutcome]>,
    /// Document order over the whole tree.
    pub order: usize,
}

/// Why a key has no usable winner.
#[derive(Clone, Debug)]
pub enum ComposeError {
    /// Two candidates of one layer with equal precedence (indexes into the candidates).
    Conflict { first: usize, second: usize },
    /// The winning candidate is abstract (and no higher layer binds the key).
    Abstract { candidate: usize },
    /// The winning candidate is an `override` that overrides nothing.
    UnresolvedOverride { candidate: usize },
}

/// One key's candidates (in layer, then document order) and the outcome.
pub struct KeyEntry {
    pub key: Key,
    pub candidates: Vec<usize>,
    pub winner: Result<Option<usize>, ComposeError>,
}

pub struct Composition<'m> {
    pub candidates: Vec<Candidate<'m>>,
    pub keys: Vec<KeyEntry>,
    pub by_id: HashMap<String, usize>,
    /// By multibind id, sorted per D14 (layer, precedence, document order).
    pub contributions: HashMap<String, Vec<Contribution<'m>>>,
    pub layer_names: Vec<&'m str>,
    /// Key ids a matching `bind renamed` erases (their new name still reads them).
    pub erased: std::collections::HashSet<String>,
}

/// The request's categories as the composer needs them: name → (value, precedence).
pub struct CategoryValues {
    pub values: HashMap<SmolStr, (SmolStr, u16)>,
}

impl<'m> Composition<'m> {
    pub fn build(
        layers: &'m [NamedLayer<Code<'m>>],
        categories: &CategoryValues,
        predicate_value: &mut dyn FnMut(&'m Code<'m>) -> Option<SmolStr>,
    ) -> Composition<'m> {
        // Sized for the top-level bindings (most bindings are): growing costs more than the
        // lookups it serves.
        let estimate: usize = layers
            .iter()
            .flat_map(|l| &l.bindings)
            .map(|nb| nb.bindings.len())
            .sum();
        let mut c = Composition {
            candidates: Vec::with_capacity(estimate),
            keys: Vec::with_capacity(estimate),
            by_id: HashMap::with_capacity(estimate),
            contributions: HashMap::new(),
            layer_names: layers.iter().map(|l| l.name.as_str()).collect(),
            erased: std::collections::HashSet::new(),
        };
        let mut order = 0usize;
        let no_conditions: Rc<[PredicateOutcome]> = Rc::from(Vec::new());
        let common: Precedence = Rc::from(vec![0]);
        for (layer, named_layer) in layers.iter().enumerate() {
            for nb in &named_layer.bindings {
                // An explicit stack: `when` nesting is bounded, but passes do not recurse.
                let mut stack: Vec<Level<'m>> = vec![Level {
                    items: nb.bindings.iter(),
                    conditions: Rc::clone(&no_conditions),
                    raw: Some(Vec::new()),
                    precedence: Some(Rc::clone(&common)),
                }];
                while let Some(level) = stack.last_mut() {
                    let Some(item) = level.items.next() else {
                        stack.pop();
                        continue;
                    };
                    order += 1;
                    match item {
                        AbstractBinding::CategorizedBindings {
                            predicates,
                            bindings,
                            ..
                        } => {
                            let (outcomes, raw) = match_predicates(
                                predicates,
                                categories,
                                predicate_value,
                                level.raw.clone(),
                            );
                            let conditions: Rc<[PredicateOutcome]> =
                                level.conditions.iter().cloned().chain(outcomes).collect();
                            let precedence = raw.clone().map(normalise);
                            stack.push(Level {
                                items: bindings.iter(),
                                conditions,
                                raw,
                                precedence,
                            });
                        }
                        other => {
                            let walk = Walk {
                                layer,
                                bindings: nb.name.as_str(),
                                conditions: &level.conditions,
                                precedence: &level.precedence,
                                order,
                            };
                            c.add(other, &walk);
                        }
                    }
                }
            }
        }
        for list in c.contributions.values_mut() {
            list.sort_by(|a, b| {
                a.layer
                    .cmp(&b.layer)
                    .then_with(|| b.precedence.cmp(&a.precedence))
                    .then(a.order.cmp(&b.order))
            });
        }
        for entry in 0..c.keys.len() {
            let winner = c.resolve(&c.keys[entry].candidates);
            c.keys[entry].winner = winner;
        }
        for cand in &c.candidates {
            if let (Bound::Renamed(r), Some(_)) = (cand.bound, &cand.precedence) {
                let from = Key::new(
                    super::ptype(&r.from_type),
                    r.from_name.clone().unwrap_or_default(),
                );
                c.erased.insert(from.id());
            }
        }
        c
    }

    fn add(&mut self, item: &'m AbstractBinding<Code<'m>>, w: &Walk<'_, 'm>) {
        let candidate =
            |bound: Bound<'m>, origin: &'m Origin, is_abstract, is_override| Candidate {
                bound,
                layer: w.layer,
                bindings: w.bindings,
                origin,
                conditions: w.conditions.clone(),
                precedence: w.precedence.clone(),
                is_abstract,
                is_override,
            };
        let ((ty, name), cand) = match item {
            AbstractBinding::Binding(b) => {
                if let Some(id) = &b.multibind_id {
                    self.contributions
                        .entry(id.clone())
                        .or_default()
                        .push(Contribution {
                            binding: b,
                            layer: w.layer,
                            precedence: w.precedence.clone(),
                            conditions: w.conditions.clone(),
                            order: w.order,
                        });
                    return;
                }
                (
                    (&b.type_, b.name.as_deref().unwrap_or_default()),
                    candidate(Bound::Binding(b), &b.origin, b.abstract_, b.override_),
                )
            }
            // A multibind contributes to another one through a lookup (`bind 'inner' to
            // lookup('inner') in 'outer'`): ARM-8 has no syntax for Puppet 3's nested form.
            AbstractBinding::Multibinding(m) => (
                (&m.type_, m.name.as_deref().unwrap_or_default()),
                candidate(Bound::Multibinding(m), &m.origin, m.abstract_, m.override_),
            ),
            AbstractBinding::AliasBinding(r)
            | AbstractBinding::RenamedBinding(r)
            | AbstractBinding::Rebinding(r) => {
                let bound = match item {
                    AbstractBinding::AliasBinding(_) => Bound::Alias(r),
                    AbstractBinding::RenamedBinding(_) => Bound::Renamed(r),
                    _ => Bound::Rebind(r),
                };
                (
                    (&r.type_, r.name.as_deref().unwrap_or_default()),
                    candidate(bound, &r.origin, r.abstract_, r.override_),
                )
            }
            AbstractBinding::ParametersBinding {
                name,
                override_,
                origin,
                ..
            } => (
                (&DATA, name.as_str()),
                candidate(
                    Bound::NeedsRuntime("bind parameters ... to a resource"),
                    origin,
                    false,
                    *override_,
                ),
            ),
            AbstractBinding::ParameterMapBinding {
                name,
                override_,
                origin,
                ..
            } => (
                (&DATA, name.as_str()),
                candidate(Bound::NeedsRuntime("bind map"), origin, false, *override_),
            ),
            AbstractBinding::DependencyBinding { .. }
            | AbstractBinding::CategorizedBindings { .. } => return,
        };
        let index = self.candidates.len();
        self.candidates.push(cand);
        let next = self.keys.len();
        let id = if super::model_is_data(ty) {
            Key::id_of(&PType::Data, name)
        } else {
            Key::id_of(&super::ptype(ty), name)
        };
        let entry = *self.by_id.entry(id).or_insert(next);
        if entry == next {
            self.keys.push(KeyEntry {
                key: Key::new(super::ptype(ty), name),
                candidates: Vec::new(),
                winner: Ok(None),
            });
        }
        self.keys[entry].candidates.push(index);
    }

    /// Layer by layer, highest first: the first layer with a matching candidate decides (D11).
    /// In it, concrete beats abstract, then the higher precedence wins; equal is a conflict
    /// (D13). An `override` must have beaten a candidate of its layer or have a matching one
    /// below.
    pub fn resolve(&self, candidates: &[usize]) -> Result<Option<usize>, ComposeError> {
        let cand = |i: usize| &self.candidates[i];
        let mut matching = candidates
            .iter()
            .copied()
            .filter(|&i| cand(i).precedence.is_some());
        let Some(first) = matching.next() else {
            return Ok(None);
        };
        let layer = cand(first).layer;
        let rank = |i: usize| (!cand(i).is_abstract, cand(i).precedence.clone());
        let (mut best, mut tie, mut in_layer, mut lower) = (first, None, 1usize, false);
        for i in matching {
            if cand(i).layer != layer {
                lower = true;
                break;
            }
            in_layer += 1;
            match rank(i).cmp(&rank(best)) {
                std::cmp::Ordering::Greater => {
                    best = i;
                    tie = None;
                }
                std::cmp::Ordering::Equal => tie = tie.or(Some(i)),
                std::cmp::Ordering::Less => {}
            }
        }
        if let Some(second) = tie {
            return Err(ComposeError::Conflict {
                first: best,
                second,
            });
        }
        let winner = cand(best);
        if winner.is_abstract {
            return Err(ComposeError::Abstract { candidate: best });
        }
        if winner.is_override && in_layer == 1 && !lower {
            return Err(ComposeError::UnresolvedOverride { candidate: best });
        }
        Ok(Some(best))
    }
}

/// The type of the naming scheme's keys (`/param/...`, `/map/...`).
static DATA: TypeModel = TypeModel::PDataType;

/// One open `when` (or the block itself) while walking: what is left of its bindings, the
/// predicates around them, and their precedence (`None` once a predicate fails), as collected
/// and normalised.
struct Level<'m> {
    items: std::slice::Iter<'m, AbstractBinding<Code<'m>>>,
    conditions: Rc<[PredicateOutcome]>,
    raw: Option<Vec<u16>>,
    precedence: Option<Precedence>,
}

struct Walk<'w, 'm> {
    layer: usize,
    bindings: &'m str,
    conditions: &'w Rc<[PredicateOutcome]>,
    precedence: &'w Option<Precedence>,
    order: usize,
}

/// D6: de-duplicated, highest first, `[0]` when empty; `common` adds nothing (D5: `when common`
/// is top level).
fn normalise(mut p: Vec<u16>) -> Precedence {
    p.retain(|&level| level != 0);
    p.sort_unstable_by(|a, b| b.cmp(a));
    p.dedup();
    if p.is_empty() {
        p.push(0);
    }
    Rc::from(p)
}

/// The outcome of one `when`'s predicates and the precedence inside it (`None` once any
/// predicate on the way fails). An undeclared category never matches.
fn match_predicates<'m>(
    predicates: &'m [Category<Code<'m>>],
    categories: &CategoryValues,
    predicate_value: &mut dyn FnMut(&'m Code<'m>) -> Option<SmolStr>,
    outer: Option<Vec<u16>>,
) -> (Vec<PredicateOutcome>, Option<Vec<u16>>) {
    let mut outcomes = Vec::with_capacity(predicates.len());
    let mut precedence = outer;
    for p in predicates {
        let wanted = predicate_value(&p.value).unwrap_or_default();
        let (matched, level) = if p.categorization == "common" {
            (true, Some(0))
        } else {
            match categories.values.get(p.categorization.as_str()) {
                Some((value, level)) if *value == wanted => (true, Some(*level)),
                _ => (false, None),
            }
        };
        outcomes.push(PredicateOutcome {
            category: p.categorization.as_str().into(),
            value: wanted,
            matched,
        });
        precedence = match (precedence, level) {
            (Some(mut p), Some(l)) => {
                p.push(l);
                Some(p)
            }
            _ => None,
        };
    }
    (outcomes, precedence)
}
