//! Completion of the words of a manifest that are neither keys nor categories: an option's
//! name inside a binding's `{ }` (those that apply to that operation, as the checker judges
//! them), a type's name (in a binding's key, the types pbc gives a meaning to; elsewhere,
//! Puppet's and the tree's type aliases), and a fact (after `$`, `$::`, or in `$facts['...']`, also inside a string's
//! interpolation), from the factset the settings choose or else the tree's `facts/`. It reads
//! the text being edited and the facts; what the words mean stays the checker's and the
//! injector's.

use super::text::{char_start, LineIndex};
use super::{completion_list, Offer, Workspace, MOST_FACTSETS};
use crate::ast::{BindItem, BindOpKind, BindOperation, BindingsBlock, ExprKind};
use crate::eval::Value;
use crate::lexer::Tok;
use crate::span::FileId;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Puppet 7's core data types, for a type written outside a binding's key.
const PUPPET_TYPES: &[&str] = &[
    "Any",
    "Array",
    "Binary",
    "Boolean",
    "Callable",
    "CatalogEntry",
    "Class",
    "Collection",
    "Data",
    "Default",
    "Deferred",
    "Enum",
    "Error",
    "Float",
    "Hash",
    "Init",
    "Integer",
    "Iterable",
    "Iterator",
    "NotUndef",
    "Numeric",
    "Object",
    "Optional",
    "Pattern",
    "Regexp",
    "Resource",
    "RichData",
    "Runtime",
    "Scalar",
    "ScalarData",
    "SemVer",
    "SemVerRange",
    "Sensitive",
    "String",
    "Struct",
    "Timespan",
    "Timestamp",
    "Tuple",
    "Type",
    "TypeSet",
    "URI",
    "Undef",
    "Variant",
];

/// Where a word of a manifest is being written, and what it is.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// An option's name inside a binding's `{ }`: the options that apply, less those written.
    Option { options: Vec<&'static str> },
    /// A type's name; `in_key`: in a binding's key, where only pbc's key types mean something.
    Type { in_key: bool },
    /// A fact: the path of hash keys before it (`$facts['os']['` has `["os"]`).
    Fact { path: Vec<String> },
}

/// What is being written at byte `offset` of the manifest `text`, and the byte range of the
/// word so far (for a completion to replace).
pub(crate) fn slot_at(text: &str, offset: usize) -> Option<(Slot, usize, usize)> {
    let offset = char_start(text, offset);
    fact_slot(text, offset)
        .or_else(|| type_slot(text, offset))
        .or_else(|| option_slot(text, offset))
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The start of the name that ends at `offset` (letters, digits, `_`).
fn name_start(text: &str, offset: usize) -> usize {
    text[..offset]
        .char_indices()
        .rev()
        .take_while(|&(_, c)| is_name_char(c))
        .last()
        .map_or(offset, |(i, _)| i)
}

/// The end of the name that starts before `offset` and goes on after it.
fn name_end(text: &str, offset: usize) -> usize {
    offset
        + text[offset..]
            .find(|c: char| !is_name_char(c))
            .unwrap_or(text.len() - offset)
}

/// An option's name being written: a name right after a `{` or `,` that, written as an
/// option, makes the file parse with it in the options of a `bind` or `multibind`.
fn option_slot(text: &str, offset: usize) -> Option<(Slot, usize, usize)> {
    let start = name_start(text, offset);
    let end = name_end(text, offset);
    if !text[..start].trim_end().ends_with(['{', ',']) {
        return None;
    }
    // The name written as a whole option, so that the file parses where it did before.
    let after = text[end..].trim_start();
    let mut patched = String::with_capacity(text.len() + 16);
    patched.push_str(&text[..start]);
    patched.push_str(if start == end { "x" } else { &text[start..end] });
    if !after.starts_with("=>") {
        patched.push_str(" => undef");
        if after.starts_with(|c: char| is_name_char(c)) {
            patched.push(',');
        }
    }
    patched.push_str(&text[end..]);
    let mut statements = Vec::new();
    let _ = crate::parse_file_statements(FileId(0), &patched, &mut |e| statements.push(e));
    for statement in &statements {
        let ExprKind::Bindings(block) = &statement.kind else {
            continue;
        };
        if let Some(options) = options_around(block, &block.items, start) {
            return Some((Slot::Option { options }, start, end));
        }
    }
    None
}

/// The options that apply to the operation among `items` with an option whose name starts
/// at `start`, less the others it already has.
fn options_around(
    block: &BindingsBlock,
    items: &[BindItem],
    start: usize,
) -> Option<Vec<&'static str>> {
    for item in items {
        match item {
            BindItem::When { items, .. } => {
                if let Some(found) = options_around(block, items, start) {
                    return Some(found);
                }
            }
            BindItem::Operation(op) => {
                let written = options_of(op);
                if written.iter().any(|o| o.name_span.start as usize == start) {
                    let others: Vec<&str> = written
                        .iter()
                        .filter(|o| o.name_span.start as usize != start)
                        .map(|o| o.name.as_str())
                        .collect();
                    let mut options = crate::validate::bindings::applicable_options(block, op);
                    options.retain(|o| !others.contains(o));
                    return Some(options);
                }
            }
            _ => {}
        }
    }
    None
}

