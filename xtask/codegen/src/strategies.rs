//! The schema-restating half of `msgflow_wire::arbitrary`: one proptest strategy per history type,
//! generated from the schema into `crates/wire/src/arbitrary/generated.rs`.
//!
//! What the schema says becomes code here: every property of a struct in schema order, its
//! presence (absent, null or a value) from `required`, the nullable type, `default: null`,
//! `x-msgflow-conditional` and `x-msgflow-alias-of`; every variant of a tagged union by its tag
//! (with unknown tags in the any flavour when the union keeps them); every literal of a string
//! enum (with unknown values in the any flavour); unknown extra keys on every object. What the
//! schema cannot say is hand-written in `crates/wire/src/arbitrary.rs` (the runtime the generated
//! code calls): leaf values by type (`text`, `int`, `float`, `timestamp`, `raw_object`,
//! `small_json`, and one function per `x-msgflow-rust-type`), and pydantic-ai's cross-field rules,
//! named by `x-msgflow-arbitrary` annotations (schema/CONVENTIONS.md):
//!
//! * on a property, `{"value": "f"}`: `f(flavour)` gives the value, presence still follows the schema;
//!   `{"field": "f"}`: `f(flavour)` gives the whole field (for presence the schema cannot state);
//! * on a `$defs` entry, `{"rule": "f"}`: every generated value passes through `f(flavour, value)`;
//!   `{"pydantic": false}`: pydantic-ai never writes this type, so only the any flavour generates it.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;

use super::{
    doc_lines, lit, ref_name, rust_field_name, snake, variant_name, Def, DefKind, Model, PropKind, Ty, UnionDef,
};
use super::{StructDef, UnknownPolicy};

/// Where the generated strategies go (inside the `arbitrary` module of msgflow-wire).
pub const OUTPUT: &str = "crates/wire/src/arbitrary/generated.rs";

/// How many strategies go into one tuple (proptest implements `Strategy` for tuples up to 12).
const TUPLE_CHUNK: usize = 8;

/// The formatted Rust source of the strategies for a schema file.
pub fn generate(schema_path: &Path) -> Result<String> {
    let text = std::fs::read_to_string(schema_path).with_context(|| format!("reading {}", schema_path.display()))?;
    let schema: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", schema_path.display()))?;
    let model = Model::read(&schema)?;
    let source = Emitter::new(&model, &schema)?.emit()?;
    super::rustfmt(&source)
}

/// An `x-msgflow-arbitrary` annotation.
#[derive(Debug, Default)]
struct Annotation {
    /// `{"value": f}` on a property.
    value: Option<String>,
    /// `{"field": f}` on a property.
    field: Option<String>,
    /// `{"rule": f}` on a `$defs` entry.
    rule: Option<String>,
    /// `{"pydantic": false}` on a `$defs` entry.
    pydantic: bool,
}

fn annotation(schema: &Value, at: &str) -> Result<Annotation> {
    let Some(raw) = schema.get("x-msgflow-arbitrary") else {
        return Ok(Annotation {
            pydantic: true,
            ..Annotation::default()
        });
    };
    let map = raw
        .as_object()
        .ok_or_else(|| anyhow!("{at}: `x-msgflow-arbitrary` must be an object"))?;
    let mut out = Annotation {
        pydantic: true,
        ..Annotation::default()
    };
    for (key, value) in map {
        let name = || {
            value
                .as_str()
                .filter(|name| !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
                .map(str::to_owned)
                .ok_or_else(|| anyhow!("{at}: `x-msgflow-arbitrary.{key}` must name a Rust function"))
        };
        match key.as_str() {
            "value" => out.value = Some(name()?),
            "field" => out.field = Some(name()?),
            "rule" => out.rule = Some(name()?),
            "pydantic" => {
                out.pydantic = value
                    .as_bool()
                    .ok_or_else(|| anyhow!("{at}: `x-msgflow-arbitrary.pydantic` must be a boolean"))?
            }
            other => {
                bail!("{at}: unknown `x-msgflow-arbitrary` key `{other}` (expected value, field, rule or pydantic)")
            }
        }
    }
    if out.value.is_some() && out.field.is_some() {
        bail!("{at}: `x-msgflow-arbitrary` gives both `value` and `field`");
    }
    Ok(out)
}

struct Emitter<'a> {
    model: &'a Model,
    defs_json: &'a serde_json::Map<String, Value>,
    /// The types a history can hold (reachable from `ModelMessage`), in schema order.
    history_types: Vec<&'a Def>,
}

