//! The `type` and `state` pydantic's UI part models fill in for a part that leaves them out, and
//! whether a part validates as one of them at all ([`validates`]).
//!
//! `UIMessagePart` is a union that is not discriminated, of models that default their literal `type`
//! (a tool part's `state` too) and forbid unknown keys: a part validates as the first model whose keys
//! hold all of the part's and whose required keys it has, so `{}` is a `step-start` part and
//! `{"text": "hi"}` a text part. The models and their order are generated from pydantic-ai
//! (`part_models.rs`); the values the part holds are validated by the loader after.

use serde_json::{Map, Value};

use super::part_models::{PartModel, PART_MODELS};

/// The models a part of `part_type` may validate as: those whose literal `type` it is, or whose
/// pattern it matches.
pub(super) fn models_of(part_type: &str) -> impl Iterator<Item = &'static PartModel> + '_ {
    PART_MODELS.iter().filter(move |model| {
        model.type_default == Some(part_type) || model.type_prefix.is_some_and(|prefix| part_type.starts_with(prefix))
    })
}

/// The tool part model of `part_type` whose literal `state` is `state`.
pub(super) fn model_of_state(part_type: &str, state: &str) -> Option<&'static PartModel> {
    models_of(part_type).find(|model| model.state == Some(state))
}

/// The first of `candidates` that `part` validates as by its keys.
fn first_fitting(
    part: &Map<String, Value>,
    candidates: impl IntoIterator<Item = &'static PartModel>,
) -> Option<&'static PartModel> {
    candidates.into_iter().find(|model| {
        part.keys().all(|key| model.keys.contains(&key.as_str()))
            && model.required.iter().all(|key| part.contains_key(*key))
    })
}

/// Fills in the `type` of a part without one, and the `state` of a tool part without one, as the
/// model pydantic validates the part as defaults them. Returns what it filled in, for the report;
/// `None` when the part needs nothing or no model takes it (the loader then refuses it, as
/// pydantic-ai does).
pub(super) fn fill_in(part: &mut Value) -> Option<String> {
    let (what, model) = fill_in_from_model(part)?;
    Some(format!(
        "{what} (it validates as pydantic-ai's `{}`, which defaults them)",
        model.name
    ))
}

fn fill_in_from_model(part: &mut Value) -> Option<(&'static str, &'static PartModel)> {
    let part = part.as_object_mut()?;
    match part.get("type") {
        None => {
            let model = first_fitting(part, PART_MODELS.iter().filter(|model| model.type_default.is_some()))?;
            part.insert("type".into(), model.type_default?.into());
            match model.state {
                Some(state) if !part.contains_key("state") => {
                    part.insert("state".into(), state.into());
                    Some(("the `type` and `state` of a UI part without them", model))
                }
                _ => Some(("the `type` of a UI part without one", model)),
            }
        }
        Some(Value::String(part_type)) if !part.contains_key("state") => {
            let tool_models = models_of(part_type).filter(|model| model.state.is_some());
            let model = first_fitting(part, tool_models)?;
            part.insert("state".into(), model.state?.into());
            Some(("the `state` of a tool part without one", model))
        }
        _ => None,
    }
}

/// Whether `part` (its `type` and `state` filled in) validates as one of pydantic-ai's UI part
/// models: its keys and required keys those of a model of its type, and the values the loader
/// does not read itself of the types the model declares. The loader reads the outer messages
/// more laxly (pydantic-ai refuses all of them where a part does not validate); messages enqueued
/// during a run are validated apart, and loaded as none where one part does not validate
/// (`_enqueued_ui_messages`), so they are checked with this.
pub(super) fn validates(part: &Map<String, Value>) -> bool {
    let Some(part_type) = part.get("type").and_then(Value::as_str) else {
        return false;
    };
    models_of(part_type).any(|model| {
        part.keys().all(|key| model.keys.contains(&key.as_str()))
            && model.required.iter().all(|key| part.contains_key(*key))
            && part.iter().all(|(key, value)| value_fits(model, key, value))
    })
}

