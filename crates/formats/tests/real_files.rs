//! The real foreign files of `../shared/formats` (see its PROVENANCE.md; OpenAI Chat and Vercel AI
//! UI messages) convert with the expected counts, and what `from` makes of them is a history
//! pydantic-ai loads.

mod common;

use msgflow_formats::{convert, Format, Output};

/// (file name, documents, messages per history, tool calls in all).
const OPENAI_CHAT: [(&str, usize, &[usize], usize); 12] = [
    ("openai__openai-cookbook__examples__data__toy_chat_fine_tuning.jsonl", 5, &[2, 8, 2, 2, 2], 0),
    ("zgimszhd61__openai-batch-quickstart__batchinput.jsonl", 4, &[1, 1, 1, 1], 0),
    ("pydantic__pydantic-ai__tests__models__cassettes__test_openai__test_image_url_tool_response.yaml__request1.json", 1, &[3], 1),
    ("pydantic__pydantic-ai__tests__models__cassettes__test_openai__test_multiple_agent_tool_calls.yaml__request3.json", 1, &[7], 2),
    ("pydantic__pydantic-ai__tests__models__cassettes__test_openai__test_audio_as_binary_content_input.yaml__request0.json", 1, &[1], 0),
    ("pydantic__pydantic-ai__tests__models__cassettes__test_openai__test_openai_o1_mini_system_role[developer].yaml__request0.json", 1, &[1], 0),
    ("traceloop__openllmetry__packages__opentelemetry-instrumentation-openai__tests__traces__cassettes__test_chat__test_chat_history_message_pydantic.yaml__request1.json", 1, &[3], 0),
    ("traceloop__openllmetry__packages__opentelemetry-instrumentation-openai__tests__traces__cassettes__test_chat__test_chat_pydantic_based_tool_calls.yaml__request0.json", 1, &[2], 1),
    ("traceloop__openllmetry__packages__opentelemetry-instrumentation-openai__tests__traces__cassettes__test_functions__test_open_ai_function_calls.yaml__request0.json", 1, &[1], 0),
    ("open-telemetry__opentelemetry-python-contrib__instrumentation-genai__opentelemetry-instrumentation-openai-v2__tests__cassettes__test_chat_completion_tool_calls_with_content.yaml__request1.json", 1, &[3], 2),
    ("litongjava__db-ai-assistant__docs__courses-function-call.md__block1.json", 1, &[5], 1),
    ("LlmKira__LLMBot__sdk__endpoint__openai__note.md__L79__literal.json", 1, &[1], 0),
];

/// (file name, documents, messages per history, tool calls in all, `check` findings per history).
type Expected<'a> = (&'a str, usize, &'a [usize], usize, usize);

/// (file name, documents, messages per history, tool calls in all).
const ANTHROPIC: [(&str, usize, &[usize], usize); 11] = [
    ("pydantic__pydantic-ai__tests__models__cassettes__test_anthropic__test_anthropic_model_thinking_part.yaml__request1.json", 1, &[3], 0),
    ("pydantic__pydantic-ai__tests__models__cassettes__test_anthropic__test_anthropic_model_thinking_part_redacted.yaml__request1.json", 1, &[3], 0),
    ("pydantic__pydantic-ai__tests__models__cassettes__test_anthropic__test_anthropic_web_search_tool.yaml__request1.json", 1, &[3], 0),
    ("pydantic__pydantic-ai__tests__models__cassettes__test_anthropic__test_document_binary_content_input.yaml__request0.json", 1, &[1], 0),
    ("pydantic__pydantic-ai__tests__models__cassettes__test_anthropic__test_multiple_parallel_tool_calls.yaml__request1.json", 1, &[3], 4),
    ("simonw__llm-anthropic__tests__cassettes__test_anthropic__test_fixed_version_tool_chain_with_thinking_display_regression.yaml__request1.json", 1, &[3], 1),
    ("simonw__llm-anthropic__tests__cassettes__test_anthropic__test_prompt_with_prefill_and_stop_sequences.yaml__request0.json", 1, &[2], 0),
    ("simonw__llm-anthropic__tests__cassettes__test_anthropic__test_tools.yaml__request1.json", 1, &[3], 2),
    ("traceloop__openllmetry__packages__opentelemetry-instrumentation-anthropic__tests__cassettes__test_messages__test_anthropic_image_with_history.yaml__request1.json", 1, &[3], 0),
    ("traceloop__openllmetry__packages__opentelemetry-instrumentation-anthropic__tests__cassettes__test_messages__test_anthropic_tools_history_legacy.yaml__request0.json", 1, &[3], 1),
    ("vercel__ai__packages__anthropic__src__convert-to-anthropic-prompt.test.ts__L4039__literal.json", 1, &[2], 1),
];

