//! ReAct-style guidance: short, actionable hints for the next model turn, derived from the
//! registry.
//!
//! tunacode's era-B `ReactSnapshotManager` looked only at the latest call and produced generic
//! text ("Act on bash findings") on a fixed schedule. These hints are instead produced only when
//! the registry shows a concrete problem, and each names the calls it is about.

use std::collections::HashMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::args::{args_key, truncate_chars};
use crate::call::CanonicalToolCall;
use crate::registry::ToolCallRegistry;
use crate::status::ToolCallStatus;

/// Thresholds and switches for [`guidance`].
///
/// ```
/// use msgflow_registry::GuidanceConfig;
///
/// let config = GuidanceConfig { repeat_threshold: 3, ..GuidanceConfig::default() };
/// assert_eq!(config.failure_streak_threshold, 3);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct GuidanceConfig {
    /// Hint when the same tool is called with the same arguments at least this many times
    /// (default 2). `0` or `1` are treated as 2: a single call is never a repeat.
    pub repeat_threshold: usize,
    /// Hint when a tool's most recent finished calls failed this many times in a row
    /// (default 3). `0` is treated as 1.
    pub failure_streak_threshold: usize,
    /// Hint about calls that still have no result (default on).
    pub report_pending: bool,
    /// Hint about interrupted (cancelled) calls (default on).
    pub report_cancelled: bool,
    /// At most this many calls are named in one hint's message; the rest are counted
    /// ("and 3 more"). All ids are always in [`Hint::tool_call_ids`]. Default 5.
    pub max_listed_calls: usize,
}

impl Default for GuidanceConfig {
    fn default() -> Self {
        Self {
            repeat_threshold: 2,
            failure_streak_threshold: 3,
            report_pending: true,
            report_cancelled: true,
            max_listed_calls: 5,
        }
    }
}

/// What a [`Hint`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HintKind {
    /// The same tool was called repeatedly with the same arguments.
    RepeatedCall,
    /// A tool failed several times in a row.
    ConsecutiveFailures,
    /// Calls still have no result and must be answered before the next model request.
    PendingCalls,
    /// Calls were interrupted and may need to be run again.
    CancelledCalls,
}

impl HintKind {
    /// The snake_case name (`"repeated_call"`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::RepeatedCall => "repeated_call",
            Self::ConsecutiveFailures => "consecutive_failures",
            Self::PendingCalls => "pending_calls",
            Self::CancelledCalls => "cancelled_calls",
        }
    }
}

impl fmt::Display for HintKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One piece of guidance for the next model turn.
///
/// `Display` writes just the message, ready to be shown to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hint {
    /// What the hint is about.
    pub kind: HintKind,
    /// One or two short sentences addressed to the model.
    pub message: String,
    /// The calls the hint is about, in registration order.
    pub tool_call_ids: Vec<String>,
}

impl fmt::Display for Hint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// The longest error excerpt quoted in a failure hint, in characters.
const MAX_ERROR_CHARS: usize = 120;

