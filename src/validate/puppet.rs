//! Puppet 7's parse-time validation (`Checker4_0`, reference section 4), as `puppet parser
//! validate` runs it: assignability, rvalues, idempotent statements, definition placement and
//! names, parameters, hostnames, collector queries, duplicate defaults and keys, integer range,
//! heredoc syntax. Diagnostics carry Puppet's issue codes and severities (every issue is an
//! error except `DUPLICATE_KEY`, a warning in Puppet 7, and `FUTURE_RESERVED_WORD`, a
//! deprecation).
//!
//! Puppet's model differs from our AST in one way that matters here: a body of several
//! statements is a `BlockExpression` there, a single statement is kept bare. The walker
//! reproduces that (see [`Checker::body`]) because placement and "no effect" rules depend on it.
//! The two checks that need a module path (`ILLEGAL_DEFINITION_LOCATION`,
//! `ILLEGAL_TOP_CONSTRUCT_LOCATION`) and EPP heredoc text are not checked: `puppet parser
//! validate` outside an environment skips the first two as well.
//!
//! Recursion follows the tree's nesting, which the parser bounds; operator chains are flat.

use crate::ast::*;
use crate::diag::{codes, Diagnostic};
use crate::span::Span;
use std::collections::BTreeSet;

/// Runs every rule over one parsed file.
pub fn check_program(program: &Program) -> Vec<Diagnostic> {
    let mut c = Checker::default();
    c.path.push(Container::Program);
    c.body(&program.body);
    c.path.pop();
    c.diags
}

/// What encloses a node, as far as the placement rule cares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Container {
    Program,
    /// A body of several statements (Puppet's `BlockExpression`).
    Block,
    Class,
    /// Anything else that holds statements: if, case, lambda, define, node, function ...
    Other,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum DefinitionKind {
    Class,
    Define,
    Node,
    Function,
    TypeAlias,
    TypeMapping,
    TypeDefinition,
}

impl DefinitionKind {
    /// Functions and types may appear only in the file's own top-level block.
    fn absolute_top_only(self) -> bool {
        matches!(
            self,
            DefinitionKind::Function | DefinitionKind::TypeAlias | DefinitionKind::TypeDefinition
        )
    }

    fn label(self) -> &'static str {
        match self {
            DefinitionKind::Class => "a class definition",
            DefinitionKind::Define => "a defined type",
            DefinitionKind::Node => "a node definition",
            DefinitionKind::Function => "a function definition",
            DefinitionKind::TypeAlias => "a type alias",
            DefinitionKind::TypeMapping => "a type mapping",
            DefinitionKind::TypeDefinition => "a type definition",
        }
    }
}

/// Type names Puppet reserves for its own types (lower case, as class names would be written).
const RESERVED_TYPE_NAMES: &[&str] = &[
    "type",
    "any",
    "unit",
    "scalar",
    "boolean",
    "numeric",
    "integer",
    "float",
    "collection",
    "array",
    "hash",
    "tuple",
    "struct",
    "variant",
    "optional",
    "enum",
    "regexp",
    "pattern",
    "runtime",
];

#[derive(Default)]
struct Checker {
    diags: Vec<Diagnostic>,
    path: Vec<Container>,
}

impl Checker {
    fn error(&mut self, code: &'static str, span: Span, message: String) {
        self.diags.push(Diagnostic::error(code, span, message));
    }

    // ---- bodies and placement -------------------------------------------------------------

    /// A statement body: several statements form a block (checked as one), a single statement
    /// stands alone.
    fn body(&mut self, statements: &[Expr]) {
        if statements.len() > 1 {
            self.block(statements);
        } else {
            for s in statements {
                self.visit(s);
            }
        }
    }

    fn block(&mut self, statements: &[Expr]) {
        if let Some(name) = resource_without_title(statements) {
            self.error(
                codes::RESOURCE_WITHOUT_TITLE,
                span_of(statements),
                format!("this expression is invalid: did you try declaring a `{name}` resource without a title?"),
            );
        } else if let Some((_, rest)) = statements.split_last() {
            if let Some(s) = rest.iter().find(|s| idem(s)) {
                self.error(
                    codes::IDEM_EXPRESSION_NOT_LAST,
                    s.span,
                    format!("this {} has no effect: a value was produced and then forgotten (one or more preceding expressions may have the wrong form)", label(s)),
                );
            }
        }
        self.path.push(Container::Block);
        for s in statements {
            self.visit(s);
        }
        self.path.pop();
    }

    /// Puppet's placement rule for definitions: at top level, in a class, or in a block that is
    /// one of those; functions and types only in the file's own top-level block.
    fn top(&mut self, kind: DefinitionKind, span: Span) {
        let mut i = self.path.len();
        while i > 0 {
            i -= 1;
            match self.path[i] {
                Container::Program | Container::Class => return,
                Container::Block => {
                    let parent = if i > 0 { Some(self.path[i - 1]) } else { None };
                    if parent != Some(Container::Program) && kind.absolute_top_only() {
                        let what = kind.label();
                        self.error(
                            codes::NOT_ABSOLUTE_TOP_LEVEL,
                            span,
                            format!("{what} may only appear at top level"),
                        );
                        return;
                    }
                }
                Container::Other => {
                    self.error(
                        codes::NOT_TOP_LEVEL,
                        span,
                        "classes, definitions, and nodes may only appear at top level or inside other classes".to_string(),
                    );
                    return;
                }
            }
        }
    }

    /// An `if`/`unless`/`else` body: a single statement stays bare, as in Puppet.
    fn nested(&mut self, container: Container, statements: &[Expr]) {
        self.path.push(container);
        self.body(statements);
        self.path.pop();
    }

