//! ARM-8's rules for `bindings NAME { }` blocks: the block's name and place, bind operations
//! (abstract, override, producers, multibinds, parameters, variables, dependencies, queries),
//! their options, and the types they declare. Facts that only the whole tree can judge
//! (multibinds and their contributions, `when` categories) are recorded for `tree`.

use super::{Contribution, MultibindDecl, TreeFacts};
use crate::ast::{
    BindFlags, BindItem, BindKey, BindOpKind, BindOperation, BindOption, BindingsBlock, Expr,
    ExprKind, OptionValue, Producer, ProducerKind, Program,
};
use crate::diag::{backticked, codes, did_you_mean, Diagnostic};
use crate::lower::model::{MAX_ALTERNATIVES, MAX_TYPE_NESTING, MAX_WHEN_NESTING};
use crate::span::Span;
use crate::tree::FileRole;
use crate::types::{PType, TypeError, RESERVED_TYPE_NAMES};
use smol_str::SmolStr;

/// Every option pbc knows (ARM-8's summary table and D14).
pub const OPTIONS: &[&str] = &[
    "combinator",
    "conflict_resolution",
    "flatten",
    "uniq",
    "priority_on_named",
    "priority_on_unnamed",
    "transformer",
    "producer_args",
    "singleton",
    "map",
    "select_result",
];

/// The values of `conflict_resolution` (D14).
pub const CONFLICT_RESOLUTIONS: &[&str] = &["priority", "ignore", "error", "append", "merge"];

pub(super) fn check_file(
    role: &FileRole,
    program: &Program,
    facts: &mut TreeFacts,
    out: &mut Vec<Diagnostic>,
) {
    let mut first: Option<Span> = None;
    for e in &program.body {
        let ExprKind::Bindings(block) = &e.kind else {
            continue;
        };
        match first {
            Some(f) => out.push(
                Diagnostic::error(
                    codes::MULTIPLE_BINDINGS_IN_FILE,
                    block.name_span,
                    format!("a second `bindings` block (`{}`) in one file", block.name),
                )
                .with_label(f, "the file's bindings block")
                .with_note("help: move it to its own file; its name follows from the file's path"),
            ),
            None => first = Some(block.name_span),
        }
        if let FileRole::Bindings { expected_name, .. } = role {
            let written = block.name.trim_start_matches("::");
            if written != expected_name {
                out.push(
                    Diagnostic::error(
                        codes::BINDINGS_NAME_MISMATCH,
                        block.name_span,
                        format!(
                            "this file's path requires `bindings {expected_name}`, but the file declares `bindings {}`",
                            block.name
                        ),
                    )
                    .with_note(format!(
                        "help: rename the block to `{expected_name}`, or move the file to where `{written}` belongs"
                    )),
                );
            }
        }
        let mut checker = BlockChecker {
            facts: &mut *facts,
            out: &mut *out,
            block,
        };
        checker.items(&block.items, 0, 1);
    }
}

struct BlockChecker<'a> {
    facts: &'a mut TreeFacts,
    out: &'a mut Vec<Diagnostic>,
    block: &'a BindingsBlock,
}

/// What one list of items (a block body or a `when` body) has bound so far.
#[derive(Default)]
struct Scope {
    /// `bind parameters TARGET to R[...]`: (target text, producer type name, span).
    parameter_producers: Vec<(String, String, Span)>,
    /// Concrete and abstract variable bindings, kept apart: an abstract declaration beside a
    /// concrete value is composition (the concrete one wins, D13), not a duplicate.
    variables: Vec<(String, Span)>,
    abstract_variables: Vec<(String, Span)>,
}

