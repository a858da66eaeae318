//! How embedded Puppet code is held for evaluation: the injector's and the composition
//! engine's form of what the model embeds (literal values already evaluated, anything else as
//! the AST to evaluate per request). It must not know about bindings or requests.

use super::{EvalError, EvalResult, Evaluator, TopScope, Value};
use crate::ast::{Expr, Lambda};
use crate::lower::Embed;
use smol_str::SmolStr;

/// How the injector holds what the model embeds: literal values already evaluated, anything
/// else as the AST to evaluate per request.
#[derive(Clone, Debug)]
pub enum Code<'a> {
    Value(Value),
    Expr(&'a Expr),
    Lambda(&'a Lambda),
    Variable(SmolStr),
}

impl Code<'_> {
    /// The value in `top`'s scope; `host` answers `lookup()` (or refuses it).
    pub fn evaluate(&self, top: &TopScope, host: &mut dyn super::Host, strict: bool) -> EvalResult {
        match self {
            Code::Value(v) => Ok(v.clone()),
            Code::Variable(name) => Ok(top
                .get(name.trim_start_matches("::"))
                .cloned()
                .unwrap_or(Value::Undef)),
            Code::Expr(e) => Evaluator::new(top, host).strict(strict).evaluate(e),
            Code::Lambda(l) => Err(EvalError::type_error(
                l.span,
                "a lambda is not a value here",
            )),
        }
    }
}

/// [`Embed`] for the injector.
pub struct ForInjection;

impl<'a> Embed<'a> for ForInjection {
    type X = Code<'a>;
    fn expression(&self, e: &'a Expr) -> Code<'a> {
        Code::Expr(e)
    }
    fn literal(&self, e: &'a Expr) -> Option<Code<'a>> {
        super::literal_value(e).map(Code::Value)
    }
    fn lambda(&self, l: &'a Lambda) -> Code<'a> {
        Code::Lambda(l)
    }
    fn string(&self, s: &str) -> Code<'a> {
        Code::Value(Value::string(s))
    }
    fn variable(&self, name: &str) -> Code<'a> {
        Code::Variable(name.into())
    }
    fn boolean(&self, b: bool) -> Code<'a> {
        Code::Value(Value::Boolean(b))
    }
    fn undef(&self) -> Code<'a> {
        Code::Value(Value::Undef)
    }
}

/// [`ForInjection`] for the check: the same code, origins with spans only.
pub struct ForChecking;

impl<'a> Embed<'a> for ForChecking {
    type X = Code<'a>;
    fn expression(&self, e: &'a Expr) -> Code<'a> {
        ForInjection.expression(e)
    }
    fn literal(&self, e: &'a Expr) -> Option<Code<'a>> {
        ForInjection.literal(e)
    }
    fn lambda(&self, l: &'a Lambda) -> Code<'a> {
        ForInjection.lambda(l)
    }
    fn string(&self, s: &str) -> Code<'a> {
        ForInjection.string(s)
    }
    fn variable(&self, name: &str) -> Code<'a> {
        ForInjection.variable(name)
    }
    fn boolean(&self, b: bool) -> Code<'a> {
        ForInjection.boolean(b)
    }
    fn undef(&self) -> Code<'a> {
        ForInjection.undef()
    }
    fn positions(&self) -> bool {
        false
    }
}
