//! The file and media items of user prompts, read once into what the three mappings need.
//!
//! pydantic-ai reads a stored item into `BinaryContent`, `ImageUrl`, `AudioUrl`, `VideoUrl`,
//! `DocumentUrl` or `UploadedFile` (messages.py); each model's mapping then asks it for its bytes
//! (`data`, `base64`, `data_uri`), its `media_type` (computed when not given), `format`,
//! `identifier`, `force_download` and `vendor_metadata`. [`File`] holds those values as pydantic-ai
//! computes them (with `msgflow-media`'s ports of the rules), so that the mappings never read the
//! wire item themselves.
//!
//! msgflow never downloads: where a mapping would call `download_item` (a `force_download` URL,
//! or a URL the API cannot take), the provider module refuses the item ([`File::refuse`]).

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use msgflow_media::UrlKind;
use msgflow_wire::{Field, ForceDownload, RawJson, UploadedFileProviderName, UserContent};
use serde_json::{Map, Value};

use crate::{ExportError, PartLocation};

/// A file item of a user prompt, where it is in the history, and what pydantic-ai computes of it.
#[derive(Debug, Clone)]
pub(crate) struct File {
    /// The history part holding it.
    pub at: PartLocation,
    /// Its JSON path (`$[m].parts[p].content[i]`).
    pub path: String,
    /// The item.
    pub kind: FileKind,
    /// `identifier`: the explicit one when not empty, else the first 6 hex digits of the SHA-1 of
    /// the bytes, the URL or the file id; a tool result's file is referred to by it.
    pub identifier: String,
    /// `vendor_metadata`, when it is a non-empty object (`if metadata := item.vendor_metadata`).
    pub vendor_metadata: Option<Map<String, Value>>,
}

/// The kinds of file item.
#[derive(Debug, Clone)]
pub(crate) enum FileKind {
    /// `BinaryContent`: the bytes and their media type (as written: pydantic-ai does not change it).
    Binary { data: Vec<u8>, media_type: String },
    /// `ImageUrl`, `AudioUrl`, `VideoUrl`, `DocumentUrl`.
    Url {
        kind: UrlKind,
        url: String,
        /// `force_download` is truthy: every mapping downloads the file first.
        force_download: bool,
        /// `media_type`: the explicit one when not empty, else inferred from the URL; `None` where
        /// pydantic-ai's property raises (`Could not infer media type ...`).
        media_type: Option<String>,
    },
    /// `UploadedFile`: a file already uploaded to a provider's file store.
    Uploaded {
        file_id: String,
        /// `provider_name`, as written.
        provider_name: String,
        /// `media_type`: the explicit one (even `""`), else inferred from the file id; `None` where
        /// pydantic-ai's property raises (a file id Python's `urlparse` refuses).
        media_type: Option<String>,
    },
}

