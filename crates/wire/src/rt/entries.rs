//! Tagged unions without buffering: a JSON object read as `(key, borrowed raw value)` pairs
//! ([`Entries`]), dispatched once its tag is known, and presented again as an object (or an array
//! of them) to the chosen struct's visitor.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::fields::{IndexedVec, Key};
use super::location::{message_of, note_error_at, note_error_offset, note_error_path, pop, push, Segment};
use super::raw_slot::RawSlot;

/// The value of one entry of [`Entries`].
pub(crate) enum EntryValue<'de> {
    /// The value's JSON text, borrowed from the input.
    Raw(&'de RawValue),
    /// An array of objects already split into entries (a message's `parts`, read before the
    /// message's `kind` is known, so that the parts are scanned once).
    Objects(Vec<Entries<'de>>),
}

impl<'de> EntryValue<'de> {
    /// The JSON text (rebuilt, compact, for split arrays).
    fn to_raw_json(&self) -> crate::RawJson {
        match self {
            EntryValue::Raw(raw) => crate::RawJson::from_raw(raw),
            EntryValue::Objects(objects) => {
                let mut text = String::from("[");
                for (index, object) in objects.iter().enumerate() {
                    if index > 0 {
                        text.push(',');
                    }
                    text.push('{');
                    for (position, (key, value)) in object.items.iter().enumerate() {
                        if position > 0 {
                            text.push(',');
                        }
                        text.push_str(&serde_json::to_string(key.as_str()).unwrap_or_default());
                        text.push(':');
                        text.push_str(value.to_raw_json().get());
                    }
                    text.push('}');
                }
                text.push(']');
                crate::RawJson::trusted(&text)
            }
        }
    }

    /// A raw value inside this one, to locate errors.
    fn anchor(&self) -> Option<&'de RawValue> {
        match self {
            EntryValue::Raw(raw) => Some(*raw),
            EntryValue::Objects(objects) => objects.iter().find_map(Entries::anchor),
        }
    }
}

/// A JSON object read as `(key, value)` pairs borrowed from the input, in input order.
pub(crate) struct Entries<'de> {
    pub(crate) items: Vec<(Key<'de>, EntryValue<'de>)>,
}

impl<'de> Entries<'de> {
    /// Reads the rest of a JSON object as pairs.
    pub(crate) fn from_map<A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        Self::from_map_splitting(map, &[])
    }

    /// Reads the rest of a JSON object as pairs, splitting the arrays of objects under
    /// `split_keys` into entries too.
    pub(crate) fn from_map_splitting<A: MapAccess<'de>>(
        mut map: A,
        split_keys: &[&'static str],
    ) -> Result<Self, A::Error> {
        let mut items = Vec::with_capacity(map.size_hint().unwrap_or(10));
        while let Some(key) = map.next_key::<Key<'de>>()? {
            let value = match split_keys.iter().find(|split| **split == key.as_str()) {
                Some(split) => {
                    push(Segment::Key(Cow::Borrowed(split)));
                    let objects = map.next_value::<IndexedVec<Entries<'de>>>();
                    if objects.is_err() {
                        note_error_path();
                    }
                    pop();
                    EntryValue::Objects(objects?.0)
                }
                None => match map.next_value::<&'de RawValue>() {
                    Ok(raw) => EntryValue::Raw(raw),
                    Err(err) => {
                        // Only now is the key worth an allocation for the path.
                        push(Segment::Key(Cow::Owned(key.as_str().to_owned())));
                        note_error_path();
                        pop();
                        return Err(err);
                    }
                },
            };
            items.push((key, value));
        }
        Ok(Entries { items })
    }

    fn anchor(&self) -> Option<&'de RawValue> {
        self.items.iter().find_map(|(_, value)| value.anchor())
    }

    /// The string value of a discriminator key (the last one wins, as in pydantic-ai), or `None`
    /// when the key is absent or `null`.
    pub(crate) fn tag<E: de::Error>(&self, key: &'static str) -> Result<Option<Key<'de>>, E> {
        let Some((_, value)) = self.items.iter().rev().find(|(name, _)| name.as_str() == key) else {
            return Ok(None);
        };
        push(Segment::Key(Cow::Borrowed(key)));
        let result = match value {
            EntryValue::Raw(raw) if raw.get() == "null" => Ok(None),
            EntryValue::Raw(raw) => Key::deserialize(RawSlot(raw)).map(Some).map_err(|err| {
                note_error_at(raw);
                E::custom(format_args!("`{key}` must be a string: {}", message_of(&err)))
            }),
            EntryValue::Objects(_) => {
                note_error_path();
                Err(E::custom(format_args!("`{key}` must be a string, not an array")))
            }
        };
        pop();
        result
    }

    /// An error about a key's value (an unknown tag), located at that value.
    pub(crate) fn error_at<E: de::Error>(&self, key: &'static str, message: fmt::Arguments<'_>) -> E {
        let raw = self
            .items
            .iter()
            .rev()
            .find(|(name, _)| name.as_str() == key)
            .and_then(|(_, value)| value.anchor());
        push(Segment::Key(Cow::Borrowed(key)));
        match raw {
            Some(raw) => note_error_at(raw),
            None => note_error_path(),
        }
        pop();
        E::custom(message)
    }

    /// An error about the whole object, located at its first value.
    pub(crate) fn error<E: de::Error>(&self, message: fmt::Arguments<'_>) -> E {
        match self.anchor() {
            Some(raw) => note_error_at(raw),
            None => note_error_path(),
        }
        E::custom(message)
    }

    /// Reads the object as the struct `T` (whose visitor reads it like any JSON object).
    pub(crate) fn into_struct<T: Deserialize<'de>, E: de::Error>(self) -> Result<T, E> {
        let first = self.anchor().map(RawValue::get);
        T::deserialize(EntriesDeserializer(self)).map_err(|err| {
            // Errors about the object as a whole (a missing key) point at its first value.
            if let Some(raw) = first {
                note_error_offset(raw, 1, 1);
            }
            E::custom(message_of(&err))
        })
    }

    /// Keeps the object whole, for a kind msgflow does not know.
    pub(crate) fn into_unknown(self) -> crate::UnknownObject {
        let mut extra = crate::Extra::new();
        for (key, value) in self.items {
            extra.push(key.0.into_owned(), value.to_raw_json());
        }
        crate::UnknownObject::from_extra(extra)
    }
}

