//! Which key the editor's cursor is on: in a manifest, a key a binding binds (`bind 'k'`,
//! `multibind Type, 'k'`, the keys of `alias`, `renamed`, `rebind`), the first argument of
//! `lookup('k')` or `inject('k')`, or a class parameter (its key is `CLASS::PARAM`, as Puppet's
//! automatic parameter lookup asks); in a Hiera data file, the top-level key of the line. It
//! reads the text only; what the key gives is the injector's.

use crate::ast::{BindItem, BindKey, BindOpKind, Expr, ExprKind};
use crate::span::{FileId, Span};

/// A key and where it is written (byte offsets in the file's text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyAt {
    pub key: String,
    pub start: usize,
    pub end: usize,
}

/// The key at byte `offset` of `text`, a file of `kind`.
pub fn key_at(text: &str, offset: usize, is_manifest: bool) -> Option<KeyAt> {
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
            find_in_expr(statement, offset, &mut found);
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

fn find_in_expr(e: &Expr, offset: usize, found: &mut Option<KeyAt>) {
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
            for p in &def.params {
                let name_end = p.span.start as usize + 1 + p.name.len();
                if within(p.span, offset) && offset <= name_end && !p.name.is_empty() {
                    *found = Some(KeyAt {
                        key: format!("{}::{}", def.name, p.name),
                        start: p.span.start as usize,
                        end: name_end.min(p.span.end as usize),
                    });
                    return;
                }
            }
        }
        ExprKind::Bindings(block) => {
            for item in &block.items {
                find_in_item(item, offset, found);
            }
            return;
        }
        _ => {}
    }
    e.for_each_child(&mut |child| find_in_expr(child, offset, found));
}

fn find_in_item(item: &BindItem, offset: usize, found: &mut Option<KeyAt>) {
    if found.is_some() {
        return;
    }
    match item {
        BindItem::When { items, span, .. } if within(*span, offset) => {
            for i in items {
                find_in_item(i, offset, found);
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
                    find_in_expr(e, offset, found);
                }
            }
        }
        _ => {}
    }
}

/// A data file's key: the top-level mapping key written on the line of `offset` (YAML's
/// `key:` or `"key":`, JSON's `"key":` at the first level of indentation).
fn key_in_data(text: &str, offset: usize) -> Option<KeyAt> {
    let offset = offset.min(text.len());
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let line = &text[line_start..line_end];
    let indent = line.len() - line.trim_start().len();
    let rest = &line[indent..];
    // YAML's top-level keys are at the margin; JSON's one level in, as deep as its first.
    let top = if text.trim_start().starts_with('{') {
        let first_key = text.lines().skip(1).find(|l| !l.trim().is_empty())?;
        first_key.len() - first_key.trim_start().len()
    } else {
        0
    };
    if indent != top {
        return None;
    }
    let (key, len) = match rest.chars().next()? {
        quote @ ('"' | '\'') => {
            let close = rest[1..].find(quote)? + 1;
            (rest[1..close].to_string(), close + 1)
        }
        _ => {
            let end = rest
                .find(": ")
                .or_else(|| rest.strip_suffix(':').map(str::len))?;
            (rest[..end].trim_end().to_string(), end)
        }
    };
    if !rest[len..].trim_start().starts_with(':')
        || key.is_empty()
        || key == "lookup_options"
        || key.starts_with('#')
        || key.starts_with('-')
    {
        return None;
    }
    Some(KeyAt {
        key,
        start: line_start + indent,
        end: line_start + indent + len,
    })
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
        let src = "bindings b {\n  bind 'ntp::servers' to lookup('ntp::pool')\n  when os 'x' { multibind Array[String], 'admins' }\n  bind alias 'old' as 'new'\n}\nclass ntp($servers = inject('other'), $x) { notice('not a key') }\n";
        assert_eq!(
            at(src, "'ntp::servers", true).as_deref(),
            Some("ntp::servers")
        );
        assert_eq!(at(src, "'ntp::pool", true).as_deref(), Some("ntp::pool"));
        assert_eq!(at(src, "'admins", true).as_deref(), Some("admins"));
        assert_eq!(at(src, "'new", true).as_deref(), Some("new"));
        assert_eq!(at(src, "$servers", true).as_deref(), Some("ntp::servers"));
        assert_eq!(at(src, "'other", true).as_deref(), Some("other"));
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
    }
}
