//! The model's compact JSON (`pbc compile --compact`, and the text `--cache` indexes), written
//! byte for byte as serde_json writes it, but without serde's walk.
//!
//! serde_json writes each key, colon, comma and bracket with a call of its own, and scans every
//! key for escapes: a binding is about a hundred small writes, and writing a 110,000-binding
//! model took as long as judging its layers. Here the text between two values is one write:
//! the model's types derive [`WriteCompact`] (`puppet_bindings_model_derive`), which reads the
//! serde attributes each type is written by and spells what its `Serialize` would, so a field
//! is defined once, in [`super`]. This module owns the text those derives write into:
//! the scalars, the embedded values, the file names of origins (escaped once per file), how the
//! text is let go a chunk at a time, and the blocks of a layer spelled on every core.
//! `a_tree_model_is_the_model_of_the_whole_programs` (in `tests/it/compile.rs`) holds the
//! writer equal to serde_json on every corpus tree, and the tests below on every shape and
//! escape.
//!
//! It must not decide what a model holds, nor lay out indented JSON (that is
//! [`crate::indented_json`]'s).

use super::{FileName, Json, NamedBindings};
use crate::eval::code::Code;
use crate::eval::Value;
use serde::Serialize;
use std::io::{self, Write};

/// Which cores spell a model: every core, or only the writer's own thread, when other work
/// runs beside it (a tree's layers are judged while its model is drafted to its output file).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cores {
    Own,
    Every,
}

/// Writes `doc` (a tree's model or bindings files') as compact JSON to `out` (no final
/// newline).
pub fn write<D: WriteCompact + ?Sized>(
    out: &mut dyn Write,
    doc: &D,
    cores: Cores,
) -> io::Result<()> {
    let mut text = Text::writing_to(out, cores);
    doc.write_compact(&mut text)?;
    text.finish()
}

/// A part of a model spelled as compact JSON, as serde_json spells its `Serialize`: derived for
/// the model's types, written here for what they hold.
pub trait WriteCompact {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()>;
}

/// A struct's members alone, each after a comma: how a kind-tagged enum writes a variant that
/// holds a struct (its `kind` first, then the struct's members). Derived with [`WriteCompact`].
pub trait WriteMembers {
    fn write_members(&self, text: &mut Text<'_>) -> io::Result<()>;
}

/// The written model's embedded JSON is already text.
impl WriteCompact for Json {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        text.text(self.get().as_bytes());
        Ok(())
    }
}

/// The scalars as `Code`'s `Serialize` writes them (by the serializer itself), the spelled
/// PN as it is; the rest by its `Serialize`.
impl WriteCompact for Code<'_> {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        match self {
            Code::Value(Value::String(s)) => text.string(s),
            Code::Value(Value::Integer(i)) => push_integer(&mut text.bytes, *i),
            Code::Value(Value::Boolean(b)) => text.text(boolean(*b)),
            Code::Value(Value::Undef) => text.text(b"null"),
            Code::Spelled(spelled) => text.text(spelled.text().as_bytes()),
            _ => return text.serde(self),
        }
        Ok(())
    }
}

impl WriteCompact for str {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        text.string(self);
        Ok(())
    }
}

impl WriteCompact for String {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        text.string(self);
        Ok(())
    }
}

impl WriteCompact for smol_str::SmolStr {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        text.string(self);
        Ok(())
    }
}

impl WriteCompact for bool {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        text.text(boolean(*self));
        Ok(())
    }
}

impl WriteCompact for u32 {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        push_unsigned(&mut text.bytes, u64::from(*self));
        Ok(())
    }
}

impl WriteCompact for usize {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        // A `usize` has at most 64 bits on every target Rust supports.
        push_unsigned(&mut text.bytes, *self as u64);
        Ok(())
    }
}

impl<T: WriteCompact> WriteCompact for Option<T> {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        match self {
            Some(value) => value.write_compact(text),
            None => {
                text.text(b"null");
                Ok(())
            }
        }
    }
}

impl<T: WriteCompact + ?Sized> WriteCompact for &T {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        (**self).write_compact(text)
    }
}

