//! ARM-8's rules for `site { }` blocks and `environments.pp` (DECISIONS D8-D10, D16): the
//! category list, environment resources, and the layer list with its bindings URIs. Rules that
//! need the whole tree (a second category list, duplicate environment names across files,
//! schemes bound in `bindings_providers`) only record facts here; `tree` judges them.

use super::{CategoriesDecl, LayerRef, TreeFacts};
use crate::ast::{AttributeOp, Expr, ExprKind, Layer, Program, ResourceBody, Site, SiteItem};
use crate::diag::{codes, did_you_mean, Diagnostic};
use crate::lower::layers::spec_of;
use crate::span::Span;
use crate::tree::FileRole;
use smol_str::SmolStr;

/// The attributes an environment resource may set (ARM-8 "environments.pp").
pub const ENVIRONMENT_ATTRIBUTES: &[&str] = &[
    "envdir",
    "modulepath",
    "manifestdir",
    "manifest",
    "templatedir",
    "bindingsdir",
];

/// Schemes pbc knows without a `bindings_providers` binding.
pub const BUILTIN_SCHEMES: &[&str] = &["confdir", "module", "enc", "confdir-hiera", "module-hiera"];

pub(super) fn check_file(
    role: &FileRole,
    program: &Program,
    facts: &mut TreeFacts,
    out: &mut Vec<Diagnostic>,
) {
    let has_site = program
        .body
        .iter()
        .any(|e| matches!(e.kind, ExprKind::Site(_)));
    for e in &program.body {
        if let ExprKind::Site(site) = &e.kind {
            facts.has_site = true;
            check_site(site, facts, out);
        }
    }
    if *role == FileRole::Environments {
        // No injector exists while environments.pp runs.
        for e in &program.body {
            find_injections(
                e,
                "`environments.pp` is evaluated before the injector exists",
                out,
            );
        }
    }
    if *role == FileRole::Environments || has_site {
        for e in &program.body {
            if !matches!(e.kind, ExprKind::Site(_)) {
                environments_outside_site(e, out);
            }
        }
    }
}

fn check_site(site: &Site, facts: &mut TreeFacts, out: &mut Vec<Diagnostic>) {
    for item in &site.items {
        match item {
            SiteItem::Categories { entries, span } => {
                let mut names: Vec<(smol_str::SmolStr, Span)> = Vec::new();
                // Where each name was first listed (a site may list thousands).
                let mut first_listed: foldhash::HashMap<&str, Span> =
                    foldhash::HashMap::with_capacity_and_hasher(entries.len(), Default::default());
                for c in entries {
                    let name_span = c.span.prefix(c.name.len());
                    if !valid_category_name(&c.name) {
                        out.push(
                            Diagnostic::error(
                                codes::INVALID_CATEGORY_NAME,
                                name_span,
                                format!("`{}` is not a valid category name", c.name),
                            )
                            .with_note("help: a category name is a lower-case letter followed by letters, digits or `_` (`[a-z][a-zA-Z0-9_]*`)"),
                        );
                    }
                    if let Some(first) = first_listed.get(c.name.as_str()) {
                        out.push(
                            Diagnostic::error(
                                codes::DUPLICATE_CATEGORY,
                                name_span,
                                format!("the category `{}` is listed twice", c.name),
                            )
                            .with_label(*first, "first listed here"),
                        );
                        continue;
                    }
                    match c.name.as_str() {
                        "common" => out.push(
                            Diagnostic::error(
                                codes::CATEGORY_COMMON_LISTED,
                                name_span,
                                "the category `common` may not be listed",
                            )
                            .with_note("note: `common` is always present, below every other category; remove this entry"),
                        ),
                        "environment" if !matches!(c.value.kind, ExprKind::Boolean { value: true }) => {
                            out.push(
                                Diagnostic::error(
                                    codes::CATEGORY_ENVIRONMENT_VALUE,
                                    c.value.span,
                                    "the category `environment` takes the value `true`",
                                )
                                .with_note("note: `environment` always evaluates to `$environment`; listing it only sets its precedence"),
                            )
                        }
                        _ => {}
                    }
                    find_injections(
                        &c.value,
                        "category values are evaluated before the injector exists",
                        out,
                    );
                    first_listed.insert(c.name.as_str(), name_span);
                    names.push((c.name.clone(), name_span));
                }
                let pos = |n: &str| names.iter().position(|(x, _)| x == n);
                if let (Some(node), Some(env)) = (pos("node"), pos("environment")) {
                    if node > env {
                        out.push(
                            Diagnostic::error(
                                codes::CATEGORY_NODE_BELOW_ENVIRONMENT,
                                names[node].1,
                                "the category `node` is ranked below `environment`",
                            )
                            .with_label(names[env].1, "`environment` is listed here")
                            .with_note("help: list `node` before `environment` (the first listed has the highest precedence)"),
                        );
                    }
                }
                facts.categories.push(CategoriesDecl {
                    names,
                    span: span.prefix("categories".len()),
                });
            }
            SiteItem::Layers { layers, .. } => check_layers(layers, facts, out),
            SiteItem::EnvironmentDefaults { ops, .. } => {
                check_environment_ops(ops, "Environment", out)
            }
            SiteItem::Environment { bodies, .. } => {
                for b in bodies {
                    check_environment_ops(&b.ops, "environment", out);
                    if let Some(name) = b.title.literal_text() {
                        facts.environments.push((name.to_string(), b.title.span));
                    }
                }
            }
            SiteItem::DynamicEnvironments { bodies, .. } => {
                for b in bodies {
                    check_dynamic(b, out);
                }
            }
            SiteItem::Statement { expr } => categories_not_at_site_level(expr, out),
        }
    }
}