impl<'a> Emitter<'a> {
    fn new(model: &'a Model, schema: &'a Value) -> Result<Self> {
        let defs_json = schema
            .get("$defs")
            .and_then(Value::as_object)
            .ok_or_else(|| anyhow!("the schema has no $defs"))?;
        let root = schema
            .get("items")
            .and_then(ref_name)
            .ok_or_else(|| anyhow!("the schema's `items` must be a $ref to the message type"))?;
        let mut seen = BTreeSet::new();
        let mut pending = vec![root.to_owned()];
        while let Some(name) = pending.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let Some(def) = model.def(&name) else { continue };
            let mut visit = |ty: &Ty| named_in(ty, &mut pending);
            match &def.kind {
                DefKind::Struct(s) => {
                    for prop in &s.props {
                        if let PropKind::Value { ty, .. } = &prop.kind {
                            visit(ty);
                        }
                    }
                }
                DefKind::Union(u) => pending.extend(u.variants.iter().map(|(_, target)| target.clone())),
                DefKind::StringOrList(ty) | DefKind::Alias(ty) => visit(ty),
                DefKind::Enum(_) => {}
            }
        }
        let history_types = model.defs.iter().filter(|def| seen.contains(&def.name)).collect();
        Ok(Emitter {
            model,
            defs_json,
            history_types,
        })
    }

    fn def_schema(&self, name: &str) -> Result<&'a Value> {
        self.defs_json.get(name).ok_or_else(|| anyhow!("no $defs/{name}"))
    }

    fn emit(&self) -> Result<String> {
        let mut out = String::new();
        out.push_str(
            "// @generated by `cargo xtask codegen` from schema/pydantic-ai-messages.schema.json.\n\
             // Do not edit by hand: change the schema (or xtask/codegen/src/strategies.rs) and regenerate.\n\n\
             //! One strategy per type of a stored history, generated from the schema: every property in\n\
             //! schema order, every union variant, every enum literal (see [`super`] for the flavours and\n\
             //! for the hand-written leaf values and rules these call).\n\n\
             #![allow(clippy::type_complexity)]\n\n\
             use proptest::prelude::*;\n\
             use proptest::strategy::{BoxedStrategy, Union};\n\n\
             use super::Flavour;\n\
             #[allow(unused_imports)]\n\
             use crate::*;\n\n",
        );
        for def in &self.history_types {
            let at = format!("$defs/{}", def.name);
            let def_note = annotation(self.def_schema(&def.name)?, &at)?;
            match &def.kind {
                DefKind::Struct(s) => self
                    .emit_struct(&mut out, def, s, &def_note)
                    .with_context(|| at.clone())?,
                DefKind::Union(u) => self
                    .emit_union(&mut out, def, u, &def_note)
                    .with_context(|| at.clone())?,
                DefKind::Enum(_) => emit_enum(&mut out, def),
                DefKind::StringOrList(item) => {
                    let item = self.value_expr(item, false)?;
                    let name = &def.name;
                    let _ = writeln!(
                        out,
                        "/// `{name}`: a plain string or (more often: it holds the typed items) a list of items.\n\
                         pub fn {}(flavour: Flavour) -> BoxedStrategy<{name}> {{\n\
                         prop_oneof![1 => super::text().prop_map({name}::Text), 3 => super::list({item}).prop_map({name}::Items)].boxed()\n}}\n",
                        snake(name)
                    );
                }
                DefKind::Alias(ty) => {
                    let name = &def.name;
                    let value = self.value_expr(ty, false)?;
                    let _ = writeln!(
                        out,
                        "/// `{name}`.\npub fn {}(flavour: Flavour) -> BoxedStrategy<{name}> {{\n{value}\n}}\n",
                        snake(name)
                    );
                }
            }
        }
        Ok(out)
    }

    /// The strategy expression (a `BoxedStrategy`) for a value of `ty`; `object` when the schema
    /// says a `RawJson` is a JSON object.
    fn value_expr(&self, ty: &Ty, object: bool) -> Result<String> {
        Ok(match ty {
            Ty::String => "super::text()".into(),
            Ty::I64 => "super::int(flavour)".into(),
            Ty::F64 => "super::float(flavour)".into(),
            Ty::Bool => "any::<bool>().boxed()".into(),
            Ty::Timestamp => "super::timestamp(flavour)".into(),
            Ty::RawJson if object => "super::raw_object(flavour)".into(),
            Ty::RawJson => "super::small_json(flavour)".into(),
            Ty::Vec(inner) => format!("super::list({})", self.value_expr(inner, false)?),
            Ty::Named(name) => match self.model.def(name) {
                Some(Def {
                    kind: DefKind::Alias(inner),
                    ..
                }) => self.value_expr(inner, object)?,
                Some(_) => format!("{}(flavour)", snake(name)),
                // A runtime type of msgflow-wire (`x-msgflow-rust-type`): its hand-written strategy.
                None => format!("super::{}(flavour)", snake(name)),
            },
        })
    }

    fn emit_struct(&self, out: &mut String, def: &Def, s: &StructDef, note: &Annotation) -> Result<()> {
        let name = &def.name;
        let def_json = self.def_schema(name)?;
        let mut bindings = Vec::new();
        let mut strategies = Vec::new();
        for prop in &s.props {
            let PropKind::Value {
                ty,
                required,
                nullable,
                default,
                ..
            } = &prop.kind
            else {
                continue;
            };
            let at = format!("$defs/{name}/properties/{}", prop.key);
            let prop_json = def_json
                .get("properties")
                .and_then(|p| p.get(&prop.key))
                .ok_or_else(|| anyhow!("{at} is missing"))?;
            let prop_note = annotation(prop_json, &at)?;
            let binding = rust_field_name(&prop.key);
            if let Some(hook) = &prop_note.field {
                strategies.push(format!("super::{hook}(flavour)"));
                bindings.push(binding);
                continue;
            }
            let value = match &prop_note.value {
                Some(hook) => format!("super::{hook}(flavour)"),
                None => self.value_expr(ty, super::is_object_schema(prop_json))?,
            };
            // The schema's own nullability (typify makes every optional key an `Option`), and
            // `default: null` without a nullable type (`Any`-typed keys): null is a value pydantic-ai writes.
            let stated_nullable = super::schema_type(prop_json).with_context(|| at.clone())?.1;
            let nullable = (*nullable && *required) || stated_nullable || matches!(default, Some(Value::Null));
            let json = *ty == Ty::RawJson;
            let presence = if prop_json.get("x-msgflow-alias-of").is_some() {
                "super::Presence::Alias"
            } else if prop_json.get("x-msgflow-conditional").is_some() {
                if nullable {
                    "super::Presence::ConditionalNullable"
                } else {
                    "super::Presence::Conditional"
                }
            } else if nullable {
                "super::Presence::Nullable"
            } else {
                "super::Presence::Always"
            };
            let strategy = match (required, nullable) {
                (true, false) => value,
                // `Option<RawJson>` could not tell a JSON null from a missing value; no stored-history
                // key has that shape (pydantic-ai's nullable `Any` keys all have defaults).
                (true, true) if json => bail!("{at}: a required nullable JSON value has no strategy shape"),
                (true, true) => format!("super::required_nullable(flavour, {value})"),
                (false, _) if json => format!("super::json_field(flavour, {presence}, {value})"),
                (false, _) => format!("super::field(flavour, {presence}, {value})"),
            };
            strategies.push(strategy);
            bindings.push(binding);
        }
        strategies.push("super::extra(flavour)".into());
        bindings.push("extra".into());

        doc_lines(out, &format!("`{name}`: every property in schema order."));
        let _ = writeln!(
            out,
            "pub fn {}(flavour: Flavour) -> BoxedStrategy<{name}> {{",
            snake(name)
        );
        // Every key is written (pydantic-ai writes them all), so no `x-msgflow-absent` flag is set.
        let mut fields = bindings.clone();
        fields.extend(
            s.props
                .iter()
                .filter(|p| p.absent_kept)
                .map(|p| format!("{}: false", super::absent_flag(&p.key))),
        );
        let chunks_strategies: Vec<String> = strategies
            .chunks(TUPLE_CHUNK)
            .map(|chunk| format!("({},)", chunk.join(", ")))
            .collect();
        let chunks_bindings: Vec<String> = bindings
            .chunks(TUPLE_CHUNK)
            .map(|chunk| format!("({},)", chunk.join(", ")))
            .collect();
        let _ = writeln!(
            out,
            "let value = ({},).prop_map(move |({},)| {name} {{ {} }});",
            chunks_strategies.join(", "),
            chunks_bindings.join(", "),
            fields.join(", ")
        );
        match &note.rule {
            Some(rule) => {
                let _ = writeln!(
                    out,
                    "value.prop_map(move |value| super::{rule}(flavour, value)).boxed()"
                );
            }
            None => out.push_str("value.boxed()\n"),
        }
        out.push_str("}\n\n");
        Ok(())
    }

    fn emit_union(&self, out: &mut String, def: &Def, u: &UnionDef, note: &Annotation) -> Result<()> {
        let name = &def.name;
        let mut always = Vec::new();
        let mut any_only = Vec::new();
        if u.plain_string {
            always.push(format!("super::text().prop_map({name}::Text).boxed()"));
        }
        for (tag, target) in &u.variants {
            let target_note = annotation(self.def_schema(target)?, &format!("$defs/{target}"))?;
            let variant = variant_name(tag);
            let constructor = if u.is_boxed(tag) {
                format!("|value| {name}::{variant}(Box::new(value))")
            } else {
                format!("{name}::{variant}")
            };
            let arm = format!("{}(flavour).prop_map({constructor}).boxed()", snake(target));
            if target_note.pydantic {
                always.push(arm);
            } else {
                any_only.push(arm);
            }
        }
        if matches!(u.unknown, UnknownPolicy::Keep) {
            any_only.push(format!("super::unknown_tagged::<{name}>({}, flavour)", lit(&u.tag)));
        }
        let tags: Vec<String> = u.variants.iter().map(|(tag, _)| format!("`{tag}`")).collect();
        doc_lines(
            out,
            &format!(
                "`{name}`: every variant, by `{}` ({}){}.",
                u.tag,
                tags.join(", "),
                if matches!(u.unknown, UnknownPolicy::Keep) {
                    "; the any flavour adds unknown tags"
                } else {
                    ""
                }
            ),
        );
        let _ = writeln!(
            out,
            "pub fn {}(flavour: Flavour) -> BoxedStrategy<{name}> {{",
            snake(name)
        );
        let mutable = if any_only.is_empty() { "" } else { "mut " };
        let _ = writeln!(
            out,
            "let {mutable}variants: Vec<BoxedStrategy<{name}>> = vec![{}];",
            always.join(", ")
        );
        if !any_only.is_empty() {
            let _ = writeln!(
                out,
                "if flavour == Flavour::Any {{\nvariants.extend([{}]);\n}}",
                any_only.join(", ")
            );
        }
        let _ = writeln!(out, "let value = Union::new(variants);");
        match &note.rule {
            Some(rule) => {
                let _ = writeln!(
                    out,
                    "value.prop_map(move |value| super::{rule}(flavour, value)).boxed()"
                );
            }
            None => out.push_str("value.boxed()\n"),
        }
        out.push_str("}\n\n");
        Ok(())
    }
}

