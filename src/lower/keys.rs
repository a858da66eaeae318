//! The keys a bind operation defines: D12's (type, name) pairs, with every `Data`-assignable
//! type collapsed to `Data`, and the ARM-8 naming scheme for the forms that bind no name of
//! their own (`/param/Class[ntp]/servers`, `/var/x`).
//!
//! Only statically known keys are produced: a binding whose name is computed at request time
//! has no key here. Contributions to multibinds (`bind ... in 'id'`) are not keys either; they
//! belong to their multibind.

use crate::ast::{BindFlags, BindKey, BindOpKind, BindOperation, Expr, ExprKind, ProducerKind};
use crate::span::Span;
use crate::types::PType;
use std::fmt;

/// What a lookup asks for: a type and a name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    pub ty: PType,
    pub name: String,
}

impl Key {
    /// D22, ARM-9's implicit lookup: parameter `p` of class `c` (`/param/Class[c]/p`) is
    /// answered by `c::p` when nothing binds it, the Hiera convention data in modules uses.
    pub fn implicit_parameter(&self) -> Option<Key> {
        let rest = self.name.strip_prefix("/param/Class[")?;
        let (class, parameter) = rest.split_once("]/")?;
        let class = class.trim_matches(['\'', '"']).trim_start_matches("::");
        if class.is_empty() || parameter.is_empty() || parameter.contains('/') {
            return None;
        }
        Some(Key::new(
            self.ty.clone(),
            format!("{}::{parameter}", class.to_ascii_lowercase()),
        ))
    }

    /// The key of a binding of `name` under `ty`: every `Data` type is one key (D12).
    pub fn new(ty: PType, name: impl Into<String>) -> Key {
        let ty = if ty.is_data() { PType::Data } else { ty };
        Key {
            ty,
            name: name.into(),
        }
    }

    /// A string that identifies the key: equal keys, equal strings (for ordered maps).
    pub fn id(&self) -> String {
        Key::id_of(&self.ty, &self.name)
    }

    /// The id of `Key::new(ty, name)` without building the key.
    pub fn id_of(ty: &PType, name: &str) -> String {
        // Most keys are Data keys: build their id without the formatting machinery.
        if ty.is_data() {
            let mut id = String::with_capacity(5 + name.len());
            id.push_str("Data/");
            id.push_str(name);
            return id;
        }
        format!("{ty}/{name}")
    }
}

/// For messages: the name for a Data key, `Type[Foo], 'x'` (as written in a `bind`) otherwise.
impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.ty, self.name.is_empty()) {
            (PType::Data, _) => f.write_str(&self.name),
            (ty, true) => write!(f, "{ty}"),
            (ty, false) => write!(f, "{ty}, '{}'", self.name),
        }
    }
}

/// One key an operation defines, with the flags that decide how it composes.
#[derive(Clone, Debug)]
pub struct KeyedBinding {
    pub key: Key,
    pub is_abstract: bool,
    pub is_override: bool,
    /// Whether it is a `multibind` (a collection others contribute to).
    pub is_multibind: bool,
    /// Where the key is written (the name, or the parameter's or variable's name).
    pub span: Span,
}

/// The keys `op` defines, in source order.
pub fn keys_of(op: &BindOperation) -> Vec<KeyedBinding> {
    let mut out = Vec::new();
    match &op.kind {
        BindOpKind::Bind {
            flags,
            key,
            producer,
            contributes_to: None,
            ..
        } => {
            let value = producer.as_ref().and_then(|p| match &p.producer {
                ProducerKind::Value { expr } => Some(expr),
                ProducerKind::Producer { .. } | ProducerKind::Hiera { .. } => None,
            });
            let mut push = |ty: PType, name: &str, span: Span| {
                out.push(KeyedBinding {
                    key: Key::new(ty, name),
                    is_abstract: flags.abstract_.is_some(),
                    is_override: flags.override_.is_some(),
                    is_multibind: false,
                    span,
                })
            };
            match key {
                BindKey::Name { name } => {
                    if let Some(n) = name.literal_text() {
                        let ty = value.and_then(PType::infer).unwrap_or(PType::Data);
                        push(ty, n, name.span);
                    }
                }
                BindKey::TypedName { type_expr, name } => {
                    if let (Ok(ty), Some(n)) = (PType::from_expr(type_expr), name.literal_text()) {
                        push(ty, n, name.span);
                    }
                }
                BindKey::Type { type_expr } => {
                    if let Ok(ty) = PType::from_expr(type_expr) {
                        push(ty, "", type_expr.span);
                    }
                }
                BindKey::Parameters { target } => {
                    let (Some(target_name), Some(ExprKind::Hash { entries })) =
                        (param_target(target), value.map(|v| &v.kind))
                    else {
                        return out;
                    };
                    for en in entries {
                        if let Some(p) = en.key.literal_text() {
                            push(
                                PType::Data,
                                &format!("/param/{target_name}/{p}"),
                                en.key.span,
                            );
                        }
                    }
                }
                BindKey::Variables { type_expr } => {
                    let declared = type_expr.as_ref().and_then(|t| PType::from_expr(t).ok());
                    for (name, span, v) in variable_names(flags, value) {
                        let ty = declared
                            .clone()
                            .or_else(|| v.and_then(PType::infer))
                            .unwrap_or(PType::Data);
                        push(ty, &format!("/var/{name}"), span);
                    }
                }
                BindKey::Inferred => {}
            }
        }
        BindOpKind::Multibind { flags, key, .. } => {
            let (ty, name) = match key {
                BindKey::Name { name } => (Ok(PType::hash_of_data()), name),
                BindKey::TypedName { type_expr, name } => (PType::from_expr(type_expr), name),
                _ => return out,
            };
            if let (Ok(ty), Some(n)) = (ty, name.literal_text()) {
                out.push(KeyedBinding {
                    key: Key::new(ty, n),
                    is_abstract: flags.abstract_.is_some(),
                    is_override: flags.override_.is_some(),
                    is_multibind: true,
                    span: name.span,
                });
            }
        }
        _ => {}
    }
    out
}

