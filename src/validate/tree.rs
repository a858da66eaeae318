//! The ARM-8 rules that need the whole tree: one category list per environment, `when`
//! categories the site declares, unique environment names, URI schemes (built in or bound in
//! `bindings_providers`), and contributions to multibinds (the multibind exists, names and value
//! types fit it).

use super::bindings::article;
use super::site::{split_uri, BUILTIN_SCHEMES};
use super::TreeFacts;
use crate::diag::{codes, did_you_mean, Diagnostic};
use crate::types::PType;

/// Multibinds every injector defines (ARM-8 "Binding Classes", "Custom Bindings Provider").
const SYSTEM_MULTIBINDS: &[&str] = &["included_classes", "excluded_classes", "bindings_providers"];

/// Runs the rules over every file's facts (in file order); `has_site`: whether any has a site.
pub(super) fn check(every_file: &[&TreeFacts], has_site: bool, out: &mut Vec<Diagnostic>) {
    let facts = Facts {
        every_file,
        with_site_facts: every_file
            .iter()
            .copied()
            .filter(|f| {
                !(f.categories.is_empty()
                    && f.environments.is_empty()
                    && f.layer_refs.is_empty()
                    && f.multibinds.is_empty())
            })
            .collect(),
        has_site,
    };
    categories(&facts, out);
    environments(&facts, out);
    schemes(&facts, out);
    contributions(&facts, out);
}

/// The tree's facts as each file's judgement holds them: a list of the tree's is every file's
/// list in file order.
struct Facts<'f> {
    every_file: &'f [&'f TreeFacts],
    /// The files with categories, environments, layer references or multibinds, in file
    /// order: a few of a large tree's. The rules read these lists several times each, and
    /// going through every file's facts for each was most of the rules' time (each file's
    /// facts are apart from the others', and each pass read them all from memory again).
    with_site_facts: Vec<&'f TreeFacts>,
    has_site: bool,
}

impl<'f> Facts<'f> {
    /// Every file's `list`, one after another.
    fn all<T: 'f>(&self, list: fn(&TreeFacts) -> &[T]) -> impl Iterator<Item = &'f T> + 'f {
        self.every_file.iter().flat_map(move |f| list(f))
    }

    /// [`Facts::all`] of a list only files [`Facts::with_site_facts`] holds have.
    fn all_of_few<'a, T: 'f>(
        &'a self,
        list: fn(&TreeFacts) -> &[T],
    ) -> impl Iterator<Item = &'f T> + 'a {
        self.with_site_facts.iter().flat_map(move |f| list(f))
    }
}

fn categories(facts: &Facts, out: &mut Vec<Diagnostic>) {
    let mut declarations = facts.all_of_few(|f| &f.categories);
    if let Some(first) = declarations.next() {
        for again in declarations {
            out.push(
                Diagnostic::error(
                    codes::DUPLICATE_CATEGORIES,
                    again.span,
                    "a second `site { categories { } }` in this environment",
                )
                .with_label(first.span, "the categories are declared here")
                .with_note(
                    "note: the categories and their precedence are declared once per environment",
                ),
            );
        }
    }
    // D8/D10: node, environment and common always exist.
    let mut declared: Vec<&str> = vec!["node", "environment", "common"];
    let mut declared_at: Vec<(&str, crate::span::Span)> = Vec::new();
    match facts.all_of_few(|f| &f.categories).next() {
        Some(first) => {
            declared.extend(first.names.iter().map(|(n, _)| n.as_str()));
            declared_at.extend(first.names.iter().map(|(n, s)| (n.as_str(), *s)));
        }
        // D10: without a declaration, ARM-9's defaults.
        None => declared.extend(crate::lower::DEFAULT_CATEGORIES),
    }
    // Each category a `when` uses, looked up once per use (a large tree has several `when`s
    // per file, of a few categories): whether a declared one is used, or an undeclared one's
    // place in `undeclared`, which holds every `when` that names it, in order of first use.
    enum Use {
        Declared { used: bool },
        Undeclared(usize),
    }
    let mut uses: foldhash::HashMap<&str, Use> = declared
        .iter()
        .map(|&name| (name, Use::Declared { used: false }))
        .collect();
    let mut undeclared: Vec<(&str, Vec<crate::span::Span>)> = Vec::new();
    for (cat, span) in facts.all(|f| &f.when_categories) {
        match uses.entry(cat.as_str()) {
            std::collections::hash_map::Entry::Occupied(mut place) => match place.get_mut() {
                Use::Undeclared(at) => undeclared[*at].1.push(*span),
                Use::Declared { used } => *used = true,
            },
            std::collections::hash_map::Entry::Vacant(place) => {
                place.insert(Use::Undeclared(undeclared.len()));
                undeclared.push((cat.as_str(), vec![*span]));
            }
        }
    }
    let used = |c: &str| {
        matches!(
            uses.get(c),
            Some(Use::Declared { used: true } | Use::Undeclared(_))
        )
    };
    for (cat, spans) in undeclared {
        let suggestion = did_you_mean(cat, &declared);
        let declaration = suggestion.and_then(|s| declared_at.iter().find(|(n, _)| *n == s));
        // The site's name is the typo when no `when` uses it: one finding, at the site.
        if let (Some(&(name, at)), true) = (declaration, facts.has_site) {
            if !used(name) {
                let mut d = Diagnostic::error(
                    codes::UNKNOWN_CATEGORY,
                    at,
                    format!(
                        "the site declares the category `{name}`, which no `when` uses, but the bindings use `{cat}`"
                    ),
                );
                for span in spans.iter().take(5) {
                    d = d.with_label(*span, format!("`{cat}` is used here"));
                }
                if spans.len() > 5 {
                    d = d.with_note(format!(
                        "note: and {} more uses of `{cat}`",
                        spans.len() - 5
                    ));
                }
                out.push(
                    d.with_note(format!(
                        "help: did you mean `{cat}`? rename the category in the site"
                    ))
                    .with_word_fix(name, cat),
                );
                continue;
            }
        }
        for span in spans {
            let message = format!("the category `{cat}` is not declared by the site");
            let mut d = if facts.has_site {
                Diagnostic::error(codes::UNKNOWN_CATEGORY, span, message)
            } else {
                Diagnostic::warning(codes::UNKNOWN_CATEGORY, span, message)
            };
            if let Some(&(name, at)) = declaration {
                d = d.with_label(at, format!("the site declares `{name}`"));
            }
            d = match suggestion {
                Some(s) => d.did_you_mean(cat, s),
                None if facts.has_site => d.with_note(format!(
                    "help: add `{cat} => <value expression>` to `site {{ categories {{ }} }}`"
                )),
                None => d.with_note(
                    "note: no site is part of this check; the site that uses these bindings must declare it",
                ),
            };
            out.push(d);
        }
    }
}

