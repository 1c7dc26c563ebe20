//! The tool parts of an assistant `UIMessage`: each a tool call, and its return once it has one
//! (`load_messages`'s tool part branches, `narrow_message_parts`).

use msgflow_wire::{Field, ModelRequestPart, RawJson, ToolReturnOutcome};
use serde_json::{Map, Value};

use super::values::validated_tool_output;
use super::{get, ours, shape, truthy, Loader};
use crate::loss::LossKind;
use crate::messages_builder::Part;
use crate::object::{field_of, object};
use crate::openai_chat::ShapeError;
use crate::typed_parts;
use crate::ui_payloads::{narrowed, parse_tool_kind, parse_tool_retry};
use crate::vercel_ui::dump::DEFAULT_DENIAL;

impl Loader<'_> {
    /// A tool part: its call, and its return once it has one. The part's input and output are
    /// moved into the history (copied where the input is kept, but for a plain successful structured
    /// output, whose JSON text is written from where it stands).
    pub(super) fn tool(
        &mut self,
        part: &mut Value,
        part_type: &str,
        path: &str,
        pending: &mut Vec<Part>,
    ) -> Result<(), ShapeError> {
        let tool_name = if part_type == "dynamic-tool" {
            match field_of(part, "toolName") {
                Some(Value::String(name)) => name.clone(),
                _ => {
                    return Err(shape(
                        &format!("{path}.toolName"),
                        "expected the dynamic tool's name as a string",
                    ))
                }
            }
        } else {
            part_type["tool-".len()..].to_owned()
        };
        let Some(tool_call_id) = field_of(part, "toolCallId").and_then(Value::as_str).map(str::to_owned) else {
            return Err(shape(
                &format!("{path}.toolCallId"),
                "expected the tool call id as a string",
            ));
        };
        let tool_call_id = tool_call_id.as_str();
        let claimed_state = field_of(part, "state").and_then(Value::as_str).unwrap_or("");
        let Some(state) =
            crate::vercel_ui::part_defaults::model_of_state(part_type, claimed_state).and_then(|model| model.state)
        else {
            let states: Vec<&str> = crate::vercel_ui::part_defaults::models_of(part_type)
                .filter_map(|model| model.state)
                .collect();
            return Err(shape(
                &format!("{path}.state"),
                format!("expected a tool part state, one of {}", states.join(", ")),
            ));
        };
        let args = match self.take(part, "input") {
            Value::String(text) => match serde_json::from_str::<Value>(&text) {
                Ok(parsed @ Value::Object(_)) => parsed,
                _ => Value::String(text),
            },
            value @ (Value::Object(_) | Value::Null) => value,
            _ => {
                return Err(shape(
                    &format!("{path}.input"),
                    "expected the tool input as an object or a JSON string",
                ))
            }
        };
        let metadata = ours(field_of(part, "callProviderMetadata").unwrap_or(&Value::Null)).clone();
        let provider_name = get(&metadata, "provider_name").clone();
        let provider_details = get(&metadata, "provider_details").clone();
        let tool_kind = parse_tool_kind(get(&metadata, "tool_kind"));
        if !get(&metadata, "tool_kind").is_null() && tool_kind.is_null() {
            self.loss(
                LossKind::Dropped,
                format!("{path}.callProviderMetadata.pydantic_ai.tool_kind"),
                "a `tool_kind` pydantic-ai does not define (`parse_tool_kind`)",
            );
        }
        // `outcome` says what the state does not (an interrupted or retried return); another
        // than the state's own is not read.
        let outcome_claim = get(&metadata, "outcome");
        let state_outcomes: &[&str] = match state {
            "output-available" => &["success", "interrupted"],
            "output-error" => &["failed", "retried"],
            "output-denied" => &["denied"],
            _ => &[],
        };
        if !outcome_claim.is_null()
            && !outcome_claim
                .as_str()
                .is_some_and(|outcome| state_outcomes.contains(&outcome))
        {
            self.loss(
                LossKind::Dropped,
                format!("{path}.callProviderMetadata.pydantic_ai.outcome"),
                "an `outcome` claim the tool part's state does not take",
            );
        }
        // `retry` is read for a retried return only (`parse_tool_retry`), and only as a retry.
        let retry_claim = get(&metadata, "retry");
        let retried = state == "output-error" && get(&metadata, "outcome") == "retried";
        if !retry_claim.is_null() && (!retried || parse_tool_retry(retry_claim).is_null()) {
            self.loss(
                LossKind::Dropped,
                format!("{path}.callProviderMetadata.pydantic_ai.retry"),
                "a `retry` claim pydantic-ai does not read (of a return that was not retried, or no retry)",
            );
        }
        // An approval's id is its call's where pydantic-ai asks for one (`approval-requested`); a
        // denial's is made up on the way out (`output-denied`), and either way none is kept.
        let approval_id = field_of(part, "approval").and_then(|approval| approval.get("id"));
        if state != "approval-responded"
            && approval_id.is_some_and(|id| id.as_str().is_some_and(|id| id != tool_call_id))
        {
            self.loss(
                LossKind::Dropped,
                format!("{path}.approval.id"),
                "the `approval.id` of a tool part, other than its call's (a history keeps no approval id)",
            );
        }
        if state == "approval-responded" {
            self.loss(
                LossKind::Dropped,
                format!("{path}.approval"),
                "a tool approval decision not carried out yet (pydantic-ai takes it as a deferred tool result)",
            );
        }
        let has_output = matches!(state, "output-available" | "output-error" | "output-denied");
        // `_validate_tool_output`: file items of the output become files, recorded in the return's
        // `content_file_digests` so that they load as files again. Content that is no scalar carries
        // the record even when empty, as pydantic-ai dumps it: without one, pydantic-ai takes the return
        // for one saved before records existed and may rebuild its file-shaped mappings as files.
        // Read in place (`keep_input`), a plain successful return's structured output is written as
        // the part's JSON text from where it stands, not copied first, where the copy would have
        // been kept as it is (no file items to rebuild, within the parser's depth): copying a tree
        // of `Value`s allocates each node. A text output is still copied (one allocation) and
        // written on the pool with the others.
        let output_in_place = self.keep_input
            && state == "output-available"
            && tool_kind.is_null()
            && field_of(part, "providerExecuted") != Some(&Value::Bool(true))
            && field_of(part, "output").is_some_and(|output| {
                matches!(output, Value::Array(_) | Value::Object(_))
                    && !crate::vercel_ui::holds_content_item(output)
                    && crate::round_trip::within_parse_depth(output, 4)
            });
        let output = if output_in_place {
            Value::Null
        } else {
            self.take(part, "output")
        };
        let (output, file_digests) = if state == "output-available" {
            validated_tool_output(output)
        } else {
            (output, Vec::new())
        };
        let with_digests = |mut returned: Value| {
            if msgflow_media::content_needs_file_digests(&returned["content"]) {
                returned["content_file_digests"] = file_digests.clone().into();
            }
            returned
        };
        if field_of(part, "providerExecuted") == Some(&Value::Bool(true)) {
            let empty = Map::new();
            let (call_meta, return_meta) = if has_output {
                (
                    metadata.get("call_meta").and_then(Value::as_object).unwrap_or(&empty),
                    metadata.get("return_meta").and_then(Value::as_object).unwrap_or(&empty),
                )
            } else {
                (&empty, &empty)
            };
            let or = |first: &Value, second: &Value| if truthy(first) { first.clone() } else { second.clone() };
            let call_provider_name = or(get(call_meta, "provider_name"), &provider_name);
            let call_kind = match parse_tool_kind(get(call_meta, "tool_kind")) {
                Value::Null => tool_kind.clone(),
                claimed => claimed,
            };
            let call = self.narrow(
                object! {"tool_name": tool_name.as_str(), "args": args, "tool_call_id": tool_call_id,
                "tool_kind": call_kind,
                "id": or(get(call_meta, "id"), get(&metadata, "id")),
                "provider_name": call_provider_name.clone(),
                "provider_details": or(get(call_meta, "provider_details"), &provider_details),
                "part_kind": "builtin-tool-call"},
                "args",
                path,
            );
            self.builder.add(call, false);
            let canonical = or(get(call_meta, "canonical_system"), get(&metadata, "canonical_system"));
            self.builder.restore_canonical_system(&call_provider_name, &canonical);
            if has_output {
                let (content, outcome) = match state {
                    "output-error" => (part.get("errorText").cloned().unwrap_or(Value::Null), "failed"),
                    "output-denied" => (Value::String(denial_reason(part)), "denied"),
                    _ => (output, "success"),
                };
                let return_kind = match parse_tool_kind(get(return_meta, "tool_kind")) {
                    Value::Null => tool_kind,
                    claimed => claimed,
                };
                let returned = self.narrow(
                    with_digests(
                        object! {"tool_name": tool_name, "content": content, "tool_call_id": tool_call_id,
                        "provider_name": or(get(return_meta, "provider_name"), &provider_name),
                        "provider_details": or(get(return_meta, "provider_details"), &provider_details),
                        "outcome": outcome, "tool_kind": return_kind,
                        "part_kind": "builtin-tool-return"},
                    ),
                    "content",
                    path,
                );
                self.builder.add(returned, false);
            }
            return Ok(());
        }
        let plain_call = tool_kind.is_null()
            && get(&metadata, "id").is_null()
            && provider_name.is_null()
            && provider_details.is_null()
            && !args.is_null();
        if plain_call {
            let mut call = typed_parts::tool_call(tool_name.clone(), RawJson::null(), tool_call_id.to_owned());
            call.id = Field::Null;
            call.provider_name = Field::Null;
            call.provider_details = Field::Null;
            self.builder.add(Part::ToolCall(call, args), false);
        } else {
            let call = self.narrow(
                object! {"tool_name": tool_name.as_str(), "args": args, "tool_call_id": tool_call_id,
                "tool_kind": tool_kind.clone(), "id": get(&metadata, "id").clone(),
                "provider_name": provider_name, "provider_details": provider_details,
                "part_kind": "tool-call"},
                "args",
                path,
            );
            self.builder.add(call, false);
        }
        self.builder
            .restore_canonical_system(get(&metadata, "provider_name"), get(&metadata, "canonical_system"));
        let returned = match state {
            "output-available" => {
                let interrupted = get(&metadata, "outcome") == "interrupted";
                let outcome = if interrupted { "interrupted" } else { "success" };
                if tool_kind.is_null() && file_digests.is_empty() {
                    let returned = typed_parts::tool_return(
                        tool_name,
                        tool_call_id.to_owned(),
                        ToolReturnOutcome::from_wire(outcome),
                    );
                    if output_in_place {
                        let output = field_of(part, "output").unwrap_or(&Value::Null);
                        let returned = ModelRequestPart::ToolReturn(typed_parts::with_content(returned, output));
                        pending.push(Part::Request(returned));
                    } else {
                        pending.push(Part::ToolReturn(returned, output));
                    }
                    return Ok(());
                }
                with_digests(object! {"tool_name": tool_name, "content": output,
                "tool_call_id": tool_call_id,
                "outcome": if interrupted { "interrupted" } else { "success" },
                "tool_kind": tool_kind, "part_kind": "tool-return"})
            }
            "output-error" => {
                let retried = get(&metadata, "outcome") == "retried";
                let structured = get(&metadata, "content");
                // `_validate_tool_output` of a retry's list content: its files rebuilt.
                let (content, structured_digests) = if retried && structured.is_array() {
                    validated_tool_output(structured.clone())
                } else {
                    (part.get("errorText").cloned().unwrap_or(Value::Null), Vec::new())
                };
                let retry = if retried {
                    parse_tool_retry(get(&metadata, "retry"))
                } else {
                    Value::Null
                };
                let mut returned = object! {"tool_name": tool_name, "content": content, "tool_call_id": tool_call_id,
                "outcome": if retried { "retried" } else { "failed" }, "retry": retry,
                "tool_kind": tool_kind, "part_kind": "tool-return"};
                if !structured_digests.is_empty() {
                    returned["content_file_digests"] = structured_digests.into();
                }
                returned
            }
            "output-denied" => object! {"tool_name": tool_name, "content": denial_reason(part),
            "tool_call_id": tool_call_id, "outcome": "denied",
            "tool_kind": tool_kind, "part_kind": "tool-return"},
            _ => return Ok(()),
        };
        let returned = self.narrow(returned, "content", path);
        pending.push(returned.into());
        Ok(())
    }

    /// `narrow_message_parts`: one of pydantic-ai's own kinds that the part's data (`field`) does
    /// not substantiate is stripped (`ToolCallPart.narrow_type`), and reported dropped.
    fn narrow(&mut self, mut part: Value, field: &str, path: &str) -> Value {
        if !part["tool_kind"].is_null() && narrowed(&part, field).0.is_null() {
            self.loss(
                LossKind::Dropped,
                format!("{path}.callProviderMetadata.pydantic_ai.tool_kind"),
                "a `tool_kind` the tool part's data does not fit (`narrow_type`)",
            );
            part["tool_kind"] = Value::Null;
        }
        part
    }
}

/// `_denial_reason`: the reason of a responded approval, else `ToolDenied().message`.
fn denial_reason(part: &Value) -> String {
    let approval = part.get("approval").unwrap_or(&Value::Null);
    match approval.get("reason").and_then(Value::as_str) {
        Some(reason) if approval.get("approved").is_some_and(Value::is_boolean) && !reason.is_empty() => {
            reason.to_owned()
        }
        _ => DEFAULT_DENIAL.to_owned(),
    }
}
