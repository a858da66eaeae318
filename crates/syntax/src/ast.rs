//! The abstract syntax tree of the Puppet language plus the bindings extension.
//!
//! Owns the shapes only: every node carries a [`Span`]; names are `SmolStr`; left-associative
//! operator chains (`1 + 2 - 3`, `a -> b ~> c`) are stored flat as one node with a list of
//! operands, so that a million-term chain is a flat vector and no pass recurses per operator.
//! It must not know how the tree was parsed or what it means: the parser builds it, the
//! validator judges it, lowering desugars it.
//!
//! `pbc parse --format json` serialises this tree as documented in `README.md`: every
//! expression is an object `{"kind": ..., <fields>, "span": [start, end]}` (byte offsets).

use crate::span::Span;
use serde::Serialize;
use smol_str::SmolStr;

/// Functions Puppet lets a statement call without parentheses (`include foo`, `notice a, b`).
pub const STATEMENT_CALLS: &[&str] = &[
    "require", "realize", "include", "contain", "tag", "debug", "info", "notice", "warning", "err",
    "fail", "import", "break", "next", "return",
];

pub fn is_statement_call(name: &str) -> bool {
    STATEMENT_CALLS.contains(&name)
}

/// One parsed file.
#[derive(Clone, Debug, Serialize)]
pub struct Program {
    pub body: Vec<Expr>,
    pub span: Span,
}

impl Program {
    /// What remains of a bindings file once it is judged and its block lowered (`pbc check`,
    /// `pbc compile` of a tree): its `bindings NAME { }` blocks without their items, for the
    /// layers that place files by their blocks' names, and any `site { }` it has (which
    /// declares for the whole tree, and is small). The rest of the tree is freed.
    pub fn into_outline(self) -> Program {
        let body = self
            .body
            .into_iter()
            .filter_map(|e| match e.kind {
                ExprKind::Bindings(mut block) => {
                    block.items = Vec::new();
                    Some(Expr {
                        kind: ExprKind::Bindings(block),
                        ..e
                    })
                }
                ExprKind::Site(_) => Some(e),
                _ => None,
            })
            .collect();
        Program {
            body,
            span: self.span,
        }
    }

    /// The file's `bindings NAME { }` blocks (a checked file has at most one).
    pub fn bindings_blocks(&self) -> impl Iterator<Item = &BindingsBlock> {
        self.body.iter().filter_map(|e| match &e.kind {
            ExprKind::Bindings(b) => Some(&**b),
            _ => None,
        })
    }
}

