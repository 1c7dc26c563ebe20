//! The media limits more than one provider's rules check, and the helpers that measure base64 media.

use super::table::{rule, Rule, Violation};
use crate::PartLocation;

/// The media limits the rules check, each from the documentation its rule cites.
pub(crate) mod limits {
    /// Anthropic's image media types.
    pub const ANTHROPIC_IMAGE_TYPES: [&str; 4] = ["image/jpeg", "image/png", "image/gif", "image/webp"];
    /// Anthropic's 5 MB per image, measured on the base64 data (the error's byte count).
    pub const ANTHROPIC_MAX_IMAGE_BASE64: usize = 5 * 1024 * 1024;
    /// Anthropic's largest image side.
    pub const ANTHROPIC_MAX_IMAGE_SIDE: u32 = 8000;
    /// More images than this in a request lower the largest side to [`ANTHROPIC_MANY_IMAGES_SIDE`].
    pub const ANTHROPIC_MANY_IMAGES: usize = 20;
    /// Anthropic's largest image side in a request of many images.
    pub const ANTHROPIC_MANY_IMAGES_SIDE: u32 = 2000;
    /// OpenAI's image media types.
    pub const OPENAI_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/gif"];
    /// Gemini's inline data per request, measured on the base64 text the request carries.
    pub const GEMINI_MAX_INLINE_BASE64: usize = 100 * 1024 * 1024;
    /// Anthropic's Messages API request size.
    pub const ANTHROPIC_MAX_REQUEST_BYTES: usize = 32 * 1024 * 1024;
    /// Anthropic's PDF pages per request (a model with a 200k-token window).
    pub const ANTHROPIC_MAX_PDF_PAGES: usize = 100;
    /// OpenAI's images per request.
    pub const OPENAI_MAX_IMAGES: usize = 500;
    /// OpenAI's image payload per request, measured on the `data:` URIs sent.
    pub const OPENAI_MAX_IMAGE_PAYLOAD: usize = 50 * 1024 * 1024;
    /// OpenAI's PDF pages per request.
    pub const OPENAI_MAX_PDF_PAGES: usize = 100;
    /// OpenAI's file content per request, in bytes (decoded).
    pub const OPENAI_MAX_FILE_BYTES: usize = 32 * 1024 * 1024;
    /// Base64 text read for an image's header (PNG, GIF and WebP headers are in the first bytes; a
    /// JPEG frame header further on than this is not looked for).
    pub const HEADER_BASE64: usize = 64 * 1024;
}

/// Width and height from the header of a base64 image (PNG, GIF, WebP, JPEG), decoding only its
/// first [`limits::HEADER_BASE64`] characters; `None` when they do not say.
pub(crate) fn image_header_dimensions(data: &str) -> Option<(u32, u32)> {
    use base64::Engine as _;
    let prefix = data.get(..data.len().min(limits::HEADER_BASE64))?;
    let prefix = &prefix[..prefix.len() / 4 * 4];
    let bytes = base64::engine::general_purpose::STANDARD.decode(prefix).ok()?;
    msgflow_media::image_dimensions(&bytes)
}

/// The media type and base64 data of a `data:` URI (`data:<type>;base64,...`), `None` for any
/// other URL.
pub(crate) fn data_uri_parts(url: &str) -> Option<(&str, &str)> {
    url.strip_prefix("data:")?.split_once(";base64,")
}

/// The bytes of base64 `data`, `None` when it does not decode.
pub(crate) fn decoded(data: &str) -> Option<Vec<u8>> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(data).ok()
}

/// The size in bytes of what base64 `data` holds.
pub(crate) fn decoded_len(data: &str) -> usize {
    let padding = data.bytes().rev().take_while(|&b| b == b'=').count().min(2);
    (data.len() / 4 * 3).saturating_sub(padding)
}

/// The pages of a base64 PDF, as its page objects say (a PDF whose pages are in compressed object
/// streams says nothing: 0, so that no limit is reported on a guess).
pub(crate) fn base64_pdf_pages(data: &str) -> usize {
    decoded(data)
        .and_then(|bytes| msgflow_media::pdf_pages(&bytes))
        .unwrap_or(0)
}

/// A request-wide limit: the running total, and where it was first passed.
#[derive(Default)]
pub(crate) struct Limit {
    pub(crate) total: usize,
    pub(crate) passed_at: Option<PartLocation>,
}

impl Limit {
    /// Adds an item's amount; `true` when this item is the one that passes the limit.
    pub(crate) fn add(&mut self, amount: usize, limit: usize, at: PartLocation) -> bool {
        self.total += amount;
        let passes = self.total > limit && self.passed_at.is_none();
        if passes {
            self.passed_at = Some(at);
        }
        passes
    }

    /// The violation of `rule_id` at the item that passed the limit, naming the request's total.
    pub(crate) fn report(&self, table: &'static [Rule], rule_id: &str, violations: &mut Vec<Violation>) {
        if let Some(at) = self.passed_at {
            violations.push(Violation::new(rule(table, rule_id), at, &[&self.total.to_string()]));
        }
    }
}
