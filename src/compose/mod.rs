//! The composition engine: the one place where the rules of D6, D11-D14 (as amended by D18)
//! decide, per key, which binding wins. `pbc lookup`, `pbc check` and `pbc compile` all go
//! through it, so what `check` reports and what a lookup does cannot disagree.
//!
//! [`Bindings`] indexes a lowered tree once, whatever the request: every binding of every
//! layer as a [`Candidate`] of its key, every contribution under its multibind id, every `when`
//! as a node of a tree of predicates. [`Composition`] matches that index against one request
//! (`pbc lookup`); [`analysis`] asks the same [`resolve`] about every request the bindings can
//! meet (`pbc check`). The rules for repeated multibind names live in [`multibind`].
//!
//! It must not evaluate producers nor word diagnostics: the injector produces values, the
//! validator and the injector turn its findings and errors into messages.

pub mod analysis;
pub mod multibind;

use std::hash::BuildHasher;

use crate::eval::code::Code;
use crate::lower::keys::Key;
use crate::lower::model::{
    model_is_data, ptype, AbstractBinding, Binding, BlockNames, Category, DataPath, Multibinding,
    NamedBindings, NamedLayer, Origin, ProducerDescriptor, Rebinding, TypeModel,
};
use crate::types::PType;
use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use smol_str::SmolStr;
use std::collections::BTreeSet;
use std::rc::Rc;

/// A precedence vector (D6): the precedences of the matched predicates, highest first; `[0]`
/// for a binding with none. Compared lexicographically, a longer vector beating its prefix.
/// Shared by every binding of one `when`.
pub type Precedence = Rc<[u16]>;

/// How one `when` predicate fared for the request.
#[derive(Clone, Debug)]
pub struct PredicateOutcome {
    pub category: SmolStr,
    /// The value the predicate names (as written, lower-cased); for a data file's path test,
    /// the file's path.
    pub value: SmolStr,
    pub matched: bool,
    /// Only for a data file's path test.
    pub path: Option<PathOutcome>,
}

/// How a data file's path test fared (ARM-9, D20).
#[derive(Clone, Debug)]
pub struct PathOutcome {
    /// The path the request gives (`None`: it could not be interpolated).
    pub given: Option<SmolStr>,
    /// A test of an earlier file of the same level, which must not be the request's.
    pub unless: bool,
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
    NeedsRuntime(RuntimeOnly, &'m Origin),
}

impl<'m> Bound<'m> {
    /// Where it is written.
    pub fn origin(&self) -> &'m Origin {
        match *self {
            Bound::Binding(b) => &b.origin,
            Bound::Multibinding(m) => &m.origin,
            Bound::Alias(r) | Bound::Renamed(r) | Bound::Rebind(r) => &r.origin,
            Bound::NeedsRuntime(_, origin) => origin,
        }
    }
}

/// A binding only Puppet's catalog can produce: a byte, not its text, since a candidate holds
/// it in place.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuntimeOnly {
    /// `bind parameters T to R[t]`
    Parameters,
    /// `bind map FROM to TO { }`
    Map,
}

impl std::fmt::Display for RuntimeOnly {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RuntimeOnly::Parameters => "bind parameters ... to a resource",
            RuntimeOnly::Map => "bind map",
        })
    }
}

/// One `when` (after lowering, one alternative of an `or`): its own predicates and the `when`
/// it is nested in. Parents come before their children in [`Bindings::whens`]. Numbers are
/// held in 32 bits, as a [`Candidate`]'s.
pub struct WhenNode<'m> {
    pub predicates: &'m [Category<Code<'m>>],
    /// A data file's path test (ARM-9).
    pub path: Option<&'m DataPath<Code<'m>>>,
    /// [`Candidate::NONE`] at the top level.
    parent: u32,
    /// Where its predicates start in [`Bindings::predicates`].
    predicates_at: u32,
}

impl WhenNode<'_> {
    /// The `when` it is nested in.
    pub fn parent(&self) -> Option<usize> {
        (self.parent != Candidate::NONE).then_some(self.parent as usize)
    }
}

/// One binding of a key, where it is and under which `when`. Its numbers are held in 32 bits
/// (a tree's index has one candidate per binding, 1.5 million at 100,000 files, and the key
/// entries already count them in 32 bits): read them with [`Candidate::layer`],
/// [`Candidate::when`] and [`Candidate::hiera_level`].
pub struct Candidate<'m> {
    pub bound: Bound<'m>,
    /// The `bindings NAME` it is written in, in [`Bindings::block_names`].
    block: u32,
    layer: u32,
    /// The innermost `when` around it; [`Candidate::NONE`] at the top level (`common`).
    when: u32,
    /// A key of Hiera 5 data: the level it stands for, which must be the one that places the
    /// key for the request (D24); [`Candidate::NONE`] for every other binding.
    hiera_level: u32,
    pub is_abstract: bool,
    pub is_override: bool,
}

impl<'m> Candidate<'m> {
    const NONE: u32 = u32::MAX;

    /// Where it is written (its binding's origin).
    pub fn origin(&self) -> &'m Origin {
        self.bound.origin()
    }

    pub fn layer(&self) -> usize {
        self.layer as usize
    }

    /// The `bindings NAME` block it is written in, in [`Bindings::block_names`] (the walk's
    /// order of the layers' blocks).
    pub fn block(&self) -> usize {
        self.block as usize
    }

    /// The innermost `when` around it; `None` at the top level (`common`).
    pub fn when(&self) -> Option<usize> {
        (self.when != Self::NONE).then_some(self.when as usize)
    }

    /// A key of Hiera 5 data: the level it stands for (D24).
    pub fn hiera_level(&self) -> Option<usize> {
        (self.hiera_level != Self::NONE).then_some(self.hiera_level as usize)
    }
}

/// A contribution to a multibind (`bind ... in 'id'`).
pub struct Contribution<'m> {
    pub binding: &'m Binding<Code<'m>>,
    pub layer: usize,
    pub when: Option<usize>,
    /// Document order over the whole tree.
    pub order: usize,
    /// The `bindings NAME` block it is written in, in [`Bindings::block_names`].
    pub block: usize,
}

/// Why a key has no usable winner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ComposeError {
    /// Two candidates of one layer with equal precedence (indexes into the candidates).
    Conflict { first: usize, second: usize },
    /// The winning candidate is abstract (and no higher layer binds the key).
    Abstract { candidate: usize },
    /// The winning candidate is an `override` that overrides nothing.
    UnresolvedOverride { candidate: usize },
}

/// One predicate of a `when`, as the index keeps it.
#[derive(Clone, Copy)]
struct IndexedPredicate {
    /// Which of [`Bindings::category_names`].
    category: u32,
    /// Which of [`Bindings::predicate_values`] it names; [`Candidate::NONE`]: its value is an
    /// expression, evaluated for each request.
    value: u32,
}

impl IndexedPredicate {
    fn literal(&self) -> Option<usize> {
        (self.value != Candidate::NONE).then_some(self.value as usize)
    }
}

/// A layer as the index reads it: its name and its blocks, in order, wherever they are held
/// (the check's blocks are lowered as their files are parsed, and are not moved into a model).
pub struct LayerView<'m> {
    pub name: &'m str,
    pub bindings: Vec<&'m NamedBindings<Code<'m>>>,
}

/// One key; its candidates are [`Bindings::candidates_of`] it. Its name and type are its first
/// candidate's, borrowed from the model: an index has an entry per key (a million at 100,000
/// files), and [`KeyEntry::key`] builds the [`Key`] when a lookup or a message needs it.
pub struct KeyEntry<'m> {
    name: &'m str,
    ty: &'m TypeModel,
    /// Where its candidates start in [`Bindings::by_key`], and how many there are.
    first: u32,
    count: u32,
}

impl KeyEntry<'_> {
    pub fn key(&self) -> Key {
        Key::new(ptype(self.ty), self.name)
    }
}

/// Every binding of a lowered tree's layers, indexed by key; the same for every request.
pub struct Bindings<'m> {
    pub candidates: Vec<Candidate<'m>>,
    pub keys: Vec<KeyEntry<'m>>,
    /// Every key's candidates, key after key, each key's in layer, then document order: one
    /// list for the index instead of one per key (110,000 keys, 110,000 allocations).
    by_key: Vec<usize>,
    /// While building: the key entry of each candidate, in candidate order.
    key_of: Vec<u32>,
    /// Data keys (most keys are) by name: no id to build per binding.
    data_keys: DataKeys,
    /// Other keys by [`Key::id`].
    typed_keys: HashMap<String, usize>,
    /// By multibind id, in document order.
    pub contributions: HashMap<&'m str, Vec<Contribution<'m>>>,
    pub whens: Vec<WhenNode<'m>>,
    /// Every category name the `when`s test, once: a request finds each name's value once, and
    /// a predicate reads it by id.
    category_names: Vec<&'m str>,
    /// Every value the `when`s name literally, once (lower-cased, as lowered), with its id.
    predicate_values: HashMap<&'m str, usize>,
    /// Every predicate, `when` by `when` (see [`WhenNode`]), in numbers: matching a request
    /// reads this dense list instead of the model, and compares ids instead of names.
    predicates: Vec<IndexedPredicate>,
    pub layer_names: Vec<&'m str>,
    /// The name of each `bindings NAME` block, in layer, then document order (what a
    /// [`Candidate`] is written in).
    block_names: Vec<&'m str>,
    /// The candidates that are `bind renamed` (a request erases the keys of those it matches).
    renamed: Vec<usize>,
    /// The key entries in name order, sorted once for every request ([`Bindings::keys_in_order`]).
    keys_in_order: std::sync::OnceLock<Vec<usize>>,
    /// Every entry's [`Key`], built once for the index when `--all` first needs them all (a
    /// lookup of named keys and `pbc check` build only the keys they name).
    every_key: std::sync::OnceLock<Vec<Key>>,
    /// What each candidate produces when no request can change it, produced once for every
    /// request that shares the index ([`Bindings::request_independent`]).
    request_independent: std::sync::OnceLock<Box<[RequestIndependent]>>,
    /// Set on a part of the index made for the lookup of a few keys ([`Bindings::build_part`]).
    part: Option<Box<Part>>,
}

