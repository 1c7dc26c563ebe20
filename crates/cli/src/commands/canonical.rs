//! `msgflow canonical`: a pydantic-ai history in msgflow's canonical form (msgflow-adapter);
//! `msgflow wire` converts it back.

use clap::Args;

use crate::args::{InputArgs, OutputArgs};
use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

/// `msgflow canonical`.
#[derive(Debug, Args)]
pub struct CanonicalArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Pretty-print (indented) instead of compact JSON.
    #[arg(long)]
    pub pretty: bool,
}

/// The examples and notes after `msgflow canonical --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow canonical history.json > canonical.json\n",
    "  msgflow canonical --pretty history.json | less\n",
    "  msgflow canonical -r -o canonical/ histories/    # batch: one output file per input\n\n",
    "`msgflow wire` converts the output back, byte for byte.\n\n",
    exit_codes_text!()
);

/// Runs `msgflow canonical`.
pub fn run(args: &CanonicalArgs) -> Status {
    crate::runner::run(&ToCanonical { pretty: args.pretty }, &args.input, &args.output)
}

/// Converts a pydantic-ai history to canonical JSON.
pub struct ToCanonical {
    /// Indent the output.
    pub pretty: bool,
}

impl FileCommand for ToCanonical {
    fn mode(&self) -> Mode {
        Mode::Transform
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let history = crate::runner::parse_history(source)?;
        let canonical = msgflow_adapter::to_canonical_history(&history);
        let written = if self.pretty {
            msgflow_canonical::to_json_vec_pretty(&canonical)
        } else {
            msgflow_canonical::to_json_vec(&canonical)
        };
        let output = written.map_err(|err| {
            Failure::invalid(
                format!("cannot write canonical JSON: {err}"),
                Some("please report this".to_owned()),
            )
        })?;
        Ok(Processed {
            output,
            ..Processed::default()
        })
    }
}
