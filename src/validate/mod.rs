//! Judgement over parsed trees: rules a tree can break although it parsed.
//!
//! Owns the validation rules and nothing else: it reads the AST and returns diagnostics, and
//! must not change the tree, evaluate anything or print. [`puppet`] holds Puppet 7's parse-time
//! rules (its `Checker4_0`), run by `pbc parse --validate` and `pbc check`. The ARM-8 rules run
//! in two steps: [`site`] and [`bindings`] check each file and record the facts that only the
//! whole tree can judge; [`tree`] then judges those (a second category list, `when` categories
//! the site does not declare, contributions to multibinds, URI schemes), and [`composition`]
//! composes the layers to find what only the composed bindings show (conflicts, `override`s
//! without a target, abstract bindings never made concrete).

pub mod bindings;
mod composition;
mod memo;
pub mod puppet;
pub mod site;
mod tree;

pub use puppet::check_program;

use crate::ast::Program;
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::tree::FileRole;
use crate::types::PType;
use smol_str::SmolStr;

/// One parsed file of a tree.
pub struct TreeInput<'a> {
    pub id: crate::span::FileId,
    pub role: &'a FileRole,
    pub program: &'a Program,
    /// The block of a bindings file `pbc check` or `pbc compile` lowered while parsing it: its
    /// program keeps only an outline ([`Program::into_outline`]), and the rules read its
    /// bindings here.
    pub lowered: Option<&'a crate::lower::model::NamedBindings<crate::eval::code::Code<'a>>>,
}

/// Whether the rules across files judge composition (conflicts, abstract and `override`
/// bindings, multibind names) for every request, as `pbc check` does, or leave it to the
/// injector, which reports it per key for its one request (`pbc lookup`, D18).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Composition {
    /// Judged, and the model the judgement builds is freed: the command builds more after the
    /// check (another environment's judgement, the model of `pbc compile FILE...`).
    ForEveryRequest,
    /// Judged as the command's last large work: only its report follows, so the judgement's
    /// model is left to the process's exit ([`crate::reclaim`]) instead of being freed
    /// piece by piece (a tenth of `pbc check` on a 10,000-file tree).
    ForEveryRequestThenReport,
    /// Judged on the model `pbc compile` writes, lowered once for both: the check leaves the
    /// layers' composition to [`judge_written_model`], with what it learned ([`ModelJudgement`]).
    OnTheWrittenModel,
    LeftToTheInjector,
}

pub use composition::{judge_written_model, ModelJudgement};
pub use memo::JudgementMemo;

/// Runs the ARM-8 rules over every file of a tree, then the rules across files. Puppet's own
/// rules ([`check_program`]) are the caller's to run per file.
/// `unknown`: the tree's bindings files that did not parse, with their roles. What they bind is
/// unknown: the rules across files report nothing those files could change. `judged`: by
/// input, the rules of the files already judged on their own ([`judge_file`]; the others are
/// judged here). `hiera_configs`: where the tree has an ARM-9 `hiera.yaml` (its module, or
/// `None` for the site's, and its directory), so that a hiera URI naming one with no data files
/// yet is not missing. `memo`: the language server's last judgement of these layers, reused
/// where the files changed since cannot change it ([`JudgementMemo`]).
// The tree's parts as the load holds them, the command's options and the language server's
// memo: bundling them would only rename them (as `composition::check`).
#[allow(clippy::too_many_arguments)]
pub fn check_tree(
    files: &crate::span::SourceMap,
    inputs: &[TreeInput],
    judged: Vec<Option<SharedJudgement>>,
    unknown: &[(crate::span::FileId, &FileRole)],
    hiera_configs: &[(Option<&str>, &str)],
    judge: Composition,
    options: &crate::options::Options,
    memo: Option<&mut JudgementMemo>,
) -> Vec<Diagnostic> {
    check_tree_judging(
        files,
        inputs,
        judged,
        unknown,
        hiera_configs,
        judge,
        options,
        memo,
    )
    .0
}

/// [`check_tree`], and with [`Composition::OnTheWrittenModel`] what the judgement of the
/// written model needs.
#[allow(clippy::too_many_arguments)]
pub fn check_tree_judging(
    files: &crate::span::SourceMap,
    inputs: &[TreeInput],
    judged: Vec<Option<SharedJudgement>>,
    unknown: &[(crate::span::FileId, &FileRole)],
    hiera_configs: &[(Option<&str>, &str)],
    judge: Composition,
    options: &crate::options::Options,
    memo: Option<&mut JudgementMemo>,
) -> (Vec<Diagnostic>, Option<ModelJudgement>) {
    let judgements = each_file(inputs, judged);
    // Each file's facts are read where its judgement holds them (the parse memo keeps most
    // for the next check): gathered into lists of the tree's, they were copied item by item
    // at every keystroke.
    let every_file: Vec<&TreeFacts> = judgements.iter().map(|j| &j.facts).collect();
    let has_site = every_file.iter().any(|f| f.has_site);
    let mut across = Vec::new();
    tree::check(&every_file, has_site, &mut across);
    // What the composition reads of the facts: whether there is a site, and the site's
    // first layer list.
    let facts = TreeFacts {
        has_site,
        layers: every_file.iter().find_map(|f| f.layers.clone()),
        ..TreeFacts::default()
    };
    drop(every_file);
    let mut out = Vec::new();
    for judgement in judgements {
        // What a file the parse memo keeps breaks is copied; what this check alone holds is
        // moved.
        match SharedJudgement::try_unwrap(judgement) {
            Ok(judgement) => out.extend(judgement.found),
            Err(kept) => out.extend(kept.found.iter().cloned()),
        }
    }
    // The judgements no memo keeps are freed here, before the composition builds its index,
    // the largest thing it holds.
    let deferred = composition::check(
        files,
        inputs,
        unknown,
        hiera_configs,
        &facts,
        judge,
        &mut across,
        options,
        memo,
    );
    out.extend(across.into_iter().map(Diagnostic::across_files));
    (out, deferred)
}

