//! Builders for the file items of a user prompt or a tool result (`ImageUrl`, `AudioUrl`, `VideoUrl`,
//! `DocumentUrl`, `BinaryContent`, `UploadedFile`), producing the `msgflow_wire` types with every computed field
//! filled in exactly as pydantic-ai 2.68.0 dumps the same item built in Python.

use std::marker::PhantomData;
use std::path::{Path, PathBuf};

use msgflow_wire::{
    AudioUrl, Base64Data, BinaryContent, DocumentUrl, Extra, Field, ForceDownload, ImageUrl, RawJson, UploadedFile,
    UploadedFileProviderName, VideoUrl,
};
use serde_json::Value;

use crate::error::MediaError;
use crate::guess::{
    media_type_from_path, uploaded_file_item_media_type, url_item_media_type, UnparsableFileId, UrlKind,
};
use crate::identifier::{effective_identifier, identifier_for_bytes, identifier_for_file_id, identifier_for_url};

/// Why an item cannot be built: each case is one where pydantic-ai refuses the same item (at construction or, for
/// an uploaded file, when dumping it).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// `vendor_metadata` (or `metadata` where pydantic-ai wants a dict) is not a JSON object or null
    /// (pydantic-ai: `dict_type` validation error).
    #[error("vendor_metadata must be a JSON object or null, got {found}")]
    VendorMetadataNotObject {
        /// The JSON type that was given.
        found: &'static str,
    },
    /// `force_download` is neither `false`, `true` nor `"allow-local"`. (pydantic-ai coerces lax booleans such as
    /// `"yes"`; msgflow asks for the canonical value instead.)
    #[error("force_download must be false, true or \"allow-local\", got {0}")]
    ForceDownload(String),
    /// An uploaded file names a provider pydantic-ai does not know (`literal_error`).
    #[error("unknown uploaded-file provider {0:?}; expected one of {known}", known = UploadedFileProviderName::KNOWN.join(", "))]
    UnknownProvider(String),
    /// An uploaded file without an explicit media type whose id Python's `urlparse` refuses: pydantic-ai cannot
    /// dump it (`PydanticSerializationError`). Give a media type to build it.
    #[error(transparent)]
    UnparsableFileId(#[from] UnparsableFileId),
    /// `BinaryContent.from_path` on a path that does not exist (Python: `FileNotFoundError`).
    #[error("File not found: {}", .0.display())]
    FileNotFound(PathBuf),
    /// Reading the file failed.
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `BinaryContent.from_data_uri` refused the URI (Python's message).
    #[error(transparent)]
    DataUri(#[from] MediaError),
    /// `StructuredContent.tag` breaks pydantic-ai's naming rule or is a framing tag (Python's `ValueError`
    /// message).
    #[error("{0}")]
    StructuredContentTag(String),
}

/// The JSON type name of `value`, for error messages.
fn json_type_name(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// `vendor_metadata: dict[str, Any] | None`: an object is kept (key order as given), null is null.
pub(crate) fn vendor_metadata_field(metadata: Option<&Value>) -> Result<Field<RawJson>, BuildError> {
    match metadata {
        None | Some(Value::Null) => Ok(Field::Null),
        Some(object @ Value::Object(_)) => Ok(Field::Present(RawJson::from(object))),
        Some(other) => Err(BuildError::VendorMetadataNotObject {
            found: json_type_name(other),
        }),
    }
}

/// The `force_download` value pydantic-ai dumps: `false`, `true` or `"allow-local"`.
fn force_download_field(force_download: &ForceDownload) -> Result<Field<ForceDownload>, BuildError> {
    match force_download {
        ForceDownload::No | ForceDownload::Yes | ForceDownload::AllowLocal => {
            Ok(Field::Present(force_download.clone()))
        }
        ForceDownload::Other(raw) => Err(BuildError::ForceDownload(raw.get().to_owned())),
    }
}

/// Entry point of the file-item builders: `FileItem::image_url(url)...build()`.
///
/// Every builder takes what a user has (a URL, bytes and a media type, a path, a `data:` URI, an uploaded file's
/// id), optional overrides (`media_type`, `identifier`, `vendor_metadata`, and `force_download` for URLs), and
/// `build()` returns the `msgflow_wire` item with the computed `media_type` and `identifier` written explicitly,
/// as pydantic-ai's dump writes them. Serialising it with `msgflow_wire` gives pydantic-ai's bytes.
///
/// ```
/// use msgflow_media::FileItem;
/// use msgflow_wire::ForceDownload;
/// use serde_json::json;
///
/// let image = FileItem::image_url("https://example.com/chart.png")
///     .identifier("chart")
///     .force_download(ForceDownload::AllowLocal)
///     .vendor_metadata(json!({"detail": "high"}))
///     .build()?;
/// assert_eq!(
///     serde_json::to_string(&image)?,
///     r#"{"url":"https://example.com/chart.png","force_download":"allow-local","vendor_metadata":{"detail":"high"},"kind":"image-url","media_type":"image/png","identifier":"chart"}"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct FileItem;

impl FileItem {
    /// An `ImageUrl` (`kind: image-url`).
    pub fn image_url(url: impl Into<String>) -> UrlItemBuilder<ImageUrl> {
        UrlItemBuilder::new(url.into())
    }

    /// An `AudioUrl` (`kind: audio-url`).
    pub fn audio_url(url: impl Into<String>) -> UrlItemBuilder<AudioUrl> {
        UrlItemBuilder::new(url.into())
    }

    /// A `VideoUrl` (`kind: video-url`); a YouTube URL infers `video/mp4`.
    pub fn video_url(url: impl Into<String>) -> UrlItemBuilder<VideoUrl> {
        UrlItemBuilder::new(url.into())
    }

    /// A `DocumentUrl` (`kind: document-url`).
    pub fn document_url(url: impl Into<String>) -> UrlItemBuilder<DocumentUrl> {
        UrlItemBuilder::new(url.into())
    }

    /// A `BinaryContent` holding `data` with the given media type (`BinaryContent(data, media_type=...)`).
    pub fn binary(data: impl Into<Vec<u8>>, media_type: impl Into<String>) -> BinaryBuilder {
        BinaryBuilder::new(BinarySource::Bytes {
            data: data.into(),
            media_type: media_type.into(),
        })
    }

    /// A `BinaryContent` read from a file at build time (`BinaryContent.from_path`): the media type is guessed
    /// from the path ([`media_type_from_path`](crate::media_type_from_path)), `application/octet-stream` when
    /// nothing matches.
    pub fn binary_from_path(path: impl Into<PathBuf>) -> BinaryBuilder {
        BinaryBuilder::new(BinarySource::Path(path.into()))
    }

    /// A `BinaryContent` decoded from a `data:<media type>;base64,<data>` URI at build time
    /// (`BinaryContent.from_data_uri`, see [`parse_data_uri`](crate::parse_data_uri)).
    pub fn binary_from_data_uri(uri: impl Into<String>) -> BinaryBuilder {
        BinaryBuilder::new(BinarySource::DataUri(uri.into()))
    }

    /// An `UploadedFile`: a file already uploaded to `provider`, referenced by its id.
    pub fn uploaded_file(file_id: impl Into<String>, provider: UploadedFileProviderName) -> UploadedFileBuilder {
        UploadedFileBuilder {
            file_id: file_id.into(),
            provider,
            media_type: None,
            identifier: None,
            vendor_metadata: None,
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for msgflow_wire::ImageUrl {}
    impl Sealed for msgflow_wire::AudioUrl {}
    impl Sealed for msgflow_wire::VideoUrl {}
    impl Sealed for msgflow_wire::DocumentUrl {}
}

/// The computed fields of a URL item, ready to be placed in its wire struct.
#[doc(hidden)]
#[derive(Debug)]
pub struct UrlItemFields {
    url: String,
    force_download: Field<ForceDownload>,
    vendor_metadata: Field<RawJson>,
    media_type: Field<String>,
    identifier: Field<String>,
}

/// The four `FileUrl` wire types (`ImageUrl`, `AudioUrl`, `VideoUrl`, `DocumentUrl`). Sealed.
pub trait UrlItem: sealed::Sealed + Sized {
    /// Which `FileUrl` subclass this is (it decides the inference rule).
    const KIND: UrlKind;

    #[doc(hidden)]
    fn from_fields(fields: UrlItemFields) -> Self;
}

macro_rules! url_item {
    ($wire:ident, $kind:expr) => {
        impl UrlItem for $wire {
            const KIND: UrlKind = $kind;

            fn from_fields(fields: UrlItemFields) -> Self {
                $wire {
                    url: fields.url,
                    force_download: fields.force_download,
                    vendor_metadata: fields.vendor_metadata,
                    media_type: fields.media_type,
                    identifier: fields.identifier,
                    extra: Extra::new(),
                }
            }
        }
    };
}

url_item!(ImageUrl, UrlKind::Image);
url_item!(AudioUrl, UrlKind::Audio);
url_item!(VideoUrl, UrlKind::Video);
url_item!(DocumentUrl, UrlKind::Document);

/// Builds an `ImageUrl`, `AudioUrl`, `VideoUrl` or `DocumentUrl` (from [`FileItem::image_url`] and friends).
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `build()` is called"]
pub struct UrlItemBuilder<T> {
    url: String,
    media_type: Option<String>,
    identifier: Option<String>,
    force_download: ForceDownload,
    vendor_metadata: Option<Value>,
    item: PhantomData<fn() -> T>,
}

impl<T: UrlItem> UrlItemBuilder<T> {
    fn new(url: String) -> Self {
        UrlItemBuilder {
            url,
            media_type: None,
            identifier: None,
            force_download: ForceDownload::No,
            vendor_metadata: None,
            item: PhantomData,
        }
    }

    /// An explicit media type. An empty one counts as none (pydantic-ai tests truthiness) and the type is
    /// inferred from the URL.
    pub fn media_type(mut self, media_type: impl Into<String>) -> Self {
        self.media_type = Some(media_type.into());
        self
    }

    /// An explicit identifier. An empty one counts as none and the SHA-1 identifier is used.
    pub fn identifier(mut self, identifier: impl Into<String>) -> Self {
        self.identifier = Some(identifier.into());
        self
    }

    /// Whether pydantic-ai downloads the file before sending it (default `ForceDownload::No`).
    pub fn force_download(mut self, force_download: ForceDownload) -> Self {
        self.force_download = force_download;
        self
    }

    /// Provider-specific options, a JSON object (or null), e.g. `json!({"detail": "high"})`. Key order is kept.
    pub fn vendor_metadata(mut self, metadata: impl Into<Value>) -> Self {
        self.vendor_metadata = Some(metadata.into());
        self
    }

    /// The item as pydantic-ai dumps it: the explicit media type, else the inferred one (null when inference
    /// fails, as pydantic-ai's dump writes it); the explicit identifier, else the first 6 hex digits of SHA-1 of
    /// the URL.
    ///
    /// # Errors
    ///
    /// [`BuildError::VendorMetadataNotObject`], [`BuildError::ForceDownload`].
    pub fn build(self) -> Result<T, BuildError> {
        let media_type = url_item_media_type(T::KIND, self.media_type.as_deref(), &self.url);
        let identifier = effective_identifier(self.identifier.as_deref(), || identifier_for_url(&self.url));
        let fields = UrlItemFields {
            force_download: force_download_field(&self.force_download)?,
            vendor_metadata: vendor_metadata_field(self.vendor_metadata.as_ref())?,
            media_type: media_type.into(),
            identifier: Field::Present(identifier),
            url: self.url,
        };
        Ok(T::from_fields(fields))
    }
}

/// Where a binary item's bytes come from.
#[derive(Debug, Clone)]
enum BinarySource {
    Bytes { data: Vec<u8>, media_type: String },
    Path(PathBuf),
    DataUri(String),
}

/// Builds a `BinaryContent` (from [`FileItem::binary`], [`FileItem::binary_from_path`] or
/// [`FileItem::binary_from_data_uri`]).
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `build()` is called"]
pub struct BinaryBuilder {
    source: BinarySource,
    media_type: Option<String>,
    identifier: Option<String>,
    vendor_metadata: Option<Value>,
}

impl BinaryBuilder {
    fn new(source: BinarySource) -> Self {
        BinaryBuilder {
            source,
            media_type: None,
            identifier: None,
            vendor_metadata: None,
        }
    }

    /// Replaces the media type the source gives (the one passed to [`FileItem::binary`], guessed from the path, or
    /// read from the data URI), like `dataclasses.replace(item, media_type=...)`. Any string is kept, even `""`:
    /// `BinaryContent.media_type` is a plain field.
    pub fn media_type(mut self, media_type: impl Into<String>) -> Self {
        self.media_type = Some(media_type.into());
        self
    }

    /// An explicit identifier. An empty one counts as none and the SHA-1 identifier of the data is used.
    pub fn identifier(mut self, identifier: impl Into<String>) -> Self {
        self.identifier = Some(identifier.into());
        self
    }

    /// Provider-specific options, a JSON object (or null). Key order is kept.
    pub fn vendor_metadata(mut self, metadata: impl Into<Value>) -> Self {
        self.vendor_metadata = Some(metadata.into());
        self
    }

    /// The item as pydantic-ai dumps it (data as URL-safe, padded base64; identifier computed unless given).
    ///
    /// # Errors
    ///
    /// [`BuildError::FileNotFound`] / [`BuildError::Io`] for a path, [`BuildError::DataUri`] for a data URI,
    /// [`BuildError::VendorMetadataNotObject`].
    pub fn build(self) -> Result<BinaryContent, BuildError> {
        let vendor_metadata = vendor_metadata_field(self.vendor_metadata.as_ref())?;
        let (data, source_media_type) = match self.source {
            BinarySource::Bytes { data, media_type } => (data, media_type),
            BinarySource::Path(path) => read_path(&path)?,
            BinarySource::DataUri(uri) => {
                let (media_type, data) = crate::data_uri::parse_data_uri(&uri)?;
                (data, media_type)
            }
        };
        let identifier = effective_identifier(self.identifier.as_deref(), || identifier_for_bytes(&data));
        Ok(BinaryContent {
            data: Base64Data::from_bytes(&data),
            media_type: self.media_type.unwrap_or(source_media_type),
            vendor_metadata,
            identifier: Field::Present(identifier),
            kind_absent: false,
            extra: Extra::new(),
        })
    }
}

/// `BinaryContent.from_path`: the bytes and the media type guessed from `str(Path(path))`.
fn read_path(path: &Path) -> Result<(Vec<u8>, String), BuildError> {
    // Python checks `path.exists()` first and raises FileNotFoundError with its own message.
    if !path.exists() {
        return Err(BuildError::FileNotFound(path.to_owned()));
    }
    let data = std::fs::read(path).map_err(|source| BuildError::Io {
        path: path.to_owned(),
        source,
    })?;
    // A non-UTF-8 path is guessed from its lossy form; Python would see surrogate escapes, which no table entry
    // contains either, so only the extension matters in both.
    Ok((data, media_type_from_path(&path.to_string_lossy())))
}

/// Builds an `UploadedFile` (from [`FileItem::uploaded_file`]).
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `build()` is called"]
pub struct UploadedFileBuilder {
    file_id: String,
    provider: UploadedFileProviderName,
    media_type: Option<String>,
    identifier: Option<String>,
    vendor_metadata: Option<Value>,
}

impl UploadedFileBuilder {
    /// An explicit media type, written as given **even when empty** (`UploadedFile.media_type` tests `is not
    /// None`, unlike the URL items).
    pub fn media_type(mut self, media_type: impl Into<String>) -> Self {
        self.media_type = Some(media_type.into());
        self
    }

    /// An explicit identifier. An empty one counts as none and the SHA-1 identifier of the file id is used.
    pub fn identifier(mut self, identifier: impl Into<String>) -> Self {
        self.identifier = Some(identifier.into());
        self
    }

    /// Provider-specific options, a JSON object (or null). Key order is kept.
    pub fn vendor_metadata(mut self, metadata: impl Into<Value>) -> Self {
        self.vendor_metadata = Some(metadata.into());
        self
    }

    /// The item as pydantic-ai dumps it: the explicit media type, else the one guessed from the path of the file
    /// id, else `application/octet-stream`.
    ///
    /// # Errors
    ///
    /// [`BuildError::UnknownProvider`], [`BuildError::UnparsableFileId`] (no media type given and Python's
    /// `urlparse` refuses the id), [`BuildError::VendorMetadataNotObject`].
    pub fn build(self) -> Result<UploadedFile, BuildError> {
        if let UploadedFileProviderName::Unknown(name) = &self.provider {
            return Err(BuildError::UnknownProvider(name.clone()));
        }
        let vendor_metadata = vendor_metadata_field(self.vendor_metadata.as_ref())?;
        let media_type = uploaded_file_item_media_type(self.media_type.as_deref(), &self.file_id)?;
        let identifier = effective_identifier(self.identifier.as_deref(), || identifier_for_file_id(&self.file_id));
        Ok(UploadedFile {
            file_id: self.file_id,
            provider_name: self.provider,
            vendor_metadata,
            media_type: Field::Present(media_type),
            identifier: Field::Present(identifier),
            extra: Extra::new(),
        })
    }
}
