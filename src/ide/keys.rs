//! Which keys and categories a file names, and which one the editor's cursor is on: in a
//! manifest, a key a binding binds (`bind 'k'`, `multibind Type, 'k'`, the keys of `alias`,
//! `renamed`, `rebind`), the first argument of `lookup('k')` or `inject('k')`, or a class
//! parameter (its key is `CLASS::PARAM`, as Puppet's automatic parameter lookup asks), and a
//! category a site declares or a `when` names, and the type aliases it declares; in a
//! `binder_config.yaml`, the categories it declares in a site's place (D19); in a Hiera data
//! file, its top-level keys. It reads the text only; what the key gives is the injector's.

use crate::ast::{BindItem, BindKey, BindOpKind, Expr, ExprKind, Parameter, SiteItem};
use crate::data::yaml::NodeKind;
use crate::span::{FileId, Span};

/// A key and where it is written (byte offsets in the file's text).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyAt {
    pub key: String,
    pub start: usize,
    pub end: usize,
    pub role: KeyRole,
}

/// What a file does with a key where it names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum KeyRole {
    /// Gives it a value: a binding, or an entry of a data file.
    Binds,
    /// Asks for it: `lookup()`, `inject()`, a class parameter.
    Asks,
}

/// A category and where it is written (byte offsets of its name).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CategoryAt {
    pub name: String,
    pub start: usize,
    pub end: usize,
    /// Where the site declares it (`categories { NAME => ... }`), with the source of its
    /// value; `None` where a `when` names it.
    pub declared: Option<String>,
    /// Declared: the fact its value is, when it is nothing but a fact (`$facts['dc']`). In a
    /// `when`: the value it names, when literal.
    pub value: Option<String>,
}

/// What a file names: its keys and its categories, each in the order written, and the type
/// aliases it declares (`type Name = ...`).
#[derive(Debug, Default)]
pub struct Names {
    pub keys: Vec<KeyAt>,
    pub categories: Vec<CategoryAt>,
    pub type_aliases: Vec<String>,
}

/// The category at byte `offset` of the manifest `text`.
pub(crate) fn category_at(text: &str, offset: usize) -> Option<CategoryAt> {
    let mut found = Keys::new(text, Some(offset));
    found.manifest();
    found.categories.into_iter().next()
}

/// Where a category name is being written at byte `offset` of the manifest `text`: right
/// after `when`, `and` or `or` in a bindings block, the byte range of the name so far.
pub(crate) fn category_slot(text: &str, offset: usize) -> Option<(usize, usize)> {
    let offset = super::text::char_start(text, offset);
    let is_name_char = |c: char| c.is_alphanumeric() || c == '_';
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_name_char(c))
        .last()
        .map_or(offset, |(i, _)| i);
    let before = text[..start].trim_end_matches([' ', '\t']);
    if before.len() == start {
        return None;
    }
    let word = before
        .rsplit(|c: char| !is_name_char(c))
        .next()
        .unwrap_or("");
    let end = offset
        + text[offset..]
            .find(|c: char| !is_name_char(c))
            .unwrap_or(text.len() - offset);
    matches!(word, "when" | "and" | "or").then_some((start, end))
}

/// The bindings URI (a layer's `include` or `exclude`, a string or one of an array's) at byte
/// `offset` of the manifest `text`, with where it is written.
pub(crate) fn layer_uri_at(text: &str, offset: usize) -> Option<(String, usize, usize)> {
    let mut statements = Vec::new();
    let _ = crate::parse_file_statements(FileId(0), text, &mut |e| statements.push(e));
    let within = |span: Span| (span.start as usize) <= offset && offset <= span.end as usize;
    for statement in statements.iter().filter(|s| within(s.span)) {
        let ExprKind::Site(site) = &statement.kind else {
            continue;
        };
        for item in &site.items {
            let SiteItem::Layers { layers, .. } = item else {
                continue;
            };
            let ops = layers.iter().flat_map(|l| &l.ops);
            for op in ops.filter(|op| op.name == "include" || op.name == "exclude") {
                let values = match &op.value.kind {
                    ExprKind::Array { elements } => elements.iter().collect(),
                    _ => vec![&op.value],
                };
                for value in values {
                    if let ExprKind::String { value: uri } = &value.kind {
                        if within(value.span) {
                            let (start, end) = (value.span.start as usize, value.span.end as usize);
                            return Some((uri.to_string(), start, end));
                        }
                    }
                }
            }
        }
    }
    None
}

