//! Schema-driven single-point mutations of valid histories, for the verdict differential
//! (`conformance_verdict`).
//!
//! A history is read into [`Json`], a tree that keeps every scalar's text exactly as written
//! (numbers of any size, string escapes including lone surrogates, duplicate keys), so that a
//! mutation changes one node and nothing else. [`Schema`] reads
//! `schema/pydantic-ai-messages.schema.json` at run time and walks a history beside it, so every
//! node is known by its schema location (`ModelResponse.usage`, `RequestUsage.input_tokens`, ...)
//! and its kind (typed object, tagged union, enum, timestamp, integer, opaque value, ...): the
//! schema is the only list of fields, literals and tags; nothing here restates it.
//!
//! [`candidates`] lists every single-point edit of a history; [`Rng`] picks among them, so a run
//! is deterministic for its seed. Each [`Mutation`] records what it did and where (JSON path).
//! The value menus hold, beside boundary and malformed values, every spelling
//! `msgflow_wire::arbitrary`'s any flavour writes (lax bools such as `" T "`, `-3.0` for an int,
//! `1E16` and `1.50` for a float, the timestamps and durations pydantic-ai normalises, standard
//! and unpadded base64, string escapes, odd numbers in opaque values), so a spelling msgflow's own
//! generators reach is also compared with pydantic-ai at every field of its type; and edits the
//! any flavour makes whole (`dict[str, int]` values, unknown keys' values, key order, tags and
//! literals spelled with a `\u` escape).
//!
//! `schema` reads the schema and tells each node's kind; `walker` lists the edits of a history
//! ([`candidates`]); `json` is the tree and `menus` the values the edits write.
//!
//! The module lives in the xtask because only the live differential uses it: the committed
//! disagreements it finds become plain fixture files, which the `cargo test` side reads without it.

use anyhow::{bail, Context, Result};

mod json;
mod menus;
mod schema;
mod walker;

pub use self::json::Json;
pub use self::schema::Schema;
pub use self::walker::candidates;

/// One step of a path into a [`Json`] tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// The entry at this position of an object (its key is in the tree).
    Entry(usize),
    Index(usize),
}

/// What a mutation does at its path.
#[derive(Clone, Debug)]
pub enum Edit {
    /// The node becomes this value.
    Replace(Json),
    /// The object entry or array element is removed.
    Remove,
    /// The object entry or array element is repeated right after itself.
    Duplicate,
    /// The object (the node) gets this entry at its end.
    Insert(String, Json),
    /// The object entry's key becomes this raw key.
    RenameKey(String),
}

/// A single-point edit of a history, with what it did and where.
#[derive(Clone, Debug)]
pub struct Mutation {
    pub steps: Vec<Step>,
    /// The JSON path of the node, e.g. `$[1].usage.input_tokens`.
    pub path: String,
    /// Where the node is in the schema, e.g. `RequestUsage.input_tokens` (`$defs` name and property).
    pub schema_at: String,
    /// What kind of edit, e.g. `null`, `timestamp:leap-second`, `tag:swap:thinking`.
    pub class: String,
    pub edit: Edit,
}

impl Mutation {
    /// `<schema location> <class>`: mutations with equal keys probe the same rule.
    pub fn key(&self) -> String {
        format!("{} {}", self.schema_at, self.class)
    }

    /// One line: class, schema location, path and the new value or key (shortened).
    pub fn describe(&self) -> String {
        let what = match &self.edit {
            Edit::Replace(value) => format!("set to {}", shorten(&value.to_text())),
            Edit::Remove => "removed".to_owned(),
            Edit::Duplicate => "duplicated".to_owned(),
            Edit::Insert(key, value) => format!("gained key \"{}\": {}", key, shorten(&value.to_text())),
            Edit::RenameKey(key) => format!("key renamed to \"{key}\""),
        };
        format!("{} at {} ({}): {what}", self.class, self.path, self.schema_at)
    }

    /// Applies the edit to a copy of `base`.
    pub fn apply(&self, base: &Json) -> Result<Json> {
        let mut tree = base.clone();
        let (last, parent_steps) = match (&self.edit, self.steps.split_last()) {
            (Edit::Replace(_) | Edit::Insert(..), _) | (_, None) => (None, &self.steps[..]),
            (_, Some((last, parent))) => (Some(last), parent),
        };
        let mut node = &mut tree;
        for step in parent_steps {
            node = match (node, step) {
                (Json::Object(entries), Step::Entry(at)) => &mut entries.get_mut(*at).context("no such entry")?.1,
                (Json::Array(items), Step::Index(at)) => items.get_mut(*at).context("no such element")?,
                _ => bail!("path {} does not fit the base", self.path),
            };
        }
        match (&self.edit, node, last) {
            (Edit::Replace(value), node, None) => *node = value.clone(),
            (Edit::Insert(key, value), Json::Object(entries), None) => entries.push((key.clone(), value.clone())),
            (Edit::Remove, Json::Object(entries), Some(Step::Entry(at))) => {
                entries.remove(*at);
            }
            (Edit::Remove, Json::Array(items), Some(Step::Index(at))) => {
                items.remove(*at);
            }
            (Edit::Duplicate, Json::Object(entries), Some(Step::Entry(at))) => {
                let entry = entries[*at].clone();
                entries.insert(at + 1, entry);
            }
            (Edit::Duplicate, Json::Array(items), Some(Step::Index(at))) => {
                let item = items[*at].clone();
                items.insert(at + 1, item);
            }
            (Edit::RenameKey(key), Json::Object(entries), Some(Step::Entry(at))) => entries[*at].0 = key.clone(),
            _ => bail!("edit {:?} does not fit the node at {}", self.edit, self.path),
        }
        Ok(tree)
    }
}

