//! Vercel AI `UIMessage`s to a history, as pydantic-ai 2.68.0's `VercelAIAdapter.load_messages`
//! (`pydantic_ai.ui.vercel_ai._adapter`) reads them, building the history's JSON.

use serde_json::{Map, Value};

use super::citations::load_citations;
use super::dump::{DEFAULT_DENIAL, USER_PROMPT_START_KEY};
use super::PROVIDER_METADATA_KEY;
use crate::loss::{LossKind, Report};
use crate::messages_builder::{binary_json, from_data_uri, set_ui_message_id, Builder};
use crate::object::object;
use crate::openai_chat::ShapeError;
use crate::ui_payloads::{
    capability_load_delta_from_payload, compaction_from_payload, is_request_compaction,
    model_settings_delta_from_payload, narrowed, parse_tool_kind, parse_tool_retry, retry_feedback_from_payload,
    tool_availability_delta_from_payload,
};

mod values;

use values::{apply_message_metadata, structured_content, user_file, validated_tool_output};

fn shape(path: &str, message: impl Into<String>) -> ShapeError {
    ShapeError {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// The keys of pydantic-ai's UI part models its `load_messages` reads nothing from.
const UNREAD_KEYS: [&str; 4] = ["title", "filename", "preliminary", "rawInput"];

/// The data part pydantic-ai's event stream sends messages enqueued during a run in
/// (`ENQUEUED_MESSAGES_DATA_TYPE`); the AI SDK keeps it on the assistant message.
const ENQUEUED_MESSAGES_DATA_TYPE: &str = "data-enqueued-messages";

struct Loader<'r> {
    document: usize,
    report: &'r mut Report,
    builder: Builder,
    /// Whether the messages are those of an enqueued-messages part: validated as `UIMessage`s
    /// (what does not validate fails them all, where msgflow reads the outer messages more
    /// laxly), and another such part within them loads as nothing (`_enqueued_ui_messages`).
    enqueued: bool,
}

/// `load_messages(messages)`: the history's JSON messages.
/// `messages` begin at index `first` of the array at `path`; `history` is what the messages before
/// them hold (the lossless records), which the builder goes on from. Tool inputs and outputs, the
/// largest values, are moved out of `messages` into the history.
pub(super) fn load(
    messages: &mut [Value],
    path: &str,
    first: usize,
    document: usize,
    report: &mut Report,
    history: Vec<Value>,
) -> Result<Vec<Value>, ShapeError> {
    Loader {
        document,
        report,
        builder: Builder::new(history),
        enqueued: false,
    }
    .read(messages, path, first)
}

fn ours(metadata: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    metadata
        .get(PROVIDER_METADATA_KEY)
        .and_then(Value::as_object)
        .unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

fn get<'v>(map: &'v Map<String, Value>, key: &str) -> &'v Value {
    map.get(key).unwrap_or(&Value::Null)
}

fn get_value<'v>(value: &'v Value, key: &str) -> &'v Value {
    value.get(key).unwrap_or(&Value::Null)
}

