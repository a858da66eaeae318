//! The bindings type system (ARM-8 "Type System", DECISIONS D12): the types a binding can
//! declare, how a written type expression reads as one, what type a literal value has, and
//! whether a value of one type may be used where another is expected. `validate` checks
//! bindings with it; `lower` and `inject` reuse it for keys and runtime checks.
//!
//! It must not report diagnostics itself: reading a type gives a [`TypeError`] that the caller
//! turns into one.

use crate::ast::{Expr, ExprKind};
use crate::span::Span;
use smol_str::SmolStr;
use std::fmt;

/// A type as ARM-8 defines it (Puppet 3.4's type model, plus classes, resources and `Type[X]`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PType {
    /// `Any` / `Object`: every value.
    Any,
    Data,
    Literal,
    String,
    Integer,
    Float,
    Number,
    Boolean,
    Pattern,
    /// The type of `undef`; assignable to everything.
    Nil,
    Array(Box<PType>),
    Hash(Box<PType>, Box<PType>),
    /// `Class[x]` / `class x`; `None` for any class.
    Class(Option<SmolStr>),
    /// A resource or user type, `File` or `File['x']`.
    Resource {
        type_name: SmolStr,
        title: Option<SmolStr>,
    },
    /// `Type[X]`: a runtime type (the class name as written).
    Runtime(Option<SmolStr>),
}

/// The type names ARM-8 reserves: no resource type may be called this.
pub const RESERVED_TYPE_NAMES: &[&str] = &[
    "Array", "Hash", "Boolean", "Integer", "Float", "Number", "String", "Pattern", "Data",
    "Literal", "Type", "Enum", "Class", "Any", "Object",
];

/// The types a binding's key may name, each with what it holds: what an editor offers where
/// one is being written. (`Object`, `Scalar` and `Numeric` are other names of `Any`, `Literal`
/// and `Number`; `Enum` is reserved.)
pub const KEY_TYPES: &[(&str, &str)] = &[
    ("Data", "any value Hiera can hold (a key without a type)"),
    ("String", "a string"),
    ("Integer", "a whole number"),
    ("Float", "a number with a fraction"),
    ("Number", "an Integer or a Float"),
    ("Boolean", "true or false"),
    ("Array", "Array[T]: an array of T"),
    ("Hash", "Hash[K, V]: a hash of K to V"),
    ("Pattern", "a regular expression"),
    ("Literal", "a String, Number, Boolean, Pattern or undef"),
    ("Any", "any value"),
    ("Class", "Class[name]: a class"),
    ("Type", "Type[X]: an instance of X, made by a runtime"),
];

/// Built-in names, for "did you mean" on a misspelt type.
const BUILTIN_NAMES: &[&str] = &[
    "Array", "Hash", "Boolean", "Integer", "Float", "Number", "Numeric", "String", "Pattern",
    "Data", "Literal", "Type", "Class", "Any", "Object", "Resource",
];

/// Why an expression is not a type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeError {
    /// Not a type expression at all.
    NotAType { span: Span },
    /// A name one edit away from a built-in type.
    Unknown {
        name: SmolStr,
        suggestion: &'static str,
        span: Span,
    },
    /// `Array[A, B]`, `Hash[]` ...
    ParameterCount {
        name: &'static str,
        expected: &'static str,
        got: usize,
        span: Span,
    },
    /// `Enum`, reserved but not defined by ARM-8.
    Reserved { name: SmolStr, span: Span },
}

impl PType {
    pub fn array_of_data() -> PType {
        PType::Array(Box::new(PType::Data))
    }

    pub fn hash_of_data() -> PType {
        PType::Hash(Box::new(PType::Literal), Box::new(PType::Data))
    }