fn shorten(text: &str) -> String {
    const SHOWN: usize = 60;
    if text.chars().count() <= SHOWN {
        return text.to_owned();
    }
    let head: String = text.chars().take(SHOWN).collect();
    format!("{head}... ({} chars)", text.len())
}

/// splitmix64: a small, seeded, platform-independent random stream.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number below `bound` (which must not be 0).
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }
}

/// Picks up to `count` of `candidates` without repetition, in a seeded order, stratified by the
/// family of their class (`int`, `timestamp`, `tag`, ...): each draw picks a family first, so rare
/// edits (tags, literals, absent keys) are drawn as often as the numerous ones (other types, keys).
pub fn sample(candidates: Vec<Mutation>, count: usize, rng: &mut Rng) -> Vec<Mutation> {
    let mut families: Vec<(String, Vec<Mutation>)> = Vec::new();
    for mutation in candidates {
        let family = mutation.class.split(':').next().unwrap_or_default().to_owned();
        match families.iter_mut().find(|(name, _)| *name == family) {
            Some((_, members)) => members.push(mutation),
            None => families.push((family, vec![mutation])),
        }
    }
    let mut picked = Vec::with_capacity(count);
    while picked.len() < count && !families.is_empty() {
        let family = rng.below(families.len());
        let members = &mut families[family].1;
        let at = rng.below(members.len());
        picked.push(members.swap_remove(at));
        if members.is_empty() {
            families.swap_remove(family);
        }
    }
    picked
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> Schema {
        Schema::load(&crate::project_root().join("schema/pydantic-ai-messages.schema.json")).unwrap()
    }

    const HISTORY: &str = r#"[{"parts":[{"content":"hi","timestamp":"2025-01-02T03:04:05.678901Z","part_kind":"user-prompt"}],"timestamp":null,"instructions":null,"kind":"request","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"},{"parts":[{"tool_name":"f","args":{"a":[1]},"tool_call_id":"c1","id":null,"provider_name":null,"provider_details":null,"tool_kind":null,"part_kind":"tool-call"}],"usage":{"input_tokens":1,"cache_write_tokens":0,"cache_read_tokens":0,"output_tokens":2,"input_audio_tokens":0,"cache_audio_read_tokens":0,"output_audio_tokens":0,"details":{}},"model_name":"m","timestamp":"2025-01-02T03:04:06Z","kind":"response","provider_name":null,"provider_url":null,"provider_details":null,"provider_response_id":null,"finish_reason":"tool_call","run_id":null,"conversation_id":null,"metadata":null,"state":"complete"}]"#;

    #[test]
    fn the_tree_writes_back_what_it_read() {
        let text = r#"[{"a":-0,"b":1e400,"c":"\ud800\n","a":[NaN,{}],"d":18446744073709551616}]"#;
        assert_eq!(Json::parse(text).unwrap().to_text(), text);
        assert!(Json::parse("[1,").is_err());
        assert!(Json::parse("{\"a\" 1}").is_err());
    }

    #[test]
    fn values_compare_as_python_reads_them() {
        let same = |a: &str, b: &str| Json::parse(a).unwrap().same_value(&Json::parse(b).unwrap());
        assert!(same(r#"{"a":1,"b":"\u00e9"}"#, r#"{"b":"é","a":1}"#));
        assert!(same(r#"{"a":1,"a":2}"#, r#"{"a":2}"#));
        assert!(same("[1.0]", "[1.00]"));
        assert!(!same("[18446744073709551617]", "[18446744073709551616]"));
        assert!(!same(r#"["\ud800"]"#, r#"["\ud801"]"#));
    }

    #[test]
    fn mutations_cover_every_literal_tag_and_timestamp_form_of_the_schema() {
        let base = Json::parse(HISTORY).unwrap();
        let all = candidates(&schema(), &base);
        let has = |schema_at: &str, class: &str| all.iter().any(|m| m.schema_at == schema_at && m.class == class);
        // Literals come from the schema's enums, tags from its unions.
        assert!(has("ModelResponse.finish_reason", "literal:stop"));
        assert!(has("ModelResponse.finish_reason", "literal:upper-case"));
        assert!(has("ModelRequest.state", "literal:interrupted"));
        assert!(has("ModelResponsePart.part_kind", "tag:swap:thinking"));
        assert!(has("ModelRequestPart.part_kind", "tag:upper-case"));
        assert!(has("ModelMessage.kind", "tag:swap:response"));
        assert!(has("UserPromptPart.timestamp", "timestamp:leap-second"));
        assert!(has("RequestUsage.output_tokens", "int:u64-max+1"));
        assert!(has("RequestUsage.output_tokens", "int:true"));
        assert!(has("ModelResponse.usage", "null"));
        assert!(has("ToolCallPart.args", "opaque-deep-arrays:10000"));
        assert!(has("ModelRequest.metadata", "opaque-key:lone-surrogate"));
        assert!(has("ModelMessage", "element:duplicated"));
        assert!(has("ModelRequest.timestamp", "key:removed"));
        assert!(has("ModelRequest", "object:extra-key"));
        assert!(has("ModelMessage", "deep:200"));
        // The spellings and edits of `arbitrary`'s any flavour.
        assert!(has("UserPromptPart.timestamp", "timestamp:nine-fraction-digits"));
        assert!(has("RequestUsage.output_tokens", "int:negative-float-integral"));
        assert!(has("RequestUsage.details", "int-values:nan-literal"));
        assert!(has("ModelResponse.finish_reason", "literal:escaped"));
        assert!(has("ModelMessage.kind", "tag:escaped"));
        assert!(has("ModelRequest", "object:keys-reversed"));
        assert!(has("ModelRequest", "object:extra-key-value:lone-surrogate"));
        assert!(has("ToolCallPart.args", "opaque-number:exponent-upper-case"));
        assert!(has("ToolCallPart.tool_call_id", "string:escaped-solidus"));
    }

    #[test]
    fn the_escaped_tag_and_the_reversed_keys_keep_their_values() {
        let base = Json::parse(HISTORY).unwrap();
        let all = candidates(&schema(), &base);
        let escaped = all
            .iter()
            .find(|m| m.path == "$[0].kind" && m.class == "tag:escaped")
            .unwrap();
        assert!(escaped
            .apply(&base)
            .unwrap()
            .to_text()
            .contains(r#""kind":"\u0072equest""#));
        let reversed = all
            .iter()
            .find(|m| m.path == "$[0]" && m.class == "object:keys-reversed")
            .unwrap();
        let mutated = reversed.apply(&base).unwrap();
        assert!(mutated.to_text().starts_with(r#"[{"state":"complete""#));
        assert!(mutated.same_value(&base));
    }

    #[test]
    fn the_pretty_text_is_the_same_value() {
        let base = Json::parse(HISTORY).unwrap();
        let pretty = base.to_pretty_text();
        assert!(pretty.contains("\n  {\n    \"parts\": ["), "{pretty}");
        let again = Json::parse(&pretty).unwrap();
        assert_eq!(again.to_text(), HISTORY);
        assert_eq!(Json::parse("[{},[]]").unwrap().to_pretty_text(), "[\n  {},\n  []\n]");
    }

    #[test]
    fn a_mutation_changes_its_node_only() {
        let base = Json::parse(HISTORY).unwrap();
        let all = candidates(&schema(), &base);
        let usage_null = all
            .iter()
            .find(|m| m.schema_at == "ModelResponse.usage" && m.class == "null")
            .unwrap();
        assert_eq!(usage_null.path, "$[1].usage");
        let mutated = usage_null.apply(&base).unwrap().to_text();
        assert!(mutated.contains(r#""usage":null,"model_name":"m""#), "{mutated}");
        assert_eq!(mutated.len(), HISTORY.len() - r#"{"input_tokens":1,"cache_write_tokens":0,"cache_read_tokens":0,"output_tokens":2,"input_audio_tokens":0,"cache_audio_read_tokens":0,"output_audio_tokens":0,"details":{}}"#.len() + 4);
        let removed = all
            .iter()
            .find(|m| m.path == "$[0].timestamp" && m.class == "key:removed")
            .unwrap();
        assert!(!removed
            .apply(&base)
            .unwrap()
            .to_text()
            .contains(r#"}],"timestamp":null"#));
        for mutation in &all {
            let mutated = mutation.apply(&base).unwrap();
            assert_ne!(mutated.to_text(), HISTORY, "{} changes nothing", mutation.describe());
        }
    }

    #[test]
    fn sampling_is_deterministic_for_a_seed() {
        let base = Json::parse(HISTORY).unwrap();
        let draw = |seed| {
            sample(candidates(&schema(), &base), 20, &mut Rng::new(seed))
                .iter()
                .map(Mutation::describe)
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(3), draw(3));
        assert_ne!(draw(3), draw(4));
    }
}
