//! pydantic-ai 2.68.0's typed tool parts: parts routed by `tool_kind` to a narrower class whose
//! shape, when it does not fit, makes pydantic-ai reject the whole history. msgflow holds them in the base structs and reports here
//! what pydantic-ai would refuse.

use msgflow_wire::{Field, RawJson, ShapeMismatch, ToolReturnOutcome, TypedRoute};

/// The route pydantic-ai takes for a part with tag `part_kind` and `tool_kind`, if any (from
/// the tables generated from the schema).
fn route(part_kind: &str, tool_kind: &Field<String>) -> Option<&'static TypedRoute> {
    TypedRoute::find(part_kind, tool_kind.get()?)
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
        Some(shape_problem(route, route.shape.fit_value(args).err()?))
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
        let Ok(content) = content.try_to_value() else {
            return Some(shape_problem(route, ShapeMismatch::NotAnObject));
        };
        Some(shape_problem(route, route.shape.fit_value(content).err()?))
    })?;
    Some(routed(route, &problem))
}

/// The first key of the route's TypedDict that the value does not fit, in words.
fn shape_problem(route: &TypedRoute, mismatch: ShapeMismatch) -> String {
    let field = route.field;
    match mismatch {
        ShapeMismatch::NotAnObject => format!("`{field}` must be an object"),
        ShapeMismatch::Missing(key) => format!("`{field}` lacks `{}`", key.name),
        ShapeMismatch::Mistyped(key) => format!("`{field}.{}` must be {}", key.name, key.value.describe()),
    }
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