    /// Reads a written type: `Integer`, `Array[String]`, `Hash[String, Integer]`, `class ntp`,
    /// `Class[ntp]`, `Type[My::Thing]`, `File`, `File['x']`.
    pub fn from_expr(e: &Expr) -> Result<PType, TypeError> {
        match &e.kind {
            ExprKind::QualifiedReference { name } => Self::named(name, &[], e.span),
            ExprKind::Access { target, keys } => match &target.kind {
                ExprKind::QualifiedReference { name } => Self::named(name, keys, e.span),
                _ => Err(TypeError::NotAType { span: e.span }),
            },
            ExprKind::ClassType { name } => Ok(PType::Class(Some(name.clone()))),
            _ => Err(TypeError::NotAType { span: e.span }),
        }
    }

    fn named(name: &SmolStr, params: &[Expr], span: Span) -> Result<PType, TypeError> {
        let count = |expected: &'static str, ok: bool, canonical: &'static str| {
            if ok {
                Ok(())
            } else {
                Err(TypeError::ParameterCount {
                    name: canonical,
                    expected,
                    got: params.len(),
                    span,
                })
            }
        };
        let scalar = |t: PType, canonical: &'static str| {
            count("no type parameters", params.is_empty(), canonical)?;
            Ok(t)
        };
        match name.as_str() {
            "Any" | "Object" => scalar(PType::Any, "Any"),
            "Data" => scalar(PType::Data, "Data"),
            "Literal" | "Scalar" => scalar(PType::Literal, "Literal"),
            "String" => scalar(PType::String, "String"),
            "Integer" => scalar(PType::Integer, "Integer"),
            "Float" => scalar(PType::Float, "Float"),
            "Number" | "Numeric" => scalar(PType::Number, "Number"),
            "Boolean" => scalar(PType::Boolean, "Boolean"),
            // `Pattern[x]` names a pattern instance: its type is still Pattern.
            "Pattern" => Ok(PType::Pattern),
            "Array" => {
                count("1 type parameter", params.len() <= 1, "Array")?;
                match params.first() {
                    Some(p) => Ok(PType::Array(Box::new(Self::from_expr(p)?))),
                    None => Ok(PType::array_of_data()),
                }
            }
            "Hash" => {
                count("1 or 2 type parameters", params.len() <= 2, "Hash")?;
                match params {
                    [] => Ok(PType::hash_of_data()),
                    [v] => Ok(PType::Hash(
                        Box::new(PType::Literal),
                        Box::new(Self::from_expr(v)?),
                    )),
                    [k, v] => Ok(PType::Hash(
                        Box::new(Self::from_expr(k)?),
                        Box::new(Self::from_expr(v)?),
                    )),
                    // More than two was refused above.
                    _ => Err(TypeError::NotAType { span }),
                }
            }
            "Class" => {
                count("at most 1 type parameter", params.len() <= 1, "Class")?;
                Ok(PType::Class(params.first().and_then(title_of)))
            }
            "Type" => {
                count("at most 1 type parameter", params.len() <= 1, "Type")?;
                Ok(PType::Runtime(params.first().map(type_text)))
            }
            "Enum" => Err(TypeError::Reserved {
                name: name.clone(),
                span,
            }),
            _ => {
                if params.is_empty() {
                    if let Some(s) = crate::diag::did_you_mean(name, BUILTIN_NAMES) {
                        return Err(TypeError::Unknown {
                            name: name.clone(),
                            suggestion: s,
                            span,
                        });
                    }
                }
                count("at most 1 title", params.len() <= 1, "a resource type")?;
                Ok(PType::Resource {
                    type_name: name.clone(),
                    title: params.first().and_then(title_of),
                })
            }
        }
    }

    /// The type of a literal value, or `None` when `e` is not a literal (a variable, a call ...).
    /// Interpolated strings are Strings.
    pub fn infer(e: &Expr) -> Option<PType> {
        Some(match &e.kind {
            ExprKind::String { .. } | ExprKind::Concat { .. } | ExprKind::Heredoc { .. } => {
                PType::String
            }
            ExprKind::Integer { .. } => PType::Integer,
            ExprKind::Float { .. } => PType::Float,
            ExprKind::Boolean { .. } => PType::Boolean,
            ExprKind::Regex { .. } => PType::Pattern,
            ExprKind::Undef => PType::Nil,
            ExprKind::Unary {
                op: crate::ast::UnaryOp::Neg,
                operand,
            } if matches!(
                operand.kind,
                ExprKind::Integer { .. } | ExprKind::Float { .. }
            ) =>
            {
                Self::infer(operand)?
            }
            // An `undef` element widens the element type to what holds it (`[1, undef]` is an
            // `Array[Data]`: `Array[Integer]` would refuse its own value).
            ExprKind::Array { elements } => {
                let (mut t, mut undef) = (PType::Nil, false);
                for el in elements {
                    let e = Self::infer(el)?;
                    undef |= e == PType::Nil;
                    t = common(&t, &e);
                }
                PType::Array(Box::new(with_undef(t, undef)))
            }
            ExprKind::Hash { entries } => {
                let (mut k, mut v, mut undef) = (PType::Nil, PType::Nil, false);
                for en in entries {
                    k = common(&k, &Self::infer(&en.key)?);
                    let e = Self::infer(&en.value)?;
                    undef |= e == PType::Nil;
                    v = common(&v, &e);
                }
                PType::Hash(Box::new(k), Box::new(with_undef(v, undef)))
            }
            _ => return None,
        })
    }

    /// How deep the type nests: 1 for a scalar, 2 for `Array[String]`.
    pub fn depth(&self) -> usize {
        // Types come from source expressions, whose depth the parser bounds.
        match self {
            PType::Array(e) => 1 + e.depth(),
            PType::Hash(k, v) => 1 + k.depth().max(v.depth()),
            _ => 1,
        }
    }

    /// Whether a value of type `other` may be used where `self` is expected (Puppet 3.4's
    /// `assignable?`, reference section 2.5).
    pub fn assignable_from(&self, other: &PType) -> bool {
        use PType::*;
        if *other == Nil {
            return true;
        }
        match self {
            Any => true,
            // `Array[Data]` and `Hash[Literal, Data]`, checked without building them.
            Data => match other {
                Data | Literal | String | Integer | Float | Number | Boolean | Pattern => true,
                Array(e) => Data.assignable_from(e),
                Hash(k, v) => Literal.assignable_from(k) && Data.assignable_from(v),
                _ => false,
            },
            Literal => matches!(
                other,
                Literal | String | Integer | Float | Number | Boolean | Pattern
            ),
            Number => matches!(other, Number | Integer | Float),
            Array(e) => matches!(other, Array(e2) if e.assignable_from(e2)),
            Hash(k, v) => {
                matches!(other, Hash(k2, v2) if k.assignable_from(k2) && v.assignable_from(v2))
            }
            Class(None) => matches!(other, Class(_)),
            Resource {
                type_name,
                title: None,
            } => matches!(other, Resource { type_name: t, .. } if t == type_name),
            Runtime(None) => matches!(other, Runtime(_)),
            _ => self == other,
        }
    }

    /// Whether the type collapses to `Data` in a key (D12).
    pub fn is_data(&self) -> bool {
        PType::Data.assignable_from(self)
    }
}

