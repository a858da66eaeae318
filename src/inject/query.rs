//! What a lookup command asks and how its outcome is said, shared by `pbc lookup` for one node
//! ([`super::command`]), for every node of a directory ([`super::nodes`]) and `pbc serve`: the
//! command's options, the keys it asks and the model file it answers from. It answers nothing
//! itself; what a command gives back is a [`crate::outcome::Outcome`].

use super::{EffectiveKey, Injector};
use crate::diag::{codes, Diagnostic};
use crate::eval::Value;
use crate::lower::keys::Key;
use crate::outcome::Outcome;
use crate::span::Span;
use crate::types::PType;
use std::path::PathBuf;

#[derive(Clone, Debug, Default)]
pub struct LookupOptions {
    pub keys: Vec<String>,
    pub tree: PathBuf,
    pub facts: Option<PathBuf>,
    pub node: Option<String>,
    /// `--fact key=value`, applied after the facts file.
    pub fact: Vec<String>,
    pub environment: Option<String>,
    pub agent_environment: Option<String>,
    /// `--type`: the keys' type, asserted on the value.
    pub type_: Option<String>,
    /// `--enc`: the node classifier's output (YAML or JSON).
    pub enc: Option<PathBuf>,
    /// `--default`: a Puppet literal (anything else is a string).
    pub default: Option<String>,
    pub all: bool,
    pub explain: bool,
    /// `--format json`: with `--explain`, the explanations; otherwise one JSON object of the
    /// keys' values (and an `errors` member naming the keys that failed).
    pub json: bool,
    /// `--format answers`: the answers document for programs (docs/answers.md).
    pub answers: bool,
    /// `--pretty`: JSON output indented (compact otherwise).
    pub pretty: bool,
    pub strict: bool,
    /// `--quiet`: no warnings, only what failed.
    pub quiet: bool,
    /// `--nodes DIR`: every node of a factsets directory, a JSON line each.
    pub nodes: Option<PathBuf>,
    /// `--model FILE`: answer from a model `pbc compile DIR` wrote, not from the tree.
    pub model: Option<PathBuf>,
    /// Told how many nodes are done (`pbc lookup --nodes` and `pbc diff` on a terminal).
    pub progress: Option<ProgressSink>,
    /// Where `--nodes` writes its lines as it goes (else they are returned whole).
    pub output: Option<OutputSink>,
    /// `--show-decrypted`: explanations print the values decrypted from hiera-eyaml data.
    pub show_decrypted: bool,
    /// `--merge` and its deep options: how Hiera 5 data merges (`puppet lookup --merge`).
    pub merge: Option<String>,
    pub knock_out_prefix: Option<String>,
    pub sort_merged_arrays: bool,
    pub merge_hash_arrays: bool,
    /// Answers named keys from the whole index of the tree's bindings, never from the parts
    /// their lookups read (what the answers from parts are tested against).
    pub whole_index: bool,
}

/// `--merge STRATEGY` with its options, as `puppet lookup` takes them.
pub fn merge_option(opts: &LookupOptions) -> Result<Option<crate::data::merge::Merge>, String> {
    use crate::data::merge::{DeepOptions, Merge};
    let deep_options =
        opts.knock_out_prefix.is_some() || opts.sort_merged_arrays || opts.merge_hash_arrays;
    match opts.merge.as_deref() {
        None if deep_options => Err(
            "--knock-out-prefix, --sort-merged-arrays and --merge-hash-arrays go with --merge deep"
                .into(),
        ),
        None => Ok(None),
        Some("deep") => {
            if opts.knock_out_prefix.as_deref() == Some("") {
                return Err("--knock-out-prefix must not be empty".into());
            }
            Ok(Some(Merge::Deep(DeepOptions {
                knockout_prefix: opts.knock_out_prefix.clone(),
                sort_merged_arrays: opts.sort_merged_arrays,
                merge_hash_arrays: opts.merge_hash_arrays,
            })))
        }
        Some(_) if deep_options => Err(
            "--knock-out-prefix, --sort-merged-arrays and --merge-hash-arrays go with --merge deep"
                .into(),
        ),
        Some(name) => Merge::from_value(&crate::eval::Value::string(name))
            .map(Some)
            .map_err(|why| format!("--merge: {why}")),
    }
}

/// Where a command over many nodes says how far it is: `Some((done, total))` as nodes are
/// answered, `None` once all are. The command line draws it on a terminal; the library never
/// prints.
#[derive(Clone)]
pub struct ProgressSink(pub std::sync::Arc<ProgressFn>);

/// What a [`ProgressSink`] calls.
pub type ProgressFn = dyn Fn(Option<(usize, usize)>) + Send + Sync;

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("ProgressSink")
    }
}

/// Where `pbc lookup --nodes` and `pbc diff` write their output as they go, some hundreds of
/// nodes at a time in node order, so that a run over any number of nodes holds only those
/// ([`super::nodes::NODES_AT_ONCE`]). The command line gives standard output; without a sink
/// the output is returned whole in [`crate::outcome::Outcome::stdout`].
#[derive(Clone)]
pub struct OutputSink(pub std::sync::Arc<std::sync::Mutex<dyn std::io::Write + Send>>);

