//! PN ("Puppet Notation"): Puppet's own serialisation of its AST, as `puppet parser dump
//! --format json` prints it, written from our [`ast`](crate::ast).
//!
//! Owns the mapping from AST nodes to PN calls (`{"^":[name, args...]}`), maps
//! (`{"#":[k1, v1, ...]}`), lists and literals, byte for byte as Puppet 7 writes them: node names
//! and field order, Ruby's float and string formatting, the unary-minus folding, statement bodies
//! flattened into lists. For the bindings extension, which Puppet never had, it defines PN nodes
//! of its own in the same style (documented in `README.md`). The bindings model stores Puppet
//! expressions in this form.
//!
//! [`read`] reads it back (the expressions a written model embeds).
//!
//! It must not judge or change the tree: a file with syntax errors is never written, and
//! validation is someone else's job. Output is written straight into a `String`; operator chains
//! are nested on output without recursion, and other recursion is bounded by the parser's
//! nesting limit.

use crate::ast::*;
use crate::bytewise;

pub mod read;

/// The PN JSON of a whole file, as `puppet parser dump --format json` prints it (with the final
/// newline).
pub fn program_to_json(program: &Program) -> String {
    // Nothing is handed over: the text is made whole.
    program_pn(program, &mut |_| Ok(())).unwrap_or_default()
}

/// [`program_to_json`] written to `sink` as it is made: the text is handed over after each
/// top-level statement once a chunk has gathered, so a large manifest's PN is never held
/// whole (the bytes are the same).
pub fn write_program(program: &Program, sink: &mut dyn std::io::Write) -> std::io::Result<()> {
    const CHUNK: usize = 1 << 16;
    let rest = program_pn(program, &mut |out: &mut String| {
        if out.len() >= CHUNK {
            sink.write_all(out.as_bytes())?;
            out.clear();
        }
        Ok(())
    })?;
    sink.write_all(rest.as_bytes())
}

/// A program's PN, with `hand_over` offered the text made so far after each top-level
/// statement; what it leaves is returned.
fn program_pn(
    program: &Program,
    hand_over: &mut dyn FnMut(&mut String) -> std::io::Result<()>,
) -> std::io::Result<String> {
    let mut pn = ProgramPn::default();
    for e in &program.body {
        pn.statement(e);
        // A lone statement's text may yet move inside a block: only a block's is handed over.
        if pn.statements > 1 {
            hand_over(&mut pn.w.out)?;
        }
    }
    Ok(pn.finish())
}

/// A program's PN made statement by statement, as [`crate::parser::parse_file_statements`]
/// hands them over: the text of [`program_to_json`] without the program's tree.
#[derive(Default)]
pub struct ProgramPn {
    w: PnWriter,
    statements: usize,
}

impl ProgramPn {
    /// Adds the program's next top-level statement.
    pub fn statement(&mut self, e: &Expr) {
        match self.statements {
            0 => self.w.expr(e),
            1 => {
                // A second statement makes the program a block around the first.
                let first = std::mem::take(&mut self.w.out);
                self.w.call_open("block");
                self.w.sep();
                self.w.out.push_str(&first);
                self.w.sep();
                self.w.expr(e);
            }
            _ => {
                self.w.sep();
                self.w.expr(e);
            }
        }
        self.statements += 1;
    }

    /// The program's PN, with the final newline.
    pub fn finish(mut self) -> String {
        match self.statements {
            0 => self.w.out.push_str(NOP),
            1 => {}
            _ => self.w.call_close(),
        }
        self.w.out.push('\n');
        self.w.out
    }
}

/// The PN JSON of one expression (no newline), as the bindings model stores it.
pub fn expr_to_json(expr: &Expr) -> String {
    let mut out = String::new();
    write_expr_json(expr, &mut out);
    out
}

/// [`expr_to_json`], appended to `out`.
pub fn write_expr_json(expr: &Expr, out: &mut String) {
    let mut w = PnWriter {
        out: std::mem::take(out),
    };
    w.expr(expr);
    *out = w.out;
}

/// The PN JSON of a lambda (an option's value in the bindings model).
pub fn lambda_to_json(lambda: &Lambda) -> String {
    let mut w = PnWriter::default();
    w.lambda(lambda);
    w.out
}

const NOP: &str = r#"{"^":["nop"]}"#;

#[derive(Default)]
struct PnWriter {
    out: String,
}

impl PnWriter {
    // ---- PN building blocks --------------------------------------------------------------

