//! Lowering: from checked ASTs to the bindings model ([`model`]), and the composition facts the
//! model needs (which files form each layer, which key each binding defines).
//!
//! It reads ASTs that `validate` has judged and must not report rule violations itself: where a
//! construct cannot be lowered it is skipped, because the validator has already said why (and a
//! compile with errors writes no model). [`layers`] resolves the site's layers against the tree;
//! [`keys`] derives binding keys (D12 and the ARM-8 naming scheme); `validate` reuses both.

pub mod cache;
mod embed;
pub mod keys;
pub mod layers;
pub mod model;
pub mod read;

use crate::ast::{
    self, BindFlags, BindItem, BindKey, BindOpKind, BindOperation, BindOption, BindingsBlock,
    DependencyArrow, Expr, ExprKind, Lambda, OptionValue, Predicate, Producer, ProducerKind,
    Program, SiteItem,
};
use crate::span::{SourceMap, Span};
use crate::tree::FileRole;
use crate::types::PType;
use model::*;

/// How lowering holds a Puppet expression or value inside the model: as JSON ([`PnJson`]: PN
/// for expressions, plain JSON for literals) when the model is written, or in a form the
/// injector evaluates when it reads the model in memory. Lowering itself is the same for both.
/// Blocks lower on every core: an embedding is shared by them, and what it makes is sent back.
pub trait Embed<'a>: Sync {
    type X: Send + Sync + Clone;
    /// An expression evaluated per request.
    fn expression(&self, e: &'a Expr) -> Self::X;
    /// `e` as a literal value, or `None` when it needs evaluating.
    fn literal(&self, e: &'a Expr) -> Option<Self::X>;
    /// An option's lambda.
    fn lambda(&self, l: &'a Lambda) -> Self::X;
    /// A string pbc computed (a lower-cased predicate value, a class name).
    fn string(&self, s: &str) -> Self::X;
    /// A variable reference pbc adds (the implied `node` and `environment` categories).
    fn variable(&self, name: &str) -> Self::X;
    fn boolean(&self, b: bool) -> Self::X;
    fn undef(&self) -> Self::X;
    /// What a binding produces when it is a literal: [`Embed::literal`] unless the embedding
    /// holds produced values otherwise.
    fn produced_literal(&self, e: &'a Expr) -> Option<Self::X> {
        self.literal(e)
    }
    /// What a binding produces when it is evaluated: [`Embed::expression`] unless the
    /// embedding holds produced values otherwise.
    fn produced_expression(&self, e: &'a Expr) -> Self::X {
        self.expression(e)
    }
    /// Whether the blocks are for a model (written, or run by the injector), not only for the
    /// check. Only a model needs its origins' file names, lines and columns (computing them
    /// for every binding is most of a large tree's lowering) and what each binding produces
    /// (its literal value or its expression). The check reads a binding's key, type, flags,
    /// options and place, never its value: without values its blocks hold a sixth less, and
    /// nothing is copied out of a file's tree for them. A binding lowered without its value
    /// has no producer, unless it is a Hiera level's (which the rules read).
    fn for_model(&self) -> bool {
        true
    }
}

/// The written model: PN JSON for expressions and lambdas, plain JSON for literal values.
pub struct PnJson;

impl<'a> Embed<'a> for PnJson {
    type X = Json;
    fn expression(&self, e: &'a Expr) -> Json {
        embed(crate::pn::expr_to_json(e))
    }
    fn literal(&self, e: &'a Expr) -> Option<Json> {
        literal_json(e).map(embed)
    }
    fn lambda(&self, l: &'a Lambda) -> Json {
        embed(crate::pn::lambda_to_json(l))
    }
    fn string(&self, s: &str) -> Json {
        let mut out = String::new();
        crate::pn::write_json_string(&mut out, s);
        embed(out)
    }
    fn variable(&self, name: &str) -> Json {
        let mut out = String::from(r#"{"^":["var","#);
        crate::pn::write_json_string(&mut out, name);
        out.push_str("]}");
        embed(out)
    }
    fn boolean(&self, b: bool) -> Json {
        embed(b.to_string())
    }
    fn undef(&self) -> Json {
        embed("null".into())
    }
}

/// The injector's code written as [`PnJson`] embeds it, byte for byte: a literal's value as
/// JSON, an expression or a lambda as PN, a variable pbc adds as a `var` PN. `pbc compile`
/// writes a tree's model from the model its check judged (lowered once for both), so
/// [`ForInjection`](crate::eval::code::ForInjection) and [`PnJson`] must embed the same Puppet
/// the same way.
impl serde::Serialize for crate::eval::code::Code<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use crate::eval::code::Code;
        use crate::eval::Value;
        let json = match self {
            // A scalar is written by the serializer itself, as it writes the model's own
            // strings and numbers (the same escapes as PN's strings): no text to make and
            // check for each of the commonest values.
            Code::Value(Value::String(s)) => return serializer.serialize_str(s),
            Code::Value(Value::Integer(i)) => return serializer.serialize_i64(*i),
            Code::Value(Value::Boolean(b)) => return serializer.serialize_bool(*b),
            Code::Value(Value::Undef) => return serializer.serialize_unit(),
            // Arrays and hashes stay on one line inside an indented model, as embedded JSON.
            Code::Value(value) => {
                let mut out = String::new();
                write_value(value, &mut out);
                embed(out)
            }
            Code::Expr(e) | Code::Template(e, _) => PnJson.expression(e),
            Code::Lambda(l) => PnJson.lambda(l),
            Code::Variable(name) => PnJson.variable(name),
            Code::Spelled(spelled) => embed(spelled.text().to_string()),
        };
        json.serialize(serializer)
    }
}

/// One checked file to lower.
pub struct LowerInput<'a> {
    pub role: &'a FileRole,
    pub program: &'a Program,
}

