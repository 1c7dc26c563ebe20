//! One tool call and everything known about its lifecycle.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::status::ToolCallStatus;

/// A tool call tracked by the [`ToolCallRegistry`](crate::ToolCallRegistry).
///
/// Fields are private so that the status can only move through the registry's checked
/// transitions; read them with the accessors. Timestamps are kept exactly as the wire wrote them
/// (RFC 3339 text, whatever offset or precision), never reparsed.
///
/// JSON form (every key always present, `null` when unknown):
///
/// ```json
/// {"tool_call_id":"call_1","tool_name":"read_file","args":{"path":"src/lib.rs"},
///  "status":"completed","result":"fn main() {}","error":null,
///  "started_at":"2025-01-02T03:04:05Z","completed_at":"2025-01-02T03:04:06Z"}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(description = "A tool call and its lifecycle: what the model asked for and what came of it.")]
pub struct CanonicalToolCall {
    /// The id linking the call to its result.
    tool_call_id: String,
    /// The name of the tool the model called.
    tool_name: String,
    /// The arguments exactly as written: a JSON object, a JSON string holding one, or null.
    #[serde(default)]
    args: Value,
    /// Where the call is in its lifecycle.
    status: ToolCallStatus,
    /// The tool's result (for completed calls), as written.
    #[serde(default)]
    result: Option<Value>,
    /// The error text (failed calls) or interruption reason (cancelled calls).
    #[serde(default)]
    error: Option<String>,
    /// When the call was issued or started running (RFC 3339 text as given).
    #[serde(default)]
    started_at: Option<String>,
    /// When the call reached its terminal status (RFC 3339 text as given).
    #[serde(default)]
    completed_at: Option<String>,
}

impl CanonicalToolCall {
    /// A new [`Pending`](ToolCallStatus::Pending) call with no result and no timestamps.
    ///
    /// ```
    /// use msgflow_registry::{CanonicalToolCall, ToolCallStatus};
    ///
    /// let call = CanonicalToolCall::new("call_1", "bash", serde_json::json!({"cmd": "ls"}));
    /// assert_eq!(call.status(), ToolCallStatus::Pending);
    /// assert_eq!(call.tool_name(), "bash");
    /// ```
    pub fn new(tool_call_id: impl Into<String>, tool_name: impl Into<String>, args: Value) -> Self {
        Self {
            tool_call_id: tool_call_id.into(),
            tool_name: tool_name.into(),
            args,
            status: ToolCallStatus::Pending,
            result: None,
            error: None,
            started_at: None,
            completed_at: None,
        }
    }

    /// The id linking the call to its result.
    pub fn tool_call_id(&self) -> &str {
        &self.tool_call_id
    }

    /// The name of the tool the model called.
    pub fn tool_name(&self) -> &str {
        &self.tool_name
    }

    /// The arguments exactly as written (object, JSON string or null).
    pub fn args(&self) -> &Value {
        &self.args
    }

    /// The current lifecycle status.
    pub fn status(&self) -> ToolCallStatus {
        self.status
    }

    /// The tool's result, if the call completed with a non-null result.
    pub fn result(&self) -> Option<&Value> {
        self.result.as_ref()
    }

    /// The error text of a failed call, or the reason given for a cancelled one.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// When the call was issued or started running, as written on the wire.
    pub fn started_at(&self) -> Option<&str> {
        self.started_at.as_deref()
    }

    /// When the call finished, as written on the wire.
    pub fn completed_at(&self) -> Option<&str> {
        self.completed_at.as_deref()
    }

    /// Whether the call has finished (its status is terminal).
    pub fn is_complete(&self) -> bool {
        self.status.is_terminal()
    }

    /// Whether this is the same call as `name` + `args`: same tool name and arguments meaning the
    /// same JSON value (a JSON string is compared by what it parses to; `null`, `""` and `{}` are
    /// all "no arguments").
    pub fn is_same_call(&self, name: &str, args: &Value) -> bool {
        self.tool_name == name && crate::args::args_equivalent(&self.args, args)
    }

    pub(crate) fn set_started_at(&mut self, at: Option<String>) {
        self.started_at = at;
    }

    /// Moves to `status` and records the outcome. The registry checks legality before calling.
    pub(crate) fn finish_as(
        &mut self,
        status: ToolCallStatus,
        result: Option<Value>,
        error: Option<String>,
        at: Option<String>,
    ) {
        self.status = status;
        // JSON cannot tell a null result from no result, so a null result is stored as none;
        // this keeps the export round trip exact.
        self.result = result.filter(|value| !value.is_null());
        self.error = error;
        self.completed_at = at;
    }

    pub(crate) fn mark_running(&mut self, at: Option<String>) {
        self.status = ToolCallStatus::Running;
        if at.is_some() {
            self.started_at = at;
        }
    }
}
