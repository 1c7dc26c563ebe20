//! `msgflow fmt`: rewrite a history in pydantic-ai's compact form.

use clap::Args;

use crate::args::{CorpusArgs, InputArgs, OutputArgs, StrictArgs};
use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

/// `msgflow fmt`.
#[derive(Debug, Args)]
pub struct FmtArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub strict: StrictArgs,
    /// Write nothing; exit 1 if an input is not already in compact form.
    #[arg(long, conflicts_with_all = ["output", "in_place"])]
    pub check: bool,
}

/// The examples and notes after `msgflow fmt --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow fmt history.json > compact.json\n",
    "  cat history.json | msgflow fmt - -o compact.json\n",
    "  msgflow fmt --in-place --backup history.json    # keeps history.json.bak\n",
    "  msgflow fmt --in-place -r histories/            # batch: every *.json, in parallel\n",
    "  msgflow fmt --check histories/                  # exit 1 if any file would change\n\n",
    "The output has no trailing newline, exactly like pydantic-ai's dump_json.\n",
    "A history pydantic-ai 2.68.0 would not load is written with a warning, or refused with --strict.\n",
    "In batch mode fmt needs --in-place or -o DIR.\n\n",
    "With --check, exit status 1 means some input is not in compact form.\n\n",
    exit_codes_text!()
);

/// Runs `msgflow fmt`.
pub fn run(args: &FmtArgs) -> Status {
    let command = Fmt {
        check: args.check,
        strict: args.strict.strict,
    };
    crate::corpus::run_or_files(&command, &args.input, &args.corpus, &args.output)
}

/// Parses each input with msgflow_wire and writes it back as pydantic-ai 2.68's `dump_json`
/// would (no trailing newline). With `check`, writes nothing and reports inputs that would change.
pub struct Fmt {
    /// Only report whether the input is already in compact form.
    pub check: bool,
    /// Refuse output pydantic-ai 2.68.0 would not load (`--strict`).
    pub strict: bool,
}

impl FileCommand for Fmt {
    fn mode(&self) -> Mode {
        if self.check {
            Mode::Report { json: false }
        } else {
            Mode::Transform
        }
    }

    fn strict(&self) -> bool {
        self.strict
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let history = crate::runner::parse_history(source)?;
        if !self.check {
            return Ok(Processed::history(history, String::new()));
        }
        let compact = msgflow_wire::to_vec(&history).map_err(|err| {
            Failure::invalid(
                format!("cannot serialise the history: {err}"),
                Some("please report this".to_owned()),
            )
        })?;
        if compact == source.bytes() {
            return Ok(Processed::default());
        }
        Ok(Processed {
            status: Status::Problems,
            notes: format!(
                "msgflow: {}: not in pydantic-ai's compact form (`msgflow fmt --in-place` rewrites it)\n",
                source.label
            ),
            ..Processed::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COMPACT: &str = r#"[{"parts":[{"content":"hi","timestamp":"2025-01-02T03:04:05.678901Z","part_kind":"user-prompt"}],"timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}]"#;

    fn run(check: bool, input: &str) -> Result<Processed, Failure> {
        Fmt { check, strict: false }.process(&Source {
            label: "t.json",
            input: &msgflow_wire::Input::from(input.to_owned()),
            row: false,
        })
    }

    #[test]
    fn compacts_indented_input() -> Result<(), Failure> {
        let indented = serde_json::to_string_pretty(
            &serde_json::from_str::<serde_json::Value>(COMPACT)
                .map_err(|err| Failure::invalid(err.to_string(), None))?,
        )
        .map_err(|err| Failure::invalid(err.to_string(), None))?;
        assert_eq!(run(false, &indented)?.into_bytes()?, COMPACT.as_bytes());
        assert_eq!(run(true, &indented)?.status, Status::Problems);
        assert_eq!(run(true, COMPACT)?.status, Status::Ok);
        Ok(())
    }

    #[test]
    fn rejects_what_is_not_a_history() {
        assert!(matches!(
            run(false, "{}"),
            Err(Failure {
                status: Status::Invalid,
                ..
            })
        ));
    }
}