/// Lowers bindings files on their own (`pbc compile FILE...`): one `NamedBindings` per block.
pub fn compile_files<'a, E: Embed<'a>>(
    files: &SourceMap,
    origin_names: &[FileName],
    inputs: &[LowerInput<'a>],
    embed: E,
) -> FilesDocument<E::X> {
    let lowerer = Lowerer {
        files,
        origin_names,
        embed,
    };
    let mut bindings = Vec::new();
    for input in inputs {
        for block in input.program.bindings_blocks() {
            bindings.push(std::sync::Arc::new(lowerer.named_bindings(block)));
        }
    }
    FilesDocument {
        format: FORMAT.to_string(),
        version: VERSION,
        bindings,
    }
}

/// The first bindings block of a file (the one a tree's layers take), lowered on its own: what
/// `pbc check` and `pbc compile` keep of a bindings file once it is parsed, instead of its tree.
pub fn lower_block<'a, E: Embed<'a>>(
    files: &SourceMap,
    origin_names: &[FileName],
    program: &'a Program,
    embed: E,
) -> Option<NamedBindings<E::X>> {
    let lowerer = Lowerer {
        files,
        origin_names,
        embed,
    };
    let block = program.bindings_blocks().next()?;
    Some(lowerer.named_bindings(block))
}

/// Lowers a whole tree (`pbc compile DIR`): environments, effective categories and the layers,
/// each holding the bindings files its URIs resolve to, then the system layer.
pub fn compile_tree<'a, E: Embed<'a>>(
    files: &SourceMap,
    origin_names: &[FileName],
    inputs: &[LowerInput<'a>],
    embed: E,
) -> TreeDocument<E::X> {
    compile_tree_from(files, origin_names, inputs, Vec::new(), embed)
}

/// [`compile_tree`] where some inputs' blocks are `lowered` already (by input, from
/// [`lower_block`] with an embedding that gives the code `embed` gives, such as
/// `eval::code::Detached` for `ForInjection`): those are shared with their layers (and
/// whoever else holds them), and their programs' items are not read.
pub fn compile_tree_from<'a, E: Embed<'a>>(
    files: &SourceMap,
    origin_names: &[FileName],
    inputs: &[LowerInput<'a>],
    mut lowered: Vec<Option<Block<E::X>>>,
    embed: E,
) -> TreeDocument<E::X> {
    lowered.resize_with(inputs.len(), || None);
    let has_lowered: Vec<bool> = lowered.iter().map(Option::is_some).collect();
    let lowerer = Lowerer {
        files,
        origin_names,
        embed,
    };
    let mut environments = Environments {
        defaults: Vec::new(),
        environments: Vec::new(),
        dynamic: Vec::new(),
    };
    for item in site_items(inputs) {
        match item {
            SiteItem::EnvironmentDefaults { ops, .. } => environments
                .defaults
                .extend(ops.iter().map(|op| lowerer.argument(&op.name, &op.value))),
            SiteItem::Environment { bodies, .. } => environments
                .environments
                .extend(bodies.iter().map(|b| lowerer.environment(b))),
            SiteItem::DynamicEnvironments { bodies, .. } => environments
                .dynamic
                .extend(bodies.iter().map(|b| lowerer.environment(b))),
            _ => {}
        }
    }
    let (composed, blocks) = composed_layers(inputs);
    // Each block lowers on its own: on every core, then handed to its layers in order.
    let jobs: Vec<usize> = composed
        .iter()
        .flat_map(|l| l.files.iter().copied())
        .collect();
    let fresh = crate::parallel::parallel_map(jobs.len(), |j| {
        let (input, block) = blocks[jobs[j]];
        (!has_lowered[input]).then(|| std::sync::Arc::new(lowerer.named_bindings(block)))
    });
    // By input, where its block went first: a second layer with the file shares it.
    let mut first_at: Vec<Option<usize>> = vec![None; inputs.len()];
    let mut in_order: Vec<Block<E::X>> = Vec::with_capacity(jobs.len());
    for (j, fresh) in fresh.into_iter().enumerate() {
        let input = blocks[jobs[j]].0;
        let block = fresh
            .or_else(|| lowered[input].take())
            .or_else(|| first_at[input].map(|first| in_order[first].clone()))
            .unwrap_or_else(|| std::sync::Arc::new(lowerer.named_bindings(blocks[jobs[j]].1)));
        first_at[input].get_or_insert(j);
        in_order.push(block);
    }
    let mut lowered = in_order.into_iter();
    let mut named_layers: Vec<NamedLayer<E::X>> = composed
        .into_iter()
        .map(|l| NamedLayer {
            name: l.name,
            bindings: lowered.by_ref().take(l.files.len()).collect(),
            providers: l.external,
        })
        .collect();
    named_layers.push(system_layer());
    TreeDocument {
        format: FORMAT.to_string(),
        version: VERSION,
        environment: crate::tree::DEFAULT_ENVIRONMENT.to_string(),
        environments,
        categories: EffectiveCategories {
            categories: tree_categories(inputs, &lowerer.embed),
        },
        layers: LayeredBindings {
            layers: named_layers,
        },
        hiera: Vec::new(),
    }
}

/// Every item of every `site { }` of `inputs`, in order.
fn site_items<'i, 'a>(
    inputs: &'i [LowerInput<'a>],
) -> impl Iterator<Item = &'a SiteItem> + use<'i, 'a> {
    inputs
        .iter()
        .flat_map(|input| input.program.body.iter())
        .filter_map(|e| match &e.kind {
            ExprKind::Site(site) => Some(site.items.iter()),
            _ => None,
        })
        .flatten()
}

/// The categories a request of the tree has, highest first: the first `categories` a site of
/// `inputs` declares (ARM-9's defaults without one), with `node`, `environment` and `common`
/// where D8 puts them.
pub fn tree_categories<'a, E: Embed<'a>>(
    inputs: &[LowerInput<'a>],
    embed: &E,
) -> Vec<Category<E::X>> {
    let declared = site_items(inputs).find_map(|item| match item {
        SiteItem::Categories { entries, .. } => Some(
            entries
                .iter()
                .map(|c| Category {
                    categorization: c.name.clone(),
                    value: embed.expression(&c.value),
                })
                .collect(),
        ),
        _ => None,
    });
    effective_categories(
        declared.unwrap_or_else(|| {
            DEFAULT_CATEGORIES
                .iter()
                .map(|name| Category {
                    categorization: (*name).into(),
                    value: embed.variable(&format!("::{name}")),
                })
                .collect()
        }),
        embed,
    )
}

/// The site's layers as written (its first layer list), else D11's.
fn layer_specs(inputs: &[LowerInput]) -> Vec<layers::LayerSpec> {
    site_items(inputs)
        .find_map(|item| match item {
            SiteItem::Layers { layers: l, .. } => Some(l.iter().map(layers::spec_of).collect()),
            _ => None,
        })
        .unwrap_or_else(layers::default_layers)
}

/// Whether a layer of the site reads the data of each `hiera.yaml` of `levels` (a module, or
/// `None` for the site's, and its directory): one its includes name and its excludes leave in.
pub fn hiera_levels_placed(inputs: &[LowerInput], levels: &[(Option<&str>, &str)]) -> Vec<bool> {
    let sources: Vec<layers::BindingsSource> = levels
        .iter()
        .map(|&(module, dir)| layers::BindingsSource {
            module,
            name: "",
            hiera: Some(dir),
        })
        .collect();
    let (composed, _) = layers::compose(&layer_specs(inputs), &sources);
    let mut placed = vec![false; levels.len()];
    for &f in composed.iter().flat_map(|l| &l.files) {
        placed[f] = true;
    }
    placed
}

/// The site's layers (its first layer list, else D11's) resolved against the bindings files of
/// `inputs`; each layer's files index the second list: (input index, its `bindings` block).
fn composed_layers<'a>(
    inputs: &[LowerInput<'a>],
) -> (Vec<layers::ComposedLayer>, Vec<(usize, &'a BindingsBlock)>) {
    let specs = layer_specs(inputs);
    // Room for every input at once: most of a large tree's are bindings files, and lists
    // grown by doubling are copied each time.
    let mut sources = Vec::with_capacity(inputs.len());
    let mut blocks = Vec::with_capacity(inputs.len());
    for (i, input) in inputs.iter().enumerate() {
        if let Some(source) = layers::BindingsSource::of(input.role) {
            if let Some(block) = input.program.bindings_blocks().next() {
                sources.push(source);
                blocks.push((i, block));
            }
        }
    }
    // Hiera's global level (`--hiera-config`) is a layer of its own above the site's (D24).
    let mut specs: Vec<layers::LayerSpec> = specs;
    if sources.iter().any(layers::BindingsSource::is_global_hiera) {
        specs.insert(0, layers::global_hiera_layer());
    }
    (layers::compose(&specs, &sources).0, blocks)
}

/// The layers of a tree as [`compile_tree`] composes them, without the system layer
/// ([`system_layer`]): each layer's name and the inputs whose blocks it holds, in order.
pub fn layer_placement(inputs: &[LowerInput]) -> Vec<(String, Vec<usize>)> {
    let (composed, blocks) = composed_layers(inputs);
    composed
        .into_iter()
        .map(|l| (l.name, l.files.iter().map(|&f| blocks[f].0).collect()))
        .collect()
}

/// The bindings files of a tree that no layer includes (indexes into `inputs`): their
/// bindings never apply, and `pbc lookup` says so for a key only they bind.
pub fn unplaced_files(inputs: &[LowerInput]) -> Vec<usize> {
    let (composed, blocks) = composed_layers(inputs);
    let mut placed = vec![false; blocks.len()];
    for f in composed.iter().flat_map(|l| &l.files) {
        placed[*f] = true;
    }
    blocks
        .into_iter()
        .zip(placed)
        .filter(|(_, placed)| !placed)
        .map(|((i, _), _)| i)
        .collect()
}

/// D10: the categories between `node` and `environment` when the site declares none (ARM-9's
/// default configuration), each the fact of its name.
pub const DEFAULT_CATEGORIES: [&str; 2] = ["operatingsystem", "osfamily"];

/// D8/D10: `node` first when missing (`$::fqdn`), `environment` always `$environment` and just
/// above `common` when missing, `common` last.
fn effective_categories<'a, E: Embed<'a>>(
    declared: Vec<Category<E::X>>,
    embed: &E,
) -> Vec<Category<E::X>> {
    let mut out: Vec<Category<E::X>> = Vec::with_capacity(declared.len() + 3);
    if !declared.iter().any(|c| c.categorization == "node") {
        out.push(Category {
            categorization: "node".into(),
            value: embed.variable("::fqdn"),
        });
    }
    let mut has_environment = false;
    for c in declared {
        if c.categorization == "environment" {
            has_environment = true;
            out.push(Category {
                categorization: c.categorization,
                value: embed.variable("environment"),
            });
        } else if c.categorization != "common" {
            out.push(c);
        }
    }
    if !has_environment {
        out.push(Category {
            categorization: "environment".into(),
            value: embed.variable("environment"),
        });
    }
    out.push(Category {
        categorization: "common".into(),
        value: embed.boolean(true),
    });
    out
}

/// The name of the layer pbc adds below the site's: the system multibinds and `/classes`.
pub const SYSTEM_LAYER: &str = "puppet-default";

/// The multibinds every injector has (ARM-8 "Binding Classes", "Custom Bindings Provider") and
/// `/classes`, in the lowest layer.
pub fn system_layer<X>() -> NamedLayer<X> {
    let origin = Origin {
        file: "<system>".into(),
        line: 0,
        column: 0,
        span: Span::NONE,
    };
    let array_of_strings = || TypeModel::PArrayType {
        element_type: Box::new(TypeModel::PStringType),
    };
    let multibind = |name: &str, type_: TypeModel, producer: ProducerDescriptor<X>| {
        AbstractBinding::Multibinding(Box::new(Multibinding {
            type_,
            name: Some(name.into()),
            override_: false,
            abstract_: false,
            multibind_id: None,
            producer: Some(producer),
            producer_args: Vec::new(),
            id: Some(name.into()),
            origin: origin.clone(),
        }))
    };
    let bindings = vec![
        multibind(
            "included_classes",
            array_of_strings(),
            ProducerDescriptor::ArrayMultibindProducerDescriptor,
        ),
        multibind(
            "excluded_classes",
            array_of_strings(),
            ProducerDescriptor::ArrayMultibindProducerDescriptor,
        ),
        multibind(
            "bindings_providers",
            TypeModel::hash(
                TypeModel::PStringType,
                TypeModel::PRuntimeType { class_name: None },
            ),
            ProducerDescriptor::HashMultibindProducerDescriptor,
        ),
        AbstractBinding::Binding(Binding {
            type_: array_of_strings(),
            name: Some("/classes".into()),
            override_: false,
            abstract_: false,
            producer: Some(Box::new(ProducerDescriptor::ClassesProducerDescriptor {
                included: "included_classes".into(),
                excluded: "excluded_classes".into(),
            })),
            extras: None,
            origin: origin.clone(),
        }),
    ];
    NamedLayer {
        name: SYSTEM_LAYER.into(),
        bindings: vec![std::sync::Arc::new(NamedBindings {
            name: "puppet::default".into(),
            bindings,
            origin,
            summary: Default::default(),
        })],
        providers: Vec::new(),
    }
}

/// Embeds JSON that pbc wrote itself (PN, a literal). pbc's writers emit valid JSON; should one
/// not, `null` keeps the document valid.
fn embed(json: String) -> Json {
    serde_json::value::RawValue::from_string(json).unwrap_or_default()
}

struct Lowerer<'s, E> {
    files: &'s SourceMap,
    origin_names: &'s [FileName],
    embed: E,
}

impl<'a, E: Embed<'a>> Lowerer<'_, E> {
    fn origin(&self, span: Span) -> Origin {
        if !self.embed.for_model() {
            return Origin {
                file: FileName::default(),
                line: 0,
                column: 0,
                span,
            };
        }
        let file = match self.origin_names.get(span.file.0 as usize) {
            Some(n) => n.clone(),
            None => self.files.name(span.file).into(),
        };
        Origin::new(file, self.files.line_col(span.file, span.start), span)
    }

    fn named_bindings(&self, block: &'a BindingsBlock) -> NamedBindings<E::X> {
        NamedBindings {
            name: block.name.to_string(),
            bindings: self.items(&block.items, 1),
            origin: self.origin(block.span),
            summary: Default::default(),
        }
    }

    /// `copies`: how many copies of `items` the `or`s around them make.
    fn items(&self, items: &'a [BindItem], copies: usize) -> Vec<AbstractBinding<E::X>> {
        // Most items are one binding; an `or` or a `map` may add more.
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            match item {
                BindItem::When {
                    condition,
                    items,
                    span,
                    path,
                } => {
                    // D7: one copy per alternative of an `or`; past the limit the check has
                    // reported the `when` (TOO_MANY_ALTERNATIVES), and it is left out.
                    let copies = copies.saturating_mul(condition.len());
                    if copies > MAX_ALTERNATIVES {
                        continue;
                    }
                    for conjunction in condition {
                        out.push(AbstractBinding::CategorizedBindings {
                            predicates: conjunction.iter().map(|p| self.predicate(p)).collect(),
                            path: path.as_deref().map(|p| Box::new(self.data_path(p))),
                            bindings: self.items(items, copies),
                            origin: self.origin(*span),
                        });
                    }
                }
                BindItem::Operation(op) => self.operation(op, &mut out),
                BindItem::Error { .. } => {}
            }
        }
        out
    }

    fn data_path(&self, path: &'a ast::DataPath) -> DataPath<E::X> {
        DataPath {
            path: path.this.path.to_string(),
            template: self.embed.expression(&path.this.template),
            file: path.this.file.to_string(),
            unless: path
                .unless
                .iter()
                .map(|t| PathTest {
                    path: t.path.to_string(),
                    template: self.embed.expression(&t.template),
                    file: t.file.to_string(),
                })
                .collect(),
        }
    }

    /// D9: literal values compared case-insensitively, so stored lower-cased.
    fn predicate(&self, p: &'a Predicate) -> Category<E::X> {
        let value = match &p.value {
            // Only `common` may go without a value, and its value is never compared.
            None => self.embed.string("true"),
            Some(v) => match predicate_text(v) {
                // Most values are ASCII and lower case already: they are taken as they are.
                Some(text) if text.is_ascii() && !text.bytes().any(|b| b.is_ascii_uppercase()) => {
                    self.embed.string(text)
                }
                Some(text) => self.embed.string(&text.to_lowercase()),
                None => self.embed.expression(v),
            },
        };
        Category {
            categorization: p.category.clone(),
            value,
        }
    }

    fn operation(&self, op: &'a BindOperation, out: &mut Vec<AbstractBinding<E::X>>) {
        let origin = self.origin(op.span);
        match &op.kind {
            BindOpKind::Bind { .. } => self.bind(&op.kind, origin, out),
            BindOpKind::Multibind {
                flags,
                key,
                id,
                producer,
                options,
            } => {
                let (declared, name) = split_key(key);
                let type_ = declared
                    .and_then(|t| PType::from_expr(t).ok())
                    .unwrap_or_else(PType::hash_of_data);
                let name = name.and_then(|n| n.literal_text()).map(str::to_string);
                let id = match id {
                    Some(e) => e.literal_text().map(str::to_string),
                    None => name.clone(), // D14
                };
                let producer = match producer {
                    Some(p) => Some(self.producer(p)),
                    None if matches!(type_, PType::Array(_)) => {
                        Some(ProducerDescriptor::ArrayMultibindProducerDescriptor)
                    }
                    None => Some(ProducerDescriptor::HashMultibindProducerDescriptor),
                };
                out.push(AbstractBinding::Multibinding(Box::new(Multibinding {
                    type_: type_model(&type_),
                    name,
                    override_: flags.override_.is_some(),
                    abstract_: flags.abstract_.is_some(),
                    multibind_id: None,
                    producer,
                    producer_args: self.options(options),
                    id,
                    origin,
                })));
            }
            BindOpKind::Map {
                flags,
                from,
                to,
                options,
            } => {
                let name = format!(
                    "/map/{}/{}",
                    keys::param_target(from).unwrap_or_else(|| "?".into()),
                    keys::param_target(to).unwrap_or_else(|| "?".into())
                );
                out.push(AbstractBinding::ParameterMapBinding {
                    name: name.into(),
                    mappings: self.options(options),
                    override_: flags.override_.is_some(),
                    origin,
                });
            }
            BindOpKind::Alias {
                flags, from, to, ..
            } => out.push(AbstractBinding::AliasBinding(Box::new(
                self.rebinding(flags, from, to, origin),
            ))),
            BindOpKind::Renamed {
                flags, from, to, ..
            } => out.push(AbstractBinding::RenamedBinding(Box::new(
                self.rebinding(flags, from, to, origin),
            ))),
            BindOpKind::Rebind { flags, key, .. } => out.push(AbstractBinding::Rebinding(
                Box::new(self.rebinding(flags, key, key, origin)),
            )),
            BindOpKind::Include { classes } => {
                self.class_contributions(classes, "included_classes", out)
            }
            BindOpKind::Exclude { classes } => {
                self.class_contributions(classes, "excluded_classes", out)
            }
            BindOpKind::Dependency {
                from, arrow, to, ..
            } => out.push(AbstractBinding::DependencyBinding(Box::new(
                model::DependencyBinding {
                    from: self.embed.expression(from),
                    arrow: match arrow {
                        DependencyArrow::Before => "->",
                        DependencyArrow::Notify => "~>",
                    }
                    .into(),
                    to: self.embed.expression(to),
                    origin,
                },
            ))),
        }
    }

    fn bind(&self, kind: &'a BindOpKind, origin: Origin, out: &mut Vec<AbstractBinding<E::X>>) {
        let BindOpKind::Bind {
            flags,
            key,
            producer,
            contributes_to,
            options,
        } = kind
        else {
            return;
        };
        let (producer, contributes_to) = (producer.as_ref(), contributes_to.as_ref());
        let override_ = flags.override_.is_some();
        let abstract_ = flags.abstract_.is_some();
        let multibind_id = contributes_to
            .and_then(|e| e.literal_text())
            .map(str::to_string);
        let value = producer.and_then(|p| match &p.producer {
            ProducerKind::Value { expr } => Some(expr),
            ProducerKind::Producer { .. } | ProducerKind::Hiera { .. } => None,
        });
        let optional = producer.is_some_and(|p| p.optional);
        match key {
            BindKey::Parameters { target } => {
                let target_name = keys::param_target(target).unwrap_or_else(|| "?".into());
                match value.map(|v| &v.kind) {
                    Some(ExprKind::Hash { entries }) => {
                        for en in entries {
                            let Some(p) = en.key.literal_text() else {
                                continue;
                            };
                            out.push(AbstractBinding::Binding(Binding {
                                type_: type_model(&inferred(&en.value)),
                                name: Some(format!("/param/{target_name}/{p}").into()),
                                override_,
                                abstract_: false,
                                producer: self.held(Some(self.value_producer(&en.value, optional))),
                                extras: BindingExtras::of(None, self.options(options).into()),
                                origin: self.origin(en.key.span),
                            }));
                        }
                    }
                    _ => out.push(AbstractBinding::ParametersBinding(Box::new(
                        model::ParametersBinding {
                            name: format!("/param/{target_name}").into(),
                            target: target_name.into(),
                            source: match value {
                                Some(v) => self.embed.expression(v),
                                None => self.embed.undef(),
                            },
                            optional,
                            override_,
                            producer_args: self.options(options).into(),
                            origin,
                        },
                    ))),
                }
            }
            BindKey::Variables { type_expr } => {
                let declared = type_expr.as_ref().and_then(|t| PType::from_expr(t).ok());
                for (name, span, v) in keys::variable_names(flags, value) {
                    let ty = declared
                        .clone()
                        .or_else(|| v.map(inferred))
                        .unwrap_or(PType::Data);
                    out.push(AbstractBinding::Binding(Binding {
                        type_: type_model(&ty),
                        name: Some(format!("/var/{name}").into()),
                        override_,
                        abstract_,
                        producer: self.held(v.map(|v| self.value_producer(v, optional))),
                        extras: BindingExtras::of(None, self.options(options).into()),
                        origin: self.origin(span),
                    }));
                }
            }
            _ => {
                let (declared, name) = split_key(key);
                let declared_type = declared.and_then(|t| PType::from_expr(t).ok());
                let type_ = match (&declared_type, value) {
                    (Some(t), _) => t.clone(),
                    (None, Some(v)) => inferred(v),
                    (None, None) => PType::Data,
                };
                let producer = if abstract_ {
                    None
                } else {
                    match (producer, &declared_type, key) {
                        (Some(p), _, _) => Some(self.producer(p)),
                        // `bind Type[X] in 'id'`: the contribution is an instance of X.
                        (None, Some(PType::Runtime(Some(class))), BindKey::Type { .. }) => {
                            Some(ProducerDescriptor::InstanceProducerDescriptor {
                                class_name: class.as_str().into(),
                                arguments: Box::default(),
                            })
                        }
                        _ => None,
                    }
                };
                out.push(AbstractBinding::Binding(Binding {
                    type_: type_model(&type_),
                    name: name.and_then(|n| n.literal_text()).map(Box::from),
                    override_,
                    abstract_,
                    producer: self.held(producer),
                    extras: BindingExtras::of(
                        multibind_id.map(String::into_boxed_str),
                        self.options(options).into(),
                    ),
                    origin,
                }));
            }
        }
    }

    fn rebinding(
        &self,
        flags: &BindFlags,
        from: &BindKey,
        to: &BindKey,
        origin: Origin,
    ) -> Rebinding {
        let key_parts = |k: &BindKey| {
            let (declared, name) = split_key(k);
            (
                type_model(
                    &declared
                        .and_then(|t| PType::from_expr(t).ok())
                        .unwrap_or(PType::Data),
                ),
                name.and_then(|n| n.literal_text()).map(Box::from),
            )
        };
        let (from_type, from_name) = key_parts(from);
        let (type_, name) = key_parts(to);
        Rebinding {
            from_type,
            from_name,
            type_,
            name,
            override_: flags.override_.is_some(),
            abstract_: flags.abstract_.is_some(),
            origin,
        }
    }

    /// `include ntp` / `include [ntp, ssh]`: one contribution per class to the system multibind.
    fn class_contributions(
        &self,
        classes: &'a Expr,
        id: &str,
        out: &mut Vec<AbstractBinding<E::X>>,
    ) {
        let names = match &classes.kind {
            ExprKind::Array { elements } => elements.as_slice(),
            _ => std::slice::from_ref(classes),
        };
        for n in names {
            let producer = match n.literal_text() {
                Some(text) => ProducerDescriptor::ConstantProducerDescriptor {
                    value: self.embed.string(text.trim_start_matches("::")),
                },
                None => ProducerDescriptor::EvaluatingProducerDescriptor {
                    expression: self.embed.expression(n),
                },
            };
            out.push(AbstractBinding::Binding(Binding {
                type_: TypeModel::PStringType,
                name: None,
                override_: false,
                abstract_: false,
                producer: self.held(Some(producer)),
                extras: BindingExtras::of(Some(id.into()), Box::default()),
                origin: self.origin(n.span),
            }));
        }
    }

    /// A binding's producer as its block holds it (see [`Binding::producer`]): boxed; for the
    /// check (no model), only a Hiera level's, the one producer its rules read.
    fn held(
        &self,
        producer: Option<ProducerDescriptor<E::X>>,
    ) -> Option<Box<ProducerDescriptor<E::X>>> {
        match producer? {
            p @ ProducerDescriptor::HieraProducerDescriptor { .. } => Some(Box::new(p)),
            p => self.embed.for_model().then(|| Box::new(p)),
        }
    }

    fn producer(&self, p: &'a Producer) -> ProducerDescriptor<E::X> {
        match &p.producer {
            ProducerKind::Value { expr } => self.value_producer(expr, p.optional),
            ProducerKind::Hiera { level } => {
                ProducerDescriptor::HieraProducerDescriptor { level: *level }
            }
            ProducerKind::Producer { expr } => {
                let inner = match (PType::from_expr(expr), expr.literal_text()) {
                    (Ok(PType::Runtime(Some(class))), _) => {
                        ProducerDescriptor::InstanceProducerDescriptor {
                            class_name: class.as_str().into(),
                            arguments: Box::default(),
                        }
                    }
                    (_, Some(name)) => ProducerDescriptor::LookupProducerDescriptor {
                        type_: Box::new(TypeModel::PDataType),
                        name: name.to_string(),
                    },
                    _ => ProducerDescriptor::EvaluatingProducerDescriptor {
                        expression: self.embed.expression(expr),
                    },
                };
                optional(
                    ProducerDescriptor::ProducerProducerDescriptor {
                        producer: Box::new(inner),
                    },
                    p.optional,
                )
            }
        }
    }

    /// `to VALUE`: a literal is a constant, `Type[X]` an instance, `?? q` a query, anything else
    /// is evaluated per request.
    fn value_producer(&self, e: &'a Expr, is_optional: bool) -> ProducerDescriptor<E::X> {
        let d = if let Some(value) = self.bound_literal(e) {
            ProducerDescriptor::ConstantProducerDescriptor { value }
        } else if let Ok(PType::Runtime(Some(class))) = PType::from_expr(e) {
            ProducerDescriptor::InstanceProducerDescriptor {
                class_name: class.as_str().into(),
                arguments: Box::default(),
            }
        } else if e.contains_query() {
            ProducerDescriptor::QueryProducerDescriptor {
                expression: self.bound_expression(e),
            }
        } else {
            ProducerDescriptor::EvaluatingProducerDescriptor {
                expression: self.bound_expression(e),
            }
        };
        optional(d, is_optional)
    }

    /// A bound value's literal (see [`Embed::for_model`]).
    fn bound_literal(&self, e: &'a Expr) -> Option<E::X> {
        if self.embed.for_model() {
            self.embed.produced_literal(e)
        } else {
            crate::eval::literal_value(e).map(|_| self.embed.undef())
        }
    }

    /// A bound value's expression (see [`Embed::for_model`]).
    fn bound_expression(&self, e: &'a Expr) -> E::X {
        if self.embed.for_model() {
            self.embed.produced_expression(e)
        } else {
            self.embed.undef()
        }
    }

    fn options(&self, options: &'a [BindOption]) -> Vec<NamedArgument<E::X>> {
        options
            .iter()
            .map(|o| match &o.value {
                OptionValue::Expr { expr } => self.argument(&o.name, expr),
                OptionValue::Lambda { lambda } => NamedArgument {
                    name: o.name.to_string(),
                    value: None,
                    expression: Some(self.embed.lambda(lambda)),
                },
            })
            .collect()
    }

    fn argument(&self, name: &str, value: &'a Expr) -> NamedArgument<E::X> {
        match self.embed.literal(value) {
            Some(literal) => NamedArgument {
                name: name.to_string(),
                value: Some(literal),
                expression: None,
            },
            None => NamedArgument {
                name: name.to_string(),
                value: None,
                expression: Some(self.embed.expression(value)),
            },
        }
    }

    fn environment(&self, body: &'a crate::ast::ResourceBody) -> EnvironmentEntry<E::X> {
        EnvironmentEntry {
            title: self.embed.expression(&body.title),
            attributes: body
                .ops
                .iter()
                .map(|op| self.argument(&op.name, &op.value))
                .collect(),
            origin: self.origin(body.title.span),
        }
    }
}

