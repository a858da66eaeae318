//! The rules of [`resolve`] asked of every request at once, for `pbc check` (D18).
//!
//! No request is known when checking. For each key, the categories its bindings' predicates
//! name split every possible request into a few classes: per category, each literal value a
//! predicate names, what each computed predicate value gives (a value of its own: it never
//! proves a conflict, and never hides a match), and "any other value, or none". Within a class
//! every request composes the key alike, so running [`resolve`] (and the multibind name rules)
//! once per class answers for all of them. A finding is "always" when it fails for every class
//! in which the bindings it is about apply, and otherwise names the classes that fail.
//!
//! It must not word diagnostics: `validate` does, from the [`Finding`]s.

use super::multibind::{Entry, Fate, Rules};
use super::{normalise, resolve, Bindings, Bound, ComposeError, Precedence};
use crate::eval::code::Code;
use crate::eval::Value;
use crate::lower::model::ptype;
use crate::span::Span;
use crate::types::PType;
use foldhash::HashMap;
use smol_str::SmolStr;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// How many classes of requests one key may be judged on. A key whose predicates make more
/// (many categories, each with many values) is not judged: no finding is reported for it.
pub const MAX_REQUEST_CLASSES: usize = 4096;

/// Above this many classes the failing ones are listed as they are, not simplified.
const MAX_CLASSES_TO_SIMPLIFY: usize = 256;

/// How many alternatives a finding lists.
const MAX_DESCRIBED: usize = 4;

/// One category's values as far as a key's predicates tell them apart.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Slot {
    /// A literal value a predicate names (lower-cased, D9).
    Value(SmolStr),
    /// What the computed value of one predicate (its `when` node, its position) gives.
    Computed { when: usize, index: usize },
    /// Any value no predicate names, or none (the category does not apply).
    Other,
}

/// What tells requests apart for a key: a category's value, or the file a data path (as
/// written in `hiera.yaml`) gives (ARM-9 data). Like a category, a path gives one file per
/// request, whichever `hiera.yaml` it is written in.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Dimension {
    Category(SmolStr),
    Path(SmolStr),
}

/// One condition on a category in a description of the failing requests.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Condition {
    /// The category has this value.
    Is { category: SmolStr, value: SmolStr },
    /// The category has none of these values (or does not apply).
    IsNot {
        category: SmolStr,
        values: Vec<SmolStr>,
    },
    /// The category has the value a computed predicate gives (at `span`).
    Computed { category: SmolStr, span: Span },
    /// The data path `path` gives `files[0]` (`holds`), or none of `files`.
    Path {
        path: SmolStr,
        files: Vec<SmolStr>,
        holds: bool,
    },
}

/// What fails.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FindingKind {
    /// Two candidates that nothing beats, in one layer with equal precedence.
    Conflict { first: usize, second: usize },
    /// An abstract candidate that wins.
    Abstract { candidate: usize },
    /// An `override` that wins with nothing to override.
    UnresolvedOverride { candidate: usize },
    /// Two contributions of one name and rank (indexes into `Bindings::contributions[id]`).
    DuplicateContribution {
        id: String,
        first: usize,
        second: usize,
    },
}

/// A composition error that some request meets.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The key (index into `Bindings::keys`).
    pub key: usize,
    pub kind: FindingKind,
    /// It fails for every request the bindings it is about apply to.
    pub always: bool,
    /// When not `always`: the requests it fails for, each a conjunction of conditions.
    pub failing: Vec<Vec<Condition>>,
    /// How many more such conjunctions were left out.
    pub more: usize,
}

/// Every composition error some request meets, key by key in index order. `levels` gives each
/// declared category's precedence (`common` is 0).
///
/// Keys are independent: they are judged on every core, a run of keys at a time (a key is
/// too little work to share out alone), and the findings joined in key order.
pub fn analyse(bindings: &Bindings, levels: &HashMap<SmolStr, u16>) -> Vec<Finding> {
    let every: Vec<usize> = (0..bindings.keys.len()).collect();
    analyse_keys(bindings, levels, &every)
}

/// [`analyse`] of the key entries `keys` only (indexes into `Bindings::keys`), in their order.
pub fn analyse_keys(
    bindings: &Bindings,
    levels: &HashMap<SmolStr, u16>,
    keys: &[usize],
) -> Vec<Finding> {
    const KEYS_PER_JOB: usize = 512;
    let jobs = keys.len().div_ceil(KEYS_PER_JOB);
    crate::parallel::parallel_map(jobs, |job| {
        let mut out = Vec::new();
        for &key in keys.iter().skip(job * KEYS_PER_JOB).take(KEYS_PER_JOB) {
            KeyAnalysis::new(bindings, levels, bindings.candidates_of(key)).run(key, &mut out);
        }
        out
    })
    .into_iter()
    .flatten()
    .collect()
}

