//! `pbc lookup --explain`: for one key, the request's categories, every candidate binding per
//! layer (where it is, its predicates and whether they matched, its precedence, what became of
//! it), the winner and why, and for a multibind each contribution. One structure
//! ([`Explanation`]) gives both the JSON (`--format json`, documented in the README) and the
//! text.

use super::{origin_text, Injector};
use crate::compose::{Bound, ComposeError};
use crate::eval::Value;
use crate::lower::keys::Key;
use serde::Serialize;
use std::fmt::Write as _;

#[derive(Serialize)]
pub struct Explanation {
    pub key: String,
    #[serde(rename = "type")]
    pub type_: String,
    pub environment: String,
    /// Who chose the environment: `--env`, `environments.pp`, `the ENC`, `the default`, or `the model`.
    pub environment_from: String,
    /// The facts' `environment`, which was not used (a node does not pick its environment).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub environment_fact_ignored: Option<String>,
    /// The class parameter (`/param/Class[ntp]/servers`) nothing binds, which this key
    /// (`ntp::servers`) answers (D22).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub implicit_for: Option<String>,
    pub categories: Vec<CategoryLine>,
    pub layers: Vec<LayerLines>,
    /// Bindings files that bind the key but that no layer includes (their bindings never
    /// apply): a typo in a layer's include, or a file no layer was meant to miss.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_in_any_layer: Vec<String>,
    /// For a key of Hiera 5 data: how Hiera searched its levels (D24).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hiera: Option<HieraSearch>,
    /// `null` when nothing applies (or on an error).
    pub winner: Option<Winner>,
    /// For a multibind: its contributions in the order they were combined.
    pub contributions: Vec<ContributionLine>,
    pub value: Option<serde_json::Value>,
    /// Why `value` is not shown: it holds a value decrypted from hiera-eyaml data
    /// (`--show-decrypted` shows it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hidden: Option<String>,
    pub error: Option<String>,
}

/// Why an explanation leaves out a value decrypted from hiera-eyaml data.
pub const DECRYPTED_HIDDEN: &str =
    "it holds a value decrypted from hiera-eyaml data (--show-decrypted shows it)";

#[derive(Serialize)]
pub struct CategoryLine {
    pub name: String,
    /// `null`: the category does not apply to this request.
    pub value: Option<String>,
    pub precedence: u16,
}

#[derive(Serialize)]
pub struct LayerLines {
    pub layer: String,
    pub candidates: Vec<CandidateLine>,
}

#[derive(Serialize)]
pub struct CandidateLine {
    pub origin: String,
    pub bindings: String,
    pub predicates: Vec<PredicateLine>,
    pub matched: bool,
    /// `null` when a predicate does not match.
    pub precedence: Option<Vec<u16>>,
    #[serde(rename = "abstract")]
    pub abstract_: bool,
    #[serde(rename = "override")]
    pub override_: bool,
    /// `wins`, `loses`, `shadowed`, `not matched`, `conflict`.
    pub outcome: &'static str,
    pub why: String,
}

#[derive(Serialize)]
pub struct PredicateLine {
    pub category: String,
    pub value: String,
    pub matched: bool,
    /// A data file's path test (then `category` is empty and `value` the file's path): the
    /// path the request gives (`null`: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<PathLine>,
}

#[derive(Serialize)]
pub struct PathLine {
    pub given: Option<String>,
    /// The test of an earlier file of the same level, which wins where it is the request's.
    pub unless: bool,
}

/// Hiera's search for a key: the strategy, then each level, entry and location in order.
#[derive(Serialize)]
pub struct HieraSearch {
    /// `first`, `unique`, `hash` or `deep`, with the deep options.
    pub merge: String,
    /// `--merge`, `lookup_options` or `the default`.
    pub merge_from: String,
    /// The key's `convert_to` option (`Sensitive`, `Array, true`), applied to the answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub convert_to: Option<String>,
    pub levels: Vec<HieraLevelLines>,
}

