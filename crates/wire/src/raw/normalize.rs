//! [`RawJson::normalized`]: a JSON text as `serde_json::Value` writes the value it parses as,
//! written as it is parsed, without building the value.
//!
//! A UI adapter's tool result is JSON text inside a JSON string (AG-UI's tool message content),
//! which pydantic-ai reads into a value (`rehydrate_tool_return_content`) and dumps again with
//! the history. Reading it into a `Value` to write it straight back allocates a node per key and
//! item; on histories of large structured results that was most of a load's time.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Serialize;

use super::RawJson;
use crate::UserContent;

/// The key serde_json's parser (with `arbitrary_precision`) gives a number under that does not
/// fit a 64-bit integer, as the one entry of a map: `serde_json::Value` reads such a map as the
/// number (`KeyClassifier` in serde_json's `value/de.rs`; serde_json is pinned in the workspace).
const NUMBER_TOKEN: &str = "$serde_json::private::Number";
/// The key of serde_json's `RawValue` map, which `Value` reads specially too: never normalised here.
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// What [`RawJson::normalized`] found in a text.
#[derive(Clone, Debug)]
pub struct Normalized {
    /// The value's compact JSON text, equal to `serde_json::to_string` of the `Value` it parses as.
    pub raw: RawJson,
    /// How deep arrays and objects nest in it (0 for a scalar, 1 for `[]`).
    pub nesting: usize,
    /// Whether an object in it has a `kind` naming a user content item (`"image-url"`,
    /// `"binary"`, ...), which pydantic-ai may read as a file rather than as data.
    pub holds_content_item: bool,
}

impl RawJson {
    /// The JSON text `serde_json::Value` writes for the value `text` parses as (insignificant
    /// whitespace removed, strings escaped as serde_json escapes them, numbers as written), made
    /// in one pass without building the value. `None` when `text` is not one JSON value, or when
    /// an object in it repeats a key (the value keeps only the last one, where the first stood):
    /// the caller then reads it as a `Value`.
    ///
    /// ```
    /// use msgflow_wire::RawJson;
    /// let normalized = RawJson::normalized("{ \"caf\\u00e9\": [1, 2.50, 123456789012345678901234567890] }").unwrap();
    /// assert_eq!(normalized.raw.get(), r#"{"café":[1,2.50,123456789012345678901234567890]}"#);
    /// assert_eq!(normalized.nesting, 2);
    /// assert!(RawJson::normalized(r#"{"a": 1, "a": 2}"#).is_none());
    /// ```
    pub fn normalized(text: &str) -> Option<Normalized> {
        let mut writer = Writer {
            out: Vec::with_capacity(text.len()),
            keys: Vec::new(),
            depth: 0,
            nesting: 0,
            holds_content_item: false,
        };
        let mut deserializer = serde_json::Deserializer::from_str(text);
        (&mut writer).deserialize(&mut deserializer).ok()?;
        deserializer.end().ok()?;
        // Only whole UTF-8 texts were written: escaped strings, numbers, punctuation.
        let text = String::from_utf8(writer.out).ok()?;
        Some(Normalized {
            raw: RawJson::trusted_owned(text),
            nesting: writer.nesting,
            holds_content_item: writer.holds_content_item,
        })
    }
}

/// Writes the value being parsed as compact JSON into `out`.
struct Writer {
    out: Vec<u8>,
    /// The byte ranges in `out` of the keys of the objects being written, innermost last; an
    /// object's keys are checked for repeats when it ends.
    keys: Vec<(usize, usize)>,
    depth: usize,
    nesting: usize,
    holds_content_item: bool,
}

impl Writer {
    fn write_str(&mut self, text: &str) {
        // Serialising a `str` into a `Vec` cannot fail.
        let _ = text.serialize(&mut serde_json::Serializer::new(&mut self.out));
    }

    fn open(&mut self, bracket: u8) {
        self.out.push(bracket);
        self.depth += 1;
        self.nesting = self.nesting.max(self.depth);
    }