fn optional<X>(d: ProducerDescriptor<X>, is_optional: bool) -> ProducerDescriptor<X> {
    if is_optional {
        ProducerDescriptor::OptionalProducerDescriptor {
            producer: Box::new(d),
        }
    } else {
        d
    }
}

/// The written type and name of a key.
fn split_key(key: &BindKey) -> (Option<&Expr>, Option<&Expr>) {
    match key {
        BindKey::Name { name } => (None, Some(name)),
        BindKey::Type { type_expr } => (Some(type_expr), None),
        BindKey::TypedName { type_expr, name } => (Some(type_expr), Some(name)),
        _ => (None, None),
    }
}

/// D12: a literal's type, `Data` for anything else.
fn inferred(value: &Expr) -> PType {
    PType::infer(value).unwrap_or(PType::Data)
}

/// A predicate value as text: a string, a bare word, a number or a boolean (`None` for a value
/// only a request can tell).
pub(crate) fn predicate_text(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Boolean { value } => Some(if *value { "true" } else { "false" }),
        ExprKind::Integer { text, .. } | ExprKind::Float { text, .. } => Some(text),
        _ => e.literal_text(),
    }
}

/// A literal value as plain JSON (hash order kept); `None` for anything that needs evaluating.
/// What is a literal is the evaluator's to say ([`crate::eval::literal_value`]).
fn literal_json(e: &Expr) -> Option<String> {
    Some(literal_text(&crate::eval::literal_value(e)?))
}

