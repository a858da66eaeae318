//! `binder_config.yaml` (ARM-9, D19): the categories and layers of an environment given as
//! YAML instead of a `site { }`. Versions 1 (`categories` as `[name, value]` pairs) and 2 (also
//! `name` alone, or `{name, value}`, the value defaulting to `${name}`). The file is read into
//! the `site { }` it stands for, with spans in the YAML, so that the site's rules (category
//! names, layer names and URIs ...) and everything after treat it as a site. This module reads
//! the file's shape; it does not judge categories or URIs (the site rules do).

use super::yaml::{self, Node, NodeKind};
use crate::ast::{
    AttributeOp, AttributeOpKind, Category, Expr, ExprKind, Layer, Program, Site, SiteItem,
};
use crate::diag::{codes, Diagnostic};
use crate::span::{FileId, Span};

/// What the file declares, for the rule that a site and a `binder_config.yaml` may not both.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Declares {
    pub categories: bool,
    pub layers: bool,
}

/// The `site { }` the file stands for (`None` when it cannot be read), what it declares, and its
/// diagnostics.
pub fn read(file: FileId, text: &str) -> (Option<Program>, Declares, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let mut declares = Declares::default();
    let doc = match yaml::parse(file, text) {
        Ok(Some(doc)) if matches!(doc.kind, NodeKind::Mapping(_)) => doc,
        Ok(other) => {
            out.push(Diagnostic::error(
                codes::CONFIG_IS_NOT_HASH,
                other.map_or(Span::new(file, 0, 0), |d| d.span),
                "a binder_config.yaml holds a hash with `version`, `layers` and `categories`",
            ));
            return (None, declares, out);
        }
        Err(e) => {
            out.push(Diagnostic::error(
                e.code.unwrap_or(codes::CONFIG_FILE_SYNTAX_ERROR),
                e.span,
                format!("this binder_config.yaml is not valid YAML: {}", e.message),
            ));
            return (None, declares, out);
        }
    };
    let version = match doc.get("version").map(|v| &v.kind) {
        Some(NodeKind::Integer(v @ (1 | 2))) => *v,
        Some(_) => {
            let at = doc.get("version").map_or(doc.span, |v| v.span);
            out.push(
                Diagnostic::error(
                    codes::CONFIG_WRONG_VERSION,
                    at,
                    "a binder_config.yaml has `version: 1` or `version: 2`",
                )
                .with_note(
                    "note: version 2 adds categories written as a name alone or as `{name, value}`",
                ),
            );
            return (None, declares, out);
        }
        None => {
            out.push(
                Diagnostic::error(
                    codes::CONFIG_VERSION_MISSING,
                    first_key(&doc),
                    "this binder_config.yaml has no `version`",
                )
                .with_note("help: start it with `version: 2`"),
            );
            return (None, declares, out);
        }
    };
    let mut items = Vec::new();
    if let Some(categories) = doc.get("categories") {
        declares.categories = true;
        if let Some(entries) = read_categories(file, text, categories, version, &mut out) {
            items.push(SiteItem::Categories {
                entries,
                span: key_of(&doc, "categories").map_or(categories.span, |k| k.span),
            });
        }
    }
    if let Some(layers) = doc.get("layers") {
        declares.layers = true;
        if let Some(layers) = read_layers(file, text, layers, &mut out) {
            items.push(SiteItem::Layers {
                span: key_of(&doc, "layers").map_or(doc.span, |k| k.span),
                layers,
            });
        }
    }
    if let Some(extensions) = key_of(&doc, "extensions") {
        out.push(
            Diagnostic::warning(
                codes::EXTENSIONS_NOT_SUPPORTED,
                extensions.span,
                "`extensions` name Ruby scheme handlers and backends, which cannot run outside Puppet: ignored",
            )
            .with_note("note: URIs of a scheme they would handle contribute nothing"),
        );
    }
    let whole = Span::new(file, 0, text.len());
    let site = Expr {
        kind: ExprKind::Site(Box::new(Site { items, span: whole })),
        span: whole,
        depth: 1,
    };
    let program = Program {
        body: vec![site],
        span: whole,
    };
    (Some(program), declares, out)
}

fn key_of<'n>(doc: &'n Node, key: &str) -> Option<&'n Node> {
    doc.entry(key).map(|(k, _)| k)
}

fn first_key(doc: &Node) -> Span {
    match &doc.kind {
        NodeKind::Mapping(entries) => entries.first().map_or(doc.span, |(k, _)| k.span),
        _ => doc.span,
    }
}

fn string(value: &str, span: Span) -> Expr {
    Expr {
        kind: ExprKind::String {
            value: value.into(),
        },
        span,
        depth: 1,
    }
}

/// A category value: the Puppet string it is (`'${fqdn}'`, `'$osfamily'`, `'true'`).
fn value_expr(file: FileId, text: &str, value: &str, span: Span) -> Expr {
    if value == "true" {
        return Expr {
            kind: ExprKind::Boolean { value: true },
            span,
            depth: 1,
        };
    }
    let quoted = matches!(text.as_bytes().get(span.start as usize), Some(b'\'' | b'"'));
    super::files::parse_string(file, value, span, quoted).unwrap_or_else(|| string(value, span))
}

