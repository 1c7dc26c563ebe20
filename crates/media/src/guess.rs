//! Media-type inference: CPython 3.11 `mimetypes.MimeTypes.guess_type(url, strict=True)` on pydantic-ai's table,
//! and the per-item rules pydantic-ai builds on it.

use crate::pyurl::{hostname, split_type, url_parse, UrlSplitError};
use crate::tables::{ENCODING_SUFFIXES, STRICT_TYPES, SUFFIX_MAP};

/// The media type pydantic-ai falls back to when it cannot infer one for an `UploadedFile` or a
/// `BinaryContent.from_path` file.
pub const OCTET_STREAM: &str = "application/octet-stream";

/// Guesses a media type the way pydantic-ai 2.68.0 does on Python 3.11: `_mime_types.guess_type(url_or_path)[0]`.
///
/// The table is the platform-independent baseline described on the crate's table module (Python 3.11 defaults plus
/// pydantic-ai's overrides, no OS `mime.types`). The algorithm is CPython 3.11's, step by step:
///
/// 1. `urllib.parse._splittype`: a leading `scheme:` (one or more characters, none of them `/` or `:`) is cut off.
///    **Only the scheme**: the query and fragment stay, so `https://x/a.png?x=1` has the extension `.png?x=1` and
///    gives `None` (Python 3.13 would say `image/png`). Windows drive letters count as schemes (`C:\a.png` keeps
///    `\a.png`, which still ends in `.png`).
/// 2. `data:` URLs (scheme compared case-insensitively): the text before the first `;` or `,` (which must exist;
///    no `,` means `None`), or `text/plain` when that text contains `=` or lacks `/`. The result then borrows from
///    the input, which is why the return type carries the input's lifetime.
/// 3. `posixpath.splitext`: the extension is the last `.` suffix of the last `/` segment, unless the segment is
///    only dots before it (`.png` and `..png` have no extension; `a.` has the extension `.`).
/// 4. While the lowercased extension is in `suffix_map` (`.svgz`, `.tgz`, `.taz`, `.tz`, `.tbz2`, `.txz`), it is
///    replaced (`.tgz` → `.tar.gz`) and the name split again.
/// 5. A compression suffix (`.gz`, `.Z`, `.bz2`, `.xz`, `.br`, **case-sensitive**) is dropped and the name split
///    again, so `a.tar.gz` is `application/x-tar`.
/// 6. The lowercased extension is looked up in the strict table.
///
/// ```
/// use msgflow_media::guess_media_type;
///
/// assert_eq!(guess_media_type("https://example.com/cat.PNG"), Some("image/png"));
/// assert_eq!(guess_media_type("https://example.com/cat.png?size=1"), None); // Python 3.11: query kept
/// assert_eq!(guess_media_type("backup.tgz"), Some("application/x-tar"));
/// assert_eq!(guess_media_type("data:image/webp;base64,AAAA"), Some("image/webp"));
/// assert_eq!(guess_media_type("https://example.com/dir.png/file"), None);
/// ```
pub fn guess_media_type(url_or_path: &str) -> Option<&str> {
    let (scheme, rest) = split_type(url_or_path);
    if scheme.as_deref() == Some("data") {
        return data_url_media_type(rest);
    }
    let (base, extension) = split_extension(rest);
    if suffix_replacement(extension).is_some() {
        return lookup_after_suffixes(base, extension);
    }
    lookup_extension(strip_encoding(base, extension).1)
}

/// Finishes the lookup for a name whose suffix was rewritten at least once, looping on further rewrites.
fn lookup_after_suffixes(base: &str, extension: &str) -> Option<&'static str> {
    let mut base = base.to_owned();
    let mut extension = extension.to_owned();
    while let Some(replacement) = suffix_replacement(&extension) {
        let rewritten = format!("{base}{replacement}");
        let (new_base, new_extension) = split_extension(&rewritten);
        (base, extension) = (new_base.to_owned(), new_extension.to_owned());
    }
    lookup_extension(strip_encoding(&base, &extension).1)
}