/// What identifies a finding across classes (the copies an `or` makes are one binding).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Identity {
    Conflict(Span, Span),
    Abstract(Span),
    Override(Span),
    Duplicate(Span, Span),
}

struct Tally {
    kind: FindingKind,
    /// The spans of the bindings it is about: it applies where all of them match.
    about: Vec<Span>,
    failing: BTreeSet<usize>,
}

struct KeyAnalysis<'a, 'm> {
    bindings: &'a Bindings<'m>,
    levels: &'a HashMap<SmolStr, u16>,
    list: &'a [usize],
    /// The multibind ids the key's multibinds collect.
    multibinds: Vec<&'m str>,
}

impl<'a, 'm> KeyAnalysis<'a, 'm> {
    fn new(
        bindings: &'a Bindings<'m>,
        levels: &'a HashMap<SmolStr, u16>,
        list: &'a [usize],
    ) -> Self {
        let mut multibinds: Vec<&'m str> = list
            .iter()
            .filter_map(|&i| match bindings.candidates[i].bound {
                Bound::Multibinding(m) => Bindings::multibind_id(m),
                _ => None,
            })
            .collect();
        multibinds.sort_unstable();
        multibinds.dedup();
        KeyAnalysis {
            bindings,
            levels,
            list,
            multibinds,
        }
    }

