//! Would pydantic-ai 2.68.0 load this history? [`verdict`] answers with every reason it would not.
//!
//! msgflow reads leniently and losslessly: unknown part kinds, unknown enum values, `null` where
//! pydantic-ai wants a value, and lax spellings are all carried through. The verdict is the other
//! half: it walks the typed history once and reports each place where
//! `ModelMessagesTypeAdapter.validate_json` would raise, with pydantic's error `type` and `loc`.
//!
//! * The rules the schema states (field types, nullability, literal sets, tagged unions) are
//!   generated from it by `cargo xtask codegen` into `verdict/rules.rs`, pydantic-ai's typed
//!   routes among them: a part whose `tool_kind` selects a typed class (tool search, capability
//!   load) is checked as that class (its literal `tool_name`, the TypedDict of its `args` or
//!   `content`, under its own tag), with the helpers of `verdict/shape.rs`. User content is
//!   pydantic's smart union (`verdict/smart.rs`): an item without `kind` loads when one of the
//!   members that default their `kind` validates it, and an invalid item is reported under
//!   every member, as pydantic-core reports it.
//! * What the schema cannot say is written by hand, each mirroring the pydantic-ai or
//!   pydantic-core code it cites: the model validators (`verdict/validators.rs`), pydantic's lax
//!   coercions of integers and datetimes (`verdict/lax.rs`, `verdict/datetime.rs`), and the
//!   JSON-level limits of pydantic-core's parser (`verdict/json_limits.rs`).
//!
//! ```
//! let json = r#"[{"parts":[],"kind":"response","usage":null,"finish_reason":"STOP"}]"#;
//! let history = msgflow_wire::from_str(json)?;
//! let verdict = msgflow_wire::verdict::verdict_located(&history, json);
//! assert!(!verdict.is_loadable());
//! let types: Vec<&str> = verdict.reasons().iter().map(|r| r.error_type.as_str()).collect();
//! assert_eq!(types, ["dataclass_type", "literal_error"]);
//! assert_eq!(verdict.reasons()[0].path, "$[0].usage");
//! assert_eq!((verdict.reasons()[0].line, verdict.reasons()[0].column), (1, 40));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod datetime;
mod json_limits;
mod lax;
mod locate;
#[allow(clippy::all, missing_docs)]
mod rules;
mod shape;
mod smart;
mod validators;

use std::fmt::{self, Write as _};

use rayon::prelude::*;
use serde::{Serialize, Serializer};

use crate::{Field, Float, Int, ModelMessage, RawJson, Timestamp};

/// The 1-based (line, column) where the value at a msgflow JSON path (`$[0].parts["odd key"][2]`)
/// starts in `input`, or `None` when the path is not in the text. For errors about JSON that was
/// read as a plain value first (the foreign formats of `msgflow-formats`), never on a happy path.
pub fn line_column_of(input: &str, path: &str) -> Option<(usize, usize)> {
    locate::line_column_of(input, path)
}
pub(crate) use lax::{int_error, strip_underscores, MAX_INT_DIGITS};

/// pydantic-ai's answer for one history: loadable, or every reason it is not.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Verdict {
    reasons: Vec<Reason>,
}

impl Verdict {
    /// `true` when `ModelMessagesTypeAdapter.validate_json` would load the history.
    pub fn is_loadable(&self) -> bool {
        self.reasons.is_empty()
    }

    /// Why it would not, in the order pydantic reports them (empty when loadable).
    pub fn reasons(&self) -> &[Reason] {
        &self.reasons
    }

    /// Takes the reasons.
    pub fn into_reasons(self) -> Vec<Reason> {
        self.reasons
    }
}

