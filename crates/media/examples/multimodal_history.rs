//! Builds the seed's multimodal message (text, an image URL, a document URL, inline bytes) and a model response,
//! and writes the history as pydantic-ai 2.68.0 dumps it.
//!
//! ```sh
//! cargo run -p msgflow-media --example multimodal_history                       # to stdout
//! cargo run -p msgflow-media --example multimodal_history -- examples/multimodal/history.json
//! ```
//!
//! Every timestamp is fixed, so the output is the same on every run (`examples/multimodal/history.json` is it).

use std::error::Error;

use msgflow_media::{tool_return, user_prompt, FileItem, IntoUserContent};
use msgflow_wire::{
    FinishReason, ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart, RawJson, TextPart,
    Timestamp, ToolCallPart,
};
use serde_json::json;

/// The bytes sent inline: a small CSV table.
const SALES_CSV: &[u8] = b"quarter,revenue\nq1,42\nq2,57\n";

fn build_history() -> Result<Vec<ModelMessage>, Box<dyn Error>> {
    // The seed's `agent.run(["...", ImageUrl(url=...), DocumentUrl(url=...)])`, plus inline bytes.
    let prompt = user_prompt(
        vec![
            "Analyse this image and this document".into_user_content(),
            FileItem::image_url("https://example.com/chart.png")
                .vendor_metadata(json!({"detail": "high"}))
                .build()?
                .into_user_content(),
            FileItem::document_url("https://example.com/report.pdf")
                .build()?
                .into_user_content(),
            FileItem::binary(SALES_CSV, "text/csv").build()?.into_user_content(),
        ],
        Timestamp::parse("2025-01-02T03:04:05Z")?,
    );
    let mut request = ModelRequest::new(vec![ModelRequestPart::UserPrompt(prompt)]);
    request.timestamp = Some(Timestamp::parse("2025-01-02T03:04:05Z")?).into();

    // The model asks for the full-size chart; the tool returns it as a file item, recorded in
    // `content_file_digests` so that pydantic-ai rebuilds it as an `ImageUrl` on load.
    let mut call = ToolCallPart::new("fetch_chart".to_owned());
    call.args = Some(RawJson::from(json!({"size": "full"}))).into();
    call.tool_call_id = Some("call_chart_1".to_owned()).into();
    let mut asking = ModelResponse::new(vec![ModelResponsePart::ToolCall(call)]);
    asking.model_name = Some("gpt-4o".to_owned()).into();
    asking.timestamp = Some(Timestamp::parse("2025-01-02T03:04:06Z")?).into();
    asking.provider_name = Some("openai".to_owned()).into();
    asking.finish_reason = Some(FinishReason::ToolCall).into();

    let full_chart = FileItem::image_url("https://example.com/chart-full.png").build()?;
    let result = tool_return(
        "fetch_chart",
        "call_chart_1",
        json!({"chart": serde_json::to_value(&full_chart)?, "caption": "Revenue by quarter"}),
        Timestamp::parse("2025-01-02T03:04:07Z")?,
    );
    let mut returning = ModelRequest::new(vec![ModelRequestPart::ToolReturn(result)]);
    returning.timestamp = Some(Timestamp::parse("2025-01-02T03:04:07Z")?).into();

    let mut answer = ModelResponse::new(vec![ModelResponsePart::Text(TextPart::new(
        "Revenue rose from 42 in Q1 to 57 in Q2; the report attributes it to the new pricing.".to_owned(),
    ))]);
    answer.model_name = Some("gpt-4o".to_owned()).into();
    answer.timestamp = Some(Timestamp::parse("2025-01-02T03:04:09Z")?).into();
    answer.provider_name = Some("openai".to_owned()).into();
    answer.finish_reason = Some(FinishReason::Stop).into();

    Ok(vec![
        ModelMessage::from(request),
        ModelMessage::from(asking),
        ModelMessage::from(returning),
        ModelMessage::from(answer),
    ])
}

fn main() -> Result<(), Box<dyn Error>> {
    let json = msgflow_wire::to_vec(&build_history()?)?;
    match std::env::args_os().nth(1) {
        Some(path) => std::fs::write(path, &json)?,
        None => {
            use std::io::Write;
            std::io::stdout().write_all(&json)?;
        }
    }
    Ok(())
}