    /// A class, define, node, function, lambda or case option body: always a block in Puppet's
    /// model, even with one statement.
    fn nested_block(&mut self, container: Container, statements: &[Expr]) {
        self.path.push(container);
        if !statements.is_empty() {
            self.block(statements);
        }
        self.path.pop();
    }

    // ---- the walk -------------------------------------------------------------------------

    fn visit(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Nop
            | ExprKind::String { .. }
            | ExprKind::Float { .. }
            | ExprKind::Boolean { .. }
            | ExprKind::Undef
            | ExprKind::Default
            | ExprKind::Regex { .. }
            | ExprKind::QualifiedName { .. }
            | ExprKind::ClassType { .. }
            | ExprKind::Error => {}
            ExprKind::Block { statements } => self.block(statements),
            ExprKind::Concat { segments } => self.visit_all(segments),
            ExprKind::Text { expr } => {
                self.rvalue(expr);
                self.visit(expr);
            }
            ExprKind::Heredoc { syntax, text } => {
                if let ExprKind::String { value } = &text.kind {
                    self.heredoc_syntax(syntax, value, text.span);
                }
                self.visit(text);
            }
            ExprKind::Integer { text, radix } => {
                if integer_value(text, *radix).is_none_or(|v| v > i64::MAX as u128) {
                    self.error(
                        codes::NUMERIC_OVERFLOW,
                        e.span,
                        format!("the integer `{text}` is outside Puppet's Integer range (64-bit signed)"),
                    );
                }
            }
            // The lexer already rejects a malformed type name (ILLEGAL_CLASS_REFERENCE).
            ExprKind::QualifiedReference { .. } => {}
            ExprKind::ReservedWord { word } => self.error(
                codes::RESERVED_WORD,
                e.span,
                format!("use of reserved word `{word}`: quote it if it is meant as a string"),
            ),
            ExprKind::Variable { name } => self.variable_name(name, e.span),
            ExprKind::BooleanVariable { .. } => self.error(
                codes::ILLEGAL_EXPRESSION,
                e.span,
                "illegal expression: a boolean is unacceptable as the name of a variable"
                    .to_string(),
            ),
            ExprKind::Array { elements } => {
                for el in elements {
                    self.rvalue(el);
                }
                self.visit_all(elements);
            }
            ExprKind::Hash { entries } => {
                self.duplicate_keys(entries);
                for entry in entries {
                    self.rvalue(&entry.key);
                    self.rvalue(&entry.value);
                    self.visit(&entry.key);
                    self.visit(&entry.value);
                }
            }
            ExprKind::Binary { operands, .. } => {
                for o in operands {
                    self.rvalue(o);
                }
                self.visit_all(operands);
            }
            ExprKind::Unary { operand, .. } | ExprKind::Paren { expr: operand } => {
                self.rvalue(operand);
                self.visit(operand);
            }
            ExprKind::Access { target, keys } => {
                self.visit(target);
                self.visit_all(keys);
            }
            ExprKind::Selector { subject, entries } => {
                self.rvalue(subject);
                let mut defaults = entries
                    .iter()
                    .filter(|en| matches!(en.matcher.kind, ExprKind::Default));
                if let (Some(_), Some(second)) = (defaults.next(), defaults.next()) {
                    self.duplicate_default(second.matcher.span, "selector");
                }
                self.visit(subject);
                for entry in entries {
                    self.rvalue(&entry.matcher);
                    self.visit(&entry.matcher);
                    self.visit(&entry.value);
                }
            }
            ExprKind::Assignment { op, target, value } => {
                match op {
                    AssignOp::Assign => {
                        self.assign(target);
                        self.rvalue(value);
                    }
                    AssignOp::Append | AssignOp::Delete => {
                        let text = if *op == AssignOp::Append { "+=" } else { "-=" };
                        self.error(
                            codes::APPENDS_DELETES_NO_LONGER_SUPPORTED,
                            e.span,
                            format!("the operator `{text}` is no longer supported"),
                        );
                    }
                }
                self.visit(target);
                self.visit(value);
            }
            ExprKind::Relationship { operands, .. } => {
                for o in operands {
                    if !matches!(
                        o.kind,
                        ExprKind::Collect { .. } | ExprKind::Relationship { .. }
                    ) {
                        self.rvalue(o);
                    }
                }
                self.visit_all(operands);
            }
            ExprKind::Call {
                functor,
                args,
                lambda,
                ..
            } => {
                let callable = match &functor.kind {
                    ExprKind::QualifiedName { .. } | ExprKind::QualifiedReference { .. } => true,
                    ExprKind::Access { target, .. } => {
                        matches!(target.kind, ExprKind::QualifiedReference { .. })
                    }
                    _ => false,
                };
                if !callable {
                    self.error(
                        codes::ILLEGAL_EXPRESSION,
                        functor.span,
                        format!(
                            "illegal expression: {} is unacceptable as a function name",
                            label(functor)
                        ),
                    );
                }
                self.visit(functor);
                self.visit_all(args);
                if let Some(l) = lambda {
                    self.lambda(l);
                }
            }
            ExprKind::MethodCall(call) => {
                let MethodCall {
                    receiver,
                    args,
                    lambda,
                    ..
                } = &**call;
                self.visit(receiver);
                self.visit_all(args);
                if let Some(l) = lambda {
                    self.lambda(l);
                }
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
                self.rvalue(test);
                self.visit(test);
                self.nested(Container::Other, then_body);
                self.nested(Container::Other, else_body);
            }
            ExprKind::Case { test, options } => {
                self.rvalue(test);
                let mut seen_default = false;
                for v in options.iter().flat_map(|o| &o.values) {
                    if matches!(v.kind, ExprKind::Default) {
                        if seen_default {
                            self.duplicate_default(v.span, "case");
                        }
                        seen_default = true;
                    }
                }
                self.visit(test);
                for option in options {
                    for v in &option.values {
                        self.rvalue(v);
                    }
                    self.path.push(Container::Other);
                    self.visit_all(&option.values);
                    if !option.body.is_empty() {
                        self.block(&option.body);
                    }
                    self.path.pop();
                }
            }
            ExprKind::Resource {
                form,
                type_expr,
                bodies,
            } => {
                if *form != ResourceForm::Regular
                    && matches!(&type_expr.kind, ExprKind::QualifiedName { name } if name == "class")
                {
                    self.error(
                        codes::CLASS_NOT_VIRTUALIZABLE,
                        e.span,
                        "classes are not virtualizable".to_string(),
                    );
                }
                self.visit(type_expr);
                for body in bodies {
                    let mut unfolds = body.ops.iter().filter(|op| op.op == AttributeOpKind::Splat);
                    if let (Some(_), Some(second)) = (unfolds.next(), unfolds.next()) {
                        self.error(
                            codes::MULTIPLE_ATTRIBUTES_UNFOLD,
                            second.span,
                            "unfolding of attributes from a hash (`* =>`) can only be used once per resource body".to_string(),
                        );
                    }
                    self.visit(&body.title);
                    self.attribute_ops(&body.ops, false);
                }
            }
            ExprKind::ResourceDefaults {
                form,
                type_expr,
                ops,
            } => {
                self.not_virtualizable(*form, e.span);
                self.visit(type_expr);
                self.attribute_ops(ops, false);
            }
            ExprKind::ResourceOverride {
                form,
                resources,
                ops,
            } => {
                self.not_virtualizable(*form, e.span);
                self.visit(resources);
                self.attribute_ops(ops, true);
            }
            ExprKind::Collect {
                type_expr,
                query,
                ops,
            } => {
                if !matches!(type_expr.kind, ExprKind::QualifiedReference { .. }) {
                    self.error(
                        codes::ILLEGAL_EXPRESSION,
                        type_expr.span,
                        format!(
                            "illegal expression: {} is unacceptable as a type name in a collector",
                            label(type_expr)
                        ),
                    );
                }
                if let Some(q) = &query.expr {
                    self.query(q);
                }
                self.visit(type_expr);
                if let Some(q) = &query.expr {
                    self.visit(q);
                }
                self.attribute_ops(ops, true);
            }
            ExprKind::Class(def) => {
                let ClassDef {
                    name, params, body, ..
                } = &**def;
                self.named_definition(DefinitionKind::Class, name, e.span);
                self.no_captures_rest(params, "a class");
                self.unique_parameters(params);
                self.reserved_parameters(params, "class");
                self.no_idem_last(body, "a class");
                self.parameters(params);
                self.nested_block(Container::Class, body);
            }
            ExprKind::Define(def) => {
                let DefineDef { name, params, body } = &**def;
                self.named_definition(DefinitionKind::Define, name, e.span);
                self.no_captures_rest(params, "a defined type");
                self.unique_parameters(params);
                self.reserved_parameters(params, "defined type");
                self.no_idem_last(body, "a defined type");
                self.parameters(params);
                self.nested_block(Container::Other, body);
            }
            ExprKind::Function(def) => {
                let FunctionDef {
                    name,
                    params,
                    return_type,
                    body,
                } = &**def;
                self.named_definition(DefinitionKind::Function, name, e.span);
                if let Some(t) = return_type {
                    self.type_reference(t, "a function definition");
                }
                self.unique_parameters(params);
                self.parameters(params);
                if let Some(t) = return_type {
                    self.visit(t);
                }
                self.nested_block(Container::Other, body);
            }
            ExprKind::Node(def) => {
                let NodeDef {
                    matches,
                    parent,
                    body,
                } = &**def;
                for m in matches {
                    self.hostname(m);
                }
                self.top(DefinitionKind::Node, e.span);
                self.no_idem_last(body, "a node definition");
                if let Some(p) = parent {
                    self.error(
                        codes::ILLEGAL_NODE_INHERITANCE,
                        p.span,
                        "node inheritance is not supported since Puppet 4".to_string(),
                    );
                }
                self.visit_all(matches);
                if let Some(p) = parent {
                    self.visit(p);
                }
                self.nested_block(Container::Other, body);
            }
            ExprKind::TypeAlias { name, type_expr } => {
                self.top(DefinitionKind::TypeAlias, e.span);
                if !is_classref_ext_decl(name) {
                    self.illegal_definition_name(name, DefinitionKind::TypeAlias, e.span);
                }
                self.type_reference(type_expr, "a type alias");
                self.visit(type_expr);
            }
            ExprKind::TypeMapping { mapping, target } => {
                self.top(DefinitionKind::TypeMapping, e.span);
                self.type_mapping(mapping, target, e.span);
                self.visit(mapping);
                self.visit(target);
            }
            ExprKind::TypeDefinition(def) => {
                let TypeDefinitionDef { name, body, .. } = &**def;
                self.top(DefinitionKind::TypeDefinition, e.span);
                self.reserved_type_name(name, DefinitionKind::TypeDefinition, e.span);
                self.error(
                    codes::UNSUPPORTED_EXPRESSION,
                    e.span,
                    "type definitions (`type X inherits Y { }`) are not supported in this version of Puppet".to_string(),
                );
                self.nested_block(Container::Other, body);
            }
            ExprKind::Query { expr } => self.visit(expr),
            // The bindings extension has its own rules (validate/); Puppet expressions inside it
            // are still walked.
            ExprKind::Site(site) => {
                self.path.push(Container::Other);
                for item in &site.items {
                    match item {
                        SiteItem::Statement { expr } => self.visit(expr),
                        SiteItem::Categories { entries, .. } => {
                            for c in entries {
                                self.visit(&c.value);
                            }
                        }
                        SiteItem::Layers { layers, .. } => {
                            for l in layers {
                                self.visit(&l.name);
                                self.attribute_ops(&l.ops, false);
                            }
                        }
                        SiteItem::EnvironmentDefaults { ops, .. } => self.attribute_ops(ops, false),
                        SiteItem::Environment { bodies, .. }
                        | SiteItem::DynamicEnvironments { bodies, .. } => {
                            for b in bodies {
                                self.visit(&b.title);
                                self.attribute_ops(&b.ops, false);
                            }
                        }
                    }
                }
                self.path.pop();
            }
            ExprKind::Bindings(_) => {}
            ExprKind::Categories { entries } => self.attribute_ops(entries, false),
            ExprKind::Layers { layers } => self.visit(layers),
            ExprKind::Layer { name, ops } => {
                self.visit(name);
                self.attribute_ops(ops, false);
            }
        }
    }

    fn visit_all(&mut self, exprs: &[Expr]) {
        for e in exprs {
            self.visit(e);
        }
    }

    fn lambda(&mut self, l: &Lambda) {
        if let Some((_, rest)) = l.params.split_last() {
            for p in rest.iter().filter(|p| p.splat) {
                self.error(
                    codes::CAPTURES_REST_NOT_LAST,
                    p.span,
                    format!(
                        "parameter `${}` captures the rest but is not the last parameter",
                        p.name
                    ),
                );
            }
        }
        if let Some(t) = &l.return_type {
            self.type_reference(t, "a lambda");
        }
        self.parameters(&l.params);
        if let Some(t) = &l.return_type {
            self.visit(t);
        }
        self.nested_block(Container::Other, &l.body);
    }

    fn attribute_ops(&mut self, ops: &[AttributeOp], append_allowed: bool) {
        for op in ops {
            if op.op == AttributeOpKind::Append && !append_allowed {
                self.error(
                    codes::ILLEGAL_ATTRIBUTE_APPEND,
                    op.span,
                    format!(
                        "illegal `+>` on attribute `{}`: it can only be used in a resource override or a collector",
                        op.name
                    ),
                );
            }
            self.rvalue(&op.value);
            self.visit(&op.value);
        }
    }

    // ---- individual rules -----------------------------------------------------------------

    /// Collectors and definitions produce no value.
    fn rvalue(&mut self, e: &Expr) {
        let mut e = e;
        loop {
            match &e.kind {
                ExprKind::Unary { operand, .. }
                | ExprKind::Paren { expr: operand }
                | ExprKind::Text { expr: operand } => e = operand,
                ExprKind::Collect { .. }
                | ExprKind::Class(_)
                | ExprKind::Define(_)
                | ExprKind::Function(_)
                | ExprKind::Node(_)
                | ExprKind::TypeAlias { .. }
                | ExprKind::TypeMapping { .. }
                | ExprKind::TypeDefinition(_) => {
                    let what = label(e);
                    self.error(
                        codes::NOT_RVALUE,
                        e.span,
                        format!("invalid use of expression: {what} does not produce a value"),
                    );
                    return;
                }
                _ => return,
            }
        }
    }

    fn assign(&mut self, target: &Expr) {
        match &target.kind {
            ExprKind::Variable { name } => {
                if is_numeric_var_name(name) {
                    self.error(
                        codes::ILLEGAL_NUMERIC_ASSIGNMENT,
                        target.span,
                        format!("illegal attempt to assign to the numeric match result variable `${name}`"),
                    );
                }
                if name.contains("::") {
                    self.error(
                        codes::CROSS_SCOPE_ASSIGNMENT,
                        target.span,
                        format!("illegal attempt to assign to `${name}`: cannot assign to variables in other namespaces"),
                    );
                }
            }
            ExprKind::Access { .. } => self.error(
                codes::ILLEGAL_INDEXED_ASSIGNMENT,
                target.span,
                "illegal attempt to assign via [index/key]: not an assignable reference"
                    .to_string(),
            ),
            ExprKind::Array { elements } => {
                for el in elements {
                    self.assign(el);
                }
            }
            _ => {
                let what = label(target);
                self.error(
                    codes::ILLEGAL_ASSIGNMENT,
                    target.span,
                    format!("illegal attempt to assign to {what}: not an assignable reference"),
                );
            }
        }
    }

    fn variable_name(&mut self, name: &str, span: Span) {
        if name.starts_with(|c: char| c.is_ascii_digit()) {
            if !is_numeric_var_name(name) {
                self.error(
                    codes::ILLEGAL_NUMERIC_VAR_NAME,
                    span,
                    format!("illegal numeric variable name `${name}`: a name that starts with a digit must be a decimal number"),
                );
            }
        } else if !is_var_name(name) {
            self.error(
                codes::ILLEGAL_VAR_NAME,
                span,
                format!("illegal variable name `${name}`: variable names are lower case letters, digits and `_`, with `::` between namespaces"),
            );
        }
    }

    fn named_definition(&mut self, kind: DefinitionKind, name: &str, span: Span) {
        self.top(kind, span);
        if !is_classref_decl(name) {
            self.illegal_definition_name(name, kind, span);
        }
        self.reserved_type_name(name, kind, span);
        if name == "plan" {
            self.diags.push(Diagnostic::warning(
                codes::FUTURE_RESERVED_WORD,
                span,
                "use of future reserved word `plan`",
            ));
        }
    }

    fn illegal_definition_name(&mut self, name: &str, kind: DefinitionKind, span: Span) {
        self.error(
            codes::ILLEGAL_DEFINITION_NAME,
            span,
            format!(
                "unacceptable name: `{name}` cannot be the name of {}",
                kind.label()
            ),
        );
    }

    fn reserved_type_name(&mut self, name: &str, kind: DefinitionKind, span: Span) {
        if RESERVED_TYPE_NAMES.contains(&name) {
            self.error(
                codes::RESERVED_TYPE_NAME,
                span,
                format!(
                    "the name `{name}` is a Puppet type and cannot be the name of {}",
                    kind.label()
                ),
            );
        }
    }

    fn type_reference(&mut self, t: &Expr, container: &str) {
        let head = match &t.kind {
            ExprKind::Access { target, .. } => target,
            _ => t,
        };
        match &head.kind {
            // Puppet compares the lower-cased name with its future reserved words.
            ExprKind::QualifiedReference { name } => {
                if name.eq_ignore_ascii_case("plan") {
                    self.diags.push(Diagnostic::warning(
                        codes::FUTURE_RESERVED_WORD,
                        t.span,
                        "use of future reserved word `plan`",
                    ));
                }
            }
            _ => self.error(
                codes::ILLEGAL_EXPRESSION,
                t.span,
                format!(
                    "illegal expression: {} is unacceptable as a type reference in {container}",
                    label(t)
                ),
            ),
        }
    }

    fn no_captures_rest(&mut self, params: &[Parameter], container: &str) {
        for p in params.iter().filter(|p| p.splat) {
            self.error(
                codes::CAPTURES_REST_NOT_SUPPORTED,
                p.span,
                format!(
                    "parameter `${}` captures the rest, which is not supported in {container}",
                    p.name
                ),
            );
        }
    }

    fn unique_parameters(&mut self, params: &[Parameter]) {
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        for p in params {
            if !seen.insert(&p.name) {
                self.error(
                    codes::DUPLICATE_PARAMETER,
                    p.span,
                    format!(
                        "the parameter `${}` is declared more than once in the parameter list",
                        p.name
                    ),
                );
            }
        }
    }

    fn reserved_parameters(&mut self, params: &[Parameter], container: &str) {
        for p in params {
            if p.name == "name" || p.name == "title" {
                self.error(
                    codes::RESERVED_PARAMETER,
                    p.span,
                    format!(
                        "the parameter `${}` redefines a built-in parameter of the {container}",
                        p.name
                    ),
                );
            }
        }
    }

    /// Checks and walks parameters (name rules, no assignment in a default value).
    fn parameters(&mut self, params: &[Parameter]) {
        for p in params {
            let numeric = {
                let digits = p.name.strip_prefix("0x").unwrap_or(&p.name);
                !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
            };
            if numeric {
                self.error(
                    codes::ILLEGAL_NUMERIC_PARAMETER,
                    p.span,
                    format!("the numeric parameter name `${}` cannot be used (it clashes with the numeric match result variables)", p.name),
                );
            }
            if !is_param_name(&p.name) {
                self.error(
                    codes::ILLEGAL_PARAM_NAME,
                    p.span,
                    format!("illegal parameter name `${}`: parameter names are lower case letters, digits and `_`", p.name),
                );
            }
            if let Some(d) = &p.default {
                self.no_assignment_in(d);
            }
            if let Some(t) = &p.type_expr {
                self.visit(t);
            }
            if let Some(d) = &p.default {
                self.visit(d);
            }
        }
    }

    fn no_assignment_in(&mut self, e: &Expr) {
        let mut found = Vec::new();
        find_assignments(e, &mut found);
        for span in found {
            self.error(
                codes::ILLEGAL_ASSIGNMENT_CONTEXT,
                span,
                "assignment not allowed here".to_string(),
            );
        }
    }

    /// A class, define or node body must not end in an expression without effect.
    fn no_idem_last(&mut self, body: &[Expr], container: &str) {
        // The body is always a block here, so its last statement is what is judged.
        let violator = body.last().filter(|s| idem(s));
        if let Some(v) = violator {
            if let ExprKind::Block { statements } = &v.kind {
                if resource_without_title(statements).is_some() {
                    return;
                }
            }
            self.error(
                codes::IDEM_NOT_ALLOWED_LAST,
                v.span,
                format!(
                    "this {} has no effect: {container} cannot end with a value-producing expression without other effect",
                    label(v)
                ),
            );
        }
    }

    fn not_virtualizable(&mut self, form: ResourceForm, span: Span) {
        if form != ResourceForm::Regular {
            self.error(
                codes::NOT_VIRTUALIZEABLE,
                span,
                "resource defaults and overrides are not virtualizable".to_string(),
            );
        }
    }

    fn duplicate_default(&mut self, span: Span, container: &str) {
        self.error(
            codes::DUPLICATE_DEFAULT,
            span,
            format!("this {container} already has a `default` entry: this one is a duplicate"),
        );
    }

    fn duplicate_keys(&mut self, entries: &[HashEntry]) {
        let mut seen: BTreeSet<String> = BTreeSet::new();
        for entry in entries {
            let Some(key) = literal_key(&entry.key) else {
                continue;
            };
            if !seen.insert(key) {
                self.diags.push(Diagnostic::warning(
                    codes::DUPLICATE_KEY,
                    entry.span,
                    "this key is declared more than once in the hash",
                ));
            }
        }
    }

    fn hostname(&mut self, m: &Expr) {
        match &m.kind {
            ExprKind::String { value }
            | ExprKind::QualifiedName { name: value }
            | ExprKind::QualifiedReference { name: value } => self.hostname_chars(value, m.span),
            ExprKind::Concat { segments } => {
                if let Some(t) = segments
                    .iter()
                    .find(|s| matches!(s.kind, ExprKind::Text { .. }))
                {
                    self.error(
                        codes::ILLEGAL_HOSTNAME_INTERPOLATION,
                        t.span,
                        "an interpolated expression is not allowed in a node's hostname"
                            .to_string(),
                    );
                } else if let [only] = segments.as_slice() {
                    self.hostname(only);
                } else {
                    self.error(
                        codes::ILLEGAL_HOSTNAME_INTERPOLATION,
                        m.span,
                        "an interpolated expression is not allowed in a node's hostname"
                            .to_string(),
                    );
                }
            }
            ExprKind::Integer { .. }
            | ExprKind::Float { .. }
            | ExprKind::Boolean { .. }
            | ExprKind::Default
            | ExprKind::Regex { .. } => {}
            _ => self.error(
                codes::ILLEGAL_EXPRESSION,
                m.span,
                format!(
                    "illegal expression: {} is unacceptable as a hostname of a node",
                    label(m)
                ),
            ),
        }
    }

    fn hostname_chars(&mut self, name: &str, span: Span) {
        if name
            .chars()
            .any(|c| !(c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'))
        {
            self.error(
                codes::ILLEGAL_HOSTNAME_CHARS,
                span,
                format!("the hostname `{name}` contains illegal characters (only letters, digits, `_`, `-` and `.` are allowed)"),
            );
        }
    }

    /// A collector query allows only `==`, `!=`, `and`, `or`, parentheses and simple operands.
    fn query(&mut self, q: &Expr) {
        match &q.kind {
            ExprKind::Binary {
                operands,
                operators,
            } => match operators.last() {
                Some(BinaryOp::Eq | BinaryOp::Ne) => {}
                Some(BinaryOp::And | BinaryOp::Or) => {
                    for o in operands {
                        self.query(o);
                    }
                }
                _ => self.illegal_query(q),
            },
            ExprKind::Paren { expr } => self.query(expr),
            ExprKind::Variable { .. }
            | ExprKind::BooleanVariable { .. }
            | ExprKind::QualifiedName { .. }
            | ExprKind::Integer { .. }
            | ExprKind::Float { .. }
            | ExprKind::String { .. }
            | ExprKind::Boolean { .. } => {}
            _ => self.illegal_query(q),
        }
    }

    fn illegal_query(&mut self, q: &Expr) {
        self.error(
            codes::ILLEGAL_QUERY_EXPRESSION,
            q.span,
            format!(
                "illegal query expression: {} cannot be used in a query (use `==`, `!=`, `and`, `or`)",
                label(q)
            ),
        );
    }

    fn type_mapping(&mut self, mapping: &Expr, target: &Expr, span: Span) {
        // 0: not Runtime[...]; 1: Runtime[...]; 2: Runtime[x, [/re/, 'replacement']]
        let mut lhs = 0;
        if let ExprKind::Access { target: left, keys } = &mapping.kind {
            if matches!(&left.kind, ExprKind::QualifiedReference { name } if name == "Runtime") {
                lhs = 1;
                if keys.len() == 2 && pattern_with_replacement(&keys[1]) {
                    lhs = 2;
                }
            }
        }
        if lhs == 0 {
            self.error(
                codes::UNSUPPORTED_EXPRESSION,
                span,
                "a type mapping must map a `Runtime[...]` type".to_string(),
            );
            return;
        }
        let is_type = match &target.kind {
            ExprKind::Access { target: t, .. } => {
                matches!(t.kind, ExprKind::QualifiedReference { .. })
            }
            ExprKind::QualifiedReference { .. } => true,
            _ => false,
        };
        let bad = if pattern_with_replacement(target) {
            lhs == 1
        } else if is_type {
            lhs == 2
        } else {
            true
        };
        if bad {
            let expected = if lhs == 1 {
                "a type"
            } else {
                "a [Regexp, String] pair"
            };
            self.error(
                codes::ILLEGAL_TYPE_MAPPING,
                span,
                format!("illegal type mapping: expected {expected} on the right side"),
            );
        }
    }

    fn heredoc_syntax(&mut self, syntax: &str, text: &str, span: Span) {
        let checker = syntax.rsplit('+').next().unwrap_or("");
        let problem = match checker {
            "json" => serde_json::from_str::<serde::de::IgnoredAny>(text)
                .err()
                .map(|e| format!("invalid JSON: {e}")),
            "base64" => (!is_strict_base64(text)).then(|| "invalid Base64".to_string()),
            "pp" => {
                let parsed = crate::parser::parse_file(span.file, text);
                (parsed.program.is_none()).then(|| "invalid Puppet code".to_string())
            }
            _ => None,
        };
        if let Some(p) = problem {
            let code = match checker {
                "json" => codes::ILLEGAL_JSON,
                "base64" => codes::ILLEGAL_BASE64,
                _ => codes::ILLEGAL_PUPPET,
            };
            self.error(
                code,
                span,
                format!("the heredoc text does not have its declared syntax `{syntax}`: {p}"),
            );
        }
    }
}

// ---- what Puppet calls "idem": an expression without effect ------------------------------

/// Whether evaluating `e` has no effect (Puppet's `idem`): literals, names, variables, operators
/// other than match, access, strings, selectors, and conditionals made only of those.
fn idem(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Nop
        | ExprKind::String { .. }
        | ExprKind::Integer { .. }
        | ExprKind::Float { .. }
        | ExprKind::Boolean { .. }
        | ExprKind::Undef
        | ExprKind::Default
        | ExprKind::Regex { .. }
        | ExprKind::QualifiedName { .. }
        | ExprKind::QualifiedReference { .. }
        | ExprKind::ReservedWord { .. }
        | ExprKind::Variable { .. }
        | ExprKind::BooleanVariable { .. }
        | ExprKind::Array { .. }
        | ExprKind::Hash { .. }
        | ExprKind::Access { .. }
        | ExprKind::Unary { .. }
        | ExprKind::Text { .. }
        | ExprKind::Concat { .. }
        | ExprKind::Heredoc { .. }
        | ExprKind::Selector { .. } => true,
        // The outermost operator of a flat chain is its last one; a match sets `$0`...
        ExprKind::Binary { operators, .. } => {
            !matches!(operators.last(), Some(BinaryOp::Match | BinaryOp::NoMatch))
        }
        ExprKind::Paren { expr } => idem(expr),
        ExprKind::Block { statements } => statements.iter().all(idem),
        ExprKind::If {
            test,
            then_body,
            else_body,
        }
        | ExprKind::Unless {
            test,
            then_body,
            else_body,
        } => idem(test) && then_body.iter().all(idem) && else_body.iter().all(idem),
        ExprKind::Case { test, options } => {
            idem(test)
                && options
                    .iter()
                    .all(|o| o.values.iter().all(idem) && o.body.iter().all(idem))
        }
        _ => false,
    }
}