/// The least general type both values fit (reference section 2.4).
/// An element type that must also hold `undef` (when `undef` is true): itself if it does
/// (`Literal`, `Data`, `Any`), else `Data` if it is data, else `Any`.
fn with_undef(t: PType, undef: bool) -> PType {
    match t {
        t if !undef || matches!(t, PType::Nil | PType::Any | PType::Data | PType::Literal) => t,
        t if t.is_data() => PType::Data,
        _ => PType::Any,
    }
}

pub fn common(a: &PType, b: &PType) -> PType {
    use PType::*;
    if *a == Nil {
        return b.clone();
    }
    if *b == Nil || a.assignable_from(b) {
        return a.clone();
    }
    if b.assignable_from(a) {
        return b.clone();
    }
    match (a, b) {
        (Array(x), Array(y)) => Array(Box::new(common(x, y))),
        (Hash(k1, v1), Hash(k2, v2)) => Hash(Box::new(common(k1, k2)), Box::new(common(v1, v2))),
        _ if Number.assignable_from(a) && Number.assignable_from(b) => Number,
        _ if Literal.assignable_from(a) && Literal.assignable_from(b) => Literal,
        _ if a.is_data() && b.is_data() => Data,
        _ => Any,
    }
}

/// A title or class name written as a bare word or a literal string.
fn title_of(e: &Expr) -> Option<SmolStr> {
    match &e.kind {
        ExprKind::String { value } | ExprKind::QualifiedName { name: value } => Some(value.clone()),
        ExprKind::QualifiedReference { name } => Some(name.clone()),
        _ => None,
    }
}

