//! The bindings model as JSON (D17): Puppet 3.4's binder classes with their attribute names, a
//! `"kind"` first in every object, and new classes in the same style for what ARM-8 adds.
//!
//! Conventions: booleans are always written; absent single values are `null`; lists keep source
//! order. Puppet expressions (interpolated strings, lambdas, any value that is not a literal,
//! category value expressions) are stored as their PN JSON ([`crate::pn`]), so a reader needs no
//! Puppet parser. Literal values are plain JSON (a hash keeps its order). This module only
//! defines the shapes; [`super`] fills them.
//!
//! The shapes are generic over how an embedded expression or value is held (`X`): [`Json`] in
//! the written model, an evaluable form when the injector reads the model in memory
//! ([`super::Embed`]), so both come from one lowering. Each shape's fields are written once,
//! here: how it is read kind first, walked from one `X` to another and written as compact JSON
//! ([`compact`]) is derived from them (`puppet_bindings_model_derive`).

use crate::types::PType;
use puppet_bindings_model_derive::{KindFirst, MapSlots, WriteCompact};
use serde::{Deserialize, Deserializer, Serialize};

pub mod compact;
pub(crate) mod de;
pub mod hiera;
pub mod slots;
use serde_json::value::RawValue;

/// JSON written elsewhere (a PN expression, a literal value), embedded as it is: what `X` is
/// in the written model.
pub type Json = Box<RawValue>;

/// The model's first line of defence: the format name and version every document starts with.
pub const FORMAT: &str = "puppet-bindings-model";
pub const VERSION: u32 = 1;

/// Every JSON reader can load a model: its own structure nests at most this deep. Embedded values
/// (literals, PN expressions) nest as deep as the expression they hold, on top of it.
pub const MAX_DEPTH: usize = 100;
/// The deepest `when` nesting the check accepts: each level is two levels of JSON.
pub const MAX_WHEN_NESTING: usize = 32;
/// The most copies `or` may make of one binding (D7: one per alternative, multiplied through
/// nested `when`s). Past it the check reports the `when` and lowering leaves it out, so that a
/// few hundred bytes of `or`s cannot grow into gigabytes of model.
pub const MAX_ALTERNATIVES: usize = 64;
/// The deepest type the check accepts as declared; an inferred type deeper than this is written
/// as `PDataType` (or `PObjectType`) at that depth. With [`MAX_WHEN_NESTING`] and the deepest
/// producer chain, the model stays within [`MAX_DEPTH`].
pub const MAX_TYPE_NESTING: usize = 16;

/// The JSON Schema (draft 2020-12) of both documents, printed by `pbc schema`. Every snapshot of
/// a model in the corpus is validated against it, and every kind it defines occurs in one.
pub const SCHEMA: &str = include_str!("model.schema.json");

/// `pbc compile DIR`: a whole configuration tree.
#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
pub struct TreeDocument<X = Json> {
    #[serde(deserialize_with = "known_format")]
    pub format: String,
    pub version: u32,
    /// The environment whose files the model holds (`production` unless compiled with `--env`).
    pub environment: String,
    pub environments: Environments<X>,
    #[slots(unplaced)]
    pub categories: EffectiveCategories<X>,
    pub layers: LayeredBindings<X>,
    /// The Hiera 5 levels of the tree (D24), which `HieraProducerDescriptor`s index.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[compact(serde)]
    pub hiera: Vec<hiera::HieraLevel>,
}

/// `pbc compile FILE...`: bindings files on their own (written, never read back: a lookup
/// needs a tree's categories and layers).
#[derive(Clone, Serialize, WriteCompact)]
pub struct FilesDocument<X = Json> {
    pub format: String,
    pub version: u32,
    /// Shared, as a layer's are (see [`NamedLayer::bindings`]).
    #[compact(with = "compact::blocks")]
    pub bindings: Vec<Block<X>>,
}

/// Where a binding-like object is written: the file relative to the tree root, 1-based line and
/// column (in characters).
#[derive(Clone, Debug, Serialize, Deserialize, WriteCompact)]
pub struct Origin {
    pub file: FileName,
    pub line: u32,
    pub column: u32,
    /// Where it is in the checked sources (not written: a reader has the three fields above;
    /// [`Span::NONE`](crate::span::Span::NONE) in a model read back).
    #[serde(skip, default = "no_span")]
    pub span: crate::span::Span,
}