impl File {
    /// Reads a user-content item that is a file; `Ok(None)` for an item that is not one.
    pub(crate) fn read(item: &UserContent, at: PartLocation, path: &str) -> Result<Option<File>, ExportError> {
        let url = |kind: UrlKind, url: &str, force: &Field<ForceDownload>, media_type: &Field<String>| {
            Ok::<_, ExportError>(FileKind::Url {
                kind,
                url: url.to_owned(),
                force_download: force_download(force, at, path)?,
                media_type: msgflow_media::url_item_media_type(kind, media_type.get().map(String::as_str), url),
            })
        };
        let url_identifier = |explicit: &Field<String>, url: &str| {
            msgflow_media::effective_identifier(explicit.get().map(String::as_str), || {
                msgflow_media::identifier_for_url(url)
            })
        };
        let (kind, identifier, metadata) = match item {
            UserContent::Binary(binary) => {
                let data = binary.data.decode().map_err(|_| {
                    ExportError::unsupported(at, &format!("{path}.data"), "binary content whose data is not base64")
                })?;
                let identifier =
                    msgflow_media::effective_identifier(binary.identifier.get().map(String::as_str), || {
                        msgflow_media::identifier_for_bytes(&data)
                    });
                let kind = FileKind::Binary {
                    data,
                    media_type: binary.media_type.clone(),
                };
                (kind, identifier, &binary.vendor_metadata)
            }
            UserContent::ImageUrl(item) => (
                url(UrlKind::Image, &item.url, &item.force_download, &item.media_type)?,
                url_identifier(&item.identifier, &item.url),
                &item.vendor_metadata,
            ),
            UserContent::AudioUrl(item) => (
                url(UrlKind::Audio, &item.url, &item.force_download, &item.media_type)?,
                url_identifier(&item.identifier, &item.url),
                &item.vendor_metadata,
            ),
            UserContent::VideoUrl(item) => (
                url(UrlKind::Video, &item.url, &item.force_download, &item.media_type)?,
                url_identifier(&item.identifier, &item.url),
                &item.vendor_metadata,
            ),
            UserContent::DocumentUrl(item) => (
                url(UrlKind::Document, &item.url, &item.force_download, &item.media_type)?,
                url_identifier(&item.identifier, &item.url),
                &item.vendor_metadata,
            ),
            UserContent::UploadedFile(item) => {
                let media_type = msgflow_media::uploaded_file_item_media_type(
                    item.media_type.get().map(String::as_str),
                    &item.file_id,
                )
                .ok();
                let kind = FileKind::Uploaded {
                    file_id: item.file_id.clone(),
                    provider_name: provider_name(&item.provider_name),
                    media_type,
                };
                let identifier = msgflow_media::effective_identifier(item.identifier.get().map(String::as_str), || {
                    msgflow_media::identifier_for_file_id(&item.file_id)
                });
                (kind, identifier, &item.vendor_metadata)
            }
            _ => return Ok(None),
        };
        Ok(Some(File {
            at,
            path: path.to_owned(),
            kind,
            identifier,
            vendor_metadata: vendor_metadata(metadata, at, path)?,
        }))
    }

    /// An export error about this item.
    pub(crate) fn refuse(&self, what: &str) -> ExportError {
        ExportError::unsupported(self.at, &self.path, what)
    }

    /// A refusal of a URL pydantic-ai would download before sending (`download_item`).
    pub(crate) fn refuse_download(&self, why: &str) -> ExportError {
        ExportError::needs_download(self.at, &self.path, self.describe(), why)
    }

    /// A refusal of an item pydantic-ai refuses too, quoting its error.
    pub(crate) fn refuse_as(&self, pydantic_error: &str) -> ExportError {
        self.refused_because(format!("`{pydantic_error}`"))
    }

    /// A refusal of an item pydantic-ai fails on without an error of its own, saying why.
    pub(crate) fn refused_because(&self, reason: String) -> ExportError {
        ExportError::refused(self.at, &self.path, self.describe(), reason)
    }

    /// A URL item's URL, sent as it is: refused when `force_download` asks pydantic-ai to download
    /// it first (`download_item`).
    pub(crate) fn url_to_send(&self) -> Result<String, ExportError> {
        match &self.kind {
            FileKind::Url {
                force_download: true, ..
            } => Err(self.refuse_download("`force_download`")),
            FileKind::Url { url, .. } => Ok(url.clone()),
            _ => Err(self.refuse("a file item without a URL")),
        }
    }