/// Whether `value` of `key` is of the type `model` declares for it (`ProviderMetadata` is
/// `dict[str, dict[str, JsonValue]]`; `input`, `output`, `rawInput` and `data` are `Any`).
fn value_fits(model: &PartModel, key: &str, value: &Value) -> bool {
    let optional = !model.required.contains(&key);
    let text = |value: &Value| value.is_string() || (optional && value.is_null());
    match key {
        "type" => value.is_string(),
        "state" => match model.state {
            Some(state) => value == state,
            None => value.is_null() || value == "streaming" || value == "done",
        },
        "providerMetadata" | "callProviderMetadata" => {
            value.is_null()
                || value
                    .as_object()
                    .is_some_and(|providers| providers.values().all(Value::is_object))
        }
        "providerExecuted" | "preliminary" => value.is_null() || msgflow_wire::lax::boolean(value).is_some(),
        // `ToolApprovalRequested` (`id`) or `ToolApprovalResponded` (`id`, a strict `approved`,
        // `reason`), neither taking other keys.
        "approval" => {
            value.is_null()
                || value.as_object().is_some_and(|approval| {
                    approval.get("id").is_some_and(Value::is_string)
                        && approval
                            .keys()
                            .all(|key| matches!(key.as_str(), "id" | "approved" | "reason"))
                        && match approval.get("approved") {
                            None => !approval.contains_key("reason"),
                            Some(approved) => {
                                approved.is_boolean()
                                    && approval
                                        .get("reason")
                                        .is_none_or(|reason| reason.is_string() || reason.is_null())
                            }
                        }
                })
        }
        "input" | "output" | "rawInput" | "data" => true,
        _ => text(value),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Each part with the model `TypeAdapter(UIMessagePart).validate_python` chose for it (pydantic-ai
    /// 2.68.0), shown by the `type` and `state` it has; `None` where pydantic refuses the part.
    #[test]
    fn a_part_takes_the_type_and_state_of_the_first_model_it_fits() {
        let cases = [
            (json!({}), Some(("step-start", None))),
            (json!({"text": "hi"}), Some(("text", None))),
            (json!({"id": "r", "text": "hi"}), Some(("reasoning", None))),
            (json!({"mediaType": "a/b", "url": "u"}), Some(("file", None))),
            (
                json!({"toolName": "f", "toolCallId": "c"}),
                Some(("dynamic-tool", Some("input-streaming"))),
            ),
            (
                json!({"type": "tool-f", "toolCallId": "c", "input": {}}),
                Some(("tool-f", Some("input-streaming"))),
            ),
            (
                json!({"type": "tool-f", "toolCallId": "c", "input": {}, "output": 1}),
                Some(("tool-f", Some("output-available"))),
            ),
            (
                json!({"type": "tool-f", "toolCallId": "c", "errorText": "x"}),
                Some(("tool-f", Some("output-error"))),
            ),
            (
                json!({"type": "dynamic-tool", "toolName": "f", "toolCallId": "c", "input": {}, "output": 1}),
                Some(("dynamic-tool", Some("output-available"))),
            ),
            (json!({"text": "hi", "foo": 1}), None),
            (
                json!({"toolCallId": "c", "state": "output-available", "input": {}, "output": 1}),
                None,
            ),
        ];
        for (part, expected) in cases {
            let mut filled = part.clone();
            let changed = fill_in(&mut filled).is_some();
            let got = filled
                .get("type")
                .and_then(Value::as_str)
                .map(|part_type| (part_type, filled.get("state").and_then(Value::as_str)));
            assert_eq!(got, expected, "{part}");
            assert_eq!(changed, filled != part, "{part}");
        }
        // A part that has its type and state keeps them.
        let mut whole = json!({"type": "tool-f", "toolCallId": "c", "state": "input-available"});
        assert_eq!(fill_in(&mut whole), None);
    }

    /// Each part with whether pydantic-ai 2.68.0's `UIMessage` takes it (its verdict, printed by
    /// `TypeAdapter(UIMessage).validate_python`): literals, nulls where a field is not nullable, lax
    /// and strict booleans, the two approval shapes.
    #[test]
    fn a_part_validates_where_pydantic_ai_s_models_take_it() {
        let cases = [
            (json!({"type": "text", "text": "hi"}), true),
            (json!({"type": "text", "text": "hi", "state": "done"}), true),
            (
                json!({"type": "text", "text": "hi", "state": "output-available"}),
                false,
            ),
            (json!({"type": "text", "text": null}), false),
            (json!({"type": "text", "text": 5}), false),
            (
                json!({"type": "text", "text": "hi", "providerMetadata": {"p": {"a": 1}}}),
                true,
            ),
            (
                json!({"type": "text", "text": "hi", "providerMetadata": {"p": 1}}),
                false,
            ),
            (json!({"type": "text", "text": "hi", "providerMetadata": null}), true),
            (json!({"type": "reasoning", "text": "t", "id": null}), true),
            (json!({"type": "reasoning", "text": "t", "id": 7}), false),
            (
                json!({"type": "file", "mediaType": "image/png", "url": "u", "filename": null}),
                true,
            ),
            (json!({"type": "file", "mediaType": null, "url": "u"}), false),
            (
                json!({"type": "source-url", "sourceId": "s", "url": "u", "title": null}),
                true,
            ),
            (
                json!({"type": "source-document", "sourceId": "s", "mediaType": "m", "title": null}),
                false,
            ),
            (json!({"type": "step-start"}), true),
            (json!({"type": "data-x", "data": null}), true),
            (json!({"type": "data-x", "data": 1, "id": 3}), false),
            (
                json!({"type": "tool-t", "toolCallId": "c", "state": "output-available", "input": {}, "output": 1, "providerExecuted": "yes"}),
                true,
            ),
            (
                json!({"type": "tool-t", "toolCallId": "c", "state": "output-available", "input": {}, "output": 1, "providerExecuted": "maybe"}),
                false,
            ),
            (
                json!({"type": "tool-t", "toolCallId": "c", "state": "output-available", "input": {}, "output": 1, "preliminary": 1}),
                true,
            ),
            (
                json!({"type": "tool-t", "toolCallId": "c", "state": "output-error", "input": {}, "errorText": null}),
                false,
            ),
            (
                json!({"type": "tool-t", "toolCallId": "c", "state": "approval-responded", "input": {}, "approval": {"id": "a", "approved": 1}}),
                false,
            ),
            (
                json!({"type": "tool-t", "toolCallId": "c", "state": "approval-responded", "input": {}, "approval": {"id": "a", "approved": true, "reason": null}}),
                true,
            ),
            (
                json!({"type": "tool-t", "toolCallId": "c", "state": "approval-requested", "input": {}, "approval": {"id": "a", "reason": "r"}}),
                false,
            ),
            (
                json!({"type": "tool-t", "toolCallId": "c", "state": "approval-requested", "input": {}, "approval": {"id": "a"}}),
                true,
            ),
            (
                json!({"type": "tool-t", "toolCallId": "c", "state": "input-available", "input": {}, "title": 5}),
                false,
            ),
            (
                json!({"type": "tool-t", "toolCallId": "c", "state": "bogus", "input": {}}),
                false,
            ),
            (
                json!({"type": "dynamic-tool", "toolName": "f", "toolCallId": "c", "state": "output-available", "input": {}, "output": null}),
                true,
            ),
            (
                json!({"type": "dynamic-tool", "toolName": null, "toolCallId": "c", "state": "output-available", "input": {}, "output": 1}),
                false,
            ),
        ];
        for (part, expected) in cases {
            let mut part = part;
            fill_in(&mut part);
            assert_eq!(validates(part.as_object().unwrap()), expected, "{part}");
        }
    }
}
