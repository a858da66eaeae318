//! The bindings a data file makes (ARM-9, D20): each top-level key of the file is a binding of
//! `(Data, key)` under `when <category> <value>` for the hierarchy entry and category value the
//! file's path stands for (none for `common` and the private hierarchy), and under the file's
//! path test: the hierarchy path, interpolated for the request, must give this file, and no
//! earlier file of the same level that binds the key may be the request's (the first file found
//! wins per key). They are made as the AST of a `bindings` block whose spans point into the data
//! file, so that the rules, the lowering into the model, the composition and `--explain` treat
//! them as any other binding. This module only builds that block; the loader decides which
//! files to read.

use super::yaml::{Node, NodeKind};
use crate::ast::{
    BindFlags, BindItem, BindKey, BindOpKind, BindOperation, BindingsBlock, DataPath, Expr,
    ExprKind, HashEntry, PathTest, Predicate, Producer, ProducerKind, Program,
};
use crate::span::{FileId, Span};
use smol_str::SmolStr;
use std::collections::{BTreeMap, BTreeSet};

/// Which requests a data file's keys apply to: its hierarchy entry's `when` (none for
/// `common` and the private hierarchy) and, when its path interpolates, the test that the path
/// names this file for the request.
#[derive(Clone, Debug)]
pub struct Applies {
    pub when: Option<(String, WhenValue)>,
    /// The path's test (the path as written in `hiera.yaml`: `osfamily/${osfamily}`, and the
    /// file it must give).
    pub test: PathTest,
}

impl Applies {
    fn interpolates(&self) -> bool {
        self.test.path.contains('$')
    }
}

/// The value of a data file's `when`.
#[derive(Clone, Debug)]
pub enum WhenValue {
    /// The value the file's path names (`Darwin` for `osfamily/Darwin.yaml`).
    Named(String),
    /// The entry's own value (`${osfamily}`), for a path that does not name it (`os/default`):
    /// the file applies whenever the category has a value.
    Entry(Expr),
}

/// A data file found for one hierarchy level, in search order, with the keys it binds.
pub struct Found {
    pub applies: Applies,
    pub keys: BTreeSet<String>,
}

/// How an earlier file of the same level that binds a key bears on this file's binding of it.
enum Earlier {
    /// It applies to every request this file applies to: this file's binding is never used.
    Hides,
    /// It never applies together with this file.
    Apart,
    /// It may: this file's binding applies only where it does not.
    Unless(PathTest),
}

fn earlier(this: &Found, before: &Found) -> Earlier {
    if !before.applies.interpolates() {
        // One path for every request of the level's category.
        return Earlier::Hides;
    }
    if let (Some((_, WhenValue::Named(a))), Some((_, WhenValue::Named(b)))) =
        (&this.applies.when, &before.applies.when)
    {
        if !a.eq_ignore_ascii_case(b) {
            return Earlier::Apart;
        }
    }
    if before.applies.test.path == this.applies.test.path {
        // One path gives one file per request.
        return if before.applies.test.file == this.applies.test.file {
            Earlier::Hides
        } else {
            Earlier::Apart
        };
    }
    Earlier::Unless(before.applies.test.clone())
}

