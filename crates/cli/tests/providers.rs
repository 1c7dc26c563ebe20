//! `msgflow export --to`, `check --provider`, `repair --provider` through the built binary.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn msgflow() -> Command {
    Command::cargo_bin("msgflow").unwrap()
}

fn example() -> PathBuf {
    root().join("examples/interrupted-session.json")
}

#[test]
fn check_provider_anthropic_names_the_error_and_the_message() {
    let output = msgflow()
        .args(["check", "--provider", "anthropic"])
        .arg(example())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    insta::assert_snapshot!(
        "check-anthropic-interrupted-session",
        String::from_utf8(output.stdout).unwrap()
    );
}

#[test]
fn repair_provider_anthropic_output_passes_the_check() {
    let dir = tempfile::tempdir().unwrap();
    let repaired = dir.path().join("repaired.json");
    let output = msgflow()
        .args(["repair", "--provider", "anthropic"])
        .arg(example())
        .arg("-o")
        .arg(&repaired)
        .output()
        .unwrap();
    common::assert_succeeded(&output);
    let stderr = String::from_utf8(output.stderr)
        .unwrap()
        .replace(&example().display().to_string(), "EXAMPLE");
    insta::assert_snapshot!("repair-anthropic-interrupted-session", stderr);
    msgflow()
        .args(["check", "--provider", "anthropic"])
        .arg(&repaired)
        .assert()
        .code(0);
    msgflow()
        .args(["export", "--to", "anthropic"])
        .arg(&repaired)
        .assert()
        .code(0);
}

#[test]
fn export_prints_the_request_of_each_provider() {
    let fixture = root().join("tests/fixtures/v2_68/tool-call-return-basic.json");
    for (provider, key) in [
        ("anthropic", "messages"),
        ("openai-chat", "messages"),
        ("openai-responses", "input"),
    ] {
        let output = msgflow()
            .args(["export", "--to", provider])
            .arg(&fixture)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{provider}");
        let request: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert!(request.get(key).is_some(), "{provider}: {request}");
    }
}

#[test]
fn export_refuses_what_it_does_not_reproduce_with_exit_2_and_the_location() {
    let fixture = root().join("tests/fixtures/v2_68/user-content-image-url.json");
    let output = msgflow()
        .args(["export", "--to", "openai-chat"])
        .arg(&fixture)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("at $[0].parts[0].content["), "{stderr}");
    msgflow()
        .args(["export", "--to", "gemini"])
        .arg(&fixture)
        .assert()
        .code(2);
    msgflow()
        .args(["export", "--to", "nowhere"])
        .arg(&fixture)
        .assert()
        .code(2);
}