/// A file's name in origins: one pointer in each, the name shared by every origin of the file
/// (a 100,000-file tree's model holds nearly two million origins). Empty in the origins of a
/// check, which have no position. Written and read as a string; reading shares a name with
/// the origin read before it when they are the same, as they nearly always are.
#[derive(Clone, Default)]
pub struct FileName(Option<std::sync::Arc<smol_str::SmolStr>>);

impl FileName {
    pub fn as_str(&self) -> &str {
        self.0.as_deref().map_or("", smol_str::SmolStr::as_str)
    }

    /// `name`, sharing the name this thread read last when it is the same.
    fn read(name: &str) -> FileName {
        thread_local! {
            static LAST_READ: std::cell::RefCell<FileName> =
                std::cell::RefCell::new(FileName::default());
        }
        LAST_READ.with(|last| {
            let mut last = last.borrow_mut();
            if last.as_str() != name {
                *last = FileName::from(name);
            }
            last.clone()
        })
    }
}

impl From<&str> for FileName {
    fn from(name: &str) -> FileName {
        FileName((!name.is_empty()).then(|| std::sync::Arc::new(name.into())))
    }
}

impl From<String> for FileName {
    fn from(name: String) -> FileName {
        FileName::from(name.as_str())
    }
}

impl std::ops::Deref for FileName {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl PartialEq for FileName {
    fn eq(&self, other: &FileName) -> bool {
        // Most names compared are the one name, shared (a load names its files as the one
        // before did): told equal without reading either.
        match (&self.0, &other.0) {
            (Some(a), Some(b)) if std::sync::Arc::ptr_eq(a, b) => true,
            _ => self.as_str() == other.as_str(),
        }
    }
}

impl Eq for FileName {}

impl std::fmt::Display for FileName {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for FileName {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Serialize for FileName {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for FileName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<FileName, D::Error> {
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = FileName;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a file name")
            }
            fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<FileName, E> {
                Ok(FileName::read(name))
            }
        }
        d.deserialize_str(Name)
    }
}

/// A block as a layer holds it (see [`NamedLayer::bindings`]).
pub type Block<X = Json> = std::sync::Arc<NamedBindings<X>>;

#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
#[serde(tag = "kind")]
pub struct NamedBindings<X = Json> {
    pub name: String,
    pub bindings: Vec<AbstractBinding<X>>,
    pub origin: Origin,
    /// What the bindings bind, summed up the first time a walk for a few keys asks
    /// ([`crate::compose::Bindings::build_part`]); never written. A block is not changed once
    /// a walk has read it (layers hold blocks shared), and a copy sums itself up again.
    #[serde(skip)]
    pub summary: BlockSummary,
}

/// The summary of a block's bindings [`NamedBindings::summary`] holds, made by
/// [`crate::compose`] once per block: a language server's load keeps the blocks of the files
/// that did not change, and with them their summaries. Boxed: most blocks (those a check
/// keeps) are never summed up, and hold 16 bytes for it, not 40.
#[derive(Default)]
pub struct BlockSummary(pub std::sync::OnceLock<Box<BlockNames>>);

impl Clone for BlockSummary {
    fn clone(&self) -> BlockSummary {
        BlockSummary::default()
    }
}

/// Which names a block may bind, and which of its items a walk for other names still reads.
pub struct BlockNames {
    /// A Bloom filter of the names of its bindings at any depth of `when`s (each name sets
    /// two of its 128 bits): a name whose bits are not all set is bound nowhere in the block.
    pub bits: [u64; 2],
    /// Its top-level items that hold a contribution to a multibind or a `bind renamed`, at
    /// any depth of `when`s: what a walk for names the block does not bind reads of it.
    pub read_whatever_the_names: Box<[u32]>,
}

/// What a bindings block holds.
#[derive(Clone, Serialize, KindFirst, MapSlots, WriteCompact)]
#[serde(tag = "kind")]
#[kind_first(what = "binding")]
pub enum AbstractBinding<X = Json> {
    Binding(Binding<X>),
    Multibinding(Box<Multibinding<X>>),
    /// `when`: the predicates are ANDed; `or` gives one copy per alternative (D7).
    CategorizedBindings {
        predicates: Box<[Category<X>]>,
        /// Only for a data file (ARM-9): which requests its hierarchy path names it for.
        #[serde(skip_serializing_if = "Option::is_none")]
        path: Option<Box<DataPath<X>>>,
        bindings: Vec<AbstractBinding<X>>,
        origin: Origin,
    },
    /// ARM-8 `bind alias FROM as TO`: `TO` is bound to `FROM`'s producer; `FROM` stays.
    /// (The rare kinds are boxed: in place, each took its size in every slot of every block.)
    AliasBinding(Box<Rebinding>),
    /// ARM-8 `bind renamed FROM as TO`: as an alias, and `FROM` is erased.
    RenamedBinding(Box<Rebinding>),
    /// ARM-8 `rebind KEY`: the key's producer, bound again at this precedence.
    Rebinding(Box<Rebinding>),
    /// ARM-8 `bind parameters TARGET to R[t]`: the target's parameters come from another
    /// object's parameters (maps in `producer_args`). Boxed: it is rare, and in place it was
    /// the one variant longer than a binding, which every slot of a block then took.
    ParametersBinding(Box<ParametersBinding<X>>),
    /// ARM-8 `bind map FROM to TO { a => b }`: the parameter map `/map/FROM/TO`.
    ParameterMapBinding {
        name: Box<str>,
        mappings: Vec<NamedArgument<X>>,
        #[serde(rename = "override")]
        override_: bool,
        origin: Origin,
    },
    /// ARM-8 `bind dependency A -> B` (`~>` notifies).
    DependencyBinding(Box<DependencyBinding<X>>),
}

/// What [`AbstractBinding::DependencyBinding`] holds (written as the variant's own fields).
#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
pub struct DependencyBinding<X = Json> {
    #[slots(expression)]
    pub from: X,
    #[serde(deserialize_with = "arrow")]
    pub arrow: Box<str>,
    #[slots(expression)]
    pub to: X,
    pub origin: Origin,
}

/// What [`AbstractBinding::ParametersBinding`] holds (written as the variant's own fields).
#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
pub struct ParametersBinding<X = Json> {
    pub name: Box<str>,
    pub target: Box<str>,
    #[slots(expression)]
    pub source: X,
    pub optional: bool,
    #[serde(rename = "override")]
    pub override_: bool,
    pub producer_args: Box<[NamedArgument<X>]>,
    pub origin: Origin,
}

/// Puppet 3.4's `Binding`; a contribution when it has a multibind id. Its strings are boxed,
/// not growable, and what few bindings have (the id, options) is boxed apart: a tree's bindings
/// are held in place in their blocks (110,000 of them for a 10,000-file tree), and every word
/// a binding saves is a megabyte there (`a_binding_stays_small`). Written with Puppet's
/// attributes in Puppet's order (`multibind_id` and `producer_args` among them).
#[derive(Clone, MapSlots)]
pub struct Binding<X = Json> {
    pub type_: TypeModel,
    pub name: Option<Box<str>>,
    pub override_: bool,
    pub abstract_: bool,
    /// Boxed: in place, its 40 bytes made every slot of every block 120 bytes; boxed, a
    /// binding and a `when` take 88. A check's blocks hold only a Hiera level's producer
    /// (the rules read no other), so a check holds no box at all for most bindings.
    pub producer: Option<Box<ProducerDescriptor<X>>>,
    /// `None` when the binding has neither a multibind id nor options.
    pub extras: Option<Box<BindingExtras<X>>>,
    pub origin: Origin,
}

/// What few bindings have: the multibind a contribution is made to, and options.
#[derive(Clone, MapSlots)]
pub struct BindingExtras<X = Json> {
    pub multibind_id: Option<Box<str>>,
    pub producer_args: Box<[NamedArgument<X>]>,
}

impl<X> BindingExtras<X> {
    /// The extras of a binding with this id and options; `None` without either.
    pub fn of(
        multibind_id: Option<Box<str>>,
        producer_args: Box<[NamedArgument<X>]>,
    ) -> Option<Box<BindingExtras<X>>> {
        (multibind_id.is_some() || !producer_args.is_empty()).then(|| {
            Box::new(BindingExtras {
                multibind_id,
                producer_args,
            })
        })
    }
}

impl<X> Binding<X> {
    /// The multibind a contribution is made to; `None` for a plain binding.
    pub fn multibind_id(&self) -> Option<&str> {
        self.extras.as_ref()?.multibind_id.as_deref()
    }