#[test]
fn real_openai_chat_files_convert_with_the_expected_counts() {
    let expected: Vec<Expected> = OPENAI_CHAT
        .iter()
        .map(|&(name, documents, messages, calls)| {
            // `check` is clean on what `from` makes of them, but for the one conversation that
            // sends a legacy function's result back as a user message: its call is left unanswered.
            (
                name,
                documents,
                messages,
                calls,
                usize::from(name.starts_with("litongjava__")),
            )
        })
        .collect();
    real_files_convert("openai-chat", Format::OpenAiChat, &expected);
}

#[test]
fn real_anthropic_files_convert_with_the_expected_counts() {
    let expected: Vec<Expected> = ANTHROPIC
        .iter()
        .map(|&(name, documents, messages, calls)| {
            // The Vercel test's `tool_use` has no `tool_result` (its PROVENANCE.md row).
            (
                name,
                documents,
                messages,
                calls,
                usize::from(name.starts_with("vercel__")),
            )
        })
        .collect();
    real_files_convert("anthropic", Format::Anthropic, &expected);
    // The server-side tool blocks of the web search conversation come back as pydantic-ai's parts.
    let Some(dir) = common::shared_formats_folder("anthropic") else {
        return;
    };
    let text = std::fs::read_to_string(dir.join(ANTHROPIC[2].0)).unwrap();
    let converted = convert(&text, Format::Anthropic, Format::PydanticAi).unwrap();
    let Output::Histories(histories) = converted.output else {
        unreachable!()
    };
    let json = msgflow_wire::to_string(&histories[0]).unwrap();
    assert_eq!(json.matches("\"part_kind\":\"builtin-tool-call\"").count(), 1);
    assert_eq!(json.matches("\"part_kind\":\"builtin-tool-return\"").count(), 1);
    assert!(json.contains("\"signature\":"), "the thinking keeps its signature");
}

/// Every file of `../shared/formats/<format>` converts with the counts expected, loads, has as
/// many `check` findings as expected, and converts back.
fn real_files_convert(format_dir: &str, format: Format, expected: &[Expected]) {
    let Some(dir) = common::shared_formats_folder(format_dir) else {
        return;
    };
    let files = std::fs::read_dir(&dir).unwrap().count();
    assert_eq!(
        files,
        expected.len(),
        "a file was added to or removed from {}",
        dir.display()
    );
    for &(name, documents, messages, calls, findings) in expected {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let converted = convert(&text, format, Format::PydanticAi).unwrap_or_else(|err| panic!("{name}: {err}"));
        let Output::Histories(histories) = converted.output else {
            panic!("{name}: not histories")
        };
        assert_eq!(histories.len(), documents, "{name}");
        let lengths: Vec<usize> = histories.iter().map(Vec::len).collect();
        assert_eq!(lengths, messages, "{name}");
        let json = histories
            .iter()
            .map(|history| msgflow_wire::to_string(history).unwrap())
            .collect::<String>();
        assert_eq!(json.matches("\"part_kind\":\"tool-call\"").count(), calls, "{name}");
        for history in &histories {
            let verdict = msgflow_wire::verdict::verdict(history);
            assert!(verdict.is_loadable(), "{name}: {:?}", verdict.reasons());
            let violations = msgflow_sanitize::check(history);
            assert_eq!(violations.len(), findings, "{name}: {violations:?}");
        }
        // And back: every history is one pydantic-ai sends to the format.
        let again = convert(&json_lines(&histories), Format::PydanticAi, format)
            .unwrap_or_else(|err| panic!("{name}: back to {format_dir}: {err}"));
        assert_eq!(again.output.len(), documents, "{name}");
        converts_onward(name, &json_lines(&histories));
    }
}

