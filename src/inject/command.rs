//! `pbc lookup` as a library call: load and check the tree, build the request, answer the
//! keys, and give back what to print, what to say (as data: the command line renders it) and
//! which exit status to give. Tests call [`run`] directly.

use super::explain::value_json;
use super::query::{asked_keys, merge_option, read_model, LookupOptions};
use super::Injector;
use crate::compose::Bindings;
use crate::diag::{codes, Diagnostic};
use crate::eval::Value;
use crate::load::environment::{prepare_kept, PrepareError};
use crate::load::facts::ReadError;
use crate::load::{facts, Request};
use crate::lower::keys::Key;
use crate::lower::model::NamedLayer;
use crate::options::Options;
use crate::outcome::{Outcome, Said};
use crate::reclaim::release;
use crate::span::{FileId, SourceMap, Span};
use crate::types::PType;

/// A type or value given on the command line, read as Puppet source.
fn parse_expr(src: &str) -> Option<crate::ast::Program> {
    crate::parser::parse_file(FileId(0), src).program
}

pub fn run(opts: &LookupOptions, options: &Options) -> Outcome {
    if opts.keys.is_empty() && !opts.all {
        return Outcome::usage("lookup needs keys, or --all");
    }
    if let Some(dir) = &opts.nodes {
        if opts.explain
            || opts.facts.is_some()
            || opts.node.is_some()
            || opts.enc.is_some()
            || opts.pretty
        {
            return Outcome::usage(
                "--nodes takes each node's facts from its directory and prints a JSON line per node: not with --facts, --node, --enc, --explain or --pretty",
            );
        }
        let (ty, default, _) = match type_default_and_merge(opts) {
            Ok(both) => both,
            Err(outcome) => return outcome,
        };
        return super::nodes::run(opts, dir, &ty, default.as_ref(), options);
    }
    let (request, ty, default) = match prepared(opts, options) {
        Ok(prepared) => prepared,
        Err(outcome) => return outcome,
    };
    if let Some(path) = &opts.model {
        if options.hiera_config.is_some() {
            return Outcome::usage(
                "--hiera-config goes with a tree: a model holds the global Hiera level it was compiled with",
            );
        }
        return run_on_model(opts, path, &request, &ty, default.as_ref(), options);
    }
    let mut outcome = None;
    let failed = answer_from_tree(
        opts,
        &request,
        &ty,
        default.as_ref(),
        options,
        Tree::default(),
        |ask| {
            outcome = Some(ask(Ask::all_of(opts)).outcome);
        },
    );
    failed
        .or(outcome)
        .unwrap_or_else(|| Outcome::failed(1, "pbc answered nothing (a bug in pbc)"))
}

/// What one ask of a tree loaded for many ([`with_tree`]) takes from itself: the keys, and how
/// they are answered. Everything else (the tree, the node and its facts, the environment, the
/// type, default and merge) is the session's.
#[derive(Clone, Copy, Debug)]
pub struct Ask<'a> {
    pub keys: &'a [String],
    pub explain: bool,
    pub json: bool,
    /// Nothing to answer (the outcome is empty): the tree is made ready for the asks to come.
    /// Asks of keys by name are answered from the parts of the index their lookups read
    /// ([`Bindings::build_part`]) until an ask needs the whole index or this builds it, so that
    /// a caller idle between asks builds it then and answers the next ones at once.
    pub prepare: bool,
}

impl<'a> Ask<'a> {
    /// What `opts` asks.
    pub fn all_of(opts: &'a LookupOptions) -> Ask<'a> {
        Ask {
            keys: &opts.keys,
            explain: opts.explain,
            json: opts.json,
            prepare: false,
        }
    }

    /// The ask that makes the tree ready for the asks to come ([`Ask::prepare`]).
    pub fn prepare() -> Ask<'static> {
        Ask {
            keys: &[],
            explain: false,
            json: false,
            prepare: true,
        }
    }
}

