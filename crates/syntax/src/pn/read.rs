//! PN read back into the [`ast`](crate::ast): what the injector needs to evaluate the
//! expressions a written model embeds (`pbc lookup --model`).
//!
//! It inverts [`super::expr_to_json`] for every expression a binding can hold: literals,
//! strings and interpolation, heredocs, names, variables, arrays and hashes, operators, access,
//! selectors, assignments, calls with lambdas, `if`/`unless`/`case`, resource expressions,
//! `Class[x]` and queries. Definitions (`class`, `define`, `node`, `function`, types, `site`,
//! `bindings`) are never values and are refused. PN has no positions: every node gets
//! [`Span::NONE`], and what reports an error about one names the binding instead.
//!
//! It must not evaluate or judge what it reads. Operator chains, which PN nests one level per
//! operator, are read along their left spine without recursing per operator, into the flat
//! chain the parser would have built; other recursion follows the JSON's nesting, which the
//! model reader bounds before anything is parsed.

use crate::ast::*;
use crate::span::Span;
use serde_json::Value as Json;
use smol_str::SmolStr;

/// Why a PN value is not an expression pbc reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PnError(pub String);

type Read<T> = Result<T, PnError>;

fn error<T>(message: impl Into<String>) -> Read<T> {
    Err(PnError(message.into()))
}

/// The expression `pn` holds.
pub fn expr(pn: &Json) -> Read<Expr> {
    Ok(node(kind(pn)?))
}

/// A lambda (`{"^":["lambda", {...}]}`), as an option's value holds it.
pub fn lambda(pn: &Json) -> Read<Lambda> {
    match call(pn) {
        Some(("lambda", args)) => lambda_map(single(args, "lambda")?),
        _ => error("a lambda was expected"),
    }
}

/// Whether `pn` is a lambda rather than an expression.
pub fn is_lambda(pn: &Json) -> bool {
    matches!(call(pn), Some(("lambda", _)))
}

fn node(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::NONE,
        depth: 0,
    }
}

/// `{"^": [name, args...]}` as its name and arguments.
fn call(pn: &Json) -> Option<(&str, &[Json])> {
    let Json::Object(map) = pn else {
        return None;
    };
    if map.len() != 1 {
        return None;
    }
    let Json::Array(items) = map.get("^")? else {
        return None;
    };
    let (first, rest) = items.split_first()?;
    Some((first.as_str()?, rest))
}

/// `{"#": [k1, v1, ...]}` as its entries.
fn map_entries(pn: &Json) -> Read<Vec<(&str, &Json)>> {
    let items = match pn {
        Json::Object(map) if map.len() == 1 => match map.get("#") {
            Some(Json::Array(items)) => items,
            _ => return error("a PN map (`{\"#\": [...]}`) was expected"),
        },
        _ => return error("a PN map (`{\"#\": [...]}`) was expected"),
    };
    if items.len() % 2 != 0 {
        return error("a PN map has a key without a value");
    }
    items
        .chunks(2)
        .map(|pair| match &pair[0] {
            Json::String(k) => Ok((k.as_str(), &pair[1])),
            _ => error("a PN map's keys are strings"),
        })
        .collect()
}

fn entry<'j>(entries: &[(&str, &'j Json)], key: &str) -> Option<&'j Json> {
    entries.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
}

fn required<'j>(entries: &[(&str, &'j Json)], key: &str, what: &str) -> Read<&'j Json> {
    entry(entries, key).ok_or_else(|| PnError(format!("`{what}` has no `{key}`")))
}

fn single<'j>(args: &'j [Json], name: &str) -> Read<&'j Json> {
    match args {
        [one] => Ok(one),
        _ => error(format!("`{name}` takes one argument, not {}", args.len())),
    }
}

fn pair<'j>(args: &'j [Json], name: &str) -> Read<(&'j Json, &'j Json)> {
    match args {
        [a, b] => Ok((a, b)),
        _ => error(format!("`{name}` takes two arguments, not {}", args.len())),
    }
}

fn string<'j>(pn: &'j Json, what: &str) -> Read<&'j str> {
    pn.as_str()
        .ok_or_else(|| PnError(format!("{what} must be a string")))
}

fn boxed(pn: &Json) -> Read<Box<Expr>> {
    expr(pn).map(Box::new)
}

fn list(pn: &Json) -> Read<Vec<Expr>> {
    match pn {
        Json::Array(items) => items.iter().map(expr).collect(),
        _ => error("a list was expected"),
    }
}

fn all(items: &[Json]) -> Read<Vec<Expr>> {
    items.iter().map(expr).collect()
}

