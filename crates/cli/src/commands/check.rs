//! `msgflow check`: list what a provider would reject or pydantic-ai would change
//! (msgflow-sanitize's `check`), exit 1 when anything is found.

use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

/// Checks each input; text (one violation per line) or JSON. A history pydantic-ai 2.68.0
/// would not load always has violations (`not-loadable` and the unknown or mismatched parts
/// pydantic-ai refuses), so it exits 1.
pub struct Check {
    /// Print `{"valid": bool, "pydantic_ai_loadable": bool, "turns": N, "violations": [...]}`
    /// instead of text; each violation names the turn it is in (`msgflow_sanitize::Turns`, the
    /// cut points `trim` uses).
    pub json: bool,
    /// Check against this provider's rules instead (msgflow-providers).
    pub provider: Option<msgflow_providers::Provider>,
    /// The profile settings of the request the provider's rules are evaluated on.
    pub options: msgflow_providers::ExportOptions,
}

impl FileCommand for Check {
    fn mode(&self) -> Mode {
        Mode::Report { json: self.json }
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        if let Some(provider) = self.provider {
            return super::provider::check(source, provider, &self.options, self.json);
        }
        let history = super::parse_history(source)?;
        let violations = msgflow_sanitize::check_located(&history, source.input.as_str());
        let loadable = !violations.iter().any(|violation| violation.kind.refuses_loading());
        let status = if violations.is_empty() {
            Status::Ok
        } else {
            Status::Problems
        };
        let output = if self.json {
            let turns = msgflow_sanitize::Turns::of(&history);
            let located: Vec<serde_json::Value> = violations
                .iter()
                .map(|violation| {
                    let mut value = serde_json::to_value(violation).unwrap_or_default();
                    if let Some(object) = value.as_object_mut() {
                        let turn = turns
                            .starts()
                            .partition_point(|&start| start <= violation.message_index);
                        object.insert("turn".to_owned(), turn.saturating_sub(1).into());
                    }
                    value
                })
                .collect();
            let document = serde_json::json!({
                "valid": violations.is_empty(),
                "pydantic_ai_loadable": loadable,
                "turns": turns.len(),
                "violations": located,
            });
            let mut text = serde_json::to_string_pretty(&document)
                .map_err(|err| Failure::invalid(format!("cannot serialise the report: {err}"), None))?;
            text.push('\n');
            text
        } else if violations.is_empty() {
            "no problems found\n".to_owned()
        } else {
            violations.iter().map(|violation| format!("{violation}\n")).collect()
        };
        Ok(Processed {
            output: output.into_bytes(),
            status,
            ..Processed::default()
        })
    }
}