/// Where a category's value is being written at byte `offset` of the manifest `text`: after
/// `when CATEGORY` (or `and`/`or CATEGORY`), quoted or not yet. The category, the byte range
/// of the value so far (inside its quotes), and whether it is quoted.
pub(crate) fn category_value_slot(
    text: &str,
    offset: usize,
) -> Option<(String, usize, usize, bool)> {
    let offset = super::text::char_start(text, offset);
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let written = &text[line_start..offset];
    let is_value_char = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '.');
    // The value so far: after an opening quote, or a bare word.
    let (value_start, quoted) = match written.rfind(['\'', '"']) {
        Some(q) if written[q + 1..].chars().all(is_value_char) => (q + 1, true),
        _ => (
            written
                .char_indices()
                .rev()
                .take_while(|&(_, c)| is_value_char(c))
                .last()
                .map_or(written.len(), |(i, _)| i),
            false,
        ),
    };
    let before = &written[..value_start - usize::from(quoted)];
    if !before.ends_with([' ', '\t']) {
        return None;
    }
    let mut words = before.split_whitespace().rev();
    let category = words.next()?;
    let keyword = words.next()?;
    if !matches!(keyword, "when" | "and" | "or")
        || !category.chars().all(|c| c.is_alphanumeric() || c == '_')
    {
        return None;
    }
    let end = offset
        + text[offset..]
            .find(|c: char| !is_value_char(c))
            .unwrap_or(text.len() - offset);
    Some((category.to_string(), line_start + value_start, end, quoted))
}

/// The key at byte `offset` of `text`, a manifest or a data file.
pub(crate) fn key_at(text: &str, offset: usize, is_manifest: bool) -> Option<KeyAt> {
    if is_manifest {
        let mut found = Keys::new(text, Some(offset));
        found.manifest();
        found.keys.into_iter().next()
    } else {
        key_in_data(text, offset)
    }
}

/// What kind of file names keys or categories.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Holder {
    Manifest,
    /// A data file: its top-level keys.
    Data,
    /// A `binder_config.yaml` (D19): the categories it declares, as a site declares them.
    BinderConfig,
}

/// Every key and category `text` names, in the order written.
pub(crate) fn names_in(text: &str, holder: Holder) -> Names {
    match holder {
        Holder::Manifest => {
            let mut found = Keys::new(text, None);
            found.manifest();
            found.keys.sort_by_key(|k| k.start);
            found.categories.sort_by_key(|c| c.start);
            Names {
                keys: found.keys,
                categories: found.categories,
                type_aliases: found.type_aliases,
            }
        }
        Holder::Data => Names {
            keys: keys_in_data(text),
            ..Names::default()
        },
        Holder::BinderConfig => {
            // Read into the site it stands for, with the spans of its YAML, as the check reads
            // it; a file that cannot be read declares nothing (its diagnostics say why).
            let (program, _, _) = crate::data::binder_config::read(FileId(0), text);
            let mut found = Keys::new(text, None);
            for statement in program.iter().flat_map(|p| &p.body) {
                found.expr(statement);
            }
            found.categories.sort_by_key(|c| c.start);
            Names {
                categories: found.categories,
                ..Names::default()
            }
        }
    }
}

/// Where a key is being written at byte `offset` of `text` (a manifest, or else a data file):
/// the byte range of the key's word (inside its quotes; empty in `lookup('')`), for a
/// completion to replace. In a manifest, a string where a key goes (a binding's key, the first
/// argument of `lookup()` or `inject()`), also one not closed yet; in a data file, a top-level
/// key being written at the start of its line.
pub(crate) fn key_slot(text: &str, offset: usize, is_manifest: bool) -> Option<(usize, usize)> {
    let offset = super::text::char_start(text, offset);
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let written = &text[line_start..offset];
    if !is_manifest {
        return (key_word_end(written, 0) == written.len())
            .then(|| (line_start, key_word_end(text, offset)));
    }
    let mut found = Keys::new(text, Some(offset));
    found.with_empty = true;
    found.manifest();
    if let Some(key) = found.keys.first() {
        let (start, end) = unquoted(text, key.start, key.end);
        return (start != key.start && start <= offset && offset <= end).then_some((start, end));
    }
    // A string not closed yet: the file does not parse there.
    let quote = written.rfind(['\'', '"'])?;
    if key_word_end(written, quote + 1) != written.len() {
        return None;
    }
    let before = written[..quote].trim_end();
    let last_word = before
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    let asks = ["lookup(", "inject("].iter().any(|f| before.ends_with(f));
    let binds = before.ends_with(last_word)
        && matches!(
            last_word,
            "bind"
                | "multibind"
                | "rebind"
                | "abstract"
                | "override"
                | "final"
                | "alias"
                | "renamed"
                | "as"
        );
    (asks || binds).then(|| (line_start + quote + 1, key_word_end(text, offset)))
}