#[derive(Serialize)]
pub struct HieraLevelLines {
    /// `global`, `environment` or `module`.
    pub place: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    pub config: String,
    /// The module's `default_hierarchy` (searched because nothing else found the key).
    pub default_hierarchy: bool,
    pub entries: Vec<HieraEntryLines>,
}

#[derive(Serialize)]
pub struct HieraEntryLines {
    pub name: String,
    pub origin: String,
    /// Why the entry finds nothing (a data provider pbc does not run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unsupported: Option<String>,
    pub locations: Vec<HieraLocationLine>,
}

#[derive(Serialize)]
pub struct HieraLocationLine {
    /// As written in the hierarchy.
    pub original: String,
    /// Interpolated for the request, relative to the `hiera.yaml`'s directory.
    pub path: String,
    /// `found`, `no such key` or `no such file`.
    pub outcome: &'static str,
    /// Where the key is in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// The value as written (before interpolation).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
    /// Whether the answer used it (the first found, or every one merged).
    pub used: bool,
}

#[derive(Serialize)]
pub struct Winner {
    pub origin: String,
    pub layer: String,
    pub why: String,
}

#[derive(Serialize)]
pub struct ContributionLine {
    pub origin: String,
    pub name: Option<String>,
    /// The `when` predicates around it (all matched: contributions that do not apply are not
    /// combined).
    pub predicates: Vec<PredicateLine>,
    pub layer: String,
    pub precedence: Vec<u16>,
    pub value: serde_json::Value,
    /// What combining did with it (`concatenated`, `dropped: ...`, `merged ...`).
    pub how: String,
}

