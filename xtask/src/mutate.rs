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
//! The module lives in the xtask because only the live differential uses it: the committed
//! disagreements it finds become plain fixture files, which the `cargo test` side reads without it.

use anyhow::{bail, Context, Result};
use serde_json::Value;

mod json;
mod menus;

pub use self::json::Json;
use self::json::{decode, encode};
use self::menus::{
    integers, nested, nested_objects, other_types, raw, BASE64, BOOLEANS, DECIMALS, DEEP_EXTRA, DEPTHS, DURATIONS,
    ESCAPED_STRINGS, NUMBERS, STRINGS, TIMESTAMPS,
};

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

/// What the schema says a node is.
#[derive(Clone, Copy, Debug)]
enum Kind<'s> {
    /// An object with `properties` (a `$defs` struct).
    Object(&'s str, &'s Value),
    /// A tagged union (`x-msgflow-union` with a `tag`).
    Union(&'s str, &'s Value),
    /// `UserPromptContent`: a string or an array of user content, chosen by JSON type.
    ByJsonType(&'s Value),
    Array(&'s Value),
    String,
    DateTime,
    Integer,
    Number,
    Boolean,
    Base64,
    Enum(&'s [Value]),
    Const,
    /// A scalar with a hand-written runtime type the schema describes in words
    /// (`ForceDownload`: bool or `"allow-local"`, `Duration`, `Decimal`), by that type's name.
    Scalar(&'s str),
    /// `Any` (`{}`).
    Opaque,
    /// `dict[str, Any]`.
    OpaqueObject,
}

#[derive(Clone, Copy, Debug)]
struct Shape<'s> {
    kind: Kind<'s>,
    nullable: bool,
}

/// The message schema, read at run time.
pub struct Schema {
    root: Value,
}

impl Schema {
    /// Reads `schema/pydantic-ai-messages.schema.json`.
    pub fn load(path: &std::path::Path) -> Result<Schema> {
        let text = std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let root: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        if root.pointer("/$defs/ModelMessage").is_none() {
            bail!("{} has no $defs/ModelMessage", path.display());
        }
        Ok(Schema { root })
    }

    fn def(&self, name: &str) -> Option<&Value> {
        self.root.get("$defs")?.get(name)
    }

    fn shape<'s>(&'s self, schema: &'s Value, name: Option<&'s str>) -> Shape<'s> {
        let mut nullable = false;
        if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
            let name = reference.rsplit('/').next().unwrap_or(reference);
            return match self.def(name) {
                Some(def) => self.shape(def, Some(name)),
                None => Shape {
                    kind: Kind::Opaque,
                    nullable,
                },
            };
        }
        if let Some(members) = schema.get("anyOf").and_then(Value::as_array) {
            let is_null = |member: &Value| member.get("type").and_then(Value::as_str) == Some("null");
            nullable = members.iter().any(is_null);
            if let Some(member) = members.iter().find(|member| !is_null(member)) {
                let inner = self.shape(member, None);
                return Shape {
                    kind: inner.kind,
                    nullable: nullable || inner.nullable,
                };
            }
        }
        let label = name.unwrap_or("?");
        if let Some(union) = schema.get("x-msgflow-union") {
            let kind = if union.get("by").and_then(Value::as_str) == Some("json-type") {
                Kind::ByJsonType(schema)
            } else {
                Kind::Union(label, schema)
            };
            return Shape { kind, nullable };
        }
        if schema.get("const").is_some() {
            return Shape {
                kind: Kind::Const,
                nullable,
            };
        }
        if let Some(rust_type) = schema.get("x-msgflow-rust-type").and_then(Value::as_str) {
            let kind = if rust_type == "Base64Data" {
                Kind::Base64
            } else {
                Kind::Scalar(rust_type)
            };
            return Shape { kind, nullable };
        }
        if let Some(values) = schema.get("enum").and_then(Value::as_array) {
            return Shape {
                kind: Kind::Enum(values),
                nullable,
            };
        }
        let types: Vec<&str> = match schema.get("type") {
            Some(Value::String(one)) => vec![one.as_str()],
            Some(Value::Array(many)) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        nullable |= types.contains(&"null");
        let kind = match types.iter().find(|t| **t != "null").copied() {
            Some("string") if schema.get("format").and_then(Value::as_str) == Some("date-time") => Kind::DateTime,
            Some("string") => Kind::String,
            Some("integer") => Kind::Integer,
            Some("number") => Kind::Number,
            Some("boolean") => Kind::Boolean,
            Some("array") => Kind::Array(schema.get("items").unwrap_or(&Value::Null)),
            Some("object") if schema.get("properties").is_some() => Kind::Object(label, schema),
            Some("object") => Kind::OpaqueObject,
            _ => Kind::Opaque,
        };
        Shape { kind, nullable }
    }
}