/// What a part of the index made for the lookup of a few keys holds ([`Bindings::build_part`]),
/// and what was asked of it beyond that. A lookup answered from a part is the whole index's
/// answer only when it asked nothing beyond: otherwise it is answered again from a part that
/// holds that too, or from the whole.
pub struct Part {
    names: HashSet<String>,
    ids: HashSet<String>,
    beyond: std::sync::Mutex<Beyond>,
}

/// What was asked of a part of the index beyond what it holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Beyond {
    /// Key names it holds no bindings of.
    pub names: BTreeSet<String>,
    /// Multibind ids it holds no contributions to.
    pub ids: BTreeSet<String>,
    /// What only the whole index has: every key, the keys of a namespace, every multibind.
    pub whole: bool,
}

impl Beyond {
    fn is_empty(&self) -> bool {
        self.names.is_empty() && self.ids.is_empty() && !self.whole
    }
}

/// A candidate's value when no request can change it (the injector decides which those are
/// and produces them): `Some(None)` once it is known to depend on the request.
pub type RequestIndependent = std::sync::OnceLock<Option<crate::eval::Value>>;

impl<'m> Bindings<'m> {
    /// The slot of the candidate's request-independent value. The slots of every candidate
    /// are made when the first is asked for, not by building the index.
    pub fn request_independent(&self, candidate: usize) -> Option<&RequestIndependent> {
        self.request_independent
            .get_or_init(|| {
                (0..self.candidates.len())
                    .map(|_| RequestIndependent::new())
                    .collect()
            })
            .get(candidate)
    }

    /// The key entries by name, then by id: `--all` lists keys in this order for every node,
    /// so they are sorted once per index, not once per request.
    pub fn keys_in_order(&self) -> &[usize] {
        self.asked_whole();
        self.keys_in_order.get_or_init(|| {
            let mut order: Vec<usize> = (0..self.keys.len()).collect();
            // Only keys of one name (rare) build their ids.
            order.sort_by(|&a, &b| {
                let (a, b) = (&self.keys[a], &self.keys[b]);
                by_name_then_id(a.name, b.name, || (a.key().id(), b.key().id()))
            });
            order
        })
    }

