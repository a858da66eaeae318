//! Loading: what a command reads before any rule or request runs. It owns reading a tree's
//! files (their roles come from [`crate::tree`]), parsing and checking them on all cores into a
//! [`LoadedTree`], `environments.pp` and the choice of a request's environment and its files
//! ([`environment`]), and the request itself: facts ([`facts`]) and an ENC's output ([`enc`]).
//! `pbc check` and `pbc compile` start here; the injector starts from what it returns.
//!
//! It must not compose bindings nor answer lookups (that is [`crate::inject`]), nor print:
//! callers render its reports.

mod compile;
pub mod enc;
pub mod environment;
pub mod facts;
mod hiera;
mod memo;
pub mod parse;

use crate::eval::Value;
use crate::options::Options;
use crate::parallel::parallel_map;
pub use crate::parser::{parse_file, Parsed};
use crate::{ast, diag, lower, reclaim, source, span, tree, validate};
use compile::compile_loaded;
pub use compile::{
    compile_sources, keep_text, CompileMode, CompileReport, JsonLayout, ModelSink, ModelWriter,
};
use hiera::{
    asks_for_hiera, read_global_hiera, read_hiera5_level, read_hiera_config, HieraData,
    HieraLevelRead, SiteCategories,
};
pub use memo::CheckMemo;
use smol_str::SmolStr;

/// Who is asking: the node's facts and what the command line adds.
#[derive(Clone, Debug, Default)]
pub struct Request {
    /// Fact name → value (a facts file's top-level keys, then `--fact`s).
    pub facts: indexmap::IndexMap<SmolStr, Value>,
    /// `$trusted`, when the facts file carries it.
    pub trusted: Option<Value>,
    /// `$server_facts`, when the facts file carries it (a Puppet server's compile does; `puppet
    /// lookup`'s is empty).
    pub server_facts: Option<Value>,
    /// `--agent-environment`: `$agent_environment` in `environments.pp`.
    pub agent_environment: Option<String>,
    /// `--env`: the environment, instead of what `environments.pp` picks.
    pub environment: Option<String>,
    /// Unknown variables are errors.
    pub strict: bool,
    /// `--enc`: what the node classifier said about the node.
    pub enc: Option<enc::Enc>,
    /// `--merge`: how Hiera 5 data merges, instead of what `lookup_options` says.
    pub merge: Option<crate::data::merge::Merge>,
    /// `--empty-level NAME`: Hiera levels pbc cannot search that the user says may be treated
    /// as holding nothing (D25); any other such level fails the lookups that reach it.
    pub empty_levels: Vec<String>,
    /// `--eyaml-private-key FILE`: the private key of every hiera-eyaml level, in place of the
    /// key files their `options` name.
    pub eyaml_private_key: Option<std::path::PathBuf>,
    /// `--show-decrypted`: explanations print the values decrypted from hiera-eyaml data too.
    pub show_decrypted: bool,
}

impl Request {
    /// A request with no facts yet, carrying what `options` say of lookups (the Hiera levels
    /// to take as empty, the hiera-eyaml key).
    pub fn new(options: &Options) -> Request {
        Request {
            empty_levels: options.empty_levels.clone(),
            eyaml_private_key: options.eyaml_private_key.clone(),
            ..Request::default()
        }
    }
}

/// Parses one file and, when it parsed, runs Puppet's parse-time validation on it: what
/// `pbc parse --validate` (and `puppet parser validate`) report. The program is kept even when
/// validation finds errors.
pub fn parse_and_validate(file: span::FileId, src: &str) -> Parsed {
    let mut parsed = parse_file(file, src);
    if let Some(program) = &parsed.program {
        parsed.diagnostics.extend(validate::check_program(program));
    }
    parsed
}

/// What `pbc check` found in a tree: every file's diagnostics, sorted by file and position.
#[derive(Default)]
pub struct CheckReport {
    pub files: span::SourceMap,
    pub diagnostics: Vec<diag::Diagnostic>,
    pub file_count: usize,
    /// The Hiera data files read (ARM-9's and Hiera 5's), in `files`, sorted.
    pub data_files: Vec<span::FileId>,
}

impl CheckReport {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(diag::Diagnostic::is_error)
    }
}

/// One file of a tree, read into memory.
pub struct SourceInput {
    /// The name diagnostics show.
    pub name: std::sync::Arc<str>,
    pub role: tree::FileRole,
    pub bytes: source::ReadBytes,
}

/// `pbc check PATHS`. One directory holding an `environments.pp` is a site: the rules across
/// files run once per environment over the files that environment reads, and every other
/// `.pp` below the directory gets its own rules. Anything else is checked as one tree.
pub fn check_paths(
    paths: &[std::path::PathBuf],
    options: &Options,
) -> std::io::Result<CheckReport> {
    check_paths_kept(paths, None, options)
}

/// [`check_paths`] with what the last check kept ([`CheckMemo`]): only the files that changed
/// since are parsed again. A check reports the same with a memo as without.
pub fn check_paths_kept(
    paths: &[std::path::PathBuf],
    mut memo: Option<&mut CheckMemo>,
    options: &Options,
) -> std::io::Result<CheckReport> {
    let report = check_paths_remembering(paths, memo.as_deref_mut(), options);
    if let Some(memo) = memo {
        memo.check_ended();
    }
    report
}

fn check_paths_remembering(
    paths: &[std::path::PathBuf],
    mut memo: Option<&mut CheckMemo>,
    options: &Options,
) -> std::io::Result<CheckReport> {
    let mut listings = Some(source::ListingScope::begin());
    if let [dir] = paths {
        if dir.join("environments.pp").is_file() {
            if let Some(report) = check_site(dir, &mut listings, memo.as_deref_mut(), options)? {
                return Ok(report);
            }
        }
    }
    let files = tree::discover(paths, options)?;
    // The walk is over: its listings are not held while the files are checked.
    drop(listings);
    let files: Vec<&tree::TreeFile> = files.iter().collect();
    Ok(check_sources_kept(
        read_inputs(&files, options)?,
        memo,
        options,
    ))
}

