//! [`check`]: what is wrong with a history, located, without changing it.

use std::fmt;

use msgflow_wire::verdict::Verdict;
use msgflow_wire::{ModelMessage, ModelRequestPart, ModelResponsePart, UserContent, UserPromptContent};
use serde::Serialize;

use crate::pairing::{self, Pos};
use crate::typed;

/// The kind of a [`Violation`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ViolationKind {
    /// A `tool-call` that no later result answers (matched by id, oldest open call first; a call
    /// whose id a later response reuses can no longer be answered). Includes the calls of the
    /// last response, which a resumed run may still answer when no user prompt follows it (the
    /// live frontier).
    DanglingCall,
    /// A result (`tool-return`, or `retry-prompt` naming a tool) whose `tool_call_id` matches no
    /// call in an earlier response.
    OrphanReturn,
    /// A `tool-call` reusing the `tool_call_id` of an earlier `tool-call`.
    DuplicateCallId,
    /// A `builtin-tool-call` without a `builtin-tool-return` with its id later in the same
    /// response or in a later response.
    BuiltinCallWithoutReturn,
    /// A result that is not in the first request after its call, that sits behind other content
    /// of its request, or that answers no open call (its call was already answered or shadowed).
    MisplacedReturn,
    /// A message without parts (a trailing empty request is allowed: it is pydantic-ai's frontier).
    EmptyMessage,
    /// A part whose `part_kind` this version does not know.
    UnknownPartKind,
    /// A user-prompt content item whose `kind` this version does not know.
    UnknownContentKind,
    /// A tool part whose `tool_kind` (`tool-search`, `capability-load`) makes pydantic-ai 2.68.0
    /// read it as a typed part it does not fit, so that pydantic-ai refuses the whole history.
    TypedPartMismatch,
    /// A reason pydantic-ai 2.68.0's `ModelMessagesTypeAdapter.validate_json` would refuse the
    /// history ([`msgflow_wire::verdict`]): the detail carries pydantic's error type, `loc` and
    /// message. A reason another kind already reports (an unknown part or content kind) is not
    /// repeated.
    NotLoadable,
}

impl ViolationKind {
    fn what(self) -> &'static str {
        match self {
            ViolationKind::DanglingCall => "dangling tool call",
            ViolationKind::OrphanReturn => "orphan tool result",
            ViolationKind::DuplicateCallId => "duplicate tool call id",
            ViolationKind::BuiltinCallWithoutReturn => "builtin tool call without its return",
            ViolationKind::MisplacedReturn => "misplaced tool result",
            ViolationKind::EmptyMessage => "empty message",
            ViolationKind::UnknownPartKind => "unknown part kind",
            ViolationKind::UnknownContentKind => "unknown user content kind",
            ViolationKind::TypedPartMismatch => "typed tool part that does not fit its type",
            ViolationKind::NotLoadable => "pydantic-ai 2.68.0 would not load the history",
        }
    }

    fn fix(self) -> &'static str {
        match self {
            ViolationKind::DanglingCall => "run `repair` to add an interrupted result, or answer the call",
            ViolationKind::OrphanReturn => "run `repair` to remove it, or restore the response that made the call",
            ViolationKind::DuplicateCallId => "give each call its own tool_call_id",
            ViolationKind::BuiltinCallWithoutReturn => {
                "restore the provider's builtin-tool-return or remove the builtin call"
            }
            ViolationKind::MisplacedReturn => {
                "put each result first in the request right after its call (`repair` merges consecutive requests \
                 and moves content from between results)"
            }
            ViolationKind::EmptyMessage => "remove the message",
            ViolationKind::UnknownPartKind | ViolationKind::UnknownContentKind => {
                "upgrade msgflow, or remove it before sending it to pydantic-ai 2.68.0"
            }
            ViolationKind::TypedPartMismatch => "fix the part, or remove its `tool_kind` if it is an ordinary tool",
            ViolationKind::NotLoadable => "fix the value at that path to what pydantic-ai expects there",
        }
    }

    /// Whether a violation of this kind means pydantic-ai 2.68.0 refuses to load the whole
    /// history (`check --json`'s `pydantic_ai_loadable`): the verdict's reasons, and the unknown or
    /// mismatched parts it reports under their own kinds.
    pub fn refuses_loading(self) -> bool {
        matches!(
            self,
            ViolationKind::NotLoadable
                | ViolationKind::UnknownPartKind
                | ViolationKind::UnknownContentKind
                | ViolationKind::TypedPartMismatch
        )
    }
}

