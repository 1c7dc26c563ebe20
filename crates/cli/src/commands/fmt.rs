//! `msgflow fmt`: rewrite a history in pydantic-ai's compact form.

use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

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
        let history = super::parse_history(source)?;
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
