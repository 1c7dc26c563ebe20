//! pydantic's smart union over user content (`x-msgflow-union.untagged` in the schema).
//!
//! `UserPromptPart.content: str | Sequence[UserContent]`, and `UserContent = str |
//! StructuredContent | TextContent | MultiModalContent | CachePoint` (pydantic_ai/messages.py),
//! are smart unions, not discriminated ones: an item is tried as every member, and loads when one
//! validates it. Two things follow.
//!
//! * The members `StructuredContent`, `TextContent` and `CachePoint` default their `kind`, so an
//!   object without `kind` loads when one of them validates it (`{}` and `{"a": ...}` are a
//!   `CachePoint`, `{"content": "x"}` a `TextContent`, `{"value": 1}` a `StructuredContent`);
//!   pydantic-core's smart mode then keeps the member with the most fields set, which does not
//!   change the verdict. msgflow reads such an object as an unknown item, byte for byte (it never
//!   writes the `kind` pydantic-ai would add), and each member is read from the object's text and
//!   checked as that member here.
//! * An item no member validates is reported as pydantic-core reports a failed smart union: the
//!   errors of every member under its name (`str`, the classes, and the discriminated union of
//!   the multimodal classes under its validator name), below the list member of the content's
//!   own union (`json-or-python[...]`), next to that union's `str` member's error.

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::{Check, LocItem, Reason, Segment, Walker};
use crate::UnknownObject;

/// A member of a smart union that an object without the union's tag may validate as (generated
/// for each entry of `x-msgflow-union.untagged`).
pub(crate) struct Member {
    /// The member's class name, as pydantic-core names a smart union's member in its `loc`.
    pub(crate) name: &'static str,
    /// Its errors for the object (relative to it); empty when the object validates as it.
    pub(crate) errors: fn(&UnknownObject) -> Vec<Reason>,
}

/// A smart union of JSON strings, classes that default their tag ([`Member`]s) and a
/// discriminated union of the other classes (generated from `x-msgflow-union`).
pub(crate) struct Union {
    /// The discriminator key (`kind`).
    pub(crate) tag_key: &'static str,
    /// The members that default their tag, in pydantic's order.
    pub(crate) members: &'static [Member],
    /// pydantic-core's name of the discriminated union member (`tagged-union[...]`).
    pub(crate) tagged: &'static str,
    /// Its tags as pydantic lists them (`'image-url', 'audio-url', ...`).
    pub(crate) tagged_tags: &'static str,
}

/// What a member's check needs to know of its class (generated from its `$defs` entry).
pub(crate) struct Class {
    /// The discriminator key (`kind`).
    pub(crate) tag_key: &'static str,
    /// The class's `Literal` tag value (`cache-point`), which it defaults.
    pub(crate) tag: &'static str,
    /// Its required keys (besides the tag), each with a JSON value of its type that its reader
    /// takes, put in its place when it is missing so that the other fields are still checked.
    pub(crate) required: &'static [(&'static str, &'static str)],
    /// pydantic's error for a value of the wrong JSON type, per field (`string_type`, ...).
    pub(crate) type_errors: &'static [(&'static str, &'static str, &'static str)],
}

/// The `str` member of a smart union, as pydantic-core names it in its `loc`.
const STR: &str = "str";

impl<'a> Walker<'a> {
    /// The items of a list in a smart union `str | list[...]` whose list member pydantic-core
    /// names `list_member`: when an item fails, the `str` member fails too.
    pub(crate) fn smart_items<T: Check>(&mut self, list_member: &'a str, items: &'a [T]) {
        let before = self.found();
        self.at(Segment::Tag(list_member), |w| w.items(items));
        if self.found() > before {
            self.report_at(Segment::Tag(STR), "string_type", "Input should be a valid string");
            // pydantic reports the `str` member first.
            self.reasons[before..].rotate_right(1);
        }
    }

    /// An item of the class `name` of `union` that defaults its tag (selected by its tag):
    /// its own check, and when it fails, the other members' errors.
    pub(crate) fn smart_member<T: Check + Serialize>(&mut self, union: &Union, name: &'a str, value: &'a T) {
        let before = self.found();
        self.tagged(name, value);
        if self.found() > before {
            let object = object_of(value);
            let tag = object.tag(union.tag_key).unwrap_or_default();
            self.smart_failed(union, &object, Some(name), Some(&tag));
        }
    }