impl<T: WriteCompact + ?Sized> WriteCompact for Box<T> {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        (**self).write_compact(text)
    }
}

impl<T: WriteCompact + ?Sized> WriteCompact for std::sync::Arc<T> {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        (**self).write_compact(text)
    }
}

impl<T: WriteMembers + ?Sized> WriteMembers for Box<T> {
    fn write_members(&self, text: &mut Text<'_>) -> io::Result<()> {
        (**self).write_members(text)
    }
}

/// A list, let go a chunk at a time between its elements: a block's bindings are most of a
/// model.
impl<T: WriteCompact> WriteCompact for [T] {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        text.text(b"[");
        for (i, element) in self.iter().enumerate() {
            text.spill()?;
            text.comma(i);
            element.write_compact(text)?;
        }
        text.text(b"]");
        Ok(())
    }
}

impl<T: WriteCompact> WriteCompact for Vec<T> {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        self.as_slice().write_compact(text)
    }
}

/// A block's origins nearly all name its file: its JSON is kept from the origin before.
impl WriteCompact for FileName {
    fn write_compact(&self, text: &mut Text<'_>) -> io::Result<()> {
        let file = self.as_str();
        if file != text.origin_file {
            text.origin_file.clear();
            text.origin_file.push_str(file);
            text.origin_file_json.clear();
            crate::pn::write_json_string(&mut text.origin_file_json, file);
        }
        text.bytes.extend_from_slice(&text.origin_file_json);
        Ok(())
    }
}

/// The model's text as it is spelled: appending to a vector is what makes the many short
/// pieces cheap. What is in hand is let go once there is a chunk of it, element by element of
/// every list: with an output it is sent on, so that no block is held whole however large;
/// without one (a piece of blocks spelled on another core) it is kept, chunk by chunk, until
/// taken. Each chunk's vector has room for twice a chunk, so that the text an element adds
/// past a chunk does not move what is already spelled.
pub struct Text<'w> {
    bytes: Vec<u8>,
    /// The chunks let go without an output, in order.
    kept: Vec<Vec<u8>>,
    out: Option<&'w mut dyn Write>,
    cores: Cores,
    /// The file name of the last origin written, and its JSON.
    origin_file: String,
    origin_file_json: Vec<u8>,
}

/// How much text is gathered before it is written out.
const CHUNK: usize = 1 << 16;

/// A piece of blocks spelled on one core holds at most this many blocks and this many of
/// their bindings (some hundreds of kilobytes of text): enough to make handing it over cheap,
/// few enough that the pieces waiting to be written stay small. A block with more bindings is
/// a piece of its own, spelled by the writer, a chunk at a time.
const BLOCKS_PER_PIECE: usize = 64;
const BINDINGS_PER_PIECE: usize = 2048;

/// What a core made of a piece of blocks.
enum Piece {
    /// Its text, in chunks.
    Spelled(Vec<Vec<u8>>),
    /// A block too large to hold whole: the writer spells it.
    Large(usize),
}