fn type_text(e: &Expr) -> SmolStr {
    match &e.kind {
        ExprKind::QualifiedReference { name } | ExprKind::QualifiedName { name } => name.clone(),
        ExprKind::String { value } => value.clone(),
        _ => SmolStr::new_static("?"),
    }
}

impl fmt::Display for PType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PType::Any => f.write_str("Any"),
            PType::Data => f.write_str("Data"),
            PType::Literal => f.write_str("Literal"),
            PType::String => f.write_str("String"),
            PType::Integer => f.write_str("Integer"),
            PType::Float => f.write_str("Float"),
            PType::Number => f.write_str("Number"),
            PType::Boolean => f.write_str("Boolean"),
            PType::Pattern => f.write_str("Pattern"),
            PType::Nil => f.write_str("Undef"),
            PType::Array(e) => write!(f, "Array[{e}]"),
            PType::Hash(k, v) => write!(f, "Hash[{k}, {v}]"),
            PType::Class(None) => f.write_str("Class"),
            PType::Class(Some(c)) => write!(f, "Class[{c}]"),
            PType::Resource {
                type_name,
                title: None,
            } => f.write_str(type_name),
            PType::Resource {
                type_name,
                title: Some(t),
            } => write!(f, "{type_name}['{t}']"),
            PType::Runtime(None) => f.write_str("Type"),
            PType::Runtime(Some(c)) => write!(f, "Type[{c}]"),
        }
    }
}

/// A type written as text (`'Array[String]'`, `--type`), as Puppet source reads it.
pub fn parse_type(text: &str) -> Option<PType> {
    let program = crate::parser::parse_file(crate::span::FileId(0), text).program?;
    let [e] = program.body.as_slice() else {
        return None;
    };
    PType::from_expr(e).ok()
}

#[cfg(test)]
mod tests {
    use super::PType::*;
    use super::*;

    #[test]
    fn assignability_follows_puppet_3() {
        assert!(Data.assignable_from(&Array(Box::new(Integer))));
        assert!(Data.assignable_from(&Hash(Box::new(String), Box::new(Array(Box::new(Integer))))));
        assert!(!Integer.assignable_from(&String));
        assert!(!Float.assignable_from(&Integer));
        assert!(Number.assignable_from(&Float));
        assert!(Integer.assignable_from(&Nil));
        assert!(!Data.assignable_from(&Class(None)));
        assert_eq!(common(&String, &Integer), Literal);
        assert_eq!(common(&Integer, &Float), Number);
        assert_eq!(common(&Array(Box::new(Integer)), &String), Data);
    }

    /// A literal with an `undef` inside is an instance of the type inferred for it.
    #[test]
    fn inferred_types_hold_their_undef_elements() {
        for text in [
            "{'a' => undef, 'b' => true}",
            "[1, undef]",
            "[undef]",
            "{'x' => [undef]}",
        ] {
            let parsed = crate::parse_file(crate::span::FileId(0), text);
            let program = parsed.program.expect("parses");
            let expr = &program.body[0];
            let t = PType::infer(expr).expect("infers");
            let v = crate::eval::literal_value(expr).expect("a literal");
            assert!(v.is_instance(&t), "{text}: {v:?} is not a {t}");
        }
    }
}
