//! The Puppet expression evaluator for what bindings need: producer expressions, category
//! values, `environments.pp` attributes, option lambdas. It evaluates checked ASTs in a scope
//! made of the request's top-scope variables (facts) and local frames (assignments, lambda
//! parameters, regex captures), with a function library ([`functions`]).
//!
//! It owns values and evaluation rules, not bindings: `lookup()` and `inject()` go to a
//! [`Host`] (the injector), which decides whether injection is allowed and what a key holds.
//! Evaluation is bounded: every expression costs a step from a budget, and nesting (lambdas
//! calling functions calling lambdas) is counted, so no input can hang or overflow the stack.
//! Values are immutable and shared; the one exception is a lambda parameter its body reads
//! once, which that read takes, so `<<` and `+` extend it in place and a `reduce` that builds
//! a collection step by step stays linear.
//! Errors carry a stable code and the span of the expression at fault.

pub mod code;
pub mod convert;
pub mod functions;
mod ops;
pub mod value;

use crate::ast::{AssignOp, Expr, ExprKind, Lambda, UnaryOp};
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use crate::types::PType;
use indexmap::IndexMap;
use smol_str::SmolStr;
use std::sync::Arc;
pub use value::{Map, Value};

/// Steps one evaluation may take (each expression evaluated is a step).
pub const DEFAULT_STEP_BUDGET: u64 = 1_000_000;
/// How deep evaluation may nest (expressions inside expressions, lambdas, lookups).
pub const MAX_EVAL_DEPTH: u32 = 512;
/// The bytes of strings, arrays and hashes one lookup (or one evaluation before the injector
/// exists) may build, counted where they are built: values that double within the step budget
/// (`"${m}${m}"`, `$memo + $memo`) or are copied again and again stop here, not at the
/// machine's memory.
pub const MAX_VALUE_BYTES: u64 = 256 * 1024 * 1024;

#[derive(Clone, Debug)]
pub struct EvalError {
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    pub notes: Vec<String>,
    /// A did-you-mean's edit: the misspelt word and what to write instead.
    pub fix: Option<Box<(String, String)>>,
}

impl EvalError {
    pub fn new(code: &'static str, span: Span, message: impl Into<String>) -> EvalError {
        EvalError {
            code,
            message: message.into(),
            span,
            notes: Vec::new(),
            fix: None,
        }
    }

    /// `help: did you mean `suggestion`?`, with its edit ([`Diagnostic::did_you_mean`]).
    pub fn did_you_mean(mut self, word: &str, suggestion: &str) -> EvalError {
        self.notes
            .push(format!("help: did you mean `{suggestion}`?"));
        self.fix = Some(Box::new((word.to_string(), suggestion.to_string())));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> EvalError {
        self.notes.push(note.into());
        self
    }

    pub fn type_error(span: Span, message: impl Into<String>) -> EvalError {
        EvalError::new(codes::EVAL_TYPE_ERROR, span, message)
    }

    pub fn into_diagnostic(self) -> Diagnostic {
        let mut d = Diagnostic::error(self.code, self.span, self.message);
        for n in self.notes {
            d = d.with_note(n);
        }
        match self.fix {
            Some(fix) => d.with_word_fix(&fix.0, &fix.1),
            None => d,
        }
    }
}

pub type EvalResult<T = Value> = Result<T, EvalError>;

/// Messages from `notice` and `warning`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogLevel {
    Notice,
    Warning,
}

/// EVAL_LIMIT for a lookup that would build more than [`MAX_VALUE_BYTES`].
fn over_budget(span: Span) -> EvalError {
    EvalError::new(
        codes::EVAL_LIMIT,
        span,
        format!(
            "the strings, arrays and hashes this lookup builds exceed {} MiB",
            MAX_VALUE_BYTES / (1024 * 1024)
        ),
    )
    .with_note("note: a value that doubles at each step, or a collection copied again at each step, grows past any memory")
}

