//! [`Json`]: a JSON tree that keeps every scalar's text exactly as written, and its parser.

use anyhow::{anyhow, bail, Result};

/// A JSON value with every scalar kept as its source text.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    /// A number's text (`-0`, `1.50`, `1e400`, 5,000 digits; also `NaN` / `Infinity`).
    Number(String),
    /// A string's content between the quotes, escapes as written.
    String(String),
    Array(Vec<Json>),
    /// Entries in source order; keys are raw string contents; duplicates are kept.
    Object(Vec<(String, Json)>),
    /// Text written verbatim (deep nesting built without recursion, literals like `NaN`).
    Raw(String),
}

impl Json {
    /// Parses JSON text (plus the `NaN` / `Infinity` literals pydantic-core reads).
    pub fn parse(text: &str) -> Result<Json> {
        let mut parser = Parser {
            bytes: text.as_bytes(),
            at: 0,
        };
        let value = parser.value(0)?;
        parser.skip_whitespace();
        if parser.at != parser.bytes.len() {
            bail!("trailing characters at byte {}", parser.at);
        }
        Ok(value)
    }

    /// The compact text of the value.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    /// The text of the value indented by two spaces (as `json.dumps(indent=2)` lays it out): the
    /// same tokens as [`Json::to_text`] with whitespace between them, which msgflow compacts on
    /// reading.
    pub fn to_pretty_text(&self) -> String {
        let mut out = String::new();
        self.write_pretty(&mut out, 0);
        out
    }

    fn write_pretty(&self, out: &mut String, indent: usize) {
        let newline = |out: &mut String, indent: usize| {
            out.push('\n');
            out.push_str(&"  ".repeat(indent));
        };
        match self {
            Json::Array(items) if !items.is_empty() => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    newline(out, indent + 1);
                    item.write_pretty(out, indent + 1);
                }
                newline(out, indent);
                out.push(']');
            }
            Json::Object(entries) if !entries.is_empty() => {
                out.push('{');
                for (index, (key, value)) in entries.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    newline(out, indent + 1);
                    out.push('"');
                    out.push_str(key);
                    out.push_str("\": ");
                    value.write_pretty(out, indent + 1);
                }
                newline(out, indent);
                out.push('}');
            }
            other => other.write(out),
        }
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(value) => out.push_str(if *value { "true" } else { "false" }),
            Json::Number(text) | Json::Raw(text) => out.push_str(text),
            Json::String(raw) => {
                out.push('"');
                out.push_str(raw);
                out.push('"');
            }
            Json::Array(items) => {
                out.push('[');
                for (index, item) in items.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(entries) => {
                out.push('{');
                for (index, (key, value)) in entries.iter().enumerate() {
                    if index > 0 {
                        out.push(',');
                    }
                    out.push('"');
                    out.push_str(key);
                    out.push_str("\":");
                    value.write(out);
                }
                out.push('}');
            }
        }
    }

    /// The value of `key` (the last one, as Python's `json` and pydantic-core read duplicates).
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(entries) => entries.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The JSON type's name, for mutation labels.
    pub(super) fn type_name(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Number(_) | Json::Raw(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }

    /// Whether two values are the same JSON value as Python's `json.loads` sees them: objects as
    /// dicts (last duplicate wins, key order ignored), strings by their decoded UTF-16 code units
    /// (lone surrogates included), integers exactly, other numbers as floats.
    pub fn same_value(&self, other: &Json) -> bool {
        match (self, other) {
            (Json::Null, Json::Null) => true,
            (Json::Bool(a), Json::Bool(b)) => a == b,
            (Json::Number(a), Json::Number(b)) => same_number(a, b),
            (Json::String(a), Json::String(b)) => a == b || decode_utf16(a) == decode_utf16(b),
            (Json::Array(a), Json::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_value(y)),
            (Json::Object(a), Json::Object(b)) => {
                let (a, b) = (last_wins(a), last_wins(b));
                a.len() == b.len()
                    && a.iter().all(|(key, value)| {
                        b.iter()
                            .find(|(other, _)| other == key)
                            .is_some_and(|(_, other)| value.same_value(other))
                    })
            }
            (Json::Raw(a), Json::Raw(b)) => a == b,
            _ => false,
        }
    }
}

fn same_number(a: &str, b: &str) -> bool {
    let is_integer =
        |text: &str| !text.contains(['.', 'e', 'E']) && !text.contains("NaN") && !text.contains("Infinity");
    if is_integer(a) && is_integer(b) {
        let canonical = |text: &str| if text == "-0" { "0".to_owned() } else { text.to_owned() };
        return canonical(a) == canonical(b);
    }
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y || (x.is_nan() && y.is_nan()),
        _ => a == b,
    }
}