/// [`check_paths`] for a site. `None` when its environments.pp has errors: without it the
/// environments are unknown, and the directory is checked as one tree (which reports them).
/// `listings`: the command's directory listings, which it ends once its files are read.
fn check_site(
    dir: &std::path::Path,
    listings: &mut Option<source::ListingScope>,
    memo: Option<&mut CheckMemo>,
    options: &Options,
) -> std::io::Result<Option<CheckReport>> {
    let confdir = std::fs::canonicalize(dir)?;
    let alone = load_environments_file(&confdir, options)?;
    let Some(program) = alone.environments_program().filter(|_| !alone.has_errors()) else {
        return Ok(None);
    };
    let resolved = match environment::all(&confdir, program, &options.files) {
        Ok(resolved) => resolved,
        Err(d) => {
            // environments.pp fails for a request without facts or an agent's environment:
            // `pbc lookup` and `pbc compile` give the same error for such a request. Without
            // the environments, each file gets its own rules and nothing across files is
            // guessed.
            let discovered = tree::discover(&[dir.to_path_buf()], options)?;
            let files = read_inputs(&discovered.iter().collect::<Vec<_>>(), options)?;
            let mut analysed = analyse(files, Scope::EachFileAlone, None, None, options);
            let d = d.with_note(
                "note: without the environments each file was checked on its own; the rules across files did not run",
            );
            analysed
                .diagnostics
                .extend(moved_to(d, &alone, &analysed.files));
            diag::sort(&mut analysed.diagnostics);
            return Ok(Some(analysed.into_report(options)));
        }
    };
    // Per environment, its name and which of `layouts` it reads; findings about environments
    // that cannot be read.
    let mut environments: Vec<(String, usize)> = Vec::new();
    let mut unreadable: Vec<diag::Diagnostic> = Vec::new();
    // Each distinct layout: environments laid out alike (a site's static environments often
    // are) read the same files, walked and held once.
    let mut layouts: Vec<tree::EnvironmentLayout> = Vec::new();
    // Each layout's place in `layouts`: a search of the list per environment was quadratic in
    // a site of thousands of environments, each laid out on its own.
    let mut layout_index: foldhash::HashMap<tree::EnvironmentLayout, usize> =
        foldhash::HashMap::default();
    for (name, selected) in resolved {
        match selected {
            Ok(selected) => {
                let index = *layout_index
                    .entry(selected.layout.clone())
                    .or_insert_with(|| {
                        layouts.push(selected.layout);
                        layouts.len() - 1
                    });
                environments.push((name, index));
            }
            // A request can select it (`--env`), and would fail the same way.
            Err(d) => {
                unreadable
                    .push(d.with_note(format!("note: the environment `{name}` was not checked")));
            }
        }
    }
    drop(layout_index);
    let mut read_now = None;
    let site = site_files(dir, &layouts, &mut read_now, options)?;
    // Kept from an earlier check of the same disk: only the files it chose are read, each the
    // text the disk keeps of it (read again when it was forgotten, as a file saved since is)
    // unless an editor's buffer stands in for it.
    let read = read_now.unwrap_or_else(|| {
        source::read_identified_all(
            site.files.len(),
            |i| &site.files[i].path,
            "manifest",
            &options.files,
        )
        .into_iter()
        .map(|(_, bytes)| bytes)
        .collect()
    });
    // The walks are over: the analysis lists no directory.
    drop(listings.take());
    // The first file in that order that cannot be read is the error, as `read_inputs` says.
    // Sized at once: collected through a `Result`, the list grew by doubling, each time
    // copied to memory faulted in anew (an eighth of a keystroke's page faults in the
    // language server, whose allocator hands freed memory back at once).
    let mut inputs = Vec::with_capacity(site.files.len());
    for (f, bytes) in site.files.iter().zip(read) {
        inputs.push(SourceInput {
            name: f.display.clone(),
            role: f.role.clone(),
            bytes: bytes?,
        });
    }
    // The paths are not held beside the analysis, unless the disk keeps them.
    let (kept_site, layout_names);
    let layout_names: &[Vec<std::sync::Arc<str>>] = match std::sync::Arc::try_unwrap(site) {
        Ok(site) => {
            layout_names = site.layout_names;
            &layout_names
        }
        Err(kept) => {
            kept_site = kept;
            &kept_site.layout_names
        }
    };
    let groups: Vec<(String, &[std::sync::Arc<str>])> = environments
        .into_iter()
        .map(|(name, layout)| (name, layout_names[layout].as_slice()))
        .collect();
    let mut analysed = analyse(
        inputs,
        Scope::Environments(&groups),
        Some(Digest::CHECK),
        memo,
        options,
    );
    for d in unreadable {
        analysed
            .diagnostics
            .extend(moved_to(d.across_files(), &alone, &analysed.files));
    }
    diag::sort(&mut analysed.diagnostics);
    Ok(Some(analysed.into_report(options)))
}

/// What a site's check reads: every file once, whatever name it is reached by, in the order
/// of its identity; and each layout's files by name. Not their texts: kept, the walk outlives
/// a file saved in place, whose text the kept disk forgets alone.
#[derive(PartialEq)]
struct SiteFiles {
    files: Vec<tree::TreeFile>,
    layout_names: Vec<Vec<std::sync::Arc<str>>>,
}

/// The files of the site at `dir` whose environments are laid out as `layouts`. With a kept
/// disk (the language server's), what an earlier check of the same disk chose is kept, and
/// `read_now` stays `None`; otherwise every file is read to tell them apart, and `read_now`
/// holds what was read, by file of the result.
fn site_files(
    dir: &std::path::Path,
    layouts: &[tree::EnvironmentLayout],
    read_now: &mut Option<Vec<std::io::Result<source::ReadBytes>>>,
    options: &Options,
) -> std::io::Result<std::sync::Arc<SiteFiles>> {
    let key = || tree::walk_key(format!("site {dir:?} {layouts:?}"), options);
    source::kept_walk(&options.files, key, || {
        // Walked now, not kept apart: what this walk keeps is what a check uses, and kept
        // again on their own the two walks held every file's path twice more (3.7 MB for a
        // 10,000-file tree in the language server).
        let layout_files = layouts
            .iter()
            .map(|layout| layout.files_now(options))
            .collect::<std::io::Result<Vec<Vec<tree::TreeFile>>>>()?;
        let everything = tree::discover_now(&[dir.to_path_buf()], options)?;
        // A path met again (environments share their modules; the environments' paths are
        // below the canonical directory, the walk of `dir` may name the same files
        // `./modules/...`) is the same file: only distinct paths are read, on every core, each
        // file's identity taken from the file opened to read it (not from another `stat` of
        // its path), and only the first name of each file is kept.
        // Without a working directory, relative names are compared as they are.
        let cwd = std::env::current_dir().unwrap_or_default();
        let mut seen: foldhash::HashSet<std::borrow::Cow<std::ffi::OsStr>> =
            foldhash::HashSet::default();
        let distinct: Vec<&tree::TreeFile> = layout_files
            .iter()
            .flatten()
            .chain(&everything)
            .filter(|f| seen.insert(source::absolute_name(&f.path, &cwd)))
            .collect();
        drop(seen);
        let read = source::read_identified_all(
            distinct.len(),
            |i| &distinct[i].path,
            "manifest",
            &options.files,
        );
        // Every file once, whatever name it is reached by; an environment's role for it (its
        // layouts' files come first) wins over the one its path implies.
        let mut by_identity: std::collections::BTreeMap<
            source::FileIdentity,
            (&tree::TreeFile, std::io::Result<source::ReadBytes>),
        > = std::collections::BTreeMap::new();
        for (f, (identity, bytes)) in distinct.into_iter().zip(read) {
            let identity = identity.unwrap_or_else(|| source::file_identity(&f.path));
            by_identity.entry(identity).or_insert((f, bytes));
        }
        let (files, read): (Vec<tree::TreeFile>, Vec<_>) = by_identity
            .into_values()
            .map(|(f, bytes)| (f.clone(), bytes))
            .unzip();
        *read_now = Some(read);
        // Collected anew, not in place: a list collected in place keeps the room of the files
        // it was made from, five times what the names need, through the whole analysis.
        let layout_names = layout_files
            .into_iter()
            .map(|files| {
                let mut names = Vec::with_capacity(files.len());
                names.extend(files.into_iter().map(|f| f.display));
                names
            })
            .collect();
        Ok(std::sync::Arc::new(SiteFiles {
            files,
            layout_names,
        }))
    })
}

/// A finding on environments.pp as `alone` loaded it, pointed at the same file in `files`.
fn moved_to(
    mut d: diag::Diagnostic,
    alone: &LoadedTree,
    files: &span::SourceMap,
) -> Option<diag::Diagnostic> {
    let name = alone.check.files.name(span::FileId(0));
    let id = (0..files.len() as u32)
        .map(span::FileId)
        .find(|&id| files.name(id) == name)?;
    d.move_to_file(id);
    Some(d)
}

/// `confdir`'s environments.pp, loaded and checked on its own.
pub fn load_environments_file(
    confdir: &std::path::Path,
    options: &Options,
) -> std::io::Result<LoadedTree> {
    let path = confdir.join("environments.pp");
    let file = tree::TreeFile {
        display: tree::display(&path).into(),
        path: path.into(),
        role: tree::FileRole::Environments,
    };
    load_tree_files(&[file], Some(confdir), options)
}