impl Injector<'_> {
    pub fn explain(&mut self, key: &Key) -> Explanation {
        if let Some(implicit) = key
            .implicit_parameter()
            .filter(|_| self.composition.entry(key).is_none())
        {
            let mut e = self.explain(&implicit);
            e.implicit_for = Some(key.name.clone());
            return e;
        }
        let secrets_before = self.secret_reads;
        let result = self.lookup_found_key(key);
        // An explanation is for a log or a ticket: a secret it would print stays out of it
        // unless asked for.
        let hidden = (self.secret_reads != secrets_before && !self.show_decrypted)
            .then(|| DECRYPTED_HIDDEN.to_string());
        let c = &self.composition;
        let index = c.entry(key);
        let entry = index.map(|e| c.bindings.candidates_of(e));
        let outcome = index.map(|e| c.winner(e));
        let winner_index = match outcome {
            Some(Ok(Some(w))) => Some(*w),
            _ => None,
        };
        let conflict = match outcome {
            Some(Err(ComposeError::Conflict { first, second })) => Some((*first, *second)),
            _ => None,
        };
        let winner_layer = winner_index.map(|w| c.candidates()[w].layer());
        let mut layers: Vec<LayerLines> = Vec::new();
        for &i in entry.unwrap_or_default() {
            let cand = &c.candidates()[i];
            let precedence = c.precedence(i);
            let layer_name = c.layer_names()[cand.layer()].to_string();
            let hiera_place = cand.hiera_level().and_then(|_| {
                self.hiera.as_ref().map(|h| {
                    h.placing_level(&key.name)
                        .map(|l| h.levels[l].config.clone())
                })
            });
            let (outcome, why) = match (&precedence, winner_index) {
                (None, _) if hiera_place.is_some() => (
                    "not matched",
                    match hiera_place.flatten() {
                        Some(config) => {
                            format!("Hiera finds the key first at the level of {config}")
                        }
                        None => "no location of this Hiera level has the key for this request"
                            .to_string(),
                    },
                ),
                (None, _) => (
                    "not matched",
                    "a predicate does not match this request".to_string(),
                ),
                _ if conflict.is_some_and(|(a, b)| a == i || b == i) => (
                    "conflict",
                    "another binding in this layer has the same precedence".to_string(),
                ),
                (Some(_), Some(w)) if w == i => ("wins", String::new()),
                (Some(_), Some(w)) if Some(cand.layer()) != winner_layer => (
                    "shadowed",
                    format!(
                        "layer `{}` is higher",
                        c.layer_names()[c.candidates()[w].layer()]
                    ),
                ),
                (Some(p), Some(w)) => {
                    let wc = &c.candidates()[w];
                    if cand.is_abstract && !wc.is_abstract {
                        (
                            "loses",
                            "it is abstract; a concrete binding wins".to_string(),
                        )
                    } else {
                        (
                            "loses",
                            format!(
                                "precedence {:?} is below {:?}",
                                p,
                                c.precedence(w).unwrap_or_default()
                            ),
                        )
                    }
                }
                (Some(_), None) => ("loses", "no binding of this key can be used".to_string()),
            };
            let line = CandidateLine {
                origin: origin_text(cand.origin()),
                bindings: c.bindings.block_name(cand).to_string(),
                predicates: predicate_lines(&c.conditions(i)),
                matched: precedence.is_some(),
                precedence: precedence.as_deref().map(<[u16]>::to_vec),
                abstract_: cand.is_abstract,
                override_: cand.is_override,
                outcome,
                why,
            };
            match layers.last_mut() {
                Some(l) if l.layer == layer_name => l.candidates.push(line),
                _ => layers.push(LayerLines {
                    layer: layer_name,
                    candidates: vec![line],
                }),
            }
        }
        let winner = winner_index.map(|w| {
            let wc = &c.candidates()[w];
            let in_layer = entry.map_or(0, |e| {
                e.iter()
                    .filter(|&&i| {
                        c.candidates()[i].layer() == wc.layer() && c.precedence(i).is_some()
                    })
                    .count()
            });
            let mut why = format!(
                "`{}` is the highest layer with a binding that matches",
                c.layer_names()[wc.layer()]
            );
            if in_layer > 1 {
                why.push_str(&format!(
                    "; in it, precedence {:?} is the highest{}",
                    c.precedence(w).unwrap_or_default(),
                    if wc.is_abstract {
                        ""
                    } else {
                        " of the concrete bindings"
                    }
                ));
            }
            Winner {
                origin: origin_text(wc.origin()),
                layer: c.layer_names()[wc.layer()].to_string(),
                why,
            }
        });
        let mut contributions = Vec::new();
        if let Some(w) = winner_index.filter(|_| hidden.is_none()) {
            if let Bound::Multibinding(m) = c.candidates()[w].bound {
                if let Ok((_, list)) = super::multibind::combine(self, m, key) {
                    contributions = list
                        .into_iter()
                        .map(|p| ContributionLine {
                            predicates: predicate_lines(&self.composition.when_conditions(p.when)),
                            how: p.how,
                            origin: p.origin,
                            name: p.name,
                            layer: self.composition.layer_names()[p.layer].to_string(),
                            precedence: p.precedence.to_vec(),
                            value: p.value.to_json(),
                        })
                        .collect();
                }
            }
        }
        if key.name == "/classes" {
            if let Ok(entries) = self.class_entries() {
                contributions = entries
                    .into_iter()
                    .map(|e| ContributionLine {
                        how: match (e.include, e.removed) {
                            (true, false) => "included",
                            (true, true) => "removed by an exclude",
                            (false, _) => "excludes",
                        }
                        .into(),
                        predicates: Vec::new(),
                        origin: e.origin,
                        name: Some(if e.include { "include" } else { "exclude" }.into()),
                        layer: self.composition.layer_names()[e.layer].to_string(),
                        precedence: e.precedence.to_vec(),
                        value: serde_json::Value::String(e.class),
                    })
                    .collect();
            }
        }
        let hiera = self.hiera_search(key);
        let (value, error) = match result {
            Ok(Some(_)) if hidden.is_some() => (None, None),
            Ok(Some(v)) => (Some(v.to_json()), None),
            Ok(None) if self.composition.erased.contains(&key.id()) => (
                None,
                Some("erased: a matching `bind renamed` gives its value another name".into()),
            ),
            Ok(None) => (None, None),
            Err(d) => (None, Some(format!("{}: {}", d.code, d.message))),
        };
        Explanation {
            key: key.name.clone(),
            type_: key.ty.to_string(),
            environment: self.environment.clone(),
            environment_from: self.environment_from.to_string(),
            environment_fact_ignored: self.environment_fact_ignored.clone(),
            implicit_for: None,
            categories: self
                .categories
                .iter()
                .map(|c| CategoryLine {
                    name: c.name.clone(),
                    value: c.value.clone(),
                    precedence: c.precedence,
                })
                .collect(),
            layers,
            not_in_any_layer: Vec::new(),
            hiera,
            winner,
            contributions,
            value,
            hidden,
            error,
        }
    }
}