/// `[a-z][a-zA-Z0-9_]*`, anchored (Puppet 3 forgot the anchors; we do not copy that).
fn valid_category_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The literal text a string starts with, when it starts with literal text (`"$confdir/x"`
/// starts with an interpolation and has none).
fn literal_prefix(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::String { value } => Some(value),
        ExprKind::Concat { segments } => match segments.first().map(|s| &s.kind) {
            Some(ExprKind::String { value }) => Some(value),
            _ => None,
        },
        _ => None,
    }
}

fn is_absolute_path(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'/' | b'\\'))
}

fn check_environment_ops(ops: &[AttributeOp], what: &str, out: &mut Vec<Diagnostic>) {
    for op in ops {
        let span = op.span.prefix(op.name.len());
        if op.name == "*" {
            continue;
        }
        if !ENVIRONMENT_ATTRIBUTES.contains(&op.name.as_str()) {
            let mut d = Diagnostic::error(
                codes::UNKNOWN_ENVIRONMENT_ATTRIBUTE,
                span,
                format!("`{what}` has no attribute `{}`", op.name),
            );
            d = match did_you_mean(&op.name, ENVIRONMENT_ATTRIBUTES) {
                Some(s) => d.did_you_mean(&op.name, s),
                None => d.with_note(format!(
                    "note: the attributes are {}",
                    crate::diag::backticked(ENVIRONMENT_ATTRIBUTES)
                )),
            };
            out.push(d);
            continue;
        }
        if let Some(found) = not_a_path(&op.value, op.name == "modulepath") {
            let expected = if op.name == "modulepath" {
                "a path (a String, colon separated) or an Array of paths"
            } else {
                "a path (a String)"
            };
            out.push(
                Diagnostic::error(
                    codes::ENVIRONMENT_PATH_TYPE,
                    op.value.span,
                    format!("`{}` is {expected}, not {found}", op.name),
                )
                .with_note("note: `undef` or `default` leaves the attribute at its default"),
            );
            continue;
        }
        if op.name == "envdir" && what == "dynamic_environments" {
            out.push(
                Diagnostic::error(
                    codes::ENVDIR_ON_DYNAMIC_ENVIRONMENTS,
                    span,
                    "`dynamic_environments` cannot set `envdir`",
                )
                .with_note(
                    "note: a dynamic environment's `envdir` is the sub-directory named after it",
                ),
            );
        } else if op.name == "envdir" {
            if let Some(p) = literal_prefix(&op.value) {
                if !is_absolute_path(p) {
                    let shown = match op.value.kind {
                        ExprKind::Concat { .. } => format!("{p}..."),
                        _ => p.to_string(),
                    };
                    out.push(
                        Diagnostic::error(
                            codes::RELATIVE_ENVDIR,
                            op.value.span,
                            format!("`envdir` must be an absolute path, not `{shown}`"),
                        )
                        .with_note("note: the other paths of an environment are resolved against `envdir`, so it cannot be relative itself"),
                    );
                }
            }
        }
    }
}

