//! pydantic-ai 2.68.0's typed tool parts: parts routed by `tool_kind` to a narrower class whose
//! shape, when it does not fit, makes pydantic-ai reject the whole history (wire-format
//! reference §1.3, "strictness trap"). msgflow holds them in the base structs and reports here
//! what pydantic-ai would refuse.

use msgflow_wire::{Field, RawJson, ToolReturnOutcome};
use serde_json::Value;

/// What a routed part must look like.
struct Shape {
    tool_kind: &'static str,
    tool_name: &'static str,
    class: &'static str,
}

const TOOL_SEARCH_CALL: Shape = Shape {
    tool_kind: "tool-search",
    tool_name: "search_tools",
    class: "ToolSearchCallPart",
};
const CAPABILITY_LOAD_CALL: Shape = Shape {
    tool_kind: "capability-load",
    tool_name: "load_capability",
    class: "LoadCapabilityCallPart",
};
const NATIVE_TOOL_SEARCH_CALL: Shape = Shape {
    tool_kind: "tool-search",
    tool_name: "tool_search",
    class: "NativeToolSearchCallPart",
};
const TOOL_SEARCH_RETURN: Shape = Shape {
    tool_kind: "tool-search",
    tool_name: "search_tools",
    class: "ToolSearchReturnPart",
};
const CAPABILITY_LOAD_RETURN: Shape = Shape {
    tool_kind: "capability-load",
    tool_name: "load_capability",
    class: "LoadCapabilityReturnPart",
};
const NATIVE_TOOL_SEARCH_RETURN: Shape = Shape {
    tool_kind: "tool-search",
    tool_name: "tool_search",
    class: "NativeToolSearchReturnPart",
};

/// The problem with a `tool-call` (`builtin` for `builtin-tool-call`), if pydantic-ai would
/// route it to a typed class it does not fit.
pub(crate) fn call_problem(
    builtin: bool,
    tool_kind: &Field<String>,
    tool_name: &str,
    args: &Field<RawJson>,
) -> Option<String> {
    let shapes: &[&Shape] = if builtin {
        &[&NATIVE_TOOL_SEARCH_CALL]
    } else {
        &[&TOOL_SEARCH_CALL, &CAPABILITY_LOAD_CALL]
    };
    let shape = shapes
        .iter()
        .find(|shape| tool_kind.get().map(String::as_str) == Some(shape.tool_kind))?;
    let problem = name_problem(shape, tool_name).or_else(|| {
        // String arguments are accepted unchecked; objects must fit the typed arguments.
        let args = args.get().filter(|raw| raw.is_object())?.try_to_value().ok()?;
        match shape.tool_kind {
            "tool-search" => match args.get("queries") {
                Some(Value::Array(queries)) if queries.iter().all(Value::is_string) => None,
                Some(_) => Some("`args.queries` must be a list of strings".to_owned()),
                None => Some("`args` lacks `queries`".to_owned()),
            },
            _ => match args.get("id") {
                Some(Value::String(_)) => None,
                Some(_) => Some("`args.id` must be a string".to_owned()),
                None => Some("`args` lacks `id`".to_owned()),
            },
        }
    })?;
    Some(routed(shape, &problem))
}

/// The problem with a `tool-return` (`builtin` for `builtin-tool-return`) routed to a typed class.
/// Only successful returns are routed: an error is not the typed shape.
pub(crate) fn return_problem(
    builtin: bool,
    tool_kind: &Field<String>,
    outcome: &Field<ToolReturnOutcome>,
    tool_name: &str,
    content: &RawJson,
) -> Option<String> {
    if outcome
        .get()
        .is_some_and(|outcome| *outcome != ToolReturnOutcome::Success)
    {
        return None;
    }
    let shapes: &[&Shape] = if builtin {
        &[&NATIVE_TOOL_SEARCH_RETURN]
    } else {
        &[&TOOL_SEARCH_RETURN, &CAPABILITY_LOAD_RETURN]
    };
    let shape = shapes
        .iter()
        .find(|shape| tool_kind.get().map(String::as_str) == Some(shape.tool_kind))?;
    let problem = name_problem(shape, tool_name).or_else(|| {
        let Ok(Value::Object(content)) = content.try_to_value() else {
            return Some("`content` must be an object".to_owned());
        };
        match shape.tool_kind {
            "tool-search" => match content.get("discovered_tools") {
                Some(Value::Array(tools))
                    if tools.iter().all(|tool| tool.get("name").is_some_and(Value::is_string)) =>
                {
                    None
                }
                Some(_) => Some("`content.discovered_tools` must be a list of objects with a string `name`".to_owned()),
                None => Some("`content` lacks `discovered_tools`".to_owned()),
            },
            _ => ["message", "instructions"]
                .into_iter()
                .find(|key| content.get(*key).is_some_and(|value| !value.is_string()))
                .map(|key| format!("`content.{key}` must be a string")),
        }
    })?;
    Some(routed(shape, &problem))
}

fn name_problem(shape: &Shape, tool_name: &str) -> Option<String> {
    (tool_name != shape.tool_name).then(|| format!("`tool_name` is `{tool_name}`, not `{}`", shape.tool_name))
}

fn routed(shape: &Shape, problem: &str) -> String {
    format!(
        "tool_kind `{}` makes pydantic-ai 2.68.0 read this part as a {}, which it does not fit: {problem}; \
         pydantic-ai would refuse the whole history",
        shape.tool_kind, shape.class
    )
}