/// A body entry of a map: absent when empty.
fn body(entries: &[(&str, &Json)], key: &str) -> Read<Vec<Expr>> {
    entry(entries, key).map_or(Ok(Vec::new()), list)
}

fn binary_op(name: &str) -> Option<BinaryOp> {
    use BinaryOp::*;
    [
        In, Match, NoMatch, Mul, Div, Mod, Add, Sub, Shl, Shr, Eq, Ne, Lt, Le, Gt, Ge, And, Or,
    ]
    .into_iter()
    .find(|op| op.text() == name)
}

fn relationship_op(name: &str) -> Option<RelationshipOp> {
    Some(match name {
        "->" => RelationshipOp::Before,
        "~>" => RelationshipOp::Notify,
        "<-" => RelationshipOp::Require,
        "<~" => RelationshipOp::Subscribe,
        _ => return None,
    })
}

/// What a left-nested chain's operator is.
enum ChainOp {
    Binary(BinaryOp),
    Relationship(RelationshipOp),
}

fn chain_op(name: &str, args: &[Json]) -> Option<ChainOp> {
    if args.len() != 2 {
        return None;
    }
    binary_op(name)
        .map(ChainOp::Binary)
        .or_else(|| relationship_op(name).map(ChainOp::Relationship))
}

/// `(op2 (op1 a b) c)` as the flat chain `a op1 b op2 c`: the left spine is walked, not
/// recursed into. Binary and relationship operators never share a chain.
fn chain(pn: &Json) -> Read<ExprKind> {
    let mut rights: Vec<&Json> = Vec::new();
    let mut binary: Vec<BinaryOp> = Vec::new();
    let mut relationship: Vec<RelationshipOp> = Vec::new();
    let mut at = pn;
    // `chain_op` holds only for a call of two arguments: the left one and the right one.
    while let Some((name, args)) = call(at) {
        match chain_op(name, args) {
            Some(ChainOp::Binary(op)) if relationship.is_empty() => binary.push(op),
            Some(ChainOp::Relationship(op)) if binary.is_empty() => relationship.push(op),
            _ => break,
        }
        rights.push(&args[1]);
        at = &args[0];
    }
    let mut operands = Vec::with_capacity(rights.len() + 1);
    operands.push(expr(at)?);
    for right in rights.iter().rev() {
        operands.push(expr(right)?);
    }
    binary.reverse();
    relationship.reverse();
    Ok(if relationship.is_empty() {
        ExprKind::Binary {
            operands,
            operators: binary.into_boxed_slice(),
        }
    } else {
        ExprKind::Relationship {
            operands,
            operators: relationship.into_boxed_slice(),
        }
    })
}

fn kind(pn: &Json) -> Read<ExprKind> {
    match pn {
        Json::Null => Ok(ExprKind::Undef),
        Json::Bool(value) => Ok(ExprKind::Boolean { value: *value }),
        Json::String(value) => Ok(ExprKind::String {
            value: value.as_str().into(),
        }),
        Json::Number(n) => Ok(number(n)),
        Json::Array(_) => {
            error("a list is not an expression (an array is `{\"^\":[\"array\", ...]}`)")
        }
        Json::Object(_) => {
            let Some((name, args)) = call(pn) else {
                return error("a PN map is not an expression");
            };
            if chain_op(name, args).is_some() {
                return chain(pn);
            }
            named(name, args)
        }
    }
}

/// A number as the parser gives it: a negative one is a minus on the literal, which is how
/// Puppet's PN folded it.
fn number(n: &serde_json::Number) -> ExprKind {
    let text = n.to_string();
    let (negative, digits) = match text.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, text.as_str()),
    };
    let literal = if n.is_f64() {
        ExprKind::Float {
            text: digits.into(),
            value: digits.parse().unwrap_or(f64::NAN),
        }
    } else {
        ExprKind::Integer {
            text: digits.into(),
            radix: 10,
        }
    };
    if negative {
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand: Box::new(node(literal)),
        }
    } else {
        literal
    }
}