/// Hints for the next model turn, or none when nothing needs attention.
///
/// Order is deterministic: repeated calls (by first occurrence), then failure streaks (by the
/// streak's first call), then pending calls, then cancelled calls.
///
/// 1. **Repeated call**: a tool called `repeat_threshold`+ times with the same arguments
///    (compared as JSON values; string args are parsed as JSON when valid). If one of them
///    completed, the model is told to reuse that result; otherwise to change its approach.
/// 2. **Consecutive failures**: for each tool, its trailing run of failed calls (a completed call
///    ends a run; pending, running and cancelled calls neither extend nor end it) reaching
///    `failure_streak_threshold`; quotes the first line of the last error.
/// 3. **Pending calls**: every call still pending or running, in one hint.
/// 4. **Cancelled calls**: every cancelled call, in one hint.
///
/// ```
/// use msgflow_registry::{guidance, GuidanceConfig, HintKind, ToolCallRegistry};
/// use serde_json::json;
///
/// let mut registry = ToolCallRegistry::new();
/// for id in ["c1", "c2", "c3"] {
///     registry.register(id, "read_file", json!({"path": "src/main.rs"})).unwrap();
///     registry.complete(id, json!("fn main() {}"), None).unwrap();
/// }
/// let hints = guidance(&registry, &GuidanceConfig::default());
/// assert_eq!(hints.len(), 1);
/// assert_eq!(hints[0].kind, HintKind::RepeatedCall);
/// assert_eq!(
///     hints[0].to_string(),
///     "read_file was called 3 times with the same arguments; reuse the earlier result instead of calling it again"
/// );
/// ```
pub fn guidance(registry: &ToolCallRegistry, config: &GuidanceConfig) -> Vec<Hint> {
    let mut hints = repeated_call_hints(registry, config);
    hints.extend(failure_streak_hints(registry, config));
    if config.report_pending {
        let open: Vec<&CanonicalToolCall> = registry.pending().collect();
        if !open.is_empty() {
            hints.push(Hint {
                kind: HintKind::PendingCalls,
                message: format!(
                    "{} still {} no result: {}; {} must be answered before the next model request",
                    count_noun(open.len(), "tool call", "tool calls"),
                    if open.len() == 1 { "has" } else { "have" },
                    list_calls(&open, config.max_listed_calls),
                    if open.len() == 1 { "it" } else { "they" },
                ),
                tool_call_ids: ids(&open),
            });
        }
    }
    if config.report_cancelled {
        let cancelled: Vec<&CanonicalToolCall> = registry
            .iter()
            .filter(|call| call.status() == ToolCallStatus::Cancelled)
            .collect();
        if !cancelled.is_empty() {
            hints.push(Hint {
                kind: HintKind::CancelledCalls,
                message: format!(
                    "{} interrupted before finishing: {}; run {} again if the result is still needed",
                    count_noun(cancelled.len(), "tool call was", "tool calls were"),
                    list_calls(&cancelled, config.max_listed_calls),
                    if cancelled.len() == 1 { "it" } else { "them" },
                ),
                tool_call_ids: ids(&cancelled),
            });
        }
    }
    hints
}

fn repeated_call_hints(registry: &ToolCallRegistry, config: &GuidanceConfig) -> Vec<Hint> {
    let threshold = config.repeat_threshold.max(2);
    // Groups in order of first occurrence; the map points into `groups`.
    let mut groups: Vec<Vec<&CanonicalToolCall>> = Vec::new();
    let mut group_of: HashMap<(&str, String), usize> = HashMap::new();
    for call in registry.iter() {
        let key = (call.tool_name(), args_key(call.args()));
        match group_of.get(&key) {
            Some(&position) => {
                if let Some(group) = groups.get_mut(position) {
                    group.push(call);
                }
            }
            None => {
                group_of.insert(key, groups.len());
                groups.push(vec![call]);
            }
        }
    }
    groups
        .into_iter()
        .filter(|group| group.len() >= threshold)
        .filter_map(|group| {
            let first = group.first()?;
            let advice = if group.iter().any(|call| call.status() == ToolCallStatus::Completed) {
                "reuse the earlier result instead of calling it again"
            } else {
                "none of them succeeded; change the arguments or try another approach"
            };
            Some(Hint {
                kind: HintKind::RepeatedCall,
                message: format!(
                    "{} was called {} times with the same arguments; {advice}",
                    first.tool_name(),
                    group.len()
                ),
                tool_call_ids: ids(&group),
            })
        })
        .collect()
}

