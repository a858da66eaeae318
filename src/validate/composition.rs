//! The rules only the composed layers show (D6, D11, D13 as amended by D18), asked of the
//! composition engine ([`crate::compose`]) that `pbc lookup` uses: two bindings of one key that
//! nothing beats, an `override` with nothing to override, an abstract binding that wins, two
//! contributions of one name and rank; and layer includes that name bindings the tree lacks.
//!
//! The environment's files are lowered as `pbc compile` lowers them and handed to the engine's
//! [`analysis`](crate::compose::analysis), which runs the lookup rules for every class of
//! requests. What fails for every request the bindings apply to is an error; what fails only
//! for some is a warning naming the category values it fails for. This module only words
//! those findings.

use super::memo::{JudgementMemo, Judging, PlacedLayer, SYSTEM_FILE};
use super::{TreeFacts, TreeInput};
use crate::compose::analysis::{analyse, analyse_keys, Condition, Finding, FindingKind};
use crate::compose::{Bindings, Bound, LayerView};
use crate::diag::{codes, Diagnostic, Severity};
use crate::eval::code::{Code, ForChecking};
use crate::eval::Value;
use crate::lower::layers::{compose, default_layers, BindingsSource, MissingRef};
use crate::lower::model::{Category, NamedLayer, TreeDocument};
use crate::lower::LowerInput;
use crate::span::{FileId, SourceMap, Span};
use crate::tree::FileRole;
use foldhash::HashMap;
use smol_str::SmolStr;