    /// Its options (`producer_args`).
    pub fn producer_args(&self) -> &[NamedArgument<X>] {
        self.extras.as_ref().map_or(&[], |e| &e.producer_args)
    }
}

/// A [`Binding`] as written: its extras in place, in Puppet's order. The one shape both
/// directions share: written from borrowed fields, read into owned ones.
#[derive(Serialize, Deserialize, WriteCompact)]
struct BindingAsWritten<Type, Name, Producer, Args, Place> {
    #[serde(rename = "type")]
    type_: Type,
    name: Name,
    #[serde(rename = "override")]
    override_: bool,
    #[serde(rename = "abstract")]
    abstract_: bool,
    multibind_id: Name,
    producer: Producer,
    producer_args: Args,
    origin: Place,
}

/// A [`Binding`] as written, borrowed from it.
type BindingWritten<'b, X> = BindingAsWritten<
    &'b TypeModel,
    Option<&'b str>,
    Option<&'b ProducerDescriptor<X>>,
    &'b [NamedArgument<X>],
    &'b Origin,
>;

impl<X> Binding<X> {
    fn as_written(&self) -> BindingWritten<'_, X> {
        BindingAsWritten {
            type_: &self.type_,
            name: self.name.as_deref(),
            override_: self.override_,
            abstract_: self.abstract_,
            multibind_id: self.multibind_id(),
            producer: self.producer.as_deref(),
            producer_args: self.producer_args(),
            origin: &self.origin,
        }
    }
}