fn environments(facts: &Facts, out: &mut Vec<Diagnostic>) {
    // The first declaration of each name, found by name: a site of thousands of environments
    // stays linear.
    let mut first_of: foldhash::HashMap<&str, crate::span::Span> = foldhash::HashMap::default();
    for (name, span) in facts.all_of_few(|f| &f.environments) {
        if let Some(first) = first_of.get(name.as_str()) {
            out.push(
                Diagnostic::error(
                    codes::DUPLICATE_ENVIRONMENT,
                    *span,
                    format!("the environment `{name}` is declared twice"),
                )
                .with_label(*first, "first declared here"),
            );
        } else {
            first_of.insert(name, *span);
        }
    }
}

fn schemes(facts: &Facts, out: &mut Vec<Diagnostic>) {
    let mut known: Vec<&str> = BUILTIN_SCHEMES.to_vec();
    for c in facts
        .all(|f| &f.contributions)
        .filter(|c| c.id == "bindings_providers")
    {
        if let Some((n, _)) = &c.name {
            known.push(n);
        }
    }
    for r in facts.all_of_few(|f| &f.layer_refs) {
        let Some((scheme, _)) = split_uri(&r.uri) else {
            continue;
        };
        if known.contains(&scheme) {
            continue;
        }
        let mut d = Diagnostic::warning(
            codes::UNKNOWN_REF_SCHEME,
            r.span,
            format!("no bindings provider handles the scheme `{scheme}`"),
        );
        d = match did_you_mean(scheme, &known) {
            Some(s) => d.did_you_mean(scheme, s),
            None => d.with_note(format!(
                "help: bind a provider for it: `bind '{scheme}' to Type[MyProvider] in 'bindings_providers'`"
            )),
        };
        out.push(d);
    }
}

fn contributions(facts: &Facts, out: &mut Vec<Diagnostic>) {
    // Multibinds by id, once: a tree of many contributions stays linear.
    let mut by_id: foldhash::HashMap<&str, Vec<&super::MultibindDecl>> =
        foldhash::HashMap::default();
    for m in facts.all_of_few(|f| &f.multibinds) {
        by_id.entry(m.id.as_str()).or_default().push(m);
    }
    let ids: Vec<&str> = facts
        .all_of_few(|f| &f.multibinds)
        .map(|m| m.id.as_str())
        .collect();
    for c in facts.all(|f| &f.contributions) {
        let decls: &[&super::MultibindDecl] = by_id.get(c.id.as_str()).map_or(&[], Vec::as_slice);
        if decls.is_empty() {
            if SYSTEM_MULTIBINDS.contains(&c.id.as_str()) {
                continue;
            }
            let mut d = Diagnostic::warning(
                codes::UNKNOWN_MULTIBIND,
                c.id_span,
                format!("no multibind in this tree has the id `{}`", c.id),
            );
            d = match did_you_mean(&c.id, &ids) {
                Some(s) => d.did_you_mean(&c.id, s),
                None => d.with_note("note: the contribution is lost unless another module declares `multibind ... as` this id"),
            };
            out.push(d);
            continue;
        }
        let Some((decl, ty)) = decls.iter().find_map(|m| m.ty.as_ref().map(|t| (*m, t))) else {
            continue;
        };
        match ty {
            PType::Hash(_, element) => {
                if c.name.is_none() {
                    out.push(
                        Diagnostic::error(
                            codes::HASH_CONTRIBUTION_WITHOUT_NAME,
                            c.span,
                            format!(
                                "a contribution to the Hash multibind `{}` needs a name (its key)",
                                c.id
                            ),
                        )
                        .with_label(decl.span, "the multibind")
                        .with_note(format!("help: write `bind 'KEY' to VALUE in '{}'`", c.id)),
                    );
                }
                if let Some((t, span)) = &c.value {
                    fits(element, t, *span, &c.id, out);
                }
            }
            PType::Array(element) => {
                if let Some((t, span)) = &c.value {
                    // An array contribution is concatenated: it may be an element or an array.
                    let whole = PType::Array(element.clone());
                    if !element.assignable_from(t) && !whole.assignable_from(t) {
                        fits(element, t, *span, &c.id, out);
                    }
                }
            }
            _ => {}
        }
    }
}

fn fits(element: &PType, t: &PType, span: crate::span::Span, id: &str, out: &mut Vec<Diagnostic>) {
    if !element.assignable_from(t) {
        out.push(Diagnostic::error(
            codes::CONTRIBUTION_INCOMPATIBLE_TYPE,
            span,
            format!(
                "this contribution is {} `{t}`, but the multibind `{id}` collects `{element}`",
                article(t)
            ),
        ));
    }
}
