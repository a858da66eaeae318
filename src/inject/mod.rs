//! The injector: answers lookups for one request (a node with its facts) from a checked tree.
//!
//! It reads the same model `pbc compile` writes, lowered in memory with expressions kept as
//! AST ([`Code`]), and follows ARM-8's request sequence from where [`crate::load`] leaves it
//! (the request's facts, its environment and that environment's checked files): the site's
//! categories are evaluated (D8, D9), the composition engine ([`compose`]) matches the layers
//! against the request, and each lookup produces its value (constants, evaluated
//! expressions, lookups of other keys, multibinds) with its type checked; a composition error
//! fails only the keys it affects (D18). It must not re-check the tree (the validator did)
//! nor print anything: callers render its results and diagnostics.

pub mod command;
pub mod diff;
pub mod enc;
pub mod explain;
pub mod eyaml;
pub mod hiera;
mod multibind;
pub mod nodes;
pub mod query;
pub mod serve;

use crate::load::{environment, Request};

use crate::ast::Lambda;
use crate::diag::{codes, Diagnostic};
use crate::eval::{EvalError, EvalResult, Evaluator, LogLevel, NoInjection, TopScope, Value};
use crate::lower::keys::Key;
use crate::lower::model::{
    model_admits, NamedArgument, Origin, ProducerDescriptor, TreeDocument, TypeModel,
};
use crate::span::Span;
use crate::types::PType;
use compose::{Bound, CategoryValues, ComposeError, Composition};
use foldhash::{HashMap, HashMapExt};
use smol_str::SmolStr;
use std::rc::Rc;

use crate::compose;
pub use crate::eval::code::{Code, ForInjection};
pub use crate::lower::model::{model_is_data, ptype};

/// One effective category of the request.
#[derive(Clone, Debug)]
pub struct EffectiveCategory {
    pub name: String,
    /// `None`: the category does not apply (its value is undef or empty, D9).
    pub value: Option<String>,
    /// 0 for `common`; the highest for the first.
    pub precedence: u16,
}

/// One `include` or `exclude` that applies to the request.
pub struct ClassEntry {
    pub class: String,
    pub include: bool,
    pub layer: usize,
    pub precedence: compose::Precedence,
    pub origin: String,
    /// An include an exclude removes.
    pub removed: bool,
}

/// How many lookups may be under way at once: a producer that looks up a key whose producer
/// looks up another ... (`bind 'a1' to lookup('a2')`, `bind 'a2' to lookup('a3')`, ...).
pub const MAX_LOOKUP_DEPTH: usize = 128;

/// Messages from `notice()` and `warning()` during the request.
pub type Message = (LogLevel, String, Span);

pub struct Injector<'m> {
    top: Rc<TopScope>,
    pub environment: String,
    /// Who chose it: `--env`, `environments.pp`, `the ENC`, `the default`, or `the model` (a
    /// model is one environment's).
    pub environment_from: &'static str,
    /// The facts' own `environment`, which is never used (ARM-8: an agent does not pick its
    /// environment): `--explain` says so, since a user who sees it in the facts expects it.
    pub environment_fact_ignored: Option<String>,
    pub categories: Vec<EffectiveCategory>,
    pub composition: Composition<'m>,
    strict: bool,
    /// Values produced, by candidate.
    cache: std::collections::HashMap<usize, Value, std::hash::BuildHasherDefault<IndexHasher>>,
    /// The keys being produced, as their entries in the index (loop detection).
    stack: Vec<usize>,
    /// What the current lookup may still build.
    budget: crate::eval::ValueBudget,
    pub messages: Vec<Message>,
    /// The model's Hiera 5 levels matched against the request (D24); `None` without any.
    pub hiera: Option<Rc<hiera::HieraRequest<'m>>>,
    /// `--merge`: the strategy for Hiera data, in place of `lookup_options`.
    pub merge: Option<crate::data::merge::Merge>,
    /// `lookup_options` per module (`None`: keys outside modules), read once per request.
    lookup_options: HashMap<Option<String>, Rc<LookupOptions>>,
    /// How each Hiera answer was made, for `--explain`.
    pub hiera_traces: HashMap<String, hiera::Trace>,
    /// Hiera's answers that `convert_to` converted, by root key: the value found, the value
    /// converted, and the conversion. A dotted key digs the value found, then converts (as
    /// Puppet does).
    hiera_found: HashMap<String, (Value, Value, Rc<crate::eval::convert::ConvertTo>, Span)>,
    /// How many times a value decrypted from hiera-eyaml data went into an answer: a lookup
    /// that sees it grow used a secret, directly or through another key's value.
    pub(crate) secret_reads: u64,
    /// The candidates whose cached values hold a decrypted secret.
    secret_candidates: foldhash::HashSet<usize>,
    /// `--show-decrypted`: explanations print the values decrypted from hiera-eyaml data.
    pub(crate) show_decrypted: bool,
}