impl<X: Serialize> Serialize for Binding<X> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.as_written().serialize(s)
    }
}

impl<X: compact::WriteCompact + Serialize + Sync + Send> compact::WriteCompact for Binding<X> {
    fn write_compact(&self, text: &mut compact::Text<'_>) -> std::io::Result<()> {
        compact::WriteCompact::write_compact(&self.as_written(), text)
    }
}

impl<X: compact::WriteCompact + Serialize + Sync + Send> compact::WriteMembers for Binding<X> {
    fn write_members(&self, text: &mut compact::Text<'_>) -> std::io::Result<()> {
        compact::WriteMembers::write_members(&self.as_written(), text)
    }
}

impl<'de, X: Deserialize<'de>> Deserialize<'de> for Binding<X> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let b = BindingAsWritten::<
            TypeModel,
            Option<Box<str>>,
            Option<ProducerDescriptor<X>>,
            Box<[NamedArgument<X>]>,
            Origin,
        >::deserialize(d)?;
        Ok(Binding {
            type_: b.type_,
            name: b.name,
            override_: b.override_,
            abstract_: b.abstract_,
            producer: b.producer.map(Box::new),
            extras: BindingExtras::of(b.multibind_id, b.producer_args),
            origin: b.origin,
        })
    }
}

/// Puppet 3.4's `Multibinding`: a `Binding` that contributions name by `id` (D14).
#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
pub struct Multibinding<X = Json> {
    #[serde(rename = "type")]
    pub type_: TypeModel,
    pub name: Option<String>,
    #[serde(rename = "override")]
    pub override_: bool,
    #[serde(rename = "abstract")]
    pub abstract_: bool,
    pub multibind_id: Option<String>,
    pub producer: Option<ProducerDescriptor<X>>,
    pub producer_args: Vec<NamedArgument<X>>,
    pub id: Option<String>,
    pub origin: Origin,
}

/// `alias`, `renamed` and `rebind`: the key they read and the key they bind.
#[derive(Clone, Serialize, Deserialize, WriteCompact)]
pub struct Rebinding {
    pub from_type: TypeModel,
    pub from_name: Option<Box<str>>,
    #[serde(rename = "type")]
    pub type_: TypeModel,
    pub name: Option<Box<str>>,
    #[serde(rename = "override")]
    pub override_: bool,
    #[serde(rename = "abstract")]
    pub abstract_: bool,
    pub origin: Origin,
}

/// A `when` predicate (the value lower-cased, D9), or an effective category (the value is the
/// category's expression as PN). The category's name is held in place when it is short, as
/// nearly all are (a tree has a predicate or more per `when`).
#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
#[serde(tag = "kind")]
pub struct Category<X = Json> {
    pub categorization: smol_str::SmolStr,
    #[slots(category)]
    pub value: X,
}

