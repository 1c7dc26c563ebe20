//! A port of the parts of CPython 3.11.7's `urllib.parse` that pydantic-ai's media rules rely on: `_splittype`,
//! `urlsplit`/`urlparse` (path and netloc, including every `ValueError` they raise) and `.hostname`.
//!
//! Only what the media rules read is computed; the names follow CPython's so the two can be read side by side.

use crate::tables::NFKC_NETLOC_HAZARDS;

/// Why CPython's `urlsplit` would raise `ValueError` for a URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum UrlSplitError {
    /// `"Invalid IPv6 URL"`: the netloc holds `[` without `]` or the other way round.
    UnbalancedBrackets,
    /// The text between the brackets is neither an IPv6 address nor an IPvFuture literal (or is an IPv4 address).
    InvalidBracketedHost,
    /// `"netloc '...' contains invalid characters under NFKC normalization"`.
    NfkcNetloc,
}

/// The pieces of `urlparse(url)` the media rules read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParsedUrl {
    /// The scheme, lowercased (`''` when the URL has none).
    pub(crate) scheme: String,
    pub(crate) netloc: String,
    /// The path, with `;params` split off when the scheme uses params (as `urlparse`, not `urlsplit`, does).
    pub(crate) path: String,
}

/// `urllib.parse._splittype`: the regex `([^/:]+):(.*)` anchored at the start (DOTALL), scheme lowercased.
///
/// Returns `(Some(scheme), rest)` when the input starts with at least one character that is neither `/` nor `:`,
/// followed by `:`; `(None, input)` otherwise.
pub(crate) fn split_type(url: &str) -> (Option<String>, &str) {
    // `[^/:]+` is greedy but cannot cross a `:`, so the only possible match ends at the first `:`, and only if no
    // `/` comes before it.
    match url.find([':', '/']) {
        Some(index) if index > 0 && url.as_bytes().get(index) == Some(&b':') => {
            let scheme = url.get(..index).unwrap_or_default();
            let rest = url.get(index + 1..).unwrap_or_default();
            (Some(scheme.to_lowercase()), rest)
        }
        _ => (None, url),
    }
}

/// Characters `urlsplit` strips from the left: C0 controls and space (`_WHATWG_C0_CONTROL_OR_SPACE`).
fn is_c0_control_or_space(character: char) -> bool {
    character <= ' '
}

/// `scheme_chars`: ASCII letters, digits, `+`, `-`, `.`.
fn is_scheme_char(character: char) -> bool {
    character.is_ascii_alphanumeric() || matches!(character, '+' | '-' | '.')
}

/// Schemes for which `urlparse` splits `;params` off the path (`uses_params`).
const USES_PARAMS: &[&str] = &[
    "", "ftp", "hdl", "prospero", "http", "imap", "https", "shttp", "rtsp", "rtsps", "rtspu", "sip", "sips", "mms",
    "sftp", "tel",
];

/// `urllib.parse.urlparse(url)` (default arguments), reduced to netloc and path.
pub(crate) fn url_parse(url: &str) -> Result<ParsedUrl, UrlSplitError> {
    let stripped = url.trim_start_matches(is_c0_control_or_space);
    let cleaned: String = stripped.chars().filter(|c| !matches!(c, '\t' | '\r' | '\n')).collect();
    let mut rest: &str = &cleaned;
    let mut scheme = String::new();

    if let Some(colon) = rest.find(':') {
        let candidate = rest.get(..colon).unwrap_or_default();
        let first_is_ascii_letter = candidate.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
        if colon > 0 && first_is_ascii_letter && candidate.chars().all(is_scheme_char) {
            scheme = candidate.to_ascii_lowercase();
            rest = rest.get(colon + 1..).unwrap_or_default();
        }
    }

    let mut netloc = "";
    if rest.starts_with("//") {
        let after_slashes = rest.get(2..).unwrap_or_default();
        let end = after_slashes.find(['/', '?', '#']).unwrap_or(after_slashes.len());
        netloc = after_slashes.get(..end).unwrap_or_default();
        rest = after_slashes.get(end..).unwrap_or_default();
        let has_open = netloc.contains('[');
        let has_close = netloc.contains(']');
        if has_open != has_close {
            return Err(UrlSplitError::UnbalancedBrackets);
        }
        if has_open {
            let after_open = netloc.split_once('[').map(|(_, after)| after).unwrap_or_default();
            let bracketed = after_open.split_once(']').map_or(after_open, |(inside, _)| inside);
            if !is_valid_bracketed_host(bracketed) {
                return Err(UrlSplitError::InvalidBracketedHost);
            }
        }
    }
    if let Some((before, _fragment)) = rest.split_once('#') {
        rest = before;
    }
    if let Some((before, _query)) = rest.split_once('?') {
        rest = before;
    }
    if !netloc.is_ascii() && netloc.chars().any(|c| NFKC_NETLOC_HAZARDS.contains(&c)) {
        return Err(UrlSplitError::NfkcNetloc);
    }

    let path = if USES_PARAMS.contains(&scheme.as_str()) && rest.contains(';') {
        split_params(rest)
    } else {
        rest
    };
    Ok(ParsedUrl {
        scheme,
        netloc: netloc.to_owned(),
        path: path.to_owned(),
    })
}

