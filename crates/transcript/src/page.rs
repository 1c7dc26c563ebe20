//! The page around the messages: the Content-Security-Policy, the summary, the findings, the
//! token charts and the search box; and the index of several pages.

use std::collections::HashMap;
use std::fmt::Write as _;

use base64::Engine as _;
use msgflow_wire::{ModelMessage, ModelResponsePart};
use sha2::{Digest, Sha256};

use crate::chart::push_charts;
use crate::escape::push_escaped;
use crate::messages::{push_marker, Messages, Pairing};
use crate::{IndexEntry, Marker, Options, Summary, DEFAULT_MAX_EMBEDDED_BYTES};

const STYLE: &str = include_str!("page.css");
const SCRIPT: &str = include_str!("page.js");
/// The list of problems at the top starts open up to this many.
const OPEN_PROBLEMS: usize = 30;

/// `'sha256-...'` of `text`, as a CSP source.
fn hash_source(text: &str) -> String {
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(Sha256::digest(text.as_bytes()))
    )
}

/// Opens the page: the policy first (it governs only what comes after it), then the style.
/// Nothing may be fetched (`default-src 'none'`, no `connect-src`); only this crate's script and
/// style run (by hash, so no `style` attribute and no other `<script>` applies); images and media
/// only from `data:` URLs; no `<base>`, no form submission.
fn push_head(out: &mut String, title: &str, with_script: bool) {
    let script = if with_script {
        hash_source(SCRIPT)
    } else {
        "'none'".to_owned()
    };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src {script}; style-src {}; \
         img-src data:; media-src data:; base-uri 'none'; form-action 'none'\">\n\
         <meta name=\"referrer\" content=\"no-referrer\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>",
        hash_source(STYLE)
    );
    push_escaped(out, title);
    out.push_str("</title>\n<style>");
    out.push_str(STYLE);
    out.push_str("</style></head>\n");
}

fn push_script(out: &mut String) {
    out.push_str("<script>");
    out.push_str(SCRIPT);
    out.push_str("</script>\n");
}

/// What `history` holds, as the index and the page's summary line count it.
fn summarise(history: &[ModelMessage], options: &Options) -> Summary {
    let tool_calls = history
        .iter()
        .map(|message| match message {
            ModelMessage::Response(response) => response
                .parts
                .iter()
                .filter(|part| {
                    matches!(
                        part,
                        ModelResponsePart::ToolCall(_) | ModelResponsePart::BuiltinToolCall(_)
                    )
                })
                .count(),
            ModelMessage::Request(_) => 0,
        })
        .sum();
    Summary {
        messages: history.len(),
        tool_calls,
        markers: options.markers.len(),
        loadable: options.loadable,
    }
}