// The tree's parts as `check_tree_judging` holds them, the findings' list it extends, and the
// command's options: bundling them would only rename them.
#[allow(clippy::too_many_arguments)]
pub(super) fn check(
    files: &SourceMap,
    inputs: &[TreeInput],
    unknown: &[(FileId, &FileRole)],
    hiera_configs: &[(Option<&str>, &str)],
    facts: &TreeFacts,
    judge: super::Composition,
    out: &mut Vec<Diagnostic>,
    options: &crate::options::Options,
    memo: Option<&mut JudgementMemo>,
) -> Option<ModelJudgement> {
    // Room for every input at once: most of a large tree's are bindings files, and lists
    // grown by doubling are copied each time.
    let mut sources: Vec<BindingsSource> = Vec::with_capacity(inputs.len() + unknown.len());
    let mut bindings_inputs: Vec<&TreeInput> = Vec::with_capacity(inputs.len());
    for input in inputs {
        let Some(source) = BindingsSource::of(input.role) else {
            continue;
        };
        if input.program.bindings_blocks().next().is_none() {
            continue;
        }
        sources.push(source);
        bindings_inputs.push(input);
    }
    // Files that did not parse still exist: they are where their path puts them, with
    // bindings no one knows.
    let known = sources.len();
    for (_, role) in unknown {
        sources.extend(BindingsSource::of(role));
    }
    let specs = facts.layers.clone().unwrap_or_else(default_layers);
    let (layers, missing) = compose(&specs, &sources);
    // The highest layer holding a file of unknown bindings: a finding at or below it could be
    // changed by what that file binds.
    let unknown_from = layers
        .iter()
        .position(|l| l.files.iter().any(|&f| f >= known));
    // A site checked without any bindings (`pbc check manifests/site.pp`) cannot tell what the
    // tree lacks.
    if !sources.is_empty() {
        for m in &missing {
            // ARM-9: a hiera URI is missing only if its `hiera.yaml` is; one without data
            // files yet binds nothing.
            let configured = crate::lower::layers::hiera_location(&m.uri)
                .is_some_and(|at| hiera_configs.contains(&at));
            if !configured {
                missing_bindings(m, &sources, out);
            }
        }
    }

    if judge == super::Composition::LeftToTheInjector {
        return None;
    }
    let judgement = ModelJudgement {
        unknown_from,
        has_site: facts.has_site,
    };
    let lower_inputs: Vec<LowerInput> = inputs
        .iter()
        .map(|i| LowerInput {
            role: i.role,
            program: i.program,
        })
        .collect();
    let levels = category_levels(&crate::lower::tree_categories(&lower_inputs, &ForChecking));
    let deferred = if judge == super::Composition::OnTheWrittenModel {
        Some(judgement)
    } else {
        // The layers' blocks where they are: lowered as their files were parsed, or here, on
        // every core, for the files that were not. No model is built around them.
        let placement = crate::lower::layer_placement(&lower_inputs);
        let mut unlowered: Vec<usize> = placement
            .iter()
            .flat_map(|(_, placed)| placed.iter().copied())
            .filter(|&i| inputs[i].lowered.is_none())
            .collect();
        unlowered.sort_unstable();
        unlowered.dedup();
        let here = crate::parallel::parallel_map(unlowered.len(), |j| {
            crate::lower::lower_block(files, &[], inputs[unlowered[j]].program, ForChecking)
        });
        let block_of = |i: usize| {
            inputs[i].lowered.or_else(|| {
                let k = unlowered.binary_search(&i).ok()?;
                here[k].as_ref()
            })
        };
        let system: NamedLayer<Code> = crate::lower::system_layer();
        if let Some(memo) = memo {
            let placed: Vec<PlacedLayer> = placement
                .iter()
                .map(|(name, placed)| {
                    let blocks = placed
                        .iter()
                        .filter_map(|&i| Some((inputs[i].id, block_of(i)?)))
                        .collect();
                    (name.as_str(), blocks)
                })
                .chain(std::iter::once((
                    system.name.as_str(),
                    system
                        .bindings
                        .iter()
                        .map(|b| (SYSTEM_FILE, &**b))
                        .collect(),
                )))
                .collect();
            let words = Words {
                files,
                levels: &levels,
                has_site: judgement.has_site,
                unplaced: false,
            };
            let judge_keys = |bindings: &Bindings, entries: Option<&[usize]>| {
                let findings = match entries {
                    Some(entries) => analyse_keys(bindings, &levels, entries),
                    None => analyse(bindings, &levels),
                };
                findings
                    .iter()
                    .map(|f| {
                        let limit = changeable_from(bindings, f);
                        (f.key, words.diagnostic(bindings, f), limit)
                    })
                    .collect()
            };
            let judging = Judging {
                files,
                levels: &levels,
                has_site: judgement.has_site,
                unknown: unknown.iter().map(|(id, _)| *id).collect(),
            };
            out.extend(memo.judge(&placed, &judging, judgement.unknown_from, &judge_keys));
            drop(placed);
            crate::reclaim::free_in_parallel(here);
        } else {
            let views: Vec<LayerView> = placement
                .iter()
                .map(|(name, placed)| LayerView {
                    name,
                    bindings: placed.iter().filter_map(|&i| block_of(i)).collect(),
                })
                .chain(std::iter::once(LayerView {
                    name: &system.name,
                    bindings: system.bindings.iter().map(|b| &**b).collect(),
                }))
                .collect();
            let bindings = Bindings::build_from(&views);
            out.extend(judge_layers(files, &levels, &bindings, &judgement));
            if judge == super::Composition::ForEveryRequestThenReport {
                crate::reclaim::release(bindings, options);
                crate::reclaim::release(here, options);
            } else {
                drop(bindings);
                crate::reclaim::free_in_parallel(here);
            }
        }
        None
    };

    // A file no layer includes still conflicts with itself wherever it is included later.
    let mut placed = vec![false; sources.len()];
    let mut excluded = vec![false; sources.len()];
    for layer in &layers {
        for &f in &layer.files {
            placed[f] = true;
        }
        for &f in &layer.excluded {
            excluded[f] = true;
        }
    }
    let unplaced: Vec<&TreeInput> = bindings_inputs
        .iter()
        .zip(&placed)
        .filter(|(_, placed)| !**placed)
        .map(|(i, _)| *i)
        .collect();
    // Without a site the layers are D11's defaults, and a module's other bindings files are
    // alternatives for the site that uses it to include. An excluded file is left out on
    // purpose.
    if facts.has_site {
        for (input, _) in bindings_inputs
            .iter()
            .zip(placed.iter().zip(&excluded))
            .filter(|(_, (placed, excluded))| !**placed && !**excluded)
            // A module's data in a directory no layer names is an alternative it ships
            // (`module-hiera:/ntp/for_x`), left out on purpose.
            .filter(|(input, _)| !matches!(input.role, FileRole::HieraData(_)))
        {
            if let Some(block) = input.program.bindings_blocks().next() {
                out.push(not_in_any_layer(block, &layers));
            }
        }
    }
    let words = Words {
        files,
        levels: &levels,
        has_site: facts.has_site,
        unplaced: true,
    };
    for input in unplaced {
        let bindings = match input.lowered {
            Some(lowered) => vec![std::sync::Arc::new(lowered.clone())],
            None => {
                let input = LowerInput {
                    role: input.role,
                    program: input.program,
                };
                crate::lower::compile_files(files, &[], &[input], ForChecking).bindings
            }
        };
        let layer = [NamedLayer {
            name: String::new(),
            bindings,
            providers: Vec::new(),
        }];
        let bindings = Bindings::build(&layer);
        for finding in analyse(&bindings, &levels) {
            if matches!(finding.kind, FindingKind::Conflict { .. }) {
                out.push(words.diagnostic(&bindings, &finding));
            }
        }
    }
    deferred
}

