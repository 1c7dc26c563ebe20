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

mod typed;

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;

use super::UnknownPolicy;
use super::{lit, rust_field_name, variant_name, Def, DefKind, Model, PropKind, Route, StructDef, Ty, UnionDef};

/// Where the rules are written.
pub const OUTPUT: &str = "crates/wire/src/verdict/rules.rs";

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
    /// `[[member, type, message], ...]`: refused by each member of a union of scalars.
    Members(Vec<(String, String, String)>),
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
            "null" if value.get(0).is_some_and(Value::is_array) => {
                let members = value
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|member| match member.as_array().map(Vec::as_slice) {
                        Some([Value::String(name), Value::String(error_type), Value::String(message)]) => {
                            Ok((name.clone(), error_type.clone(), message.clone()))
                        }
                        _ => Err(anyhow!("{at}: null members are [member, type, message]")),
                    })
                    .collect::<Result<_>>()?;
                note.null = Some(NullNote::Members(members));
            }
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
             use super::{shape, smart, AliasType, Check, JsonKind, Null, Segment, Walker};\n\
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
                    // In a smart union `str | list[...]` (`list_member`: pydantic-core's name of
                    // the list member), a failed item fails the `str` member too.
                    let items = match self
                        .def_schema(&def.name)?
                        .pointer("/x-msgflow-union/list_member")
                        .and_then(Value::as_str)
                    {
                        Some(member) => format!("w.smart_items({}, items);", lit(member)),
                        None => "w.items(items);".to_owned(),
                    };
                    let _ = writeln!(
                        out,
                        "impl Check for {} {{\nfn check<'a>(&'a self, w: &mut Walker<'a>) {{\n\
                         if let Self::Items(items) = self {{\n{items}\n}}\n}}\n}}\n",
                        def.name
                    );
                }
                // An alias is checked as the type it names.
                DefKind::Alias(_) => {}
            }
        }
        self.emit_shapes(&mut out)?;
        Ok(out)
    }

    /// A smart union (`x-msgflow-union.untagged`, `verdict/smart.rs`): every item is checked as
    /// pydantic-core checks a smart union's members.
    fn emit_smart_union(&self, out: &mut String, def: &Def, u: &UnionDef) -> Result<()> {
        let name = &def.name;
        if !u.routes.is_empty() || !matches!(u.unknown, UnknownPolicy::Keep) || !u.plain_string {
            bail!("{name}: a smart union is a plain string or tagged objects kept when unknown, without routes");
        }
        let tagged = self
            .def_schema(name)?
            .pointer("/x-msgflow-union/tagged_member")
            .and_then(Value::as_str)
            .ok_or_else(|| anyhow!("{name}: a smart union names its discriminated member (`tagged_member`)"))?;
        let constant = format!("SMART_{}", super::snake(name).to_uppercase());
        let _ = writeln!(
            out,
            "impl Check for {name} {{\nfn check<'a>(&'a self, w: &mut Walker<'a>) {{\nmatch self {{\nSelf::Text(_) => {{}}"
        );
        let mut tagged_tags = Vec::new();
        for (value, target) in &u.variants {
            let variant = variant_name(value);
            if u.untagged.contains(target) {
                let _ = writeln!(
                    out,
                    "Self::{variant}(v) => w.smart_member(&{constant}, {}, v),",
                    lit(target)
                );
            } else {
                tagged_tags.push(format!("'{value}'"));
                let _ = writeln!(
                    out,
                    "Self::{variant}(v) => w.smart_tagged(&{constant}, {}, v),",
                    lit(value)
                );
            }
        }
        let _ = writeln!(
            out,
            "Self::Unknown(v) => w.smart_unknown(&{constant}, v),\n}}\n}}\n}}\n"
        );
        let members: Vec<String> = u
            .untagged
            .iter()
            .map(|member| {
                format!(
                    "smart::Member {{ name: {}, errors: untagged_{} }}",
                    lit(member),
                    super::snake(member)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "/// pydantic's smart union `{name}`.\nconst {constant}: smart::Union = smart::Union {{ tag_key: {}, members: &[{}], tagged: {}, tagged_tags: {} }};\n",
            lit(&u.tag),
            members.join(", "),
            lit(tagged),
            lit(&tagged_tags.join(", "))
        );
        for member in &u.untagged {
            self.emit_untagged_member(out, u, member)
                .with_context(|| format!("the untagged member {member} of {name}"))?;
        }
        Ok(())
    }

    /// The errors of an object without `u`'s tag validated as its member `member`: the class's
    /// tag literal, required keys and pydantic's error for a field of the wrong JSON type.
    fn emit_untagged_member(&self, out: &mut String, u: &UnionDef, member: &str) -> Result<()> {
        let tag = u
            .variants
            .iter()
            .find(|(_, target)| target == member)
            .map(|(value, _)| value)
            .ok_or_else(|| anyhow!("not a variant"))?;
        let s = self.struct_def(member)?;
        let mut required = Vec::new();
        let mut type_errors = Vec::new();
        for prop in &s.props {
            let PropKind::Value {
                ty,
                required: is_required,
                ..
            } = &prop.kind
            else {
                continue;
            };
            if *is_required {
                // A value of the type that its reader takes, for the missing key.
                let placeholder = match ty {
                    Ty::String => "\"\"",
                    Ty::RawJson => "null",
                    Ty::I64 | Ty::F64 => "0",
                    Ty::Bool => "false",
                    Ty::Vec(_) => "[]",
                    _ => bail!("{member}.{}: no placeholder for a required {ty:?}", prop.key),
                };
                required.push(format!("({}, {})", lit(&prop.key), lit(placeholder)));
            }
            if let Some((error_type, message)) = self.type_error(ty)? {
                type_errors.push(format!("({}, {}, {})", lit(&prop.key), lit(error_type), lit(&message)));
            }
        }
        let _ = writeln!(
            out,
            "/// `{member}` as a member of pydantic's smart union: its errors for an object (it defaults `{tag_key}`).\n\
             fn untagged_{snake}(object: &UnknownObject) -> Vec<super::Reason> {{\n\
             smart::member_errors::<{member}>(object, &smart::Class {{ tag_key: {tag_lit}, tag: {value}, \
             required: &[{required}], type_errors: &[{type_errors}] }})\n}}\n",
            tag_key = u.tag,
            snake = super::snake(member),
            tag_lit = lit(&u.tag),
            value = lit(tag),
            required = required.join(", "),
            type_errors = type_errors.join(", "),
        );
        Ok(())
    }

    /// How pydantic answers `null` for a value of this type, as a `Null` expression.
    fn null_refusal(&self, ty: &Ty) -> Result<String> {
        Ok(match self.type_error(ty)? {
            Some((error_type, message)) => format!("Null::Refused({}, {})", lit(error_type), lit(&message)),
            None => "Null::Allowed".into(),
        })
    }

    /// pydantic's error for a JSON value of the wrong type (`null` among them) where this type is
    /// wanted; `None` for an opaque value, which takes any.
    fn type_error(&self, ty: &Ty) -> Result<Option<(&'static str, String)>> {
        let (error_type, message) = match ty {
            Ty::String => ("string_type", "Input should be a valid string".to_owned()),
            Ty::I64 => ("int_type", "Input should be a valid integer".to_owned()),
            Ty::F64 => ("float_type", "Input should be a valid number".to_owned()),
            Ty::Bool => ("bool_type", "Input should be a valid boolean".to_owned()),
            Ty::Timestamp => ("datetime_type", "Input should be a valid datetime".to_owned()),
            Ty::Vec(_) => ("list_type", "Input should be a valid list".to_owned()),
            Ty::RawJson => return Ok(None),
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
                Some(DefKind::Alias(inner)) => return self.type_error(inner),
                None => bail!("`null` for the runtime type {name} needs x-msgflow-verdict.null"),
            },
        };
        Ok(Some((error_type, message)))
    }

    /// The closure checking a present value of a property (`|w, v| ...`).
    fn value_check(&self, prop_schema: &Value, ty: &Ty, pnote: &PropNote) -> String {
        if let Some(function) = &pnote.check {
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
        } else if *ty == Ty::RawJson && super::is_object_schema(prop_schema) {
            "|w, v| { w.dict(v); v.check(w) }".to_owned()
        } else if matches!(ty, Ty::String | Ty::Bool | Ty::F64) {
            ACCEPTED.to_owned()
        } else {
            "|w, v| v.check(w)".to_owned()
        }
    }

    /// How pydantic answers an explicit `null` for a property that may be absent.
    fn null_expr(&self, pnote: &PropNote, nullable: bool, ty: &Ty, at: &str) -> Result<String> {
        Ok(match (&pnote.null, nullable) {
            (Some(NullNote::Refused(error_type, message)), _) => {
                format!("Null::Refused({}, {})", lit(error_type), lit(message))
            }
            (Some(NullNote::Members(members)), _) => {
                let members: Vec<String> = members
                    .iter()
                    .map(|(member, error_type, message)| {
                        format!("({}, {}, {})", lit(member), lit(error_type), lit(message))
                    })
                    .collect();
                format!("Null::Members(&[{}])", members.join(", "))
            }
            (Some(NullNote::Allowed), _) | (None, true) => "Null::Allowed".to_owned(),
            (None, false) => self.null_refusal(ty).with_context(|| at.to_owned())?,
        })
    }

    /// The walker call for one field of `owner` (`self`, or the base struct of a typed part):
    /// `w.value` for a required field, `w.nullable` for a required nullable one, `w.field` with
    /// the answer to `null` otherwise.
    fn field_line(&self, owner: &str, key: &str, required: bool, nullable: bool, null: &str, check: &str) -> String {
        let field = rust_field_name(key);
        let key = lit(key);
        // Every value of the type is accepted (`accepted!` in verdict.rs): nothing to step into
        // but an explicit `null` where one is refused.
        if check == ACCEPTED {
            return match (required, null) {
                (true, _) | (false, "Null::Allowed") => String::new(),
                (false, _) => format!("w.null_only({key}, &{owner}.{field}, {null});\n"),
            };
        }
        match (required, nullable) {
            (true, false) => format!("w.value({key}, &{owner}.{field}, {check});\n"),
            (true, true) => format!("w.nullable({key}, &{owner}.{field}, {check});\n"),
            (false, _) => format!("w.field({key}, &{owner}.{field}, {null}, {check});\n"),
        }
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
            if prop.absent_kept {
                // Missing where no typed class defaults it (`x-msgflow-absent`).
                let _ = writeln!(
                    out,
                    "if self.{} {{\nw.report_at(Segment::Key({}), \"missing\", \"Field required\");\n}}",
                    super::absent_flag(&prop.key),
                    lit(&prop.key)
                );
            }
            let at = format!("{name}.{}", prop.key);
            let prop_schema = def_schema
                .get("properties")
                .and_then(|p| p.get(&prop.key))
                .ok_or_else(|| anyhow!("{at}: not in the schema"))?;
            // Nullability as the schema states it (typify makes every optional property an
            // `Option`, which says nothing about `null`).
            let nullable = super::schema_type(prop_schema).with_context(|| at.clone())?.1;
            let pnote = prop_note(prop_schema, &at)?;
            let check = self.value_check(prop_schema, ty, &pnote);
            let null = self.null_expr(&pnote, nullable, ty, &at)?;
            // pydantic's `AliasChoices(name, alias)`: the alias is read only when the name is
            // absent, so a value under it next to the name is never validated.
            let line = self.field_line("self", &prop.key, *required, nullable, &null, &check);
            // Next to the name, the alias is still read by the JSON parser: its JSON-level limits
            // hold (a value too deep, an integer of too many digits; a typed string cannot
            // break them).
            match prop_schema.get("x-msgflow-alias-of").and_then(Value::as_str) {
                Some(target) => {
                    // A value of another type was kept as an unknown key on reading
                    // (`rt::next_alias_value`): read here, it is refused as pydantic reads it.
                    let kept = match ty {
                        Ty::String => Some("AliasType::String"),
                        Ty::I64 => Some("AliasType::Int"),
                        Ty::Vec(inner) if **inner == Ty::String => Some("AliasType::StringList"),
                        _ => None,
                    };
                    let line = match kept {
                        Some(alias_type) => {
                            format!("{line}w.kept_alias({}, &self.extra, {alias_type});\n", lit(&prop.key))
                        }
                        None => line,
                    };
                    let unread = match ty {
                        Ty::RawJson | Ty::I64 => format!(
                            " else {{\nw.unread({}, &self.{});\n}}",
                            lit(&prop.key),
                            rust_field_name(&prop.key)
                        ),
                        _ => String::new(),
                    };
                    if !line.is_empty() {
                        let _ = write!(
                            out,
                            "if self.{}.is_absent() {{\n{line}}}{unread}\n",
                            rust_field_name(target)
                        );
                    }
                }
                None => out.push_str(&line),
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
        if !u.untagged.is_empty() {
            return self.emit_smart_union(out, def, u);
        }
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
            let base = if note.computed_loc_tag {
                "w.tagged(v.loc_tag(), v)".to_owned()
            } else {
                format!("w.tagged({}, v)", lit(value))
            };
            let routes: Vec<&Route> = u.routes.iter().filter(|r| r.part_kind == *value).collect();
            if routes.is_empty() {
                let _ = writeln!(out, "Self::{variant}(v) => {base},");
                continue;
            }
            // pydantic-ai's callable discriminator (`_model_request_part_discriminator`,
            // `_model_response_part_discriminator`): a string `tool_kind` with a registered typed
            // class selects that class's tag, unless `outcome` is there and not `success`.
            let base_struct = self.struct_def(target)?;
            let success = if base_struct.props.iter().any(|p| p.key == "outcome") {
                "shape::is_success(&v.outcome)"
            } else {
                "shape::is_success_in(&v.extra)"
            };
            let _ = writeln!(
                out,
                "Self::{variant}(v) => match v.tool_kind.get().map(String::as_str) {{"
            );
            for route in routes {
                let guard = if route.outcome_success_only {
                    format!(" if {success}")
                } else {
                    String::new()
                };
                let _ = writeln!(
                    out,
                    "Some({}){guard} => w.at(Segment::Tag({}), |w| {}(v, w, &{})),",
                    lit(&route.tool_kind),
                    lit(&route.tag),
                    routed_fn(target),
                    typed_const(&route.class)
                );
            }
            let _ = writeln!(out, "_ => {base},\n}},");
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
        if let Some(route) = u
            .routes
            .iter()
            .find(|r| !u.variants.iter().any(|(value, _)| *value == r.part_kind))
        {
            bail!("{name}: a route on the unknown tag `{}`", route.part_kind);
        }
        for (value, target) in &u.variants {
            let routes: Vec<&Route> = u.routes.iter().filter(|r| r.part_kind == *value).collect();
            if !routes.is_empty() {
                self.emit_routed(out, &u.tag, target, &routes)
                    .with_context(|| format!("the routes of {name} from {target}"))?;
            }
        }
        Ok(())
    }

    fn struct_def(&self, name: &str) -> Result<&StructDef> {
        match self.model.def(name).map(|d| &d.kind) {
            Some(DefKind::Struct(s)) => Ok(s),
            _ => bail!("{name} is not a struct"),
        }
    }
}

/// The check of a value of a type whose every value pydantic accepts (`String`, `bool`, `Float`:
/// their `Check` does nothing), which `field_line` leaves out.
const ACCEPTED: &str = "|w, v| v.check(w) /* accepted */";

/// `ToolCallPart` -> `routed_tool_call_part`.
fn routed_fn(base: &str) -> String {
    format!("routed_{}", super::snake(base))
}

/// `ToolSearchCallPart` -> `TOOL_SEARCH_CALL_PART`.
fn typed_const(class: &str) -> String {
    super::snake(class).to_ascii_uppercase()
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
