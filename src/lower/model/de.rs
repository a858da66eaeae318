//! Reading the model's tagged objects with their `kind` first, as pbc writes them: the kind
//! picks the shape and the rest of the object is read straight into it. (Serde's derived
//! reading of a tagged enum first copies every object into a buffer, whatever the order: for
//! a large model that copy was most of the reading.) An object whose `kind` comes later is read
//! through a buffer, as before.

use super::*;
use serde::de::{Error, MapAccess, Visitor};
use std::marker::PhantomData;

/// A type whose JSON object names its shape in `kind`.
trait Tagged<'de>: Sized {
    const EXPECTING: &'static str;
    /// The value of the shape `kind`, from the object's other members.
    fn from_rest<A: MapAccess<'de>>(kind: &str, rest: A) -> Result<Self, A::Error>;
}

fn rest<'de, T: Deserialize<'de>, A: MapAccess<'de>>(map: A) -> Result<T, A::Error> {
    T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
}

fn unknown<E: Error>(what: &str, kind: &str) -> E {
    E::custom(format!("`{kind}` is not a kind of {what}"))
}

struct KindFirst<T>(PhantomData<T>);

impl<'de, T: Tagged<'de>> Visitor<'de> for KindFirst<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(T::EXPECTING)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let Some(first) = map.next_key::<String>()? else {
            return Err(A::Error::missing_field("kind"));
        };
        if first == "kind" {
            let kind: String = map.next_value()?;
            return T::from_rest(&kind, map);
        }
        // `kind` later: the object is buffered, then read as above.
        let mut members = vec![(first, map.next_value::<serde_json::Value>()?)];
        while let Some(member) = map.next_entry::<String, serde_json::Value>()? {
            members.push(member);
        }
        let kind = members
            .iter()
            .find(|(k, _)| k == "kind")
            .and_then(|(_, v)| v.as_str())
            .ok_or_else(|| A::Error::missing_field("kind"))?
            .to_string();
        let buffered =
            serde::de::value::MapDeserializer::<_, serde_json::Error>::new(members.into_iter());
        T::from_rest(&kind, buffered).map_err(A::Error::custom)
    }
}

fn tagged<'de, T: Tagged<'de>, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_map(KindFirst::<T>(PhantomData))
}

/// The members of the struct-like shapes, read after their `kind`.
mod shapes {
    use super::super::*;

    #[derive(Deserialize)]
    pub struct Categorized<X> {
        pub predicates: Vec<Category<X>>,
        #[serde(default = "none")]
        pub path: Option<DataPath<X>>,
        pub bindings: Vec<AbstractBinding<X>>,
        pub origin: Origin,
    }

    fn none<T>() -> Option<T> {
        None
    }

    /// A binding as written: its extras in place.
    #[derive(Deserialize)]
    pub struct Binding<X> {
        #[serde(rename = "type")]
        pub type_: TypeModel,
        pub name: Option<Box<str>>,
        #[serde(rename = "override")]
        pub override_: bool,
        #[serde(rename = "abstract")]
        pub abstract_: bool,
        pub multibind_id: Option<Box<str>>,
        pub producer: Option<ProducerDescriptor<X>>,
        pub producer_args: Box<[NamedArgument<X>]>,
        pub origin: Origin,
    }

    #[derive(Deserialize)]
    pub struct Parameters<X> {
        pub name: Box<str>,
        pub target: Box<str>,
        pub source: X,
        pub optional: bool,
        #[serde(rename = "override")]
        pub override_: bool,
        pub producer_args: Vec<NamedArgument<X>>,
        pub origin: Origin,
    }

    #[derive(Deserialize)]
    pub struct ParameterMap<X> {
        pub name: Box<str>,
        pub mappings: Vec<NamedArgument<X>>,
        #[serde(rename = "override")]
        pub override_: bool,
        pub origin: Origin,
    }

    #[derive(Deserialize)]
    pub struct Dependency<X> {
        pub from: X,
        #[serde(deserialize_with = "super::super::arrow")]
        pub arrow: String,
        pub to: X,
        pub origin: Origin,
    }

    #[derive(Deserialize)]
    pub struct Value<X> {
        pub value: X,
    }

    #[derive(Deserialize)]
    pub struct Expression<X> {
        pub expression: X,
    }

    #[derive(Deserialize)]
    pub struct Instance<X> {
        pub class_name: String,
        pub arguments: Vec<X>,
    }

    #[derive(Deserialize)]
    pub struct Producer<X> {
        pub producer: Box<ProducerDescriptor<X>>,
    }