impl OutputSink {
    pub fn write(&self, bytes: &[u8]) -> std::io::Result<()> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .write_all(bytes)
    }

    pub fn flush(&self) -> std::io::Result<()> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .flush()
    }
}

impl std::fmt::Debug for OutputSink {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("OutputSink")
    }
}

/// The keys `opts` asks for, of the type `ty`, or with `--all` every effective key.
pub(crate) fn asked_keys(opts: &LookupOptions, ty: &PType, injector: &Injector) -> Vec<AskedKey> {
    if opts.all {
        injector
            .effective_entries()
            .into_iter()
            .map(|e| AskedKey {
                key: injector.effective_key(&e).clone(),
                effective: Some(e),
            })
            .collect()
    } else {
        opts.keys
            .iter()
            .map(|k| AskedKey {
                key: Key::new(ty.clone(), k.as_str()),
                effective: None,
            })
            .collect()
    }
}

/// A key to answer: named on the command line, or one of `--all`'s, which is found by its
/// place in the index rather than searched for by name.
pub(crate) struct AskedKey {
    pub key: Key,
    effective: Option<EffectiveKey>,
}

impl AskedKey {
    pub(crate) fn lookup(&self, injector: &mut Injector) -> Result<Option<Value>, Diagnostic> {
        match &self.effective {
            Some(e) => injector.lookup_effective(e),
            None => injector.lookup_found_key(&self.key),
        }
    }
}

/// Reads the model `--model` names (JSON, or a cache `pbc compile --cache` wrote), and checks
/// that `--env` (if given) is its environment. From a cache, `only` reads just the bindings the
/// lookup of those keys needs; `None` reads the whole model, as a JSON model always is. Also
/// says whether what was read is only part of the model.
pub(crate) fn read_model(
    opts: &LookupOptions,
    path: &std::path::Path,
    only: Option<&[String]>,
    access: &crate::source::FileAccess,
) -> Result<(crate::lower::read::ReadModel, bool), Outcome> {
    read_model_file(path, opts.environment.as_deref(), only, access).map_err(|e| match e {
        ModelError::Unreadable(message) => Outcome::usage(message),
        ModelError::Invalid(d) => Outcome::unplaced(d),
    })
}

/// Why a model file could not be answered from.
pub(crate) enum ModelError {
    /// It could not be read at all (exit status 2 from the command line).
    Unreadable(String),
    /// It is not a model pbc reads, or not the environment asked for.
    Invalid(Diagnostic),
}

/// [`read_model`] for any caller: `environment` is the one the request must be in (`--env`).
pub(crate) fn read_model_file(
    path: &std::path::Path,
    environment: Option<&str>,
    only: Option<&[String]>,
    access: &crate::source::FileAccess,
) -> Result<(crate::lower::read::ReadModel, bool), ModelError> {
    use crate::lower::cache::{Cache, Needed};
    let fail = ModelError::Invalid;
    let name = path.display().to_string();
    let invalid = |why: String| {
        fail(Diagnostic::error(
            codes::INVALID_MODEL,
            Span::NONE,
            format!("`{name}` is not a model pbc can read: {why}"),
        ))
    };
    let mut first = [0u8; 16];
    let is_cache = crate::source::open_without_waiting(path)
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut first))
        .is_ok()
        && Cache::is_cache(&first);
    let read = if is_cache {
        let mut cache = Cache::open(path).map_err(|e| invalid(crate::source::io_reason(&e)))?;
        check_environment(environment, "--env", path, cache.environment()).map_err(fail)?;
        let needed = match only {
            Some(names) => cache
                .needed(names)
                .map_err(|e| invalid(crate::source::io_reason(&e)))?,
            None => Needed::All,
        };
        let document = cache
            .document(&needed)
            .map_err(|e| invalid(crate::source::io_reason(&e)))?;
        let partial = matches!(needed, Needed::Some { .. });
        (
            crate::lower::read::from_document(&name, document).map_err(fail)?,
            partial,
        )
    } else {
        let bytes = crate::source::read_file(path, "model", access)
            .map_err(|e| ModelError::Unreadable(e.to_string()))?;
        let read = crate::lower::read::read(&name, &bytes).map_err(fail)?;
        check_environment(environment, "--env", path, read.environment()).map_err(fail)?;
        (read, false)
    };
    Ok(read)
}

/// Only `--env` is known to decide: environments.pp (which the ENC's choice comes after) was
/// evaluated when the model was compiled, not here.
pub(crate) fn check_environment(
    asked: Option<&str>,
    asked_by: &str,
    path: &std::path::Path,
    environment: &str,
) -> Result<(), Diagnostic> {
    match asked.filter(|e| *e != environment) {
        None => Ok(()),
        Some(other) => Err(Diagnostic::error(
            codes::MODEL_ENVIRONMENT_MISMATCH,
            Span::NONE,
            format!(
                "{asked_by} names the environment `{other}`, but `{}` is the model of `{environment}`",
                path.display()
            ),
        )
        .with_note(format!(
            "help: compile that environment's model (`pbc compile DIR --env {other}`), or look up on the tree"
        ))),
    }
}