/// What the check learned that the judgement of the layers needs when it runs on the model
/// `pbc compile` writes ([`judge_written_model`]).
#[derive(Clone, Debug)]
pub struct ModelJudgement {
    /// The highest layer holding a file of unknown bindings (see [`could_change`]).
    unknown_from: Option<usize>,
    has_site: bool,
}

/// The composition of the layers judged for every request on `model`, the tree's model as
/// `pbc compile` writes it (lowered with positions and origins: the judgement reads neither).
/// The findings are the ones [`check`] makes. The index built for it is left to the exit: the
/// model is written next, and the command ends.
pub fn judge_written_model(
    files: &SourceMap,
    model: &TreeDocument<Code>,
    judgement: &ModelJudgement,
    options: &crate::options::Options,
) -> Vec<Diagnostic> {
    let levels = category_levels(&model.categories.categories);
    let bindings = Bindings::build(&model.layers.layers);
    let found = judge_layers(files, &levels, &bindings, judgement)
        .into_iter()
        .map(Diagnostic::across_files)
        .collect();
    crate::reclaim::release(bindings, options);
    found
}

/// The findings of the analysis of the layers that no file of unknown bindings could change.
fn judge_layers(
    files: &SourceMap,
    levels: &HashMap<SmolStr, u16>,
    bindings: &Bindings,
    judgement: &ModelJudgement,
) -> Vec<Diagnostic> {
    let words = Words {
        files,
        levels,
        has_site: judgement.has_site,
        unplaced: false,
    };
    analyse(bindings, levels)
        .into_iter()
        .filter(|finding| !could_change(bindings, finding, judgement.unknown_from))
        .map(|finding| words.diagnostic(bindings, &finding))
        .collect()
}

/// Whether a file of unknown bindings in the layer `unknown_from` (or a lower one) could change
/// the finding: a binding there can beat a conflict or an abstract binding at or below its
/// layer, resolve an `override` anywhere above it or make it lose, and outrank a contribution.
fn could_change(bindings: &Bindings, f: &Finding, unknown_from: Option<usize>) -> bool {
    unknown_from.is_some_and(|limit| limit <= changeable_from(bindings, f))
}

/// The highest layer in which a file of unknown bindings could change the finding `f` (see
/// [`could_change`]); `usize::MAX` where one in any layer could.
fn changeable_from(bindings: &Bindings, f: &Finding) -> usize {
    let layer = |i: usize| bindings.candidates[i].layer();
    match &f.kind {
        FindingKind::Conflict { second, .. } => layer(*second),
        FindingKind::Abstract { candidate } => layer(*candidate),
        FindingKind::UnresolvedOverride { .. } => usize::MAX,
        FindingKind::DuplicateContribution { id, second, .. } => bindings
            .contributions
            .get(id.as_str())
            .and_then(|list| list.get(*second))
            .map_or(usize::MAX, |c| c.layer),
    }
}

/// Each declared category's precedence (D6: the first is highest, `common` is 0), as the
/// injector ranks the model's effective categories.
fn category_levels(declared: &[Category<Code>]) -> HashMap<SmolStr, u16> {
    let ranked = declared.len().saturating_sub(1);
    declared
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let level = if c.categorization == "common" {
                0
            } else {
                (ranked - i) as u16
            };
            (SmolStr::new(&c.categorization), level)
        })
        .collect()
}

/// How findings are worded for this check.
struct Words<'l> {
    files: &'l SourceMap,
    levels: &'l HashMap<SmolStr, u16>,
    /// Without a site, the site that uses these bindings may supply what is missing.
    has_site: bool,
    /// The bindings are a file no layer includes.
    unplaced: bool,
}