/// `urllib.parse._splitparams`, returning only the path part.
fn split_params(url: &str) -> &str {
    let semicolon = match url.rfind('/') {
        Some(last_slash) => match url.get(last_slash..).and_then(|tail| tail.find(';')) {
            Some(offset) => last_slash + offset,
            None => return url,
        },
        None => url.find(';').unwrap_or(url.len()),
    };
    url.get(..semicolon).unwrap_or(url)
}

/// `ParseResult.hostname`: the netloc without userinfo and port, brackets removed, lowercased except for an IPv6
/// zone id; `None` when empty.
pub(crate) fn hostname(netloc: &str) -> Option<String> {
    let hostinfo = netloc.rsplit_once('@').map_or(netloc, |(_, after)| after);
    let host = match hostinfo.split_once('[') {
        Some((_, bracketed)) => bracketed.split_once(']').map_or(bracketed, |(inside, _)| inside),
        None => hostinfo.split_once(':').map_or(hostinfo, |(before, _)| before),
    };
    if host.is_empty() {
        return None;
    }
    Some(match host.split_once('%') {
        Some((address, zone)) => format!("{}%{}", address.to_lowercase(), zone),
        None => host.to_lowercase(),
    })
}

/// `urllib.parse._check_bracketed_host` without raising: an IPvFuture literal (`v<hex>.<anything>`) or an IPv6
/// address that `ipaddress.ip_address` accepts. An IPv4 address is refused, as CPython refuses it.
fn is_valid_bracketed_host(host: &str) -> bool {
    if let Some(after_v) = host.strip_prefix('v') {
        // `\Av[a-fA-F0-9]+\..+\Z`; `.` matches anything but `\n`, which `urlsplit` already removed.
        return match after_v.split_once('.') {
            Some((hex, tail)) => !hex.is_empty() && hex.chars().all(|c| c.is_ascii_hexdigit()) && !tail.is_empty(),
            None => false,
        };
    }
    // `ip_address` tries IPv4 first; an IPv4 result is refused, so only IPv6 can pass.
    !is_ipv4_address(host) && is_ipv6_address(host)
}

/// `ipaddress.IPv4Address(text)` accepts `text`: four dot-separated decimal octets, no leading zeros, each <= 255.
fn is_ipv4_address(text: &str) -> bool {
    if text.is_empty() || text.contains('/') {
        return false;
    }
    let octets: Vec<&str> = text.split('.').collect();
    octets.len() == 4 && octets.iter().all(|octet| is_ipv4_octet(octet))
}

fn is_ipv4_octet(octet: &str) -> bool {
    if octet.is_empty() || octet.len() > 3 || !octet.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if octet != "0" && octet.starts_with('0') {
        return false;
    }
    octet.parse::<u16>().is_ok_and(|value| value <= 255)
}

/// `ipaddress.IPv6Address(text)` accepts `text` (CPython 3.11 `_split_scope_id` and `_ip_int_from_string`).
fn is_ipv6_address(text: &str) -> bool {
    if text.contains('/') {
        return false;
    }
    let address = match text.split_once('%') {
        Some((address, scope)) => {
            if scope.is_empty() || scope.contains('%') {
                return false;
            }
            address
        }
        None => text,
    };
    if address.is_empty() {
        return false;
    }
    let mut parts: Vec<String> = address.split(':').map(str::to_owned).collect();
    if parts.len() < 3 {
        return false;
    }
    if parts.last().is_some_and(|last| last.contains('.')) {
        let Some(ipv4) = parts.pop() else { return false };
        if !is_ipv4_address(&ipv4) {
            return false;
        }
        // Two hextets stand in for the IPv4 suffix; their values no longer matter, only that they parse.
        parts.push("0".to_owned());
        parts.push("0".to_owned());
    }
    const HEXTET_COUNT: usize = 8;
    if parts.len() > HEXTET_COUNT + 1 {
        return false;
    }
    let last_index = parts.len() - 1;
    let mut skip_index = None;
    for (index, part) in parts.iter().enumerate().take(last_index).skip(1) {
        if part.is_empty() {
            if skip_index.is_some() {
                return false;
            }
            skip_index = Some(index);
        }
    }
    let first_empty = parts.first().is_some_and(String::is_empty);
    let last_empty = parts.last().is_some_and(String::is_empty);
    let (parts_hi, parts_lo) = match skip_index {
        Some(skip) => {
            let mut parts_hi = skip;
            let mut parts_lo = parts.len() - skip - 1;
            if first_empty {
                parts_hi -= 1;
                if parts_hi > 0 {
                    return false;
                }
            }
            if last_empty {
                parts_lo -= 1;
                if parts_lo > 0 {
                    return false;
                }
            }
            if parts_hi + parts_lo >= HEXTET_COUNT {
                return false;
            }
            (parts_hi, parts_lo)
        }
        None => {
            if parts.len() != HEXTET_COUNT || first_empty || last_empty {
                return false;
            }
            (parts.len(), 0)
        }
    };
    let high = parts.iter().take(parts_hi);
    let low = parts.iter().skip(parts.len() - parts_lo);
    high.chain(low).all(|hextet| is_hextet(hextet))
}

