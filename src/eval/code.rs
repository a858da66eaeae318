//! How embedded Puppet code is held for evaluation: the injector's and the composition
//! engine's form of what the model embeds (literal values already evaluated, anything else as
//! the AST to evaluate per request; in a model that is only written, what bindings produce as
//! its JSON). It must not know about bindings or requests.

use super::{EvalError, EvalResult, Evaluator, TopScope, Value};
use crate::ast::{Expr, ExprKind, Lambda};
use smol_str::SmolStr;

/// How the injector holds what the model embeds: literal values already evaluated, anything
/// else as the AST to evaluate per request ([`Code::Spelled`] in a model only written).
#[derive(Clone, Debug)]
pub enum Code<'a> {
    Value(Value),
    Expr(Subtree<'a, Expr>),
    /// An interpolated string of literal text and top-scope variables (`"${::fqdn}-web"`, the
    /// commonest computed value): written from the facts without an evaluator, and without
    /// walking the expression, which is kept for what only the evaluator does (an unknown
    /// variable, the lookup's budget spent).
    Template(Subtree<'a, Expr>, Box<[TemplatePart]>),
    Lambda(Subtree<'a, Lambda>),
    Variable(SmolStr),
    /// A bound value as the model writes it, spelled when its block was lowered: a block lowered
    /// only to be written (`pbc compile` of a tree) holds what its bindings produce this way,
    /// a fraction of the size of the values and trees it is spelled from.
    Spelled(Spelled),
}

/// A bound value's JSON as the model writes it: plain JSON for a literal, PN for an
/// expression ([`PnJson`](crate::lower::PnJson) spells both).
#[derive(Clone, Debug)]
pub struct Spelled {
    text: Box<str>,
    form: SpelledForm,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SpelledForm {
    Literal,
    Expression,
}

impl Spelled {
    /// A literal's JSON.
    pub(crate) fn literal(text: Box<str>) -> Spelled {
        Spelled {
            text,
            form: SpelledForm::Literal,
        }
    }

    /// An expression's PN.
    pub(crate) fn expression(text: Box<str>) -> Spelled {
        Spelled {
            text,
            form: SpelledForm::Expression,
        }
    }

    /// The JSON, as the model writes it.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The code the text spells, read back as a written model's is (its expression without
    /// positions); `None` when it does not read back, which pbc's own spelling never gives.
    fn read(&self) -> Option<Code<'static>> {
        // serde_json's own nesting limit bounds the reading: a spelled expression deeper than
        // that is refused, not followed down the stack.
        let json: serde_json::Value = serde_json::from_str(&self.text).ok()?;
        Some(match self.form {
            SpelledForm::Literal => Code::Value(Value::from_json(&json)),
            SpelledForm::Expression => Code::holding(Subtree::Owned(std::sync::Arc::new(
                crate::pn::read::expr(&json).ok()?,
            ))),
        })
    }
}

/// Where embedded code's tree is: in the program it was lowered from, borrowed, or a copy of
/// its own, for blocks that outlive their programs (`pbc check` and `pbc compile` free each
/// bindings file's tree once the file is lowered, and keep only the few expressions it embeds).
#[derive(Debug)]
pub enum Subtree<'a, T> {
    Borrowed(&'a T),
    Owned(std::sync::Arc<T>),
}

impl<T> Clone for Subtree<'_, T> {
    fn clone(&self) -> Self {
        match self {
            Subtree::Borrowed(t) => Subtree::Borrowed(t),
            Subtree::Owned(t) => Subtree::Owned(t.clone()),
        }
    }
}

impl<T> std::ops::Deref for Subtree<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match self {
            Subtree::Borrowed(t) => t,
            Subtree::Owned(t) => t,
        }
    }
}

#[derive(Clone, Debug)]
pub enum TemplatePart {
    Text(SmolStr),
    /// A top-scope variable, by its name there (without `::`).
    Variable(SmolStr),
}