    /// The names of the data keys directly in `namespace` (`ntp` holds `ntp::servers`, the
    /// parameters of class `ntp`, and not `ntp::config::file`), once each, in name order.
    pub fn names_in_namespace(&self, namespace: &str) -> Vec<&'m str> {
        self.asked_whole();
        let prefix = format!("{namespace}::");
        let order = self.keys_in_order();
        // Names that start with the prefix sort together, from the prefix itself on.
        let start = order.partition_point(|&e| self.keys[e].name < prefix.as_str());
        let mut names: Vec<&'m str> = order[start..]
            .iter()
            .map(|&e| &self.keys[e])
            .take_while(|k| k.name.starts_with(&prefix))
            .filter(|k| !k.name[prefix.len()..].contains("::"))
            .filter(|k| k.key().ty == crate::types::PType::Data)
            .map(|k| k.name)
            .collect();
        names.dedup();
        names
    }

    /// The [`Key`] of every entry, in entry order.
    pub fn every_key(&self) -> &[Key] {
        self.asked_whole();
        self.every_key
            .get_or_init(|| self.keys.iter().map(KeyEntry::key).collect())
    }

    pub fn build(layers: &'m [NamedLayer<Code<'m>>]) -> Bindings<'m> {
        Bindings::build_from(&layer_views(layers))
    }

    /// [`Bindings::build`] for layers whose blocks are held elsewhere.
    ///
    /// The walk over the blocks and the numbering of their keys run side by side on two cores
    /// when there are two: each takes about half of the index's time, most of it waiting on
    /// memory (the walk reading every binding from the model, the keys probing their maps).
    /// The walk hands each candidate's key over in batches, in candidate order, so the keys are
    /// numbered exactly as one thread numbers them.
    pub fn build_from(layers: &[LayerView<'m>]) -> Bindings<'m> {
        // Sized for the top-level bindings (most bindings are): growing costs more than the
        // lookups it serves.
        let estimate: usize = layers
            .iter()
            .flat_map(|l| &l.bindings)
            .map(|nb| nb.bindings.len())
            .sum();
        let two_cores = crate::parallel::cores() > 1;
        Bindings::build_keyed(
            layers,
            estimate,
            two_cores && estimate >= KEYS_ON_THEIR_OWN_THREAD,
        )
    }

    /// The index of the bindings of `layers` that `only` names: a part of a tree's index
    /// whose keys have each every candidate they have in the whole (when `only` names every
    /// file that binds them) and whose multibind ids have each every contribution. The
    /// language server judges again, after an edit, only the keys an edited file can change,
    /// and a walk that skips the others spares numbering every key of the tree.
    pub fn build_only(layers: &[LayerView<'m>], only: &Only) -> Bindings<'m> {
        let mut keys = KeyIndex::with_capacity(0);
        let mut b = Bindings::walk(layers, 0, Some(only), &mut |r| keys.add(&r));
        b.take_keys(keys);
        b
    }

    /// The part of the index that the lookup of keys named `names` reads when it reads only
    /// their bindings, the contributions to the multibinds `ids` and to those the names bind,
    /// and every `bind renamed` (a request erases what those it matches rename, whatever their
    /// names). Each key it holds has every candidate it has in the whole, in the same order,
    /// and each multibind id every contribution. What is asked of it beyond that is noted
    /// ([`Bindings::beyond_part`]): a lookup that asked nothing beyond answers as from the
    /// whole, and one walk of the blocks reading only names spares numbering every key.
    pub fn build_part(
        layers: &'m [NamedLayer<Code<'m>>],
        names: &BTreeSet<String>,
        ids: &BTreeSet<String>,
    ) -> Bindings<'m> {
        let views = layer_views(layers);
        // A block whose summary says it binds none of the names is walked only for its
        // contributions and `bind renamed`s: a tree's blocks mostly bind other keys, and going
        // through each of their bindings was most of a hover's answer.
        let wanted: Vec<[u64; 2]> = names.iter().map(|name| name_bits(name)).collect();
        let blocks: Vec<BlockTake> = views
            .iter()
            .flat_map(|view| view.bindings.iter())
            .map(|block| {
                let summary = summary_of(block);
                let binds = |bits: &[u64; 2]| (0..2).all(|i| summary.bits[i] & bits[i] == bits[i]);
                match wanted.iter().any(binds) {
                    true => BlockTake {
                        binds: true,
                        items: None,
                    },
                    false => BlockTake {
                        binds: false,
                        items: Some(&summary.read_whatever_the_names),
                    },
                }
            })
            .collect();
        let mut ids = ids.clone();
        loop {
            let only = Only {
                names: names.iter().map(String::as_str).collect(),
                multibind_ids: ids.iter().map(String::as_str).collect(),
                blocks: Some(blocks.clone()),
                every_renamed: true,
            };
            let mut part = Bindings::build_only(&views, &only);
            // A multibind the names bind collects contributions: walked again for them (once
            // per multibind at most, as each walk takes more ids).
            let collected: Vec<String> = part
                .candidates
                .iter()
                .filter_map(|c| match c.bound {
                    Bound::Multibinding(m) => Bindings::multibind_id(m),
                    _ => None,
                })
                .filter(|id| !ids.contains(*id))
                .map(str::to_string)
                .collect();
            if collected.is_empty() {
                part.part = Some(Box::new(Part {
                    names: names.iter().cloned().collect(),
                    ids: ids.into_iter().collect(),
                    beyond: std::sync::Mutex::new(Beyond::default()),
                }));
                return part;
            }
            ids.extend(collected);
        }
    }

    /// What was asked of this part of the index beyond what it holds since it was built;
    /// `None` for the whole index, or when nothing was.
    pub fn beyond_part(&self) -> Option<Beyond> {
        let part = self.part.as_ref()?;
        let beyond = part.beyond.lock().unwrap_or_else(|p| p.into_inner());
        (!beyond.is_empty()).then(|| beyond.clone())
    }

    fn note_beyond(&self, note: impl FnOnce(&Part, &mut Beyond)) {
        if let Some(part) = &self.part {
            let mut beyond = part.beyond.lock().unwrap_or_else(|p| p.into_inner());
            note(part, &mut beyond);
        }
    }

    fn asked_name(&self, name: &str) {
        self.note_beyond(|part, beyond| {
            if !part.names.contains(name) && !beyond.names.contains(name) {
                beyond.names.insert(name.to_string());
            }
        });
    }

    fn asked_whole(&self) {
        self.note_beyond(|_, beyond| beyond.whole = true);
    }

    /// The contributions to the multibind `id`, in document order.
    pub fn contributions_to(&self, id: &str) -> Option<&[Contribution<'m>]> {
        self.note_beyond(|part, beyond| {
            if !part.ids.contains(id) && !beyond.ids.contains(id) {
                beyond.ids.insert(id.to_string());
            }
        });
        self.contributions.get(id).map(Vec::as_slice)
    }

    /// The name of the multibind whose id is `id` when that is not its name.
    pub fn multibind_named_by_id(&self, id: &str) -> Option<String> {
        self.asked_whole();
        self.candidates.iter().find_map(|c| match c.bound {
            Bound::Multibinding(m)
                if m.id.as_deref() == Some(id) && m.name.as_deref() != Some(id) =>
            {
                m.name.clone()
            }
            _ => None,
        })
    }

    /// The index, its keys numbered on a thread of their own (`beside`) or by the walk's.
    fn build_keyed(layers: &[LayerView<'m>], estimate: usize, beside: bool) -> Bindings<'m> {
        if !beside {
            return Bindings::keyed_by_the_walk(layers, estimate);
        }
        std::thread::scope(|scope| {
            let (batches, batches_in) = std::sync::mpsc::sync_channel::<Vec<KeyRef<'m>>>(8);
            let (spent, spent_in) = std::sync::mpsc::channel::<Vec<KeyRef<'m>>>();
            let keying = std::thread::Builder::new().spawn_scoped(scope, move || {
                let mut keys = KeyIndex::with_capacity(estimate);
                for mut batch in batches_in {
                    for r in &batch {
                        keys.add(r);
                    }
                    batch.clear();
                    // The walk reuses the batch: no new memory to fault in per batch.
                    let _ = spent.send(batch);
                }
                keys
            });
            let Ok(keying) = keying else {
                return Bindings::keyed_by_the_walk(layers, estimate);
            };
            let mut batch = Vec::with_capacity(KEY_BATCH);
            let mut b = Bindings::walk(layers, estimate, None, &mut |r| {
                batch.push(r);
                if batch.len() == KEY_BATCH {
                    let next = spent_in
                        .try_recv()
                        .unwrap_or_else(|_| Vec::with_capacity(KEY_BATCH));
                    let _ = batches.send(std::mem::replace(&mut batch, next));
                }
            });
            let _ = batches.send(batch);
            drop(batches);
            match keying.join() {
                Ok(keys) => b.take_keys(keys),
                Err(panic) => std::panic::resume_unwind(panic),
            }
            b
        })
    }

    /// The index, its keys numbered by the walk's thread as it goes.
    fn keyed_by_the_walk(layers: &[LayerView<'m>], estimate: usize) -> Bindings<'m> {
        let mut keys = KeyIndex::with_capacity(estimate);
        let mut b = Bindings::walk(layers, estimate, None, &mut |r| keys.add(&r));
        b.take_keys(keys);
        b
    }

    /// The numbered keys, once every candidate is known.
    fn take_keys(&mut self, keys: KeyIndex<'m>) {
        self.keys = keys.keys;
        self.key_of = keys.key_of;
        self.data_keys = keys.data_keys;
        self.typed_keys = keys.typed_keys;
        self.group_by_key();
    }

    /// Walks the layers' blocks in order: the candidates, `when`s, predicates and
    /// contributions of the index, each candidate's key handed to `key` in candidate order.
    fn walk(
        layers: &[LayerView<'m>],
        estimate: usize,
        only: Option<&Only>,
        key: &mut dyn FnMut(KeyRef<'m>),
    ) -> Bindings<'m> {
        let mut b = Bindings {
            candidates: Vec::with_capacity(estimate),
            keys: Vec::new(),
            by_key: Vec::new(),
            key_of: Vec::new(),
            data_keys: DataKeys::with_capacity(0),
            typed_keys: HashMap::new(),
            contributions: HashMap::new(),
            whens: Vec::new(),
            category_names: Vec::new(),
            predicate_values: HashMap::new(),
            predicates: Vec::new(),
            layer_names: layers.iter().map(|l| l.name).collect(),
            block_names: Vec::new(),
            renamed: Vec::new(),
            keys_in_order: std::sync::OnceLock::new(),
            every_key: std::sync::OnceLock::new(),
            request_independent: std::sync::OnceLock::new(),
            part: None,
        };
        let mut order = 0usize;
        let mut category_ids: HashMap<&'m str, usize> = HashMap::new();
        // An explicit stack: `when` nesting is bounded, but passes do not recurse. One for
        // all the blocks, not one made per block.
        let mut stack: Vec<(
            std::slice::Iter<'m, AbstractBinding<Code<'m>>>,
            WhenSlot<'m>,
        )> = Vec::new();
        for (layer, named_layer) in layers.iter().enumerate() {
            for &nb in &named_layer.bindings {
                let block = b.block_names.len() as u32;
                b.block_names.push(nb.name.as_str());
                stack.clear();
                match only.and_then(|only| only.items_of(block)) {
                    None => stack.push((nb.bindings.iter(), WhenSlot::Top)),
                    // The last pushed is walked first.
                    Some(items) => stack.extend(items.iter().rev().filter_map(|&i| {
                        let at = i as usize;
                        Some((nb.bindings.get(at..=at)?.iter(), WhenSlot::Top))
                    })),
                }
                while let Some((items, _)) = stack.last_mut() {
                    let Some(item) = items.next() else {
                        stack.pop();
                        continue;
                    };
                    order += 1;
                    if let AbstractBinding::CategorizedBindings {
                        predicates,
                        path,
                        bindings,
                        ..
                    } = item
                    {
                        let (predicates, path) = (&predicates[..], path.as_deref());
                        // A part of the index takes a `when` only once it takes a binding in
                        // it: most of those it walks past are of keys it does not take.
                        let slot = match only {
                            None => {
                                let parent = stack.last().and_then(|(_, slot)| slot.made());
                                let when = b.add_when(predicates, path, parent, &mut category_ids);
                                WhenSlot::Made(when)
                            }
                            Some(_) => WhenSlot::Pending(predicates, path),
                        };
                        stack.push((bindings.iter(), slot));
                    } else if only.is_none_or(|only| only.takes(item, block)) {
                        let when = b.when_of(&mut stack, &mut category_ids);
                        let at = Place {
                            layer,
                            block,
                            when,
                            order,
                        };
                        b.add(item, &at, key);
                    }
                }
            }
        }
        b
    }

    /// The innermost `when` of the walk's `stack`, those pending added to the index first,
    /// outermost first (parents come before their children).
    fn when_of(
        &mut self,
        stack: &mut [(
            std::slice::Iter<'m, AbstractBinding<Code<'m>>>,
            WhenSlot<'m>,
        )],
        category_ids: &mut HashMap<&'m str, usize>,
    ) -> Option<usize> {
        // Pending `when`s are the innermost: those outside a `when` in the index are too.
        let Some(first) = stack
            .iter()
            .position(|(_, slot)| matches!(slot, WhenSlot::Pending(..)))
        else {
            return stack.last().and_then(|(_, slot)| slot.made());
        };
        let mut parent = first.checked_sub(1).and_then(|outer| stack[outer].1.made());
        for (_, slot) in &mut stack[first..] {
            if let WhenSlot::Pending(predicates, path) = *slot {
                let when = self.add_when(predicates, path, parent, category_ids);
                *slot = WhenSlot::Made(when);
                parent = Some(when);
            }
        }
        parent
    }

    /// Adds a `when` of `predicates` (and a data file's `path` test) inside `parent`; its
    /// number.
    fn add_when(
        &mut self,
        predicates: &'m [Category<Code<'m>>],
        path: Option<&'m DataPath<Code<'m>>>,
        parent: Option<usize>,
        category_ids: &mut HashMap<&'m str, usize>,
    ) -> usize {
        let predicates_at = self.predicates.len() as u32;
        for p in predicates {
            let name = p.categorization.as_str();
            let next = self.category_names.len();
            let category = *category_ids.entry(name).or_insert(next);
            if category == next {
                self.category_names.push(name);
            }
            let value = match &p.value {
                Code::Value(crate::eval::Value::String(v)) => {
                    let next = self.predicate_values.len();
                    Some(*self.predicate_values.entry(v.as_str()).or_insert(next))
                }
                _ => None,
            };
            self.predicates.push(IndexedPredicate {
                category: category as u32,
                value: value.map_or(Candidate::NONE, |v| v as u32),
            });
        }
        self.whens.push(WhenNode {
            parent: parent.map_or(Candidate::NONE, |w| w as u32),
            predicates,
            predicates_at,
            path,
        });
        self.whens.len() - 1
    }

    /// Lays the candidates out key by key ([`Bindings::by_key`]), keeping their order within
    /// each key: a counting sort over the key of each candidate.
    fn group_by_key(&mut self) {
        let mut next = 0u32;
        for entry in &mut self.keys {
            entry.first = next;
            next += entry.count;
            entry.count = 0;
        }
        self.by_key = vec![0; self.key_of.len()];
        for (candidate, &key) in self.key_of.iter().enumerate() {
            let entry = &mut self.keys[key as usize];
            self.by_key[(entry.first + entry.count) as usize] = candidate;
            entry.count += 1;
        }
        self.key_of = Vec::new();
    }

    /// The candidates of key entry `entry`, in layer, then document order.
    pub fn candidates_of(&self, entry: usize) -> &[usize] {
        let e = &self.keys[entry];
        &self.by_key[e.first as usize..(e.first + e.count) as usize]
    }

    fn add(
        &mut self,
        item: &'m AbstractBinding<Code<'m>>,
        at: &Place,
        key: &mut dyn FnMut(KeyRef<'m>),
    ) {
        let candidate = |bound: Bound<'m>, is_abstract, is_override| Candidate {
            bound,
            block: at.block,
            layer: at.layer as u32,
            when: at.when.map_or(Candidate::NONE, |w| w as u32),
            hiera_level: Candidate::NONE,
            is_abstract,
            is_override,
        };
        let ((ty, name), cand): ((&TypeModel, &'m str), _) = match item {
            AbstractBinding::Binding(b) => {
                if let Some(id) = b.multibind_id() {
                    self.contributions
                        .entry(id)
                        .or_default()
                        .push(Contribution {
                            binding: b,
                            layer: at.layer,
                            when: at.when,
                            order: at.order,
                            block: at.block as usize,
                        });
                    return;
                }
                let mut c = candidate(Bound::Binding(b), b.abstract_, b.override_);
                if let Some(ProducerDescriptor::HieraProducerDescriptor { level }) =
                    b.producer.as_deref()
                {
                    c.hiera_level = *level as u32;
                }
                ((&b.type_, b.name.as_deref().unwrap_or_default()), c)
            }
            // A multibind contributes to another one through a lookup (`bind 'inner' to
            // lookup('inner') in 'outer'`): ARM-8 has no syntax for Puppet 3's nested form.
            AbstractBinding::Multibinding(m) => (
                (&m.type_, m.name.as_deref().unwrap_or_default()),
                candidate(Bound::Multibinding(m), m.abstract_, m.override_),
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
                    candidate(bound, r.abstract_, r.override_),
                )
            }
            AbstractBinding::ParametersBinding(p) => (
                (&DATA, &*p.name),
                candidate(
                    Bound::NeedsRuntime(RuntimeOnly::Parameters, &p.origin),
                    false,
                    p.override_,
                ),
            ),
            AbstractBinding::ParameterMapBinding {
                name,
                override_,
                origin,
                ..
            } => (
                (&DATA, &**name),
                candidate(
                    Bound::NeedsRuntime(RuntimeOnly::Map, origin),
                    false,
                    *override_,
                ),
            ),
            AbstractBinding::DependencyBinding { .. }
            | AbstractBinding::CategorizedBindings { .. } => return,
        };
        let index = self.candidates.len();
        if matches!(cand.bound, Bound::Renamed(_)) {
            self.renamed.push(index);
        }
        self.candidates.push(cand);
        key(KeyRef {
            ty,
            name,
            data: model_is_data(ty),
        });
    }

    /// The `bindings NAME` a candidate is written in.
    pub fn block_name(&self, candidate: &Candidate) -> &'m str {
        self.block_names[candidate.block as usize]
    }

    /// The key's index in `keys`.
    pub fn entry(&self, key: &Key) -> Option<usize> {
        self.asked_name(&key.name);
        if key.ty == PType::Data {
            self.data_keys.find(&self.keys, &key.name)
        } else {
            self.typed_keys.get(&key.id()).copied()
        }
    }

    /// The entry of the key whose [`Key::id`] is `id`.
    pub fn entry_of_id(&self, id: &str) -> Option<usize> {
        // A name holds no `/`: a type's text before it may.
        self.asked_name(id.rsplit_once('/').map_or(id, |(_, name)| name));
        match id.strip_prefix("Data/") {
            Some(name) => self.data_keys.find(&self.keys, name),
            None => self.typed_keys.get(id).copied(),
        }
    }

    /// The multibind id a multibinding collects (`as 'id'`, else its name).
    pub fn multibind_id<'a>(m: &'a Multibinding<Code>) -> Option<&'a str> {
        m.id.as_deref().or(m.name.as_deref())
    }
}

/// A level of the walk: the top of a block, or a `when` added to the index or not yet.
#[derive(Clone, Copy)]
enum WhenSlot<'m> {
    Top,
    Made(usize),
    /// Its predicates and path test.
    Pending(&'m [Category<Code<'m>>], Option<&'m DataPath<Code<'m>>>),
}

