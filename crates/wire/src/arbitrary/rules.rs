//! Cross-field rules (`x-msgflow-arbitrary: {"rule": ...}` in the schema): what pydantic-ai
//! enforces between a value's fields, applied by the generated strategies to every value they
//! build (the pydantic flavour only; the any flavour keeps what it drew).

use super::*;

/// `ModelRequest.__post_init__` (`_check_parts(parts, 'user')`): a speech part in a request is the
/// user's, and a compaction part in a request sets none of `provider_name`, `id`, `provider_details`.
pub(super) fn request_rules(flavour: Flavour, mut request: ModelRequest) -> ModelRequest {
    if flavour == Flavour::Pydantic {
        for part in &mut request.parts {
            match part {
                ModelRequestPart::Speech(speech) => speech.speaker = Speaker::User,
                ModelRequestPart::Compaction(compaction) => {
                    compaction.id = Field::Null;
                    compaction.provider_name = Field::Null;
                    compaction.provider_details = Field::Null;
                }
                _ => {}
            }
        }
    }
    request
}

/// `ModelResponse.__post_init__` (`_check_parts(parts, 'assistant')`): a speech part in a
/// response is the assistant's.
pub(super) fn response_rules(flavour: Flavour, mut response: ModelResponse) -> ModelResponse {
    if flavour == Flavour::Pydantic {
        for part in &mut response.parts {
            if let ModelResponsePart::Speech(speech) = part {
                speech.speaker = Speaker::Assistant;
            }
        }
    }
    response
}

/// `content_file_digests` as pydantic-ai writes it: `[]` for object and array content (no file
/// items among generated values), absent for scalars.
fn digests_for(content: &RawJson) -> Field<FileDigests> {
    if content.is_object() || content.is_array() {
        Field::Present(FileDigests::default())
    } else {
        Field::Absent
    }
}

/// `content_file_digests`: a list of digests; the any flavour adds the values pydantic-ai ignores.
pub(super) fn file_digests(flavour: Flavour) -> BoxedStrategy<FileDigests> {
    let list = vec(select(&["0f3c", "ab12", "ffff"][..]).prop_map(str::to_owned), 0..3).prop_map(FileDigests::List);
    match flavour {
        Flavour::Pydantic => list.boxed(),
        Flavour::Any => prop_oneof![
            4 => list,
            1 => select(&["7", "\"x\"", "{}", "true"][..])
                .prop_filter_map("an ignored record", |text| RawJson::from_json_text(text).ok().map(FileDigests::Other)),
        ]
        .boxed(),
    }
}

/// `ToolReturnPart.content_file_digests` follows its `content` (see [`digests_for`]).
pub(super) fn tool_return_rules(flavour: Flavour, mut part: ToolReturnPart) -> ToolReturnPart {
    if flavour == Flavour::Pydantic {
        part.content_file_digests = digests_for(&part.content);
    }
    part
}

/// `NativeToolReturnPart.content_file_digests` follows its `content` (see [`digests_for`]).
pub(super) fn native_tool_return_rules(flavour: Flavour, mut part: NativeToolReturnPart) -> NativeToolReturnPart {
    if flavour == Flavour::Pydantic {
        part.content_file_digests = digests_for(&part.content);
    }
    part
}

/// `DocumentCitationSource.__post_init__`: one of `document_id`, `title`, `excerpts` must be
/// truthy; the pydantic flavour gives an id when none is.
pub(super) fn document_source_rules(flavour: Flavour, mut source: DocumentCitationSource) -> DocumentCitationSource {
    let truthy = |value: Option<&String>| value.is_some_and(|text| !text.is_empty());
    let excerpts = source.excerpts.get().is_some_and(|excerpts| !excerpts.is_empty());
    if flavour == Flavour::Pydantic && !truthy(source.document_id.get()) && !truthy(source.title.get()) && !excerpts {
        source.document_id = Field::Present("doc_0".to_owned());
    }
    source
}