/// One error pydantic-ai would raise: one entry of `ValidationError.errors()`, located in the input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Reason {
    /// pydantic's error `type` (`int_type`, `literal_error`, `union_tag_invalid`, `value_error`,
    /// `json_invalid`, ...).
    #[serde(rename = "type")]
    pub error_type: String,
    /// pydantic's `loc`, tags included where pydantic puts them
    /// (`[0, "response", "parts", 1, "tool-call", "args", "str"]`); empty for `json_invalid`.
    pub loc: Vec<LocItem>,
    /// msgflow's JSON path of the value (`$[0].parts[1].args`).
    pub path: String,
    /// 1-based line of the value in the input; 0 when not located.
    pub line: usize,
    /// 1-based column (in bytes) of the value in the input; 0 when not located.
    pub column: usize,
    /// What is wrong and what was expected (pydantic's `msg` where msgflow can say it as well).
    pub message: String,
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", self.error_type, self.path)?;
        if self.line > 0 {
            write!(f, " (line {}, column {})", self.line, self.column)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// One step of pydantic's `loc`: an index or a key (field name, union tag or member name).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LocItem {
    /// A list index (a JSON integer in pydantic's `loc`).
    Index(usize),
    /// A field name, a tag, or a union member's name (a JSON string).
    Key(String),
}

impl Serialize for LocItem {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            LocItem::Index(index) => serializer.serialize_u64(*index as u64),
            LocItem::Key(key) => serializer.serialize_str(key),
        }
    }
}

impl fmt::Display for LocItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LocItem::Index(index) => write!(f, "{index}"),
            LocItem::Key(key) => f.write_str(key),
        }
    }
}

/// Whether pydantic-ai 2.68.0 would load `history`, and if not, every reason (not located:
/// `line` and `column` are 0; see [`verdict_located`]).
///
/// `history` is what msgflow read; JSON-level limits are checked on the opaque values it holds
/// as written. A history of 1,024 messages or more is checked in chunks on rayon's thread pool
/// (the global one, or the pool the call runs in: `ThreadPool::install` sets how many threads).
pub fn verdict(history: &[ModelMessage]) -> Verdict {
    // Each message is checked on its own, so a long history's chunks are walked in parallel and
    // their reasons joined in order. The walk waits on memory (it reads every message once and
    // computes little), which more cores overlap.
    let mut reasons = if history.len() >= 2 * PARALLEL_CHUNK {
        let chunks: Vec<Vec<Reason>> = history
            .par_chunks(PARALLEL_CHUNK)
            .enumerate()
            .map(|(chunk, messages)| reasons_of(messages, chunk * PARALLEL_CHUNK))
            .collect();
        chunks.concat()
    } else {
        reasons_of(history, 0)
    };
    // pydantic-core parses the whole document before validating anything: a JSON-level error
    // is the only one it reports.
    if let Some(first) = reasons.iter().position(|r| r.error_type == JSON_INVALID) {
        reasons.swap(0, first);
        reasons.truncate(1);
    }
    Verdict { reasons }
}

/// Messages per chunk of a parallel verdict: enough that a chunk's walk (tens of microseconds)
/// outweighs handing it to a thread.
const PARALLEL_CHUNK: usize = 512;

/// The reasons of `messages`, the history's from `first_index` on, as pydantic reports them.
fn reasons_of(messages: &[ModelMessage], first_index: usize) -> Vec<Reason> {
    let mut walker = Walker::new();
    for (offset, message) in messages.iter().enumerate() {
        walker.at(Segment::Index(first_index + offset), |w| message.check(w));
    }
    walker.reasons
}

/// [`verdict`], with the line and column of each reason's value in `input`, the text `history`
/// was read from.
pub fn verdict_located(history: &[ModelMessage], input: &str) -> Verdict {
    let mut verdict = verdict(history);
    for reason in &mut verdict.reasons {
        if reason.line == 0 {
            if let Some((line, column)) = locate::line_column_of(input, &reason.path) {
                reason.line = line;
                reason.column = column;
            }
        }
    }
    verdict
}

// ---------------------------------------------------------------------------------------------
// The walk.

/// The error type of input pydantic-core cannot parse as JSON.
const JSON_INVALID: &str = "json_invalid";