/// One problem found by [`check`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// What is wrong.
    pub kind: ViolationKind,
    /// The message, zero-based.
    pub message_index: usize,
    /// The part, zero-based, when the problem is a part.
    pub part_index: Option<usize>,
    /// The `tool_call_id` involved, if any.
    pub tool_call_id: Option<String>,
    /// The tool name involved, if any.
    pub tool_name: Option<String>,
    /// Specifics.
    pub detail: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at message {}", self.kind.what(), self.message_index)?;
        if let Some(part) = self.part_index {
            write!(f, ", part {part}")?;
        }
        if let Some(id) = &self.tool_call_id {
            write!(f, " (tool_call_id `{id}`")?;
            match &self.tool_name {
                Some(name) => write!(f, ", tool `{name}`)")?,
                None => f.write_str(")")?,
            }
        } else if let Some(name) = &self.tool_name {
            write!(f, " (tool `{name}`)")?;
        }
        write!(f, ": {}; fix: {}", self.detail, self.kind.fix())
    }
}

/// The violations found so far and the history they are in.
struct Collector<'a> {
    history: &'a [ModelMessage],
    found: Vec<Violation>,
}

impl<'a> Collector<'a> {
    fn new(history: &'a [ModelMessage]) -> Self {
        Collector {
            history,
            found: Vec::new(),
        }
    }

    fn push(&mut self, kind: ViolationKind, pos: Pos, detail: String) {
        let (tool_call_id, tool_name) = self.ids_at(pos);
        self.found.push(Violation {
            kind,
            message_index: pos.message,
            part_index: Some(pos.part),
            tool_call_id,
            tool_name,
            detail,
        });
    }

    /// The id and tool name of the call or result at `pos`.
    fn ids_at(&self, pos: Pos) -> (Option<String>, Option<String>) {
        match self.history.get(pos.message) {
            Some(ModelMessage::Response(response)) => match response.parts.get(pos.part) {
                Some(ModelResponsePart::ToolCall(call)) => {
                    (call.tool_call_id.get().cloned(), Some(call.tool_name.clone()))
                }
                Some(ModelResponsePart::BuiltinToolCall(call)) => {
                    (call.tool_call_id.get().cloned(), Some(call.tool_name.clone()))
                }
                _ => (None, None),
            },
            Some(ModelMessage::Request(request)) => match request.parts.get(pos.part) {
                Some(part) => (
                    pairing::result_id(part).and_then(|id| id.get().cloned()),
                    pairing::result_tool_name(part).map(str::to_owned),
                ),
                None => (None, None),
            },
            None => (None, None),
        }
    }

    /// Every violation, by kind, then by position. Each kind is found in position order, so a
    /// stable sort by kind is enough.
    fn into_violations(mut self) -> Vec<Violation> {
        self.found.sort_by_key(|violation| violation.kind as u8);
        self.found
    }
}

/// Lists every problem in `history`, in a fixed order: by kind (in [`ViolationKind`]'s order),
/// then by position. Runs in linear time, in one pass over the history and one of
/// [`msgflow_wire::verdict::verdict`] (whose reasons are [`ViolationKind::NotLoadable`], not
/// located: see [`check_located`]).
pub fn check(history: &[ModelMessage]) -> Vec<Violation> {
    with_verdict(history, structural(history), msgflow_wire::verdict::verdict(history))
}

