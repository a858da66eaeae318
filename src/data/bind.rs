//! The bindings a data file makes (ARM-9, D20): each top-level key of the file is a binding of
//! `(Data, key)` under `when <category> <value>` for the hierarchy entry and category value the
//! file's path stands for (none for `common` and the private hierarchy). They are made as the
//! AST of a `bindings` block whose spans point into the data file, so that the rules, the
//! lowering into the model, the composition and `--explain` treat them as any other binding.
//! This module only builds that block; the loader decides which files to read.

use super::yaml::{Node, NodeKind};
use crate::ast::{
    BindFlags, BindItem, BindKey, BindOpKind, BindOperation, BindingsBlock, Expr, ExprKind,
    HashEntry, Predicate, Producer, ProducerKind, Program,
};
use crate::span::{FileId, Span};
use smol_str::SmolStr;
use std::collections::BTreeSet;

/// Which requests a data file's keys apply to.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Applies {
    /// Every request (`common`, the private hierarchy).
    Always,
    /// `when <category> '<value>'`.
    When { category: String, value: String },
}

/// The block for one data file: `name` (what `--explain` shows), the file's document, and the
/// keys earlier files of the same level already bind (first found wins; they are left out and
/// this file's keys are added).
pub fn program(
    name: &str,
    file: FileId,
    text: &str,
    doc: &Node,
    applies: &Applies,
    taken: &mut BTreeSet<String>,
) -> Program {
    let mut operations: Vec<BindItem> = Vec::new();
    if let NodeKind::Mapping(entries) = &doc.kind {
        for (key, value) in entries {
            let Some(name) = key.as_str() else {
                continue;
            };
            if !taken.insert(name.to_string()) {
                continue;
            }
            let span = Span::new(file, key.span.start as usize, value.span.end as usize);
            let producer = Producer {
                optional: false,
                producer: ProducerKind::Value {
                    expr: value_expr(file, text, value),
                },
                span: value.span,
            };
            operations.push(BindItem::Operation(Box::new(BindOperation {
                kind: BindOpKind::Bind {
                    flags: BindFlags::default(),
                    key: BindKey::Name {
                        name: leaf(ExprKind::String { value: name.into() }, key.span),
                    },
                    producer: Some(producer),
                    contributes_to: None,
                    options: Vec::new(),
                },
                span,
            })));
        }
    }
    let whole = Span::new(file, 0, text.len());
    let items = match applies {
        Applies::Always => operations,
        Applies::When { category, value } => vec![BindItem::When {
            condition: vec![vec![Predicate {
                category: category.as_str().into(),
                value: Some(leaf(
                    ExprKind::String {
                        value: value.as_str().into(),
                    },
                    Span::new(file, 0, 0),
                )),
                span: Span::new(file, 0, 0),
            }]],
            items: operations,
            span: whole,
        }],
    };
    let block = BindingsBlock {
        name: name.into(),
        name_span: Span::new(file, 0, 0),
        items,
        span: whole,
    };
    Program {
        body: vec![Expr {
            kind: ExprKind::Bindings(Box::new(block)),
            span: whole,
            depth: 1,
        }],
        span: whole,
    }
}

fn leaf(kind: ExprKind, span: Span) -> Expr {
    Expr {
        kind,
        span,
        depth: 1,
    }
}

/// A data value as a Puppet expression: literals as literals, and a string with a `$` as the
/// double-quoted Puppet string it is (D20), placed at the value in the file. Nesting is bounded
/// by the YAML reader.
fn value_expr(file: FileId, text: &str, node: &Node) -> Expr {
    literal_expr(file, text, node, true)
}

/// [`value_expr`], with strings interpolated only when `interpolate`.
pub(crate) fn literal_expr(file: FileId, text: &str, node: &Node, interpolate: bool) -> Expr {
    let value_expr = |file, text, node| literal_expr(file, text, node, interpolate);
    match &node.kind {
        NodeKind::Null => leaf(ExprKind::Undef, node.span),
        NodeKind::Bool(b) => leaf(ExprKind::Boolean { value: *b }, node.span),
        NodeKind::Integer(i) => leaf(
            ExprKind::Integer {
                text: SmolStr::new(i.to_string()),
                radix: 10,
            },
            node.span,
        ),
        NodeKind::Float(f) => leaf(
            ExprKind::Float {
                text: SmolStr::new(f.to_string()),
                value: *f,
            },
            node.span,
        ),
        NodeKind::String(s) if interpolate && s.contains('$') => {
            let quoted = matches!(
                text.as_bytes().get(node.span.start as usize),
                Some(b'\'' | b'"')
            );
            let parsed = super::files::parse_string(file, s, node.span, quoted);
            parsed.unwrap_or_else(|| leaf(ExprKind::String { value: s.into() }, node.span))
        }
        NodeKind::String(s) => leaf(ExprKind::String { value: s.into() }, node.span),
        NodeKind::Sequence(items) => {
            let elements: Vec<Expr> = items.iter().map(|i| value_expr(file, text, i)).collect();
            let depth = 1 + elements.iter().map(|e| e.depth).max().unwrap_or(0);
            Expr {
                kind: ExprKind::Array { elements },
                span: node.span,
                depth,
            }
        }
        NodeKind::Mapping(pairs) => {
            let entries: Vec<HashEntry> = pairs
                .iter()
                .map(|(k, v)| HashEntry {
                    key: value_expr(file, text, k),
                    value: value_expr(file, text, v),
                    span: Span::new(file, k.span.start as usize, v.span.end as usize),
                })
                .collect();
            let depth = 1 + entries
                .iter()
                .map(|e| e.key.depth.max(e.value.depth))
                .max()
                .unwrap_or(0);
            Expr {
                kind: ExprKind::Hash { entries },
                span: node.span,
                depth,
            }
        }
    }
}