/// One step of the walk: JSON path and pydantic `loc` differ only in tags and member names,
/// which are in the `loc` and not in the path.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Segment<'a> {
    Index(usize),
    Key(&'a str),
    /// A union tag or member name: in pydantic's `loc`, not in the JSON path.
    Tag(&'a str),
}

/// A rule pydantic applies to a value of this type, found by walking it.
pub(crate) trait Check {
    fn check<'a>(&'a self, w: &mut Walker<'a>);
}

/// How pydantic answers an explicit `null` for a field that is not `Optional`.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Null {
    /// `Optional[...]` or `Any`: `null` is a value.
    Allowed,
    /// Refused with this error type and message.
    Refused(&'static str, &'static str),
    /// Refused by every member of a union of scalars (`bool | Literal['allow-local']`), each
    /// under its name: (member, error type, message).
    Members(&'static [(&'static str, &'static str, &'static str)]),
}

impl Null {
    /// Reports the refusal of an explicit `null` at the current position, if it is refused.
    fn refuse(self, w: &mut Walker<'_>) {
        match self {
            Null::Allowed => {}
            Null::Refused(error_type, message) => w.report(error_type, message),
            Null::Members(members) => {
                for (member, error_type, message) in members {
                    w.report_at(Segment::Tag(member), error_type, *message);
                }
            }
        }
    }
}

/// The state of one verdict: where the walk is and what it found. Nothing is allocated until a
/// reason is found (the segment stack grows to the typed depth once).
pub(crate) struct Walker<'a> {
    segments: Vec<Segment<'a>>,
    reasons: Vec<Reason>,
}

impl<'a> Walker<'a> {
    fn new() -> Self {
        Walker {
            segments: Vec::with_capacity(16),
            reasons: Vec::new(),
        }
    }

    /// Runs `f` one step further down.
    #[inline]
    pub(crate) fn at<R>(&mut self, segment: Segment<'a>, f: impl FnOnce(&mut Self) -> R) -> R {
        self.segments.push(segment);
        let result = f(self);
        self.segments.pop();
        result
    }

    /// How many reasons have been found so far (a model validator runs only when its fields
    /// were valid, as `__post_init__` does).
    pub(crate) fn found(&self) -> usize {
        self.reasons.len()
    }

    /// The current nesting depth in the JSON document (keys and indexes, not tags).
    pub(crate) fn json_depth(&self) -> usize {
        self.segments.iter().filter(|s| !matches!(s, Segment::Tag(_))).count()
    }

    /// Reports a JSON-level error of the value at the current position (pydantic's `loc` is
    /// empty: the document was not parsed).
    fn report_json_invalid(&mut self, message: &str) {
        self.report(JSON_INVALID, message);
        if let Some(reason) = self.reasons.last_mut() {
            reason.loc.clear();
        }
    }

    /// The values of unknown keys: pydantic ignores them, but its parser reads them first.
    pub(crate) fn extra(&mut self, extra: &'a crate::Extra) {
        for (key, value) in extra.iter() {
            self.at(Segment::Key(key), |w| value.check(w));
        }
    }

    /// The values of an object of a kind pydantic does not know (already refused by its tag),
    /// for JSON-level errors, which pydantic reports instead.
    pub(crate) fn unknown(&mut self, object: &'a crate::UnknownObject) {
        self.extra(object.entries());
    }

    /// Reports a reason at the current position.
    pub(crate) fn report(&mut self, error_type: &str, message: impl Into<String>) {
        let mut loc = Vec::with_capacity(self.segments.len());
        let mut path = String::from("$");
        for segment in &self.segments {
            match *segment {
                Segment::Index(index) => {
                    loc.push(LocItem::Index(index));
                    let _ = write!(path, "[{index}]");
                }
                Segment::Key(key) => {
                    loc.push(LocItem::Key(key.to_owned()));
                    push_key(&mut path, key);
                }
                Segment::Tag(tag) => loc.push(LocItem::Key(tag.to_owned())),
            }
        }
        self.reasons.push(Reason {
            error_type: error_type.to_owned(),
            loc,
            path,
            line: 0,
            column: 0,
            message: message.into(),
        });
    }

    /// Reports a reason at the object holding the current field (a model validator's error,
    /// found while the walk is at one of its fields).
    pub(crate) fn report_at_parent(&mut self, error_type: &str, message: impl Into<String>) {
        let segment = self.segments.pop();
        self.report(error_type, message);
        self.segments.extend(segment);
    }

