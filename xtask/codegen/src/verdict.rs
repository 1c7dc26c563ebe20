//! The verdict's schema rules: `crates/wire/src/verdict/rules.rs`, one `Check` implementation per
//! wire type, saying what pydantic-ai 2.68.0's `validate_json` refuses where the schema states it.
//!
//! * A property that is neither required nor nullable refuses an explicit `null` with the error
//!   pydantic raises for its type (`int_type`, `datetime_type`, `dataclass_type`, ...).
//! * A string enum refuses values outside its list (`literal_error`, with pydantic's message).
//! * A tagged union refuses a tag it does not know (`union_tag_invalid`), and puts the tag in
//!   the `loc`, as pydantic does.
//! * An opaque property typed as an object (`{"type": "object"}`) refuses other JSON values
//!   (`dict_type`).
//!
//! `x-msgflow-verdict` says the rest (see `schema/CONVENTIONS.md`): on a `$defs` entry,
//! `{"validator": "..."}` runs the hand-written model validator (`verdict/validators.rs`) after
//! the fields, as `__post_init__` runs, and `{"loc_tag": "computed"}` takes the `loc` tag of a
//! union variant from the hand-written `LocTag`; on a property, `{"json_kinds": [[member, kind],
//! ...]}` names the JSON kinds a union-typed opaque value accepts (`str | dict[str, Any]`),
//! `{"null": [type, message]}` the error pydantic raises for `null` where the type alone does not
//! tell it, and `{"check": "function"}` a hand-written check of an opaque value's content (a
//! function of `verdict/validators.rs`, such as `int_values` for `dict[str, int]`).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;

use super::UnknownPolicy;
use super::{lit, rust_field_name, variant_name, Def, DefKind, Model, PropKind, StructDef, Ty, UnionDef};

/// Where the rules are written.
pub const OUTPUT: &str = "crates/wire/src/verdict/rules.rs";

/// Writes the rules for the schema at `schema_path`; with `check`, fails instead when the
/// checked-in file differs from them.
pub fn run(root: &Path, schema_path: &Path, check: bool) -> Result<()> {
    let generated = generate(schema_path)?;
    let output = root.join(OUTPUT);
    let current = std::fs::read_to_string(&output)
        .unwrap_or_default()
        .replace("\r\n", "\n");
    if current == generated {
        eprintln!("{OUTPUT} is up to date");
        return Ok(());
    }
    if check {
        let diff = similar::TextDiff::from_lines(&current, &generated);
        let shown = diff
            .unified_diff()
            .context_radius(2)
            .header("checked in", "generated")
            .to_string();
        let shown: String = shown.lines().take(60).collect::<Vec<_>>().join("\n");
        bail!("{OUTPUT} is stale relative to the schema:\n{shown}\nrun `cargo xtask codegen` and commit the result");
    }
    std::fs::write(&output, generated).with_context(|| format!("writing {}", output.display()))?;
    eprintln!("wrote {OUTPUT}");
    Ok(())
}

/// The formatted Rust source of the rules for a schema file.
pub fn generate(schema_path: &Path) -> Result<String> {
    let text = std::fs::read_to_string(schema_path).with_context(|| format!("reading {}", schema_path.display()))?;
    let schema: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", schema_path.display()))?;
    let model = Model::read(&schema)?;
    let source = Emitter {
        model: &model,
        schema: &schema,
    }
    .emit()?;
    super::rustfmt(&source)
}

/// `x-msgflow-verdict` of a `$defs` entry.
#[derive(Default)]
struct DefNote {
    validator: bool,
    computed_loc_tag: bool,
}

/// `x-msgflow-verdict.null` of a property.
enum NullNote {
    Allowed,
    Refused(String, String),
}

/// `x-msgflow-verdict` of a property.
#[derive(Default)]
struct PropNote {
    json_kinds: Vec<(String, String)>,
    null: Option<NullNote>,
    /// A hand-written check of the value (a function of `verdict/validators.rs`).
    check: Option<String>,
}

fn verdict_note(schema: &Value) -> Option<&serde_json::Map<String, Value>> {
    schema.get("x-msgflow-verdict").and_then(Value::as_object)
}

