//! The rule texts and media checks OpenAI's two APIs share (Chat Completions and Responses).

use super::media::{base64_pdf_pages, data_uri_parts, decoded, decoded_len, limits, Limit};
use super::table::{rule, Rule, Violation};
use crate::openai_responses::InputContent;
use crate::{PartLocation, Provider};

/// "Image input requirements: file types PNG (.png), JPEG (.jpeg and .jpg), WEBP (.webp),
/// non-animated GIF (.gif)" (Images and vision, both APIs).
pub(crate) const OPENAI_IMAGE_DOCUMENTATION: &str =
    "https://platform.openai.com/docs/guides/images-vision#image-input-requirements";
/// OpenAI's answer to an image of another format (as reported by its users, typo included).
pub(crate) const OPENAI_IMAGE_FORMAT_ERROR: &str = "You uploaded an unsupported image. Please make sure your image has of one the following formats: ['png', 'jpeg', 'gif', 'webp'].";
pub(crate) const OPENAI_IMAGE_FORMAT_REPAIR: &str =
    "not fixed: msgflow does not convert images; convert it to PNG, JPEG, WEBP or GIF (or remove it) yourself";
// The per-request media limits (both APIs): "Up to 50 MB total payload size per request; up to 500
// individual image inputs per request" (Images and vision, "Image input requirements"); "up to 100
// pages and 32MB of total content in a single request to the API, across multiple file inputs"
// (File inputs, "Usage considerations"). OpenAI does not document the errors' texts: these name what
// is checked.
pub(crate) const OPENAI_PDF_DOCUMENTATION: &str =
    "https://platform.openai.com/docs/guides/pdf-files#usage-considerations";
pub(crate) const OPENAI_TOO_MANY_IMAGES_ERROR: &str = "Too many images in the request: {} (at most 500).";
pub(crate) const OPENAI_IMAGES_TOO_LARGE_ERROR: &str =
    "The images in the request total {} bytes, more than the 50 MB payload limit.";
pub(crate) const OPENAI_PDF_PAGES_ERROR: &str = "The PDFs in the request have {} pages, more than the limit of 100.";
pub(crate) const OPENAI_FILES_TOO_LARGE_ERROR: &str =
    "The files in the request total {} bytes, more than the 32 MB limit.";
pub(crate) const OPENAI_MEDIA_REPAIR: &str = "not fixed: msgflow does not shrink or drop media; send fewer or smaller files (or leave older messages out with `msgflow trim`) yourself";

/// OpenAI's media rules (both APIs): each image's type and animation, checked as it is met, and
/// the request's totals of images, image payload, PDF pages and file bytes, reported once at the
/// item that passes each limit ([`OpenAiMedia::finish`]).
pub(crate) struct OpenAiMedia {
    provider: Provider,
    table: &'static [Rule],
    images: Limit,
    image_payload: Limit,
    pdf_pages: Limit,
    file_bytes: Limit,
}

impl OpenAiMedia {
    pub(crate) fn new(provider: Provider, table: &'static [Rule]) -> Self {
        OpenAiMedia {
            provider,
            table,
            images: Limit::default(),
            image_payload: Limit::default(),
            pdf_pages: Limit::default(),
            file_bytes: Limit::default(),
        }
    }

    pub(crate) fn rule_id(&self, name: &str) -> String {
        format!("{}/{name}", self.provider.name())
    }

    pub(crate) fn image(&mut self, url: &str, at: PartLocation, violations: &mut Vec<Violation>) {
        let _ = self.images.add(1, limits::OPENAI_MAX_IMAGES, at);
        let Some((media_type, data)) = data_uri_parts(url) else {
            return;
        };
        let _ = self.image_payload.add(url.len(), limits::OPENAI_MAX_IMAGE_PAYLOAD, at);
        if !limits::OPENAI_IMAGE_TYPES.contains(&media_type) {
            violations.push(Violation::new(
                rule(self.table, &self.rule_id("image-media-type")),
                at,
                &[],
            ));
        } else if media_type == "image/gif"
            && decoded(data)
                .and_then(|bytes| msgflow_media::gif_frames(&bytes))
                .is_some_and(|frames| frames > 1)
        {
            violations.push(Violation::new(rule(self.table, &self.rule_id("animated-gif")), at, &[]));
        }
    }

    pub(crate) fn file(&mut self, file_data: &str, at: PartLocation) {
        let Some((media_type, data)) = data_uri_parts(file_data) else {
            return;
        };
        let _ = self
            .file_bytes
            .add(decoded_len(data), limits::OPENAI_MAX_FILE_BYTES, at);
        if media_type == "application/pdf" {
            let _ = self
                .pdf_pages
                .add(base64_pdf_pages(data), limits::OPENAI_MAX_PDF_PAGES, at);
        }
    }

    /// The images and files of Responses input contents.
    pub(crate) fn contents(&mut self, contents: &[InputContent], at: PartLocation, violations: &mut Vec<Violation>) {
        for content in contents {
            match content {
                InputContent::InputImage {
                    image_url: Some(url), ..
                } => self.image(url, at, violations),
                InputContent::InputFile {
                    file_data: Some(data), ..
                } => self.file(data, at),
                _ => {}
            }
        }
    }

    pub(crate) fn finish(self, violations: &mut Vec<Violation>) {
        let table = self.table;
        self.images.report(table, &self.rule_id("too-many-images"), violations);
        self.image_payload
            .report(table, &self.rule_id("images-too-large"), violations);
        self.pdf_pages
            .report(table, &self.rule_id("pdf-too-many-pages"), violations);
        self.file_bytes
            .report(table, &self.rule_id("files-too-large"), violations);
    }
}