    /// An item of a class of `union`'s discriminated member, under its `tag`: its own check,
    /// and when it fails, the other members' errors.
    pub(crate) fn smart_tagged<T: Check + Serialize>(&mut self, union: &Union, tag: &'a str, value: &'a T) {
        let before = self.found();
        let tagged = union.tagged;
        self.at(Segment::Tag(tagged), |w| w.tagged(tag, value));
        if self.found() > before {
            let object = object_of(value);
            for member in union.members {
                for reason in (member.errors)(&object) {
                    self.report_member(member.name, reason);
                }
            }
            self.report_at(Segment::Tag(STR), "string_type", "Input should be a valid string");
        }
    }

    /// An object of `union` msgflow keeps whole: a tag no member has (every member fails), or
    /// no tag (or `null`), which loads when a member that defaults its tag validates it.
    pub(crate) fn smart_unknown(&mut self, union: &Union, object: &'a UnknownObject) {
        match object.get(union.tag_key) {
            Some(tag) if !tag.is_null() => {
                let tag = object.tag(union.tag_key).unwrap_or_default();
                self.smart_failed(union, object, None, Some(&tag));
            }
            written => {
                let failures: Vec<(&str, Vec<Reason>)> = union
                    .members
                    .iter()
                    .map(|member| (member.name, (member.errors)(object)))
                    .collect();
                if failures.iter().any(|(_, errors)| errors.is_empty()) {
                    self.unknown(object);
                    return;
                }
                self.report_at(Segment::Tag(STR), "string_type", "Input should be a valid string");
                for (name, errors) in failures {
                    for reason in errors {
                        self.report_member(name, reason);
                    }
                }
                match written {
                    None => self.report_at(
                        Segment::Tag(union.tagged),
                        "union_tag_not_found",
                        format!("Unable to extract tag using discriminator '{}'", union.tag_key),
                    ),
                    // pydantic-core reads the tag `null` as the Python `None`.
                    Some(_) => self.report_tag_invalid(union, "None"),
                }
            }
        }
        self.unknown(object);
    }

    /// The errors of the members of `union` other than `own` for an item (whose tag is not one
    /// of the discriminated member's tags) that `own`, if any, refused.
    fn smart_failed(&mut self, union: &Union, object: &UnknownObject, own: Option<&str>, tag: Option<&str>) {
        self.report_at(Segment::Tag(STR), "string_type", "Input should be a valid string");
        for member in union.members.iter().filter(|member| Some(member.name) != own) {
            for reason in (member.errors)(object) {
                self.report_member(member.name, reason);
            }
        }
        self.report_tag_invalid(union, tag.unwrap_or_default());
    }

    fn report_tag_invalid(&mut self, union: &Union, tag: &str) {
        self.report_at(
            Segment::Tag(union.tagged),
            "union_tag_invalid",
            format!(
                "Input tag '{tag}' found using '{}' does not match any of the expected tags: {}",
                union.tag_key, union.tagged_tags
            ),
        );
    }

    /// Reports `reason`, found by a check of the value at the current position as the union
    /// member `member`, under that member.
    fn report_member(&mut self, member: &str, reason: Reason) {
        self.report(&reason.error_type, reason.message);
        if let Some(last) = self.reasons.last_mut() {
            last.loc.push(LocItem::Key(member.to_owned()));
            last.loc.extend(reason.loc);
            last.path
                .push_str(reason.path.strip_prefix('$').unwrap_or(&reason.path));
        }
    }
}

/// A typed item as the object it was read from (msgflow writes back what it read), for the
/// checks of the other members; its values stay raw, so any depth is fine.
fn object_of<T: Serialize>(value: &T) -> UnknownObject {
    let text = serde_json::to_string(value).unwrap_or_else(|_| "{}".to_owned());
    crate::non_finite::reading(&text, |text| {
        let _guard = crate::rt::ContextGuard::new(text.as_bytes());
        serde_json::from_str::<crate::rt::Entries<'_>>(text)
            .map(crate::rt::Entries::into_unknown)
            .unwrap_or_else(|_| UnknownObject::from_extra(crate::Extra::new()))
    })
}