fn read_categories(
    file: FileId,
    text: &str,
    node: &Node,
    version: i64,
    out: &mut Vec<Diagnostic>,
) -> Option<Vec<Category>> {
    let NodeKind::Sequence(entries) = &node.kind else {
        out.push(Diagnostic::error(
            codes::CATEGORIES_IS_NOT_ARRAY,
            node.span,
            format!(
                "`categories` is a list, highest first, not {}",
                node.kind_name()
            ),
        ));
        return None;
    };
    let mut categories = Vec::new();
    for entry in entries {
        let (name, value) = match &entry.kind {
            NodeKind::Sequence(pair) => match pair.as_slice() {
                [n, v] => match (n.as_str(), v.as_str()) {
                    (Some(name), Some(value)) => {
                        ((name, n.span), Some((value.to_string(), v.span)))
                    }
                    _ => {
                        out.push(Diagnostic::error(
                            codes::CATEGORY_IS_NOT_ARRAY,
                            entry.span,
                            "a category is two strings: `[name, value]`",
                        ));
                        continue;
                    }
                },
                _ => {
                    out.push(
                        Diagnostic::error(
                            codes::CATEGORY_NOT_TWO_STRINGS,
                            entry.span,
                            format!(
                                "a category is two strings, `[name, value]`, not {}",
                                pair.len()
                            ),
                        )
                        .with_note("help: e.g. `['osfamily', '${osfamily}']`"),
                    );
                    continue;
                }
            },
            NodeKind::String(name) if version == 2 => ((name.as_str(), entry.span), None),
            NodeKind::Mapping(_) if version == 2 => {
                match entry.get("name").and_then(|n| n.as_str().map(|s| (s, n))) {
                    Some((name, n)) => (
                        (name, n.span),
                        entry
                            .get("value")
                            .and_then(|v| v.as_str().map(|s| (s.to_string(), v.span))),
                    ),
                    None => {
                        out.push(Diagnostic::error(
                            codes::CATEGORY_IS_NOT_ARRAY,
                            entry.span,
                            "a category written as a hash has a `name` (and optionally a `value`)",
                        ));
                        continue;
                    }
                }
            }
            _ => {
                out.push(Diagnostic::error(
                    codes::CATEGORY_IS_NOT_ARRAY,
                    entry.span,
                    format!(
                        "a version {version} category is {}",
                        if version == 1 {
                            "`[name, value]`"
                        } else {
                            "`[name, value]`, a name, or `{name, value}`"
                        }
                    ),
                ));
                continue;
            }
        };
        let ((name, name_span), value) = (name, value);
        // `common` is always the last category (Puppet 3.4's files list it; a site may not).
        if name == "common" {
            continue;
        }
        let value = match value {
            // `environment` is always the request's environment (D8): its written value
            // (`${environment}` in Puppet 3.4's files) says nothing more.
            _ if name == "environment" => value_expr(file, text, "true", name_span),
            Some((v, span)) => value_expr(file, text, &v, span),
            // A name alone is the fact of that name; `node` is the node's name (D8).
            None if name == "node" => value_expr(file, text, "${::fqdn}", name_span),
            None => value_expr(file, text, &format!("${{{name}}}"), name_span),
        };
        categories.push(Category {
            name: name.into(),
            value,
            span: name_span,
        });
    }
    Some(categories)
}

fn read_layers(
    file: FileId,
    text: &str,
    node: &Node,
    out: &mut Vec<Diagnostic>,
) -> Option<Vec<Layer>> {
    let NodeKind::Sequence(entries) = &node.kind else {
        out.push(Diagnostic::error(
            codes::LAYERS_IS_NOT_ARRAY,
            node.span,
            format!(
                "`layers` is a list of layers, highest first, not {}",
                node.kind_name()
            ),
        ));
        return None;
    };
    let mut layers = Vec::new();
    for entry in entries {
        let NodeKind::Mapping(attributes) = &entry.kind else {
            out.push(Diagnostic::error(
                codes::LAYER_IS_NOT_HASH,
                entry.span,
                format!(
                    "a layer is a hash with `name`, `include` and `exclude`, not {}",
                    entry.kind_name()
                ),
            ));
            continue;
        };
        let Some(name) = entry
            .get("name")
            .and_then(|n| n.as_str().map(|s| string(s, n.span)))
        else {
            out.push(Diagnostic::error(
                codes::LAYER_NAME_NOT_STRING,
                entry.get("name").map_or(entry.span, |n| n.span),
                "a layer needs a `name` that is a String",
            ));
            continue;
        };
        let ops = attributes
            .iter()
            .filter(|(k, _)| k.as_str() != Some("name"))
            .map(|(k, v)| AttributeOp {
                name: k.as_str().unwrap_or("?").into(),
                op: AttributeOpKind::Set,
                value: uri_list(file, text, v),
                span: Span::new(k.span.file, k.span.start as usize, v.span.end as usize),
            })
            .collect();
        layers.push(Layer {
            name,
            ops,
            span: entry.span,
        });
    }
    Some(layers)
}

/// `include`/`exclude`: a URI or a list of them, as the site's rules expect them (anything
/// else as the literal it is, for those rules to report); URIs are not interpolated.
fn uri_list(file: FileId, text: &str, node: &Node) -> Expr {
    super::bind::literal_expr(file, text, node, false)
}
