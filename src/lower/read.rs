//! A written model read back: what `pbc lookup --model FILE` runs the injector on. The JSON
//! `pbc compile DIR` writes becomes the same [`TreeDocument`] the injector gets from a tree
//! lowered in memory, with literal values as values and embedded PN read back into expressions
//! ([`crate::pn::read`]), so both ways answer alike.
//!
//! It owns the checks a model file gets before anything trusts it: its nesting (counted before
//! parsing, so that a deep file cannot exhaust the stack), its format and version, its shape and
//! every embedded expression; each failure is one `INVALID_MODEL` naming the file and, where it
//! can, the line and column or the binding. It must not re-check what the model says (the
//! validator did that before the model was written) nor answer lookups.

use super::model::{
    AbstractBinding, Binding, BindingExtras, Category, DataPath, EffectiveCategories,
    EnvironmentEntry, Environments, LayeredBindings, Multibinding, NamedArgument, NamedBindings,
    NamedLayer, Origin, PathTest, ProducerDescriptor, TreeDocument, FORMAT, VERSION,
};
use crate::ast::{Expr, Lambda};
use crate::diag::{codes, Diagnostic};
use crate::eval::code::{Code, Subtree};
use crate::eval::Value;
use crate::span::Span;
use serde::Deserialize;
use serde_json::Value as Json;
use smol_str::SmolStr;

/// The deepest nesting of arrays and objects a model file may have. The model's own structure
/// stays within [`super::model::MAX_DEPTH`]; the rest is embedded PN, where an operator chain
/// nests two levels per operator (`1 + 1 + ...`: a call's object and its array). Parsing
/// recurses per level, about 1.1 KB of stack each: this keeps a model within a hundred-odd MB
/// of the command's 256 MB main thread, and lets chains of 50,000 operators through.
pub const MAX_READ_DEPTH: usize = 100_000;

/// A model read back: its structure with each embedded value as a [`Slot`], and the expressions
/// the slots point into. [`ReadModel::document`] gives the injector's form, borrowing them.
pub struct ReadModel {
    slots: TreeDocument<Slot>,
    store: Store,
    environment: String,
}

#[derive(Default)]
struct Store {
    exprs: Vec<Expr>,
    lambdas: Vec<Lambda>,
}

/// What an embedded value became.
#[derive(Clone)]
enum Slot {
    Value(Value),
    /// A variable the model's categories read (`$::fqdn` for `node`): read leniently, as
    /// lowering's own variables are.
    Variable(SmolStr),
    Expr(usize),
    Lambda(usize),
}

/// How a slot of the model holds its value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SlotKind {
    /// Plain JSON: a constant producer's value, an option's `value`.
    Literal,
    /// PN: an expression (or a lambda).
    Expression,
    /// PN of a category's value.
    Category,
}

impl ReadModel {
    /// The environment the model was compiled for.
    pub fn environment(&self) -> &str {
        &self.environment
    }

    /// The model in the injector's form, borrowing the expressions read (a copy of the
    /// structure: [`ReadModel::take_document`] when one is enough).
    pub fn document(&self) -> TreeDocument<Code<'_>> {
        bind(self.slots.clone(), &self.store)
    }

    /// [`ReadModel::document`] without the copy; the structure is left empty.
    pub fn take_document(&mut self) -> TreeDocument<Code<'_>> {
        let slots = std::mem::replace(&mut self.slots, empty_document());
        bind(slots, &self.store)
    }
}

/// Each slot as the injector holds it: expressions and lambdas borrowed from `store`.
fn bind(slots: TreeDocument<Slot>, store: &Store) -> TreeDocument<Code<'_>> {
    let mut bind = |slot: Slot, _: SlotKind| -> Result<Code<'_>, String> {
        Ok(match slot {
            Slot::Value(v) => Code::Value(v),
            Slot::Variable(name) => Code::Variable(name),
            Slot::Expr(i) => Code::expression(&store.exprs[i]),
            Slot::Lambda(i) => Code::Lambda(Subtree::Borrowed(&store.lambdas[i])),
        })
    };
    // Binding slots cannot fail.
    Walk {
        slot: &mut bind,
        at: Place::default(),
    }
    .document(slots)
    .unwrap_or_else(|_| empty_document())
}