    #[derive(Deserialize)]
    pub struct Lookup {
        #[serde(rename = "type")]
        pub type_: TypeModel,
        pub name: String,
    }

    #[derive(Deserialize)]
    pub struct Classes {
        pub included: String,
        pub excluded: String,
    }

    #[derive(Deserialize)]
    pub struct Hiera {
        pub level: usize,
    }

    #[derive(Deserialize)]
    pub struct Nothing {}

    #[derive(Deserialize)]
    pub struct Element {
        pub element_type: Box<TypeModel>,
    }

    #[derive(Deserialize)]
    pub struct KeyElement {
        pub key_type: Box<TypeModel>,
        pub element_type: Box<TypeModel>,
    }

    #[derive(Deserialize)]
    pub struct ClassName {
        pub class_name: Option<Box<str>>,
    }
}

impl<'de, X: Deserialize<'de>> Tagged<'de> for AbstractBinding<X> {
    const EXPECTING: &'static str = "a binding (an object with its `kind`)";

    fn from_rest<A: MapAccess<'de>>(kind: &str, map: A) -> Result<Self, A::Error> {
        Ok(match kind {
            "Binding" => {
                let b: shapes::Binding<X> = rest(map)?;
                AbstractBinding::Binding(Binding {
                    type_: b.type_,
                    name: b.name,
                    override_: b.override_,
                    abstract_: b.abstract_,
                    producer: b.producer,
                    extras: BindingExtras::of(b.multibind_id, b.producer_args),
                    origin: b.origin,
                })
            }
            "Multibinding" => AbstractBinding::Multibinding(rest(map)?),
            "CategorizedBindings" => {
                let c: shapes::Categorized<X> = rest(map)?;
                AbstractBinding::CategorizedBindings {
                    predicates: c.predicates,
                    path: c.path.map(Box::new),
                    bindings: c.bindings,
                    origin: c.origin,
                }
            }
            "AliasBinding" => AbstractBinding::AliasBinding(rest(map)?),
            "RenamedBinding" => AbstractBinding::RenamedBinding(rest(map)?),
            "Rebinding" => AbstractBinding::Rebinding(rest(map)?),
            "ParametersBinding" => {
                let p: shapes::Parameters<X> = rest(map)?;
                AbstractBinding::ParametersBinding {
                    name: p.name,
                    target: p.target,
                    source: p.source,
                    optional: p.optional,
                    override_: p.override_,
                    producer_args: p.producer_args.into(),
                    origin: p.origin,
                }
            }
            "ParameterMapBinding" => {
                let p: shapes::ParameterMap<X> = rest(map)?;
                AbstractBinding::ParameterMapBinding {
                    name: p.name,
                    mappings: p.mappings,
                    override_: p.override_,
                    origin: p.origin,
                }
            }
            "DependencyBinding" => {
                let d: shapes::Dependency<X> = rest(map)?;
                AbstractBinding::DependencyBinding {
                    from: d.from,
                    arrow: d.arrow,
                    to: d.to,
                    origin: d.origin,
                }
            }
            other => return Err(unknown("binding", other)),
        })
    }
}

impl<'de, X: Deserialize<'de>> Deserialize<'de> for AbstractBinding<X> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged(d)
    }
}

impl<'de, X: Deserialize<'de>> Tagged<'de> for ProducerDescriptor<X> {
    const EXPECTING: &'static str = "a producer (an object with its `kind`)";

    fn from_rest<A: MapAccess<'de>>(kind: &str, map: A) -> Result<Self, A::Error> {
        use ProducerDescriptor as P;
        Ok(match kind {
            "ConstantProducerDescriptor" => P::ConstantProducerDescriptor {
                value: rest::<shapes::Value<X>, A>(map)?.value,
            },
            "EvaluatingProducerDescriptor" => P::EvaluatingProducerDescriptor {
                expression: rest::<shapes::Expression<X>, A>(map)?.expression,
            },
            "InstanceProducerDescriptor" => {
                let i: shapes::Instance<X> = rest(map)?;
                P::InstanceProducerDescriptor {
                    class_name: i.class_name.into(),
                    arguments: i.arguments.into(),
                }
            }
            "ProducerProducerDescriptor" => P::ProducerProducerDescriptor {
                producer: rest::<shapes::Producer<X>, A>(map)?.producer,
            },
            "LookupProducerDescriptor" => {
                let l: shapes::Lookup = rest(map)?;
                P::LookupProducerDescriptor {
                    type_: Box::new(l.type_),
                    name: l.name,
                }
            }
            "ArrayMultibindProducerDescriptor" => {
                rest::<shapes::Nothing, A>(map)?;
                P::ArrayMultibindProducerDescriptor
            }
            "HashMultibindProducerDescriptor" => {
                rest::<shapes::Nothing, A>(map)?;
                P::HashMultibindProducerDescriptor
            }
            "OptionalProducerDescriptor" => P::OptionalProducerDescriptor {
                producer: rest::<shapes::Producer<X>, A>(map)?.producer,
            },
            "QueryProducerDescriptor" => P::QueryProducerDescriptor {
                expression: rest::<shapes::Expression<X>, A>(map)?.expression,
            },
            "ClassesProducerDescriptor" => {
                let c: shapes::Classes = rest(map)?;
                P::ClassesProducerDescriptor {
                    included: c.included.into(),
                    excluded: c.excluded.into(),
                }
            }
            "HieraProducerDescriptor" => P::HieraProducerDescriptor {
                level: rest::<shapes::Hiera, A>(map)?.level,
            },
            other => return Err(unknown("producer", other)),
        })
    }
}