/// `file { a => 1 }` becomes the two statements `file` and `{a => 1}`; Puppet names it.
fn resource_without_title(statements: &[Expr]) -> Option<&str> {
    match statements {
        [first, second] => match (&first.kind, &second.kind) {
            (ExprKind::QualifiedName { name }, ExprKind::Hash { .. }) => Some(name),
            _ => None,
        },
        _ => None,
    }
}

fn span_of(statements: &[Expr]) -> Span {
    match (statements.first(), statements.last()) {
        (Some(f), Some(l)) => f.span.to(l.span),
        _ => Span::default(),
    }
}

/// Puppet forbids an assignment anywhere in a parameter's default value, except inside a lambda
/// (which has its own scope).
fn find_assignments(e: &Expr, found: &mut Vec<Span>) {
    if let ExprKind::Assignment { .. } = e.kind {
        found.push(e.span);
    } else {
        for_each_child_outside_lambdas(e, &mut |c| find_assignments(c, found));
    }
}

/// Calls `f` on each direct child expression of `e`, skipping lambda bodies and parameters,
/// and definitions and bindings blocks (which cannot stand in a default value).
fn for_each_child_outside_lambdas(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    match &e.kind {
        ExprKind::Call { functor, args, .. } => {
            f(functor);
            args.iter().for_each(f);
        }
        ExprKind::MethodCall(call) => {
            f(&call.receiver);
            call.args.iter().for_each(f);
        }
        ExprKind::Class(_)
        | ExprKind::Define(_)
        | ExprKind::Node(_)
        | ExprKind::Function(_)
        | ExprKind::TypeDefinition(_)
        | ExprKind::Site(_)
        | ExprKind::Bindings(_) => {}
        _ => e.for_each_child(&mut |c| f(c)),
    }
}