    /// Whether the keys written since `first` (one object's) are all different.
    fn keys_differ(&self, first: usize) -> bool {
        let keys = &self.keys[first..];
        match keys.len() {
            0 | 1 => true,
            // The escaped form is one-to-one, so equal keys are equal bytes.
            n if n <= 8 => keys.iter().enumerate().all(|(index, &(start, end))| {
                keys[..index]
                    .iter()
                    .all(|&(other_start, other_end)| self.out[start..end] != self.out[other_start..other_end])
            }),
            _ => {
                let mut sorted: Vec<&[u8]> = keys.iter().map(|&(start, end)| &self.out[start..end]).collect();
                sorted.sort_unstable();
                sorted.windows(2).all(|pair| pair[0] != pair[1])
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for &mut Writer {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for &mut Writer {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E: de::Error>(self, value: bool) -> Result<(), E> {
        self.out.extend_from_slice(if value { b"true" } else { b"false" });
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn visit_u64<E: de::Error>(self, value: u64) -> Result<(), E> {
        self.out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
        Ok(())
    }

    fn visit_i64<E: de::Error>(self, value: i64) -> Result<(), E> {
        self.out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
        Ok(())
    }

    fn visit_f64<E: de::Error>(self, value: f64) -> Result<(), E> {
        // As `Value` reads a float: a non-finite one is `null`.
        match serde_json::Number::from_f64(value) {
            Some(number) => self.out.extend_from_slice(number.to_string().as_bytes()),
            None => self.out.extend_from_slice(b"null"),
        }
        Ok(())
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<(), E> {
        self.write_str(value);
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.open(b'[');
        let mut count = 0usize;
        loop {
            let at = self.out.len();
            if count > 0 {
                self.out.push(b',');
            }
            if seq.next_element_seed(&mut *self)?.is_none() {
                self.out.truncate(at);
                break;
            }
            count += 1;
        }
        self.out.push(b']');
        self.depth -= 1;
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some(first_key) = map.next_key::<KeyText<'de>>()? else {
            self.open(b'{');
            self.out.push(b'}');
            self.depth -= 1;
            return Ok(());
        };
        match first_key.0.as_ref() {
            NUMBER_TOKEN => {
                // A number `Value` holds as its text, read as `Value` reads it (`NumberFromString`).
                let text: String = map.next_value()?;
                let number: serde_json::Number = text.parse().map_err(|_| de::Error::custom("number"))?;
                self.out.extend_from_slice(number.to_string().as_bytes());
                return Ok(());
            }
            RAW_VALUE_TOKEN => return Err(de::Error::custom("raw value")),
            _ => {}
        }
        self.open(b'{');
        let first = self.keys.len();
        let mut key = Some(first_key);
        while let Some(KeyText(text)) = key {
            if self.keys.len() > first {
                self.out.push(b',');
            }
            let start = self.out.len();
            self.write_str(&text);
            self.keys.push((start, self.out.len()));
            self.out.push(b':');
            let value_start = self.out.len();
            map.next_value_seed(&mut *self)?;
            if text == "kind" {
                let value = &self.out[value_start..];
                let names_content_item = value.len() >= 2
                    && value[0] == b'"'
                    && UserContent::KNOWN_TAGS
                        .iter()
                        .any(|tag| &value[1..value.len() - 1] == tag.as_bytes() && value[value.len() - 1] == b'"');
                self.holds_content_item |= names_content_item;
            }
            key = map.next_key()?;
        }
        if !self.keys_differ(first) {
            return Err(de::Error::custom("a repeated key"));
        }
        self.keys.truncate(first);
        self.out.push(b'}');
        self.depth -= 1;
        Ok(())
    }
}

/// An object key, borrowed from the text where it has no escape.
struct KeyText<'de>(std::borrow::Cow<'de, str>);

impl<'de> de::Deserialize<'de> for KeyText<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = KeyText<'de>;

            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("an object key")
            }

            fn visit_borrowed_str<E: de::Error>(self, value: &'de str) -> Result<Self::Value, E> {
                Ok(KeyText(value.into()))
            }

            fn visit_str<E: de::Error>(self, value: &str) -> Result<Self::Value, E> {
                Ok(KeyText(value.to_owned().into()))
            }

            fn visit_string<E: de::Error>(self, value: String) -> Result<Self::Value, E> {
                Ok(KeyText(value.into()))
            }
        }
        deserializer.deserialize_str(KeyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::Value;

    use super::*;

    /// What the `Value` path writes: `None` where the text does not parse.
    fn through_value(text: &str) -> Option<String> {
        serde_json::from_str::<Value>(text)
            .ok()
            .map(|value| serde_json::to_string(&value).unwrap())
    }

    fn normalized(text: &str) -> Option<String> {
        RawJson::normalized(text).map(|normalized| normalized.raw.get().to_owned())
    }

    #[test]
    fn writes_what_the_value_writes() {
        for text in [
            "[]",
            "{}",
            " [ 1 , -2 , 3.0 , 1E2 , -0 , 0.5e-3 , 18446744073709551616 , -9223372036854775809 ] ",
            r#"{"a\u0041\/\u00e9\ud83d\ude00": "\t\u0001\"\\ \u2028", "b": [true, false, null, {}]}"#,
            r#"{"$serde_json::private::Number": "12.50"}"#,
            r#"[{"kind": "image-url", "url": "https://x/a.png"}]"#,
            "\"just a string\"",
            "12",
        ] {
            assert_eq!(normalized(text), through_value(text), "{text}");
        }
    }

    #[test]
    fn refuses_what_the_value_would_change_or_not_read() {
        for text in [
            r#"{"a": 1, "b": 2, "a": 3}"#,
            r#"{"k0":0,"k1":1,"k2":2,"k3":3,"k4":4,"k5":5,"k6":6,"k7":7,"k8":8,"k3":9}"#,
            r#"[{"x": {"y": 1, "y": 1}}]"#,
            r#"{"$serde_json::private::RawValue": "1"}"#,
            r#"{"$serde_json::private::Number": "twelve"}"#,
            "[1, 2",
            "[1] x",
            "[NaN]",
            r#"["\ud800"]"#,
            "",
        ] {
            assert_eq!(normalized(text), None, "{text}");
        }
        let too_deep = "[".repeat(200) + &"]".repeat(200);
        assert_eq!(normalized(&too_deep), None);
    }

    #[test]
    fn tells_nesting_and_content_items() {
        let normalized = RawJson::normalized(r#"[{"a": [[]]}, 1]"#).unwrap();
        assert_eq!(normalized.nesting, 4);
        assert!(!normalized.holds_content_item);
        let normalized = RawJson::normalized(r#"{"x": [{"url": "u", "kind": "binary"}]}"#).unwrap();
        assert!(normalized.holds_content_item);
        for text in [
            r#"{"kind": "binaryx"}"#,
            r#"{"kind": ["binary"]}"#,
            r#"{"type": "binary"}"#,
        ] {
            assert!(!RawJson::normalized(text).unwrap().holds_content_item, "{text}");
        }
    }

    /// JSON text with whitespace, escapes, repeated keys and numbers of every spelling.
    fn json_text() -> impl Strategy<Value = String> {
        let space = prop::sample::select(vec!["", " ", "\n  ", "\t"]);
        let leaf = prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            prop::sample::select(vec![
                "0",
                "-0",
                "7",
                "-12",
                "1.5",
                "2.50",
                "1e3",
                "-4E-2",
                "99999999999999999999"
            ])
            .prop_map(str::to_owned),
            prop::sample::select(vec![
                r#""plain""#,
                r#""a\"b\\c\/d""#,
                r#""\u00e9\u0007\n""#,
                r#""é😀""#,
                r#""kind""#,
                r#""binary""#,
                r#""""#
            ])
            .prop_map(str::to_owned),
        ];
        leaf.prop_recursive(5, 48, 6, move |inner| {
            let space = space.clone();
            prop_oneof![
                (prop::collection::vec(inner.clone(), 0..6), space.clone())
                    .prop_map(|(items, space)| format!("[{space}{}{space}]", items.join(&format!("{space},")))),
                (
                    prop::collection::vec(
                        (
                            prop::sample::select(vec!["a", "b", "kind", "c\\u0041", "cA", "url"]),
                            inner
                        ),
                        0..6
                    ),
                    space
                )
                    .prop_map(|(entries, space)| {
                        let entries: Vec<String> = entries
                            .iter()
                            .map(|(key, value)| format!("\"{key}\"{space}:{value}"))
                            .collect();
                        format!("{{{space}{}}}", entries.join(","))
                    }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

        /// Where it writes a text, it is the `Value`'s; it refuses only repeated keys.
        #[test]
        fn equals_the_value_path(text in json_text()) {
            let value = serde_json::from_str::<Value>(&text).ok();
            match (normalized(&text), value) {
                (Some(written), Some(value)) => prop_assert_eq!(written, serde_json::to_string(&value).unwrap()),
                (None, Some(_)) => prop_assert!(has_repeated_key(&text), "refused {}", text),
                (written, None) => prop_assert_eq!(written, None),
            }
        }
    }

    /// Whether an object in `text` repeats a key, told from the parsed entries.
    fn has_repeated_key(text: &str) -> bool {
        struct Repeats(bool);
        impl<'de> Visitor<'de> for &mut Repeats {
            type Value = ();
            fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
                formatter.write_str("JSON")
            }
            fn visit_bool<E>(self, _: bool) -> Result<(), E> {
                Ok(())
            }
            fn visit_unit<E>(self) -> Result<(), E> {
                Ok(())
            }
            fn visit_u64<E>(self, _: u64) -> Result<(), E> {
                Ok(())
            }
            fn visit_i64<E>(self, _: i64) -> Result<(), E> {
                Ok(())
            }
            fn visit_str<E>(self, _: &str) -> Result<(), E> {
                Ok(())
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
                while seq.next_element_seed(&mut *self)?.is_some() {}
                Ok(())
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
                let mut seen = std::collections::HashSet::new();
                while let Some(key) = map.next_key::<String>()? {
                    if key == NUMBER_TOKEN {
                        let _: String = map.next_value()?;
                        continue;
                    }
                    self.0 |= !seen.insert(key);
                    map.next_value_seed(&mut *self)?;
                }
                Ok(())
            }
        }
        impl<'de> DeserializeSeed<'de> for &mut Repeats {
            type Value = ();
            fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
                deserializer.deserialize_any(self)
            }
        }
        let mut repeats = Repeats(false);
        let _ = (&mut repeats).deserialize(&mut serde_json::Deserializer::from_str(text));
        repeats.0
    }
}
