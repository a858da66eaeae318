//! Reading the model's tagged objects with their `kind` first, as pbc writes them: the kind
//! picks the shape and the rest of the object is read straight into it. (Serde's derived
//! reading of a tagged enum first copies every object into a buffer, whatever the order: for
//! a large model that copy was most of the reading.) An object whose `kind` comes later is read
//! through a buffer, as before. Each enum's reader is derived from its definition
//! (`#[derive(KindFirst)]`, `crates/model-derive`) and calls what is here.

use super::*;
use serde::de::{Error, MapAccess, Visitor};
use std::marker::PhantomData;

/// A type whose JSON object names its shape in `kind`.
pub(crate) trait Tagged<'de>: Sized {
    const EXPECTING: &'static str;
    /// The value of the shape `kind`, from the object's other members.
    fn from_rest<A: MapAccess<'de>>(kind: &str, rest: A) -> Result<Self, A::Error>;
}

pub(crate) fn rest<'de, T: Deserialize<'de>, A: MapAccess<'de>>(map: A) -> Result<T, A::Error> {
    T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
}

pub(crate) fn unknown<E: Error>(what: &str, kind: &str) -> E {
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

pub(crate) fn tagged<'de, T: Tagged<'de>, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
    d.deserialize_map(KindFirst::<T>(PhantomData))
}

/// What a shapeless kind (`{"kind":"PDataType"}`) has besides its `kind`: nothing it reads.
#[derive(Deserialize)]
pub(crate) struct Nothing {}

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