fn pattern_with_replacement(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Array { elements } if matches!(
        elements.as_slice(),
        [Expr { kind: ExprKind::Regex { .. }, .. }, Expr { kind: ExprKind::String { .. }, .. }]
    ))
}

/// A literal hash key's value, for finding duplicates (`'a'` and `a` are the same key).
fn literal_key(e: &Expr) -> Option<String> {
    Some(match &e.kind {
        ExprKind::String { value } | ExprKind::QualifiedName { name: value } => {
            format!("s:{value}")
        }
        ExprKind::Concat { segments } => match segments.as_slice() {
            [Expr {
                kind: ExprKind::String { value },
                ..
            }] => format!("s:{value}"),
            _ => return None,
        },
        ExprKind::Integer { text, radix } => format!("i:{}", integer_value(text, *radix)?),
        ExprKind::Float { value, .. } => format!("f:{}", value.to_bits()),
        ExprKind::Boolean { value } => format!("b:{value}"),
        ExprKind::Undef => "u".to_string(),
        ExprKind::Default => "d".to_string(),
        ExprKind::Regex { source } => format!("r:{source}"),
        ExprKind::Array { elements } => {
            let mut s = String::from("l:[");
            for el in elements {
                s.push_str(&literal_key(el)?);
                s.push('\u{0}');
            }
            s.push(']');
            s
        }
        _ => return None,
    })
}

