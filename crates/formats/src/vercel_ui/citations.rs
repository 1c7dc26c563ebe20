//! Text citations in vercel-ui: `dump_text_metadata` and `load_citations`
//! (`pydantic_ai.ui.vercel_ai._utils`).

use serde_json::{json, Map, Value};

use crate::object::value_field as field;
use crate::ui_payloads::{canonical_system, provider_metadata};

/// Python's `len` of a string: code points.
fn python_len(text: &Value) -> i64 {
    text.as_str().map_or(0, |text| text.chars().count() as i64)
}

/// `dump_text_metadata` (`pydantic_ai.ui.vercel_ai._utils`): the metadata of a UI text part
/// holding consecutive text parts (the first part's fields, every part's citations moved onto the
/// merged text, the provider's raw citations joined), with the merged citations.
pub(super) fn text_metadata(message: &Value, run: &[&Value]) -> (Option<Value>, Vec<Value>) {
    let first = run[0];
    let has_citations = |part: &Value| {
        field(part, "citations")
            .as_array()
            .is_some_and(|items| !items.is_empty())
    };
    // `first.provider_name or next(...)`: an empty name counts as none.
    let provider_name = match field(first, "provider_name") {
        Value::String(name) if !name.is_empty() => Value::String(name.clone()),
        _ => run
            .iter()
            .find(|part| has_citations(part))
            .map_or(Value::Null, |part| field(part, "provider_name").clone()),
    };
    let mut provider_details = field(first, "provider_details").clone();
    let mut citations = Vec::new();
    let mut raw_citations = Vec::new();
    let mut offset = 0;
    for part in run {
        if let Some(raw) = field(field(part, "provider_details"), "citations").as_array() {
            if field(part, "provider_name") == &provider_name && run.len() > 1 {
                raw_citations.extend(raw.iter().map(|citation| offset_raw_citation(citation, offset)));
            }
        }
        for citation in field(part, "citations").as_array().into_iter().flatten() {
            citations.push(normal_citation(citation, offset));
        }
        offset += python_len(field(part, "content"));
    }
    if !raw_citations.is_empty() {
        let mut details = provider_details.as_object().cloned().unwrap_or_default();
        details.insert("citations".into(), Value::Array(raw_citations));
        provider_details = Value::Object(details);
    }
    let metadata = provider_metadata(&[
        ("id", field(first, "id").clone()),
        ("provider_name", provider_name.clone()),
        ("provider_details", provider_details),
        ("canonical_system", canonical_system(message, &provider_name)),
        (
            "citations",
            if citations.is_empty() {
                Value::Null
            } else {
                Value::Array(citations.clone())
            },
        ),
    ]);
    (metadata, citations)
}

/// `_offset_raw_citation`: an OpenAI Responses annotation's positions in the answer text, moved.
fn offset_raw_citation(citation: &Value, offset: i64) -> Value {
    let mut citation = citation.clone();
    if offset == 0 {
        return citation;
    }
    let Some(object) = citation.as_object_mut() else {
        return citation;
    };
    let keys: &[&str] = match object.get("type").and_then(Value::as_str) {
        Some("url_citation")
            if object.get("start_index").is_some_and(Value::is_i64)
                && object.get("end_index").is_some_and(Value::is_i64) =>
        {
            &["start_index", "end_index"]
        }
        Some("file_citation") if object.get("index").is_some_and(Value::is_i64) => &["index"],
        _ => &[],
    };
    for key in keys {
        let moved = object[*key].as_i64().unwrap_or(0) + offset;
        object.insert((*key).to_owned(), moved.into());
    }
    citation
}

/// A `Citation` as pydantic dumps it (every field, defaults filled in), its anchor moved by
/// `offset` (`_offset_citations`).
fn normal_citation(citation: &Value, offset: i64) -> Value {
    let sources: Vec<Value> = field(citation, "sources")
        .as_array()
        .into_iter()
        .flatten()
        .map(|source| {
            let excerpts = source.get("excerpts").cloned().unwrap_or_else(|| json!([]));
            if source["kind"] == "document" {
                json!({"document_id": field(source, "document_id"), "title": field(source, "title"),
                       "excerpts": excerpts, "kind": "document"})
            } else {
                json!({"url": field(source, "url"), "title": field(source, "title"),
                       "excerpts": excerpts, "kind": "web"})
            }
        })
        .collect();
    let anchor = match field(citation, "anchor") {
        Value::Object(anchor) => {
            let at = |key: &str| anchor.get(key).and_then(Value::as_i64).unwrap_or(0) + offset;
            json!({"start": at("start"), "end": at("end"),
                   "kind": anchor.get("kind").cloned().unwrap_or_else(|| "content".into())})
        }
        _ => Value::Null,
    };
    json!({"sources": sources, "anchor": anchor})
}

