//! Which key the editor's cursor is on: in a manifest, a key a binding binds (`bind 'k'`,
//! `multibind Type, 'k'`, the keys of `alias`, `renamed`, `rebind`), the first argument of
//! `lookup('k')` or `inject('k')`, or a class parameter (its key is `CLASS::PARAM`, as Puppet's
//! automatic parameter lookup asks); in a Hiera data file, the top-level key of the line. It
//! reads the text only; what the key gives is the injector's.

use crate::ast::{BindItem, BindKey, BindOpKind, Expr, ExprKind, Parameter};
use crate::data::yaml::NodeKind;
use crate::span::{FileId, Span};

/// A key and where it is written (byte offsets in the file's text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyAt {
    pub key: String,
    pub start: usize,
    pub end: usize,
}

/// The key at byte `offset` of `text`, a file of `kind`.
pub(crate) fn key_at(text: &str, offset: usize, is_manifest: bool) -> Option<KeyAt> {
    if is_manifest {
        key_in_manifest(text, offset)
    } else {
        key_in_data(text, offset)
    }
}

fn key_in_manifest(src: &str, offset: usize) -> Option<KeyAt> {
    let mut statements = Vec::new();
    let _ = crate::parse_file_statements(FileId(0), src, &mut |e| statements.push(e));
    let mut found = None;
    for statement in &statements {
        if found.is_none() && within(statement.span, offset) {
            find_in_expr(src, statement, offset, &mut found);
        }
    }
    found
}

fn within(span: Span, offset: usize) -> bool {
    (span.start as usize) <= offset && offset <= span.end as usize
}

/// A string literal at `offset` as a key.
fn literal_at(e: &Expr, offset: usize) -> Option<KeyAt> {
    match &e.kind {
        ExprKind::String { value } if within(e.span, offset) && !value.is_empty() => Some(KeyAt {
            key: value.to_string(),
            start: e.span.start as usize,
            end: e.span.end as usize,
        }),
        _ => None,
    }
}

fn find_in_expr(src: &str, e: &Expr, offset: usize, found: &mut Option<KeyAt>) {
    if found.is_some() || !within(e.span, offset) {
        return;
    }
    match &e.kind {
        ExprKind::Call { functor, args, .. } => {
            let is_lookup = matches!(&functor.kind,
                ExprKind::QualifiedName { name } if name == "lookup" || name == "inject");
            if is_lookup {
                if let Some(key) = args.first().and_then(|a| literal_at(a, offset)) {
                    *found = Some(key);
                    return;
                }
            }
        }
        ExprKind::Class(def) => {
            if let Some(key) = def
                .params
                .iter()
                .find_map(|p| parameter_at(src, &def.name, p, offset))
            {
                *found = Some(key);
                return;
            }
        }
        ExprKind::Bindings(block) => {
            for item in &block.items {
                find_in_item(src, item, offset, found);
            }
            return;
        }
        _ => {}
    }
    e.for_each_child(&mut |child| find_in_expr(src, child, offset, found));
}

/// A class parameter's `$name` at `offset`, as the key Puppet's automatic parameter lookup
/// asks (`CLASS::NAME`). The parameter's span starts at its type when it has one.
fn parameter_at(src: &str, class: &str, p: &Parameter, offset: usize) -> Option<KeyAt> {
    let from = p.type_expr.as_ref().map_or(p.span.start, |t| t.span.end) as usize;
    let text = src.get(from..p.span.end as usize)?;
    let start = from + text.find(&format!("${}", p.name))?;
    let end = start + 1 + p.name.len();
    (!p.name.is_empty() && start <= offset && offset <= end).then(|| KeyAt {
        key: format!("{class}::{}", p.name),
        start,
        end,
    })
}

fn find_in_item(src: &str, item: &BindItem, offset: usize, found: &mut Option<KeyAt>) {
    if found.is_some() {
        return;
    }
    match item {
        BindItem::When { items, span, .. } if within(*span, offset) => {
            for i in items {
                find_in_item(src, i, offset, found);
            }
        }
        BindItem::Operation(op) if within(op.span, offset) => {
            let keys: Vec<&BindKey> = match &op.kind {
                BindOpKind::Bind { key, .. }
                | BindOpKind::Multibind { key, .. }
                | BindOpKind::Rebind { key, .. } => vec![key],
                BindOpKind::Alias { from, to, .. } | BindOpKind::Renamed { from, to, .. } => {
                    vec![from, to]
                }
                _ => Vec::new(),
            };
            *found = keys.into_iter().find_map(|k| match k {
                BindKey::Name { name } | BindKey::TypedName { name, .. } => {
                    literal_at(name, offset)
                }
                _ => None,
            });
            if found.is_none() {
                // A `lookup()` inside a producer (`bind 'a' to lookup('b')`).
                let mut exprs = Vec::new();
                item.for_each_expr(&mut |e| exprs.push(e));
                for e in exprs {
                    find_in_expr(src, e, offset, found);
                }
            }
        }
        _ => {}
    }
}

