//! pydantic-ai 2.68.0's typed tool parts: the tool calls and returns whose `tool_kind` selects a
//! typed class when a history loads (`_TYPED_PART_TAGS`, read by `_model_request_part_discriminator`
//! and `_model_response_part_discriminator`), and the shape that class gives their arguments or
//! content.
//!
//! A typed part is validated as its class: its `tool_name` is the class's literal (filled in when
//! absent), and its `args` (`str | <TypedDict> | None`) or `content` (`<TypedDict>`) as the
//! TypedDict (`_deferred_capabilities.py`: `LoadCapabilityArgs`, `LoadCapabilityReturn`;
//! `_tool_search.py`: `ToolSearchArgs`, `ToolSearchReturnContent`, `ToolSearchMatch`). pydantic
//! builds a validated TypedDict with its declared keys first, in declaration order, and the
//! extra keys it allows after them, in the order written: that is what the mappings dump, so the
//! sent JSON differs from a base part's in key order only.

use msgflow_wire::{Extra, Field, RawJson, ToolReturnOutcome};
use serde_json::{Map, Value};

/// A tool kind pydantic-ai has typed parts for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TypedKind {
    /// `capability-load` (`LoadCapabilityCallPart`, `LoadCapabilityReturnPart`): local parts only.
    CapabilityLoad,
    /// `tool-search` (`ToolSearchCallPart`, `ToolSearchReturnPart`, and the server-side
    /// `NativeToolSearchCallPart`, `NativeToolSearchReturnPart`).
    ToolSearch,
}

impl TypedKind {
    /// The typed class's literal `tool_name` for a local (function tool) part.
    pub(crate) fn local_tool_name(self) -> &'static str {
        match self {
            TypedKind::CapabilityLoad => "load_capability",
            TypedKind::ToolSearch => TOOL_SEARCH_FUNCTION,
        }
    }

    fn args_shape(self) -> &'static Shape {
        match self {
            TypedKind::CapabilityLoad => &LOAD_CAPABILITY_ARGS,
            TypedKind::ToolSearch => &TOOL_SEARCH_ARGS,
        }
    }

    fn content_shape(self) -> &'static Shape {
        match self {
            TypedKind::CapabilityLoad => &LOAD_CAPABILITY_RETURN,
            TypedKind::ToolSearch => &TOOL_SEARCH_RETURN_CONTENT,
        }
    }
}

/// `TOOL_SEARCH_FUNCTION_TOOL_NAME`: the local tool-search function, `ToolSearchCallPart`'s name.
pub(crate) const TOOL_SEARCH_FUNCTION: &str = "search_tools";

/// `NativeToolSearchCallPart.tool_name` (`ToolSearchTool.kind`).
pub(crate) const TOOL_SEARCH_NATIVE: &str = "tool_search";

/// How a history loads a tool part, by its `tool_kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Route {
    /// A base part (no typed class for its kind, or a return that is no success).
    Base,
    /// The typed class of this kind.
    Typed(TypedKind),
}

/// Why a typed part cannot be exported exactly.
pub(crate) type Refusal = &'static str;

const DOES_NOT_LOAD: Refusal =
    "a typed tool part pydantic-ai does not load (its `tool_name`, `args` or `content` do not fit its `tool_kind`'s typed class)";
const OUTCOME_KEY: Refusal =
    "a typed tool call with an `outcome` key (pydantic-ai loads it as a base part, then promotes it to its typed class unvalidated)";

fn kind_of(tool_kind: &Field<String>, local: bool) -> Option<TypedKind> {
    match tool_kind.get().map(String::as_str) {
        Some("capability-load") if local => Some(TypedKind::CapabilityLoad),
        Some("tool-search") => Some(TypedKind::ToolSearch),
        _ => None,
    }
}

/// The route of a call (`ToolCallPart` when `local`, else `NativeToolCallPart`): the discriminator
/// reads an `outcome` key of the raw dict too, and a call with one other than `success` loads as a
/// base part that `_narrow_call` then promotes without validating it, which msgflow refuses.
pub(crate) fn call_route(tool_kind: &Field<String>, extra: &Extra, local: bool) -> Result<Route, Refusal> {
    let Some(kind) = kind_of(tool_kind, local) else {
        return Ok(Route::Base);
    };
    match extra.get("outcome") {
        None => Ok(Route::Typed(kind)),
        Some(raw) if raw.as_string().as_deref() == Some("success") => Ok(Route::Typed(kind)),
        Some(_) => Err(OUTCOME_KEY),
    }
}

/// The route of a return (`ToolReturnPart` when `local`, else `NativeToolReturnPart`):
/// `v_dict.get('outcome', 'success') == 'success'`; any other outcome keeps a base part
/// (`_narrow_return`: `part.outcome != 'success'`).
pub(crate) fn return_route(tool_kind: &Field<String>, outcome: &Field<ToolReturnOutcome>, local: bool) -> Route {
    let success = match outcome {
        Field::Absent => true,
        Field::Present(outcome) => *outcome == ToolReturnOutcome::Success,
        Field::Null => false,
    };
    match kind_of(tool_kind, local) {
        Some(kind) if success => Route::Typed(kind),
        _ => Route::Base,
    }
}