/// The `suffix_map` replacement for `extension`, compared lowercased.
fn suffix_replacement(extension: &str) -> Option<&'static str> {
    let lowered = extension.to_lowercase();
    SUFFIX_MAP
        .iter()
        .find(|(suffix, _)| *suffix == lowered)
        .map(|(_, replacement)| *replacement)
}

/// Drops a (case-sensitive) compression suffix and splits again, as `guess_type` does with `encodings_map`.
fn strip_encoding<'a>(base: &'a str, extension: &'a str) -> (&'a str, &'a str) {
    if ENCODING_SUFFIXES.contains(&extension) {
        split_extension(base)
    } else {
        (base, extension)
    }
}

/// Looks `extension.lower()` up in the strict table.
fn lookup_extension(extension: &str) -> Option<&'static str> {
    let lowered = extension.to_lowercase();
    STRICT_TYPES
        .binary_search_by(|(known, _)| (*known).cmp(lowered.as_str()))
        .ok()
        .and_then(|index| STRICT_TYPES.get(index))
        .map(|(_, media_type)| *media_type)
}

/// The media type of a `data:` URL body (everything after `data:`), per `guess_type`.
fn data_url_media_type(body: &str) -> Option<&str> {
    let comma = body.find(',')?;
    let head = body.get(..comma)?;
    let media_type = head.split_once(';').map_or(head, |(before, _)| before);
    if media_type.contains('=') || !media_type.contains('/') {
        Some("text/plain")
    } else {
        Some(media_type)
    }
}

/// `posixpath.splitext`: `(root, extension)`, where leading dots of the last segment never start an extension.
pub(crate) fn split_extension(path: &str) -> (&str, &str) {
    let segment_start = path.rfind('/').map_or(0, |slash| slash + 1);
    let Some(dot) = path.rfind('.') else { return (path, "") };
    if dot < segment_start {
        return (path, "");
    }
    let has_non_dot_before = path
        .get(segment_start..dot)
        .is_some_and(|stem| stem.bytes().any(|b| b != b'.'));
    if has_non_dot_before {
        (path.get(..dot).unwrap_or(path), path.get(dot..).unwrap_or_default())
    } else {
        (path, "")
    }
}

/// True when pydantic-ai treats `url` as a YouTube URL (`VideoUrl.is_youtube`): the `urlparse` hostname is exactly
/// `youtu.be`, `youtube.com`, `www.youtube.com` or `m.youtube.com` (lowercased, without userinfo, port or brackets).
/// `music.youtube.com` is deliberately not one of them.
///
/// A URL that Python's `urlparse` refuses (unbalanced `[`/`]`, an invalid bracketed host, NFKC-hazardous netloc
/// characters) makes pydantic-ai raise instead; this returns `false` for it, and [`infer_url_media_type`] reports
/// no media type, which is what pydantic-ai's dump writes.
///
/// ```
/// use msgflow_media::is_youtube_url;
///
/// assert!(is_youtube_url("https://user@WWW.YouTube.com:443/watch?v=x"));
/// assert!(is_youtube_url("https://youtu.be/abc"));
/// assert!(!is_youtube_url("https://music.youtube.com/watch?v=x"));
/// assert!(!is_youtube_url("youtube.com/watch")); // no `//`, so no hostname
/// ```
pub fn is_youtube_url(url: &str) -> bool {
    youtube_check(url).unwrap_or(false)
}

fn youtube_check(url: &str) -> Result<bool, UrlSplitError> {
    let parsed = url_parse(url)?;
    let host = hostname(&parsed.netloc);
    Ok(matches!(
        host.as_deref(),
        Some("youtu.be" | "youtube.com" | "www.youtube.com" | "m.youtube.com")
    ))
}

/// Which `FileUrl` subclass a URL item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UrlKind {
    /// `ImageUrl`, `kind` = `image-url`.
    Image,
    /// `AudioUrl`, `kind` = `audio-url`.
    Audio,
    /// `VideoUrl`, `kind` = `video-url`.
    Video,
    /// `DocumentUrl`, `kind` = `document-url`.
    Document,
}

