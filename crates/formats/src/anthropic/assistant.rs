//! An assistant turn's blocks read as `AnthropicModel._process_response` maps them to parts:
//! text with web search citations (`map_citations`), thinking, tool use, and the server-side tools'
//! blocks (`map_server_tool_use_block`, `map_web_search_tool_result_block`, ...).

use serde_json::{json, Map, Value};

use super::{Reader, SYSTEM};
use crate::loss::LossKind;
use crate::openai_chat::{shape, ShapeError};

impl Reader<'_> {
    /// An assistant turn's blocks as `_process_response` maps them to parts.
    pub(super) fn assistant(&mut self, content: &Value, path: &str) -> Result<Vec<Value>, ShapeError> {
        let blocks = match content {
            // A prefill, or an assistant message written as plain text.
            Value::String(text) => return Ok(vec![json!({"part_kind": "text", "content": text})]),
            Value::Array(blocks) => blocks,
            _ => {
                return Err(shape(
                    path,
                    "expected the content as a string or an array of content blocks",
                ))
            }
        };
        let mut parts = Vec::with_capacity(blocks.len());
        for (index, block) in blocks.iter().enumerate() {
            let block_path = format!("{path}[{index}]");
            let Some(kind) = block.get("type").and_then(Value::as_str) else {
                return Err(shape(&block_path, "expected a content block with a `type`"));
            };
            let field = |key: &str| block.get(key).unwrap_or(&Value::Null);
            let string = |key: &str| match block.get(key) {
                Some(Value::String(text)) => Ok(text.clone()),
                _ => Err(shape(
                    &format!("{block_path}.{key}"),
                    format!("expected `{key}` as a string"),
                )),
            };
            let part = match kind {
                "text" => {
                    self.extra_keys(block, &block_path, &["type", "text", "citations"]);
                    let text = string("text")?;
                    self.text_part(text, field("citations"), &block_path)?
                }
                "thinking" => {
                    self.extra_keys(block, &block_path, &["type", "thinking", "signature"]);
                    json!({
                        "part_kind": "thinking", "content": string("thinking")?, "signature": string("signature")?,
                        "provider_name": SYSTEM,
                    })
                }
                "redacted_thinking" => {
                    self.extra_keys(block, &block_path, &["type", "data"]);
                    json!({
                        "part_kind": "thinking", "id": "redacted_thinking", "content": "", "signature": string("data")?,
                        "provider_name": SYSTEM,
                    })
                }
                "tool_use" => {
                    self.extra_keys(block, &block_path, &["type", "id", "name", "input"]);
                    let (id, name) = (string("id")?, string("name")?);
                    let input = object_input(field("input"), &block_path)?;
                    self.call_names.insert(id.clone(), name.clone());
                    json!({"part_kind": "tool-call", "tool_name": name, "args": input, "tool_call_id": id})
                }
                "server_tool_use" => {
                    self.extra_keys(block, &block_path, &["type", "id", "name", "input", "caller"]);
                    let (id, name) = (string("id")?, string("name")?);
                    let input = object_input(field("input"), &block_path)?;
                    let part = match tool_search_query_key(&name) {
                        Some(query_key) => self.tool_search_call(&id, &name, input, query_key, field("caller"), &block_path),
                        None => server_tool_call(&id, &name, input, field("caller"), &block_path)?,
                    };
                    self.call_names.insert(id, part["tool_name"].as_str().unwrap_or_default().to_owned());
                    part
                }
                "mcp_tool_use" => {
                    // `map_mcp_server_use_block`.
                    self.extra_keys(block, &block_path, &["type", "id", "name", "server_name", "input"]);
                    let (id, name, server) = (string("id")?, string("name")?, string("server_name")?);
                    let tool_name = format!("mcp_server:{server}");
                    self.call_names.insert(id.clone(), tool_name.clone());
                    json!({
                        "part_kind": "builtin-tool-call", "tool_name": tool_name, "tool_call_id": id,
                        "args": {"action": "call_tool", "tool_name": name, "tool_args": field("input")},
                        "provider_name": SYSTEM,
                    })
                }
                "mcp_tool_result" => {
                    // `map_mcp_server_result_block`: the call's tool name, `content` and `is_error`.
                    self.extra_keys(block, &block_path, &["type", "tool_use_id", "content", "is_error"]);
                    let id = string("tool_use_id")?;
                    let tool_name = self.call_names.get(&id).cloned().unwrap_or_else(|| "mcp_server".to_owned());
                    json!({
                        "part_kind": "builtin-tool-return", "tool_name": tool_name, "tool_call_id": id,
                        "content": {"content": field("content"), "is_error": field("is_error")},
                        "provider_name": SYSTEM,
                    })
                }
                "web_search_tool_result"
                | "web_fetch_tool_result"
                | "code_execution_tool_result"
                | "bash_code_execution_tool_result"
                | "text_editor_code_execution_tool_result"
                | "advisor_tool_result" => {
                    self.extra_keys(block, &block_path, &["type", "tool_use_id", "content", "caller"]);
                    server_tool_result(kind, string("tool_use_id")?, field("content"), field("caller"))
                }
                "compaction" => {
                    // `CompactionPart` with `compaction_provider_details`.
                    self.extra_keys(block, &block_path, &["type", "content", "encrypted_content", "signature"]);
                    let mut details = Map::new();
                    for key in ["encrypted_content", "signature"] {
                        if let Some(value) = block.get(key).filter(|value| !value.is_null()) {
                            details.insert(key.to_owned(), value.clone());
                        }
                    }
                    json!({
                        "part_kind": "compaction", "content": field("content"), "provider_name": SYSTEM,
                        "provider_details": if details.is_empty() { Value::Null } else { Value::Object(details) },
                    })
                }
                "tool_search_tool_result" => {
                    self.extra_keys(block, &block_path, &["type", "tool_use_id", "content"]);
                    self.tool_search_result(string("tool_use_id")?, field("content"), &block_path)?
                }
                other => {
                    return Err(shape(
                        &format!("{block_path}.type"),
                        format!(
                            "unknown assistant block type `{other}`: expected text, thinking, redacted_thinking, \
                             tool_use, server_tool_use, a server tool's result, mcp_tool_use, mcp_tool_result or compaction"
                        ),
                    ))
                }
            };
            parts.push(part);
        }
        Ok(parts)
    }

    /// `_map_text_block`: a text citing web search results keeps them (`map_citations`,
    /// `citations_provider_details`); other citations are dropped.
    fn text_part(&mut self, text: String, citations: &Value, path: &str) -> Result<Value, ShapeError> {
        let citations = match citations {
            Value::Null => return Ok(json!({"part_kind": "text", "content": text})),
            Value::Array(citations) if citations.is_empty() => {
                return Ok(json!({"part_kind": "text", "content": text}))
            }
            Value::Array(citations) => citations,
            _ => {
                return Err(shape(
                    &format!("{path}.citations"),
                    "expected the citations as an array",
                ))
            }
        };
        let mut sources = Vec::new();
        let mut kept = Vec::new();
        for (index, citation) in citations.iter().enumerate() {
            if citation.get("type").and_then(Value::as_str) != Some("web_search_result_location") {
                self.loss(
                    LossKind::Dropped,
                    format!("{path}.citations[{index}]"),
                    "a citation of a document (pydantic-ai sends only web search citations back)",
                );
                continue;
            }
            let cited = citation.get("cited_text").and_then(Value::as_str).unwrap_or_default();
            let excerpts: Vec<&str> = if cited.is_empty() { Vec::new() } else { vec![cited] };
            sources.push(json!({
                "kind": "web", "url": citation.get("url").unwrap_or(&Value::Null),
                "title": citation.get("title").unwrap_or(&Value::Null), "excerpts": excerpts,
            }));
            kept.push(citation.clone());
        }
        if sources.is_empty() {
            return Ok(json!({"part_kind": "text", "content": text}));
        }
        // Anthropic cites whole blocks: the citation covers the whole part (in code points, as
        // Python counts `len(text)`).
        let end = text.chars().count();
        let anchor = if end == 0 {
            Value::Null
        } else {
            json!({"kind": "content", "start": 0, "end": end})
        };
        Ok(json!({
            "part_kind": "text", "content": text, "provider_name": SYSTEM,
            "provider_details": {"citations": kept},
            "citations": [{"sources": sources, "anchor": anchor}],
        }))
    }
}