    fn call_open(&mut self, name: &str) {
        self.out.push_str(r#"{"^":["#);
        self.string(name);
    }

    fn call_close(&mut self) {
        self.out.push_str("]}");
    }

    /// A call whose only argument is a map: `{"^":[name,{"#":[...]}]}`.
    fn call_map_open(&mut self, name: &str) -> MapState {
        self.call_open(name);
        self.out.push(',');
        self.map_open()
    }

    fn call_map_close(&mut self) {
        self.map_close();
        self.call_close();
    }

    fn map_open(&mut self) -> MapState {
        self.out.push_str(r##"{"#":["##);
        MapState { first: true }
    }

    fn map_close(&mut self) {
        self.out.push_str("]}");
    }

    /// Starts the value of map entry `key` (the caller writes the value).
    fn key(&mut self, m: &mut MapState, key: &str) {
        if !m.first {
            self.out.push(',');
        }
        m.first = false;
        self.string(key);
        self.out.push(',');
    }

    fn sep(&mut self) {
        self.out.push(',');
    }

    fn string(&mut self, s: &str) {
        write_json_string(&mut self.out, s);
    }

    fn list(&mut self, items: &[Expr]) {
        self.out.push('[');
        for (i, e) in items.iter().enumerate() {
            if i > 0 {
                self.sep();
            }
            self.expr(e);
        }
        self.out.push(']');
    }

    /// Writes `, E1, E2 ...` after a call's name.
    fn args(&mut self, items: &[Expr]) {
        for e in items {
            self.sep();
            self.expr(e);
        }
    }

    fn block(&mut self, statements: &[Expr]) {
        self.call_open("block");
        self.args(statements);
        self.call_close();
    }

    /// A statement body as a list. Puppet keeps an `if`/`unless`/`else` body of one statement
    /// bare (and so an untitled resource there, itself a block, is flattened with it); every
    /// other body (class, define, node, function, lambda, case option) is always a block, whose
    /// statements are listed as they are.
    fn body(&mut self, statements: &[Expr], bare_single: bool) {
        let listed = match statements {
            [Expr {
                kind: ExprKind::Block { statements: inner },
                ..
            }] if bare_single => inner,
            _ => statements,
        };
        self.list(listed);
    }

    /// The `"then"` / `"body"` entry of a map, left out for an empty body as Puppet does.
    fn body_entry(&mut self, m: &mut MapState, key: &str, statements: &[Expr], bare_single: bool) {
        if !statements.is_empty() {
            self.key(m, key);
            self.body(statements, bare_single);
        }
    }

    // ---- expressions ---------------------------------------------------------------------

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Nop => self.out.push_str(NOP),
            ExprKind::Block { statements } => self.block(statements),
            ExprKind::String { value } => self.string(value),
            ExprKind::Concat { segments } => {
                self.call_open("concat");
                self.args(segments);
                self.call_close();
            }
            ExprKind::Text { expr } => self.unary_call("str", expr),
            ExprKind::Heredoc { syntax, text } => {
                let mut m = self.call_map_open("heredoc");
                if !syntax.is_empty() {
                    self.key(&mut m, "syntax");
                    self.string(syntax);
                }
                self.key(&mut m, "text");
                self.expr(text);
                self.call_map_close();
            }
            ExprKind::Integer { text, radix } => self.integer(text, *radix, false),
            ExprKind::Float { value, .. } => write_ruby_float(&mut self.out, *value),
            ExprKind::Boolean { value } => self.out.push_str(if *value { "true" } else { "false" }),
            ExprKind::Undef => self.out.push_str("null"),
            ExprKind::Default => self.out.push_str(r#"{"^":["default"]}"#),
            ExprKind::Regex { source } => self.named_string("regexp", source),
            ExprKind::QualifiedName { name } => self.named_string("qn", name),
            ExprKind::QualifiedReference { name } => self.named_string("qr", name),
            ExprKind::ReservedWord { word } => self.named_string("reserved", word),
            ExprKind::Variable { name } => self.named_string("var", name),
            ExprKind::BooleanVariable { value } => {
                self.call_open("var");
                self.out.push_str(if *value { ",true" } else { ",false" });
                self.call_close();
            }
            ExprKind::Array { elements } => {
                self.call_open("array");
                self.args(elements);
                self.call_close();
            }
            ExprKind::Hash { entries } => {
                self.call_open("hash");
                for entry in entries {
                    self.sep();
                    self.pair("=>", &entry.key, &entry.value);
                }
                self.call_close();
            }
            ExprKind::Binary {
                operands,
                operators,
            } => self.left_chain(operands, operators.iter().map(|op| binary_name(*op))),
            ExprKind::Unary { op, operand } => self.unary(*op, operand),
            ExprKind::Paren { expr } => self.unary_call("paren", expr),
            ExprKind::Access { target, keys } => {
                self.call_open("access");
                self.sep();
                self.expr(target);
                self.args(keys);
                self.call_close();
            }
            ExprKind::Selector { subject, entries } => {
                self.call_open("?");
                self.sep();
                self.expr(subject);
                self.out.push_str(",[");
                for (i, entry) in entries.iter().enumerate() {
                    if i > 0 {
                        self.sep();
                    }
                    self.pair("=>", &entry.matcher, &entry.value);
                }
                self.out.push(']');
                self.call_close();
            }
            ExprKind::Assignment { op, target, value } => {
                let name = match op {
                    AssignOp::Assign => "=",
                    AssignOp::Append => "+=",
                    AssignOp::Delete => "-=",
                };
                self.pair(name, target, value);
            }
            ExprKind::Relationship {
                operands,
                operators,
            } => self.left_chain(operands, operators.iter().map(|op| relationship_name(*op))),
            ExprKind::Call {
                functor,
                args,
                lambda,
                statement,
            } => {
                let kind = if *statement { "invoke" } else { "call" };
                let mut m = self.call_map_open(kind);
                self.key(&mut m, "functor");
                self.expr(functor);
                self.call_rest(&mut m, args, lambda.as_deref());
                self.call_map_close();
            }
            ExprKind::MethodCall(call) => {
                let MethodCall {
                    receiver,
                    method,
                    args,
                    lambda,
                } = &**call;
                let mut m = self.call_map_open("call-method");
                self.key(&mut m, "functor");
                self.call_open(".");
                self.sep();
                self.expr(receiver);
                self.sep();
                self.named_string("qn", method);
                self.call_close();
                self.call_rest(&mut m, args, lambda.as_deref());
                self.call_map_close();
            }
            ExprKind::If {
                test,
                then_body,
                else_body,
            } => self.conditional("if", test, then_body, else_body),
            ExprKind::Unless {
                test,
                then_body,
                else_body,
            } => self.conditional("unless", test, then_body, else_body),
            ExprKind::Case { test, options } => {
                self.call_open("case");
                self.sep();
                self.expr(test);
                self.out.push_str(",[");
                for (i, option) in options.iter().enumerate() {
                    if i > 0 {
                        self.sep();
                    }
                    let mut m = self.map_open();
                    self.key(&mut m, "when");
                    self.list(&option.values);
                    self.key(&mut m, "then");
                    self.body(&option.body, false);
                    self.map_close();
                }
                self.out.push(']');
                self.call_close();
            }
            ExprKind::Resource {
                form,
                type_expr,
                bodies,
            } => {
                let mut m = self.call_map_open("resource");
                self.key(&mut m, "type");
                self.expr(type_expr);
                self.key(&mut m, "bodies");
                self.resource_bodies(bodies);
                self.form(&mut m, *form);
                self.call_map_close();
            }
            ExprKind::ResourceDefaults {
                form,
                type_expr,
                ops,
            } => {
                let mut m = self.call_map_open("resource-defaults");
                self.key(&mut m, "type");
                self.expr(type_expr);
                self.key(&mut m, "ops");
                self.attribute_ops(ops);
                self.form(&mut m, *form);
                self.call_map_close();
            }
            ExprKind::ResourceOverride {
                form,
                resources,
                ops,
            } => {
                let mut m = self.call_map_open("resource-override");
                self.key(&mut m, "resources");
                self.expr(resources);
                self.key(&mut m, "ops");
                self.attribute_ops(ops);
                self.form(&mut m, *form);
                self.call_map_close();
            }
            ExprKind::Collect {
                type_expr,
                query,
                ops,
            } => {
                let mut m = self.call_map_open("collect");
                self.key(&mut m, "type");
                self.expr(type_expr);
                self.key(&mut m, "query");
                self.call_open(if query.exported {
                    "exported-query"
                } else {
                    "virtual-query"
                });
                if let Some(q) = &query.expr {
                    self.sep();
                    self.expr(q);
                }
                self.call_close();
                if !ops.is_empty() {
                    self.key(&mut m, "ops");
                    self.attribute_ops(ops);
                }
                self.call_map_close();
            }
            ExprKind::Class(def) => {
                let ClassDef {
                    name,
                    params,
                    parent,
                    body,
                } = &**def;
                let mut m = self.call_map_open("class");
                self.key(&mut m, "name");
                self.string(name);
                if let Some(p) = parent {
                    self.key(&mut m, "parent");
                    self.string(p);
                }
                self.params_entry(&mut m, params);
                self.body_entry(&mut m, "body", body, false);
                self.call_map_close();
            }
            ExprKind::Define(def) => {
                let DefineDef { name, params, body } = &**def;
                let mut m = self.call_map_open("define");
                self.key(&mut m, "name");
                self.string(name);
                self.params_entry(&mut m, params);
                self.body_entry(&mut m, "body", body, false);
                self.call_map_close();
            }
            ExprKind::Node(def) => {
                let NodeDef {
                    matches,
                    parent,
                    body,
                } = &**def;
                let mut m = self.call_map_open("node");
                self.key(&mut m, "matches");
                self.list(matches);
                if let Some(p) = parent {
                    self.key(&mut m, "parent");
                    self.expr(p);
                }
                self.body_entry(&mut m, "body", body, false);
                self.call_map_close();
            }
            ExprKind::Function(def) => {
                let FunctionDef {
                    name,
                    params,
                    return_type,
                    body,
                } = &**def;
                let mut m = self.call_map_open("function");
                self.key(&mut m, "name");
                self.string(name);
                self.params_entry(&mut m, params);
                self.body_entry(&mut m, "body", body, false);
                if let Some(t) = return_type {
                    self.key(&mut m, "returns");
                    self.expr(t);
                }
                self.call_map_close();
            }
            ExprKind::TypeAlias { name, type_expr } => {
                self.call_open("type-alias");
                self.sep();
                self.string(name);
                self.sep();
                self.expr(type_expr);
                self.call_close();
            }
            ExprKind::TypeMapping { mapping, target } => self.pair("type-mapping", mapping, target),
            ExprKind::TypeDefinition(def) => {
                let TypeDefinitionDef { name, parent, body } = &**def;
                self.call_open("type-definition");
                self.sep();
                self.string(name);
                self.sep();
                match parent {
                    Some(p) => self.string(p),
                    None => self.out.push_str("null"),
                }
                self.sep();
                match body.as_slice() {
                    [] => self.out.push_str(NOP),
                    statements => self.block(statements),
                }
                self.call_close();
            }
            ExprKind::Site(site) => self.site(site),
            ExprKind::Bindings(block) => self.bindings(block),
            ExprKind::ClassType { name } => self.named_string("class-type", name),
            ExprKind::Query { expr } => self.unary_call("query", expr),
            ExprKind::Categories { entries } => {
                let mut m = self.call_map_open("categories");
                for op in entries {
                    self.key(&mut m, &op.name);
                    self.expr(&op.value);
                }
                self.call_map_close();
            }
            ExprKind::Layers { layers } => self.unary_call("layers", layers),
            ExprKind::Layer { name, ops } => {
                let mut m = self.call_map_open("layer");
                self.key(&mut m, "name");
                self.expr(name);
                self.key(&mut m, "ops");
                self.attribute_ops(ops);
                self.call_map_close();
            }
            ExprKind::Error => self.out.push_str(r#"{"^":["error"]}"#),
        }
    }

    fn named_string(&mut self, name: &str, value: &str) {
        self.call_open(name);
        self.sep();
        self.string(value);
        self.call_close();
    }

    fn unary_call(&mut self, name: &str, operand: &Expr) {
        self.call_open(name);
        self.sep();
        self.expr(operand);
        self.call_close();
    }

    fn pair(&mut self, name: &str, left: &Expr, right: &Expr) {
        self.call_open(name);
        self.sep();
        self.expr(left);
        self.sep();
        self.expr(right);
        self.call_close();
    }

    /// `a op0 b op1 c` as Puppet's left-nested binary nodes `(op1 (op0 a b) c)`, written without
    /// recursing per operator: first every opening, outermost (last operator) first.
    fn left_chain<'a>(
        &mut self,
        operands: &[Expr],
        names: impl DoubleEndedIterator<Item = &'a str>,
    ) {
        for name in names.rev() {
            self.call_open(name);
            self.sep();
        }
        if let Some((first, rest)) = operands.split_first() {
            self.expr(first);
            for operand in rest {
                self.sep();
                self.expr(operand);
                self.call_close();
            }
        }
    }

    fn unary(&mut self, op: UnaryOp, operand: &Expr) {
        match op {
            // Puppet folds a minus on a number literal into the literal.
            UnaryOp::Neg => match &operand.kind {
                ExprKind::Integer { text, radix } => self.integer(text, *radix, true),
                ExprKind::Float { value, .. } => write_ruby_float(&mut self.out, -value),
                _ => self.unary_call("-", operand),
            },
            UnaryOp::Not => self.unary_call("!", operand),
            UnaryOp::Splat => self.unary_call("unfold", operand),
        }
    }

    /// Decimal integers are written as they are; octal and hexadecimal ones as an `int` node with
    /// the decimal value (a negated one loses its radix, as in Puppet).
    fn integer(&mut self, text: &str, radix: u32, negated: bool) {
        let digits = match radix {
            16 => text.get(2..).unwrap_or(""),
            8 => text.get(1..).unwrap_or(""),
            _ => text,
        };
        let decimal = to_decimal(digits, radix);
        if negated {
            if decimal != "0" {
                self.out.push('-');
            }
            self.out.push_str(&decimal);
        } else if radix == 10 {
            self.out.push_str(&decimal);
        } else {
            let mut m = self.call_map_open("int");
            self.key(&mut m, "radix");
            self.out.push_str(&radix.to_string());
            self.key(&mut m, "value");
            self.out.push_str(&decimal);
            self.call_map_close();
        }
    }

    fn call_rest(&mut self, m: &mut MapState, args: &[Expr], lambda: Option<&Lambda>) {
        self.key(m, "args");
        self.list(args);
        if let Some(l) = lambda {
            self.key(m, "block");
            self.lambda(l);
        }
    }

    fn lambda(&mut self, l: &Lambda) {
        let mut m = self.call_map_open("lambda");
        self.params_entry(&mut m, &l.params);
        if let Some(t) = &l.return_type {
            self.key(&mut m, "returns");
            self.expr(t);
        }
        self.body_entry(&mut m, "body", &l.body, false);
        self.call_map_close();
    }

    fn params_entry(&mut self, m: &mut MapState, params: &[Parameter]) {
        if params.is_empty() {
            return;
        }
        self.key(m, "params");
        let mut pm = self.map_open();
        for p in params {
            self.key(&mut pm, &p.name);
            let mut inner = self.map_open();
            if let Some(t) = &p.type_expr {
                self.key(&mut inner, "type");
                self.expr(t);
            }
            // Puppet 7's dumper crashes on a splat parameter; this is what it means to write.
            if p.splat {
                self.key(&mut inner, "splat");
                self.out.push_str("true");
            }
            if let Some(d) = &p.default {
                self.key(&mut inner, "value");
                self.expr(d);
            }
            self.map_close();
        }
        self.map_close();
    }

    fn conditional(&mut self, kind: &str, test: &Expr, then_body: &[Expr], else_body: &[Expr]) {
        let mut m = self.call_map_open(kind);
        self.key(&mut m, "test");
        self.expr(test);
        self.body_entry(&mut m, "then", then_body, true);
        self.body_entry(&mut m, "else", else_body, true);
        self.call_map_close();
    }

    fn form(&mut self, m: &mut MapState, form: ResourceForm) {
        let name = match form {
            ResourceForm::Regular => return,
            ResourceForm::Virtual => "virtual",
            ResourceForm::Exported => "exported",
        };
        self.key(m, "form");
        self.string(name);
    }

    fn resource_bodies(&mut self, bodies: &[ResourceBody]) {
        self.out.push('[');
        for (i, body) in bodies.iter().enumerate() {
            if i > 0 {
                self.sep();
            }
            let mut m = self.map_open();
            self.key(&mut m, "title");
            self.expr(&body.title);
            self.key(&mut m, "ops");
            self.attribute_ops(&body.ops);
            self.map_close();
        }
        self.out.push(']');
    }

    fn attribute_ops(&mut self, ops: &[AttributeOp]) {
        self.out.push('[');
        for (i, op) in ops.iter().enumerate() {
            if i > 0 {
                self.sep();
            }
            match op.op {
                AttributeOpKind::Splat => self.unary_call("splat-hash", &op.value),
                AttributeOpKind::Set | AttributeOpKind::Append => {
                    self.call_open(if op.op == AttributeOpKind::Set {
                        "=>"
                    } else {
                        "+>"
                    });
                    self.sep();
                    self.string(&op.name);
                    self.sep();
                    self.expr(&op.value);
                    self.call_close();
                }
            }
        }
        self.out.push(']');
    }

    // ---- the bindings extension (pbc's own PN nodes) -------------------------------------

    fn site(&mut self, site: &Site) {
        self.call_open("site");
        for item in &site.items {
            self.sep();
            match item {
                SiteItem::Statement { expr } => self.expr(expr),
                SiteItem::Categories { entries, .. } => {
                    let mut m = self.call_map_open("categories");
                    for c in entries {
                        self.key(&mut m, &c.name);
                        self.expr(&c.value);
                    }
                    self.call_map_close();
                }
                SiteItem::Layers { layers, .. } => {
                    self.call_open("layers");
                    for layer in layers {
                        self.sep();
                        let mut m = self.call_map_open("layer");
                        self.key(&mut m, "name");
                        self.expr(&layer.name);
                        self.key(&mut m, "ops");
                        self.attribute_ops(&layer.ops);
                        self.call_map_close();
                    }
                    self.call_close();
                }
                SiteItem::EnvironmentDefaults { ops, .. } => {
                    let mut m = self.call_map_open("environment-defaults");
                    self.key(&mut m, "ops");
                    self.attribute_ops(ops);
                    self.call_map_close();
                }
                SiteItem::Environment { bodies, .. } => {
                    let mut m = self.call_map_open("environment");
                    self.key(&mut m, "bodies");
                    self.resource_bodies(bodies);
                    self.call_map_close();
                }
                SiteItem::DynamicEnvironments { bodies, .. } => {
                    let mut m = self.call_map_open("dynamic-environments");
                    self.key(&mut m, "bodies");
                    self.resource_bodies(bodies);
                    self.call_map_close();
                }
            }
        }
        self.call_close();
    }

    fn bindings(&mut self, block: &BindingsBlock) {
        let mut m = self.call_map_open("bindings");
        self.key(&mut m, "name");
        self.string(&block.name);
        self.key(&mut m, "items");
        self.bind_items(&block.items);
        self.call_map_close();
    }

    fn bind_items(&mut self, items: &[BindItem]) {
        self.out.push('[');
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.sep();
            }
            match item {
                BindItem::When {
                    condition, items, ..
                } => {
                    let mut m = self.call_map_open("when");
                    self.key(&mut m, "condition");
                    self.out.push('[');
                    for (j, all) in condition.iter().enumerate() {
                        if j > 0 {
                            self.sep();
                        }
                        self.out.push('[');
                        for (k, p) in all.iter().enumerate() {
                            if k > 0 {
                                self.sep();
                            }
                            let mut pm = self.map_open();
                            self.key(&mut pm, "category");
                            self.string(&p.category);
                            if let Some(v) = &p.value {
                                self.key(&mut pm, "value");
                                self.expr(v);
                            }
                            self.map_close();
                        }
                        self.out.push(']');
                    }
                    self.out.push(']');
                    self.key(&mut m, "items");
                    self.bind_items(items);
                    self.call_map_close();
                }
                BindItem::Operation(op) => self.bind_operation(&op.kind),
                BindItem::Error { .. } => self.out.push_str(r#"{"^":["error"]}"#),
            }
        }
        self.out.push(']');
    }

