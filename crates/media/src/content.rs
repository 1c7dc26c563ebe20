//! The other user-content items (`TextContent`, `StructuredContent`, `CachePoint`), the conversion of any item into
//! a `UserContent`, and a user-prompt part built from items.

use msgflow_wire::{
    AudioUrl, BinaryContent, CachePoint, CachePointTtl, DocumentUrl, Extra, Field, ImageUrl, RawJson,
    StructuredContent, TextContent, Timestamp, UploadedFile, UserContent, UserPromptContent, UserPromptPart, VideoUrl,
};
use serde_json::Value;

use crate::build::BuildError;

/// A `TextContent`: text with application metadata that is not sent to the model.
///
/// ```
/// use serde_json::json;
///
/// let text = msgflow_media::text_content("hello", json!({"source": "ui"}));
/// assert_eq!(
///     serde_json::to_string(&text)?,
///     r#"{"content":"hello","metadata":{"source":"ui"},"kind":"text-content"}"#
/// );
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn text_content(content: impl Into<String>, metadata: impl Into<Value>) -> TextContent {
    TextContent {
        content: content.into(),
        metadata: any_field(metadata.into()),
        extra: Extra::new(),
    }
}

/// An `Any` field: null as `Field::Null` (as the wire crate reads it back), anything else kept as given.
fn any_field(value: Value) -> Field<RawJson> {
    match value {
        Value::Null => Field::Null,
        other => Field::Present(RawJson::from(other)),
    }
}

/// A `CachePoint` (prompt-caching breakpoint); `None` means pydantic-ai's default TTL, `5m`.
///
/// ```
/// assert_eq!(serde_json::to_string(&msgflow_media::cache_point(None))?, r#"{"kind":"cache-point","ttl":"5m"}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn cache_point(ttl: Option<CachePointTtl>) -> CachePoint {
    CachePoint {
        ttl: Field::Present(ttl.unwrap_or(CachePointTtl::V5m)),
        extra: Extra::new(),
    }
}

/// Starts a `StructuredContent`: a structured value with the text rendered for models without structured input.
///
/// ```
/// use serde_json::json;
///
/// let state = msgflow_media::structured_content(json!({"state": "open"}))
///     .tag("ui_state")
///     .description("The UI state")
///     .build()?;
/// assert_eq!(state.content.get().map(String::as_str), Some("The UI state\n<ui_state>{\"state\":\"open\"}</ui_state>"));
/// # Ok::<(), msgflow_media::BuildError>(())
/// ```
pub fn structured_content(value: impl Into<Value>) -> StructuredContentBuilder {
    StructuredContentBuilder {
        value: value.into(),
        tag: None,
        description: None,
        metadata: Value::Null,
        content: None,
    }
}

/// Builds a `StructuredContent` (from [`structured_content`]). Only pydantic-ai's default `json` rendering is
/// reproduced; for another rendering, pass the rendered text with [`StructuredContentBuilder::content`].
#[derive(Debug, Clone)]
#[must_use = "a builder does nothing until `build()` is called"]
pub struct StructuredContentBuilder {
    value: Value,
    tag: Option<String>,
    description: Option<String>,
    metadata: Value,
    content: Option<String>,
}

/// The framing tags pydantic-ai refuses as a `StructuredContent.tag` (`_FRAMING_TAG_NAMES`).
const FRAMING_TAGS: [&str; 8] = [
    "assistant_thinking",
    "context",
    "context_diff",
    "conversation_summary",
    "retry_feedback",
    "system",
    "tool_result",
    "validation_errors",
];

/// `MODEL_VISIBLE_NAME.fullmatch(name)`: `[a-z][a-z0-9]*(?:_[a-z0-9]+)*`.
fn is_model_visible_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name
            .split('_')
            .all(|word| !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// `_LEGACY_NAME.fullmatch(name)`: `[a-z_][a-z0-9_]*`, still accepted (pydantic-ai warns).
fn is_legacy_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_')
}