impl<'a> Code<'a> {
    /// How an expression that is not a literal is held: a [`Code::Template`] where it is one.
    pub fn expression(e: &'a Expr) -> Code<'a> {
        Code::holding(Subtree::Borrowed(e))
    }

    /// [`Code::expression`] for an expression however it is held.
    pub(crate) fn holding(e: Subtree<'a, Expr>) -> Code<'a> {
        match template_parts(&e) {
            Some(parts) => Code::Template(e, parts),
            None => Code::Expr(e),
        }
    }

    /// The expression, where the code is one.
    pub fn expr(&self) -> Option<&Expr> {
        match self {
            Code::Expr(e) | Code::Template(e, _) => Some(e),
            _ => None,
        }
    }
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
            Code::Template(e, parts) => {
                // Room for the text and a short value per variable: one allocation for most.
                let room = parts.iter().map(|p| match p {
                    TemplatePart::Text(text) => text.len(),
                    TemplatePart::Variable(_) => 24,
                });
                let mut out = String::with_capacity(room.sum());
                for part in parts.iter() {
                    match part {
                        TemplatePart::Text(text) => out.push_str(text),
                        TemplatePart::Variable(name) => match top.get(name) {
                            Some(v) => v.write_display(&mut out),
                            None => return Evaluator::new(top, host).strict(strict).evaluate(e),
                        },
                    }
                }
                let made = Value::string(out);
                if host.charge(made.own_bytes()) {
                    Ok(made)
                } else {
                    // Over the budget: the evaluator says so, in its words.
                    Evaluator::new(top, host).strict(strict).evaluate(e)
                }
            }
            Code::Lambda(l) => Err(EvalError::type_error(
                l.span,
                "a lambda is not a value here",
            )),
            Code::Spelled(spelled) => match spelled.read() {
                Some(code) => code.evaluate(top, host, strict),
                None => Err(EvalError::type_error(
                    crate::span::Span::NONE,
                    "a bound value's JSON does not read back",
                )),
            },
        }
    }
}

/// The most parts a [`Code::Template`] has: a longer string is left to the evaluator.
const MAX_TEMPLATE_PARTS: usize = 1_000;

/// The parts of an interpolated string made only of literal text and variables that name the
/// top scope (`$::x`, or `$x`, which an expression of its own can only find there).
fn template_parts(e: &Expr) -> Option<Box<[TemplatePart]>> {
    let ExprKind::Concat { segments } = &e.kind else {
        return None;
    };
    // Far within the evaluator's step budget, which a template does not count.
    if segments.len() > MAX_TEMPLATE_PARTS {
        return None;
    }
    segments
        .iter()
        .map(|s| {
            let variable = match &s.kind {
                ExprKind::String { value } => return Some(TemplatePart::Text(value.clone())),
                ExprKind::Text { expr } => &expr.kind,
                other => other,
            };
            match variable {
                ExprKind::Variable { name } => {
                    let top = name.strip_prefix("::").unwrap_or(name);
                    // `$0`, `$1`: match captures, undef outside a match, never a fact.
                    (!top.is_empty() && !top.bytes().all(|b| b.is_ascii_digit()))
                        .then(|| TemplatePart::Variable(top.into()))
                }
                _ => None,
            }
        })
        .collect()
}

/// [`Embed`] for the injector.
pub struct ForInjection;

/// [`ForInjection`] for blocks that outlive the program they are lowered from: the little
/// embedded code that is not a literal value is copied out of the tree.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detached {
    /// For the check alone ([`ForChecking`]'s blocks): origins with spans only, bindings
    /// without their values.
    Checked,
    /// For a model that is only written, never evaluated (the rules across files read no
    /// bound value): what its bindings produce is held [`Code::Spelled`], except scalars,
    /// which the writer spells itself.
    Written,
    /// For the injector (`pbc lsp` keeps a tree's blocks for its lookups): what bindings
    /// produce is held as [`ForInjection`] holds it, each expression a copy of its own with
    /// its positions, so that an answer says what one from the tree's programs says.
    Evaluated,
}