    fn contributions(&self, id: &str) -> &'a [super::Contribution<'m>] {
        self.bindings
            .contributions
            .get(id)
            .map_or(&[], |v| v.as_slice())
    }

    /// Whether no request can fail the key: one plain binding, and no multibind with two
    /// contributions.
    fn trivially_sound(&self) -> bool {
        let [only] = self.list else { return false };
        let c = &self.bindings.candidates[*only];
        !c.is_abstract
            && !c.is_override
            && self
                .multibinds
                .iter()
                .all(|id| self.contributions(id).len() < 2)
    }

    fn run(&self, key: usize, out: &mut Vec<Finding>) {
        if self.trivially_sound() {
            return;
        }
        let nodes = self.nodes();
        let domain = self.domain(&nodes);
        let sizes: Vec<usize> = domain.iter().map(|(_, slots)| slots.len()).collect();
        let count = sizes
            .iter()
            .try_fold(1usize, |n, &s| n.checked_mul(s))
            .unwrap_or(usize::MAX);
        if count > MAX_REQUEST_CLASSES {
            return;
        }
        let classes = Classes { sizes: &sizes };
        let mut tallies: BTreeMap<Identity, Tally> = BTreeMap::new();
        let mut order: Vec<Identity> = Vec::new();
        // A binding outside any `when`: the same precedence for every class.
        let unconditional: Precedence = Rc::from([0u16]);
        let mut precedence: Vec<Option<Precedence>> = Vec::with_capacity(nodes.len());
        let mut levels = Levels::default();
        let mut class = vec![0; sizes.len()];
        for class_index in 0..count {
            classes.class_into(class_index, &mut class);
            self.precedences(&nodes, &domain, &class, &mut levels, &mut precedence);
            let of = |when: Option<usize>| {
                precedence_of(&nodes, &precedence, when)
                    .map(|p| p.unwrap_or(&unconditional).clone())
            };
            let mut record = |identity: Identity, kind: FindingKind, about: Vec<Span>| {
                let tally = tallies.entry(identity.clone()).or_insert_with(|| {
                    order.push(identity);
                    Tally {
                        kind,
                        about,
                        failing: BTreeSet::new(),
                    }
                });
                tally.failing.insert(class_index);
            };
            let candidates = &self.bindings.candidates;
            let span = |i: usize| candidates[i].origin().span;
            match resolve(candidates, self.list, &|i| of(candidates[i].when())) {
                Err(ComposeError::Conflict { first, second }) => record(
                    Identity::Conflict(span(first), span(second)),
                    FindingKind::Conflict { first, second },
                    vec![span(first), span(second)],
                ),
                Err(ComposeError::Abstract { candidate }) => record(
                    Identity::Abstract(span(candidate)),
                    FindingKind::Abstract { candidate },
                    vec![span(candidate)],
                ),
                Err(ComposeError::UnresolvedOverride { candidate }) => record(
                    Identity::Override(span(candidate)),
                    FindingKind::UnresolvedOverride { candidate },
                    vec![span(candidate)],
                ),
                Ok(Some(w)) => {
                    if let Bound::Multibinding(m) = candidates[w].bound {
                        let Some(id) = Bindings::multibind_id(m) else {
                            continue;
                        };
                        let is_hash = matches!(ptype(&m.type_), PType::Hash(..));
                        let rules = Rules::of(m, is_hash);
                        let list = self.contributions(id);
                        let mut applying: Vec<(usize, Precedence)> = list
                            .iter()
                            .enumerate()
                            .filter_map(|(j, c)| of(c.when).map(|p| (j, p)))
                            .collect();
                        applying.sort_by(|(a, pa), (b, pb)| {
                            list[*a]
                                .layer
                                .cmp(&list[*b].layer)
                                .then_with(|| pb.cmp(pa))
                                .then(list[*a].order.cmp(&list[*b].order))
                        });
                        let entries: Vec<Entry> = applying
                            .iter()
                            .map(|(j, p)| Entry {
                                name: list[*j].binding.name.as_deref(),
                                layer: list[*j].layer,
                                precedence: p,
                            })
                            .collect();
                        for (at, fate) in rules.fates(&entries).into_iter().enumerate() {
                            if let Fate::Duplicate { first } = fate {
                                let (a, b) = (applying[first].0, applying[at].0);
                                let (sa, sb) =
                                    (list[a].binding.origin.span, list[b].binding.origin.span);
                                record(
                                    Identity::Duplicate(sa, sb),
                                    FindingKind::DuplicateContribution {
                                        id: id.to_string(),
                                        first: a,
                                        second: b,
                                    },
                                    vec![sa, sb],
                                );
                            }
                        }
                    }
                }
                Ok(None) => {}
            }
        }
        if order.is_empty() {
            return;
        }
        // By class, the spans of the bindings and contributions that apply: what tells the
        // classes a finding is about (made only for a key with findings: a multibind's
        // contributions can be a tree's every file).
        let matched: Vec<BTreeSet<Span>> = (0..count)
            .map(|class_index| {
                classes.class_into(class_index, &mut class);
                self.precedences(&nodes, &domain, &class, &mut levels, &mut precedence);
                let applies = |when| precedence_of(&nodes, &precedence, when).is_some();
                let candidates = self
                    .list
                    .iter()
                    .map(|&i| &self.bindings.candidates[i])
                    .filter(|c| applies(c.when()))
                    .map(|c| c.origin().span);
                let contributions = self
                    .multibinds
                    .iter()
                    .flat_map(|id| self.contributions(id))
                    .filter(|c| applies(c.when))
                    .map(|c| c.binding.origin.span);
                candidates.chain(contributions).collect()
            })
            .collect();
        for identity in order {
            let Some(tally) = tallies.remove(&identity) else {
                continue;
            };
            let applies: BTreeSet<usize> = (0..count)
                .filter(|&c| tally.about.iter().all(|s| matched[c].contains(s)))
                .collect();
            let always = applies.iter().all(|c| tally.failing.contains(c));
            let (failing, more) = if always {
                (Vec::new(), 0)
            } else {
                describe(
                    &domain,
                    &classes,
                    &tally.failing,
                    &applies,
                    count,
                    self.bindings,
                )
            };
            out.push(Finding {
                key,
                kind: tally.kind,
                always,
                failing,
                more,
            });
        }
    }

    /// The `when` nodes around the key's candidates and contributions, parents first.
    fn nodes(&self) -> Vec<usize> {
        let mut nodes = BTreeSet::new();
        let whens = self
            .list
            .iter()
            .map(|&i| self.bindings.candidates[i].when())
            .chain(
                self.multibinds
                    .iter()
                    .flat_map(|id| self.contributions(id).iter().map(|c| c.when)),
            );
        for mut when in whens {
            while let Some(w) = when {
                if !nodes.insert(w) {
                    break;
                }
                when = self.bindings.whens[w].parent();
            }
        }
        nodes.into_iter().collect()
    }

    /// Per category the predicates name, the values that tell requests apart; per data path
    /// test, whether it holds.
    fn domain(&self, nodes: &[usize]) -> Vec<(Dimension, Vec<Slot>)> {
        let mut domain: BTreeMap<Dimension, BTreeSet<Slot>> = BTreeMap::new();
        for &w in nodes {
            let node = &self.bindings.whens[w];
            for (index, p) in node.predicates.iter().enumerate() {
                let category = p.categorization.as_str();
                if category == "common" || !self.levels.contains_key(category) {
                    continue;
                }
                let slot = match literal_text(&p.value) {
                    Some(v) => Slot::Value(v),
                    None => Slot::Computed { when: w, index },
                };
                let slots = domain
                    .entry(Dimension::Category(category.into()))
                    .or_default();
                slots.insert(slot);
                slots.insert(Slot::Other);
            }
            for (path, file) in path_tests(node) {
                let slots = domain.entry(Dimension::Path(path.into())).or_default();
                slots.insert(Slot::Value(file.into()));
                slots.insert(Slot::Other);
            }
        }
        domain
            .into_iter()
            .map(|(c, s)| (c, s.into_iter().collect()))
            .collect()
    }

    /// Into `out`, each node's precedence for the requests of `class`, by its place in `nodes`
    /// (`None`: a predicate fails). `nodes` is in index order, parents first.
    fn precedences(
        &self,
        nodes: &[usize],
        domain: &[(Dimension, Vec<Slot>)],
        class: &[usize],
        levels_of: &mut Levels,
        out: &mut Vec<Option<Precedence>>,
    ) {
        out.clear();
        levels_of.clear();
        for &w in nodes {
            let node = &self.bindings.whens[w];
            let mut levels = match node.parent() {
                None => Some(Vec::new()),
                Some(p) => nodes
                    .binary_search(&p)
                    .ok()
                    .and_then(|at| levels_of.get(at).map(<[u16]>::to_vec)),
            };
            for (index, p) in node.predicates.iter().enumerate() {
                let Some(acc) = levels.as_mut() else { break };
                let category = p.categorization.as_str();
                if category == "common" {
                    acc.push(0);
                    continue;
                }
                let Some(&level) = self.levels.get(category) else {
                    levels = None;
                    break;
                };
                let wanted = match literal_text(&p.value) {
                    Some(v) => Slot::Value(v),
                    None => Slot::Computed { when: w, index },
                };
                let holds = domain
                    .iter()
                    .position(|(c, _)| matches!(c, Dimension::Category(name) if name == category))
                    .is_some_and(|ci| domain[ci].1[class[ci]] == wanted);
                if holds {
                    acc.push(level);
                } else {
                    levels = None;
                }
            }
            if let Some(path) = node.path {
                let holds = |p: &str, f: &str| {
                    domain
                        .iter()
                        .position(|(d, _)| matches!(d, Dimension::Path(path) if path == p))
                        .is_some_and(
                            |ci| matches!(&domain[ci].1[class[ci]], Slot::Value(v) if v == f),
                        )
                };
                let this = holds(&path.path, &path.file);
                if !this || path.unless.iter().any(|t| holds(&t.path, &t.file)) {
                    levels = None;
                }
            }
            levels_of.push(levels.as_deref());
            out.push(levels.map(normalise));
        }
    }
}