fn options_of(op: &BindOperation) -> &[crate::ast::BindOption] {
    match &op.kind {
        BindOpKind::Bind { options, .. } | BindOpKind::Multibind { options, .. } => options,
        _ => &[],
    }
}

/// A type's name being written: a type reference the cursor is in or just after. In a
/// binding's key when, going back, a `bind` or `multibind` comes before anything that ends a
/// key (`to`, `in`, a brace).
fn type_slot(text: &str, offset: usize) -> Option<(Slot, usize, usize)> {
    let lexed = crate::lexer::lex(FileId(0), text);
    let at = lexed
        .tokens
        .iter()
        .position(|(start, _, end)| *start < offset && offset <= *end)?;
    let (start, Tok::ClassRef(_), end) = lexed.tokens[at] else {
        return None;
    };
    let mut in_key = false;
    for (_, tok, _) in lexed.tokens[..at].iter().rev().take(64) {
        match tok {
            Tok::KwBind | Tok::KwMultibind | Tok::KwRebind => {
                in_key = true;
                break;
            }
            Tok::ClassRef(_)
            | Tok::LBrack
            | Tok::ListStart
            | Tok::RBrack
            | Tok::Comma
            | Tok::Name(_)
            | Tok::Str(_)
            | Tok::Number(_)
            | Tok::KwAbstract
            | Tok::KwOverride
            | Tok::KwClassType => {}
            _ => break,
        }
    }
    Some((Slot::Type { in_key }, start, end))
}

/// A fact's name being written: after `$` or `$::` (a fact is a top-scope variable), or
/// as a key of `$facts['...']` (each key before it given in the path); also inside `${...}`.
fn fact_slot(text: &str, offset: usize) -> Option<(Slot, usize, usize)> {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    if text[line_start..].trim_start().starts_with('#') {
        return None;
    }
    let start = name_start(text, offset);
    let end = name_end(text, offset);
    let before = &text[line_start..start];
    if let Some(rest) = before.strip_suffix("::").or(Some(before)) {
        if rest.ends_with('$') || rest.ends_with("${") {
            // `$::` with a name not scoped further, or a bare top-scope name; not a variable
            // being assigned, or declared after its type.
            let scoped = text[end..].starts_with("::");
            let after = text[end..].trim_start_matches([' ', '\t']);
            let assigned = after.starts_with('=')
                && !["==", "=~", "=>"].iter().any(|op| after.starts_with(op));
            let sigil = rest.trim_end_matches('{').trim_end_matches('$').trim_end();
            let typed = sigil.ends_with(']')
                || sigil
                    .rsplit(|c: char| !(is_name_char(c) || c == ':'))
                    .next()
                    .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_uppercase()));
            if scoped || assigned || typed {
                return None;
            }
            return Some((Slot::Fact { path: Vec::new() }, start, end));
        }
    }
    // `$facts['a']['b']['` + the name: the keys read backwards.
    let mut rest = before
        .strip_suffix(['\'', '"'])
        .and_then(|r| r.strip_suffix('['))?;
    let mut path = Vec::new();
    loop {
        for variable in ["$facts", "${facts", "$::facts", "${::facts"] {
            if rest.ends_with(variable) {
                path.reverse();
                return Some((Slot::Fact { path }, start, end));
            }
        }
        let inner = rest.strip_suffix(']')?;
        let close = inner.chars().last().filter(|c| matches!(c, '\'' | '"'))?;
        let inner = &inner[..inner.len() - 1];
        let open = inner.rfind(close)?;
        path.push(inner[open + 1..].to_string());
        rest = inner[..open].strip_suffix('[')?;
        if path.len() > 32 {
            return None;
        }
    }
}

