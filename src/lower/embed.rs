//! How lowering embeds code for the injector and the check: the [`Embed`] implementations of
//! [`ForInjection`], [`Detached`] and [`ForChecking`] (whose types, and the [`Code`] they make,
//! are the evaluator's). Here, not in `eval`, because the embedding is lowering's contract:
//! `eval` holds and runs code and knows nothing of the model it came from.

use super::Embed;
use crate::ast::{Expr, ExprKind, Lambda};
use crate::eval::code::{Code, Detached, ForChecking, ForInjection, Spelled, Subtree};
use crate::eval::Value;

impl<'a> Embed<'a> for ForInjection {
    type X = Code<'a>;
    fn expression(&self, e: &'a Expr) -> Code<'a> {
        Code::expression(e)
    }
    fn literal(&self, e: &'a Expr) -> Option<Code<'a>> {
        crate::eval::literal_value(e).map(Code::Value)
    }
    fn lambda(&self, l: &'a Lambda) -> Code<'a> {
        Code::Lambda(Subtree::Borrowed(l))
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

impl<'a> Embed<'a> for Detached {
    type X = Code<'static>;
    fn expression(&self, e: &'a Expr) -> Code<'static> {
        Code::holding(Subtree::Owned(std::sync::Arc::new(e.clone())))
    }
    fn literal(&self, e: &'a Expr) -> Option<Code<'static>> {
        crate::eval::literal_value(e).map(Code::Value)
    }
    fn lambda(&self, l: &'a Lambda) -> Code<'static> {
        Code::Lambda(Subtree::Owned(std::sync::Arc::new(l.clone())))
    }
    fn string(&self, s: &str) -> Code<'static> {
        ForInjection.string(s)
    }
    fn variable(&self, name: &str) -> Code<'static> {
        ForInjection.variable(name)
    }
    fn boolean(&self, b: bool) -> Code<'static> {
        ForInjection.boolean(b)
    }
    fn undef(&self) -> Code<'static> {
        ForInjection.undef()
    }
    fn produced_literal(&self, e: &'a Expr) -> Option<Code<'static>> {
        if *self != Detached::Written {
            return self.literal(e);
        }
        match &e.kind {
            ExprKind::Array { .. } | ExprKind::Hash { .. } => {
                Some(Code::Spelled(Spelled::literal(spelled_text(|text| {
                    super::spell_literal(e, text)
                })?)))
            }
            _ => crate::eval::literal_value(e).map(Code::Value),
        }
    }
    fn produced_expression(&self, e: &'a Expr) -> Code<'static> {
        if *self != Detached::Written {
            return self.expression(e);
        }
        let spell = |text: &mut String| {
            crate::pn::write_expr_json(e, text);
            Some(())
        };
        Code::Spelled(Spelled::expression(spelled_text(spell).unwrap_or_default()))
    }
    fn for_model(&self) -> bool {
        *self != Detached::Checked
    }
}

/// What `spell` writes, spelled in this thread's scratch string and kept in a box of its
/// size: a string grown for each bound value, then shrunk to its box, was moved up to three
/// times (1% of a compile's instructions).
fn spelled_text(spell: impl FnOnce(&mut String) -> Option<()>) -> Option<Box<str>> {
    thread_local! {
        static SCRATCH: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    SCRATCH.with(|scratch| {
        let Ok(mut text) = scratch.try_borrow_mut() else {
            // Spelling never spells another value meanwhile; were it to, it gets its own.
            let mut text = String::new();
            spell(&mut text)?;
            return Some(text.into());
        };
        text.clear();
        let spelled = spell(&mut text).map(|()| Box::from(text.as_str()));
        // A huge value's room is not kept for the small ones after it.
        if text.capacity() > 1 << 16 {
            *text = String::new();
        }
        spelled
    })
}

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
    fn for_model(&self) -> bool {
        false
    }
}