/// An expression (Puppet has no separate statements: everything is an expression).
#[derive(Clone, Debug, Serialize)]
pub struct Expr {
    #[serde(flatten)]
    pub kind: ExprKind,
    pub span: Span,
    /// Height of this subtree, counted while parsing to enforce the nesting limit.
    #[serde(skip)]
    pub depth: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BinaryOp {
    In,
    Match,
    NoMatch,
    Mul,
    Div,
    Mod,
    Add,
    Sub,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinaryOp {
    /// Binding strength, higher binds tighter (Puppet's racc table, reference 2.2).
    pub fn precedence(self) -> u8 {
        match self {
            BinaryOp::In => 10,
            BinaryOp::Match | BinaryOp::NoMatch => 9,
            BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => 8,
            BinaryOp::Add | BinaryOp::Sub => 7,
            BinaryOp::Shl | BinaryOp::Shr => 6,
            BinaryOp::Eq | BinaryOp::Ne => 5,
            BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge => 4,
            BinaryOp::And => 2,
            BinaryOp::Or => 1,
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            BinaryOp::In => "in",
            BinaryOp::Match => "=~",
            BinaryOp::NoMatch => "!~",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Mod => "%",
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Shl => "<<",
            BinaryOp::Shr => ">>",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => "and",
            BinaryOp::Or => "or",
        }
    }
}

/// The precedence of the selector `?` among the binary operators (between `<` and `and`).
pub const SELECTOR_PRECEDENCE: u8 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `!x`
    Not,
    /// `*x` (unfold)
    Splat,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum RelationshipOp {
    #[serde(rename = "->")]
    Before,
    #[serde(rename = "~>")]
    Notify,
    #[serde(rename = "<-")]
    Require,
    #[serde(rename = "<~")]
    Subscribe,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum AssignOp {
    #[serde(rename = "=")]
    Assign,
    #[serde(rename = "+=")]
    Append,
    #[serde(rename = "-=")]
    Delete,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceForm {
    Regular,
    Virtual,
    Exported,
}

impl ResourceForm {
    fn is_regular(&self) -> bool {
        *self == ResourceForm::Regular
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum AttributeOpKind {
    #[serde(rename = "=>")]
    Set,
    #[serde(rename = "+>")]
    Append,
    /// `* => hash`
    #[serde(rename = "* =>")]
    Splat,
}

/// `name => value`, `name +> value` or `* => value` in a resource body.
#[derive(Clone, Debug, Serialize)]
pub struct AttributeOp {
    pub name: SmolStr,
    pub op: AttributeOpKind,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct ResourceBody {
    pub title: Expr,
    pub ops: Vec<AttributeOp>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct HashEntry {
    pub key: Expr,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct SelectorEntry {
    pub matcher: Expr,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct CaseOption {
    pub values: Vec<Expr>,
    pub body: Vec<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct Parameter {
    pub name: SmolStr,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub type_expr: Option<Box<Expr>>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub splat: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Box<Expr>>,
    pub span: Span,
}

/// `class NAME(PARAMS) inherits PARENT { BODY }`
#[derive(Clone, Debug, Serialize)]
pub struct ClassDef {
    pub name: SmolStr,
    pub params: Vec<Parameter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<SmolStr>,
    pub body: Vec<Expr>,
}

/// `define NAME(PARAMS) { BODY }`
#[derive(Clone, Debug, Serialize)]
pub struct DefineDef {
    pub name: SmolStr,
    pub params: Vec<Parameter>,
    pub body: Vec<Expr>,
}

/// `node MATCHES inherits PARENT { BODY }`
#[derive(Clone, Debug, Serialize)]
pub struct NodeDef {
    pub matches: Vec<Expr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<Box<Expr>>,
    pub body: Vec<Expr>,
}

/// `function NAME(PARAMS) >> RETURN_TYPE { BODY }`
#[derive(Clone, Debug, Serialize)]
pub struct FunctionDef {
    pub name: SmolStr,
    pub params: Vec<Parameter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_type: Option<Box<Expr>>,
    pub body: Vec<Expr>,
}

/// `type NAME inherits PARENT { BODY }`
#[derive(Clone, Debug, Serialize)]
pub struct TypeDefinitionDef {
    pub name: SmolStr,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<SmolStr>,
    pub body: Vec<Expr>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Lambda {
    pub params: Vec<Parameter>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub return_type: Option<Box<Expr>>,
    pub body: Vec<Expr>,
    pub span: Span,
    /// [`Lambda::param_read_once`] as bits, worked out on first use (a lambda may be called a
    /// hundred thousand times).
    #[serde(skip)]
    pub read_once: std::sync::OnceLock<u64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CollectQuery {
    pub exported: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expr: Option<Box<Expr>>,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ExprKind {
    Nop,
    /// A statement list; also Puppet's "untitled resource" `file { a => 1 }`, which Puppet turns
    /// into the two statements `file` and `{ 'a' => 1 }`.
    Block {
        statements: Vec<Expr>,
    },
    /// A string without interpolation (quoted, a bare word, or heredoc text).
    String {
        value: SmolStr,
    },
    /// An interpolated string: literal segments are `string`, interpolations are `text`.
    Concat {
        segments: Vec<Expr>,
    },
    /// One interpolated part of a string (`$x`, `${expr}`).
    Text {
        expr: Box<Expr>,
    },
    Heredoc {
        syntax: SmolStr,
        text: Box<Expr>,
    },
    Integer {
        text: SmolStr,
        radix: u32,
    },
    Float {
        text: SmolStr,
        value: f64,
    },
    Boolean {
        value: bool,
    },
    Undef,
    Default,
    Regex {
        source: SmolStr,
    },
    /// A bare lower-case name: `foo::bar`.
    QualifiedName {
        name: SmolStr,
    },
    /// A capitalised type reference: `Foo::Bar`.
    QualifiedReference {
        name: SmolStr,
    },
    /// `private`, `attr`.
    ReservedWord {
        word: SmolStr,
    },
    /// `$name` (without `$`); `${true}` gives the boolean name Puppet keeps.
    Variable {
        name: SmolStr,
    },
    BooleanVariable {
        value: bool,
    },
    Array {
        elements: Vec<Expr>,
    },
    Hash {
        entries: Vec<HashEntry>,
    },
    /// A left-associative chain of operators of one precedence level or tighter, stored flat:
    /// `operands[0] ops[0] operands[1] ops[1] ...`. Operands are never chains of the same level.
    Binary {
        operands: Vec<Expr>,
        operators: Box<[BinaryOp]>,
    },
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Paren {
        expr: Box<Expr>,
    },
    Access {
        target: Box<Expr>,
        keys: Vec<Expr>,
    },
    Selector {
        subject: Box<Expr>,
        entries: Vec<SelectorEntry>,
    },
    Assignment {
        op: AssignOp,
        target: Box<Expr>,
        value: Box<Expr>,
    },
    /// `a -> b ~> c`, flat and left-associative.
    Relationship {
        operands: Vec<Expr>,
        operators: Box<[RelationshipOp]>,
    },
    /// `f(x)`, `f x` (statement calls), `Integer("1")`. `statement` is true for a call at
    /// statement level, whose value is not used (Puppet's `invoke`).
    Call {
        functor: Box<Expr>,
        args: Vec<Expr>,
        #[serde(skip_serializing_if = "Option::is_none")]
        lambda: Option<Box<Lambda>>,
        statement: bool,
    },
    /// `x.f`, `x.f(args)`, with an optional lambda.
    /// Boxed: the largest variant decides the size of every expression node and of every
    /// symbol the parser moves.
    MethodCall(Box<MethodCall>),
    If {
        test: Box<Expr>,
        then_body: Box<[Expr]>,
        else_body: Box<[Expr]>,
    },
    Unless {
        test: Box<Expr>,
        then_body: Box<[Expr]>,
        else_body: Box<[Expr]>,
    },
    Case {
        test: Box<Expr>,
        options: Vec<CaseOption>,
    },
    Resource {
        #[serde(skip_serializing_if = "ResourceForm::is_regular")]
        form: ResourceForm,
        type_expr: Box<Expr>,
        bodies: Vec<ResourceBody>,
    },
    ResourceDefaults {
        #[serde(skip_serializing_if = "ResourceForm::is_regular")]
        form: ResourceForm,
        type_expr: Box<Expr>,
        ops: Vec<AttributeOp>,
    },
    ResourceOverride {
        #[serde(skip_serializing_if = "ResourceForm::is_regular")]
        form: ResourceForm,
        resources: Box<Expr>,
        ops: Vec<AttributeOp>,
    },
    Collect {
        type_expr: Box<Expr>,
        query: Box<CollectQuery>,
        ops: Vec<AttributeOp>,
    },
    // Definitions are boxed: they are rare, and inline they would make every expression (and
    // every LR stack symbol the parser moves) larger.
    Class(Box<ClassDef>),
    Define(Box<DefineDef>),
    Node(Box<NodeDef>),
    Function(Box<FunctionDef>),
    TypeAlias {
        name: SmolStr,
        type_expr: Box<Expr>,
    },
    /// `type Runtime[...] = ...`
    TypeMapping {
        mapping: Box<Expr>,
        target: Box<Expr>,
    },
    TypeDefinition(Box<TypeDefinitionDef>),
    // ---- the bindings extension ----
    /// `site { ... }`
    Site(Box<Site>),
    /// `bindings NAME { ... }`
    Bindings(Box<BindingsBlock>),
    /// `class ntp` inside bindings: a reference to a class as a type.
    ClassType {
        name: SmolStr,
    },
    /// `?? expr` inside bindings: a query (only as an access key, `Sql[?? name == one]`).
    Query {
        expr: Box<Expr>,
    },
    /// `categories { ... }` (only inside `site`; the parser moves it into [`SiteItem`]).
    Categories {
        entries: Vec<AttributeOp>,
    },
    /// `bindings => [...]` (only inside `site`; moved into [`SiteItem`]).
    Layers {
        layers: Box<Expr>,
    },
    /// `layer { 'name': include => ..., exclude => ... }`
    Layer {
        name: Box<Expr>,
        ops: Vec<AttributeOp>,
    },
    /// Stands where a syntax error was recovered from or a limit was hit. Never reaches a later
    /// stage: files with errors stop after parsing.
    Error,
}

// ---------------------------------------------------------------------------------------------
// Bindings extension
// ---------------------------------------------------------------------------------------------

/// `site { ... }`: environments, categories, layers and ordinary statements.
#[derive(Clone, Debug, Serialize)]
pub struct Site {
    pub items: Vec<SiteItem>,
    /// Same as the enclosing expression's span (not serialised twice).
    #[serde(skip)]
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SiteItem {
    /// `categories { node => "$::fqdn", virtual => "$::is_virtual" }`
    Categories { entries: Vec<Category>, span: Span },
    /// `bindings => [ layer { ... }, ... ]`
    Layers { layers: Vec<Layer>, span: Span },
    /// `Environment { modulepath => ... }`: defaults for every environment.
    EnvironmentDefaults { ops: Vec<AttributeOp>, span: Span },
    /// `environment { 'production': ... }`
    Environment {
        bodies: Vec<ResourceBody>,
        span: Span,
    },
    /// `dynamic_environments { '/etc/puppet/environments': ... }`
    DynamicEnvironments {
        bodies: Vec<ResourceBody>,
        span: Span,
    },
    /// Any other Puppet statement.
    Statement { expr: Expr },
}

#[derive(Clone, Debug, Serialize)]
pub struct Category {
    pub name: SmolStr,
    pub value: Expr,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
pub struct Layer {
    pub name: Expr,
    pub ops: Vec<AttributeOp>,
    pub span: Span,
}

/// `bindings NAME { ... }`
#[derive(Clone, Debug, Serialize)]
pub struct BindingsBlock {
    pub name: SmolStr,
    pub name_span: Span,
    pub items: Vec<BindItem>,
    /// Same as the enclosing expression's span (not serialised twice).
    #[serde(skip)]
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BindItem {
    /// `when CATEGORY VALUE [and ...] [or ...] { ... }`: `condition` is a disjunction of
    /// conjunctions.
    When {
        condition: Vec<Vec<Predicate>>,
        items: Vec<BindItem>,
        span: Span,
        /// Only in the blocks pbc makes of data files (ARM-9): the file applies to a request
        /// only when its hierarchy path names it for that request.
        #[serde(skip_serializing_if = "Option::is_none")]
        path: Option<Box<DataPath>>,
    },
    Operation(Box<BindOperation>),
    /// Where a syntax error was recovered from.
    Error {
        span: Span,
    },
}

/// When a data file's keys apply (D20): a hierarchy path, interpolated for the request as
/// Puppet 3.4's provider did, names this file (file names compared with case), and no earlier
/// file of the same hierarchy level that binds the same keys is named too (the first file
/// found wins per key).
#[derive(Clone, Debug, Serialize)]
pub struct DataPath {
    pub this: PathTest,
    pub unless: Vec<PathTest>,
}

/// `template` (the hierarchy path `path` as a double-quoted Puppet string:
/// `osfamily/${osfamily}`) gives `file` (the data file's path below its data directory, without
/// extension: `osfamily/Darwin`).
#[derive(Clone, Debug, Serialize)]
pub struct PathTest {
    pub path: SmolStr,
    pub template: Expr,
    pub file: SmolStr,
}

/// `receiver.method(args) |lambda|`.
#[derive(Clone, Debug, Serialize)]
pub struct MethodCall {
    pub receiver: Expr,
    pub method: SmolStr,
    pub args: Vec<Expr>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lambda: Option<Box<Lambda>>,
}

/// `CATEGORY [VALUE]` in a `when`.
#[derive(Clone, Debug, Serialize)]
pub struct Predicate {
    pub category: SmolStr,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<Expr>,
    pub span: Span,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct BindFlags {
    #[serde(rename = "abstract", skip_serializing_if = "Option::is_none")]
    pub abstract_: Option<Span>,
    #[serde(rename = "override", skip_serializing_if = "Option::is_none")]
    pub override_: Option<Span>,
}

/// What a binding binds.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum BindKey {
    /// Nothing written: the type is inferred from the producer (`bind to 'Mary' in 'x'`).
    Inferred,
    /// `"name"`
    Name { name: Expr },
    /// `Type` alone (an anonymous binding).
    Type { type_expr: Expr },
    /// `Type, "name"`
    TypedName { type_expr: Box<Expr>, name: Expr },
    /// `parameters TARGET`
    Parameters { target: Expr },
    /// `variables [TYPE]`
    Variables {
        #[serde(skip_serializing_if = "Option::is_none")]
        type_expr: Option<Expr>,
    },
}

impl BindKey {
    /// The type written in the key (`Type`, `Type, "name"`, `variables Type`), if any.
    pub fn type_expr(&self) -> Option<&Expr> {
        match self {
            BindKey::Type { type_expr } => Some(type_expr),
            BindKey::TypedName { type_expr, .. } => Some(type_expr),
            BindKey::Variables { type_expr } => type_expr.as_ref(),
            BindKey::Inferred | BindKey::Name { .. } | BindKey::Parameters { .. } => None,
        }
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ProducerKind {
    /// `to EXPR`: a value, or a type to instantiate.
    Value { expr: Expr },
    /// `to producer TYPE` / `to producer 'name'`
    Producer { expr: Expr },
    /// Not written by users: a key of Hiera 5 data, answered by Hiera across its levels (D24);
    /// `level` indexes the tree's Hiera levels (the loader makes these).
    Hiera { level: usize },
}

#[derive(Clone, Debug, Serialize)]
pub struct Producer {
    pub optional: bool,
    pub producer: ProducerKind,
    pub span: Span,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OptionValue {
    Expr { expr: Expr },
    Lambda { lambda: Lambda },
}

/// `name => value` in the `{ ... }` after a bind operation.
#[derive(Clone, Debug, Serialize)]
pub struct BindOption {
    pub name: SmolStr,
    pub name_span: Span,
    pub value: OptionValue,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum DependencyArrow {
    #[serde(rename = "->")]
    Before,
    #[serde(rename = "~>")]
    Notify,
}

#[derive(Clone, Debug, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum BindOpKind {
    /// `bind [abstract] [override] KEY [to [optional] PRODUCER] [in 'id'] [{ options }]`
    Bind {
        flags: BindFlags,
        key: BindKey,
        #[serde(skip_serializing_if = "Option::is_none")]
        producer: Option<Producer>,
        #[serde(skip_serializing_if = "Option::is_none")]
        contributes_to: Option<Box<Expr>>,
        options: Vec<BindOption>,
    },
    /// `multibind KEY [as 'id'] [to PRODUCER] [{ options }]`
    Multibind {
        flags: BindFlags,
        key: BindKey,
        #[serde(skip_serializing_if = "Option::is_none")]
        id: Option<Box<Expr>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        producer: Option<Producer>,
        options: Vec<BindOption>,
    },
    /// `bind map T1 to T2 { a => b }`
    Map {
        flags: BindFlags,
        from: Expr,
        to: Expr,
        options: Vec<BindOption>,
    },
    /// `bind alias KEY as KEY` (`producer`: a mistake the validator reports)
    Alias {
        flags: BindFlags,
        from: BindKey,
        to: BindKey,
        #[serde(skip_serializing_if = "Option::is_none")]
        producer: Option<Box<Producer>>,
    },
    /// `bind renamed KEY as KEY` (`producer`: a mistake the validator reports)
    Renamed {
        flags: BindFlags,
        from: BindKey,
        to: BindKey,
        #[serde(skip_serializing_if = "Option::is_none")]
        producer: Option<Box<Producer>>,
    },
    /// `rebind KEY` (`producer`: a mistake the validator reports)
    Rebind {
        flags: BindFlags,
        key: BindKey,
        #[serde(skip_serializing_if = "Option::is_none")]
        producer: Option<Box<Producer>>,
    },
    /// `include NAME` / `include [NAMES]`
    Include { classes: Expr },
    /// `exclude NAME` / `exclude [NAMES]`
    Exclude { classes: Expr },
    /// `bind dependency A -> B`
    Dependency {
        flags: BindFlags,
        from: Expr,
        arrow: DependencyArrow,
        to: Expr,
    },
}

#[derive(Clone, Debug, Serialize)]
pub struct BindOperation {
    #[serde(flatten)]
    pub kind: BindOpKind,
    pub span: Span,
}

// ---------------------------------------------------------------------------------------------
// Traversal
// ---------------------------------------------------------------------------------------------

impl Lambda {
    /// For each parameter, whether the body reads it at most once per call: one `$name` in
    /// the body, outside any nested lambda (which could run it many times), and no `defined()`
    /// that could read it by name. The evaluator may then hand the parameter's value over at
    /// that read instead of copying it, which makes `$memo << $x` in a `reduce` linear.
    /// Parameters after the 64th are never read once.
    pub fn param_read_once(&self, index: usize) -> bool {
        let bits = *self.read_once.get_or_init(|| {
            let mut reads = vec![0u32; self.params.len()];
            let mut by_name = false;
            // (expression, inside a nested lambda); an explicit stack, as for `Expr::walk`.
            let mut stack: Vec<(&Expr, bool)> =
                self.body.iter().rev().map(|e| (e, false)).collect();
            let mut children: Vec<&Expr> = Vec::new();
            while let Some((e, nested)) = stack.pop() {
                let mut lambda: Option<&Lambda> = None;
                match &e.kind {
                    ExprKind::Variable { name } => {
                        if let Some(i) = self.params.iter().position(|p| p.name == *name) {
                            // A read in a nested lambda may happen any number of times.
                            reads[i] = reads[i].saturating_add(if nested { 2 } else { 1 });
                        }
                    }
                    ExprKind::Call {
                        functor,
                        args,
                        lambda: l,
                        ..
                    } => {
                        by_name |= matches!(&functor.kind,
                            ExprKind::QualifiedName { name } if name == "defined");
                        children.push(functor);
                        children.extend(args);
                        lambda = l.as_deref();
                    }
                    ExprKind::MethodCall(call) => {
                        let MethodCall {
                            receiver,
                            method,
                            args,
                            lambda: l,
                        } = &**call;
                        by_name |= method == "defined";
                        children.push(receiver);
                        children.extend(args);
                        lambda = l.as_deref();
                    }
                    _ => e.for_each_child(&mut |c| children.push(c)),
                }
                if let Some(l) = lambda {
                    let mut inner: Vec<&Expr> = Vec::new();
                    l.for_each_expr(&mut |c| inner.push(c));
                    stack.extend(inner.into_iter().rev().map(|c| (c, true)));
                }
                stack.extend(children.drain(..).rev().map(|c| (c, nested)));
            }
            if by_name {
                return 0;
            }
            (reads.iter().take(64).enumerate())
                .filter(|(_, &n)| n == 1)
                .fold(0u64, |bits, (i, _)| bits | 1 << i)
        });
        index < 64 && bits & (1 << index) != 0
    }

    fn for_each_expr<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        params_exprs(&self.params, f);
        if let Some(t) = &self.return_type {
            f(t);
        }
        self.body.iter().for_each(f);
    }
}

fn params_exprs<'a>(params: &'a [Parameter], f: &mut dyn FnMut(&'a Expr)) {
    for p in params {
        if let Some(t) = &p.type_expr {
            f(t);
        }
        if let Some(d) = &p.default {
            f(d);
        }
    }
}

fn ops_exprs<'a>(ops: &'a [AttributeOp], f: &mut dyn FnMut(&'a Expr)) {
    ops.iter().for_each(|op| f(&op.value));
}

impl BindKey {
    /// The expressions written in the key, in source order.
    pub fn for_each_expr<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        match self {
            BindKey::Inferred => {}
            BindKey::Name { name } => f(name),
            BindKey::Type { type_expr } => f(type_expr),
            BindKey::TypedName { type_expr, name } => {
                f(type_expr);
                f(name);
            }
            BindKey::Parameters { target } => f(target),
            BindKey::Variables { type_expr } => {
                if let Some(t) = type_expr {
                    f(t);
                }
            }
        }
    }
}

impl BindOption {
    pub fn for_each_expr<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        match &self.value {
            OptionValue::Expr { expr } => f(expr),
            OptionValue::Lambda { lambda } => lambda.for_each_expr(f),
        }
    }
}

impl BindOperation {
    /// Every expression of the operation (key, producer, target id, options), in source order.
    pub fn for_each_expr<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        let producer = |p: Option<&'a Producer>, f: &mut dyn FnMut(&'a Expr)| {
            if let Some(p) = p {
                match &p.producer {
                    ProducerKind::Value { expr } | ProducerKind::Producer { expr } => f(expr),
                    ProducerKind::Hiera { .. } => {}
                }
            }
        };
        match &self.kind {
            BindOpKind::Bind {
                key,
                producer: p,
                contributes_to,
                options,
                ..
            } => {
                key.for_each_expr(f);
                producer(p.as_ref(), f);
                if let Some(c) = contributes_to {
                    f(c);
                }
                options.iter().for_each(|o| o.for_each_expr(f));
            }
            BindOpKind::Multibind {
                key,
                id,
                producer: p,
                options,
                ..
            } => {
                key.for_each_expr(f);
                if let Some(i) = id {
                    f(i);
                }
                producer(p.as_ref(), f);
                options.iter().for_each(|o| o.for_each_expr(f));
            }
            BindOpKind::Map {
                from, to, options, ..
            } => {
                f(from);
                f(to);
                options.iter().for_each(|o| o.for_each_expr(f));
            }
            BindOpKind::Alias {
                from,
                to,
                producer: p,
                ..
            }
            | BindOpKind::Renamed {
                from,
                to,
                producer: p,
                ..
            } => {
                from.for_each_expr(f);
                to.for_each_expr(f);
                producer(p.as_deref(), f);
            }
            BindOpKind::Rebind {
                key, producer: p, ..
            } => {
                key.for_each_expr(f);
                producer(p.as_deref(), f);
            }
            BindOpKind::Include { classes } | BindOpKind::Exclude { classes } => f(classes),
            BindOpKind::Dependency { from, to, .. } => {
                f(from);
                f(to);
            }
        }
    }
}

impl BindItem {
    pub fn for_each_expr<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        match self {
            BindItem::When {
                condition,
                items,
                path,
                ..
            } => {
                for p in condition.iter().flatten() {
                    if let Some(v) = &p.value {
                        f(v);
                    }
                }
                if let Some(path) = path {
                    f(&path.this.template);
                    path.unless.iter().for_each(|t| f(&t.template));
                }
                items.iter().for_each(|i| i.for_each_expr(f));
            }
            BindItem::Operation(op) => op.for_each_expr(f),
            BindItem::Error { .. } => {}
        }
    }
}

impl Expr {
    /// A literal string's or bare word's text (`'production'` and `production` name the same).
    pub fn literal_text(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::String { value } | ExprKind::QualifiedName { name: value } => Some(value),
            _ => None,
        }
    }

    /// Whether `self` or any expression inside it is a `?? query`.
    pub fn contains_query(&self) -> bool {
        let mut found = false;
        self.walk(|x| {
            found |= matches!(x.kind, ExprKind::Query { .. });
            !found
        });
        found
    }

    /// Calls `f` on each direct child expression, in source order: every sub-expression,
    /// including lambda and definition bodies, parameter defaults, and the expressions inside
    /// site and bindings blocks.
    pub fn for_each_child<'a>(&'a self, f: &mut dyn FnMut(&'a Expr)) {
        match &self.kind {
            ExprKind::Block { statements } => statements.iter().for_each(f),
            ExprKind::Concat { segments } => segments.iter().for_each(f),
            ExprKind::Array { elements } => elements.iter().for_each(f),
            ExprKind::Hash { entries } => {
                for en in entries {
                    f(&en.key);
                    f(&en.value);
                }
            }
            ExprKind::Binary { operands, .. } | ExprKind::Relationship { operands, .. } => {
                operands.iter().for_each(f)
            }
            ExprKind::Text { expr }
            | ExprKind::Unary { operand: expr, .. }
            | ExprKind::Paren { expr }
            | ExprKind::Query { expr } => f(expr),
            ExprKind::Heredoc { text, .. } => f(text),
            ExprKind::Access { target, keys } => {
                f(target);
                keys.iter().for_each(f);
            }
            ExprKind::Selector { subject, entries } => {
                f(subject);
                for en in entries {
                    f(&en.matcher);
                    f(&en.value);
                }
            }
            ExprKind::Assignment { target, value, .. } => {
                f(target);
                f(value);
            }
            ExprKind::Call {
                functor,
                args,
                lambda,
                ..
            } => {
                f(functor);
                args.iter().for_each(&mut *f);
                if let Some(l) = lambda {
                    l.for_each_expr(f);
                }
            }
            ExprKind::MethodCall(call) => {
                let MethodCall {
                    receiver,
                    args,
                    lambda,
                    ..
                } = &**call;
                f(receiver);
                args.iter().for_each(&mut *f);
                if let Some(l) = lambda {
                    l.for_each_expr(f);
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
                f(test);
                then_body.iter().for_each(&mut *f);
                else_body.iter().for_each(f);
            }
            ExprKind::Case { test, options } => {
                f(test);
                for o in options {
                    o.values.iter().for_each(&mut *f);
                    o.body.iter().for_each(&mut *f);
                }
            }
            ExprKind::Resource {
                type_expr, bodies, ..
            } => {
                f(type_expr);
                for b in bodies {
                    f(&b.title);
                    ops_exprs(&b.ops, f);
                }
            }
            ExprKind::ResourceDefaults { type_expr, ops, .. } => {
                f(type_expr);
                ops_exprs(ops, f);
            }
            ExprKind::ResourceOverride { resources, ops, .. } => {
                f(resources);
                ops_exprs(ops, f);
            }
            ExprKind::Collect {
                type_expr,
                query,
                ops,
            } => {
                f(type_expr);
                if let Some(q) = &query.expr {
                    f(q);
                }
                ops_exprs(ops, f);
            }
            ExprKind::Class(def) => {
                params_exprs(&def.params, f);
                def.body.iter().for_each(f);
            }
            ExprKind::Define(def) => {
                params_exprs(&def.params, f);
                def.body.iter().for_each(f);
            }
            ExprKind::Function(def) => {
                params_exprs(&def.params, f);
                if let Some(t) = &def.return_type {
                    f(t);
                }
                def.body.iter().for_each(f);
            }
            ExprKind::Node(def) => {
                def.matches.iter().for_each(&mut *f);
                if let Some(p) = &def.parent {
                    f(p);
                }
                def.body.iter().for_each(f);
            }
            ExprKind::TypeAlias { type_expr, .. } => f(type_expr),
            ExprKind::TypeMapping { mapping, target } => {
                f(mapping);
                f(target);
            }
            ExprKind::TypeDefinition(def) => def.body.iter().for_each(f),
            ExprKind::Site(site) => {
                for item in &site.items {
                    match item {
                        SiteItem::Categories { entries, .. } => {
                            entries.iter().for_each(|c| f(&c.value))
                        }
                        SiteItem::Layers { layers, .. } => {
                            for l in layers {
                                f(&l.name);
                                ops_exprs(&l.ops, f);
                            }
                        }
                        SiteItem::EnvironmentDefaults { ops, .. } => ops_exprs(ops, f),
                        SiteItem::Environment { bodies, .. }
                        | SiteItem::DynamicEnvironments { bodies, .. } => {
                            for b in bodies {
                                f(&b.title);
                                ops_exprs(&b.ops, f);
                            }
                        }
                        SiteItem::Statement { expr } => f(expr),
                    }
                }
            }
            ExprKind::Bindings(block) => block.items.iter().for_each(|i| i.for_each_expr(f)),
            ExprKind::Layers { layers } => f(layers),
            ExprKind::Layer { name, ops } => {
                f(name);
                ops_exprs(ops, f);
            }
            ExprKind::Categories { entries } => ops_exprs(entries, f),
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
            | ExprKind::ClassType { .. }
            | ExprKind::Error => {}
        }
    }

    /// Visits `self` and every expression below it, parents before children and in source
    /// order. `f` returns whether to look inside the node it was given. Uses an explicit stack,
    /// so arbitrarily long chains cannot overflow the call stack.
    pub fn walk<'a>(&'a self, mut f: impl FnMut(&'a Expr) -> bool) {
        // The first child is visited next without passing through the stack, so a walk over
        // a chain of single children (most values: a string, a number, `-1`) stacks nothing.
        let mut stack = WalkStack::default();
        let mut next = Some(self);
        while let Some(e) = next.take().or_else(|| stack.pop()) {
            if f(e) {
                let siblings = stack.len();
                e.for_each_child(&mut |c| match next {
                    None => next = Some(c),
                    Some(_) => stack.push(c),
                });
                stack.reverse_from(siblings);
            }
        }
    }
}

/// The expressions a walk has still to visit: in place while they are few, as most walks'
/// are (a bound array or hash), so that a walk allocates nothing; on the heap, all of them,
/// once there are more.
struct WalkStack<'a> {
    few: [Option<&'a Expr>; WalkStack::FEW],
    len: usize,
    many: Vec<&'a Expr>,
}

impl Default for WalkStack<'_> {
    fn default() -> Self {
        WalkStack {
            few: [None; WalkStack::FEW],
            len: 0,
            many: Vec::new(),
        }
    }
}

impl<'a> WalkStack<'a> {
    const FEW: usize = 16;

    fn len(&self) -> usize {
        if self.many.is_empty() {
            self.len
        } else {
            self.many.len()
        }
    }

    fn push(&mut self, e: &'a Expr) {
        if !self.many.is_empty() {
            self.many.push(e);
        } else if self.len < Self::FEW {
            self.few[self.len] = Some(e);
            self.len += 1;
        } else {
            let waiting = &mut self.few[..self.len];
            self.many.reserve(2 * Self::FEW);
            self.many
                .extend(waiting.iter_mut().filter_map(Option::take));
            self.many.push(e);
            self.len = 0;
        }
    }

    fn pop(&mut self) -> Option<&'a Expr> {
        if !self.many.is_empty() {
            return self.many.pop();
        }
        self.len = self.len.checked_sub(1)?;
        self.few[self.len].take()
    }

    /// Puts the entries from `start` on in the opposite order.
    fn reverse_from(&mut self, start: usize) {
        if self.many.is_empty() {
            self.few[start.min(self.len)..self.len].reverse();
        } else {
            let end = self.many.len();
            self.many[start.min(end)..].reverse();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The same visit written recursively: `walk` must match it node for node.
    fn preorder<'a>(e: &'a Expr, look_inside: &dyn Fn(&Expr) -> bool, out: &mut Vec<&'a Expr>) {
        out.push(e);
        if look_inside(e) {
            e.for_each_child(&mut |c| preorder(c, look_inside, out));
        }
    }

    #[test]
    fn walk_visits_parents_first_in_source_order() {
        // The last statements have more siblings waiting than the walk keeps in place, then
        // few again, then more: the stack moves to the heap and back.
        let many = (0..40)
            .map(|i| format!("[{i}, [{i}]]"))
            .collect::<Vec<_>>()
            .join(", ");
        let src = format!(
            "$x = [1, [2, -3], {{ 'a' => f(4, 5) }}, \"${{y}}z\"] + g(6)[7]\n\
             $z = $x ? {{ 1 => 2, default => [3] }}\n\
             $m = f({many}, [1, 2, 3], {{ 'k' => [{many}] }}, 4)\n"
        );
        let src = src.as_str();
        let parsed = crate::parser::parse_file(crate::span::FileId(0), src);
        let program = parsed.program.expect("the sample parses");
        let everywhere = |_: &Expr| true;
        let not_in_arrays = |e: &Expr| !matches!(e.kind, ExprKind::Array { .. });
        let choices: [&dyn Fn(&Expr) -> bool; 2] = [&everywhere, &not_in_arrays];
        for look_inside in choices {
            for statement in &program.body {
                let mut expected = Vec::new();
                preorder(statement, look_inside, &mut expected);
                let mut walked = Vec::new();
                statement.walk(|e| {
                    walked.push(e);
                    look_inside(e)
                });
                let spans = |v: &[&Expr]| v.iter().map(|e| e.span).collect::<Vec<_>>();
                assert!(expected.len() > 5);
                assert_eq!(spans(&walked), spans(&expected));
            }
        }
    }
}
