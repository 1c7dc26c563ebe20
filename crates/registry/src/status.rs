//! The lifecycle states of a tool call and the transitions allowed between them.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a tool call is in its lifecycle.
///
/// A call starts [`Pending`](Self::Pending) (the model asked for it), may move to
/// [`Running`](Self::Running) (the tool is executing), and ends in exactly one terminal state:
/// [`Completed`](Self::Completed), [`Failed`](Self::Failed) or [`Cancelled`](Self::Cancelled).
/// Terminal states are final; see [`ToolCallStatus::can_transition_to`].
///
/// Serialized as a lowercase string (`"pending"`, `"running"`, ...), like tunacode's
/// `ToolCallStatus` values.
///
/// ```
/// use msgflow_registry::ToolCallStatus;
///
/// assert!(ToolCallStatus::Pending.can_transition_to(ToolCallStatus::Running));
/// assert!(!ToolCallStatus::Cancelled.can_transition_to(ToolCallStatus::Completed));
/// assert_eq!(serde_json::to_string(&ToolCallStatus::Failed).unwrap(), "\"failed\"");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(
    description = "Where a tool call is in its lifecycle: pending -> running -> completed | failed | cancelled (pending may also finish directly). Terminal statuses are final."
)]
pub enum ToolCallStatus {
    /// The model requested the call; no result yet and not known to be executing.
    Pending,
    /// The tool is executing; no result yet.
    Running,
    /// The tool returned a result.
    Completed,
    /// The tool reported an error (or the model was asked to retry the call).
    Failed,
    /// The call was interrupted or abandoned before a real result was produced.
    Cancelled,
}

impl ToolCallStatus {
    /// All statuses, in lifecycle order.
    pub const ALL: [ToolCallStatus; 5] = [
        ToolCallStatus::Pending,
        ToolCallStatus::Running,
        ToolCallStatus::Completed,
        ToolCallStatus::Failed,
        ToolCallStatus::Cancelled,
    ];

    /// Whether the call has finished (completed, failed or cancelled) and can no longer change.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Completed | Self::Failed | Self::Cancelled)
    }

    /// Whether a call in this status may move to `next`.
    ///
    /// Allowed: `Pending → Running`, and `Pending`/`Running → Completed | Failed | Cancelled`.
    /// Everything else is illegal, including staying in the same status (completing twice is
    /// a bug in the caller, not a no-op).
    pub fn can_transition_to(self, next: ToolCallStatus) -> bool {
        match self {
            Self::Pending => next != Self::Pending,
            Self::Running => next.is_terminal(),
            Self::Completed | Self::Failed | Self::Cancelled => false,
        }
    }

    /// The lowercase name used on the wire (`"pending"`, `"running"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Running => "running",
            Self::Completed => "completed",
            Self::Failed => "failed",
            Self::Cancelled => "cancelled",
        }
    }
}

impl fmt::Display for ToolCallStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::ToolCallStatus::{self, *};

    #[test]
    fn terminal_statuses() {
        assert!(!Pending.is_terminal());
        assert!(!Running.is_terminal());
        assert!(Completed.is_terminal());
        assert!(Failed.is_terminal());
        assert!(Cancelled.is_terminal());
    }

    #[test]
    fn transition_table_is_exactly_the_documented_one() {
        let allowed = [
            (Pending, Running),
            (Pending, Completed),
            (Pending, Failed),
            (Pending, Cancelled),
            (Running, Completed),
            (Running, Failed),
            (Running, Cancelled),
        ];
        for from in ToolCallStatus::ALL {
            for to in ToolCallStatus::ALL {
                assert_eq!(
                    from.can_transition_to(to),
                    allowed.contains(&(from, to)),
                    "{from} -> {to}"
                );
            }
        }
    }

    #[test]
    fn serde_is_lowercase_and_matches_as_str() {
        for status in ToolCallStatus::ALL {
            let json = serde_json::to_value(status).unwrap();
            assert_eq!(json, serde_json::Value::from(status.as_str()));
            let back: ToolCallStatus = serde_json::from_value(json).unwrap();
            assert_eq!(back, status);
        }
        assert!(serde_json::from_str::<ToolCallStatus>("\"Pending\"").is_err());
    }
}
