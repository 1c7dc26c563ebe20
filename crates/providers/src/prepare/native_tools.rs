//! Native (server-side) tool parts: how each provider's mapping receives them.

use super::form::{
    BuiltinItem, BuiltinTool, NativeBlock, NativeResultKind, NativeToolPart, Profile, ResponseItem, ThinkingMode,
};
use super::rendering::{args_as_dict, redumped, redumped_map, tool_call_id};
use super::replay::Replay;
use super::thinking::{accepts_stateless_artifact, truthy};
use super::tool_search::{native_tool_search_kept, native_tool_search_kind, STATELESS_NATIVE_TOOLS, TOOL_SEARCH};
use crate::tool_content::holds_file_item;
use crate::{ExportError, PartLocation};
use msgflow_wire::{Field, ModelResponse};
use serde_json::{Map, Value};

impl NativeToolPart<'_> {
    /// The refusal of this part for `reason` (``a server-side tool part (`web_search` call) ...``).
    pub(super) fn refusal(self, at: PartLocation, path: &str, reason: &str) -> ExportError {
        ExportError::unsupported(
            at,
            path,
            &format!("a server-side tool part (`{}` {}) {reason}", self.name(), self.noun()),
        )
    }

    /// pydantic-ai's own failure on the part (it raises when it maps it).
    pub(super) fn failure(self, at: PartLocation, path: &str, reason: &str) -> ExportError {
        ExportError::refused(
            at,
            path,
            format!("a server-side tool part (`{}` {})", self.name(), self.noun()),
            reason.to_owned(),
        )
    }

    /// What the part is, for a refusal.
    pub(super) fn noun(self) -> &'static str {
        match self {
            NativeToolPart::Call(_) => "call",
            NativeToolPart::Return(_) => "return",
        }
    }

    pub(super) fn name(&self) -> &str {
        match self {
            NativeToolPart::Call(call) => &call.tool_name,
            NativeToolPart::Return(result) => &result.tool_name,
        }
    }

    pub(super) fn provider_name(&self) -> Option<&String> {
        match self {
            NativeToolPart::Call(call) => call.provider_name.get(),
            NativeToolPart::Return(result) => result.provider_name.get(),
        }
    }

    pub(super) fn tool_call_id(&self) -> &Field<String> {
        match self {
            NativeToolPart::Call(call) => &call.tool_call_id,
            NativeToolPart::Return(result) => &result.tool_call_id,
        }
    }

    /// `add_anthropic_caller_param`: `provider_details['anthropic_caller']`, re-emitted as it is
    /// when it is an object.
    pub(super) fn anthropic_caller(&self) -> Option<Map<String, Value>> {
        let details = match self {
            NativeToolPart::Call(call) => &call.provider_details,
            NativeToolPart::Return(result) => &result.provider_details,
        };
        match details
            .get()?
            .try_to_value()
            .ok()?
            .get_mut("anthropic_caller")
            .map(Value::take)?
        {
            Value::Object(caller) => Some(redumped_map(&caller).unwrap_or(caller)),
            _ => None,
        }
    }
}