/// A layer's (or a files model's) blocks: written by the writer itself when there are few or
/// it has only its own thread, otherwise in pieces spelled on every core and written in order.
/// (`#[compact(with = ...)]` on the lists of blocks in [`super`].)
pub fn blocks<X, B>(blocks: &[B], text: &mut Text<'_>) -> io::Result<()>
where
    X: WriteCompact + Serialize + Sync + Send,
    B: std::borrow::Borrow<NamedBindings<X>> + WriteCompact + Sync,
{
    if blocks.len() <= BLOCKS_PER_PIECE || text.cores == Cores::Own {
        return blocks.write_compact(text);
    }
    text.text(b"[");
    text.flush()?;
    let pieces = pieces(blocks);
    crate::parallel::parallel_in_order(
        pieces.len(),
        |p| {
            let range = pieces[p].clone();
            if range.len() == 1 && blocks[range.start].borrow().bindings.len() > BINDINGS_PER_PIECE
            {
                return Ok(Piece::Large(range.start));
            }
            let mut held = Text::held();
            for i in range {
                held.comma(i);
                blocks[i].write_compact(&mut held)?;
            }
            Ok(Piece::Spelled(held.into_chunks()))
        },
        |piece: io::Result<Piece>| match piece? {
            Piece::Spelled(chunks) => text.send(&chunks),
            Piece::Large(i) => {
                text.comma(i);
                blocks[i].write_compact(text)?;
                text.flush()
            }
        },
    )?;
    text.text(b"]");
    Ok(())
}

impl<'w> Text<'w> {
    fn writing_to(out: &'w mut dyn Write, cores: Cores) -> Text<'w> {
        Text {
            bytes: Vec::with_capacity(2 * CHUNK),
            kept: Vec::new(),
            out: Some(out),
            cores,
            origin_file: String::new(),
            origin_file_json: b"\"\"".to_vec(),
        }
    }

    fn held() -> Text<'static> {
        Text {
            bytes: Vec::with_capacity(2 * CHUNK),
            kept: Vec::new(),
            out: None,
            cores: Cores::Own,
            origin_file: String::new(),
            origin_file_json: b"\"\"".to_vec(),
        }
    }

    /// Lets go of what is in hand once there is a chunk of it: writes it out, or keeps it.
    fn spill(&mut self) -> io::Result<()> {
        if self.bytes.len() >= CHUNK {
            match self.out.as_mut() {
                Some(out) => {
                    out.write_all(&self.bytes)?;
                    self.bytes.clear();
                }
                None => {
                    let chunk = std::mem::replace(&mut self.bytes, Vec::with_capacity(2 * CHUNK));
                    self.kept.push(chunk);
                }
            }
        }
        Ok(())
    }

    /// All the text of a text without an output, in chunks.
    fn into_chunks(mut self) -> Vec<Vec<u8>> {
        self.kept.push(std::mem::take(&mut self.bytes));
        self.kept
    }

    /// Writes out everything in hand.
    fn flush(&mut self) -> io::Result<()> {
        if let Some(out) = self.out.as_mut() {
            out.write_all(&self.bytes)?;
            self.bytes.clear();
        }
        Ok(())
    }

    /// Sends on text spelled elsewhere, after what is in hand.
    fn send(&mut self, chunks: &[Vec<u8>]) -> io::Result<()> {
        match self.out.as_mut() {
            Some(out) => {
                out.write_all(&self.bytes)?;
                self.bytes.clear();
                for chunk in chunks {
                    out.write_all(chunk)?;
                }
                Ok(())
            }
            None => {
                for chunk in chunks {
                    self.bytes.extend_from_slice(chunk);
                }
                Ok(())
            }
        }
    }

    fn finish(mut self) -> io::Result<()> {
        self.flush()
    }

    /// Text that needs no escape: what the derives write between values.
    #[inline]
    pub fn text(&mut self, text: &[u8]) {
        self.bytes.extend_from_slice(text);
    }

    fn comma(&mut self, index: usize) {
        if index > 0 {
            self.bytes.push(b',');
        }
    }

    fn string(&mut self, s: &str) {
        crate::pn::write_json_string(&mut self.bytes, s);
    }

    /// A value serde_json writes (`#[compact(serde)]`, and the rarer embedded values).
    pub fn serde<T: Serialize + ?Sized>(&mut self, value: &T) -> io::Result<()> {
        serde_json::to_writer(&mut self.bytes, value).map_err(io::Error::from)
    }
}

/// The blocks in pieces, in order: at most [`BLOCKS_PER_PIECE`] blocks and, unless one block
/// alone has more, [`BINDINGS_PER_PIECE`] of their bindings each.
fn pieces<X, B: std::borrow::Borrow<NamedBindings<X>>>(
    blocks: &[B],
) -> Vec<std::ops::Range<usize>> {
    let mut pieces = Vec::new();
    let (mut start, mut bindings) = (0, 0);
    for (i, block) in blocks.iter().enumerate() {
        let more = block.borrow().bindings.len();
        if i > start && (i - start == BLOCKS_PER_PIECE || bindings + more > BINDINGS_PER_PIECE) {
            pieces.push(start..i);
            (start, bindings) = (i, 0);
        }
        bindings += more;
    }
    if start < blocks.len() {
        pieces.push(start..blocks.len());
    }
    pieces
}

fn boolean(b: bool) -> &'static [u8] {
    if b {
        b"true"
    } else {
        b"false"
    }
}