fn failure_streak_hints(registry: &ToolCallRegistry, config: &GuidanceConfig) -> Vec<Hint> {
    let threshold = config.failure_streak_threshold.max(1);
    // Per tool (in order of first call): the current trailing run of failures, with each
    // call's registration position.
    let mut tools: Vec<(&str, Vec<(usize, &CanonicalToolCall)>)> = Vec::new();
    let mut tool_of: HashMap<&str, usize> = HashMap::new();
    for (position, call) in registry.iter().enumerate() {
        let slot = *tool_of.entry(call.tool_name()).or_insert_with(|| {
            tools.push((call.tool_name(), Vec::new()));
            tools.len() - 1
        });
        let Some((_, streak)) = tools.get_mut(slot) else {
            continue;
        };
        match call.status() {
            ToolCallStatus::Failed => streak.push((position, call)),
            ToolCallStatus::Completed => streak.clear(),
            // Not the tool's verdict: an interruption or a call still in flight.
            ToolCallStatus::Pending | ToolCallStatus::Running | ToolCallStatus::Cancelled => {}
        }
    }
    let mut streaks: Vec<(usize, &str, Vec<&CanonicalToolCall>)> = tools
        .into_iter()
        .filter(|(_, streak)| streak.len() >= threshold)
        .map(|(tool_name, streak)| {
            let begins_at = streak.first().map_or(usize::MAX, |(position, _)| *position);
            (begins_at, tool_name, streak.into_iter().map(|(_, call)| call).collect())
        })
        .collect();
    // Order by where each streak begins, so the output follows the history.
    streaks.sort_by_key(|(begins_at, _, _)| *begins_at);
    streaks
        .into_iter()
        .map(|(_, tool_name, streak)| {
            let last_error = streak
                .last()
                .and_then(|call| call.error())
                // The first non-blank line is usually the error's headline.
                .and_then(|error| error.lines().map(str::trim).find(|line| !line.is_empty()))
                .map(|line| truncate_chars(line, MAX_ERROR_CHARS));
            let error_clause = match last_error {
                Some(error) => format!(" (last error: \"{error}\")"),
                None => String::new(),
            };
            Hint {
                kind: HintKind::ConsecutiveFailures,
                message: format!(
                    "{tool_name} failed {} times in a row{error_clause}; fix the cause or use a different approach before calling it again",
                    streak.len()
                ),
                tool_call_ids: ids(&streak),
            }
        })
        .collect()
}

fn ids(calls: &[&CanonicalToolCall]) -> Vec<String> {
    calls.iter().map(|call| call.tool_call_id().to_owned()).collect()
}

fn count_noun(count: usize, singular: &str, plural: &str) -> String {
    if count == 1 {
        format!("1 {singular}")
    } else {
        format!("{count} {plural}")
    }
}