/// [`check`], with the `not-loadable` violations located (line and column in their detail) in
/// `input`, the text `history` was read from.
pub fn check_located(history: &[ModelMessage], input: &str) -> Vec<Violation> {
    with_verdict(
        history,
        structural(history),
        msgflow_wire::verdict::verdict_located(history, input),
    )
}

/// [`check_located`] (or [`check`] without `input`), and pydantic's error `type` of each reason
/// pydantic-ai would refuse the history for, in the verdict's order (empty when it loads): what a
/// corpus summary counts, from the one verdict the violations came from.
pub fn check_with_error_types(history: &[ModelMessage], input: Option<&str>) -> (Vec<Violation>, Vec<String>) {
    let verdict = match input {
        Some(text) => msgflow_wire::verdict::verdict_located(history, text),
        None => msgflow_wire::verdict::verdict(history),
    };
    let error_types = verdict
        .reasons()
        .iter()
        .map(|reason| reason.error_type.clone())
        .collect();
    (with_verdict(history, structural(history), verdict), error_types)
}

/// The `not-loadable` violations after the others, one per reason of `verdict`, except reasons an
/// unknown part or content kind already reports.
fn with_verdict(history: &[ModelMessage], mut found: Vec<Violation>, verdict: Verdict) -> Vec<Violation> {
    let collector = Collector::new(history);
    let unknown_items = unknown_content_items(history);
    for reason in verdict.into_reasons() {
        let (message_index, part_index) = position_of(&reason.path);
        // pydantic reports an item of an unknown kind under every member of its smart union
        // (`str`, each class, the tag), and the content's own `str` member as failed with it:
        // the unknown content kind says it once.
        let content_str = reason.error_type == "string_type"
            && unknown_items
                .iter()
                .any(|item| item.rsplit_once('[').is_some_and(|(content, _)| content == reason.path));
        if content_str || unknown_items.iter().any(|item| is_within(&reason.path, item)) {
            continue;
        }
        let already = reason.error_type == "union_tag_invalid"
            && found.iter().any(|v| {
                matches!(
                    v.kind,
                    ViolationKind::UnknownPartKind | ViolationKind::UnknownContentKind
                ) && v.message_index == message_index
                    && v.part_index == part_index
            });
        if already {
            continue;
        }
        let (tool_call_id, tool_name) = match part_index {
            Some(part) => collector.ids_at(Pos {
                message: message_index,
                part,
            }),
            None => (None, None),
        };
        let loc: Vec<String> = reason.loc.iter().map(ToString::to_string).collect();
        let located = if reason.line > 0 {
            format!(" (line {}, column {})", reason.line, reason.column)
        } else {
            String::new()
        };
        found.push(Violation {
            kind: ViolationKind::NotLoadable,
            message_index,
            part_index,
            tool_call_id,
            tool_name,
            detail: format!(
                "pydantic error `{}` at loc ({}), {}{located}: {}",
                reason.error_type,
                loc.join(", "),
                reason.path,
                reason.message
            ),
        });
    }
    found
}

/// The message and part a verdict path (`$[3].parts[1].args`) points into.
fn position_of(path: &str) -> (usize, Option<usize>) {
    let index_after = |text: &str, prefix: &str| -> Option<(usize, usize)> {
        let rest = text.strip_prefix(prefix)?;
        let end = rest.find(']')?;
        Some((rest[..end].parse().ok()?, prefix.len() + end + 1))
    };
    let Some((message, consumed)) = index_after(path, "$[") else {
        return (0, None);
    };
    let part = index_after(&path[consumed..], ".parts[").map(|(part, _)| part);
    (message, part)
}