/// Every single-point mutation of `history` (a valid history) the schema suggests.
pub fn candidates(schema: &Schema, history: &Json) -> Vec<Mutation> {
    let mut walker = Walker {
        schema,
        out: Vec::new(),
        steps: Vec::new(),
        path: "$".to_owned(),
        current: None,
    };
    if let (Json::Array(messages), Some(message)) = (history, schema.def("ModelMessage")) {
        let shape = schema.shape(message, Some("ModelMessage"));
        for (index, item) in messages.iter().enumerate() {
            walker.enter(Step::Index(index), &format!("[{index}]"), |walker| {
                walker.array_element("ModelMessage", item);
                walker.node(item, shape, "ModelMessage");
            });
        }
    }
    walker.out
}

struct Walker<'s> {
    schema: &'s Schema,
    out: Vec<Mutation>,
    steps: Vec<Step>,
    path: String,
    /// The text of the node being mutated (a replacement by the same text is no mutation).
    current: Option<String>,
}

impl Walker<'_> {
    fn enter(&mut self, step: Step, path: &str, body: impl FnOnce(&mut Self)) {
        let saved = self.path.len();
        let current = self.current.take();
        self.steps.push(step);
        self.path.push_str(path);
        body(self);
        self.path.truncate(saved);
        self.steps.pop();
        self.current = current;
    }

    fn push(&mut self, schema_at: &str, class: String, edit: Edit) {
        self.out.push(Mutation {
            steps: self.steps.clone(),
            path: self.path.clone(),
            schema_at: schema_at.to_owned(),
            class,
            edit,
        });
    }

    /// A replacement of the current node, unless it would write the node's own text.
    fn replace(&mut self, schema_at: &str, class: String, value: Json) {
        if self.current.as_deref() != Some(value.to_text().as_str()) {
            self.push(schema_at, class, Edit::Replace(value));
        }
    }

    /// Edits of an array element or object entry as such: removed, duplicated.
    fn array_element(&mut self, schema_at: &str, _value: &Json) {
        self.push(schema_at, "element:removed".to_owned(), Edit::Remove);
        self.push(schema_at, "element:duplicated".to_owned(), Edit::Duplicate);
    }

    /// Mutations of one node and, recursively, of its children.
    fn node(&mut self, value: &Json, shape: Shape, at: &str) {
        self.current = Some(value.to_text());
        if !matches!(value, Json::Null) {
            self.replace(at, "null".to_owned(), Json::Null);
        }
        let typed = !matches!(shape.kind, Kind::Opaque | Kind::OpaqueObject);
        if typed {
            for (name, other) in other_types() {
                if other.type_name() != value.type_name() || (name == "float" && matches!(value, Json::Number(_))) {
                    self.replace(at, format!("type:{name}"), other);
                }
            }
        }
        let depth = self.steps.len();
        match shape.kind {
            Kind::Union(def, schema) => {
                self.deep(at, depth, true);
                self.union(value, def, schema, at);
            }
            Kind::Object(def, schema) => {
                self.deep(at, depth, true);
                self.object(value, def, schema);
            }
            Kind::ByJsonType(schema) => {
                if let (Json::Array(items), Some(member)) = (value, schema.pointer("/oneOf/1/items")) {
                    let item_shape = self.schema.shape(member, None);
                    self.array(items, item_shape, &format!("{at}[]"));
                }
                self.deep(at, depth, false);
            }
            Kind::Array(items) => {
                if let Json::Array(elements) = value {
                    let item_shape = self.schema.shape(items, None);
                    self.array(elements, item_shape, &format!("{at}[]"));
                    if !elements.is_empty() {
                        self.replace(at, "array:empty".to_owned(), Json::Array(Vec::new()));
                    }
                }
            }
            Kind::DateTime => {
                for (name, text) in TIMESTAMPS {
                    self.replace(at, format!("timestamp:{name}"), raw(text));
                }
            }
            Kind::Integer => {
                for (name, text) in integers() {
                    self.replace(at, format!("int:{name}"), raw(&text));
                }
            }
            Kind::Number => {
                for (name, text) in NUMBERS {
                    self.replace(at, format!("float:{name}"), raw(text));
                }
            }
            Kind::Scalar(rust_type) => {
                let own: &[(&str, &str)] = match rust_type {
                    "Duration" => DURATIONS,
                    "Decimal" => DECIMALS,
                    _ => &[],
                };
                for (name, text) in BOOLEANS.iter().chain(NUMBERS) {
                    self.replace(at, format!("scalar:{name}"), raw(text));
                }
                // The type's own spellings, under their own family so the draw reaches them.
                for (name, text) in own {
                    self.replace(at, format!("{}:{name}", rust_type.to_lowercase()), raw(text));
                }
            }
            Kind::Boolean => {
                for (name, text) in BOOLEANS {
                    self.replace(at, format!("bool:{name}"), raw(text));
                }
            }
            Kind::String => {
                for (name, text) in STRINGS.iter().chain(ESCAPED_STRINGS) {
                    self.replace(at, format!("string:{name}"), raw(text));
                }
            }
            Kind::Base64 => {
                for (name, text) in BASE64 {
                    self.replace(at, format!("base64:{name}"), raw(text));
                }
            }
            Kind::Enum(values) => self.literals(value, values, at, "literal"),
            Kind::Const => {
                if let Json::String(current) = value {
                    self.recased(current, at, "const");
                    self.replace(
                        at,
                        "const:unknown".to_owned(),
                        Json::String("msgflow-unknown".to_owned()),
                    );
                }
            }
            Kind::Opaque | Kind::OpaqueObject => self.opaque(value, at, depth),
        }
    }

    /// Every literal the schema lists, an unknown one, and the current one re-cased or padded.
    fn literals(&mut self, value: &Json, values: &[Value], at: &str, class: &str) {
        let current = match value {
            Json::String(raw) => Some(decode(raw)),
            _ => None,
        };
        for literal in values.iter().filter_map(Value::as_str) {
            if current.as_deref() != Some(literal) {
                self.replace(at, format!("{class}:{literal}"), Json::String(encode(literal)));
            }
        }
        self.replace(
            at,
            format!("{class}:unknown"),
            Json::String("msgflow-unknown".to_owned()),
        );
        if let Some(current) = current {
            self.recased(&current, at, class);
            self.replace(
                at,
                format!("{class}:padded"),
                Json::String(encode(&format!(" {current}"))),
            );
        }
    }

    fn recased(&mut self, current: &str, at: &str, class: &str) {
        // The same value in another JSON spelling: its first character as a `\u` escape.
        if let Some(first) = current.chars().next().filter(char::is_ascii) {
            let rest = &current[first.len_utf8()..];
            self.replace(
                at,
                format!("{class}:escaped"),
                Json::String(format!("\\u{:04x}{}", first as u32, encode(rest))),
            );
        }
        let upper = current.to_uppercase();
        if upper != current {
            self.replace(at, format!("{class}:upper-case"), Json::String(encode(&upper)));
        }
        let mut title: Vec<char> = current.chars().collect();
        if let Some(first) = title.first_mut() {
            *first = first.to_ascii_uppercase();
        }
        let title: String = title.into_iter().collect();
        if title != current && title != upper {
            self.replace(at, format!("{class}:title-case"), Json::String(encode(&title)));
        }
    }

    fn array(&mut self, elements: &[Json], item_shape: Shape, at: &str) {
        for (index, element) in elements.iter().enumerate() {
            self.enter(Step::Index(index), &format!("[{index}]"), |walker| {
                walker.array_element(at, element);
                walker.node(element, item_shape, at);
            });
        }
    }

    fn union(&mut self, value: &Json, def: &str, schema: &Value, at: &str) {
        let Some(union) = schema.get("x-msgflow-union") else {
            return;
        };
        let plain_string = union.get("plain").and_then(Value::as_str) == Some("string");
        if plain_string {
            if let Json::String(_) = value {
                let string = Shape {
                    kind: Kind::String,
                    nullable: false,
                };
                return self.node_leaf_only(value, string, at);
            }
        }
        let Some(tag) = union.get("tag").and_then(Value::as_str) else {
            return;
        };
        let variants = union.get("variants").and_then(Value::as_object);
        let current = match value.get(tag) {
            Some(Json::String(raw)) => Some(decode(raw)),
            _ => None,
        };
        let variant = current
            .as_deref()
            .and_then(|tag_value| variants?.get(tag_value)?.as_str())
            .or_else(|| union.get("fallback").and_then(Value::as_str));
        let Some((variant, variant_schema)) = variant.and_then(|name| Some((name, self.schema.def(name)?))) else {
            return; // an unknown tag: an opaque object to the schema
        };
        self.object(value, variant, variant_schema);
        // The tag: every other variant's tag (swapped), unknown, re-cased.
        if let (Json::Object(entries), Some(variants)) = (value, variants) {
            if let Some(position) = entries.iter().rposition(|(key, _)| key == tag) {
                let tag_at = format!("{def}.{tag}");
                self.enter(Step::Entry(position), &format!(".{tag}"), |walker| {
                    for other in variants.keys() {
                        if current.as_deref() != Some(other.as_str()) {
                            walker.replace(&tag_at, format!("tag:swap:{other}"), Json::String(encode(other)));
                        }
                    }
                    walker.replace(
                        &tag_at,
                        "tag:unknown".to_owned(),
                        Json::String("msgflow-unknown".to_owned()),
                    );
                    if let Some(current) = &current {
                        walker.recased(current, &tag_at, "tag");
                    }
                });
            }
        }
    }

    /// The leaf mutations of a node without the generic null / other-type ones (already made).
    fn node_leaf_only(&mut self, _value: &Json, shape: Shape, at: &str) {
        if let Kind::String = shape.kind {
            for (name, text) in STRINGS {
                self.replace(at, format!("string:{name}"), raw(text));
            }
        }
    }

    fn object(&mut self, value: &Json, def: &str, schema: &Value) {
        let Json::Object(entries) = value else {
            return;
        };
        let properties = schema.get("properties").and_then(Value::as_object);
        // Object-level edits: an extra key, a key with a lone surrogate, absent properties as null.
        self.push(
            def,
            "object:extra-key".to_owned(),
            Edit::Insert("msgflow_extra".to_owned(), Json::Number("1".to_owned())),
        );
        self.push(
            def,
            "object:lone-surrogate-key".to_owned(),
            Edit::Insert("x\\ud800".to_owned(), Json::Number("1".to_owned())),
        );
        // An unknown key's value is ignored but still read by jiter (as `arbitrary::extra`'s
        // values are): its JSON-level limits hold there too.
        for (name, extra) in [
            ("nan-literal", Json::Number("NaN".to_owned())),
            ("lone-surrogate", Json::String("\\ud800".to_owned())),
            ("digits-4301", Json::Number("9".repeat(4301))),
            ("deep-arrays", nested(DEEP_EXTRA, "1")),
        ] {
            self.push(
                def,
                format!("object:extra-key-value:{name}"),
                Edit::Insert("msgflow_extra".to_owned(), extra),
            );
        }
        // Key order (reversed: the tag first, as `crates/wire/tests/properties.rs` reorders):
        // pydantic-ai reads objects by key.
        if entries.len() > 1 {
            let reversed = Json::Object(entries.iter().rev().cloned().collect());
            self.replace(def, "object:keys-reversed".to_owned(), reversed);
        }
        if let Some(properties) = properties {
            for (name, property) in properties {
                let present = entries.iter().any(|(key, _)| decode(key) == *name);
                if !present && property.get("const").is_none() {
                    self.push(
                        &format!("{def}.{name}"),
                        "absent:null".to_owned(),
                        Edit::Insert(encode(name), Json::Null),
                    );
                }
            }
        }
        for (position, (key, child)) in entries.iter().enumerate() {
            let name = decode(key);
            let property = properties.and_then(|properties| properties.get(&name));
            let at = format!("{def}.{name}");
            self.enter(Step::Entry(position), &format!(".{name}"), |walker| {
                walker.push(&at, "key:removed".to_owned(), Edit::Remove);
                walker.push(&at, "key:duplicated".to_owned(), Edit::Duplicate);
                walker.push(
                    &at,
                    "key:upper-case".to_owned(),
                    Edit::RenameKey(encode(&name.to_uppercase())),
                );
                walker.push(
                    &at,
                    "key:lone-surrogate".to_owned(),
                    Edit::RenameKey(format!("{key}\\udc00")),
                );
                match property {
                    // The union's own tag is mutated by `union`.
                    Some(property) if property.get("const").is_some() && walker.is_tag(&name) => {}
                    Some(property) => {
                        let shape = walker.schema.shape(property, None);
                        walker.node(child, shape, &at);
                        if property.pointer("/x-msgflow-verdict/check").and_then(Value::as_str) == Some("int_values") {
                            walker.int_values(&at);
                        }
                    }
                    None => {}
                }
            });
        }
    }

    /// A `dict[str, int]` (`x-msgflow-verdict` check `int_values`, `RequestUsage.details`) holding
    /// one value of each integer spelling: pydantic's lax `int` reads each value (as the any
    /// flavour's `usage_details` writes them), where the opaque edits replace the whole dict.
    fn int_values(&mut self, at: &str) {
        for (name, text) in integers() {
            self.replace(at, format!("int-values:{name}"), Json::Raw(format!("{{\"n\":{text}}}")));
        }
    }

    /// Whether `name` is the tag property of some union (`kind`, `part_kind`, ...).
    fn is_tag(&self, name: &str) -> bool {
        let Some(Value::Object(defs)) = self.schema.root.get("$defs") else {
            return false;
        };
        defs.values()
            .any(|def| def.pointer("/x-msgflow-union/tag").and_then(Value::as_str) == Some(name))
    }

    /// Deep nesting in place of a typed node (`as_object`: nested objects, else arrays).
    fn deep(&mut self, at: &str, depth: usize, as_object: bool) {
        for total in DEPTHS.iter().filter(|total| **total > depth + 1) {
            let levels = total - depth;
            let value = if as_object {
                nested_objects(levels, "1")
            } else {
                nested(levels, "1")
            };
            self.replace(at, format!("deep:{total}"), value);
        }
    }

    /// Opaque values: deep nesting, huge and odd numbers, lone surrogates, all carried as written.
    fn opaque(&mut self, value: &Json, at: &str, depth: usize) {
        let text = value.to_text();
        for total in DEPTHS.iter().filter(|total| **total > depth + 1) {
            let levels = total - depth;
            self.replace(at, format!("opaque-deep-arrays:{total}"), nested(levels, &text));
            self.replace(at, format!("opaque-deep-objects:{total}"), nested_objects(levels, "1"));
        }
        for (name, text) in [
            ("digits-4300", "9".repeat(4300)),
            ("digits-4301", "9".repeat(4301)),
            ("u64-max+1", "18446744073709551616".to_owned()),
            ("float-overflow", "1e400".to_owned()),
            ("nan-literal", "NaN".to_owned()),
            ("minus-zero", "-0".to_owned()),
            // The other spellings of `arbitrary`'s `ODD_NUMBERS`, which pydantic-ai re-dumps
            // in its own form (`1e5` as `100000.0`, `-1e-400` as `-0.0`).
            ("exponent-upper-case", "1E5".to_owned()),
            ("trailing-zero", "1.50".to_owned()),
            ("zero-exponent", "0e0".to_owned()),
            ("float-underflow", "-1e-400".to_owned()),
            ("exponent-plus", "0.1e+2".to_owned()),
            ("infinity-literal", "Infinity".to_owned()),
            ("negative-infinity-literal", "-Infinity".to_owned()),
        ] {
            self.replace(at, format!("opaque-number:{name}"), Json::Number(text.clone()));
            self.replace(
                at,
                format!("opaque-nested-number:{name}"),
                Json::Raw(format!("{{\"n\":[{text}]}}")),
            );
        }
        for (name, text) in STRINGS.iter().take(4).chain(ESCAPED_STRINGS) {
            self.replace(at, format!("opaque-string:{name}"), raw(text));
        }
        self.replace(
            at,
            "opaque-key:lone-surrogate".to_owned(),
            Json::Raw("{\"\\ud800\":1}".to_owned()),
        );
        self.replace(
            at,
            "opaque-key:duplicate".to_owned(),
            Json::Raw("{\"a\":1,\"a\":2}".to_owned()),
        );
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
