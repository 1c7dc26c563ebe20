//! The checks of typed parts, emitted for `verdict::rules`: a route's class (a `$defs` entry the
//! wire types do not hold) checked on the base struct that holds it, and the TypedDict shapes
//! of the opaque values such classes validate.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;

use super::{def_note, lit, prop_note, routed_fn, rust_field_name, typed_const, Emitter, PropKind, Route, Ty};
use crate::DefKind;

impl Emitter<'_> {
    /// The check of a typed part (the route's `schema`, a `$defs` entry the types do not hold) on
    /// the base struct that holds it: each property as the typed class validates it, under its
    /// tag. A `const` is a `Literal` (`literal_error`); a `$ref` to an object shape on an opaque
    /// field is a TypedDict (`shape_*`); `anyOf` of a string and such a shape is pydantic's smart
    /// union `str | TypedDict` (`shape::string_or`); anything else is checked as on the base.
    pub(super) fn emit_routed(&self, out: &mut String, tag_key: &str, base: &str, routes: &[&Route]) -> Result<()> {
        let mut body = None;
        for route in routes {
            let (text, typed) = self
                .routed_body(tag_key, route, base)
                .with_context(|| format!("the route to {}", route.class))?;
            let _ = writeln!(
                out,
                "/// pydantic-ai's typed `{}` (tag `{}`), held by `{base}`.\nconst {}: shape::Typed = shape::Typed {{ literal: {}, shape_name: {}, shape: {} }};\n",
                route.class,
                route.tag,
                typed_const(&route.class),
                lit(&typed.literal),
                lit(&typed.shape),
                shape_fn(&typed.shape)
            );
            match &body {
                None => body = Some(text),
                Some(first) if *first == text => {}
                Some(_) => bail!(
                    "the typed classes held by {base} differ in more than their literal and shape ({})",
                    route.class
                ),
            }
        }
        let _ = writeln!(
            out,
            "/// `{base}` read as one of pydantic-ai's typed classes (`typed`: its literal and shape).\n\
             fn {}<'a>(v: &'a {base}, w: &mut Walker<'a>, typed: &shape::Typed) {{\n{}}}\n",
            routed_fn(base),
            body.unwrap_or_default()
        );
        Ok(())
    }

    /// The check of one typed class on its base struct, with its literal and its shape as
    /// `typed.literal` and `typed.shape` (so that the classes a base struct holds share it).
    fn routed_body(&self, tag_key: &str, route: &Route, base: &str) -> Result<(String, Typed)> {
        let typed = self.def_schema(&route.class)?;
        let base_struct = self.struct_def(base)?;
        let base_note = def_note(self.def_schema(base)?, base)?;
        let required = crate::required_keys(typed);
        let properties = typed
            .get("properties")
            .and_then(Value::as_object)
            .ok_or_else(|| anyhow!("{}: no properties", route.class))?;
        let (mut literal, mut shape_name) = (None, None);
        let mut out = String::new();
        if base_note.validator {
            out.push_str("let before = w.found();\n");
        }
        for (key, prop_schema) in properties {
            let at = format!("{}.{key}", route.class);
            // The tag and the key that selected the route have the values the route needs.
            if key == tag_key || key == "tool_kind" {
                continue;
            }
            let (ty, base_required, base_nullable) = base_struct
                .props
                .iter()
                .find_map(|p| match &p.kind {
                    PropKind::Value {
                        ty, required, nullable, ..
                    } if p.key == *key => Some((ty, *required, *nullable)),
                    _ => None,
                })
                .ok_or_else(|| anyhow!("{at}: the base struct {base} has no such field"))?;
            let field = rust_field_name(key);
            if let Some(value) = prop_schema.get("const").and_then(Value::as_str) {
                if *ty != Ty::String || !base_required || literal.replace(value.to_owned()).is_some() {
                    bail!("{at}: one const is supported, on a required string field");
                }
                let _ = writeln!(
                    out,
                    "if v.{field} != typed.literal {{\nw.report_at(Segment::Key({}), \"literal_error\", format!(\"Input should be '{{}}'\", typed.literal));\n}}",
                    lit(key),
                );
                continue;
            }
            let pnote = prop_note(prop_schema, &at)?;
            let shape = self.shape_ref(prop_schema).map(|name| (name, None));
            let shape = match shape {
                Some(found) => Some(found),
                None => self
                    .string_or_shape(prop_schema, &at)?
                    .map(|(name, nullable)| (name, Some(nullable))),
            };
            let (check, nullable, null) = match shape {
                Some((name, string_or)) => {
                    if *ty != Ty::RawJson || shape_name.replace(name.to_owned()).is_some() {
                        bail!("{at}: one shape is supported, on an opaque field");
                    }
                    match string_or {
                        // `Typed`: pydantic's TypedDict on the value.
                        None => (
                            "|w, v| { (typed.shape)(w, v.get()); v.check(w) }".to_owned(),
                            false,
                            format!("Null::Refused(\"dict_type\", {})", lit(DICT_TYPE)),
                        ),
                        Some(nullable) => (
                            "|w, v| { shape::string_or(w, v.get(), typed.shape_name, typed.shape); v.check(w) }"
                                .to_owned(),
                            nullable,
                            if nullable {
                                "Null::Allowed".to_owned()
                            } else {
                                format!(
                                    "Null::Refused(\"string_type\", {})",
                                    lit("Input should be a valid string")
                                )
                            },
                        ),
                    }
                }
                None => {
                    let nullable = crate::schema_type(prop_schema).with_context(|| at.clone())?.1;
                    let check = self.value_check(prop_schema, ty, &pnote);
                    let null = self.null_expr(&pnote, nullable, ty, &at)?;
                    (check, nullable, null)
                }
            };
            if required.contains(key.as_str()) && !base_required {
                // Absent is refused by the typed class, but the base struct may lack it.
                let _ = writeln!(
                    out,
                    "if v.{field}.is_absent() {{\nw.report_at(Segment::Key({}), \"missing\", \"Field required\");\n}}",
                    lit(key)
                );
            }
            // The field's Rust type is the base struct's: `nullable` says `null` only where it may be absent.
            let nullable = if base_required { base_nullable } else { nullable };
            out.push_str(&self.field_line("v", key, base_required, nullable, &null, &check));
        }
        out.push_str("w.extra(&v.extra);\n");
        if base_note.validator {
            out.push_str("if w.found() == before {\nValidate::validate(v, w);\n}\n");
        }
        match (literal, shape_name) {
            (Some(literal), Some(shape)) => Ok((out, Typed { literal, shape })),
            _ => bail!("{}: a typed class needs a const `tool_name` and one shape", route.class),
        }
    }

    /// The object shape (a `$defs` entry the types do not hold: a TypedDict of pydantic-ai) a
    /// property refers to.
    fn shape_ref<'s>(&self, prop_schema: &'s Value) -> Option<&'s str> {
        let name = crate::ref_name(prop_schema)?;
        (self.model.def(name).is_none()).then_some(name)
    }

    /// `anyOf` of a string and an object shape, and whether `null` is a member too.
    fn string_or_shape<'s>(&self, prop_schema: &'s Value, at: &str) -> Result<Option<(&'s str, bool)>> {
        let Some(members) = prop_schema.get("anyOf").and_then(Value::as_array) else {
            return Ok(None);
        };
        let mut shape = None;
        let (mut string, mut null) = (false, false);
        for member in members {
            match member.get("type").and_then(Value::as_str) {
                Some("string") => string = true,
                Some("null") => null = true,
                _ => match self.shape_ref(member) {
                    Some(name) => shape = Some(name),
                    None => return Ok(None),
                },
            }
        }
        match shape {
            Some(name) if string => Ok(Some((name, null))),
            Some(_) => bail!("{at}: a shape is supported in `anyOf` only beside a string"),
            None => Ok(None),
        }
    }

    /// The check of every object shape the typed parts use, one function each: pydantic's
    /// TypedDict validation (`dict_type`, `missing` for a required key, each declared key's type;
    /// extra keys are allowed) on the opaque value, read one level at a time.
    pub(super) fn emit_shapes(&self, out: &mut String) -> Result<()> {
        let mut pending: Vec<String> = Vec::new();
        for def in &self.model.defs {
            if let DefKind::Union(u) = &def.kind {
                for route in &u.routes {
                    let typed = self.def_schema(&route.class)?;
                    for prop in typed
                        .get("properties")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flatten()
                        .map(|(_, p)| p)
                    {
                        let members = prop.get("anyOf").and_then(Value::as_array).cloned().unwrap_or_default();
                        for schema in std::iter::once(prop).chain(members.iter()) {
                            if let Some(name) = self.shape_ref(schema) {
                                pending.push(name.to_owned());
                            }
                        }
                    }
                }
            }
        }
        let mut done = BTreeSet::new();
        while let Some(name) = pending.pop() {
            if !done.insert(name.clone()) {
                continue;
            }
            let schema = self.def_schema(&name)?;
            let required = crate::required_keys(schema);
            let _ = writeln!(
                out,
                "/// pydantic's TypedDict `{name}` on an opaque value.\nfn {}(w: &mut Walker<'_>, raw: &str) {{\n\
                 let Some(object) = shape::Object::read(raw) else {{\nreturn w.report(\"dict_type\", {});\n}};",
                shape_fn(&name),
                lit(DICT_TYPE)
            );
            for (key, prop) in schema
                .get("properties")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
            {
                let at = format!("{name}.{key}");
                let check = self.shape_value_check(prop, &at, &mut pending)?;
                let how = if required.contains(key.as_str()) {
                    "required"
                } else {
                    "optional"
                };
                let _ = writeln!(out, "object.{how}(w, {}, {check});", lit(key));
            }
            out.push_str("}\n\n");
        }
        Ok(())
    }

    /// The check of one value inside a shape (`|w, v| ...` on its JSON text).
    fn shape_value_check(&self, prop: &Value, at: &str, pending: &mut Vec<String>) -> Result<String> {
        if let Some(name) = crate::ref_name(prop) {
            if self.model.def(name).is_some() {
                bail!("{at}: a shape may refer only to other shapes");
            }
            pending.push(name.to_owned());
            return Ok(shape_fn(name));
        }
        match prop.get("type").and_then(Value::as_str) {
            Some("string") => Ok("shape::string".to_owned()),
            Some("array") => {
                let items = prop.get("items").ok_or_else(|| anyhow!("{at}: array without items"))?;
                let item = self.shape_value_check(items, at, pending)?;
                Ok(format!("|w, v| shape::list(w, v, {item})"))
            }
            other => bail!("{at}: a shape value of type {other:?} is not supported"),
        }
    }
}

/// pydantic's message for a value that is not a dict where a TypedDict or dataclass is expected.
const DICT_TYPE: &str = "Input should be an object";

/// What one typed class changes in the check of its base struct.
struct Typed {
    /// Its `tool_name` literal.
    literal: String,
    /// The TypedDict of its opaque value.
    shape: String,
}

/// `ToolSearchArgs` -> `shape_tool_search_args`.
fn shape_fn(name: &str) -> String {
    format!("shape_{}", crate::snake(name))
}
