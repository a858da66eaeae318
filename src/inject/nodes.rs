//! `pbc lookup --nodes FACTSDIR`: the same keys (or `--all`) for every node of a factsets
//! directory in one run, one JSON line per node. The tree is read and checked once per
//! environment the nodes run in (when its first node comes), lowered once, and the nodes are
//! answered in parallel on every core, [`NODES_AT_ONCE`] at a time, each part's lines written
//! before the next is read: memory does not grow with the nodes. What a node gets does not
//! depend on which core answered it, and lines come in node order. This is what a shop runs
//! before a release: the answers of every node, to compare; `pbc diff` answers both sides
//! through [`with_nodes`].
//!
//! It must not word the answers differently from a lookup of one node: a value is what
//! `pbc lookup --format json` prints for that node, a failed key the same `CODE: message`.

use super::query::{LookupOptions, OutputSink, ProgressSink};
use super::Injector;
use crate::diag::{codes, Diagnostic};
use crate::eval::Value;
use crate::load::environment::select;
use crate::load::facts::ReadError;
use crate::load::LoadedTree;
use crate::load::{facts, Request};
use crate::options::Options;
use crate::outcome::{Outcome, Said};
use crate::types::PType;
use std::cell::OnceCell;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One node's answers: its line of output.
#[derive(Debug, Default)]
pub struct NodeAnswers {
    pub node: String,
    /// `None` when the node never got one (its facts, or environments.pp, failed).
    pub environment: Option<String>,
    /// Found keys and their values, sorted by key.
    pub values: BTreeMap<String, serde_json::Value>,
    /// Failed keys (or `*` for the node as a whole) and why: `CODE: message`.
    pub errors: BTreeMap<String, String>,
    /// Found keys whose values hold a value decrypted from hiera-eyaml data (`pbc diff` says
    /// that one changed without printing it).
    pub decrypted: std::collections::BTreeSet<String>,
}

impl NodeAnswers {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "node": self.node,
            "environment": self.environment,
            "values": self.values,
            "errors": self.errors,
        })
    }

    fn failed(node: &str, environment: Option<String>, d: &Diagnostic) -> NodeAnswers {
        NodeAnswers {
            node: node.to_string(),
            environment,
            errors: BTreeMap::from([("*".to_string(), why(d))]),
            ..NodeAnswers::default()
        }
    }
}

/// The errors a loaded tree (or environments.pp) has.
fn errors_of(loaded: &LoadedTree) -> Vec<Diagnostic> {
    loaded
        .check
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .cloned()
        .collect()
}

fn why(d: &Diagnostic) -> String {
    format!("{}: {}", d.code, d.message)
}

/// The nodes of a factsets directory: each `<node>.json`, `.yaml` or `.yml` (in that order
/// when a node has several), sorted by name.
pub fn factsets(dir: &Path) -> std::io::Result<Vec<(String, PathBuf)>> {
    let mut found: BTreeMap<String, (usize, PathBuf)> = BTreeMap::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let path = entry.path();
        let Some((rank, node)) = ["json", "yaml", "yml"]
            .iter()
            .enumerate()
            .find_map(|(rank, ext)| name.strip_suffix(&format!(".{ext}")).map(|n| (rank, n)))
        else {
            continue;
        };
        if node.is_empty() || node.starts_with('.') || !path.is_file() {
            continue;
        }
        let keep = found.get(node).is_none_or(|(r, _)| rank < *r);
        if keep {
            found.insert(node.to_string(), (rank, path));
        }
    }
    Ok(found.into_iter().map(|(n, (_, p))| (n, p)).collect())
}

/// A node's request: its facts, then `--fact`, its name as `$fqdn` when the facts lack it.
fn request_for(
    opts: &LookupOptions,
    node: &str,
    file: &Path,
    options: &Options,
) -> Result<Request, Diagnostic> {
    let mut request = Request {
        agent_environment: opts.agent_environment.clone(),
        environment: opts.environment.clone(),
        strict: opts.strict,
        merge: super::query::merge_option(opts).ok().flatten(),
        ..Request::new(options)
    };
    facts::load(file, &mut request, &options.files).map_err(|e| match e {
        ReadError::Unreadable(message) => {
            Diagnostic::error(codes::INVALID_FACTS, crate::span::Span::NONE, message)
        }
        ReadError::Invalid(d) => d,
    })?;
    for f in &opts.fact {
        facts::set_fact(&mut request, f)?;
    }
    if !request.facts.contains_key("fqdn") {
        request.facts.insert("fqdn".into(), Value::string(node));
    }
    Ok(request)
}