impl Loader<'_> {
    /// Reads `messages` (index `first` on of the array at `path`) into the history.
    fn read(mut self, messages: &mut [Value], path: &str, first: usize) -> Result<Vec<Value>, ShapeError> {
        for (index, message) in messages.iter_mut().enumerate() {
            self.message(message, &format!("{path}[{}]", first + index))?;
        }
        Ok(self.builder.into_messages())
    }

    /// A key `UIMessage` does not have at `path`: left out and reported, or, in enqueued messages,
    /// what fails them (pydantic's UI models forbid unknown keys; a part's are checked whole, by
    /// [`part_defaults::validates`](super::part_defaults::validates)).
    fn unknown_key(&mut self, path: String, what: String) -> Result<(), ShapeError> {
        if self.enqueued {
            return Err(shape(
                &path,
                format!("{what} is not a key pydantic-ai's UI models take"),
            ));
        }
        self.loss(LossKind::Dropped, path, what);
        Ok(())
    }

    fn loss(&mut self, kind: LossKind, path: impl Into<String>, what: impl Into<String>) {
        self.report.push(kind, self.document, path, what);
    }

    fn message(&mut self, message: &mut Value, path: &str) -> Result<(), ShapeError> {
        let Some(object) = message.as_object_mut() else {
            return Err(shape(path, "expected a UIMessage object with `id`, `role` and `parts`"));
        };
        let role = match object.get("role").and_then(Value::as_str) {
            Some("system") => "system",
            Some("user") => "user",
            Some("assistant") => "assistant",
            Some(_) => {
                return Err(shape(
                    &format!("{path}.role"),
                    "expected `system`, `user` or `assistant`",
                ))
            }
            None => return Err(shape(path, "expected a `role` in the UIMessage")),
        };
        // pydantic-ai requires an `id`; the AI SDK's own `convertToModelMessages` does not, and
        // real logs leave it out, so a message without one is read all the same.
        let id = match object.get("id") {
            Some(Value::String(id)) => Some(id.clone()),
            None | Some(Value::Null) if self.enqueued => {
                return Err(shape(path, "expected the UIMessage `id` as a string"));
            }
            None | Some(Value::Null) => None,
            Some(_) => return Err(shape(&format!("{path}.id"), "expected the UIMessage `id` as a string")),
        };
        for key in object.keys() {
            if !matches!(key.as_str(), "id" | "role" | "metadata" | "parts") {
                self.unknown_key(format!("{path}.{key}"), format!("`{key}` of a UIMessage"))?;
            }
        }
        let Some(Value::Array(ui_parts)) = object.get_mut("parts") else {
            return Err(shape(
                &format!("{path}.parts"),
                "expected the UIMessage `parts` as an array",
            ));
        };
        let checkpoint = self.builder.checkpoint();
        let parts_path = format!("{path}.parts");
        for (index, part) in ui_parts.iter_mut().enumerate() {
            let part_path = format!("{parts_path}[{index}]");
            if let Some(filled_in) = super::part_defaults::fill_in(part) {
                self.loss(LossKind::Invented, &part_path, filled_in);
            }
            let Some(part_type) = part.get("type").and_then(Value::as_str) else {
                return Err(shape(&part_path, "expected a UI part object with a string `type`"));
            };
            if self.enqueued && !part.as_object().is_some_and(super::part_defaults::validates) {
                return Err(shape(
                    &part_path,
                    format!("a `{part_type}` part that validates as none of pydantic-ai's UI part models"),
                ));
            }
            // Sources are dropped whole, below.
            let read_whole = !matches!(part_type, "source-url" | "source-document");
            for key in part.as_object().into_iter().flat_map(Map::keys) {
                // Keys no model of its type has (pydantic-ai's, which the AI SDK's parts share), and
                // those `load_messages` reads nothing from.
                let known = super::part_defaults::models_of(part_type).any(|model| model.keys.contains(&key.as_str()));
                if !known || (read_whole && UNREAD_KEYS.contains(&key.as_str())) {
                    self.loss(
                        LossKind::Dropped,
                        format!("{part_path}.{key}"),
                        format!("`{key}` of a `{part_type}` UI part"),
                    );
                }
            }
        }
        match role {
            "system" => self.system(ui_parts, &parts_path)?,
            "user" => self.user(ui_parts, &parts_path)?,
            // The tool parts give up their input and output to the history.
            _ => self.assistant(ui_parts, &parts_path)?,
        }
        let has_parts = !ui_parts.is_empty();
        let target_kind = if role == "assistant" { "response" } else { "request" };
        let metadata = object.get("metadata").unwrap_or(&Value::Null);
        let had_timestamp = ours(metadata).get("timestamp").is_some();
        match self.builder.target(checkpoint, target_kind) {
            Some(target) => {
                apply_message_metadata(target, metadata);
                if let Some(id) = id {
                    set_ui_message_id(target, id);
                }
                if !had_timestamp || !target.contains_key("timestamp") {
                    self.loss(
                        LossKind::Invented,
                        path,
                        "message timestamps (pydantic-ai fills in the load time)",
                    );
                }
            }
            None if has_parts && id.is_some() => {
                self.loss(
                    LossKind::Dropped,
                    format!("{path}.id"),
                    "the `id` of a UIMessage that loads as no part",
                );
            }
            None => {}
        }
        Ok(())
    }

    fn system(&mut self, ui_parts: &[Value], path: &str) -> Result<(), ShapeError> {
        for (index, part) in ui_parts.iter().enumerate() {
            let part_path = format!("{path}[{index}]");
            if part["type"] != "text" {
                return Err(shape(&part_path, "a system message holds text parts only"));
            }
            let text = text_of(part, &part_path)?;
            // Only a part carrying the marker pydantic-ai dumped it with is harness feedback.
            let claim = get(
                ours(part.get("providerMetadata").unwrap_or(&Value::Null)),
                "retry_feedback",
            );
            match retry_feedback_from_payload(claim) {
                Some(feedback) => self.builder.add(feedback, true),
                None => self
                    .builder
                    .add(object! {"content": text, "part_kind": "system-prompt"}, true),
            }
        }
        Ok(())
    }

    fn user(&mut self, ui_parts: &[Value], path: &str) -> Result<(), ShapeError> {
        let mut content: Vec<Value> = Vec::new();
        for (index, part) in ui_parts.iter().enumerate() {
            let part_path = format!("{path}[{index}]");
            let part_type = part["type"].as_str().unwrap_or("");
            let metadata = ours(part.get("providerMetadata").unwrap_or(&Value::Null));
            if matches!(part_type, "text" | "file")
                && !content.is_empty()
                && truthy(get(metadata, USER_PROMPT_START_KEY))
            {
                self.flush_prompt(&mut content);
            }
            match part_type {
                "text" => {
                    let text = text_of(part, &part_path)?;
                    if let Some(feedback) = retry_feedback_from_payload(get(metadata, "retry_feedback")) {
                        self.flush_prompt(&mut content);
                        self.builder.add(feedback, true);
                        continue;
                    }
                    match get(metadata, "structured_content") {
                        Value::Null => content.push(Value::String(text.to_owned())),
                        claim => content.push(structured_content(claim, text)),
                    }
                }
                "file" => content.push(user_file(part, metadata, &part_path)?),
                super::dump::COMPACTION_DATA_TYPE => {
                    // A summary the application wrote keeps its place among the prompts around it;
                    // a provider's compaction (or a payload that does not validate) is skipped.
                    match compaction_from_payload(part.get("data").unwrap_or(&Value::Null)) {
                        Some(compaction) if is_request_compaction(&compaction) => {
                            self.flush_prompt(&mut content);
                            self.builder.add(compaction, true);
                        }
                        _ => self.loss(
                            LossKind::Dropped,
                            &part_path,
                            "a `data-compaction` part pydantic-ai does not load into a request",
                        ),
                    }
                }
                "data-tool-availability-delta" | "data-capability-load-delta" | "data-model-settings-delta" => {
                    match delta_from_data(part) {
                        // A settings change goes after the prompt it was recorded behind; the other
                        // deltas go where they are, ahead of the prompt not flushed yet.
                        Some(delta) => {
                            if part_type == "data-model-settings-delta" {
                                self.flush_prompt(&mut content);
                            }
                            self.builder.add(delta, true);
                        }
                        None => self.loss(
                            LossKind::Dropped,
                            &part_path,
                            format!("a `{part_type}` part whose data pydantic-ai does not load"),
                        ),
                    }
                }
                _ if part_type.starts_with("data-") => self.data_part(part_type, &part_path),
                other => {
                    return Err(shape(
                        &part_path,
                        format!("a user message holds text, file and data parts, not `{other}`"),
                    ))
                }
            }
        }
        self.flush_prompt(&mut content);
        Ok(())
    }

    /// `flush_user_prompt`: the content gathered so far as one `UserPromptPart`.
    fn flush_prompt(&mut self, content: &mut Vec<Value>) {
        if content.is_empty() {
            return;
        }
        let items = std::mem::take(content);
        let content = match items.as_slice() {
            [Value::String(text)] => Value::String(text.clone()),
            _ => Value::Array(items),
        };
        self.builder
            .add(object! {"content": content, "part_kind": "user-prompt"}, true);
    }

    /// Another `data-*` part: custom data, not for the model (enqueued messages are read from
    /// assistant messages only, as pydantic-ai reads them).
    fn data_part(&mut self, part_type: &str, path: &str) {
        let what = if part_type == ENQUEUED_MESSAGES_DATA_TYPE {
            format!("a `{part_type}` part outside an assistant message (pydantic-ai reads none there)")
        } else {
            format!("a custom `{part_type}` part (application data, not sent to the model)")
        };
        self.loss(LossKind::Dropped, path, what);
    }

    /// The messages of an enqueued-messages part (`load_messages` of `_enqueued_ui_messages`): a
    /// history of their own, or none where pydantic-ai loads none (reported dropped).
    fn enqueued_messages(&mut self, part: &mut Value, path: &str) -> Vec<Value> {
        if self.enqueued {
            self.loss(
                LossKind::Dropped,
                path,
                "an enqueued-messages part within enqueued messages (pydantic-ai loads it as nothing)",
            );
            return Vec::new();
        }
        let Some(Value::Array(messages)) = part.get_mut("data").and_then(|data| data.get_mut("messages")) else {
            self.loss(
                LossKind::Dropped,
                path,
                "an enqueued-messages part without `data.messages` as an array (pydantic-ai loads it as nothing)",
            );
            return Vec::new();
        };
        let mut report = Report::default();
        let loader = Loader {
            document: self.document,
            report: &mut report,
            builder: Builder::new(Vec::new()),
            enqueued: true,
        };
        match loader.read(messages, &format!("{path}.data.messages"), 0) {
            Ok(loaded) => {
                self.report.losses.extend(report.losses);
                loaded
            }
            Err(err) => {
                self.loss(
                    LossKind::Dropped,
                    err.path,
                    format!("the enqueued messages of this part, which do not load: {}", err.message),
                );
                Vec::new()
            }
        }
    }

    fn assistant(&mut self, ui_parts: &mut [Value], path: &str) -> Result<(), ShapeError> {
        let mut pending: Vec<Value> = Vec::new();
        // Messages enqueued into the step, delivered after its held-back returns.
        let mut pending_enqueued: Vec<Value> = Vec::new();
        let has_steps = ui_parts.iter().any(|part| part["type"] == "step-start");
        for (index, part) in ui_parts.iter_mut().enumerate() {
            let part_path = format!("{path}[{index}]");
            let part_type = part["type"].as_str().unwrap_or("").to_owned();
            let part_type = part_type.as_str();
            if !pending.is_empty()
                && (part_type == "step-start" || (!has_steps && matches!(part_type, "text" | "reasoning" | "file")))
            {
                for returned in pending.drain(..) {
                    self.builder.add(returned, true);
                }
                self.builder.append_whole(std::mem::take(&mut pending_enqueued));
            }
            let metadata = ours(part.get("providerMetadata").unwrap_or(&Value::Null)).clone();
            match part_type {
                "text" => {
                    let text = text_of(part, &part_path)?;
                    let details = get(&metadata, "provider_details");
                    let citations = load_citations(get(&metadata, "citations"), text);
                    if citations.is_null() && !get(&metadata, "citations").is_null() {
                        self.loss(
                            LossKind::Dropped,
                            format!("{part_path}.providerMetadata.pydantic_ai.citations"),
                            "citations pydantic-ai does not load (`load_citations`)",
                        );
                    }
                    self.builder.add(
                        object! {"content": text, "id": get(&metadata, "id").clone(),
                        "provider_name": get(&metadata, "provider_name").clone(),
                        "provider_details": if details.is_object() { details.clone() } else { Value::Null },
                        "citations": citations,
                        "part_kind": "text"},
                        false,
                    );
                    self.builder
                        .restore_canonical_system(get(&metadata, "provider_name"), get(&metadata, "canonical_system"));
                }
                "reasoning" => {
                    let text = text_of(part, &part_path)?;
                    let signature = if part["state"] == "streaming" {
                        Value::Null
                    } else {
                        get(&metadata, "signature").clone()
                    };
                    self.builder.add(
                        object! {"content": text, "id": get(&metadata, "id").clone(), "signature": signature,
                        "provider_name": get(&metadata, "provider_name").clone(),
                        "provider_details": get(&metadata, "provider_details").clone(),
                        "part_kind": "thinking"},
                        false,
                    );
                    self.builder
                        .restore_canonical_system(get(&metadata, "provider_name"), get(&metadata, "canonical_system"));
                }
                "file" => {
                    let url = part["url"].as_str().unwrap_or("");
                    let Some((media_type, bytes)) = from_data_uri(url) else {
                        return Err(shape(
                            &format!("{part_path}.url"),
                            "an assistant file part must be a base64 `data:` URI (as pydantic-ai requires)",
                        ));
                    };
                    let content = binary_json(&media_type, &bytes, get(&metadata, "vendor_metadata"));
                    self.builder.add(
                        object! {"content": content, "id": get(&metadata, "id").clone(),
                        "provider_name": get(&metadata, "provider_name").clone(),
                        "provider_details": get(&metadata, "provider_details").clone(),
                        "part_kind": "file"},
                        false,
                    );
                    self.builder
                        .restore_canonical_system(get(&metadata, "provider_name"), get(&metadata, "canonical_system"));
                }
                "step-start" => {}
                "source-url" | "source-document" => self.loss(
                    LossKind::Dropped,
                    &part_path,
                    format!("a `{part_type}` part (sources are listed for display)"),
                ),
                super::dump::COMPACTION_DATA_TYPE => {
                    let data = part.get("data").unwrap_or(&Value::Null);
                    match compaction_from_payload(data) {
                        Some(compaction) => {
                            let provider_name = get_value(&compaction, "provider_name").clone();
                            // `MessagesBuilder.add`: a compaction no provider produced goes to a request.
                            let to_request = is_request_compaction(&compaction);
                            self.builder.add(compaction, to_request);
                            self.builder
                                .restore_canonical_system(&provider_name, get_value(data, "canonical_system"));
                        }
                        None => self.loss(
                            LossKind::Dropped,
                            &part_path,
                            "a `data-compaction` part whose data is not a compaction part",
                        ),
                    }
                }
                "data-tool-availability-delta" | "data-capability-load-delta" | "data-model-settings-delta" => {
                    match delta_from_data(part) {
                        // A settings change is streamed at the start of the request recording it:
                        // at its end, after the messages enqueued into the step if there are any.
                        Some(delta) if part_type == "data-model-settings-delta" && !pending_enqueued.is_empty() => {
                            pending_enqueued.push(object! {"parts": vec![delta], "kind": "request"});
                        }
                        // Streamed after the tool return that caused it (a settings change at the
                        // start of the request recording it): it waits with the step's returns.
                        Some(delta) if part_type != "data-model-settings-delta" || !pending.is_empty() => {
                            pending.push(delta);
                        }
                        Some(delta) => self.builder.add(delta, true),
                        None => self.loss(
                            LossKind::Dropped,
                            &part_path,
                            format!("a `{part_type}` part whose data pydantic-ai does not load"),
                        ),
                    }
                }
                ENQUEUED_MESSAGES_DATA_TYPE => {
                    // Each delivery is whole messages of its own, after the step's held-back returns.
                    let loaded = self.enqueued_messages(part, &part_path);
                    if pending.is_empty() {
                        self.builder.append_whole(loaded);
                    } else {
                        pending_enqueued.extend(loaded);
                    }
                }
                _ if part_type.starts_with("data-") => self.data_part(part_type, &part_path),
                _ if part_type.starts_with("tool-") || part_type == "dynamic-tool" => {
                    self.tool(part, part_type, &part_path, &mut pending)?;
                }
                other => return Err(shape(&part_path, format!("unknown UI part type `{other}`"))),
            }
        }
        for returned in pending {
            self.builder.add(returned, true);
        }
        self.builder.append_whole(pending_enqueued);
        Ok(())
    }

    /// A tool part: its call, and its return once it has one. The part's input and output are
    /// moved into the history.
    fn tool(
        &mut self,
        part: &mut Value,
        part_type: &str,
        path: &str,
        pending: &mut Vec<Value>,
    ) -> Result<(), ShapeError> {
        let tool_name = if part_type == "dynamic-tool" {
            match part.get("toolName") {
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
        let Some(tool_call_id) = part.get("toolCallId").and_then(Value::as_str).map(str::to_owned) else {
            return Err(shape(
                &format!("{path}.toolCallId"),
                "expected the tool call id as a string",
            ));
        };
        let tool_call_id = tool_call_id.as_str();
        let claimed_state = part.get("state").and_then(Value::as_str).unwrap_or("");
        let Some(state) = super::part_defaults::model_of_state(part_type, claimed_state).and_then(|model| model.state)
        else {
            let states: Vec<&str> = super::part_defaults::models_of(part_type)
                .filter_map(|model| model.state)
                .collect();
            return Err(shape(
                &format!("{path}.state"),
                format!("expected a tool part state, one of {}", states.join(", ")),
            ));
        };
        let args = match part.get_mut("input").map_or(Value::Null, Value::take) {
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
        let metadata = ours(part.get("callProviderMetadata").unwrap_or(&Value::Null)).clone();
        let provider_name = get(&metadata, "provider_name").clone();
        let provider_details = get(&metadata, "provider_details").clone();
        let tool_kind = parse_tool_kind(get(&metadata, "tool_kind"));
        if get(&metadata, "tool_kind").is_string() && tool_kind.is_null() {
            self.loss(
                LossKind::Dropped,
                format!("{path}.callProviderMetadata.pydantic_ai.tool_kind"),
                "a `tool_kind` pydantic-ai does not define (`parse_tool_kind`)",
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
        let output = part.get_mut("output").map_or(Value::Null, Value::take);
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
        if part.get("providerExecuted") == Some(&Value::Bool(true)) {
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
        let call = self.narrow(
            object! {"tool_name": tool_name.as_str(), "args": args, "tool_call_id": tool_call_id,
            "tool_kind": tool_kind.clone(), "id": get(&metadata, "id").clone(),
            "provider_name": provider_name, "provider_details": provider_details,
            "part_kind": "tool-call"},
            "args",
            path,
        );
        self.builder.add(call, false);
        self.builder
            .restore_canonical_system(get(&metadata, "provider_name"), get(&metadata, "canonical_system"));
        let returned = match state {
            "output-available" => {
                let interrupted = get(&metadata, "outcome") == "interrupted";
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
        pending.push(returned);
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

/// The delta part a `data-*-delta` UI part loads as (`*_from_payload`), or `None` when pydantic-ai
/// skips it.
fn delta_from_data(part: &Value) -> Option<Value> {
    let payload = part.get("data")?.as_object()?;
    match part["type"].as_str()? {
        "data-tool-availability-delta" => Some(tool_availability_delta_from_payload(payload)),
        "data-capability-load-delta" => capability_load_delta_from_payload(payload),
        _ => model_settings_delta_from_payload(payload),
    }
}

fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(flag) => *flag,
        Value::Number(number) => number.as_f64() != Some(0.0),
        Value::String(text) => !text.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(object) => !object.is_empty(),
    }
}

fn text_of<'v>(part: &'v Value, path: &str) -> Result<&'v str, ShapeError> {
    part.get("text")
        .and_then(Value::as_str)
        .ok_or_else(|| shape(&format!("{path}.text"), "expected the part's `text` as a string"))
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
