//! ARM-8 "Request Sequence" up to the injector: `environments.pp` picks the request's
//! environment, the environment's resource (static, dynamic, or the implied `production`)
//! says where its files are, and exactly those files are loaded and checked.
//!
//! It owns environment selection and path resolution (`envdir`, `modulepath`, `manifestdir`,
//! `manifest`, `bindingsdir`). It must not compose bindings or evaluate categories: that is
//! [`crate::inject::Injector`]'s work, on the tree this module loads.

use super::LoadedTree;
use super::Request;
use crate::ast::{AttributeOp, ExprKind, Program, SiteItem};
use crate::diag::{codes, Diagnostic};
use crate::eval::{EvalError, Evaluator, NoInjection, TopScope, Value};
use crate::options::Options;
use crate::source::FileAccess;
use crate::span::{SourceMap, Span};
use crate::tree::{EnvironmentLayout, EnvironmentPaths};
use std::path::{Path, PathBuf};

/// The environment a request runs in.
#[derive(Clone, Debug)]
pub struct SelectedEnvironment {
    pub name: String,
    /// Who chose it: `--env`, `environments.pp`, `the ENC` or `the default`.
    pub from: &'static str,
    pub layout: EnvironmentLayout,
}

/// The request's top scope before any environment exists: facts as variables (except
/// `$environment`, which ARM-8 never takes from the agent), `$facts`, `$trusted`,
/// `$server_facts`.
pub(crate) fn top_scope(request: &Request) -> TopScope {
    let mut top = TopScope::default();
    for (k, v) in &request.facts {
        if k != "environment" {
            top.set(k.clone(), v.clone());
        }
    }
    let facts_hash: crate::eval::Map = request
        .facts
        .iter()
        .map(|(k, v)| (Value::String(k.clone()), v.clone()))
        .collect();
    top.set("facts", Value::hash(facts_hash));
    match &request.trusted {
        Some(t) => top.set("trusted", t.clone()),
        None => {
            if let Some(t) = local_trusted(request) {
                top.set("trusted", t);
            }
        }
    }
    // Empty unless given, as `puppet lookup` has it (a server's compile gives its own).
    top.set(
        "server_facts",
        request
            .server_facts
            .clone()
            .unwrap_or_else(|| Value::hash(crate::eval::Map::new())),
    );
    top
}

/// `$trusted` for a request whose facts do not give it, as `puppet lookup` makes it
/// (`TrustedInformation.local`): the certname is the `clientcert` fact (else `fqdn`, which
/// `--node` gives), split into `hostname` and `domain` at its first dot.
fn local_trusted(request: &Request) -> Option<Value> {
    let certname = request
        .facts
        .get("clientcert")
        .map(Value::to_display_string)
        .or_else(|| request.facts.get("fqdn").map(Value::to_display_string))?;
    let (hostname, domain) = match certname.split_once('.') {
        Some((h, d)) => (h.to_string(), d.to_string()),
        None => (certname.clone(), String::new()),
    };
    let entries = [
        ("authenticated", Value::string("local")),
        ("certname", Value::string(certname.as_str())),
        ("extensions", Value::hash(crate::eval::Map::new())),
        ("hostname", Value::string(hostname)),
        ("domain", Value::string(domain)),
        ("external", Value::hash(crate::eval::Map::new())),
    ];
    Some(Value::hash(
        entries
            .into_iter()
            .map(|(k, v)| (Value::string(k), v))
            .collect(),
    ))
}

/// Why a request's tree could not be prepared.
pub enum PrepareError {
    /// A file or directory that cannot be read.
    Io(std::io::Error),
    /// Errors to render with `files`; `summary` says what they stopped.
    Diagnostics {
        files: SourceMap,
        diagnostics: Vec<Diagnostic>,
        summary: Option<String>,
    },
}

/// Selects the request's environment from `confdir`'s `environments.pp` (if any) and loads that
/// environment's files, checked. A tree with errors stops here (only its errors are kept).
pub fn prepare(
    confdir: &Path,
    request: &Request,
    options: &Options,
) -> Result<(SelectedEnvironment, LoadedTree), PrepareError> {
    prepare_kept(confdir, request, None, options)
}

