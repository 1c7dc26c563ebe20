//! Escaping for HTML text and attributes, and the only URLs the page links to.
//!
//! Every string of a history is attacker-controlled: it reaches the page only through
//! [`push_escaped`], and a URL becomes an `href` only when [`link_target`] accepts it.

/// Appends `text` to `out` with `&`, `<`, `>`, `"` and `'` replaced by character references, so
/// that it is inert both as element text and inside a quoted attribute value.
pub fn push_escaped(out: &mut String, text: &str) {
    let mut rest = text;
    while let Some(index) = rest.find(['&', '<', '>', '"', '\'']) {
        out.push_str(&rest[..index]);
        out.push_str(match rest.as_bytes()[index] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            _ => "&#39;",
        });
        rest = &rest[index + 1..];
    }
    out.push_str(rest);
}

/// `text`, escaped by [`push_escaped`].
pub fn escaped(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    push_escaped(&mut out, text);
    out
}

/// `url` when the page may link to it: it must start, exactly as written, with `https://`,
/// `http://` or `mailto:` (any case). Browsers strip leading spaces and control characters and
/// drop tabs and newlines inside a URL before reading its scheme, so a check that trimmed or
/// normalised first could pass `java\tscript:`; a literal prefix cannot be bent that way.
pub fn link_target(url: &str) -> Option<&str> {
    const SCHEMES: [&str; 3] = ["https://", "http://", "mailto:"];
    let allowed = SCHEMES.iter().any(|scheme| {
        url.len() >= scheme.len() && url.as_bytes()[..scheme.len()].eq_ignore_ascii_case(scheme.as_bytes())
    });
    allowed.then_some(url)
}

/// Appends a link to `url` showing `text`, or `text` and the URL as plain text when the URL is
/// not one [`link_target`] accepts. Links never load anything by themselves: they are followed
/// only when clicked, in a new browsing context without a referrer.
pub fn push_link(out: &mut String, url: &str, text: &str) {
    match link_target(url) {
        Some(url) => {
            out.push_str("<a class=\"url\" href=\"");
            push_escaped(out, url);
            out.push_str("\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">");
            push_escaped(out, text);
            out.push_str("</a>");
        }
        None => {
            out.push_str("<span class=\"url inert\" title=\"not linked: only http, https and mailto URLs are\">");
            push_escaped(out, text);
            out.push_str("</span>");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_markup_character_is_escaped() {
        assert_eq!(
            escaped(r#"<img src=x onerror="a('&')">"#),
            "&lt;img src=x onerror=&quot;a(&#39;&amp;&#39;)&quot;&gt;"
        );
        assert_eq!(escaped("plain café"), "plain café");
    }

    #[test]
    fn only_web_and_mail_urls_are_linked() {
        assert_eq!(link_target("https://example.com/a"), Some("https://example.com/a"));
        assert_eq!(link_target("HTTP://example.com"), Some("HTTP://example.com"));
        assert_eq!(link_target("mailto:a@example.com"), Some("mailto:a@example.com"));
        for bad in [
            "javascript:alert(1)",
            " javascript:alert(1)",
            "java\tscript:alert(1)",
            "\u{1}https://x",
            "data:text/html,<script>alert(1)</script>",
            "vbscript:x",
            "//example.com",
            "https:",
            "",
        ] {
            assert_eq!(link_target(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn an_unsafe_url_is_shown_as_text() {
        let mut out = String::new();
        push_link(&mut out, "javascript:alert(1)", "javascript:alert(1)");
        assert!(!out.contains("href"), "{out}");
        assert!(out.contains("javascript:alert(1)"));
    }
}
