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

use msgflow_wire::{Extra, Field, RawJson, ToolReturnOutcome, TypedRoute};
use serde_json::{Map, Value};

/// The typed class a tool part loads as: its route in the tables generated from the schema
/// ([`TypedRoute`], with the class's `tool_name` literal and the TypedDict of its arguments or
/// content).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TypedKind(&'static TypedRoute);

impl TypedKind {
    /// The typed class's literal `tool_name`.
    pub(crate) fn tool_name(self) -> &'static str {
        self.0.tool_name
    }

    /// The `tool_kind` that selects the class.
    pub(crate) fn tool_kind(self) -> &'static str {
        self.0.tool_kind
    }

    /// The literal `tool_name` of the local (function tool) class of the same kind, which a
    /// server-side part is translated into (`ToolSearchCallPart`'s `search_tools` for
    /// `NativeToolSearchCallPart`).
    pub(crate) fn local_tool_name(self) -> &'static str {
        let local_kind = if self.0.part_kind.ends_with("call") {
            "tool-call"
        } else {
            "tool-return"
        };
        TypedRoute::find(local_kind, self.0.tool_kind).map_or(self.0.tool_name, |route| route.tool_name)
    }
}

/// `capability-load`: the kind whose calls and returns carry a capability's instructions.
pub(crate) const CAPABILITY_LOAD: &str = "capability-load";

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

/// The class pydantic-ai reads a part with this tag and `tool_kind` as (`capability-load` has
/// typed local parts only, `tool-search` local and server-side ones).
fn kind_of(part_kind: &str, tool_kind: &Field<String>) -> Option<TypedKind> {
    TypedRoute::find(part_kind, tool_kind.get()?).map(TypedKind)
}

/// The route of a call (`ToolCallPart` when `local`, else `NativeToolCallPart`): the discriminator
/// reads an `outcome` key of the raw dict too, and a call with one other than `success` loads as a
/// base part that `_narrow_call` then promotes without validating it, which msgflow refuses.
pub(crate) fn call_route(tool_kind: &Field<String>, extra: &Extra, local: bool) -> Result<Route, Refusal> {
    let part_kind = if local { "tool-call" } else { "builtin-tool-call" };
    let Some(kind) = kind_of(part_kind, tool_kind) else {
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
    let part_kind = if local { "tool-return" } else { "builtin-tool-return" };
    match kind_of(part_kind, tool_kind) {
        Some(kind) if success || !kind.0.outcome_success_only => Route::Typed(kind),
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
        return kind.0.shape.fit(map).map(Some).map_err(|_| DOES_NOT_LOAD);
    }
    match raw.try_to_value() {
        Ok(Value::String(_) | Value::Null) => Ok(None),
        _ => Err(DOES_NOT_LOAD),
    }
}

/// A typed return's `content` validated as the kind's TypedDict (an object, its keys reordered).
pub(crate) fn return_content(kind: TypedKind, content: &RawJson) -> Result<Map<String, Value>, Refusal> {
    match content.try_to_value() {
        Ok(Value::Object(map)) => kind.0.shape.fit(map).map_err(|_| DOES_NOT_LOAD),
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
    TypedRoute::find("tool-call", CAPABILITY_LOAD)?
        .shape
        .fit(map)
        .ok()?
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_search_parts_translate_to_the_local_function() {
        let tool_kind = Field::Present("tool-search".to_owned());
        let Ok(Route::Typed(native)) = call_route(&tool_kind, &Extra::default(), false) else {
            panic!("a server-side tool search call is typed");
        };
        assert_eq!(
            (native.tool_name(), native.local_tool_name()),
            ("tool_search", "search_tools")
        );
        let Route::Typed(local) = return_route(&tool_kind, &Field::Absent, true) else {
            panic!("a tool search return is typed");
        };
        assert_eq!(
            (local.tool_name(), local.local_tool_name()),
            ("search_tools", "search_tools")
        );
    }

    #[test]
    fn capability_loads_are_typed_locally_only() {
        let tool_kind = Field::Present(CAPABILITY_LOAD.to_owned());
        assert!(matches!(
            call_route(&tool_kind, &Extra::default(), true),
            Ok(Route::Typed(_))
        ));
        assert_eq!(call_route(&tool_kind, &Extra::default(), false), Ok(Route::Base));
    }
}