    /// `BinaryContent.format` (the file name's extension OpenAI is sent), or the refusal its
    /// `ValueError` becomes.
    pub(crate) fn binary_format(&self, media_type: &str) -> Result<&'static str, ExportError> {
        msgflow_media::binary_format(media_type)
            .map_err(|error| self.refused_because(format!("it fails on it (`{error}`)")))
    }

    /// The item as pydantic-ai names it in its errors (`ImageUrl`, `BinaryContent image/png`, ...).
    pub(crate) fn describe(&self) -> String {
        match &self.kind {
            FileKind::Binary { media_type, .. } => format!("binary content of type `{media_type}`"),
            FileKind::Url { kind, url, .. } => format!("{} `{url}`", url_class(*kind)),
            FileKind::Uploaded { file_id, .. } => format!("uploaded file `{file_id}`"),
        }
    }

    /// `vendor_metadata.get('detail', 'auto')` when the metadata is truthy, else `None`.
    pub(crate) fn detail(&self) -> Option<Value> {
        self.vendor_metadata
            .as_ref()
            .map(|metadata| metadata.get("detail").cloned().unwrap_or_else(|| Value::from("auto")))
    }

    /// The media type pydantic-ai computes, or the refusal its property's `ValueError` becomes.
    pub(crate) fn media_type(&self) -> Result<&str, ExportError> {
        let media_type = match &self.kind {
            FileKind::Binary { media_type, .. } => Some(media_type),
            FileKind::Url { media_type, .. } | FileKind::Uploaded { media_type, .. } => media_type.as_ref(),
        };
        media_type
            .map(String::as_str)
            .ok_or_else(|| self.refused_because("it cannot infer its media type".to_owned()))
    }

    /// `UploadedFile` check of every model (`validate_uploaded_file_provider`): the file must be
    /// in this provider's store.
    pub(crate) fn check_uploaded_provider(&self, system: &str, model: &str) -> Result<(), ExportError> {
        match &self.kind {
            FileKind::Uploaded { provider_name, .. } if provider_name != system => Err(self.refused_because(format!(
                "it is in `{provider_name}`'s file store, which {model} cannot use (pydantic-ai expects `provider_name` `{system}`)"
            ))),
            _ => Ok(()),
        }
    }
}

/// The class pydantic-ai reads a URL item as.
pub(crate) fn url_class(kind: UrlKind) -> &'static str {
    match kind {
        UrlKind::Image => "ImageUrl",
        UrlKind::Audio => "AudioUrl",
        UrlKind::Video => "VideoUrl",
        UrlKind::Document => "DocumentUrl",
    }
}

/// `base64.b64encode(data).decode()`: standard alphabet, padded (`BinaryContent.base64`).
pub(crate) fn base64(data: &[u8]) -> String {
    STANDARD.encode(data)
}

/// `BinaryContent.data_uri`: `data:{media_type};base64,{base64}`.
pub(crate) fn data_uri(media_type: &str, data: &[u8]) -> String {
    format!("data:{media_type};base64,{}", base64(data))
}

/// `bool | Literal['allow-local']`: `true` and `'allow-local'` download; a value pydantic-ai
/// coerces (kept as written by msgflow-wire) is read as pydantic's lax bool would, and refused
/// when msgflow cannot tell.
fn force_download(field: &Field<ForceDownload>, at: PartLocation, path: &str) -> Result<bool, ExportError> {
    // A value pydantic-ai's lax mode reads as a bool (`"yes"`, `0`, ...) is that bool.
    match field.get().map_or(Some(false), ForceDownload::downloads) {
        Some(downloads) => Ok(downloads),
        None => Err(ExportError::unsupported(
            at,
            &format!("{path}.force_download"),
            "a `force_download` value pydantic-ai does not load (write `true`, `false` or `\"allow-local\"`)",
        )),
    }
}

/// `vendor_metadata: dict[str, Any] | None`, truthy (a non-empty object) or not.
fn vendor_metadata(
    field: &Field<RawJson>,
    at: PartLocation,
    path: &str,
) -> Result<Option<Map<String, Value>>, ExportError> {
    let Some(raw) = field.get() else { return Ok(None) };
    match raw.try_to_value() {
        Ok(Value::Null) => Ok(None),
        Ok(Value::Object(map)) if map.is_empty() => Ok(None),
        Ok(Value::Object(map)) => Ok(Some(map)),
        _ => Err(ExportError::unsupported(
            at,
            &format!("{path}.vendor_metadata"),
            "`vendor_metadata` that is not a JSON object",
        )),
    }
}

fn provider_name(name: &UploadedFileProviderName) -> String {
    serde_json::to_value(name)
        .ok()
        .and_then(|value| value.as_str().map(str::to_owned))
        .unwrap_or_default()
}