impl Injector<'_> {
    /// Hiera's search for a key that Hiera data binds (whichever binding won).
    fn hiera_search(&self, key: &Key) -> Option<HieraSearch> {
        let h = self.hiera.as_ref()?;
        let c = &self.composition;
        let entry = c.entry(key)?;
        if !c
            .bindings
            .candidates_of(entry)
            .iter()
            .any(|&i| c.candidates()[i].hiera_level().is_some())
        {
            return None;
        }
        let root = key.name.as_str();
        let trace = self.hiera_traces.get(root);
        let redact = trace.is_some_and(|t| t.redact);
        let used = |level: usize, default: bool, file: usize| {
            trace.is_some_and(|t| {
                t.finds
                    .iter()
                    .any(|f| f.level == level && f.default == default && f.file == file)
            })
        };
        let stack = h.stack(super::hiera::module_of(root));
        let mut searches: Vec<(usize, bool)> =
            stack.iter().flatten().map(|&l| (l, false)).collect();
        if trace.is_some_and(|t| t.default_searched) {
            searches.extend(stack[2].iter().map(|&l| (l, true)));
        }
        let mut levels = Vec::new();
        for (l, default) in searches {
            let level = &h.levels[l];
            let written = if default {
                &level.default_hierarchy
            } else {
                &level.hierarchy
            };
            let entries = h
                .entries(l, default)
                .iter()
                .zip(written)
                .enumerate()
                .map(|(e, (resolved, written))| HieraEntryLines {
                    name: written.name.clone(),
                    origin: origin_text(&written.origin),
                    unsupported: resolved.unsupported.clone(),
                    locations: resolved
                        .locations
                        .iter()
                        .map(|loc| {
                            let found = h.found_at(l, default, e, loc, root);
                            let (outcome, at, value) = match (&loc.file, &found) {
                                (None, _) => ("no such file", None, None),
                                (Some(_), None) => ("no such key", None, None),
                                (Some(_), Some(f)) => {
                                    let file = &level.files[f.file];
                                    let datum = &file.keys[f.datum];
                                    (
                                        "found",
                                        Some(format!(
                                            "{}:{}:{}",
                                            file.file, datum.line, datum.column
                                        )),
                                        // What `convert_to` made Sensitive is not shown as found.
                                        Some(if redact {
                                            serde_json::Value::String(
                                                crate::eval::value::REDACTED.into(),
                                            )
                                        } else {
                                            datum.value.clone()
                                        }),
                                    )
                                }
                            };
                            HieraLocationLine {
                                original: loc.original.clone(),
                                path: loc.path.clone(),
                                outcome,
                                at,
                                value,
                                used: found.is_some()
                                    && loc.file.is_some_and(|f| used(l, default, f)),
                            }
                        })
                        .collect(),
                })
                .collect();
            levels.push(HieraLevelLines {
                place: level.place.describe().to_string(),
                module: level.module.clone(),
                config: level.config.clone(),
                default_hierarchy: default,
                entries,
            });
        }
        let (merge, merge_from) = match trace {
            Some(t) => (merge_text(&t.merge), t.merge_from.to_string()),
            None => ("first".to_string(), "the default".to_string()),
        };
        Some(HieraSearch {
            merge,
            merge_from,
            convert_to: trace.and_then(|t| t.convert.clone()),
            levels,
        })
    }
}

