//! The runtime that generated code calls: one-pass parsing with JSON paths and exact positions.
//!
//! Parsing is plain serde over `serde_json`, with two additions:
//!
//! * **Tagged unions without buffering.** pydantic-ai writes a part's `part_kind` last, so a
//!   union is read as a list of `(key, borrowed raw value)` pairs ([`Entries`]) and dispatched
//!   once the tag is known. The chosen struct then reads its fields from those raw slices
//!   ([`EntriesMapAccess`](entries::EntriesMapAccess)); opaque values ([`crate::RawJson`]) are
//!   handed over, never re-scanned, and become slices of the input when it is shared
//!   ([`ContextGuard::shared`]).
//! * **Locations.** A thread-local [`Context`](location::Context) keeps the JSON path being read
//!   and, for errors raised while re-reading a raw slice, the absolute line and column in the
//!   input.
//!
//! The pieces, each in its own module: `location` (the thread-local context, JSON paths, line and
//! column), `fields` (what generated code calls per field), `entries` (an object read as raw
//! pairs, for tagged unions), `raw_slot` (a borrowed raw value as a deserializer) and `size_hint`
//! (the serialised-size estimate).

mod entries;
mod fields;
mod location;
mod raw_slot;
mod size_hint;

pub(crate) use self::entries::Entries;
pub(crate) use self::fields::{
    expect_tag, missing, next_alias_value, next_unknown_value, next_value, read_indexed_seq, serialize_field,
    IndexedField, IndexedVec, Key,
};
pub(crate) use self::location::{
    format_path, line_column, message_of, offset_of_line_column, shared_input_range, ContextGuard, InputContext,
    Segment,
};
pub(crate) use self::raw_slot::RAW_VALUE_TOKEN;
pub(crate) use self::size_hint::SizeHint;