/// What the evaluator asks of its surroundings.
pub trait Host {
    /// `lookup(name, type)` / `inject(...)`: the value bound to the key, `None` when nothing is.
    fn lookup(&mut self, name: &str, ty: &PType, span: Span) -> EvalResult<Option<Value>>;
    fn log(&mut self, level: LogLevel, message: String, span: Span);
    /// Takes `bytes` from what the current lookup may still build ([`MAX_VALUE_BYTES`]);
    /// `false` when that is spent. The host keeps the count, so every evaluation a lookup
    /// starts (nested lookups, each call of a combinator) shares one budget.
    fn charge(&mut self, bytes: u64) -> bool;
    /// What the current lookup may still build (what [`Host::charge`] would still take).
    fn remaining(&self) -> u64;
}

/// For evaluations that happen before the injector exists (`environments.pp`, category values,
/// D16): injection is an error; messages are kept.
#[derive(Default)]
pub struct NoInjection {
    pub messages: Vec<(LogLevel, String, Span)>,
    pub budget: ValueBudget,
}

/// What one lookup may still build ([`MAX_VALUE_BYTES`]), for a [`Host`] to keep.
pub struct ValueBudget(u64);

impl Default for ValueBudget {
    fn default() -> Self {
        ValueBudget(MAX_VALUE_BYTES)
    }
}

impl ValueBudget {
    /// What is left.
    pub fn left(&self) -> u64 {
        self.0
    }

    /// Takes `bytes`; `false` (and nothing taken) when fewer are left.
    pub fn take(&mut self, bytes: u64) -> bool {
        match self.0.checked_sub(bytes) {
            Some(left) => {
                self.0 = left;
                true
            }
            None => false,
        }
    }
}

impl Host for NoInjection {
    fn charge(&mut self, bytes: u64) -> bool {
        self.budget.take(bytes)
    }

    fn remaining(&self) -> u64 {
        self.budget.left()
    }

    fn lookup(&mut self, name: &str, _ty: &PType, span: Span) -> EvalResult<Option<Value>> {
        Err(EvalError::new(
            codes::INJECTION_BEFORE_INJECTOR,
            span,
            format!("`{name}` cannot be looked up here: the injector does not exist yet"),
        )
        .with_note(
            "note: environments.pp and category values are evaluated before any binding (D16)",
        ))
    }

    fn log(&mut self, level: LogLevel, message: String, span: Span) {
        self.messages.push((level, message, span));
    }
}

/// The request's top scope: facts as variables (`$::osfamily`, `$osfamily`), `$facts`,
/// `$trusted`, `$environment` ...
#[derive(Clone, Debug, Default)]
pub struct TopScope {
    pub variables: IndexMap<SmolStr, Value>,
}

impl TopScope {
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.variables.get(name)
    }

    pub fn set(&mut self, name: impl Into<SmolStr>, value: Value) {
        self.variables.insert(name.into(), value);
    }
}

/// A local frame: assignments, lambda parameters and the captures of the last match.
#[derive(Default)]
struct Frame {
    variables: Vec<Local>,
}

struct Local {
    name: SmolStr,
    value: Value,
    /// A lambda parameter its body reads once ([`Lambda::param_read_once`]): that read takes
    /// the value, so an operator may extend it in place instead of copying it.
    read_once: bool,
}

impl Local {
    fn new(name: SmolStr, value: Value) -> Local {
        Local {
            name,
            value,
            read_once: false,
        }
    }
}

pub struct Evaluator<'h> {
    host: &'h mut dyn Host,
    top: &'h TopScope,
    frames: Vec<Frame>,
    steps_left: u64,
    depth: u32,
    /// `--strict`: an unknown variable is an error instead of `undef`.
    pub strict: bool,
}

