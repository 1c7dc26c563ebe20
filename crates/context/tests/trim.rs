//! Turns and trim: the cut points, the worked cases (including the shapes pydantic-ai-harness's
//! `SlidingWindowCompaction` orphans), and the properties (trim never breaks pairing, keeps a
//! suffix of whole turns, is idempotent, keeps messages byte for byte).

mod common;

use common::{bytes, history, M};
use msgflow_context::tokens::{TokenCounter, Tokenizer};
use msgflow_context::trim::{trim, trim_window, trim_window_sized, Budget, TrimError};
use msgflow_context::Turns;
use msgflow_sanitize::{check, ViolationKind};
use msgflow_wire::{ModelMessage, ModelRequestPart};
use proptest::prelude::*;

fn ids(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

fn counter() -> TokenCounter {
    TokenCounter::new(Tokenizer::O200kBase)
}

/// A session of three turns, with tools in the first two.
fn session() -> Vec<M> {
    vec![
        M::User(Some("You are a coding agent."), "list the files".into()),
        M::Calls("Listing.".into(), ids(&["a"])),
        M::Returns(ids(&["a"]), None),
        M::Calls("Two files.".into(), vec![]),
        M::User(None, "read them".into()),
        M::Calls("Reading.".into(), ids(&["b", "c"])),
        M::Returns(ids(&["b", "c"]), None),
        M::Calls("Done.".into(), vec![]),
        M::User(None, "thanks".into()),
        M::Calls("You're welcome.".into(), vec![]),
    ]
}

#[test]
fn a_turn_starts_where_the_user_speaks_without_a_tool_result() {
    let turns = Turns::of(&history(&session(), None));
    assert_eq!(turns.ranges().collect::<Vec<_>>(), [0..4, 4..8, 8..10]);
    assert_eq!(turns.turn_of(5), Some(1));
    assert_eq!(turns.turn_of(10), None);
    assert!(turns.is_cut_point(4) && turns.is_cut_point(10) && !turns.is_cut_point(5));
    assert!(Turns::of(&[]).is_empty());
}

#[test]
fn a_request_answering_a_call_and_carrying_a_user_prompt_does_not_open_a_turn() {
    // The harness keeps such a first user request and orphans its return.
    let messages = vec![
        M::User(None, "go".into()),
        M::Calls("Running.".into(), ids(&["a"])),
        M::Returns(ids(&["a"]), Some("and then stop".into())),
        M::Calls("Stopped.".into(), vec![]),
    ];
    let turns = Turns::of(&history(&messages, None));
    assert_eq!((turns.len(), turns.range(0)), (1, 0..4));
}

#[test]
fn a_call_answered_turns_later_joins_the_turns_between() {
    // The harness's other hole: a call more than 5 messages before the cut whose return lands
    // after it. Here `late` is answered in turn 3, so turns 0..=3 travel together.
    let messages = vec![
        M::User(None, "start a build".into()),
        M::Calls("Building in the background.".into(), ids(&["late"])),
        M::User(None, "meanwhile, hello".into()),
        M::Calls("Hello.".into(), vec![]),
        M::User(None, "how are you".into()),
        M::Calls("Fine.".into(), vec![]),
        M::User(None, "is it done".into()),
        M::Returns(ids(&["late"]), None),
        M::Calls("Built.".into(), vec![]),
        M::User(None, "ship it".into()),
        M::Calls("Shipped.".into(), vec![]),
    ];
    let history = history(&messages, None);
    let turns = Turns::of(&history);
    assert_eq!(turns.ranges().collect::<Vec<_>>(), [0..9, 9..11]);
    let trimmed = trim(history.clone(), Budget::Turns(1), &counter()).unwrap();
    assert_eq!(trimmed.history.len(), 2);
    let trimmed = trim(history, Budget::Turns(2), &counter()).unwrap();
    assert_eq!(trimmed.history.len(), 11, "two turns are the whole history");
    assert!(trimmed.report.removed.is_empty());
}

#[test]
fn keep_turns_keeps_the_newest_turns_and_moves_the_system_prompt() {
    let input = history(&session(), Some("Answer in English."));
    let trimmed = trim(input.clone(), Budget::Turns(2), &counter()).unwrap();
    let report = &trimmed.report;
    assert_eq!((report.turns_before, report.turns_kept), (3, 2));
    assert_eq!(
        report.removed.iter().map(|removed| removed.index).collect::<Vec<_>>(),
        [0, 1, 2, 3]
    );
    assert_eq!(report.removed[1].parts, ["text", "tool-call"]);
    assert_eq!(
        report.moved.iter().map(|moved| moved.what).collect::<Vec<_>>(),
        ["system-prompt", "instructions"]
    );
    let ModelMessage::Request(first) = &trimmed.history[0] else {
        panic!("the first message is a request");
    };
    assert!(
        matches!(&first.parts[0], ModelRequestPart::SystemPrompt(system) if system.content == "You are a coding agent.")
    );
    assert!(matches!(&first.parts[1], ModelRequestPart::UserPrompt(_)));
    assert_eq!(first.instructions.get().map(String::as_str), Some("Answer in English."));
    // Every other kept message is the input's, byte for byte.
    for (kept, original) in trimmed.history[1..].iter().zip(&input[5..]) {
        assert_eq!(bytes(kept), bytes(original));
    }
    assert!(check(&trimmed.history).is_empty());
}

#[test]
fn a_system_prompt_in_a_request_of_its_own_is_kept() {
    // The harness drops it.
    let mut messages = vec![M::System("Be brief.")];
    messages.extend(session());
    let trimmed = trim(history(&messages, None), Budget::Turns(1), &counter()).unwrap();
    let ModelMessage::Request(first) = &trimmed.history[0] else {
        panic!("the first message is a request");
    };
    let systems: Vec<&str> = first
        .parts
        .iter()
        .filter_map(|part| match part {
            ModelRequestPart::SystemPrompt(system) => Some(system.content.as_str()),
            _ => None,
        })
        .collect();
    // The first request is the system-only one: its prompt moves, the session's own does not.
    assert_eq!(systems, ["Be brief."]);
}

#[test]
fn a_history_that_fits_is_returned_unchanged() {
    let input = history(&session(), None);
    let written = msgflow_wire::to_vec(&input).unwrap();
    for budget in [
        Budget::Turns(3),
        Budget::Turns(30),
        Budget::Bytes(written.len()),
        Budget::Tokens(1_000_000),
    ] {
        let trimmed = trim(input.clone(), budget, &counter()).unwrap();
        assert_eq!(msgflow_wire::to_vec(&trimmed.history).unwrap(), written, "{budget:?}");
        assert!(trimmed.report.removed.is_empty() && trimmed.report.moved.is_empty());
    }
}

#[test]
fn a_byte_budget_is_met_exactly_as_written() {
    let input = history(&session(), None);
    let total = msgflow_wire::to_vec(&input).unwrap().len();
    for limit in [total - 1, total / 2, total / 4] {
        match trim(input.clone(), Budget::Bytes(limit), &counter()) {
            Ok(trimmed) => {
                let written = msgflow_wire::to_vec(&trimmed.history).unwrap().len();
                assert_eq!(written, trimmed.report.size_after);
                assert!(written <= limit, "{written} > {limit}");
            }
            Err(TrimError::NewestTurnTooLarge { needed, .. }) => assert!(needed > limit),
            Err(other) => panic!("{other}"),
        }
    }
}

#[test]
fn when_the_newest_turn_does_not_fit_trim_refuses_and_says_why() {
    let err = trim(history(&session(), None), Budget::Tokens(3), &counter()).unwrap_err();
    let TrimError::NewestTurnTooLarge { first, last, limit, .. } = err else {
        panic!("{err:?}");
    };
    assert_eq!((first, last, limit), (8, 9, 3));
    assert!(err.to_string().contains("the newest turn (messages 8..=9)"), "{err}");
    assert_eq!(
        trim(history(&session(), None), Budget::Turns(0), &counter()).unwrap_err(),
        TrimError::NoTurns
    );
}

/// A conversation shape: turns of tool steps, some results delayed into a later request.
#[derive(Clone, Debug)]
struct Shape {
    system_alone: bool,
    instructions: bool,
    /// Per turn: the calls of each tool step, and whether the last step's results arrive late
    /// (in the next turn's first request, with the user prompt, or several messages later).
    turns: Vec<(Vec<usize>, u8)>,
}

fn shape() -> impl Strategy<Value = Shape> {
    (
        any::<bool>(),
        any::<bool>(),
        prop::collection::vec((prop::collection::vec(0usize..3, 0..3), 0u8..6), 1..7),
    )
        .prop_map(|(system_alone, instructions, turns)| Shape {
            system_alone,
            instructions,
            turns,
        })
}

fn build(shape: &Shape) -> Vec<ModelMessage> {
    let mut messages = Vec::new();
    if shape.system_alone {
        messages.push(M::System("You are terse."));
    }
    let mut next_id = 0;
    let mut late: Vec<String> = Vec::new();
    let mut far: Vec<(usize, Vec<String>)> = Vec::new();
    for (turn, (steps, delay)) in shape.turns.iter().enumerate() {
        let prompt = format!("task {turn}");
        let system = (turn == 0 && !shape.system_alone).then_some("You are terse.");
        if late.is_empty() {
            messages.push(M::User(system, prompt));
        } else {
            messages.push(M::Returns(std::mem::take(&mut late), Some(prompt)));
        }
        for (step, &calls) in steps.iter().enumerate() {
            let call_ids: Vec<String> = (0..calls.max(1))
                .map(|_| {
                    next_id += 1;
                    format!("call_{next_id}")
                })
                .collect();
            messages.push(M::Calls(format!("step {step}"), call_ids.clone()));
            let last = step + 1 == steps.len();
            match delay {
                1 if last => late = call_ids,
                2 if last => far.push((turn + 2, call_ids)),
                _ => messages.push(M::Returns(call_ids, None)),
            }
        }
        messages.push(M::Calls(format!("done {turn}"), vec![]));
        // Results promised to this turn arrive in a request of their own.
        let due: Vec<String> = far
            .iter()
            .filter(|(at, _)| *at == turn)
            .flat_map(|(_, ids)| ids.clone())
            .collect();
        far.retain(|(at, _)| *at != turn);
        if !due.is_empty() {
            messages.push(M::Returns(due, None));
            messages.push(M::Calls("noted".into(), vec![]));
        }
    }
    history(&messages, shape.instructions.then_some("Use tools."))
}

/// The (input message, input part) of every orphan result of `output`, which was cut from
/// `input` before message `start` with `moved` parts put in front of its first message.
fn orphans(history: &[ModelMessage]) -> Vec<(usize, usize)> {
    check(history)
        .into_iter()
        .filter(|violation| violation.kind == ViolationKind::OrphanReturn)
        .map(|violation| (violation.message_index, violation.part_index.unwrap_or(0)))
        .collect()
}

/// A history's size in the budget's unit, counted directly.
fn measured(history: &[ModelMessage], budget: Budget) -> usize {
    match budget {
        Budget::Tokens(_) => history.iter().map(|message| counter().count_message(message)).sum(),
        Budget::Bytes(_) | Budget::Turns(_) => msgflow_wire::to_vec(history).unwrap().len(),
    }
}

fn measured_message(message: &ModelMessage, budget: Budget) -> usize {
    match budget {
        Budget::Tokens(_) => counter().count_message(message),
        Budget::Bytes(_) | Budget::Turns(_) => serde_json::to_vec(message).unwrap().len(),
    }
}

fn assert_trim_properties(input: &[ModelMessage], budget: Budget) -> Result<(), TestCaseError> {
    let trimmed = match trim(input.to_vec(), budget, &counter()) {
        Ok(trimmed) => trimmed,
        Err(err) => {
            if let Budget::Tokens(limit) = budget {
                let tokens: Vec<usize> = input.iter().map(|message| counter().count_message(message)).collect();
                let sized = trim_window_sized(input, limit, &counter(), &tokens).map(|window| window.start);
                prop_assert_eq!(sized, Err(err));
            }
            return Ok(());
        }
    };
    let output = &trimmed.history;
    let start = trimmed.report.removed.len();
    // The borrowed window is the same cut, the same messages and the same report.
    let window = trim_window(input, budget, &counter()).expect("trim succeeded on it");
    prop_assert_eq!(window.start, start);
    prop_assert_eq!(&window.to_vec(), output);
    prop_assert_eq!(window.size_after, trimmed.report.size_after);
    prop_assert_eq!(&window.report(), &trimmed.report);
    // Given the messages' tokens counted beforehand, the window is the same again.
    if let Budget::Tokens(limit) = budget {
        let tokens: Vec<usize> = input.iter().map(|message| counter().count_message(message)).collect();
        let sized = trim_window_sized(input, limit, &counter(), &tokens).expect("trim succeeded on it");
        prop_assert_eq!(sized.start, start);
        prop_assert_eq!(&sized.to_vec(), output);
        prop_assert_eq!(sized.size_after, trimmed.report.size_after);
        prop_assert_eq!(&sized.report(), &trimmed.report);
    }
    // The sizes are the input's and the output's, counted here whole (the window counts only
    // the newest messages, as far back as a cut could keep).
    prop_assert_eq!(trimmed.report.size_before, measured(input, budget));
    prop_assert_eq!(trimmed.report.size_after, measured(output, budget));
    for removed in &trimmed.report.removed {
        prop_assert_eq!(removed.size, measured_message(&input[removed.index], budget));
    }
    if let (Budget::Bytes(limit) | Budget::Tokens(limit), true) = (budget, start > 0) {
        prop_assert!(trimmed.report.size_before > limit);
    }
    let moved = trimmed
        .report
        .moved
        .iter()
        .filter(|moved| moved.to_part.is_some())
        .count();
    // A suffix of whole turns.
    let turns = Turns::of(input);
    prop_assert!(turns.is_cut_point(start), "cut at {start}, not a turn start");
    prop_assert_eq!(output.len(), input.len() - start);
    if start == 0 {
        prop_assert!(trimmed.report.moved.is_empty());
    }
    // Kept messages are the input's, byte for byte (the first one with the moved parts ahead).
    for (kept, original) in output.iter().zip(&input[start..]).skip(1) {
        prop_assert_eq!(bytes(kept), bytes(original));
    }
    if let (Some(first), Some(original)) = (output.first(), input.get(start)) {
        prop_assert_eq!(first.parts_len(), original.parts_len() + moved);
    }
    // Pairing: no new orphan result, and a history check accepts stays accepted.
    let input_orphans = orphans(input);
    for (message, part) in orphans(output) {
        let part = if message == 0 { part.wrapping_sub(moved) } else { part };
        prop_assert!(
            input_orphans.contains(&(message + start, part)),
            "new orphan at {message}/{part}"
        );
    }
    if check(input).is_empty() {
        prop_assert_eq!(check(output), vec![]);
    }
    // Idempotent.
    let again = trim(output.clone(), budget, &counter()).expect("what fit still fits");
    prop_assert_eq!(
        msgflow_wire::to_vec(&again.history).unwrap(),
        msgflow_wire::to_vec(output).unwrap()
    );
    prop_assert!(again.report.removed.is_empty());
    if let Budget::Bytes(limit) | Budget::Tokens(limit) = budget {
        prop_assert!(trimmed.report.size_after <= limit || start == 0);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn trim_keeps_whole_turns_and_pairs_on_conversations(shape in shape(), keep in 1usize..8, fraction in 1usize..10) {
        let input = build(&shape);
        assert_trim_properties(&input, Budget::Turns(keep))?;
        let total_bytes = msgflow_wire::to_vec(&input).unwrap().len();
        assert_trim_properties(&input, Budget::Bytes(total_bytes * fraction / 10))?;
        let total_tokens: usize = input.iter().map(|message| counter().count_message(message)).sum();
        assert_trim_properties(&input, Budget::Tokens(total_tokens * fraction / 10))?;
    }

    #[test]
    fn trim_keeps_whole_turns_and_pairs_on_any_history(
        input in msgflow_wire::arbitrary::history(msgflow_wire::arbitrary::Flavour::Any),
        keep in 1usize..4,
        fraction in 1usize..10,
    ) {
        assert_trim_properties(&input, Budget::Turns(keep))?;
        let total_bytes = msgflow_wire::to_vec(&input).unwrap().len();
        assert_trim_properties(&input, Budget::Bytes(total_bytes * fraction / 10))?;
    }
}

#[test]
fn a_long_history_is_cut_as_a_short_one() {
    // Long enough that its newest messages are counted in several rounds, some in parallel.
    let mut messages = Vec::new();
    for turn in 0..2_500 {
        messages.push(M::User(None, format!("task {turn}")));
        messages.push(M::Calls(
            format!("on it: {}", "x".repeat(turn % 97)),
            vec![format!("c{turn}")],
        ));
        messages.push(M::Returns(vec![format!("c{turn}")], None));
        messages.push(M::Calls("done".into(), vec![]));
    }
    let input = history(&messages, None);
    let tokens: usize = input.iter().map(|message| counter().count_message(message)).sum();
    let bytes = msgflow_wire::to_vec(&input).unwrap().len();
    for tenths in [1, 5, 9, 10] {
        assert_trim_properties(&input, Budget::Tokens(tokens * tenths / 10)).unwrap();
        assert_trim_properties(&input, Budget::Bytes(bytes * tenths / 10)).unwrap();
    }
    assert_trim_properties(&input, Budget::Turns(1_000)).unwrap();
}

#[test]
fn a_history_of_100k_messages_is_cut_at_its_budget() {
    // 100,000 messages: one pass for the turns, and the sizes of the newest messages (how the
    // time grows with the history is measured by `cargo xtask bench`, op `trim-chars4-cold`).
    let mut messages = Vec::new();
    for turn in 0..20_000 {
        messages.push(M::User(None, format!("task {turn}")));
        messages.push(M::Calls("on it".into(), vec![format!("c{turn}")]));
        messages.push(M::Returns(vec![format!("c{turn}")], None));
        messages.push(M::Calls("done".into(), vec![]));
        messages.push(M::Calls("and more".into(), vec![]));
    }
    let input = history(&messages, None);
    let total = msgflow_wire::to_vec(&input).unwrap().len();
    let trimmed = trim(input, Budget::Bytes(total / 2), &counter()).unwrap();
    assert!(trimmed.report.turns_kept > 9_000 && trimmed.report.turns_kept < 10_001);
}