    fn bind_operation(&mut self, kind: &BindOpKind) {
        match kind {
            BindOpKind::Bind {
                flags,
                key,
                producer,
                contributes_to,
                options,
            } => {
                let mut m = self.call_map_open("bind");
                self.flags(&mut m, flags);
                self.bind_key(&mut m, "key", key);
                self.producer(&mut m, producer.as_ref());
                if let Some(c) = contributes_to {
                    self.key(&mut m, "in");
                    self.expr(c);
                }
                self.options(&mut m, options);
                self.call_map_close();
            }
            BindOpKind::Multibind {
                flags,
                key,
                id,
                producer,
                options,
            } => {
                let mut m = self.call_map_open("multibind");
                self.flags(&mut m, flags);
                self.bind_key(&mut m, "key", key);
                if let Some(id) = id {
                    self.key(&mut m, "id");
                    self.expr(id);
                }
                self.producer(&mut m, producer.as_ref());
                self.options(&mut m, options);
                self.call_map_close();
            }
            BindOpKind::Map {
                flags,
                from,
                to,
                options,
            } => {
                let mut m = self.call_map_open("bind-map");
                self.flags(&mut m, flags);
                self.key(&mut m, "from");
                self.expr(from);
                self.key(&mut m, "to");
                self.expr(to);
                self.options(&mut m, options);
                self.call_map_close();
            }
            BindOpKind::Alias {
                flags,
                from,
                to,
                producer,
            }
            | BindOpKind::Renamed {
                flags,
                from,
                to,
                producer,
            } => {
                let name = if matches!(kind, BindOpKind::Alias { .. }) {
                    "bind-alias"
                } else {
                    "bind-renamed"
                };
                let mut m = self.call_map_open(name);
                self.flags(&mut m, flags);
                self.bind_key(&mut m, "from", from);
                self.bind_key(&mut m, "to", to);
                self.producer(&mut m, producer.as_deref());
                self.call_map_close();
            }
            BindOpKind::Rebind {
                flags,
                key,
                producer,
            } => {
                let mut m = self.call_map_open("rebind");
                self.flags(&mut m, flags);
                self.bind_key(&mut m, "key", key);
                self.producer(&mut m, producer.as_deref());
                self.call_map_close();
            }
            BindOpKind::Include { classes } => self.unary_call("include", classes),
            BindOpKind::Exclude { classes } => self.unary_call("exclude", classes),
            BindOpKind::Dependency {
                flags,
                from,
                arrow,
                to,
            } => {
                let mut m = self.call_map_open("bind-dependency");
                self.flags(&mut m, flags);
                self.key(&mut m, "from");
                self.expr(from);
                self.key(&mut m, "arrow");
                self.string(match arrow {
                    DependencyArrow::Before => "->",
                    DependencyArrow::Notify => "~>",
                });
                self.key(&mut m, "to");
                self.expr(to);
                self.call_map_close();
            }
        }
    }