impl<'de, X: Deserialize<'de>> Deserialize<'de> for ProducerDescriptor<X> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged(d)
    }
}

impl<'de> Tagged<'de> for TypeModel {
    const EXPECTING: &'static str = "a type (an object with its `kind`)";

    fn from_rest<A: MapAccess<'de>>(kind: &str, map: A) -> Result<Self, A::Error> {
        use TypeModel as T;
        let unit = |t: TypeModel, map: A| rest::<shapes::Nothing, A>(map).map(|_| t);
        match kind {
            "PObjectType" => unit(T::PObjectType, map),
            "PDataType" => unit(T::PDataType, map),
            "PLiteralType" => unit(T::PLiteralType, map),
            "PStringType" => unit(T::PStringType, map),
            "PIntegerType" => unit(T::PIntegerType, map),
            "PFloatType" => unit(T::PFloatType, map),
            "PNumericType" => unit(T::PNumericType, map),
            "PBooleanType" => unit(T::PBooleanType, map),
            "PPatternType" => unit(T::PPatternType, map),
            "PNilType" => unit(T::PNilType, map),
            "PArrayType" => Ok(T::PArrayType {
                element_type: rest::<shapes::Element, A>(map)?.element_type,
            }),
            "PHashType" => {
                let h: shapes::KeyElement = rest(map)?;
                Ok(T::PHashType {
                    key_type: h.key_type,
                    element_type: h.element_type,
                })
            }
            "PHostClassType" => Ok(T::PHostClassType {
                class_name: rest::<shapes::ClassName, A>(map)?.class_name,
            }),
            "PResourceType" => Ok(T::PResourceType(Box::new(rest(map)?))),
            "PRuntimeType" => Ok(T::PRuntimeType {
                class_name: rest::<shapes::ClassName, A>(map)?.class_name,
            }),
            other => Err(unknown("type", other)),
        }
    }
}

impl<'de> Deserialize<'de> for TypeModel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        tagged(d)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `kind` first (as pbc writes) and later (as another tool may) read the same.
    #[test]
    fn kind_first_or_later() {
        for text in [
            r#"{"kind":"PHashType","key_type":{"kind":"PStringType"},"element_type":{"kind":"PArrayType","element_type":{"kind":"PDataType"}}}"#,
            r#"{"key_type":{"kind":"PStringType"},"element_type":{"element_type":{"kind":"PDataType"},"kind":"PArrayType"},"kind":"PHashType"}"#,
        ] {
            let t: TypeModel = serde_json::from_str(text).expect("a type");
            assert_eq!(ptype(&t).to_string(), "Hash[String, Array[Data]]");
        }
        for text in [
            r#"{"kind":"LookupProducerDescriptor","type":{"kind":"PDataType"},"name":"a"}"#,
            r#"{"name":"a","type":{"kind":"PDataType"},"kind":"LookupProducerDescriptor"}"#,
        ] {
            let p: ProducerDescriptor<serde_json::Value> =
                serde_json::from_str(text).expect("a producer");
            assert!(
                matches!(p, ProducerDescriptor::LookupProducerDescriptor { name, .. } if name == "a")
            );
        }
        let e = serde_json::from_str::<TypeModel>(r#"{"kind":"PNoSuchType"}"#)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(e.contains("`PNoSuchType` is not a kind of type"), "{e}");
        assert!(serde_json::from_str::<TypeModel>(r#"{"element_type":{}}"#).is_err());
    }
}
