//! `msgflow convert --from FORMAT --to FORMAT`: histories to and from the formats around
//! pydantic-ai (msgflow-formats), every loss reported on stderr, `--strict` refusing any.

use msgflow_formats::{Format, Output};

use crate::outcome::Failure;
use crate::runner::{FileCommand, Mode, Processed, Source};

/// Converts each input from one format to another.
pub struct ConvertFormat {
    /// The input's format.
    pub from: Format,
    /// The output's format.
    pub to: Format,
    /// Refuse any loss (exit 2, nothing written).
    pub strict: bool,
    /// Lossless UI formats, the Vercel AI SDK version.
    pub options: msgflow_formats::ConvertOptions,
}

impl FileCommand for ConvertFormat {
    fn mode(&self) -> Mode {
        Mode::Transform
    }

    fn strict(&self) -> bool {
        self.strict
    }

    /// Input that is not UTF-8 text is no format's (the runner reads it before `process`).
    fn unreadable_history(&self, err: &msgflow_wire::ParseError) -> Failure {
        Failure::invalid(
            format!("not {} input msgflow can convert: {err}", self.from),
            Some("the input must be UTF-8 JSON or JSON Lines".to_owned()),
        )
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let text = std::str::from_utf8(source.bytes())
            .map_err(|err| Failure::invalid(format!("the input is not UTF-8: {err}"), None))?;
        let converted = msgflow_formats::convert_with(text, self.from, self.to, &self.options).map_err(|err| {
            let document = if err.document > 0 {
                format!("document {} (0-based) ", err.document)
            } else {
                String::new()
            };
            Failure::invalid(
                format!("{document}not {} input msgflow can convert: {err}", self.from),
                Some(format!(
                    "fix the value at {} (`msgflow convert --help` lists the accepted shapes)",
                    err.path
                )),
            )
        })?;
        let groups = converted.report.groups();
        if self.strict {
            if let Some(first) = groups.first() {
                let more = converted.report.losses.len() - 1;
                return Err(Failure::invalid(
                    format!(
                        "refusing a lossy conversion from {} to {}: {} {} at {}{} (and {more} more)",
                        self.from,
                        self.to,
                        first.kind,
                        first.what,
                        first.first.1,
                        document_suffix(first.first.0),
                    ),
                    Some("without --strict the output is written and every loss is listed on stderr".to_owned()),
                ));
            }
        }
        let mut notes = String::new();
        for group in &groups {
            let times = if group.count == 1 {
                String::new()
            } else {
                format!("{} times, first ", group.count)
            };
            notes.push_str(&format!(
                "msgflow: note: {}: {} {} ({times}at {}{})\n",
                source.label,
                group.kind,
                group.what,
                group.first.1,
                document_suffix(group.first.0)
            ));
        }
        match converted.output {
            Output::Histories(mut histories) if histories.len() == 1 => {
                Ok(Processed::history(histories.pop().expect("one history"), notes))
            }
            Output::Histories(histories) => {
                let mut output = Vec::new();
                for history in &histories {
                    if self.strict {
                        crate::runner::refuse_unloadable(history)?;
                    }
                    msgflow_wire::to_writer(&mut output, history)
                        .map_err(|err| Failure::invalid(format!("cannot serialise a history: {err}"), None))?;
                    output.push(b'\n');
                }
                Ok(Processed {
                    output,
                    notes,
                    ..Processed::default()
                })
            }
            Output::Documents(documents) => {
                let mut output = Vec::new();
                let single = documents.len() == 1;
                for document in &documents {
                    let written = if single {
                        serde_json::to_writer_pretty(&mut output, document)
                    } else {
                        serde_json::to_writer(&mut output, document)
                    };
                    written.map_err(|err| Failure::invalid(format!("cannot serialise the output: {err}"), None))?;
                    output.push(b'\n');
                }
                Ok(Processed {
                    output,
                    notes,
                    ..Processed::default()
                })
            }
        }
    }
}

fn document_suffix(document: usize) -> String {
    if document == 0 {
        String::new()
    } else {
        format!(" of document {document}")
    }
}