/// (file name, messages in the history, tool calls, tool returns).
const VERCEL_UI: [(&str, usize, usize, usize); 10] = [
    (
        "pydantic__pydantic-ai__tests__test_vercel_ai.py__L141__literal.json",
        1,
        0,
        0,
    ),
    (
        "vercel__ai__packages__ai__src__ui__chat.test.ts__L1222__literal.json",
        1,
        0,
        0,
    ),
    (
        "vercel__ai__packages__ai__src__ui__chat.test.ts__L2128__literal.json",
        3,
        1,
        1,
    ),
    (
        "vercel__ai__packages__ai__src__ui__chat.test.ts__L2415__literal.json",
        3,
        1,
        1,
    ),
    (
        "vercel__ai__packages__ai__src__ui__chat.test.ts__L2570__literal.json",
        3,
        1,
        1,
    ),
    (
        "vercel__ai__packages__ai__src__ui__convert-to-model-messages.test.ts__L1504__literal.json",
        4,
        4,
        1,
    ),
    (
        "vercel__ai__packages__ai__src__ui__convert-to-model-messages.test.ts__L2115__literal.json",
        2,
        1,
        0,
    ),
    (
        "vercel__ai__packages__ai__src__ui__convert-to-model-messages.test.ts__L2955__literal.json",
        1,
        0,
        0,
    ),
    (
        "vercel__ai__packages__ai__src__ui__convert-to-model-messages.test.ts__L458__literal.json",
        1,
        0,
        0,
    ),
    (
        "vercel__ai__packages__react__src__use-chat.ui.test.tsx__L1459__literal.json",
        1,
        0,
        0,
    ),
];

