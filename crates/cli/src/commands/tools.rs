//! `msgflow tools`: the tool-call registry replayed from a history (msgflow-adapter and
//! msgflow-registry), as JSON, or as guidance hints.

use clap::Args;

use crate::args::{InputArgs, ReportOutputArgs};
use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

/// `msgflow tools`.
#[derive(Debug, Args)]
pub struct ToolsArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: ReportOutputArgs,
    /// Print guidance hints for the next model turn (one per line) instead of the export.
    #[arg(long)]
    pub guidance: bool,
}

/// The examples and notes after `msgflow tools --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow tools history.json | jq '.calls[] | select(.status == \"failed\")'\n",
    "  msgflow tools --guidance history.json\n\n",
    "Registry warnings (lifecycles that do not fit) are printed on stderr.\n\n",
    exit_codes_text!()
);

/// Runs `msgflow tools`.
pub fn run(args: &ToolsArgs) -> Status {
    let command = Tools {
        guidance: args.guidance,
    };
    let destination = crate::runner::report_destination(args.output.output.clone());
    crate::runner::run(&command, &args.input, &destination)
}

/// Exports each input's tool-call registry.
pub struct Tools {
    /// Print guidance hints (text, one per line) instead of the JSON export.
    pub guidance: bool,
}

impl FileCommand for Tools {
    fn mode(&self) -> Mode {
        Mode::Report { json: !self.guidance }
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let history = crate::runner::parse_history(source)?;
        let (registry, warnings) = msgflow_adapter::tool_registry(&history);
        let notes = warnings
            .iter()
            .map(|warning| format!("msgflow: {}: warning: {warning}\n", source.label))
            .collect();
        let output = if self.guidance {
            let hints = msgflow_registry::guidance(&registry, &msgflow_registry::GuidanceConfig::default());
            hints.iter().map(|hint| format!("{hint}\n")).collect::<String>()
        } else {
            let mut text = serde_json::to_string_pretty(&registry.to_json())
                .map_err(|err| Failure::invalid(format!("cannot serialise the registry: {err}"), None))?;
            text.push('\n');
            text
        };
        Ok(Processed {
            output: output.into_bytes(),
            notes,
            ..Processed::default()
        })
    }
}