impl BlockChecker<'_> {
    /// `when_depth`: how many `when` blocks enclose `items`; `copies`: how many copies of them
    /// the `or`s around them make (D7).
    fn items(&mut self, items: &[BindItem], when_depth: usize, copies: usize) {
        let mut scope = Scope::default();
        for item in items {
            match item {
                BindItem::When {
                    condition,
                    items,
                    span,
                    ..
                } => {
                    for p in condition.iter().flatten() {
                        self.facts
                            .when_categories
                            .push((p.category.clone(), p.span.prefix(p.category.len())));
                    }
                    if when_depth == MAX_WHEN_NESTING {
                        // Reported once, at the first block too deep; what is inside is not
                        // checked further.
                        self.push(
                            Diagnostic::error(
                                codes::BINDINGS_TOO_DEEP,
                                span.prefix("when".len()),
                                format!("`when` blocks nest more than {MAX_WHEN_NESTING} levels deep"),
                            )
                            .with_note("note: the bindings model limits nesting so that every JSON reader can load it; combine predicates with `and` instead"),
                        );
                        continue;
                    }
                    let copies = copies.saturating_mul(condition.len());
                    if copies > MAX_ALTERNATIVES {
                        self.push(
                            Diagnostic::error(
                                codes::TOO_MANY_ALTERNATIVES,
                                span.prefix("when".len()),
                                format!(
                                    "the `or`s around these bindings make {} copies of each (at most {MAX_ALTERNATIVES})",
                                    if copies == usize::MAX { "countless".to_string() } else { copies.to_string() }
                                ),
                            )
                            .with_note("note: each alternative of an `or` is a copy of the bindings it encloses, with its own precedence, and nested `when`s multiply them")
                            .with_note("help: split the `when` into separate blocks, or declare a category that tells the cases apart"),
                        );
                        continue;
                    }
                    self.items(items, when_depth + 1, copies);
                }
                BindItem::Operation(op) => self.operation(op, &mut scope),
                BindItem::Error { .. } => {}
            }
        }
    }

    fn push(&mut self, d: Diagnostic) {
        self.out.push(d);
    }

    fn operation(&mut self, op: &BindOperation, scope: &mut Scope) {
        let query_in_producer = self.queries_outside_producer(op);
        match &op.kind {
            BindOpKind::Bind {
                flags,
                key,
                producer,
                contributes_to,
                options,
            } => {
                self.key(key);
                let declared = self.key_type(key);
                self.bind(op, flags, key, producer.as_ref(), contributes_to.as_deref());
                if let (Some(t), Some(p)) = (&declared, producer) {
                    self.literal_fits(t, p, key);
                }
                if let BindKey::Parameters { target } = key {
                    self.parameters(target, producer.as_ref(), scope);
                }
                if let BindKey::Variables { .. } = key {
                    self.variables(flags, producer.as_ref(), scope);
                }
                let ctx = OptionContext::of_bind(key, producer.as_ref(), query_in_producer);
                self.options(options, &ctx);
                if let Some(id) = contributes_to {
                    self.contribution(op, key, producer.as_ref(), id);
                }
            }
            BindOpKind::Multibind {
                flags: _,
                key,
                id,
                producer,
                options,
            } => {
                self.key(key);
                let ty = self.multibind_type(key);
                let id_text = match id {
                    Some(e) => e.literal_text().map(SmolStr::new),
                    None => key_name(key).map(SmolStr::new),
                };
                if let Some(p) = producer {
                    self.out.push(
                        Diagnostic::error(
                            codes::MULTIBIND_VALUE,
                            p.span,
                            "a multibind's value is what is bound in it: this `to ...` would never be used",
                        )
                        .with_note(format!(
                            "help: contribute the value instead: `bind to VALUE in '{}'`",
                            id_text.as_deref().unwrap_or("ID")
                        )),
                    );
                }
                if let Some(id_text) = id_text {
                    self.facts.multibinds.push(MultibindDecl {
                        id: id_text,
                        ty: ty.clone(),
                        span: op.span.prefix("multibind".len()),
                    });
                }
                let ctx = OptionContext::Multibind { ty };
                self.options(options, &ctx);
            }
            BindOpKind::Map {
                from, to, options, ..
            } => {
                self.type_expr(from);
                self.type_expr(to);
                for o in options {
                    self.map_entry(o);
                }
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
                self.key(from);
                self.key(to);
                let word = if matches!(op.kind, BindOpKind::Alias { .. }) {
                    "bind alias"
                } else {
                    "bind renamed"
                };
                self.override_no_effect(flags, word);
                self.producer_not_allowed(producer.as_deref(), word);
            }
            BindOpKind::Rebind {
                flags,
                key,
                producer,
            } => {
                self.key(key);
                self.override_no_effect(flags, "rebind");
                self.producer_not_allowed(producer.as_deref(), "rebind");
            }
            BindOpKind::Include { .. } | BindOpKind::Exclude { .. } => {}
            BindOpKind::Dependency { from, to, .. } => {
                self.dependency_side(from);
                self.dependency_side(to);
            }
        }
    }

    // ---- keys and types ------------------------------------------------------------------

    fn key(&mut self, key: &BindKey) {
        match key {
            BindKey::Name { name } | BindKey::TypedName { name, .. } => {
                if matches!(
                    name.kind,
                    ExprKind::Concat { .. } | ExprKind::Heredoc { .. }
                ) {
                    self.push(
                        Diagnostic::error(
                            codes::BINDING_NAME_NOT_LITERAL,
                            name.span,
                            "a binding's name cannot be interpolated",
                        )
                        .with_note("note: keys are fixed when the bindings are composed, before any request is evaluated")
                        .with_note("help: write the name as a plain string, and bind the computed value to it instead"),
                    );
                }
                if let Some(n) = name.literal_text() {
                    if n.starts_with('/') {
                        self.push(
                            Diagnostic::error(
                                codes::RESERVED_BINDING_NAME,
                                name.span,
                                format!("the binding name `{n}` starts with `/`"),
                            )
                            .with_note("note: names starting with `/` are reserved for the bindings pbc derives (`/param/...`, `/var/...`, `/classes`)")
                            .with_note("help: use the `bind parameters` or `bind variables` forms, or a name without the leading `/`"),
                        );
                    }
                }
            }
            _ => {}
        }
        if let Some(type_expr) = key.type_expr() {
            self.type_expr(type_expr);
        }
        if let BindKey::Parameters { target } = key {
            self.resource_type_name(target);
        }
    }

    /// The declared type of a key, when it has one that reads.
    fn key_type(&self, key: &BindKey) -> Option<PType> {
        key.type_expr().and_then(|t| PType::from_expr(t).ok())
    }

    /// Reads a type expression and reports why it is not one.
    fn type_expr(&mut self, e: &Expr) -> Option<PType> {
        match PType::from_expr(e) {
            Ok(t) => {
                self.resource_type_name(e);
                if t.depth() > MAX_TYPE_NESTING {
                    self.push(
                        Diagnostic::error(
                            codes::BINDINGS_TOO_DEEP,
                            e.span,
                            format!("this type nests {} levels deep; bindings allow {MAX_TYPE_NESTING}", t.depth()),
                        )
                        .with_note("help: declare an outer level as `Data` (or `Array`, `Hash`) instead of spelling out every level"),
                    );
                }
                Some(t)
            }
            Err(err) => {
                self.type_error(err);
                None
            }
        }
    }

    fn type_error(&mut self, err: TypeError) {
        let d = match err {
            // A value where a type could stand is not always an error (`bind to 42`); callers
            // that need a type say so themselves.
            TypeError::NotAType { .. } => return,
            TypeError::Unknown {
                name,
                suggestion,
                span,
            } => Diagnostic::error(
                codes::UNKNOWN_TYPE,
                span,
                format!("unknown type `{name}`"),
            )
            .did_you_mean(&name, suggestion),
            TypeError::ParameterCount {
                name,
                expected,
                got,
                span,
            } => Diagnostic::error(
                codes::WRONG_TYPE_PARAMETER_COUNT,
                span,
                format!("`{name}` takes {expected}, not {got}"),
            )
            .with_note(
                "note: `Array[T]` takes one, `Hash[V]` or `Hash[K, V]` one or two; deeper structure needs a type of its own",
            ),
            TypeError::Reserved { name, span } => Diagnostic::error(
                codes::UNKNOWN_TYPE,
                span,
                format!("`{name}` is a reserved type name that bindings cannot use yet"),
            ),
        };
        self.push(d);
    }

    /// `Integer['x']` or `Array[x]` where a resource type is meant.
    fn resource_type_name(&mut self, e: &Expr) {
        let ExprKind::Access { target, keys } = &e.kind else {
            return;
        };
        let ExprKind::QualifiedReference { name } = &target.kind else {
            return;
        };
        let instance = keys.iter().all(|k| {
            matches!(
                k.kind,
                ExprKind::String { .. } | ExprKind::QualifiedName { .. }
            )
        });
        if instance
            && RESERVED_TYPE_NAMES.contains(&name.as_str())
            && name != "Class"
            && name != "Type"
        {
            self.push(
                Diagnostic::error(
                    codes::RESERVED_TYPE_AS_RESOURCE,
                    target.span,
                    format!("`{name}` is a reserved type name, not a resource type"),
                )
                .with_note("note: `Array`, `Hash`, `Boolean`, `Integer`, `Float`, `Number`, `String`, `Pattern`, `Data`, `Literal`, `Type` and `Enum` cannot name resources"),
            );
        }
    }

    fn multibind_type(&mut self, key: &BindKey) -> Option<PType> {
        let type_expr = match key {
            BindKey::Type { type_expr } => type_expr,
            BindKey::TypedName { type_expr, .. } => type_expr,
            // No type written: `Hash[Literal, Data]` (D12).
            _ => return Some(PType::hash_of_data()),
        };
        let t = self.type_expr(type_expr)?;
        match t {
            PType::Array(_) | PType::Hash(..) => Some(t),
            other => {
                self.push(
                    Diagnostic::error(
                        codes::MULTIBIND_TYPE_ERROR,
                        type_expr.span,
                        format!("a multibind collects into an `Array[...]` or a `Hash[...]`, not `{other}`"),
                    )
                    .with_note("help: write e.g. `multibind Array[String], 'users'` or `multibind Hash[Data], 'settings'`"),
                );
                None
            }
        }
    }

    // ---- bind ------------------------------------------------------------------------------

    fn bind(
        &mut self,
        op: &BindOperation,
        flags: &BindFlags,
        key: &BindKey,
        producer: Option<&Producer>,
        contributes_to: Option<&Expr>,
    ) {
        let variables = matches!(key, BindKey::Variables { .. });
        if let Some(abs) = flags.abstract_ {
            if matches!(key, BindKey::Parameters { .. }) {
                self.push(
                    Diagnostic::error(
                        codes::ABSTRACT_PARAMETERS,
                        abs,
                        "parameters cannot be bound `abstract`",
                    )
                    .with_note(
                        "note: a class's or resource's parameters are already declared to exist",
                    ),
                );
            } else if let (Some(p), false) = (producer, variables) {
                self.push(
                    Diagnostic::error(
                        codes::ABSTRACT_WITH_PRODUCER,
                        p.span,
                        "an abstract binding has no value",
                    )
                    .with_label(abs, "declared abstract here")
                    .with_note("help: drop `abstract` to bind the value, or drop `to ...` to require that someone else binds it"),
                );
            }
            return;
        }
        // A contribution of a type (`bind Type[X] in 'id'`) produces an instance of it.
        let type_contribution = contributes_to.is_some() && matches!(key, BindKey::Type { .. });
        if producer.is_none() && !type_contribution {
            self.push(
                Diagnostic::error(
                    codes::MISSING_PRODUCER,
                    op.span.prefix("bind".len()),
                    "this binding binds nothing: it has no `to ...`",
                )
                .with_note("help: add `to VALUE`, or write `bind abstract ...` to require that someone else binds it"),
            );
        }
    }

    /// A literal value bound under a declared type must have that type (`bind Integer, 'x' to
    /// 'abc'`). `bind variables T to {...}` checks each value.
    fn literal_fits(&mut self, declared: &PType, producer: &Producer, key: &BindKey) {
        let ProducerKind::Value { expr } = &producer.producer else {
            return;
        };
        if let BindKey::Variables { .. } = key {
            if let ExprKind::Hash { entries } = &expr.kind {
                for en in entries {
                    self.value_fits(declared, &en.value, en.key.literal_text());
                }
            }
            return;
        }
        self.value_fits(declared, expr, None);
    }

    fn value_fits(&mut self, declared: &PType, value: &Expr, what: Option<&str>) {
        let Some(actual) = PType::infer(value) else {
            return;
        };
        if !declared.assignable_from(&actual) {
            let subject = match what {
                Some(n) => format!("the value of `{n}`"),
                None => "the value".to_string(),
            };
            self.push(Diagnostic::error(
                codes::INCOMPATIBLE_TYPE,
                value.span,
                format!(
                    "{subject} is {} `{actual}`, but the binding's type is `{declared}`",
                    article(&actual)
                ),
            ));
        }
    }

    fn parameters(&mut self, target: &Expr, producer: Option<&Producer>, scope: &mut Scope) {
        let Some(Producer {
            producer: ProducerKind::Value { expr },
            ..
        }) = producer
        else {
            return;
        };
        match &expr.kind {
            ExprKind::Hash { entries } => {
                for en in entries {
                    let ok = match &en.key.kind {
                        ExprKind::QualifiedName { name } => valid_parameter_name(name),
                        ExprKind::String { value } => valid_parameter_name(value),
                        _ => false,
                    };
                    if !ok {
                        self.push(
                            Diagnostic::error(
                                codes::INVALID_PARAMETER_NAME,
                                en.key.span,
                                "a parameter binding's keys are parameter names",
                            )
                            .with_note("note: a parameter name is a lower-case word, e.g. `servers` or `'autoupdate'`"),
                        );
                    }
                }
            }
            ExprKind::Access { target: t, .. } => {
                if let ExprKind::QualifiedReference { name } = &t.kind {
                    let target_text = expr_text(target);
                    if let Some((_, _, first)) = scope
                        .parameter_producers
                        .iter()
                        .find(|(tg, ty, _)| *tg == target_text && ty == name.as_str())
                    {
                        let first = *first;
                        self.push(
                            Diagnostic::error(
                                codes::DUPLICATE_PARAMETERS_PRODUCER,
                                expr.span,
                                format!("the parameters of `{target_text}` are already bound to a `{name}`"),
                            )
                            .with_label(first, "first bound here")
                            .with_note("note: a type may produce a target's parameters only once; bind a different type, or use a `map`"),
                        );
                    } else {
                        scope
                            .parameter_producers
                            .push((target_text, name.to_string(), expr.span));
                    }
                }
            }
            _ => {}
        }
    }

    fn variables(&mut self, flags: &BindFlags, producer: Option<&Producer>, scope: &mut Scope) {
        let Some(Producer {
            producer: ProducerKind::Value { expr },
            ..
        }) = producer
        else {
            return;
        };
        let mut names: Vec<(String, Span)> = Vec::new();
        match (&expr.kind, flags.abstract_.is_some()) {
            (ExprKind::Hash { entries }, false) => {
                for en in entries {
                    if let Some(n) = en.key.literal_text() {
                        names.push((n.to_string(), en.key.span));
                    }
                }
            }
            (ExprKind::Array { elements }, true) => {
                for el in elements {
                    if let Some(n) = el.literal_text() {
                        names.push((n.to_string(), el.span));
                    }
                }
            }
            (_, true) => {
                if let Some(n) = expr.literal_text() {
                    names.push((n.to_string(), expr.span));
                }
            }
            _ => {}
        }
        let seen = if flags.abstract_.is_some() {
            &mut scope.abstract_variables
        } else {
            &mut scope.variables
        };
        for (n, span) in names {
            let n = n.trim_start_matches("::").to_string();
            if let Some((_, first)) = seen.iter().find(|(v, _)| *v == n) {
                let first = *first;
                self.push(
                    Diagnostic::error(
                        codes::DUPLICATE_VARIABLE,
                        span,
                        format!(
                            "the variable `${n}` is bound twice in `bindings {}`",
                            self.block.name
                        ),
                    )
                    .with_label(first, "first bound here"),
                );
            } else {
                seen.push((n, span));
            }
        }
    }

    /// `alias`, `renamed` and `rebind` give an existing binding another key: they have no
    /// value of their own.
    fn producer_not_allowed(&mut self, producer: Option<&Producer>, word: &str) {
        if let Some(p) = producer {
            let help = match word {
                "rebind" => "help: drop `to ...`: `rebind` re-binds the key's existing producer here; to bind a new value, write `bind override ...`",
                _ => "help: drop `to ...`: the binding it names supplies the value",
            };
            self.push(
                Diagnostic::error(
                    codes::PRODUCER_NOT_ALLOWED,
                    p.span,
                    format!("`{word}` takes no `to ...`"),
                )
                .with_note(help),
            );
        }
    }

    fn override_no_effect(&mut self, flags: &BindFlags, word: &str) {
        if let Some(o) = flags.override_ {
            self.push(
                Diagnostic::warning(
                    codes::OVERRIDE_HAS_NO_EFFECT,
                    o,
                    format!("`override` has no effect on `{word}`"),
                )
                .with_note("note: the re-bound key must exist anyway; remove `override`"),
            );
        }
    }

    fn dependency_side(&mut self, e: &Expr) {
        let refs: Vec<&Expr> = match &e.kind {
            ExprKind::Array { elements } => elements.iter().collect(),
            _ => vec![e],
        };
        for r in refs {
            let ok = matches!(&r.kind, ExprKind::Access { target, keys }
                if matches!(target.kind, ExprKind::QualifiedReference { .. }) && !keys.is_empty());
            if !ok {
                self.push(
                    Diagnostic::error(
                        codes::DEPENDENCY_NOT_RESOURCE,
                        r.span,
                        "each side of `bind dependency` is a resource reference",
                    )
                    .with_note("help: write e.g. `bind dependency File['/etc/ssh/sshd_config'] ~> Service['sshd']`"),
                );
            } else {
                self.resource_type_name(r);
            }
        }
    }

    /// Reports each query (`?? ...`) outside a binding's producer, and says whether its
    /// producer holds one: one walk over the operation's expressions answers both.
    fn queries_outside_producer(&mut self, op: &BindOperation) -> bool {
        let producer = match &op.kind {
            BindOpKind::Bind {
                producer: Some(p), ..
            }
            | BindOpKind::Multibind {
                producer: Some(p), ..
            } => match &p.producer {
                ProducerKind::Value { expr } | ProducerKind::Producer { expr } => Some(expr),
                ProducerKind::Hiera { .. } => None,
            },
            _ => None,
        };
        let mut found = Vec::new();
        let mut in_producer = false;
        op.for_each_expr(&mut |e| {
            let inside = producer.is_some_and(|p| std::ptr::eq(p, e));
            e.walk(|x| {
                if let ExprKind::Query { .. } = x.kind {
                    if inside {
                        in_producer = true;
                    } else {
                        found.push(x.span);
                    }
                }
                true
            })
        });
        for span in found {
            self.push(
                Diagnostic::error(
                    codes::QUERY_OUTSIDE_PRODUCER,
                    span,
                    "a query (`?? ...`) can only produce a binding's value",
                )
                .with_note("help: write it after `to`, e.g. `bind parameters Web[one] to Sql[?? name == one]`"),
            );
        }
        in_producer
    }

    // ---- contributions ---------------------------------------------------------------------

    fn contribution(
        &mut self,
        op: &BindOperation,
        key: &BindKey,
        producer: Option<&Producer>,
        id: &Expr,
    ) {
        let Some(id_text) = id.literal_text().map(SmolStr::new) else {
            return;
        };
        let name = match key {
            BindKey::Name { name } | BindKey::TypedName { name, .. } => Some((
                SmolStr::new(name.literal_text().unwrap_or_default()),
                name.span,
            )),
            _ => None,
        };
        let value = match producer {
            Some(Producer {
                producer: ProducerKind::Value { expr },
                ..
            }) => PType::infer(expr).map(|t| (t, expr.span)),
            _ => None,
        };
        self.facts.contributions.push(Contribution {
            id: id_text,
            id_span: id.span,
            name,
            value,
            span: op.span.prefix("bind".len()),
        });
    }

    // ---- options ---------------------------------------------------------------------------

    fn options(&mut self, options: &[BindOption], ctx: &OptionContext) {
        for o in options {
            let name = o.name.as_str();
            if !OPTIONS.contains(&name) {
                let mut d = Diagnostic::error(
                    codes::UNKNOWN_OPTION,
                    o.name_span,
                    format!("unknown option `{name}`"),
                );
                d = match did_you_mean(name, OPTIONS) {
                    Some(s) => d.did_you_mean(name, s),
                    None => d.with_note(format!("note: the options are {}", backticked(OPTIONS))),
                };
                self.push(d);
                continue;
            }
            if let Some(why) = ctx.not_applicable(name) {
                self.push(Diagnostic::error(
                    codes::OPTION_NOT_APPLICABLE,
                    o.name_span,
                    format!("the option `{name}` does not apply here: {why}"),
                ));
                continue;
            }
            self.option_value(o, ctx);
        }
    }

    fn option_value(&mut self, o: &BindOption, ctx: &OptionContext) {
        let name = o.name.as_str();
        let bad = |msg: String| Diagnostic::error(codes::INVALID_OPTION_VALUE, o.span, msg);
        let lambda_params = match &o.value {
            OptionValue::Lambda { lambda } => Some(lambda.params.len()),
            OptionValue::Expr { .. } => None,
        };
        let expr = match &o.value {
            OptionValue::Expr { expr } => Some(expr),
            OptionValue::Lambda { .. } => None,
        };
        let wanted_lambda = match name {
            "combinator" => Some(match ctx {
                OptionContext::Multibind {
                    ty: Some(PType::Array(_)),
                } => (2, "`|$memo, $value|`"),
                _ => (3, "`|$key, $current, $value|`"),
            }),
            "transformer" | "select_result" => Some((1, "`|$value|`")),
            _ => None,
        };
        if let Some((n, shape)) = wanted_lambda {
            if lambda_params != Some(n) {
                let d = bad(format!(
                    "`{name}` takes a lambda with {n} parameter{}",
                    if n == 1 { "" } else { "s" }
                ))
                .with_note(format!("help: write `{name} => {shape} {{ ... }}`"));
                self.push(d);
            }
            return;
        }
        let Some(expr) = expr else {
            self.push(bad(format!("`{name}` does not take a lambda")));
            return;
        };
        match name {
            "conflict_resolution" => {
                let value = expr.literal_text();
                if !value.is_some_and(|v| CONFLICT_RESOLUTIONS.contains(&v)) {
                    let mut d = bad(format!(
                        "`conflict_resolution` is one of {}",
                        backticked(CONFLICT_RESOLUTIONS)
                    ));
                    if let Some((v, s)) =
                        value.and_then(|v| Some((v, did_you_mean(v, CONFLICT_RESOLUTIONS)?)))
                    {
                        d = d.did_you_mean(v, s);
                    }
                    self.push(d);
                } else if let (Some(v @ "append"), OptionContext::Multibind { ty: Some(t) }) =
                    (value, ctx)
                {
                    self.needs_array_elements(v, t, o.span);
                }
            }
            "flatten" => {
                // A depth must be a literal the injector can apply: a 64-bit Integer, not
                // negative (`99999999999999999999` would be accepted and then ignored).
                if !matches!(
                    crate::eval::literal_value(expr),
                    Some(crate::eval::Value::Boolean(_))
                ) && !matches!(
                    crate::eval::literal_value(expr),
                    Some(crate::eval::Value::Integer(n)) if n >= 0
                ) {
                    self.push(bad(
                        "`flatten` is `true`, `false` or a depth (an Integer from 0 to 9223372036854775807)".into()
                    ));
                } else if let OptionContext::Multibind { ty: Some(t) } = ctx {
                    self.needs_array_elements("flatten", t, o.name_span);
                }
            }
            "uniq" | "priority_on_named" | "priority_on_unnamed" | "singleton" => {
                if !matches!(expr.kind, ExprKind::Boolean { .. }) {
                    self.push(bad(format!("`{name}` is `true` or `false`")));
                } else if name == "uniq" {
                    if let OptionContext::Multibind { ty: Some(t) } = ctx {
                        self.needs_array_elements("uniq", t, o.name_span);
                    }
                }
            }
            "producer_args" if !matches!(expr.kind, ExprKind::Hash { .. }) => {
                self.push(bad(
                    "`producer_args` is a hash of argument names to values".into()
                ));
            }
            "map" => self.name_map(expr, "`map`"),
            _ => {}
        }
    }

    /// `append`, `flatten` and `uniq` combine arrays: a Hash multibind's elements must be able
    /// to hold them.
    fn needs_array_elements(&mut self, what: &str, ty: &PType, span: Span) {
        if let PType::Hash(_, element) = ty {
            if !matches!(**element, PType::Data | PType::Array(_) | PType::Any) {
                self.push(
                    Diagnostic::error(
                        codes::OPTION_NEEDS_ARRAY_ELEMENTS,
                        span,
                        format!("`{what}` combines arrays, but this multibind's elements are `{element}`"),
                    )
                    .with_note("help: declare the multibind as `Hash[Data]` or `Hash[Array[...]]`, or use another conflict resolution"),
                );
            }
        }
    }

    /// A name-to-name hash (`map => {dbuser => user}`).
    fn name_map(&mut self, e: &Expr, what: &str) {
        let ExprKind::Hash { entries } = &e.kind else {
            self.push(
                Diagnostic::error(
                    codes::INVALID_OPTION_VALUE,
                    e.span,
                    format!("{what} is a hash from parameter names to parameter names"),
                )
                .with_note("help: write e.g. `map => { dbuser => user }`"),
            );
            return;
        };
        for en in entries {
            for side in [&en.key, &en.value] {
                if !side.literal_text().is_some_and(valid_parameter_name) {
                    self.push(Diagnostic::error(
                        codes::INVALID_OPTION_VALUE,
                        side.span,
                        format!("{what} maps parameter names to parameter names"),
                    ));
                }
            }
        }
    }

    /// An entry of `bind map A to B { from => to }`.
    fn map_entry(&mut self, o: &BindOption) {
        let ok = match &o.value {
            OptionValue::Expr { expr } => expr.literal_text().is_some_and(valid_parameter_name),
            OptionValue::Lambda { .. } => false,
        };
        if !ok || !valid_parameter_name(&o.name) {
            self.push(
                Diagnostic::error(
                    codes::INVALID_OPTION_VALUE,
                    o.span,
                    "`bind map` maps parameter names to parameter names",
                )
                .with_note("help: write e.g. `bind map Web to Sql { dbuser => user }`"),
            );
        }
    }
}