impl Workspace {
    /// The completion of the word of a manifest at `offset` that [`slot_at`] finds.
    pub(super) fn word_completion(
        &self,
        text: &str,
        (slot, start, end): (Slot, usize, usize),
        offset: usize,
    ) -> lsp_types::CompletionList {
        let written = text.get(start..offset.max(start)).unwrap_or_default();
        let range = LineIndex::new(text).range(start, end, self.encoding);
        // Each word offered, with what it is.
        let (words, kind): (Vec<(String, String)>, _) = match slot {
            Slot::Option { options } => (
                options
                    .into_iter()
                    .map(|o| (o.to_string(), "option".to_string()))
                    .collect(),
                lsp_types::CompletionItemKind::PROPERTY,
            ),
            Slot::Type { in_key: true } => (
                crate::types::KEY_TYPES
                    .iter()
                    .map(|(t, holds)| (t.to_string(), holds.to_string()))
                    .collect(),
                lsp_types::CompletionItemKind::CLASS,
            ),
            Slot::Type { in_key: false } => (
                PUPPET_TYPES
                    .iter()
                    .map(|t| (t.to_string(), "Puppet type".to_string()))
                    .chain(self.type_aliases())
                    .collect(),
                lsp_types::CompletionItemKind::CLASS,
            ),
            Slot::Fact { path } => (
                self.fact_names(&path),
                lsp_types::CompletionItemKind::VARIABLE,
            ),
        };
        let offers = words
            .into_iter()
            .filter(|(word, _)| word.starts_with(written))
            .map(|(word, detail)| Offer {
                label: word.clone(),
                new_text: word,
                kind,
                detail,
            });
        completion_list(range, offers)
    }

    /// The type aliases the tree's manifests declare, each once (by name), with the file that
    /// declares it.
    fn type_aliases(&self) -> Vec<(String, String)> {
        let mut aliases: BTreeMap<String, String> = BTreeMap::new();
        for (file, names) in self.name_index() {
            for name in &names.type_aliases {
                let shown = file.strip_prefix(&self.root).unwrap_or(&file);
                aliases
                    .entry(name.clone())
                    .or_insert_with(|| format!("type alias, {}", shown.display()));
            }
        }
        aliases.into_iter().collect()
    }

    /// The facts under `path` (the top-level facts when it is empty): of the factset the
    /// settings choose, each with its value there; or else of every factset of the tree's
    /// `facts/` (at most [`MOST_FACTSETS`]), each with how many have it.
    fn fact_names(&self, path: &[String]) -> Vec<(String, String)> {
        let sets: Vec<PathBuf> = match self.chosen_facts() {
            Some(file) => vec![file],
            None => crate::inject::nodes::factsets(&self.root.join("facts"))
                .map(|sets| {
                    sets.into_iter()
                        .take(MOST_FACTSETS)
                        .map(|(_, p)| p)
                        .collect()
                })
                .unwrap_or_default(),
        };
        let read = sets.len();
        // Each name with the value of the one factset, or the number of factsets with it.
        let mut names: BTreeMap<String, (usize, String)> = BTreeMap::new();
        for file in sets.iter().filter(|f| self.may_read(f)) {
            for (name, value) in facts_under(file, path, &self.options.files) {
                let entry = names.entry(name).or_default();
                entry.0 += 1;
                entry.1 = value;
            }
        }
        names
            .into_iter()
            .map(|(name, (count, value))| {
                let detail = if read == 1 {
                    value
                } else {
                    format!("in {count} of {read} factsets")
                };
                (name, detail)
            })
            .collect()
    }
}