/// What a literal attribute value is when it cannot be a path (`None`: a String, `undef`,
/// `default`, anything computed, or for `modulepath` an Array of those).
fn not_a_path(e: &Expr, list: bool) -> Option<String> {
    let kind = match &e.kind {
        ExprKind::Integer { .. } => "an Integer",
        ExprKind::Float { .. } => "a Float",
        ExprKind::Boolean { .. } => "a Boolean",
        ExprKind::Regex { .. } => "a Regexp",
        ExprKind::Hash { .. } => "a Hash",
        ExprKind::QualifiedReference { .. } => "a Type",
        ExprKind::Array { elements } if list => {
            return elements.iter().find_map(|x| {
                not_a_path(x, false).map(|inner| format!("an Array holding {inner}"))
            })
        }
        ExprKind::Array { .. } => "an Array",
        _ => return None,
    };
    Some(kind.to_string())
}

fn check_dynamic(body: &ResourceBody, out: &mut Vec<Diagnostic>) {
    if let Some(p) = body.title.literal_text() {
        if !is_absolute_path(p) {
            out.push(
                Diagnostic::error(
                    codes::RELATIVE_DYNAMIC_ENVIRONMENTS,
                    body.title.span,
                    format!("the `dynamic_environments` directory must be an absolute path, not `{p}`"),
                )
                .with_note("help: write the directory that holds one sub-directory per environment, e.g. `'/etc/puppet/environments'`"),
            );
        }
    }
    check_environment_ops(&body.ops, "dynamic_environments", out);
}

fn check_layers(layers: &[Layer], facts: &mut TreeFacts, out: &mut Vec<Diagnostic>) {
    let mut seen: Vec<(&str, Span)> = Vec::new();
    for layer in layers {
        if let Some(name) = layer.name.literal_text() {
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == name) {
                out.push(
                    Diagnostic::error(
                        codes::DUPLICATE_LAYER_NAME,
                        layer.name.span,
                        format!("the layer `{name}` is defined twice"),
                    )
                    .with_label(*first, "first defined here"),
                );
            } else {
                seen.push((name, layer.name.span));
            }
        }
        for op in &layer.ops {
            let span = op.span.prefix(op.name.len());
            if op.name != "include" && op.name != "exclude" {
                let mut d = Diagnostic::error(
                    codes::UNKNOWN_LAYER_ATTRIBUTE,
                    span,
                    format!("a layer has no attribute `{}`", op.name),
                );
                d = match did_you_mean(&op.name, &["include", "exclude"]) {
                    Some(s) => d.did_you_mean(&op.name, s),
                    None => d.with_note("note: a layer takes `include` and `exclude`"),
                };
                out.push(d);
                continue;
            }
            let refs: Vec<&Expr> = match &op.value.kind {
                ExprKind::Array { elements } => elements.iter().collect(),
                _ => vec![&op.value],
            };
            for r in refs {
                match &r.kind {
                    ExprKind::String { value } => {
                        check_uri(value, r.span, out);
                        facts.layer_refs.push(LayerRef {
                            uri: SmolStr::new(value),
                            span: r.span,
                        });
                    }
                    ExprKind::Concat { .. } => {}
                    _ => out.push(
                        Diagnostic::error(
                            codes::BINDINGS_REF_NOT_STRING_OR_ARRAY,
                            r.span,
                            format!(
                                "`{}` takes a bindings URI or an array of them",
                                op.name
                            ),
                        )
                        .with_note(format!(
                            "help: write `{} => 'confdir:/default'` or `{} => ['module:/*::default']`",
                            op.name, op.name
                        )),
                    ),
                }
            }
        }
    }
    // The first layer list is the one that composes.
    facts
        .layers
        .get_or_insert_with(|| layers.iter().map(spec_of).collect());
}