/// [`prepare`] with what the last load kept ([`super::load_request_files_kept`]).
pub fn prepare_kept(
    confdir: &Path,
    request: &Request,
    memo: Option<&mut super::CheckMemo>,
    options: &Options,
) -> Result<(SelectedEnvironment, LoadedTree), PrepareError> {
    let _listings = crate::source::ListingScope::begin();
    let environments = if confdir.join("environments.pp").is_file() {
        let loaded = super::load_environments_file(confdir, options).map_err(PrepareError::Io)?;
        if loaded.has_errors() {
            return Err(tree_errors(loaded, "environments.pp has errors"));
        }
        Some(loaded)
    } else {
        None
    };
    let program = environments.as_ref().and_then(|l| l.environments_program());
    let selected = match select(confdir, program, request, &options.files) {
        Ok(s) => s,
        Err(d) => {
            return Err(PrepareError::Diagnostics {
                files: environments.map(|l| l.check.files).unwrap_or_default(),
                diagnostics: vec![d],
                summary: None,
            })
        }
    };
    let files = selected.layout.files(options).map_err(PrepareError::Io)?;
    let loaded = super::load_request_files_kept(&files, Some(confdir), memo, options)
        .map_err(PrepareError::Io)?;
    if loaded.has_file_errors() {
        let summary = format!(
            "the environment `{}` has errors (see `pbc check`); nothing was looked up",
            selected.name
        );
        return Err(tree_errors(loaded, &summary));
    }
    Ok((selected, loaded))
}

fn tree_errors(loaded: LoadedTree, summary: &str) -> PrepareError {
    PrepareError::Diagnostics {
        diagnostics: loaded
            .check
            .diagnostics
            .into_iter()
            .filter(Diagnostic::is_error)
            .collect(),
        files: loaded.check.files,
        summary: Some(summary.to_string()),
    }
}

/// One `environment` or `dynamic_environments` resource, its title evaluated.
struct Declared<'p> {
    title: String,
    title_span: Span,
    ops: &'p [AttributeOp],
}

/// The environment resources of `environments.pp`, titles evaluated.
#[derive(Default)]
struct Declarations<'p> {
    /// `Environment { }`.
    defaults: &'p [AttributeOp],
    statics: Vec<Declared<'p>>,
    dynamic: Vec<Declared<'p>>,
}

/// What `--env`, `environments.pp` or the ENC chose, before the default.
struct Choice {
    name: Option<String>,
    from: &'static str,
    /// The `$environment` assignment, when environments.pp made the choice.
    span: Span,
}

/// ARM-8 "environments.pp": `--env` wins; otherwise `$environment` as `environments.pp` leaves
/// it (evaluated in a local scope with `$agent_environment`, `$confdir` and the ENC's data),
/// then the ENC's, then `production`. The name must be a static environment, a directory
/// under a dynamic environments root, or `production` (implied when neither declares it). The
/// environment's attributes are evaluated in the same scope, so they may use what the file
/// computed.
pub fn select(
    confdir: &Path,
    program: Option<&Program>,
    request: &Request,
    access: &FileAccess,
) -> Result<SelectedEnvironment, Diagnostic> {
    with_file(confdir, program, request, |ev, mut choice, declarations| {
        if choice.name.is_none() {
            choice.name = request.enc.as_ref().and_then(|e| e.environment.clone());
            choice.from = "the ENC";
        }
        let name = choice.name.unwrap_or_else(|| {
            choice.from = "the default";
            "production".to_string()
        });
        resolve(
            ev,
            confdir,
            declarations,
            &name,
            choice.from,
            choice.span,
            access,
        )
    })
}

/// An environment with its layout, or why it has none.
pub type Resolved = Result<SelectedEnvironment, Diagnostic>;

