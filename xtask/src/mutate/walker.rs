//! The walk of a history beside the schema that lists every single-point edit of it.

use serde_json::Value;

use super::json::{decode, encode, Json};
use super::menus::{
    integers, nested, nested_objects, other_types, raw, BASE64, BOOLEANS, DECIMALS, DEEP_EXTRA, DEPTHS, DURATIONS,
    ESCAPED_STRINGS, NUMBERS, STRINGS, TIMESTAMPS,
};
use super::schema::{Kind, Schema, Shape};
use super::{Edit, Mutation, Step};

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