impl<'h> Evaluator<'h> {
    pub fn new(top: &'h TopScope, host: &'h mut dyn Host) -> Evaluator<'h> {
        Evaluator {
            host,
            top,
            // Room for `evaluate`'s own frame: one allocation per evaluation, not two.
            frames: {
                let mut frames = Vec::with_capacity(4);
                frames.push(Frame::default());
                frames
            },
            steps_left: DEFAULT_STEP_BUDGET,
            depth: 0,
            strict: false,
        }
    }

    pub fn with_budget(mut self, steps: u64) -> Self {
        self.steps_left = steps;
        self
    }

    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Evaluates `e` in a fresh local frame.
    pub fn evaluate(&mut self, e: &Expr) -> EvalResult {
        self.frames.push(Frame::default());
        let r = self.eval(e);
        self.frames.pop();
        r
    }

    /// Calls a lambda (an option such as `transformer` or `combinator`) with `args`.
    pub fn call_lambda(&mut self, lambda: &Lambda, args: Vec<Value>) -> EvalResult {
        self.enter(lambda.span)?;
        let r = self.lambda_body(lambda, args);
        self.depth -= 1;
        r
    }

    fn enter(&mut self, span: Span) -> EvalResult<()> {
        if self.steps_left == 0 {
            return Err(
                EvalError::new(codes::EVAL_LIMIT, span, "evaluation took too many steps")
                    .with_note(format!(
                        "note: one lookup may evaluate at most {DEFAULT_STEP_BUDGET} expressions"
                    )),
            );
        }
        self.steps_left -= 1;
        if self.depth >= MAX_EVAL_DEPTH {
            return Err(EvalError::new(
                codes::EVAL_LIMIT,
                span,
                format!("evaluation nests more than {MAX_EVAL_DEPTH} levels deep"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    pub fn eval(&mut self, e: &Expr) -> EvalResult {
        self.enter(e.span)?;
        let r = self.eval_kind(e);
        self.depth -= 1;
        r
    }

    /// [`Evaluator::built`] for a function's result, except where the function hands back a
    /// value that already exists (a lookup, `with`'s lambda result, a logged message).
    fn built_by(&mut self, function: &str, v: Value, span: Span) -> EvalResult {
        match function {
            "lookup" | "inject" | "with" | "notice" | "warning" | "fail" => Ok(v),
            _ => self.built(v, span),
        }
    }

    /// Counts a string or collection this evaluation just built against the lookup's budget
    /// ([`MAX_VALUE_BYTES`]): its own size, not what it shares with other values.
    fn built(&mut self, v: Value, span: Span) -> EvalResult {
        let bytes = v.own_bytes();
        self.charge(bytes, span)?;
        Ok(v)
    }

    /// [`Evaluator::built`] for an operator's result, which may be its left side extended in
    /// place: then only what was added is new.
    fn built_from(&mut self, left: (Option<*const ()>, u64), v: Value, span: Span) -> EvalResult {
        let bytes = match left {
            (Some(storage), before) if v.storage() == Some(storage) => {
                v.own_bytes().saturating_sub(before)
            }
            _ => v.own_bytes(),
        };
        self.charge(bytes, span)?;
        Ok(v)
    }

    fn charge(&mut self, bytes: u64, span: Span) -> EvalResult<()> {
        if bytes > 0 && !self.host.charge(bytes) {
            return Err(over_budget(span));
        }
        Ok(())
    }

    /// Before `values` are written out whole (flattened, joined, formatted, interpolated):
    /// what that would take must fit what the lookup may still build, counted without
    /// writing it ([`Value::expanded_bytes_within`]); the result is then charged as built.
    pub(crate) fn may_expand<'v>(
        &self,
        values: impl IntoIterator<Item = &'v Value>,
        span: Span,
    ) -> EvalResult<()> {
        let mut left = self.host.remaining();
        for v in values {
            match v.expanded_bytes_within(left) {
                Some(bytes) => left -= bytes,
                None => return Err(over_budget(span)),
            }
        }
        Ok(())
    }

    /// What the lookup may still build, for a function that builds in steps (`regsubst`).
    pub(crate) fn remaining(&self) -> u64 {
        self.host.remaining()
    }

    /// A string with interpolations. Its own function (as [`Evaluator::text`]): the locals of
    /// every kind of expression in one frame would cost each level of nesting their sum.
    #[inline(never)]
    fn concat(&mut self, segments: &[Expr], span: Span) -> EvalResult {
        let mut out = String::new();
        for s in segments {
            match &s.kind {
                ExprKind::String { value } => out.push_str(value),
                // `${x}` is written straight into the string, not made a string first.
                ExprKind::Text { expr } => {
                    let v = self.eval(expr)?;
                    self.may_expand([&v], s.span)?;
                    v.write_display(&mut out)
                }
                _ => {
                    let v = self.eval(s)?;
                    self.may_expand([&v], s.span)?;
                    v.write_display(&mut out)
                }
            }
        }
        self.built(Value::string(out), span)
    }

    #[inline(never)]
    fn text(&mut self, expr: &Expr, span: Span) -> EvalResult {
        let v = self.eval(expr)?;
        self.may_expand([&v], span)?;
        let text = Value::string(v.to_display_string());
        self.built(text, span)
    }

    fn eval_kind(&mut self, e: &Expr) -> EvalResult {
        Ok(match &e.kind {
            ExprKind::Nop => Value::Undef,
            ExprKind::Block { statements } => self.statements(statements)?,
            ExprKind::String { value } => Value::String(value.clone()),
            ExprKind::Concat { segments } => self.concat(segments, e.span)?,
            ExprKind::Text { expr } => self.text(expr, e.span)?,
            ExprKind::Heredoc { text, .. } => self.eval(text)?,
            ExprKind::Integer { text, radix } => {
                match integer_value(text, *radix) {
                    Some(i) => Value::Integer(i),
                    None => {
                        return Err(EvalError::type_error(
                            e.span,
                            format!("the integer {text} does not fit in 64 bits"),
                        ))
                    }
                }
            }
            ExprKind::Float { value, text } => {
                if !value.is_finite() {
                    return Err(EvalError::type_error(
                        e.span,
                        format!("the number {text} is beyond the range of a Float"),
                    ));
                }
                Value::Float(*value)
            }
            ExprKind::Boolean { value } | ExprKind::BooleanVariable { value } => {
                Value::Boolean(*value)
            }
            ExprKind::Undef => Value::Undef,
            ExprKind::Default => Value::Default,
            ExprKind::Regex { source } => Value::Regex(ops::regex(source, e.span)?),
            ExprKind::QualifiedName { name } => Value::String(name.clone()),
            ExprKind::ReservedWord { word } => Value::String(word.clone()),
            ExprKind::QualifiedReference { .. } | ExprKind::ClassType { .. } => {
                self.type_value(e)?
            }
            ExprKind::Variable { name } => self.variable(name, e.span)?,
            ExprKind::Array { elements } => {
                let items = Value::array(self.list(elements)?);
                self.built(items, e.span)?
            }
            ExprKind::Hash { entries } => {
                let mut map = Map::with_capacity(entries.len());
                for en in entries {
                    let k = self.eval(&en.key)?;
                    let v = self.eval(&en.value)?;
                    map.insert(k, v);
                }
                self.built(Value::hash(map), e.span)?
            }
            ExprKind::Binary {
                operands,
                operators,
            } => self.binary(operands, operators)?,
            ExprKind::Unary { op, operand } => {
                let v = self.eval(operand)?;
                match op {
                    UnaryOp::Not => Value::Boolean(!v.is_truthy()),
                    UnaryOp::Neg => ops::negate(v, e.span)?,
                    // Outside an argument list or array, `*x` is `x`.
                    UnaryOp::Splat => v,
                }
            }
            ExprKind::Paren { expr } => self.eval(expr)?,
            ExprKind::Access { target, keys } => {
                if matches!(
                    target.kind,
                    ExprKind::QualifiedReference { .. } | ExprKind::ClassType { .. }
                ) {
                    return self.type_value(e);
                }
                let t = self.eval(target)?;
                let keys = self.list(keys)?;
                let found = ops::access(&t, &keys, e.span)?;
                // A slice or a substring is new; an element is shared with its container.
                if keys.len() > 1 || matches!(t, Value::String(_)) {
                    self.built(found, e.span)?
                } else {
                    found
                }
            }
            ExprKind::Selector { subject, entries } => {
                let subject = self.eval(subject)?;
                for en in entries {
                    let m = self.eval(&en.matcher)?;
                    if self.matches(&subject, &m, en.matcher.span)? {
                        return self.eval(&en.value);
                    }
                }
                return Err(EvalError::new(
                    codes::EVAL_NO_MATCH,
                    e.span,
                    format!("no selector option matches {subject}"),
                )
                .with_note("help: add a `default => ...` option"));
            }
            ExprKind::Assignment { op, target, value } => {
                let v = self.eval(value)?;
                self.assign(*op, target, v.clone())?;
                v
            }
            ExprKind::If {
                test,
                then_body,
                else_body,
            }
            | ExprKind::Unless {
                test,
                then_body,
                else_body,
            } => {
                let unless = matches!(e.kind, ExprKind::Unless { .. });
                if self.eval(test)?.is_truthy() != unless {
                    self.statements(then_body)?
                } else {
                    self.statements(else_body)?
                }
            }
            ExprKind::Case { test, options } => {
                let subject = self.eval(test)?;
                let mut default = None;
                for option in options {
                    for v in &option.values {
                        if matches!(v.kind, ExprKind::Default) {
                            default = Some(&option.body);
                            continue;
                        }
                        let m = self.eval(v)?;
                        if self.matches(&subject, &m, v.span)? {
                            return self.statements(&option.body);
                        }
                    }
                }
                match default {
                    Some(body) => self.statements(body)?,
                    None => Value::Undef,
                }
            }
            ExprKind::Call {
                functor,
                args,
                lambda,
                ..
            } => {
                let Some(name) = functor.literal_text() else {
                    return Err(EvalError::new(
                        codes::NOT_EVALUABLE,
                        functor.span,
                        "only named functions can be called here",
                    ));
                };
                let args = self.list(args)?;
                let result =
                    functions::call(self, name, functor.span, args, lambda.as_deref(), e.span)?;
                self.built_by(name, result, e.span)?
            }
            ExprKind::MethodCall(call) => {
                let crate::ast::MethodCall {
                    receiver,
                    method,
                    args,
                    lambda,
                } = &**call;
                let mut all = vec![self.eval(receiver)?];
                all.extend(self.list(args)?);
                let result = functions::call(self, method, e.span, all, lambda.as_deref(), e.span)?;
                self.built_by(method, result, e.span)?
            }
            ExprKind::Query { .. } => {
                return Err(EvalError::new(
                    codes::NEEDS_RUNTIME,
                    e.span,
                    "a query (`??`) needs a query service such as PuppetDB",
                )
                .with_note("note: pbc keeps queries in the model but does not answer them (D15)"))
            }
            _ => {
                return Err(EvalError::new(
                    codes::NOT_EVALUABLE,
                    e.span,
                    "this construct cannot be evaluated in a binding",
                )
                .with_note("note: bindings evaluate values: declarations, resources and collectors belong in manifests"))
            }
        })
    }

    fn statements(&mut self, statements: &[Expr]) -> EvalResult {
        let mut last = Value::Undef;
        for s in statements {
            last = self.eval(s)?;
        }
        Ok(last)
    }

    /// Array elements and call arguments: `*x` unfolds an array in place.
    fn list(&mut self, items: &[Expr]) -> EvalResult<Vec<Value>> {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match &item.kind {
                ExprKind::Unary {
                    op: UnaryOp::Splat,
                    operand,
                } => match self.eval(operand)? {
                    Value::Array(a) => out.extend(a.iter().cloned()),
                    other => out.push(other),
                },
                _ => out.push(self.eval(item)?),
            }
        }
        Ok(out)
    }

    fn type_value(&mut self, e: &Expr) -> EvalResult {
        match PType::from_expr(e) {
            Ok(t) => Ok(Value::Type(Arc::new(t))),
            Err(_) => Err(EvalError::type_error(
                e.span,
                "this is not a type pbc can evaluate",
            )),
        }
    }

    fn variable(&mut self, name: &str, span: Span) -> EvalResult {
        if let Some(top) = name.strip_prefix("::") {
            return self.top_variable(top, name, span);
        }
        for frame in self.frames.iter_mut().rev() {
            if let Some(local) = frame.variables.iter_mut().rev().find(|l| l.name == name) {
                if local.read_once {
                    return Ok(std::mem::replace(&mut local.value, Value::Undef));
                }
                return Ok(local.value.clone());
            }
        }
        if name.bytes().all(|b| b.is_ascii_digit()) {
            // An unmatched capture is undef, never an error.
            return Ok(Value::Undef);
        }
        self.top_variable(name, name, span)
    }

    fn top_variable(&self, name: &str, written: &str, span: Span) -> EvalResult {
        match self.top.get(name) {
            Some(v) => Ok(v.clone()),
            None if self.strict => Err(EvalError::new(
                codes::UNDEFINED_VARIABLE,
                span,
                format!("unknown variable `${written}`"),
            )
            .with_note("note: top-scope variables come from the node's facts (--facts, --fact)")),
            None => Ok(Value::Undef),
        }
    }

    fn assign(&mut self, op: AssignOp, target: &Expr, value: Value) -> EvalResult<()> {
        let ExprKind::Variable { name } = &target.kind else {
            return Err(EvalError::new(
                codes::NOT_EVALUABLE,
                target.span,
                "only a variable can be assigned to here",
            ));
        };
        if op != AssignOp::Assign || name.starts_with("::") {
            return Err(EvalError::new(
                codes::NOT_EVALUABLE,
                target.span,
                format!("`${name}` cannot be changed here"),
            ));
        }
        // `new` opens the first frame and nothing closes it: there is always one.
        let Some(frame) = self.frames.last_mut() else {
            return Ok(());
        };
        if frame.variables.iter().any(|l| l.name == *name) {
            return Err(EvalError::type_error(
                target.span,
                format!("cannot reassign variable `${name}`"),
            ));
        }
        frame.variables.push(Local::new(name.clone(), value));
        Ok(())
    }

    fn set_captures(&mut self, captures: Vec<Value>) {
        let Some(frame) = self.frames.last_mut() else {
            return;
        };
        frame
            .variables
            .retain(|l| !l.name.bytes().all(|b| b.is_ascii_digit()));
        for (i, c) in captures.into_iter().enumerate() {
            frame
                .variables
                .push(Local::new(SmolStr::new(i.to_string()), c));
        }
    }

    /// `case` and selector matching: `default`, regexes (setting captures), types, arrays
    /// element-wise, otherwise `==`.
    /// Whether `subject` matches a `case` or selector option. Each pair of arrays compared
    /// costs a step of the lookup's budget: an option that shares its parts (`[$m, $m]` forty
    /// times) would otherwise be compared in all its 2^40 leaves.
    fn matches(&mut self, subject: &Value, matcher: &Value, span: Span) -> EvalResult<bool> {
        Ok(match matcher {
            Value::Default => true,
            Value::Regex(r) => match subject {
                Value::String(s) => match r.regex.captures(s) {
                    Some(c) => {
                        self.set_captures(ops::captures(&c));
                        true
                    }
                    None => false,
                },
                _ => false,
            },
            Value::Type(t) => subject.is_instance(t),
            Value::Array(ms) => match subject {
                Value::Array(ss) if ss.len() == ms.len() => {
                    self.enter(span)?;
                    self.depth -= 1;
                    for (s, m) in ss.iter().zip(ms.iter()) {
                        if !self.matches(s, m, span)? {
                            return Ok(false);
                        }
                    }
                    true
                }
                _ => false,
            },
            other => subject.puppet_eq(other),
        })
    }

    fn binary(&mut self, operands: &[Expr], operators: &[crate::ast::BinaryOp]) -> EvalResult {
        use crate::ast::BinaryOp;
        let Some(first) = operands.first() else {
            return Ok(Value::Undef);
        };
        let mut acc = self.eval(first)?;
        // What the operator's left side is: everything before it in the chain.
        let mut left = first.span;
        for (op, operand) in operators.iter().zip(&operands[1..]) {
            let left_span = left;
            left = Span::new(
                first.span.file,
                first.span.start as usize,
                operand.span.end as usize,
            );
            acc = match op {
                BinaryOp::And => Value::Boolean(acc.is_truthy() && self.eval(operand)?.is_truthy()),
                BinaryOp::Or => Value::Boolean(acc.is_truthy() || self.eval(operand)?.is_truthy()),
                BinaryOp::Match | BinaryOp::NoMatch => {
                    let rhs = self.eval(operand)?;
                    let matched = match (&acc, &rhs) {
                        (Value::String(s), Value::Regex(r)) => match r.regex.captures(s) {
                            Some(c) => {
                                self.set_captures(ops::captures(&c));
                                true
                            }
                            None => false,
                        },
                        (Value::String(s), Value::String(p)) => {
                            let r = ops::regex(p, operand.span)?;
                            match r.regex.captures(s) {
                                Some(c) => {
                                    self.set_captures(ops::captures(&c));
                                    true
                                }
                                None => false,
                            }
                        }
                        (v, Value::Type(t)) => v.is_instance(t),
                        (l, r) => {
                            // The caret goes on the side at fault: a left side that is not a
                            // String (often an unset variable), else the pattern.
                            let pattern = matches!(r, Value::Regex(_) | Value::String(_));
                            let mut e = EvalError::type_error(
                                if pattern { left_span } else { operand.span },
                                format!(
                                    "`{}` needs a String and a Regexp or a Type, not {} and {}",
                                    op.text(),
                                    l.type_name(),
                                    r.type_name()
                                ),
                            );
                            if let (Value::Undef, ExprKind::Variable { name }) =
                                (l, &operands[0].kind)
                            {
                                if operands.len() == 2 {
                                    e = e
                                        .with_note(format!("note: `${name}` is undef here"))
                                        .with_note(format!(
                                            "help: match only when it is set: `${name} != undef and ${name} {} ...`",
                                            op.text()
                                        ));
                                }
                            }
                            return Err(e);
                        }
                    };
                    Value::Boolean(matched == (*op == BinaryOp::Match))
                }
                _ => {
                    let rhs = self.eval(operand)?;
                    let left = (acc.storage(), acc.own_bytes());
                    let result = ops::binary(*op, acc, rhs, operand.span)?;
                    self.built_from(left, result, operand.span)?
                }
            };
        }
        Ok(acc)
    }

    fn lambda_body(&mut self, lambda: &Lambda, args: Vec<Value>) -> EvalResult {
        let mut frame = Frame::default();
        let mut args = args.into_iter();
        for (i, p) in lambda.params.iter().enumerate() {
            let v = if p.splat {
                Value::array(args.by_ref().collect())
            } else {
                match args.next() {
                    Some(v) => v,
                    None => match &p.default {
                        Some(d) => self.eval(d)?,
                        None => {
                            return Err(EvalError::type_error(
                                p.span,
                                format!("the lambda's parameter `${}` gets no value", p.name),
                            ))
                        }
                    },
                }
            };
            if let Some(t) = &p.type_expr {
                if let Ok(ty) = PType::from_expr(t) {
                    if !v.is_instance(&ty) {
                        return Err(EvalError::type_error(
                            p.span,
                            format!(
                                "the lambda's parameter `${}` expects {ty}, got {}",
                                p.name,
                                v.infer_type()
                            ),
                        ));
                    }
                }
            }
            frame.variables.push(Local {
                name: p.name.clone(),
                value: v,
                read_once: lambda.param_read_once(i),
            });
        }
        self.frames.push(frame);
        let r = self.statements(&lambda.body);
        self.frames.pop();
        r
    }

    /// A variable as the evaluation left it (local frames first, then the top scope).
    pub fn variable_value(&mut self, name: &str) -> EvalResult {
        self.variable(name, Span::NONE)
    }

    pub(crate) fn host(&mut self) -> &mut dyn Host {
        &mut *self.host
    }
}

/// An integer literal's value as written (`0x1F`, `017`, `42`); `None` past 64 bits.
pub(crate) fn integer_value(text: &str, radix: u32) -> Option<i64> {
    let digits = match radix {
        16 => text.get(2..)?,
        8 if text.len() > 1 => text.get(1..)?,
        _ => text,
    };
    i64::from_str_radix(digits, radix).ok()
}

/// The value of a literal expression (what a `ConstantProducerDescriptor` holds), `None` when
/// `e` needs evaluating.
pub fn literal_value(e: &Expr) -> Option<Value> {
    Some(match &e.kind {
        ExprKind::String { value } | ExprKind::QualifiedName { name: value } => {
            Value::String(value.clone())
        }
        ExprKind::Integer { text, radix } => Value::Integer(integer_value(text, *radix)?),
        ExprKind::Float { value, .. } if value.is_finite() => Value::Float(*value),
        ExprKind::Boolean { value } => Value::Boolean(*value),
        ExprKind::Undef => Value::Undef,
        ExprKind::Unary {
            op: UnaryOp::Neg,
            operand,
        } => match literal_value(operand)? {
            Value::Integer(i) => Value::Integer(-i),
            Value::Float(f) => Value::Float(-f),
            _ => return None,
        },
        ExprKind::Array { elements } => Value::array(
            elements
                .iter()
                .map(literal_value)
                .collect::<Option<Vec<_>>>()?,
        ),
        ExprKind::Hash { entries } => {
            let mut map = Map::with_capacity(entries.len());
            for en in entries {
                map.insert(
                    Value::string(en.key.literal_text()?),
                    literal_value(&en.value)?,
                );
            }
            Value::hash(map)
        }
        _ => return None,
    })
}
