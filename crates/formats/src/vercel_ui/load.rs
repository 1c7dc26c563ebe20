//! Vercel AI `UIMessage`s to a history, as pydantic-ai 2.68.0's `VercelAIAdapter.load_messages`
//! (`pydantic_ai.ui.vercel_ai._adapter`) reads them, building the history with `messages_builder` (typed parts for the common shapes, JSON for the rest).

use msgflow_wire::{Field, ModelResponsePart};
use serde_json::{Map, Value};

use super::citations::load_citations;
use super::dump::USER_PROMPT_START_KEY;
use super::PROVIDER_METADATA_KEY;
use crate::loaded::LoadedMessage;
use crate::loss::{LossKind, Report};
use crate::messages_builder::{binary_json, from_data_uri, sibling_path, Builder, Part, INTERNAL_KEY};
use crate::object::{field, field_of, object};
use crate::openai_chat::ShapeError;
use crate::typed_parts;
use crate::ui_payloads::{
    capability_load_delta_from_payload, compaction_from_payload, is_request_compaction,
    model_settings_delta_from_payload, payload_left_out, retry_feedback_from_payload,
    tool_availability_delta_from_payload,
};

mod tool;
mod unread;
mod values;

use values::{apply_message_metadata, loadable_timestamp, structured_content, user_file};

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
    /// Whether the messages are left as they are (the read-back of a conversion's own output):
    /// the tool inputs and outputs the history keeps are then copied out of them, not moved.
    keep_input: bool,
}

/// `load_messages(messages)`: the history's JSON messages.
/// `messages` begin at index `first` of the array at `path`; `history` is what the messages before
/// them hold (the lossless records), which the builder goes on from. Tool inputs and outputs, the
/// largest values, are moved out of `messages` into the history, or copied with `keep_input`.
pub(super) fn load(
    messages: &mut [Value],
    path: &str,
    first: usize,
    document: usize,
    report: &mut Report,
    history: Vec<Value>,
    keep_input: bool,
) -> Result<Vec<LoadedMessage>, ShapeError> {
    Loader {
        document,
        report,
        builder: Builder::new(history),
        enqueued: false,
        keep_input,
    }
    .read(messages, path, first)
}

fn ours(metadata: &Value) -> &Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    field_of(metadata, PROVIDER_METADATA_KEY)
        .and_then(Value::as_object)
        .unwrap_or_else(|| EMPTY.get_or_init(Map::new))
}

fn get<'v>(map: &'v Map<String, Value>, key: &str) -> &'v Value {
    field(map, key).unwrap_or(&Value::Null)
}

fn get_value<'v>(value: &'v Value, key: &str) -> &'v Value {
    field_of(value, key).unwrap_or(&Value::Null)
}