    fn flags(&mut self, m: &mut MapState, flags: &BindFlags) {
        if flags.abstract_.is_some() {
            self.key(m, "abstract");
            self.out.push_str("true");
        }
        if flags.override_.is_some() {
            self.key(m, "override");
            self.out.push_str("true");
        }
    }

    fn bind_key(&mut self, m: &mut MapState, entry: &str, key: &BindKey) {
        if matches!(key, BindKey::Inferred) {
            return;
        }
        self.key(m, entry);
        let mut km = self.map_open();
        match key {
            BindKey::Inferred => {}
            BindKey::Name { name } => {
                self.key(&mut km, "name");
                self.expr(name);
            }
            BindKey::Type { type_expr } => {
                self.key(&mut km, "type");
                self.expr(type_expr);
            }
            BindKey::TypedName { type_expr, name } => {
                self.key(&mut km, "type");
                self.expr(type_expr);
                self.key(&mut km, "name");
                self.expr(name);
            }
            BindKey::Parameters { target } => {
                self.key(&mut km, "parameters");
                self.expr(target);
            }
            BindKey::Variables { type_expr } => {
                self.key(&mut km, "variables");
                match type_expr {
                    Some(t) => self.expr(t),
                    None => self.out.push_str("null"),
                }
            }
        }
        self.map_close();
    }