/// One ask answered: what `pbc lookup` with its keys would print and say, and whether the
/// tree as loaded answers the next ask as a run of its own would. It does not once an
/// evaluation logged something (`notice`, `warning`): a run logs what its own keys log, and a
/// key answered before is not evaluated, and so not logged, again.
pub struct Answer {
    pub outcome: Outcome,
    pub reusable: bool,
}

/// `pbc lookup` of a tree loaded once for many asks (the language server's hovers: loading a
/// large tree is most of a lookup). `opts` names the tree, the node and how keys are answered
/// (not `--nodes` or `--model`); `serve` is given the function that answers each ask as
/// `pbc lookup` with its keys would, and asks until it is done. When the tree cannot be
/// loaded for the request, `serve` is not called: what is returned is the outcome every ask
/// would get. With `memo`, what the last load kept, only the files changed since are parsed
/// and lowered again ([`crate::load::load_request_files_kept`]); it is held only while the
/// tree loads, so that the next load need not wait for this tree to be freed. Once
/// `abandoned` is set, the load stops at its next step and `serve` is not called: the caller
/// no longer wants the tree (it changed while loading), and the cores are wanted elsewhere.
pub fn with_tree(
    opts: &LookupOptions,
    options: &Options,
    memo: Option<&std::sync::Mutex<crate::load::CheckMemo>>,
    abandoned: Option<&std::sync::atomic::AtomicBool>,
    serve: impl FnOnce(&mut dyn FnMut(Ask) -> Answer),
) -> Option<Outcome> {
    if opts.nodes.is_some() || opts.model.is_some() {
        return Some(Outcome::usage(
            "a tree loaded for many asks answers from the tree, for one node: not with --nodes or --model",
        ));
    }
    let (request, ty, default) = match prepared(opts, options) {
        Ok(prepared) => prepared,
        Err(outcome) => return Some(outcome),
    };
    let tree = Tree { memo, abandoned };
    answer_from_tree(opts, &request, &ty, default.as_ref(), options, tree, serve)
}

/// What a tree loaded for many asks ([`with_tree`]) is loaded with besides the request.
#[derive(Clone, Copy, Default)]
struct Tree<'a> {
    memo: Option<&'a std::sync::Mutex<crate::load::CheckMemo>>,
    abandoned: Option<&'a std::sync::atomic::AtomicBool>,
}

impl Tree<'_> {
    /// The outcome of a load given up ([`with_tree`]'s `abandoned`).
    fn given_up(&self) -> Option<Outcome> {
        self.abandoned
            .is_some_and(|a| a.load(std::sync::atomic::Ordering::Relaxed))
            .then(|| Outcome::failed(1, "the tree changed while it was loaded for these asks"))
    }
}

/// What every lookup of `opts` shares: the request (the node's facts, the environment asked,
/// the classifier's output), the type asserted and the default.
fn prepared(
    opts: &LookupOptions,
    options: &Options,
) -> Result<(Request, PType, Option<Value>), Outcome> {
    let (ty, default, merge) = type_default_and_merge(opts)?;
    let mut request = Request {
        agent_environment: opts.agent_environment.clone(),
        environment: opts.environment.clone(),
        strict: opts.strict,
        merge,
        show_decrypted: opts.show_decrypted,
        ..Request::new(options)
    };
    let mut problems: Vec<Diagnostic> = Vec::new();
    if let Some(path) = &opts.facts {
        let loaded = facts::facts_file(path, opts.node.as_deref())
            .map_err(ReadError::Invalid)
            .and_then(|file| facts::load(&file, &mut request, &options.files));
        match loaded {
            Ok(()) => {}
            Err(ReadError::Unreadable(message)) => return Err(Outcome::usage(message)),
            Err(ReadError::Invalid(d)) => problems.push(d),
        }
    }
    if let Some(path) = &opts.enc {
        match crate::load::enc::load(path, &options.files) {
            Ok(e) => request.enc = Some(e),
            Err(ReadError::Unreadable(message)) => return Err(Outcome::usage(message)),
            Err(ReadError::Invalid(d)) => problems.push(d),
        }
    }
    for f in &opts.fact {
        if let Err(d) = facts::set_fact(&mut request, f) {
            problems.push(d);
        }
    }
    if let (Some(node), false) = (&opts.node, request.facts.contains_key("fqdn")) {
        request
            .facts
            .insert("fqdn".into(), Value::string(node.as_str()));
    }
    if !problems.is_empty() {
        return Err(Outcome::diagnostics(SourceMap::default(), problems));
    }
    Ok((request, ty, default))
}

