//! `msgflow convert --from FORMAT --to FORMAT`: histories to and from the formats around
//! pydantic-ai (msgflow-formats), every loss reported on stderr, `--strict` refusing any.

use std::path::PathBuf;

use clap::Args;

use msgflow_formats::{Format, Output};

use crate::args::InputArgs;
use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

/// `msgflow convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Write to FILE instead of standard output (`-` is stdout); in batch mode, a directory DIR
    /// that receives one file per input.
    #[arg(short = 'o', long, value_name = "FILE|DIR")]
    pub output: Option<PathBuf>,
    /// The input's format: pydantic-ai, openai-chat, anthropic, vercel-ui, ag-ui or otel.
    #[arg(long, value_name = "FORMAT", default_value = "pydantic-ai")]
    pub from: msgflow_formats::Format,
    /// The output's format: pydantic-ai, openai-chat, anthropic, vercel-ui, ag-ui or otel.
    #[arg(long, value_name = "FORMAT", default_value = "pydantic-ai")]
    pub to: msgflow_formats::Format,
    /// Refuse any loss: exit 2 and write nothing when the conversion would drop, invent or change
    /// a value (or write a history pydantic-ai 2.68.0 would not load).
    #[arg(long)]
    pub strict: bool,
    /// For the UI formats (vercel-ui, ag-ui): keep what pydantic-ai's adapters drop, so that a history
    /// converted to the UI format and back is unchanged (off: exactly pydantic-ai's adapters).
    #[arg(long)]
    pub lossless: bool,
    /// The Vercel AI SDK version vercel-ui output is for: 5, or 6 (tool calls awaiting a result
    /// as `approval-requested`).
    #[arg(long, value_name = "VERSION", default_value_t = 5, value_parser = clap::value_parser!(u8).range(5..=6))]
    pub vercel_sdk: u8,
    /// The pydantic-ai instrumentation version otel output is for (`InstrumentationSettings(version=...)`):
    /// 2 to 6; pydantic-ai 2.68.0's default is 5 (6 puts tool results in the `tool` role).
    #[arg(long, value_name = "VERSION", default_value_t = msgflow_formats::otel::DEFAULT_VERSION, value_parser = clap::value_parser!(u8).range(1..=6))]
    pub otel_version: u8,
}

/// The examples and notes after `msgflow convert --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow convert --from openai-chat chat.json -o history.json     # messages from a database\n",
    "  msgflow convert --from openai-chat finetune.jsonl -o histories.jsonl\n",
    "  msgflow convert --to openai-chat history.json                     # {\"messages\": [...]}\n",
    "  msgflow convert --from anthropic request.json -o history.json     # a logged Messages API request\n",
    "  msgflow convert --to vercel-ui --vercel-sdk 6 history.json        # UIMessage[] for useChat\n",
    "  msgflow convert --from vercel-ui --lossless ui.json -o history.json\n",
    "  msgflow convert --from ag-ui run_input.json -o history.json       # a RunAgentInput's messages\n",
    "  msgflow convert --from otel traces.jsonl -o histories.jsonl        # OTLP JSON: one history per agent run\n\n",
    "openai-chat input is an array of Chat Completions messages, a request body {\"messages\": [...]}, a Batch\n",
    "API line {\"body\": {...}}, or JSON Lines of those (one conversation per line; the output is then JSON\n",
    "Lines too). To openai-chat is the request pydantic-ai 2.68.0's OpenAIChatModel sends; from it, the\n",
    "inverse of that mapping. anthropic input is a Messages API request {\"system\": ..., \"messages\": [...]}, a\n",
    "Message Batches line {\"params\": {...}}, a bare array of messages, or JSON Lines of those; to and from it\n",
    "mirror AnthropicModel the same way.\n",
    "Every value dropped, invented (timestamps pydantic-ai fills in, tool-call ids\n",
    "of legacy function calls) or changed is reported on stderr, grouped, with the JSON path of its first\n",
    "occurrence; --strict refuses any. The crate README of msgflow-formats tabulates what each direction\n",
    "cannot hold.\n\n",
    "vercel-ui is an array of Vercel AI SDK UIMessages (or a chat request body {\"messages\": [...]}); both\n",
    "directions equal pydantic-ai 2.68.0's VercelAIAdapter (dump_messages / load_messages). --lossless adds\n",
    "what that adapter drops (one assistant message per turn with step-start parts, and a record of the exact\n",
    "messages in each message's first part), so that a history converted to vercel-ui and back is unchanged.\n\n",
    "ag-ui is an array of AG-UI messages (or a RunAgentInput {\"messages\": [...]}); both directions equal\n",
    "pydantic-ai 2.68.0's AGUIAdapter with ag-ui-protocol 1.0, message ids aside (UUID5s of their place, not\n",
    "random). --lossless adds a record of the exact messages in the metadata of each message's last AG-UI message.\n\n",
    "otel is a span's message attributes {\"gen_ai.input.messages\": [...], \"gen_ai.output.messages\": [...],\n",
    "\"gen_ai.system_instructions\": [...]}. To it: what pydantic-ai 2.68.0's instrumentation (--otel-version)\n",
    "records on the model request span answered by the history's last response. From it: that document, a bare\n",
    "message array, an agent run's pydantic_ai.all_messages, or an OTLP JSON trace export (one history per\n",
    "agent run, from its all_messages or its last model request span).\n\n",
    exit_codes_text!()
);

/// Runs `msgflow convert`.
pub fn run(args: &ConvertArgs) -> Status {
    let command = Convert {
        from: args.from,
        to: args.to,
        strict: args.strict,
        options: msgflow_formats::ConvertOptions {
            lossless: args.lossless,
            vercel_sdk_version: args.vercel_sdk,
            otel_version: args.otel_version,
        },
    };
    crate::runner::run(
        &command,
        &args.input,
        &crate::runner::report_destination(args.output.clone()),
    )
}

/// Converts each input from one format to another.
pub struct Convert {
    /// The input's format.
    pub from: Format,
    /// The output's format.
    pub to: Format,
    /// Refuse any loss (exit 2, nothing written).
    pub strict: bool,
    /// Lossless UI formats, the Vercel AI SDK version.
    pub options: msgflow_formats::ConvertOptions,
}

impl FileCommand for Convert {
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
            // The output is about the input's size: a buffer of that size is not grown (and copied)
            // from empty.
            Output::Histories(histories) => {
                let mut output = Vec::with_capacity(text.len());
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
                let mut output = Vec::with_capacity(text.len());
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
