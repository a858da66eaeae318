//! The bindings model's derives: each model type is defined once, in the engine's
//! `lower::model`, and what would otherwise restate its fields follows from that definition.
//!
//! - `KindFirst` reads a kind-tagged enum (`#[serde(tag = "kind")]`) with its `kind` first
//!   without buffering the object, as `lower::model::de` explains; each struct-like variant's
//!   members are read with the serde attributes written on the variant's own fields.
//! - `MapSlots` walks a model generic over its embedded values (`X`) into the same model over
//!   other ones (`Y`): how a model read from JSON becomes the injector's. A field of type `X`,
//!   `Option<X>`, `Vec<X>` or `Box<[X]>` is a slot and says which kind it holds
//!   (`#[slots(literal)]`, `#[slots(expression)]`, `#[slots(category)]`); any other field whose
//!   type names `X` is walked in turn; the rest are moved as they are. A type with an `origin`
//!   field tells the walk where it is before its fields are walked (the place an error names);
//!   `#[slots(unplaced)]` on a field says no binding holds it.
//! - `WriteCompact` writes a model type as compact JSON, the text serde_json writes for its
//!   `Serialize`, with the text between two values written as one piece; it reads the type's
//!   serde attributes for that and refuses one it does not know.
//!
//! It owns only the generated code's shape; the traits and helpers it calls live with the model
//! (`crate::lower::model::de`, `crate::lower::model::slots` and `crate::lower::model::compact`), so
//! these derives serve that crate alone. It must not decide what the model holds.

use proc_macro::TokenStream;
use proc_macro2::{Span, TokenStream as Tokens};
use quote::{format_ident, quote};
use syn::{
    parse_macro_input, Attribute, Data, DeriveInput, Fields, GenericArgument, Ident, LitStr,
    PathArguments, Type,
};