fn def_note(schema: &Value, at: &str) -> Result<DefNote> {
    let mut note = DefNote::default();
    let Some(map) = verdict_note(schema) else {
        return Ok(note);
    };
    for (key, value) in map {
        match (key.as_str(), value) {
            ("validator", Value::String(_)) => note.validator = true,
            ("loc_tag", Value::String(how)) if how == "computed" => note.computed_loc_tag = true,
            _ => bail!("{at}: unknown x-msgflow-verdict entry `{key}`: {value}"),
        }
    }
    Ok(note)
}

fn prop_note(schema: &Value, at: &str) -> Result<PropNote> {
    let mut note = PropNote::default();
    let Some(map) = verdict_note(schema) else {
        return Ok(note);
    };
    let pair = |value: &Value| -> Option<(String, String)> {
        let items = value.as_array()?;
        match items.as_slice() {
            [Value::String(a), Value::String(b)] => Some((a.clone(), b.clone())),
            _ => None,
        }
    };
    for (key, value) in map {
        match key.as_str() {
            "json_kinds" => {
                for member in value.as_array().into_iter().flatten() {
                    let (name, kind) =
                        pair(member).ok_or_else(|| anyhow!("{at}: json_kinds entries are [member, kind]"))?;
                    if !matches!(kind.as_str(), "string" | "object") {
                        bail!("{at}: json kind `{kind}` is not string or object");
                    }
                    note.json_kinds.push((name, kind));
                }
            }
            // `"allowed"`: pydantic takes (or ignores) `null` there though the type has no null.
            "null" if value == "allowed" => note.null = Some(NullNote::Allowed),
            "null" => {
                let (error_type, message) =
                    pair(value).ok_or_else(|| anyhow!("{at}: null is [type, message] or \"allowed\""))?;
                note.null = Some(NullNote::Refused(error_type, message));
            }
            "check" => {
                let name = value.as_str().unwrap_or_default();
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                    bail!("{at}: check `{value}` is not a function name");
                }
                note.check = Some(name.to_owned());
            }
            _ => bail!("{at}: unknown x-msgflow-verdict entry `{key}`"),
        }
    }
    Ok(note)
}

/// `true` when the schema (or its non-null member) is a JSON object type.
fn is_object(schema: &Value) -> bool {
    if schema.get("type").and_then(Value::as_str) == Some("object") {
        return true;
    }
    schema.get("anyOf").and_then(Value::as_array).is_some_and(|options| {
        options
            .iter()
            .any(|o| o.get("type").and_then(Value::as_str) == Some("object"))
    })
}

/// `'a', 'b' or 'c'`, as pydantic lists the literals it expected.
fn literal_list(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("'{v}'")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

struct Emitter<'a> {
    model: &'a Model,
    schema: &'a Value,
}