/// The errors of `object` validated as the class `T` (described by `class`), relative to the
/// object: its tag if written (`null` is not the class's literal), its missing required keys,
/// and its fields, as pydantic reports them all. JSON-level errors are left to the caller, which
/// knows the object's depth.
///
/// msgflow's reader stops at the first field of the wrong JSON type: that field gets pydantic's
/// error for its type and is taken out (a required one replaced by a value of its type), and
/// the rest is read again, until it reads; its check then finds the errors of the values.
pub(crate) fn member_errors<T: DeserializeOwned + Check>(object: &UnknownObject, class: &Class) -> Vec<Reason> {
    let mut reasons = Vec::new();
    if object.get(class.tag_key).is_some() && object.tag(class.tag_key).as_deref() != Some(class.tag) {
        reasons.push(relative(
            class.tag_key,
            "literal_error",
            format!("Input should be '{}'", class.tag),
        ));
    }
    // The object without its tag (the class defaults it), each key once with its last value,
    // as the Python dict pydantic validates holds it.
    let mut entries: Vec<(&str, &str)> = Vec::with_capacity(object.entries().len());
    for (key, value) in object.entries().iter().filter(|(key, _)| *key != class.tag_key) {
        match entries.iter_mut().find(|(name, _)| *name == key) {
            Some(entry) => entry.1 = value.get(),
            None => entries.push((key, value.get())),
        }
    }
    for (key, placeholder) in class.required {
        if object.get(key).is_none() {
            reasons.push(relative(key, "missing", "Field required".to_owned()));
            entries.push((key, placeholder));
        }
    }
    // Each round takes one field out, so there are at most as many rounds as entries.
    for _ in 0..=entries.len() {
        let text = object_text(&entries);
        // A value may hold the `NaN` literals msgflow reads (`crate::non_finite`).
        let (read, path) = crate::non_finite::reading(&text, |text| {
            let guard = crate::rt::ContextGuard::new(text.as_bytes());
            let read = serde_json::from_str::<T>(text);
            (read, guard.error_location().0)
        });
        let error = match read {
            Ok(value) => {
                let mut walker = Walker::new();
                value.check(&mut walker);
                reasons.extend(
                    walker
                        .reasons
                        .into_iter()
                        .filter(|reason| reason.error_type != super::JSON_INVALID),
                );
                return reasons;
            }
            Err(error) => error,
        };
        let key = first_key(&path).map(str::to_owned);
        let Some((name, error_type, message)) = class
            .type_errors
            .iter()
            .find(|(name, _, _)| Some(*name) == key.as_deref())
        else {
            // Not a field of the wrong type (no such reader error is known): the member fails.
            reasons.push(relative(
                key.as_deref().unwrap_or_default(),
                "model_type",
                crate::rt::message_of(&error),
            ));
            return reasons;
        };
        reasons.push(relative(name, error_type, (*message).to_owned()));
        let Some(at) = entries.iter().position(|(key, _)| key == name) else {
            return reasons;
        };
        match class.required.iter().find(|(key, _)| key == name) {
            Some((_, placeholder)) if entries[at].1 != *placeholder => entries[at].1 = placeholder,
            Some(_) => return reasons,
            None => {
                entries.remove(at);
            }
        }
    }
    reasons
}

/// A reason at `key` of the value being checked.
fn relative(key: &str, error_type: &str, message: String) -> Reason {
    let mut path = String::from("$");
    super::push_key(&mut path, key);
    Reason {
        error_type: error_type.to_owned(),
        loc: vec![LocItem::Key(key.to_owned())],
        path,
        line: 0,
        column: 0,
        message,
    }
}

/// The JSON text of an object with these entries.
fn object_text(entries: &[(&str, &str)]) -> String {
    let mut text = String::from("{");
    for (index, (key, value)) in entries.iter().enumerate() {
        if index > 0 {
            text.push(',');
        }
        text.push_str(&serde_json::to_string(key).unwrap_or_default());
        text.push(':');
        text.push_str(value);
    }
    text.push('}');
    text
}

/// The first key of a JSON path as msgflow's reader writes it (`$.content[0]` -> `content`).
fn first_key(path: &str) -> Option<&str> {
    let rest = path.strip_prefix("$.")?;
    let end = rest.find(['.', '[']).unwrap_or(rest.len());
    Some(&rest[..end])
}

#[cfg(test)]
mod tests {
    use super::first_key;

    #[test]
    fn the_first_key_of_a_reader_path() {
        assert_eq!(first_key("$.content"), Some("content"));
        assert_eq!(first_key("$.ttl[0].a"), Some("ttl"));
        assert_eq!(first_key("$"), None);
        assert_eq!(first_key("$[\"odd key\"]"), None);
    }
}