/// The typed class's `tool_name`: its literal, which a part must carry or leave out.
pub(crate) fn tool_name(written: &str, absent: bool, literal: &'static str) -> Result<&'static str, Refusal> {
    if absent || written == literal {
        Ok(literal)
    } else {
        Err(DOES_NOT_LOAD)
    }
}

/// A typed call's `args` as the class holds them: a JSON string and `None` as they are, an object
/// validated as the kind's TypedDict (its keys reordered). `Ok(None)` where the arguments are kept
/// as written.
pub(crate) fn call_args(kind: TypedKind, args: &Field<RawJson>) -> Result<Option<Map<String, Value>>, Refusal> {
    let Some(raw) = args.get() else { return Ok(None) };
    if raw.is_object() {
        // An object serde_json cannot read (`NaN`, ...) is left to the base rendering, which refuses it.
        let Ok(Value::Object(map)) = raw.try_to_value() else {
            return Ok(None);
        };
        return kind.args_shape().fit(map).map(Some).ok_or(DOES_NOT_LOAD);
    }
    match raw.try_to_value() {
        Ok(Value::String(_) | Value::Null) => Ok(None),
        _ => Err(DOES_NOT_LOAD),
    }
}

/// A typed return's `content` validated as the kind's TypedDict (an object, its keys reordered).
pub(crate) fn return_content(kind: TypedKind, content: &RawJson) -> Result<Map<String, Value>, Refusal> {
    match content.try_to_value() {
        Ok(Value::Object(map)) => kind.content_shape().fit(map).ok_or(DOES_NOT_LOAD),
        _ => Err(DOES_NOT_LOAD),
    }
}

/// `LoadCapabilityCallPart.capability_id`: `typed_args['id']`, the arguments validated as
/// `LoadCapabilityArgs` (a JSON string parsed first, empty ones as `{}`), `None` where they do not fit.
pub(crate) fn capability_id(args: &Field<RawJson>) -> Option<String> {
    let map = match args.get()?.try_to_value().ok()? {
        Value::Object(map) => map,
        Value::String(text) if !text.is_empty() => match serde_json::from_str(&text).ok()? {
            Value::Object(map) => map,
            _ => return None,
        },
        _ => return None,
    };
    LOAD_CAPABILITY_ARGS
        .fit(map)?
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// The type of a TypedDict's declared key.
enum Type {
    /// `str`.
    Str,
    /// `list[str]`.
    StrList,
    /// `list[ToolSearchMatch]`.
    Matches,
}

/// A TypedDict: its declared keys in order, each with its type and whether it is required; every
/// one here allows extra keys (`extra='allow'`, which `ToolSearchMatch` is validated with too).
struct Shape(&'static [(&'static str, Type, bool)]);

const LOAD_CAPABILITY_ARGS: Shape = Shape(&[("id", Type::Str, true)]);
const LOAD_CAPABILITY_RETURN: Shape = Shape(&[("message", Type::Str, false), ("instructions", Type::Str, false)]);
const TOOL_SEARCH_ARGS: Shape = Shape(&[("queries", Type::StrList, true)]);
const TOOL_SEARCH_RETURN_CONTENT: Shape =
    Shape(&[("discovered_tools", Type::Matches, true), ("message", Type::Str, false)]);
const TOOL_SEARCH_MATCH: Shape = Shape(&[("name", Type::Str, true)]);

impl Shape {
    /// The object validated: declared keys first, then the extra ones as written; `None` where a
    /// required key is missing or a declared one is of another type (pydantic's lax `str` and
    /// `list` take only a string and a list from JSON).
    fn fit(&self, mut map: Map<String, Value>) -> Option<Map<String, Value>> {
        let mut fitted = Map::with_capacity(map.len());
        for (key, kind, required) in self.0 {
            let Some(value) = map.shift_remove(*key) else {
                if *required {
                    return None;
                }
                continue;
            };
            let value = match (kind, value) {
                (Type::Str, value @ Value::String(_)) => value,
                (Type::StrList, Value::Array(items)) if items.iter().all(Value::is_string) => Value::Array(items),
                (Type::Matches, Value::Array(items)) => Value::Array(
                    items
                        .into_iter()
                        .map(|item| match item {
                            Value::Object(map) => TOOL_SEARCH_MATCH.fit(map).map(Value::Object),
                            _ => None,
                        })
                        .collect::<Option<_>>()?,
                ),
                _ => return None,
            };
            fitted.insert((*key).to_owned(), value);
        }
        fitted.extend(map);
        Some(fitted)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn map(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn declared_keys_go_first_then_the_extra_ones_as_written() {
        let fitted = TOOL_SEARCH_RETURN_CONTENT
            .fit(map(
                json!({"z": 1, "message": "m", "discovered_tools": [{"x": 1, "name": "a"}], "a": 2}),
            ))
            .unwrap();
        assert_eq!(
            serde_json::to_string(&fitted).unwrap(),
            r#"{"discovered_tools":[{"name":"a","x":1}],"message":"m","z":1,"a":2}"#
        );
    }

    #[test]
    fn a_missing_or_mistyped_key_does_not_load() {
        assert!(TOOL_SEARCH_ARGS.fit(map(json!({"q": ["a"]}))).is_none());
        assert!(TOOL_SEARCH_ARGS.fit(map(json!({"queries": "a"}))).is_none());
        assert!(TOOL_SEARCH_ARGS.fit(map(json!({"queries": [1]}))).is_none());
        assert!(LOAD_CAPABILITY_ARGS.fit(map(json!({"id": 1}))).is_none());
        assert!(LOAD_CAPABILITY_RETURN.fit(map(json!({"message": null}))).is_none());
        assert!(TOOL_SEARCH_RETURN_CONTENT
            .fit(map(json!({"discovered_tools": [{"name": 1}]})))
            .is_none());
        assert!(LOAD_CAPABILITY_RETURN.fit(map(json!({}))).is_some());
    }
}