/// `_parse_hextet`: only ASCII hex digits, at most four. CPython's check accepts an empty string here and then
/// fails in `int('', 16)`, so empty is refused too.
fn is_hextet(hextet: &str) -> bool {
    !hextet.is_empty() && hextet.len() <= 4 && hextet.chars().all(|c| c.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values: CPython 3.11.7, `urllib.parse._splittype(...)`.
    #[test]
    fn split_type_matches_cpython() {
        assert_eq!(split_type("HTTPS://x/a.png"), (Some("https".to_owned()), "//x/a.png"));
        assert_eq!(split_type("/a:b"), (None, "/a:b"));
        assert_eq!(split_type(":x"), (None, ":x"));
        assert_eq!(split_type("a/b:c"), (None, "a/b:c"));
        assert_eq!(split_type("C:\\dir\\a.png"), (Some("c".to_owned()), "\\dir\\a.png"));
        assert_eq!(split_type("data:"), (Some("data".to_owned()), ""));
        assert_eq!(split_type(""), (None, ""));
    }

    // Expected values: CPython 3.11.7, `urlparse(u).hostname`, `urlparse(u).path`, or the ValueError it raises.
    #[test]
    fn url_parse_matches_cpython() {
        let parsed = url_parse("https://User:pw@WWW.YouTube.com:443/watch;p?v=1#t").unwrap();
        assert_eq!(parsed.scheme, "https");
        assert_eq!(hostname(&parsed.netloc).as_deref(), Some("www.youtube.com"));
        assert_eq!(parsed.path, "/watch");
        let parsed = url_parse("http://[FE80::1%ZoNe]:80/x").unwrap();
        assert_eq!(hostname(&parsed.netloc).as_deref(), Some("fe80::1%ZoNe"));
        assert_eq!(url_parse("http://[::1/x"), Err(UrlSplitError::UnbalancedBrackets));
        assert_eq!(url_parse("http://[1.2.3.4]/"), Err(UrlSplitError::InvalidBracketedHost));
        assert_eq!(
            url_parse("http://[v1.x]/").map(|p| hostname(&p.netloc)),
            Ok(Some("v1.x".to_owned()))
        );
        assert_eq!(url_parse("http://a\u{ff0f}b/"), Err(UrlSplitError::NfkcNetloc));
        assert_eq!(url_parse("file-abc.png;x").unwrap().path, "file-abc.png");
        assert_eq!(url_parse("gs://b/dir;v/f.pdf;x").unwrap().path, "/dir;v/f.pdf;x");
        assert_eq!(url_parse("https://b/dir;v/f.pdf;x").unwrap().path, "/dir;v/f.pdf");
        assert_eq!(url_parse(" \u{1}https://x/a\n.png").unwrap().path, "/a.png");
        assert_eq!(hostname(&url_parse("https:///x").unwrap().netloc), None);
    }

    // Expected values: `ipaddress.ip_address(...)` in CPython 3.11.7 (valid IPv6 or ValueError).
    #[test]
    fn ipv6_rules_match_cpython() {
        for valid in [
            "::",
            "::1",
            "1::",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:1.2.3.4",
            "::ffff:1.2.3.4",
            "fe80::1%eth0",
        ] {
            assert!(is_ipv6_address(valid), "{valid}");
        }
        for invalid in [
            "",
            ":",
            "1:2",
            ":::",
            "1:2:3:4:5:6:7:8:9",
            "1::2::3",
            ":1::2",
            "1::2:",
            "12345::",
            "::g",
            "::1%",
            "1:2:3:4:5:6:7::8:9",
            "::01.2.3.4",
            "1:2:3:4:5:6:7:8::",
        ] {
            assert!(!is_ipv6_address(invalid), "{invalid}");
        }
    }
}