/// `get_anthropic_code_execution_tool_name`: the code execution tool a part is of, by the
/// `anthropic_tool_name` its provider details record, its own name, or (a result's) the `type` of
/// its content.
pub(super) fn anthropic_code_execution_tool(part: NativeToolPart<'_>, content: Option<&Value>) -> &'static str {
    const TOOLS: [&str; 3] = ["code_execution", "bash_code_execution", "text_editor_code_execution"];
    let details = match part {
        NativeToolPart::Call(call) => &call.provider_details,
        NativeToolPart::Return(result) => &result.provider_details,
    };
    let recorded = details
        .get()
        .and_then(|details| details.try_to_value().ok())
        .and_then(|details| {
            details
                .get("anthropic_tool_name")
                .and_then(Value::as_str)
                .map(str::to_owned)
        });
    if let Some(tool) = recorded.and_then(|name| TOOLS.into_iter().find(|tool| *tool == name)) {
        return tool;
    }
    if let Some(tool) = TOOLS[1..].iter().find(|tool| **tool == part.name()) {
        return tool;
    }
    match content.and_then(|content| content.get("type")).and_then(Value::as_str) {
        Some(kind) if kind.starts_with("bash_code_execution") => "bash_code_execution",
        Some(kind) if kind.starts_with("text_editor_code_execution") => "text_editor_code_execution",
        _ => "code_execution",
    }
}

/// `MCPServerTool.kind`: an MCP server's tool is `mcp_server:<server id>`.
pub(super) const MCP_SERVER: &str = "mcp_server";

/// A server-side (builtin) tool call or return: left out where the mapping does not replay it,
/// sent back as the provider's block or item where it does ([`anthropic_native_block`],
/// [`openai_builtin_item`]); a typed tool search goes as [`native_tool_search_kept`] says, and a
/// base part named `tool_search` and the corners pydantic-ai fails on are refused.
///
/// * Anthropic (`_replays_native_tool_part`): a stateless tool's part goes back when the model takes
///   the response's stateless artifacts, any other only to Anthropic itself.
/// * OpenAI Chat (`_map_response_builtin_part`): never sent.
/// * OpenAI Responses (`_map_response_native_tool_call_part` and `..._return_part`): a part goes
///   back with its item id when it is OpenAI's own from this endpoint (`should_send_item_id`), and
///   a tool search also to a model taking its stateless artifacts.
pub(super) fn native_tool_part(
    response: &ModelResponse,
    part: NativeToolPart<'_>,
    at: PartLocation,
    path: &str,
    profile: Profile,
    replay: Replay,
    when_mapped: &mut Vec<ExportError>,
) -> Result<Option<ResponseItem>, ExportError> {
    if let Some(kind) = native_tool_search_kind(part, at, path)? {
        return native_tool_search_kept(response, part, kind, at, path, profile);
    }
    let tool_name = part.name();
    let provider_name = part.provider_name();
    let accepts = || accepts_stateless_artifact(response, provider_name, profile.system);
    let replayed = match profile.thinking {
        ThinkingMode::Anthropic => {
            if STATELESS_NATIVE_TOOLS.contains(&tool_name) {
                accepts()
            } else {
                provider_name.map(String::as_str) == Some(profile.system)
            }
        }
        ThinkingMode::OpenAiChat => false,
        ThinkingMode::OpenAiResponses => {
            let own = replay.should_send_item_id(response, provider_name, profile);
            own || (tool_name == TOOL_SEARCH && accepts())
        }
    };
    if !replayed {
        return Ok(None);
    }
    // A base part named `tool_search` (no typed `tool-search` kind, which `native_tool_search_kept`
    // handles) that the mapping replays: `_synthesize_local_response` leaves it alone and the
    // mappings send it by its name, which msgflow does not rebuild. One left out is left out.
    if tool_name == TOOL_SEARCH {
        return Err(ExportError::unsupported(
            at,
            path,
            &format!("a server-side tool part (`{tool_name}`) pydantic-ai sends back to this provider"),
        ));
    }
    let mapped = match profile.thinking {
        ThinkingMode::Anthropic => anthropic_native_block(part, at, path),
        ThinkingMode::OpenAiResponses => openai_builtin_item(part, at, path),
        ThinkingMode::OpenAiChat => Err(ExportError::unsupported(
            at,
            path,
            &format!("a server-side tool part (`{tool_name}`) pydantic-ai sends back to this provider"),
        )),
    };
    // pydantic-ai fails on such a part in the mapping (`_map_native_tool_call_part`,
    // `_map_response_native_tool_call_part`, ...), which a part the trim before a compaction
    // drops never reaches: the refusal waits for the trim ([`PreparedHistory`]'s caller).
    mapped.or_else(|refusal| {
        when_mapped.push(refusal);
        Ok(None)
    })
}

/// `_map_stateful_native_tool_call` and the `should_send_item_id` branch of
/// `_map_response_native_tool_return_part` (OpenAI Responses), for OpenAI's own part from this
/// endpoint, with the default settings (`store` not disabled, so an image generation call goes back).
pub(super) fn openai_builtin_item(
    part: NativeToolPart<'_>,
    at: PartLocation,
    path: &str,
) -> Result<Option<ResponseItem>, ExportError> {
    let tool_name = part.name();
    let refuse = |reason: &str| Err(part.refusal(at, path, reason));
    let call = match part {
        NativeToolPart::Return(result) => {
            let tool = match tool_name {
                "code_execution" => BuiltinTool::CodeExecution,
                "web_search" => BuiltinTool::WebSearch,
                "file_search" => BuiltinTool::FileSearch,
                // An image generation or MCP result, or any other, sends nothing.
                _ => return Ok(None),
            };
            let Ok(content) = result.content.try_to_value() else {
                return refuse("whose content serde_json cannot read");
            };
            let status = content.get("status").filter(|status| truthy(status)).cloned();
            return Ok(status.map(|status| {
                ResponseItem::Builtin(BuiltinItem::Status {
                    tool,
                    status: redumped(&status).unwrap_or(status),
                })
            }));
        }
        NativeToolPart::Call(call) => call,
    };
    let mcp_server = tool_name.strip_prefix(MCP_SERVER);
    let known = matches!(
        tool_name,
        "code_execution" | "web_search" | "file_search" | "image_generation"
    );
    if !known && mcp_server.is_none() {
        return Ok(None);
    }
    // Every branch needs the call's id (`item.tool_call_id and ...`): an empty one sends nothing,
    // a missing one is a random id pydantic-ai makes up.
    if call.tool_call_id.get().is_some_and(String::is_empty) {
        return Ok(None);
    }
    let tool_call_id = tool_call_id(&call.tool_call_id, at, path)?;
    if mcp_server.is_some_and(|rest| !rest.contains(':')) {
        // `item.tool_name.split(':', 1)[1]`, read before the arguments, raises an `IndexError`.
        return Err(part.failure(
            at,
            path,
            "it is named `mcp_server` without a server id, and `tool_name.split(':', 1)[1]` raises an `IndexError`",
        ));
    }
    // `item.id or item.tool_call_id`.
    let item_id = || {
        call.id
            .get()
            .filter(|id| !id.is_empty())
            .cloned()
            .unwrap_or_else(|| tool_call_id.clone())
    };
    let Some(mut args) = args_as_dict(&call.args) else {
        return refuse("with arguments holding `NaN` or `Infinity`, which pydantic-ai reads as floats and the SDK writes differently");
    };
    let python = |value: Value| redumped(&value).unwrap_or(value);
    let item = match tool_name {
        "image_generation" => BuiltinItem::ImageGenerationCall { id: tool_call_id },
        // The other branches need arguments (`and (args := item.args_as_dict())`).
        _ if args.is_empty() => return Ok(None),
        "code_execution" => {
            let Some(container_id) = args.remove("container_id").filter(truthy) else {
                return Ok(None);
            };
            BuiltinItem::CodeInterpreterCall {
                id: tool_call_id,
                code: python(args.remove("code").unwrap_or(Value::Null)),
                container_id: python(container_id),
            }
        }
        "web_search" => BuiltinItem::WebSearchCall {
            id: item_id(),
            action: args
                .into_iter()
                .filter(|(_, value)| !value.is_null())
                .map(|(key, value)| (key, python(value)))
                .collect(),
        },
        "file_search" => BuiltinItem::FileSearchCall {
            id: item_id(),
            queries: python(args.remove("queries").unwrap_or_else(|| Value::Array(Vec::new()))),
        },
        _ => {
            // Refused above without the colon.
            let Some((_, server_label)) = mcp_server.and_then(|rest| rest.split_once(':')) else {
                return Ok(None);
            };
            if server_label.is_empty() {
                return Ok(None);
            }
            let server_label = server_label.to_owned();
            match args.get("action") {
                Some(Value::String(action)) if action == "list_tools" => BuiltinItem::McpListTools {
                    id: tool_call_id,
                    server_label,
                },
                Some(Value::String(action)) if action == "call_tool" => {
                    let name = match args.remove("tool_name") {
                        Some(Value::String(name)) if !name.is_empty() => name,
                        Some(value) if truthy(&value) => return refuse("whose `tool_name` argument is not a string"),
                        _ => return Ok(None),
                    };
                    let tool_args = match args.remove("tool_args") {
                        None | Some(Value::Null) => return Ok(None),
                        Some(value) => python(value),
                    };
                    BuiltinItem::McpCall {
                        id: tool_call_id,
                        server_label,
                        name,
                        arguments: serde_json::to_string(&tool_args).expect("a serde_json::Value always serialises"),
                    }
                }
                _ => return Ok(None),
            }
        }
    };
    Ok(Some(ResponseItem::Builtin(item)))
}

/// `_map_native_tool_call_part` and `_map_native_tool_return_part` (Anthropic), for a part
/// `_replays_native_tool_part` sends back, without native tools in the request (so no advisor).
pub(super) fn anthropic_native_block(
    part: NativeToolPart<'_>,
    at: PartLocation,
    path: &str,
) -> Result<Option<ResponseItem>, ExportError> {
    let tool_name = part.name();
    let refuse = |reason: &str| Err(part.refusal(at, path, reason));
    let mcp_server = tool_name.strip_prefix(MCP_SERVER);
    match part {
        NativeToolPart::Call(call) => {
            let input = || {
                args_as_dict(&call.args).ok_or_else(|| {
                    ExportError::unsupported(
                        at,
                        &format!("{path}.args"),
                        "tool arguments holding `NaN` or `Infinity`, which pydantic-ai reads as floats and the SDKs write differently",
                    )
                })
            };
            let name = match tool_name {
                "web_search" => "web_search",
                "web_fetch" => "web_fetch",
                "code_execution" | "bash_code_execution" | "text_editor_code_execution" => {
                    anthropic_code_execution_tool(part, None)
                }
                // `if not map_context.advisor_active: return`: no advisor tool in the request.
                "advisor" => return Ok(None),
                _ => {
                    if mcp_server.is_some_and(|rest| !rest.contains(':')) {
                        // `part.tool_name.split(':', 1)[1]` raises an `IndexError`.
                        return Err(part.failure(
            at,
            path,
            "it is named `mcp_server` without a server id, and `tool_name.split(':', 1)[1]` raises an `IndexError`",
        ));
                    }
                    let server_id = mcp_server.and_then(|rest| rest.split_once(':')).map(|(_, id)| id);
                    // The `mcp_tool_use` block of a call whose arguments name the server's tool
                    // (`tool_name`) and hold its arguments (`tool_args`); any other call sends nothing.
                    let Some(server_name) = server_id.filter(|id| !id.is_empty()) else {
                        return Ok(None);
                    };
                    let mut args = input()?;
                    let name = match args.remove("tool_name") {
                        Some(Value::String(name)) if !name.is_empty() => name,
                        Some(value) if truthy(&value) => {
                            return refuse("whose `tool_name` argument is not a string");
                        }
                        _ => return Ok(None),
                    };
                    let tool_args = match args.remove("tool_args") {
                        None | Some(Value::Null) => return Ok(None),
                        Some(value) => redumped(&value).unwrap_or(value),
                    };
                    return Ok(Some(ResponseItem::Native(NativeBlock::McpToolUse {
                        id: tool_call_id(&call.tool_call_id, at, path)?,
                        server_name: server_name.to_owned(),
                        name,
                        input: tool_args,
                    })));
                }
            };
            Ok(Some(ResponseItem::Native(NativeBlock::ServerToolUse {
                id: tool_call_id(part.tool_call_id(), at, path)?,
                name,
                input: input()?,
                caller: part.anthropic_caller(),
            })))
        }
        NativeToolPart::Return(result) => {
            let content = match result.content.try_to_value() {
                Ok(content) => redumped(&content).unwrap_or(content),
                Err(_) => return refuse("whose content serde_json cannot read"),
            };
            // An object with a file `kind` may load as a file item (`_RecordsContentFiles`), which
            // the SDK would then write as its own type, not as recorded.
            if holds_file_item(&content) {
                return refuse("holding an object with a file `kind`, which pydantic-ai may load as a file");
            }
            let kind = match tool_name {
                "web_search" | "web_search_tool_result" if content.is_object() || content.is_array() => {
                    NativeResultKind::WebSearch
                }
                "web_fetch" if content.is_object() => NativeResultKind::WebFetch,
                // `build_code_execution_tool_result_block`: the block of the tool variant, no caller.
                "code_execution"
                | "code_execution_tool_result"
                | "bash_code_execution"
                | "text_editor_code_execution"
                    if content.is_object() || content.is_array() =>
                {
                    let kind = match anthropic_code_execution_tool(part, Some(&content)) {
                        "bash_code_execution" => NativeResultKind::BashCodeExecution,
                        "text_editor_code_execution" => NativeResultKind::TextEditorCodeExecution,
                        _ => NativeResultKind::CodeExecution,
                    };
                    return Ok(Some(ResponseItem::Native(NativeBlock::ToolResult {
                        kind,
                        tool_use_id: tool_call_id(&result.tool_call_id, at, path)?,
                        content,
                        caller: None,
                    })));
                }
                _ => {
                    // `part.tool_name.startswith(MCPServerTool.kind) and isinstance(part.content, dict)`.
                    let Some(mut mcp_content) = mcp_server.and_then(|_| content.as_object().cloned()) else {
                        // Any other result, and one whose content is not of its block's shape,
                        // sends nothing.
                        return Ok(None);
                    };
                    // `mcp_content['content']` and `['is_error']`: a `KeyError` without them.
                    let (Some(content), Some(is_error)) =
                        (mcp_content.remove("content"), mcp_content.remove("is_error"))
                    else {
                        return Err(part.failure(
                            at,
                            path,
                            "it lacks the `content` and `is_error` pydantic-ai reads, and its mapping fails",
                        ));
                    };
                    return Ok(Some(ResponseItem::Native(NativeBlock::McpToolResult {
                        tool_use_id: tool_call_id(&result.tool_call_id, at, path)?,
                        content,
                        is_error,
                    })));
                }
            };
            Ok(Some(ResponseItem::Native(NativeBlock::ToolResult {
                kind,
                tool_use_id: tool_call_id(&result.tool_call_id, at, path)?,
                content,
                caller: part.anthropic_caller(),
            })))
        }
    }
}