/// `scheme:path`, split; `None` when there is no scheme.
pub(super) fn split_uri(uri: &str) -> Option<(&str, &str)> {
    let colon = uri.find(':')?;
    let scheme = &uri[..colon];
    let mut chars = scheme.chars();
    let ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        // `_` is not RFC 3986, but ARM-8's own example scheme is `my_ldap`.
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.' | '_'));
    ok.then(|| (scheme, &uri[colon + 1..]))
}

fn check_uri(uri: &str, span: Span, out: &mut Vec<Diagnostic>) {
    let Some((scheme, rest)) = split_uri(uri) else {
        out.push(
            Diagnostic::error(
                codes::MISSING_SCHEME,
                span,
                format!("the bindings URI `{uri}` has no scheme"),
            )
            .with_note(format!(
                "help: name where the bindings come from, e.g. `confdir:/{}` or `module:/{}`",
                uri.trim_start_matches('/'),
                uri.trim_start_matches('/')
            )),
        );
        return;
    };
    if !BUILTIN_SCHEMES.contains(&scheme) || scheme == "enc" {
        // Custom schemes define their own paths; `enc:` alone means everything from the ENC.
        return;
    }
    let path = rest.split(['?', '#']).next().unwrap_or("");
    let path = path.strip_prefix('/').unwrap_or(path);
    // `confdir-hiera:/` is the environment's own `hiera.yaml` (D21).
    if path.is_empty() && scheme != "confdir-hiera" {
        out.push(
            Diagnostic::error(
                codes::REF_WITHOUT_PATH,
                span,
                format!("the bindings URI `{uri}` has no path"),
            )
            .with_note(match scheme {
                "module" => "help: name a module's bindings, e.g. `module:/ntp::default` or `module:/*::default`",
                "module-hiera" => "help: name a module, e.g. `module-hiera:/ntp` or `module-hiera:/*`",
                _ => "help: name the bindings, e.g. `confdir:/default`",
            }),
        );
        return;
    }
    // Names, not paths: no segment may climb out of the environment or the module, however
    // it is spelt (`..`, `%2e%2e`, `%2E.`).
    let decoded = path.replace("%2e", ".").replace("%2E", ".");
    if decoded
        .split(['/', ':'])
        .any(|segment| segment == "." || segment == "..")
    {
        out.push(
            Diagnostic::error(
                codes::URI_PATH_ESCAPES,
                span,
                format!("the bindings URI `{uri}` has a `.` or `..` segment"),
            )
            .with_note("note: a bindings URI names bindings of the environment or of a module; it never leads to a file elsewhere")
            .with_note(match scheme {
                "module" | "module-hiera" => "help: name the module and its bindings, e.g. `module:/ntp::default`",
                _ => "help: name the bindings below the environment's bindings directory, e.g. `confdir:/team::web`",
            }),
        );
        return;
    }
    // `*` may stand only for the module: the first segment of `module:` and `module-hiera:`.
    let module_segment = match scheme {
        "module" => path.split("::").next(),
        "module-hiera" => path.split('/').next(),
        _ => None,
    };
    let wildcard_ok = |seg: Option<&str>| seg == Some("*");
    // `module-hiera:/MODULE/*` is every `hiera.yaml` of the module (ARM-9 improvements'
    // `exclude => 'module-hiera:/bad/*'`, D21).
    let every_dir = scheme == "module-hiera" && {
        let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
        segments.len() == 2 && segments[1] == "*"
    };
    let stars = path.matches('*').count();
    let allowed = usize::from(wildcard_ok(module_segment)) + usize::from(every_dir);
    if stars > allowed || (stars == 1 && !wildcard_ok(module_segment) && !every_dir) {
        out.push(
            Diagnostic::error(
                codes::ILLEGAL_WILDCARD,
                span,
                format!("`*` in `{uri}` may only stand for the whole module name"),
            )
            .with_note("help: write `module:/*::NAME` to include `NAME` from every module"),
        );
    }
}

