//! `msgflow check`: list what a provider would reject or pydantic-ai would refuse or fix
//! (msgflow-sanitize's `check`), exit 1 when anything is found, and note the merges
//! pydantic-ai's repair makes in a history nothing is wrong with (`normalisations`).

use msgflow_wire::ParseErrorCategory;

use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

/// Checks each input; text (one violation per line) or JSON. A history pydantic-ai 2.68.0
/// would not load always has violations (`not-loadable` and the unknown or mismatched parts
/// pydantic-ai refuses), so it exits 1.
pub struct Check {
    /// Print `{"valid": bool, "pydantic_ai_loadable": bool, "turns": N, "violations": [...],
    /// "notes": [...]}` instead of text: `valid` is "no violations" (exit 0), which a history
    /// pydantic-ai loads may still lack (a dangling call loads, a provider rejects it); each
    /// violation names the turn it is in (`msgflow_sanitize::Turns`, the cut points `trim` uses);
    /// `notes` are the merges pydantic-ai's repair makes (`msgflow_sanitize::normalisations`),
    /// which fail nothing.
    pub json: bool,
    /// Exit 1 exactly when pydantic-ai 2.68.0 would not load the input (`--require-loadable`):
    /// an input msgflow's types cannot hold is then a finding, not an error, and violations
    /// that do not stop pydantic-ai loading the history do not change the exit status.
    pub require_loadable: bool,
    /// Check against this provider's rules instead (msgflow-providers).
    pub provider: Option<msgflow_providers::Provider>,
    /// The profile settings of the request the provider's rules are evaluated on.
    pub options: msgflow_providers::ExportOptions,
}

impl FileCommand for Check {
    fn mode(&self) -> Mode {
        Mode::Report { json: self.json }
    }

    /// Not UTF-8, not JSON, or not the shape of a history: pydantic-ai's `validate_json` refuses
    /// such an input too (`json_invalid`, or a validation error where msgflow's types, which
    /// mirror pydantic-ai's, fail), so `--require-loadable` reports it with exit 1. A limit
    /// (`--max-input-bytes`, nesting) says nothing about pydantic-ai and stays an error.
    fn unreadable_history(&self, err: &msgflow_wire::ParseError) -> Failure {
        let mut failure = Failure::from_parse_error(err);
        let refused_by_pydantic_ai = matches!(
            err.category(),
            ParseErrorCategory::Syntax | ParseErrorCategory::Eof | ParseErrorCategory::Data
        );
        if self.require_loadable && refused_by_pydantic_ai {
            failure.status = Status::Problems;
            failure.message = format!("pydantic-ai 2.68.0 would not load it: {}", failure.message);
        }
        failure
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        if let Some(provider) = self.provider {
            return super::provider::check(source, provider, &self.options, self.json);
        }
        let history = source.input.parse().map_err(|err| self.unreadable_history(&err))?;
        let report = msgflow_corpus::row::check_history(&history, Some(source.input.as_str()));
        let status = if self.require_loadable {
            if report.pydantic_ai_loadable {
                Status::Ok
            } else {
                Status::Problems
            }
        } else if report.valid {
            Status::Ok
        } else {
            Status::Problems
        };
        let output = if self.json {
            let mut text = serde_json::to_string_pretty(&report)
                .map_err(|err| Failure::invalid(format!("cannot serialise the report: {err}"), None))?;
            text.push('\n');
            text
        } else {
            let mut text: String = report
                .violations
                .iter()
                .map(|located| format!("{}\n", located.violation))
                .collect();
            text.extend(report.notes.iter().map(|note| format!("{note}\n")));
            if report.valid {
                text.push_str("no problems found\n");
            }
            text
        };
        Ok(Processed {
            output: output.into_bytes(),
            status,
            problem_codes: report.problem_codes(),
            error_types: report.error_types,
            ..Processed::default()
        })
    }
}
