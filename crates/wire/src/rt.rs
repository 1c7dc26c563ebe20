//! The runtime that generated code calls: one-pass parsing with JSON paths and exact positions.
//!
//! Parsing is plain serde over `serde_json`, with two additions:
//!
//! * **Tagged unions without buffering.** pydantic-ai writes a part's `part_kind` last, so a
//!   union is read as a list of `(key, borrowed raw value)` pairs ([`Entries`]) and dispatched
//!   once the tag is known. The chosen struct then reads its fields from those raw slices
//!   ([`EntriesMapAccess`]); opaque values ([`crate::RawJson`]) are copied, never re-scanned.
//! * **Locations.** A thread-local [`Context`] keeps the JSON path being read and, for errors
//!   raised while re-reading a raw slice, the absolute line and column in the input.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::marker::PhantomData;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// serde_json's private marker for raw values (stable across 1.x; the workspace pins
/// serde_json, and `raw_values_are_handed_over_without_rescanning` tests it).
const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

/// One step of a JSON path.
#[derive(Clone, Debug)]
pub(crate) enum Segment {
    Index(usize),
    Key(Cow<'static, str>),
}

/// Parse state for error reporting.
#[derive(Default)]
pub(crate) struct Context {
    /// Address and length of the input being parsed, to turn raw slices into offsets.
    base: usize,
    len: usize,
    path: Vec<Segment>,
    /// The path where the first (innermost) error was seen.
    error_path: Option<Vec<Segment>>,
    /// The absolute byte offset of the first error raised while re-reading a raw slice.
    error_offset: Option<usize>,
}

thread_local! {
    static CONTEXT: RefCell<Context> = RefCell::new(Context::default());
}

/// Installs a fresh context for parsing `input` and restores the previous one afterwards.
pub(crate) struct ContextGuard {
    previous: Option<Context>,
}

impl ContextGuard {
    pub(crate) fn new(input: &[u8]) -> Self {
        let fresh = Context { base: input.as_ptr() as usize, len: input.len(), ..Context::default() };
        let previous = CONTEXT.with(|ctx| std::mem::replace(&mut *ctx.borrow_mut(), fresh));
        ContextGuard { previous: Some(previous) }
    }

    /// The JSON path and absolute byte offset recorded for the error being reported.
    pub(crate) fn error_location(&self) -> (String, Option<usize>) {
        CONTEXT.with(|ctx| {
            let ctx = ctx.borrow();
            let path = ctx.error_path.as_deref().unwrap_or(&ctx.path);
            (format_path(path), ctx.error_offset)
        })
    }
}

impl Drop for ContextGuard {
    fn drop(&mut self) {
        if let Some(previous) = self.previous.take() {
            CONTEXT.with(|ctx| *ctx.borrow_mut() = previous);
        }
    }
}

pub(crate) fn format_path(path: &[Segment]) -> String {
    let mut out = String::from("$");
    for segment in path {
        match segment {
            Segment::Index(index) => {
                let _ = write!(out, "[{index}]");
            }
            Segment::Key(key) if key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') && !key.is_empty() => {
                let _ = write!(out, ".{key}");
            }
            Segment::Key(key) => {
                let _ = write!(out, "[{}]", serde_json::to_string(key.as_ref()).unwrap_or_default());
            }
        }
    }
    out
}

fn push(segment: Segment) {
    CONTEXT.with(|ctx| ctx.borrow_mut().path.push(segment));
}

fn pop() {
    CONTEXT.with(|ctx| {
        ctx.borrow_mut().path.pop();
    });
}

/// Records the current path as the error's location, unless an inner frame already did.
fn note_error_path() {
    CONTEXT.with(|ctx| {
        let mut ctx = ctx.borrow_mut();
        if ctx.error_path.is_none() {
            ctx.error_path = Some(ctx.path.clone());
        }
    });
}

/// Records where in the whole input an error raised inside `raw` happened.
fn note_error_offset(raw: &str, line: usize, column: usize) {
    CONTEXT.with(|ctx| {
        let mut ctx = ctx.borrow_mut();
        if ctx.error_offset.is_some() {
            return;
        }
        let start = raw.as_ptr() as usize;
        if start < ctx.base || start > ctx.base + ctx.len {
            return;
        }
        let relative = offset_of(raw, line, column);
        ctx.error_offset = Some(start - ctx.base + relative);
    });
}

/// Records the start of `raw` as the error's offset (for errors about a whole value).
pub(crate) fn note_error_at(raw: &RawValue) {
    note_error_path();
    note_error_offset(raw.get(), 1, 1);
}

/// The byte offset of a 1-based (line, column) position inside `text`.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (index, piece) in text.split_inclusive('\n').enumerate() {
        if index + 1 == line {
            return offset + column.saturating_sub(1).min(piece.len());
        }
        offset += piece.len();
    }
    text.len()
}