fn push_unsigned(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        // `n % 10` is a single digit.
        digits[start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[start..]);
}

fn push_integer(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    push_unsigned(out, n.unsigned_abs());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lower::model::*;

    fn origin(file: &str, line: u32, column: u32) -> Origin {
        Origin {
            file: FileName::from(file),
            line,
            column,
            span: crate::span::Span::NONE,
        }
    }

    fn code(value: Value) -> Code<'static> {
        Code::Value(value)
    }

    /// Every shape the writer spells, with every escape, beside those it hands to serde, and
    /// every type, with and without its optional names.
    fn every_shape() -> Vec<AbstractBinding<Code<'static>>> {
        let plain = |type_: TypeModel, name: Option<&str>, producer: Option<_>| {
            AbstractBinding::Binding(Binding {
                type_,
                name: name.map(Into::into),
                override_: true,
                abstract_: false,
                producer: producer.map(Box::new),
                extras: None,
                origin: origin("bindings/x\"y\\z\u{1}\t\u{7f}é.pp", 4_294_967_295, 0),
            })
        };
        let constant = |v| Some(ProducerDescriptor::ConstantProducerDescriptor { value: code(v) });
        let strings = [
            "",
            "plain",
            "quote \" back \\ slash / solidus",
            "\u{0}\u{1}\u{8}\u{9}\u{a}\u{b}\u{c}\u{d}\u{1f} controls",
            "\u{7f} del, é, \u{1F600}, and a long run of text past eight bytes",
        ];
        let mut out: Vec<AbstractBinding<Code<'static>>> = strings
            .iter()
            .map(|s| {
                plain(
                    TypeModel::PStringType,
                    Some(s),
                    constant(Value::String((*s).into())),
                )
            })
            .collect();
        for (i, n) in [0, 1, -1, 9, 10, i64::MAX, i64::MIN]
            .into_iter()
            .enumerate()
        {
            let name = format!("n{i}");
            out.push(plain(
                TypeModel::PIntegerType,
                Some(&name),
                constant(Value::Integer(n)),
            ));
        }
        for (type_, value) in [
            (TypeModel::PBooleanType, Value::Boolean(true)),
            (TypeModel::PBooleanType, Value::Boolean(false)),
            (TypeModel::PNilType, Value::Undef),
            (TypeModel::PFloatType, Value::Float(-0.0)),
            (TypeModel::PNumericType, Value::Float(2.5e-7)),
            (
                TypeModel::PArrayType {
                    element_type: Box::new(TypeModel::PDataType),
                },
                Value::Array(vec![Value::Integer(1), Value::String("a\nb".into())].into()),
            ),
            (
                TypeModel::hash(TypeModel::PLiteralType, TypeModel::PObjectType),
                Value::Undef,
            ),
            (
                TypeModel::PHostClassType {
                    class_name: Some(TypeModel::class_name("web")),
                },
                Value::Undef,
            ),
            (
                TypeModel::PResourceType(Box::new(ResourceTypeModel {
                    type_name: "File".into(),
                    title: None,
                })),
                Value::Undef,
            ),
            (TypeModel::PRuntimeType { class_name: None }, Value::Undef),
            (
                TypeModel::PRuntimeType {
                    class_name: Some(TypeModel::class_name("Ruby::\"Class\"")),
                },
                Value::Undef,
            ),
            (TypeModel::PHostClassType { class_name: None }, Value::Undef),
            (
                TypeModel::PResourceType(Box::new(ResourceTypeModel {
                    type_name: "Exec".into(),
                    title: Some("run \"it\"\n".into()),
                })),
                Value::Undef,
            ),
            (
                TypeModel::PArrayType {
                    element_type: Box::new(TypeModel::hash(
                        TypeModel::PStringType,
                        TypeModel::PArrayType {
                            element_type: Box::new(TypeModel::PNumericType),
                        },
                    )),
                },
                Value::Undef,
            ),
            (TypeModel::PPatternType, Value::Undef),
        ] {
            out.push(plain(type_, None, constant(value)));
        }
        out.push(plain(
            TypeModel::PDataType,
            Some("variable"),
            Some(ProducerDescriptor::EvaluatingProducerDescriptor {
                expression: Code::Variable("::fqdn".into()),
            }),
        ));
        out.push(plain(
            TypeModel::PDataType,
            Some("lookup"),
            Some(ProducerDescriptor::LookupProducerDescriptor {
                type_: Box::new(TypeModel::PDataType),
                name: "other".into(),
            }),
        ));
        out.push(plain(TypeModel::PDataType, Some("abstract"), None));
        // Every other producer.
        let variable = || code(Value::String("x".into()));
        for producer in [
            ProducerDescriptor::InstanceProducerDescriptor {
                class_name: "Cls".into(),
                arguments: vec![variable(), Code::Variable("y".into())].into_boxed_slice(),
            },
            ProducerDescriptor::ProducerProducerDescriptor {
                producer: Box::new(ProducerDescriptor::OptionalProducerDescriptor {
                    producer: Box::new(ProducerDescriptor::ArrayMultibindProducerDescriptor),
                }),
            },
            ProducerDescriptor::HashMultibindProducerDescriptor,
            ProducerDescriptor::QueryProducerDescriptor {
                expression: variable(),
            },
            ProducerDescriptor::ClassesProducerDescriptor {
                included: "in".into(),
                excluded: "out".into(),
            },
            ProducerDescriptor::HieraProducerDescriptor { level: usize::MAX },
        ] {
            out.push(plain(
                TypeModel::PDataType,
                Some("producer"),
                Some(producer),
            ));
        }
        let argument =
            |name: &str, value: Option<Value>, expression: Option<Code<'static>>| NamedArgument {
                name: name.into(),
                value: value.map(code),
                expression,
            };
        out.push(AbstractBinding::Multibinding(Box::new(Multibinding {
            type_: TypeModel::hash(TypeModel::PStringType, TypeModel::PDataType),
            name: Some("the multibind".into()),
            override_: false,
            abstract_: true,
            multibind_id: None,
            producer: Some(ProducerDescriptor::HashMultibindProducerDescriptor),
            producer_args: vec![argument(
                "conflict_resolution",
                Some(Value::String("merge".into())),
                None,
            )],
            id: Some("the multibind".into()),
            origin: origin("m.pp", 9, 1),
        })));
        let rebinding = || Rebinding {
            from_type: TypeModel::PStringType,
            from_name: None,
            type_: TypeModel::PDataType,
            name: Some("to".into()),
            override_: true,
            abstract_: true,
            origin: origin("m.pp", 2, 4),
        };
        out.push(AbstractBinding::AliasBinding(Box::new(rebinding())));
        out.push(AbstractBinding::RenamedBinding(Box::new(rebinding())));
        out.push(AbstractBinding::ParametersBinding(Box::new(
            ParametersBinding {
                name: "/parameters/x".into(),
                target: "Cls".into(),
                source: Code::Variable("r".into()),
                optional: true,
                override_: false,
                producer_args: vec![argument("a", None, Some(Code::Variable("b".into())))]
                    .into_boxed_slice(),
                origin: origin("m.pp", 10, 2),
            },
        )));
        out.push(AbstractBinding::ParameterMapBinding {
            name: "/map/a/b".into(),
            mappings: vec![argument("a", Some(Value::Integer(1)), None)],
            override_: true,
            origin: origin("m.pp", 11, 2),
        });
        out.push(AbstractBinding::DependencyBinding(Box::new(
            DependencyBinding {
                from: variable(),
                arrow: "~>".into(),
                to: Code::Variable("z".into()),
                origin: origin("m.pp", 12, 2),
            },
        )));
        out.push(AbstractBinding::Binding(Binding {
            type_: TypeModel::PStringType,
            name: Some("contribution".into()),
            override_: false,
            abstract_: true,
            producer: constant(Value::String("x".into())).map(Box::new),
            extras: BindingExtras::of(
                Some("the multibind".into()),
                vec![NamedArgument {
                    name: "priority".into(),
                    value: Some(code(Value::Integer(3))),
                    expression: None,
                }]
                .into_boxed_slice(),
            ),
            origin: origin("m.pp", 1, 1),
        }));
        out.push(AbstractBinding::Rebinding(Box::new(Rebinding {
            from_type: TypeModel::PDataType,
            from_name: Some("a".into()),
            type_: TypeModel::PDataType,
            name: None,
            override_: false,
            abstract_: false,
            origin: origin("m.pp", 2, 3),
        })));
        let inner = out.clone();
        out.push(AbstractBinding::CategorizedBindings {
            predicates: vec![
                Category {
                    categorization: "node".into(),
                    value: code(Value::String("web".into())),
                },
                Category {
                    categorization: "data_center \"x\"".into(),
                    value: code(Value::Integer(-3)),
                },
            ]
            .into(),
            path: None,
            bindings: vec![AbstractBinding::CategorizedBindings {
                predicates: Box::default(),
                path: Some(Box::new(DataPath {
                    path: "nodes/%{trusted.certname}".into(),
                    template: Code::Variable("x".into()),
                    file: "nodes/web".into(),
                    unless: Vec::new(),
                })),
                bindings: inner,
                origin: origin("data/common.yaml", 7, 2),
            }],
            origin: origin("m.pp", 5, 3),
        });
        out.push(AbstractBinding::CategorizedBindings {
            predicates: Box::default(),
            path: None,
            bindings: Vec::new(),
            origin: origin("m.pp", 6, 3),
        });
        out
    }

    fn block(
        name: &str,
        bindings: Vec<AbstractBinding<Code<'static>>>,
    ) -> NamedBindings<Code<'static>> {
        NamedBindings {
            name: name.into(),
            bindings,
            origin: origin("bindings/default.pp", 1, 1),
            summary: Default::default(),
        }
    }

    fn tree(hiera: bool) -> TreeDocument<Code<'static>> {
        TreeDocument {
            format: FORMAT.into(),
            version: VERSION,
            environment: "production \"quoted\"".into(),
            environments: Environments {
                defaults: vec![NamedArgument {
                    name: "manifest".into(),
                    value: Some(code(Value::String("site.pp".into()))),
                    expression: None,
                }],
                environments: vec![EnvironmentEntry {
                    title: code(Value::String("production".into())),
                    attributes: Vec::new(),
                    origin: origin("environments.pp", 1, 1),
                }],
                dynamic: Vec::new(),
            },
            categories: EffectiveCategories {
                categories: vec![Category {
                    categorization: "common".into(),
                    value: code(Value::Boolean(true)),
                }],
            },
            layers: LayeredBindings {
                layers: vec![
                    NamedLayer {
                        name: "site".into(),
                        bindings: vec![
                            block("default", every_shape()).into(),
                            block("empty", Vec::new()).into(),
                        ],
                        providers: vec!["enc:".into()],
                    },
                    NamedLayer {
                        name: "modules".into(),
                        bindings: Vec::new(),
                        providers: Vec::new(),
                    },
                ],
            },
            hiera: if hiera {
                vec![hiera::HieraLevel {
                    place: hiera::HieraPlace::Environment,
                    module: None,
                    config: "hiera.yaml".into(),
                    bindings: "environment-hiera:/hiera.yaml".into(),
                    hierarchy: Vec::new(),
                    default_hierarchy: Vec::new(),
                    files: Vec::new(),
                }]
            } else {
                Vec::new()
            },
        }
    }

    fn written(write: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
        let mut bytes = Vec::new();
        write(&mut bytes).expect("writes");
        String::from_utf8(bytes).expect("UTF-8")
    }

    #[test]
    fn a_tree_is_written_as_serde_writes_it() {
        for hiera in [false, true] {
            let doc = tree(hiera);
            let serde_text = serde_json::to_string(&doc).expect("writes");
            assert_eq!(written(|out| write(out, &doc, Cores::Own)), serde_text);
            assert!(serde_text.contains(r#""name":"quote \" back \\ slash / solidus""#));
            assert!(serde_text.contains(r#"\u0000\u0001\b\t\n\u000b\f\r\u001f"#));
            assert!(serde_text.contains("\"n6\",") && serde_text.contains("-9223372036854775808"));
            assert_eq!(serde_text.contains(r#""hiera":"#), hiera);
        }
    }

    #[test]
    fn blocks_are_cut_into_pieces_in_order() {
        let sized = |sizes: &[usize]| -> Vec<NamedBindings<Code<'static>>> {
            sizes
                .iter()
                .map(|&n| block("b", (0..n).map(|_| every_shape().remove(1)).collect()))
                .collect()
        };
        assert_eq!(pieces(&sized(&[])), Vec::<std::ops::Range<usize>>::new());
        assert_eq!(pieces(&sized(&[1; 130])), [0..64, 64..128, 128..130]);
        assert_eq!(pieces(&sized(&[10, 5000, 10])), [0..1, 1..2, 2..3]);
        assert_eq!(pieces(&sized(&[5000, 1, 1])), [0..1, 1..3]);
        assert_eq!(pieces(&sized(&[1000, 1000, 48, 1])), [0..3, 3..4]);
    }

    #[test]
    fn a_files_model_is_written_as_serde_writes_it() {
        let json =
            |text: &str| serde_json::value::RawValue::from_string(text.into()).expect("JSON");
        let doc = FilesDocument {
            format: FORMAT.into(),
            version: VERSION,
            bindings: vec![std::sync::Arc::new(NamedBindings {
                name: "default".into(),
                bindings: vec![AbstractBinding::Binding(Binding {
                    type_: TypeModel::PDataType,
                    name: Some("k".into()),
                    override_: false,
                    abstract_: false,
                    producer: Some(Box::new(ProducerDescriptor::EvaluatingProducerDescriptor {
                        expression: json(r#"{"^":["var","::fqdn"]}"#),
                    })),
                    extras: None,
                    origin: origin("bindings/default.pp", 2, 3),
                })],
                origin: origin("bindings/default.pp", 1, 1),
                summary: Default::default(),
            })],
        };
        let serde_text = serde_json::to_string(&doc).expect("writes");
        for cores in [Cores::Own, Cores::Every] {
            assert_eq!(written(|out| write(out, &doc, cores)), serde_text);
        }
    }

    /// The text is sent out in chunks, and a layer of many blocks in pieces spelled on every
    /// core, each kept in chunks: either way the model is written whole, in order.
    #[test]
    fn a_model_larger_than_a_chunk_is_written_whole() {
        let mut doc = tree(false);
        let mut blocks: Vec<NamedBindings<Code<'static>>> = (0..200)
            .map(|i| block(&format!("b{i}"), every_shape()))
            .collect();
        // A block too large for a piece, among the others, and one of them a piece's worth.
        let large: Vec<_> = (0..BINDINGS_PER_PIECE / every_shape().len() + 1)
            .flat_map(|_| every_shape())
            .collect();
        assert!(large.len() > BINDINGS_PER_PIECE);
        blocks.insert(70, block("large", large));
        doc.layers.layers[1].bindings = blocks.into_iter().map(std::sync::Arc::new).collect();
        let serde_text = serde_json::to_string(&doc).expect("writes");
        assert!(serde_text.len() > 4 * CHUNK, "{}", serde_text.len());
        // A piece spelled on another core is kept in several chunks.
        assert!(serde_text.len() / 201 * BLOCKS_PER_PIECE > 2 * CHUNK);
        assert!(doc.layers.layers[1].bindings.len() > 3 * BLOCKS_PER_PIECE);
        for cores in [Cores::Own, Cores::Every] {
            assert_eq!(written(|out| write(out, &doc, cores)), serde_text);
        }
    }
}