/// `lookup_options` compiled: options by exact key, then by pattern (in their order).
#[derive(Default)]
struct LookupOptions {
    keys: HashMap<String, Value>,
    patterns: Vec<(regex::Regex, Value)>,
}

impl<'m> Injector<'m> {
    /// Evaluates the categories for `request` in the environment [`environment::prepare`]
    /// selected (the tree `model` was lowered from) and composes the layers.
    pub fn new(
        model: &'m TreeDocument<Code<'m>>,
        environment: &environment::SelectedEnvironment,
        request: &Request,
    ) -> Result<Injector<'m>, Diagnostic> {
        Injector::with_index(model, None, environment, request)
    }

    /// [`Injector::new`] on the model's index (`compose::Bindings::build` of its layers), built
    /// once for many requests; `None` builds it for this one.
    pub fn with_index(
        model: &'m TreeDocument<Code<'m>>,
        index: Option<std::sync::Arc<compose::Bindings<'m>>>,
        environment: &environment::SelectedEnvironment,
        request: &Request,
    ) -> Result<Injector<'m>, Diagnostic> {
        Injector::for_environment(
            model,
            index,
            environment.name.clone(),
            environment.from,
            request,
        )
    }

    /// [`Injector::with_index`] in the environment `environment` (`from` says who chose it),
    /// which `model` holds: a tree's selected environment, or the one a model was compiled for.
    pub fn for_environment(
        model: &'m TreeDocument<Code<'m>>,
        index: Option<std::sync::Arc<compose::Bindings<'m>>>,
        environment: String,
        environment_from: &'static str,
        request: &Request,
    ) -> Result<Injector<'m>, Diagnostic> {
        let mut top = environment::top_scope(request);
        top.set("environment", Value::string(environment.as_str()));
        let environment_fact_ignored = request
            .facts
            .get("environment")
            .map(Value::to_display_string);

        let mut categories = Vec::new();
        let declared = &model.categories.categories;
        let ranked = declared.len().saturating_sub(1);
        for (i, c) in declared.iter().enumerate() {
            let precedence = if c.categorization == "common" {
                0
            } else {
                (ranked - i) as u16
            };
            let value = category_value(&c.value, &top, request.strict).map_err(|e| {
                let d = e.into_diagnostic().with_note(format!(
                    "note: while evaluating the category `{}`",
                    c.categorization
                ));
                if request.facts.is_empty() {
                    d.with_note("note: no facts were given (`--facts FILE`), so every fact this category reads is undef")
                } else {
                    d
                }
            })?;
            categories.push(EffectiveCategory {
                name: c.categorization.to_string(),
                value,
                precedence,
            });
        }
        let values = CategoryValues {
            values: categories
                .iter()
                .filter(|c| c.name != "common")
                .filter_map(|c| {
                    c.value
                        .clone()
                        .map(|v| (SmolStr::new(&c.name), SmolStr::from(v), c.precedence))
                })
                .collect(),
        };
        let top = Rc::new(top);
        let scope = Rc::clone(&top);
        let text = move |code: &'m Code<'m>| -> Option<SmolStr> {
            match code {
                Code::Value(v) => Some(v.to_display_string().into()),
                other => category_text(other, &scope, false)
                    .ok()
                    .flatten()
                    .map(SmolStr::from),
            }
        };
        let index = index
            .unwrap_or_else(|| std::sync::Arc::new(compose::Bindings::build(&model.layers.layers)));
        let hiera = (!model.hiera.is_empty()).then(|| {
            Rc::new(hiera::HieraRequest::new(
                &model.hiera,
                hiera::level_layers(model),
                Rc::clone(&top),
                request,
            ))
        });
        let placing = hiera.clone();
        let composition = Composition::build(
            index,
            values,
            Box::new(text),
            Box::new(move |key| placing.as_ref().and_then(|h| h.placing_level(key))),
        );
        Ok(Injector {
            top,
            environment,
            environment_from,
            environment_fact_ignored,
            categories,
            composition,
            strict: request.strict,
            cache: std::collections::HashMap::default(),
            stack: Vec::new(),
            budget: crate::eval::ValueBudget::default(),
            messages: Vec::new(),
            hiera,
            merge: request.merge.clone(),
            lookup_options: HashMap::new(),
            hiera_traces: HashMap::new(),
            hiera_found: HashMap::new(),
            secret_reads: 0,
            secret_candidates: foldhash::HashSet::default(),
            show_decrypted: request.show_decrypted,
        })
    }

    /// Looks up `name` as a key of type `ty` (`Data` for a plain name). `Ok(None)`: nothing is
    /// bound to it for this request.
    pub fn lookup(&mut self, name: &str, ty: &PType) -> Result<Option<Value>, Diagnostic> {
        self.lookup_found_key(&Key::new(ty.clone(), name))
    }

    /// Looks up a key (one of [`Injector::effective_keys`], or any other).
    pub fn lookup_found_key(&mut self, key: &Key) -> Result<Option<Value>, Diagnostic> {
        let entry = self.composition.entry(key);
        self.lookup_asked(key, entry)
    }

    /// Where the answer to `key` comes from for this request, when a binding wins: its place,
    /// its layer and the `when` conditions around it that matched. Asked after the lookup, it
    /// reads what the lookup decided.
    pub fn winner_of(&self, key: &Key) -> Option<WinningBinding> {
        let entry = self.composition.entry(key)?;
        let winner = (*self.composition.winner(entry).as_ref().ok()?)?;
        let candidate = &self.composition.candidates()[winner];
        let matched = self
            .composition
            .conditions(winner)
            .iter()
            .filter(|p| p.matched)
            .map(|p| (p.category.to_string(), p.value.to_string()))
            .collect();
        Some(WinningBinding {
            origin: origin_text(candidate.origin()),
            layer: self.composition.layer_names()[candidate.layer()].to_string(),
            matched,
        })
    }

    /// The data keys the model binds in the namespace of `name` (before its last `::`), such as
    /// the other parameters of a class whose parameter is asked; none for a name without one.
    pub fn names_in_namespace_of(&self, name: &str) -> Vec<&'m str> {
        match name.rsplit_once("::") {
            Some((namespace, _)) => self.composition.bindings.names_in_namespace(namespace),
            None => Vec::new(),
        }
    }

    /// Whether every key [`Injector::effective_keys`] does not list is certainly not found for
    /// this request (no Hiera level it might reach is one pbc cannot search).
    pub fn lists_every_answer(&self) -> bool {
        self.hiera.as_ref().is_none_or(|h| h.searches_every_level())
    }

    /// Looks up one of [`Injector::effective_entries`]: the same answer as
    /// [`Injector::lookup_found_key`], without finding the key in the index by its name.
    pub fn lookup_effective(&mut self, key: &EffectiveKey) -> Result<Option<Value>, Diagnostic> {
        // The index is shared, not copied: the key is read in place while the lookup runs.
        let index = std::sync::Arc::clone(&self.composition.bindings);
        let entry = match key {
            EffectiveKey::Entry(entry) => Some(*entry),
            EffectiveKey::Classes => None,
        };
        let name = match entry {
            Some(e) => &index.every_key()[e],
            None => classes_key(),
        };
        self.lookup_asked(name, entry)
    }

    fn lookup_asked(
        &mut self,
        key: &Key,
        entry: Option<usize>,
    ) -> Result<Option<Value>, Diagnostic> {
        // Each key asked for gets the whole budget for what its lookup builds.
        self.budget = crate::eval::ValueBudget::default();
        self.lookup_in(key, entry, None)
            .map_err(EvalError::into_diagnostic)
    }

    fn lookup_key(&mut self, key: &Key, at: Option<Span>) -> EvalResult<Option<Value>> {
        let entry = self.composition.entry(key);
        self.lookup_in(key, entry, at)
    }

    /// [`Injector::lookup_key`] for a key whose entry in the index is known.
    fn lookup_in(
        &mut self,
        key: &Key,
        entry: Option<usize>,
        at: Option<Span>,
    ) -> EvalResult<Option<Value>> {
        if let Some((root, digs)) = self.dotted(key, entry) {
            let value = self.lookup_key(&Key::new(PType::Data, root.clone()), at)?;
            if let Some((found, converted, convert, place)) = self.hiera_found.get(&root).cloned() {
                if value.as_ref() == Some(&converted) {
                    return match hiera::dig(found, &digs) {
                        Some(v) => {
                            crate::data::merge::convert_value(&convert, &root, v, place).map(Some)
                        }
                        None => Ok(None),
                    };
                }
            }
            return Ok(value.and_then(|v| hiera::dig(v, &digs)));
        }
        let erased = &self.composition.erased;
        if !erased.is_empty() && erased.contains(&key.id()) {
            return Ok(None);
        }
        if entry.is_none() {
            if let Some(implicit) = key.implicit_parameter() {
                return self.lookup_key(&implicit, at);
            }
        }
        self.lookup_entry(key, entry, at)
    }

    /// A dotted key (`ntp::servers.0`, `a."b.c"`) as Puppet's lookup reads it: its root, then
    /// the keys and indexes to dig. Only where no binding other than Hiera data binds the name
    /// as written (ARM-8 names may have dots).
    fn dotted(
        &self,
        key: &Key,
        entry: Option<usize>,
    ) -> Option<(String, Vec<crate::data::interpolation::Dig>)> {
        if key.ty != PType::Data || !key.name.bytes().any(|b| matches!(b, b'.' | b'"' | b'\'')) {
            return None;
        }
        if let Some(entry) = entry {
            if let Ok(Some(w)) = self.composition.winner(entry) {
                // A binding of the name as written answers it.
                self.composition.candidates()[*w].hiera_level()?;
            }
        }
        crate::data::interpolation::split_key(&key.name)
            .filter(|(root, digs)| !digs.is_empty() || *root != key.name)
    }

    /// A lookup that sees a key `bind renamed` erased (what the new name is bound to).
    fn lookup_unerased(&mut self, key: &Key, at: Option<Span>) -> EvalResult<Option<Value>> {
        let entry = self.composition.entry(key);
        self.lookup_entry(key, entry, at)
    }

    /// The id of the key at `entry` of the index, as messages name it.
    fn entry_id(&self, entry: usize) -> String {
        self.composition.bindings.keys[entry].key().id()
    }

    fn lookup_entry(
        &mut self,
        key: &Key,
        entry: Option<usize>,
        at: Option<Span>,
    ) -> EvalResult<Option<Value>> {
        // Each lookup inside a producer runs on the native stack: a chain of bindings that
        // look each other up is bounded (and a loop is caught first, below this depth).
        if self.stack.len() >= MAX_LOOKUP_DEPTH {
            return Err(EvalError::new(
                codes::EVAL_LIMIT,
                at.unwrap_or(Span::NONE),
                format!(
                    "the lookup of `{key}` is the {}th in a chain of lookups (at most {MAX_LOOKUP_DEPTH})",
                    self.stack.len() + 1
                ),
            )
            .with_note(format!(
                "note: the chain starts {} -> ...",
                self.stack
                    .iter()
                    .take(3)
                    .map(|&e| {
                        let id = self.entry_id(e);
                        id.strip_prefix("Data/").map(str::to_string).unwrap_or(id)
                    })
                    .collect::<Vec<_>>()
                    .join(" -> ")
            )));
        }
        // A key that is not in the index produces nothing, so it cannot be in a loop.
        if let Some(entry) = entry.filter(|e| self.stack.contains(e)) {
            let chain: Vec<String> = self
                .stack
                .iter()
                .chain([&entry])
                .map(|&e| self.entry_id(e))
                .collect();
            return Err(EvalError::new(
                codes::LOOKUP_LOOP,
                at.unwrap_or(Span::NONE),
                format!("the lookup of `{key}` loops back to itself"),
            )
            .with_note(format!("note: {}", chain.join(" -> "))));
        }
        if key.name == CLASSES_KEY && key.ty == PType::Data {
            return self.classes().map(Some);
        }
        let Some(entry) = entry else {
            self.never_guess(key, None, at)?;
            return Ok(None);
        };
        let winner = match self.composition.winner(entry) {
            Ok(None) => {
                self.never_guess(key, None, at)?;
                return Ok(None);
            }
            Ok(Some(w)) => *w,
            Err(e) => return Err(self.compose_error(key, e.clone())),
        };
        if self.composition.candidates()[winner]
            .hiera_level()
            .is_none()
        {
            // A Hiera answer meets such a level in its own walk, in Puppet's order.
            self.never_guess(key, Some(self.composition.candidates()[winner].layer()), at)?;
        }
        // With `--merge`, Hiera data merges one way for the keys asked and another for the keys
        // their values interpolate: neither answer stands for the other.
        let cacheable = self.merge.is_none()
            || self.composition.candidates()[winner]
                .hiera_level()
                .is_none();
        // A value no request can change is produced once for every node that shares the
        // index (`--nodes`, `pbc diff`), not once per node.
        let independent = self.composition.bindings.request_independent(winner);
        if let Some(Some(v)) = independent.and_then(std::sync::OnceLock::get) {
            return Ok(Some(v.clone()));
        }
        if let Some(v) = self.cache.get(&winner).filter(|_| cacheable) {
            if self.secret_candidates.contains(&winner) {
                self.secret_reads += 1;
            }
            return Ok(Some(v.clone()));
        }
        let secrets_before = self.secret_reads;
        self.stack.push(entry);
        let produced = self.produce_candidate(winner, key);
        self.stack.pop();
        let value = produced.map_err(|e| self.placed(e, winner))?;
        let Some(value) = value else {
            return Ok(None);
        };
        let secret = self.secret_reads != secrets_before;
        if secret {
            self.secret_candidates.insert(winner);
        }
        let bindings = &self.composition.bindings;
        if let Some(slot) = bindings.request_independent(winner).filter(|_| !secret) {
            if slot.get().is_none() {
                let shared = produces_alike(bindings, winner).then(|| value.clone());
                let shared = slot.get_or_init(|| shared).is_some();
                if shared {
                    return Ok(Some(value));
                }
            }
        }
        if cacheable {
            self.cache.insert(winner, value.clone());
        }
        Ok(Some(value))
    }

    /// D25: a key that a Hiera level pbc cannot search might bind, in the layer of the answer
    /// (`None`: nothing answers) or a higher one, has no answer pbc can know.
    fn never_guess(&self, key: &Key, layer: Option<usize>, at: Option<Span>) -> EvalResult<()> {
        let Some(h) = &self.hiera else {
            return Ok(());
        };
        if key.ty != PType::Data || key.name.starts_with('/') {
            return Ok(());
        }
        match h.unsearchable_before(&key.name, layer) {
            Some((level, entry, default)) => {
                Err(h.not_searchable(&key.name, level, entry, default, at.unwrap_or(Span::NONE)))
            }
            None => Ok(()),
        }
    }

    /// An error without a place in any source (the expressions of a model read back have
    /// none) says which binding it came from, once.
    fn placed(&self, e: EvalError, candidate: usize) -> EvalError {
        let origin = self.composition.candidates()[candidate].origin();
        if !e.span.is_none()
            || !origin.span.is_none()
            || e.notes
                .iter()
                .any(|n| n.starts_with("note: from the binding at"))
        {
            return e;
        }
        e.with_note(format!("note: from the binding at {}", origin_text(origin)))
    }

    fn produce_candidate(&mut self, index: usize, key: &Key) -> EvalResult<Option<Value>> {
        let c = &self.composition.candidates()[index];
        let origin = c.origin();
        let from_hiera = c.hiera_level().is_some();
        // The declared type, as the model holds it (`None`: any value).
        let (declared, value): (Option<&TypeModel>, _) = match c.bound {
            Bound::Binding(b) => {
                let Some(p) = &b.producer else {
                    return Err(at_origin(
                        codes::MISSING_PRODUCER,
                        origin,
                        format!("`{key}` is bound to nothing"),
                    ));
                };
                let v = self.produce(p, b.producer_args(), key, origin)?;
                // Hiera's answer is whatever Puppet's lookup gives: `convert_to` can make a
                // Sensitive or a hash with integer keys of data.
                ((!from_hiera).then_some(&b.type_), v)
            }
            Bound::Multibinding(m) => {
                let v = multibind::produce(self, m, key)?;
                (Some(&m.type_), Some(v))
            }
            Bound::Alias(r) | Bound::Renamed(r) => {
                let from = Key::new(ptype(&r.from_type), r.from_name.clone().unwrap_or_default());
                match self.lookup_unerased(&from, Some(origin.span))? {
                    Some(v) => (Some(&r.type_), Some(v)),
                    None => {
                        return Err(at_origin(
                            codes::KEY_NOT_FOUND,
                            origin,
                            format!("`{key}` is bound to `{from}`, and nothing is bound to it for this request"),
                        ))
                    }
                }
            }
            // ARM-8 "Rebinding": the key's own producer, as it would be without the rebind, at
            // the rebind's precedence.
            Bound::Rebind(_) => {
                let entry = self.composition.entry(key);
                let others: Vec<usize> = entry
                    .map(|e| self.composition.bindings.candidates_of(e))
                    .into_iter()
                    .flatten()
                    .copied()
                    .filter(|&i| {
                        !matches!(self.composition.candidates()[i].bound, Bound::Rebind(_))
                    })
                    .collect();
                match self.composition.resolve(&others) {
                    Ok(Some(original)) => return self.produce_candidate(original, key),
                    Ok(None) => {
                        return Err(at_origin(
                            codes::KEY_NOT_FOUND,
                            origin,
                            format!(
                                "`rebind` of `{key}`, but nothing else binds it for this request"
                            ),
                        ))
                    }
                    Err(e) => return Err(self.compose_error(key, e)),
                }
            }
            Bound::NeedsRuntime(what, _) => {
                return Err(at_origin(
                    codes::NEEDS_RUNTIME,
                    origin,
                    format!("`{key}` comes from `{what}`, which needs Puppet's catalog"),
                ))
            }
        };
        if let Some(v) = &value {
            // Before anything walks it (the type check, printing): a value built by sharing
            // may be astronomically large when expanded.
            if let Err(why) = v.within_bounds() {
                return Err(at_origin(
                    codes::EVAL_LIMIT,
                    origin,
                    format!("the value of `{key}` is too large: {why}"),
                ));
            }
            if let Some(declared) = declared.filter(|t| !model_admits(v, t)) {
                return Err(at_origin(
                    codes::INCOMPATIBLE_TYPE,
                    origin,
                    format!(
                        "`{key}` is bound as {} but its producer gave {} ({})",
                        ptype(declared),
                        v.infer_type(),
                        short(v)
                    ),
                ));
            }
        }
        Ok(value)
    }

    /// A producer's value, the `transformer` option applied. `None`: an optional producer that
    /// produced nothing.
    pub(crate) fn produce(
        &mut self,
        p: &'m ProducerDescriptor<Code<'m>>,
        args: &'m [NamedArgument<Code<'m>>],
        key: &Key,
        origin: &Origin,
    ) -> EvalResult<Option<Value>> {
        let value = match p {
            ProducerDescriptor::ConstantProducerDescriptor { value } => Some(self.code(value)?),
            ProducerDescriptor::EvaluatingProducerDescriptor { expression } => {
                Some(self.code(expression)?)
            }
            ProducerDescriptor::LookupProducerDescriptor { type_, name } => {
                let target = Key::new(ptype(type_), name.clone());
                match self.lookup_key(&target, None)? {
                    Some(v) => Some(v),
                    None => {
                        return Err(at_origin(
                            codes::KEY_NOT_FOUND,
                            origin,
                            format!("`{key}` is produced by `{target}`, and nothing is bound to it"),
                        ))
                    }
                }
            }
            ProducerDescriptor::OptionalProducerDescriptor { producer } => {
                match self.produce(producer, &[], key, origin) {
                    Ok(v) => v.filter(|v| !matches!(v, Value::Undef)),
                    Err(e) if e.code == codes::KEY_NOT_FOUND => None,
                    Err(e) => return Err(e),
                }
            }
            ProducerDescriptor::ArrayMultibindProducerDescriptor
            | ProducerDescriptor::HashMultibindProducerDescriptor => {
                return Err(at_origin(
                    codes::NEEDS_RUNTIME,
                    origin,
                    format!("`{key}` uses a multibind producer outside a multibind"),
                ))
            }
            ProducerDescriptor::ClassesProducerDescriptor { .. } => Some(self.classes()?),
            ProducerDescriptor::HieraProducerDescriptor { .. } => {
                match self.hiera_answer(&key.name, origin)? {
                    Some(v) => Some(v),
                    None => {
                        return Err(at_origin(
                            codes::KEY_NOT_FOUND,
                            origin,
                            format!("no Hiera level finds `{key}` for this request"),
                        ))
                    }
                }
            }
            ProducerDescriptor::InstanceProducerDescriptor { class_name, .. } => {
                return Err(at_origin(
                    codes::NEEDS_RUNTIME,
                    origin,
                    format!("`{key}` is an instance of `{class_name}`: creating one needs Puppet's runtime"),
                ))
            }
            ProducerDescriptor::ProducerProducerDescriptor { .. } => {
                return Err(at_origin(
                    codes::NEEDS_RUNTIME,
                    origin,
                    format!("`{key}` comes from a producer: running one needs Puppet's runtime"),
                ))
            }
            ProducerDescriptor::QueryProducerDescriptor { .. } => {
                return Err(at_origin(
                    codes::NEEDS_RUNTIME,
                    origin,
                    format!("`{key}` comes from a query: answering it needs a query service such as PuppetDB"),
                )
                .with_note("note: pbc keeps queries in the model (D15)"))
            }
        };
        match (value, option(args, "transformer")) {
            (Some(v), Some(Code::Lambda(l))) => Ok(Some(self.call_lambda(l, vec![v])?)),
            (v, _) => Ok(v),
        }
    }

    /// Evaluates an embedded expression in the request's scope (with injection allowed).
    pub(crate) fn code(&mut self, code: &'m Code<'m>) -> EvalResult {
        let top = self.top.clone();
        let strict = self.strict;
        code.evaluate(&top, self, strict)
    }

    pub(crate) fn call_lambda(&mut self, l: &'m Lambda, args: Vec<Value>) -> EvalResult {
        let top = self.top.clone();
        let strict = self.strict;
        let mut ev = Evaluator::new(&top, self).strict(strict);
        ev.call_lambda(l, args)
    }

    /// `/classes`: the included classes minus the excluded ones, where an exclude removes a
    /// class only when its precedence is not lower than the include's (ARM-8 "Classes").
    fn classes(&mut self) -> EvalResult {
        let mut out: Vec<Value> = Vec::new();
        for e in self.class_entries()? {
            let v = Value::string(e.class.as_str());
            if e.include && !e.removed && !out.contains(&v) {
                out.push(v);
            }
        }
        Ok(Value::array(out))
    }

    /// Every include and exclude that applies to the request, in D14 order, includes first,
    /// each include marked when an exclude removes it.
    pub(crate) fn class_entries(&mut self) -> EvalResult<Vec<ClassEntry>> {
        let mut entries: Vec<ClassEntry> = Vec::new();
        for (id, include) in [("included_classes", true), ("excluded_classes", false)] {
            let list: Vec<_> = self
                .composition
                .contributions(id)
                .into_iter()
                .map(|(c, p)| (c.binding, c.layer, p))
                .collect();
            for (b, layer, precedence) in list {
                let Some(p) = &b.producer else { continue };
                if let Some(v) = self.produce(p, &[], &Key::new(PType::String, id), &b.origin)? {
                    entries.push(ClassEntry {
                        class: v.to_display_string(),
                        include,
                        layer,
                        precedence,
                        origin: origin_text(&b.origin),
                        removed: false,
                    });
                }
            }
        }
        // An include survives an exclude in a lower layer or of lower precedence.
        let beats = |a: &ClassEntry, b: &ClassEntry| {
            a.layer < b.layer || (a.layer == b.layer && a.precedence > b.precedence)
        };
        let removed: Vec<bool> = entries
            .iter()
            .map(|e| {
                e.include
                    && entries
                        .iter()
                        .any(|x| !x.include && x.class == e.class && !beats(e, x))
            })
            .collect();
        for (e, r) in entries.iter_mut().zip(removed) {
            e.removed = r;
        }
        Ok(entries)
    }

    fn compose_error(&self, key: &Key, e: ComposeError) -> EvalError {
        let c = |i: usize| &self.composition.candidates()[i];
        let layer = |i: usize| self.composition.layer_names()[c(i).layer()];
        match e {
            ComposeError::Conflict { first, second } => at_origin(
                codes::CONFLICTING_BINDINGS,
                c(second).origin(),
                format!(
                    "`{key}` is bound twice in layer `{}` with the same precedence for this request",
                    layer(second)
                ),
            )
            .with_note(format!("note: the other binding is at {}", origin_text(c(first).origin()))),
            ComposeError::Abstract { candidate } => at_origin(
                codes::ABSTRACT_NOT_OVERRIDDEN,
                c(candidate).origin(),
                format!(
                    "`{key}` is abstract in layer `{}` and nothing at or above it makes it concrete for this request",
                    layer(candidate)
                ),
            ),
            ComposeError::UnresolvedOverride { candidate } => at_origin(
                codes::UNRESOLVED_OVERRIDE,
                c(candidate).origin(),
                format!("`{key}` is an override, but nothing it could override applies to this request"),
            ),
        }
    }

    /// The name of a multibind whose id (`as 'id'`) is `id` but whose name is not: a lookup of
    /// the id means the multibind.
    pub fn multibind_named_by_id(&self, id: &str) -> Option<String> {
        self.composition.bindings.multibind_named_by_id(id)
    }

    /// Every key with a winner for this request, sorted by name.
    /// The system layer's multibinds (`included_classes`, `excluded_classes`,
    /// `bindings_providers`) are plumbing that `/classes` and a runtime read: they are left
    /// out, though each can still be looked up by name.
    pub fn effective_keys(&self) -> Vec<Key> {
        self.effective_entries()
            .iter()
            .map(|k| self.effective_key(k).clone())
            .collect()
    }

    /// [`Injector::effective_keys`] as places in the index, which
    /// [`Injector::lookup_effective`] answers without a search by name (`--all`).
    pub fn effective_entries(&self) -> Vec<EffectiveKey> {
        let c = &self.composition;
        let system_layer = c
            .layer_names()
            .iter()
            .position(|&n| n == crate::lower::SYSTEM_LAYER);
        let in_system_layer = |winner: &Result<Option<usize>, ComposeError>| match winner {
            Ok(Some(w)) => Some(c.candidates()[*w].layer()) == system_layer,
            _ => false,
        };
        let keys = c.bindings.every_key();
        let mut entries: Vec<EffectiveKey> = c
            .bindings
            .keys_in_order()
            .iter()
            .filter(|&&entry| {
                let w = c.winner(entry);
                !matches!(w, Ok(None)) && !in_system_layer(w)
            })
            .filter(|&&entry| c.erased.is_empty() || !c.erased.contains(&keys[entry].id()))
            .map(|&entry| EffectiveKey::Entry(entry))
            .collect();
        // After any key that orders the same, as a stable sort would place it.
        let at = entries.partition_point(|k| {
            crate::compose::key_order(self.effective_key(k), classes_key()).is_le()
        });
        entries.insert(at, EffectiveKey::Classes);
        entries
    }

    /// The key one of [`Injector::effective_entries`] stands for.
    pub fn effective_key(&self, key: &EffectiveKey) -> &Key {
        match key {
            EffectiveKey::Entry(entry) => &self.composition.bindings.every_key()[*entry],
            EffectiveKey::Classes => classes_key(),
        }
    }
}