/// pydantic-ai's tag check (`StructuredContent.__post_init__` with `model_visible_name_error`), with its messages.
fn check_tag(tag: &str) -> Result<(), BuildError> {
    const WHAT: &str = "`StructuredContent.tag`";
    if tag.to_lowercase().starts_with("pyai:") {
        return Err(BuildError::StructuredContentTag(format!(
            "{WHAT} cannot start with 'pyai:', which is reserved for Pydantic AI; got {}.",
            python_repr(tag)
        )));
    }
    if !is_model_visible_name(tag) && !is_legacy_name(tag) {
        return Err(BuildError::StructuredContentTag(format!(
            "{WHAT} must be lowercase snake_case, like `judge_feedback`; got {}.",
            python_repr(tag)
        )));
    }
    if FRAMING_TAGS.contains(&tag) {
        return Err(BuildError::StructuredContentTag(format!(
            "{WHAT} cannot be {}, a built-in framing tag.",
            python_repr(tag)
        )));
    }
    Ok(())
}

/// A close-enough Python `repr` of a string for error messages (single quotes unless the text has one).
fn python_repr(text: &str) -> String {
    if text.contains('\'') && !text.contains('"') {
        format!("\"{text}\"")
    } else {
        format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
    }
}

/// pydantic-ai's default rendering (`_render_as('json')`): compact JSON of the value with `<`, `>`, `&` escaped,
/// wrapped in the tag and prefixed by the description when given.
///
/// `serde_json` (1.0.154) writes a JSON value with the same bytes as `pydantic_core.to_json`: raw UTF-8, the same
/// escapes, the same float digits. A float read from text keeps its spelling in a `Value` (`1.50`, `1e5`), where
/// Python holds the number, so floats are written from their `f64`.
fn render_json(value: &Value, tag: Option<&str>, description: Option<&str>) -> String {
    let compact = serde_json::to_string(&FloatsAsPython(value)).unwrap_or_else(|_| value.to_string());
    let mut text = compact
        .replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026");
    if let Some(tag) = tag {
        text = format!("<{tag}>{text}</{tag}>");
    }
    match description {
        Some(description) => format!("{description}\n{text}"),
        None => text,
    }
}

/// A JSON value serialised with each float written from its `f64` (`1.50` as `1.5`, `1e5` as `100000.0`), as Python
/// writes the float it read.
struct FloatsAsPython<'v>(&'v Value);

impl serde::Serialize for FloatsAsPython<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap, SerializeSeq};
        match self.0 {
            Value::Number(number) if number.to_string().contains(['.', 'e', 'E']) => match number.as_f64() {
                Some(float) => serializer.serialize_f64(float),
                None => number.serialize(serializer),
            },
            Value::Array(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(&FloatsAsPython(item))?;
                }
                seq.end()
            }
            Value::Object(object) => {
                let mut map = serializer.serialize_map(Some(object.len()))?;
                for (key, item) in object {
                    map.serialize_entry(key, &FloatsAsPython(item))?;
                }
                map.end()
            }
            other => other.serialize(serializer),
        }
    }
}

impl StructuredContentBuilder {
    /// The tag the rendered value is wrapped in (`<tag>...</tag>`): lowercase snake_case, not a framing tag.
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.tag = Some(tag.into());
        self
    }

    /// Text written before the rendered value, followed by a newline.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Application metadata (any JSON value), not sent to models.
    pub fn metadata(mut self, metadata: impl Into<Value>) -> Self {
        self.metadata = metadata.into();
        self
    }

    /// The text sent to models, used as given instead of rendering the value (as pydantic-ai keeps a non-empty
    /// `content`; an empty one is rendered). The tag is then not checked, as in pydantic-ai.
    pub fn content(mut self, content: impl Into<String>) -> Self {
        self.content = Some(content.into());
        self
    }

    /// The item with `content` rendered exactly as pydantic-ai renders it when the item is created.
    ///
    /// # Errors
    ///
    /// [`BuildError::StructuredContentTag`] when rendering and the tag is refused by pydantic-ai.
    pub fn build(self) -> Result<StructuredContent, BuildError> {
        let content = match self.content {
            Some(content) if !content.is_empty() => content,
            // Never empty: compact JSON has at least one character.
            _ => rendered_on_load(&self.value, self.tag.as_deref(), self.description.as_deref())?,
        };
        Ok(StructuredContent {
            content: Field::Present(content),
            metadata: any_field(self.metadata),
            value: RawJson::from(self.value),
            tag: self.tag.into(),
            description: self.description.into(),
            extra: Extra::new(),
        })
    }
}