impl Emitter<'_> {
    fn def_schema(&self, name: &str) -> Result<&Value> {
        self.schema
            .get("$defs")
            .and_then(|defs| defs.get(name))
            .ok_or_else(|| anyhow!("no $defs/{name}"))
    }

    fn emit(&self) -> Result<String> {
        let mut out = String::from(
            "// @generated by `cargo xtask codegen` from schema/pydantic-ai-messages.schema.json.\n\
             // Do not edit by hand: change the schema (or xtask/codegen/src/verdict.rs) and regenerate.\n\n\
             //! What pydantic-ai 2.68.0 refuses where the schema says it: `null` for a value that is not\n\
             //! `Optional`, literals outside their list, unknown union tags, opaque values that must be objects.\n\n\
             #[allow(unused_imports)]\n\
             use super::{Check, JsonKind, Null, Segment, Walker};\n\
             #[allow(unused_imports)]\n\
             use super::validators::{self, LocTag, Validate};\n\
             use crate::*;\n\n",
        );
        for def in &self.model.defs {
            match &def.kind {
                DefKind::Struct(s) => self.emit_struct(&mut out, def, s)?,
                DefKind::Union(u) => self.emit_union(&mut out, def, u)?,
                DefKind::Enum(values) => {
                    let values: Vec<&str> = values.iter().map(String::as_str).collect();
                    let _ = writeln!(
                        out,
                        "impl Check for {name} {{\nfn check<'a>(&'a self, w: &mut Walker<'a>) {{\n\
                         if !self.is_known() {{\nw.report(\"literal_error\", {});\n}}\n}}\n}}\n",
                        lit(&format!("Input should be {}", literal_list(&values))),
                        name = def.name
                    );
                }
                DefKind::StringOrList(_) => {
                    let _ = writeln!(
                        out,
                        "impl Check for {} {{\nfn check<'a>(&'a self, w: &mut Walker<'a>) {{\n\
                         if let Self::Items(items) = self {{\nw.items(items);\n}}\n}}\n}}\n",
                        def.name
                    );
                }
                // An alias is checked as the type it names.
                DefKind::Alias(_) => {}
            }
        }
        Ok(out)
    }

    /// How pydantic answers `null` for a value of this type, as a `Null` expression.
    fn null_refusal(&self, ty: &Ty) -> Result<String> {
        let (error_type, message) = match ty {
            Ty::String => ("string_type", "Input should be a valid string".to_owned()),
            Ty::I64 => ("int_type", "Input should be a valid integer".to_owned()),
            Ty::F64 => ("float_type", "Input should be a valid number".to_owned()),
            Ty::Bool => ("bool_type", "Input should be a valid boolean".to_owned()),
            Ty::Timestamp => ("datetime_type", "Input should be a valid datetime".to_owned()),
            Ty::Vec(_) => ("list_type", "Input should be a valid list".to_owned()),
            Ty::RawJson => return Ok("Null::Allowed".into()),
            Ty::Named(name) => match self.model.def(name).map(|d| &d.kind) {
                Some(DefKind::Struct(_)) => ("dataclass_type", "Input should be an object".to_owned()),
                Some(DefKind::Enum(values)) => {
                    let values: Vec<&str> = values.iter().map(String::as_str).collect();
                    ("literal_error", format!("Input should be {}", literal_list(&values)))
                }
                Some(DefKind::Union(u)) => (
                    "union_tag_not_found",
                    format!("Unable to extract tag using discriminator '{}'", u.tag),
                ),
                Some(DefKind::StringOrList(_)) => ("string_type", "Input should be a valid string".to_owned()),
                Some(DefKind::Alias(inner)) => return self.null_refusal(inner),
                None => bail!("`null` for the runtime type {name} needs x-msgflow-verdict.null"),
            },
        };
        Ok(format!("Null::Refused({}, {})", lit(error_type), lit(&message)))
    }

    fn emit_struct(&self, out: &mut String, def: &Def, s: &StructDef) -> Result<()> {
        let name = &def.name;
        let def_schema = self.def_schema(name)?;
        let note = def_note(def_schema, name)?;
        let _ = writeln!(
            out,
            "impl Check for {name} {{\nfn check<'a>(&'a self, w: &mut Walker<'a>) {{"
        );
        if note.validator {
            out.push_str("let before = w.found();\n");
        }
        for prop in &s.props {
            let PropKind::Value { ty, required, .. } = &prop.kind else {
                continue;
            };
            let at = format!("{name}.{}", prop.key);
            let prop_schema = def_schema
                .get("properties")
                .and_then(|p| p.get(&prop.key))
                .ok_or_else(|| anyhow!("{at}: not in the schema"))?;
            // Nullability as the schema states it (typify makes every optional property an
            // `Option`, which says nothing about `null`).
            let nullable = &super::schema_type(prop_schema).with_context(|| at.clone())?.1;
            let pnote = prop_note(prop_schema, &at)?;
            let field = rust_field_name(&prop.key);
            let key = lit(&prop.key);
            let check = if let Some(function) = &pnote.check {
                format!("|w, v| {{ validators::{function}(w, v); v.check(w) }}")
            } else if *ty == Ty::RawJson && !pnote.json_kinds.is_empty() {
                let members: Vec<String> = pnote
                    .json_kinds
                    .iter()
                    .map(|(member, kind)| {
                        let kind = match kind.as_str() {
                            "string" => "JsonKind::String",
                            _ => "JsonKind::Object",
                        };
                        format!("({}, {kind})", lit(member))
                    })
                    .collect();
                format!("|w, v| {{ w.json_kinds(v, &[{}]); v.check(w) }}", members.join(", "))
            } else if *ty == Ty::RawJson && is_object(prop_schema) {
                "|w, v| { w.dict(v); v.check(w) }".to_owned()
            } else {
                "|w, v| v.check(w)".to_owned()
            };
            // pydantic's `AliasChoices(name, alias)`: the alias is read only when the name is
            // absent, so a value under it next to the name is never validated.
            let alias_of = prop_schema.get("x-msgflow-alias-of").and_then(Value::as_str);
            if let Some(target) = alias_of {
                let _ = writeln!(out, "if self.{}.is_absent() {{", rust_field_name(target));
            }
            match (required, nullable) {
                (true, false) => {
                    let _ = writeln!(out, "w.value({key}, &self.{field}, {check});");
                }
                (true, true) => {
                    let _ = writeln!(out, "w.nullable({key}, &self.{field}, {check});");
                }
                (false, _) => {
                    let null = match (&pnote.null, nullable) {
                        (Some(NullNote::Refused(error_type, message)), _) => {
                            format!("Null::Refused({}, {})", lit(error_type), lit(message))
                        }
                        (Some(NullNote::Allowed), _) => "Null::Allowed".to_owned(),
                        (None, true) => "Null::Allowed".to_owned(),
                        (None, false) => self.null_refusal(ty).with_context(|| at.clone())?,
                    };
                    let _ = writeln!(out, "w.field({key}, &self.{field}, {null}, {check});");
                }
            }
            if alias_of.is_some() {
                out.push_str("}\n");
            }
        }
        out.push_str("w.extra(&self.extra);\n");
        if note.validator {
            out.push_str("if w.found() == before {\nValidate::validate(self, w);\n}\n");
        }
        out.push_str("}\n}\n\n");
        Ok(())
    }

    fn emit_union(&self, out: &mut String, def: &Def, u: &UnionDef) -> Result<()> {
        let name = &def.name;
        let _ = writeln!(
            out,
            "impl Check for {name} {{\nfn check<'a>(&'a self, w: &mut Walker<'a>) {{\nmatch self {{"
        );
        if u.plain_string {
            out.push_str("Self::Text(_) => {}\n");
        }
        for (value, target) in &u.variants {
            let note = def_note(self.def_schema(target)?, target)?;
            let variant = variant_name(value);
            if note.computed_loc_tag {
                let _ = writeln!(out, "Self::{variant}(v) => w.tagged(v.loc_tag(), v),");
            } else {
                let _ = writeln!(out, "Self::{variant}(v) => w.tagged({}, v),", lit(value));
            }
        }
        if matches!(u.unknown, UnknownPolicy::Keep) {
            let expected: Vec<&str> = u.variants.iter().map(|(v, _)| v.as_str()).collect();
            let expected = expected.iter().map(|v| format!("'{v}'")).collect::<Vec<_>>().join(", ");
            let _ = writeln!(
                out,
                "Self::Unknown(v) => {{\nlet tag = v.tag({}).unwrap_or_default();\n\
                 w.report(\"union_tag_invalid\", format!({}, tag));\nw.unknown(v);\n}}",
                lit(&u.tag),
                lit(&format!(
                    "Input tag '{{}}' found using '{}' does not match any of the expected tags: {}",
                    u.tag, expected
                ))
            );
        }
        out.push_str("}\n}\n}\n\n");
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn literals_are_listed_as_pydantic_lists_them() {
        assert_eq!(super::literal_list(&["stop"]), "'stop'");
        assert_eq!(super::literal_list(&["a", "b", "c"]), "'a', 'b' or 'c'");
    }

    #[test]
    fn annotations_are_checked() {
        let bad = serde_json::json!({"x-msgflow-verdict": {"validatr": "x"}});
        assert!(super::def_note(&bad, "X").is_err());
        let bad_kind = serde_json::json!({"x-msgflow-verdict": {"json_kinds": [["str", "text"]]}});
        assert!(super::prop_note(&bad_kind, "X.y").is_err());
    }
}