/// The keys `opts` asks for (or every effective key) for one request.
fn answer(
    opts: &LookupOptions,
    ty: &PType,
    default: Option<&Value>,
    injector: &mut Injector,
    answers: &mut NodeAnswers,
) {
    let keys = super::query::asked_keys(opts, ty, injector);
    for asked in keys {
        let secrets_before = injector.secret_reads;
        let found = asked.lookup(injector);
        let key = asked.key;
        let name = key.to_string();
        if injector.secret_reads != secrets_before {
            answers.decrypted.insert(name.clone());
        }
        match found {
            Ok(Some(value)) if opts.all || *ty == PType::Data || value.is_instance(ty) => {
                answers.values.insert(name, value.to_json());
            }
            Ok(Some(value)) => {
                answers.errors.insert(
                    name,
                    format!(
                        "{}: `{}` is {}, not the {ty} asked for",
                        codes::LOOKUP_TYPE_MISMATCH,
                        key.name,
                        value.infer_type()
                    ),
                );
            }
            Ok(None) => match default {
                Some(d) => {
                    answers.values.insert(name, d.to_json());
                }
                None => {
                    answers.errors.insert(
                        name,
                        format!(
                            "{}: nothing is bound to `{key}` for this request (environment `{}`)",
                            codes::KEY_NOT_FOUND,
                            injector.environment
                        ),
                    );
                }
            },
            Err(d) => {
                answers.errors.insert(name, why(&d));
            }
        }
    }
}

/// Runs `opts` (keys or `--all`) for every node of `dir`: a JSON line per node, written to
/// `opts.output` as the nodes are answered when it is given, else returned whole.
pub fn run(
    opts: &LookupOptions,
    dir: &Path,
    ty: &PType,
    default: Option<&Value>,
    options: &Options,
) -> Outcome {
    let nodes = match listed_nodes(dir) {
        Ok(nodes) => nodes,
        Err(outcome) => return outcome,
    };
    let mut lines = Lines::new(opts.output.clone());
    let mut failed = 0;
    let ran = with_nodes(opts, &nodes, ty, default, options, |side| {
        for chunk in nodes.chunks(NODES_AT_ONCE) {
            let answers = side.answer(chunk)?;
            let mut text = String::new();
            for a in &answers {
                text.push_str(&serde_json::to_string(&a.to_json()).unwrap_or_default());
                text.push('\n');
                failed += usize::from(!a.errors.is_empty());
            }
            lines.write(text)?;
        }
        Ok(())
    });
    let mut said = match lines.end(ran) {
        Ok(said) => said,
        Err(outcome) => return outcome,
    };
    if failed > 0 && !opts.quiet {
        said.push(Said::pbc(format!(
            "{failed} of {} nodes have keys that failed (see their `errors`)",
            nodes.len()
        )));
    }
    Outcome {
        stdout: lines.kept,
        said,
        status: u8::from(failed > 0),
    }
}

/// How many nodes are answered before their lines are written: what a run over nodes holds at
/// once (a node's facts and answers are some hundreds of kilobytes with `--all`), whatever the
/// number of nodes.
pub(crate) const NODES_AT_ONCE: usize = 256;

/// A run's output: written to the sink as it is made, or kept to be returned whole.
pub(crate) struct Lines {
    sink: Option<OutputSink>,
    pub(crate) kept: String,
}

impl Lines {
    pub(crate) fn new(sink: Option<OutputSink>) -> Lines {
        Lines {
            sink,
            kept: String::new(),
        }
    }

    pub(crate) fn write(&mut self, text: String) -> Result<(), Outcome> {
        match &self.sink {
            None => {
                self.kept.push_str(&text);
                Ok(())
            }
            Some(sink) => sink.write(text.as_bytes()).map_err(cannot_write),
        }
    }

    fn flush(&mut self) -> Result<(), Outcome> {
        match &self.sink {
            None => Ok(()),
            Some(sink) => sink.flush().map_err(cannot_write),
        }
    }