/// The 1-based (line, column) of a byte offset in `input`.
pub(crate) fn line_column(input: &[u8], offset: usize) -> (usize, usize) {
    let before = input.get(..offset).unwrap_or(input);
    let line = memchr::memchr_iter(b'\n', before).count() + 1;
    let line_start = memchr::memrchr(b'\n', before).map_or(0, |at| at + 1);
    (line, offset - line_start + 1)
}

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
pub(crate) fn expect_tag<'de, A: MapAccess<'de>>(map: &mut A, key: &'static str, expected: &str) -> Result<(), A::Error> {
    let found: Key<'de> = next_value(map, key)?;
    if found.as_str() == expected {
        Ok(())
    } else {
        push(Segment::Key(Cow::Borrowed(key)));
        note_error_path();
        pop();
        Err(de::Error::custom(format_args!("`{key}` is {:?} here, expected {expected:?}", found.as_str())))
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

/// A JSON object read as `(key, raw value)` pairs borrowed from the input, in input order.
pub(crate) struct Entries<'de> {
    pub(crate) items: Vec<(Key<'de>, &'de RawValue)>,
}

impl<'de> Entries<'de> {
    /// Reads the rest of a JSON object as pairs.
    pub(crate) fn from_map<A: MapAccess<'de>>(mut map: A) -> Result<Self, A::Error> {
        let mut items = Vec::with_capacity(map.size_hint().unwrap_or(10));
        while let Some(key) = map.next_key::<Key<'de>>()? {
            push(Segment::Key(Cow::Owned(key.as_str().to_owned())));
            let value = map.next_value::<&'de RawValue>();
            if value.is_err() {
                note_error_path();
            }
            pop();
            items.push((key, value?));
        }
        Ok(Entries { items })
    }

    /// The string value of a discriminator key (the last one wins, as in pydantic-ai), or `None`
    /// when the key is absent or `null`.
    pub(crate) fn tag<E: de::Error>(&self, key: &'static str) -> Result<Option<Key<'de>>, E> {
        let Some((_, raw)) = self.items.iter().rev().find(|(name, _)| name.as_str() == key) else {
            return Ok(None);
        };
        if raw.get() == "null" {
            return Ok(None);
        }
        push(Segment::Key(Cow::Borrowed(key)));
        let result = Key::deserialize(RawSlot(raw)).map_err(|err| {
            note_error_at(raw);
            E::custom(format_args!("`{key}` must be a string: {}", message_of(&err)))
        });
        pop();
        result.map(Some)
    }

    /// The raw value of a key.
    pub(crate) fn get(&self, key: &str) -> Option<&'de RawValue> {
        self.items.iter().rev().find(|(name, _)| name.as_str() == key).map(|(_, raw)| *raw)
    }

    /// An error about the whole object, located at its first value.
    pub(crate) fn error<E: de::Error>(&self, message: fmt::Arguments<'_>) -> E {
        match self.items.first() {
            Some((_, raw)) => note_error_at(raw),
            None => note_error_path(),
        }
        E::custom(message)
    }

    /// Reads the object as the struct `T` (whose visitor reads it like any JSON object).
    pub(crate) fn into_struct<T: Deserialize<'de>, E: de::Error>(self) -> Result<T, E> {
        let first = self.items.first().map(|(_, raw)| *raw);
        T::deserialize(EntriesDeserializer(self)).map_err(|err| {
            // Errors about the object as a whole (a missing key) point at its first value.
            if let Some(raw) = first {
                note_error_offset(raw.get(), 1, 1);
            }
            E::custom(message_of(&err))
        })
    }

    /// Keeps the object whole, for a kind msgflow does not know.
    pub(crate) fn into_unknown(self) -> crate::UnknownObject {
        let mut extra = crate::Extra::new();
        for (key, raw) in self.items {
            extra.push(key.0.into_owned(), crate::RawJson::from_raw(raw));
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

/// The message of a serde_json error without its " at line L column C" suffix (msgflow reports
/// the absolute position itself).
pub(crate) fn message_of(err: &serde_json::Error) -> String {
    let text = err.to_string();
    if err.line() == 0 {
        return text;
    }
    let suffix = format!(" at line {} column {}", err.line(), err.column());
    text.strip_suffix(&suffix).map(str::to_owned).unwrap_or(text)
}

/// Presents [`Entries`] as a JSON object to a struct's visitor.
struct EntriesDeserializer<'de>(Entries<'de>);

impl<'de> Deserializer<'de> for EntriesDeserializer<'de> {
    type Error = serde_json::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(EntriesMapAccess { items: self.0.items.into_iter(), value: None })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map struct enum identifier ignored_any
    }
}

/// Map access over [`Entries`]: each value is read from its raw slice.
struct EntriesMapAccess<'de> {
    items: std::vec::IntoIter<(Key<'de>, &'de RawValue)>,
    value: Option<&'de RawValue>,
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
        let raw = self.value.take().ok_or_else(|| de::Error::custom("value requested before its key"))?;
        seed.deserialize(RawSlot(raw)).inspect_err(|err| {
            if err.line() != 0 {
                note_error_offset(raw.get(), err.line(), err.column());
            } else {
                note_error_offset(raw.get(), 1, 1);
            }
        })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

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

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, name: &'static str, visitor: V) -> Result<V::Value, Self::Error> {
        if name == RAW_VALUE_TOKEN {
            visitor.visit_map(RawValueHandoff { raw: Some(self.0.get()) })
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
            seed.deserialize(BorrowedStrDeserializer::new(RAW_VALUE_TOKEN)).map(Some)
        } else {
            Ok(None)
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Self::Error> {
        let raw = self.raw.take().ok_or_else(|| de::Error::custom("raw value already taken"))?;
        seed.deserialize(BorrowedStrDeserializer::new(raw))
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

/// `Option<Vec<T>>` with indexed elements (a required, nullable array).
pub(crate) struct IndexedOption<T>(pub(crate) Option<Vec<T>>);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for IndexedOption<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Option::<IndexedVec<T>>::deserialize(deserializer)?;
        Ok(IndexedOption(value.map(|v| v.0)))
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
