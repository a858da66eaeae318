//! pbc: a compiler, checker and resolver for the Puppet bindings language (ARM-8 / ARM-9).
//!
//! The pipeline is `lexer` → `parser` (→ `ast`) → `validate` → `lower` → `inject`, with
//! diagnostics rendered by `diag`. This crate root only wires the stages together; each stage's
//! module says what it owns.

pub mod ast;
pub mod diag;
pub mod eval;
pub mod inject;
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod pn;
pub mod source;
pub mod span;
pub mod tree;
pub mod types;
pub mod validate;

pub use parser::{parse_file, Parsed};

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
pub struct CheckReport {
    pub files: span::SourceMap,
    pub diagnostics: Vec<diag::Diagnostic>,
    pub file_count: usize,
}

/// One file of a tree, read into memory.
pub struct SourceInput {
    /// The name diagnostics show.
    pub name: String,
    pub role: tree::FileRole,
    pub bytes: Vec<u8>,
}

/// Reads every file of a tree and checks it ([`check_sources`]). An unreadable file is an I/O
/// error: the tree cannot be judged without it.
pub fn check_tree_files(tree_files: &[tree::TreeFile]) -> std::io::Result<CheckReport> {
    let mut inputs = Vec::with_capacity(tree_files.len());
    for f in tree_files {
        let bytes = std::fs::read(&f.path).map_err(|e| {
            std::io::Error::new(e.kind(), format!("cannot read {}: {e}", f.display))
        })?;
        inputs.push(SourceInput {
            name: f.display.clone(),
            role: f.role.clone(),
            bytes,
        });
    }
    Ok(check_sources(inputs))
}

/// Reads a tree's files and compiles them ([`compile_sources`]). In [`CompileMode::Tree`] the
/// model names files relative to `root`; otherwise as the diagnostics do.
pub fn compile_tree_files(
    tree_files: &[tree::TreeFile],
    root: Option<&std::path::Path>,
    mode: CompileMode,
) -> std::io::Result<CompileReport> {
    Ok(compile_loaded(load_tree_files(tree_files, root)?, mode))
}

/// Reads a tree's files and checks them, keeping the programs for lowering ([`load_sources`]).
/// Origins are file names relative to `root` (as the diagnostics name them without one).
pub fn load_tree_files(
    tree_files: &[tree::TreeFile],
    root: Option<&std::path::Path>,
) -> std::io::Result<LoadedTree> {
    let mut inputs = Vec::with_capacity(tree_files.len());
    let mut origins = Vec::with_capacity(tree_files.len());
    for f in tree_files {
        let bytes = std::fs::read(&f.path).map_err(|e| {
            std::io::Error::new(e.kind(), format!("cannot read {}: {e}", f.display))
        })?;
        let origin = root
            .and_then(|r| f.path.strip_prefix(r).ok())
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_else(|| f.display.clone());
        origins.push(origin);
        inputs.push(SourceInput {
            name: f.display.clone(),
            role: f.role.clone(),
            bytes,
        });
    }
    Ok(load_sources(inputs, origins))
}

/// Parses every file, runs Puppet's parse-time rules on each and the ARM-8 rules on the whole.
/// Files are parsed on all cores; the result does not depend on how work was shared out.
pub fn check_sources(inputs: Vec<SourceInput>) -> CheckReport {
    let analysed = analyse(inputs);
    CheckReport {
        files: analysed.files,
        diagnostics: analysed.diagnostics,
        file_count: analysed.file_count,
    }
}

/// What `pbc compile` produced: the check's findings and, when there were no errors, the model
/// as JSON (with a final newline).
pub struct CompileReport {
    pub check: CheckReport,
    pub model: Option<String>,
}

/// What to compile: a whole tree (layers, categories, environments) or bindings files alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompileMode {
    Tree,
    Files,
}

/// Checks the files and, when the check finds no errors, lowers them to the bindings model.
/// `origins` are the file names the model records (relative to the tree root), one per input.
pub fn compile_sources(
    inputs: Vec<SourceInput>,
    origins: Vec<String>,
    mode: CompileMode,
) -> CompileReport {
    compile_loaded(load_sources(inputs, origins), mode)
}

fn compile_loaded(loaded: LoadedTree, mode: CompileMode) -> CompileReport {
    let model = if loaded.has_errors() {
        None
    } else {
        let inputs = loaded.lower_inputs();
        let json = match mode {
            CompileMode::Tree => serde_json::to_string_pretty(&lower::compile_tree(
                &loaded.check.files,
                &loaded.origins,
                &inputs,
                lower::PnJson,
            )),
            CompileMode::Files => serde_json::to_string_pretty(&lower::compile_files(
                &loaded.check.files,
                &loaded.origins,
                &inputs,
                lower::PnJson,
            )),
        };
        json.ok().map(|mut j| {
            j.push('\n');
            j
        })
    };
    CompileReport {
        check: loaded.check,
        model,
    }
}

/// A checked tree with its programs: what lowering (for `pbc compile`) and the injector (for
/// `pbc lookup`) start from.
pub struct LoadedTree {
    pub check: CheckReport,
    parsed: Vec<(tree::FileRole, ast::Program)>,
    /// The name the model records for each file, by file id.
    origins: Vec<String>,
}