fn empty_document<X>() -> TreeDocument<X> {
    TreeDocument {
        format: FORMAT.to_string(),
        version: VERSION,
        environment: String::new(),
        environments: Environments {
            defaults: Vec::new(),
            environments: Vec::new(),
            dynamic: Vec::new(),
        },
        categories: EffectiveCategories {
            categories: Vec::new(),
        },
        layers: LayeredBindings { layers: Vec::new() },
        hiera: Vec::new(),
    }
}

/// Reads the model in `bytes` (the file `name`).
pub fn read(name: &str, bytes: &[u8]) -> Result<ReadModel, Diagnostic> {
    let invalid = |why: String| {
        Diagnostic::error(
            codes::INVALID_MODEL,
            Span::NONE,
            format!("`{name}` is not a model pbc can read: {why}"),
        )
    };
    if let Some((line, column)) = too_deep(bytes) {
        return Err(invalid(format!(
            "it nests more than {MAX_READ_DEPTH} levels deep (at line {line}, column {column})"
        )));
    }
    let document =
        parse::<TreeDocument<Json>>(bytes).map_err(|e| invalid(shape_error(bytes, e)))?;
    from_document(name, document)
}

/// A model already parsed (from JSON, or rebuilt from a cache), read back: its version
/// checked, its embedded values read.
pub fn from_document(name: &str, document: TreeDocument<Json>) -> Result<ReadModel, Diagnostic> {
    let invalid = |why: String| {
        Diagnostic::error(
            codes::INVALID_MODEL,
            Span::NONE,
            format!("`{name}` is not a model pbc can read: {why}"),
        )
    };
    if document.version != VERSION {
        return Err(invalid(format!(
            "it is version {} of the model; this pbc reads version {VERSION}",
            document.version
        )));
    }
    let mut store = Store::default();
    let mut read_slot = |json: Json, kind: SlotKind| slot(&mut store, json, kind);
    let slots = Walk {
        slot: &mut read_slot,
        at: Place::default(),
    }
    .document(document)
    .map_err(|(at, why)| {
        invalid(if at.is_empty() {
            why
        } else {
            format!("{why} (in the binding at {at})")
        })
    })?;
    Ok(ReadModel {
        environment: slots.environment.clone(),
        slots,
        store,
    })
}

fn parse<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    // The depth was counted first ([`too_deep`]).
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de)?;
    de.end()?;
    Ok(value)
}

/// What is wrong with a file that is JSON but not a tree's model, said as plainly as its
/// first members allow.
fn shape_error(bytes: &[u8], e: serde_json::Error) -> String {
    #[derive(Deserialize)]
    struct Header {
        format: Option<Json>,
        version: Option<Json>,
        bindings: Option<serde::de::IgnoredAny>,
    }
    if e.is_syntax() || e.is_eof() {
        return format!("it is not JSON ({e})");
    }
    let Ok(header) = parse::<Header>(bytes) else {
        return format!("it is not a JSON object ({e})");
    };
    if header.format.as_ref().and_then(Json::as_str) != Some(FORMAT) {
        return format!("it has no `\"format\": \"{FORMAT}\"` ({e})");
    }
    if let Some(v) = header
        .version
        .filter(|v| v.as_u64() != Some(u64::from(VERSION)))
    {
        return format!("it is version {v} of the model; this pbc reads version {VERSION}");
    }
    if header.bindings.is_some() {
        return "it is the model of bindings files alone (`pbc compile FILE...`), which has no categories or layers: compile the tree (`pbc compile DIR`)".into();
    }
    e.to_string()
}

