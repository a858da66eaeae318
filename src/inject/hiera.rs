//! The Hiera 5 engine (D24): Puppet 7's lookup over the model's Hiera levels for one request.
//!
//! [`HieraRequest`] resolves each level's hierarchy for the request (paths, globs and
//! `mapped_paths` interpolated from the request's scope, as `Lookup::LocationResolver` does)
//! and says which level first finds a key, which is what places a Hiera answer among the
//! layers. The injector asks [`HieraRequest::lookup`] for the answer itself: the levels in
//! Puppet's order (global, environment, the key's module), each hierarchy entry, each location,
//! merged with the strategy `lookup_options` or the caller gives, exactly as Puppet nests its
//! merges (`MergeStrategy#lookup` at each of the three depths), values interpolated as
//! `Lookup::Interpolation` does. It must not compose bindings nor word diagnostics beyond its
//! own errors: the composition places its answers, the injector types and reports them.

use crate::data::interpolation::{self, Dig, Part};
use crate::data::merge::{
    combine, convert_of, convert_value, has_merge, invalid_options, merge_lookup, merge_of,
    ruby_text, validate_options, Merge,
};
use crate::diag::codes;
use crate::eval::convert::ConvertTo;
use crate::eval::{EvalError, EvalResult, Map, TopScope, Value};
use crate::lower::model::hiera::{HieraEntry, HieraLevel, HieraLocations, HieraPlace};
use crate::span::Span;
use foldhash::{HashMap, HashMapExt};
use std::cell::OnceCell;
use std::rc::Rc;

/// Where a value was found: level, entry (in its hierarchy, or its default hierarchy), file,
/// key: what `--explain` shows.
#[derive(Clone, Debug)]
pub struct Found {
    pub level: usize,
    pub entry: usize,
    pub default: bool,
    pub file: usize,
    pub datum: usize,
}

/// How a Hiera answer was made: the strategy, who chose it, and the values it used in order.
#[derive(Clone, Debug)]
pub struct Trace {
    pub merge: Merge,
    /// `--merge`, `lookup_options`, or `the default`.
    pub merge_from: &'static str,
    pub finds: Vec<Found>,
    /// Whether a module's default hierarchy was searched (nothing else found the key).
    pub default_searched: bool,
    /// `convert_to` as the key's options name it (`Sensitive`, `[Array, true]`).
    pub convert: Option<String>,
    /// The answer is Sensitive: the values found are not shown either.
    pub redact: bool,
}

/// One location of an entry, resolved for the request.
#[derive(Clone, Debug)]
pub struct Location {
    /// As written (`os/%{facts.os.family}.yaml`, a glob, a mapped path's template).
    pub original: String,
    /// Interpolated, relative to the `hiera.yaml`'s directory.
    pub path: String,
    /// The data file it names, if the level has it.
    pub file: Option<usize>,
}

/// An entry of a hierarchy resolved for the request.
#[derive(Clone, Debug)]
pub struct ResolvedEntry {
    pub locations: Vec<Location>,
    /// Why pbc cannot search it (an unsupported data provider): a lookup that reaches it
    /// before its answer fails, unless `--empty-level` names it.
    pub unsupported: Option<String>,
    /// `--empty-level` names it: it is searched as if it held nothing.
    pub treated_as_empty: bool,
    /// A hiera-eyaml entry: a value it finds may be encrypted.
    pub encrypted: bool,
    /// An eyaml entry's key options, interpolated for the request.
    pub eyaml_key: super::eyaml::KeyOptions,
}

impl ResolvedEntry {
    /// Whether a lookup that reaches it cannot know its answer.
    pub fn blocks(&self) -> bool {
        self.unsupported.is_some() && !self.treated_as_empty
    }
}

/// A level's files and keys by name, built once per model.
struct LevelIndex<'m> {
    files: HashMap<&'m str, usize>,
    keys: Vec<HashMap<&'m str, usize>>,
}

/// The model's Hiera levels matched against one request.
pub struct HieraRequest<'m> {
    pub levels: &'m [HieraLevel],
    /// Whether a layer holds the level's bindings: a level no layer includes never answers
    /// (as data no layer includes never applies).
    placed: Vec<bool>,
    /// The layer that holds each level's bindings (`0` the highest), if one does.
    layer_of: Vec<Option<usize>>,
    /// `--empty-level`: levels pbc cannot search that may be treated as holding nothing.
    empty_levels: Vec<String>,
    /// `--eyaml-private-key FILE`.
    eyaml_key_flag: Option<std::path::PathBuf>,
    /// Whether any entry of any level is one pbc cannot search and no `--empty-level` names:
    /// without one, [`HieraRequest::unsearchable_before`] has nothing to find.
    any_unsearchable: bool,
    index: Vec<LevelIndex<'m>>,
    scope: Rc<TopScope>,
    resolved: Vec<OnceCell<Vec<ResolvedEntry>>>,
    resolved_default: Vec<OnceCell<Vec<ResolvedEntry>>>,
    /// [`HieraRequest::placing_level`] per key: the composition asks for every candidate.
    placing: std::cell::RefCell<HashMap<String, Option<usize>>>,
    /// Each level's data files as directories to glob in, built when a glob needs them.
    globbed: Vec<OnceCell<crate::data::glob::Listed>>,
}