impl LoadedTree {
    pub fn has_errors(&self) -> bool {
        self.check
            .diagnostics
            .iter()
            .any(diag::Diagnostic::is_error)
    }

    pub fn lower_inputs(&self) -> Vec<lower::LowerInput<'_>> {
        self.parsed
            .iter()
            .map(|(role, program)| lower::LowerInput { role, program })
            .collect()
    }

    /// The tree's `environments.pp`, if it has one.
    pub fn environments_program(&self) -> Option<&ast::Program> {
        self.parsed
            .iter()
            .find(|(role, _)| matches!(role, tree::FileRole::Environments))
            .map(|(_, p)| p)
    }

    /// The whole tree's model, holding expressions as `embed` does.
    pub fn tree_model<'a, E: lower::Embed<'a>>(
        &'a self,
        embed: E,
    ) -> lower::model::TreeDocument<E::X> {
        lower::compile_tree(
            &self.check.files,
            &self.origins,
            &self.lower_inputs(),
            embed,
        )
    }
}

/// Checks the files ([`check_sources`]) and keeps their programs. `origins` are the file names
/// the model records, one per input.
pub fn load_sources(inputs: Vec<SourceInput>, origins: Vec<String>) -> LoadedTree {
    // In name order, as `analyse` will take them, so that origins stay with their files.
    let mut paired: Vec<(SourceInput, String)> = inputs.into_iter().zip(origins).collect();
    paired.sort_by(|a, b| a.0.name.cmp(&b.0.name));
    let (inputs, origins): (Vec<SourceInput>, Vec<String>) = paired.into_iter().unzip();
    let analysed = analyse(inputs);
    // Origins by file id: ids follow input order.
    let mut by_id = vec![String::new(); analysed.files.len()];
    for (id, origin) in analysed.ids.iter().zip(origins) {
        if let Some(slot) = by_id.get_mut(id.0 as usize) {
            *slot = origin;
        }
    }
    LoadedTree {
        check: CheckReport {
            files: analysed.files,
            diagnostics: analysed.diagnostics,
            file_count: analysed.file_count,
        },
        parsed: analysed.parsed,
        origins: by_id,
    }
}

/// Every file parsed and checked, with the programs kept for lowering.
struct Analysed {
    files: span::SourceMap,
    /// The file id of each input, in input order.
    ids: Vec<span::FileId>,
    diagnostics: Vec<diag::Diagnostic>,
    parsed: Vec<(tree::FileRole, ast::Program)>,
    file_count: usize,
}

/// Files are taken in name order, whatever order they come in: everything after (layer
/// composition, which of two conflicting bindings is reported first) follows that order.
fn analyse(mut inputs: Vec<SourceInput>) -> Analysed {
    inputs.sort_by(|a, b| a.name.cmp(&b.name));
    let file_count = inputs.len();
    let mut files = span::SourceMap::new();
    let mut diagnostics = Vec::new();
    let mut jobs = Vec::with_capacity(inputs.len());
    let mut ids = Vec::with_capacity(inputs.len());
    for input in inputs {
        let (id, bad) = source::add_source(&mut files, &input.name, input.bytes);
        ids.push(id);
        match bad {
            Some(d) => diagnostics.push(d),
            None => jobs.push((id, input.role)),
        }
    }
    let results = parse_all(&files, &jobs);
    let mut parsed = Vec::with_capacity(results.len());
    for ((_, role), result) in jobs.into_iter().zip(results) {
        diagnostics.extend(result.diagnostics);
        if let Some(program) = result.program {
            parsed.push((role, program));
        }
    }
    let tree_inputs: Vec<validate::TreeInput> = parsed
        .iter()
        .map(|(role, program)| validate::TreeInput { role, program })
        .collect();
    diagnostics.extend(validate::check_tree(&tree_inputs));
    diag::sort(&mut diagnostics);
    Analysed {
        files,
        ids,
        diagnostics,
        parsed,
        file_count,
    }
}

/// [`parse_and_validate`] for every job, in job order, spread over the available cores.
fn parse_all(files: &span::SourceMap, jobs: &[(span::FileId, tree::FileRole)]) -> Vec<Parsed> {
    parallel_map(jobs.len(), |i| {
        let (id, role) = &jobs[i];
        let mut result = parse_and_validate(*id, files.source(*id));
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
        result
    })
}

/// `f(i)` for every `i < n`, in order, spread over the available cores; the result does not
/// depend on how the work was shared out.
fn parallel_map<R: Send>(n: usize, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let workers = std::thread::available_parallelism()
        .map_or(1, |c| c.get())
        .min(n.max(1));
    let next = AtomicUsize::new(0);
    let slots: Mutex<Vec<Option<R>>> = Mutex::new((0..n).map(|_| None).collect());
    let work = || loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        if i >= n {
            break;
        }
        let result = f(i);
        if let Ok(mut s) = slots.lock() {
            s[i] = Some(result);
        }
    };
    std::thread::scope(|scope| {
        for _ in 1..workers {
            // Passes recurse to the parser's bounded depth; give workers the main thread's room.
            let _ = std::thread::Builder::new()
                .stack_size(64 * 1024 * 1024)
                .spawn_scoped(scope, work);
        }
        work();
    });
    slots
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, slot)| slot.unwrap_or_else(|| f(i)))
        .collect()
}