impl UrlKind {
    /// The wire `kind` tag of this item kind.
    ///
    /// ```
    /// assert_eq!(msgflow_media::UrlKind::Video.kind_tag(), "video-url");
    /// ```
    pub fn kind_tag(self) -> &'static str {
        match self {
            UrlKind::Image => "image-url",
            UrlKind::Audio => "audio-url",
            UrlKind::Video => "video-url",
            UrlKind::Document => "document-url",
        }
    }

    /// The kind for a wire `kind` tag, or `None` for a tag that is not a URL kind.
    ///
    /// ```
    /// use msgflow_media::UrlKind;
    /// assert_eq!(UrlKind::from_kind_tag("image-url"), Some(UrlKind::Image));
    /// assert_eq!(UrlKind::from_kind_tag("binary"), None);
    /// ```
    pub fn from_kind_tag(tag: &str) -> Option<UrlKind> {
        match tag {
            "image-url" => Some(UrlKind::Image),
            "audio-url" => Some(UrlKind::Audio),
            "video-url" => Some(UrlKind::Video),
            "document-url" => Some(UrlKind::Document),
            _ => None,
        }
    }
}

/// The media type pydantic-ai infers for a URL item that has no explicit one (`FileUrl._infer_media_type`).
///
/// `VideoUrl` on a YouTube host ([`is_youtube_url`]) is `video/mp4`; everything else is [`guess_media_type`]. The
/// item kind does not constrain the result (an image URL ending in `.pdf` gets `application/pdf`). `None` means
/// pydantic-ai would raise `ValueError` ("Could not infer media type from image URL: ..."), which its dump turns
/// into `"media_type": null`. For a `VideoUrl` that includes a URL `urlparse` refuses, even with a known extension.
///
/// ```
/// use msgflow_media::{infer_url_media_type, UrlKind};
///
/// assert_eq!(infer_url_media_type(UrlKind::Video, "https://youtu.be/x").as_deref(), Some("video/mp4"));
/// assert_eq!(infer_url_media_type(UrlKind::Image, "https://x/doc.pdf").as_deref(), Some("application/pdf"));
/// assert_eq!(infer_url_media_type(UrlKind::Image, "https://x/noext"), None);
/// ```
pub fn infer_url_media_type(kind: UrlKind, url: &str) -> Option<String> {
    if kind == UrlKind::Video {
        match youtube_check(url) {
            Ok(true) => return Some("video/mp4".to_owned()),
            Ok(false) => {}
            Err(_) => return None,
        }
    }
    guess_media_type(url).map(str::to_owned)
}

/// The `media_type` a URL item dumps: the explicit value when it is truthy (non-empty), else
/// [`infer_url_media_type`]. `None` is written as `null`.
///
/// ```
/// use msgflow_media::{url_item_media_type, UrlKind};
///
/// assert_eq!(url_item_media_type(UrlKind::Image, Some("image/gif"), "https://x/a.png").as_deref(), Some("image/gif"));
/// assert_eq!(url_item_media_type(UrlKind::Image, Some(""), "https://x/a.png").as_deref(), Some("image/png"));
/// ```
pub fn url_item_media_type(kind: UrlKind, explicit: Option<&str>, url: &str) -> Option<String> {
    match explicit {
        Some(media_type) if !media_type.is_empty() => Some(media_type.to_owned()),
        _ => infer_url_media_type(kind, url),
    }
}

/// `urlparse(url).scheme` (lowercased, `""` for none), or `None` where Python's `urlparse` raises
/// `ValueError` (unbalanced brackets in the netloc, ...). pydantic-ai reads it to tell whether a file
/// item of a tool result saved without a file record may load as a file (`_check_file_provenance`).
///
/// ```
/// use msgflow_media::url_scheme;
///
/// assert_eq!(url_scheme("HTTPS://example.com/a.png").as_deref(), Some("https"));
/// assert_eq!(url_scheme("gs://bucket/a.pdf").as_deref(), Some("gs"));
/// assert_eq!(url_scheme("noscheme.png").as_deref(), Some(""));
/// assert_eq!(url_scheme("http://[::1/x"), None);
/// ```
pub fn url_scheme(url: &str) -> Option<String> {
    url_parse(url).ok().map(|parsed| parsed.scheme)
}