fn integer_value(text: &str, radix: u32) -> Option<u128> {
    let digits = match radix {
        16 => text.get(2..)?,
        8 => text.get(1..)?,
        _ => text,
    };
    if digits.is_empty() {
        return Some(0);
    }
    u128::from_str_radix(digits, radix).ok()
}

fn label(e: &Expr) -> &'static str {
    match &e.kind {
        ExprKind::Nop => "no-op",
        ExprKind::Block { .. } => "block of statements",
        ExprKind::String { .. } | ExprKind::Concat { .. } | ExprKind::Heredoc { .. } => "string",
        ExprKind::Text { .. } => "interpolation",
        ExprKind::Integer { .. } | ExprKind::Float { .. } => "literal number",
        ExprKind::Boolean { .. } => "boolean",
        ExprKind::Undef => "undef",
        ExprKind::Default => "default",
        ExprKind::Regex { .. } => "regular expression",
        ExprKind::QualifiedName { .. } => "name",
        ExprKind::QualifiedReference { .. } => "type name",
        ExprKind::ReservedWord { .. } => "reserved word",
        ExprKind::Variable { .. } | ExprKind::BooleanVariable { .. } => "variable",
        ExprKind::Array { .. } => "array",
        ExprKind::Hash { .. } => "hash",
        ExprKind::Binary { .. } => "operator expression",
        ExprKind::Unary { .. } => "unary expression",
        ExprKind::Paren { .. } => "parenthesised expression",
        ExprKind::Access { .. } => "access expression",
        ExprKind::Selector { .. } => "selector",
        ExprKind::Assignment { .. } => "assignment",
        ExprKind::Relationship { .. } => "relationship",
        ExprKind::Call { .. } => "function call",
        ExprKind::MethodCall { .. } => "method call",
        ExprKind::If { .. } => "if statement",
        ExprKind::Unless { .. } => "unless statement",
        ExprKind::Case { .. } => "case statement",
        ExprKind::Resource { .. } => "resource",
        ExprKind::ResourceDefaults { .. } => "resource defaults expression",
        ExprKind::ResourceOverride { .. } => "resource override",
        ExprKind::Collect { .. } => "collector",
        ExprKind::Class(_) => "class definition",
        ExprKind::Define(_) => "defined type",
        ExprKind::Node(_) => "node definition",
        ExprKind::Function(_) => "function definition",
        ExprKind::TypeAlias { .. } => "type alias",
        ExprKind::TypeMapping { .. } => "type mapping",
        ExprKind::TypeDefinition(_) => "type definition",
        ExprKind::Site(_) => "site block",
        ExprKind::Bindings(_) => "bindings block",
        ExprKind::ClassType { .. } => "class reference",
        ExprKind::Query { .. } => "query",
        ExprKind::Categories { .. } => "categories block",
        ExprKind::Layers { .. } | ExprKind::Layer { .. } => "layer",
        ExprKind::Error => "erroneous expression",
    }
}