fn named(name: &str, args: &[Json]) -> Read<ExprKind> {
    Ok(match name {
        "nop" => ExprKind::Nop,
        "error" => ExprKind::Error,
        "default" => ExprKind::Default,
        "block" => ExprKind::Block {
            statements: all(args)?,
        },
        "concat" => ExprKind::Concat {
            segments: all(args)?,
        },
        "str" => ExprKind::Text {
            expr: boxed(single(args, name)?)?,
        },
        "heredoc" => {
            let entries = map_entries(single(args, name)?)?;
            ExprKind::Heredoc {
                syntax: match entry(&entries, "syntax") {
                    Some(s) => string(s, "a heredoc's syntax")?.into(),
                    None => SmolStr::default(),
                },
                text: boxed(required(&entries, "text", name)?)?,
            }
        }
        "int" => {
            let entries = map_entries(single(args, name)?)?;
            let radix = required(&entries, "radix", name)?.as_u64().unwrap_or(10);
            let value = required(&entries, "value", name)?;
            let digits = value.to_string();
            let text = match (radix, value.as_u64()) {
                (16, Some(v)) => format!("0x{v:X}"),
                (8, Some(v)) => format!("0{v:o}"),
                _ => digits,
            };
            ExprKind::Integer {
                text: text.into(),
                radix: if value.as_u64().is_some() && (radix == 16 || radix == 8) {
                    radix as u32
                } else {
                    10
                },
            }
        }
        "regexp" => ExprKind::Regex {
            source: string(single(args, name)?, "a regexp")?.into(),
        },
        "qn" => ExprKind::QualifiedName {
            name: string(single(args, name)?, "a name")?.into(),
        },
        "qr" => ExprKind::QualifiedReference {
            name: string(single(args, name)?, "a type name")?.into(),
        },
        "reserved" => ExprKind::ReservedWord {
            word: string(single(args, name)?, "a reserved word")?.into(),
        },
        "class-type" => ExprKind::ClassType {
            name: string(single(args, name)?, "a class name")?.into(),
        },
        "var" => match single(args, name)? {
            Json::Bool(value) => ExprKind::BooleanVariable { value: *value },
            other => ExprKind::Variable {
                name: string(other, "a variable's name")?.into(),
            },
        },
        "array" => ExprKind::Array {
            elements: all(args)?,
        },
        "hash" => ExprKind::Hash {
            entries: args
                .iter()
                .map(|a| match call(a) {
                    Some(("=>", kv)) => {
                        let (k, v) = pair(kv, "=>")?;
                        Ok(HashEntry {
                            key: expr(k)?,
                            value: expr(v)?,
                            span: Span::NONE,
                        })
                    }
                    _ => error("a hash's entries are `=>` pairs"),
                })
                .collect::<Read<_>>()?,
        },
        "!" | "-" | "unfold" => ExprKind::Unary {
            op: match name {
                "!" => UnaryOp::Not,
                "-" => UnaryOp::Neg,
                _ => UnaryOp::Splat,
            },
            operand: boxed(single(args, name)?)?,
        },
        "paren" => ExprKind::Paren {
            expr: boxed(single(args, name)?)?,
        },
        "query" => ExprKind::Query {
            expr: boxed(single(args, name)?)?,
        },
        "access" => match args.split_first() {
            Some((target, keys)) => ExprKind::Access {
                target: boxed(target)?,
                keys: all(keys)?,
            },
            None => return error("`access` has no target"),
        },
        "?" => {
            let (subject, entries) = pair(args, name)?;
            let Json::Array(entries) = entries else {
                return error("a selector's entries are a list");
            };
            ExprKind::Selector {
                subject: boxed(subject)?,
                entries: entries
                    .iter()
                    .map(|e| match call(e) {
                        Some(("=>", mv)) => {
                            let (m, v) = pair(mv, "=>")?;
                            Ok(SelectorEntry {
                                matcher: expr(m)?,
                                value: expr(v)?,
                                span: Span::NONE,
                            })
                        }
                        _ => error("a selector's entries are `=>` pairs"),
                    })
                    .collect::<Read<_>>()?,
            }
        }
        "=" | "+=" | "-=" => {
            let (target, value) = pair(args, name)?;
            ExprKind::Assignment {
                op: match name {
                    "=" => AssignOp::Assign,
                    "+=" => AssignOp::Append,
                    _ => AssignOp::Delete,
                },
                target: boxed(target)?,
                value: boxed(value)?,
            }
        }
        "call" | "invoke" => {
            let entries = map_entries(single(args, name)?)?;
            ExprKind::Call {
                functor: boxed(required(&entries, "functor", name)?)?,
                args: list(required(&entries, "args", name)?)?,
                lambda: block(&entries)?,
                statement: name == "invoke",
            }
        }
        "call-method" => {
            let entries = map_entries(single(args, name)?)?;
            let (receiver, method) = match call(required(&entries, "functor", name)?) {
                Some((".", dot)) => {
                    let (receiver, method) = pair(dot, ".")?;
                    match call(method) {
                        Some(("qn", m)) => (receiver, string(single(m, "qn")?, "a method name")?),
                        _ => return error("a method's name is a `qn`"),
                    }
                }
                _ => return error("a method call's functor is `.`"),
            };
            ExprKind::MethodCall(Box::new(MethodCall {
                receiver: expr(receiver)?,
                method: method.into(),
                args: list(required(&entries, "args", name)?)?,
                lambda: block(&entries)?,
            }))
        }
        "if" | "unless" => {
            let entries = map_entries(single(args, name)?)?;
            let test = boxed(required(&entries, "test", name)?)?;
            let then_body = body(&entries, "then")?.into_boxed_slice();
            let else_body = body(&entries, "else")?.into_boxed_slice();
            if name == "if" {
                ExprKind::If {
                    test,
                    then_body,
                    else_body,
                }
            } else {
                ExprKind::Unless {
                    test,
                    then_body,
                    else_body,
                }
            }
        }
        "case" => {
            let (test, options) = pair(args, name)?;
            let Json::Array(options) = options else {
                return error("a case's options are a list");
            };
            ExprKind::Case {
                test: boxed(test)?,
                options: options
                    .iter()
                    .map(|o| {
                        let entries = map_entries(o)?;
                        Ok(CaseOption {
                            values: list(required(&entries, "when", "a case option")?)?,
                            body: body(&entries, "then")?,
                            span: Span::NONE,
                        })
                    })
                    .collect::<Read<_>>()?,
            }
        }
        "resource" => {
            let entries = map_entries(single(args, name)?)?;
            let Json::Array(bodies) = required(&entries, "bodies", name)? else {
                return error("a resource's bodies are a list");
            };
            ExprKind::Resource {
                form: form(&entries)?,
                type_expr: boxed(required(&entries, "type", name)?)?,
                bodies: bodies
                    .iter()
                    .map(|b| {
                        let entries = map_entries(b)?;
                        Ok(ResourceBody {
                            title: expr(required(&entries, "title", "a resource body")?)?,
                            ops: attribute_ops(required(&entries, "ops", "a resource body")?)?,
                            span: Span::NONE,
                        })
                    })
                    .collect::<Read<_>>()?,
            }
        }
        "resource-defaults" => {
            let entries = map_entries(single(args, name)?)?;
            ExprKind::ResourceDefaults {
                form: form(&entries)?,
                type_expr: boxed(required(&entries, "type", name)?)?,
                ops: attribute_ops(required(&entries, "ops", name)?)?,
            }
        }
        "resource-override" => {
            let entries = map_entries(single(args, name)?)?;
            ExprKind::ResourceOverride {
                form: form(&entries)?,
                resources: boxed(required(&entries, "resources", name)?)?,
                ops: attribute_ops(required(&entries, "ops", name)?)?,
            }
        }
        "collect" => {
            let entries = map_entries(single(args, name)?)?;
            let (exported, query) = match call(required(&entries, "query", name)?) {
                Some(("exported-query", q)) => (true, q),
                Some(("virtual-query", q)) => (false, q),
                _ => return error("a collector's query is `virtual-query` or `exported-query`"),
            };
            ExprKind::Collect {
                type_expr: boxed(required(&entries, "type", name)?)?,
                query: Box::new(CollectQuery {
                    exported,
                    expr: match query {
                        [] => None,
                        [q] => Some(boxed(q)?),
                        _ => return error("a collector's query takes one expression"),
                    },
                    span: Span::NONE,
                }),
                ops: match entry(&entries, "ops") {
                    Some(ops) => attribute_ops(ops)?,
                    None => Vec::new(),
                },
            }
        }
        "lambda" => return error("a lambda is not a value"),
        "class"
        | "define"
        | "node"
        | "function"
        | "type-alias"
        | "type-mapping"
        | "type-definition"
        | "site"
        | "bindings"
        | "categories"
        | "layers"
        | "layer"
        | "environment-defaults"
        | "application" => return error(format!("a `{name}` is a definition, not a value")),
        other => return error(format!("`{other}` is not a PN expression pbc knows")),
    })
}