/// `--type` and `--default` as values; a usage error for a type that is not one, or for
/// `--type`, `--default` and `--merge` as values; a usage error for a type that is not one, or
/// for merge options that do not go together.
fn type_default_and_merge(
    opts: &LookupOptions,
) -> Result<(PType, Option<Value>, Option<crate::data::merge::Merge>), Outcome> {
    let ty = match &opts.type_ {
        None => PType::Data,
        Some(t) => match crate::types::parse_type(t) {
            Some(t) => t,
            None => return Err(Outcome::usage(format!("--type `{t}` is not a type"))),
        },
    };
    let default = opts.default.as_ref().map(|d| {
        parse_expr(d)
            .and_then(|p| p.body.first().and_then(crate::eval::literal_value))
            .unwrap_or_else(|| Value::string(d.as_str()))
    });
    let merge = merge_option(opts).map_err(Outcome::usage)?;
    Ok((ty, default, merge))
}

/// The tree of `opts` loaded for `request` and each ask `serve` makes answered from it; the
/// outcome every ask would get when it cannot be loaded.
fn answer_from_tree(
    opts: &LookupOptions,
    request: &Request,
    ty: &PType,
    default: Option<&Value>,
    options: &Options,
    tree: Tree,
    serve: impl FnOnce(&mut dyn FnMut(Ask) -> Answer),
) -> Option<Outcome> {
    // `$confdir` is the tree's directory, absolute (environments.pp may build paths from it).
    let confdir = std::fs::canonicalize(&opts.tree).unwrap_or_else(|_| opts.tree.clone());
    // A poisoned lock held only parses: the load starts without them.
    let mut memo = tree.memo.map(|memo| {
        memo.lock().unwrap_or_else(|poisoned| {
            let mut memo = poisoned.into_inner();
            *memo = crate::load::CheckMemo::default();
            memo
        })
    });
    let prepared = prepare_kept(&confdir, request, memo.as_deref_mut(), options);
    drop(memo);
    if let Some(given_up) = tree.given_up() {
        release(prepared, options);
        return Some(given_up);
    }
    let (selected, mut loaded) = match prepared {
        Ok(ready) => ready,
        Err(PrepareError::Io(e)) => return Some(Outcome::usage(e.to_string())),
        Err(PrepareError::Diagnostics {
            files,
            diagnostics,
            summary,
        }) => {
            let diagnostics: Vec<Diagnostic> = diagnostics
                .into_iter()
                .filter(|d| !opts.quiet || d.is_error())
                .collect();
            let mut outcome = Outcome::diagnostics(files, diagnostics);
            outcome.said.extend(summary.map(Said::pbc));
            return Some(outcome);
        }
    };
    // What was left unread is said whatever is looked up (unless --quiet).
    let unread: Vec<Diagnostic> = loaded
        .check
        .diagnostics
        .iter()
        .filter(|d| d.code == codes::SYMLINK_NOT_FOLLOWED && !opts.quiet)
        .cloned()
        .collect();
    let hiera = loaded.take_hiera();
    let mut model = loaded.injection_model();
    model.hiera = hiera;
    if let Some(enc) = &request.enc {
        super::enc::add_to_model(&mut model, enc);
    }
    if let Some(given_up) = tree.given_up() {
        release(model, options);
        release(loaded, options);
        return Some(given_up);
    }
    // Files no layer includes, lowered only when a key turns out to be bound nowhere else.
    let unplaced = std::cell::OnceCell::new();
    let not_in_any_layer = |key: &Key| -> Vec<String> {
        let layer = unplaced.get_or_init(|| {
            [NamedLayer {
                name: String::new(),
                bindings: loaded.unplaced_model().bindings,
                providers: Vec::new(),
            }]
        });
        let index = Bindings::build(layer);
        let Some(entry) = index.entry(key) else {
            return Vec::new();
        };
        let mut files: Vec<String> = index
            .candidates_of(entry)
            .iter()
            .map(|&c| index.candidates[c].origin().file.to_string())
            .collect();
        files.dedup();
        files
    };
    // The injector on the whole index, made at the first ask that parts of it do not answer.
    let mut whole: Option<Injector> = None;
    let mut asked = opts.clone();
    serve(&mut |ask: Ask| {
        asked.keys = ask.keys.to_vec();
        asked.explain = ask.explain;
        asked.json = ask.json;
        let files = &loaded.check.files;
        if whole.is_none() && !ask.prepare && !asked.all && !asked.whole_index {
            let from_parts = FromParts {
                model: &model,
                selected: &selected,
                request,
            };
            if let Some(answer) = from_parts.answer(&asked, ty, default, &unread, &not_in_any_layer)
            {
                return match answer {
                    Ok((answered, reusable)) => Answer {
                        outcome: answered.into_outcome(files),
                        reusable,
                    },
                    Err(d) => Answer {
                        outcome: Outcome::placed(files, vec![d]),
                        reusable: true,
                    },
                };
            }
        }
        let injector = match &mut whole {
            Some(injector) => injector,
            None => match Injector::new(&model, &selected, request) {
                Ok(injector) => whole.insert(injector),
                Err(d) => {
                    return Answer {
                        outcome: Outcome::placed(files, vec![d]),
                        reusable: true,
                    }
                }
            },
        };
        if ask.prepare {
            return Answer {
                outcome: Outcome {
                    stdout: String::new(),
                    said: Vec::new(),
                    status: 0,
                },
                reusable: true,
            };
        }
        let answered = answer(
            &asked,
            ty,
            default,
            injector,
            unread.clone(),
            &not_in_any_layer,
        );
        let reusable = answered.messages.is_empty() && injector.messages.is_empty();
        Answer {
            outcome: answered.into_outcome(files),
            reusable,
        }
    });
    // The answers are written: the tree, its model and the request's index are not needed.
    release(whole, options);
    release(unplaced, options);
    release(model, options);
    release(loaded, options);
    None
}