impl WhenSlot<'_> {
    fn made(&self) -> Option<usize> {
        match self {
            WhenSlot::Made(when) => Some(*when),
            _ => None,
        }
    }
}

/// Which bindings [`Bindings::build_only`] takes: those of keys named `names` (whatever their
/// type) and the contributions to the multibinds `multibind_ids`.
pub struct Only<'s> {
    pub names: HashSet<&'s str>,
    pub multibind_ids: HashSet<&'s str>,
    /// By block of the walk, in its order, what it takes of the block (`None`: everything it
    /// names). A block that may not bind a key of `names` is walked for its contributions
    /// alone: when every file contributes to one multibind, every file is walked, and going
    /// through each of their bindings was most of the walk.
    pub blocks: Option<Vec<BlockTake<'s>>>,
    /// Whether every `bind renamed` is taken, whatever its name.
    pub every_renamed: bool,
}

/// The model's layers as the walk sees them: each layer's name and blocks.
fn layer_views<'m>(layers: &'m [NamedLayer<Code<'m>>]) -> Vec<LayerView<'m>> {
    layers
        .iter()
        .map(|l| LayerView {
            name: &l.name,
            bindings: l.bindings.iter().map(|b| &**b).collect(),
        })
        .collect()
}

/// What [`Only`] takes of one block.
#[derive(Clone, Copy)]
pub struct BlockTake<'s> {
    /// Whether the block may bind a key of [`Only::names`].
    pub binds: bool,
    /// The top-level items that hold the contributions to walk (`None`: every item).
    pub items: Option<&'s [u32]>,
}

/// Whether `set` holds `name`. A part of the index is most often built for one key or a
/// few, and the walk asks this of every binding of the tree: a few names are compared (by
/// length first) instead of hashing each binding's name.
fn holds(set: &HashSet<&str>, name: &str) -> bool {
    const FEW: usize = 4;
    if set.len() <= FEW {
        set.iter()
            .any(|held| held.len() == name.len() && *held == name)
    } else {
        set.contains(name)
    }
}

impl Only<'_> {
    fn takes(&self, item: &AbstractBinding<Code>, block: u32) -> bool {
        if let AbstractBinding::Binding(b) = item {
            if let Some(id) = b.multibind_id() {
                return holds(&self.multibind_ids, id);
            }
        }
        if self.every_renamed && matches!(item, AbstractBinding::RenamedBinding(_)) {
            return true;
        }
        if !self.binds_in(block) {
            return false;
        }
        bound_name(item).is_some_and(|name| holds(&self.names, name))
    }

    fn binds_in(&self, block: u32) -> bool {
        self.blocks
            .as_ref()
            .is_none_or(|blocks| blocks.get(block as usize).is_none_or(|b| b.binds))
    }

    /// The top-level items of `block` to walk (`None`: every one).
    fn items_of(&self, block: u32) -> Option<&[u32]> {
        self.blocks.as_ref()?.get(block as usize)?.items
    }
}

/// The name a walk for a few names ([`Only`]) takes `item` by: none for a `when` or a
/// dependency, which it never takes by name.
fn bound_name<'m>(item: &'m AbstractBinding<Code>) -> Option<&'m str> {
    let name = match item {
        AbstractBinding::Binding(b) => b.name.as_deref(),
        AbstractBinding::Multibinding(m) => m.name.as_deref(),
        AbstractBinding::AliasBinding(r)
        | AbstractBinding::RenamedBinding(r)
        | AbstractBinding::Rebinding(r) => r.name.as_deref(),
        AbstractBinding::ParametersBinding(p) => Some(&*p.name),
        AbstractBinding::ParameterMapBinding { name, .. } => Some(&**name),
        AbstractBinding::DependencyBinding { .. } | AbstractBinding::CategorizedBindings { .. } => {
            return None
        }
    };
    Some(name.unwrap_or_default())
}

/// The two bits of 128 that `name` sets in a block's [`BlockNames::bits`] (FNV-1a: the same
/// in every process, and quick on the short names keys have).
fn name_bits(name: &str) -> [u64; 2] {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes() {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
    }
    let mut bits = [0u64; 2];
    for at in [hash & 127, (hash >> 7) & 127] {
        bits[(at / 64) as usize] |= 1 << (at % 64);
    }
    bits
}

/// `block`'s summary, made the first time it is asked for.
fn summary_of<'m>(block: &'m NamedBindings<Code>) -> &'m BlockNames {
    block.summary.0.get_or_init(|| {
        let mut bits = [0u64; 2];
        let mut read_whatever_the_names = Vec::new();
        // An explicit stack: `when` nesting is bounded, but passes do not recurse.
        let mut stack = Vec::new();
        for (at, top) in block.bindings.iter().enumerate() {
            let mut read_anyway = false;
            stack.push(top);
            while let Some(item) = stack.pop() {
                match item {
                    AbstractBinding::CategorizedBindings { bindings, .. } => stack.extend(bindings),
                    AbstractBinding::Binding(b) if b.multibind_id().is_some() => read_anyway = true,
                    AbstractBinding::RenamedBinding(_) => read_anyway = true,
                    _ => {}
                }
                if let Some(name) = bound_name(item) {
                    let set = name_bits(name);
                    bits[0] |= set[0];
                    bits[1] |= set[1];
                }
            }
            if read_anyway {
                read_whatever_the_names.push(at as u32);
            }
        }
        Box::new(BlockNames {
            bits,
            read_whatever_the_names: read_whatever_the_names.into(),
        })
    })
}