/// Why pydantic-ai cannot compute an `UploadedFile`'s media type: Python's `urlparse(file_id)` raises
/// `ValueError`, so the property (and a dump of the item) raises too.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("file id {file_id:?} is not a URL Python's urlparse accepts ({reason})")]
pub struct UnparsableFileId {
    /// The offending file id.
    pub file_id: String,
    /// What `urlsplit` objects to.
    pub reason: &'static str,
}

/// The media type pydantic-ai infers for an `UploadedFile` with no explicit one: [`guess_media_type`] on
/// `urlparse(file_id).path` (scheme, netloc, `;params`, query and fragment removed), else
/// `application/octet-stream`.
///
/// # Errors
///
/// [`UnparsableFileId`] when Python's `urlparse` raises for `file_id` (for example `gs://[bucket/x.pdf`).
///
/// ```
/// use msgflow_media::uploaded_file_media_type;
///
/// assert_eq!(uploaded_file_media_type("file-abc123").unwrap(), "application/octet-stream");
/// assert_eq!(uploaded_file_media_type("gs://bucket/report.pdf?alt=media").unwrap(), "application/pdf");
/// ```
pub fn uploaded_file_media_type(file_id: &str) -> Result<String, UnparsableFileId> {
    let parsed = url_parse(file_id).map_err(|error| UnparsableFileId {
        file_id: file_id.to_owned(),
        reason: match error {
            UrlSplitError::UnbalancedBrackets => "Invalid IPv6 URL",
            UrlSplitError::InvalidBracketedHost => "invalid bracketed host",
            UrlSplitError::NfkcNetloc => "netloc contains invalid characters under NFKC normalization",
        },
    })?;
    Ok(guess_media_type(&parsed.path).unwrap_or(OCTET_STREAM).to_owned())
}

/// The `media_type` an `UploadedFile` dumps: the explicit value whenever one is given (**even `""`**: this property
/// tests `is not None`, unlike `FileUrl`'s truthiness test), else [`uploaded_file_media_type`].
///
/// # Errors
///
/// As [`uploaded_file_media_type`], only reached without an explicit value.
///
/// ```
/// use msgflow_media::uploaded_file_item_media_type;
///
/// assert_eq!(uploaded_file_item_media_type(Some(""), "x.pdf").unwrap(), "");
/// assert_eq!(uploaded_file_item_media_type(None, "x.pdf").unwrap(), "application/pdf");
/// ```
pub fn uploaded_file_item_media_type(explicit: Option<&str>, file_id: &str) -> Result<String, UnparsableFileId> {
    match explicit {
        Some(media_type) => Ok(media_type.to_owned()),
        None => uploaded_file_media_type(file_id),
    }
}

/// The media type `BinaryContent.from_path` picks: [`guess_media_type`] on `str(Path(path))`, else
/// `application/octet-stream`.
///
/// `Path()` normalizes first (repeated `/` collapsed, `.` components and trailing `/` dropped, exactly two leading
/// `/` kept, `""` becomes `.`), so `a.png/` is `image/png` here although [`guess_media_type`] says `None`.
///
/// ```
/// use msgflow_media::media_type_from_path;
///
/// assert_eq!(media_type_from_path("/tmp/report.final.PDF"), "application/pdf");
/// assert_eq!(media_type_from_path("/tmp/photo.png/"), "image/png");
/// assert_eq!(media_type_from_path("/tmp/Makefile"), "application/octet-stream");
/// ```
pub fn media_type_from_path(path: &str) -> String {
    let normalized = normalize_posix_path(path);
    guess_media_type(&normalized).unwrap_or(OCTET_STREAM).to_owned()
}

/// `str(pathlib.PurePosixPath(path))` in CPython 3.11.
fn normalize_posix_path(path: &str) -> String {
    let root = if path.starts_with("//") && !path.starts_with("///") {
        "//"
    } else if path.starts_with('/') {
        "/"
    } else {
        ""
    };
    let parts: Vec<&str> = path
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    if root.is_empty() && parts.is_empty() {
        return ".".to_owned();
    }
    format!("{root}{}", parts.join("/"))
}