    fn producer(&mut self, m: &mut MapState, producer: Option<&Producer>) {
        let Some(p) = producer else { return };
        self.key(m, "to");
        let mut pm = self.map_open();
        if p.optional {
            self.key(&mut pm, "optional");
            self.out.push_str("true");
        }
        match &p.producer {
            ProducerKind::Value { expr } => {
                self.key(&mut pm, "value");
                self.expr(expr);
            }
            ProducerKind::Producer { expr } => {
                self.key(&mut pm, "producer");
                self.expr(expr);
            }
            ProducerKind::Hiera { level } => {
                self.key(&mut pm, "hiera");
                self.out.push_str(&level.to_string());
            }
        }
        self.map_close();
    }

    fn options(&mut self, m: &mut MapState, options: &[BindOption]) {
        if options.is_empty() {
            return;
        }
        self.key(m, "options");
        let mut om = self.map_open();
        for o in options {
            self.key(&mut om, &o.name);
            match &o.value {
                OptionValue::Expr { expr } => self.expr(expr),
                OptionValue::Lambda { lambda } => self.lambda(lambda),
            }
        }
        self.map_close();
    }
}

/// Whether a map's next entry needs a comma.
struct MapState {
    first: bool,
}

fn binary_name(op: BinaryOp) -> &'static str {
    op.text()
}

