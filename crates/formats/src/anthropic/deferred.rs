//! What a request holds when it defers tools (`defer_loading`, on a model that reveals them by
//! reference, as `claude-opus-4-8` does): a local tool search's result as `tool_reference` blocks
//! (`build_custom_tool_search_replay_blocks`), and the tools a request reveals as `tool_addition`
//! blocks of a `system` entry after its user turn (`_map_tool_availability_delta_part`,
//! `_append_model_request_turns`), beside the request's mid-conversation system prompts.

use serde_json::{json, Value};

use super::Reader;
use crate::loss::LossKind;
use crate::openai_chat::{shape, ShapeError};

/// The `tool_kind` of pydantic-ai's typed tool search parts (`TOOL_SEARCH_KIND`).
pub(super) const TOOL_SEARCH_KIND: &str = "tool-search";

/// Whether a `tool_result`'s content is a tool search's references (its first block a
/// `tool_reference`), to be read by [`Reader::discovered_tools`].
pub(super) fn holds_tool_references(content: &Value) -> bool {
    content
        .as_array()
        .and_then(|blocks| blocks.first())
        .and_then(|block| block.get("type"))
        .is_some_and(|kind| kind == "tool_reference")
}

impl Reader<'_> {
    /// A `tool_result`'s `tool_reference` blocks as the `ToolSearchReturnPart` content they were
    /// made of: `{"discovered_tools": [{"name": ...}, ...]}` (`ToolSearchMatch` holds only the name).
    pub(super) fn discovered_tools(&mut self, content: &Value, path: &str) -> Result<Value, ShapeError> {
        let blocks = content.as_array().map_or(&[][..], Vec::as_slice);
        let mut discovered = Vec::with_capacity(blocks.len());
        for (index, block) in blocks.iter().enumerate() {
            let block_path = format!("{path}[{index}]");
            match (block.get("type").and_then(Value::as_str), block.get("tool_name")) {
                (Some("tool_reference"), Some(Value::String(name))) => {
                    self.extra_keys(block, &block_path, &["type", "tool_name"]);
                    discovered.push(json!({"name": name}));
                }
                (Some("tool_reference"), _) => {
                    return Err(shape(
                        &format!("{block_path}.tool_name"),
                        "expected a tool reference's `tool_name` as a string",
                    ))
                }
                _ => {
                    return Err(shape(
                        &block_path,
                        "expected a `tool_reference` block: a tool search's result holds only references",
                    ))
                }
            }
        }
        Ok(json!({"discovered_tools": discovered}))
    }

    /// Marks the call `id` that a tool search's references answer as the search
    /// (`ToolSearchCallPart`: `search_tools` with a `tool_kind` of `tool-search`), where its
    /// arguments are the search's (`ToolSearchArgs`): pydantic-ai refuses a typed call of others.
    pub(super) fn mark_search_call(&mut self, id: &str) {
        let calls = self
            .history
            .iter_mut()
            .rev()
            .filter(|message| message["kind"] == "response")
            .flat_map(|message| message["parts"].as_array_mut().into_iter().flatten());
        for call in calls {
            if call["part_kind"] == "tool-call" && call["tool_call_id"] == id {
                let probe = json!({"part_kind": "tool-call", "tool_kind": TOOL_SEARCH_KIND, "args": call["args"]});
                let (kind, _) = crate::ui_payloads::narrowed(&probe, "args");
                if !kind.is_null() {
                    call["tool_kind"] = kind;
                }
                return;
            }
        }
    }

    /// A `system` entry in the messages: its text blocks are mid-conversation system prompts and
    /// its `tool_addition` blocks the tools a `ToolAvailabilityDeltaPart` revealed, of the request
    /// whose user turn it follows (a request of its own after a response). `path` is the entry's.
    pub(super) fn system_entry(&mut self, content: &Value, path: &str) -> Result<(), ShapeError> {
        let content_path = format!("{path}.content");
        let Value::Array(blocks) = content else {
            return Err(shape(
                &content_path,
                "expected a system entry's content as an array of blocks",
            ));
        };
        let mut parts = Vec::new();
        let mut added = Vec::new();
        for (index, block) in blocks.iter().enumerate() {
            let block_path = format!("{content_path}[{index}]");
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = self.text_block(block, &block_path)?;
                    parts.push(json!({"part_kind": "system-prompt", "content": text}));
                }
                Some("tool_addition") => {
                    self.extra_keys(block, &block_path, &["type", "tool"]);
                    let tool = block.get("tool").unwrap_or(&Value::Null);
                    let (Some("tool_reference"), Some(Value::String(name))) =
                        (tool.get("type").and_then(Value::as_str), tool.get("name"))
                    else {
                        return Err(shape(
                            &format!("{block_path}.tool"),
                            "expected `{\"type\": \"tool_reference\", \"name\": ...}`",
                        ));
                    };
                    self.extra_keys(tool, &format!("{block_path}.tool"), &["type", "name"]);
                    added.push(Value::String(name.clone()));
                }
                _ => {
                    return Err(shape(
                        &format!("{block_path}.type"),
                        "expected a text or tool_addition block in a system entry",
                    ))
                }
            }
        }
        // One delta in the history for the entry's additions: the request's deltas are rendered
        // together, each tool once (`rendered_tool_additions`), so which part named which is lost.
        if !added.is_empty() {
            parts.push(json!({"part_kind": "tool-availability-delta", "tools_added": added}));
        }
        match self.history.last_mut() {
            Some(request) if request["kind"] == "request" => {
                if let Some(existing) = request["parts"].as_array_mut() {
                    existing.extend(parts);
                }
            }
            _ => {
                self.loss(
                    LossKind::Invented,
                    path,
                    "request timestamps (pydantic-ai fills in the load time)",
                );
                self.history.push(json!({"kind": "request", "parts": parts}));
            }
        }
        Ok(())
    }
}