/// Which of the model's Hiera levels a layer holds (its bindings block is in one).
pub fn placed_levels<X>(model: &crate::lower::model::TreeDocument<X>) -> Vec<bool> {
    level_layers(model).iter().map(Option::is_some).collect()
}

/// The layer that holds each of the model's Hiera levels (`0` the highest), if one does.
pub fn level_layers<X>(model: &crate::lower::model::TreeDocument<X>) -> Vec<Option<usize>> {
    let mut layer_of: foldhash::HashMap<&str, usize> = foldhash::HashMap::default();
    for (i, l) in model.layers.layers.iter().enumerate() {
        for nb in &l.bindings {
            layer_of.entry(nb.name.as_str()).or_insert(i);
        }
    }
    model
        .hiera
        .iter()
        .map(|l| layer_of.get(l.bindings.as_str()).copied())
        .collect()
}

/// A key's root (before any `.`) and the module it belongs to (before its first `::`).
pub fn module_of(root: &str) -> Option<&str> {
    root.split_once("::").map(|(m, _)| m)
}

impl<'m> HieraRequest<'m> {
    pub fn new(
        levels: &'m [HieraLevel],
        layer_of: Vec<Option<usize>>,
        scope: Rc<TopScope>,
        request: &crate::load::Request,
    ) -> HieraRequest<'m> {
        let placed = layer_of.iter().map(Option::is_some).collect();
        let index = levels
            .iter()
            .map(|l| LevelIndex {
                files: l
                    .files
                    .iter()
                    .enumerate()
                    .map(|(i, f)| (f.path.as_str(), i))
                    .collect(),
                keys: l
                    .files
                    .iter()
                    .map(|f| {
                        let mut keys = HashMap::with_capacity(f.keys.len());
                        for (i, d) in f.keys.iter().enumerate() {
                            // A repeated key: the last is the one YAML keeps.
                            keys.insert(d.key.as_str(), i);
                        }
                        keys
                    })
                    .collect(),
            })
            .collect();
        let empty_levels = request.empty_levels.clone();
        let eyaml_key_flag = request.eyaml_private_key.clone();
        let any_unsearchable = levels.iter().any(|l| {
            l.hierarchy.iter().chain(&l.default_hierarchy).any(|e| {
                // Globs may meet a limit when they are resolved for the request.
                matches!(
                    e.locations,
                    HieraLocations::Unsupported { .. } | HieraLocations::Globs { .. }
                ) && !empty_levels.contains(&e.name)
            })
        });
        HieraRequest {
            levels,
            placed,
            layer_of,
            empty_levels,
            eyaml_key_flag,
            any_unsearchable,
            index,
            scope,
            resolved: levels.iter().map(|_| OnceCell::new()).collect(),
            resolved_default: levels.iter().map(|_| OnceCell::new()).collect(),
            placing: std::cell::RefCell::new(HashMap::new()),
            globbed: levels.iter().map(|_| OnceCell::new()).collect(),
        }
    }

    /// The levels that answer a key of `module` in Puppet's order: global, environment, then
    /// the module's own (each group possibly empty).
    pub fn stack(&self, module: Option<&str>) -> [Vec<usize>; 3] {
        let mut out: [Vec<usize>; 3] = Default::default();
        for (i, l) in self.levels.iter().enumerate() {
            if !self.placed.get(i).copied().unwrap_or(false) {
                continue;
            }
            match l.place {
                HieraPlace::Global => out[0].push(i),
                HieraPlace::Environment => out[1].push(i),
                HieraPlace::Module if module.is_some() && l.module.as_deref() == module => {
                    out[2].push(i)
                }
                HieraPlace::Module => {}
            }
        }
        out
    }

    /// Whether a key no binding and no data file names is certainly not found: no level a
    /// lookup could reach (the global and the environment's, any module's) has an entry pbc
    /// cannot search for this request.
    pub fn searches_every_level(&self) -> bool {
        if !self.any_unsearchable {
            return true;
        }
        let modules = self
            .levels
            .iter()
            .filter(|l| l.place == HieraPlace::Module)
            .filter_map(|l| l.module.as_deref());
        std::iter::once(None)
            .chain(modules.map(Some))
            .all(|module| {
                let root = module.map_or_else(|| "x".to_string(), |m| format!("{m}::x"));
                self.unsearchable_before(&root, None).is_none()
            })
    }

    /// The level's hierarchy (or default hierarchy) resolved for the request.
    pub fn entries(&self, level: usize, default: bool) -> &[ResolvedEntry] {
        let cell = if default {
            &self.resolved_default[level]
        } else {
            &self.resolved[level]
        };
        cell.get_or_init(|| {
            let l = &self.levels[level];
            let list = if default {
                &l.default_hierarchy
            } else {
                &l.hierarchy
            };
            list.iter().map(|e| self.resolve(level, e)).collect()
        })
    }

    fn resolve(&self, level: usize, entry: &HieraEntry) -> ResolvedEntry {
        // `options` are interpolated as Puppet interpolates them (`HieraConfigV5`).
        let eyaml_key = super::eyaml::KeyOptions {
            flag: self.eyaml_key_flag.clone(),
            private_key: entry
                .eyaml_private_key
                .as_deref()
                .map(|t| self.interpolate_path(t, &[])),
            private_key_env_var: entry
                .eyaml_private_key_env_var
                .as_deref()
                .map(|t| self.interpolate_path(t, &[])),
        };
        let index = &self.index[level];
        let file_of = |path: &str| index.files.get(path).copied();
        // The data directory interpolates too (`.../%{::environment}/hieradata`).
        let datadir = self.interpolate_path(&entry.datadir, &[]);
        let join = |path: &str| data_path(&datadir, path);
        // An entry pbc cannot search (or not completely): a lookup that reaches it fails,
        // unless `--empty-level` names it.
        let unsearchable = |why: String| ResolvedEntry {
            locations: Vec::new(),
            unsupported: Some(why),
            treated_as_empty: self.empty_levels.contains(&entry.name),
            encrypted: entry.encrypted,
            eyaml_key: eyaml_key.clone(),
        };
        let mut locations = Vec::new();
        match &entry.locations {
            HieraLocations::Paths { paths } => {
                for original in paths {
                    let path = join(&self.interpolate_path(original, &[]));
                    locations.push(Location {
                        original: original.clone(),
                        file: file_of(&path),
                        path,
                    });
                }
            }
            HieraLocations::Globs { globs } => {
                match self.glob_locations(level, globs, &join, &file_of) {
                    Ok(found) => locations = found,
                    Err(why) => return unsearchable(why),
                }
            }
            HieraLocations::MappedPaths {
                fact,
                variable,
                template,
            } => {
                let values = match self.scope_value(fact, &[]) {
                    Some(Value::Array(items)) => items.iter().cloned().collect(),
                    Some(Value::Undef) | None => Vec::new(),
                    Some(Value::String(s)) if s.is_empty() => Vec::new(),
                    Some(other) => vec![other],
                };
                for value in values {
                    let local = [(variable.as_str(), value)];
                    let path = join(&self.interpolate_path(template, &local));
                    locations.push(Location {
                        original: template.clone(),
                        file: file_of(&path),
                        path,
                    });
                }
            }
            HieraLocations::Unsupported { why } => return unsearchable(why.clone()),
        }
        // `--empty-level` names a level pbc can read too (an eyaml level on a machine without
        // its keys): searched as if it held nothing.
        if self.empty_levels.contains(&entry.name) {
            locations.clear();
            return ResolvedEntry {
                locations,
                unsupported: None,
                treated_as_empty: true,
                encrypted: entry.encrypted,
                eyaml_key,
            };
        }
        ResolvedEntry {
            locations,
            unsupported: None,
            treated_as_empty: false,
            encrypted: entry.encrypted,
            eyaml_key,
        }
    }

    /// The files an entry's globs find for the request, in Ruby's order and with its repeats,
    /// among the level's data files; or why the entry cannot be searched (a limit).
    fn glob_locations(
        &self,
        level: usize,
        globs: &[String],
        join: &dyn Fn(&str) -> String,
        file_of: &dyn Fn(&str) -> Option<usize>,
    ) -> Result<Vec<Location>, String> {
        use crate::data::glob::{Globber, Limit, Listed, MAX_GLOB_MATCHES};
        let mut tree = self.globbed[level]
            .get_or_init(|| Listed::new(self.levels[level].files.iter().map(|f| f.path.as_str())));
        let mut globber = Globber::new(&mut tree).found_files();
        // A pattern written twice in the entry is walked once; its files are searched twice,
        // as Puppet searches them.
        let mut walked: HashMap<String, Vec<String>> = HashMap::new();
        let mut locations = Vec::new();
        for original in globs {
            let pattern = join(&self.interpolate_path(original, &[]));
            let paths = match walked.get(&pattern) {
                Some(paths) => paths.clone(),
                None => {
                    let paths = globber.glob(&pattern).map_err(|l| l.describe())?;
                    walked.insert(pattern, paths.clone());
                    paths
                }
            };
            // Puppet drops directories; a level's data files are files.
            for path in paths {
                if let Some(i) = file_of(&path) {
                    locations.push(Location {
                        original: original.clone(),
                        path,
                        file: Some(i),
                    });
                }
            }
            if locations.len() > MAX_GLOB_MATCHES {
                return Err(Limit::Matches.describe());
            }
        }
        Ok(locations)
    }

    /// A path interpolated from the scope (methods are not allowed in paths; the check said
    /// so), a missing value giving `''`.
    fn interpolate_path(&self, text: &str, local: &[(&str, Value)]) -> String {
        let Ok(parts) = interpolation::parse(text, false) else {
            return text.to_string();
        };
        let mut out = String::new();
        for part in parts {
            match part {
                Part::Text(t) => out.push_str(&t),
                Part::Scope(root, digs) => {
                    let value = match local.iter().find(|(n, _)| *n == root) {
                        Some((_, v)) => dig(v.clone(), &digs),
                        None => self.scope_value_parsed(&root, &digs),
                    };
                    if let Some(v) = value {
                        out.push_str(&ruby_text(&v));
                    }
                }
                Part::Lookup(_) | Part::Alias(_) => {}
            }
        }
        out
    }

    /// `%{name.dig...}` as written (`facts.os.family`, `::osfamily`).
    pub fn scope_value(&self, written: &str, local: &[(&str, Value)]) -> Option<Value> {
        let (root, digs) = interpolation::split_key(written)?;
        match local.iter().find(|(n, _)| *n == root) {
            Some((_, v)) => dig(v.clone(), &digs),
            None => self.scope_value_parsed(&root, &digs),
        }
    }

    /// The scope's variable `root` (facts, `facts`, `trusted`) and the dig into it.
    pub fn scope_value_parsed(&self, root: &str, digs: &[Dig]) -> Option<Value> {
        let root = root.strip_prefix("::").unwrap_or(root);
        let v = self.scope.get(root)?.clone();
        dig(v, digs)
    }

    /// The first file of the level's hierarchy (or default hierarchy) that has `root`, for
    /// the request.
    pub fn first_in_level(&self, level: usize, root: &str, default: bool) -> Option<Found> {
        self.entries(level, default)
            .iter()
            .enumerate()
            .find_map(|(e, entry)| {
                entry
                    .locations
                    .iter()
                    .find_map(|loc| self.found_at(level, default, e, loc, root))
            })
    }

    /// The first level pbc cannot search that a lookup of `root` would reach before an
    /// answer from layer `layer` (`None`: no answer at all): a level of the key's Hiera stack
    /// (global, environment, the key's module, its default hierarchy too) held by that layer or
    /// a higher one, with an entry that [`ResolvedEntry::blocks`]. Its level and entry.
    pub fn unsearchable_before(
        &self,
        root: &str,
        layer: Option<usize>,
    ) -> Option<(usize, usize, bool)> {
        if !self.any_unsearchable {
            return None;
        }
        let stack = self.stack(module_of(root));
        for &level in stack.iter().flatten() {
            if layer.is_some_and(|w| self.layer_of[level].is_none_or(|l| l > w)) {
                continue;
            }
            for default in [false, true] {
                if let Some(e) = self
                    .entries(level, default)
                    .iter()
                    .position(ResolvedEntry::blocks)
                {
                    return Some((level, e, default));
                }
            }
        }
        None
    }

    /// The value of a find in a hiera-eyaml file with every encrypted string opened, as
    /// `eyaml_lookup_key` returns it before interpolating (hash keys are not decrypted, only
    /// interpolated). An error names the value, the level and what to do.
    /// Also whether a block was opened (the value holds a secret).
    pub fn decrypted(
        &self,
        key: &str,
        found: &Found,
        at: Span,
    ) -> EvalResult<(serde_json::Value, bool)> {
        use super::eyaml::{self, KeyError};
        let entry = &self.entries(found.level, found.default)[found.entry];
        let fail = |code: &'static str, why: String| self.eyaml_error(key, found, at, code, why);
        // The key is read only for a string with a block to open, as eyaml reads it.
        let mut opener: Option<(
            eyaml::KeySource,
            std::sync::Arc<crate::data::eyaml::PrivateKey>,
        )> = None;
        let mut value = self.raw(found).clone();
        let mut stack = vec![&mut value];
        while let Some(v) = stack.pop() {
            match v {
                serde_json::Value::String(text) if crate::data::eyaml::is_encrypted(text) => {
                    if !crate::data::eyaml::has_blocks(text) {
                        *text = crate::data::eyaml::chomp(std::mem::take(text));
                        continue;
                    }
                    if opener.is_none() {
                        let loaded = eyaml::choose(&entry.eyaml_key)
                            .and_then(|source| eyaml::load(&source).map(|key| (source, key)));
                        opener = Some(match loaded {
                            Ok(found) => found,
                            Err(KeyError::Absent(why)) => {
                                return Err(fail(
                                    codes::EYAML_VALUE_ENCRYPTED,
                                    format!("pbc has no key to open it here: {why}"),
                                ))
                            }
                            Err(KeyError::Unreadable(why)) => {
                                return Err(fail(
                                    codes::EYAML_KEY_UNREADABLE,
                                    format!("the level's private key cannot be used: {why}"),
                                ))
                            }
                        });
                    }
                    if let Some((source, private_key)) = &opener {
                        *text = eyaml::decrypt(source, private_key, text).map_err(|e| {
                            fail(
                                codes::EYAML_DECRYPT_FAILED,
                                format!("the private key {source} does not open it: {e}"),
                            )
                        })?;
                    }
                }
                serde_json::Value::Array(items) => stack.extend(items.iter_mut()),
                serde_json::Value::Object(map) => stack.extend(map.values_mut()),
                _ => {}
            }
        }
        let opened = opener.is_some();
        Ok((value, opened))
    }

    /// The error of a lookup that returns a value holding a number pbc cannot hold (Puppet
    /// answers it; pbc will not answer its text instead).
    pub fn unrepresentable(&self, found: &Found, at: Span) -> Option<EvalError> {
        let file = &self.levels[found.level].files[found.file];
        let datum = &file.keys[found.datum];
        let text = datum.unrepresentable.as_deref()?;
        let at = if datum.value_span.is_none() {
            at
        } else {
            datum.value_span
        };
        Some(
            EvalError::new(
                codes::DATA_VALUE_NOT_REPRESENTABLE,
                at,
                format!(
                    "the value of `{}` at {}:{}:{}: {}",
                    datum.key,
                    file.file,
                    datum.line,
                    datum.column,
                    crate::data::files::unrepresentable_message(text)
                ),
            )
            .with_note("help: quote it in the data file if it is meant as text"),
        )
    }

    /// The error of a lookup of `key` whose value, found in a hiera-eyaml file, cannot be
    /// opened here.
    fn eyaml_error(
        &self,
        key: &str,
        found: &Found,
        at: Span,
        code: &'static str,
        why: String,
    ) -> EvalError {
        let l = &self.levels[found.level];
        let list = if found.default {
            &l.default_hierarchy
        } else {
            &l.hierarchy
        };
        let name = list.get(found.entry).map_or("", |e| e.name.as_str());
        let file = &l.files[found.file];
        let datum = &file.keys[found.datum];
        let at = if datum.value_span.is_none() {
            at
        } else {
            datum.value_span
        };
        let error = EvalError::new(
            code,
            at,
            format!(
                "`{key}` is encrypted at {}:{}:{} (ENC[PKCS7,...], {}), in the hiera-eyaml level `{name}`: {why}",
                file.file,
                datum.line,
                datum.column,
                fingerprint(&datum.value)
            ),
        );
        match code {
            codes::EYAML_DECRYPT_FAILED => error,
            _ => error.with_note(format!(
                "help: give the level's private key with `--eyaml-private-key FILE`; or, if this lookup may do without that level, say so with `--empty-level '{name}'`"
            )),
        }
    }

    /// The error of a lookup of `key` that reaches the entry `entry` of `level`, which pbc
    /// cannot search.
    pub fn not_searchable(
        &self,
        key: &str,
        level: usize,
        entry: usize,
        default: bool,
        at: Span,
    ) -> EvalError {
        let l = &self.levels[level];
        let list = if default {
            &l.default_hierarchy
        } else {
            &l.hierarchy
        };
        let written = list.get(entry);
        let name = written.map_or("", |e| e.name.as_str());
        // The error stands at the key's value when it has one, else at the level, which is
        // what pbc cannot search; a note says where the level is written.
        let (at, place) = match written.map(|e| &e.origin) {
            Some(o) if at.is_none() && !o.span.is_none() => (o.span, None),
            Some(o) => (
                at,
                Some(format!(
                    "note: the level `{name}` is written at {}:{}:{}",
                    o.file, o.line, o.column
                )),
            ),
            None => (at, None),
        };
        let why = self
            .entries(level, default)
            .get(entry)
            .and_then(|e| e.unsupported.clone())
            .unwrap_or_default();
        let error = EvalError::new(
            codes::HIERA_LEVEL_NOT_SEARCHABLE,
            at,
            format!(
                "`{key}`: the Hiera level `{name}` of {} comes before any answer, and pbc cannot search it ({why}): what it holds could change the answer",
                l.config
            ),
        )
        .with_note(format!(
            "help: if that level holds nothing this lookup needs, say so with `--empty-level '{name}'`"
        ));
        match place {
            Some(note) => error.with_note(note),
            None => error,
        }
    }

    /// The level that places the answer for `root` among the layers: the first of Puppet's
    /// order whose hierarchy finds it, else the key's module level when its default hierarchy
    /// does (Puppet searches it only when nothing else finds the key).
    pub fn placing_level(&self, root: &str) -> Option<usize> {
        if let Some(&placed) = self.placing.borrow().get(root) {
            return placed;
        }
        let placed = self.find_placing_level(root);
        self.placing.borrow_mut().insert(root.to_string(), placed);
        placed
    }

    fn find_placing_level(&self, root: &str) -> Option<usize> {
        let stack = self.stack(module_of(root));
        for &l in stack.iter().flatten() {
            if self.first_in_level(l, root, false).is_some() {
                return Some(l);
            }
        }
        stack[2]
            .iter()
            .copied()
            .find(|&l| self.first_in_level(l, root, true).is_some())
    }

    /// The value of `root` at one location of an entry, if its file has the key.
    pub fn found_at(
        &self,
        level: usize,
        default: bool,
        entry: usize,
        location: &Location,
        root: &str,
    ) -> Option<Found> {
        let file = location.file?;
        let &datum = self.index[level].keys[file].get(root)?;
        Some(Found {
            level,
            entry,
            default,
            file,
            datum,
        })
    }

    /// The raw value of a find.
    pub fn raw(&self, found: &Found) -> &'m serde_json::Value {
        &self.levels[found.level].files[found.file].keys[found.datum].value
    }
}

