//! `msgflow repair`: pydantic-ai's `repair_messages` (msgflow-sanitize), reporting every change.

use std::path::PathBuf;

use crate::files;
use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

/// Repairs each input; changes go to stderr, and as JSON to `report` when set.
pub struct Repair {
    /// What the repair does.
    pub options: msgflow_sanitize::RepairOptions,
    /// Where to write the JSON list of changes (single input only; checked by the caller).
    pub report: Option<PathBuf>,
    /// Then fix what this provider would still reject (msgflow-providers).
    pub provider: Option<msgflow_providers::Provider>,
    /// Refuse output pydantic-ai 2.68.0 would not load (`--strict`).
    pub strict: bool,
}

impl FileCommand for Repair {
    fn mode(&self) -> Mode {
        Mode::Transform
    }

    fn strict(&self) -> bool {
        self.strict
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        if let Some(provider) = self.provider {
            return super::provider::repair(source, provider, &self.options, self.report.as_deref());
        }
        let history = super::parse_history(source)?;
        let repaired = msgflow_sanitize::repair(history, &self.options);
        let remaining = msgflow_sanitize::remaining(&repaired.history, &self.options);
        if let Some(path) = &self.report {
            let report = Report {
                changes: &repaired.report.changes,
                remaining: &remaining,
            };
            let mut json = serde_json::to_vec_pretty(&report)
                .map_err(|err| Failure::invalid(format!("cannot serialise the repair report: {err}"), None))?;
            json.push(b'\n');
            // Written before the history is delivered: if it fails, nothing else is written.
            files::write_atomically(path, &json, None).map_err(|err| Failure::unwritable(path, &err))?;
        }
        let mut notes: String = repaired
            .report
            .changes
            .iter()
            .map(|change| format!("msgflow: {}: {change}\n", source.label))
            .collect();
        for left in &remaining {
            notes.push_str(&format!(
                "msgflow: {}: left: {}; why: {}\n",
                source.label, left.violation, left.why_left
            ));
        }
        let status = if remaining.is_empty() {
            Status::Ok
        } else {
            Status::Problems
        };
        Ok(Processed {
            status,
            ..Processed::history(repaired.history, notes)
        })
    }
}

/// The JSON written by `--report`: every change, then every problem left and why.
#[derive(serde::Serialize)]
struct Report<'a> {
    changes: &'a [msgflow_sanitize::Change],
    remaining: &'a [msgflow_sanitize::Remaining],
}