// ---- Puppet's name patterns (ASCII `\w`) ---------------------------------------------------

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `^(?:0|[1-9][0-9]*)$`
fn is_numeric_var_name(name: &str) -> bool {
    name == "0"
        || (name.starts_with(|c: char| ('1'..='9').contains(&c))
            && name.bytes().all(|b| b.is_ascii_digit()))
}

/// `^(::)?([a-z]\w*::)*[a-z_]\w*$`
fn is_var_name(name: &str) -> bool {
    let name = name.strip_prefix("::").unwrap_or(name);
    let segments: Vec<&str> = name.split("::").collect();
    let Some((last, init)) = segments.split_last() else {
        return false;
    };
    init.iter()
        .all(|s| s.as_bytes().first().is_some_and(u8::is_ascii_lowercase) && s.bytes().all(is_word))
        && last
            .as_bytes()
            .first()
            .is_some_and(|b| b.is_ascii_lowercase() || *b == b'_')
        && last.bytes().all(is_word)
}

/// `^[a-z_]\w*$`
fn is_param_name(name: &str) -> bool {
    name.as_bytes()
        .first()
        .is_some_and(|b| b.is_ascii_lowercase() || *b == b'_')
        && name.bytes().all(is_word)
}

/// `^[a-z]\w*(::[a-z]\w*)*$`
fn is_classref_decl(name: &str) -> bool {
    name.split("::")
        .all(|s| s.as_bytes().first().is_some_and(u8::is_ascii_lowercase) && s.bytes().all(is_word))
}