/// A literal's value as the model writes it.
pub(crate) fn literal_text(v: &crate::eval::Value) -> String {
    // Room for most bound arrays and hashes, which are short, without growing.
    let mut out = String::with_capacity(64);
    write_value(v, &mut out);
    out
}

/// The most keys of a hash spelled by [`spell_literal`] itself.
const FEW_KEYS: usize = 16;

/// What [`literal_text`] gives for `e`'s [`literal_value`](crate::eval::literal_value),
/// written from the expression without making the value: a compile spells every bound array
/// and hash this way, and making each value (a hash's map, with its keys hashed) and freeing
/// it again cost more than writing it. It follows `literal_value`'s rules; a hash that names a
/// key twice, which the value keeps once, is made as a value, and so is a hash of more than
/// [`FEW_KEYS`] (its keys are not compared pair by pair). `None` (with `out` as it was) when
/// `e` is not a literal.
pub(crate) fn spell_literal(e: &Expr, out: &mut String) -> Option<()> {
    let start = out.len();
    let spelled = write_literal(e, out);
    if spelled.is_none() {
        out.truncate(start);
    }
    spelled
}

fn write_literal(e: &Expr, out: &mut String) -> Option<()> {
    match &e.kind {
        ExprKind::Array { elements } => {
            out.push('[');
            for (i, element) in elements.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_literal(element, out)?;
            }
            out.push(']');
        }
        ExprKind::Hash { entries } => {
            let keys = || entries.iter().map(|en| en.key.literal_text());
            let named_twice = || {
                keys()
                    .enumerate()
                    .any(|(i, key)| keys().take(i).any(|earlier| earlier == key))
            };
            if entries.len() > FEW_KEYS || named_twice() {
                write_value(&crate::eval::literal_value(e)?, out);
                return Some(());
            }
            out.push('{');
            for (i, en) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                crate::pn::write_json_string(out, en.key.literal_text()?);
                out.push(':');
                write_literal(&en.value, out)?;
            }
            out.push('}');
        }
        _ => write_value(&crate::eval::literal_value(e)?, out),
    }
    Some(())
}

