//! OTLP JSON trace exports (`{"resourceSpans": [{"scopeSpans": [{"spans": [...]}]}]}`, as the
//! OpenTelemetry collector's file exporter and `OTLPSpanExporter` JSON write them): the spans of
//! pydantic-ai's agent runs and model requests, grouped into one set of message attributes per run.

use std::collections::HashMap;

use serde_json::Value;

use super::load::Attribute;
use super::{ALL_MESSAGES, INPUT_MESSAGES, OUTPUT_MESSAGES, SYSTEM_INSTRUCTIONS};
use crate::loss::{LossKind, Report};
use crate::openai_chat::{shape, ShapeError};

/// Whether a document is an OTLP JSON export.
pub(super) fn is_export(value: &Value) -> bool {
    value.get("resourceSpans").is_some()
}

/// One span's identity, place in the trace and message attributes.
struct Span {
    document: usize,
    trace_id: String,
    span_id: String,
    parent_id: String,
    name: String,
    path: String,
    start: u128,
    end: u128,
    attributes: Vec<Attribute<'static>>,
}

impl Span {
    fn has(&self, key: &str) -> bool {
        self.attributes.iter().any(|attribute| attribute.key == key)
    }

    /// An agent run span: it records the whole history, or is named as pydantic-ai names it
    /// (`agent run`, `invoke_agent <name>` in the GenAI conventions).
    fn is_agent_run(&self) -> bool {
        self.has(ALL_MESSAGES) || self.name == "agent run" || self.name.starts_with("invoke_agent")
    }

    fn is_model_request(&self) -> bool {
        !self.has(ALL_MESSAGES) && (self.has(INPUT_MESSAGES) || self.has(OUTPUT_MESSAGES))
    }
}

/// The spans of every export read.
#[derive(Default)]
pub(super) struct Spans {
    spans: Vec<Span>,
    documents: usize,
}

impl Spans {
    /// How many exports were added.
    pub(super) fn document_count(&self) -> usize {
        self.documents
    }

    /// Adds the spans of one export.
    pub(super) fn add(&mut self, value: &Value, document: usize) -> Result<(), ShapeError> {
        self.documents += 1;
        let resources = array(value.get("resourceSpans"), "$.resourceSpans")?;
        for (r, resource) in resources.iter().enumerate() {
            let resource_path = format!("$.resourceSpans[{r}]");
            // `instrumentationLibrarySpans`: the name before OTLP 0.15.
            let (key, scopes) = match (resource.get("scopeSpans"), resource.get("instrumentationLibrarySpans")) {
                (Some(scopes), _) => ("scopeSpans", Some(scopes)),
                (None, Some(scopes)) => ("instrumentationLibrarySpans", Some(scopes)),
                (None, None) => ("scopeSpans", None),
            };
            let Some(scopes) = scopes else { continue };
            let scopes = array(Some(scopes), &format!("{resource_path}.{key}"))?;
            for (s, scope) in scopes.iter().enumerate() {
                let scope_path = format!("{resource_path}.{key}[{s}]");
                let Some(spans) = scope.get("spans") else { continue };
                for (index, span) in array(Some(spans), &format!("{scope_path}.spans"))?.iter().enumerate() {
                    let path = format!("{scope_path}.spans[{index}]");
                    self.spans.push(read_span(span, &path, document)?);
                }
            }
        }
        Ok(())
    }

