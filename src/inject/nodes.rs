//! `pbc lookup --nodes FACTSDIR`: the same keys (or `--all`) for every node of a factsets
//! directory in one run, one JSON line per node. The tree is read and checked once per
//! environment the nodes run in, lowered once, and the nodes are answered in parallel on every
//! core; what a node gets does not depend on which core answered it, and lines come in node
//! order. This is what a shop runs before a release: the answers of every node, to compare.
//!
//! It must not word the answers differently from a lookup of one node: a value is what
//! `pbc lookup --format json` prints for that node, a failed key the same `CODE: message`.

use super::query::{LookupOptions, ProgressSink};
use super::{ForInjection, Injector};
use crate::diag::{codes, Diagnostic};
use crate::eval::Value;
use crate::load::environment::select;
use crate::load::facts::ReadError;
use crate::load::LoadedTree;
use crate::load::{facts, Request};
use crate::options::Options;
use crate::outcome::{Outcome, Said};
use crate::types::PType;
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

/// Runs `opts` (keys or `--all`) for every node of `dir`: a JSON line per node.
pub fn run(
    opts: &LookupOptions,
    dir: &Path,
    ty: &PType,
    default: Option<&Value>,
    options: &Options,
) -> Outcome {
    let (answers, mut said) = match answer_all(opts, dir, ty, default, options) {
        Ok(done) => done,
        Err(outcome) => return outcome,
    };
    let mut stdout = String::new();
    for a in &answers {
        stdout.push_str(&serde_json::to_string(&a.to_json()).unwrap_or_default());
        stdout.push('\n');
    }
    let failed = answers.iter().filter(|a| !a.errors.is_empty()).count();
    if failed > 0 && !opts.quiet {
        said.push(Said::pbc(format!(
            "{failed} of {} nodes have keys that failed (see their `errors`)",
            answers.len()
        )));
    }
    Outcome {
        stdout,
        said,
        status: u8::from(failed > 0),
    }
}

