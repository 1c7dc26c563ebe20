//! The two JSON shapes the manager computes with: dicts merged as Python merges them, and tool
//! arguments that are a string, a dict or nothing.

use indexmap::IndexMap;
use msgflow_wire::{Field, RawJson};

use crate::StreamError;

/// A JSON object whose values are kept as written, in insertion order: Python's `dict`.
///
/// `{**a, **b}` keeps every key of `a` in its place, overwrites its value when `b` has it too, and
/// appends `b`'s other keys in order: [`IndexMap::insert`] does exactly that.
pub(crate) type Dict = IndexMap<String, RawJson>;

/// Reads a JSON object, the last of duplicate keys winning in the first one's place (as `json.loads`).
pub(crate) fn parse_dict(raw: &RawJson, what: &'static str) -> Result<Dict, StreamError> {
    if !raw.is_object() {
        return Err(StreamError::NotAnObject {
            what,
            found: raw.get().to_owned(),
        });
    }
    let entries: IndexMap<String, Box<serde_json::value::RawValue>> =
        serde_json::from_str(raw.get()).map_err(|_| StreamError::NotAnObject {
            what,
            found: raw.get().to_owned(),
        })?;
    Ok(entries
        .into_iter()
        .map(|(key, value)| (key, RawJson::from_raw(&value)))
        .collect())
}

/// Writes a dict compactly, as pydantic-core dumps one.
pub(crate) fn dict_to_raw(dict: &Dict) -> RawJson {
    let mut text = String::with_capacity(2 + dict.len() * 16);
    text.push('{');
    for (position, (key, value)) in dict.iter().enumerate() {
        if position > 0 {
            text.push(',');
        }
        text.push_str(RawJson::string(key).get());
        text.push(':');
        text.push_str(value.get());
    }
    text.push('}');
    // The text is a compact object built from valid keys and values.
    RawJson::from_json_text(&text).unwrap_or_else(|_| RawJson::empty_object())
}

/// `true` for a dict Python treats as false (`{}`), which `x or None` turns into `None`.
pub(crate) fn is_empty_object(raw: &RawJson) -> bool {
    raw.get() == "{}"
}

/// `{**(existing or {}), **(update or {})} or None`: how text and thinking deltas merge
/// `provider_details` (`TextPartDelta.apply`, `ThinkingPartDelta._apply_to_part`, messages.py).
pub(crate) fn merge_or_none(
    existing: &Field<RawJson>,
    update: Option<&RawJson>,
) -> Result<Field<RawJson>, StreamError> {
    let existing = existing.get().filter(|raw| !raw.is_null());
    match (existing, update.filter(|raw| !raw.is_null())) {
        (None, None) => Ok(Field::Null),
        (Some(only), None) | (None, Some(only)) => {
            if is_empty_object(only) {
                Ok(Field::Null)
            } else {
                // A value that is not an object would make Python raise; it is refused here too.
                parse_dict(only, "provider_details")?;
                Ok(Field::Present(only.clone()))
            }
        }
        (Some(existing), Some(update)) => {
            let mut merged = parse_dict(existing, "provider_details")?;
            merged.extend(parse_dict(update, "provider_details")?);
            Ok(if merged.is_empty() {
                Field::Null
            } else {
                Field::Present(dict_to_raw(&merged))
            })
        }
    }
}

/// `{**(existing or {}), **update}`: how tool-call deltas merge `provider_details` and dict
/// arguments (`ToolCallPartDelta._apply_to_part`); no `or None`.
pub(crate) fn merge(existing: Option<&RawJson>, update: &RawJson, what: &'static str) -> Result<RawJson, StreamError> {
    match existing.filter(|raw| !raw.is_null() && !is_empty_object(raw)) {
        None => {
            parse_dict(update, what)?;
            Ok(update.clone())
        }
        Some(existing) => {
            let mut merged = parse_dict(existing, what)?;
            merged.extend(parse_dict(update, what)?);
            Ok(dict_to_raw(&merged))
        }
    }
}

