//! `msgflow convert` for the binding: bytes of one format in, bytes of another and the losses out.

use super::{to_json, write, Error};

/// `msgflow convert --from F --to T [--lossless] [--vercel-sdk V] [--otel-version V] [--strict]`: one JSON document
/// per input document (per agent run for an OTLP trace export; a history as pydantic-ai writes it,
/// or the foreign format's JSON) and the losses as JSON.
pub fn convert(
    data: &[u8],
    from: &str,
    to: &str,
    options: &msgflow_formats::ConvertOptions,
    strict: bool,
) -> Result<(Vec<Vec<u8>>, String), Error> {
    let from: msgflow_formats::Format = from.parse().map_err(Error::Value)?;
    let to: msgflow_formats::Format = to.parse().map_err(Error::Value)?;
    let text = std::str::from_utf8(data).map_err(|err| Error::Value(format!("the input is not UTF-8: {err}")))?;
    let converted = msgflow_formats::convert_with(text, from, to, options).map_err(Error::Convert)?;
    if strict {
        if let Some(first) = converted.report.groups().first() {
            let more = converted.report.losses.len() - 1;
            return Err(Error::Lossy {
                message: format!(
                    "refusing a lossy conversion from {from} to {to}: {} {} at {} (and {more} more)",
                    first.kind, first.what, first.first.1
                ),
                document: first.first.0,
                path: first.first.1.clone(),
            });
        }
    }
    let documents = match converted.output {
        msgflow_formats::Output::Histories(histories) => histories
            .iter()
            .map(|history| write(history))
            .collect::<Result<_, _>>()?,
        msgflow_formats::Output::Documents(documents) => {
            // Each document is about its share of the input's size: its buffer is not grown (and
            // copied) from empty.
            let estimate = data.len() / documents.len().max(1);
            documents
                .iter()
                .map(|document| {
                    let mut bytes = Vec::with_capacity(estimate);
                    serde_json::to_writer(&mut bytes, document)
                        .map_err(|err| Error::Value(format!("cannot serialise the output: {err}")))?;
                    Ok(bytes)
                })
                .collect::<Result<_, _>>()?
        }
    };
    Ok((documents, to_json(&converted.report.losses)?))
}