/// Where the key's word that goes on at byte `from` of `text` ends: letters, digits, `_` and
/// `::` (a single `:` ends a data file's key).
fn key_word_end(text: &str, from: usize) -> usize {
    let bytes = text.as_bytes();
    let mut at = from;
    while at < bytes.len() {
        let c = text[at..].chars().next().unwrap_or(' ');
        if c.is_alphanumeric() || c == '_' {
            at += c.len_utf8();
        } else if text[at..].starts_with("::") {
            at += 2;
        } else {
            break;
        }
    }
    at
}

/// `start..end` without the quotes around it, when it is a quoted string.
pub(crate) fn unquoted(text: &str, start: usize, end: usize) -> (usize, usize) {
    match text.get(start..end) {
        Some(s)
            if s.len() >= 2
                && (s.starts_with('\'') || s.starts_with('"'))
                && s.ends_with(&s[..1]) =>
        {
            (start + 1, end - 1)
        }
        _ => (start, end),
    }
}

/// The keys of a manifest: all of them, or only the one at `offset`.
struct Keys<'s> {
    src: &'s str,
    offset: Option<usize>,
    /// `''` is a key too (a key being written, for completion).
    with_empty: bool,
    keys: Vec<KeyAt>,
    categories: Vec<CategoryAt>,
    /// Only when every name is wanted (no offset).
    type_aliases: Vec<String>,
}

