//! What generated code calls for each field: reading a known, aliased or unknown key's value with
//! the key on the path, checking a constant tag, the missing-key error, map keys, arrays read with
//! their indices on the path, and writing an optional field.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use super::location::{note_error_path, pop, push, Segment};

/// Reads the value of a known key, with the key on the path while it is read.
pub(crate) fn next_value<'de, T, A>(map: &mut A, key: &'static str) -> Result<T, A::Error>
where
    T: Deserialize<'de>,
    A: MapAccess<'de>,
{
    push(Segment::Key(Cow::Borrowed(key)));
    let result = map.next_value::<T>();
    if result.is_err() {
        note_error_path();
    }
    pop();
    result
}

/// Reads the value of a legacy alias (`x-msgflow-alias-of`) as its property's type, or, when it
/// is not one, as written: pydantic-ai reads an alias only when its property is absent, so beside
/// the property any value loads (probed: `vendor_id: 5` beside `provider_response_id`).
pub(crate) fn next_alias_value<'de, T, A>(
    map: &mut A,
    key: &'static str,
) -> Result<Result<crate::Field<T>, crate::RawJson>, A::Error>
where
    T: serde::de::DeserializeOwned,
    A: MapAccess<'de>,
{
    let raw = next_unknown_value(map, key)?;
    Ok(serde_json::from_str::<crate::Field<T>>(raw.get()).map_err(|_| raw))
}

/// Reads the value of a key the schema does not name.
pub(crate) fn next_unknown_value<'de, A: MapAccess<'de>>(map: &mut A, key: &str) -> Result<crate::RawJson, A::Error> {
    push(Segment::Key(Cow::Owned(key.to_owned())));
    let result = map.next_value::<crate::RawJson>();
    if result.is_err() {
        note_error_path();
    }
    pop();
    result
}

/// Checks that a constant discriminator key holds its value.
pub(crate) fn expect_tag<'de, A: MapAccess<'de>>(
    map: &mut A,
    key: &'static str,
    expected: &str,
) -> Result<(), A::Error> {
    let found: Key<'de> = next_value(map, key)?;
    if found.as_str() == expected {
        Ok(())
    } else {
        push(Segment::Key(Cow::Borrowed(key)));
        note_error_path();
        pop();
        Err(de::Error::custom(format_args!(
            "`{key}` is {:?} here, expected {expected:?}",
            found.as_str()
        )))
    }
}

/// The error for a required key that is missing.
pub(crate) fn missing<E: de::Error>(key: &'static str, type_name: &str) -> E {
    note_error_path();
    E::custom(format_args!("missing required key `{key}` of {type_name}"))
}

/// A map key, borrowed from the input when it has no escapes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Key<'de>(pub(crate) Cow<'de, str>);

impl Key<'_> {
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(value)))
            }
            fn visit_str<E: de::Error>(self, value: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(value.to_owned())))
            }
            fn visit_string<E: de::Error>(self, value: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(value)))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

/// A `Vec<T>` whose elements are read with their index on the path.
pub(crate) struct IndexedVec<T>(pub(crate) Vec<T>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for IndexedVec<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct SeqVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for SeqVisitor<T> {
            type Value = IndexedVec<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<IndexedVec<T>, A::Error> {
                read_indexed_seq(seq).map(IndexedVec)
            }
        }
        deserializer.deserialize_seq(SeqVisitor(PhantomData))
    }
}

/// Reads the rest of an array, with each element's index on the path.
pub(crate) fn read_indexed_seq<'de, T: Deserialize<'de>, A: SeqAccess<'de>>(mut seq: A) -> Result<Vec<T>, A::Error> {
    let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
    loop {
        push(Segment::Index(items.len()));
        let item = seq.next_element::<T>();
        if item.is_err() {
            note_error_path();
        }
        pop();
        match item? {
            Some(item) => items.push(item),
            None => return Ok(items),
        }
    }
}

/// `Field<Vec<T>>` with indexed elements.
pub(crate) struct IndexedField<T>(pub(crate) crate::Field<Vec<T>>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for IndexedField<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Option::<IndexedVec<T>>::deserialize(deserializer)?;
        Ok(IndexedField(value.map(|v| v.0).into()))
    }
}

/// Writes an optional field unless it was absent.
pub(crate) fn serialize_field<M, T>(map: &mut M, key: &'static str, field: &crate::Field<T>) -> Result<(), M::Error>
where
    M: serde::ser::SerializeMap,
    T: serde::Serialize,
{
    match field {
        crate::Field::Absent => Ok(()),
        crate::Field::Null => map.serialize_entry(key, &()),
        crate::Field::Present(value) => map.serialize_entry(key, value),
    }
}
