//! The message schema, read at run time, and what it says each node of a history is.

use anyhow::{bail, Context, Result};
use serde_json::Value;

/// What the schema says a node is.
#[derive(Clone, Copy, Debug)]
pub(super) enum Kind<'s> {
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
pub(super) struct Shape<'s> {
    pub(super) kind: Kind<'s>,
    pub(super) nullable: bool,
}

/// The message schema, read at run time.
pub struct Schema {
    pub(super) root: Value,
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

    pub(super) fn def(&self, name: &str) -> Option<&Value> {
        self.root.get("$defs")?.get(name)
    }

    pub(super) fn shape<'s>(&'s self, schema: &'s Value, name: Option<&'s str>) -> Shape<'s> {
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
