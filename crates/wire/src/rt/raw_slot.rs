//! A raw value borrowed from the input as a deserializer, which hands a [`crate::RawJson`] its
//! slice through serde_json's raw-value protocol instead of scanning it again.

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

/// serde_json's private marker for raw values (stable across 1.x; the workspace pins
/// serde_json, and `raw_values_are_handed_over_without_rescanning` tests it).
pub(crate) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// A borrowed raw value as a deserializer: re-reads it, except that a [`crate::RawJson`] (or an
/// `Option` of one) takes the slice as it is, without scanning it again.
pub(crate) struct RawSlot<'de>(pub(crate) &'de RawValue);

macro_rules! forward_to_raw {
    ($($method:ident)*) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
            self.0.$method(visitor)
        }
    )*};
}

impl<'de> Deserializer<'de> for RawSlot<'de> {
    type Error = serde_json::Error;

    forward_to_raw! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64 deserialize_char deserialize_str deserialize_string
        deserialize_bytes deserialize_byte_buf deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        if self.0.get() == "null" {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if name == RAW_VALUE_TOKEN {
            visitor.visit_map(RawValueHandoff {
                raw: Some(self.0.get()),
            })
        } else {
            self.0.deserialize_newtype_struct(name, visitor)
        }
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, Self::Error> {
        self.0.deserialize_unit_struct(name, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, Self::Error> {
        self.0.deserialize_tuple(len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_tuple_struct(name, len, visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_struct(name, fields, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }
}

/// Speaks serde_json's raw-value protocol: one entry whose key is the marker and whose value is
/// the JSON text.
struct RawValueHandoff<'de> {
    raw: Option<&'de str>,
}

impl<'de> MapAccess<'de> for RawValueHandoff<'de> {
    type Error = serde_json::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(&mut self, seed: K) -> Result<Option<K::Value>, Self::Error> {
        if self.raw.is_some() {
            seed.deserialize(BorrowedStrDeserializer::new(RAW_VALUE_TOKEN))
                .map(Some)
        } else {
            Ok(None)
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        let raw = self
            .raw
            .take()
            .ok_or_else(|| de::Error::custom("raw value already taken"))?;
        seed.deserialize(BorrowedStrDeserializer::new(raw))
    }
}