fn block(entries: &[(&str, &Json)]) -> Read<Option<Box<Lambda>>> {
    entry(entries, "block")
        .map(|l| lambda(l).map(Box::new))
        .transpose()
}

fn lambda_map(pn: &Json) -> Read<Lambda> {
    let entries = map_entries(pn)?;
    Ok(Lambda {
        params: match entry(&entries, "params") {
            Some(p) => params(p)?,
            None => Vec::new(),
        },
        return_type: entry(&entries, "returns").map(boxed).transpose()?,
        body: body(&entries, "body")?,
        span: Span::NONE,
        read_once: Default::default(),
    })
}

fn params(pn: &Json) -> Read<Vec<Parameter>> {
    map_entries(pn)?
        .into_iter()
        .map(|(name, spec)| {
            let spec = map_entries(spec)?;
            Ok(Parameter {
                name: name.into(),
                type_expr: entry(&spec, "type").map(boxed).transpose()?,
                splat: entry(&spec, "splat") == Some(&Json::Bool(true)),
                default: entry(&spec, "value").map(boxed).transpose()?,
                span: Span::NONE,
            })
        })
        .collect()
}

fn form(entries: &[(&str, &Json)]) -> Read<ResourceForm> {
    Ok(match entry(entries, "form").and_then(Json::as_str) {
        None => ResourceForm::Regular,
        Some("virtual") => ResourceForm::Virtual,
        Some("exported") => ResourceForm::Exported,
        Some(other) => return error(format!("`{other}` is not a resource form")),
    })
}