/// `deep (knockout_prefix '--', sort_merged_arrays)`.
fn merge_text(m: &crate::data::merge::Merge) -> String {
    let crate::data::merge::Merge::Deep(o) = m else {
        return m.name().to_string();
    };
    let mut options = Vec::new();
    if let Some(p) = &o.knockout_prefix {
        options.push(format!("knockout_prefix '{p}'"));
    }
    if o.sort_merged_arrays {
        options.push("sort_merged_arrays".to_string());
    }
    if o.merge_hash_arrays {
        options.push("merge_hash_arrays".to_string());
    }
    if options.is_empty() {
        "deep".to_string()
    } else {
        format!("deep ({})", options.join(", "))
    }
}

impl Explanation {
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if let Some(parameter) = &self.implicit_for {
            let _ = writeln!(
                out,
                "key `{parameter}`: nothing binds it, so `{}` answers (implicit lookup of a class parameter)",
                self.key
            );
        }
        let _ = writeln!(out, "key `{}` ({})", self.key, self.type_);
        let _ = writeln!(
            out,
            "  environment: {} (from {})",
            self.environment, self.environment_from
        );
        if let Some(fact) = &self.environment_fact_ignored {
            let _ = writeln!(
                out,
                "    note: the facts' `environment` ('{fact}') was not used: a node does not choose its environment; `--env`, environments.pp or the ENC do"
            );
        }
        let _ = writeln!(out, "  categories (highest first):");
        for c in &self.categories {
            let _ = writeln!(
                out,
                "    {:<16} {:<32} precedence {}",
                c.name,
                c.value
                    .as_deref()
                    .map_or("(does not apply)".to_string(), |v| format!("'{v}'")),
                c.precedence
            );
        }
        if self.layers.is_empty() {
            let _ = writeln!(out, "  no binding of this key in any layer");
        }
        for file in &self.not_in_any_layer {
            let _ = writeln!(out, "  bound in {file}, which no layer includes");
        }
        for l in &self.layers {
            let _ = writeln!(out, "  layer `{}`:", l.layer);
            for c in &l.candidates {
                let mut flags = String::new();
                if c.abstract_ {
                    flags.push_str(" abstract");
                }
                if c.override_ {
                    flags.push_str(" override");
                }
                let _ = writeln!(out, "    {} in `{}`{flags}", c.origin, c.bindings);
                let _ = writeln!(out, "      when: {}", when_text(&c.predicates));
                let precedence = c
                    .precedence
                    .as_ref()
                    .map_or("-".to_string(), |p| format!("{p:?}"));
                let why = if c.why.is_empty() {
                    String::new()
                } else {
                    format!(": {}", c.why)
                };
                let _ = writeln!(out, "      precedence {precedence}, {}{why}", c.outcome);
            }
        }
        if let Some(h) = &self.hiera {
            let _ = writeln!(
                out,
                "  hiera: merge {} (from {}), levels in order:",
                h.merge, h.merge_from
            );
            if let Some(c) = &h.convert_to {
                let _ = writeln!(
                    out,
                    "    convert_to {c} (lookup_options): the answer is converted by Puppet's `new`"
                );
            }
            for l in &h.levels {
                let module = l
                    .module
                    .as_deref()
                    .map_or(String::new(), |m| format!(" `{m}`"));
                let default = if l.default_hierarchy {
                    ", default hierarchy (nothing else found the key)"
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "    {}{module} level ({}{default}):",
                    l.place, l.config
                );
                if l.entries.is_empty() {
                    let _ = writeln!(out, "      no hierarchy entries");
                }
                for e in &l.entries {
                    let _ = writeln!(out, "      entry \"{}\" ({})", e.name, e.origin);
                    if let Some(why) = &e.unsupported {
                        let _ = writeln!(out, "        not searched: {why}");
                    }
                    if e.locations.is_empty() && e.unsupported.is_none() {
                        let _ = writeln!(out, "        no locations for this request");
                    }
                    for loc in &e.locations {
                        let from = if loc.original == loc.path {
                            String::new()
                        } else {
                            format!(" (from '{}')", loc.original)
                        };
                        let what = match (&loc.at, &loc.value) {
                            (Some(at), Some(v)) => format!(
                                "found at {at}: {v}{}",
                                if loc.used { ", used" } else { ", not used" }
                            ),
                            _ => loc.outcome.to_string(),
                        };
                        let _ = writeln!(out, "        '{}'{from}: {what}", loc.path);
                    }
                }
            }
        }
        match &self.winner {
            Some(w) => {
                let _ = writeln!(out, "  winner: {} ({})", w.origin, w.why);
            }
            None => {
                let _ = writeln!(out, "  winner: none");
            }
        }
        if !self.contributions.is_empty() {
            let _ = writeln!(out, "  contributions, in the order combined:");
            for c in &self.contributions {
                let _ = writeln!(
                    out,
                    "    {} {}layer `{}` precedence {:?}: {}",
                    c.origin,
                    c.name
                        .as_deref()
                        .map_or(String::new(), |n| format!("'{n}' ")),
                    c.layer,
                    c.precedence,
                    c.value
                );
                if !c.predicates.is_empty() {
                    let _ = writeln!(out, "      when: {}", when_text(&c.predicates));
                }
                let _ = writeln!(out, "      {}", c.how);
            }
        }
        match (&self.value, &self.error) {
            (_, Some(e)) => {
                let _ = writeln!(out, "  error: {e}");
            }
            (None, None) if self.hidden.is_some() => {
                let _ = writeln!(
                    out,
                    "  value: not shown: {}",
                    self.hidden.as_deref().unwrap_or_default()
                );
            }
            (Some(v), None) => {
                let _ = writeln!(out, "  value: {v}");
            }
            (None, None) => {
                let _ = writeln!(out, "  value: not found");
            }
        }
        out
    }
}