impl Words<'_> {
    /// A binding's span, up to the end of its first line: a multibind's option block or a
    /// long hash value is not the point.
    fn at(&self, span: Span) -> Span {
        let (start, end) = (span.start as usize, span.end as usize);
        let first_line = self
            .files
            .source(span.file)
            .get(start..end)
            .and_then(|t| t.find('\n'))
            .map_or(end, |n| start + n);
        Span::new(span.file, start, first_line)
    }

    fn diagnostic(&self, bindings: &Bindings, f: &Finding) -> Diagnostic {
        let key = bindings.keys[f.key].key();
        let cand = |i: usize| &bindings.candidates[i];
        let layer_of = |i: usize| {
            bindings
                .layer_names
                .get(cand(i).layer())
                .copied()
                .unwrap_or("?")
        };
        let some = if f.always { "" } else { " for some requests" };
        let mut d = match &f.kind {
            FindingKind::Conflict { first, second } => {
                let mut d = Diagnostic::error(
                    codes::CONFLICTING_BINDINGS,
                    self.at(cand(*second).origin().span),
                    format!(
                        "`{key}` is bound twice {} with equal precedence{some}",
                        when_text(bindings, self.levels, cand(*second).when())
                    ),
                )
                .with_label(
                    self.at(cand(*first).origin().span),
                    format!("the other binding of `{key}`"),
                );
                d = d.with_note(if self.unplaced {
                    "note: no layer includes this file; wherever it is included, no request can choose between them".to_string()
                } else if f.always {
                    format!("note: both are in the layer `{}`; no request can choose between them", layer_of(*second))
                } else {
                    format!("note: both are in the layer `{}`; {}, nothing beats them", layer_of(*second), failing_text(f))
                });
                d.with_note("help: remove one, or put one under a more specific `when` (the more specific binding wins)")
            }
            FindingKind::Abstract { candidate } => {
                let me = cand(*candidate);
                let entry = bindings.candidates_of(f.key);
                let mut d = if f.always {
                    Diagnostic::error(
                        codes::ABSTRACT_NOT_OVERRIDDEN,
                        self.at(me.origin().span),
                        format!("the abstract binding `{key}` is never made concrete"),
                    )
                } else {
                    let mut d = Diagnostic::error(
                        codes::ABSTRACT_NOT_OVERRIDDEN,
                        self.at(me.origin().span),
                        format!(
                            "the abstract binding `{key}` is not made concrete for every request"
                        ),
                    )
                    .with_note(format!(
                        "note: {}, it is what the lookup of `{key}` finds",
                        failing_text(f)
                    ));
                    for &q in entry {
                        let other = cand(q);
                        if q != *candidate && other.layer() <= me.layer() && !other.is_abstract {
                            d = d.with_label(
                                self.at(other.origin().span),
                                format!(
                                    "this binding applies only {}",
                                    when_text(bindings, self.levels, other.when())
                                ),
                            );
                        }
                    }
                    d
                };
                for &q in entry {
                    let other = cand(q);
                    if other.layer() > me.layer() && !other.is_abstract {
                        d = d.with_label(
                            self.at(other.origin().span),
                            format!(
                                "this binding is in the lower layer `{}`, which the abstract binding hides",
                                layer_of(q)
                            ),
                        );
                    }
                }
                d.with_note(format!(
                    "help: bind `{key}` in the layer `{}` or a higher one",
                    layer_of(*candidate)
                ))
            }
            FindingKind::UnresolvedOverride { candidate } => {
                let d = Diagnostic::error(
                    codes::UNRESOLVED_OVERRIDE,
                    self.at(cand(*candidate).origin().span),
                    format!("this `override` of `{key}` has nothing to override{some}"),
                );
                let d = if f.always {
                    d.with_note(format!(
                        "note: an override replaces a binding of `{key}` in a lower layer, or a less specific one in its own layer; there is none"
                    ))
                } else {
                    d.with_note(format!(
                        "note: {}, it wins with no binding of `{key}` below it in its layer or in a lower one",
                        failing_text(f)
                    ))
                };
                d.with_note("help: drop `override`, or check the type and name against the binding it should replace")
            }
            FindingKind::DuplicateContribution { id, first, second } => {
                let list = bindings
                    .contributions
                    .get(id.as_str())
                    .map_or(&[][..], |v| v.as_slice());
                let (a, b) = (&list[*first], &list[*second]);
                let array = bindings.candidates_of(f.key).iter().any(|&i| {
                    matches!(cand(i).bound, Bound::Multibinding(m) if matches!(crate::lower::model::ptype(&m.type_), crate::types::PType::Array(_)))
                });
                // `conflict_resolution => error` refuses a name twice whatever the ranks.
                let refuses_names = bindings.candidates_of(f.key).iter().any(|&i| {
                    matches!(cand(i).bound, Bound::Multibinding(m) if matches!(
                        crate::compose::multibind::Rules::of(m, !array),
                        crate::compose::multibind::Rules::Hash(crate::compose::multibind::Resolution::Error)
                    ))
                });
                let why = if refuses_names {
                    "and its `conflict_resolution => error` allows one per name"
                } else {
                    "with the same precedence"
                };
                let named = b.binding.name.as_deref().filter(|n| !n.is_empty());
                let name = named.map_or("without a name".to_string(), |n| format!("named '{n}'"));
                let mut d = Diagnostic::error(
                    codes::MULTIBIND_CONTRIBUTION,
                    self.at(b.binding.origin.span),
                    format!("the multibind `{id}` gets two contributions {name} {why}{some}"),
                )
                .with_label(self.at(a.binding.origin.span), "the other contribution");
                if !f.always {
                    d = d.with_note(format!(
                        "note: {}, both apply and neither has priority",
                        failing_text(f)
                    ));
                }
                let option = if named.is_some() {
                    "priority_on_named"
                } else {
                    "priority_on_unnamed"
                };
                d.with_note(if refuses_names {
                    "help: give them different names, or choose another `conflict_resolution`".to_string()
                } else if array {
                    format!("help: give one a higher precedence, or set `{option} => false` on the multibind to keep both")
                } else {
                    "help: give one a higher precedence, or set `conflict_resolution` on the multibind".to_string()
                })
            }
        };
        if !f.always {
            d.severity = Severity::Warning;
            let note = "note: `pbc lookup` fails this key for those requests; `--strict` makes this an error".to_string();
            let before_help =
                d.notes.len() - usize::from(d.notes.last().is_some_and(|n| n.starts_with("help:")));
            d.notes.insert(before_help, note);
        } else if !self.has_site
            && !matches!(
                f.kind,
                FindingKind::Conflict { .. } | FindingKind::DuplicateContribution { .. }
            )
        {
            d.severity = Severity::Warning;
            d = d.with_note(
                "note: no site is part of this check; the site that uses these bindings may supply it",
            );
        }
        d
    }
}