/// Where an option is written, for deciding whether it applies.
enum OptionContext {
    Bind {
        has_producer: bool,
        producer_keyword: bool,
        parameters: bool,
        query: bool,
    },
    Multibind {
        ty: Option<PType>,
    },
}

/// The options that apply to `op` (an operation of `block`), in [`OPTIONS`]' order: what an
/// editor offers where an option's name is being written. None for an operation that takes
/// no options but a parameter map's.
pub fn applicable_options(block: &BindingsBlock, op: &BindOperation) -> Vec<&'static str> {
    let mut facts = TreeFacts::default();
    let mut findings = Vec::new();
    let mut checker = BlockChecker {
        facts: &mut facts,
        out: &mut findings,
        block,
    };
    let query_in_producer = checker.queries_outside_producer(op);
    let ctx = match &op.kind {
        BindOpKind::Bind { key, producer, .. } => {
            OptionContext::of_bind(key, producer.as_ref(), query_in_producer)
        }
        BindOpKind::Multibind { key, .. } => OptionContext::Multibind {
            ty: checker.multibind_type(key),
        },
        _ => return Vec::new(),
    };
    OPTIONS
        .iter()
        .copied()
        .filter(|name| ctx.not_applicable(name).is_none())
        .collect()
}

impl OptionContext {
    fn of_bind(key: &BindKey, producer: Option<&Producer>, query_in_producer: bool) -> Self {
        OptionContext::Bind {
            has_producer: producer.is_some(),
            producer_keyword: matches!(
                producer,
                Some(Producer {
                    producer: ProducerKind::Producer { .. },
                    ..
                })
            ),
            parameters: matches!(key, BindKey::Parameters { .. }),
            query: query_in_producer,
        }
    }

