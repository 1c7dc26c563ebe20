//! `msgflow wire`: msgflow's canonical form back to a pydantic-ai history (msgflow-adapter), the
//! inverse of `msgflow canonical`.

use clap::Args;

use crate::args::{InputArgs, OutputArgs, StrictArgs};
use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

/// `msgflow wire`.
#[derive(Debug, Args)]
pub struct WireArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub strict: StrictArgs,
}

/// The examples and notes after `msgflow wire --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow wire canonical.json > history.json\n",
    "  msgflow canonical history.json | msgflow wire - | cmp - history.json\n\n",
    "The input is canonical JSON as `msgflow canonical` writes it (`msgflow schema canonical`).\n\n",
    exit_codes_text!()
);

/// Runs `msgflow wire`.
pub fn run(args: &WireArgs) -> Status {
    let command = ToWire {
        strict: args.strict.strict,
    };
    crate::runner::run(&command, &args.input, &args.output)
}

/// Converts canonical JSON back to a pydantic-ai history (compact form).
pub struct ToWire {
    /// Refuse output pydantic-ai 2.68.0 would not load (`--strict`).
    pub strict: bool,
}

impl FileCommand for ToWire {
    fn mode(&self) -> Mode {
        Mode::Transform
    }

    fn strict(&self) -> bool {
        self.strict
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let canonical = msgflow_canonical::from_json_slice(source.bytes()).map_err(|err| {
            Failure::invalid(
                format!("not msgflow canonical JSON: {err}"),
                Some(
                    "the input must be an array of canonical messages as `msgflow canonical` writes them \
                     (`msgflow schema canonical` prints the shape)"
                        .to_owned(),
                ),
            )
        })?;
        let history = msgflow_adapter::from_canonical_history(&canonical).map_err(|err| {
            Failure::invalid(
                format!("cannot convert to a pydantic-ai history: {err}"),
                Some("fix that message (message and part indices are zero-based)".to_owned()),
            )
        })?;
        Ok(Processed::history(history, String::new()))
    }
}