/// [`ForInjection`] for the check: the same code, origins with spans only, bindings without
/// their values.
pub struct ForChecking;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::{NoInjection, ValueBudget};
    use crate::lower::model::{AbstractBinding, NamedBindings, ProducerDescriptor};
    use crate::lower::Embed;

    fn expression(src: &str) -> Expr {
        let parsed = crate::parser::parse_file(crate::span::FileId(0), src);
        let mut program = parsed.program.expect("parses");
        program.body.remove(0)
    }

    fn outcome(code: &Code, top: &TopScope, strict: bool, budget: u64) -> String {
        let mut host = NoInjection {
            budget: ValueBudget(budget),
            ..NoInjection::default()
        };
        match code.evaluate(top, &mut host, strict) {
            Ok(v) => format!("{v:?}"),
            Err(e) => format!("{} {} {:?}", e.code, e.message, e.span),
        }
    }

    /// A template gives what the evaluator gives the same expression: values of every kind
    /// written in, unknown variables (undef, or an error when strict), match captures, and a
    /// spent budget.
    #[test]
    fn a_template_writes_what_the_evaluator_would() {
        let mut top = TopScope::default();
        top.set("fqdn", Value::string("web01.example.com"));
        top.set("cores", Value::Integer(8));
        top.set("ratio", Value::Float(1.5));
        top.set("up", Value::Boolean(true));
        top.set(
            "list",
            Value::array(vec![Value::Integer(1), Value::string("a")]),
        );
        let mut map = crate::eval::Map::new();
        map.insert(Value::string("k"), Value::Undef);
        top.set("map", Value::hash(map));
        let cases = [
            (r#""${::fqdn}-web""#, true),
            (r#""$fqdn:$cores/$ratio $up""#, true),
            (r#""${list} ${map}""#, true),
            (r#""x${::missing}y""#, true),
            (r#""$1-${fqdn}""#, false),
            (r#""${fqdn.upcase}""#, false),
            (r#""${fqdn}${cores + 1}""#, false),
        ];
        for (src, is_template) in cases {
            let e = expression(src);
            let compiled = Code::expression(&e);
            assert_eq!(matches!(compiled, Code::Template(..)), is_template, "{src}");
            for strict in [false, true] {
                for budget in [crate::eval::MAX_VALUE_BYTES, 4] {
                    assert_eq!(
                        outcome(&compiled, &top, strict, budget),
                        outcome(&Code::Expr(Subtree::Borrowed(&e)), &top, strict, budget),
                        "{src}, strict {strict}, budget {budget}"
                    );
                }
            }
        }
    }

    /// The check lowers bindings without their values or producers (nothing of the file's tree
    /// is copied for them, and a block holds no producer but a Hiera level's), but with every
    /// option; a model keeps the values.
    #[test]
    fn the_check_lowers_bindings_without_their_values() {
        let src = r#"bindings m::checked {
  multibind Hash[String, Integer], 'limits' { conflict_resolution => merge }
  bind 'k0' to 'text'
  bind 'k1' to "${::fqdn}-web"
  bind 'k2' to [1, { 'a' => 2 }]
  bind 'k3' to Type[My::Provider]
  when cat 'v' { bind 'k4' to $::fqdn }
}
"#;
        let mut files = crate::span::SourceMap::new();
        let id = files.add("m/bindings/checked.pp", src);
        let parsed = crate::parser::parse_file(id, src);
        let program = parsed.program.expect("parses");
        fn producers<'x, 'c>(
            bindings: &'x [AbstractBinding<Code<'c>>],
            out: &mut Vec<&'x ProducerDescriptor<Code<'c>>>,
        ) {
            for b in bindings {
                match b {
                    AbstractBinding::Binding(b) => out.extend(b.producer.as_deref()),
                    AbstractBinding::CategorizedBindings { bindings, .. } => {
                        producers(bindings, out)
                    }
                    _ => {}
                }
            }
        }
        let kinds_and_values = |block: NamedBindings<Code>| {
            let AbstractBinding::Multibinding(m) = &block.bindings[0] else {
                panic!("the multibind comes first");
            };
            let option = crate::compose::multibind::option(&m.producer_args, "conflict_resolution");
            assert!(
                matches!(option, Some(Code::Value(Value::String(s))) if s == "merge"),
                "options are kept"
            );
            let mut found = Vec::new();
            producers(&block.bindings, &mut found);
            found
                .into_iter()
                .map(|p| match p {
                    ProducerDescriptor::ConstantProducerDescriptor { value } => {
                        format!("constant {}", describe(value))
                    }
                    ProducerDescriptor::EvaluatingProducerDescriptor { expression } => {
                        format!("evaluating {}", describe(expression))
                    }
                    ProducerDescriptor::InstanceProducerDescriptor { class_name, .. } => {
                        format!("instance {class_name}")
                    }
                    _ => "other".to_string(),
                })
                .collect::<Vec<_>>()
        };
        fn describe(code: &Code) -> String {
            match code {
                Code::Value(Value::Undef) => "undef".to_string(),
                Code::Value(v) => v.to_display_string(),
                Code::Template(..) => "template".to_string(),
                Code::Expr(_) => "expression".to_string(),
                Code::Lambda(_) | Code::Variable(_) => "other".to_string(),
                Code::Spelled(spelled) => format!("spelled {}", spelled.text()),
            }
        }
        let checked: [&str; 0] = [];
        let lower = |embed| crate::lower::lower_block(&files, &[], &program, embed);
        assert_eq!(
            kinds_and_values(lower(Detached::Checked).expect("a block")),
            checked
        );
        assert_eq!(
            kinds_and_values(
                crate::lower::lower_block(&files, &[], &program, ForChecking).expect("a block")
            ),
            checked
        );
        assert_eq!(
            kinds_and_values(lower(Detached::Written).expect("a block")),
            [
                "constant text",
                r#"evaluating spelled {"^":["concat",{"^":["str",{"^":["var","::fqdn"]}]},"-web"]}"#,
                r#"constant spelled [1,{"a":2}]"#,
                "instance My::Provider",
                r#"evaluating spelled {"^":["var","::fqdn"]}"#,
            ]
        );
        // Kept for the injector, a block holds what one lowered from the program holds, each
        // expression a copy of its own.
        let evaluated = lower(Detached::Evaluated).expect("a block");
        assert_eq!(
            kinds_and_values(evaluated.clone()),
            kinds_and_values(
                crate::lower::lower_block(&files, &[], &program, ForInjection).expect("a block")
            )
        );
        assert_eq!(
            kinds_and_values(evaluated),
            [
                "constant text",
                "evaluating template",
                "constant [1, {'a' => 2}]",
                "instance My::Provider",
                "evaluating expression",
            ]
        );
    }

    /// A value spelled for a written model evaluates as the code it is spelled from: literals
    /// of every kind, templates, operators, calls, an unknown variable and a spent budget.
    #[test]
    fn spelled_values_evaluate_as_held_ones() {
        let mut top = TopScope::default();
        top.set("fqdn", Value::string("web01.example.com"));
        top.set("cores", Value::Integer(8));
        let cases = [
            "[1, 'a', true, 2.5, undef, [], {}]",
            "{ 'port' => 8004, 'nested' => { 'b' => [1.0, -3] }, 'a' => 1 }",
            r#""${::fqdn}-web""#,
            r#""${fqdn}:${cores + 1}""#,
            "$::cores * 2 + 1",
            "[$::fqdn, $::cores]",
            "$::fqdn ? { /^web/ => 'web', default => 'other' }",
            "'a,b,c'.split(',')",
            "$::missing",
        ];
        for src in cases {
            let e = expression(src);
            let held = ForInjection
                .literal(&e)
                .unwrap_or_else(|| ForInjection.expression(&e));
            let spelled = Detached::Written;
            let spelled = spelled
                .produced_literal(&e)
                .unwrap_or_else(|| spelled.produced_expression(&e));
            assert!(matches!(spelled, Code::Spelled(_)), "{src}: {spelled:?}");
            for strict in [false, true] {
                for budget in [crate::eval::MAX_VALUE_BYTES, 4] {
                    // Read back, an expression has no positions: compare all but the span.
                    let without_span = |s: String| match s.split_once(" Span {") {
                        Some((outcome, _)) => outcome.to_string(),
                        None => s,
                    };
                    assert_eq!(
                        without_span(outcome(&spelled, &top, strict, budget)),
                        without_span(outcome(&held, &top, strict, budget)),
                        "{src}, strict {strict}, budget {budget}"
                    );
                }
            }
        }
        // A scalar stays a value: the writer spells it itself.
        let e = expression("'text'");
        assert!(matches!(
            Detached::Written.produced_literal(&e),
            Some(Code::Value(Value::String(_)))
        ));
    }
}