/// How many parts of the index one ask is answered from, each holding what the one before
/// was asked beyond it, before the whole index is built for it.
const MOST_PARTS: usize = 3;

/// The asks of named keys answered from parts of the model's index that hold only what their
/// lookups read ([`Bindings::build_part`]): a tree loaded for one or two asks (`pbc lookup
/// KEY`, the language server's first hover after a change) is spared numbering every key.
struct FromParts<'a, 'm> {
    model: &'a crate::lower::model::TreeDocument<crate::eval::code::Code<'m>>,
    selected: &'a crate::load::environment::SelectedEnvironment,
    request: &'a Request,
}

impl FromParts<'_, '_> {
    /// The ask answered (and whether the tree answers the next ask as a run of its own would),
    /// or the injector's error; `None` when its lookups read what only the whole index has
    /// (every key's name, for a key not found), or more than [`MOST_PARTS`] parts held.
    fn answer(
        &self,
        asked: &LookupOptions,
        ty: &PType,
        default: Option<&Value>,
        unread: &[Diagnostic],
        not_in_any_layer: &dyn Fn(&Key) -> Vec<String>,
    ) -> Option<Result<(Answered, bool), Diagnostic>> {
        let mut names = std::collections::BTreeSet::new();
        for name in &asked.keys {
            let key = Key::new(ty.clone(), name.as_str());
            names.extend(key.implicit_parameter().map(|k| k.name));
            // A dotted key digs its root's value.
            names.extend(name.split_once('.').map(|(root, _)| root.to_string()));
            names.insert(name.clone());
        }
        let mut ids = std::collections::BTreeSet::new();
        for _ in 0..MOST_PARTS {
            let part = std::sync::Arc::new(Bindings::build_part(
                &self.model.layers.layers,
                &names,
                &ids,
            ));
            let mut injector = match Injector::with_index(
                self.model,
                Some(std::sync::Arc::clone(&part)),
                self.selected,
                self.request,
            ) {
                Ok(injector) => injector,
                Err(d) => return Some(Err(d)),
            };
            let answered = answer(
                asked,
                ty,
                default,
                &mut injector,
                unread.to_vec(),
                not_in_any_layer,
            );
            let Some(beyond) = part.beyond_part() else {
                let reusable = answered.messages.is_empty() && injector.messages.is_empty();
                return Some(Ok((answered, reusable)));
            };
            if beyond.whole {
                return None;
            }
            names.extend(beyond.names);
            ids.extend(beyond.ids);
        }
        None
    }
}