    /// The end of a run ([`with_nodes`]'s result): what it said once the output is flushed,
    /// or the outcome to return. A run that stops part way leaves whole lines for the nodes
    /// before (flushed too), and its status says it stopped.
    pub(crate) fn end(&mut self, ran: Result<Vec<Said>, Outcome>) -> Result<Vec<Said>, Outcome> {
        match ran {
            Ok(said) => self.flush().map(|()| said),
            Err(outcome) => {
                let _ = self.flush();
                Err(outcome)
            }
        }
    }
}

fn cannot_write(e: std::io::Error) -> Outcome {
    Outcome::failed(2, format!("cannot write to standard output: {e}"))
}

/// Every node's answers in node order, and what to say (the errors of environments that could
/// not be looked up in); `Err`: what stops the whole run. Holds every node's answers: for a few
/// nodes (`pbc migrate` compares them); runs over many go through [`with_nodes`] a part at a
/// time.
pub fn answer_all(
    opts: &LookupOptions,
    dir: &Path,
    ty: &PType,
    default: Option<&Value>,
    options: &Options,
) -> Result<(Vec<NodeAnswers>, Vec<Said>), Outcome> {
    let nodes = listed_nodes(dir)?;
    let mut all = Vec::new();
    let said = with_nodes(opts, &nodes, ty, default, options, |side| {
        for chunk in nodes.chunks(NODES_AT_ONCE) {
            all.extend(side.answer(chunk)?);
        }
        Ok(())
    })?;
    Ok((all, said))
}

/// The factsets of `dir` ([`factsets`]), or why there are none to answer.
pub(crate) fn listed_nodes(dir: &Path) -> Result<Vec<(String, PathBuf)>, Outcome> {
    let nodes = factsets(dir).map_err(|e| {
        Outcome::usage(format!(
            "cannot read the factsets directory `{}`: {}",
            dir.display(),
            crate::source::io_reason(&e)
        ))
    })?;
    if nodes.is_empty() {
        return Err(Outcome::usage(format!(
            "`{}` has no factsets (`<node>.json`, `.yaml` or `.yml`)",
            dir.display()
        )));
    }
    Ok(nodes)
}

/// Reads what answers `nodes` (the tree's `environments.pp`, or the model) and gives it to
/// `run`, which answers the nodes a part at a time through [`Side::answer`]. Gives back what
/// was said on the way. `Err`: what stops the whole run.
pub(crate) fn with_nodes(
    opts: &LookupOptions,
    nodes: &[(String, PathBuf)],
    ty: &PType,
    default: Option<&Value>,
    options: &Options,
    run: impl FnOnce(&mut Side<'_>) -> Result<(), Outcome>,
) -> Result<Vec<Said>, Outcome> {
    let _listings = crate::source::ListingScope::begin();
    let progress = Progress::new(nodes.len(), opts.progress.clone());
    let asked = Asked {
        opts,
        ty,
        default,
        options,
        progress: &progress,
    };
    if let Some(path) = &opts.model {
        // From a cache, only the bindings the keys need: which those are does not depend on
        // the node, and a node's key not found says no more than that (no suggestions from
        // the rest).
        let only = (!opts.all).then_some(opts.keys.as_slice());
        let (mut read, _) = super::query::read_model(opts, path, only, &options.files)?;
        let environment = read.environment().to_string();
        let model = read.take_document();
        let index = std::sync::Arc::new(crate::compose::Bindings::build(&model.layers.layers));
        let mut side = Side {
            asked,
            answers_from: AnswersFrom::Model {
                environment,
                model: &model,
                index,
            },
            said: Vec::new(),
        };
        run(&mut side)?;
        progress.finish();
        return Ok(side.said);
    }
    let confdir = std::fs::canonicalize(&opts.tree).unwrap_or_else(|_| opts.tree.clone());
    // environments.pp is read once; each node's environment is chosen from it.
    let environments = if confdir.join("environments.pp").is_file() {
        match crate::load::load_environments_file(&confdir, options) {
            Ok(loaded) if loaded.has_errors() => {
                return Err(Outcome::placed(&loaded.check.files, errors_of(&loaded)));
            }
            Ok(loaded) => Some(loaded),
            Err(e) => return Err(Outcome::usage(e.to_string())),
        }
    } else {
        None
    };
    // Each environment's tree and model is kept from the node that first needs it to the end
    // of the run, and later ones are loaded while earlier ones are in use: each in a place of
    // its own that is filled once (there are at most as many environments as nodes).
    let trees: Vec<OnceCell<Box<LoadedTree>>> = (0..nodes.len()).map(|_| OnceCell::new()).collect();
    let models: Vec<OnceCell<Box<Model<'_>>>> = (0..nodes.len()).map(|_| OnceCell::new()).collect();
    let mut side = Side {
        asked,
        answers_from: AnswersFrom::Tree(Environments {
            confdir,
            program: environments
                .as_ref()
                .and_then(LoadedTree::environments_program),
            trees: &trees,
            models: &models,
            by_name: BTreeMap::new(),
        }),
        said: Vec::new(),
    };
    run(&mut side)?;
    progress.finish();
    Ok(side.said)
}

type Model<'m> = crate::lower::model::TreeDocument<super::Code<'m>>;

/// What every node of a run is asked.
struct Asked<'a> {
    opts: &'a LookupOptions,
    ty: &'a PType,
    default: Option<&'a Value>,
    options: &'a Options,
    progress: &'a Progress,
}

