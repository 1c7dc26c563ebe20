//! The citations of a response's text the mappings send back with it, rebuilt from the text's
//! `provider_details['citations']` (`map_responses_citations_for_replay` for OpenAI Responses,
//! `map_citation_for_replay` for Anthropic) or checked against its own `citations`
//! (`citations_fit_text`).

use serde_json::Value;

use super::form::{Annotation, WebSearchCitation};
use crate::{ExportError, PartLocation};

/// `map_responses_citations_for_replay`: the URL citations whose range (in code points) still
/// holds their non-empty URL, and the file citations with a non-empty file id, rebuilt from the
/// text's `provider_details['citations']`; any other is left out. An index written as a boolean,
/// which Python takes for an integer and the SDK writes as a boolean, is refused.
pub(super) fn responses_annotations(
    citations: &Value,
    content: &str,
    at: PartLocation,
    path: &str,
) -> Result<Vec<Annotation>, ExportError> {
    let mut annotations = Vec::new();
    for citation in citations.as_array().into_iter().flatten() {
        let text = |key: &str| citation.get(key).and_then(Value::as_str);
        let kind = text("type");
        if !matches!(kind, Some("url_citation" | "file_citation")) {
            continue;
        }
        let indices: &[&str] = if kind == Some("url_citation") {
            &["start_index", "end_index"]
        } else {
            &["index"]
        };
        if indices
            .iter()
            .any(|key| citation.get(*key).is_some_and(Value::is_boolean))
        {
            return Err(ExportError::unsupported(
                at,
                &format!("{path}.provider_details.citations"),
                "a text part with citations pydantic-ai replays, with an index written as a boolean (Python reads it as an integer)",
            ));
        }
        if kind == Some("url_citation") {
            let (Some(url), Some(title)) = (text("url").filter(|url| !url.is_empty()), text("title")) else {
                continue;
            };
            let index = |key: &str| citation.get(key).and_then(Value::as_i64);
            let (Some(start), Some(end)) = (index("start_index"), index("end_index")) else {
                continue;
            };
            let length = content.chars().count() as i64;
            if !(0 <= start && start <= end && end <= length) {
                continue;
            }
            // `text[start:end]`, in code points.
            let byte = |at: i64| {
                content
                    .char_indices()
                    .nth(at as usize)
                    .map_or(content.len(), |(byte, _)| byte)
            };
            if !content[byte(start)..byte(end)].contains(url) {
                continue;
            }
            annotations.push(Annotation::Url {
                url: url.to_owned(),
                title: title.to_owned(),
                start_index: start as u64,
                end_index: end as u64,
            });
        } else {
            let (Some(file_id), Some(filename)) = (text("file_id").filter(|id| !id.is_empty()), text("filename"))
            else {
                continue;
            };
            // `isinstance(index, int)`: any integer, which serde_json keeps exactly.
            let Some(index) = citation
                .get("index")
                .and_then(Value::as_number)
                .filter(|number| !number.is_f64())
            else {
                continue;
            };
            annotations.push(Annotation::File {
                file_id: file_id.to_owned(),
                filename: filename.to_owned(),
                index: index.clone(),
            });
        }
    }
    Ok(annotations)
}

/// `citations_fit_text`: the part has citations, and each is anchored to its whole content
/// (`ContentCitationAnchor(start=0, end=len(content))`, a length in code points).
pub(super) fn citations_fit_text(text: &msgflow_wire::TextPart) -> bool {
    let Some(citations) = text.citations.get().filter(|citations| !citations.is_empty()) else {
        return false;
    };
    let length = text.content.chars().count() as u64;
    citations.iter().all(|citation| {
        matches!(
            citation.anchor.get(),
            Some(msgflow_wire::CitationAnchor::Content(anchor))
                if anchor.start.to_u64() == Some(0) && anchor.end.to_u64() == Some(length)
        )
    })
}

/// `map_citation_for_replay`: a web search citation Anthropic returned (in the text's
/// `provider_details`), rebuilt from its string fields; `None` for any other citation.
pub(super) fn web_search_citation(citation: &Value) -> Option<WebSearchCitation> {
    if citation.get("type").and_then(Value::as_str) != Some("web_search_result_location") {
        return None;
    }
    let text = |key: &str| citation.get(key).and_then(Value::as_str).map(str::to_owned);
    let title = match citation.get("title") {
        None | Some(Value::Null) => None,
        Some(Value::String(title)) => Some(title.clone()),
        Some(_) => return None,
    };
    Some(WebSearchCitation {
        url: text("url")?,
        title,
        cited_text: text("cited_text")?,
        encrypted_index: text("encrypted_index")?,
    })
}