/// `--model FILE`: the request answered from a model `pbc compile DIR` wrote, in the
/// environment it was compiled for.
fn run_on_model(
    opts: &LookupOptions,
    path: &std::path::Path,
    request: &Request,
    ty: &PType,
    default: Option<&Value>,
    options: &Options,
) -> Outcome {
    // From a cache, only what the keys need is read; a key not found is looked up again in
    // the whole model, whose other keys the error's suggestions come from.
    let only = (!opts.all).then_some(opts.keys.as_slice());
    let (mut read, partial) = match read_model(opts, path, only, &options.files) {
        Ok(m) => m,
        Err(outcome) => return outcome,
    };
    // Only a part read may lack a key the whole model has.
    if partial && default.is_none() {
        let mut model = read.document();
        if let Some(enc) = &request.enc {
            super::enc::add_to_model(&mut model, enc);
        }
        let probe = Injector::for_environment(
            &model,
            None,
            read.environment().to_string(),
            "the model",
            request,
        );
        let missing = probe.is_ok_and(|mut injector| {
            asked_keys(opts, ty, &injector)
                .iter()
                .any(|k| matches!(k.lookup(&mut injector), Ok(None)))
        });
        if missing {
            read = match read_model(opts, path, None, &options.files) {
                Ok((m, _)) => m,
                Err(outcome) => return outcome,
            };
        }
    }
    let environment = read.environment().to_string();
    let mut model = read.take_document();
    if let Some(enc) = &request.enc {
        super::enc::add_to_model(&mut model, enc);
    }
    let mut injector =
        match Injector::for_environment(&model, None, environment, "the model", request) {
            Ok(i) => i,
            Err(d) => return Outcome::unplaced(d),
        };
    let outcome = answer(opts, ty, default, &mut injector, Vec::new(), &|_: &Key| {
        Vec::new()
    })
    .into_outcome(&SourceMap::default());
    // The answers are written: the model and the request's index are not needed.
    release(injector, options);
    release(model, options);
    release(read, options);
    outcome
}

/// The keys asked, answered: what to print, and what to say.
struct Answered {
    stdout: String,
    /// The tree's warnings about files left unread.
    unread: Vec<Diagnostic>,
    /// What the evaluation logged (`notice`, `warning`).
    messages: Vec<String>,
    errors: Vec<Diagnostic>,
}

impl Answered {
    /// What is said points into `files` (the tree's; none from a model).
    fn into_outcome(self, files: &SourceMap) -> Outcome {
        let status = u8::from(!self.errors.is_empty());
        let mut said = Vec::new();
        if !self.unread.is_empty() {
            said.push(Said::placed(files, self.unread));
        }
        said.extend(self.messages.into_iter().map(Said::Line));
        if !self.errors.is_empty() {
            said.push(Said::placed(files, self.errors));
        }
        Outcome {
            stdout: self.stdout,
            said,
            status,
        }
    }
}