impl Reader<'_> {
    /// `map_server_tool_use_block` of a tool search (`tool_search_tool_regex` / `_bm25`): a
    /// `NativeToolSearchCallPart` whose arguments are `normalize_tool_search_args`'s
    /// `{"queries": [...]}` (the pattern or query when it is a string, none when it is another
    /// value, an empty one when it is missing) and whose
    /// `provider_details` keep the variant as `strategy`. Any other input key is reported: the
    /// typed arguments have no place for it.
    fn tool_search_call(
        &mut self,
        id: &str,
        name: &str,
        input: &Value,
        query_key: &str,
        caller: &Value,
        path: &str,
    ) -> Value {
        // `(tool_args or {}).get(wire_key, '')`: no query at all is one empty query.
        let mut queries = Vec::new();
        if input.get(query_key).is_none() {
            self.loss(
                LossKind::Invented,
                format!("{path}.input"),
                format!("an empty query for a `{name}` input without `{query_key}` (as pydantic-ai reads it)"),
            );
            queries.push(String::new());
        }
        for (key, value) in input.as_object().into_iter().flatten() {
            match value {
                Value::String(query) if key == query_key => queries.push(query.clone()),
                _ => self.loss(
                    LossKind::Dropped,
                    format!("{path}.input.{key}"),
                    format!(
                        "`{key}` of a `{name}` input (pydantic-ai keeps its `{query_key}` as a string only, as `queries`)"
                    ),
                ),
            }
        }
        let strategy = if name == "tool_search_tool_regex" {
            "regex"
        } else {
            "bm25"
        };
        let mut details = Map::new();
        details.insert("strategy".to_owned(), json!(strategy));
        details.extend(caller_details(caller));
        json!({
            "part_kind": "builtin-tool-call", "tool_name": TOOL_SEARCH, "args": {"queries": queries},
            "tool_call_id": id, "tool_kind": TOOL_SEARCH_KIND, "provider_name": SYSTEM,
            "provider_details": details,
        })
    }

    /// `map_tool_search_tool_result_block`: a `NativeToolSearchReturnPart` whose content is the
    /// names of the tools referenced (`{"discovered_tools": [{"name": ...}]}`), or, for an error,
    /// no tools and the error's `error_code` and `error_message` as `provider_details`.
    fn tool_search_result(&mut self, id: String, content: &Value, path: &str) -> Result<Value, ShapeError> {
        let content_path = format!("{path}.content");
        let mut discovered = Vec::new();
        let mut details = Value::Null;
        match content.get("type").and_then(Value::as_str) {
            Some("tool_search_tool_search_result") => {
                self.extra_keys(content, &content_path, &["type", "tool_references"]);
                // Required by the API (`BetaToolSearchToolSearchResultBlockParam`), an empty list
                // when the search found nothing.
                let Some(Value::Array(references)) = content.get("tool_references") else {
                    return Err(shape(
                        &format!("{content_path}.tool_references"),
                        "expected the result's `tool_references` as an array",
                    ));
                };
                for (index, reference) in references.iter().enumerate() {
                    let reference_path = format!("{content_path}.tool_references[{index}]");
                    let Some(Value::String(name)) = reference.get("tool_name") else {
                        return Err(shape(
                            &format!("{reference_path}.tool_name"),
                            "expected a tool reference's `tool_name` as a string",
                        ));
                    };
                    self.extra_keys(reference, &reference_path, &["type", "tool_name"]);
                    discovered.push(json!({"name": name}));
                }
            }
            Some("tool_search_tool_result_error") => {
                self.extra_keys(content, &content_path, &["type", "error_code", "error_message"]);
                // The code is required (`BetaToolSearchToolResultErrorParam`); a request carries no
                // message, a response may.
                let Some(Value::String(code)) = content.get("error_code") else {
                    return Err(shape(
                        &format!("{content_path}.error_code"),
                        "expected the tool search error's `error_code` as a string",
                    ));
                };
                let message = content.get("error_message").cloned().unwrap_or(Value::Null);
                details = json!({"error_code": code, "error_message": message});
            }
            _ => {
                return Err(shape(
                    &format!("{content_path}.type"),
                    "expected a tool search result's content of type tool_search_tool_search_result or \
                     tool_search_tool_result_error",
                ))
            }
        }
        Ok(json!({
            "part_kind": "builtin-tool-return", "tool_name": TOOL_SEARCH,
            "content": {"discovered_tools": discovered}, "tool_call_id": id, "tool_kind": TOOL_SEARCH_KIND,
            "provider_name": SYSTEM, "provider_details": details,
        }))
    }
}