fn classes_key() -> &'static Key {
    static CLASSES: std::sync::OnceLock<Key> = std::sync::OnceLock::new();
    CLASSES.get_or_init(|| Key::new(PType::Data, CLASSES_KEY))
}

/// Hashes the candidate indexes of [`Injector`]'s cache: `--all` asks for a hundred thousand
/// of them, and an index needs no defence against chosen collisions.
#[derive(Default)]
struct IndexHasher(u64);

impl std::hash::Hasher for IndexHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        // Fibonacci hashing: the multiplier spreads consecutive indexes over the table.
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The key every request answers with the classes it includes (ARM-8's `/classes`).
pub const CLASSES_KEY: &str = "/classes";

/// One key `--all` answers: a key of the index, or `/classes`, which is made for the request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EffectiveKey {
    Entry(usize),
    Classes,
}

impl crate::eval::Host for Injector<'_> {
    fn charge(&mut self, bytes: u64) -> bool {
        self.budget.take(bytes)
    }

    fn remaining(&self) -> u64 {
        self.budget.left()
    }

    fn lookup(&mut self, name: &str, ty: &PType, span: Span) -> EvalResult<Option<Value>> {
        self.lookup_key(&Key::new(ty.clone(), name), Some(span))
    }

    fn log(&mut self, level: LogLevel, message: String, span: Span) {
        self.messages.push((level, message, span));
    }
}

