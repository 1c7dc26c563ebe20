//! What the generated checks of pydantic-ai's typed tool parts need at run time (`verdict/rules.rs`,
//! `routed_*` and `shape_*`): whether a part takes its typed route, and pydantic's TypedDict and
//! `str | TypedDict` validation of an opaque value.
//!
//! A typed part's opaque values (`args`, `content`) are read one level at a time: an object's
//! entries and a list's items are slices of the value's text (`locate::object_entries`,
//! `locate::array_items`), so a value nested at any depth is checked without building it.

use super::{Segment, Walker};
use crate::{Extra, Field, ToolReturnOutcome};

/// What a typed class of pydantic-ai changes in the check of the base struct that holds it
/// (generated for each route of the schema).
pub(crate) struct Typed {
    /// Its `Literal` `tool_name`.
    pub(crate) literal: &'static str,
    /// The name of the TypedDict of its opaque value (`args` or `content`), as pydantic's `loc`
    /// names a union member.
    pub(crate) shape_name: &'static str,
    /// The check of that TypedDict.
    pub(crate) shape: fn(&mut Walker<'_>, &str),
}

/// `v_dict.get('outcome', 'success') == 'success'` in pydantic-ai's part discriminators: a part
/// whose outcome is written and is not `success` (an error, `null`) stays a base part.
pub(crate) fn is_success(outcome: &Field<ToolReturnOutcome>) -> bool {
    match outcome {
        Field::Absent => true,
        Field::Present(outcome) => *outcome == ToolReturnOutcome::Success,
        Field::Null => false,
    }
}

/// [`is_success`] for a part without an `outcome` field (a call): the discriminator reads the
/// raw dict, so an unknown `outcome` key counts (the last one, as in a Python dict).
pub(crate) fn is_success_in(extra: &Extra) -> bool {
    // Compared unescaped, as Python compares the decoded string.
    extra
        .get("outcome")
        .is_none_or(|raw| raw.as_string().as_deref() == Some("success"))
}

/// The entries of a JSON object, each value as its text. A key written twice keeps both; the
/// last one is what Python's dict holds ([`Object::get`]).
pub(crate) struct Object<'t> {
    entries: Vec<(String, &'t str)>,
}

impl<'t> Object<'t> {
    /// The entries of `raw`, or `None` when it is not an object.
    pub(crate) fn read(raw: &'t str) -> Option<Self> {
        super::locate::object_entries(raw).map(|entries| Object { entries })
    }

    /// The value of `key` (the last one written).
    fn get(&self, key: &str) -> Option<&'t str> {
        self.entries
            .iter()
            .rev()
            .find(|(name, _)| name == key)
            .map(|(_, value)| *value)
    }

    /// A required key of a TypedDict: absent is pydantic's `missing`.
    pub(crate) fn required<'a>(&self, w: &mut Walker<'a>, key: &'a str, check: impl FnOnce(&mut Walker<'a>, &str)) {
        match self.get(key) {
            Some(value) => w.at(Segment::Key(key), |w| check(w, value)),
            None => w.report_at(Segment::Key(key), "missing", "Field required"),
        }
    }

    /// A `NotRequired` key: checked only when present.
    pub(crate) fn optional<'a>(&self, w: &mut Walker<'a>, key: &'a str, check: impl FnOnce(&mut Walker<'a>, &str)) {
        if let Some(value) = self.get(key) {
            w.at(Segment::Key(key), |w| check(w, value));
        }
    }
}

/// `str`: a JSON string (pydantic's JSON input is strict about it).
pub(crate) fn string(w: &mut Walker<'_>, raw: &str) {
    if !raw.starts_with('"') {
        w.report("string_type", "Input should be a valid string");
    }
}

/// `list[...]`: a JSON array, each item checked at its index.
pub(crate) fn list<'a>(w: &mut Walker<'a>, raw: &str, mut item: impl FnMut(&mut Walker<'a>, &str)) {
    let Some(items) = super::locate::array_items(raw) else {
        return w.report("list_type", "Input should be a valid array");
    };
    for (index, value) in items.into_iter().enumerate() {
        w.at(Segment::Index(index), |w| item(w, value));
    }
}

/// pydantic's smart union `str | TypedDict` (the typed parts' `args`): a string is taken; any
/// other value that the TypedDict refuses gets the errors of both members, each under its name.
pub(crate) fn string_or<'a>(w: &mut Walker<'a>, raw: &str, member: &'a str, shape: fn(&mut Walker<'_>, &str)) {
    if raw.starts_with('"') {
        return;
    }
    let before = w.found();
    w.at(Segment::Tag(member), |w| shape(w, raw));
    if w.found() > before {
        w.report_at(Segment::Tag("str"), "string_type", "Input should be a valid string");
    }
}