/// The text pydantic-ai renders for a structured-content item stored without one, when it loads it
/// (`StructuredContent.__post_init__`: `render`, its default JSON, since the format an item was made
/// with is not stored): what every reader of a stored item that has no `content` compares with.
///
/// ```
/// let text = msgflow_media::rendered_on_load(&serde_json::json!({"a": 1}), Some("state"), None)?;
/// assert_eq!(text, r#"<state>{"a":1}</state>"#);
/// # Ok::<(), msgflow_media::BuildError>(())
/// ```
///
/// # Errors
///
/// [`BuildError::StructuredContentTag`] for a tag pydantic-ai refuses to render under (it then
/// does not load the item).
pub fn rendered_on_load(value: &Value, tag: Option<&str>, description: Option<&str>) -> Result<String, BuildError> {
    if let Some(tag) = tag {
        check_tag(tag)?;
    }
    Ok(render_json(value, tag, description))
}

/// Conversion of anything a user prompt can hold into a [`UserContent`].
pub trait IntoUserContent {
    /// The item as a user-prompt content item.
    fn into_user_content(self) -> UserContent;
}

impl IntoUserContent for UserContent {
    fn into_user_content(self) -> UserContent {
        self
    }
}

impl IntoUserContent for String {
    fn into_user_content(self) -> UserContent {
        UserContent::Text(self)
    }
}

impl IntoUserContent for &str {
    fn into_user_content(self) -> UserContent {
        UserContent::Text(self.to_owned())
    }
}

macro_rules! into_user_content {
    ($($wire:ident => $variant:ident),* $(,)?) => {
        $(impl IntoUserContent for $wire {
            fn into_user_content(self) -> UserContent {
                UserContent::$variant(self)
            }
        })*
    };
}

into_user_content!(
    TextContent => TextContent,
    StructuredContent => StructuredContent,
    ImageUrl => ImageUrl,
    AudioUrl => AudioUrl,
    VideoUrl => VideoUrl,
    DocumentUrl => DocumentUrl,
    BinaryContent => Binary,
    UploadedFile => UploadedFile,
    CachePoint => CachePoint,
);

/// A `UserPromptPart` holding `items` (a list, as pydantic-ai writes a `Sequence[UserContent]`) at `timestamp`.
///
/// ```
/// use msgflow_media::{user_prompt, FileItem, IntoUserContent};
/// use msgflow_wire::Timestamp;
///
/// let part = user_prompt(
///     vec![
///         "What is in this image?".into_user_content(),
///         FileItem::image_url("https://example.com/chart.png").build()?.into_user_content(),
///     ],
///     Timestamp::parse("2025-01-02T03:04:05Z")?,
/// );
/// assert!(serde_json::to_string(&part)?.ends_with(r#""timestamp":"2025-01-02T03:04:05Z","part_kind":"user-prompt"}"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn user_prompt(items: impl IntoIterator<Item = UserContent>, timestamp: Timestamp) -> UserPromptPart {
    UserPromptPart {
        content: UserPromptContent::Items(items.into_iter().collect()),
        timestamp: Field::Present(timestamp),
        extra: Extra::new(),
    }
}