/// Every environment `environments.pp` makes available without a request (no facts), sorted:
/// its static ones, the directories under its dynamic roots, and `production`; each with its
/// files' layout or why it has none. `Err`: the file itself fails without a request.
pub fn all(
    confdir: &Path,
    program: &Program,
    access: &FileAccess,
) -> Result<Vec<(String, Resolved)>, Diagnostic> {
    with_file(
        confdir,
        Some(program),
        &Request::default(),
        |ev, _, declarations| {
            let (mut names, present) = known_names(declarations, confdir);
            names.extend(present);
            names.sort();
            names.dedup();
            Ok(names
                .into_iter()
                .map(|name| {
                    let resolved = resolve(
                        ev,
                        confdir,
                        declarations,
                        &name,
                        "--env",
                        Span::NONE,
                        access,
                    );
                    (name, resolved)
                })
                .collect())
        },
    )
}

fn in_file(e: EvalError) -> Diagnostic {
    let agent = e
        .notes
        .iter()
        .any(|n| n.contains("`$agent_environment` is undef"));
    let d = e
        .into_diagnostic()
        .with_note("note: while evaluating environments.pp");
    if agent {
        return d.with_note("note: `$agent_environment` is undef unless the agent asks for an environment (`pbc lookup --agent-environment NAME`); `pbc check` and `pbc compile` evaluate environments.pp as a request without one");
    }
    d
}

/// Evaluates `environments.pp` for `request` (everything but its `site` blocks, then its
/// environment titles) and hands `then` the evaluator, still in the file's scope, with what
/// the file chose and declared.
fn with_file<R>(
    confdir: &Path,
    program: Option<&Program>,
    request: &Request,
    then: impl FnOnce(&mut Evaluator, Choice, &Declarations) -> Result<R, Diagnostic>,
) -> Result<R, Diagnostic> {
    let mut local = top_scope(request);
    local.set("confdir", Value::string(confdir.to_string_lossy().as_ref()));
    local.set(
        "agent_environment",
        request
            .agent_environment
            .as_deref()
            .map_or(Value::Undef, Value::string),
    );
    // ARM-8 "Integration with existing ENC": its data is visible (and may be changed) while
    // environments.pp runs.
    if let Some(enc) = &request.enc {
        for (k, v) in enc.parameters.iter() {
            local.set(k.to_display_string(), v.clone());
        }
        let classes = enc.classes.iter().map(|(c, _)| Value::string(c.as_str()));
        local.set("classes", Value::array(classes.collect()));
        if let Some(e) = &enc.environment {
            local.set("environment", Value::string(e.as_str()));
        }
    }
    let mut host = NoInjection::default();
    let mut ev = Evaluator::new(&local, &mut host).strict(request.strict);

    let mut choice = Choice {
        name: request.environment.clone(),
        from: "--env",
        span: Span::NONE,
    };
    let mut declarations = Declarations::default();
    let Some(program) = program else {
        return then(&mut ev, choice, &declarations);
    };
    let mut assigned = Span::NONE;
    for statement in &program.body {
        if matches!(statement.kind, ExprKind::Site(_)) {
            continue;
        }
        ev.eval(statement).map_err(in_file)?;
        if let ExprKind::Assignment { target, .. } = &statement.kind {
            if matches!(&target.kind, ExprKind::Variable { name } if name == "environment") {
                assigned = statement.span;
            }
        }
    }
    if choice.name.is_none() {
        if let Ok(Value::String(s)) = ev.variable_value("environment") {
            let enc_env = request.enc.as_ref().and_then(|e| e.environment.as_deref());
            choice.from = if enc_env == Some(s.as_str()) {
                "the ENC"
            } else {
                "environments.pp"
            };
            // The assignment is where the name came from only when environments.pp chose it.
            if choice.from == "environments.pp" {
                choice.span = assigned;
            }
            choice.name = Some(s.to_string());
        }
    }
    for statement in &program.body {
        let ExprKind::Site(site) = &statement.kind else {
            continue;
        };
        for item in &site.items {
            match item {
                SiteItem::EnvironmentDefaults { ops, .. } => declarations.defaults = ops,
                SiteItem::Environment { bodies, .. } => {
                    for b in bodies {
                        let d = declared(&mut ev, &b.title, &b.ops).map_err(in_file)?;
                        declarations.statics.push(d);
                    }
                }
                SiteItem::DynamicEnvironments { bodies, .. } => {
                    for b in bodies {
                        let d = declared(&mut ev, &b.title, &b.ops).map_err(in_file)?;
                        declarations.dynamic.push(d);
                    }
                }
                _ => {}
            }
        }
    }
    then(&mut ev, choice, &declarations)
}