/// A data file's keys apply to a request when `template` (a double-quoted Puppet string, as
/// PN), evaluated for it, gives `file` (the file's path below its data directory, without
/// extension; compared with case, as file names are, D20), and no test of `unless` (files of
/// the same hierarchy level found before it that bind the same keys) holds.
#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
#[serde(tag = "kind")]
pub struct DataPath<X = Json> {
    /// The hierarchy path as written in `hiera.yaml`.
    pub path: String,
    #[slots(expression)]
    pub template: X,
    pub file: String,
    pub unless: Vec<PathTest<X>>,
}

#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
#[serde(tag = "kind")]
pub struct PathTest<X = Json> {
    pub path: String,
    #[slots(expression)]
    pub template: X,
    pub file: String,
}

/// An option (`producer_args`), or an entry of a parameter map: `value` holds a literal,
/// `expression` the PN of anything else (a lambda, a variable ...); the other is `null`.
#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
#[serde(tag = "kind")]
pub struct NamedArgument<X = Json> {
    pub name: String,
    #[slots(literal)]
    pub value: Option<X>,
    #[slots(expression)]
    pub expression: Option<X>,
}

#[derive(Clone, Serialize, KindFirst, MapSlots, WriteCompact)]
#[serde(tag = "kind")]
#[kind_first(what = "producer")]
pub enum ProducerDescriptor<X = Json> {
    /// A literal value.
    ConstantProducerDescriptor {
        #[slots(literal)]
        value: X,
    },
    /// Any other expression, evaluated per request in its scope.
    EvaluatingProducerDescriptor {
        #[slots(expression)]
        expression: X,
    },
    /// `Type[Cls]`: an instance of the class. (The rare producers' parts are boxed: a binding
    /// holds a producer in place, and most are constants.)
    InstanceProducerDescriptor {
        class_name: Box<str>,
        #[slots(expression)]
        arguments: Box<[X]>,
    },
    /// `to producer X`: the value comes from a producer that `X` gives.
    ProducerProducerDescriptor {
        producer: Box<ProducerDescriptor<X>>,
    },
    /// A lookup of another key (`to producer 'name'` names the key of a bound producer).
    LookupProducerDescriptor {
        #[serde(rename = "type")]
        type_: Box<TypeModel>,
        name: String,
    },
    ArrayMultibindProducerDescriptor,
    HashMultibindProducerDescriptor,
    /// ARM-8 `to optional P`: a producer that produces nothing is silently ignored.
    OptionalProducerDescriptor {
        producer: Box<ProducerDescriptor<X>>,
    },
    /// ARM-8 `?? query` (D15): kept for an injector with a query service.
    QueryProducerDescriptor {
        #[slots(expression)]
        expression: X,
    },
    /// ARM-8 "Classes": `/classes` is the `included` multibind's classes minus the `excluded`
    /// one's (an include beats a lower-precedence exclude).
    ClassesProducerDescriptor {
        included: Box<str>,
        excluded: Box<str>,
    },
    /// A key of Hiera 5 data (D24): what Hiera answers for it across every level of
    /// `TreeDocument::hiera`, placed at the level `level` (which must find it for the request).
    HieraProducerDescriptor {
        level: usize,
    },
}

/// Puppet 3.4's type classes, plus `PHostClassType`, `PResourceType` and `PRuntimeType` for
/// ARM-8's classes, resources and `Type[X]`.
#[derive(Clone, Serialize, KindFirst, WriteCompact)]
#[serde(tag = "kind")]
#[kind_first(what = "type")]
pub enum TypeModel {
    PObjectType,
    PDataType,
    PLiteralType,
    PStringType,
    PIntegerType,
    PFloatType,
    PNumericType,
    PBooleanType,
    PPatternType,
    PNilType,
    PArrayType {
        element_type: Box<TypeModel>,
    },
    /// Both its types in one box: a binding holds its type in place, so every variant's
    /// payload stays one word (`a_binding_stays_small`).
    PHashType(Box<HashTypeModel>),
    /// The class's name boxed twice (one word, not the two of a `Box<str>`), for the same
    /// reason: the extra allocation is paid only by the rare types that name a class.
    PHostClassType {
        class_name: Option<Box<Box<str>>>,
    },
    /// A resource type, boxed: most bindings are of other types, and each holds its type in
    /// place.
    PResourceType(Box<ResourceTypeModel>),
    PRuntimeType {
        class_name: Option<Box<Box<str>>>,
    },
}

