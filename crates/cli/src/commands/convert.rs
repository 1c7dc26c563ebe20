//! `msgflow canonical` and `msgflow wire`: convert between pydantic-ai's wire form and msgflow's
//! canonical form (msgflow-adapter).

use crate::outcome::Failure;
use crate::runner::{FileCommand, Mode, Processed, Source};

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
        let history = super::parse_history(source)?;
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