fn plural(count: usize, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

/// The page for `history`: one self-contained HTML document (see the crate documentation).
pub fn render(history: &[ModelMessage], options: &Options) -> (String, Summary) {
    let summary = summarise(history, options);
    let mut out = String::with_capacity(4096 + history.len() * 512);
    push_head(&mut out, &options.title, true);
    out.push_str("<body>\n<header class=\"top\"><h1>");
    push_escaped(&mut out, &options.title);
    out.push_str("</h1><p class=\"summary\">");
    let _ = write!(
        out,
        "<span id=\"message-count\" data-count=\"{}\">{}</span> · {} · {}",
        summary.messages,
        plural(summary.messages, "message", "messages"),
        plural(summary.tool_calls, "tool call", "tool calls"),
        plural(summary.markers, "problem", "problems"),
    );
    match options.loadable {
        Some(true) => out.push_str(" · <span class=\"badge ok\">pydantic-ai 2.68.0 loads it</span>"),
        Some(false) => out.push_str(" · <span class=\"badge problem\">pydantic-ai 2.68.0 would not load it</span>"),
        None => {}
    }
    out.push_str(
        "</p><div class=\"search\"><input id=\"search\" type=\"search\" placeholder=\"Filter messages\" \
         autocomplete=\"off\" aria-label=\"filter messages\"> <span id=\"shown\"></span></div></header>\n<main>\n",
    );

    for note in &options.notes {
        out.push_str("<p class=\"marker page-note\">");
        push_escaped(&mut out, note);
        out.push_str("</p>\n");
    }
    if !options.markers.is_empty() {
        // A long list starts closed: the markers at the messages say the same.
        let open = if options.markers.len() <= OPEN_PROBLEMS {
            " open"
        } else {
            ""
        };
        let _ = write!(out, "<details class=\"problems\"{open}><summary>");
        out.push_str(&plural(options.markers.len(), "problem", "problems"));
        out.push_str("</summary><ul>");
        for marker in &options.markers {
            let _ = write!(out, "<li><a href=\"#m{}", marker.message);
            if let Some(part) = marker.part {
                let _ = write!(out, "p{part}");
            }
            out.push_str("\">");
            push_escaped(&mut out, &format!("#{}", marker.message));
            out.push_str("</a> <span class=\"marker-source\">");
            push_escaped(&mut out, &marker.source);
            out.push_str("</span> ");
            push_escaped(&mut out, &marker.text);
            out.push_str("</li>");
        }
        out.push_str("</ul></details>\n");
    }

    let turns = msgflow_sanitize::Turns::of(history);
    if let Some(tokens) = options.tokens.as_ref().filter(|tokens| !tokens.per_message.is_empty()) {
        out.push_str("<details class=\"tokens\" open><summary>Where the tokens go (");
        push_escaped(&mut out, &tokens.counter);
        out.push_str(")</summary>");
        push_charts(&mut out, &tokens.per_message, turns.starts(), options.context_window);
        out.push_str("</details>\n");
    }

    let mut by_message: HashMap<usize, Vec<&Marker>> = HashMap::new();
    for marker in &options.markers {
        by_message.entry(marker.message).or_default().push(marker);
    }
    let turn_starts: HashMap<usize, usize> = turns
        .starts()
        .iter()
        .enumerate()
        .map(|(turn, &start)| (start, turn))
        .collect();
    let pairing = Pairing::of(history);
    out.push_str("<div id=\"messages\">\n");
    if history.is_empty() {
        out.push_str("<p class=\"note\">(empty history: no messages)</p>");
    }
    let mut writer = Messages {
        out: &mut out,
        pairing: &pairing,
        markers: &by_message,
        tokens: options.tokens.as_ref().map(|tokens| tokens.per_message.as_slice()),
        turn_starts: &turn_starts,
        max_embedded: options.max_embedded_bytes.unwrap_or(DEFAULT_MAX_EMBEDDED_BYTES),
    };
    for (index, message) in history.iter().enumerate() {
        writer.message(index, message);
    }
    // Findings about messages the history does not have (none from `check`, but a caller's
    // markers are not trusted to be in range) are still shown.
    for marker in options.markers.iter().filter(|marker| marker.message >= history.len()) {
        push_marker(&mut out, marker);
    }
    out.push_str("</div>\n</main>\n");
    push_script(&mut out);
    out.push_str("</body></html>\n");
    (out, summary)
}

/// The index of several transcripts: one row per input, linking to its page.
pub fn render_index(title: &str, entries: &[IndexEntry]) -> String {
    let mut out = String::new();
    push_head(&mut out, title, false);
    out.push_str("<body>\n<header class=\"top\"><h1>");
    push_escaped(&mut out, title);
    let _ = write!(
        out,
        "</h1><p class=\"summary\">{}</p></header>\n<main><table class=\"index\"><thead><tr><th>history</th>\
         <th>messages</th><th>tool calls</th><th>problems</th><th>pydantic-ai 2.68.0</th></tr></thead><tbody>\n",
        plural(entries.len(), "history", "histories")
    );
    for entry in entries {
        out.push_str("<tr><td>");
        match &entry.href {
            Some(href) => {
                out.push_str("<a href=\"");
                push_escaped(&mut out, &percent_encode_path(href));
                out.push_str("\">");
                push_escaped(&mut out, &entry.name);
                out.push_str("</a>");
            }
            None => push_escaped(&mut out, &entry.name),
        }
        out.push_str("</td>");
        match &entry.outcome {
            Ok(summary) => {
                let loads = match summary.loadable {
                    Some(true) => "<span class=\"badge ok\">loads</span>",
                    Some(false) => "<span class=\"badge problem\">would not load</span>",
                    None => "",
                };
                let _ = write!(
                    out,
                    "<td>{}</td><td>{}</td><td>{}</td><td>{loads}</td>",
                    summary.messages, summary.tool_calls, summary.markers
                );
            }
            Err(error) => {
                out.push_str("<td colspan=\"4\" class=\"error\">");
                push_escaped(&mut out, error);
                out.push_str("</td>");
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></main></body></html>\n");
    out
}

/// `path` with every byte but unreserved ones and `/` percent-encoded, so that a file name is
/// read as a relative path and never as a scheme (`javascript:x.html`) or a fragment.
fn percent_encode_path(path: &str) -> String {
    let mut encoded = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            let _ = write!(encoded, "%{byte:02X}");
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_links_are_relative_paths() {
        assert_eq!(percent_encode_path("runs/a b.html"), "runs/a%20b.html");
        assert_eq!(percent_encode_path("javascript:x.html"), "javascript%3Ax.html");
    }

    #[test]
    fn the_policy_names_the_script_and_style_by_hash() {
        let (page, _) = render(&[], &Options::default());
        assert!(page.contains(&hash_source(SCRIPT)));
        assert!(page.contains(&hash_source(STYLE)));
        assert!(page.contains("default-src 'none'"));
        // The policy comes before anything it must govern.
        assert!(page.find("Content-Security-Policy") < page.find("<style>"));
    }
}