/// What names an encrypted value without showing it: `fingerprint` and 16 hex digits of a
/// hash of its ciphertext (FNV-1a, the same on every machine), so that `pbc diff` without the
/// key can say an encrypted value changed (re-encrypting the same secret changes it too).
pub fn fingerprint(raw: &serde_json::Value) -> String {
    let text = raw.to_string();
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{FINGERPRINT} {hash:016x}")
}

/// The word before an encrypted value's fingerprint in messages.
pub const FINGERPRINT: &str = "fingerprint";

/// Whether a value from a hiera-eyaml file has a string eyaml decrypts (in arrays and hash
/// values too; hash keys are only interpolated).
fn holds_ciphertext(v: &serde_json::Value) -> bool {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::String(s) if crate::data::eyaml::is_encrypted(s) => return true,
            serde_json::Value::Array(items) => stack.extend(items),
            serde_json::Value::Object(map) => stack.extend(map.values()),
            _ => {}
        }
    }
    false
}

/// A location's file as the level's files are named: the data directory and the path joined,
/// `a/./b//c` as `a/b/c` (the migration names files by the same rule).
pub fn data_path(datadir: &str, path: &str) -> String {
    format!("{datadir}/{path}")
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// Puppet's `sub_lookup`: hash keys and array indexes; `None` where nothing is there.
pub fn dig(mut v: Value, digs: &[Dig]) -> Option<Value> {
    for d in digs {
        v = match (&v, d) {
            (Value::Undef, _) => return None,
            (Value::Array(items), Dig::Index(i)) => {
                let i = usize::try_from(*i).ok()?;
                items.get(i)?.clone()
            }
            (Value::Hash(map), Dig::Key(k)) => map.get(&Value::string(k.as_str()))?.clone(),
            (Value::Hash(map), Dig::Index(i)) => map.get(&Value::Integer(*i))?.clone(),
            _ => return None,
        };
    }
    Some(v)
}

/// What the engine needs from the injector while it works: other keys' values (for
/// `%{lookup()}` and `%{alias()}`), and a place to fail.
pub trait Lookups {
    /// The whole lookup of `key` (bindings and Hiera), `None` when nothing answers.
    fn lookup_for_interpolation(&mut self, key: &str) -> EvalResult<Option<Value>>;
    /// Takes `bytes` from what the lookup may still build ([`crate::eval::MAX_VALUE_BYTES`]);
    /// `false` when that is spent.
    fn charge(&mut self, bytes: u64) -> bool;
}

/// Appends `text`, an interpolation's value, to `out` when the lookup may still build it:
/// keys that interpolate the next key several times multiply (each of twenty keys naming the
/// next four times: 4^20 bytes from a 2 KB file).
fn append_interpolated(
    out: &mut String,
    text: &str,
    host: &mut dyn Lookups,
    at: Span,
) -> EvalResult<()> {
    if !host.charge(text.len() as u64) {
        return Err(EvalError::new(
            codes::EVAL_LIMIT,
            at,
            format!(
                "interpolating this value builds more than the {} MiB a lookup may build",
                crate::eval::MAX_VALUE_BYTES / (1024 * 1024)
            ),
        )
        .with_note("note: a value that interpolates another several times, which interpolates another several times, grows past any memory"));
    }
    out.push_str(text);
    Ok(())
}

/// A value found in a data file, interpolated (`Lookup::Interpolation#interpolate` with
/// methods allowed): keys and values of hashes, elements of arrays, strings with `%{...}`.
pub fn interpolate(
    hiera: &HieraRequest,
    raw: &serde_json::Value,
    host: &mut dyn Lookups,
    at: Span,
) -> EvalResult<Value> {
    use serde_json::Value as J;
    Ok(match raw {
        J::String(s) if s.contains("%{") => interpolate_string(hiera, s, host, at)?,
        J::Array(items) => Value::array(
            items
                .iter()
                .map(|i| interpolate(hiera, i, host, at))
                .collect::<EvalResult<_>>()?,
        ),
        J::Object(map) => {
            let mut out = Map::with_capacity(map.len());
            for (k, v) in map {
                let key = if k.contains("%{") {
                    interpolate_string(hiera, k, host, at)?
                } else {
                    Value::string(k.as_str())
                };
                out.insert(key, interpolate(hiera, v, host, at)?);
            }
            Value::hash(out)
        }
        other => Value::from_json(other),
    })
}

fn interpolate_string(
    hiera: &HieraRequest,
    text: &str,
    host: &mut dyn Lookups,
    at: Span,
) -> EvalResult<Value> {
    let parts =
        interpolation::parse(text, true).map_err(|p| EvalError::new(p.code, at, p.message))?;
    let mut out = String::new();
    for part in parts {
        match part {
            Part::Text(t) => out.push_str(&t),
            Part::Scope(root, digs) => {
                if let Some(v) = hiera.scope_value_parsed(&root, &digs) {
                    append_interpolated(&mut out, &ruby_text(&v), host, at)?;
                }
            }
            Part::Lookup(key) => {
                if let Some(v) = host.lookup_for_interpolation(&key)? {
                    append_interpolated(&mut out, &ruby_text(&v), host, at)?;
                }
            }
            // The whole string (the parser makes sure): the value itself.
            Part::Alias(key) => {
                return Ok(host
                    .lookup_for_interpolation(&key)?
                    .unwrap_or_else(|| Value::string("")))
            }
        }
    }
    Ok(Value::string(out))
}

impl<'m> super::Injector<'m> {
    /// Hiera's answer for the key `root` (D24), as `puppet lookup` gives it: the levels in
    /// Puppet's order with the strategy `--merge` or `lookup_options` names (first found
    /// otherwise), then a module's default hierarchy if nothing was found. Where the values
    /// came from is kept for `--explain`.
    pub(crate) fn hiera_answer(
        &mut self,
        root: &str,
        origin: &crate::lower::model::Origin,
    ) -> EvalResult<Option<Value>> {
        let Some(h) = self.hiera.clone() else {
            return Ok(None);
        };
        let at = origin.span;
        let module = module_of(root).map(str::to_string);
        let options = self.options_for(&h, module.as_deref(), root, at)?;
        // `--merge` is for the keys asked; a key a value interpolates merges as its options say.
        let (merge, merge_from) = match &self.merge {
            Some(m) if self.stack.len() <= 1 => (m.clone(), "--merge"),
            _ => {
                let m = merge_of(options.as_ref(), root, at)?;
                let from = if has_merge(options.as_ref()) {
                    "lookup_options"
                } else {
                    "the default"
                };
                (m, from)
            }
        };
        let convert = convert_of(options.as_ref(), root, at)?;
        let mut finds = Vec::new();
        let stack = h.stack(module.as_deref());
        let mut value = merge_lookup(
            &merge,
            &stack,
            &mut |group: &Vec<usize>| self.group_lookup(&h, group, root, &merge, &mut finds, at),
            at,
        )?;
        let mut default_searched = false;
        if value.is_none() {
            // `lookup_default_in_module`: the module's own options, never `--merge`.
            for &level in &stack[2] {
                if h.entries(level, true).is_empty() {
                    continue;
                }
                default_searched = true;
                let options = self.default_options(&h, level, root, at)?;
                let merge = merge_of(options.as_ref(), root, at)?;
                value = self.level_lookup(&h, level, true, root, &merge, &mut finds, at)?;
                if value.is_some() {
                    break;
                }
            }
        }
        let converted = match (&convert, value) {
            (Some(c), Some(found)) => {
                let converted = convert_value(c, root, found.clone(), at)?;
                self.hiera_found
                    .insert(root.to_string(), (found, converted.clone(), c.clone(), at));
                Some(converted)
            }
            (_, value) => value,
        };
        self.hiera_traces.insert(
            root.to_string(),
            Trace {
                merge,
                merge_from,
                finds,
                default_searched,
                convert: convert.map(|c| convert_text(&c)),
                redact: matches!(converted, Some(Value::Sensitive(_))),
            },
        );
        Ok(converted)
    }

    /// The levels of one place (Puppet has at most one): the first that finds the key.
    fn group_lookup(
        &mut self,
        h: &Rc<HieraRequest<'m>>,
        group: &[usize],
        root: &str,
        merge: &Merge,
        finds: &mut Vec<Found>,
        at: Span,
    ) -> EvalResult<Option<Value>> {
        for &level in group {
            if let Some(v) = self.level_lookup(h, level, false, root, merge, finds, at)? {
                return Ok(Some(v));
            }
        }
        Ok(None)
    }

    /// One level's hierarchy (`ConfiguredDataProvider`): its entries, then each entry's
    /// locations, merged at both depths as Puppet nests them.
    #[allow(clippy::too_many_arguments)]
    fn level_lookup(
        &mut self,
        h: &Rc<HieraRequest<'m>>,
        level: usize,
        default: bool,
        root: &str,
        merge: &Merge,
        finds: &mut Vec<Found>,
        at: Span,
    ) -> EvalResult<Option<Value>> {
        let entries: Vec<usize> = (0..h.entries(level, default).len()).collect();
        merge_lookup(
            merge,
            &entries,
            &mut |&e| {
                if h.entries(level, default)[e].blocks() {
                    return Err(h.not_searchable(root, level, e, default, at));
                }
                let locations: Vec<usize> =
                    (0..h.entries(level, default)[e].locations.len()).collect();
                merge_lookup(
                    merge,
                    &locations,
                    &mut |&l| {
                        let location = &h.entries(level, default)[e].locations[l];
                        let Some(found) = h.found_at(level, default, e, location, root) else {
                            return Ok(None);
                        };
                        if let Some(error) = h.unrepresentable(&found, at) {
                            return Err(error);
                        }
                        let value = if h.entries(level, default)[e].encrypted
                            && holds_ciphertext(h.raw(&found))
                        {
                            let (opened, secret) = h.decrypted(root, &found, at)?;
                            if secret {
                                self.secret_reads += 1;
                            }
                            self.interpolated(h, &found, &opened, at)?
                        } else {
                            self.interpolated(h, &found, h.raw(&found), at)?
                        };
                        finds.push(found);
                        Ok(Some(value))
                    },
                    at,
                )
            },
            at,
        )
    }

    /// A found value with its interpolations done; an error names the value's place.
    fn interpolated(
        &mut self,
        h: &Rc<HieraRequest<'m>>,
        found: &Found,
        raw: &serde_json::Value,
        at: Span,
    ) -> EvalResult<Value> {
        interpolate(h, raw, self, at).map_err(|mut e| {
            let file = &h.levels[found.level].files[found.file];
            let datum = &file.keys[found.datum];
            // The error of this value (not of another key's it looked up) stands at the value.
            if e.span == at && !datum.value_span.is_none() {
                e.span = datum.value_span;
            }
            e.with_note(format!(
                "note: in the value of `{}` at {}:{}:{}",
                datum.key, file.file, datum.line, datum.column
            ))
        })
    }

    /// The options `lookup_options` gives the key `root` of `module` (exact name first, then
    /// the first pattern that matches).
    fn options_for(
        &mut self,
        h: &Rc<HieraRequest<'m>>,
        module: Option<&str>,
        root: &str,
        at: Span,
    ) -> EvalResult<Option<Value>> {
        let key = module.map(str::to_string);
        let compiled = match self.lookup_options.get(&key) {
            Some(c) => Rc::clone(c),
            None => {
                let c = Rc::new(self.compile_options(h, module, at).map_err(|e| {
                    if e.code == codes::HIERA_LEVEL_NOT_SEARCHABLE {
                        e.with_note(format!("note: Puppet merges `lookup_options` from every level before it looks up `{root}`, this one's too"))
                    } else {
                        e
                    }
                })?);
                self.lookup_options.insert(key, Rc::clone(&c));
                c
            }
        };
        Ok(compiled.for_key(root))
    }

    /// `retrieve_lookup_options`: `lookup_options` hash-merged within each level, the
    /// global level's over the environment's, the environment's over the module's.
    fn compile_options(
        &mut self,
        h: &Rc<HieraRequest<'m>>,
        module: Option<&str>,
        at: Span,
    ) -> EvalResult<super::LookupOptions> {
        let hash = Merge::Hash;
        let stack = h.stack(module);
        let mut finds = Vec::new();
        let mut place = |me: &mut Self, group: &[usize], module: Option<&str>| {
            let v = me.group_lookup(h, group, "lookup_options", &hash, &mut finds, at)?;
            validate_options(v, module, at)
        };
        let global = place(self, &stack[0], None)?;
        let environment = place(self, &stack[1], None)?;
        let mut options = combine(&hash, global, environment, at)?;
        if module.is_some() {
            let own = place(self, &stack[2], module)?;
            options = combine(&hash, options, own, at)?;
        }
        compile_patterns(options, at)
    }

    /// The options of a module's default hierarchy (`lookup_default_in_module`).
    fn default_options(
        &mut self,
        h: &Rc<HieraRequest<'m>>,
        level: usize,
        root: &str,
        at: Span,
    ) -> EvalResult<Option<Value>> {
        let mut finds = Vec::new();
        let v = self.level_lookup(
            h,
            level,
            true,
            "lookup_options",
            &Merge::Hash,
            &mut finds,
            at,
        )?;
        let module = h.levels[level].module.clone();
        let v = validate_options(v, module.as_deref(), at)?;
        Ok(compile_patterns(v, at)?.for_key(root))
    }
}

impl Lookups for super::Injector<'_> {
    fn lookup_for_interpolation(&mut self, key: &str) -> EvalResult<Option<Value>> {
        crate::eval::Host::lookup(self, key, &crate::types::PType::Data, Span::NONE)
    }

    fn charge(&mut self, bytes: u64) -> bool {
        crate::eval::Host::charge(self, bytes)
    }
}