/// A literal's value as JSON: floats as Puppet writes them, like PN.
fn write_value(v: &crate::eval::Value, out: &mut String) {
    use crate::eval::Value;
    match v {
        Value::Undef => out.push_str("null"),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Integer(i) => {
            use std::fmt::Write;
            // Writing to a string cannot fail.
            let _ = write!(out, "{i}");
        }
        Value::Float(f) => crate::pn::write_ruby_float(out, *f),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(item, out);
            }
            out.push(']');
        }
        Value::Hash(map) => {
            out.push('{');
            for (i, (k, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match k {
                    Value::String(s) => crate::pn::write_json_string(out, s),
                    other => crate::pn::write_json_string(out, &other.to_display_string()),
                }
                out.push(':');
                write_value(item, out);
            }
            out.push('}');
        }
        Value::String(s) => crate::pn::write_json_string(out, s),
        // What a literal never is (regexes, types, `default`), as its text.
        other => crate::pn::write_json_string(out, &other.to_display_string()),
    }
}

/// The model form of a type.
pub fn type_model(t: &PType) -> TypeModel {
    type_model_at(t, 1)
}

/// `t` at nesting `depth`: a collection still nested at [`model::MAX_TYPE_NESTING`] (only an
/// inferred type can be, the check rejects deeper declared ones) becomes its `Data` or `Any`
/// supertype, so the model's nesting stays bounded.
fn type_model_at(t: &PType, depth: usize) -> TypeModel {
    if depth >= model::MAX_TYPE_NESTING && matches!(t, PType::Array(_) | PType::Hash(..)) {
        return if t.is_data() {
            TypeModel::PDataType
        } else {
            TypeModel::PObjectType
        };
    }
    match t {
        PType::Any => TypeModel::PObjectType,
        PType::Data => TypeModel::PDataType,
        PType::Literal => TypeModel::PLiteralType,
        PType::String => TypeModel::PStringType,
        PType::Integer => TypeModel::PIntegerType,
        PType::Float => TypeModel::PFloatType,
        PType::Number => TypeModel::PNumericType,
        PType::Boolean => TypeModel::PBooleanType,
        PType::Pattern => TypeModel::PPatternType,
        PType::Nil => TypeModel::PNilType,
        PType::Array(e) => TypeModel::PArrayType {
            element_type: Box::new(type_model_at(e, depth + 1)),
        },
        PType::Hash(k, v) => {
            TypeModel::hash(type_model_at(k, depth + 1), type_model_at(v, depth + 1))
        }
        PType::Class(c) => TypeModel::PHostClassType {
            class_name: c.as_deref().map(TypeModel::class_name),
        },
        PType::Resource { type_name, title } => {
            TypeModel::PResourceType(Box::new(model::ResourceTypeModel {
                type_name: type_name.to_string(),
                title: title.as_ref().map(|t| t.to_string()),
            }))
        }
        PType::Runtime(c) => TypeModel::PRuntimeType {
            class_name: c.as_deref().map(TypeModel::class_name),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A check's block keeps a Hiera level's producer (the composition places a data key at
    /// its level by it) and no other; a model keeps every producer.
    #[test]
    fn the_check_keeps_only_a_hiera_levels_producer() {
        use crate::eval::code::{Detached, ForChecking};
        let files = SourceMap::new();
        let hiera = || Some(ProducerDescriptor::HieraProducerDescriptor { level: 3 });
        let constant = || {
            Some(ProducerDescriptor::ConstantProducerDescriptor {
                value: crate::eval::code::Code::Value(crate::eval::Value::Undef),
            })
        };
        let held = |embed: Detached| {
            let lowerer = Lowerer {
                files: &files,
                origin_names: &[],
                embed,
            };
            (
                lowerer.held(hiera()),
                lowerer.held(constant()),
                lowerer.held(None),
            )
        };
        let level = |p: Option<Box<ProducerDescriptor<_>>>| match p.as_deref() {
            Some(ProducerDescriptor::HieraProducerDescriptor { level }) => Some(*level),
            _ => None,
        };
        let (h, c, none) = held(Detached::Checked);
        assert_eq!(level(h), Some(3));
        assert!(c.is_none() && none.is_none());
        let checking = Lowerer {
            files: &files,
            origin_names: &[],
            embed: ForChecking,
        };
        assert_eq!(
            level(
                checking.held(Some(ProducerDescriptor::HieraProducerDescriptor {
                    level: 5
                }))
            ),
            Some(5)
        );
        let (h, c, none) = held(Detached::Written);
        assert_eq!(level(h), Some(3));
        assert!(matches!(
            c.as_deref(),
            Some(ProducerDescriptor::ConstantProducerDescriptor { .. })
        ));
        assert!(none.is_none());
    }

    /// The literal's JSON, spelled from the expression and from its value.
    fn both_spellings(e: &Expr) -> (Option<String>, Option<String>) {
        let mut spelled = String::from("kept");
        let direct = spell_literal(e, &mut spelled).map(|()| spelled["kept".len()..].to_string());
        if direct.is_none() {
            assert_eq!(spelled, "kept", "nothing is left of a literal given up");
        }
        let valued = crate::eval::literal_value(e).map(|v| literal_text(&v));
        (direct, valued)
    }

    /// Every array and hash in `src` and in them, spelled both ways.
    fn compare_in(src: &str, what: &str) -> usize {
        let parsed = crate::parser::parse_file(crate::span::FileId(0), src);
        let mut compared = 0;
        for statement in parsed.program.iter().flat_map(|p| &p.body) {
            statement.walk(|e| {
                if matches!(e.kind, ExprKind::Array { .. } | ExprKind::Hash { .. }) {
                    let (direct, valued) = both_spellings(e);
                    assert_eq!(direct, valued, "{what}: {e:?}");
                    compared += 1;
                }
                true
            });
        }
        compared
    }

    /// A literal is spelled from its expression as from its value: floats, negative numbers,
    /// radixes, bare words, escapes, keys named twice (the value keeps the first place and the
    /// last value), more keys than are compared pair by pair, and what is not a literal.
    #[test]
    fn literals_are_spelled_as_their_values_are() {
        let cases = [
            "[]",
            "{}",
            "['a', b, 'c\"\\\\\n\u{1}é', 0x1F, 017, 42, -3, -(-4), 2.5, -0.0, 1e300, true, undef]",
            "[[1, [2, [3]]], {'k' => [{'n' => -1.5}]}]",
            "{'a' => 1, b => 2, 'a' => 3}",
            "{'a' => {'x' => 1, 'x' => 2}, 'b' => [1, {'y' => 1, 'y' => [2]}]}",
            "{'k0'=>0,'k1'=>1,'k2'=>2,'k3'=>3,'k4'=>4,'k5'=>5,'k6'=>6,'k7'=>7,'k8'=>8,'k9'=>9,\
              'k10'=>10,'k11'=>11,'k12'=>12,'k13'=>13,'k14'=>14,'k15'=>15,'k16'=>16,'k0'=>17}",
            "[1, $x, 3]",
            "{'a' => $x}",
            "{$k => 1}",
            "{1 => 'one'}",
            "[-'a']",
            "[99999999999999999999]",
            "['x', \"${y}\"]",
            "[default, /re/, String]",
        ];
        for case in cases {
            let compared = compare_in(&format!("$v = {case}\n"), case);
            assert!(compared > 0, "{case} holds a collection");
        }
    }

    /// And so is every array and hash of the corpus.
    #[test]
    fn the_corpus_literals_are_spelled_as_their_values_are() {
        let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus");
        let files = crate::source::expand_paths(&[corpus], &Default::default())
            .expect("the corpus is readable");
        // The corpus holds nesting at the limits: parsed on a big stack, as the CLI does.
        let compared = std::thread::Builder::new()
            .stack_size(64 * 1024 * 1024)
            .spawn(move || {
                let mut compared = 0;
                for path in &files {
                    if let Ok(src) = std::fs::read_to_string(path) {
                        compared += compare_in(&src, &path.display().to_string());
                    }
                }
                compared
            })
            .expect("spawns")
            .join()
            .expect("compares");
        assert!(compared > 100, "{compared} collections compared");
    }
}