fn emit_enum(out: &mut String, def: &Def) {
    let name = &def.name;
    doc_lines(
        out,
        &format!("`{name}`: every literal of the schema; the any flavour adds values from a newer release."),
    );
    let _ = writeln!(
        out,
        "pub fn {}(flavour: Flavour) -> BoxedStrategy<{name}> {{\nsuper::enum_value(flavour, {name}::KNOWN, {name}::from_wire)\n}}\n",
        snake(name)
    );
}

/// Collects the generated types `ty` names.
fn named_in(ty: &Ty, out: &mut Vec<String>) {
    match ty {
        Ty::Named(name) => out.push(name.clone()),
        Ty::Vec(inner) => named_in(inner, out),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snake_case_names() {
        assert_eq!(snake("ModelRequestPart"), "model_request_part");
        assert_eq!(snake("Citation"), "citation");
        assert_eq!(snake("Base64Data"), "base64_data");
    }

    #[test]
    fn annotations_are_checked() {
        let ok = serde_json::json!({"x-msgflow-arbitrary": {"value": "tool_kind"}});
        assert_eq!(annotation(&ok, "here").unwrap().value.as_deref(), Some("tool_kind"));
        let unknown = serde_json::json!({"x-msgflow-arbitrary": {"values": "x"}});
        assert!(annotation(&unknown, "here")
            .unwrap_err()
            .to_string()
            .contains("unknown"));
        let not_a_name = serde_json::json!({"x-msgflow-arbitrary": {"rule": "a b"}});
        assert!(annotation(&not_a_name, "here").is_err());
        let both = serde_json::json!({"x-msgflow-arbitrary": {"value": "a", "field": "b"}});
        assert!(annotation(&both, "here").is_err());
        let absent = annotation(&serde_json::json!({}), "here").unwrap();
        assert!(absent.pydantic && absent.rule.is_none());
    }
}
