//! The page of the shipped example and of hostile histories, checked on its markup (the browser
//! tests in tests/browser/ check it rendered).

use msgflow_transcript::{render, render_index, IndexEntry, Marker, Options, Summary, TokenCounts};

fn example() -> Vec<msgflow_wire::ModelMessage> {
    msgflow_wire::from_slice(&std::fs::read("../../examples/interrupted-session.json").unwrap()).unwrap()
}

fn count(page: &str, needle: &str) -> usize {
    page.matches(needle).count()
}

#[test]
fn the_example_has_every_message_call_and_link() {
    let history = example();
    let options = Options {
        title: "interrupted-session.json".to_owned(),
        markers: vec![Marker {
            message: 5,
            part: Some(1),
            source: "check".to_owned(),
            text: "dangling tool call at message 5, part 1".to_owned(),
        }],
        loadable: Some(true),
        tokens: Some(TokenCounts {
            counter: "o200k_base".to_owned(),
            per_message: vec![30, 49, 104, 31, 43, 128, 15],
        }),
        context_window: Some(2000),
        ..Options::default()
    };
    let (page, summary) = render(&history, &options);
    assert_eq!(
        summary,
        Summary {
            messages: 7,
            tool_calls: 5,
            markers: 1,
            loadable: Some(true)
        }
    );
    assert_eq!(count(&page, "<article class=\"msg "), 7);
    assert_eq!(count(&page, "<section class=\"part tool-call"), 5);
    // Three of the five calls have results; the last response's two are dangling.
    assert_eq!(count(&page, "class=\"to-result\""), 3);
    assert_eq!(count(&page, "class=\"to-call\""), 3);
    assert_eq!(count(&page, ">no result</span>"), 2);
    assert!(page.contains("<a class=\"to-result\" href=\"#m2p0\">"));
    assert!(page.contains("<a class=\"to-call\" href=\"#m1p2\">"));
    // The marker sits in message 5's part 1.
    let marker = page
        .find("<div class=\"marker\" data-message=\"5\" data-part=\"1\">")
        .unwrap();
    let part = page.find("id=\"m5p1\"").unwrap();
    assert!(part < marker && page[part..marker].find("</section>").is_none());
    assert!(page.contains("<details class=\"thinking\">"));
    assert!(page.contains("400 of a 2000-token context window (20%)"));
    assert_eq!(count(&page, "<script>"), 1);
}

#[test]
fn hostile_strings_are_text() {
    let payload = r#"<script>x()</script><img src=x onerror=y()>"'><svg onload=z()>"#;
    let json = serde_json::json!([
        {"kind": "request", "instructions": payload, "parts": [
            {"part_kind": "system-prompt", "content": payload},
            {"part_kind": "user-prompt", "content": [payload, {"kind": "image-url", "url": "javascript:x()"}]}]},
        {"kind": "response", "model_name": payload, "parts": [
            {"part_kind": "thinking", "content": payload},
            {"part_kind": "text", "content": format!("{payload} [a](javascript:x()) ![b](http://h/i.png)")},
            {"part_kind": "tool-call", "tool_name": payload, "args": {payload: payload}, "tool_call_id": payload}]},
        {"kind": "request", "parts": [
            {"part_kind": "tool-return", "tool_name": payload, "content": payload, "tool_call_id": payload}]},
    ]);
    let history = msgflow_wire::from_slice(json.to_string().as_bytes()).unwrap();
    let options = Options {
        title: payload.to_owned(),
        markers: vec![Marker {
            message: 0,
            part: None,
            source: payload.to_owned(),
            text: payload.to_owned(),
        }],
        ..Options::default()
    };
    let (page, _) = render(&history, &options);
    let lower = page.to_lowercase();
    assert_eq!(count(&lower, "<script"), 1, "only the page's own script");
    assert_eq!(count(&lower, "<img"), 0);
    assert_eq!(count(&lower, "<svg"), 0, "no chart without tokens, and no payload svg");
    // Event handlers appear only inside escaped text, never as attributes.
    assert_eq!(count(&lower, " onerror="), count(&lower, "&lt;img src=x onerror="));
    assert_eq!(count(&lower, " onload="), count(&lower, "&lt;svg onload="));
    assert_eq!(count(&lower, "href=\"javascript"), 0);
    assert_eq!(count(&lower, "src=\"http"), 0);
    assert!(page.contains("&lt;script&gt;x()&lt;/script&gt;"));
    // The call still links to its result through the hostile id.
    assert_eq!(count(&page, "class=\"to-result\""), 1);
}

#[test]
fn the_index_escapes_names_and_encodes_links() {
    let index = render_index(
        "runs",
        &[
            IndexEntry {
                name: "<b>a</b>.json".to_owned(),
                href: Some("sub/<b>a</b>.html".to_owned()),
                outcome: Ok(Summary::default()),
            },
            IndexEntry {
                name: "broken.json".to_owned(),
                href: None,
                outcome: Err("not a history".to_owned()),
            },
        ],
    );
    assert!(index.contains("href=\"sub/%3Cb%3Ea%3C/b%3E.html\""), "{index}");
    assert!(index.contains("&lt;b&gt;a&lt;/b&gt;.json"));
    assert!(index.contains("not a history"));
    assert!(index.contains("script-src 'none'"));
}
