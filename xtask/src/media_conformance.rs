//! The media-type and identifier differential check (part of `cargo xtask conformance`).
//!
//! 1. **Corpus.** `oracle/media_corpus.py` writes ~3,400 items (every baseline extension in every URL kind, case,
//!    query/fragment, compression suffixes, YouTube hosts, data URIs, uploaded-file ids, explicit overrides, base64
//!    variants); `oracle/conformance.py media` adds pydantic-ai's computed `media_type` and `identifier` to each.
//!    msgflow-media computes the same two values for every item (through its builders); any difference fails.
//! 2. **Histories.** Histories built in Rust with every item kind, every constructor, every `force_download` value,
//!    explicit and computed media types and identifiers, vendor metadata and tool results holding file items are
//!    written to `<work>/media/histories/`; `oracle/conformance.py check-accepts` must report each one accepted by
//!    pydantic-ai and re-dumped to the same bytes.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{bail, Context, Result};
use msgflow_media::{
    cache_point, effective_identifier, guess_media_type, identifier_for_file_id, record_content_file_digests,
    record_native_content_file_digests, structured_content, text_content, tool_return, user_prompt, BuildError,
    FileItem, IntoUserContent, UrlItem, UrlItemBuilder,
};
use msgflow_wire::{
    Base64Data, CachePointTtl, FinishReason, ForceDownload, ModelMessage, ModelRequest, ModelRequestPart,
    ModelResponse, ModelResponsePart, NativeToolCallPart, NativeToolReturnPart, RawJson, TextPart, Timestamp,
    ToolCallPart, UploadedFileProviderName, UserContent,
};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::project_root;

/// Compares msgflow-media with pydantic-ai; `python` is the venv's interpreter, `work` a scratch directory (the
/// check writes under `<work>/media/`).
pub fn run(python: &Path, work: &Path) -> Result<()> {
    let media_dir = work.join("media");
    std::fs::create_dir_all(&media_dir).with_context(|| format!("creating {}", media_dir.display()))?;
    check_corpus(python, &media_dir)?;
    check_histories(python, &media_dir)?;
    Ok(())
}