    /// Why `name` does not apply here, if it does not.
    fn not_applicable(&self, name: &str) -> Option<&'static str> {
        let (multibind, array, hash) = match self {
            OptionContext::Multibind { ty } => (
                true,
                !matches!(ty, Some(PType::Hash(..))),
                !matches!(ty, Some(PType::Array(_))),
            ),
            OptionContext::Bind { .. } => (false, false, false),
        };
        let (has_producer, producer_keyword, parameters, query) = match self {
            OptionContext::Bind {
                has_producer,
                producer_keyword,
                parameters,
                query,
            } => (*has_producer, *producer_keyword, *parameters, *query),
            OptionContext::Multibind { .. } => (true, false, false, false),
        };
        match name {
            "combinator" | "flatten" | "uniq" if !multibind => Some("it applies to a `multibind`"),
            "conflict_resolution" if !(multibind && hash) => {
                Some("it applies to a `multibind` of a `Hash`")
            }
            "priority_on_named" | "priority_on_unnamed" if !(multibind && array) => {
                Some("it applies to a `multibind` of an `Array`")
            }
            "transformer" if !has_producer => {
                Some("it applies to a binding with a producer (`to ...`)")
            }
            "producer_args" | "singleton" if !producer_keyword => {
                Some("it applies to `to producer ...`")
            }
            "map" if !parameters => Some("it applies to `bind parameters`"),
            "select_result" if !query => {
                Some("it applies to a binding whose producer is a query (`?? ...`)")
            }
            _ => None,
        }
    }
}

fn key_name(key: &BindKey) -> Option<&str> {
    match key {
        BindKey::Name { name } | BindKey::TypedName { name, .. } => name.literal_text(),
        _ => None,
    }
}

fn valid_parameter_name(n: &str) -> bool {
    let mut chars = n.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A short rendering of a target (`ntp`, `Web[one]`, `class ntp`), for messages and
/// comparisons.
fn expr_text(e: &Expr) -> String {
    match &e.kind {
        ExprKind::QualifiedName { name } | ExprKind::QualifiedReference { name } => {
            name.to_string()
        }
        ExprKind::ClassType { name } => format!("class {name}"),
        ExprKind::String { value } => format!("'{value}'"),
        ExprKind::Access { target, keys } => format!(
            "{}[{}]",
            expr_text(target),
            keys.iter().map(expr_text).collect::<Vec<_>>().join(", ")
        ),
        _ => "?".to_string(),
    }
}

pub(super) fn article(t: &PType) -> &'static str {
    let s = t.to_string();
    match s.chars().next() {
        Some('A' | 'E' | 'I' | 'O' | 'U') => "an",
        _ => "a",
    }
}
