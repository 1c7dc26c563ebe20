//! Text parts as Markdown (pulldown-cmark), made inert: raw HTML is shown as text, links keep
//! only web and mail URLs, and images become links to what they name (never fetched).

use pulldown_cmark::{CowStr, Event, Options, Parser, Tag, TagEnd};

use crate::escape::{escaped, link_target};

/// Appends `text` rendered from Markdown to `out`.
pub fn push_markdown(out: &mut String, text: &str) {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // For each open link or image: whether it was opened as an element (and so needs closing).
    let mut open_links: Vec<bool> = Vec::new();
    let events = Parser::new_ext(text, options).map(|event| match event {
        // The model's (or the attacker's) HTML is content to read, not markup.
        Event::Html(html) | Event::InlineHtml(html) => Event::Text(html),
        Event::Start(Tag::Link { dest_url, .. }) => {
            let opened = link_target(&dest_url).is_some();
            open_links.push(opened);
            if opened {
                Event::InlineHtml(CowStr::from(format!(
                    "<a class=\"url\" href=\"{}\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">",
                    escaped(&dest_url)
                )))
            } else {
                Event::InlineHtml(CowStr::from(format!(
                    "<span class=\"url inert\" title=\"not linked: {}\">",
                    escaped(&dest_url)
                )))
            }
        }
        Event::Start(Tag::Image { dest_url, .. }) => {
            let opened = link_target(&dest_url).is_some();
            open_links.push(opened);
            let label = format!("<span class=\"badge\">image</span> {}", escaped(&dest_url));
            if opened {
                Event::InlineHtml(CowStr::from(format!(
                    "<a class=\"url md-image\" href=\"{}\" rel=\"noopener noreferrer nofollow\" target=\"_blank\">{label} ",
                    escaped(&dest_url)
                )))
            } else {
                Event::InlineHtml(CowStr::from(format!("<span class=\"url inert md-image\">{label} ")))
            }
        }
        Event::End(TagEnd::Link | TagEnd::Image) => {
            let closing = if open_links.pop().unwrap_or(false) {
                "</a>"
            } else {
                "</span>"
            };
            Event::InlineHtml(CowStr::Borrowed(closing))
        }
        other => other,
    });
    pulldown_cmark::html::push_html(out, events);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(text: &str) -> String {
        let mut out = String::new();
        push_markdown(&mut out, text);
        out
    }

    #[test]
    fn markdown_is_rendered() {
        assert_eq!(
            render("**bold** and `code`"),
            "<p><strong>bold</strong> and <code>code</code></p>\n"
        );
        assert!(render("| a | b |\n|---|---|\n| 1 | 2 |").contains("<table>"));
    }

    #[test]
    fn raw_html_is_shown_as_text() {
        let out = render("<script>window.pwned=1</script>\n\nhi <img src=x onerror=alert(1)> there");
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
        assert!(out.contains("&lt;img src=x onerror=alert(1)&gt;"), "{out}");
    }

    #[test]
    fn links_keep_only_web_urls() {
        let good = render("[docs](https://example.com/a?b=1&c=\"2\")");
        assert!(
            good.contains("href=\"https://example.com/a?b=1&amp;c=%222%22\"")
                || good.contains("href=\"https://example.com/a?b=1&amp;c=&quot;2&quot;\""),
            "{good}"
        );
        let bad = render("[click](javascript:alert(1)) [x](<java\tscript:alert(1)>)");
        assert!(!bad.contains("href"), "{bad}");
    }

    #[test]
    fn images_are_links_never_fetched() {
        let out = render("![cat](https://example.com/cat.png) ![x](javascript:alert(1))");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("href=\"https://example.com/cat.png\""), "{out}");
        assert_eq!(out.matches("href").count(), 1, "{out}");
    }
}