/// The environment `name` and where its files are: a static environment (its `envdir` must
/// exist), else a directory under a dynamic root, else the implied `production`. `span` is
/// where the name was chosen, for the error when it names nothing.
fn resolve(
    ev: &mut Evaluator,
    confdir: &Path,
    declarations: &Declarations,
    name: &str,
    from: &'static str,
    span: Span,
    access: &FileAccess,
) -> Result<SelectedEnvironment, Diagnostic> {
    let defaults = declarations.defaults;
    let found = |envdir: PathBuf,
                 (paths, mut spans): (EnvironmentPaths, AttributeSpans),
                 envdir_at: Span| {
        spans.envdir = envdir_at;
        let manifest_at = spans.manifest;
        let layout = EnvironmentLayout::resolve(confdir, &envdir, &paths);
        if access.confine {
            confined(&layout, &spans, name, confdir)?;
        }
        // The manifest is read and its lines shown in diagnostics: it must be Puppet code
        // (`manifest => '/proc/self/environ'` is not).
        let manifest = &layout.manifest;
        if manifest.exists() && !manifest.is_dir() && manifest.extension().is_none_or(|e| e != "pp")
        {
            return Err(Diagnostic::error(
                codes::ENVIRONMENT_PATH_TYPE,
                manifest_at,
                format!(
                    "the `manifest` of the environment `{name}` is `{}`, which is neither a `.pp` file nor a directory",
                    in_confdir(manifest, confdir)
                ),
            )
            .with_note("note: an environment's manifest is its `site.pp` (or a directory of `.pp` files); pbc does not read other files"));
        }
        Ok(SelectedEnvironment {
            name: name.to_string(),
            from,
            layout,
        })
    };
    if let Some(d) = declarations.statics.iter().find(|d| d.title == name) {
        let (envdir, envdir_span) =
            match path_attribute(ev, d.ops, defaults, "envdir").map_err(in_file)? {
                Some((dir, at)) => (confdir.join(dir), at),
                None => (confdir.to_path_buf(), d.title_span),
            };
        if !envdir.is_dir() {
            return Err(Diagnostic::error(
                codes::ENVDIR_NOT_FOUND,
                envdir_span,
                format!(
                    "the environment `{name}` has no directory: `{}` does not exist",
                    in_confdir(&envdir, confdir)
                ),
            )
            .with_note(
                "note: a static environment's files are under its `envdir` (`$confdir` unless set)",
            ));
        }
        let paths = environment_paths(ev, defaults, d.ops).map_err(in_file)?;
        return found(envdir, paths, envdir_span);
    }
    // A dynamic environment is a sub-directory of its root: one plain path component.
    let one_directory = matches!(
        Path::new(name).components().collect::<Vec<_>>()[..],
        [std::path::Component::Normal(_)]
    );
    for root in declarations.dynamic.iter().filter(|_| one_directory) {
        let envdir = confdir.join(&root.title).join(name);
        if envdir.is_dir() {
            let paths = environment_paths(ev, defaults, root.ops).map_err(in_file)?;
            return found(envdir, paths, root.title_span);
        }
    }
    if name == "production" {
        let (envdir, envdir_at) =
            match path_attribute(ev, &[], defaults, "envdir").map_err(in_file)? {
                Some((dir, at)) => (confdir.join(dir), at),
                None => (confdir.to_path_buf(), Span::NONE),
            };
        let paths = environment_paths(ev, defaults, &[]).map_err(in_file)?;
        return found(envdir, paths, envdir_at);
    }
    Err(unknown_environment(name, span, declarations, confdir))
}

