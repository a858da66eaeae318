//! The outline of a manifest for the editor: the site with its environments, categories and
//! layers, each bindings block with its `when` blocks and the keys it binds, and Puppet's own
//! definitions (classes, defined types, nodes, functions, type aliases). A file with a syntax
//! error still gets the outline of the statements before it. It reads the AST only.

use super::text::{Encoding, LineIndex};
use crate::ast::{BindItem, BindKey, BindOpKind, BindOperation, Expr, ExprKind, SiteItem};
use crate::span::{FileId, Span};
use lsp_types::{DocumentSymbol, SymbolKind};

/// The outline of the manifest `src`.
pub fn document_symbols(src: &str, encoding: Encoding) -> Vec<DocumentSymbol> {
    let mut statements = Vec::new();
    // The diagnostics are the check's to report; a file with errors hands over the statements
    // it completed before the first.
    let _ = crate::parse_file_statements(FileId(0), src, &mut |e| statements.push(e));
    let outline = Outline {
        src,
        index: LineIndex::new(src),
        encoding,
    };
    statements
        .iter()
        .filter_map(|e| outline.statement(e))
        .collect()
}

struct Outline<'s> {
    src: &'s str,
    index: LineIndex<'s>,
    encoding: Encoding,
}

impl Outline<'_> {
    fn symbol(
        &self,
        name: String,
        detail: Option<&str>,
        kind: SymbolKind,
        span: Span,
        name_span: Option<Span>,
        children: Vec<DocumentSymbol>,
    ) -> DocumentSymbol {
        let range = self
            .index
            .range(span.range().start, span.range().end, self.encoding);
        // The name's place must lie within the whole's.
        let selection = name_span
            .filter(|n| n.start >= span.start && n.end <= span.end)
            .map_or(range, |n| {
                self.index
                    .range(n.range().start, n.range().end, self.encoding)
            });
        #[allow(deprecated)] // `deprecated` is a field the protocol keeps; `tags` replaced it.
        DocumentSymbol {
            name: if name.is_empty() {
                "?".to_string()
            } else {
                name
            },
            detail: detail.map(str::to_string),
            kind,
            tags: None,
            deprecated: None,
            range,
            selection_range: selection,
            children: (!children.is_empty()).then_some(children),
        }
    }

    /// The source text of `span` up to its first line's end or `{`, trimmed and shortened: a
    /// name for what has none of its own.
    fn header(&self, span: Span) -> String {
        let text = self.src.get(span.range()).unwrap_or_default();
        let head = text.split(['\n', '{']).next().unwrap_or_default().trim();
        let mut out: String = head.chars().take(80).collect();
        if out.len() < head.len() {
            out.push('…');
        }
        out
    }

    fn statement(&self, e: &Expr) -> Option<DocumentSymbol> {
        let (name, kind, children) = match &e.kind {
            ExprKind::Site(site) => {
                let children = site.items.iter().flat_map(|i| self.site_item(i)).collect();
                return Some(self.symbol(
                    "site".to_string(),
                    None,
                    SymbolKind::NAMESPACE,
                    e.span,
                    Some(e.span.prefix("site".len())),
                    children,
                ));
            }
            ExprKind::Bindings(block) => {
                let children = block
                    .items
                    .iter()
                    .filter_map(|i| self.bind_item(i))
                    .collect();
                return Some(self.symbol(
                    block.name.to_string(),
                    Some("bindings"),
                    SymbolKind::NAMESPACE,
                    e.span,
                    Some(block.name_span),
                    children,
                ));
            }
            ExprKind::Class(def) => (def.name.to_string(), SymbolKind::CLASS, Vec::new()),
            ExprKind::Define(def) => (def.name.to_string(), SymbolKind::STRUCT, Vec::new()),
            ExprKind::Function(def) => (def.name.to_string(), SymbolKind::FUNCTION, Vec::new()),
            ExprKind::TypeDefinition(def) => {
                (def.name.to_string(), SymbolKind::TYPE_PARAMETER, Vec::new())
            }
            ExprKind::Node(_) => (self.header(e.span), SymbolKind::MODULE, Vec::new()),
            _ => return None,
        };
        let detail = match kind {
            SymbolKind::CLASS => Some("class"),
            SymbolKind::STRUCT => Some("define"),
            SymbolKind::FUNCTION => Some("function"),
            SymbolKind::TYPE_PARAMETER => Some("type"),
            _ => None,
        };
        let name_span = self.name_in(e.span, &name);
        Some(self.symbol(name, detail, kind, e.span, name_span, children))
    }

    /// Where a definition's name is written in its text (`class ntp::server {`): the first
    /// place the name, or its last segment (a nested class is named with its outer class's
    /// name), stands as a word.
    fn name_in(&self, span: Span, name: &str) -> Option<Span> {
        let text = self.src.get(span.range())?;
        let last = name.rsplit("::").next().unwrap_or(name);
        [name, last].into_iter().find_map(|wanted| {
            text.match_indices(wanted).find_map(|(at, _)| {
                let before = text[..at].chars().next_back();
                let after = text[at + wanted.len()..].chars().next();
                let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                (!word(before) && !word(after) && !wanted.is_empty()).then(|| {
                    let start = span.range().start + at;
                    Span::new(span.file, start, start + wanted.len())
                })
            })
        })
    }

    fn site_item(&self, item: &SiteItem) -> Vec<DocumentSymbol> {
        match item {
            SiteItem::Categories { entries, span } => {
                let children = entries
                    .iter()
                    .map(|c| {
                        let name_span = c.span.prefix(c.name.len());
                        self.symbol(
                            c.name.to_string(),
                            Some("category"),
                            SymbolKind::ENUM_MEMBER,
                            c.span,
                            Some(name_span),
                            Vec::new(),
                        )
                    })
                    .collect();
                vec![self.symbol(
                    "categories".to_string(),
                    None,
                    SymbolKind::ENUM,
                    *span,
                    Some(span.prefix("categories".len())),
                    children,
                )]
            }
            SiteItem::Layers { layers, span } => {
                let children = layers
                    .iter()
                    .map(|l| {
                        self.symbol(
                            string_or_source(&l.name, self.src),
                            Some("layer"),
                            SymbolKind::PACKAGE,
                            l.span,
                            Some(l.name.span),
                            Vec::new(),
                        )
                    })
                    .collect();
                vec![self.symbol(
                    "layers".to_string(),
                    None,
                    SymbolKind::ARRAY,
                    *span,
                    Some(span.prefix("bindings".len())),
                    children,
                )]
            }
            SiteItem::Environment { bodies, .. } | SiteItem::DynamicEnvironments { bodies, .. } => {
                let detail = match item {
                    SiteItem::Environment { .. } => "environment",
                    _ => "dynamic environments",
                };
                bodies
                    .iter()
                    .map(|b| {
                        self.symbol(
                            string_or_source(&b.title, self.src),
                            Some(detail),
                            SymbolKind::MODULE,
                            b.span,
                            Some(b.title.span),
                            Vec::new(),
                        )
                    })
                    .collect()
            }
            SiteItem::EnvironmentDefaults { span, .. } => vec![self.symbol(
                "Environment".to_string(),
                Some("environment defaults"),
                SymbolKind::MODULE,
                *span,
                Some(span.prefix("Environment".len())),
                Vec::new(),
            )],
            SiteItem::Statement { expr } => self.statement(expr).into_iter().collect(),
        }
    }

    fn bind_item(&self, item: &BindItem) -> Option<DocumentSymbol> {
        match item {
            BindItem::When {
                condition,
                items,
                span,
                path,
            } => {
                // Blocks pbc makes of data files are not in any manifest.
                if path.is_some() {
                    return None;
                }
                let children = items.iter().filter_map(|i| self.bind_item(i)).collect();
                let first = condition.first().and_then(|c| c.first()).map(|p| p.span);
                let last = condition.last().and_then(|c| c.last()).map(|p| p.span);
                let name = match (first, last) {
                    (Some(a), Some(b)) => {
                        let text = self.src.get(a.to(b).range()).unwrap_or_default();
                        format!(
                            "when {}",
                            text.split_whitespace().collect::<Vec<_>>().join(" ")
                        )
                    }
                    _ => self.header(*span),
                };
                Some(self.symbol(name, None, SymbolKind::OBJECT, *span, first, children))
            }
            BindItem::Operation(op) => Some(self.operation(op)),
            BindItem::Error { .. } => None,
        }
    }

    fn operation(&self, op: &BindOperation) -> DocumentSymbol {
        let (key, detail, kind) = match &op.kind {
            BindOpKind::Bind { key, .. } => (Some(key), "bind", SymbolKind::KEY),
            BindOpKind::Multibind { key, .. } => (Some(key), "multibind", SymbolKind::ARRAY),
            BindOpKind::Rebind { key, .. } => (Some(key), "rebind", SymbolKind::KEY),
            BindOpKind::Alias { from, .. } => (Some(from), "bind alias", SymbolKind::KEY),
            BindOpKind::Renamed { from, .. } => (Some(from), "bind renamed", SymbolKind::KEY),
            BindOpKind::Map { .. } => (None, "bind map", SymbolKind::OPERATOR),
            BindOpKind::Dependency { .. } => (None, "bind dependency", SymbolKind::OPERATOR),
            BindOpKind::Include { .. } => (None, "include", SymbolKind::MODULE),
            BindOpKind::Exclude { .. } => (None, "exclude", SymbolKind::MODULE),
        };
        let named = key.and_then(|k| match k {
            BindKey::Name { name } => Some((string_or_source(name, self.src), name.span)),
            BindKey::TypedName { type_expr, name } => Some((
                self.src
                    .get(type_expr.span.to(name.span).range())
                    .unwrap_or_default()
                    .to_string(),
                type_expr.span.to(name.span),
            )),
            BindKey::Type { type_expr } => Some((
                self.src
                    .get(type_expr.span.range())
                    .unwrap_or_default()
                    .to_string(),
                type_expr.span,
            )),
            _ => None,
        });
        match named {
            Some((name, span)) => {
                self.symbol(name, Some(detail), kind, op.span, Some(span), Vec::new())
            }
            None => self.symbol(
                self.header(op.span),
                Some(detail),
                kind,
                op.span,
                None,
                Vec::new(),
            ),
        }
    }
}

/// A string literal's value, else the expression's source text.
fn string_or_source(e: &Expr, src: &str) -> String {
    match &e.kind {
        ExprKind::String { value } => value.to_string(),
        _ => src.get(e.span.range()).unwrap_or_default().to_string(),
    }
}