/// The top-level items of `block` that hold a contribution to a multibind, at any depth of
/// `when`s: those [`Only`] walks in a block that binds none of its keys.
pub fn contributing_items(block: &NamedBindings<Code>) -> Box<[u32]> {
    let holds = |item: &AbstractBinding<Code>| {
        // An explicit stack: `when` nesting is bounded, but passes do not recurse.
        let mut stack = vec![item];
        while let Some(item) = stack.pop() {
            match item {
                AbstractBinding::Binding(b) if b.multibind_id().is_some() => return true,
                AbstractBinding::CategorizedBindings { bindings, .. } => stack.extend(bindings),
                _ => {}
            }
        }
        false
    };
    (0..block.bindings.len() as u32)
        .filter(|&i| holds(&block.bindings[i as usize]))
        .collect()
}

/// Below this many top-level bindings the keys are numbered on the walk's own thread: a thread
/// costs more than it saves.
const KEYS_ON_THEIR_OWN_THREAD: usize = 4096;

/// How many keys the walk hands over at a time.
const KEY_BATCH: usize = 1024;

/// A candidate's key, as the walk hands it to the numbering.
struct KeyRef<'m> {
    ty: &'m TypeModel,
    name: &'m str,
    /// [`model_is_data`] of `ty`, found where the walk has the type at hand.
    data: bool,
}

/// The index's Data keys by name. A slot holds only the key's entry number: the name is the
/// entry's own ([`KeyEntry::name`]), so a slot is 4 bytes where a map of borrowed names to
/// numbers takes 24, and an index has a slot for each of a tree's keys (a million at 100,000
/// files). The names are hashed with the seeded hasher pbc's maps use (foldhash).
struct DataKeys {
    slots: hashbrown::HashTable<u32>,
    hasher: foldhash::fast::RandomState,
}

impl DataKeys {
    fn with_capacity(keys: usize) -> DataKeys {
        DataKeys {
            slots: hashbrown::HashTable::with_capacity(keys),
            hasher: foldhash::fast::RandomState::default(),
        }
    }

    /// The entry of the Data key `name`.
    fn find(&self, keys: &[KeyEntry], name: &str) -> Option<usize> {
        let hash = self.hasher.hash_one(name);
        self.slots
            .find(hash, |&e| keys[e as usize].name == name)
            .map(|&e| e as usize)
    }

    /// The entry of the Data key `name`; `next` (the entry the caller adds next) when it has
    /// none yet.
    fn find_or_add(&mut self, keys: &[KeyEntry], name: &str, next: usize) -> usize {
        let hasher = &self.hasher;
        let hash = hasher.hash_one(name);
        match self.slots.entry(
            hash,
            |&e| keys[e as usize].name == name,
            |&e| hasher.hash_one(keys[e as usize].name),
        ) {
            hashbrown::hash_table::Entry::Occupied(found) => *found.get() as usize,
            hashbrown::hash_table::Entry::Vacant(slot) => {
                slot.insert(next as u32);
                next
            }
        }
    }
}

/// The keys of the index, numbered in the order their first candidates come, with the key of
/// each candidate.
struct KeyIndex<'m> {
    keys: Vec<KeyEntry<'m>>,
    key_of: Vec<u32>,
    data_keys: DataKeys,
    typed_keys: HashMap<String, usize>,
}

impl<'m> KeyIndex<'m> {
    fn with_capacity(candidates: usize) -> KeyIndex<'m> {
        KeyIndex {
            keys: Vec::with_capacity(candidates),
            key_of: Vec::with_capacity(candidates),
            data_keys: DataKeys::with_capacity(candidates),
            typed_keys: HashMap::new(),
        }
    }

    /// The next candidate's key.
    fn add(&mut self, r: &KeyRef<'m>) {
        let next = self.keys.len();
        let entry = if r.data {
            self.data_keys.find_or_add(&self.keys, r.name, next)
        } else {
            *self
                .typed_keys
                .entry(Key::id_of(&ptype(r.ty), r.name))
                .or_insert(next)
        };
        if entry == next {
            self.keys.push(KeyEntry {
                name: r.name,
                ty: r.ty,
                first: 0,
                count: 0,
            });
        }
        // Counted here, placed once every candidate is known (`group_by_key`).
        self.keys[entry].count += 1;
        self.key_of.push(entry as u32);
    }
}

/// The type of the naming scheme's keys (`/param/...`, `/map/...`).
static DATA: TypeModel = TypeModel::PDataType;

/// Where the walk is while indexing.
struct Place {
    layer: usize,
    /// The block's name in [`Bindings::block_names`].
    block: u32,
    when: Option<usize>,
    order: usize,
}