/// The keys `opts` asks for, answered by `injector`. `unread` are the tree's warnings about
/// files left unread; `not_in_any_layer` names the files outside every layer that bind a key.
fn answer(
    opts: &LookupOptions,
    ty: &PType,
    default: Option<&Value>,
    injector: &mut Injector,
    unread: Vec<Diagnostic>,
    not_in_any_layer: &dyn Fn(&Key) -> Vec<String>,
) -> Answered {
    let keys = asked_keys(opts, ty, injector);
    let mut stdout = String::new();
    let mut errors: Vec<Diagnostic> = Vec::new();
    let mut explanations = Vec::new();
    let mut all_values: Vec<(String, serde_json::Value)> = Vec::new();
    // Keys that failed, for the JSON object's `errors` member.
    let mut failed: Vec<(String, String)> = Vec::new();
    // `--format answers`: each key's answer, in the order asked.
    let mut answered = serde_json::Map::new();
    // Plain output is one line per key; JSON output is one object.
    let lines = !opts.all && !opts.explain && !opts.json && !opts.answers;
    let as_object = !opts.explain && !opts.answers && (opts.all || opts.json);
    for asked in &keys {
        let key = &asked.key;
        if opts.explain {
            let mut e = injector.explain(key);
            if e.layers.is_empty() {
                e.not_in_any_layer = not_in_any_layer(key);
            }
            if !opts.json {
                stdout.push_str(&e.to_text());
            }
            explanations.push(e);
        }
        let found = asked.lookup(injector);
        let value = match found {
            Ok(Some(value)) => {
                if !opts.all && !value.is_instance(ty) && *ty != PType::Data {
                    if lines {
                        stdout.push_str("null\n");
                    }
                    failed.push((key.to_string(), codes::LOOKUP_TYPE_MISMATCH.to_string()));
                    let d = Diagnostic::error(
                        codes::LOOKUP_TYPE_MISMATCH,
                        Span::NONE,
                        format!(
                            "`{}` is {}, not the {ty} asked for",
                            key.name,
                            value.infer_type()
                        ),
                    );
                    if opts.answers {
                        answered.insert(key.to_string(), answer_error(&d, injector.winner_of(key)));
                    }
                    errors.push(d);
                    continue;
                }
                value
            }
            Ok(None) => {
                match default {
                    Some(d) => d.clone(),
                    None => {
                        let mut d = Diagnostic::error(
                            codes::KEY_NOT_FOUND,
                            Span::NONE,
                            format!(
                                "nothing is bound to `{key}` for this request (environment `{}`)",
                                injector.environment
                            ),
                        );
                        let names: Vec<String> = injector
                            .effective_keys()
                            .into_iter()
                            .map(|k| k.name)
                            .collect();
                        let names: Vec<&str> = names.iter().map(String::as_str).collect();
                        if let Some(near) = crate::diag::did_you_mean(&key.name, &names) {
                            d = d.with_note(format!("help: did you mean `{near}`?"));
                        }
                        if let Some(name) = injector.multibind_named_by_id(&key.name) {
                            d = d.with_note(format!(
                                "note: `{}` is the id of the multibind `{name}`: look up `{name}`",
                                key.name
                            ));
                        }
                        for file in not_in_any_layer(key) {
                            d = d.with_note(format!(
                                "note: `{file}` binds it, but no layer includes that file"
                            ));
                        }
                        if !opts.explain {
                            d = d.with_note("help: `--explain` shows every binding of the key and why none applies");
                        }
                        failed.push((key.to_string(), format!("{}: {}", d.code, d.message)));
                        if opts.answers {
                            answered.insert(key.to_string(), serde_json::json!({"found": false}));
                        }
                        errors.push(d);
                        if lines {
                            stdout.push_str("null\n");
                        }
                        continue;
                    }
                }
            }
            Err(d) => {
                failed.push((key.to_string(), format!("{}: {}", d.code, d.message)));
                if opts.answers {
                    answered.insert(key.to_string(), answer_error(&d, injector.winner_of(key)));
                }
                errors.push(d);
                // One line per key, always: a found value is never undef, so `null` says
                // "see the error" unambiguously.
                if lines {
                    stdout.push_str("null\n");
                }
                continue;
            }
        };
        if opts.answers {
            answered.insert(key.to_string(), found_answer(injector, key, &value));
        } else if as_object {
            all_values.push((key.to_string(), value.to_json()));
        } else if lines {
            stdout.push_str(&value_json(&value));
            stdout.push('\n');
        }
    }
    let json_text = |v: &serde_json::Value| {
        if opts.pretty {
            crate::indented_json::to_string(v).unwrap_or_default()
        } else {
            serde_json::to_string(v).unwrap_or_default()
        }
    };
    if as_object {
        let mut map: serde_json::Map<String, serde_json::Value> = all_values.into_iter().collect();
        if opts.json && !opts.all && !failed.is_empty() {
            let errors: serde_json::Map<String, serde_json::Value> = failed
                .into_iter()
                .map(|(k, why)| (k, serde_json::Value::String(why)))
                .collect();
            map.insert("errors".into(), serde_json::Value::Object(errors));
        }
        stdout.push_str(&json_text(&serde_json::Value::Object(map)));
        stdout.push('\n');
    }
    if opts.answers {
        let document = serde_json::json!({
            "format": ANSWERS_FORMAT,
            "version": ANSWERS_VERSION,
            "pbc": env!("CARGO_PKG_VERSION"),
            "environment": injector.environment,
            // With `--all`: whether a key the document does not list is certainly not found
            // (else it must be asked by name: a level pbc cannot search may hold it).
            "complete": opts.all && injector.lists_every_answer(),
            "keys": serde_json::Value::Object(answered),
        });
        stdout.push_str(&json_text(&document));
        stdout.push('\n');
    }
    if opts.explain && opts.json {
        stdout.push_str(&crate::indented_json::to_string(&explanations).unwrap_or_default());
        stdout.push('\n');
    }
    let messages = injector
        .messages
        .iter()
        .filter(|_| !opts.quiet)
        .map(|(level, message, _)| {
            let level = match level {
                crate::eval::LogLevel::Notice => "notice",
                crate::eval::LogLevel::Warning => "warning",
            };
            format!("{level}: {message}")
        })
        .collect();
    Answered {
        stdout,
        unread,
        messages,
        errors,
    }
}