/// How a user would write the `when`s around a binding, highest category first: `when dc
/// 'ams' and node 'kermit'`, or "in `common`" at the top level.
fn when_text(
    bindings: &Bindings,
    levels: &HashMap<SmolStr, u16>,
    mut when: Option<usize>,
) -> String {
    let mut parts: Vec<(u16, String)> = Vec::new();
    while let Some(w) = when {
        let node = &bindings.whens[w];
        for p in node
            .predicates
            .iter()
            .filter(|p| p.categorization != "common")
        {
            let level = levels.get(p.categorization.as_str()).copied().unwrap_or(0);
            let text = match &p.value {
                Code::Value(Value::String(s)) => format!("{} '{s}'", p.categorization),
                Code::Value(v) => format!(
                    "{} '{}'",
                    p.categorization,
                    v.to_display_string().to_lowercase()
                ),
                _ => format!("{} ...", p.categorization),
            };
            parts.push((level, text));
        }
        when = node.parent();
    }
    if parts.is_empty() {
        return "in `common`".to_string();
    }
    parts.sort_by_key(|p| std::cmp::Reverse(p.0));
    let parts: Vec<String> = parts.into_iter().map(|(_, t)| t).collect();
    format!("when `{}`", parts.join(" and "))
}

/// "for requests where `dc` is not `'ams'`": the requests a finding fails for.
fn failing_text(f: &Finding) -> String {
    let alternatives: Vec<String> = f
        .failing
        .iter()
        .map(|conj| {
            if conj.is_empty() {
                return "every request".to_string();
            }
            let parts: Vec<String> = conj.iter().map(condition_text).collect();
            parts.join(" and ")
        })
        .collect();
    let mut text = format!("for requests where {}", alternatives.join(", or where "));
    if f.more > 0 {
        text.push_str(&format!(" (and {} more combinations)", f.more));
    }
    text
}