/// `pbc compile DIR [--env NAME]`: a site (a directory with an `environments.pp`) compiles
/// one environment, `production` unless named, from exactly the files that environment reads,
/// as `pbc lookup` does. Without environments.pp the directory is one tree.
pub fn compile_dir(
    dir: &std::path::Path,
    environment: Option<&str>,
    layout: JsonLayout,
    sink: impl ModelSink,
    options: &Options,
) -> std::io::Result<CompileReport> {
    // The command's directory listings, ended once its files are known: a large tree's are
    // tens of megabytes, and nothing after the walk lists a directory twice.
    let listings = source::ListingScope::begin();
    let confdir = std::fs::canonicalize(dir)?;
    let has_file = confdir.join("environments.pp").is_file();
    if !has_file && environment.is_none() {
        let files = tree::discover(&[dir.to_path_buf()], options)?;
        drop(listings);
        let loaded =
            load_tree_files_judging(&files, Some(dir), CompileMode::Tree.judge(), options)?;
        // Read and named: the list of the tree's files is not held while the model is made.
        drop(files);
        return Ok(compile_loaded(
            loaded,
            CompileMode::Tree,
            layout,
            sink,
            options,
        ));
    }
    let alone = if has_file {
        let alone = load_environments_file(&confdir, options)?;
        if alone.has_errors() {
            return Ok(CompileReport::refused(alone.check, 0));
        }
        Some(alone)
    } else {
        None
    };
    let request = Request {
        environment: Some(environment.unwrap_or(tree::DEFAULT_ENVIRONMENT).to_string()),
        ..Request::new(options)
    };
    let program = alone.as_ref().and_then(|a| a.environments_program());
    match environment::select(&confdir, program, &request, &options.files) {
        Ok(selected) => {
            let files = selected.layout.files(options)?;
            drop(listings);
            let mut loaded = load_tree_files_judging(
                &files,
                Some(&confdir),
                CompileMode::Tree.judge(),
                options,
            )?;
            drop(files);
            loaded.environment = selected.name;
            Ok(compile_loaded(
                loaded,
                CompileMode::Tree,
                layout,
                sink,
                options,
            ))
        }
        Err(d) => {
            let mut check = alone.map(|a| a.check).unwrap_or_default();
            check.diagnostics.push(d);
            Ok(CompileReport::refused(check, 0))
        }
    }
}

/// Reads `files` on every core (reading many small files is mostly system calls), keeping
/// their order; the first file in that order that cannot be read is the error.
fn read_inputs(files: &[&tree::TreeFile], options: &Options) -> std::io::Result<Vec<SourceInput>> {
    read_inputs_again(files, options, None)
}

/// [`read_inputs`] of the files the read that left `again` read
/// ([`source::read_identified_all_again`]).
fn read_inputs_again(
    files: &[&tree::TreeFile],
    options: &Options,
    again: Option<&mut source::KeptReads>,
) -> std::io::Result<Vec<SourceInput>> {
    let read = source::read_identified_all_again(
        files.len(),
        |i| &files[i].path,
        "manifest",
        &options.files,
        again,
    );
    let read = read.into_iter().map(|(_, bytes)| bytes);
    // Sized at once: collected through a `Result`, the list grew by doubling (a copy and
    // fresh pages at each step, for every file of the language server's loads).
    let mut inputs = Vec::with_capacity(files.len());
    for (bytes, f) in read.into_iter().zip(files) {
        inputs.push(SourceInput {
            name: f.display.clone(),
            role: f.role.clone(),
            bytes: bytes?,
        });
    }
    Ok(inputs)
}

/// Reads every file of a tree and checks it ([`check_sources`]). An unreadable file is an I/O
/// error: the tree cannot be judged without it.
pub fn check_tree_files(
    tree_files: &[tree::TreeFile],
    options: &Options,
) -> std::io::Result<CheckReport> {
    let files: Vec<&tree::TreeFile> = tree_files.iter().collect();
    Ok(check_sources(read_inputs(&files, options)?, options))
}

/// Reads a tree's files and compiles them ([`compile_sources`]). In [`CompileMode::Tree`] the
/// model names files relative to `root`; otherwise as the diagnostics do.
pub fn compile_tree_files(
    tree_files: &[tree::TreeFile],
    root: Option<&std::path::Path>,
    mode: CompileMode,
    layout: JsonLayout,
    sink: impl ModelSink,
    options: &Options,
) -> std::io::Result<CompileReport> {
    Ok(compile_loaded(
        load_tree_files_judging(tree_files, root, mode.judge(), options)?,
        mode,
        layout,
        sink,
        options,
    ))
}

/// Reads a tree's files and checks them, keeping the programs for lowering ([`load_sources`]).
/// Origins are file names relative to `root` (as the diagnostics name them without one).
pub fn load_tree_files(
    tree_files: &[tree::TreeFile],
    root: Option<&std::path::Path>,
    options: &Options,
) -> std::io::Result<LoadedTree> {
    load_tree_files_judging(
        tree_files,
        root,
        validate::Composition::ForEveryRequest,
        options,
    )
}

/// [`load_tree_files`] for one request (`pbc lookup`): composition is left to the injector,
/// which reports it per key (D18).
pub fn load_request_files(
    tree_files: &[tree::TreeFile],
    root: Option<&std::path::Path>,
    options: &Options,
) -> std::io::Result<LoadedTree> {
    let inputs = read_inputs(&tree_files.iter().collect::<Vec<_>>(), options)?;
    Ok(load_request_inputs(inputs, tree_files, root, None, options))
}

/// [`load_request_files`] with what the last load kept ([`CheckMemo`], `pbc lsp`'s lookups):
/// only the files that changed since are parsed and lowered again. With a memo, bindings files
/// are lowered as they are parsed, for the injector ([`Detached::Evaluated`]), and only their
/// outlines kept; a load reports and answers the same with a memo as without.
///
/// [`Detached::Evaluated`]: crate::eval::code::Detached::Evaluated
pub fn load_request_files_kept(
    tree_files: &std::sync::Arc<Vec<tree::TreeFile>>,
    root: Option<&std::path::Path>,
    mut memo: Option<&mut CheckMemo>,
    options: &Options,
) -> std::io::Result<LoadedTree> {
    let listed: Vec<&tree::TreeFile> = tree_files.iter().collect();
    let inputs = match memo.as_deref_mut() {
        Some(memo) => read_inputs_again(&listed, options, Some(memo.kept_reads(tree_files))),
        None => read_inputs(&listed, options),
    }?;
    drop(listed);
    Ok(load_request_inputs(inputs, tree_files, root, memo, options))
}

/// [`load_request_files_kept`] of `tree_files` read as `inputs`.
fn load_request_inputs(
    inputs: Vec<SourceInput>,
    tree_files: &[tree::TreeFile],
    root: Option<&std::path::Path>,
    mut memo: Option<&mut CheckMemo>,
    options: &Options,
) -> LoadedTree {
    let origins = match memo.as_deref_mut() {
        Some(memo) => memo.origins_below(tree_files, root),
        None => origins_below(tree_files, root),
    };
    let loaded = load_judged_kept(
        inputs,
        origins,
        validate::Composition::LeftToTheInjector,
        memo.as_deref_mut(),
        options,
    );
    if let Some(memo) = memo {
        memo.check_ended();
    }
    loaded
}

fn load_tree_files_judging(
    tree_files: &[tree::TreeFile],
    root: Option<&std::path::Path>,
    judge: validate::Composition,
    options: &Options,
) -> std::io::Result<LoadedTree> {
    let inputs = read_inputs(&tree_files.iter().collect::<Vec<_>>(), options)?;
    let origins = origins_below(tree_files, root);
    Ok(load_judged_kept(inputs, origins, judge, None, options))
}

/// The names the model's origins give `tree_files`: relative to `root` (as the diagnostics
/// name them without one).
fn origins_below(
    tree_files: &[tree::TreeFile],
    root: Option<&std::path::Path>,
) -> Vec<lower::model::FileName> {
    tree_files.iter().map(|f| origin_below(f, root)).collect()
}

/// The name the model's origins give `file` (see [`origins_below`]).
fn origin_below(file: &tree::TreeFile, root: Option<&std::path::Path>) -> lower::model::FileName {
    match root.and_then(|r| crate::source::below(&file.path, r)) {
        Some(below) => below.to_string_lossy().replace('\\', "/").into(),
        None => file.display.as_ref().into(),
    }
}