/// Runs one oracle script from the project root, failing with its output when it fails.
fn run_python(python: &Path, args: &[&std::ffi::OsStr]) -> Result<()> {
    let output = Command::new(python)
        .args(args)
        .current_dir(project_root())
        .output()
        .with_context(|| format!("running {}", python.display()))?;
    if !output.status.success() {
        bail!(
            "{} {:?} failed ({}):\n{}{}",
            python.display(),
            args,
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    print!("{}", String::from_utf8_lossy(&output.stdout));
    Ok(())
}

// --- 1. corpus ---------------------------------------------------------------------------------------------------

/// One item of `conformance.py media`'s output.
#[derive(Debug, Deserialize)]
struct CorpusEntry {
    kind: String,
    value: Value,
    media_type: Option<String>,
    identifier: Option<String>,
    py_media_type: Option<String>,
    py_identifier: Option<String>,
    #[serde(default)]
    py_error: Option<String>,
}

/// msgflow's answer for one corpus item: `None` when msgflow refuses to build the item.
type Computed = Option<(Option<String>, Option<String>)>;

fn check_corpus(python: &Path, media_dir: &Path) -> Result<()> {
    let corpus = media_dir.join("corpus.json");
    let oracle = media_dir.join("corpus-pydantic-ai.json");
    let root = project_root();
    run_python(
        python,
        &[
            root.join("oracle/media_corpus.py").as_os_str(),
            "--out".as_ref(),
            corpus.as_os_str(),
        ],
    )?;
    run_python(
        python,
        &[
            root.join("oracle/conformance.py").as_os_str(),
            "media".as_ref(),
            "--corpus".as_ref(),
            corpus.as_os_str(),
            "--out".as_ref(),
            oracle.as_os_str(),
        ],
    )?;
    let text = std::fs::read_to_string(&oracle).with_context(|| format!("reading {}", oracle.display()))?;
    let entries: Vec<CorpusEntry> =
        serde_json::from_str(&text).with_context(|| format!("parsing {}", oracle.display()))?;
    if entries.is_empty() {
        bail!("the media corpus is empty");
    }

    // kind -> (items, mismatches)
    let mut counts: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut mismatches = Vec::new();
    for entry in &entries {
        let expected = if entry.py_error.is_some() {
            None
        } else {
            Some((entry.py_media_type.clone(), entry.py_identifier.clone()))
        };
        let actual = compute(entry);
        let count = counts.entry(entry.kind.clone()).or_default();
        count.0 += 1;
        if actual != expected {
            count.1 += 1;
            mismatches.push(format!(
                "  {} {} (media_type {:?}, identifier {:?}): pydantic-ai {} / msgflow {}",
                entry.kind,
                entry.value,
                entry.media_type,
                entry.identifier,
                describe(&expected, entry.py_error.as_deref()),
                describe(&actual, None),
            ));
        }
    }
    println!("media corpus: {} items", entries.len());
    for (kind, (items, wrong)) in &counts {
        println!("  {kind:<14} {items:>5} items, {wrong} mismatches");
    }
    if !mismatches.is_empty() {
        const SHOWN: usize = 60;
        let total = mismatches.len();
        let listed: Vec<String> = mismatches.into_iter().take(SHOWN).collect();
        bail!(
            "{total} media corpus items differ from pydantic-ai (first {}):\n{}",
            listed.len(),
            listed.join("\n")
        );
    }
    Ok(())
}

fn describe(result: &Computed, error: Option<&str>) -> String {
    match (result, error) {
        (_, Some(error)) => format!("error ({error})"),
        (None, None) => "refused".to_owned(),
        (Some((media_type, identifier)), None) => format!("media_type {media_type:?}, identifier {identifier:?}"),
    }
}

/// Applies a corpus item's explicit overrides to a URL builder and builds it.
fn url_item<T: UrlItem>(builder: UrlItemBuilder<T>, entry: &CorpusEntry) -> Result<T, BuildError> {
    let mut builder = builder;
    if let Some(media_type) = &entry.media_type {
        builder = builder.media_type(media_type.clone());
    }
    if let Some(identifier) = &entry.identifier {
        builder = builder.identifier(identifier.clone());
    }
    builder.build()
}

/// The `(media_type, identifier)` msgflow gives a corpus item, exactly where `conformance.py media` reads them.
fn compute(entry: &CorpusEntry) -> Computed {
    let value = entry.value.as_str()?;
    let url_fields = |media_type: &msgflow_wire::Field<String>, identifier: &msgflow_wire::Field<String>| {
        Some((media_type.get().cloned(), identifier.get().cloned()))
    };
    match entry.kind.as_str() {
        "guess" => Some((guess_media_type(value).map(str::to_owned), None)),
        "image-url" => url_item(FileItem::image_url(value), entry)
            .ok()
            .and_then(|item| url_fields(&item.media_type, &item.identifier)),
        "audio-url" => url_item(FileItem::audio_url(value), entry)
            .ok()
            .and_then(|item| url_fields(&item.media_type, &item.identifier)),
        "video-url" => url_item(FileItem::video_url(value), entry)
            .ok()
            .and_then(|item| url_fields(&item.media_type, &item.identifier)),
        "document-url" => url_item(FileItem::document_url(value), entry)
            .ok()
            .and_then(|item| url_fields(&item.media_type, &item.identifier)),
        "uploaded-file" => {
            let mut builder = FileItem::uploaded_file(value, UploadedFileProviderName::Openai);
            if let Some(media_type) = &entry.media_type {
                builder = builder.media_type(media_type.clone());
            }
            if let Some(identifier) = &entry.identifier {
                builder = builder.identifier(identifier.clone());
            }
            match builder.build() {
                Ok(item) => url_fields(&item.media_type, &item.identifier),
                // pydantic-ai builds the item but its `media_type` property raises; the oracle reports None.
                Err(BuildError::UnparsableFileId(_)) => Some((
                    None,
                    Some(effective_identifier(entry.identifier.as_deref(), || {
                        identifier_for_file_id(value)
                    })),
                )),
                Err(_) => None,
            }
        }
        "binary" => {
            // Decoded as the history adapter decodes bytes (both alphabets, padding optional).
            let data = Base64Data::parse(value).ok()?.decode().ok()?;
            let mut builder = FileItem::binary(data, entry.media_type.clone()?);
            if let Some(identifier) = &entry.identifier {
                builder = builder.identifier(identifier.clone());
            }
            let item = builder.build().ok()?;
            Some((Some(item.media_type), item.identifier.get().cloned()))
        }
        _ => None,
    }
}

// --- 2. histories ------------------------------------------------------------------------------------------------

/// Fixed timestamps, so that the histories are the same on every run.
fn at(second: u32) -> Result<Timestamp> {
    Ok(Timestamp::parse(&format!(
        "2025-01-02T03:{:02}:{:02}Z",
        second / 60,
        second % 60
    ))?)
}

fn request(parts: Vec<ModelRequestPart>, second: u32) -> Result<ModelMessage> {
    let mut message = ModelRequest::new(parts);
    message.timestamp = Some(at(second)?).into();
    Ok(ModelMessage::from(message))
}

fn response(parts: Vec<ModelResponsePart>, second: u32) -> Result<ModelMessage> {
    let mut message = ModelResponse::new(parts);
    message.model_name = Some("test-model".to_owned()).into();
    message.timestamp = Some(at(second)?).into();
    message.provider_name = Some("test".to_owned()).into();
    message.finish_reason = Some(FinishReason::Stop).into();
    Ok(ModelMessage::from(message))
}

fn text_response(text: &str, second: u32) -> Result<ModelMessage> {
    response(vec![ModelResponsePart::Text(TextPart::new(text.to_owned()))], second)
}

const FORCE_DOWNLOADS: [ForceDownload; 3] = [ForceDownload::No, ForceDownload::Yes, ForceDownload::AllowLocal];

/// Every combination of overrides for one URL kind: no media type / explicit / empty, no identifier / explicit /
/// empty, each `force_download`, vendor metadata absent or an object.
fn url_variants<T: UrlItem>(
    make: impl Fn(&'static str) -> UrlItemBuilder<T>,
    urls: &[&'static str],
    into: impl Fn(T) -> UserContent,
) -> Result<Vec<UserContent>> {
    let mut items = Vec::new();
    for (index, url) in urls.iter().enumerate() {
        for media_type in [None, Some("application/x-custom"), Some("")] {
            for identifier in [None, Some("chosen-id"), Some("")] {
                let force_download = FORCE_DOWNLOADS
                    .get(index % FORCE_DOWNLOADS.len())
                    .cloned()
                    .unwrap_or_default();
                let mut builder = make(url).force_download(force_download);
                if let Some(media_type) = media_type {
                    builder = builder.media_type(media_type);
                }
                if let Some(identifier) = identifier {
                    builder = builder.identifier(identifier);
                }
                if identifier.is_some() {
                    builder = builder.vendor_metadata(
                        json!({"detail": "high", "rank": 2, "ratio": 0.5, "nested": {"é": [true, null]}}),
                    );
                }
                items.push(into(builder.build()?));
            }
        }
        for force_download in FORCE_DOWNLOADS {
            items.push(into(make(url).force_download(force_download).build()?));
        }
    }
    Ok(items)
}

/// URLs covering inference successes, failures (null media type), query strings and YouTube.
const URLS: [&str; 8] = [
    "https://example.com/chart.png",
    "https://example.com/report.pdf",
    "https://example.com/noext",
    "https://example.com/song.mp3?sig=1",
    "https://youtu.be/dQw4w9WgXcQ",
    "https://example.com/archive.tar.gz",
    "s3://bucket/clip.webm",
    "data:image/png;base64,iVBORw0KGgo=",
];

/// Small files for `FileItem::binary_from_path`.
fn write_sample_files(dir: &Path) -> Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let files = [
        ("photo.PNG", &b"\x89PNG\r\n\x1a\nhello"[..]),
        ("Makefile", b"all: x\n"),
        ("report.final.pdf", b"%PDF-1.7\n"),
        ("notes.md", "# Notes\nnon-ASCII: é\n".as_bytes()),
        ("backup.tgz", &[0x1f, 0x8b, 0x08, 0x00]),
    ];
    let mut paths = Vec::new();
    for (name, data) in files {
        let path = dir.join(name);
        std::fs::write(&path, data).with_context(|| format!("writing {}", path.display()))?;
        paths.push(path);
    }
    Ok(paths)
}

fn binary_items(sample_files: &[PathBuf]) -> Result<Vec<UserContent>> {
    let mut items = vec![
        FileItem::binary(&b""[..], "application/octet-stream")
            .build()?
            .into_user_content(),
        FileItem::binary(vec![0xfb, 0xff, 0xbf], "image/png")
            .build()?
            .into_user_content(),
        FileItem::binary(&b"hello"[..], "text/plain")
            .identifier("greeting")
            .vendor_metadata(json!({"detail": "low"}))
            .build()?
            .into_user_content(),
        FileItem::binary(&b"RIFF"[..], "audio/wav")
            .identifier("")
            .build()?
            .into_user_content(),
        FileItem::binary(&b"x"[..], "").build()?.into_user_content(),
        FileItem::binary_from_data_uri("data:image/png;base64,aGk=")
            .build()?
            .into_user_content(),
        FileItem::binary_from_data_uri("data:application/pdf;name=a.pdf;base64,JVBERi0=")
            .identifier("uri")
            .build()?
            .into_user_content(),
        FileItem::binary_from_data_uri("data:;base64,%2B%2f8=")
            .build()?
            .into_user_content(),
    ];
    for path in sample_files {
        items.push(FileItem::binary_from_path(path).build()?.into_user_content());
        items.push(
            FileItem::binary_from_path(path)
                .media_type("application/x-override")
                .identifier("from-path")
                .vendor_metadata(json!({"source": "disk"}))
                .build()?
                .into_user_content(),
        );
    }
    Ok(items)
}

const FILE_IDS: [&str; 6] = [
    "file-abc123",
    "files/report.pdf",
    "gs://bucket/video.mp4?alt=media",
    "s3://bucket/key.csv",
    "https://generativelanguage.googleapis.com/v1beta/files/x.png",
    "gs://[bucket/x.pdf",
];

fn uploaded_items() -> Result<Vec<UserContent>> {
    let mut items = Vec::new();
    for (index, file_id) in FILE_IDS.iter().enumerate() {
        let provider = UploadedFileProviderName::KNOWN
            .get(index % UploadedFileProviderName::KNOWN.len())
            .map_or(UploadedFileProviderName::Openai, |name| {
                UploadedFileProviderName::from_wire(name)
            });
        // Without a media type only ids Python's urlparse accepts can be dumped (pydantic-ai raises otherwise).
        if let Ok(item) = FileItem::uploaded_file(*file_id, provider.clone()).build() {
            items.push(item.into_user_content());
        }
        for media_type in ["application/pdf", ""] {
            items.push(
                FileItem::uploaded_file(*file_id, provider.clone())
                    .media_type(media_type)
                    .identifier(if media_type.is_empty() { "" } else { "up-id" })
                    .vendor_metadata(json!({"google": {"video_metadata": {"fps": 2}}}))
                    .build()?
                    .into_user_content(),
            );
        }
    }
    for provider in UploadedFileProviderName::KNOWN {
        items.push(
            FileItem::uploaded_file("file-xyz", UploadedFileProviderName::from_wire(provider))
                .build()?
                .into_user_content(),
        );
    }
    Ok(items)
}

fn other_items() -> Result<Vec<UserContent>> {
    Ok(vec![
        "plain text".into_user_content(),
        text_content("with metadata", json!({"source": "ui", "n": 1})).into_user_content(),
        text_content("no metadata", Value::Null).into_user_content(),
        structured_content(json!({"a": 1, "b": "<x>&", "f": 1e16, "small": 1e-7, "u": "é"}))
            .build()?
            .into_user_content(),
        structured_content(json!({"state": "open"}))
            .tag("ui_state")
            .description("The UI state")
            .metadata(json!([1, 2]))
            .build()?
            .into_user_content(),
        structured_content(json!([1, 2, 3]))
            .content("one, two, three")
            .build()?
            .into_user_content(),
        structured_content("text value")
            .tag("note2")
            .build()?
            .into_user_content(),
        cache_point(None).into_user_content(),
        cache_point(Some(CachePointTtl::V1h)).into_user_content(),
    ])
}

/// Tool results holding file items (recorded in `content_file_digests`) and plain values (no record).
fn tool_result_messages(first_second: u32) -> Result<Vec<ModelMessage>> {
    let image = serde_json::to_value(FileItem::image_url("https://example.com/chart.png").build()?)?;
    let no_type = serde_json::to_value(FileItem::image_url("https://example.com/noext").build()?)?;
    let audio = serde_json::to_value(
        FileItem::audio_url("https://example.com/a.mp3")
            .force_download(ForceDownload::AllowLocal)
            .vendor_metadata(json!({"k": 1}))
            .build()?,
    )?;
    let video = serde_json::to_value(FileItem::video_url("https://youtu.be/x").identifier("yt").build()?)?;
    let document = serde_json::to_value(
        FileItem::document_url("https://example.com/report.pdf")
            .media_type("application/pdf")
            .build()?,
    )?;
    let uploaded =
        serde_json::to_value(FileItem::uploaded_file("file-abc123", UploadedFileProviderName::Openai).build()?)?;
    let uploaded_empty = serde_json::to_value(
        FileItem::uploaded_file("files/x.pdf", UploadedFileProviderName::Anthropic)
            .media_type("")
            .build()?,
    )?;
    let binary = serde_json::to_value(FileItem::binary(&b"hi"[..], "text/plain").build()?)?;

    let contents = [
        json!([image.clone(), binary.clone(), {"nested": uploaded.clone(), "again": image.clone()}]),
        image.clone(),
        json!({"files": [audio, video, document], "note": "three files"}),
        json!([no_type, uploaded_empty]),
        binary,
        json!({"rows": [1, 2, 3]}),
        json!([]),
        json!("done"),
        json!(42),
        json!(1.5),
        json!(true),
        Value::Null,
    ];
    let mut messages = Vec::new();
    let mut second = first_second;
    for (index, content) in contents.into_iter().enumerate() {
        let call_id = format!("call_{index}");
        let mut call = ToolCallPart::new("fetch".to_owned());
        call.args = Some(RawJson::from(json!({"index": index}))).into();
        call.tool_call_id = Some(call_id.clone()).into();
        messages.push(response(vec![ModelResponsePart::ToolCall(call)], second)?);
        second += 1;
        let part = tool_return("fetch", call_id, content, at(second)?);
        messages.push(request(vec![ModelRequestPart::ToolReturn(part)], second)?);
        second += 1;
    }

    // A part built with `ToolReturnPart::new` and completed by `record_content_file_digests`.
    let mut part =
        msgflow_wire::ToolReturnPart::new("fetch".to_owned(), RawJson::from(json!({"image": image.clone()})));
    part.tool_call_id = Some("call_manual".to_owned()).into();
    part.timestamp = Some(at(second)?).into();
    record_content_file_digests(&mut part);
    messages.push(request(vec![ModelRequestPart::ToolReturn(part)], second)?);
    second += 1;

    // A built-in tool's return, recorded the same way.
    let mut native_call = NativeToolCallPart::new("web_fetch".to_owned());
    native_call.args = Some(RawJson::from(json!({"url": "https://example.com/chart.png"}))).into();
    native_call.tool_call_id = Some("native_1".to_owned()).into();
    native_call.provider_name = Some("test".to_owned()).into();
    let mut native_return = NativeToolReturnPart::new("web_fetch".to_owned(), RawJson::from(json!([image])));
    native_return.tool_call_id = Some("native_1".to_owned()).into();
    native_return.timestamp = Some(at(second)?).into();
    native_return.provider_name = Some("test".to_owned()).into();
    record_native_content_file_digests(&mut native_return);
    messages.push(response(
        vec![
            ModelResponsePart::BuiltinToolCall(native_call),
            ModelResponsePart::BuiltinToolReturn(native_return),
            ModelResponsePart::Text(TextPart::new("fetched".to_owned())),
        ],
        second,
    )?);
    Ok(messages)
}

/// Every history the check writes, by file name.
fn build_histories(media_dir: &Path) -> Result<Vec<(String, Vec<ModelMessage>)>> {
    let sample_files = write_sample_files(&media_dir.join("files"))?;
    let prompt_history = |items: Vec<UserContent>| -> Result<Vec<ModelMessage>> {
        let prompt = user_prompt(items, at(0)?);
        Ok(vec![
            request(vec![ModelRequestPart::UserPrompt(prompt)], 0)?,
            text_response("noted", 1)?,
        ])
    };
    let mut histories = vec![
        (
            "image-url".to_owned(),
            prompt_history(url_variants(FileItem::image_url, &URLS, UserContent::ImageUrl)?)?,
        ),
        (
            "audio-url".to_owned(),
            prompt_history(url_variants(FileItem::audio_url, &URLS, UserContent::AudioUrl)?)?,
        ),
        (
            "video-url".to_owned(),
            prompt_history(url_variants(FileItem::video_url, &URLS, UserContent::VideoUrl)?)?,
        ),
        (
            "document-url".to_owned(),
            prompt_history(url_variants(FileItem::document_url, &URLS, UserContent::DocumentUrl)?)?,
        ),
        ("binary".to_owned(), prompt_history(binary_items(&sample_files)?)?),
        ("uploaded-file".to_owned(), prompt_history(uploaded_items()?)?),
        ("text-structured-cache".to_owned(), prompt_history(other_items()?)?),
        ("tool-returns".to_owned(), tool_result_messages(0)?),
    ];
    // Everything in one conversation, as a model would see it.
    let mut mixed = Vec::new();
    for (_, history) in &histories {
        mixed.extend(history.iter().cloned());
    }
    histories.push(("all-kinds".to_owned(), mixed));
    Ok(histories)
}

/// One entry of `conformance.py check-accepts`'s report.
#[derive(Debug, Deserialize)]
struct AcceptEntry {
    file: String,
    accepted: bool,
    error: Option<String>,
    redump_equal: bool,
}

fn check_histories(python: &Path, media_dir: &Path) -> Result<()> {
    let dir = media_dir.join("histories");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("clearing {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir)?;
    let histories = build_histories(media_dir)?;
    let mut written = 0;
    for (name, history) in &histories {
        let bytes = msgflow_wire::to_vec(history)?;
        // msgflow reads its own output back unchanged before pydantic-ai is asked.
        let reparsed = msgflow_wire::from_slice(&bytes).with_context(|| format!("msgflow re-reading {name}"))?;
        if msgflow_wire::to_vec(&reparsed)? != bytes {
            bail!("msgflow does not write {name} back byte for byte");
        }
        std::fs::write(dir.join(format!("{name}.json")), &bytes)?;
        written += 1;
    }
    // The committed example must load too.
    let example = project_root().join("examples/multimodal/history.json");
    if example.exists() {
        std::fs::copy(&example, dir.join("example-multimodal.json"))?;
        written += 1;
    }

    let report_path = media_dir.join("histories-report.json");
    run_python(
        python,
        &[
            project_root().join("oracle/conformance.py").as_os_str(),
            "check-accepts".as_ref(),
            "--dir".as_ref(),
            dir.as_os_str(),
            "--out".as_ref(),
            report_path.as_os_str(),
        ],
    )?;
    let report: Vec<AcceptEntry> = serde_json::from_str(
        &std::fs::read_to_string(&report_path).with_context(|| format!("reading {}", report_path.display()))?,
    )?;
    if report.len() != written {
        bail!("check-accepts reported {} files, {written} were written", report.len());
    }
    let failures: Vec<String> = report
        .iter()
        .filter(|entry| !entry.accepted || !entry.redump_equal)
        .map(|entry| {
            format!(
                "  {}: accepted {}, redump_equal {}{}",
                entry.file,
                entry.accepted,
                entry.redump_equal,
                entry
                    .error
                    .as_deref()
                    .map(|error| format!(" ({error})"))
                    .unwrap_or_default()
            )
        })
        .collect();
    println!(
        "media histories: {written} files, {} accepted and byte-stable",
        written - failures.len()
    );
    if !failures.is_empty() {
        bail!(
            "pydantic-ai does not load or re-dump these histories unchanged:\n{}",
            failures.join("\n")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the whole check against `target/venv` (slow; needs the venv): `cargo test -p xtask media -- --ignored`.
    #[test]
    #[ignore = "needs target/venv with pydantic-ai 2.68.0"]
    fn media_conformance_against_the_venv() {
        let root = project_root();
        run(&root.join("target/venv/bin/python"), &root.join("target/xtask-work")).unwrap();
    }

    #[test]
    fn histories_cover_every_item_kind() {
        let dir = std::env::temp_dir().join(format!("msgflow-media-conformance-{}", std::process::id()));
        let histories = build_histories(&dir).unwrap();
        let bytes = msgflow_wire::to_vec(
            &histories
                .iter()
                .find(|(name, _)| name == "all-kinds")
                .map(|(_, h)| h.clone())
                .unwrap_or_default(),
        )
        .unwrap();
        let text = String::from_utf8(bytes).unwrap();
        for kind in [
            "\"kind\":\"image-url\"",
            "\"kind\":\"audio-url\"",
            "\"kind\":\"video-url\"",
            "\"kind\":\"document-url\"",
            "\"kind\":\"binary\"",
            "\"kind\":\"uploaded-file\"",
            "\"kind\":\"text-content\"",
            "\"kind\":\"structured-content\"",
            "\"kind\":\"cache-point\"",
            "\"force_download\":true",
            "\"force_download\":false",
            "\"force_download\":\"allow-local\"",
            "\"media_type\":null",
            "\"content_file_digests\":[\"",
            "\"content_file_digests\":[]",
            "\"part_kind\":\"builtin-tool-return\"",
        ] {
            assert!(text.contains(kind), "no {kind} in the histories");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