/// What `TypeModel::PHashType` holds (written and read as that type's own fields).
#[derive(Clone, Serialize, Deserialize, WriteCompact)]
pub struct HashTypeModel {
    pub key_type: TypeModel,
    pub element_type: TypeModel,
}

impl TypeModel {
    /// `Hash[key, element]`.
    pub fn hash(key_type: TypeModel, element_type: TypeModel) -> TypeModel {
        TypeModel::PHashType(Box::new(HashTypeModel {
            key_type,
            element_type,
        }))
    }

    /// The name of a class type or a runtime type, as the model holds it.
    pub fn class_name(name: &str) -> Box<Box<str>> {
        Box::new(Box::from(name))
    }
}

/// What `TypeModel::PResourceType` holds (written and read as that type's own fields).
#[derive(Clone, Serialize, Deserialize, WriteCompact)]
pub struct ResourceTypeModel {
    pub type_name: String,
    pub title: Option<String>,
}

#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
#[serde(tag = "kind")]
pub struct NamedLayer<X = Json> {
    pub name: String,
    /// Shared: `pbc lsp` keeps each file's block from one load of a tree to the next, and a
    /// file two layers include is one block in both.
    #[compact(with = "compact::blocks")]
    pub bindings: Vec<Block<X>>,
    /// URIs of schemes resolved by the injector (`enc:`, `*-hiera:`, providers bound in
    /// `bindings_providers`), in include order.
    pub providers: Vec<String>,
}

/// Highest layer first.
#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
#[serde(tag = "kind")]
pub struct LayeredBindings<X = Json> {
    pub layers: Vec<NamedLayer<X>>,
}

/// Highest precedence first, `common` last (D8, D10).
#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
#[serde(tag = "kind")]
pub struct EffectiveCategories<X = Json> {
    pub categories: Vec<Category<X>>,
}

/// `environments.pp` (ARM-8 "environments.pp"): attribute values as PN.
#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
#[serde(tag = "kind")]
pub struct Environments<X = Json> {
    /// `Environment { ... }`
    pub defaults: Vec<NamedArgument<X>>,
    /// `environment { 'name': ... }`
    pub environments: Vec<EnvironmentEntry<X>>,
    /// `dynamic_environments { '/dir': ... }`
    pub dynamic: Vec<EnvironmentEntry<X>>,
}

/// One environment resource body: its title (PN) and attributes.
#[derive(Clone, Serialize, Deserialize, MapSlots, WriteCompact)]
#[serde(tag = "kind")]
pub struct EnvironmentEntry<X = Json> {
    #[slots(expression)]
    pub title: X,
    pub attributes: Vec<NamedArgument<X>>,
    pub origin: Origin,
}

impl Origin {
    /// An origin at the 1-based `(line, column)` that [`SourceMap::line_col`] gives for `span`
    /// in a file named `file`. Spans are 32-bit offsets, so a line or column always fits.
    ///
    /// [`SourceMap::line_col`]: crate::span::SourceMap::line_col
    pub fn new(file: FileName, (line, column): (usize, usize), span: crate::span::Span) -> Origin {
        Origin {
            file,
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(column).unwrap_or(u32::MAX),
            span,
        }
    }
}

fn no_span() -> crate::span::Span {
    crate::span::Span::NONE
}

/// Only this format is read back (the version is checked by the reader, which can say more).
fn known_format<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let found = String::deserialize(d)?;
    if found == FORMAT {
        Ok(found)
    } else {
        Err(serde::de::Error::custom(format!(
            "the format is `{found}`, not `{FORMAT}`"
        )))
    }
}

/// A dependency's arrow, read back (`de.rs`).
fn arrow<'de, D: Deserializer<'de>>(d: D) -> Result<Box<str>, D::Error> {
    let found = String::deserialize(d)?;
    if found == "->" || found == "~>" {
        Ok(found.into())
    } else {
        Err(serde::de::Error::custom(format!(
            "a dependency's arrow is `->` or `~>`, not `{found}`"
        )))
    }
}