/// The names of the facts of `file` under `path`, each with its value shown short.
fn facts_under(
    file: &Path,
    path: &[String],
    access: &crate::source::FileAccess,
) -> Vec<(String, String)> {
    let mut request = crate::load::Request::default();
    if crate::load::facts::load(file, &mut request, access).is_err() {
        return Vec::new();
    }
    let shown = |v: &Value| {
        let text = v.to_display_string();
        match text.char_indices().nth(60) {
            Some((cut, _)) => format!("{}…", &text[..cut]),
            None => text,
        }
    };
    let Some((first, deeper)) = path.split_first() else {
        return request
            .facts
            .iter()
            .map(|(name, v)| (name.to_string(), shown(v)))
            .collect();
    };
    let mut value = request.facts.get(first.as_str());
    for key in deeper {
        value = match value {
            Some(Value::Hash(map)) => map.get(&Value::String(key.as_str().into())),
            _ => None,
        };
    }
    match value {
        Some(Value::Hash(map)) => map
            .iter()
            .filter_map(|(k, v)| match k {
                Value::String(name) => Some((name.to_string(), shown(v))),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(text_with_cursor: &str) -> Option<(Slot, String)> {
        let offset = text_with_cursor.find('|').expect("a cursor");
        let text = text_with_cursor.replacen('|', "", 1);
        slot_at(&text, offset).map(|(s, start, end)| (s, text[start..end].to_string()))
    }

    #[test]
    fn words_being_written_are_told_apart() {
        let key = |t: &str| slot(t).map(|(s, w)| (format!("{s:?}"), w));
        assert_eq!(
            key("bindings x {\n  bind Hash[String, A|]\n}\n"),
            Some(("Type { in_key: true }".into(), "A".into()))
        );
        assert_eq!(
            key("bindings x {\n  bind S|\n}\n"),
            Some(("Type { in_key: true }".into(), "S".into()))
        );
        assert_eq!(
            key("bindings x {\n  bind 'k' to Str|\n}\n"),
            Some(("Type { in_key: false }".into(), "Str".into()))
        );
        assert_eq!(
            key("class a(Opt|ional $x) {}\n"),
            Some(("Type { in_key: false }".into(), "Optional".into()))
        );
        assert_eq!(
            key("bindings x {\n  bind 'k' to \"${facts['os']['fa|\n}\n"),
            Some(("Fact { path: [\"os\"] }".into(), "fa".into()))
        );
        assert_eq!(
            key("$x = $::o|s\n"),
            Some(("Fact { path: [] }".into(), "os".into()))
        );
        assert_eq!(key("$x = $::os::f|\n"), None);
        assert_eq!(key("# $::o|s\n"), None);
        assert_eq!(key("$p|ool = 1\n"), None);
        assert_eq!(key("class a(Array[String] $s|) {}\n"), None);
        assert_eq!(key("class a(String $t|) {}\n"), None);
        assert_eq!(
            key("if $o|s == 1 {}\n"),
            Some(("Fact { path: [] }".into(), "os".into()))
        );
        assert_eq!(
            key("bindings x {\n  multibind Array[Data], 'k' { fl|, uniq => true }\n}\n"),
            Some((
                "Option { options: [\"combinator\", \"flatten\", \"priority_on_named\", \"priority_on_unnamed\", \"transformer\"] }".into(),
                "fl".into()
            ))
        );
        assert_eq!(key("bindings x {\n  bind 'k' to { a| }\n}\n"), None);
    }
}