impl super::LookupOptions {
    fn for_key(&self, root: &str) -> Option<Value> {
        if let Some(v) = self.keys.get(root) {
            return Some(v.clone());
        }
        self.patterns
            .iter()
            .find(|(re, _)| re.is_match(root))
            .map(|(_, v)| v.clone())
    }
}

/// `compile_patterns`: a key starting with `^` is a regular expression.
fn compile_patterns(options: Option<Value>, at: Span) -> EvalResult<super::LookupOptions> {
    let mut out = super::LookupOptions::default();
    let Some(Value::Hash(map)) = options else {
        return Ok(out);
    };
    for (k, v) in map.iter() {
        let k = k.to_display_string();
        if k.starts_with('^') {
            let re = regex::Regex::new(&k).map_err(|e| {
                invalid_options(
                    at,
                    format!("the `lookup_options` pattern `{k}` is not a regular expression: {e}"),
                )
            })?;
            out.patterns.push((re, v.clone()));
        } else {
            out.keys.insert(k, v.clone());
        }
    }
    Ok(out)
}

/// `convert_to` as explain shows it: the type and `new`'s arguments.
fn convert_text(c: &ConvertTo) -> String {
    let mut out = c.written.clone();
    for a in &c.args {
        out.push_str(", ");
        out.push_str(&a.to_string());
    }
    out
}