fn relationship_name(op: RelationshipOp) -> &'static str {
    match op {
        RelationshipOp::Before => "->",
        RelationshipOp::Notify => "~>",
        RelationshipOp::Require => "<-",
        RelationshipOp::Subscribe => "<~",
    }
}

/// JSON string escaping as Ruby's `json` writes it: short escapes for `\b \f \n \r \t`, `\u00xx`
/// for other control characters, everything else (DEL, `/`, non-ASCII) raw.
pub fn write_json_string<T: JsonText + ?Sized>(out: &mut T, s: &str) {
    out.reserve_text(s.len() + 2);
    out.push_text("\"");
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight bytes at a time while none of them needs an escape (most strings have none, and
        // this was two thirds of writing PN byte by byte); a short rest is padded to eight.
        let rest = &bytes[i..];
        let taken = rest.len().min(8);
        let mut word = [b'a'; 8];
        word[..taken].copy_from_slice(&rest[..taken]);
        if !any_byte_needs_escape(bytewise::word(word)) {
            i += taken;
            continue;
        }
        // Every byte that needs an escape is ASCII, so `start` and `i` are on characters.
        let b = bytes[i];
        let escape: Option<&str> = match b {
            b'"' => Some("\\\""),
            b'\\' => Some("\\\\"),
            b'\n' => Some("\\n"),
            b'\r' => Some("\\r"),
            b'\t' => Some("\\t"),
            0x08 => Some("\\b"),
            0x0c => Some("\\f"),
            0..=0x1f => None,
            _ => {
                i += 1;
                continue;
            }
        };
        out.push_text(&s[start..i]);
        match escape {
            Some(e) => out.push_text(e),
            None => out.push_text(&format!("\\u{b:04x}")),
        }
        i += 1;
        start = i;
    }
    out.push_text(&s[start..]);
    out.push_text("\"");
}