fn attribute_ops(pn: &Json) -> Read<Vec<AttributeOp>> {
    let Json::Array(ops) = pn else {
        return error("attribute operations are a list");
    };
    ops.iter()
        .map(|op| {
            let (name, op, value) = match call(op) {
                Some(("splat-hash", args)) => {
                    ("*", AttributeOpKind::Splat, single(args, "splat-hash")?)
                }
                Some((arrow @ ("=>" | "+>"), args)) => {
                    let (name, value) = pair(args, arrow)?;
                    let kind = if arrow == "=>" {
                        AttributeOpKind::Set
                    } else {
                        AttributeOpKind::Append
                    };
                    (string(name, "an attribute's name")?, kind, value)
                }
                _ => return error("an attribute operation is `=>`, `+>` or `splat-hash`"),
            };
            Ok(AttributeOp {
                name: name.into(),
                op,
                value: expr(value)?,
                span: Span::NONE,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(src: &str) -> (String, String) {
        let program = crate::parser::parse_file(crate::span::FileId(0), src)
            .program
            .expect("parses");
        let written = crate::pn::expr_to_json(&program.body[0]);
        let mut de = serde_json::Deserializer::from_str(&written);
        de.disable_recursion_limit();
        let json: Json = serde::Deserialize::deserialize(&mut de).expect("PN is JSON");
        let read = expr(&json).expect("reads back");
        (written, crate::pn::expr_to_json(&read))
    }

    #[test]
    fn expressions_read_back_to_the_same_pn() {
        for src in [
            "1 + 2 * 3 - 4",
            "-5",
            "-1.5e3",
            "0x1F + 017",
            "\"a${b}c${d[0]}\"",
            "$a = [1, {b => 2}, undef, default]",
            "$x ? { /a/ => 1, default => 2 }",
            "if $a { 1 } elsif $b { 2 } else { 3 }",
            "unless $a { }",
            "case $x { 'a', 'b': { 1 } default: { } }",
            "$a.map |Integer $x, *$rest| >> Integer { $x * 2 }",
            "notice('a', 2)",
            "include foo",
            "File['a'] -> Package['b'] ~> Service['c']",
            "file { 'x': ensure => present, mode +> '0644', * => $h }",
            "@@file { ['a', 'b']: }",
            "File <<| tag == 'x' |>> { mode => '0644' }",
            "File { owner => root }",
            "!$a and ($b or $c) in [1]",
            "@(END:json)\n  {\"a\": 1}\n  END",
            "$facts['os']['family'] =~ /Deb/",
        ] {
            let (written, again) = round_trip(src);
            assert_eq!(written, again, "{src}");
        }
    }

    /// PN nests a chain one level per operator; reading it back does not recurse per
    /// operator (the JSON parser does, hence the stack of a command's main thread).
    #[test]
    fn long_chains_read_back_flat() {
        std::thread::Builder::new()
            .stack_size(256 * 1024 * 1024)
            .spawn(|| {
                let src = vec!["1"; 20_000].join(" + ");
                let (written, again) = round_trip(&src);
                assert_eq!(written, again);
            })
            .expect("thread")
            .join()
            .expect("no overflow");
    }

    #[test]
    fn definitions_and_nonsense_are_refused() {
        let class: Json =
            serde_json::from_str(r##"{"^":["class",{"#":["name","a"]}]}"##).expect("json");
        assert!(expr(&class)
            .expect_err("a class is refused")
            .0
            .contains("definition"));
        for bad in [
            r#"[1]"#,
            r##"{"#":[]}"##,
            r#"{"^":["nosuch"]}"#,
            r#"{"^":["qn"]}"#,
        ] {
            let j: Json = serde_json::from_str(bad).expect("json");
            assert!(expr(&j).is_err(), "{bad}");
        }
    }
}