/// Parses every file, runs Puppet's parse-time rules on each and the ARM-8 rules on the whole.
/// Files are parsed on all cores; the result does not depend on how work was shared out.
pub fn check_sources(inputs: Vec<SourceInput>, options: &Options) -> CheckReport {
    check_sources_kept(inputs, None, options)
}

fn check_sources_kept(
    inputs: Vec<SourceInput>,
    memo: Option<&mut CheckMemo>,
    options: &Options,
) -> CheckReport {
    let analysed = analyse(
        inputs,
        Scope::OneTree(validate::Composition::ForEveryRequestThenReport),
        Some(Digest::CHECK),
        memo,
        options,
    );
    analysed.into_report(options)
}

/// A checked tree with its programs: what lowering (for `pbc compile`) and the injector (for
/// `pbc lookup`) start from.
pub struct LoadedTree {
    pub check: CheckReport,
    parsed: Vec<(tree::FileRole, SharedProgram)>,
    /// By parsed file, the block of a bindings file `pbc compile` lowered while parsing it (its
    /// program keeps only an outline). Only a tree loaded for `pbc compile` has any; the
    /// lookups, which lower from the programs, load theirs whole.
    lowered: Vec<Option<LoweredBlock>>,
    /// The name the model records for each file, by file id (shared by every binding's origin).
    origins: Vec<lower::model::FileName>,
    /// The environment the files are (`production` unless one was selected): the model says so.
    pub environment: String,
    /// The Hiera 5 levels the files hold (D24), which their Hiera programs index.
    pub hiera: Vec<lower::model::hiera::HieraLevel>,
    /// Set when the check left the layers' composition to the model `pbc compile` writes.
    model_judgement: Option<validate::ModelJudgement>,
}

impl LoadedTree {
    pub fn has_errors(&self) -> bool {
        self.check.has_errors()
    }

    /// Errors other than composition errors (D18: those belong to a key and a request, and
    /// `pbc lookup` reports them per key).
    pub fn has_file_errors(&self) -> bool {
        self.check
            .diagnostics
            .iter()
            .any(|d| d.is_error() && !d.per_value && !crate::compose::is_per_key(d.code))
    }

    pub fn lower_inputs(&self) -> Vec<lower::LowerInput<'_>> {
        self.parsed
            .iter()
            .map(|(role, program)| lower::LowerInput { role, program })
            .collect()
    }

    /// The bindings files no layer includes, lowered on their own: `pbc lookup` names them for
    /// a key only they bind.
    pub fn unplaced_model(&self) -> lower::model::FilesDocument<crate::eval::code::Code<'_>> {
        let inputs = self.lower_inputs();
        let mut model = lower::compile_files(
            &self.check.files,
            &self.origins,
            &[],
            crate::eval::code::ForInjection,
        );
        for i in lower::unplaced_files(&inputs) {
            match self.lowered.get(i).and_then(Option::as_ref) {
                // Lowered while parsing (its program is only an outline): shared.
                Some(block) => model.bindings.push(block.clone()),
                None => model.bindings.extend(
                    lower::compile_files(
                        &self.check.files,
                        &self.origins,
                        &inputs[i..=i],
                        crate::eval::code::ForInjection,
                    )
                    .bindings,
                ),
            }
        }
        model
    }

    /// Whether the files declare a site (a `site { }` or a `binder_config.yaml`).
    pub fn has_site(&self) -> bool {
        site_items(&self.parsed).next().is_some()
    }

    /// The tree's `environments.pp`, if it has one.
    pub fn environments_program(&self) -> Option<&ast::Program> {
        self.parsed
            .iter()
            .find(|(role, _)| matches!(role, tree::FileRole::Environments))
            .map(|(_, p)| &**p)
    }

    /// The whole tree's model for the injector: the blocks lowered while parsing (shared with
    /// the load's memo, which keeps them for the next), the others lowered from their programs.
    pub fn injection_model(&self) -> lower::model::TreeDocument<crate::eval::code::Code<'_>> {
        let lowered = self.lowered.clone();
        let mut model = lower::compile_tree_from(
            &self.check.files,
            &self.origins,
            &self.lower_inputs(),
            lowered,
            crate::eval::code::ForInjection,
        );
        model.environment.clone_from(&self.environment);
        model.hiera.clone_from(&self.hiera);
        model
    }

    /// The whole tree's model, holding expressions as `embed` does, lowered from the
    /// programs: of a tree loaded without a memo (a kept tree's bindings files are outlines,
    /// their blocks lowered while parsing: [`LoadedTree::injection_model`]).
    pub fn tree_model<'a, E: lower::Embed<'a>>(
        &'a self,
        embed: E,
    ) -> lower::model::TreeDocument<E::X> {
        let mut model = lower::compile_tree(
            &self.check.files,
            &self.origins,
            &self.lower_inputs(),
            embed,
        );
        model.environment.clone_from(&self.environment);
        model.hiera.clone_from(&self.hiera);
        model
    }

    /// The tree's Hiera levels, taken out of it: for a model the tree gives once, which then
    /// holds them instead of a copy of every data file's values (a twentieth of a lookup on a
    /// control repository's data went into the copy). [`LoadedTree::tree_model`] gives none
    /// after.
    pub fn take_hiera(&mut self) -> Vec<lower::model::hiera::HieraLevel> {
        std::mem::take(&mut self.hiera)
    }
}

/// Checks the files ([`check_sources`]) and keeps their programs. `origins` are the file names
/// the model records, one per input.
pub fn load_sources(
    inputs: Vec<SourceInput>,
    origins: Vec<String>,
    options: &Options,
) -> LoadedTree {
    load_judged(
        inputs,
        origins,
        validate::Composition::ForEveryRequest,
        options,
    )
}

/// [`load_judged_kept`] without a memo, of files named by strings (the library's callers').
fn load_judged(
    inputs: Vec<SourceInput>,
    origins: Vec<String>,
    judge: validate::Composition,
    options: &Options,
) -> LoadedTree {
    let origins = origins
        .into_iter()
        .map(lower::model::FileName::from)
        .collect();
    load_judged_kept(inputs, origins, judge, None, options)
}

