//! pydantic-ai 2.68.0's typed tool parts: parts routed by `tool_kind` to a narrower class whose
//! shape, when it does not fit, makes pydantic-ai reject the whole history. msgflow holds them in the base structs and reports here
//! what pydantic-ai would refuse.

use msgflow_wire::{Field, ModelRequestPart, ModelResponsePart, RawJson, ToolReturnOutcome, TypedRoute};
use serde_json::Value;

/// The route pydantic-ai takes for a part with tag `part_kind` and `tool_kind`, if any (from
/// the tables generated from the schema).
fn route(part_kind: &str, tool_kind: &Field<String>) -> Option<&'static TypedRoute> {
    let tool_kind = tool_kind.get()?;
    ModelRequestPart::TYPED_ROUTES
        .iter()
        .chain(ModelResponsePart::TYPED_ROUTES)
        .find(|route| route.part_kind == part_kind && route.tool_kind == *tool_kind)
}

/// The problem with a `tool-call` (`builtin` for `builtin-tool-call`), if pydantic-ai would
/// route it to a typed class it does not fit.
pub(crate) fn call_problem(
    builtin: bool,
    tool_kind: &Field<String>,
    tool_name: &str,
    args: &Field<RawJson>,
) -> Option<String> {
    let route = route(if builtin { "builtin-tool-call" } else { "tool-call" }, tool_kind)?;
    let problem = name_problem(route, tool_name).or_else(|| {
        // String arguments are accepted unchecked; objects must fit the typed arguments.
        let args = args.get().filter(|raw| raw.is_object())?.try_to_value().ok()?;
        match route.tool_kind {
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
    Some(routed(route, &problem))
}

/// The problem with a `tool-return` (`builtin` for `builtin-tool-return`) routed to a typed class.
pub(crate) fn return_problem(
    builtin: bool,
    tool_kind: &Field<String>,
    outcome: &Field<ToolReturnOutcome>,
    tool_name: &str,
    content: &RawJson,
) -> Option<String> {
    let route = route(if builtin { "builtin-tool-return" } else { "tool-return" }, tool_kind)?;
    // An error is not the typed shape: pydantic-ai routes only successful returns.
    let success = outcome
        .get()
        .is_none_or(|outcome| *outcome == ToolReturnOutcome::Success);
    if route.outcome_success_only && !success {
        return None;
    }
    let problem = name_problem(route, tool_name).or_else(|| {
        let Ok(Value::Object(content)) = content.try_to_value() else {
            return Some("`content` must be an object".to_owned());
        };
        match route.tool_kind {
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
    Some(routed(route, &problem))
}

fn name_problem(route: &TypedRoute, tool_name: &str) -> Option<String> {
    (tool_name != route.tool_name).then(|| format!("`tool_name` is `{tool_name}`, not `{}`", route.tool_name))
}

fn routed(route: &TypedRoute, problem: &str) -> String {
    format!(
        "tool_kind `{}` makes pydantic-ai 2.68.0 read this part as a {}, which it does not fit: {problem}; \
         pydantic-ai would refuse the whole history",
        route.tool_kind, route.class
    )
}