pub(crate) use crate::compose::multibind::option;

/// An error about a binding, at the binding.
fn at_origin(code: &'static str, origin: &Origin, message: String) -> EvalError {
    EvalError::new(code, origin.span, message)
}

/// Whether every request gets the same value from the candidate: a binding to a literal
/// value, or a multibind whose contributions all are, none of them under a `when` (their
/// order is then the same for every request). Hiera data, expressions, lambdas and lookups
/// depend on the request.
fn produces_alike(bindings: &compose::Bindings, candidate: usize) -> bool {
    let c = &bindings.candidates[candidate];
    if c.hiera_level().is_some() {
        return false;
    }
    match c.bound {
        Bound::Binding(b) => literal_binding(b.producer.as_deref(), b.producer_args()),
        Bound::Multibinding(m) => {
            literal_options(&m.producer_args)
                && compose::Bindings::multibind_id(m).is_some_and(|id| {
                    bindings.contributions_to(id).is_none_or(|list| {
                        list.iter().all(|c| {
                            c.when.is_none()
                                && literal_binding(
                                    c.binding.producer.as_deref(),
                                    c.binding.producer_args(),
                                )
                        })
                    })
                })
        }
        _ => false,
    }
}

/// A producer of a literal value, with literal options.
fn literal_binding(
    producer: Option<&ProducerDescriptor<Code<'_>>>,
    args: &[NamedArgument<Code<'_>>],
) -> bool {
    matches!(
        producer,
        Some(
            ProducerDescriptor::ConstantProducerDescriptor {
                value: Code::Value(_)
            } | ProducerDescriptor::EvaluatingProducerDescriptor {
                expression: Code::Value(_)
            }
        )
    ) && literal_options(args)
}

/// Options (`transformer`, `flatten`, ...) that are all literal values.
fn literal_options(args: &[NamedArgument<Code<'_>>]) -> bool {
    args.iter().all(|a| {
        a.value
            .iter()
            .chain(&a.expression)
            .all(|x| matches!(x, Code::Value(_)))
    })
}

/// The binding that answers a key for a request (what `--format answers` says of it).
#[derive(Clone, Debug)]
pub struct WinningBinding {
    /// `file:line:col`.
    pub origin: String,
    pub layer: String,
    /// Each `when` condition around it, as category and value, from the outermost.
    pub matched: Vec<(String, String)>,
}

pub fn origin_text(o: &Origin) -> String {
    format!("{}:{}:{}", o.file, o.line, o.column)
}

/// A value for a message: its first 60 characters.
fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}...", s.chars().take(57).collect::<String>())
    } else {
        s
    }
}

/// D9: a category value is a String, Boolean or Number as its string form, lower-cased;
/// `undef` or `''` means the category does not apply.
fn category_value(code: &Code, top: &TopScope, strict: bool) -> EvalResult<Option<String>> {
    Ok(category_text(code, top, strict)?.map(|t| t.to_lowercase()))
}

/// [`category_value`] as it is (a data file's path compares with case).
fn category_text(code: &Code, top: &TopScope, strict: bool) -> EvalResult<Option<String>> {
    let v = code.evaluate(top, &mut NoInjection::default(), strict)?;
    Ok(match v {
        Value::Undef => None,
        Value::String(s) if s.is_empty() => None,
        Value::String(_) | Value::Boolean(_) | Value::Integer(_) | Value::Float(_) => {
            Some(v.to_display_string())
        }
        other => {
            let span = code.expr().map_or(Span::NONE, |e| e.span);
            return Err(EvalError::type_error(
                span,
                format!(
                    "a category value must be a String, Boolean or Number, not {}",
                    other.type_name()
                ),
            ));
        }
    })
}
