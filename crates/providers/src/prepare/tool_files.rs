//! Tool files: the files a tool result carries, where each goes, and the notes for files a
//! model cannot read (`unsupported_file_input`).

use super::form::{Profile, ToolContent};
use super::rendering::json_text;
use crate::media::{File, FileKind};
use crate::tool_content::{holds_file_item, FileRecord};
use crate::{tool_content, ExportError, PartLocation};
use msgflow_media::UrlKind;
use msgflow_wire::UserContent;
use serde_json::{Map, Value};

/// The files of a tool result (`_split_content`): pydantic-ai validates tool output as
/// `ToolReturnContent`, which rebuilds every object that loads as a file item, at any depth
/// ([`tool_content`]); the content itself, or an item of a content list, that does is a file, and
/// any other is data, whose text holds the dumps of the items rebuilt inside it. A `BinaryContent`
/// loads whatever the record says; a URL item or an uploaded file only when `content_file_digests`
/// records it, or (a URL item) with an `http(s)` URL in a result saved without a record. Binary
/// images (not text-like ones such as SVG) and documents, URL items and uploaded files go to the
/// mapping, which reads them as it reads a user prompt's (`_map_tool_return_part`,
/// `model_response_str_and_user_content`, `_map_tool_return_output`).
///
/// Returns the content as the mapping reads it, with each file the model cannot read (audio, video,
/// a document type the profile leaves out) replaced by pydantic-ai's note
/// (`_replace_unsupported_tool_return_files`), and its files.
pub(super) fn tool_files(
    mut content: Value,
    record: &FileRecord,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<ToolFiles, ExportError> {
    let mut notes = Vec::new();
    // Each file item's text for `_lookalike_texts`: a text file's, decoded (`_text_file_content`,
    // `errors='replace'`); none for other files.
    let mut file_texts: Vec<(usize, Option<String>)> = Vec::new();
    let listed = content.is_array();
    // The JSON path of an item, made only for an item that is (or holds) a file.
    let path_of = |index: usize| {
        if listed {
            format!("{path}[{index}]")
        } else {
            path.to_owned()
        }
    };
    // `ToolReturnContent` of the content or each item of a content list: a file item becomes its
    // dump (so that it is read below in the form pydantic-ai holds it), data has the file items
    // inside it rebuilt.
    let mut is_file = Vec::new();
    {
        let candidates = match &mut content {
            Value::Array(items) => items.as_mut_slice(),
            other => std::slice::from_mut(other),
        };
        for (index, value) in candidates.iter_mut().enumerate() {
            let refuse = |why: &str| ExportError::unsupported(at, &path_of(index), why);
            let dump = match value {
                Value::Object(map) => tool_content::file_item_dump(map, record).map_err(refuse)?,
                _ => None,
            };
            is_file.push(dump.is_some());
            match dump {
                Some(dump) => *value = Value::Object(dump),
                None => tool_content::rebuild_nested_files(value, record).map_err(refuse)?,
            }
        }
    }
    let candidates = match &content {
        Value::Array(items) => items.as_slice(),
        other => std::slice::from_ref(other),
    };
    let mut files = Vec::new();
    for (index, value) in candidates.iter().enumerate() {
        if !is_file[index] {
            continue;
        }
        let item_path = path_of(index);
        let refuse = |what: &str| ExportError::unsupported(at, &item_path, what);
        // The item is in its dump form, which reads as the user-content item it is.
        let item: UserContent = serde_json::from_str(&value.to_string())
            .map_err(|_| refuse("tool output holding a file item msgflow cannot read back"))?;
        let Some(file) = File::read(&item, at, &item_path)? else {
            return Err(refuse("tool output holding a file item msgflow cannot read back"));
        };
        let FileKind::Binary { data, media_type } = &file.kind else {
            // A URL item or an uploaded file: no text of its own for `_lookalike_texts`
            // (`_text_file_content` reads only binary content). A URL item the model cannot read
            // becomes its note; an uploaded file is no `SendableFile`, and goes to the mapping, as
            // does every other URL item, which refuses what pydantic-ai's refuses.
            file_texts.push((index, None));
            if let Some(unsupported) = unsupported_url_input(&file, profile) {
                notes.push((index, unsupported_file_note(&file, &unsupported)));
            } else {
                files.push((index, file));
            }
            continue;
        };
        let media_type = media_type.as_str();
        let text_like = msgflow_media::is_text_like_media_type(media_type);
        file_texts.push((index, text_like.then(|| String::from_utf8_lossy(data).into_owned())));
        if let Some(unsupported) = unsupported_file_input(media_type, profile) {
            notes.push((index, unsupported_file_note(&file, &unsupported)));
            continue;
        }
        // Every other file goes to the mapping, which refuses what pydantic-ai's does when it maps
        // the result, in the history's order: Anthropic and OpenAI Responses take only images and
        // documents in a tool return, and OpenAI Chat maps a relocated file as a user prompt's
        // (a text file inlined as text). A refusal here would come ahead of a refusal the mapping
        // makes of an earlier message, such as a URL pydantic-ai would download first.
        files.push((index, file));
    }
    // `_lookalike_texts` of the content as loaded (before the notes replace files), when it holds
    // files: each item's text, a file's
    // own text in its place.
    let lookalike_texts = (!file_texts.is_empty()).then(|| {
        let items = match &content {
            Value::Array(items) => items.as_slice(),
            other => std::slice::from_ref(other),
        };
        items
            .iter()
            .enumerate()
            .filter_map(|(index, item)| match file_texts.iter().find(|(at, _)| *at == index) {
                Some((_, text)) => text.clone().map(|text| (text, true)),
                None => Some((json_text(item), false)),
            })
            .collect()
    });
    for (index, note) in notes {
        match &mut content {
            Value::Array(items) => items[index] = Value::String(note),
            other => *other = Value::String(note),
        }
    }
    Ok(ToolFiles {
        content: ToolContent::Read(content),
        files,
        lookalike_texts,
    })
}

/// [`tool_files`] of a typed result's content, validated as its kind's TypedDict: msgflow does not
/// reproduce how that validation treats an object shaped like a file item, and refuses it.
pub(super) fn typed_tool_files(
    content: Map<String, Value>,
    at: PartLocation,
    path: &str,
    profile: Profile,
) -> Result<ToolFiles, ExportError> {
    let content = Value::Object(content);
    if holds_file_item(&content) {
        return Err(ExportError::unsupported(
            at,
            path,
            "a typed tool result holding an object shaped like a file item",
        ));
    }
    tool_files(content, &FileRecord::Unrecorded, at, path, profile)
}

/// A tool result's content as the mapping reads it, its files, and (when it held files) the texts
/// its lookalikes are read in.
pub(super) struct ToolFiles {
    pub(super) content: ToolContent,
    pub(super) files: Vec<(usize, File)>,
    /// Each text, and whether it is a file's.
    pub(super) lookalike_texts: Option<Vec<(String, bool)>>,
}

/// `unsupported_file_input` for binary content on the three models, whose profiles turn
/// `supports_audio_file_input` and `supports_video_input` off and read the documents of
/// `supported_documents`: what the model cannot read.
pub(super) fn unsupported_file_input(media_type: &str, profile: Profile) -> Option<String> {
    if msgflow_media::is_image(media_type) {
        None
    } else if msgflow_media::is_audio(media_type) {
        Some("audio files".to_owned())
    } else if msgflow_media::is_video(media_type) {
        Some("video".to_owned())
    } else if msgflow_media::is_document(media_type) && profile.supported_documents.refuses(media_type) {
        Some(format!("{media_type} documents"))
    } else {
        None
    }
}

/// `unsupported_file_input` for a URL item, judged by its class (an `UploadedFile` is no
/// `SendableFile`, and is never judged): images are read, audio and video are not, and a document
/// is not when its media type (`inferred_media_type`, `None` when it cannot be inferred) is a known
/// one the profile leaves out.
pub(super) fn unsupported_url_input(file: &File, profile: Profile) -> Option<String> {
    let FileKind::Url { kind, media_type, .. } = &file.kind else {
        return None;
    };
    match kind {
        UrlKind::Image => None,
        UrlKind::Audio => Some("audio files".to_owned()),
        UrlKind::Video => Some("video".to_owned()),
        UrlKind::Document => media_type
            .as_deref()
            .filter(|media_type| profile.supported_documents.refuses(media_type))
            .map(|media_type| format!("{media_type} documents")),
    }
}

/// `unsupported_file_note`: `File <identifier> (<media type>, <size> bytes) was not sent: this
/// model cannot read <what>.`, the size with thousands separators (`f'{n:,}'`), given only for
/// binary content; the media type left out when it is empty or, for a URL, cannot be inferred.
pub(super) fn unsupported_file_note(file: &File, unsupported: &str) -> String {
    let mut details = Vec::new();
    match &file.kind {
        FileKind::Binary { data, media_type } => {
            if !media_type.is_empty() {
                details.push(media_type.clone());
            }
            let digits = data.len().to_string();
            let mut grouped = String::with_capacity(digits.len() + digits.len() / 3);
            for (index, digit) in digits.chars().enumerate() {
                if index > 0 && (digits.len() - index) % 3 == 0 {
                    grouped.push(',');
                }
                grouped.push(digit);
            }
            details.push(format!("{grouped} bytes"));
        }
        FileKind::Url { media_type, .. } | FileKind::Uploaded { media_type, .. } => {
            details.extend(media_type.iter().filter(|media_type| !media_type.is_empty()).cloned());
        }
    }
    let described = if details.is_empty() {
        String::new()
    } else {
        format!(" ({})", details.join(", "))
    };
    format!(
        "File {}{described} was not sent: this model cannot read {unsupported}.",
        file.identifier
    )
}