fn condition_text(c: &Condition) -> String {
    match c {
        Condition::Is { category, value } => format!("`{category}` is `'{value}'`"),
        Condition::IsNot { category, values } => match values.as_slice() {
            [] => format!("`{category}` has any value"),
            [one] => format!("`{category}` is not `'{one}'`"),
            many => format!(
                "`{category}` is none of {}",
                many.iter()
                    .map(|v| format!("`'{v}'`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
        Condition::Computed { category, .. } => {
            format!("`{category}` has the value a `when` computes")
        }
        Condition::Path { path, files, holds } => {
            let files = files
                .iter()
                .map(|f| format!("`{f}`"))
                .collect::<Vec<_>>()
                .join(", ");
            if *holds {
                format!("the data path `{path}` gives {files}")
            } else {
                format!("the data path `{path}` gives none of {files}")
            }
        }
    }
}

/// A bindings file the environment reads that no layer includes (its bindings never apply).
fn not_in_any_layer(
    block: &crate::ast::BindingsBlock,
    layers: &[crate::lower::layers::ComposedLayer],
) -> Diagnostic {
    let names: Vec<&str> = layers.iter().map(|l| l.name.as_str()).collect();
    Diagnostic::warning(
        codes::NOT_IN_ANY_LAYER,
        block.name_span,
        format!("no layer includes `bindings {}`: its bindings never apply", block.name),
    )
    .with_note(format!(
        "note: the layers are {}; a layer includes a file with `confdir:/NAME` (the site's `bindings/`) or `module:/MODULE::NAME`",
        crate::diag::backticked(names)
    ))
}

/// A wildcard include that matches no module's bindings while modules have some: most likely
/// a typo. (A site that declares its layers before any module has bindings is not warned.)
fn include_matches_nothing(
    m: &MissingRef,
    span: crate::span::Span,
    sources: &[BindingsSource],
) -> Option<Diagnostic> {
    let wanted = m
        .uri
        .rsplit("::")
        .next()
        .unwrap_or("")
        .split('?')
        .next()
        .unwrap_or("");
    let mut present: Vec<&str> = sources
        .iter()
        .filter_map(|s| {
            let module = s.module?;
            s.name.strip_prefix(module)?.strip_prefix("::")
        })
        .collect();
    present.sort_unstable();
    present.dedup();
    if present.is_empty() {
        return None;
    }
    let mut d = Diagnostic::warning(
        codes::INCLUDE_MATCHES_NOTHING,
        span,
        format!(
            "the layer `{}` includes `{}`, which matches no module's bindings",
            m.layer, m.uri
        ),
    );
    d = match crate::diag::did_you_mean(wanted, &present) {
        Some(s) => d
            .with_note(format!(
                "help: did you mean `{}{s}`?",
                m.uri.strip_suffix(wanted).unwrap_or("module:/*::")
            ))
            .with_word_fix(wanted, s),
        None => d.with_note(format!(
            "note: the modules' bindings files are named {}",
            crate::diag::backticked(present)
        )),
    };
    Some(d.with_note(
        "note: a wildcard include is optional, so nothing else reports that it found nothing",
    ))
}

fn missing_bindings(m: &MissingRef, sources: &[BindingsSource], out: &mut Vec<Diagnostic>) {
    let Some(span) = m.span else { return };
    if m.wildcard {
        out.extend(include_matches_nothing(m, span, sources));
        return;
    }
    let path = m.uri.split_once(':').map(|(scheme, rest)| {
        let name = rest.split('?').next().unwrap_or("").trim_matches('/');
        let name = name.strip_prefix("::").unwrap_or(name);
        match (scheme, name.split_once("::")) {
            ("module", Some((module, rest))) => {
                format!("modules/{module}/bindings/{}.pp", rest.replace("::", "/"))
            }
            ("confdir-hiera", _) if name.is_empty() => "hiera.yaml".to_string(),
            ("confdir-hiera", _) => format!("{name}/hiera.yaml"),
            ("module-hiera", _) => format!("modules/{name}/hiera.yaml"),
            _ => format!("bindings/{}.pp", name.replace("::", "/")),
        }
    });
    let mut d = Diagnostic::error(
        codes::MISSING_BINDINGS,
        span,
        format!(
            "the layer `{}` includes `{}`, but the tree has no such bindings",
            m.layer, m.uri
        ),
    );
    if let Some(path) = path {
        d = d.with_note(format!(
            "help: add `{path}`, or make the reference optional: `{}?optional`",
            m.uri
        ));
    }
    out.push(d);
}
