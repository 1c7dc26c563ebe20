//! [`check`]: what is wrong with a history, located, without changing it.

use std::collections::VecDeque;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::fmt;

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
    /// last response (the live frontier), which a resumed run may still answer.
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
        }
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

struct Collector<'a> {
    history: &'a [ModelMessage],
    found: Vec<Violation>,
}

impl Collector<'_> {
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
}

/// Lists every problem in `history`, in a fixed order: by kind (in [`ViolationKind`]'s order),
/// then by position. Runs in linear time.
pub fn check(history: &[ModelMessage]) -> Vec<Violation> {
    let mut collector = Collector {
        history,
        found: Vec::new(),
    };
    let walk = pairing::walk(
        history
            .iter()
            .enumerate()
            .map(|(index, message)| pairing::view_of(index, message)),
    );

    // Dangling calls (pydantic-ai's matching walk).
    let mut dangling: Vec<Pos> = walk
        .dangling
        .iter()
        .flat_map(|(&message, parts)| parts.iter().map(move |&part| Pos { message, part }))
        .collect();
    dangling.sort_by_key(|pos| (pos.message, pos.part));
    for pos in dangling {
        let mut detail = "no later result answers it".to_owned();
        if collector.ids_at(pos).0.is_none() {
            detail = "it has no tool_call_id, so no result can answer it".to_owned();
        } else if walk.last_response == Some(pos.message) {
            detail.push_str(" (it is in the last response, the live frontier a resumed run may still answer)");
        }
        collector.push(ViolationKind::DanglingCall, pos, detail);
    }

    // Orphans (pydantic-ai's `_drop_orphaned_tool_results` rule) and duplicate call ids.
    let mut seen: HashMap<&str, Pos> = HashMap::new();
    let mut orphans: HashSet<Pos> = HashSet::new();
    let mut duplicates = Vec::new();
    for (index, message) in history.iter().enumerate() {
        match message {
            ModelMessage::Response(response) => {
                for (part, call) in response.parts.iter().enumerate().filter_map(|(part, p)| match p {
                    ModelResponsePart::ToolCall(call) => Some((part, call)),
                    _ => None,
                }) {
                    if let Some(id) = call.tool_call_id.get() {
                        if let Some(first) = seen.get(id.as_str()) {
                            duplicates.push((Pos { message: index, part }, *first));
                        } else {
                            seen.insert(id, Pos { message: index, part });
                        }
                    }
                }
            }
            ModelMessage::Request(request) => {
                for (part, p) in request.parts.iter().enumerate() {
                    if let Some(id) = pairing::result_id(p) {
                        if id.get().is_none_or(|id| !seen.contains_key(id.as_str())) {
                            let pos = Pos { message: index, part };
                            orphans.insert(pos);
                            collector.push(
                                ViolationKind::OrphanReturn,
                                pos,
                                "no call in an earlier response has its tool_call_id".to_owned(),
                            );
                        }
                    }
                }
            }
        }
    }
    for (pos, first) in duplicates {
        collector.push(
            ViolationKind::DuplicateCallId,
            pos,
            format!(
                "message {}, part {} already made a call with this id",
                first.message, first.part
            ),
        );
    }

    check_builtin_calls(&mut collector);
    check_placement(&mut collector, &walk.answers, &orphans);
    check_shapes(&mut collector);
    check_typed_parts(&mut collector);
    collector.found
}

/// Builtin calls need their builtin return later in the same response or in a later response
/// (matched by id, oldest call first): providers co-locate them, and some (Anthropic tool search)
/// return in a later response.
fn check_builtin_calls(collector: &mut Collector<'_>) {
    let mut open: HashMap<&str, VecDeque<Pos>> = HashMap::new();
    let mut unanswered = Vec::new();
    for (index, message) in collector.history.iter().enumerate() {
        let ModelMessage::Response(response) = message else {
            continue;
        };
        for (part, p) in response.parts.iter().enumerate() {
            match p {
                ModelResponsePart::BuiltinToolCall(call) => match call.tool_call_id.get() {
                    Some(id) => open
                        .entry(id.as_str())
                        .or_default()
                        .push_back(Pos { message: index, part }),
                    None => unanswered.push((Pos { message: index, part }, true)),
                },
                ModelResponsePart::BuiltinToolReturn(ret) => {
                    if let Some(queue) = ret.tool_call_id.get().and_then(|id| open.get_mut(id.as_str())) {
                        queue.pop_front();
                    }
                }
                _ => {}
            }
        }
    }
    unanswered.extend(open.into_values().flatten().map(|pos| (pos, false)));
    unanswered.sort_by_key(|(pos, _)| (pos.message, pos.part));
    for (pos, missing_id) in unanswered {
        let detail = if missing_id {
            "it has no tool_call_id, so no builtin-tool-return can match it"
        } else {
            "no builtin-tool-return with its id follows it"
        };
        collector.push(ViolationKind::BuiltinCallWithoutReturn, pos, detail.to_owned());
    }
}