/// [`load_judged`] with what the last load kept (see [`load_request_files_kept`]).
fn load_judged_kept(
    inputs: Vec<SourceInput>,
    origins: Vec<lower::model::FileName>,
    judge: validate::Composition,
    memo: Option<&mut CheckMemo>,
    options: &Options,
) -> LoadedTree {
    // In name order, as `analyse` will take them, so that origins stay with their files. A
    // walk's files come so already: paired, sorted and parted again, every file of a language
    // server's load was moved twice more.
    let in_order = inputs.len() == origins.len() && inputs.is_sorted_by(|a, b| a.name <= b.name);
    let (inputs, origins) = if in_order {
        (inputs, origins)
    } else {
        let mut paired: Vec<(SourceInput, lower::model::FileName)> =
            inputs.into_iter().zip(origins).collect();
        paired.sort_by(|a, b| a.0.name.cmp(&b.0.name));
        paired.into_iter().unzip()
    };
    // A compiled tree's bindings files are lowered as they are parsed, spelled for the model
    // written; a kept tree's for the injector, so that the memo keeps them and not their
    // programs. Their origins are named by id (which follow input order) as the model names
    // them.
    let blocks = if judge == validate::Composition::OnTheWrittenModel {
        Some(crate::eval::code::Detached::Written)
    } else {
        memo.is_some()
            .then_some(crate::eval::code::Detached::Evaluated)
    };
    let names: Vec<lower::model::FileName> = if blocks.is_some() {
        origins.clone()
    } else {
        Vec::new()
    };
    let digest = blocks.map(|blocks| Digest {
        origins: &names,
        blocks,
    });
    let analysed = analyse(inputs, Scope::OneTree(judge), digest, memo, options);
    // Origins by file id: ids follow input order. The names the blocks lowered while parsing
    // hold are these, shared, not made again.
    let mut by_id = vec![lower::model::FileName::default(); analysed.files.len()];
    for (id, origin) in analysed.ids.iter().zip(origins) {
        if let Some(slot) = by_id.get_mut(id.0 as usize) {
            *slot = origin;
        }
    }
    // A data file is named from its `hiera.yaml`'s directory.
    for (id, config, rel) in &analysed.data_files {
        let config_origin = by_id.get(config.0 as usize).cloned().unwrap_or_default();
        let origin = match config_origin.rsplit_once('/') {
            Some((dir, _)) => format!("{dir}/{rel}"),
            None => rel.clone(),
        };
        if let Some(slot) = by_id.get_mut(id.0 as usize) {
            *slot = origin.into();
        }
    }
    // A Hiera 5 level's data file is named from its `hiera.yaml`'s directory too.
    for (level, config, ids) in &analysed.hiera {
        let config_origin = by_id.get(config.0 as usize).cloned().unwrap_or_default();
        for (file, id) in level.files.iter().zip(ids) {
            let origin = match config_origin.rsplit_once('/') {
                Some((dir, _)) => format!("{dir}/{}", file.path),
                None => file.path.clone(),
            };
            if let Some(slot) = by_id.get_mut(id.0 as usize) {
                *slot = origin.into();
            }
        }
    }
    let name = |id: span::FileId| by_id.get(id.0 as usize).cloned().unwrap_or_default();
    let data_files = data_files_read(&analysed.data_files, &analysed.hiera);
    let hiera = analysed
        .hiera
        .into_iter()
        .map(|(mut level, config, ids)| {
            level.config = name(config).to_string();
            for entry in level
                .hierarchy
                .iter_mut()
                .chain(level.default_hierarchy.iter_mut())
            {
                entry.origin.file = name(config);
            }
            for (file, id) in level.files.iter_mut().zip(ids) {
                file.file = name(id).to_string();
            }
            level
        })
        .collect();
    LoadedTree {
        check: CheckReport {
            files: analysed.files,
            diagnostics: analysed.diagnostics,
            file_count: analysed.file_count,
            data_files,
        },
        parsed: analysed.parsed,
        lowered: analysed.lowered,
        origins: by_id,
        environment: tree::DEFAULT_ENVIRONMENT.to_string(),
        hiera,
        model_judgement: analysed.model_judgement,
    }
}