/// The block for the data file `level[at]` (`level`: the files found so far for its hierarchy
/// level, in search order): `name` (what `--explain` shows), the file's document. A key an
/// earlier file of the level also binds applies only where that file does not (the first
/// file found wins per key).
pub fn program(
    name: &str,
    file: FileId,
    text: &str,
    doc: &Node,
    level: &[Found],
    at: usize,
) -> Program {
    let this = &level[at];
    // Keys grouped by the earlier files that may hide them.
    let mut groups: BTreeMap<Vec<usize>, Vec<BindItem>> = BTreeMap::new();
    if let NodeKind::Mapping(entries) = &doc.kind {
        'keys: for (key, value) in entries {
            let Some(name) = key.as_str() else {
                continue;
            };
            let mut unless = Vec::new();
            for (i, before) in level[..at].iter().enumerate() {
                if !before.keys.contains(name) {
                    continue;
                }
                match earlier(this, before) {
                    Earlier::Hides => continue 'keys,
                    Earlier::Apart => {}
                    Earlier::Unless(_) => unless.push(i),
                }
            }
            let span = Span::new(file, key.span.start as usize, value.span.end as usize);
            let producer = Producer {
                optional: false,
                producer: ProducerKind::Value {
                    expr: value_expr(file, text, value),
                },
                span: value.span,
            };
            groups
                .entry(unless)
                .or_default()
                .push(BindItem::Operation(Box::new(BindOperation {
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
    let nowhere = Span::new(file, 0, 0);
    let predicate = match &this.applies.when {
        None => Predicate {
            category: "common".into(),
            value: None,
            span: nowhere,
        },
        Some((category, value)) => Predicate {
            category: category.as_str().into(),
            value: Some(match value {
                WhenValue::Named(v) => leaf(
                    ExprKind::String {
                        value: v.as_str().into(),
                    },
                    nowhere,
                ),
                WhenValue::Entry(e) => e.clone(),
            }),
            span: nowhere,
        },
    };
    let mut items = Vec::new();
    for (unless, operations) in groups {
        let unless: Vec<PathTest> = unless
            .iter()
            .filter_map(|&i| match earlier(this, &level[i]) {
                Earlier::Unless(t) => Some(t),
                _ => None,
            })
            .collect();
        // A plain path always gives its file: only earlier files need a test.
        let path = (this.applies.interpolates() || !unless.is_empty()).then(|| {
            Box::new(DataPath {
                this: this.applies.test.clone(),
                unless,
            })
        });
        if this.applies.when.is_none() && path.is_none() {
            items.extend(operations);
        } else {
            items.push(BindItem::When {
                condition: vec![vec![predicate.clone()]],
                items: operations,
                span: whole,
                path,
            });
        }
    }
    let block = BindingsBlock {
        name: name.into(),
        name_span: nowhere,
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

/// The block of a Hiera 5 level (D24): one binding of `(Data, key)` in `common` for each key
/// its data files have (placed where the key first is), produced by Hiera across every level
/// (`level` indexes the tree's levels). Whether the level finds a key is the request's to say.
pub fn hiera_program(
    name: &str,
    config: FileId,
    keys: &indexmap::IndexMap<String, Span>,
    level: usize,
) -> Program {
    let nowhere = Span::new(config, 0, 0);
    let items = keys
        .iter()
        .map(|(key, &span)| {
            BindItem::Operation(Box::new(BindOperation {
                kind: BindOpKind::Bind {
                    flags: BindFlags::default(),
                    key: BindKey::Name {
                        name: leaf(ExprKind::String { value: key.into() }, span),
                    },
                    producer: Some(Producer {
                        optional: false,
                        producer: ProducerKind::Hiera { level },
                        span,
                    }),
                    contributes_to: None,
                    options: Vec::new(),
                },
                span,
            }))
        })
        .collect();
    let block = BindingsBlock {
        name: name.into(),
        name_span: nowhere,
        items,
        span: nowhere,
    };
    Program {
        body: vec![Expr {
            kind: ExprKind::Bindings(Box::new(block)),
            span: nowhere,
            depth: 1,
        }],
        span: nowhere,
    }
}

/// The keys a data file binds.
pub fn keys(doc: &Node) -> BTreeSet<String> {
    match &doc.kind {
        NodeKind::Mapping(entries) => entries
            .iter()
            .filter_map(|(k, _)| k.as_str().map(str::to_string))
            .collect(),
        _ => BTreeSet::new(),
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
        // A number Puppet reads that pbc cannot hold: the value fails where it is produced
        // (`fail(...)` at the value), never answered as its text.
        NodeKind::Unrepresentable(t) => Expr {
            kind: ExprKind::Call {
                functor: Box::new(leaf(
                    ExprKind::QualifiedName {
                        name: "fail".into(),
                    },
                    node.span,
                )),
                args: vec![leaf(
                    ExprKind::String {
                        value: super::files::unrepresentable_message(t).into(),
                    },
                    node.span,
                )],
                lambda: None,
                statement: false,
            },
            span: node.span,
            depth: 2,
        },
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