/// The model's type as the type system's.
pub fn ptype(t: &TypeModel) -> PType {
    match t {
        TypeModel::PObjectType => PType::Any,
        TypeModel::PDataType => PType::Data,
        TypeModel::PLiteralType => PType::Literal,
        TypeModel::PStringType => PType::String,
        TypeModel::PIntegerType => PType::Integer,
        TypeModel::PFloatType => PType::Float,
        TypeModel::PNumericType => PType::Number,
        TypeModel::PBooleanType => PType::Boolean,
        TypeModel::PPatternType => PType::Pattern,
        TypeModel::PNilType => PType::Nil,
        TypeModel::PArrayType { element_type } => PType::Array(Box::new(ptype(element_type))),
        TypeModel::PHashType(h) => PType::Hash(
            Box::new(ptype(&h.key_type)),
            Box::new(ptype(&h.element_type)),
        ),
        TypeModel::PHostClassType { class_name } => {
            PType::Class(class_name.as_deref().map(smol_str::SmolStr::new))
        }
        TypeModel::PResourceType(r) => PType::Resource {
            type_name: r.type_name.as_str().into(),
            title: r.title.as_deref().map(smol_str::SmolStr::new),
        },
        TypeModel::PRuntimeType { class_name } => {
            PType::Runtime(class_name.as_deref().map(smol_str::SmolStr::new))
        }
    }
}

/// [`Value::is_instance`](crate::eval::Value::is_instance) of the model's type, without
/// converting it: an Array or Hash type would be built anew for every value checked.
pub fn model_admits(v: &crate::eval::Value, t: &TypeModel) -> bool {
    use crate::eval::Value;
    match (t, v) {
        (TypeModel::PArrayType { element_type }, Value::Array(items)) => {
            items.iter().all(|item| model_admits(item, element_type))
        }
        (TypeModel::PHashType(h), Value::Hash(map)) => map
            .iter()
            .all(|(k, x)| model_admits(k, &h.key_type) && model_admits(x, &h.element_type)),
        (TypeModel::PArrayType { .. } | TypeModel::PHashType(_), _) => false,
        (other, v) => v.is_instance(&ptype(other)),
    }
}

/// [`PType::is_data`] on the model's type, without converting it.
pub fn model_is_data(t: &TypeModel) -> bool {
    match t {
        TypeModel::PDataType => true,
        TypeModel::PArrayType { element_type } => model_is_data(element_type),
        TypeModel::PHashType(h) => model_is_literal(&h.key_type) && model_is_data(&h.element_type),
        other => model_is_literal(other),
    }
}