/// `#[derive(KindFirst)]`: `Deserialize` for a kind-tagged enum, reading its `kind` first.
/// `#[kind_first(what = "binding")]` names the enum in errors ("`X` is not a kind of binding").
#[proc_macro_derive(KindFirst, attributes(kind_first))]
pub fn kind_first(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    kind_first_impl(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// `#[derive(MapSlots)]`: the walk of a model type from one kind of embedded value to another.
#[proc_macro_derive(MapSlots, attributes(slots))]
pub fn map_slots(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    map_slots_impl(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The type's one type parameter (the embedded value), if it has one; more are refused.
fn slot_parameter(input: &DeriveInput) -> syn::Result<Option<Ident>> {
    let mut params = input.generics.type_params();
    let first = params.next().map(|p| p.ident.clone());
    if params.next().is_some() || input.generics.lifetimes().next().is_some() {
        return Err(syn::Error::new_spanned(
            &input.generics,
            "a model type has at most one type parameter: its embedded value",
        ));
    }
    Ok(first)
}

/// Whether `ty` names the identifier `x` anywhere.
fn names(ty: &Type, x: &Ident) -> bool {
    quote!(#ty)
        .into_iter()
        .any(|t| tree_names(&t, &x.to_string()))
}

fn tree_names(tree: &proc_macro2::TokenTree, x: &str) -> bool {
    match tree {
        proc_macro2::TokenTree::Ident(i) => i == x,
        proc_macro2::TokenTree::Group(g) => g.stream().into_iter().any(|t| tree_names(&t, x)),
        _ => false,
    }
}

fn kind_first_impl(input: &DeriveInput) -> syn::Result<Tokens> {
    let Data::Enum(data) = &input.data else {
        return Err(syn::Error::new_spanned(
            &input.ident,
            "KindFirst reads kind-tagged enums",
        ));
    };
    let name = &input.ident;
    let mut what = None;
    for attr in input
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("kind_first"))
    {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("what") {
                what = Some(meta.value()?.parse::<LitStr>()?);
                Ok(())
            } else {
                Err(meta.error("KindFirst knows `what`"))
            }
        })?;
    }
    let what = what.ok_or_else(|| {
        syn::Error::new_spanned(name, "KindFirst needs `#[kind_first(what = \"...\")]`")
    })?;
    let expecting = LitStr::new(
        &format!("a {} (an object with its `kind`)", what.value()),
        what.span(),
    );
    let x = slot_parameter(input)?;
    let (self_type, impl_params) = match &x {
        Some(x) => (
            quote!(#name<#x>),
            quote!(<'de, #x: serde::Deserialize<'de>>),
        ),
        None => (quote!(#name), quote!(<'de>)),
    };
    let mut shapes = Vec::new();
    let mut arms = Vec::new();
    for variant in &data.variants {
        if let Some(attr) = serde_attrs(&variant.attrs).next() {
            return Err(syn::Error::new_spanned(
                attr,
                "KindFirst reads a variant by its own name",
            ));
        }
        let v = &variant.ident;
        let kind = LitStr::new(&v.to_string(), v.span());
        match &variant.fields {
            Fields::Unit => arms.push(quote! {
                #kind => {
                    __de::rest::<__de::Nothing, A>(map)?;
                    #name::#v
                }
            }),
            Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                arms.push(quote!(#kind => #name::#v(__de::rest(map)?),));
            }
            Fields::Unnamed(fields) => {
                return Err(syn::Error::new_spanned(
                    fields,
                    "a tuple variant holds one value",
                ))
            }
            Fields::Named(fields) => {
                let shape = format_ident!("{}Of{}", v, name);
                let uses_x = x
                    .as_ref()
                    .filter(|x| fields.named.iter().any(|f| names(&f.ty, x)));
                let params = uses_x.map(|x| quote!(<#x>));
                let members = fields.named.iter().map(|f| {
                    let attrs = serde_attrs(&f.attrs);
                    let (ident, ty) = (&f.ident, &f.ty);
                    quote!(#(#attrs)* #ident: #ty,)
                });
                let idents: Vec<_> = fields.named.iter().map(|f| &f.ident).collect();
                shapes.push(quote! {
                    #[derive(serde::Deserialize)]
                    #[allow(non_camel_case_types)]
                    struct #shape #params { #(#members)* }
                });
                arms.push(quote! {
                    #kind => {
                        let shape: #shape #params = __de::rest(map)?;
                        #name::#v { #(#idents: shape.#idents),* }
                    }
                });
            }
        }
    }
    Ok(quote! {
        const _: () = {
            use crate::lower::model::de as __de;
            #(#shapes)*
            impl #impl_params __de::Tagged<'de> for #self_type {
                const EXPECTING: &'static str = #expecting;
                fn from_rest<A: serde::de::MapAccess<'de>>(
                    kind: &str,
                    map: A,
                ) -> ::std::result::Result<Self, A::Error> {
                    ::std::result::Result::Ok(match kind {
                        #(#arms)*
                        other => return ::std::result::Result::Err(__de::unknown(#what, other)),
                    })
                }
            }
            impl #impl_params serde::Deserialize<'de> for #self_type {
                fn deserialize<D: serde::Deserializer<'de>>(
                    d: D,
                ) -> ::std::result::Result<Self, D::Error> {
                    __de::tagged(d)
                }
            }
        };
    })
}

fn serde_attrs(attrs: &[Attribute]) -> impl Iterator<Item = &Attribute> {
    attrs.iter().filter(|a| a.path().is_ident("serde"))
}

/// What a field's `#[slots(...)]` says.
#[derive(Default)]
struct FieldSlots {
    /// The slot kind's variant, for a field that holds embedded values itself.
    kind: Option<Ident>,
    unplaced: bool,
}

fn field_slots(attrs: &[Attribute]) -> syn::Result<FieldSlots> {
    let mut slots = FieldSlots::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("slots")) {
        attr.parse_nested_meta(|meta| {
            let kind = |k: &str| Some(Ident::new(k, Span::call_site()));
            if meta.path.is_ident("literal") {
                slots.kind = kind("Literal");
            } else if meta.path.is_ident("expression") {
                slots.kind = kind("Expression");
            } else if meta.path.is_ident("category") {
                slots.kind = kind("Category");
            } else if meta.path.is_ident("unplaced") {
                slots.unplaced = true;
            } else {
                return Err(
                    meta.error("slots are `literal`, `expression` or `category`; or `unplaced`")
                );
            }
            Ok(())
        })?;
    }
    Ok(slots)
}

/// How a slot field is held: the embedded value itself, or a container of them.
enum Holding {
    One,
    Optional,
    List,
}

fn holding(ty: &Type, x: &Ident) -> Option<Holding> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    if path.path.is_ident(x) {
        return Some(Holding::One);
    }
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let Some(GenericArgument::Type(inner)) = args.args.first() else {
        return None;
    };
    let is_x = |t: &Type| matches!(t, Type::Path(p) if p.path.is_ident(x));
    match last.ident.to_string().as_str() {
        "Option" if is_x(inner) => Some(Holding::Optional),
        "Vec" if is_x(inner) => Some(Holding::List),
        "Box" => match inner {
            Type::Slice(slice) if is_x(&slice.elem) => Some(Holding::List),
            _ => None,
        },
        _ => None,
    }
}

/// The statements that walk `fields` (bound to `bindings`) into `walked`, in order.
fn walk_fields(
    fields: &Fields,
    bindings: &[Ident],
    walked: &[Ident],
    x: &Ident,
) -> syn::Result<Tokens> {
    let mut steps = Vec::new();
    let places = fields
        .iter()
        .zip(bindings)
        .find(|(f, _)| f.ident.as_ref().is_some_and(|i| i == "origin"));
    if let Some((_, origin)) = places {
        steps.push(quote!(__m.at(&#origin);));
    }
    for ((field, binding), out) in fields.iter().zip(bindings).zip(walked) {
        let slots = field_slots(&field.attrs)?;
        if slots.unplaced {
            steps.push(quote!(__m.unplace();));
        }
        let ty = &field.ty;
        let value = match slots.kind {
            Some(kind) => {
                let kind = quote!(__slots::SlotKind::#kind);
                match holding(ty, x) {
                    Some(Holding::One) => quote!(__m.slot(#binding, #kind)?),
                    Some(Holding::Optional) => quote! {
                        match #binding {
                            ::std::option::Option::Some(v) => ::std::option::Option::Some(__m.slot(v, #kind)?),
                            ::std::option::Option::None => ::std::option::Option::None,
                        }
                    },
                    Some(Holding::List) => quote! {
                        ::std::iter::IntoIterator::into_iter(#binding)
                            .map(|v| __m.slot(v, #kind))
                            .collect::<::std::result::Result<_, _>>()?
                    },
                    None => {
                        return Err(syn::Error::new_spanned(
                            ty,
                            "a slot field holds the embedded value, an Option, a Vec or a boxed slice of it",
                        ))
                    }
                }
            }
            None if names(ty, x) => quote!(__slots::MapSlots::map_slots(#binding, __m)?),
            None => quote!(#binding),
        };
        steps.push(quote!(let #out = #value;));
    }
    Ok(quote!(#(#steps)*))
}

fn map_slots_impl(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let Some(x) = slot_parameter(input)? else {
        return Err(syn::Error::new_spanned(
            name,
            "MapSlots walks a type with an embedded value parameter",
        ));
    };
    let y = Ident::new("__Y", Span::call_site());
    let arm = |path: Tokens, fields: &Fields| -> syn::Result<Tokens> {
        let count = fields.len();
        let bindings: Vec<Ident> = (0..count).map(|i| format_ident!("__f{}", i)).collect();
        let walked: Vec<Ident> = (0..count).map(|i| format_ident!("__w{}", i)).collect();
        let steps = walk_fields(fields, &bindings, &walked, &x)?;
        Ok(match fields {
            Fields::Named(named) => {
                let idents: Vec<_> = named.named.iter().map(|f| &f.ident).collect();
                quote! {
                    #path { #(#idents: #bindings),* } => {
                        #steps
                        #path { #(#idents: #walked),* }
                    }
                }
            }
            Fields::Unnamed(_) => quote! {
                #path(#(#bindings),*) => {
                    #steps
                    #path(#(#walked),*)
                }
            },
            Fields::Unit => quote!(#path => #path,),
        })
    };
    let arms = match &input.data {
        Data::Struct(data) => vec![arm(quote!(#name), &data.fields)?],
        Data::Enum(data) => data
            .variants
            .iter()
            .map(|v| {
                let ident = &v.ident;
                arm(quote!(#name::#ident), &v.fields)
            })
            .collect::<syn::Result<_>>()?,
        Data::Union(_) => {
            return Err(syn::Error::new_spanned(name, "the model has no unions"));
        }
    };
    Ok(quote! {
        const _: () = {
            use crate::lower::model::slots as __slots;
            // Clone: a block shared with another holder is walked as a copy of its own.
            impl<#x: ::std::clone::Clone, #y> __slots::MapSlots<#x, #y> for #name<#x> {
                type Output = #name<#y>;
                #[allow(unused_variables)]
                fn map_slots<M: __slots::SlotMap<#x, #y>>(
                    self,
                    __m: &mut M,
                ) -> ::std::result::Result<#name<#y>, M::Error> {
                    ::std::result::Result::Ok(match self {
                        #(#arms)*
                    })
                }
            }
        };
    })
}

/// `#[derive(WriteCompact)]`: the model's compact JSON, spelled as serde_json spells the
/// type's `Serialize` (the serde attributes on the type are read for it), by the writer of
/// `crate::lower::model::compact`. Keys, colons, commas and brackets between two values are one
/// piece of text written at once. A struct also gets `WriteMembers`: its members alone, after
/// a tag, which is how a kind-tagged enum writes a variant that holds a struct.
///
/// A field may say how it is written: `#[compact(serde)]` hands it to serde_json,
/// `#[compact(with = "path")]` to `path(&field, text)`. A serde attribute that changes what is
/// written and that this derive does not know is refused, so that the two cannot differ.
#[proc_macro_derive(WriteCompact, attributes(compact))]
pub fn write_compact(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    write_compact_impl(&input)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// What serde's attributes on a container or variant say about how it is written.
#[derive(Default)]
struct Written {
    tag: Option<String>,
    rename: Option<String>,
}

fn written(attrs: &[Attribute], tag_allowed: bool) -> syn::Result<Written> {
    let mut written = Written::default();
    for attr in serde_attrs(attrs) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("tag") && tag_allowed {
                written.tag = Some(meta.value()?.parse::<LitStr>()?.value());
            } else if meta.path.is_ident("rename") && !tag_allowed {
                written.rename = Some(meta.value()?.parse::<LitStr>()?.value());
            } else {
                return Err(meta.error(
                    "WriteCompact does not know this serde attribute: teach it, \
                     or write the value with #[compact(serde)] where it is held",
                ));
            }
            Ok(())
        })?;
    }
    Ok(written)
}

/// How one field is written.
struct Member {
    key: String,
    /// `skip_serializing_if`'s function: the member is written when it says no.
    unless: Option<syn::ExprPath>,
    how: How,
}

enum How {
    Compact,
    Serde,
    With(syn::ExprPath),
}

/// The member a field makes, or `None` for a field serde skips.
fn member(field: &syn::Field) -> syn::Result<Option<Member>> {
    let Some(ident) = &field.ident else {
        return Err(syn::Error::new_spanned(
            field,
            "WriteCompact writes named fields",
        ));
    };
    let mut key = ident.to_string();
    let mut unless = None;
    let mut skip = false;
    for attr in serde_attrs(&field.attrs) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("rename") {
                key = meta.value()?.parse::<LitStr>()?.value();
            } else if meta.path.is_ident("skip") {
                skip = true;
            } else if meta.path.is_ident("skip_serializing_if") {
                unless = Some(meta.value()?.parse::<LitStr>()?.parse::<syn::ExprPath>()?);
            } else if meta.path.is_ident("default") || meta.path.is_ident("deserialize_with") {
                // How a value is read, not how it is written.
                if meta.input.peek(syn::Token![=]) {
                    meta.value()?.parse::<LitStr>()?;
                }
            } else {
                return Err(meta.error(
                    "WriteCompact does not know this serde attribute: teach it, \
                     or write the field with #[compact(serde)]",
                ));
            }
            Ok(())
        })?;
    }
    let mut how = How::Compact;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("compact")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("serde") {
                how = How::Serde;
            } else if meta.path.is_ident("with") {
                how = How::With(meta.value()?.parse::<LitStr>()?.parse::<syn::ExprPath>()?);
            } else {
                return Err(meta.error("compact fields are `serde` or `with = \"path\"`"));
            }
            Ok(())
        })?;
    }
    Ok((!skip).then_some(Member { key, unless, how }))
}

/// A key or kind as JSON text: the derive writes only those that need no escape.
fn json_name(name: &str, at: &impl quote::ToTokens) -> syn::Result<String> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == ':')
    {
        return Err(syn::Error::new_spanned(
            at,
            format!("WriteCompact writes keys of letters, digits, `_`, `-` and `:`, not {name:?}"),
        ));
    }
    Ok(format!("\"{name}\""))
}

/// The statements that write a run of text and members, merging the text between values.
struct Spelling {
    steps: Vec<Tokens>,
    pending: String,
    /// Whether something is certainly written before the next member (so a comma leads it).
    after_value: bool,
}

impl Spelling {
    fn new(opening: &str, after_value: bool) -> Spelling {
        Spelling {
            steps: Vec::new(),
            pending: opening.to_owned(),
            after_value,
        }
    }

    fn text(&mut self, text: &str) {
        self.pending.push_str(text);
    }

    fn flush(&mut self) {
        if !self.pending.is_empty() {
            let bytes = syn::LitByteStr::new(self.pending.as_bytes(), Span::call_site());
            self.steps.push(quote!(__t.text(#bytes);));
            self.pending.clear();
        }
    }

    fn member(&mut self, value: Tokens, m: &Member, at: &impl quote::ToTokens) -> syn::Result<()> {
        let key = json_name(&m.key, at)?;
        let lead = if self.after_value { "," } else { "" };
        let write = match &m.how {
            How::Compact => quote!(__c::WriteCompact::write_compact(#value, __t)?;),
            How::Serde => quote!(__t.serde(#value)?;),
            How::With(path) => quote!(#path(#value, __t)?;),
        };
        match &m.unless {
            None => {
                self.text(&format!("{lead}{key}:"));
                self.flush();
                self.steps.push(write);
                self.after_value = true;
            }
            Some(unless) => {
                if !self.after_value {
                    return Err(syn::Error::new_spanned(
                        at,
                        "WriteCompact writes a member that may be skipped only after one that \
                         is always written",
                    ));
                }
                self.flush();
                let bytes = syn::LitByteStr::new(format!(",{key}:").as_bytes(), Span::call_site());
                self.steps.push(quote! {
                    if !#unless(#value) {
                        __t.text(#bytes);
                        #write
                    }
                });
            }
        }
        Ok(())
    }

    fn finish(mut self, closing: &str) -> Tokens {
        self.text(closing);
        self.flush();
        let steps = self.steps;
        quote!(#(#steps)*)
    }
}

/// The statements writing `fields` (bound to `values`) into `spelling`.
fn spell_fields(spelling: &mut Spelling, fields: &Fields, values: &[Tokens]) -> syn::Result<()> {
    for (field, value) in fields.iter().zip(values) {
        if let Some(m) = member(field)? {
            spelling.member(value.clone(), &m, field)?;
        }
    }
    Ok(())
}

fn write_compact_impl(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let container = written(&input.attrs, true)?;
    let mut generics = input.generics.clone();
    for param in generics.type_params_mut() {
        param.bounds.push(syn::parse_quote!(
            crate::lower::model::compact::WriteCompact
        ));
        param.bounds.push(syn::parse_quote!(serde::Serialize));
        param.bounds.push(syn::parse_quote!(::std::marker::Sync));
        // A layer's blocks are shared (`Arc`), which is `Sync` only for what is `Send` too.
        param.bounds.push(syn::parse_quote!(::std::marker::Send));
    }
    let (impl_generics, type_generics, where_clause) = generics.split_for_impl();
    let tag_opening = |kind: &str, at: &dyn quote::ToTokens| -> syn::Result<Option<String>> {
        container
            .tag
            .as_ref()
            .map(|tag| {
                Ok(format!(
                    "{{{}:{}",
                    json_name(tag, &at)?,
                    json_name(kind, &at)?
                ))
            })
            .transpose()
    };
    match &input.data {
        Data::Struct(data) => {
            let values: Vec<Tokens> = data
                .fields
                .iter()
                .map(|f| {
                    let ident = &f.ident;
                    quote!(&self.#ident)
                })
                .collect();
            let whole = match tag_opening(&name.to_string(), name)? {
                Some(opening) => {
                    let mut s = Spelling::new(&opening, true);
                    spell_fields(&mut s, &data.fields, &values)?;
                    s.finish("}")
                }
                None => {
                    let mut s = Spelling::new("{", false);
                    spell_fields(&mut s, &data.fields, &values)?;
                    s.finish("}")
                }
            };
            let mut members = Spelling::new("", true);
            spell_fields(&mut members, &data.fields, &values)?;
            let members = members.finish("");
            Ok(quote! {
                const _: () = {
                    use crate::lower::model::compact as __c;
                    impl #impl_generics __c::WriteCompact for #name #type_generics #where_clause {
                        fn write_compact(&self, __t: &mut __c::Text<'_>) -> ::std::io::Result<()> {
                            #whole
                            ::std::result::Result::Ok(())
                        }
                    }
                    impl #impl_generics __c::WriteMembers for #name #type_generics #where_clause {
                        fn write_members(&self, __t: &mut __c::Text<'_>) -> ::std::io::Result<()> {
                            #members
                            ::std::result::Result::Ok(())
                        }
                    }
                };
            })
        }
        Data::Enum(data) => {
            if container.tag.is_none() {
                return Err(syn::Error::new_spanned(
                    name,
                    "WriteCompact writes kind-tagged enums (`#[serde(tag = \"...\")]`)",
                ));
            }
            let mut arms = Vec::new();
            for variant in &data.variants {
                let v = &variant.ident;
                let kind = written(&variant.attrs, false)?
                    .rename
                    .unwrap_or_else(|| v.to_string());
                let opening = tag_opening(&kind, v)?.unwrap_or_default();
                arms.push(match &variant.fields {
                    Fields::Unit => {
                        let s = Spelling::new(&opening, true).finish("}");
                        quote!(#name::#v => { #s })
                    }
                    Fields::Unnamed(fields) if fields.unnamed.len() == 1 => {
                        let mut s = Spelling::new(&opening, true);
                        s.flush();
                        s.steps
                            .push(quote!(__c::WriteMembers::write_members(__v, __t)?;));
                        let s = s.finish("}");
                        quote!(#name::#v(__v) => { #s })
                    }
                    Fields::Unnamed(fields) => {
                        return Err(syn::Error::new_spanned(
                            fields,
                            "a tuple variant holds one value",
                        ))
                    }
                    Fields::Named(fields) => {
                        let idents: Vec<&Ident> = fields
                            .named
                            .iter()
                            .filter_map(|f| f.ident.as_ref())
                            .collect();
                        let values: Vec<Tokens> = idents.iter().map(|i| quote!(#i)).collect();
                        let mut s = Spelling::new(&opening, true);
                        spell_fields(&mut s, &variant.fields, &values)?;
                        let s = s.finish("}");
                        quote!(#name::#v { #(#idents),* } => { #s })
                    }
                });
            }
            Ok(quote! {
                const _: () = {
                    use crate::lower::model::compact as __c;
                    impl #impl_generics __c::WriteCompact for #name #type_generics #where_clause {
                        #[allow(unused_variables)]
                        fn write_compact(&self, __t: &mut __c::Text<'_>) -> ::std::io::Result<()> {
                            match self {
                                #(#arms)*
                            }
                            ::std::result::Result::Ok(())
                        }
                    }
                };
            })
        }
        Data::Union(_) => Err(syn::Error::new_spanned(name, "the model has no unions")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(input: DeriveInput) -> String {
        match write_compact_impl(&input) {
            Ok(_) => String::from("accepted"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn a_serde_attribute_that_changes_the_text_is_refused() {
        let field = refusal(syn::parse_quote! {
            struct S { #[serde(serialize_with = "f")] a: u32 }
        });
        assert!(
            field.contains("does not know this serde attribute"),
            "{field}"
        );
        let container = refusal(syn::parse_quote! {
            #[serde(rename_all = "snake_case")]
            struct S { a: u32 }
        });
        assert!(
            container.contains("does not know this serde attribute"),
            "{container}"
        );
        let untagged = refusal(syn::parse_quote! { enum E { A, B } });
        assert!(untagged.contains("kind-tagged enums"), "{untagged}");
        let first = refusal(syn::parse_quote! {
            struct S { #[serde(skip_serializing_if = "Option::is_none")] a: Option<u32> }
        });
        assert!(first.contains("only after one"), "{first}");
        let escaped = refusal(syn::parse_quote! {
            struct S { #[serde(rename = "a\"b")] a: u32 }
        });
        assert!(escaped.contains("writes keys of"), "{escaped}");
        let read_only = refusal(syn::parse_quote! {
            #[serde(tag = "kind")]
            struct S {
                #[serde(default, deserialize_with = "f")] a: u32,
                #[serde(skip, default = "g")] b: u32,
            }
        });
        assert_eq!(read_only, "accepted");
    }

    /// The text between two values is one write: `{"kind":"S","a":` before the first.
    #[test]
    fn the_text_between_values_is_one_piece() {
        let input: DeriveInput = syn::parse_quote! {
            #[serde(tag = "kind")]
            struct S {
                a: u32,
                #[serde(rename = "type")]
                b: u32,
                #[serde(skip)]
                c: u32,
                #[serde(skip_serializing_if = "Vec::is_empty")]
                d: Vec<u32>,
            }
        };
        let code = write_compact_impl(&input).map(|t| t.to_string());
        let code = code.unwrap_or_default();
        for piece in [
            r#"b"{\"kind\":\"S\",\"a\":""#,
            r#"b",\"type\":""#,
            r#"b",\"d\":""#,
            r#"b"}""#,
        ] {
            assert!(code.contains(piece), "{piece} in {code}");
        }
        assert!(!code.contains(r#"\"c\""#), "{code}");
    }
}