impl<'s> Keys<'s> {
    fn new(src: &'s str, offset: Option<usize>) -> Keys<'s> {
        Keys {
            src,
            offset,
            with_empty: false,
            keys: Vec::new(),
            categories: Vec::new(),
            type_aliases: Vec::new(),
        }
    }

    fn manifest(&mut self) {
        let mut statements = Vec::new();
        let _ = crate::parse_file_statements(FileId(0), self.src, &mut |e| statements.push(e));
        for statement in &statements {
            self.expr(statement);
        }
    }

    /// Whether the walk is over: the name at the offset is found.
    fn done(&self) -> bool {
        self.offset.is_some() && !(self.keys.is_empty() && self.categories.is_empty())
    }

    /// The category whose name starts `span` (a site's declaration, a `when`'s predicate).
    fn category(
        &mut self,
        name: &str,
        span: Span,
        declared: Option<String>,
        value: Option<String>,
    ) {
        let mut start = span.start as usize;
        // A quoted name (`'dc' => ...`, `['osfamily', ...]` in YAML) is found inside its quotes.
        if matches!(self.src.as_bytes().get(start), Some(b'\'' | b'"')) {
            start += 1;
        }
        let end = start + name.len();
        if !name.is_empty()
            && self.src.get(start..end) == Some(name)
            && self.offset.is_none_or(|at| start <= at && at <= end)
        {
            self.categories.push(CategoryAt {
                name: name.to_string(),
                start,
                end,
                declared,
                value,
            });
        }
    }

    fn wants(&self, span: Span) -> bool {
        self.offset
            .is_none_or(|at| (span.start as usize) <= at && at <= span.end as usize)
    }

    fn push(&mut self, key: KeyAt) {
        if self
            .offset
            .is_none_or(|at| key.start <= at && at <= key.end)
        {
            self.keys.push(key);
        }
    }

    /// A string literal as a key.
    fn literal(&mut self, e: &Expr, role: KeyRole) {
        if let ExprKind::String { value } = &e.kind {
            if !value.is_empty() || self.with_empty {
                self.push(KeyAt {
                    key: value.to_string(),
                    start: e.span.start as usize,
                    end: e.span.end as usize,
                    role,
                });
            }
        }
    }

    fn expr(&mut self, e: &Expr) {
        if self.done() || !self.wants(e.span) {
            return;
        }
        match &e.kind {
            ExprKind::Call { functor, args, .. } => {
                let is_lookup = matches!(&functor.kind,
                    ExprKind::QualifiedName { name } if name == "lookup" || name == "inject");
                if let Some(first) = args.first().filter(|_| is_lookup) {
                    self.literal(first, KeyRole::Asks);
                }
            }
            ExprKind::Class(def) => {
                for p in &def.params {
                    self.parameter(&def.name, p);
                }
            }
            ExprKind::Bindings(block) => {
                for item in &block.items {
                    self.item(item);
                }
                return;
            }
            ExprKind::TypeAlias { name, .. } if self.offset.is_none() => {
                self.type_aliases.push(name.to_string());
            }
            ExprKind::Site(site) => {
                for item in &site.items {
                    if let SiteItem::Categories { entries, .. } = item {
                        for c in entries {
                            let value = self.src.get(c.value.span.range()).unwrap_or_default();
                            let fact = crate::load::fact_of_expr(&c.value);
                            self.category(&c.name, c.span, Some(value.to_string()), fact);
                        }
                    }
                }
            }
            _ => {}
        }
        e.for_each_child(&mut |child| self.expr(child));
    }

    /// A class parameter's `$name`, as the key Puppet's automatic parameter lookup asks
    /// (`CLASS::NAME`). The parameter's span starts at its type when it has one.
    fn parameter(&mut self, class: &str, p: &Parameter) {
        let from = p.type_expr.as_ref().map_or(p.span.start, |t| t.span.end) as usize;
        let Some(text) = self.src.get(from..p.span.end as usize) else {
            return;
        };
        let Some(at) = text.find(&format!("${}", p.name)) else {
            return;
        };
        if !p.name.is_empty() {
            let start = from + at;
            self.push(KeyAt {
                key: format!("{class}::{}", p.name),
                start,
                end: start + 1 + p.name.len(),
                role: KeyRole::Asks,
            });
        }
    }

    fn item(&mut self, item: &BindItem) {
        if self.done() {
            return;
        }
        match item {
            BindItem::When {
                condition,
                items,
                span,
                ..
            } if self.wants(*span) => {
                for p in condition.iter().flatten() {
                    let value = p.value.as_ref().and_then(|v| match &v.kind {
                        ExprKind::String { value } => Some(value.to_string()),
                        _ => None,
                    });
                    self.category(&p.category, p.span, None, value);
                }
                for i in items {
                    self.item(i);
                }
            }
            BindItem::Operation(op) if self.wants(op.span) => {
                let keys: Vec<&BindKey> = match &op.kind {
                    BindOpKind::Bind { key, .. }
                    | BindOpKind::Multibind { key, .. }
                    | BindOpKind::Rebind { key, .. } => vec![key],
                    BindOpKind::Alias { from, to, .. } | BindOpKind::Renamed { from, to, .. } => {
                        vec![from, to]
                    }
                    _ => Vec::new(),
                };
                for key in keys {
                    if let BindKey::Name { name } | BindKey::TypedName { name, .. } = key {
                        self.literal(name, KeyRole::Binds);
                    }
                }
                // A `lookup()` inside a producer (`bind 'a' to lookup('b')`).
                let mut exprs = Vec::new();
                item.for_each_expr(&mut |e| exprs.push(e));
                for e in exprs {
                    self.expr(e);
                }
            }
            _ => {}
        }
    }
}

/// A data file's top-level keys, as Hiera reads the file (`data::yaml`, which reads JSON too:
/// quoted keys, flow mappings, symbol keys). A file that does not read has no keys;
/// `lookup_options` is no key.
fn keys_in_data(text: &str) -> Vec<KeyAt> {
    let Ok(Some(document)) = crate::data::yaml::parse_hiera_data(FileId(0), text) else {
        return Vec::new();
    };
    let NodeKind::Mapping(entries) = &document.kind else {
        return Vec::new();
    };
    entries
        .iter()
        .filter_map(|(key, _)| {
            let name = key
                .as_str()
                .filter(|k| !k.is_empty() && *k != "lookup_options")?;
            Some(KeyAt {
                key: name.to_string(),
                start: key.span.start as usize,
                end: key.span.end as usize,
                role: KeyRole::Binds,
            })
        })
        .collect()
}

/// A data file's key at `offset`: the one under the cursor, else the one written on its line
/// (the cursor on the value).
fn key_in_data(text: &str, offset: usize) -> Option<KeyAt> {
    let keys = keys_in_data(text);
    let line_of = |at: usize| {
        let before = &text.as_bytes()[..at.min(text.len())];
        before.iter().filter(|&&b| b == b'\n').count()
    };
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

    fn slot(text: &str, marker: &str, manifest: bool) -> Option<String> {
        let offset = text.find(marker).expect("the marker") + marker.len();
        key_slot(text, offset, manifest).map(|(start, end)| text[start..end].to_string())
    }

    #[test]
    fn keys_are_completed_where_a_key_is_written() {
        let src =
            "bindings b {\n  bind 'ntp::se' to lookup('ntp::po')\n  bind 'x' to 'not::a::key'\n}\n";
        assert_eq!(slot(src, "'ntp::s", true).as_deref(), Some("ntp::se"));
        assert_eq!(slot(src, "lookup('ntp::", true).as_deref(), Some("ntp::po"));
        assert_eq!(slot(src, "to 'not::", true), None);
        assert_eq!(slot(src, "bind", true), None);
        // A string not closed yet, after `lookup(` or a binding's keyword; not elsewhere.
        assert_eq!(slot("$a = lookup('mo", "('mo", true).as_deref(), Some("mo"));
        assert_eq!(
            slot("  bind 'a::b\n", "'a::", true).as_deref(),
            Some("a::b")
        );
        assert_eq!(slot("$a = notice('mo", "('mo", true), None);
        assert_eq!(slot("$a = lookup('mo ", "('mo ", true), None);
        // Data: a top-level key at the start of its line, up to its `:`.
        let yaml = "---\nntp::servers: [a]\n  - x\nnew\n";
        assert_eq!(
            slot(yaml, "ntp::ser", false).as_deref(),
            Some("ntp::servers")
        );
        assert_eq!(slot(yaml, "  - ", false), None);
        assert_eq!(slot(yaml, "\nne", false).as_deref(), Some("new"));
    }

    #[test]
    fn a_binder_configs_categories_are_found_where_declared_quoted_or_not() {
        let src = "version: 2\ncategories:\n  - node\n  - ['osfamily', '${osfamily}']\n  - [dc, \"${facts['dc']}\"]\n  - {name: \"tier\", value: '${tier}'}\n  - {name: environment, value: '${environment}'}\n";
        let names = names_in(src, Holder::BinderConfig);
        let found: Vec<(&str, &str, Option<&str>)> = names
            .categories
            .iter()
            .map(|c| (c.name.as_str(), &src[c.start..c.end], c.value.as_deref()))
            .collect();
        assert_eq!(
            found,
            [
                // The node's name is its `fqdn` (D8), the environment the request's.
                ("node", "node", Some("fqdn")),
                ("osfamily", "osfamily", Some("osfamily")),
                ("dc", "dc", Some("dc")),
                ("tier", "tier", Some("tier")),
                ("environment", "environment", None),
            ]
        );
        assert!(names.categories.iter().all(|c| c.declared.is_some()));
    }

    #[test]
    fn categories_are_found_where_declared_and_named() {
        let src = "site {\n  categories { dc => $facts['dc'], node => $::fqdn }\n}\nbindings b {\n  when dc 'ams' and os 'x' { bind 'k' to 1 }\n}\n";
        let names = names_in(src, Holder::Manifest);
        let found: Vec<(&str, bool)> = names
            .categories
            .iter()
            .map(|c| (c.name.as_str(), c.declared.is_some()))
            .collect();
        assert_eq!(
            found,
            [("dc", true), ("node", true), ("dc", false), ("os", false)]
        );
        assert_eq!(
            names.categories[0].declared.as_deref(),
            Some("$facts['dc']")
        );
        // A declaration's fact; a `when`'s literal value.
        assert_eq!(names.categories[0].value.as_deref(), Some("dc"));
        assert_eq!(names.categories[1].value.as_deref(), Some("fqdn"));
        assert_eq!(names.categories[2].value.as_deref(), Some("ams"));
        let slot = |text: &str, marker: &str| {
            let offset = text.find(marker).expect("the marker") + marker.len();
            category_value_slot(text, offset).map(|(c, s, e, q)| (c, text[s..e].to_string(), q))
        };
        let typing = "bindings b {\n  when dc 'am\n}\n";
        assert_eq!(slot(typing, "'a"), Some(("dc".into(), "am".into(), true)));
        assert_eq!(
            slot("  when dc x and os \n", "os "),
            Some(("os".into(), String::new(), false))
        );
        assert_eq!(slot("  bind 'k' to 'x\n", "'x"), None);
        let at = |marker: &str| {
            category_at(src, src.find(marker).expect("the marker") + 1).map(|c| c.name)
        };
        assert_eq!(at("os 'x'").as_deref(), Some("os"));
        assert_eq!(at("dc =>").as_deref(), Some("dc"));
        assert_eq!(at("'ams'"), None);
        let typing = src.replace("}\n}\n", "}\n  when n\n}\n");
        let offset = typing.find("when n").expect("the when") + "when n".len();
        let slot = category_slot(&typing, offset).map(|(s, e)| &typing[s..e]);
        assert_eq!(slot, Some("n"));
        assert_eq!(
            category_slot(src, src.find("bind 'k").expect("bind") + 2),
            None
        );
    }
}