/// A path relative to the tree (`$confdir/../shared`), so messages do not depend on where the
/// tree is checked out; an absolute path when they share nothing but the root.
fn from_confdir(path: &Path, confdir: &Path) -> String {
    let (p, c): (Vec<_>, Vec<_>) = (path.components().collect(), confdir.components().collect());
    let common = p.iter().zip(&c).take_while(|(a, b)| a == b).count();
    if common <= 1 {
        return path.display().to_string();
    }
    let mut out = String::from("$confdir");
    for _ in common..c.len() {
        out.push_str("/..");
    }
    for part in &p[common..] {
        out.push('/');
        out.push_str(&part.as_os_str().to_string_lossy());
    }
    out
}

/// A path as `$confdir/...` when it is inside the tree, so messages do not depend on where
/// the tree is checked out.
fn in_confdir(path: &Path, confdir: &Path) -> String {
    match path.strip_prefix(confdir) {
        Ok(rel) => format!("$confdir/{}", rel.to_string_lossy().replace('\\', "/")),
        Err(_) => path.to_string_lossy().into_owned(),
    }
}

fn declared<'p>(
    ev: &mut Evaluator,
    title: &crate::ast::Expr,
    ops: &'p [AttributeOp],
) -> Result<Declared<'p>, EvalError> {
    match ev.evaluate(title)? {
        Value::String(s) => Ok(Declared {
            title: s.to_string(),
            title_span: title.span,
            ops,
        }),
        other => Err(EvalError::type_error(
            title.span,
            format!(
                "an environment's title is a String, not {}",
                other.type_name()
            ),
        )),
    }
}

/// The path attributes an environment resource sets, its own over the `Environment` defaults.
/// Where each path attribute is set (`Span::NONE` when it is not: the default applies).
#[derive(Clone, Copy, Default)]
struct AttributeSpans {
    envdir: Span,
    modulepath: Span,
    manifestdir: Span,
    manifest: Span,
    bindingsdir: Span,
}

/// The environment's path attributes, and where each is set (for messages about them).
fn environment_paths(
    ev: &mut Evaluator,
    defaults: &[AttributeOp],
    own: &[AttributeOp],
) -> Result<(EnvironmentPaths, AttributeSpans), EvalError> {
    let mut get = |name: &str| path_attribute(ev, own, defaults, name);
    let manifest = get("manifest")?;
    let modulepath = get("modulepath")?;
    let manifestdir = get("manifestdir")?;
    let bindingsdir = get("bindingsdir")?;
    let at = |p: &Option<(String, Span)>| p.as_ref().map_or(Span::NONE, |(_, s)| *s);
    let spans = AttributeSpans {
        envdir: Span::NONE,
        modulepath: at(&modulepath),
        manifestdir: at(&manifestdir),
        manifest: at(&manifest),
        bindingsdir: at(&bindingsdir),
    };
    let paths = EnvironmentPaths {
        modulepath: modulepath.map(|(p, _)| p),
        manifestdir: manifestdir.map(|(p, _)| p),
        manifest: manifest.map(|(p, _)| p),
        bindingsdir: bindingsdir.map(|(p, _)| p),
    };
    Ok((paths, spans))
}

/// `--confine`: every path the environment reads stays in the tree (after `..` and links),
/// or the attribute that led out of it is an error.
fn confined(
    layout: &EnvironmentLayout,
    spans: &AttributeSpans,
    name: &str,
    confdir: &Path,
) -> Result<(), Diagnostic> {
    let root = std::fs::canonicalize(confdir).unwrap_or_else(|_| confdir.to_path_buf());
    let inside = |p: &Path| {
        let resolved = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        resolved.starts_with(&root)
    };
    // A path the environment does not set itself comes from `envdir`.
    let blame = |own: Span| if own == Span::NONE { spans.envdir } else { own };
    let checks = [
        ("envdir", &layout.envdir, spans.envdir),
        (
            "manifest",
            &layout.manifest,
            if spans.manifest == Span::NONE {
                blame(spans.manifestdir)
            } else {
                spans.manifest
            },
        ),
        ("bindingsdir", &layout.bindingsdir, blame(spans.bindingsdir)),
    ];
    let modulepath = layout
        .modulepath
        .iter()
        .map(|m| ("modulepath", m, blame(spans.modulepath)));
    for (attribute, path, at) in checks.into_iter().chain(modulepath) {
        if path.exists() && !inside(path) {
            return Err(Diagnostic::error(
                codes::PATH_OUTSIDE_TREE,
                at,
                format!(
                    "the `{attribute}` of the environment `{name}` leads out of the tree, to `{}`",
                    from_confdir(path, confdir)
                ),
            )
            .with_note("note: `--confine` keeps every file pbc reads inside the tree"));
        }
    }
    Ok(())
}