/// Every node's answers in node order, and what to say (the errors of environments that could
/// not be looked up in); `Err`: what stops the whole run.
pub fn answer_all(
    opts: &LookupOptions,
    dir: &Path,
    ty: &PType,
    default: Option<&Value>,
    options: &Options,
) -> Result<(Vec<NodeAnswers>, Vec<Said>), Outcome> {
    let _listings = crate::source::ListingScope::begin();
    let nodes = match factsets(dir) {
        Ok(n) => n,
        Err(e) => {
            return Err(Outcome::usage(format!(
                "cannot read the factsets directory `{}`: {}",
                dir.display(),
                crate::source::io_reason(&e)
            )))
        }
    };
    if nodes.is_empty() {
        return Err(Outcome::usage(format!(
            "`{}` has no factsets (`<node>.json`, `.yaml` or `.yml`)",
            dir.display()
        )));
    }
    if let Some(path) = &opts.model {
        return answer_all_on_model(opts, path, &nodes, ty, default, options);
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
    let program = environments
        .as_ref()
        .and_then(LoadedTree::environments_program);

    let mut answers: Vec<NodeAnswers> = Vec::with_capacity(nodes.len());
    // Per environment: its selection (the first node's: the layout is the environment's) and
    // the indexes of its nodes' requests.
    let mut groups: BTreeMap<String, (crate::load::environment::SelectedEnvironment, Vec<usize>)> =
        BTreeMap::new();
    let mut requests: Vec<Option<Request>> = Vec::with_capacity(nodes.len());
    for (node, file) in &nodes {
        let at = answers.len();
        let chosen = request_for(opts, node, file, options).and_then(|request| {
            let selected = select(&confdir, program, &request, &options.files)?;
            Ok((request, selected))
        });
        match chosen {
            Ok((request, selected)) => {
                answers.push(NodeAnswers {
                    node: node.clone(),
                    environment: Some(selected.name.clone()),
                    ..NodeAnswers::default()
                });
                groups
                    .entry(selected.name.clone())
                    .or_insert_with(|| (selected, Vec::new()))
                    .1
                    .push(at);
                requests.push(Some(request));
            }
            Err(d) => {
                answers.push(NodeAnswers::failed(node, None, &d));
                requests.push(None);
            }
        }
    }

    let progress = Progress::new(nodes.len(), opts.progress.clone());
    let mut said = Vec::new();
    for (name, (selected, members)) in &groups {
        let mut loaded = match selected
            .layout
            .files(options)
            .and_then(|files| crate::load::load_request_files(&files, Some(&confdir), options))
        {
            Ok(l) => l,
            Err(e) => return Err(Outcome::usage(e.to_string())),
        };
        if loaded.has_file_errors() {
            // Said once on stderr; each of its nodes names the first.
            let errors = errors_of(&loaded);
            let code = errors.first().map_or(codes::SYNTAX_ERROR, |d| d.code);
            for &i in members {
                answers[i].errors.insert(
                    "*".into(),
                    format!("{code}: the environment `{name}` has errors (see `pbc check`); nothing was looked up"),
                );
            }
            said.push(Said::placed(&loaded.check.files, errors));
            continue;
        }
        let hiera = loaded.take_hiera();
        let mut model = loaded.tree_model(ForInjection);
        model.hiera = hiera;
        let group = Group {
            model: &model,
            environment: name,
            from: selected.from,
            members,
        };
        group.answer(
            opts,
            ty,
            default,
            &nodes,
            &requests,
            &progress,
            &mut answers,
        );
    }
    progress.finish();
    Ok((answers, said))
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

/// The nodes of one environment, answered from its model.
struct Group<'g, 'm> {
    model: &'g crate::lower::model::TreeDocument<super::Code<'m>>,
    environment: &'g str,
    from: &'static str,
    /// Indexes of the group's nodes.
    members: &'g [usize],
}

impl Group<'_, '_> {
    /// Indexes the model once for every node of the group (each node matches the index against
    /// its own categories) and answers the nodes in parallel, into their places in `answers`.
    #[allow(clippy::too_many_arguments)]
    fn answer(
        &self,
        opts: &LookupOptions,
        ty: &PType,
        default: Option<&Value>,
        nodes: &[(String, PathBuf)],
        requests: &[Option<Request>],
        progress: &Progress,
        answers: &mut [NodeAnswers],
    ) {
        let index = std::sync::Arc::new(crate::compose::Bindings::build(&self.model.layers.layers));
        let answered = crate::parallel::parallel_map(self.members.len(), |m| {
            let i = self.members[m];
            let name = Some(self.environment.to_string());
            let mut node = NodeAnswers {
                node: nodes[i].0.clone(),
                environment: name.clone(),
                ..NodeAnswers::default()
            };
            if let Some(request) = &requests[i] {
                match Injector::for_environment(
                    self.model,
                    Some(index.clone()),
                    self.environment.to_string(),
                    self.from,
                    request,
                ) {
                    Ok(mut injector) => answer(opts, ty, default, &mut injector, &mut node),
                    Err(d) => node = NodeAnswers::failed(&nodes[i].0, name, &d),
                }
            }
            progress.one_more();
            node
        });
        for (m, node) in answered.into_iter().enumerate() {
            answers[self.members[m]] = node;
        }
    }
}

/// `--nodes` with `--model FILE`: every node in the model's environment.
fn answer_all_on_model(
    opts: &LookupOptions,
    path: &Path,
    nodes: &[(String, PathBuf)],
    ty: &PType,
    default: Option<&Value>,
    options: &Options,
) -> Result<(Vec<NodeAnswers>, Vec<Said>), Outcome> {
    // From a cache, only the bindings the keys need: which those are does not depend on the
    // node, and a node's key not found says no more than that (no suggestions from the rest).
    let only = (!opts.all).then_some(opts.keys.as_slice());
    let (mut read, _) = super::query::read_model(opts, path, only, &options.files)?;
    let environment = read.environment().to_string();
    let model = read.take_document();
    let mut answers = Vec::with_capacity(nodes.len());
    let mut requests = Vec::with_capacity(nodes.len());
    let mut members = Vec::with_capacity(nodes.len());
    for (i, (node, file)) in nodes.iter().enumerate() {
        match request_for(opts, node, file, options) {
            Ok(request) => {
                answers.push(NodeAnswers::default());
                requests.push(Some(request));
                members.push(i);
            }
            Err(d) => {
                answers.push(NodeAnswers::failed(node, None, &d));
                requests.push(None);
            }
        }
    }
    let progress = Progress::new(nodes.len(), opts.progress.clone());
    let group = Group {
        model: &model,
        environment: &environment,
        from: "the model",
        members: &members,
    };
    group.answer(opts, ty, default, nodes, &requests, &progress, &mut answers);
    progress.finish();
    Ok((answers, Vec::new()))
}