    /// Reports a reason under `key`, a key of an opaque value the walk does not borrow.
    pub(crate) fn report_under(&mut self, key: &str, error_type: &str, message: impl Into<String>) {
        self.report(error_type, message);
        if let Some(reason) = self.reasons.last_mut() {
            reason.loc.push(LocItem::Key(key.to_owned()));
            push_key(&mut reason.path, key);
        }
    }

    /// Reports a reason one step further down.
    pub(crate) fn report_at(&mut self, segment: Segment<'a>, error_type: &str, message: impl Into<String>) {
        let message = message.into();
        self.at(segment, |w| w.report(error_type, message));
    }

    /// A required field.
    #[inline]
    pub(crate) fn value<T: ?Sized>(&mut self, key: &'a str, value: &'a T, check: impl FnOnce(&mut Self, &'a T)) {
        self.at(Segment::Key(key), |w| check(w, value));
    }

    /// A required field that may be `null`.
    // The generator emits it for a required field that may be `null` and whose type has a check;
    // the schema has none today (its required nullable fields are strings).
    #[allow(dead_code)]
    #[inline]
    pub(crate) fn nullable<T>(&mut self, key: &'a str, value: &'a Option<T>, check: impl FnOnce(&mut Self, &'a T)) {
        if let Some(value) = value {
            self.at(Segment::Key(key), |w| check(w, value));
        }
    }

    /// A field with a default: absent is fine, `null` as `null` says.
    #[inline]
    /// A legacy alias read where pydantic-ai reads it (its property absent) whose value msgflow
    /// kept as an unknown key, not being of the property's type (`rt::next_alias_value`): the
    /// error pydantic raises for it.
    pub(crate) fn kept_alias(&mut self, key: &'a str, extra: &'a crate::Extra, alias_type: AliasType) {
        // The last of repeated keys is the one pydantic reads.
        let Some(raw) = extra
            .iter()
            .filter(|(name, _)| *name == key)
            .map(|(_, value)| value)
            .last()
        else {
            return;
        };
        self.at(Segment::Key(key), |w| match alias_type {
            AliasType::String => w.report("string_type", "Input should be a valid string"),
            AliasType::Int => match lax::int_error(raw.get()) {
                Some((JSON_INVALID, message)) => w.report_json_invalid(message),
                Some((error_type, message)) => w.report(error_type, message),
                None => {}
            },
            AliasType::StringList => match raw.try_to_value() {
                Ok(serde_json::Value::Array(items)) => {
                    for (index, item) in items.iter().enumerate() {
                        if !item.is_string() {
                            w.report_at(Segment::Index(index), "string_type", "Input should be a valid string");
                        }
                    }
                }
                _ => w.report("list_type", "Input should be a valid list"),
            },
        });
    }

    /// A value pydantic never validates but its parser reads (a legacy alias next to the
    /// canonical key, which `AliasChoices` takes instead): only the JSON-level limits apply.
    pub(crate) fn unread<T: JsonLevel>(&mut self, key: &'a str, field: &'a Field<T>) {
        if let Field::Present(value) = field {
            self.at(Segment::Key(key), |w| value.json_level(w));
        }
    }

    pub(crate) fn field<T>(
        &mut self,
        key: &'a str,
        field: &'a Field<T>,
        null: Null,
        check: impl FnOnce(&mut Self, &'a T),
    ) {
        match field {
            Field::Absent => {}
            // Most nulls in a history are of `Optional` fields: no step down for those.
            Field::Null if matches!(null, Null::Allowed) => {}
            Field::Null => self.at(Segment::Key(key), |w| null.refuse(w)),
            Field::Present(value) => self.at(Segment::Key(key), |w| check(w, value)),
        }
    }

    /// A field with a default whose every present value pydantic accepts (a `str`, `bool` or
    /// `float`): only an explicit `null` can be refused, so the walk does not step into it.
    #[inline]
    pub(crate) fn null_only<T>(&mut self, key: &'a str, field: &Field<T>, null: Null) {
        if matches!(field, Field::Null) && !matches!(null, Null::Allowed) {
            self.at(Segment::Key(key), |w| null.refuse(w));
        }
    }

    /// Every item of a list, at its index.
    pub(crate) fn items<T: Check>(&mut self, items: &'a [T]) {
        for (index, item) in items.iter().enumerate() {
            self.at(Segment::Index(index), |w| item.check(w));
        }
    }

    /// A union member pydantic names in its `loc` (a tag, or a member such as `str`).
    #[inline]
    pub(crate) fn tagged<T: Check + ?Sized>(&mut self, tag: &'a str, value: &'a T) {
        self.at(Segment::Tag(tag), |w| value.check(w));
    }

    /// An opaque value pydantic types as `dict[str, Any]`.
    pub(crate) fn dict(&mut self, raw: &RawJson) {
        if !raw.is_object() {
            self.report("dict_type", "Input should be an object");
        }
    }

    /// An opaque value pydantic types as a union of JSON kinds (`str | dict[str, Any]`): when it
    /// is none of them, pydantic reports each member under its name.
    pub(crate) fn json_kinds(&mut self, raw: &RawJson, members: &[(&'a str, JsonKind)]) {
        if members.iter().any(|(_, kind)| kind.matches(raw)) {
            return;
        }
        for (name, kind) in members {
            let (error_type, message) = kind.error();
            self.report_at(Segment::Tag(name), error_type, message);
        }
    }
}

/// Appends a key to a JSON path, as msgflow's parse errors write it (`.key`, or `["odd key"]`).
fn push_key(path: &mut String, key: &str) {
    if !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        let _ = write!(path, ".{key}");
    } else {
        let _ = write!(path, "[{}]", serde_json::to_string(key).unwrap_or_default());
    }
}

/// A JSON kind an opaque field accepts (`x-msgflow-verdict.json_kinds` in the schema).
#[derive(Clone, Copy, Debug)]
pub(crate) enum JsonKind {
    String,
    Object,
}

impl JsonKind {
    fn matches(self, raw: &RawJson) -> bool {
        match self {
            JsonKind::String => raw.is_string(),
            JsonKind::Object => raw.is_object(),
        }
    }

    fn error(self) -> (&'static str, &'static str) {
        match self {
            JsonKind::String => ("string_type", "Input should be a valid string"),
            JsonKind::Object => ("dict_type", "Input should be an object"),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Leaf types.

impl<T: Check + ?Sized> Check for Box<T> {
    fn check<'a>(&'a self, w: &mut Walker<'a>) {
        (**self).check(w);
    }
}

impl<T: Check> Check for Vec<T> {
    fn check<'a>(&'a self, w: &mut Walker<'a>) {
        w.items(self);
    }
}

impl Check for Int {
    /// pydantic's lax `int`: see [`lax::int_error`].
    #[inline]
    fn check<'a>(&'a self, w: &mut Walker<'a>) {
        // Almost every integer is a small one written plainly, which pydantic accepts.
        if self.is_plain_small() {
            return;
        }
        check_unusual_int(self, w);
    }
}

/// [`Int`]'s check when it is big or not written plainly.
#[inline(never)]
fn check_unusual_int(int: &Int, w: &mut Walker<'_>) {
    let written = match int.written() {
        Some(written) => Some(written),
        // A plain integer is fine unless it is too long for the JSON parser (checked only for
        // the rare ones beyond 64 bits).
        None if int.to_i64().is_none() => {
            let digits = int.digits();
            if digits.trim_start_matches('-').len() > lax::MAX_INT_DIGITS {
                w.report_json_invalid("Invalid JSON: number out of range");
            }
            None
        }
        None => None,
    };
    if let Some((error_type, message)) = written.and_then(lax::int_error) {
        if error_type == JSON_INVALID {
            w.report_json_invalid(message);
        } else {
            w.report(error_type, message);
        }
    }
}

impl Check for RawJson {
    /// The JSON-level limits of pydantic-core's parser: see [`json_limits::check`].
    fn check<'a>(&'a self, w: &mut Walker<'a>) {
        self.json_level(w);
    }
}

/// The type of a legacy alias's property, for a value of another type kept as an unknown key
/// ([`Walker::kept_alias`]).
#[derive(Clone, Copy, Debug)]
pub(crate) enum AliasType {
    /// `str | None`.
    String,
    /// `int | None`.
    Int,
    /// `list[str]`.
    StringList,
}

/// What pydantic-core's parser (jiter) refuses in a value before anything validates it, for
/// values nothing validates ([`Walker::unread`]).
pub(crate) trait JsonLevel {
    fn json_level<'a>(&'a self, w: &mut Walker<'a>);
}

impl JsonLevel for RawJson {
    /// See [`json_limits::check`].
    fn json_level<'a>(&'a self, w: &mut Walker<'a>) {
        if let Some(message) = json_limits::check(self, || w.json_depth()) {
            w.report_json_invalid(message);
        }
    }
}

impl JsonLevel for Int {
    /// An integer literal of more than 4300 digits ("number out of range"); every other
    /// spelling msgflow reads as an `Int` parses.
    fn json_level<'a>(&'a self, w: &mut Walker<'a>) {
        let too_long = match self.written() {
            Some(written) => lax::int_error(written).is_some_and(|(error_type, _)| error_type == JSON_INVALID),
            None => self.to_i64().is_none() && self.digits().trim_start_matches('-').len() > lax::MAX_INT_DIGITS,
        };
        if too_long {
            w.report_json_invalid("Invalid JSON: number out of range");
        }
    }
}

impl Check for Float {
    fn check<'a>(&'a self, _: &mut Walker<'a>) {}
}

impl Check for Timestamp {
    /// pydantic's lax `datetime`: see [`datetime::error`].
    fn check<'a>(&'a self, w: &mut Walker<'a>) {
        if let Some((error_type, message)) = datetime::error(self) {
            w.report(error_type, message);
        }
    }
}