/// The precedence of a binding in the `when` node `when` for one class of requests, from each
/// node's (`precedence`, by its place in `nodes`, which is in index order): `None` when a
/// predicate fails, `Some(None)` outside any `when` (the same precedence for every class).
fn precedence_of<'p>(
    nodes: &[usize],
    precedence: &'p [Option<Precedence>],
    when: Option<usize>,
) -> Option<Option<&'p Precedence>> {
    match when {
        None => Some(None),
        Some(w) => {
            let at = nodes.binary_search(&w).ok()?;
            precedence[at].as_ref().map(Some)
        }
    }
}

/// A `when` node's data path tests (path as written, file): its own and its earlier files'.
fn path_tests<'m>(node: &super::WhenNode<'m>) -> Vec<(&'m str, &'m str)> {
    node.path
        .map(|p| {
            std::iter::once((p.path.as_str(), p.file.as_str()))
                .chain(p.unless.iter().map(|t| (t.path.as_str(), t.file.as_str())))
                .collect()
        })
        .unwrap_or_default()
}

/// Each `when` node's levels (its predicates' and its parents'), by its place in a key's nodes,
/// in one list: `None` where a predicate fails.
#[derive(Default)]
struct Levels {
    flat: Vec<u16>,
    /// Where each node's levels are in `flat`.
    spans: Vec<Option<std::ops::Range<usize>>>,
}

impl Levels {
    fn clear(&mut self) {
        self.flat.clear();
        self.spans.clear();
    }