/// Tool-call arguments while a call streams in: JSON text growing fragment by fragment, a dict
/// growing by merges, or none yet.
///
/// String fragments are appended to one `String` (amortised linear, like pydantic-ai's
/// `_string_buffers`) and only escaped into JSON when the part is materialised.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Args {
    /// No `args` key (kept so that a part read without one is written without one).
    Absent,
    /// `None`.
    Null,
    /// A JSON string's text, unescaped.
    Text(String),
    /// A dict, merged into by dict deltas.
    Dict(Dict),
    /// A value as it was read, not yet needed as text or dict.
    Raw(RawJson),
}

impl Args {
    /// From a part's `args` field.
    pub(crate) fn from_field(field: Field<RawJson>) -> Self {
        match field {
            Field::Absent => Args::Absent,
            Field::Null => Args::Null,
            Field::Present(raw) if raw.is_null() => Args::Null,
            Field::Present(raw) => Args::Raw(raw),
        }
    }

    /// From a delta's `args_delta`: `None`, a string or a dict.
    pub(crate) fn from_delta(delta: Option<&RawJson>) -> Result<Self, StreamError> {
        match delta {
            None => Ok(Args::Null),
            Some(raw) if raw.is_null() => Ok(Args::Null),
            Some(raw) if raw.is_string() => Ok(Args::Text(raw.as_string().unwrap_or_default())),
            Some(raw) if raw.is_object() => Ok(Args::Dict(parse_dict(raw, "args")?)),
            Some(raw) => Err(StreamError::InvalidArgs {
                found: raw.get().to_owned(),
            }),
        }
    }

    /// The field as pydantic-ai dumps it.
    pub(crate) fn to_field(&self) -> Field<RawJson> {
        match self {
            Args::Absent => Field::Absent,
            Args::Null => Field::Null,
            Args::Text(text) => Field::Present(RawJson::string(text)),
            Args::Dict(dict) => Field::Present(dict_to_raw(dict)),
            Args::Raw(raw) => Field::Present(raw.clone()),
        }
    }

    /// `isinstance(args, dict)`.
    pub(crate) fn is_dict(&self) -> bool {
        match self {
            Args::Dict(_) => true,
            Args::Raw(raw) => raw.is_object(),
            _ => false,
        }
    }

    /// `isinstance(args, str)`.
    pub(crate) fn is_text(&self) -> bool {
        match self {
            Args::Text(_) => true,
            Args::Raw(raw) => raw.is_string(),
            _ => false,
        }
    }

    /// Applies a string or dict delta as `ToolCallPartDelta._apply_to_part` / `_apply_to_delta`
    /// do: `(args or '') + delta` for a string (refused onto a dict), `{**(args or {}), **delta}`
    /// for a dict (refused onto a string).
    /// A string fragment appended (`ToolCallPartDelta._apply_to_part` with string args).
    pub(crate) fn push_text(&mut self, fragment: &str) -> Result<(), StreamError> {
        if self.is_dict() {
            return Err(StreamError::ArgsMismatch {
                existing: "dict",
                delta: "string",
            });
        }
        match self {
            Args::Text(text) => text.push_str(fragment),
            Args::Raw(raw) => {
                let mut text = raw.as_string().unwrap_or_default();
                text.push_str(fragment);
                *self = Args::Text(text);
            }
            _ => *self = Args::Text(fragment.to_owned()),
        }
        Ok(())
    }

    pub(crate) fn apply(&mut self, delta: &Args) -> Result<(), StreamError> {
        match delta {
            Args::Text(fragment) => self.push_text(fragment)?,
            Args::Dict(update) => {
                if self.is_text() {
                    return Err(StreamError::ArgsMismatch {
                        existing: "string",
                        delta: "dict",
                    });
                }
                match self {
                    Args::Dict(dict) => dict.extend(update.iter().map(|(k, v)| (k.clone(), v.clone()))),
                    Args::Raw(raw) => {
                        let mut dict = parse_dict(raw, "args")?;
                        dict.extend(update.iter().map(|(k, v)| (k.clone(), v.clone())));
                        *self = Args::Dict(dict);
                    }
                    _ => *self = Args::Dict(update.clone()),
                }
            }
            // `None` args leave the arguments alone; `Raw` never comes from a delta.
            Args::Absent | Args::Null | Args::Raw(_) => {}
        }
        Ok(())
    }
}