    /// The message attributes of each agent run (and of each trace's model requests under no
    /// run), in the order the runs started, with the document each comes from.
    pub(super) fn runs(mut self, report: &mut Report) -> Vec<(Vec<Attribute<'static>>, usize)> {
        self.spans.sort_by_key(|span| (span.start, span.end));
        let index: HashMap<(&str, &str), usize> = self
            .spans
            .iter()
            .enumerate()
            .map(|(position, span)| ((span.trace_id.as_str(), span.span_id.as_str()), position))
            .collect();
        // For each run (an agent run span, or a trace without one), its model request spans.
        let mut requests: HashMap<usize, Vec<usize>> = HashMap::new();
        let mut orphans: Vec<(String, Vec<usize>)> = Vec::new();
        for (position, span) in self.spans.iter().enumerate() {
            if !span.is_model_request() {
                continue;
            }
            let mut parent = span.parent_id.as_str();
            let mut run = None;
            // Bounded by the span count, against a cycle in a malformed export.
            for _ in 0..self.spans.len() {
                let Some(&ancestor) = index.get(&(span.trace_id.as_str(), parent)) else {
                    break;
                };
                if self.spans[ancestor].is_agent_run() {
                    run = Some(ancestor);
                    break;
                }
                parent = self.spans[ancestor].parent_id.as_str();
            }
            match run {
                Some(run) => requests.entry(run).or_default().push(position),
                None => match orphans.iter_mut().find(|(trace, _)| *trace == span.trace_id) {
                    Some((_, spans)) => spans.push(position),
                    None => orphans.push((span.trace_id.clone(), vec![position])),
                },
            }
        }
        // (start position for ordering, span giving the messages)
        let mut chosen: Vec<(usize, usize)> = Vec::new();
        for (position, span) in self.spans.iter().enumerate() {
            if !span.is_agent_run() {
                continue;
            }
            let requests = requests.get(&position).map_or(&[][..], Vec::as_slice);
            if span.has(ALL_MESSAGES) {
                chosen.push((position, position));
            } else if let Some(&last) = requests.iter().max_by_key(|&&request| self.spans[request].end) {
                chosen.push((position, last));
            } else {
                report.push(
                    LossKind::Dropped,
                    span.document,
                    span.path.clone(),
                    "an agent run span without messages (recorded with `include_content=False`, or its model \
                     request spans are not in the export)",
                );
            }
        }
        for (_, spans) in &orphans {
            if let Some(&last) = spans.iter().max_by_key(|&&request| self.spans[request].end) {
                chosen.push((spans[0], last));
            }
        }
        chosen.sort_unstable();
        let mut taken: Vec<Option<Span>> = self.spans.into_iter().map(Some).collect();
        chosen
            .into_iter()
            .filter_map(|(_, source)| {
                let span = taken[source].take()?;
                Some((span.attributes, span.document))
            })
            .collect()
    }
}

fn array<'v>(value: Option<&'v Value>, path: &str) -> Result<&'v [Value], ShapeError> {
    match value {
        Some(Value::Array(items)) => Ok(items),
        _ => Err(shape(path, "expected an array (an OTLP JSON trace export)")),
    }
}

fn text(span: &Value, key: &str) -> String {
    span.get(key).and_then(Value::as_str).unwrap_or_default().to_owned()
}

/// A time in nanoseconds: OTLP JSON writes 64-bit integers as strings, some writers as numbers.
fn nanos(span: &Value, key: &str) -> u128 {
    match span.get(key) {
        Some(Value::String(text)) => text.parse().unwrap_or(0),
        Some(Value::Number(number)) => number.as_u64().map_or(0, u128::from),
        _ => 0,
    }
}

fn read_span(span: &Value, path: &str, document: usize) -> Result<Span, ShapeError> {
    if !span.is_object() {
        return Err(shape(path, "expected a span object"));
    }
    let mut attributes = Vec::new();
    if let Some(list) = span.get("attributes") {
        for (index, attribute) in array(Some(list), &format!("{path}.attributes"))?.iter().enumerate() {
            let key = attribute.get("key").and_then(Value::as_str).unwrap_or_default();
            if ![ALL_MESSAGES, INPUT_MESSAGES, OUTPUT_MESSAGES, SYSTEM_INSTRUCTIONS].contains(&key) {
                continue;
            }
            let value_path = format!("{path}.attributes[{index}].value.stringValue");
            let Some(value) = attribute.get("value").and_then(|value| value.get("stringValue")) else {
                return Err(shape(
                    &value_path,
                    format!("expected `{key}` as a string value (its JSON text)"),
                ));
            };
            attributes.push(Attribute {
                key: key.to_owned(),
                value: std::borrow::Cow::Owned(value.clone()),
                path: value_path,
            });
        }
    }
    Ok(Span {
        document,
        trace_id: text(span, "traceId"),
        span_id: text(span, "spanId"),
        parent_id: text(span, "parentSpanId"),
        name: text(span, "name"),
        path: path.to_owned(),
        start: nanos(span, "startTimeUnixNano"),
        end: nanos(span, "endTimeUnixNano"),
        attributes,
    })
}
