//! `msgflow export --to PROVIDER`: the request pydantic-ai 2.68.0 would send for a history
//! (msgflow-providers), as pretty JSON.

use clap::Args;

use msgflow_providers::Provider;
use msgflow_wire::ModelMessage;

use crate::args::{CorpusArgs, InputArgs, ReportOutputArgs};
use crate::outcome::{Failure, Status};
use crate::provider::ProfileArgs;
use crate::runner::{FileCommand, Mode, Processed, Source};

/// `msgflow export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub output: ReportOutputArgs,
    /// The provider whose request to build: anthropic, openai-chat or openai-responses.
    #[arg(long, visible_alias = "provider", value_name = "PROVIDER")]
    pub to: msgflow_providers::Provider,
    #[command(flatten)]
    pub profile: ProfileArgs,
}

/// The examples and notes after `msgflow export --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow export --to anthropic history.json          # {\"system\": ..., \"messages\": [...]}\n",
    "  msgflow export --to openai-chat history.json        # {\"messages\": [...]}\n",
    "  msgflow export --to openai-responses history.json   # {\"instructions\": ..., \"input\": [...]}\n\n",
    "The request equals what pydantic-ai 2.68.0's AnthropicModel (claude-sonnet-4-5), OpenAIChatModel (gpt-4o)\n",
    "and OpenAIResponsesModel (gpt-5) build with default settings and no tools. A history holding parts\n",
    "msgflow does not export exactly yet is refused with exit 2, naming the part; nothing is downloaded.\n\n",
    exit_codes_text!()
);

/// Runs `msgflow export`.
pub fn run(args: &ExportArgs) -> Status {
    let options = match args.profile.export_options(Some(args.to)) {
        Ok(options) => options,
        Err(status) => return status,
    };
    let command = Export { to: args.to, options };
    let destination = crate::runner::report_destination(args.output.output.clone());
    crate::corpus::run_or_files(&command, &args.input, &args.corpus, &destination)
}

/// Exports each input to one provider's request.
pub struct Export {
    /// The provider whose request to build.
    pub to: Provider,
    /// The profile settings other than the defaults.
    pub options: msgflow_providers::ExportOptions,
}

impl FileCommand for Export {
    fn mode(&self) -> Mode {
        Mode::Report { json: true }
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let history = crate::runner::parse_history(source)?;
        let request = msgflow_providers::export_with(&history, self.to, &self.options)
            .map_err(|error| crate::provider::export_failure(&error))?;
        let mut output = serde_json::to_string_pretty(&request)
            .map_err(|err| Failure::invalid(format!("cannot serialise the request: {err}"), None))?;
        output.push('\n');
        Ok(Processed {
            output: output.into_bytes(),
            notes: invented_ids_note(&history),
            ..Processed::default()
        })
    }
}

/// A note for stderr when the request names tool parts by ids the history does not hold
/// ([`msgflow_providers::InventedIds`]). Empty when every tool part has an id.
fn invented_ids_note(history: &[ModelMessage]) -> String {
    let invented = msgflow_providers::InventedIds::of(history);
    if invented.is_empty() {
        String::new()
    } else {
        format!("note: {invented}\n")
    }
}