/// Results must lead the first request after their call.
fn check_placement(collector: &mut Collector<'_>, answers: &[(Pos, Option<Pos>)], orphans: &HashSet<Pos>) {
    let history = collector.history;
    // The first request after each message, computed backwards in one pass.
    let mut next_request = vec![None; history.len()];
    let mut following = None;
    for (index, message) in history.iter().enumerate().rev() {
        if let Some(slot) = next_request.get_mut(index) {
            *slot = following;
        }
        if matches!(message, ModelMessage::Request(_)) {
            following = Some(index);
        }
    }
    // Per request, the first part that is neither a result nor a tool-availability delta
    // (pydantic-ai leaves those deltas among the results).
    let first_content: Vec<Option<usize>> = history
        .iter()
        .map(|message| match message {
            ModelMessage::Request(request) => request.parts.iter().position(|part| {
                !pairing::is_tool_result(part) && !matches!(part, ModelRequestPart::ToolAvailabilityDelta(_))
            }),
            ModelMessage::Response(_) => None,
        })
        .collect();
    for &(result, call) in answers {
        if orphans.contains(&result) {
            continue;
        }
        let detail = match call {
            None => Some(
                "it answers no open call: its call was already answered, or shadowed by a later call with \
                          the same id"
                    .to_owned(),
            ),
            Some(call) => {
                let expected = next_request.get(call.message).copied().flatten();
                if expected != Some(result.message) {
                    Some(format!(
                        "its call is at message {}, part {}; the first request after it is message {}",
                        call.message,
                        call.part,
                        expected.map_or_else(|| "(none)".to_owned(), |m| m.to_string())
                    ))
                } else if first_content
                    .get(result.message)
                    .copied()
                    .flatten()
                    .is_some_and(|first| first < result.part)
                {
                    Some("other content of its request comes before it".to_owned())
                } else {
                    None
                }
            }
        };
        if let Some(detail) = detail {
            collector.push(ViolationKind::MisplacedReturn, result, detail);
        }
    }
}

/// Empty messages and unknown kinds.
fn check_shapes(collector: &mut Collector<'_>) {
    let history = collector.history;
    let last = history.len().checked_sub(1);
    for (index, message) in history.iter().enumerate() {
        let empty = match message {
            ModelMessage::Request(request) => request.parts.is_empty() && Some(index) != last,
            ModelMessage::Response(response) => response.parts.is_empty(),
        };
        if empty {
            collector.found.push(Violation {
                kind: ViolationKind::EmptyMessage,
                message_index: index,
                part_index: None,
                tool_call_id: None,
                tool_name: None,
                detail: format!("this {} has no parts", message.tag().unwrap_or_default()),
            });
        }
    }
    for (index, message) in history.iter().enumerate() {
        let unknown_tags: Vec<(usize, Option<String>)> = match message {
            ModelMessage::Request(request) => request
                .parts
                .iter()
                .enumerate()
                .filter_map(|(part, p)| match p {
                    ModelRequestPart::Unknown(object) => Some((part, object.tag("part_kind"))),
                    _ => None,
                })
                .collect(),
            ModelMessage::Response(response) => response
                .parts
                .iter()
                .enumerate()
                .filter_map(|(part, p)| match p {
                    ModelResponsePart::Unknown(object) => Some((part, object.tag("part_kind"))),
                    _ => None,
                })
                .collect(),
        };
        for (part, tag) in unknown_tags {
            collector.push(
                ViolationKind::UnknownPartKind,
                Pos { message: index, part },
                format!(
                    "part_kind {}",
                    tag.map_or_else(|| "(missing)".to_owned(), |tag| format!("`{tag}`"))
                ),
            );
        }
    }
    for (index, message) in history.iter().enumerate() {
        let ModelMessage::Request(request) = message else {
            continue;
        };
        for (part, p) in request.parts.iter().enumerate() {
            let ModelRequestPart::UserPrompt(prompt) = p else {
                continue;
            };
            let UserPromptContent::Items(items) = &prompt.content else {
                continue;
            };
            for (item_index, item) in items.iter().enumerate() {
                if let UserContent::Unknown(object) = item {
                    let tag = object.tag("kind");
                    collector.push(
                        ViolationKind::UnknownContentKind,
                        Pos { message: index, part },
                        format!(
                            "content item {item_index} has kind {}",
                            tag.map_or_else(|| "(missing)".to_owned(), |tag| format!("`{tag}`"))
                        ),
                    );
                }
            }
        }
    }
}

/// Tool parts pydantic-ai routes by `tool_kind` to a typed class they do not fit.
fn check_typed_parts(collector: &mut Collector<'_>) {
    let history = collector.history;
    for (index, message) in history.iter().enumerate() {
        let problems: Vec<(usize, String)> = match message {
            ModelMessage::Response(response) => response
                .parts
                .iter()
                .enumerate()
                .filter_map(|(part, p)| {
                    let problem = match p {
                        ModelResponsePart::ToolCall(call) => {
                            typed::call_problem(false, &call.tool_kind, &call.tool_name, &call.args)
                        }
                        ModelResponsePart::BuiltinToolCall(call) => {
                            typed::call_problem(true, &call.tool_kind, &call.tool_name, &call.args)
                        }
                        ModelResponsePart::BuiltinToolReturn(ret) => {
                            typed::return_problem(true, &ret.tool_kind, &ret.outcome, &ret.tool_name, &ret.content)
                        }
                        _ => None,
                    };
                    problem.map(|problem| (part, problem))
                })
                .collect(),
            ModelMessage::Request(request) => request
                .parts
                .iter()
                .enumerate()
                .filter_map(|(part, p)| match p {
                    ModelRequestPart::ToolReturn(ret) => {
                        typed::return_problem(false, &ret.tool_kind, &ret.outcome, &ret.tool_name, &ret.content)
                            .map(|problem| (part, problem))
                    }
                    _ => None,
                })
                .collect(),
        };
        for (part, problem) in problems {
            collector.push(ViolationKind::TypedPartMismatch, Pos { message: index, part }, problem);
        }
    }
}