fn model_is_literal(t: &TypeModel) -> bool {
    matches!(
        t,
        TypeModel::PLiteralType
            | TypeModel::PStringType
            | TypeModel::PIntegerType
            | TypeModel::PFloatType
            | TypeModel::PNumericType
            | TypeModel::PBooleanType
            | TypeModel::PPatternType
            | TypeModel::PNilType
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tree's model is mostly its bindings, each in a slot of this size: a larger field in
    /// any variant makes every slot larger (a resource type, a hash type, a data path, a
    /// producer, the multibinding, the rebindings, the dependency and the parameters binding
    /// are boxed for this, and a `when`'s predicates are a box, not a growable list, so that
    /// a binding's flags leave room for the variant's tag).
    #[test]
    fn a_binding_stays_small() {
        use crate::eval::code::Code;
        assert!(std::mem::size_of::<AbstractBinding<Code>>() <= 88);
        assert!(std::mem::size_of::<Origin>() <= 32);
        assert!(std::mem::size_of::<TypeModel>() <= 16);
    }

    /// Origins read from a model share their file's name with the origin read before them
    /// when it is the same, and write it back as they read it.
    #[test]
    fn origins_read_share_their_file_names() {
        let json = r#"[{"file": "a.pp", "line": 1, "column": 2},
            {"file": "a.pp", "line": 3, "column": 4},
            {"file": "modules/a_module_with_a_long_name/bindings/b.pp", "line": 5, "column": 6},
            {"file": "modules/a_module_with_a_long_name/bindings/b.pp", "line": 7, "column": 8},
            {"file": "", "line": 0, "column": 0}]"#;
        let origins: Vec<Origin> = serde_json::from_str(json).expect("origins");
        let shared = |a: &Origin, b: &Origin| match (&a.file.0, &b.file.0) {
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
            _ => false,
        };
        assert!(shared(&origins[0], &origins[1]));
        assert!(shared(&origins[2], &origins[3]));
        assert!(!shared(&origins[1], &origins[2]));
        assert!(origins[4].file.0.is_none());
        let names: Vec<&str> = origins.iter().map(|o| o.file.as_str()).collect();
        assert_eq!(
            names,
            [
                "a.pp",
                "a.pp",
                "modules/a_module_with_a_long_name/bindings/b.pp",
                "modules/a_module_with_a_long_name/bindings/b.pp",
                ""
            ]
        );
        let written = serde_json::to_value(&origins).expect("written");
        let read: serde_json::Value = serde_json::from_str(json).expect("json");
        assert_eq!(written, read);
    }

    /// The type check on the model agrees with the type system's on every kind of type and
    /// value, nested ones included.
    #[test]
    fn model_admits_what_the_type_system_admits() {
        use crate::eval::{Map, Value};
        let scalars = scalar_types();
        let mut types: Vec<TypeModel> = scalars.clone();
        for element in scalars.iter().take(6) {
            let array = TypeModel::PArrayType {
                element_type: Box::new(element.clone()),
            };
            let hash = TypeModel::hash(TypeModel::PStringType, element.clone());
            types.push(TypeModel::PArrayType {
                element_type: Box::new(hash.clone()),
            });
            types.push(array);
            types.push(hash);
        }
        let mut map = Map::new();
        map.insert(Value::string("port"), Value::Integer(8004));
        let mut odd = Map::new();
        odd.insert(Value::Integer(1), Value::string("x"));
        let values = [
            Value::Undef,
            Value::Boolean(true),
            Value::Integer(3),
            Value::Float(1.5),
            Value::string("a"),
            Value::array(vec![]),
            Value::array(vec![Value::string("a"), Value::Integer(3)]),
            Value::array(vec![Value::Integer(1), Value::Integer(2)]),
            Value::array(vec![Value::hash(map.clone())]),
            Value::array(vec![Value::Undef]),
            Value::hash(Map::new()),
            Value::hash(map),
            Value::hash(odd),
        ];
        for t in &types {
            for v in &values {
                assert_eq!(
                    model_admits(v, t),
                    v.is_instance(&ptype(t)),
                    "{v:?} as {}",
                    ptype(t)
                );
            }
        }
    }

    /// Every type that holds no other type.
    fn scalar_types() -> Vec<TypeModel> {
        vec![
            TypeModel::PObjectType,
            TypeModel::PDataType,
            TypeModel::PLiteralType,
            TypeModel::PStringType,
            TypeModel::PIntegerType,
            TypeModel::PFloatType,
            TypeModel::PNumericType,
            TypeModel::PBooleanType,
            TypeModel::PPatternType,
            TypeModel::PNilType,
            TypeModel::PHostClassType { class_name: None },
            TypeModel::PResourceType(Box::new(ResourceTypeModel {
                type_name: "File".into(),
                title: None,
            })),
            TypeModel::PRuntimeType { class_name: None },
        ]
    }

    /// Every kind of type is written with its fields beside its `kind` (a boxed resource type
    /// too) and read back as it was written.
    #[test]
    fn types_are_written_flat_and_read_back() {
        let mut types = scalar_types();
        types.push(TypeModel::PResourceType(Box::new(ResourceTypeModel {
            type_name: "File".into(),
            title: Some("/etc/motd".into()),
        })));
        types.push(TypeModel::PHostClassType {
            class_name: Some(TypeModel::class_name("ntp")),
        });
        for t in types {
            let text = serde_json::to_string(&t).unwrap_or_default();
            let back: TypeModel = serde_json::from_str(&text).expect("a type");
            assert_eq!(serde_json::to_string(&back).unwrap_or_default(), text);
        }
        let file = TypeModel::PResourceType(Box::new(ResourceTypeModel {
            type_name: "File".into(),
            title: Some("x".into()),
        }));
        assert_eq!(
            serde_json::to_string(&file).unwrap_or_default(),
            r#"{"kind":"PResourceType","type_name":"File","title":"x"}"#
        );
    }

    /// The shortcut on the model agrees with the type system on every kind of type.
    #[test]
    fn model_is_data_agrees_with_the_type_system() {
        let scalar = scalar_types;
        let mut all = scalar();
        for e in scalar() {
            all.push(TypeModel::PArrayType {
                element_type: Box::new(e),
            });
        }
        // Every key kind against every value kind.
        for k in scalar() {
            for v in scalar() {
                all.push(TypeModel::hash(
                    k.clone(),
                    TypeModel::PArrayType {
                        element_type: Box::new(v),
                    },
                ));
            }
        }
        for t in &all {
            assert_eq!(model_is_data(t), ptype(t).is_data(), "{}", ptype(t));
        }
    }
}