impl Loader<'_> {
    /// Reads `messages` (index `first` on of the array at `path`) into the history.
    fn read(mut self, messages: &mut [Value], path: &str, first: usize) -> Result<Vec<LoadedMessage>, ShapeError> {
        for (index, message) in messages.iter_mut().enumerate() {
            self.message(message, &format!("{path}[{}]", first + index), first + index)?;
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

    /// A part's `text` (which [`text_of`] found a string) for the history, as [`Loader::take`]
    /// gives it.
    fn take_text(&self, part: &mut Value) -> String {
        match self.take(part, "text") {
            Value::String(text) => text,
            _ => String::new(),
        }
    }

    /// The value of `key` in `part` for the history: moved out of the part, or copied where the
    /// input is kept; `null` where there is none.
    fn take(&self, part: &mut Value, key: &str) -> Value {
        match part.get_mut(key) {
            Some(value) if self.keep_input => value.clone(),
            Some(value) => value.take(),
            None => Value::Null,
        }
    }

    fn loss(&mut self, kind: LossKind, path: impl Into<String>, what: impl Into<String>) {
        self.report.push(kind, self.document, path, what);
    }

    /// Reads the UI message of index `index` (at `path`) into the history.
    fn message(&mut self, message: &mut Value, path: &str, index: usize) -> Result<(), ShapeError> {
        let Some(object) = message.as_object_mut() else {
            return Err(shape(path, "expected a UIMessage object with `id`, `role` and `parts`"));
        };
        let role = match field(object, "role").and_then(Value::as_str) {
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
        let id = match field(object, "id") {
            Some(Value::String(id)) => Some(id.clone()),
            None | Some(Value::Null) if self.enqueued => {
                return Err(shape(path, "expected the UIMessage `id` as a string"));
            }
            None | Some(Value::Null) => None,
            Some(_) => return Err(shape(&format!("{path}.id"), "expected the UIMessage `id` as a string")),
        };
        for key in object.keys() {
            if !matches!(key.as_str(), "id" | "role" | "metadata" | "parts") {
                self.unknown_key(crate::loss::key_path(path, key), format!("`{key}` of a UIMessage"))?;
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
            let Some(part_type) = field_of(part, "type").and_then(Value::as_str) else {
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
            if read_whole {
                self.unread_provider_metadata(part, &part_path, part_type, role);
            }
            // A tool part is read as the model of its state; another part as any model of its type.
            let state_model = field_of(part, "state")
                .and_then(Value::as_str)
                .and_then(|state| super::part_defaults::model_of_state(part_type, state));
            for key in part.as_object().into_iter().flat_map(Map::keys) {
                // Keys no model of its type (or state) has (pydantic-ai's, which the AI SDK's parts
                // share), and those `load_messages` reads nothing from.
                let known = match state_model {
                    Some(model) => model.keys.contains(&key.as_str()),
                    None => super::part_defaults::models_of(part_type).any(|model| model.keys.contains(&key.as_str())),
                };
                if !known || (read_whole && UNREAD_KEYS.contains(&key.as_str())) {
                    self.loss(
                        LossKind::Dropped,
                        crate::loss::key_path(&part_path, key),
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
        let target_kind = if role == "assistant" { "response" } else { "request" };
        let metadata = field(object, "metadata").unwrap_or(&Value::Null);
        let timestamp = loadable_timestamp(metadata);
        let timestamp_given = timestamp.is_some();
        self.unread_message_metadata(metadata, path, timestamp_given);
        let had_timestamp = ours(metadata).get("timestamp").is_some();
        match self.builder.target_index(checkpoint, target_kind) {
            Some(target) => {
                let fields = self.builder.message_mut(target);
                let mut given = apply_message_metadata(fields, metadata, timestamp);
                let stamped = fields.contains_key("timestamp");
                given.id = id.is_some();
                for (earlier, replaced) in self.builder.givers(target).land(index, given) {
                    let at = replaced.path(&sibling_path(path, earlier));
                    self.loss(LossKind::Dropped, at, replaced.what());
                }
                if let Some(id) = id {
                    self.builder.set_ui_message_id(target, id);
                }
                if !had_timestamp || !stamped {
                    self.loss(
                        LossKind::Invented,
                        path,
                        "message timestamps (pydantic-ai fills in the load time)",
                    );
                }
            }
            // No history message to keep them on: what the message gives one is lost with it.
            None => {
                if id.is_some() {
                    self.loss(
                        LossKind::Dropped,
                        format!("{path}.id"),
                        "the `id` of a UIMessage that loads as no part",
                    );
                }
                if let Value::Object(metadata) = metadata {
                    for key in metadata
                        .keys()
                        .filter(|key| *key != PROVIDER_METADATA_KEY && *key != INTERNAL_KEY)
                    {
                        self.loss(
                            LossKind::Dropped,
                            crate::loss::key_path(&format!("{path}.metadata"), key),
                            "`metadata` of a UIMessage that loads as no part",
                        );
                    }
                }
                if timestamp_given {
                    self.loss(
                        LossKind::Dropped,
                        format!("{path}.metadata.{PROVIDER_METADATA_KEY}.timestamp"),
                        "the timestamp of a UIMessage that loads as no part",
                    );
                }
            }
        }
        Ok(())
    }

    /// The delta part a `data-*-delta` UI part at `path` loads as ([`delta_from_data`]); what it
    /// leaves out, or the whole part where it loads none, is reported.
    fn delta(&mut self, part: &Value, path: &str, part_type: &str) -> Option<Value> {
        match delta_from_data(part) {
            Some((delta, left_out)) => {
                for within in left_out {
                    self.loss(
                        LossKind::Dropped,
                        format!("{path}.data{within}"),
                        format!(
                            "a value of a `{part_type}` part pydantic-ai does not read (no field of the delta, or not a tool name)"
                        ),
                    );
                }
                Some(delta)
            }
            None => {
                self.loss(
                    LossKind::Dropped,
                    path,
                    format!("a `{part_type}` part whose data pydantic-ai does not load"),
                );
                None
            }
        }
    }

    fn system(&mut self, ui_parts: &[Value], path: &str) -> Result<(), ShapeError> {
        for (index, part) in ui_parts.iter().enumerate() {
            let part_path = format!("{path}[{index}]");
            if get_value(part, "type") != "text" {
                return Err(shape(&part_path, "a system message holds text parts only"));
            }
            let text = text_of(part, &part_path)?;
            // Only a part carrying the marker pydantic-ai dumped it with is harness feedback.
            let claim = get(
                ours(field_of(part, "providerMetadata").unwrap_or(&Value::Null)),
                "retry_feedback",
            );
            self.unread_retry_feedback(claim, &part_path);
            match retry_feedback_from_payload(claim) {
                Some(feedback) => self.builder.add(feedback, true),
                None => self.builder.add(typed_parts::system_prompt(text.to_owned()), true),
            }
        }
        Ok(())
    }

    fn user(&mut self, ui_parts: &[Value], path: &str) -> Result<(), ShapeError> {
        let mut content: Vec<Value> = Vec::new();
        for (index, part) in ui_parts.iter().enumerate() {
            let part_path = format!("{path}[{index}]");
            let part_type = get_value(part, "type").as_str().unwrap_or("");
            let metadata = ours(field_of(part, "providerMetadata").unwrap_or(&Value::Null));
            if matches!(part_type, "text" | "file")
                && !content.is_empty()
                && truthy(get(metadata, USER_PROMPT_START_KEY))
            {
                self.flush_prompt(&mut content);
            }
            match part_type {
                "text" => {
                    let text = text_of(part, &part_path)?;
                    self.unread_retry_feedback(get(metadata, "retry_feedback"), &part_path);
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
                "file" => {
                    self.unread_media_type(part, &part_path);
                    content.push(user_file(part, metadata, &part_path)?);
                }
                super::dump::COMPACTION_DATA_TYPE => {
                    // A summary the application wrote keeps its place among the prompts around it;
                    // a provider's compaction (or a payload that does not validate) is skipped.
                    match compaction_from_payload(part.get("data").unwrap_or(&Value::Null)) {
                        Some(compaction) if is_request_compaction(&compaction) => {
                            self.unread_payload(part, &part_path, "compaction");
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
                    // A settings change goes after the prompt it was recorded behind; the other
                    // deltas go where they are, ahead of the prompt not flushed yet.
                    if let Some(delta) = self.delta(part, &part_path, part_type) {
                        if part_type == "data-model-settings-delta" {
                            self.flush_prompt(&mut content);
                        }
                        self.builder.add(delta, true);
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
        match <[Value; 1]>::try_from(std::mem::take(content)) {
            Ok([Value::String(text)]) => self.builder.add(typed_parts::user_prompt(text), true),
            Ok(items) => self.builder.add(
                object! {"content": Value::Array(items.into()), "part_kind": "user-prompt"},
                true,
            ),
            Err(items) => self.builder.add(
                object! {"content": Value::Array(items), "part_kind": "user-prompt"},
                true,
            ),
        }
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
    fn enqueued_messages(&mut self, part: &mut Value, path: &str) -> Vec<LoadedMessage> {
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
            keep_input: self.keep_input,
        };
        let messages_path = format!("{path}.data.messages");
        match loader.read(messages, &messages_path, 0) {
            Ok(loaded) => {
                self.report.losses.extend(report.losses);
                loaded
            }
            // pydantic-ai loads none of them: all are dropped, for the reason found where it is.
            Err(err) => {
                self.loss(
                    LossKind::Dropped,
                    messages_path,
                    format!(
                        "the enqueued messages of this part, which do not load (at {}: {})",
                        err.path, err.message
                    ),
                );
                Vec::new()
            }
        }
    }

    fn assistant(&mut self, ui_parts: &mut [Value], path: &str) -> Result<(), ShapeError> {
        let mut pending: Vec<Part> = Vec::new();
        // Messages enqueued into the step, delivered after its held-back returns.
        let mut pending_enqueued: Vec<LoadedMessage> = Vec::new();
        let has_steps = ui_parts.iter().any(|part| get_value(part, "type") == "step-start");
        for (index, part) in ui_parts.iter_mut().enumerate() {
            let part_path = format!("{path}[{index}]");
            let part_type = get_value(part, "type").as_str().unwrap_or("").to_owned();
            let part_type = part_type.as_str();
            if !pending.is_empty()
                && (part_type == "step-start" || (!has_steps && matches!(part_type, "text" | "reasoning" | "file")))
            {
                for returned in pending.drain(..) {
                    self.builder.add(returned, true);
                }
                self.builder.append_whole(std::mem::take(&mut pending_enqueued));
            }
            let metadata = ours(field_of(part, "providerMetadata").unwrap_or(&Value::Null)).clone();
            match part_type {
                "text" => {
                    let text = text_of(part, &part_path)?;
                    let details = get(&metadata, "provider_details");
                    let claimed = get(&metadata, "citations");
                    let (citations, left_out) = load_citations(claimed, text);
                    let citations_path = format!("{part_path}.providerMetadata.pydantic_ai.citations");
                    if !claimed.is_null() && !claimed.is_array() {
                        self.loss(
                            LossKind::Dropped,
                            citations_path,
                            "citations pydantic-ai does not load (`load_citations`)",
                        );
                    } else {
                        for within in left_out {
                            let what = if within.ends_with(']') {
                                "a citation pydantic-ai does not load (`load_citations`: it does not validate, or its anchor is past the text)"
                            } else {
                                "a value of a citation its models have no field for"
                            };
                            self.loss(LossKind::Dropped, format!("{citations_path}{within}"), what);
                        }
                    }
                    let details = if details.is_object() {
                        details.clone()
                    } else {
                        Value::Null
                    };
                    let id = get(&metadata, "id");
                    let provider_name = get(&metadata, "provider_name");
                    if id.is_null() && provider_name.is_null() && details.is_null() && citations.is_null() {
                        let ModelResponsePart::Text(mut part) = typed_parts::text(self.take_text(part)) else {
                            unreachable!("a text part")
                        };
                        part.id = Field::Null;
                        part.provider_name = Field::Null;
                        part.provider_details = Field::Null;
                        part.citations = Field::Null;
                        self.builder.add(ModelResponsePart::Text(part), false);
                    } else {
                        self.builder.add(
                            object! {"content": text, "id": id.clone(), "provider_name": provider_name.clone(),
                            "provider_details": details, "citations": citations, "part_kind": "text"},
                            false,
                        );
                    }
                    self.builder
                        .restore_canonical_system(get(&metadata, "provider_name"), get(&metadata, "canonical_system"));
                }
                "reasoning" => {
                    text_of(part, &part_path)?;
                    let signature = if get_value(part, "state") == "streaming" {
                        Value::Null
                    } else {
                        get(&metadata, "signature").clone()
                    };
                    let text = self.take_text(part);
                    let (id, provider_name) = (get(&metadata, "id"), get(&metadata, "provider_name"));
                    let typed = (
                        typed_parts::nullable_text(id),
                        typed_parts::nullable_text(&signature),
                        typed_parts::nullable_text(provider_name),
                    );
                    match typed {
                        (Some(id), Some(signature), Some(provider_name))
                            if get(&metadata, "provider_details").is_null() =>
                        {
                            self.builder
                                .add(typed_parts::thinking(text, id, signature, provider_name), false);
                        }
                        _ => self.builder.add(
                            object! {"content": text, "id": id.clone(), "signature": signature,
                            "provider_name": provider_name.clone(),
                            "provider_details": get(&metadata, "provider_details").clone(),
                            "part_kind": "thinking"},
                            false,
                        ),
                    }
                    self.builder
                        .restore_canonical_system(get(&metadata, "provider_name"), get(&metadata, "canonical_system"));
                }
                "file" => {
                    self.unread_media_type(part, &part_path);
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
                            self.unread_payload(part, &part_path, "compaction");
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
                    match self.delta(part, &part_path, part_type) {
                        // A settings change is streamed at the start of the request recording it:
                        // at its end, after the messages enqueued into the step if there are any.
                        Some(delta) if part_type == "data-model-settings-delta" && !pending_enqueued.is_empty() => {
                            pending_enqueued.push(object! {"parts": vec![delta], "kind": "request"}.into());
                        }
                        // Streamed after the tool return that caused it (a settings change at the
                        // start of the request recording it): it waits with the step's returns.
                        Some(delta) if part_type != "data-model-settings-delta" || !pending.is_empty() => {
                            pending.push(delta.into());
                        }
                        Some(delta) => self.builder.add(delta, true),
                        None => {}
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
}

/// The delta part a `data-*-delta` UI part loads as (`*_from_payload`), or `None` when pydantic-ai
/// skips it, and the paths within its `data` of what it leaves out.
fn delta_from_data(part: &Value) -> Option<(Value, Vec<String>)> {
    let payload = part.get("data")?.as_object()?;
    match part["type"].as_str()? {
        "data-tool-availability-delta" => Some(tool_availability_delta_from_payload(payload)),
        "data-capability-load-delta" => capability_load_delta_from_payload(payload)
            .map(|delta| (delta, payload_left_out(payload, "capability-load-delta"))),
        _ => model_settings_delta_from_payload(payload)
            .map(|delta| (delta, payload_left_out(payload, "model-settings-delta"))),
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
    field_of(part, "text")
        .and_then(Value::as_str)
        .ok_or_else(|| shape(&format!("{path}.text"), "expected the part's `text` as a string"))
}