/// `load_citations` (`pydantic_ai.ui.vercel_ai._utils`): the citations of a UI text part that
/// validate and whose anchor fits in its text, or null for none; beside them what of `data` they
/// leave out, by path within it: `[2]` for a citation that does not load, `[0].sources[1].key` for
/// a key its model has no field for.
pub(super) fn load_citations(data: &Value, text: &str) -> (Value, Vec<String>) {
    let Some(items) = data.as_array() else {
        return (Value::Null, Vec::new());
    };
    let length = text.chars().count() as i64;
    let mut left_out = Vec::new();
    let mut citations = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let loaded = valid_citation(item).filter(|citation| {
            citation["anchor"]
                .get("end")
                .and_then(Value::as_i64)
                .is_none_or(|end| end <= length)
        });
        match loaded {
            Some(citation) => {
                citations.push(citation);
                left_out.extend(unread_keys(item).into_iter().map(|within| format!("[{index}]{within}")));
            }
            None => left_out.push(format!("[{index}]")),
        }
    }
    let citations = if citations.is_empty() {
        Value::Null
    } else {
        Value::Array(citations)
    };
    (citations, left_out)
}

/// The keys of a citation that loads ([`valid_citation`]) its models have no field for, by path
/// within it.
fn unread_keys(item: &Value) -> Vec<String> {
    fn others(object: Option<&Map<String, Value>>, path: &str, fields: &[&str], out: &mut Vec<String>) {
        for key in object.into_iter().flat_map(Map::keys) {
            if !fields.contains(&key.as_str()) {
                out.push(crate::loss::key_path(path, key));
            }
        }
    }
    let mut out = Vec::new();
    others(item.as_object(), "", &["sources", "anchor"], &mut out);
    for (index, source) in item["sources"].as_array().into_iter().flatten().enumerate() {
        let fields: &[&str] = match source["kind"].as_str() {
            Some("document") => &["document_id", "title", "excerpts", "kind"],
            _ => &["url", "title", "excerpts", "kind"],
        };
        others(source.as_object(), &format!(".sources[{index}]"), fields, &mut out);
    }
    others(
        item["anchor"].as_object(),
        ".anchor",
        &["start", "end", "kind"],
        &mut out,
    );
    out
}

/// A `Citation` as pydantic validates it: at least one web or document source (a document source
/// naming something), an optional anchor with `0 <= start < end` (lax integers).
fn valid_citation(item: &Value) -> Option<Value> {
    let item = item.as_object()?;
    let optional_string = |object: &Map<String, Value>, key: &str| match object.get(key) {
        None | Some(Value::Null) => Some(Value::Null),
        Some(value @ Value::String(_)) => Some(value.clone()),
        Some(_) => None,
    };
    let mut sources = Vec::new();
    for source in item.get("sources")?.as_array()? {
        let source = source.as_object()?;
        let excerpts = match source.get("excerpts") {
            None => json!([]),
            Some(Value::Array(excerpts)) if excerpts.iter().all(Value::is_string) => Value::Array(excerpts.clone()),
            Some(_) => return None,
        };
        let title = optional_string(source, "title")?;
        sources.push(match source.get("kind")?.as_str()? {
            "web" => json!({"url": source.get("url")?.as_str()?, "title": title, "excerpts": excerpts, "kind": "web"}),
            "document" => {
                let document_id = optional_string(source, "document_id")?;
                // `DocumentCitationSource.__post_init__`: at least one of them, as Python's truth.
                let names_something = |field: &Value| field.as_str().is_some_and(|text| !text.is_empty());
                if !names_something(&document_id) && !names_something(&title) && excerpts == json!([]) {
                    return None;
                }
                json!({"document_id": document_id, "title": title, "excerpts": excerpts, "kind": "document"})
            }
            _ => return None,
        });
    }
    if sources.is_empty() {
        return None;
    }
    let anchor = match item.get("anchor") {
        None | Some(Value::Null) => Value::Null,
        Some(Value::Object(anchor)) => {
            let kind = anchor.get("kind")?.as_str()?;
            let start = msgflow_wire::lax::int(anchor.get("start")?)?.as_i64()?;
            let end = msgflow_wire::lax::int(anchor.get("end")?)?.as_i64()?;
            if !matches!(kind, "content" | "marker") || start < 0 || end <= start {
                return None;
            }
            json!({"start": start, "end": end, "kind": kind})
        }
        Some(_) => return None,
    };
    Some(json!({"sources": sources, "anchor": anchor}))
}