impl<'de> Deserialize<'de> for Entries<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor;
        impl<'de> Visitor<'de> for EntriesVisitor {
            type Value = Entries<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Entries<'de>, A::Error> {
                Entries::from_map(map)
            }
        }
        deserializer.deserialize_map(EntriesVisitor)
    }
}

/// Presents [`Entries`] as a JSON object to a struct's visitor.
struct EntriesDeserializer<'de>(Entries<'de>);

impl<'de> Deserializer<'de> for EntriesDeserializer<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(EntriesMapAccess {
            items: self.0.items.into_iter(),
            value: None,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Map access over [`Entries`]: each value is read from its raw slice.
struct EntriesMapAccess<'de> {
    items: std::vec::IntoIter<(Key<'de>, EntryValue<'de>)>,
    value: Option<EntryValue<'de>>,
}

impl<'de> MapAccess<'de> for EntriesMapAccess<'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        match self.items.next() {
            Some((key, raw)) => {
                self.value = Some(raw);
                let key = match key.0 {
                    Cow::Borrowed(text) => seed.deserialize(BorrowedStrDeserializer::new(text))?,
                    Cow::Owned(text) => seed.deserialize(text.into_deserializer())?,
                };
                Ok(Some(key))
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        match self.value.take() {
            Some(EntryValue::Raw(raw)) => seed.deserialize(RawSlot(raw)).inspect_err(|err| {
                if err.line() != 0 {
                    note_error_offset(raw.get(), err.line(), err.column());
                } else {
                    note_error_offset(raw.get(), 1, 1);
                }
            }),
            Some(EntryValue::Objects(objects)) => seed.deserialize(ObjectsDeserializer(objects)),
            None => Err(de::Error::custom("value requested before its key")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// An array already split into objects' entries, as a deserializer of a sequence.
struct ObjectsDeserializer<'de>(Vec<Entries<'de>>);

impl<'de> Deserializer<'de> for ObjectsDeserializer<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_seq(ObjectsSeqAccess(self.0.into_iter()))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_some(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

struct ObjectsSeqAccess<'de>(std::vec::IntoIter<Entries<'de>>);

impl<'de> SeqAccess<'de> for ObjectsSeqAccess<'de> {
    type Error = serde_json::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(&mut self, seed: T) -> Result<Option<T::Value>, Self::Error> {
        match self.0.next() {
            Some(entries) => seed.deserialize(EntriesDeserializer(entries)).map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}
