//! `msgflow tools`: the tool-call registry replayed from a history (msgflow-adapter and
//! msgflow-registry), as JSON, or as guidance hints.

use crate::outcome::Failure;
use crate::runner::{FileCommand, Mode, Processed, Source};

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
        let history = super::parse_history(source)?;
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