/// `^[A-Z]\w*(::[A-Z]\w*)*$`
fn is_classref_ext_decl(name: &str) -> bool {
    name.split("::")
        .all(|s| s.as_bytes().first().is_some_and(u8::is_ascii_uppercase) && s.bytes().all(is_word))
}

/// Ruby's `Base64.strict_decode64` after removing line breaks and blanks.
fn is_strict_base64(text: &str) -> bool {
    let cleaned: Vec<u8> = text
        .bytes()
        .filter(|b| !matches!(b, b'\r' | b'?' | b'\n' | b' ' | b'\t'))
        .collect();
    if cleaned.len() % 4 != 0 {
        return false;
    }
    let body_len = cleaned.len() - cleaned.iter().rev().take_while(|b| **b == b'=').count();
    cleaned.len() - body_len <= 2
        && cleaned[..body_len]
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_patterns() {
        assert!(is_var_name("x") && is_var_name("::a::b_c") && is_var_name("_x"));
        assert!(!is_var_name("Foo") && !is_var_name("a::_b::c") && !is_var_name(""));
        assert!(is_numeric_var_name("0") && is_numeric_var_name("12"));
        assert!(!is_numeric_var_name("01") && !is_numeric_var_name("0x10"));
        assert!(is_classref_decl("a::b2") && !is_classref_decl("A") && !is_classref_decl("a::"));
        assert!(is_classref_ext_decl("Foo::Bar") && !is_classref_ext_decl("Foo::bar"));
        assert!(
            is_strict_base64("aGVsbG8=\n")
                && !is_strict_base64("aGVsbG8")
                && !is_strict_base64("a$===")
        );
    }
}