/// The one rule deciding a key for a request (D11, D13 as amended by D18). Layer by layer,
/// highest first, the first layer with a matching candidate decides; non-matching candidates
/// shadow nothing. In it, concrete beats abstract, then the higher precedence wins; equal is a
/// conflict. The winner must not be abstract, and an `override` must have beaten a candidate
/// of its layer or have a matching one below. A candidate that loses never causes an error.
///
/// `list` holds the key's candidates in layer order; `precedence` says, for the request, each
/// one's precedence vector, `None` when it does not match.
pub fn resolve(
    candidates: &[Candidate],
    list: &[usize],
    precedence: &dyn Fn(usize) -> Option<Precedence>,
) -> Result<Option<usize>, ComposeError> {
    let mut matching = list.iter().filter_map(|&i| precedence(i).map(|p| (i, p)));
    let Some((first, first_precedence)) = matching.next() else {
        return Ok(None);
    };
    let layer = candidates[first].layer;
    let rank = |i: usize, p: Precedence| (!candidates[i].is_abstract, p);
    let (mut best, mut best_rank) = (first, rank(first, first_precedence));
    let (mut tie, mut in_layer, mut lower) = (None, 1usize, false);
    for (i, p) in matching {
        if candidates[i].layer != layer {
            lower = true;
            break;
        }
        in_layer += 1;
        let r = rank(i, p);
        match r.cmp(&best_rank) {
            std::cmp::Ordering::Greater => {
                best = i;
                best_rank = r;
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
    let winner = &candidates[best];
    if winner.is_abstract {
        return Err(ComposeError::Abstract { candidate: best });
    }
    if winner.is_override && in_layer == 1 && !lower {
        return Err(ComposeError::UnresolvedOverride { candidate: best });
    }
    Ok(Some(best))
}

/// D6: de-duplicated, highest first, `[0]` when empty; `common` adds nothing (D5: `when common`
/// is top level).
pub fn normalise(mut p: Vec<u16>) -> Precedence {
    p.retain(|&level| level != 0);
    p.sort_unstable_by(|a, b| b.cmp(a));
    p.dedup();
    if p.is_empty() {
        p.push(0);
    }
    Rc::from(p)
}

/// Whether `normalise` leaves `p` as it is.
fn is_normal(p: &[u16]) -> bool {
    p == [0] || (!p.is_empty() && p.windows(2).all(|w| w[0] > w[1]) && !p.contains(&0))
}

/// Whether a diagnostic code is a composition error, which belongs to a key and a request
/// (D18): `pbc lookup` fails only the keys it affects, where any other error stops it.
pub fn is_per_key(code: &str) -> bool {
    use crate::diag::codes;
    [
        codes::CONFLICTING_BINDINGS,
        codes::ABSTRACT_NOT_OVERRIDDEN,
        codes::UNRESOLVED_OVERRIDE,
        codes::MULTIBIND_CONTRIBUTION,
    ]
    .contains(&code)
}

/// The request's categories as the composer needs them: name, value, precedence.
pub struct CategoryValues {
    /// A site declares a handful of categories, each looked up once per request.
    pub values: Vec<(SmolStr, SmolStr, u16)>,
}

impl CategoryValues {
    /// The value and precedence of the category `name`, if the request gives it a value.
    pub fn get(&self, name: &str) -> Option<(&SmolStr, u16)> {
        // The last of a name wins, as it would in a map built from the list.
        self.values
            .iter()
            .rev()
            .find(|(n, _, _)| n == name)
            .map(|(_, v, p)| (v, *p))
    }
}

/// Which Hiera level places a key of Hiera data for a request (`None`: no level finds it).
pub type HieraPlacing<'m> = Box<dyn Fn(&str) -> Option<usize> + 'm>;

/// The index matched against one request: which `when`s hold, every key's winner, the
/// contributions that apply. Each is worked out when first asked: a lookup matches the `when`s
/// around the bindings of the keys it needs, not every `when` of the tree.
pub struct Composition<'m> {
    /// The tree's index, shared by every request on the same model.
    pub bindings: std::sync::Arc<Bindings<'m>>,
    /// What the request makes of each of [`Bindings::category_names`].
    categories: Vec<CategoryFor>,
    /// What an embedded expression gives for the request, as text (see [`Composition::build`]).
    text: std::cell::RefCell<Box<dyn FnMut(&'m Code<'m>) -> Option<SmolStr> + 'm>>,
    /// Which Hiera level places a key of Hiera data for the request, if any (see
    /// [`Composition::build`]).
    hiera: HieraPlacing<'m>,
    /// Per `when` node, matched when first asked.
    whens: Vec<std::cell::OnceCell<WhenMatch>>,
    common: Precedence,
    /// The levels outside every top-level `when`: none.
    top_level: Rc<[u16]>,
    /// Where [`Composition::when_match`] gathers a `when`'s levels.
    levels: std::cell::RefCell<Vec<u16>>,
    /// Per key (as in `bindings.keys`), resolved when first asked: a lookup resolves the keys
    /// it needs, not every key of the tree.
    winners: Vec<std::cell::OnceCell<Result<Option<usize>, ComposeError>>>,
    /// Key ids a matching `bind renamed` erases (their new name still reads them).
    pub erased: HashSet<String>,
}

/// What a request makes of one category a predicate names.
enum CategoryFor {
    /// `common`, which every request is in, at precedence 0.
    Common,
    /// Its value for the request (lower-cased), the id of that value among those the index's
    /// predicates name (`None`: no predicate names it literally), and its precedence.
    Valued(SmolStr, Option<usize>, u16),
    /// Not declared, or without a value for the request: no predicate on it matches.
    Unvalued,
}

/// A `when` node matched against the request. What each predicate made of the request is
/// worked out again for `--explain` ([`Composition::when_conditions`]): a request matches
/// tens of thousands of `when`s and explains a few.
struct WhenMatch {
    /// The precedence inside it (before normalising), `None` once a predicate on the way fails.
    raw: Option<Rc<[u16]>>,
    precedence: Option<Precedence>,
}

impl<'m> Composition<'m> {
    /// The index `bindings` (built once, shared by every request on the same model) matched
    /// against one request. `text` gives what an embedded expression (a computed predicate
    /// value, a data path) evaluates to for the request, as text (`None`: undef, empty, or an
    /// error). `hiera` says which Hiera level first finds a key for the request: a Hiera
    /// binding matches only at that level.
    pub fn build(
        bindings: std::sync::Arc<Bindings<'m>>,
        categories: CategoryValues,
        text: Box<dyn FnMut(&'m Code<'m>) -> Option<SmolStr> + 'm>,
        hiera: HieraPlacing<'m>,
    ) -> Composition<'m> {
        let categories = bindings
            .category_names
            .iter()
            .map(|&name| match categories.get(name) {
                _ if name == "common" => CategoryFor::Common,
                Some((value, precedence)) => CategoryFor::Valued(
                    value.clone(),
                    bindings.predicate_values.get(value.as_str()).copied(),
                    precedence,
                ),
                None => CategoryFor::Unvalued,
            })
            .collect();
        let mut c = Composition {
            whens: (0..bindings.whens.len())
                .map(|_| std::cell::OnceCell::new())
                .collect(),
            winners: (0..bindings.keys.len())
                .map(|_| std::cell::OnceCell::new())
                .collect(),
            bindings,
            categories,
            text: std::cell::RefCell::new(text),
            hiera,
            common: Rc::from(vec![0]),
            top_level: Rc::from(Vec::new()),
            levels: std::cell::RefCell::new(Vec::new()),
            erased: HashSet::new(),
        };
        let mut erased = HashSet::new();
        for &i in &c.bindings.renamed {
            if let (Bound::Renamed(r), Some(_)) = (c.bindings.candidates[i].bound, c.precedence(i))
            {
                let from = Key::new(ptype(&r.from_type), r.from_name.clone().unwrap_or_default());
                erased.insert(from.id());
            }
        }
        c.erased = erased;
        c
    }

    /// The `when` node `w` matched (its parents first; nesting is bounded by the check).
    fn when_match(&self, w: usize) -> &WhenMatch {
        self.whens[w].get_or_init(|| {
            let node = &self.bindings.whens[w];
            let outer = match node.parent() {
                Some(p) => self.when_match(p).raw.clone(),
                None => Some(Rc::clone(&self.top_level)),
            };
            // The levels are gathered in a buffer kept from one `when` to the next (taken, not
            // borrowed: a computed predicate value may match other `when`s meanwhile).
            let mut levels = std::mem::take(&mut *self.levels.borrow_mut());
            levels.clear();
            let outer = outer.map(|o| {
                levels.extend_from_slice(&o);
                levels
            });
            let mut text = self.text.borrow_mut();
            let mut inner = match_predicates(
                node,
                &self.bindings.predicates,
                &self.categories,
                &mut **text,
                outer,
                None,
            );
            if let Some(path) = node.path {
                if !path_holds(path, &mut **text, None) {
                    inner = None;
                }
            }
            let raw: Option<Rc<[u16]>> = inner.as_deref().map(Rc::from);
            if let Some(levels) = inner {
                *self.levels.borrow_mut() = levels;
            }
            WhenMatch {
                // Most `when`s test one category, whose level is already its precedence.
                precedence: raw.as_ref().map(|r| {
                    if is_normal(r) {
                        Rc::clone(r)
                    } else {
                        normalise(r.to_vec())
                    }
                }),
                raw,
            }
        })
    }

    /// The winner of the key `entry` (its index in `bindings.keys`) for this request.
    pub fn winner(&self, entry: usize) -> &Result<Option<usize>, ComposeError> {
        self.winners[entry].get_or_init(|| self.resolve(self.bindings.candidates_of(entry)))
    }

    pub fn candidates(&self) -> &[Candidate<'m>] {
        &self.bindings.candidates
    }

    pub fn layer_names(&self) -> &[&'m str] {
        &self.bindings.layer_names
    }

    /// The key's index in `bindings.keys`.
    pub fn entry(&self, key: &Key) -> Option<usize> {
        self.bindings.entry(key)
    }

    fn when_precedence(&self, when: Option<usize>) -> Option<Precedence> {
        match when {
            None => Some(Rc::clone(&self.common)),
            Some(w) => self.when_match(w).precedence.clone(),
        }
    }

    /// The candidate's precedence vector for this request, `None` when it does not match.
    pub fn precedence(&self, candidate: usize) -> Option<Precedence> {
        let c = &self.bindings.candidates[candidate];
        if let (Some(level), Bound::Binding(b)) = (c.hiera_level(), c.bound) {
            if (self.hiera)(b.name.as_deref().unwrap_or_default()) != Some(level) {
                return None;
            }
        }
        self.when_precedence(c.when())
    }

    /// The outcome of every predicate around the candidate.
    pub fn conditions(&self, candidate: usize) -> Rc<[PredicateOutcome]> {
        self.when_conditions(self.bindings.candidates[candidate].when())
    }

    /// The outcome of every predicate from the top level down to `when`.
    pub fn when_conditions(&self, mut when: Option<usize>) -> Rc<[PredicateOutcome]> {
        let mut levels = Vec::new();
        while let Some(w) = when {
            levels.push(w);
            when = self.bindings.whens[w].parent();
        }
        let mut outcomes = Vec::new();
        let mut text = self.text.borrow_mut();
        for &w in levels.iter().rev() {
            let node = &self.bindings.whens[w];
            let precedence = Some(Vec::new());
            match_predicates(
                node,
                &self.bindings.predicates,
                &self.categories,
                &mut **text,
                precedence,
                Some(&mut outcomes),
            );
            if let Some(path) = node.path {
                path_holds(path, &mut **text, Some(&mut outcomes));
            }
        }
        outcomes.into()
    }

    /// [`resolve`] for this request.
    pub fn resolve(&self, list: &[usize]) -> Result<Option<usize>, ComposeError> {
        resolve(&self.bindings.candidates, list, &|i| self.precedence(i))
    }

    /// The contributions to the multibind `id` that apply to the request, in D14 order
    /// (layer, higher precedence, document order), with their precedence.
    pub fn contributions(&self, id: &str) -> Vec<(&Contribution<'m>, Precedence)> {
        let Some(list) = self.bindings.contributions_to(id) else {
            return Vec::new();
        };
        let mut out: Vec<_> = list
            .iter()
            .filter_map(|c| self.when_precedence(c.when).map(|p| (c, p)))
            .collect();
        out.sort_by(|a, b| {
            a.0.layer
                .cmp(&b.0.layer)
                .then_with(|| b.1.cmp(&a.1))
                .then(a.0.order.cmp(&b.0.order))
        });
        out
    }
}

/// Whether a data file's path test holds for the request (outcomes added to `outcomes`, if
/// asked for): its path gives this file, with case (D20), and no earlier file's path gives
/// that file.
fn path_holds<'m>(
    path: &'m DataPath<Code<'m>>,
    text: &mut dyn FnMut(&'m Code<'m>) -> Option<SmolStr>,
    mut outcomes: Option<&mut Vec<PredicateOutcome>>,
) -> bool {
    let mut holds = true;
    let tests = std::iter::once((&path.template, &path.file, false))
        .chain(path.unless.iter().map(|t| (&t.template, &t.file, true)));
    for (template, file, unless) in tests {
        let given = text(template);
        let names_it = given.as_deref() == Some(file.as_str());
        let matched = names_it != unless;
        holds &= matched;
        if let Some(outcomes) = outcomes.as_deref_mut() {
            outcomes.push(PredicateOutcome {
                category: SmolStr::default(),
                value: file.as_str().into(),
                matched,
                path: Some(PathOutcome { given, unless }),
            });
        }
    }
    holds
}

/// The outcome of one `when`'s predicates (added to `outcomes`, if asked for) and the
/// precedence inside it (`None` once any predicate on the way fails). An undeclared category
/// never matches.
fn match_predicates<'m>(
    node: &WhenNode<'m>,
    indexed: &[IndexedPredicate],
    categories: &[CategoryFor],
    text: &mut dyn FnMut(&'m Code<'m>) -> Option<SmolStr>,
    outer: Option<Vec<u16>>,
    mut outcomes: Option<&mut Vec<PredicateOutcome>>,
) -> Option<Vec<u16>> {
    let mut precedence = outer;
    let at = node.predicates_at as usize;
    let indexed = &indexed[at..at + node.predicates.len()];
    for (i, p) in indexed.iter().enumerate() {
        // D9: compared ignoring case (literals were lowered lower-cased).
        let computed = |text: &mut dyn FnMut(&'m Code<'m>) -> Option<SmolStr>| -> SmolStr {
            match &node.predicates[i].value {
                Code::Value(crate::eval::Value::String(s)) => s.clone(),
                other => text(other)
                    .map(|t| t.to_lowercase().into())
                    .unwrap_or_default(),
            }
        };
        // An expression is evaluated once, and only when its value is needed.
        let mut wanted: Option<SmolStr> = None;
        let level = match &categories[p.category as usize] {
            CategoryFor::Common => Some(0),
            CategoryFor::Valued(value, id, level) => {
                let matched = match p.literal() {
                    Some(literal) => Some(literal) == *id,
                    None => value == wanted.insert(computed(text)),
                };
                matched.then_some(*level)
            }
            CategoryFor::Unvalued => None,
        };
        if let Some(outcomes) = outcomes.as_deref_mut() {
            outcomes.push(PredicateOutcome {
                category: node.predicates[i].categorization.as_str().into(),
                value: wanted.unwrap_or_else(|| computed(text)),
                matched: level.is_some(),
                path: None,
            });
        }
        precedence = match (precedence, level) {
            (Some(mut p), Some(l)) => {
                p.push(l);
                Some(p)
            }
            _ => None,
        };
    }
    precedence
}

