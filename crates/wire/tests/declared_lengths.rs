//! Every map and sequence a history serialises tells the serializer its exact number of entries.
//!
//! `serde_json::to_value` sizes each object's map by that number, and a serializer may rely on it
//! being exact (serde_json's writer closes an object it was told is empty at once). The check is a
//! serializer that counts the entries of every compound value against what it was told, and
//! fails where it was told nothing.

use std::fmt;
use std::path::Path;

use msgflow_wire::arbitrary::{history, Flavour};
use msgflow_wire::{from_slice, ModelMessage};
use proptest::prelude::*;
use serde::ser::{self, Serialize};

#[derive(Debug)]
struct Mismatch(String);

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Mismatch {}

impl ser::Error for Mismatch {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Mismatch(msg.to_string())
    }
}

/// A serializer that writes nothing and fails where a compound value's entries differ from the
/// number it declared.
struct Lengths;

/// A compound value being counted: `what` it is, the entries it `declared`, the entries `seen`.
struct Counted {
    what: &'static str,
    declared: Option<usize>,
    seen: usize,
}

impl Counted {
    fn new(what: &'static str, declared: Option<usize>) -> Self {
        Counted {
            what,
            declared,
            seen: 0,
        }
    }

    fn entry<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Mismatch> {
        self.seen += 1;
        value.serialize(Lengths)
    }

    fn finish(self) -> Result<(), Mismatch> {
        match self.declared {
            Some(declared) if declared != self.seen => Err(Mismatch(format!(
                "a {} declared {declared} entries and has {}",
                self.what, self.seen
            ))),
            Some(_) => Ok(()),
            None => Err(Mismatch(format!(
                "a {} of {} entries declared none",
                self.what, self.seen
            ))),
        }
    }
}

macro_rules! scalars {
    ($($method:ident($type:ty)),* $(,)?) => {
        $(fn $method(self, _: $type) -> Result<(), Mismatch> { Ok(()) })*
    };
}

impl ser::Serializer for Lengths {
    type Ok = ();
    type Error = Mismatch;
    type SerializeSeq = Counted;
    type SerializeTuple = Counted;
    type SerializeTupleStruct = Counted;
    type SerializeTupleVariant = Counted;
    type SerializeMap = Counted;
    type SerializeStruct = Counted;
    type SerializeStructVariant = Counted;

    scalars!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_unit_struct(&'static str),
    );

    fn serialize_none(self) -> Result<(), Mismatch> {
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Mismatch> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Mismatch> {
        Ok(())
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Mismatch> {
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, value: &T) -> Result<(), Mismatch> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), Mismatch> {
        value.serialize(self)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Counted, Mismatch> {
        Ok(Counted::new("sequence", len))
    }

    fn serialize_tuple(self, len: usize) -> Result<Counted, Mismatch> {
        Ok(Counted::new("tuple", Some(len)))
    }

    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<Counted, Mismatch> {
        Ok(Counted::new("tuple struct", Some(len)))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        len: usize,
    ) -> Result<Counted, Mismatch> {
        Ok(Counted::new("tuple variant", Some(len)))
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Counted, Mismatch> {
        Ok(Counted::new("map", len))
    }

    fn serialize_struct(self, _: &'static str, len: usize) -> Result<Counted, Mismatch> {
        Ok(Counted::new("struct", Some(len)))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        len: usize,
    ) -> Result<Counted, Mismatch> {
        Ok(Counted::new("struct variant", Some(len)))
    }
}

/// The compound serializers whose entries are values alone: each value is an entry.
macro_rules! counted {
    ($($trait:ident :: $method:ident ($($key:ty)?)),* $(,)?) => {$(
        impl ser::$trait for Counted {
            type Ok = ();
            type Error = Mismatch;
            fn $method<T: Serialize + ?Sized>(&mut self, $(_: $key,)? value: &T) -> Result<(), Mismatch> {
                self.entry(value)
            }
            fn end(self) -> Result<(), Mismatch> {
                self.finish()
            }
        }
    )*};
}

counted!(
    SerializeSeq::serialize_element(),
    SerializeTuple::serialize_element(),
    SerializeTupleStruct::serialize_field(),
    SerializeTupleVariant::serialize_field(),
    SerializeStruct::serialize_field(&'static str),
    SerializeStructVariant::serialize_field(&'static str),
);

impl ser::SerializeMap for Counted {
    type Ok = ();
    type Error = Mismatch;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Mismatch> {
        key.serialize(Lengths)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Mismatch> {
        self.entry(value)
    }
    fn end(self) -> Result<(), Mismatch> {
        self.finish()
    }
}

#[test]
fn the_counter_catches_a_wrong_length() {
    struct TwoSaidOne;
    impl Serialize for TwoSaidOne {
        fn serialize<S: ser::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            use ser::SerializeMap;
            let mut map = serializer.serialize_map(Some(1))?;
            map.serialize_entry("a", &1)?;
            map.serialize_entry("b", &2)?;
            map.end()
        }
    }
    let err = TwoSaidOne.serialize(Lengths).unwrap_err();
    assert_eq!(err.to_string(), "a map declared 1 entries and has 2");
    // A `serde_json::Value` (what opaque values are) declares its lengths.
    let value = serde_json::json!([1, {"a": [2, 3]}]);
    assert!(value.serialize(Lengths).is_ok(), "{:?}", value.serialize(Lengths).err());
}

#[test]
fn every_fixture_declares_its_lengths() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures");
    let mut checked = 0;
    for dir in ["v2_68", "realworld", "other"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for path in entries.map(|entry| entry.expect("readable directory entry").path()) {
            if path.extension().is_none_or(|ext| ext != "json") {
                continue;
            }
            let Ok(history) = from_slice(&std::fs::read(&path).expect("readable fixture")) else {
                continue;
            };
            if let Err(err) = history.serialize(Lengths) {
                panic!("{}: {err}", path.display());
            }
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} fixtures were checked");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn generated_histories_declare_their_lengths(messages in history(Flavour::Any)) {
        let messages: Vec<ModelMessage> = messages;
        prop_assert!(messages.serialize(Lengths).is_ok(), "{:?}", messages.serialize(Lengths).err());
    }
}