/// A `binder_config.yaml` as the `site { }` it stands for (D19), without what a site of the tree
/// already declares: declaring categories (or layers) in both is `BINDER_CONFIG_CONFLICT`.
fn read_binder_config(
    files: &span::SourceMap,
    id: span::FileId,
    parsed: &[(tree::FileRole, SharedProgram)],
    out: &mut Vec<diag::Diagnostic>,
) -> Option<ast::Program> {
    let (program, _, found) = crate::data::binder_config::read(id, files.source(id));
    out.extend(found);
    let mut program = program?;
    let mut declared: Vec<(&'static str, span::Span)> = Vec::new();
    for item in site_items(parsed) {
        match item {
            ast::SiteItem::Categories { span, .. } => declared.push(("categories", *span)),
            ast::SiteItem::Layers { span, .. } => declared.push(("layers", *span)),
            _ => {}
        }
    }
    if let Some(ast::ExprKind::Site(site)) = program.body.first_mut().map(|e| &mut e.kind) {
        site.items.retain(|item| {
            let (what, at) = match item {
                ast::SiteItem::Categories { span, .. } => ("categories", *span),
                ast::SiteItem::Layers { span, .. } => ("layers", *span),
                _ => return true,
            };
            let Some((_, site_span)) = declared.iter().find(|(w, _)| *w == what) else {
                return true;
            };
            out.push(
                diag::Diagnostic::error(
                    diag::codes::BINDER_CONFIG_CONFLICT,
                    at,
                    format!("this binder_config.yaml declares {what}, and so does the site"),
                )
                .with_label(*site_span, format!("the site's {what}"))
                .with_note(format!(
                    "help: declare the {what} in one place; the site's are used"
                ))
                .across_files(),
            );
            false
        });
    }
    Some(program)
}

/// Every item of every `site { }` of the tree's files.
fn site_items(parsed: &[(tree::FileRole, SharedProgram)]) -> impl Iterator<Item = &ast::SiteItem> {
    parsed
        .iter()
        .flat_map(|(_, p)| p.body.iter())
        .filter_map(|e| match &e.kind {
            ast::ExprKind::Site(site) => Some(site.items.iter()),
            _ => None,
        })
        .flatten()
}

/// The categories the sites of the tree's files declare, in order.
fn site_category_entries(
    parsed: &[(tree::FileRole, SharedProgram)],
) -> impl Iterator<Item = &ast::Category> {
    site_items(parsed).flat_map(|item| match item {
        ast::SiteItem::Categories { entries, .. } => entries.as_slice(),
        _ => &[],
    })
}

/// The categories the tree's site declares, highest first, as the request will have them:
/// `node` first and `environment`, `common` last when the site leaves them out; ARM-9's
/// defaults when it declares none (D10).
fn site_categories(entries: &[&ast::Category]) -> Vec<String> {
    category_precedence(entries.iter().map(|c| c.name.to_string()).collect())
}

/// The categories of a request, highest precedence first, for a site that declares
/// `declared` (in its order; none: D10's defaults): `node` first when missing, `environment`
/// where declared or else just above `common`, `common` last (D8/D10).
pub fn category_precedence(mut declared: Vec<String>) -> Vec<String> {
    if declared.is_empty() {
        declared = lower::DEFAULT_CATEGORIES.map(String::from).to_vec();
    }
    let mut out = Vec::with_capacity(declared.len() + 3);
    if !declared.iter().any(|c| c == "node") {
        out.push("node".to_string());
    }
    // ARM-8: `environment` keeps the rank the site declares; only a missing one is added just
    // above `common`.
    let environment_declared = declared.iter().any(|c| c == "environment");
    out.extend(declared.into_iter().filter(|c| c != "common"));
    if !environment_declared {
        out.push("environment".into());
    }
    out.push("common".into());
    out
}

/// For each category whose value is one fact (`$::osfamily`, `"${osfamily}"`,
/// `$facts['osfamily']`), that fact; D10's defaults when the site declares no categories.
fn category_facts(entries: &[&ast::Category]) -> Vec<(String, String)> {
    let declared = !entries.is_empty();
    let mut out: Vec<(String, String)> = entries
        .iter()
        .filter_map(|c| Some((c.name.to_string(), fact_of_expr(&c.value)?)))
        .collect();
    if !declared {
        out.extend(lower::DEFAULT_CATEGORIES.map(|c| (c.to_string(), c.to_string())));
    }
    // D8: a site without `node` gets it as `$::fqdn`.
    if !entries.iter().any(|c| c.name == "node") {
        out.push(("node".into(), "fqdn".into()));
    }
    out
}

/// The fact an expression reads when it is nothing but that fact.
pub fn fact_of_expr(e: &ast::Expr) -> Option<String> {
    use ast::ExprKind;
    match &e.kind {
        ExprKind::Variable { name } => Some(name.trim_start_matches("::").to_string()),
        ExprKind::Concat { segments } if segments.len() == 1 => fact_of_expr(&segments[0]),
        ExprKind::Text { expr } => fact_of_expr(expr),
        ExprKind::Access { target, keys } if keys.len() == 1 => {
            match (&target.kind, &keys[0].kind) {
                (ExprKind::Variable { name }, ExprKind::String { value })
                    if name.trim_start_matches("::") == "facts" =>
                {
                    Some(value.to_string())
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The fact a hierarchy entry's value names when it is nothing but that fact (`${osfamily}`,
/// `$::osfamily`).
fn fact_of_text(value: &str) -> Option<String> {
    let name = value
        .strip_prefix("${")
        .and_then(|v| v.strip_suffix('}'))
        .or_else(|| value.strip_prefix('$'))?;
    let name = name.trim_start_matches("::");
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| name.to_string())
}

/// The ids of the data files read for ARM-9's `hiera.yaml` files and Hiera 5's levels.
fn data_files_read(
    data_files: &[(span::FileId, span::FileId, String)],
    hiera: &[HieraLevelRead],
) -> Vec<span::FileId> {
    let mut ids: Vec<span::FileId> = data_files.iter().map(|(id, _, _)| *id).collect();
    ids.extend(hiera.iter().flat_map(|(_, _, ids)| ids.iter().copied()));
    ids.sort_unstable();
    ids.dedup();
    ids
}

impl Analysed {
    /// The findings; the programs are no longer needed.
    fn into_report(self, options: &Options) -> CheckReport {
        let Analysed {
            files,
            ids,
            diagnostics,
            parsed,
            file_count,
            data_files,
            hiera,
            lowered,
            model_judgement: _,
        } = self;
        let read = data_files_read(&data_files, &hiera);
        reclaim::release((ids, parsed, lowered, data_files, hiera), options);
        CheckReport {
            files,
            diagnostics,
            file_count,
            data_files: read,
        }
    }
}

/// Every file parsed and checked, with the programs kept for lowering.
struct Analysed {
    files: span::SourceMap,
    /// The file id of each input, in input order.
    ids: Vec<span::FileId>,
    diagnostics: Vec<diag::Diagnostic>,
    parsed: Vec<(tree::FileRole, SharedProgram)>,
    /// By parsed file, its bindings block when the parse digested it ([`Digest`]).
    lowered: Vec<Option<LoweredBlock>>,
    file_count: usize,
    /// The data files read for `hiera.yaml` files: (data file, its `hiera.yaml`, its path
    /// relative to that file's directory).
    data_files: Vec<(span::FileId, span::FileId, String)>,
    hiera: Vec<HieraLevelRead>,
    /// What the judgement of the written model needs ([`validate::Composition::OnTheWrittenModel`]).
    model_judgement: Option<validate::ModelJudgement>,
}

/// Which files the rules across files see together.
enum Scope<'e> {
    /// All of them: one tree.
    OneTree(validate::Composition),
    /// Each environment's (its name and the names of the files it reads); files no environment
    /// reads get only their own rules.
    Environments(&'e [(String, &'e [std::sync::Arc<str>])]),
    /// None: the environments are unknown, each file gets only its own rules.
    EachFileAlone,
}

/// Files are taken in name order, whatever order they come in: everything after (layer
/// composition, which of two conflicting bindings is reported first) follows that order.
fn analyse(
    mut inputs: Vec<SourceInput>,
    scope: Scope,
    digest: Option<Digest>,
    mut memo: Option<&mut CheckMemo>,
    options: &Options,
) -> Analysed {
    inputs.sort_by(|a, b| a.name.cmp(&b.name));
    let file_count = inputs.len();
    let mut files = span::SourceMap::with_capacity(inputs.len());
    let mut diagnostics = Vec::new();
    let mut jobs = Vec::with_capacity(inputs.len());
    let mut ids = Vec::with_capacity(inputs.len());
    // Bindings files that cannot be read as Puppet: the rules across files take what they
    // bind as unknown.
    let mut broken: Vec<(span::FileId, tree::FileRole)> = Vec::new();
    // `hiera.yaml` files (ARM-9 data): read once the site's categories are known.
    let mut hiera_configs: Vec<(span::FileId, Option<String>, String)> = Vec::new();
    let mut global_hiera: Vec<span::FileId> = Vec::new();
    let mut data_providers: Vec<(span::FileId, Option<String>)> = Vec::new();
    // `binder_config.yaml`: read once the site's own declarations are known.
    let mut binder_configs: Vec<span::FileId> = Vec::new();
    for input in inputs {
        let (id, bad) = source::add_source(&mut files, input.name, input.bytes);
        ids.push(id);
        match bad {
            Some(d) => {
                diagnostics.push(d);
                if matches!(input.role, tree::FileRole::Bindings { .. }) {
                    broken.push((id, input.role));
                }
            }
            None => match input.role {
                tree::FileRole::HieraConfig { module, dir } => {
                    hiera_configs.push((id, module, dir))
                }
                tree::FileRole::BinderConfig => binder_configs.push(id),
                tree::FileRole::GlobalHieraConfig => global_hiera.push(id),
                tree::FileRole::DataProvider { module } => data_providers.push((id, module)),
                role => jobs.push((id, role)),
            },
        }
    }
    let results = match memo.as_deref_mut() {
        Some(memo) => memo.parse_all(&files, &jobs, digest),
        None => parse_all(&files, &jobs, digest),
    };
    let mut parsed = Vec::with_capacity(results.len());
    let mut parsed_ids = Vec::with_capacity(results.len());
    // By parsed file, what its parse already made of it (with a `Digest`), taken apart here:
    // a list of both, then unzipped, was one more list of every file at the peak.
    let mut judged: Vec<Option<validate::SharedJudgement>> = Vec::with_capacity(results.len());
    let mut lowered: Vec<Option<LoweredBlock>> = Vec::with_capacity(results.len());
    for ((id, role), (result, digest)) in jobs.into_iter().zip(results) {
        diagnostics.extend(result.diagnostics);
        match result.program {
            Some(program) => {
                parsed.push((role, program));
                parsed_ids.push(id);
                let (judgement, block) = match digest {
                    Some(d) => (Some(d.judgement), d.lowered),
                    None => (None, None),
                };
                judged.push(judgement);
                lowered.push(block);
            }
            None if matches!(role, tree::FileRole::Bindings { .. }) => broken.push((id, role)),
            None => {}
        }
    }
    note_unknown_bindings(&broken, &mut diagnostics);
    for id in binder_configs {
        if let Some(program) = read_binder_config(&files, id, &parsed, &mut diagnostics) {
            parsed.push((tree::FileRole::Manifest, program.into()));
            parsed_ids.push(id);
        }
    }
    // Taken from the programs once: each pass over a large tree's programs reads 10,000 of
    // them from memory.
    let entries: Vec<&ast::Category> = site_category_entries(&parsed).collect();
    let categories = site_categories(&entries);
    let facts = category_facts(&entries);
    drop(entries);
    let site = SiteCategories {
        names: &categories,
        facts: &facts,
    };
    let mut data = HieraData::default();
    for &id in &global_hiera {
        read_global_hiera(&mut files, id, &mut data, &options.files);
    }
    for (id, module, dir) in &hiera_configs {
        read_hiera_config(
            &mut files,
            *id,
            module.as_deref(),
            dir,
            &site,
            &mut data,
            &options.files,
        );
    }
    // A directory without a `hiera.yaml` whose data provider is `hiera` gets the default one.
    for (id, module) in &data_providers {
        let has_config = hiera_configs
            .iter()
            .any(|(_, m, dir)| m == module && dir.is_empty());
        if !has_config && asks_for_hiera(files.name(*id), files.source(*id)) {
            let config = crate::data::hiera5::Config::puppet_default();
            read_hiera5_level(
                &mut files,
                *id,
                module.as_deref(),
                "",
                &config,
                &mut data,
                &options.files,
            );
        }
    }
    diagnostics.append(&mut data.diagnostics);
    // Data no layer reads stops nothing: its errors become warnings that say so.
    if !data.unreadable.is_empty() {
        let inputs: Vec<lower::LowerInput> = parsed
            .iter()
            .map(|(role, program)| lower::LowerInput { role, program })
            .collect();
        let levels: Vec<(Option<&str>, &str)> = data
            .unreadable
            .iter()
            .map(|(module, dir, _)| (module.as_deref(), dir.as_str()))
            .collect();
        let placed = lower::hiera_levels_placed(&inputs, &levels);
        for ((_, _, problems), placed) in data.unreadable.drain(..).zip(placed) {
            diagnostics.extend(problems.into_iter().map(|d| {
                if placed || !d.is_error() {
                    d
                } else {
                    let mut d = d.with_note(
                        "note: no layer of the site reads this data (no include names it, or an `exclude` leaves it out), so it stops nothing",
                    );
                    d.severity = diag::Severity::Warning;
                    d
                }
            }));
        }
    }
    let file_count = file_count + data.read;
    let mut data_files = Vec::with_capacity(data.programs.len());
    for (id, config, rel, role, program) in data.programs {
        parsed.push((role, program.into()));
        parsed_ids.push(id);
        data_files.push((id, config, rel));
    }
    diagnostics.extend(skipped_links());
    judged.resize_with(parsed.len(), || None);
    lowered.resize_with(parsed.len(), || None);
    let mut model_judgement = None;
    let configured: Vec<(Option<&str>, &str)> = hiera_configs
        .iter()
        .map(|(_, module, dir)| (module.as_deref(), dir.as_str()))
        .collect();
    let tree_input = |i: usize| validate::TreeInput {
        id: parsed_ids[i],
        role: &parsed[i].0,
        program: &parsed[i].1,
        lowered: lowered[i].as_deref(),
    };
    match scope {
        Scope::OneTree(judge) => {
            let all: Vec<validate::TreeInput> = (0..parsed.len()).map(tree_input).collect();
            let unknown: Vec<(span::FileId, &tree::FileRole)> =
                broken.iter().map(|(id, role)| (*id, role)).collect();
            let memo = memo.as_deref_mut().map(|m| m.judgement(""));
            let (found, judgement) = validate::check_tree_judging(
                &files,
                &all,
                judged,
                &unknown,
                &configured,
                judge,
                options,
                memo,
            );
            diagnostics.extend(found);
            model_judgement = judgement;
        }
        Scope::EachFileAlone => {
            let all: Vec<validate::TreeInput> = (0..parsed.len()).map(tree_input).collect();
            diagnostics.extend(validate::check_each_file(&all, judged));
        }
        Scope::Environments(environments) => {
            let mut judged = judged;
            let mut read = vec![false; parsed.len()];
            let mut found: Vec<(diag::Diagnostic, &str)> = Vec::new();
            // Files by name, once: an environment's members are looked up, not searched for
            // (thousands of environments over thousands of files stay linear).
            let parsed_by_name: foldhash::HashMap<&str, usize> = (0..parsed.len())
                .map(|i| (files.name(parsed_ids[i]), i))
                .collect();
            let broken_by_name: foldhash::HashMap<&str, (span::FileId, &tree::FileRole)> = broken
                .iter()
                .map(|(id, role)| (files.name(*id), (*id, role)))
                .collect();
            // A data file is read by the environments that read its `hiera.yaml`.
            let mut data_by_config: foldhash::HashMap<&str, Vec<usize>> =
                foldhash::HashMap::default();
            for (id, config, _) in &data_files {
                if let Some(&i) = parsed_by_name.get(files.name(*id)) {
                    data_by_config
                        .entry(files.name(*config))
                        .or_default()
                        .push(i);
                }
            }
            // The rules see only the files: environments that read the same ones (a site's
            // environments often share their modules) are judged once. Per environment, which
            // distinct judgement it gets (its files and the names of those that did not
            // parse), known before any runs, so that the last one to run is known too.
            let mut numbered: foldhash::HashMap<(Vec<usize>, Vec<&str>), usize> =
                foldhash::HashMap::default();
            let judgement_of: Vec<usize> = environments
                .iter()
                .map(|(_, names)| {
                    let mut members: Vec<usize> = names
                        .iter()
                        .filter_map(|n| parsed_by_name.get(&**n).copied())
                        .chain(
                            names
                                .iter()
                                .filter_map(|n| data_by_config.get(&**n))
                                .flatten()
                                .copied(),
                        )
                        .collect();
                    // In file order, as the one-tree check takes them.
                    members.sort_unstable();
                    members.dedup();
                    for &i in &members {
                        read[i] = true;
                    }
                    let broken_names: Vec<&str> = names
                        .iter()
                        .map(|n| &**n)
                        .filter(|n| broken_by_name.contains_key(n))
                        .collect();
                    let next = numbered.len();
                    *numbered.entry((members, broken_names)).or_insert(next)
                })
                .collect();
            let mut judgements: Vec<Option<(Vec<usize>, Vec<&str>)>> = vec![None; numbered.len()];
            for (judgement, number) in numbered {
                judgements[number] = Some(judgement);
            }
            // How many judgements still read each file: the last takes its own rules' facts,
            // the others a copy.
            let mut readers = vec![0u32; parsed.len()];
            for (members, _) in judgements.iter().flatten() {
                for &i in members {
                    readers[i] += 1;
                }
            }
            let mut findings_of: Vec<Option<Vec<diag::Diagnostic>>> = vec![None; judgements.len()];
            for ((environment, _), &number) in environments.iter().zip(&judgement_of) {
                if let Some((members, broken_names)) = judgements[number].take() {
                    let inputs: Vec<validate::TreeInput> =
                        members.iter().map(|&i| tree_input(i)).collect();
                    let unknown: Vec<(span::FileId, &tree::FileRole)> = broken_names
                        .iter()
                        .filter_map(|n| broken_by_name.get(n).copied())
                        .collect();
                    // After the last judgement come only the rules of files no environment
                    // reads, and the report.
                    let judge = if number + 1 == judgements.len() {
                        validate::Composition::ForEveryRequestThenReport
                    } else {
                        validate::Composition::ForEveryRequest
                    };
                    // A file two judgements read was judged on its own once, while parsed.
                    let judged_here = members
                        .iter()
                        .map(|&i| {
                            readers[i] -= 1;
                            if readers[i] == 0 {
                                judged[i].take()
                            } else {
                                judged[i].clone()
                            }
                        })
                        .collect();
                    let memo = memo.as_deref_mut().map(|m| m.judgement(environment));
                    findings_of[number] = Some(validate::check_tree(
                        &files,
                        &inputs,
                        judged_here,
                        &unknown,
                        &configured,
                        judge,
                        options,
                        memo,
                    ));
                }
                let findings = findings_of[number].clone().unwrap_or_default();
                found.extend(findings.into_iter().map(|d| (d, environment.as_str())));
            }
            diagnostics.extend(naming_environments(found, environments.len()));
            let unread: Vec<usize> = (0..parsed.len()).filter(|&i| !read[i]).collect();
            let inputs: Vec<validate::TreeInput> = unread.iter().map(|&i| tree_input(i)).collect();
            let judged_here = unread.iter().map(|&i| judged[i].take()).collect();
            diagnostics.extend(validate::check_each_file(&inputs, judged_here));
            for i in unread {
                if parsed[i].0 != tree::FileRole::Environments {
                    diagnostics
                        .push(not_in_any_environment(parsed_ids[i], &parsed[i].1).across_files());
                }
            }
        }
    }
    diag::sort(&mut diagnostics);
    Analysed {
        files,
        ids,
        diagnostics,
        parsed,
        lowered,
        file_count,
        data_files,
        hiera: data.hiera,
        model_judgement,
    }
}

/// The links the walks that found these files did not follow, as warnings.
fn skipped_links() -> Vec<diag::Diagnostic> {
    let too_long = source::take_too_long().into_iter().map(|(within, name)| {
        let shown = name.to_string_lossy();
        let shown = if shown.chars().count() > 60 {
            format!("{}...", shown.chars().take(60).collect::<String>())
        } else {
            shown.into_owned()
        };
        diag::Diagnostic::error(
            diag::codes::PATH_TOO_LONG,
            span::Span::NONE,
            format!(
                "the directory `{shown}` in `{}` is not read: its path is longer than the system allows ({} bytes)",
                tree::display(&within),
                within.join(&name).as_os_str().len()
            ),
        )
        .with_note("help: move what it holds to a shorter path; everything else in the tree was read")
    });
    let mut out: Vec<diag::Diagnostic> = too_long.collect();
    out.extend(
        source::take_skipped_links()
            .into_iter()
            .map(|(link, target)| {
                diag::Diagnostic::warning(
                diag::codes::SYMLINK_NOT_FOLLOWED,
                span::Span::NONE,
                format!(
                    "`{}` is a link to `{}`, outside the tree: it is not read",
                    tree::display(&link),
                    target.display()
                ),
            )
            .with_note(
                "help: `--follow-symlinks` follows links wherever they lead (for trees you trust)",
            )
            }),
    );
    out
}

/// One note per bindings file that could not be read, on its first error: the rules across
/// files did not judge what it might bind.
fn note_unknown_bindings(
    broken: &[(span::FileId, tree::FileRole)],
    diagnostics: &mut [diag::Diagnostic],
) {
    for (id, _) in broken {
        let first = diagnostics
            .iter_mut()
            .filter(|d| d.span.file == *id && d.is_error())
            .min_by_key(|d| (d.span.start, d.span.end));
        if let Some(d) = first {
            d.notes.push(
                "note: until this file parses, what it binds is unknown: the rules across files report nothing it could change".into(),
            );
        }
    }
}

/// Each distinct finding once, however many environments made it (a file several environments
/// read gives the same findings in each); in a site of several environments, a note names the
/// environments it was found in.
fn naming_environments(
    mut found: Vec<(diag::Diagnostic, &str)>,
    environments: usize,
) -> Vec<diag::Diagnostic> {
    found.sort_by(|(a, x), (b, y)| {
        (a.span.file, a.span.start, a.span.end, a.code, &a.message, x).cmp(&(
            b.span.file,
            b.span.start,
            b.span.end,
            b.code,
            &b.message,
            y,
        ))
    });
    let mut out: Vec<(diag::Diagnostic, Vec<&str>)> = Vec::new();
    for (d, environment) in found {
        // Equal findings are adjacent but for ones that differ only in labels or notes.
        let same_place = |(o, _): &(diag::Diagnostic, Vec<&str>)| {
            (o.span, o.code, &o.message) == (d.span, d.code, &d.message)
        };
        let run = out.iter().rev().take_while(|o| same_place(o)).count();
        let start = out.len() - run;
        match out[start..].iter_mut().find(|(o, _)| *o == d) {
            Some((_, names)) => names.push(environment),
            None => out.push((d, vec![environment])),
        }
    }
    out.into_iter()
        .map(|(d, names)| {
            if environments < 2 {
                return d;
            }
            d.with_note(format!(
                "note: in the environment{} {}",
                if names.len() == 1 { "" } else { "s" },
                diag::backticked(names)
            ))
        })
        .collect()
}

/// A file with `site` or `bindings` blocks that no environment reads (its blocks never apply).
fn not_in_any_environment(file: span::FileId, program: &ast::Program) -> diag::Diagnostic {
    let first = program
        .body
        .iter()
        .find_map(|e| match &e.kind {
            ast::ExprKind::Site(_) => Some(e.span.prefix("site".len())),
            ast::ExprKind::Bindings(_) => Some(e.span.prefix("bindings".len())),
            _ => None,
        })
        .unwrap_or_else(|| span::Span::new(file, 0, 0));
    diag::Diagnostic::warning(
        diag::codes::NOT_IN_ANY_ENVIRONMENT,
        first,
        "no environment reads this file",
    )
    .with_note("note: an environment reads its `manifest`, the files under its `bindingsdir` and the `bindings/` of the modules on its `modulepath` (see environments.pp)")
}

/// A bindings block lowered for a model that outlives its file's tree. Shared: a check that
/// keeps its parses for the next ([`CheckMemo`]) lends its blocks to each check instead of
/// copying them (most of what copying its parses cost); a compile, which moves its blocks into
/// the model, holds the only reference.
type LoweredBlock = std::sync::Arc<lower::model::NamedBindings<crate::eval::code::Code<'static>>>;

/// Whether and how [`parse_all`] digests bindings files ([`Digested`]): for a command that
/// needs their programs no further than the rules and the model, `pbc check` and `pbc compile`
/// of a tree (the lookups evaluate the programs).
#[derive(Clone, Copy)]
struct Digest<'o> {
    /// The names the model's origins give files, by id.
    origins: &'o [lower::model::FileName],
    /// What the blocks are for: only a model shows origins' lines and columns and the
    /// bindings' values; the rules read neither.
    blocks: crate::eval::code::Detached,
}

impl Digest<'_> {
    /// For `pbc check`: no model is written.
    const CHECK: Digest<'static> = Digest {
        origins: &[],
        blocks: crate::eval::code::Detached::Checked,
    };
}