/// How `--all` orders keys: by name, then by id.
pub fn key_order(a: &Key, b: &Key) -> std::cmp::Ordering {
    by_name_then_id(&a.name, &b.name, || (a.id(), b.id()))
}

/// [`key_order`] for keys given by their names, with their ids built only when the names tie.
fn by_name_then_id(a: &str, b: &str, ids: impl FnOnce() -> (String, String)) -> std::cmp::Ordering {
    a.cmp(b).then_with(|| {
        let (a, b) = ids();
        a.cmp(&b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index holds a candidate per binding of the tree, an entry per key and a node per
    /// `when`: a field added to one, or a number widened back to a word, shows here before it
    /// shows in the memory of a large tree.
    #[test]
    fn candidates_and_keys_stay_small() {
        assert!(std::mem::size_of::<Candidate>() <= 40);
        assert!(std::mem::size_of::<KeyEntry>() <= 32);
        assert!(std::mem::size_of::<WhenNode>() <= 32);
        assert!(std::mem::size_of::<IndexedPredicate>() <= 8);
    }

    /// A `String` binding of `name` without a producer, contributing to `multibind` if given.
    fn string_binding(
        origin: &crate::lower::model::Origin,
        name: &str,
        multibind: Option<&str>,
    ) -> AbstractBinding<Code<'static>> {
        AbstractBinding::Binding(crate::lower::model::Binding {
            type_: TypeModel::PStringType,
            name: Some(name.into()),
            override_: false,
            abstract_: false,
            producer: None,
            extras: crate::lower::model::BindingExtras::of(
                multibind.map(Box::from),
                Box::default(),
            ),
            origin: origin.clone(),
        })
    }

    /// `when CATEGORY 'v' { BINDINGS }`.
    fn when_binding(
        origin: &crate::lower::model::Origin,
        category: &str,
        bindings: Vec<AbstractBinding<Code<'static>>>,
    ) -> AbstractBinding<Code<'static>> {
        AbstractBinding::CategorizedBindings {
            predicates: vec![crate::lower::model::Category {
                categorization: category.into(),
                value: Code::Value(crate::eval::Value::String("v".into())),
            }]
            .into(),
            path: None,
            bindings,
            origin: origin.clone(),
        }
    }

    /// `multibind String, NAME as ID`: a multibind collecting the contributions to `ID`.
    fn collecting(
        origin: &crate::lower::model::Origin,
        name: &str,
        id: &str,
    ) -> AbstractBinding<Code<'static>> {
        AbstractBinding::Multibinding(Box::new(Multibinding {
            type_: TypeModel::PStringType,
            name: Some(name.into()),
            override_: false,
            abstract_: false,
            multibind_id: None,
            producer: None,
            producer_args: Vec::new(),
            id: Some(id.into()),
            origin: origin.clone(),
        }))
    }

    /// The categories of the `when`s around `when` in `b`, from the innermost out.
    fn when_chain(b: &Bindings, mut when: Option<usize>) -> Vec<String> {
        let mut categories = Vec::new();
        while let Some(w) = when {
            categories.push(b.whens[w].predicates[0].categorization.to_string());
            when = b.whens[w].parent();
        }
        categories
    }

    /// A part of the index ([`Bindings::build_only`]) places each binding it takes under the
    /// same `when`s as the whole index does, however deep, though it adds a `when` only once
    /// it takes a binding in it; and it takes every binding of the keys it names and every
    /// contribution to the multibinds it names, and nothing else.
    #[test]
    fn a_part_of_the_index_places_its_bindings_as_the_whole_does() {
        use crate::lower::model::Origin;
        let origin = Origin::new("m.pp".into(), (1, 1), crate::span::Span::NONE);
        let bind = |name: &str, multibind: Option<&str>| string_binding(&origin, name, multibind);
        let when = |category: &str, bindings: Vec<AbstractBinding<Code<'static>>>| {
            when_binding(&origin, category, bindings)
        };
        let block = NamedBindings {
            name: "b".to_string(),
            bindings: vec![
                bind("k", None),
                when(
                    "a",
                    vec![
                        bind("other", None),
                        when("b", vec![bind("k", None), bind("x", Some("all"))]),
                        bind("k", None),
                        when("c", vec![bind("other", None)]),
                    ],
                ),
                when(
                    "d",
                    vec![when(
                        "e",
                        vec![bind("k", None), when("f", vec![bind("k", None)])],
                    )],
                ),
                bind("y", Some("all")),
                bind("z", Some("none")),
            ],
            origin: origin.clone(),
            summary: Default::default(),
        };
        let views = [LayerView {
            name: "site",
            bindings: vec![&block],
        }];
        let whole = Bindings::build_from(&views);
        let only = Only {
            names: ["k"].into_iter().collect(),
            multibind_ids: ["all"].into_iter().collect(),
            blocks: None,
            every_renamed: false,
        };
        let part = Bindings::build_only(&views, &only);
        // Each `when` from the innermost out, by its category.
        let chains = |b: &Bindings| {
            let entry = b.entry(&Key::new(PType::Data, "k")).expect("the key");
            b.candidates_of(entry)
                .iter()
                .map(|&c| when_chain(b, b.candidates[c].when()))
                .collect::<Vec<_>>()
        };
        assert_eq!(chains(&part), chains(&whole));
        assert_eq!(
            chains(&part),
            [
                vec![],
                vec!["b", "a"],
                vec!["a"],
                vec!["e", "d"],
                vec!["f", "e", "d"]
            ]
        );
        let contributions = |b: &Bindings| {
            b.contributions["all"]
                .iter()
                .map(|c| when_chain(b, c.when))
                .collect::<Vec<_>>()
        };
        assert_eq!(contributions(&part), contributions(&whole));
        assert_eq!(part.keys.len(), 1);
        assert_eq!(part.contributions.len(), 1);
        // The `when`s of `other` alone are not in the part.
        assert_eq!(part.whens.len(), whole.whens.len() - 1);
    }

    /// A part of the index for a few keys ([`Bindings::build_part`]) reads of a block whose
    /// summary says it binds none of them only the items that hold contributions or `bind
    /// renamed`s, and holds every candidate of its keys and every contribution it collects
    /// as the whole index does, however deep in `when`s they are and whatever blocks bind
    /// other keys beside them.
    #[test]
    fn a_part_reads_only_the_blocks_that_may_bind_its_keys_and_holds_what_the_whole_does() {
        use crate::lower::model::Origin;
        let origin = Origin::new("m.pp".into(), (1, 1), crate::span::Span::NONE);
        let bind = |name: &str, multibind: Option<&str>| string_binding(&origin, name, multibind);
        let when = |category: &str, bindings: Vec<AbstractBinding<Code<'static>>>| {
            when_binding(&origin, category, bindings)
        };
        let renamed = |from: &str, to: &str| {
            AbstractBinding::RenamedBinding(Box::new(Rebinding {
                from_type: TypeModel::PDataType,
                from_name: Some(from.into()),
                type_: TypeModel::PDataType,
                name: Some(to.into()),
                override_: false,
                abstract_: false,
                origin: origin.clone(),
            }))
        };
        let multibind = collecting(&origin, "collected", "all");
        let block = |name: &str, bindings: Vec<AbstractBinding<Code<'static>>>| {
            std::sync::Arc::new(NamedBindings {
                name: name.to_string(),
                bindings,
                origin: origin.clone(),
                summary: Default::default(),
            })
        };
        let layers = [
            NamedLayer {
                name: "site".to_string(),
                bindings: vec![
                    block(
                        "b0",
                        vec![
                            bind("other", None),
                            when("a", vec![when("b", vec![bind("k", None)])]),
                            bind("x", Some("all")),
                        ],
                    ),
                    block(
                        "b1",
                        vec![
                            bind("other", None),
                            when("c", vec![bind("unrelated", None), bind("y", Some("all"))]),
                            bind("z", Some("none")),
                            when("d", vec![renamed("k", "k2")]),
                        ],
                    ),
                ],
                providers: Vec::new(),
            },
            NamedLayer {
                name: "modules".to_string(),
                bindings: vec![
                    block("b2", vec![multibind, bind("k", None)]),
                    block("b3", vec![bind("other", None), bind("w", Some("all"))]),
                ],
                providers: Vec::new(),
            },
        ];
        let whole = Bindings::build_from(&layer_views(&layers));
        // Each candidate of a key, and each contribution to an id: its block, its `when`s
        // from the innermost out, and its order among the others.
        let candidates = |b: &Bindings, name: &str| {
            let Some(entry) = b.entry(&Key::new(PType::Data, name)) else {
                return Vec::new();
            };
            b.candidates_of(entry)
                .iter()
                .map(|&c| {
                    let candidate = &b.candidates[c];
                    (candidate.block, when_chain(b, candidate.when()))
                })
                .collect::<Vec<_>>()
        };
        let contributions = |b: &Bindings, id: &str| {
            b.contributions_to(id)
                .unwrap_or_default()
                .iter()
                .map(|c| when_chain(b, c.when))
                .collect::<Vec<_>>()
        };
        for asked in [
            &["k"][..],
            &["other"],
            &["collected"],
            &["unrelated", "k"],
            &["bound nowhere"],
        ] {
            let names: BTreeSet<String> = asked.iter().map(|n| n.to_string()).collect();
            let part = Bindings::build_part(&layers, &names, &BTreeSet::new());
            for name in asked {
                assert_eq!(candidates(&part, name), candidates(&whole, name), "{name}");
            }
            // The contributions to the multibinds its keys bind (`collected` collects `all`).
            if asked.contains(&"collected") {
                assert_eq!(contributions(&part, "all"), contributions(&whole, "all"));
                assert_eq!(contributions(&part, "all").len(), 3);
            } else {
                assert!(part.contributions_to("all").is_none());
            }
            // Every `bind renamed`, whatever the names.
            assert_eq!(part.renamed.len(), whole.renamed.len());
            // Nothing of the other keys, but the one the `bind renamed` binds.
            let taken: Vec<String> = (0..part.keys.len())
                .map(|entry| part.keys[entry].key().name.to_string())
                .collect();
            assert!(
                taken
                    .iter()
                    .all(|key| asked.contains(&key.as_str()) || key == "k2"),
                "{taken:?}"
            );
        }
        // The summaries: b1 binds none of `k`, and is read for its contributions and its
        // `bind renamed` alone.
        let b1 = summary_of(&layers[0].bindings[1]);
        assert_eq!(&*b1.read_whatever_the_names, &[1, 2, 3]);
        let k = name_bits("k");
        assert!((0..2).any(|i| b1.bits[i] & k[i] != k[i]));
        let b0 = summary_of(&layers[0].bindings[0]);
        assert!((0..2).all(|i| b0.bits[i] & k[i] == k[i]));
        assert_eq!(&*b0.read_whatever_the_names, &[2]);
    }

    /// Keys numbered on a thread of their own are the keys one thread numbers: the same
    /// entries, in the same order, with the same candidates (large trees take the first way,
    /// the corpus's small ones the second).
    #[test]
    fn keys_numbered_beside_the_walk_are_the_walks_own() {
        use crate::lower::model::{Binding, Category, Origin, ProducerDescriptor};
        let origin = Origin::new("m.pp".into(), (1, 1), crate::span::Span::NONE);
        let binding = |i: usize| {
            AbstractBinding::Binding(Binding {
                // Every seventh a class key, the rest Data keys; names repeat across layers.
                type_: if i % 7 == 0 {
                    TypeModel::PHostClassType {
                        class_name: Some(TypeModel::class_name(&format!("c{}", i % 50))),
                    }
                } else {
                    TypeModel::PStringType
                },
                name: Some(format!("k{}", i % 4000).into()),
                override_: false,
                abstract_: false,
                producer: Some(Box::new(ProducerDescriptor::ConstantProducerDescriptor {
                    value: Code::Value(crate::eval::Value::String(i.to_string().into())),
                })),
                extras: crate::lower::model::BindingExtras::of(
                    (i % 11 == 0).then(|| Box::from("all")),
                    Box::default(),
                ),
                origin: origin.clone(),
            })
        };
        let blocks: Vec<NamedBindings<Code>> = (0..30)
            .map(|block| {
                let mut bindings: Vec<_> = (0..300).map(|i| binding(block * 300 + i)).collect();
                // Some under a `when`, as a block's nested bindings are walked.
                let nested = bindings.split_off(250);
                bindings.push(AbstractBinding::CategorizedBindings {
                    predicates: vec![Category {
                        categorization: "node".into(),
                        value: Code::Value(crate::eval::Value::String(format!("n{block}").into())),
                    }]
                    .into(),
                    path: None,
                    bindings: nested,
                    origin: origin.clone(),
                });
                NamedBindings {
                    name: format!("b{block}"),
                    bindings,
                    origin: origin.clone(),
                    summary: Default::default(),
                }
            })
            .collect();
        let views: Vec<LayerView> = blocks
            .chunks(10)
            .enumerate()
            .map(|(layer, chunk)| LayerView {
                name: ["site", "modules", "defaults"][layer],
                bindings: chunk.iter().collect(),
            })
            .collect();
        let one = Bindings::build_keyed(&views, 7_500, false);
        let two = Bindings::build_keyed(&views, 7_500, true);
        assert_eq!(one.candidates.len(), 30 * 300 - 30 * 300 / 11 - 1);
        assert_eq!(one.keys.len(), two.keys.len());
        for (entry, (a, b)) in one.keys.iter().zip(&two.keys).enumerate() {
            assert_eq!(a.key(), b.key());
            assert_eq!(one.candidates_of(entry), two.candidates_of(entry));
            assert_eq!(one.entry(&a.key()), Some(entry));
            assert_eq!(two.entry(&b.key()), Some(entry));
            assert_eq!(one.every_key()[entry], a.key());
        }
        // `--all`'s order is `key_order` over whole keys, ids deciding where names tie (a
        // class key and a Data key share a name here).
        let every = one.every_key();
        let ordered: Vec<&Key> = one.keys_in_order().iter().map(|&e| &every[e]).collect();
        assert_eq!(ordered.len(), one.keys.len());
        assert!(ordered.windows(2).all(|w| key_order(w[0], w[1]).is_lt()));
        assert!(ordered.windows(2).any(|w| w[0].name == w[1].name));
        assert_eq!(
            one.contributions["all"].len(),
            two.contributions["all"].len()
        );
    }

    /// A part of the index built for named keys ([`Bindings::build_part`]) takes the
    /// contributions to the multibinds those keys bind (walking again for them), and notes
    /// each thing asked of it beyond what it holds: another key's name, another multibind's
    /// contributions, or what only the whole index has. The whole index notes nothing.
    #[test]
    fn a_part_for_named_keys_notes_what_it_is_asked_beyond_them() {
        use crate::lower::model::Origin;
        let origin = Origin::new("m.pp".into(), (1, 1), crate::span::Span::NONE);
        let bind = |name: &str, multibind: Option<&str>| string_binding(&origin, name, multibind);
        let multibind = collecting(&origin, "collected", "bag");
        let block = NamedBindings {
            name: "b".to_string(),
            bindings: vec![
                bind("plain", None),
                multibind,
                bind("in_bag", Some("bag")),
                bind("elsewhere", Some("other_bag")),
            ],
            origin: origin.clone(),
            summary: Default::default(),
        };
        let layers = [NamedLayer {
            name: "site".to_string(),
            bindings: vec![std::sync::Arc::new(block)],
            providers: Vec::new(),
        }];
        let names: BTreeSet<String> = ["collected".to_string()].into_iter().collect();
        let part = Bindings::build_part(&layers, &names, &BTreeSet::new());
        assert!(part.beyond_part().is_none());
        let collected = Key::new(PType::Data, "collected");
        assert!(part.entry(&collected).is_some());
        // The multibind's contributions were walked for, though no id was given.
        assert_eq!(part.contributions_to("bag").map(<[_]>::len), Some(1));
        assert!(part.beyond_part().is_none());
        assert!(part.entry(&Key::new(PType::Data, "plain")).is_none());
        assert!(part.contributions_to("other_bag").is_none());
        let beyond = part.beyond_part().expect("asked beyond the part");
        assert_eq!(beyond.names.iter().collect::<Vec<_>>(), ["plain"]);
        assert_eq!(beyond.ids.iter().collect::<Vec<_>>(), ["other_bag"]);
        assert!(!beyond.whole);
        part.every_key();
        assert!(part.beyond_part().is_some_and(|b| b.whole));
        // Built again holding what was asked, it answers as the whole index does.
        let again = Bindings::build_part(&layers, &beyond.names, &beyond.ids);
        let whole = Bindings::build(&layers);
        let plain = Key::new(PType::Data, "plain");
        assert_eq!(
            again.entry(&plain).map(|e| again.candidates_of(e).len()),
            whole.entry(&plain).map(|e| whole.candidates_of(e).len())
        );
        assert_eq!(
            again.contributions_to("other_bag").map(<[_]>::len),
            whole.contributions_to("other_bag").map(<[_]>::len)
        );
        assert!(again.beyond_part().is_none());
        whole.entry(&plain);
        whole.every_key();
        assert!(whole.beyond_part().is_none());
    }

    /// A `when`'s levels are taken as its precedence as they are exactly when normalising
    /// would leave them: every list of up to three levels from 0 to 3.
    #[test]
    fn normal_levels_are_what_normalising_leaves() {
        let mut lists: Vec<Vec<u16>> = vec![Vec::new()];
        for _ in 0..3 {
            let longer: Vec<Vec<u16>> = lists
                .iter()
                .filter(|l| l.len() < 3)
                .flat_map(|l| {
                    (0..4).map(move |level| {
                        let mut l = l.clone();
                        l.push(level);
                        l
                    })
                })
                .collect();
            lists.extend(longer);
            lists.sort();
            lists.dedup();
        }
        assert_eq!(lists.len(), 1 + 4 + 16 + 64);
        for list in lists {
            let normalised = normalise(list.clone());
            assert_eq!(is_normal(&list), *normalised == *list, "{list:?}");
        }
    }
}
