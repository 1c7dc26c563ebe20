//! The runtime that generated code calls: one-pass parsing with JSON paths and exact positions.
//!
//! Parsing is plain serde over `serde_json`, with two additions:
//!
//! * **Tagged unions without buffering.** pydantic-ai writes a part's `part_kind` last, so a
//!   union is read as a list of `(key, borrowed raw value)` pairs ([`Entries`]) and dispatched
//!   once the tag is known. The chosen struct then reads its fields from those raw slices
//!   ([`EntriesMapAccess`]); opaque values ([`crate::RawJson`]) are handed over, never
//!   re-scanned, and become slices of the input when it is shared ([`ContextGuard::shared`]).
//! * **Locations.** A thread-local [`Context`] keeps the JSON path being read and, for errors
//!   raised while re-reading a raw slice, the absolute line and column in the input.

use std::borrow::Cow;
use std::cell::RefCell;
use std::fmt::{self, Write as _};
use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

/// serde_json's private marker for raw values (stable across 1.x; the workspace pins
/// serde_json, and `raw_values_are_handed_over_without_rescanning` tests it).
pub(crate) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

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
    /// The input itself when it is shared: opaque values then become slices of it.
    shared: Option<Arc<String>>,
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
        Self::install(Context {
            base: input.as_ptr() as usize,
            len: input.len(),
            ..Context::default()
        })
    }

    /// A context whose opaque values are slices of `input` rather than copies.
    pub(crate) fn shared(input: &Arc<String>) -> Self {
        Self::install(Context {
            base: input.as_ptr() as usize,
            len: input.len(),
            shared: Some(Arc::clone(input)),
            ..Context::default()
        })
    }

    fn install(fresh: Context) -> Self {
        let previous = CONTEXT.with(|ctx| std::mem::replace(&mut *ctx.borrow_mut(), fresh));
        ContextGuard {
            previous: Some(previous),
        }
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

/// When `text` lies inside the shared input being parsed: that input and `text`'s offset in it.
pub(crate) fn shared_input_range(text: &str) -> Option<(Arc<String>, usize)> {
    CONTEXT.with(|ctx| {
        let ctx = ctx.borrow();
        let input = ctx.shared.as_ref()?;
        let start = (text.as_ptr() as usize).checked_sub(ctx.base)?;
        (start + text.len() <= ctx.len).then(|| (Arc::clone(input), start))
    })
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

/// The byte offset of a 1-based (line, column) position in the whole input.
pub(crate) fn offset_of_line_column(input: &[u8], line: usize, column: usize) -> usize {
    let text = std::str::from_utf8(input).unwrap_or_default();
    offset_of(text, line, column)
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

/// A cheap estimate of a value's serialised size, so that serialising a large history writes
/// into one buffer instead of growing (and copying) it repeatedly.
pub(crate) trait SizeHint {
    fn size_hint(&self) -> usize;
}

impl SizeHint for String {
    fn size_hint(&self) -> usize {
        // Quotes, and a little room for escapes.
        self.len() + self.len() / 16 + 2
    }
}

impl SizeHint for crate::RawJson {
    fn size_hint(&self) -> usize {
        self.get().len()
    }
}

impl SizeHint for crate::UnknownObject {
    fn size_hint(&self) -> usize {
        self.entries()
            .iter()
            .map(|(key, value)| key.len() + value.get().len() + 4)
            .sum::<usize>()
            + 2
    }
}

impl SizeHint for crate::Extra {
    fn size_hint(&self) -> usize {
        self.iter().map(|(key, value)| key.len() + value.get().len() + 4).sum()
    }
}

impl<T: SizeHint> SizeHint for Vec<T> {
    fn size_hint(&self) -> usize {
        self.iter().map(|item| item.size_hint() + 1).sum::<usize>() + 2
    }
}

impl<T: SizeHint> SizeHint for Box<T> {
    fn size_hint(&self) -> usize {
        T::size_hint(self)
    }
}

impl<T: SizeHint> SizeHint for Option<T> {
    fn size_hint(&self) -> usize {
        self.as_ref().map_or(4, SizeHint::size_hint)
    }
}

impl<T: SizeHint> SizeHint for crate::Field<T> {
    fn size_hint(&self) -> usize {
        self.get().map_or(4, SizeHint::size_hint)
    }
}

macro_rules! fixed_size_hint {
    ($($ty:ty => $size:expr),* $(,)?) => {$(
        impl SizeHint for $ty {
            fn size_hint(&self) -> usize {
                $size
            }
        }
    )*};
}

fixed_size_hint! {
    bool => 5,
    crate::Int => 12,
    crate::Float => 16,
    crate::Timestamp => 34,
    crate::Decimal => 12,
    crate::Duration => 12,
    crate::ForceDownload => 13,
    crate::LaxBool => 5,
}

impl SizeHint for crate::FileDigests {
    fn size_hint(&self) -> usize {
        match self {
            crate::FileDigests::List(digests) => 2 + digests.iter().map(|digest| digest.len() + 3).sum::<usize>(),
            crate::FileDigests::Other(raw) => raw.get().len(),
        }
    }
}

impl SizeHint for crate::Base64Data {
    fn size_hint(&self) -> usize {
        self.as_str().len() + 2
    }
}