/// The answers document `--format answers` writes (docs/answers.md): its name and version,
/// which a program checks before it reads anything else.
pub const ANSWERS_FORMAT: &str = "pbc-answers";
pub const ANSWERS_VERSION: u32 = 1;

/// The JSON Schema (draft 2020-12) of the answers document, printed by `pbc schema --answers`.
pub const ANSWERS_SCHEMA: &str = include_str!("answers.schema.json");

/// A key found, as the answers document says it: its value as Puppet's rich data, and the
/// binding that gave it.
pub(crate) fn found_answer(injector: &Injector, key: &Key, value: &Value) -> serde_json::Value {
    let mut entry = serde_json::Map::new();
    entry.insert("found".into(), serde_json::Value::Bool(true));
    entry.insert("value".into(), value.to_rich_data());
    if let Some(winner) = injector.winner_of(key) {
        entry.insert("origin".into(), winner.origin.into());
        entry.insert("layer".into(), winner.layer.into());
        let when: Vec<serde_json::Value> = winner
            .matched
            .into_iter()
            .map(|(category, value)| serde_json::json!({ "category": category, "value": value }))
            .collect();
        entry.insert("when".into(), when.into());
    }
    serde_json::Value::Object(entry)
}

/// A key that failed, as the answers document says it: the diagnostic's code and message, the
/// binding whose answer failed (`file:line:col`, from the tree and from a model alike) and the
/// other notes.
pub(crate) fn answer_error(
    d: &Diagnostic,
    winner: Option<super::WinningBinding>,
) -> serde_json::Value {
    let mut error = serde_json::Map::new();
    error.insert("code".into(), d.code.into());
    error.insert("message".into(), d.message.clone().into());
    if let Some(winner) = winner {
        error.insert("at".into(), winner.origin.into());
    }
    // From a model, where the binding is comes as a note: `at` says it for both.
    let notes: Vec<&String> = d
        .notes
        .iter()
        .filter(|n| !n.starts_with("note: from the binding at "))
        .collect();
    error.insert("notes".into(), serde_json::json!(notes));
    serde_json::json!({ "found": false, "error": error })
}