/// Reports `lookup`/`inject` calls in `e` (D16).
fn find_injections(e: &Expr, why: &str, out: &mut Vec<Diagnostic>) {
    e.walk(|x| {
        let called = match &x.kind {
            ExprKind::Call { functor, .. } => match &functor.kind {
                ExprKind::QualifiedName { name } => Some(name.trim_start_matches("::")),
                _ => None,
            },
            ExprKind::MethodCall(call) => Some(call.method.as_str()),
            _ => None,
        };
        if let Some(f) = called.filter(|f| *f == "lookup" || *f == "inject") {
            out.push(
                Diagnostic::error(
                    codes::INJECTION_BEFORE_INJECTOR,
                    x.span,
                    format!("`{f}` cannot be called here: {why}"),
                )
                .with_note("help: use facts and variables here; bind the value instead and look it up where it is used"),
            );
        }
        true
    });
}

fn environments_outside_site(e: &Expr, out: &mut Vec<Diagnostic>) {
    e.walk(|x| {
        let what = match &x.kind {
            ExprKind::Resource { type_expr, .. } => match &type_expr.kind {
                ExprKind::QualifiedName { name }
                    if name == "environment" || name == "dynamic_environments" =>
                {
                    Some((name.as_str(), type_expr.span))
                }
                _ => None,
            },
            ExprKind::ResourceDefaults { type_expr, .. } => match &type_expr.kind {
                ExprKind::QualifiedReference { name } if name == "Environment" => {
                    Some(("Environment", type_expr.span))
                }
                _ => None,
            },
            _ => None,
        };
        if let Some((w, span)) = what {
            out.push(
                Diagnostic::error(
                    codes::ENVIRONMENT_OUTSIDE_SITE,
                    span,
                    format!("`{w}` may only be declared directly inside `site {{ }}`"),
                )
                .with_note("note: environment resources configure the site; they are not placed in a catalog"),
            );
        }
        !matches!(x.kind, ExprKind::Site(_))
    });
}

/// `categories { }` nested in a statement of the site (the parser lifts only those written
/// directly in the site body).
fn categories_not_at_site_level(e: &Expr, out: &mut Vec<Diagnostic>) {
    e.walk(|x| {
        let construct = match &x.kind {
            ExprKind::If { .. } => Some("if"),
            ExprKind::Unless { .. } => Some("unless"),
            ExprKind::Case { .. } => Some("case"),
            ExprKind::Selector { .. } => Some("a selector"),
            ExprKind::Categories { .. } => {
                out.push(
                    Diagnostic::error(
                        codes::CATEGORIES_IN_CONDITIONAL,
                        x.span.prefix("categories".len()),
                        "`categories` must be declared directly inside `site { }`",
                    )
                    .with_note("note: the categories and their precedence are fixed for the whole site"),
                );
                None
            }
            _ => None,
        };
        if let Some(c) = construct {
            x.for_each_child(&mut |child| {
                child.walk(|y| {
                    if let ExprKind::Categories { .. } = y.kind {
                        let shown = if c == "a selector" { c.to_string() } else { format!("`{c}`") };
                        out.push(
                            Diagnostic::error(
                                codes::CATEGORIES_IN_CONDITIONAL,
                                y.span.prefix("categories".len()),
                                format!("`categories` may not be declared inside {shown}"),
                            )
                            .with_label(
                                if c == "a selector" { x.span } else { x.span.prefix(c.len()) },
                                "the condition",
                            )
                            .with_note("help: declare one `categories { }` directly in `site { }`; compute a category's value with a conditional expression instead"),
                        );
                    }
                    true
                })
            });
            return false;
        }
        true
    });
}