/// Where `bytes` first nests past [`MAX_READ_DEPTH`], as a 1-based line and column; counted
/// without parsing (brackets inside strings do not count).
pub(crate) fn too_deep(bytes: &[u8]) -> Option<(usize, usize)> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    let (mut line, mut line_start) = (1, 0);
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            match (escaped, b) {
                (true, _) => escaped = false,
                (false, b'\\') => escaped = true,
                (false, b'"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_READ_DEPTH {
                    let column = String::from_utf8_lossy(&bytes[line_start..i])
                        .chars()
                        .count()
                        + 1;
                    return Some((line, column));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            _ => {}
        }
    }
    None
}

/// One embedded value read: a literal's value, or PN as an expression or lambda.
fn slot(store: &mut Store, json: Json, kind: SlotKind) -> Result<Slot, String> {
    use crate::pn::read;
    let why = |e: read::PnError| format!("an embedded expression does not read back: {}", e.0);
    if kind == SlotKind::Literal {
        return Ok(Slot::Value(Value::from_json(&json)));
    }
    if read::is_lambda(&json) {
        store.lambdas.push(read::lambda(&json).map_err(why)?);
        return Ok(Slot::Lambda(store.lambdas.len() - 1));
    }
    let e = read::expr(&json).map_err(why)?;
    if let crate::ast::ExprKind::Variable { name } = &e.kind {
        if kind == SlotKind::Category {
            return Ok(Slot::Variable(name.clone()));
        }
    }
    // A scalar is a value, as the literals and strings lowering embeds are; a number past 64
    // bits stays an expression, whose evaluation says so, as on the tree.
    if !json.is_object() {
        if let Some(v) = crate::eval::literal_value(&e) {
            return Ok(Slot::Value(v));
        }
    }
    store.exprs.push(e);
    Ok(Slot::Expr(store.exprs.len() - 1))
}

/// Maps every embedded value of a document through `slot`, keeping the rest; `at` is the
/// binding being walked, for errors.
struct Walk<'f, F> {
    slot: &'f mut F,
    at: Place,
}

/// The binding being walked (an empty file: none).
#[derive(Default)]
struct Place {
    file: super::model::FileName,
    line: usize,
    column: usize,
}

impl Place {
    fn text(&self) -> String {
        if self.file.is_empty() {
            String::new()
        } else {
            format!("{}:{}:{}", self.file, self.line, self.column)
        }
    }
}

type Walked<T> = Result<T, (String, String)>;