/// `bind variables {a => 1}` binds `a`; `bind abstract variables to ['a', 'b']` declares `a`
/// and `b`. Each name (without a leading `::`) with its span and, for a concrete one, its value.
pub(crate) fn variable_names<'a>(
    flags: &BindFlags,
    value: Option<&'a Expr>,
) -> Vec<(&'a str, Span, Option<&'a Expr>)> {
    let Some(value) = value else {
        return Vec::new();
    };
    let strip = |n: &'a str| n.trim_start_matches("::");
    match (&value.kind, flags.abstract_.is_some()) {
        (ExprKind::Hash { entries }, false) => entries
            .iter()
            .filter_map(|en| Some((strip(en.key.literal_text()?), en.key.span, Some(&en.value))))
            .collect(),
        (ExprKind::Array { elements }, true) => elements
            .iter()
            .filter_map(|el| Some((strip(el.literal_text()?), el.span, None)))
            .collect(),
        (_, true) => value
            .literal_text()
            .map(|n| vec![(strip(n), value.span, None)])
            .unwrap_or_default(),
        _ => Vec::new(),
    }
}

/// The naming scheme's name for a parameter target: `ntp` and `Class[ntp]` give `Class[ntp]`,
/// `Web` gives `Web`, `Web['a/b']` gives `Web[a%2Fb]`.
pub fn param_target(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::QualifiedName { name } | ExprKind::ClassType { name } => Some(format!(
            "Class[{}]",
            name.trim_start_matches("::").to_lowercase()
        )),
        ExprKind::QualifiedReference { name } => Some(name.to_string()),
        ExprKind::Access { target, keys } => {
            let ExprKind::QualifiedReference { name } = &target.kind else {
                return None;
            };
            let [title] = keys.as_slice() else {
                return None;
            };
            let title = title.literal_text()?.trim_start_matches("::");
            if name.eq_ignore_ascii_case("class") {
                Some(format!("Class[{}]", title.to_lowercase()))
            } else {
                Some(format!("{name}[{}]", encode_instance_name(title)))
            }
        }
        _ => None,
    }
}

/// ARM-8 "Instance names": `/`, `[`, `]` and `%` are URL-encoded so names cannot overlap.
pub fn encode_instance_name(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    for c in title.chars() {
        match c {
            '/' => out.push_str("%2F"),
            '[' => out.push_str("%5B"),
            ']' => out.push_str("%5D"),
            '%' => out.push_str("%25"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ast::{BindItem, ExprKind};
    use crate::span::FileId;

    fn keys(src: &str) -> Vec<String> {
        let parsed = crate::parser::parse_file(FileId(0), src);
        let program = parsed.program.expect("parses");
        let mut out = Vec::new();
        for e in &program.body {
            if let ExprKind::Bindings(block) = &e.kind {
                for item in &block.items {
                    if let BindItem::Operation(op) = item {
                        for k in keys_of(op) {
                            let flags = match (k.is_abstract, k.is_override) {
                                (true, _) => " abstract",
                                (_, true) => " override",
                                _ => "",
                            };
                            out.push(format!("{}{flags}", k.key.id()));
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn data_types_share_one_key() {
        assert_eq!(
            keys("bindings a { bind Integer, 'x' to 1 bind 'x' to 'one' bind String, 'x' to 'y' }"),
            ["Data/x", "Data/x", "Data/x"]
        );
        assert_eq!(
            keys("bindings a { bind Type[My::Thing], 'x' to Type[My::Impl] }"),
            ["Type[My::Thing]/x"]
        );
        assert_eq!(keys("bindings a { multibind 'm' }"), ["Data/m"]);
        assert_eq!(
            keys("bindings a { bind to 'v' in 'm' bind 'n' to 1 in 'm' }"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn naming_scheme() {
        assert_eq!(
            keys("bindings a { bind parameters ntp to { servers => [], 'x' => 1 } }"),
            ["Data//param/Class[ntp]/servers", "Data//param/Class[ntp]/x"]
        );
        assert_eq!(
            keys("bindings a { bind parameters Web['a/b[1]%'] to { p => 1 } }"),
            ["Data//param/Web[a%2Fb%5B1%5D%25]/p"]
        );
        assert_eq!(
            keys("bindings a { bind variables to { x => 1, '::y' => 'z' } bind abstract variables to ['u'] }"),
            ["Data//var/x", "Data//var/y", "Data//var/u abstract"]
        );
        assert_eq!(
            keys("bindings a { bind override 'o' to 1 }"),
            ["Data/o override"]
        );
    }
}