/// The invariant checks of [`check`], in one pass.
fn structural(history: &[ModelMessage]) -> Vec<Violation> {
    let mut scan = Scan {
        collector: Collector::new(history),
        matcher: pairing::Matcher::with_capacity(history.len()),
        builtin: pairing::BuiltinMatcher::default(),
        requests: Vec::with_capacity(history.len() / 2 + 1),
    };
    let last = history.len().checked_sub(1);
    for (index, message) in history.iter().enumerate() {
        match message {
            ModelMessage::Response(response) => {
                if response.parts.is_empty() {
                    scan.collector.found.push(empty_message(index, message));
                }
                scan.response(index, &response.parts);
            }
            ModelMessage::Request(request) => {
                if request.parts.is_empty() && Some(index) != last {
                    scan.collector.found.push(empty_message(index, message));
                }
                scan.request(index, &request.parts);
            }
        }
    }
    scan.finish()
}

/// The state of [`check`]'s one pass.
struct Scan<'a> {
    collector: Collector<'a>,
    /// pydantic-ai's matching walk; also tells orphans and duplicate ids.
    matcher: pairing::Matcher<'a>,
    /// Builtin calls waiting for their builtin return.
    builtin: pairing::BuiltinMatcher<'a>,
    /// The indices of the requests seen so far.
    requests: Vec<usize>,
}

impl<'a> Scan<'a> {
    fn response(&mut self, index: usize, parts: &'a [ModelResponsePart]) {
        self.matcher.response(index);
        for (part_index, part) in parts.iter().enumerate() {
            let pos = Pos {
                message: index,
                part: part_index,
            };
            let typed_problem = match part {
                ModelResponsePart::ToolCall(call) => {
                    let key = pairing::CallKey::of(&call.tool_call_id, index, part_index);
                    if let Some(first) = self.matcher.call(pos, key) {
                        self.collector.push(
                            ViolationKind::DuplicateCallId,
                            pos,
                            format!(
                                "message {}, part {} already made a call with this id",
                                first.message, first.part
                            ),
                        );
                    }
                    typed::call_problem(false, &call.tool_kind, &call.tool_name, &call.args)
                }
                ModelResponsePart::BuiltinToolCall(call) => {
                    self.builtin.call(pos, &call.tool_call_id);
                    typed::call_problem(true, &call.tool_kind, &call.tool_name, &call.args)
                }
                ModelResponsePart::BuiltinToolReturn(ret) => {
                    self.builtin.ret(&ret.tool_call_id);
                    typed::return_problem(true, &ret.tool_kind, &ret.outcome, &ret.tool_name, &ret.content)
                }
                ModelResponsePart::Unknown(object) => {
                    self.unknown_part(pos, object.tag("part_kind"));
                    None
                }
                _ => None,
            };
            if let Some(problem) = typed_problem {
                self.collector.push(ViolationKind::TypedPartMismatch, pos, problem);
            }
        }
    }

    fn request(&mut self, index: usize, parts: &'a [ModelRequestPart]) {
        // A result must lead the first request after its call: no request may come between the
        // two, and no other content (tool-availability deltas aside) before it in its request.
        let previous_request = self.requests.last().copied();
        self.requests.push(index);
        let mut content_before = false;
        for (part_index, part) in parts.iter().enumerate() {
            let pos = Pos {
                message: index,
                part: part_index,
            };
            if let Some(id) = pairing::result_id(part) {
                let key = pairing::CallKey::of(id, index, part_index);
                let misplaced = match self.matcher.result(&key) {
                    pairing::Answer::NoSuchCall => {
                        self.collector.push(
                            ViolationKind::OrphanReturn,
                            pos,
                            "no call in an earlier response has its tool_call_id".to_owned(),
                        );
                        None
                    }
                    pairing::Answer::NoOpenCall { .. } => Some(
                        "it answers no open call: its call was already answered, or shadowed by a later call \
                         with the same id"
                            .to_owned(),
                    ),
                    pairing::Answer::Call(call) if previous_request.is_some_and(|request| request > call.message) => {
                        Some(format!(
                            "its call is at message {}, part {}; the first request after it is message {}",
                            call.message,
                            call.part,
                            self.first_request_after(call.message)
                        ))
                    }
                    pairing::Answer::Call(_) if content_before => {
                        Some("other content of its request comes before it".to_owned())
                    }
                    pairing::Answer::Call(_) => None,
                };
                if let Some(detail) = misplaced {
                    self.collector.push(ViolationKind::MisplacedReturn, pos, detail);
                }
            } else if !pairing::stays_among_results(part) {
                content_before = true;
            }
            match part {
                ModelRequestPart::ToolReturn(ret) => {
                    if let Some(problem) =
                        typed::return_problem(false, &ret.tool_kind, &ret.outcome, &ret.tool_name, &ret.content)
                    {
                        self.collector.push(ViolationKind::TypedPartMismatch, pos, problem);
                    }
                }
                ModelRequestPart::UserPrompt(prompt) => self.user_prompt(pos, &prompt.content),
                ModelRequestPart::Unknown(object) => self.unknown_part(pos, object.tag("part_kind")),
                _ => {}
            }
        }
    }