/// What `pbc check` or `pbc compile` makes of a bindings file as soon as it is parsed, so
/// that its tree can be freed then: a tree of such files is otherwise held whole until the
/// layers are judged and the model written, several times the size of its source.
#[derive(Clone)]
struct Digested {
    /// The file's own ARM-8 rules.
    judgement: validate::SharedJudgement,
    /// Its block, for the model and the rules across files.
    lowered: Option<LoweredBlock>,
}

/// One file's parse as a load holds it: its program, when it has one, shared, so that a load
/// from what the last one kept ([`CheckMemo`]) takes each program without copying its tree.
#[derive(Clone)]
struct ParsedFile {
    program: Option<SharedProgram>,
    diagnostics: Vec<diag::Diagnostic>,
}

/// A parsed file's program as loads hold it (see [`ParsedFile`]).
type SharedProgram = std::sync::Arc<ast::Program>;

impl From<Parsed> for ParsedFile {
    fn from(parsed: Parsed) -> Self {
        ParsedFile {
            program: parsed.program.map(std::sync::Arc::new),
            diagnostics: parsed.diagnostics,
        }
    }
}

/// [`parse_and_validate`] for every job, in job order, spread over the available cores. With
/// `digest`, each bindings file is also judged on its own and lowered, and only the outline of
/// its program is kept ([`ast::Program::into_outline`]).
fn parse_all(
    files: &span::SourceMap,
    jobs: &[(span::FileId, tree::FileRole)],
    digest: Option<Digest>,
) -> Vec<(ParsedFile, Option<Digested>)> {
    parallel_map(jobs.len(), |i| {
        let (id, role) = &jobs[i];
        let mut result = parse_and_validate(*id, files.source(*id));
        if let (Some(digest), tree::FileRole::Bindings { .. }, Some(program)) =
            (digest, role, &result.program)
        {
            let digested = Digested {
                judgement: validate::SharedJudgement::new(validate::judge_file(role, program)),
                lowered: lower::lower_block(files, digest.origins, program, digest.blocks)
                    .map(std::sync::Arc::new),
            };
            result.program = result.program.map(ast::Program::into_outline);
            return (result.into(), Some(digested));
        }
        // A plain manifest without `site` or `bindings` blocks (which D1 allows only at the top
        // level) means nothing to the tree-wide rules, to lowering or to the injector: its
        // AST is freed here, on the thread that built it, in parallel with the others.
        if *role == tree::FileRole::Manifest
            && result.program.as_ref().is_some_and(|p| {
                !p.body
                    .iter()
                    .any(|e| matches!(e.kind, ast::ExprKind::Site(_) | ast::ExprKind::Bindings(_)))
            })
        {
            result.program = None;
        }
        (result.into(), None)
    })
}

/// `span` without the line breaks and spaces libyaml counts into a block scalar's end.
fn trimmed(text: &str, span: crate::span::Span) -> crate::span::Span {
    let (start, end) = (span.start as usize, span.end as usize);
    match text.get(start..end) {
        Some(inner) => crate::span::Span::new(span.file, start, start + inner.trim_end().len()),
        None => span,
    }
}