/// A data file's key: the top-level key at `offset`, or written on its line, as Hiera reads
/// the file (`data::yaml`, which reads JSON too: quoted keys, flow mappings, symbol keys). A
/// file that does not read has no keys; `lookup_options` is no key.
fn key_in_data(text: &str, offset: usize) -> Option<KeyAt> {
    let document = crate::data::yaml::parse_hiera_data(FileId(0), text).ok()??;
    let NodeKind::Mapping(entries) = &document.kind else {
        return None;
    };
    let line_of = |at: usize| {
        let before = &text.as_bytes()[..at.min(text.len())];
        before.iter().filter(|&&b| b == b'\n').count()
    };
    let keys: Vec<KeyAt> = entries
        .iter()
        .filter_map(|(key, _)| {
            let name = key
                .as_str()
                .filter(|k| !k.is_empty() && *k != "lookup_options")?;
            Some(KeyAt {
                key: name.to_string(),
                start: key.span.start as usize,
                end: key.span.end as usize,
            })
        })
        .collect();
    // The key under the cursor; else the one its line starts with (the cursor on the value).
    let line = line_of(offset);
    let under = keys
        .iter()
        .position(|k| k.start <= offset && offset <= k.end);
    let on_line = || keys.iter().position(|k| line_of(k.start) == line);
    under.or_else(on_line).map(|i| keys[i].clone())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str, marker: &str, manifest: bool) -> Option<String> {
        let offset = text.find(marker).unwrap_or(usize::MAX) + 1;
        key_at(text, offset, manifest).map(|k| k.key)
    }

    #[test]
    fn keys_in_manifests_are_what_bindings_bind_and_lookups_ask() {
        let src = "bindings b {\n  bind 'ntp::servers' to lookup('ntp::pool')\n  when os 'x' { multibind Array[String], 'admins' }\n  bind alias 'old' as 'new'\n}\nclass ntp($servers = inject('other'), String $pool = 'p') { notice('not a key') }\n";
        assert_eq!(
            at(src, "'ntp::servers", true).as_deref(),
            Some("ntp::servers")
        );
        assert_eq!(at(src, "'ntp::pool", true).as_deref(), Some("ntp::pool"));
        assert_eq!(at(src, "'admins", true).as_deref(), Some("admins"));
        assert_eq!(at(src, "'new", true).as_deref(), Some("new"));
        assert_eq!(at(src, "$servers", true).as_deref(), Some("ntp::servers"));
        assert_eq!(at(src, "'other", true).as_deref(), Some("other"));
        // A typed parameter: its name, not its type, is the key's place.
        assert_eq!(at(src, "$pool", true).as_deref(), Some("ntp::pool"));
        assert_eq!(at(src, "tring $pool", true), None);
        assert_eq!(at(src, "'not a key", true), None);
        assert_eq!(at(src, "bindings b", true), None);
    }

    #[test]
    fn keys_in_data_files_are_the_top_level_keys() {
        let yaml = "---\nlookup_options:\n  ntp::servers:\n    merge: unique\nntp::servers: [a]\n'quoted::key': 1\nplain:\n  - x\n";
        assert_eq!(
            at(yaml, "ntp::servers: [", false).as_deref(),
            Some("ntp::servers")
        );
        assert_eq!(at(yaml, "'quoted", false).as_deref(), Some("quoted::key"));
        assert_eq!(at(yaml, "plain", false).as_deref(), Some("plain"));
        assert_eq!(at(yaml, "  ntp::servers:\n", false), None);
        assert_eq!(at(yaml, "lookup_options", false), None);
        assert_eq!(at(yaml, "- x", false), None);
        let json = "{\n  \"a::b\": 1,\n  \"c\": {\n    \"d\": 2\n  }\n}\n";
        assert_eq!(at(json, "\"a::b", false).as_deref(), Some("a::b"));
        assert_eq!(at(json, "\"d\"", false), None);
        // As Hiera reads them: a one-line flow mapping's keys by place, a Ruby symbol by name.
        let flow = "{\"a\": 1, \"b::c\": 2}";
        assert_eq!(at(flow, "\"b::c", false).as_deref(), Some("b::c"));
        assert_eq!(
            at(":sym::key: 1\n", ":sym", false).as_deref(),
            Some("sym::key")
        );
        assert_eq!(at("a: [unclosed\n", "a", false), None);
    }
}