    /// The first request after message `index` (one was seen: a result answers a call before it).
    fn first_request_after(&self, index: usize) -> usize {
        let at = self.requests.partition_point(|&request| request <= index);
        self.requests.get(at).copied().unwrap_or(index)
    }

    fn unknown_part(&mut self, pos: Pos, tag: Option<String>) {
        self.collector.push(
            ViolationKind::UnknownPartKind,
            pos,
            format!("part_kind {}", described_tag(tag)),
        );
    }

    fn user_prompt(&mut self, pos: Pos, content: &UserPromptContent) {
        let UserPromptContent::Items(items) = content else {
            return;
        };
        for (item_index, item) in items.iter().enumerate() {
            // An item without `kind` (or with `null`) is no unknown kind: pydantic's smart union
            // over user content may load it as a member that defaults its `kind` (`{}` is a
            // `CachePoint`), and the verdict says whether it does.
            if let UserContent::Unknown(object) = item {
                if let Some(tag) = object.tag("kind") {
                    self.collector.push(
                        ViolationKind::UnknownContentKind,
                        pos,
                        format!("content item {item_index} has kind {}", described_tag(Some(tag))),
                    );
                }
            }
        }
    }

    fn finish(mut self) -> Vec<Violation> {
        let walk = self.matcher.finish();
        let mut dangling: Vec<Pos> = walk
            .dangling
            .iter()
            .flat_map(|(&message, parts)| parts.iter().map(move |&part| Pos { message, part }))
            .collect();
        dangling.sort_unstable_by_key(|pos| (pos.message, pos.part));
        for pos in dangling {
            let detail = if self.collector.ids_at(pos).0.is_none() {
                "it has no tool_call_id, so no result can answer it".to_owned()
            } else if walk.last_response == Some(pos.message) {
                // Only a response nothing has been said after is a frontier a run may still
                // answer; a user prompt after it means the conversation went on without it.
                let prompted_after = self.collector.history[pos.message + 1..].iter().any(|message| {
                    matches!(message, ModelMessage::Request(request)
                        if request.parts.iter().any(|part| matches!(part, ModelRequestPart::UserPrompt(_))))
                });
                if prompted_after {
                    "no later result answers it (it is in the last response, but a user prompt follows it, so no run \
                     will answer it)"
                        .to_owned()
                } else {
                    "no later result answers it (it is in the last response, the live frontier a resumed run may \
                     still answer)"
                        .to_owned()
                }
            } else {
                "no later result answers it".to_owned()
            };
            self.collector.push(ViolationKind::DanglingCall, pos, detail);
        }

        // Builtin calls need their builtin return later in the same response or in a later
        // response (matched by id, oldest call first): providers co-locate them, and some
        // (Anthropic tool search) return in a later response.
        for (pos, missing_id) in self.builtin.finish() {
            let detail = if missing_id {
                "it has no tool_call_id, so no builtin-tool-return can match it"
            } else {
                "no builtin-tool-return with its id follows it"
            };
            self.collector
                .push(ViolationKind::BuiltinCallWithoutReturn, pos, detail.to_owned());
        }
        self.collector.into_violations()
    }
}