/// Nothing to check: every value of the type is one pydantic accepts.
macro_rules! accepted {
    ($($ty:ty),*) => {
        $(impl Check for $ty {
            fn check<'a>(&'a self, _: &mut Walker<'a>) {}
        })*
    };
}

accepted!(String, bool, crate::Base64Data);

impl Check for crate::Duration {
    /// pydantic's `timedelta`: see [`lax::duration_error`].
    fn check<'a>(&'a self, w: &mut Walker<'a>) {
        if let Some((error_type, message)) = lax::duration_error(self.as_json()) {
            w.report(error_type, message);
        }
    }
}

impl Check for crate::Decimal {
    /// pydantic's `Decimal`: see [`lax::decimal_error`].
    fn check<'a>(&'a self, w: &mut Walker<'a>) {
        if let Some((error_type, message)) = lax::decimal_error(self.as_json()) {
            w.report(error_type, message);
        }
    }
}

impl Check for crate::FileDigests {
    /// `_validate_recorded_files`: a list must hold strings only; its error is the part's (a
    /// model validator's, raised before the fields are read). Any other value is ignored.
    fn check<'a>(&'a self, w: &mut Walker<'a>) {
        if let crate::FileDigests::Other(raw) = self {
            let strings = raw.try_to_value().ok().and_then(|value| {
                value
                    .as_array()
                    .map(|items| items.iter().all(serde_json::Value::is_string))
            });
            if strings == Some(false) {
                w.report_at_parent(
                    "invalid_file_record",
                    "`content_file_digests` must be a list of strings",
                );
            }
        }
    }
}

impl Check for crate::LaxBool {
    /// A plain `bool`: a value msgflow keeps as written must be a lax bool (see [`lax::bool_error`]).
    fn check<'a>(&'a self, w: &mut Walker<'a>) {
        if let crate::LaxBool::Other(raw) = self {
            if let Some((error_type, message)) = lax::bool_error(raw.get()) {
                w.report(error_type, message);
            }
        }
    }
}

impl Check for crate::ForceDownload {
    /// `bool | Literal['allow-local']`: a value msgflow keeps as written must be a lax bool
    /// (see [`lax::bool_error`]); otherwise pydantic reports both members.
    fn check<'a>(&'a self, w: &mut Walker<'a>) {
        if let crate::ForceDownload::Other(raw) = self {
            if let Some((error_type, message)) = lax::bool_error(raw.get()) {
                w.report_at(Segment::Tag("bool"), error_type, message);
                w.report_at(
                    Segment::Tag("literal['allow-local']"),
                    "literal_error",
                    "Input should be 'allow-local'",
                );
            }
        }
    }
}