#[test]
fn real_vercel_ui_files_convert_with_the_expected_counts() {
    let Some(dir) = common::shared_formats_folder("vercel-ui") else {
        return;
    };
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        VERCEL_UI.len(),
        "a file was added or removed"
    );
    for (name, messages, calls, returns) in VERCEL_UI {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let converted =
            convert(&text, Format::VercelUi, Format::PydanticAi).unwrap_or_else(|err| panic!("{name}: {err}"));
        let Output::Histories(histories) = converted.output else {
            panic!("{name}")
        };
        let history = &histories[0];
        assert_eq!(history.len(), messages, "{name}");
        let json = msgflow_wire::to_string(history).unwrap();
        assert_eq!(json.matches(r#""part_kind":"tool-call""#).count(), calls, "{name}");
        assert_eq!(json.matches(r#""part_kind":"tool-return""#).count(), returns, "{name}");
        let verdict = msgflow_wire::verdict::verdict(history);
        assert!(verdict.is_loadable(), "{name}: {:?}", verdict.reasons());
        // And back: each history is one msgflow writes as UI messages again.
        convert(&json, Format::PydanticAi, Format::VercelUi).unwrap_or_else(|err| panic!("{name}: back: {err}"));
        converts_onward(name, &json);
    }
}

/// The histories a real file made (`json`, JSON Lines) convert on to every format no provider's
/// rules stand between: the UI formats and OTel, whose pydantic-ai converters take any history it
/// loads (a provider's export refuses what pydantic-ai would not send it, such as audio to Anthropic).
fn converts_onward(name: &str, json: &str) {
    for to in [Format::VercelUi, Format::AgUi, Format::Otel] {
        convert(json, Format::PydanticAi, to).unwrap_or_else(|err| panic!("{name}: on to {to}: {err}"));
    }
}

fn json_lines(histories: &[Vec<msgflow_wire::ModelMessage>]) -> String {
    histories
        .iter()
        .map(|history| msgflow_wire::to_string(history).unwrap() + "\n")
        .collect()
}

/// What a real AG-UI file converts to: (messages, tool calls, tool returns), or the path of the refusal.
type AgUiExpected = Result<(usize, usize, usize), &'static str>;

/// The real AG-UI files.
const AG_UI: [(&str, AgUiExpected); 12] = [
    ("CopilotKit__CopilotKit__packages__runtime-client-gql__src__message-conversion__agui-to-gql.test.ts__L444__literal.json", Ok((3, 1, 1))),
    ("ag-ui-protocol__ag-ui__sdks__dotnet__baselines__MixedToolInvocationIntegration__Turn_02.02.Request.Client.AGUI.verified.json", Ok((3, 2, 1))),
    ("ag-ui-protocol__ag-ui__sdks__dotnet__baselines__Step01_GettingStarted__Turn_02.02.Request.Client.AGUI.verified.json", Ok((3, 0, 0))),
    ("ag-ui-protocol__ag-ui__sdks__dotnet__baselines__Step03_FrontendTools__Turn_02.02.Request.Client.AGUI.verified.json", Ok((3, 1, 1))),
    ("ag-ui-protocol__ag-ui__sdks__dotnet__baselines__Step04_HumanInLoop__Turn_02.02.Request.Client.AGUI.verified.json", Ok((3, 1, 1))),
    ("ag-ui-protocol__ag-ui__sdks__dotnet__baselines__Step08_MultimodalMessages__Turn_01.02.Request.Client.AGUI.verified.json", Ok((1, 0, 0))),
    ("ag-ui-protocol__ag-ui__sdks__dotnet__baselines__Step09_InterruptsApproval__Turn_02.02.Request.Client.AGUI.verified.json", Ok((1, 0, 0))),
    // A tool message answering a call the messages do not hold: pydantic-ai's load_messages raises too.
    ("ag-ui-protocol__ag-ui__sdks__python__tests__test_types.py__L256__literal.json", Err("$[4].toolCallId")),
    ("ag-ui-protocol__ag-ui__sdks__python__tests__test_types.py__L320__literal.json", Ok((3, 1, 1))),
    ("microsoft__agent-framework__python__packages__ag-ui__tests__ag_ui__test_endpoint.py__L3242__literal.json", Ok((3, 0, 0))),
    ("microsoft__agent-framework__python__packages__ag-ui__tests__ag_ui__test_message_adapters.py__L1912__literal.json", Ok((3, 0, 0))),
    ("microsoft__agent-framework__python__packages__ag-ui__tests__ag_ui__test_message_adapters.py__L904__literal.json", Ok((2, 1, 1))),
];

#[test]
fn real_ag_ui_files_convert_with_the_expected_counts() {
    let Some(dir) = common::shared_formats_folder("ag-ui") else {
        return;
    };
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        AG_UI.len(),
        "a file was added or removed"
    );
    for (name, expected) in AG_UI {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let converted = convert(&text, Format::AgUi, Format::PydanticAi);
        match (expected, converted) {
            (Ok(counts), Ok(converted)) => {
                let Output::Histories(histories) = converted.output else {
                    panic!("{name}")
                };
                let json = msgflow_wire::to_string(&histories[0]).unwrap();
                let found = (
                    histories[0].len(),
                    json.matches(r#""part_kind":"tool-call""#).count(),
                    json.matches(r#""part_kind":"tool-return""#).count(),
                );
                assert_eq!(found, counts, "{name}");
                let verdict = msgflow_wire::verdict::verdict(&histories[0]);
                assert!(verdict.is_loadable(), "{name}: {:?}", verdict.reasons());
                // And back: each history is one msgflow writes as AG-UI messages again.
                convert(&json, Format::PydanticAi, Format::AgUi).unwrap_or_else(|err| panic!("{name}: back: {err}"));
                converts_onward(name, &json);
            }
            (Err(path), Err(err)) => assert_eq!(err.path, path, "{name}: {err}"),
            (_, outcome) => panic!("{name}: expected {expected:?}, got {outcome:?}"),
        }
    }
}

/// (file name, histories, messages per history, tool calls in all, tool returns in all).
const OTEL: [(&str, usize, &[usize], usize, usize); 13] = [
    ("langfuse__langfuse__worker__src____tests____chatml__framework-traces__csharp-agent-with-gemini-2026-03-09.trace.json__observation2.json", 1, &[5], 2, 1),
    ("langfuse__langfuse__worker__src____tests____chatml__framework-traces__microsoft-agent-2025-12-17.trace.json__observation2.json", 1, &[2], 0, 1),
    ("langfuse__langfuse__worker__src____tests____chatml__framework-traces__pydantic-ai-tools-2025-12-04.trace.json__observation5.json", 1, &[6], 3, 3),
    ("open-telemetry__semantic-conventions__docs__gen-ai__non-normative__examples-llm-calls.md__built-in-tools.json", 1, &[2], 0, 0),
    ("open-telemetry__semantic-conventions__docs__gen-ai__non-normative__examples-llm-calls.md__instructions.json", 1, &[2], 0, 0),
    ("open-telemetry__semantic-conventions__docs__gen-ai__non-normative__examples-llm-calls.md__multimodal-inputs.json", 1, &[1], 0, 0),
    ("open-telemetry__semantic-conventions__docs__gen-ai__non-normative__examples-llm-calls.md__reasoning.json", 1, &[2], 0, 0),
    ("open-telemetry__semantic-conventions__docs__gen-ai__non-normative__examples-llm-calls.md__tool-call-span-2.json", 1, &[4], 1, 1),
    ("pydantic__logfire__tests__otel_integrations__test_openai.py__L3555__literal.json", 1, &[4], 1, 1),
    ("pydantic__pydantic-ai__tests__models__test_instrumented.py__L1224__literal.json", 1, &[1], 0, 0),
    ("pydantic__pydantic-ai__tests__models__test_instrumented.py__L1474__literal.json", 1, &[3], 0, 0),
    ("pydantic__pydantic-ai__tests__models__test_instrumented.py__L1605__literal.json", 1, &[1], 0, 0),
    ("pydantic__pydantic-ai__tests__models__test_instrumented.py__L193__literal.json", 1, &[3], 2, 2),
];

#[test]
fn real_otel_files_convert_with_the_expected_counts() {
    let Some(dir) = common::shared_formats_folder("otel") else {
        return;
    };
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        OTEL.len(),
        "a file was added or removed"
    );
    for (name, count, messages, calls, returns) in OTEL {
        let text = std::fs::read_to_string(dir.join(name)).unwrap();
        let converted = convert(&text, Format::Otel, Format::PydanticAi).unwrap_or_else(|err| panic!("{name}: {err}"));
        let Output::Histories(histories) = converted.output else {
            panic!("{name}")
        };
        assert_eq!(histories.len(), count, "{name}");
        let lengths: Vec<usize> = histories.iter().map(Vec::len).collect();
        assert_eq!(lengths, messages, "{name}");
        let json = json_lines(&histories);
        assert_eq!(json.matches(r#""part_kind":"tool-call""#).count(), calls, "{name}");
        assert_eq!(json.matches(r#""part_kind":"tool-return""#).count(), returns, "{name}");
        for history in &histories {
            let verdict = msgflow_wire::verdict::verdict(history);
            assert!(verdict.is_loadable(), "{name}: {:?}", verdict.reasons());
        }
        // A span has no timestamps: the report says pydantic-ai fills them in.
        assert!(
            converted
                .report
                .losses
                .iter()
                .any(|loss| loss.what.contains("timestamps")),
            "{name}"
        );
        convert(&json, Format::PydanticAi, Format::Otel).unwrap_or_else(|err| panic!("{name}: back: {err}"));
        converts_onward(name, &json);
    }
}