fn empty_message(index: usize, message: &ModelMessage) -> Violation {
    Violation {
        kind: ViolationKind::EmptyMessage,
        message_index: index,
        part_index: None,
        tool_call_id: None,
        tool_name: None,
        detail: format!("this {} has no parts", message.tag().unwrap_or_default()),
    }
}

/// The JSON paths of the user content items of a kind this version does not know (as the
/// verdict writes paths: `$[0].parts[1].content[2]`).
fn unknown_content_items(history: &[ModelMessage]) -> Vec<String> {
    let mut paths = Vec::new();
    for (message_index, message) in history.iter().enumerate() {
        let ModelMessage::Request(request) = message else {
            continue;
        };
        for (part_index, part) in request.parts.iter().enumerate() {
            let ModelRequestPart::UserPrompt(prompt) = part else {
                continue;
            };
            let UserPromptContent::Items(items) = &prompt.content else {
                continue;
            };
            for (item_index, item) in items.iter().enumerate() {
                if matches!(item, UserContent::Unknown(object) if object.tag("kind").is_some()) {
                    paths.push(format!("$[{message_index}].parts[{part_index}].content[{item_index}]"));
                }
            }
        }
    }
    paths
}

/// `true` when `path` is `prefix` or a path inside it.
fn is_within(path: &str, prefix: &str) -> bool {
    path.strip_prefix(prefix)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

fn described_tag(tag: Option<String>) -> String {
    tag.map_or_else(|| "(missing)".to_owned(), |tag| format!("`{tag}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_verdict_reason_is_a_located_not_loadable_violation() {
        let input = r#"[{"parts":[{"content":"hi","part_kind":"user-prompt"}],"kind":"request"},{"parts":[{"tool_name":"t","tool_call_id":"c","args":[1],"part_kind":"tool-call"}],"kind":"response","usage":null}]"#;
        let history = msgflow_wire::from_str(input).unwrap();
        let all = check_located(&history, input);
        let found: Vec<&Violation> = all.iter().filter(|v| v.kind == ViolationKind::NotLoadable).collect();
        let places: Vec<(usize, Option<usize>, Option<&str>)> = found
            .iter()
            .map(|v| (v.message_index, v.part_index, v.tool_call_id.as_deref()))
            .collect();
        assert_eq!(
            places,
            [(1, Some(0), Some("c")), (1, Some(0), Some("c")), (1, None, None)]
        );
        assert_eq!(
            found[2].detail,
            "pydantic error `dataclass_type` at loc (1, response, usage), $[1].usage (line 1, column 183): Input should be an object"
        );
        assert_eq!(
            serde_json::to_value(found[2]).unwrap()["kind"],
            serde_json::json!("not-loadable")
        );
        // Unlocated through `check`.
        assert!(check(&history)
            .iter()
            .any(|v| v.detail.ends_with("$[1].usage: Input should be an object")));
    }

    #[test]
    fn an_unknown_part_kind_is_not_reported_twice() {
        let input = r#"[{"parts":[{"content":"hi","part_kind":"future-part"}],"kind":"response"}]"#;
        let history = msgflow_wire::from_str(input).unwrap();
        let kinds: Vec<ViolationKind> = check(&history).iter().map(|v| v.kind).collect();
        assert_eq!(kinds, [ViolationKind::UnknownPartKind]);
    }

    #[test]
    fn positions_come_from_the_path() {
        assert_eq!(position_of("$[3].parts[1].args"), (3, Some(1)));
        assert_eq!(position_of("$[3].usage"), (3, None));
        assert_eq!(position_of("$[12]"), (12, None));
        assert_eq!(position_of("$"), (0, None));
    }
}
