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

use super::model::slots::{MapSlots, SlotKind, SlotMap};
use super::model::{
    EffectiveCategories, Environments, LayeredBindings, Origin, TreeDocument, FORMAT, VERSION,
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
    Walk::document(&mut bind, slots).unwrap_or_else(|_| empty_document())
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
    let slots = Walk::document(&mut read_slot, document).map_err(|(at, why)| {
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
/// binding being walked, for errors. The walk itself is each model type's derived
/// [`MapSlots`].
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

/// A walk's failure: where (the binding's place, or empty) and why.
type Walked<T> = Result<T, (String, String)>;

impl<X, Y, F: FnMut(X, SlotKind) -> Result<Y, String>> SlotMap<X, Y> for Walk<'_, F> {
    type Error = (String, String);

    fn slot(&mut self, x: X, kind: SlotKind) -> Walked<Y> {
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

    fn unplace(&mut self) {
        self.at = Place::default();
    }
}

impl<'f, F> Walk<'f, F> {
    fn document<X: Clone, Y>(slot: &'f mut F, d: TreeDocument<X>) -> Walked<TreeDocument<Y>>
    where
        F: FnMut(X, SlotKind) -> Result<Y, String>,
    {
        d.map_slots(&mut Walk {
            slot,
            at: Place::default(),
        })
    }
}