    fn push(&mut self, levels: Option<&[u16]>) {
        let span = levels.map(|l| {
            let start = self.flat.len();
            self.flat.extend_from_slice(l);
            start..self.flat.len()
        });
        self.spans.push(span);
    }

    fn get(&self, at: usize) -> Option<&[u16]> {
        let span = self.spans.get(at)?.clone()?;
        self.flat.get(span)
    }
}

/// The text a literal predicate value matches (as the injector compares it: lower-cased).
fn literal_text(code: &Code) -> Option<SmolStr> {
    match code {
        Code::Value(Value::String(s)) => Some(s.clone()),
        Code::Value(v) => Some(v.to_display_string().to_lowercase().into()),
        _ => None,
    }
}

/// Every combination of one slot per category.
struct Classes<'s> {
    sizes: &'s [usize],
}

impl Classes<'_> {
    fn iter(&self) -> impl Iterator<Item = Vec<usize>> + '_ {
        let count: usize = self.sizes.iter().product();
        (0..count).map(move |n| self.class(n))
    }

    /// The `n`th combination (the last category varies fastest).
    fn class(&self, n: usize) -> Vec<usize> {
        let mut class = vec![0; self.sizes.len()];
        self.class_into(n, &mut class);
        class
    }

    /// [`Classes::class`] into `class`, which has room for one slot per category.
    fn class_into(&self, mut n: usize, class: &mut [usize]) {
        for (ci, &size) in self.sizes.iter().enumerate().rev() {
            class[ci] = n % size;
            n /= size;
        }
    }
}

/// The failing classes as a few conjunctions: a category is left out of one when every
/// request that differs only in it fails too (or is one the bindings do not apply to).
fn describe(
    domain: &[(Dimension, Vec<Slot>)],
    classes: &Classes,
    failing: &BTreeSet<usize>,
    applies: &BTreeSet<usize>,
    count: usize,
    bindings: &Bindings,
) -> (Vec<Vec<Condition>>, usize) {
    let all: Vec<Vec<usize>> = classes.iter().collect();
    let fine = |c: usize| failing.contains(&c) || !applies.contains(&c);
    let mut patterns: BTreeSet<Vec<Option<usize>>> = BTreeSet::new();
    for &f in failing {
        let mut pattern: Vec<Option<usize>> = all[f].iter().map(|&s| Some(s)).collect();
        if count <= MAX_CLASSES_TO_SIMPLIFY {
            for ci in 0..pattern.len() {
                let kept = pattern[ci].take();
                let covered = (0..count).all(|c| {
                    let matches = pattern
                        .iter()
                        .zip(&all[c])
                        .all(|(p, s)| p.is_none_or(|p| p == *s));
                    !matches || fine(c)
                });
                if !covered {
                    pattern[ci] = kept;
                }
            }
        }
        patterns.insert(pattern);
    }
    let total = patterns.len();
    let described = patterns
        .into_iter()
        .take(MAX_DESCRIBED)
        .map(|pattern| {
            pattern
                .iter()
                .enumerate()
                .filter_map(|(ci, s)| s.map(|s| (ci, s)))
                .map(|(ci, s)| {
                    let (dimension, slots) = &domain[ci];
                    let category = match dimension {
                        Dimension::Category(c) => c,
                        Dimension::Path(path) => {
                            return Condition::Path {
                                path: path.clone(),
                                files: match &slots[s] {
                                    Slot::Value(f) => vec![f.clone()],
                                    _ => slots
                                        .iter()
                                        .filter_map(|s| match s {
                                            Slot::Value(v) => Some(v.clone()),
                                            _ => None,
                                        })
                                        .collect(),
                                },
                                holds: matches!(slots[s], Slot::Value(_)),
                            };
                        }
                    };
                    match &slots[s] {
                        Slot::Value(v) => Condition::Is {
                            category: category.clone(),
                            value: v.clone(),
                        },
                        Slot::Other => Condition::IsNot {
                            category: category.clone(),
                            values: slots
                                .iter()
                                .filter_map(|s| match s {
                                    Slot::Value(v) => Some(v.clone()),
                                    _ => None,
                                })
                                .collect(),
                        },
                        Slot::Computed { when, index } => Condition::Computed {
                            category: category.clone(),
                            span: bindings.whens[*when].predicates[*index]
                                .value
                                .expr()
                                .map_or(Span::NONE, |e| e.span),
                        },
                    }
                })
                .collect()
        })
        .collect();
    (described, total.saturating_sub(MAX_DESCRIBED))
}