/// The tool name of pydantic-ai's native tool search parts (`NativeToolSearchCallPart`).
const TOOL_SEARCH: &str = "tool_search";
/// Their `tool_kind`.
const TOOL_SEARCH_KIND: &str = "tool-search";

/// The input key holding a tool search's query (`normalize_tool_search_args`), for the server
/// tools that are tool searches.
fn tool_search_query_key(name: &str) -> Option<&'static str> {
    match name {
        "tool_search_tool_regex" => Some("pattern"),
        "tool_search_tool_bm25" => Some("query"),
        _ => None,
    }
}

/// A `tool_use`'s `input`: an object (`args_as_dict`).
fn object_input<'v>(input: &'v Value, path: &str) -> Result<&'v Value, ShapeError> {
    match input {
        Value::Object(_) => Ok(input),
        _ => Err(shape(&format!("{path}.input"), "expected the input as an object")),
    }
}

/// `anthropic_caller_provider_details`, which `add_anthropic_caller_param` sends back as it is,
/// except that a `direct` caller is kept too: pydantic-ai leaves the default out of a response's
/// parts, but a request that names it (from a part that kept it) comes back as it was written.
fn caller_details(caller: &Value) -> Map<String, Value> {
    let mut details = Map::new();
    if caller.is_object() {
        details.insert("anthropic_caller".to_owned(), caller.clone());
    }
    details
}