/// What JSON text is written to: PN's strings, or the bytes of a compact model
/// (`puppet_bindings::lower::model::compact`).
pub trait JsonText {
    fn push_text(&mut self, text: &str);
    fn reserve_text(&mut self, additional: usize);
}

impl JsonText for String {
    fn push_text(&mut self, text: &str) {
        self.push_str(text);
    }
    fn reserve_text(&mut self, additional: usize) {
        self.reserve(additional);
    }
}

impl JsonText for Vec<u8> {
    fn push_text(&mut self, text: &str) {
        self.extend_from_slice(text.as_bytes());
    }
    fn reserve_text(&mut self, additional: usize) {
        self.reserve(additional);
    }
}

/// Whether any of the eight bytes of `word` is a control character, `"` or `\`.
fn any_byte_needs_escape(word: u64) -> bool {
    let escaped =
        bytewise::below(word, 0x20) | bytewise::equal(word, b'"') | bytewise::equal(word, b'\\');
    escaped != 0
}

/// A float as Ruby's `Float#to_s` writes it: the shortest digits that read back the same value,
/// in fixed notation when `1e-4 <= |v| < 1e15` (always with a fraction), otherwise as
/// `d.ddde+XX` with at least two exponent digits.
pub fn write_ruby_float(out: &mut String, value: f64) {
    if value.is_nan() {
        out.push_str("NaN");
        return;
    }
    if value.is_infinite() {
        out.push_str(if value > 0.0 { "Infinity" } else { "-Infinity" });
        return;
    }
    if value.is_sign_negative() {
        out.push('-');
    }
    let v = value.abs();
    if v == 0.0 {
        out.push_str("0.0");
        return;
    }
    // Rust's `{:e}` gives the shortest round-trip digits: `d[.ddd]e[-]x`.
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    // Ruby's decimal point position: value = 0.DIGITS * 10^decpt.
    let decpt = exp + 1;
    if -4 < decpt && decpt <= 15 {
        if decpt <= 0 {
            out.push_str("0.");
            for _ in 0..(-decpt) {
                out.push('0');
            }
            out.push_str(&digits);
        } else {
            let point = decpt as usize;
            if digits.len() <= point {
                out.push_str(&digits);
                for _ in digits.len()..point {
                    out.push('0');
                }
                out.push_str(".0");
            } else {
                out.push_str(&digits[..point]);
                out.push('.');
                out.push_str(&digits[point..]);
            }
        }
    } else {
        out.push_str(&digits[..1]);
        out.push('.');
        if digits.len() > 1 {
            out.push_str(&digits[1..]);
        } else {
            out.push('0');
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
    }
}

/// The decimal digits of a number written in `radix` (2..=16), in arbitrary precision.
fn to_decimal(digits: &str, radix: u32) -> String {
    if radix == 10 {
        return if digits.is_empty() {
            "0".to_string()
        } else {
            digits.to_string()
        };
    }
    if let Ok(v) = u128::from_str_radix(digits, radix) {
        return v.to_string();
    }
    // Little-endian base-10^9 limbs, multiplied up digit by digit.
    const LIMB: u64 = 1_000_000_000;
    let mut limbs: Vec<u64> = vec![0];
    for c in digits.chars() {
        let d = u64::from(c.to_digit(radix).unwrap_or(0));
        let mut carry = d;
        for limb in limbs.iter_mut() {
            let v = *limb * u64::from(radix) + carry;
            *limb = v % LIMB;
            carry = v / LIMB;
        }
        while carry > 0 {
            limbs.push(carry % LIMB);
            carry /= LIMB;
        }
    }
    let mut s = String::new();
    for (i, limb) in limbs.iter().rev().enumerate() {
        if i == 0 {
            s.push_str(&limb.to_string());
        } else {
            s.push_str(&format!("{limb:09}"));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Written in chunks or made whole, the PN is the same bytes: empty, one statement, and
    /// enough statements to be written in several chunks.
    #[test]
    fn written_pn_is_the_made_pn() {
        let many: String = (0..5000)
            .map(|i| format!("file {{ '/tmp/f{i}': ensure => present, content => \"x${{i}}\" }}\n"))
            .collect();
        for src in ["", "$a = 1", "class a { }\nnotice('x')\n", many.as_str()] {
            let parsed = crate::parse_file(crate::span::FileId(0), src);
            let program = parsed.program.expect("parses");
            let mut written = Vec::new();
            write_program(&program, &mut written).expect("writes");
            assert_eq!(
                String::from_utf8(written).expect("UTF-8"),
                program_to_json(&program)
            );
        }
    }

    fn float(v: f64) -> String {
        let mut s = String::new();
        write_ruby_float(&mut s, v);
        s
    }

    #[test]
    fn floats_follow_ruby() {
        for (v, want) in [
            (1000.0, "1000.0"),
            (0.0001, "0.0001"),
            (999000000000000.0, "999000000000000.0"),
            (1e15, "1.0e+15"),
            (1.5e20, "1.5e+20"),
            (1e-5, "1.0e-05"),
            (5e-324, "5.0e-324"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (-2.5, "-2.5"),
            (0.1, "0.1"),
            (123.456, "123.456"),
            (1.25e-7, "1.25e-07"),
            (1234567890123456.7, "1.2345678901234568e+15"),
        ] {
            assert_eq!(float(v), want, "{v}");
        }
    }

    #[test]
    fn big_radix_integers_are_exact() {
        assert_eq!(to_decimal("1F", 16), "31");
        assert_eq!(to_decimal("17", 8), "15");
        assert_eq!(
            to_decimal("FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", 16),
            "87112285931760246646623899502532662132735"
        );
    }

    #[test]
    fn strings_escape_like_ruby() {
        let mut s = String::new();
        write_json_string(&mut s, "a\"b\\c\n\u{1}\u{7f}/é");
        assert_eq!(s, "\"a\\\"b\\\\c\\n\\u0001\u{7f}/é\"");
    }

    /// Escaping eight bytes at a time gives what escaping byte by byte gives, wherever in a
    /// word the byte to escape falls, next to multi-byte characters or not.
    #[test]
    fn strings_escape_alike_word_by_word() {
        fn byte_by_byte(s: &str) -> String {
            let mut out = String::from('"');
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    '\u{8}' => out.push_str("\\b"),
                    '\u{c}' => out.push_str("\\f"),
                    c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                    c => out.push(c),
                }
            }
            out.push('"');
            out
        }
        let specials = [
            '"', '\\', '\n', '\u{0}', '\u{1f}', '\u{8}', ' ', '\u{7f}', 'é', '€', '!', '#',
        ];
        for len in 0..20 {
            for at in 0..len.max(1) {
                for &special in &specials {
                    let text: String = (0..len)
                        .map(|i| {
                            if i == at {
                                special
                            } else {
                                (b'a' + (i % 26) as u8) as char
                            }
                        })
                        .collect();
                    let mut out = String::new();
                    write_json_string(&mut out, &text);
                    assert_eq!(out, byte_by_byte(&text), "{text:?}");
                }
            }
        }
        for byte in 0..=0x7fu8 {
            let text = format!("abcdefg{}hijklmnop{}", byte as char, byte as char);
            let mut out = String::new();
            write_json_string(&mut out, &text);
            assert_eq!(out, byte_by_byte(&text), "{text:?}");
        }
    }
}