fn last_wins(entries: &[(String, Json)]) -> Vec<(Vec<u16>, &Json)> {
    let mut map: Vec<(Vec<u16>, &Json)> = Vec::with_capacity(entries.len());
    for (key, value) in entries {
        let key = decode_utf16(key);
        match map.iter_mut().find(|(existing, _)| *existing == key) {
            Some(slot) => slot.1 = value,
            None => map.push((key, value)),
        }
    }
    map
}

/// Decodes a raw string content (escapes as written) into UTF-16 code units.
fn decode_utf16(raw: &str) -> Vec<u16> {
    let mut units = Vec::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buffer = [0u16; 2];
            units.extend_from_slice(c.encode_utf16(&mut buffer));
            continue;
        }
        match chars.next() {
            Some('n') => units.push(0x0A),
            Some('t') => units.push(0x09),
            Some('r') => units.push(0x0D),
            Some('b') => units.push(0x08),
            Some('f') => units.push(0x0C),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                units.push(u16::from_str_radix(&hex, 16).unwrap_or(0xFFFD));
            }
            Some(other) => units.push(other as u16),
            None => {}
        }
    }
    units
}

/// Decodes a raw key or string content for display and for schema lookups.
pub(super) fn decode(raw: &str) -> String {
    String::from_utf16_lossy(&decode_utf16(raw))
}

/// Encodes text as raw string content (as `json.dumps(ensure_ascii=False)` would, minus quotes).
pub(super) fn encode(text: &str) -> String {
    let quoted = serde_json::to_string(text).unwrap_or_default();
    quoted[1..quoted.len() - 1].to_owned()
}

struct Parser<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// The parser's own nesting limit: bases come from pydantic-ai and msgflow, far below it.
const PARSE_DEPTH: usize = 512;

impl Parser<'_> {
    fn skip_whitespace(&mut self) {
        while self.bytes.get(self.at).is_some_and(|b| b" \t\r\n".contains(b)) {
            self.at += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json> {
        if depth > PARSE_DEPTH {
            bail!("nesting deeper than {PARSE_DEPTH} at byte {}", self.at);
        }
        self.skip_whitespace();
        let start = self.at;
        match self.bytes.get(self.at) {
            Some(b'{') => {
                self.at += 1;
                let mut entries = Vec::new();
                self.skip_whitespace();
                if self.bytes.get(self.at) == Some(&b'}') {
                    self.at += 1;
                    return Ok(Json::Object(entries));
                }
                loop {
                    self.skip_whitespace();
                    let key = self.string()?;
                    self.skip_whitespace();
                    self.expect(b':')?;
                    entries.push((key, self.value(depth + 1)?));
                    self.skip_whitespace();
                    match self.next_byte()? {
                        b',' => continue,
                        b'}' => return Ok(Json::Object(entries)),
                        other => bail!("expected , or }} at byte {}, found {:?}", self.at - 1, other as char),
                    }
                }
            }
            Some(b'[') => {
                self.at += 1;
                let mut items = Vec::new();
                self.skip_whitespace();
                if self.bytes.get(self.at) == Some(&b']') {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    self.skip_whitespace();
                    match self.next_byte()? {
                        b',' => continue,
                        b']' => return Ok(Json::Array(items)),
                        other => bail!("expected , or ] at byte {}, found {:?}", self.at - 1, other as char),
                    }
                }
            }
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(_) => {
                for (word, value) in [
                    ("null", Json::Null),
                    ("true", Json::Bool(true)),
                    ("false", Json::Bool(false)),
                ] {
                    if self.bytes[self.at..].starts_with(word.as_bytes()) {
                        self.at += word.len();
                        return Ok(value);
                    }
                }
                while self
                    .bytes
                    .get(self.at)
                    .is_some_and(|b| b.is_ascii_alphanumeric() || b"+-.".contains(b))
                {
                    self.at += 1;
                }
                if self.at == start {
                    bail!("unexpected character at byte {start}");
                }
                let text = std::str::from_utf8(&self.bytes[start..self.at])?;
                Ok(Json::Number(text.to_owned()))
            }
            None => bail!("unexpected end of input"),
        }
    }

    fn next_byte(&mut self) -> Result<u8> {
        let byte = *self
            .bytes
            .get(self.at)
            .ok_or_else(|| anyhow!("unexpected end of input"))?;
        self.at += 1;
        Ok(byte)
    }

    fn expect(&mut self, byte: u8) -> Result<()> {
        let found = self.next_byte()?;
        if found != byte {
            bail!(
                "expected {:?} at byte {}, found {:?}",
                byte as char,
                self.at - 1,
                found as char
            );
        }
        Ok(())
    }

    /// A string's raw content (the bytes between its quotes).
    fn string(&mut self) -> Result<String> {
        self.expect(b'"')?;
        let start = self.at;
        loop {
            match self.next_byte()? {
                b'"' => break,
                b'\\' => self.at += 1,
                _ => {}
            }
        }
        Ok(std::str::from_utf8(&self.bytes[start..self.at - 1])?.to_owned())
    }
}