/// One side of a run over nodes (`diff` has two): what answers its nodes.
pub(crate) struct Side<'a> {
    asked: Asked<'a>,
    answers_from: AnswersFrom<'a>,
    /// What was said so far: each environment that could not be looked up in, once.
    pub(crate) said: Vec<Said>,
}

enum AnswersFrom<'a> {
    Tree(Environments<'a>),
    Model {
        environment: String,
        model: &'a Model<'a>,
        index: std::sync::Arc<crate::compose::Bindings<'a>>,
    },
}

/// A tree's environments, each loaded when a node first runs in it.
struct Environments<'a> {
    confdir: PathBuf,
    program: Option<&'a crate::ast::Program>,
    trees: &'a [OnceCell<Box<LoadedTree>>],
    models: &'a [OnceCell<Box<Model<'a>>>],
    /// Each environment met: its model and index, or why its nodes get nothing
    /// (`CODE: message`, for their `*`).
    by_name: BTreeMap<String, Result<Indexed<'a>, String>>,
}

type Indexed<'a> = (&'a Model<'a>, std::sync::Arc<crate::compose::Bindings<'a>>);

impl<'a> Environments<'a> {
    /// Loads `selected` unless it has been: its model and index, or why not.
    fn load(
        &mut self,
        selected: &crate::load::environment::SelectedEnvironment,
        options: &Options,
        said: &mut Vec<Said>,
    ) -> Result<(), Outcome> {
        if self.by_name.contains_key(&selected.name) {
            return Ok(());
        }
        let name = &selected.name;
        let mut loaded = selected
            .layout
            .files(options)
            .and_then(|files| crate::load::load_request_files(&files, Some(&self.confdir), options))
            .map_err(|e| Outcome::usage(e.to_string()))?;
        if loaded.has_file_errors() {
            // Said once on stderr; each of its nodes names the first.
            let errors = errors_of(&loaded);
            let code = errors.first().map_or(codes::SYNTAX_ERROR, |d| d.code);
            said.push(Said::placed(&loaded.check.files, errors));
            self.by_name.insert(
                name.clone(),
                Err(format!("{code}: the environment `{name}` has errors (see `pbc check`); nothing was looked up")),
            );
            return Ok(());
        }
        let hiera = loaded.take_hiera();
        let place = self.by_name.len();
        let (Some(tree_place), Some(model_place)) = (self.trees.get(place), self.models.get(place))
        else {
            // More environments than nodes: cannot be, each node runs in one.
            return Err(Outcome::failed(2, "more environments than nodes"));
        };
        let tree: &'a LoadedTree = tree_place.get_or_init(|| Box::new(loaded));
        let model: &'a Model<'a> = model_place.get_or_init(|| {
            let mut model = tree.injection_model();
            model.hiera = hiera;
            Box::new(model)
        });
        let index = std::sync::Arc::new(crate::compose::Bindings::build(&model.layers.layers));
        self.by_name.insert(name.clone(), Ok((model, index)));
        Ok(())
    }
}