fn predicate_lines(conditions: &[crate::compose::PredicateOutcome]) -> Vec<PredicateLine> {
    conditions
        .iter()
        .map(|p| PredicateLine {
            category: p.category.to_string(),
            value: p.value.to_string(),
            matched: p.matched,
            path: p.path.as_ref().map(|o| PathLine {
                given: o.given.as_ref().map(ToString::to_string),
                unless: o.unless,
            }),
        })
        .collect()
}

/// `when: a 'x' matches, b 'y' does not match`, or `(always)`.
fn when_text(predicates: &[PredicateLine]) -> String {
    if predicates.is_empty() {
        return "(always)".to_string();
    }
    predicates
        .iter()
        .map(|p| match &p.path {
            None => format!(
                "{} '{}' {}",
                p.category,
                p.value,
                if p.matched {
                    "matches"
                } else {
                    "does not match"
                }
            ),
            Some(path) => path_text(&p.value, path),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `path 'osfamily/Darwin' matches`, `path 'osfamily/Darwin' does not match (the request's
/// is 'osfamily/RedHat')`, or for an earlier file `earlier 'os/Debian' is not the request's`.
fn path_text(file: &str, path: &PathLine) -> String {
    let given = match &path.given {
        Some(g) => format!("'{g}'"),
        None => "empty".to_string(),
    };
    match (path.unless, path.given.as_deref() == Some(file)) {
        (false, true) => format!("path '{file}' matches"),
        (false, false) => format!("path '{file}' does not match (the request's is {given})"),
        (true, false) => format!("earlier path '{file}' is not the request's"),
        (true, true) => format!("earlier path '{file}' is the request's and wins"),
    }
}

/// A value as `pbc lookup` prints it.
pub fn value_json(v: &Value) -> String {
    serde_json::to_string(&v.to_json()).unwrap_or_else(|_| "null".into())
}
