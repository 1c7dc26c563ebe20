//! Instruction state as pydantic-ai 2.68.0's `_project_instruction_state` sends it: baselines
//! dropped, changes of the current window as `<pyai:context>` elements or diffs, windows ended by
//! compactions, capability loads. The expected requests are what pydantic-ai's own mapping built
//! (`tests/fixtures/providers/parts-instructions-*.expected.json`).

mod parts_fixtures;

use msgflow_providers::{export, ExportError, Provider};

use parts_fixtures::{assert_exports_as_pydantic_ai, fixture};

/// Instruction state (`_project_instruction_state`): baselines are never sent and the requests'
/// `instructions` go as written; a change of the current window is a system prompt of its
/// block's `<pyai:context>` element, or a `<pyai:context_diff>` against the text it replaces
/// (`base_hash`) when that is shorter; a withdrawal is worded for the channel; a change of an
/// unknown namespace or without an id is left out.
#[test]
fn instruction_changes_of_the_window_go_as_context_elements() {
    let expected = assert_exports_as_pydantic_ai("instructions-window");
    let chat = expected["openai-chat"]["request"]["messages"].to_string();
    assert!(
        chat.contains("<pyai:context_diff id=\\\"capability:plan\\\">\\n--- before\\n+++ after\\n@@ -2,5 +2,5 @@"),
        "{chat}"
    );
    assert!(!chat.contains("Newer") && !chat.contains("Lost"), "{chat}");
    assert!(
        chat.contains("id=\\\"agent:tone\\\">\\nBe \\\"warm\\\" & <brief>"),
        "{chat}"
    );
    let anthropic = expected["anthropic"]["request"].to_string();
    assert!(
        anthropic.contains("the withdrawal stays in effect until replaced again"),
        "{anthropic}"
    );
    // The rendered change keeps the position of the delta as written (after the tool return).
    let (history, _) = fixture("instructions-window");
    let exported = msgflow_providers::openai_chat::export(&history).unwrap();
    let diff_at = exported
        .request
        .messages
        .iter()
        .position(|message| serde_json::to_string(message).unwrap().contains("pyai:context_diff"));
    let origin = &exported.origins[diff_at.unwrap()];
    assert_eq!((origin.start.message, origin.start.part), (2, 1));
}

/// Changes from before the latest baseline are superseded, and in the request the window opens
/// at only those after the baseline count.
#[test]
fn instruction_changes_before_the_window_are_left_out() {
    let expected = assert_exports_as_pydantic_ai("instructions-superseded");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(!chat.contains("Old plan") && !chat.contains("Older plan"), "{chat}");
    assert!(chat.contains("Plan C") && chat.contains("Plan D"), "{chat}");
}

/// A compaction ends the instruction window: the change before it is left out, the one after it
/// has no baseline value to be a diff against.
#[test]
fn a_compaction_ends_the_instruction_window() {
    let expected = assert_exports_as_pydantic_ai("instructions-compaction");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(!chat.contains("Notes 2") && chat.contains("Notes 3"), "{chat}");
}

/// A loaded capability's block is stated across windows until a compaction; its first change
/// goes in full, the next one as a diff against it.
#[test]
fn a_loaded_capabilitys_block_is_stated_across_windows() {
    let expected = assert_exports_as_pydantic_ai("instructions-loaded");
    let chat = expected["openai-chat"]["request"]["messages"].to_string();
    assert!(
        chat.contains("<pyai:context id=\\\"capability:docs\\\">\\nStep 1"),
        "{chat}"
    );
    assert!(
        chat.contains("<pyai:context_diff id=\\\"capability:docs\\\">"),
        "{chat}"
    );
}

