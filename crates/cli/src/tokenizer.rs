//! The token counter `--tokenizer NAME` chooses, shared by `trim`, `stats --tokens` and
//! `show --html`: msgflow-context's [`CounterChoice`], with the failure a user sees when
//! `calibrated` finds nothing to calibrate on.

use msgflow_context::tokens::{Calibration, CounterChoice, TokenCounter};
use msgflow_wire::ModelMessage;

use crate::outcome::Failure;

/// The counter `choice` means for `history`; `calibrated` needs a recorded
/// `usage.input_tokens` in the history and fails (exit 2, explained) without one.
pub fn counter_for(
    choice: CounterChoice,
    history: &[ModelMessage],
) -> Result<(TokenCounter, Option<Calibration>), Failure> {
    choice.counter_for(history).ok_or_else(|| {
        Failure::invalid(
            "--tokenizer calibrated: no response in the history records usage.input_tokens to calibrate on",
            Some("use --tokenizer o200k_base or cl100k_base".to_owned()),
        )
    })
}