/// `read_file (call_1), bash (call_2) and 3 more`.
fn list_calls(calls: &[&CanonicalToolCall], max_listed: usize) -> String {
    let shown = max_listed.max(1);
    let mut text = calls
        .iter()
        .take(shown)
        .map(|call| format!("{} ({})", call.tool_name(), call.tool_call_id()))
        .collect::<Vec<_>>()
        .join(", ");
    if calls.len() > shown {
        text.push_str(&format!(" and {} more", calls.len() - shown));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn hints(registry: &ToolCallRegistry) -> Vec<Hint> {
        guidance(registry, &GuidanceConfig::default())
    }

    fn completed(registry: &mut ToolCallRegistry, id: &str, name: &str, args: Value) {
        registry.register(id, name, args).unwrap();
        registry.complete(id, json!("ok"), None).unwrap();
    }

    fn failed(registry: &mut ToolCallRegistry, id: &str, name: &str, error: &str) {
        registry.register(id, name, json!({ "attempt": id })).unwrap();
        registry.fail(id, error, None).unwrap();
    }

    #[test]
    fn empty_registry_and_healthy_history_give_no_hints() {
        assert!(hints(&ToolCallRegistry::new()).is_empty());
        let mut registry = ToolCallRegistry::new();
        completed(&mut registry, "a", "read_file", json!({"path": "a.rs"}));
        completed(&mut registry, "b", "read_file", json!({"path": "b.rs"}));
        failed(&mut registry, "c", "bash", "exit 1");
        assert!(hints(&registry).is_empty());
    }

    #[test]
    fn repeated_calls_compare_args_as_json() {
        let mut registry = ToolCallRegistry::new();
        completed(&mut registry, "a", "grep", json!({"path": "src", "pattern": "todo"}));
        completed(
            &mut registry,
            "b",
            "grep",
            json!("{\"pattern\": \"todo\", \"path\": \"src\"}"),
        );
        completed(&mut registry, "c", "grep", json!({"path": "src", "pattern": "TODO"}));
        completed(&mut registry, "d", "list_dir", Value::Null);
        completed(&mut registry, "e", "list_dir", json!({}));
        let found = hints(&registry);
        assert_eq!(
            found,
            [
                Hint {
                    kind: HintKind::RepeatedCall,
                    message: "grep was called 2 times with the same arguments; reuse the earlier result instead of calling it again".into(),
                    tool_call_ids: vec!["a".into(), "b".into()],
                },
                Hint {
                    kind: HintKind::RepeatedCall,
                    message: "list_dir was called 2 times with the same arguments; reuse the earlier result instead of calling it again".into(),
                    tool_call_ids: vec!["d".into(), "e".into()],
                },
            ]
        );
    }

    #[test]
    fn same_args_for_different_tools_are_not_repeats() {
        let mut registry = ToolCallRegistry::new();
        completed(&mut registry, "a", "read_file", json!({"path": "x"}));
        completed(&mut registry, "b", "write_file", json!({"path": "x"}));
        assert!(hints(&registry).is_empty());
    }

    #[test]
    fn repeat_threshold_is_configurable_and_never_below_two() {
        let mut registry = ToolCallRegistry::new();
        completed(&mut registry, "a", "t", json!({}));
        completed(&mut registry, "b", "t", json!({}));
        let strict = GuidanceConfig {
            repeat_threshold: 3,
            ..GuidanceConfig::default()
        };
        assert!(guidance(&registry, &strict).is_empty());
        let loose = GuidanceConfig {
            repeat_threshold: 0,
            ..GuidanceConfig::default()
        };
        assert_eq!(guidance(&registry, &loose).len(), 1);
        let mut single = ToolCallRegistry::new();
        completed(&mut single, "a", "t", json!({}));
        assert!(guidance(&single, &loose).is_empty());
    }

    #[test]
    fn repeats_without_success_get_different_advice() {
        let mut registry = ToolCallRegistry::new();
        for id in ["a", "b"] {
            registry.register(id, "web_fetch", json!({"url": "https://x"})).unwrap();
            registry.fail(id, "403", None).unwrap();
        }
        let found = hints(&registry);
        assert_eq!(
            found[0].message,
            "web_fetch was called 2 times with the same arguments; none of them succeeded; change the arguments or try another approach"
        );
    }

    #[test]
    fn failure_streak_is_the_trailing_run() {
        let mut registry = ToolCallRegistry::new();
        failed(&mut registry, "a", "bash", "e1");
        failed(&mut registry, "b", "bash", "e2");
        completed(&mut registry, "c", "bash", json!({"cmd": "true"}));
        failed(&mut registry, "d", "bash", "e3");
        failed(&mut registry, "e", "bash", "e4");
        assert!(hints(&registry).is_empty(), "the success broke the first run");
        // Interleaved calls of other tools and a cancelled call of the same tool do not break it.
        completed(&mut registry, "f", "read_file", json!({"path": "log"}));
        registry.register("g", "bash", json!({"cmd": "x"})).unwrap();
        registry.cancel("g", None, None).unwrap();
        failed(
            &mut registry,
            "h",
            "bash",
            "\n  error: linker `cc` not found\nnote: see above\n",
        );
        let found: Vec<Hint> = hints(&registry)
            .into_iter()
            .filter(|hint| hint.kind == HintKind::ConsecutiveFailures)
            .collect();
        assert_eq!(
            found,
            [Hint {
                kind: HintKind::ConsecutiveFailures,
                message: "bash failed 3 times in a row (last error: \"error: linker `cc` not found\"); fix the cause or use a different approach before calling it again".into(),
                tool_call_ids: vec!["d".into(), "e".into(), "h".into()],
            }]
        );
    }

    #[test]
    fn failure_hints_are_ordered_by_streak_start_and_quote_short_errors() {
        let mut registry = ToolCallRegistry::new();
        completed(&mut registry, "z", "grep", json!({"pattern": "p"}));
        failed(&mut registry, "a", "bash", "x");
        failed(&mut registry, "b", "grep", &"very long error ".repeat(20));
        failed(&mut registry, "c", "bash", "x");
        failed(&mut registry, "d", "grep", "y");
        let config = GuidanceConfig {
            failure_streak_threshold: 2,
            ..GuidanceConfig::default()
        };
        let found = guidance(&registry, &config);
        let tools: Vec<&[String]> = found.iter().map(|hint| hint.tool_call_ids.as_slice()).collect();
        assert_eq!(
            tools,
            [
                &["a".to_owned(), "c".to_owned()][..],
                &["b".to_owned(), "d".to_owned()][..]
            ]
        );
        let mut long = ToolCallRegistry::new();
        failed(&mut long, "a", "t", &"word ".repeat(60));
        let config = GuidanceConfig {
            failure_streak_threshold: 1,
            ..GuidanceConfig::default()
        };
        let message = &guidance(&long, &config)[0].message;
        assert!(message.contains("…\")"), "{message}");
        assert!(message.chars().count() < 250, "{message}");
    }

    #[test]
    fn pending_and_cancelled_calls_are_listed() {
        let mut registry = ToolCallRegistry::new();
        registry.register("p1", "read_file", json!({"path": "a"})).unwrap();
        registry.register("p2", "bash", json!({"cmd": "make"})).unwrap();
        registry.start("p2", None).unwrap();
        registry.register("x1", "bash", json!({"cmd": "sleep 9"})).unwrap();
        registry.cancel("x1", Some("esc".into()), None).unwrap();
        let found = hints(&registry);
        assert_eq!(
            found,
            [
                Hint {
                    kind: HintKind::PendingCalls,
                    message: "2 tool calls still have no result: read_file (p1), bash (p2); they must be answered before the next model request".into(),
                    tool_call_ids: vec!["p1".into(), "p2".into()],
                },
                Hint {
                    kind: HintKind::CancelledCalls,
                    message: "1 tool call was interrupted before finishing: bash (x1); run it again if the result is still needed".into(),
                    tool_call_ids: vec!["x1".into()],
                },
            ]
        );
        let quiet = GuidanceConfig {
            report_pending: false,
            report_cancelled: false,
            ..GuidanceConfig::default()
        };
        assert!(guidance(&registry, &quiet).is_empty());
    }

    #[test]
    fn long_lists_are_shortened_but_ids_kept() {
        let mut registry = ToolCallRegistry::new();
        for n in 0..8 {
            registry.register(format!("c{n}"), "t", json!({ "n": n })).unwrap();
        }
        let config = GuidanceConfig {
            max_listed_calls: 2,
            ..GuidanceConfig::default()
        };
        let found = guidance(&registry, &config);
        assert_eq!(
            found[0].to_string(),
            "8 tool calls still have no result: t (c0), t (c1) and 6 more; they must be answered before the next model request"
        );
        assert_eq!(found[0].tool_call_ids.len(), 8);
    }

    #[test]
    fn kinds_display_and_serialize_as_snake_case() {
        for kind in [
            HintKind::RepeatedCall,
            HintKind::ConsecutiveFailures,
            HintKind::PendingCalls,
            HintKind::CancelledCalls,
        ] {
            assert_eq!(serde_json::to_value(kind).unwrap(), json!(kind.to_string()));
        }
    }
}