/// The instruction fallback reads the projected requests: a request left with tool results only
/// once its baseline is dropped takes the instructions before it; a change makes a request more
/// than tool results.
#[test]
fn the_instruction_fallback_reads_the_projected_requests() {
    let expected = assert_exports_as_pydantic_ai("instructions-fallback");
    assert_eq!(
        expected["openai-responses"]["request"]["instructions"],
        "Answer in one line."
    );
    let expected = assert_exports_as_pydantic_ai("instructions-change-last");
    assert_eq!(expected["openai-responses"]["request"].get("instructions"), None);
}

/// A change leading the first request is part of its standing prompt; a request of a baseline
/// alone is an empty request, which as the first request holds no standing prompt.
#[test]
fn instruction_changes_take_their_place_around_the_standing_prompt() {
    let expected = assert_exports_as_pydantic_ai("instructions-standing");
    let system = expected["anthropic"]["request"]["system"].as_str().unwrap();
    assert!(
        system.ends_with("<pyai:context id=\"capability:plan\">\nP2\n</pyai:context>\n\nStanding."),
        "{system}"
    );
    let expected = assert_exports_as_pydantic_ai("instructions-empty-request");
    assert_eq!(
        expected["anthropic"]["request"]["messages"][0]["content"][0]["text"],
        "<system>Standing.</system>"
    );
}

/// An instruction id in its object form (which pydantic-ai's validation also takes) is refused,
/// naming the part.
#[test]
fn an_instruction_id_in_object_form_is_refused() {
    let json = r#"[{"parts":[{"content":"go","part_kind":"user-prompt"},{"id":{"source":{"id":"x"},"name":null},"content":"c","part_kind":"instruction-delta"}],"kind":"request"}]"#;
    let history = msgflow_wire::from_str(json).unwrap();
    for provider in Provider::EXPORTABLE {
        let error = export(&history, provider).unwrap_err();
        assert!(
            matches!(&error, ExportError::Unsupported { message: 0, part: 1, path, .. } if path == "$[0].parts[1].id"),
            "{provider}: {error}"
        );
    }
}

/// A response's compaction ends the instruction window and every capability load: the loaded
/// block's first change is left out with the window before it, a later one is a change of the new
/// window, in full.
#[test]
fn a_compaction_ends_the_loads_of_capabilities_too() {
    let expected = assert_exports_as_pydantic_ai("instructions-load-compacted");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(!chat.contains("D1") && !chat.contains("A1"), "{chat}");
    assert!(
        chat.contains("<pyai:context id=\\\"capability:docs\\\">\\nD2"),
        "{chat}"
    );
}

/// A baseline recording a loaded capability's block makes it the prefix's: its next change is a
/// diff against the baseline's value.
#[test]
fn a_baseline_takes_over_a_loaded_capabilitys_block() {
    let expected = assert_exports_as_pydantic_ai("instructions-load-taken-over");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(
        chat.contains("<pyai:context_diff id=\\\"capability:docs\\\">"),
        "{chat}"
    );
}

/// The corners of ids and of `render`: ids with empty segments (`capability:` is a loaded block,
/// `capability:docs:` is not), escaped in the element; a change is a loaded block's only after
/// the load; a change equal to the value it replaces is an empty diff; the diff's length is
/// counted in code points (the full text is shorter here in code points, not in bytes).
#[test]
fn instruction_ids_and_diff_lengths_are_read_as_pydantic_ai_reads_them() {
    let expected = assert_exports_as_pydantic_ai("instructions-corners");
    let chat = expected["openai-chat"]["request"].to_string();
    assert!(
        !chat.contains("Before the load") && !chat.contains("Left out"),
        "{chat}"
    );
    assert!(chat.contains("<pyai:context id=\\\"capability:\\\">"), "{chat}");
    assert!(chat.contains("toolset:a&amp;&lt;&quot;b&#x27;&gt;"), "{chat}");
    assert!(
        chat.contains("<pyai:context_diff id=\\\"capability:docs\\\">\\n\\n</pyai:context_diff>"),
        "{chat}"
    );
    assert!(chat.contains("<pyai:context id=\\\"run:x\\\">"), "{chat}");
}