fn details_value(details: Map<String, Value>) -> Value {
    if details.is_empty() {
        Value::Null
    } else {
        Value::Object(details)
    }
}

/// `map_server_tool_use_block`.
fn server_tool_call(id: &str, name: &str, input: &Value, caller: &Value, path: &str) -> Result<Value, ShapeError> {
    let mut details = caller_details(caller);
    let tool_name = match name {
        "web_search" | "web_fetch" | "code_execution" | "advisor" => name,
        "bash_code_execution" | "text_editor_code_execution" => {
            details.insert("anthropic_tool_name".to_owned(), json!(name));
            "code_execution"
        }
        other => {
            return Err(shape(
                &format!("{path}.name"),
                format!(
                    "unknown server tool `{other}`: expected web_search, web_fetch, code_execution, \
                         bash_code_execution, text_editor_code_execution, advisor, tool_search_tool_regex or \
                         tool_search_tool_bm25"
                ),
            ))
        }
    };
    // `cast(dict, item.input) or None`: an empty input is no arguments.
    let args = if input.as_object().is_some_and(Map::is_empty) {
        Value::Null
    } else {
        input.clone()
    };
    Ok(json!({
        "part_kind": "builtin-tool-call", "tool_name": tool_name, "args": args, "tool_call_id": id,
        "provider_name": SYSTEM, "provider_details": details_value(details),
    }))
}

/// `map_web_search_tool_result_block`, `map_web_fetch_tool_result_block`, the code execution ones
/// and `map_advisor_tool_result_block`: the content as recorded.
fn server_tool_result(kind: &str, id: String, content: &Value, caller: &Value) -> Value {
    let (tool_name, mut details) = match kind {
        "web_search_tool_result" => ("web_search", caller_details(caller)),
        "web_fetch_tool_result" => ("web_fetch", caller_details(caller)),
        "advisor_tool_result" => ("advisor", Map::new()),
        "code_execution_tool_result" => ("code_execution", Map::new()),
        _ => ("code_execution", Map::new()),
    };
    if let Some(variant) = kind
        .strip_suffix("_tool_result")
        .filter(|variant| variant.starts_with("bash") || variant.starts_with("text_editor"))
    {
        details.insert("anthropic_tool_name".to_owned(), json!(variant));
    }
    json!({
        "part_kind": "builtin-tool-return", "tool_name": tool_name, "content": content, "tool_call_id": id,
        "provider_name": SYSTEM, "provider_details": details_value(details),
    })
}
