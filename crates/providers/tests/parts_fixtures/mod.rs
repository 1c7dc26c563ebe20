//! The `parts-*` provider fixtures: a history and the requests pydantic-ai 2.68.0 built from it.

use msgflow_providers::{export, Provider};
use serde_json::{json, Value};

pub fn fixture(name: &str) -> (Vec<msgflow_wire::ModelMessage>, Value) {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/providers"));
    let history = msgflow_wire::from_slice(&std::fs::read(dir.join(format!("parts-{name}.json"))).unwrap()).unwrap();
    let expected = serde_json::from_slice(&std::fs::read(dir.join(format!("parts-{name}.expected.json"))).unwrap());
    (history, expected.unwrap())
}

pub fn assert_exports_as_pydantic_ai(name: &str) -> Value {
    let (history, expected) = fixture(name);
    for provider in Provider::EXPORTABLE {
        let request = &expected[provider.name()]["request"];
        let actual = export(&history, provider).unwrap_or_else(|error| panic!("{name} / {provider}: {error}"));
        assert_eq!(&actual, request, "{name} / {provider}");
    }
    expected
}

/// A user prompt, then an Anthropic response of `part` alone.
#[allow(dead_code)] // not every test file builds one
pub fn anthropic_response(part: Value) -> Vec<msgflow_wire::ModelMessage> {
    response_from("anthropic", part)
}

/// A user prompt, then a response of `part` alone from `provider_name`.
#[allow(dead_code)] // not every test file builds one
pub fn response_from(provider_name: &str, part: Value) -> Vec<msgflow_wire::ModelMessage> {
    let value = json!([
        {"kind": "request", "parts": [{"part_kind": "user-prompt", "content": "q", "timestamp": "2025-01-01T00:00:00Z"}]},
        {"kind": "response", "parts": [part], "provider_name": provider_name, "timestamp": "2025-01-01T00:00:00Z"}
    ]);
    msgflow_wire::from_str(&value.to_string()).unwrap()
}