/// An attribute's path (with the span of its value), from `own` or else `defaults`. `undef`
/// and `default` leave it unset; an Array of Strings is a path list (`modulepath`).
fn path_attribute(
    ev: &mut Evaluator,
    own: &[AttributeOp],
    defaults: &[AttributeOp],
    name: &str,
) -> Result<Option<(String, Span)>, EvalError> {
    let Some(op) = own
        .iter()
        .rev()
        .chain(defaults.iter().rev())
        .find(|op| op.name == name)
    else {
        return Ok(None);
    };
    let path = match ev.evaluate(&op.value)? {
        Value::Undef | Value::Default => return Ok(None),
        Value::String(s) => s.to_string(),
        Value::Array(items) if name == "modulepath" => {
            let mut parts = Vec::with_capacity(items.len());
            for item in items.iter() {
                match item {
                    Value::String(s) => parts.push(s.to_string()),
                    other => return Err(path_type_error(op, other)),
                }
            }
            parts.join(":")
        }
        other => return Err(path_type_error(op, &other)),
    };
    Ok(Some((path, op.value.span)))
}

fn path_type_error(op: &AttributeOp, v: &Value) -> EvalError {
    EvalError::type_error(
        op.value.span,
        format!(
            "the environment attribute `{}` is a path (a String), not {}",
            op.name,
            v.type_name()
        ),
    )
}

/// The declared environments (with `production` when nothing declares it) and, apart, the
/// dynamic ones that exist (each root's sub-directories, sorted).
fn known_names(declarations: &Declarations, confdir: &Path) -> (Vec<String>, Vec<String>) {
    let mut present: Vec<String> = Vec::new();
    for root in &declarations.dynamic {
        if let Ok(entries) = std::fs::read_dir(confdir.join(&root.title)) {
            present.extend(
                entries
                    .filter_map(|e| e.ok())
                    .filter(|e| e.path().is_dir())
                    .map(|e| e.file_name().to_string_lossy().into_owned()),
            );
        }
    }
    present.sort();
    let mut known: Vec<String> = declarations
        .statics
        .iter()
        .map(|d| d.title.clone())
        .collect();
    if !known.iter().any(|k| k == "production") && !present.iter().any(|p| p == "production") {
        known.insert(0, "production".into());
    }
    (known, present)
}

fn unknown_environment(
    name: &str,
    span: Span,
    declarations: &Declarations,
    confdir: &Path,
) -> Diagnostic {
    let (mut known, present) = known_names(declarations, confdir);
    let mut d = Diagnostic::error(
        codes::UNKNOWN_ENVIRONMENT,
        span,
        format!("unknown environment `{name}`"),
    )
    .with_note(format!(
        "note: environments.pp declares {}{}",
        crate::diag::backticked(&known),
        if declarations.dynamic.is_empty() {
            String::new()
        } else if present.is_empty() {
            ", and dynamic environments under roots that have none".to_string()
        } else {
            format!("; dynamic ones: {}", crate::diag::backticked(&present))
        }
    ));
    known.extend(present);
    let names: Vec<&str> = known.iter().map(String::as_str).collect();
    if let Some(s) = crate::diag::did_you_mean(name, &names) {
        d = d.did_you_mean(name, s);
    }
    d
}
