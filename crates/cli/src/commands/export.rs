//! `msgflow export --to PROVIDER`: the request pydantic-ai 2.68.0 would send for a history
//! (msgflow-providers), as pretty JSON.

use msgflow_providers::Provider;

use crate::outcome::Failure;
use crate::runner::{FileCommand, Mode, Processed, Source};

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
        let history = super::parse_history(source)?;
        let request = msgflow_providers::export_with(&history, self.to, &self.options)
            .map_err(|error| super::provider::export_failure(&error))?;
        let mut output = serde_json::to_string_pretty(&request)
            .map_err(|err| Failure::invalid(format!("cannot serialise the request: {err}"), None))?;
        output.push('\n');
        Ok(Processed {
            output: output.into_bytes(),
            ..Processed::default()
        })
    }
}