/// The three reasons a history cannot go read differently: pydantic-ai's own refusal (its error
/// quoted), a file it would download first, and msgflow's own limit; each exits 2, prints nothing
/// and leaves its input as it was.
#[test]
fn export_says_whether_pydantic_ai_refuses_would_download_or_msgflow_stops_short() {
    let fixtures = root().join("tests/fixtures/providers");
    let cases = [
        (
            "media-video-url-forced.json",
            "openai-responses",
            "pydantic-ai refuses to send VideoUrl `https://example.com/clip.mp4` to openai-responses: \
             `VideoUrl is not supported in OpenAI Responses user prompts`",
        ),
        (
            "media-urls-to-download.json",
            "openai-chat",
            "pydantic-ai would download AudioUrl `https://example.com/voice.mp3` before sending it to openai-chat",
        ),
        (
            "a server-side tool search",
            "anthropic",
            "at $[1].parts[0]: msgflow cannot export a server-side tool part (`tool_search`) pydantic-ai \
             sends back to this provider to anthropic yet",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let tool_search = dir.path().join("tool-search.json");
    std::fs::write(
        &tool_search,
        r#"[{"kind":"request","parts":[{"part_kind":"user-prompt","content":"hi"}]},
            {"kind":"response","parts":[{"part_kind":"builtin-tool-call","tool_name":"tool_search","args":{"foo":"bar"},"tool_call_id":"c3","provider_name":"anthropic"}]}]"#,
    )
    .unwrap();
    for (name, provider, reason) in cases {
        let file = if name.ends_with(".json") {
            fixtures.join(name)
        } else {
            tool_search.clone()
        };
        let before = std::fs::read(&file).unwrap();
        let output = msgflow()
            .args(["export", "--to", provider])
            .arg(&file)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{name}");
        assert!(output.stdout.is_empty(), "{name}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(stderr.contains(reason), "{name}: {stderr}");
        assert_eq!(std::fs::read(&file).unwrap(), before, "{name}");
    }
}

#[test]
fn export_and_check_take_the_openai_chat_thinking_mode_of_the_profile() {
    let fixture = root().join("tests/fixtures/providers/thinking-openai-chat-field.json");
    let export = |mode: &str| {
        let output = msgflow()
            .args(["export", "--to", "openai-chat", "--openai-chat-thinking", mode])
            .arg(&fixture)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{mode}");
        serde_json::from_slice::<serde_json::Value>(&output.stdout).unwrap()
    };
    assert_eq!(export("field:thoughts")["messages"][1]["thoughts"], "Use ls.");
    assert_eq!(export("auto")["messages"][1]["reasoning"], "Use ls.");
    assert!(!export("off").to_string().contains("Use ls."));
    msgflow()
        .args(["check", "--provider", "openai-chat", "--openai-chat-thinking", "tags"])
        .arg(&fixture)
        .assert()
        .code(0);
    // A mode for another provider, or one that names a key of the message, is a usage error.
    for args in [
        ["export", "--to", "anthropic", "--openai-chat-thinking", "off"],
        ["export", "--to", "openai-chat", "--openai-chat-thinking", "field:role"],
        ["check", "--provider", "gemini", "--openai-chat-thinking", "off"],
    ] {
        let output = msgflow().args(args).arg(&fixture).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("thinking"), "{args:?}");
    }
}

#[test]
fn export_and_check_take_where_anthropic_puts_reasoning_it_cannot_take_back() {
    let fixture = root().join("tests/fixtures/providers/thinking-other-providers.json");
    let export = |place: &str| {
        let output = msgflow()
            .args(["export", "--to", "anthropic", "--anthropic-thinking", place])
            .arg(&fixture)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{place}");
        String::from_utf8(output.stdout).unwrap()
    };
    assert!(export("user-turn").contains("<assistant_thinking>"));
    let in_reply = export("assistant-turn");
    assert!(!in_reply.contains("<assistant_thinking>") && in_reply.contains("<thinking>"));
    msgflow()
        .args([
            "check",
            "--provider",
            "anthropic",
            "--anthropic-thinking",
            "assistant-turn",
        ])
        .arg(&fixture)
        .assert()
        .code(0);
    // For another provider, or a place that is none of the two, it is a usage error.
    for args in [
        [
            "export",
            "--to",
            "openai-chat",
            "--anthropic-thinking",
            "assistant-turn",
        ],
        ["export", "--to", "anthropic", "--anthropic-thinking", "reply"],
    ] {
        let output = msgflow().args(args).arg(&fixture).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("thinking"), "{args:?}");
    }
}

#[test]
fn export_and_check_take_where_openai_puts_reasoning_it_writes_out_as_text() {
    let fixture = root().join("tests/fixtures/providers/thinking-other-providers.json");
    let export = |to: &str, place: &str| {
        let output = msgflow()
            .args(["export", "--to", to, "--openai-thinking", place])
            .arg(&fixture)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{to} {place}");
        String::from_utf8(output.stdout).unwrap()
    };
    for to in ["openai-chat", "openai-responses"] {
        let in_reply = export(to, "assistant-turn");
        assert!(
            !in_reply.contains("<assistant_thinking>") && in_reply.contains("<think>"),
            "{to}"
        );
        assert!(export(to, "user-turn").contains("<assistant_thinking>"), "{to}");
        msgflow()
            .args(["check", "--provider", to, "--openai-thinking", "user-turn"])
            .arg(&fixture)
            .assert()
            .code(0);
    }
    // For another provider, or a place that is none of the two, it is a usage error.
    for args in [
        ["export", "--to", "anthropic", "--openai-thinking", "user-turn"],
        ["export", "--to", "openai-chat", "--openai-thinking", "reply"],
    ] {
        let output = msgflow().args(args).arg(&fixture).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("thinking"), "{args:?}");
    }
}

/// A tool call and its result written without ids: the request names them by ids msgflow made
/// up, and stderr says so (pydantic-ai would invent random ones on load).
#[test]
fn export_says_when_it_names_tool_parts_without_ids() {
    let history = r#"[
      {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "weather?"}]},
      {"kind": "response", "parts": [{"part_kind": "tool-call", "tool_name": "weather", "args": {}}]},
      {"kind": "request", "parts": [{"part_kind": "tool-return", "tool_name": "weather", "content": "sun"}]}
    ]"#;
    let output = msgflow()
        .args(["export", "--to", "openai-chat", "-"])
        .write_stdin(history)
        .output()
        .unwrap();
    common::assert_succeeded(&output);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("2 tool part(s) have no tool_call_id (the first at $[1].parts[0])"),
        "{stderr}"
    );
    let request: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(request["messages"][1]["tool_calls"][0]["id"], "msgflow_call_1_0");

    // With every id present, nothing is said.
    let output = msgflow()
        .args(["export", "--to", "openai-chat"])
        .arg(example())
        .output()
        .unwrap();
    assert!(!String::from_utf8(output.stderr).unwrap().contains("tool_call_id"));
}