/// The ARM-8 rules of each file on its own, for files no environment reads: nothing across
/// files applies to them. `judged` as for [`check_tree`].
pub fn check_each_file(
    inputs: &[TreeInput],
    judged: Vec<Option<SharedJudgement>>,
) -> Vec<Diagnostic> {
    each_file(inputs, judged)
        .into_iter()
        .flat_map(|judged| SharedJudgement::unwrap_or_clone(judged).found)
        .collect()
}

/// What the ARM-8 rules of one file on its own found: the facts the rules across files need,
/// and what the file breaks.
#[derive(Clone)]
pub struct FileJudgement {
    facts: TreeFacts,
    found: Vec<Diagnostic>,
}

/// A [`FileJudgement`] as a check holds it: shared, so that the language server's parse memo
/// lends its judgements to each check instead of copying every file's.
pub type SharedJudgement = std::sync::Arc<FileJudgement>;

/// The ARM-8 rules of one file on its own.
pub fn judge_file(role: &FileRole, program: &Program) -> FileJudgement {
    let mut facts = TreeFacts::default();
    let mut found = Vec::new();
    site::check_file(role, program, &mut facts, &mut found);
    bindings::check_file(role, program, &mut facts, &mut found);
    facts.shrink_to_fit();
    FileJudgement { facts, found }
}

/// [`judge_file`] for each input not already `judged`, on every core, in file order (so the
/// result does not depend on how the files were shared out).
fn each_file(
    inputs: &[TreeInput],
    mut judged: Vec<Option<SharedJudgement>>,
) -> Vec<SharedJudgement> {
    judged.resize_with(inputs.len(), || None);
    let unjudged: Vec<usize> = (0..inputs.len()).filter(|&i| judged[i].is_none()).collect();
    let mut fresh = crate::parallel::parallel_map(unjudged.len(), |j| {
        SharedJudgement::new(judge_file(
            inputs[unjudged[j]].role,
            inputs[unjudged[j]].program,
        ))
    })
    .into_iter();
    judged
        .into_iter()
        .filter_map(|already| already.or_else(|| fresh.next()))
        .collect()
}

/// What the per-file passes learn that the rules across files need.
#[derive(Clone, Default)]
pub struct TreeFacts {
    /// Whether any file has a `site { }` block.
    pub has_site: bool,
    pub categories: Vec<CategoriesDecl>,
    /// Statically named environments, with the title's span.
    pub environments: Vec<(String, Span)>,
    pub layer_refs: Vec<LayerRef>,
    /// The site's first layer list, with literal names and URIs (`None` without one: D11).
    pub layers: Option<Vec<crate::lower::layers::LayerSpec>>,
    pub when_categories: Vec<(SmolStr, Span)>,
    pub multibinds: Vec<MultibindDecl>,
    pub contributions: Vec<Contribution>,
}

impl TreeFacts {
    /// Its lists without room to grow: every file's facts are held until the rules across
    /// files read them, and a list grown by one item (a large tree has a contribution per
    /// file) has room for four.
    fn shrink_to_fit(&mut self) {
        // Every field named: a list added to the facts is shrunk here too.
        let TreeFacts {
            has_site: _,
            categories,
            environments,
            layer_refs,
            layers: _,
            when_categories,
            multibinds,
            contributions,
        } = self;
        categories.shrink_to_fit();
        environments.shrink_to_fit();
        layer_refs.shrink_to_fit();
        when_categories.shrink_to_fit();
        multibinds.shrink_to_fit();
        contributions.shrink_to_fit();
    }
}

/// One `site { categories { } }`.
#[derive(Clone)]
pub struct CategoriesDecl {
    pub names: Vec<(SmolStr, Span)>,
    pub span: Span,
}

/// A literal bindings URI in a layer's `include` or `exclude`.
#[derive(Clone)]
pub struct LayerRef {
    pub uri: SmolStr,
    pub span: Span,
}

/// A `multibind` with a literal id.
#[derive(Clone)]
pub struct MultibindDecl {
    pub id: SmolStr,
    /// The multibind's type, when it is a valid Array or Hash type.
    pub ty: Option<PType>,
    pub span: Span,
}

/// A `bind ... in 'id'`.
#[derive(Clone)]
pub struct Contribution {
    pub id: SmolStr,
    pub id_span: Span,
    /// The contribution's name, when it has one.
    pub name: Option<(SmolStr, Span)>,
    /// The type of a literal value, and the value's span.
    pub value: Option<(PType, Span)>,
    pub span: Span,
}