impl<F> Walk<'_, F> {
    fn one<X, Y>(&mut self, x: X, kind: SlotKind) -> Walked<Y>
    where
        F: FnMut(X, SlotKind) -> Result<Y, String>,
    {
        (self.slot)(x, kind).map_err(|why| (self.at.text(), why))
    }

    fn at(&mut self, origin: &Origin) {
        // Set for every binding, said only on an error: no text is built here.
        if self.at.file != origin.file {
            self.at.file.clone_from(&origin.file);
        }
        let widen = |n: u32| usize::try_from(n).unwrap_or(usize::MAX);
        (self.at.line, self.at.column) = (widen(origin.line), widen(origin.column));
    }

    fn document<X, Y>(&mut self, d: TreeDocument<X>) -> Walked<TreeDocument<Y>>
    where
        F: FnMut(X, SlotKind) -> Result<Y, String>,
    {
        let environments = Environments {
            defaults: self.arguments(d.environments.defaults)?,
            environments: self.entries(d.environments.environments)?,
            dynamic: self.entries(d.environments.dynamic)?,
        };
        self.at = Place::default();
        let categories = EffectiveCategories {
            categories: self.categories(d.categories.categories)?,
        };
        let mut layers = Vec::with_capacity(d.layers.layers.len());
        for l in d.layers.layers {
            let mut bindings = Vec::with_capacity(l.bindings.len());
            for b in l.bindings {
                bindings.push(self.named(b)?);
            }
            layers.push(NamedLayer {
                name: l.name,
                bindings,
                providers: l.providers,
            });
        }
        Ok(TreeDocument {
            format: d.format,
            version: d.version,
            environment: d.environment,
            environments,
            categories,
            layers: LayeredBindings { layers },
            hiera: d.hiera,
        })
    }

    fn entries<X, Y>(&mut self, list: Vec<EnvironmentEntry<X>>) -> Walked<Vec<EnvironmentEntry<Y>>>
    where
        F: FnMut(X, SlotKind) -> Result<Y, String>,
    {
        list.into_iter()
            .map(|e| {
                self.at(&e.origin);
                Ok(EnvironmentEntry {
                    title: self.one(e.title, SlotKind::Expression)?,
                    attributes: self.arguments(e.attributes)?,
                    origin: e.origin,
                })
            })
            .collect()
    }

    fn arguments<X, Y>(&mut self, list: Vec<NamedArgument<X>>) -> Walked<Vec<NamedArgument<Y>>>
    where
        F: FnMut(X, SlotKind) -> Result<Y, String>,
    {
        list.into_iter()
            .map(|a| {
                Ok(NamedArgument {
                    name: a.name,
                    value: a
                        .value
                        .map(|v| self.one(v, SlotKind::Literal))
                        .transpose()?,
                    expression: a
                        .expression
                        .map(|v| self.one(v, SlotKind::Expression))
                        .transpose()?,
                })
            })
            .collect()
    }

    fn categories<X, Y>(&mut self, list: Vec<Category<X>>) -> Walked<Vec<Category<Y>>>
    where
        F: FnMut(X, SlotKind) -> Result<Y, String>,
    {
        list.into_iter()
            .map(|c| {
                Ok(Category {
                    categorization: c.categorization,
                    value: self.one(c.value, SlotKind::Category)?,
                })
            })
            .collect()
    }

    fn named<X, Y>(&mut self, b: NamedBindings<X>) -> Walked<NamedBindings<Y>>
    where
        F: FnMut(X, SlotKind) -> Result<Y, String>,
    {
        self.at(&b.origin);
        Ok(NamedBindings {
            name: b.name,
            bindings: self.bindings(b.bindings)?,
            origin: b.origin,
        })
    }

    fn bindings<X, Y>(&mut self, list: Vec<AbstractBinding<X>>) -> Walked<Vec<AbstractBinding<Y>>>
    where
        F: FnMut(X, SlotKind) -> Result<Y, String>,
    {
        list.into_iter().map(|b| self.binding(b)).collect()
    }

    fn binding<X, Y>(&mut self, b: AbstractBinding<X>) -> Walked<AbstractBinding<Y>>
    where
        F: FnMut(X, SlotKind) -> Result<Y, String>,
    {
        Ok(match b {
            AbstractBinding::Binding(b) => {
                self.at(&b.origin);
                AbstractBinding::Binding(Binding {
                    type_: b.type_,
                    name: b.name,
                    override_: b.override_,
                    abstract_: b.abstract_,
                    producer: b.producer.map(|p| self.producer(p)).transpose()?,
                    extras: match b.extras {
                        Some(e) => Some(Box::new(BindingExtras {
                            multibind_id: e.multibind_id,
                            producer_args: self.arguments(e.producer_args.into_vec())?.into(),
                        })),
                        None => None,
                    },
                    origin: b.origin,
                })
            }
            AbstractBinding::Multibinding(m) => {
                self.at(&m.origin);
                AbstractBinding::Multibinding(Box::new(Multibinding {
                    type_: m.type_,
                    name: m.name,
                    override_: m.override_,
                    abstract_: m.abstract_,
                    multibind_id: m.multibind_id,
                    producer: m.producer.map(|p| self.producer(p)).transpose()?,
                    producer_args: self.arguments(m.producer_args)?,
                    id: m.id,
                    origin: m.origin,
                }))
            }
            AbstractBinding::CategorizedBindings {
                predicates,
                path,
                bindings,
                origin,
            } => {
                self.at(&origin);
                AbstractBinding::CategorizedBindings {
                    predicates: self.categories(predicates)?,
                    path: path.map(|p| self.data_path(*p).map(Box::new)).transpose()?,
                    bindings: self.bindings(bindings)?,
                    origin,
                }
            }
            AbstractBinding::AliasBinding(r) => AbstractBinding::AliasBinding(r),
            AbstractBinding::RenamedBinding(r) => AbstractBinding::RenamedBinding(r),
            AbstractBinding::Rebinding(r) => AbstractBinding::Rebinding(r),
            AbstractBinding::ParametersBinding {
                name,
                target,
                source,
                optional,
                override_,
                producer_args,
                origin,
            } => {
                self.at(&origin);
                AbstractBinding::ParametersBinding {
                    name,
                    target,
                    source: self.one(source, SlotKind::Expression)?,
                    optional,
                    override_,
                    producer_args: self.arguments(producer_args.into_vec())?.into(),
                    origin,
                }
            }
            AbstractBinding::ParameterMapBinding {
                name,
                mappings,
                override_,
                origin,
            } => {
                self.at(&origin);
                AbstractBinding::ParameterMapBinding {
                    name,
                    mappings: self.arguments(mappings)?,
                    override_,
                    origin,
                }
            }
            AbstractBinding::DependencyBinding {
                from,
                arrow,
                to,
                origin,
            } => {
                self.at(&origin);
                AbstractBinding::DependencyBinding {
                    from: self.one(from, SlotKind::Expression)?,
                    arrow,
                    to: self.one(to, SlotKind::Expression)?,
                    origin,
                }
            }
        })
    }

    fn data_path<X, Y>(&mut self, p: DataPath<X>) -> Walked<DataPath<Y>>
    where
        F: FnMut(X, SlotKind) -> Result<Y, String>,
    {
        Ok(DataPath {
            path: p.path,
            template: self.one(p.template, SlotKind::Expression)?,
            file: p.file,
            unless: p
                .unless
                .into_iter()
                .map(|t| {
                    Ok(PathTest {
                        path: t.path,
                        template: self.one(t.template, SlotKind::Expression)?,
                        file: t.file,
                    })
                })
                .collect::<Walked<_>>()?,
        })
    }

    fn producer<X, Y>(&mut self, p: ProducerDescriptor<X>) -> Walked<ProducerDescriptor<Y>>
    where
        F: FnMut(X, SlotKind) -> Result<Y, String>,
    {
        use ProducerDescriptor as P;
        Ok(match p {
            P::ConstantProducerDescriptor { value } => P::ConstantProducerDescriptor {
                value: self.one(value, SlotKind::Literal)?,
            },
            P::EvaluatingProducerDescriptor { expression } => P::EvaluatingProducerDescriptor {
                expression: self.one(expression, SlotKind::Expression)?,
            },
            P::InstanceProducerDescriptor {
                class_name,
                arguments,
            } => P::InstanceProducerDescriptor {
                class_name,
                arguments: arguments
                    .into_vec()
                    .into_iter()
                    .map(|a| self.one(a, SlotKind::Expression))
                    .collect::<Walked<_>>()?,
            },
            P::ProducerProducerDescriptor { producer } => P::ProducerProducerDescriptor {
                producer: Box::new(self.producer(*producer)?),
            },
            P::LookupProducerDescriptor { type_, name } => {
                P::LookupProducerDescriptor { type_, name }
            }
            P::ArrayMultibindProducerDescriptor => P::ArrayMultibindProducerDescriptor,
            P::HashMultibindProducerDescriptor => P::HashMultibindProducerDescriptor,
            P::OptionalProducerDescriptor { producer } => P::OptionalProducerDescriptor {
                producer: Box::new(self.producer(*producer)?),
            },
            P::QueryProducerDescriptor { expression } => P::QueryProducerDescriptor {
                expression: self.one(expression, SlotKind::Expression)?,
            },
            P::ClassesProducerDescriptor { included, excluded } => {
                P::ClassesProducerDescriptor { included, excluded }
            }
            P::HieraProducerDescriptor { level } => P::HieraProducerDescriptor { level },
        })
    }
}