impl Side<'_> {
    /// The answers of `nodes`, in their order: each node's facts are read, its environment is
    /// chosen (and loaded, the first time), and its keys are answered, the nodes in parallel
    /// on every core. `Err`: what stops the whole run.
    pub(crate) fn answer(
        &mut self,
        nodes: &[(String, PathBuf)],
    ) -> Result<Vec<NodeAnswers>, Outcome> {
        let asked = &self.asked;
        let (opts, options) = (asked.opts, asked.options);
        let environments = match &mut self.answers_from {
            AnswersFrom::Model {
                environment,
                model,
                index,
            } => {
                let (model, index, environment) = (*model, &*index, environment.as_str());
                return Ok(crate::parallel::parallel_map(nodes.len(), |i| {
                    let (node, file) = &nodes[i];
                    let answers = match request_for(opts, node, file, options) {
                        Ok(request) => {
                            asked.answer(node, environment, "the model", model, index, &request)
                        }
                        Err(d) => NodeAnswers::failed(node, None, &d),
                    };
                    asked.progress.one_more();
                    answers
                }));
            }
            AnswersFrom::Tree(environments) => environments,
        };
        let (confdir, program) = (&environments.confdir, environments.program);
        let chosen = crate::parallel::parallel_map(nodes.len(), |i| {
            let (node, file) = &nodes[i];
            request_for(opts, node, file, options).and_then(|request| {
                let selected = select(confdir, program, &request, &options.files)?;
                Ok((request, selected))
            })
        });
        for (_, selected) in chosen.iter().flatten() {
            environments.load(selected, options, &mut self.said)?;
        }
        let by_name = &environments.by_name;
        Ok(crate::parallel::parallel_map(nodes.len(), |i| {
            let node = nodes[i].0.as_str();
            let answers = match &chosen[i] {
                Err(d) => NodeAnswers::failed(node, None, d),
                Ok((request, selected)) => {
                    let name = selected.name.as_str();
                    match by_name.get(name) {
                        Some(Ok((model, index))) => {
                            asked.answer(node, name, selected.from, model, index, request)
                        }
                        Some(Err(why)) => NodeAnswers {
                            node: node.to_string(),
                            environment: Some(name.to_string()),
                            errors: BTreeMap::from([("*".to_string(), why.clone())]),
                            ..NodeAnswers::default()
                        },
                        None => NodeAnswers::failed(
                            node,
                            Some(name.to_string()),
                            &Diagnostic::error(
                                codes::UNKNOWN_ENVIRONMENT,
                                crate::span::Span::NONE,
                                format!("the environment `{name}` was not loaded"),
                            ),
                        ),
                    }
                }
            };
            asked.progress.one_more();
            answers
        }))
    }
}

impl Asked<'_> {
    /// One node's answers from its environment's model.
    fn answer<'m>(
        &self,
        node: &str,
        environment: &str,
        from: &'static str,
        model: &'m Model<'m>,
        index: &std::sync::Arc<crate::compose::Bindings<'m>>,
        request: &Request,
    ) -> NodeAnswers {
        let name = Some(environment.to_string());
        match Injector::for_environment(
            model,
            Some(index.clone()),
            environment.to_string(),
            from,
            request,
        ) {
            Ok(mut injector) => {
                let mut answers = NodeAnswers {
                    node: node.to_string(),
                    environment: name,
                    ..NodeAnswers::default()
                };
                answer(
                    self.opts,
                    self.ty,
                    self.default,
                    &mut injector,
                    &mut answers,
                );
                answers
            }
            Err(d) => NodeAnswers::failed(node, name, &d),
        }
    }
}

/// How many nodes are answered, told to `opts.progress` every 16 nodes and at the end.
struct Progress {
    done: std::sync::atomic::AtomicUsize,
    total: usize,
    sink: Option<ProgressSink>,
}

impl Progress {
    fn new(total: usize, sink: Option<ProgressSink>) -> Progress {
        Progress {
            done: std::sync::atomic::AtomicUsize::new(0),
            total,
            sink,
        }
    }

    fn one_more(&self) {
        let count = self.done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        if let Some(sink) = &self.sink {
            if count % 16 == 0 || count == self.total {
                (sink.0)(Some((count, self.total)));
            }
        }
    }

    fn finish(&self) {
        if let Some(sink) = &self.sink {
            (sink.0)(None);
        }
    }
}
