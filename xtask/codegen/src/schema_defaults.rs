//! The tables of `crates/wire/src/generated.rs` that the hand-written code judging whether a
//! difference changes what pydantic-ai loads (the loss report of `msgflow-formats`) reads:
//! `schema_default` (the default the schema gives each key of a tagged object, where pydantic-ai
//! fills it in for the key left out), `holds_data` (the keys whose values pydantic-ai keeps as
//! written: `dict[str, Any]`, `Any`), `legacy_alias_of`, `written_only_when_given` and
//! `lax_scalar` (the fields it reads in lax mode as `int`, `float` or `bool`).

use std::fmt::Write as _;

use anyhow::{bail, Result};

use super::{lit, Def, DefKind, PropKind, StructDef, Ty};

/// The structs of `defs`, each with its tag (the value of its constant discriminator), if any.
fn tagged_structs(defs: &[Def]) -> impl Iterator<Item = (Option<&String>, &StructDef)> {
    defs.iter().filter_map(|def| match &def.kind {
        DefKind::Struct(s) => Some((
            s.props.iter().find_map(|p| match &p.kind {
                PropKind::Const(value) => Some(value),
                PropKind::Value { .. } => None,
            }),
            s,
        )),
        _ => None,
    })
}

/// `schema_default`: the default the schema gives each key of a tagged object, where that
/// default is a value pydantic-ai fills in (not `null`, and not one computed at load time).
pub(super) fn emit(defs: &[Def], out: &mut String) -> Result<()> {
    let mut arms: Vec<(String, String, String)> = Vec::new();
    for (tag, s) in tagged_structs(defs) {
        let Some(tag) = tag else { continue };
        for prop in &s.props {
            let PropKind::Value {
                default: Some(default),
                omit_by_default: false,
                required: false,
                ..
            } = &prop.kind
            else {
                continue;
            };
            if default.is_null() {
                continue;
            }
            let text = default.to_string();
            match arms.iter().find(|(t, k, _)| t == tag && *k == prop.key) {
                Some((_, _, other)) if *other != text => {
                    bail!("`{}` of `{tag}` objects has two defaults: {other} and {text}", prop.key)
                }
                Some(_) => {}
                None => arms.push((tag.clone(), prop.key.clone(), text)),
            }
        }
    }
    out.push_str(
        "/// The JSON text of the default the schema gives `key` of an object whose tag (its `part_kind`,\n\
         /// `kind`, ...) is `tag`, where that default is a value pydantic-ai fills in for the key left out\n\
         /// (not `null`).\n\
         ///\n\
         /// ```\n\
         /// assert_eq!(msgflow_wire::schema_default(\"tool-return\", \"outcome\"), Some(r#\"\"success\"\"#));\n\
         /// assert_eq!(msgflow_wire::schema_default(\"tool-return\", \"tool_name\"), None);\n\
         /// ```\n\
         pub fn schema_default(tag: &str, key: &str) -> Option<&'static str> {\nmatch (tag, key) {\n",
    );
    for (tag, key, text) in &arms {
        let _ = writeln!(out, "({}, {}) => Some({}),", lit(tag), lit(key), lit(text));
    }
    out.push_str("_ => None,\n}\n}\n");
    Ok(())
}

/// `holds_data`: the keys whose values the schema types as any JSON (kept as `RawJson`), by the
/// tag of the object holding them (`None` for the objects without one, such as a usage).
pub(super) fn emit_data_keys(defs: &[Def], out: &mut String) {
    let mut arms: Vec<(Option<String>, String)> = Vec::new();
    for (tag, s) in tagged_structs(defs) {
        let tag = tag.cloned();
        for prop in &s.props {
            if matches!(&prop.kind, PropKind::Value { ty: Ty::RawJson, .. })
                && !arms.iter().any(|(t, k)| *t == tag && *k == prop.key)
            {
                arms.push((tag.clone(), prop.key.clone()));
            }
        }
    }
    out.push_str(
        "/// Whether the value of `key` in an object whose tag (its `part_kind`, `kind`, ...) is `tag`\n\
         /// (`None` for an object without one, such as a usage) is data pydantic-ai keeps as written\n\
         /// (`dict[str, Any]`, `Any`): within it, every key and value is the data's own, none a default.\n\
         ///\n\
         /// ```\n\
         /// assert!(msgflow_wire::holds_data(Some(\"tool-call\"), \"args\"));\n\
         /// assert!(!msgflow_wire::holds_data(Some(\"text\"), \"content\"));\n\
         /// ```\n\
         pub fn holds_data(tag: Option<&str>, key: &str) -> bool {\nmatches!((tag, key),\n",
    );
    let arms: Vec<String> = arms
        .iter()
        .map(|(tag, key)| match tag {
            Some(tag) => format!("(Some({}), {})", lit(tag), lit(key)),
            None => format!("(None, {})", lit(key)),
        })
        .collect();
    out.push_str(&arms.join("\n| "));
    out.push_str(")\n}\n");
}

/// `legacy_alias_of`: the field each legacy input name is read as (`x-msgflow-alias-of`), by the
/// tag of the object holding it (`None` for the objects without one, such as a usage).
pub(super) fn emit_legacy_aliases(defs: &[Def], out: &mut String) {
    let mut arms: Vec<String> = Vec::new();
    for (tag, s) in tagged_structs(defs) {
        let tag = tag.map(|tag| format!("Some({})", lit(tag)));
        for prop in &s.props {
            if let Some(field) = &prop.alias_of {
                let arm = format!(
                    "({}, {}) => Some({}),",
                    tag.as_deref().unwrap_or("None"),
                    lit(&prop.key),
                    lit(field)
                );
                if !arms.contains(&arm) {
                    arms.push(arm);
                }
            }
        }
    }
    out.push_str(
        "/// The field pydantic-ai reads the legacy input key `key` as (`AliasChoices(field, key)`), in an\n\
         /// object whose tag is `tag` (`None` for an object without one, such as a usage); the field\n\
         /// wins where both are given.\n\
         ///\n\
         /// ```\n\
         /// assert_eq!(msgflow_wire::legacy_alias_of(Some(\"response\"), \"vendor_id\"), Some(\"provider_response_id\"));\n\
         /// assert_eq!(msgflow_wire::legacy_alias_of(Some(\"response\"), \"model_name\"), None);\n\
         /// ```\n\
         pub fn legacy_alias_of(tag: Option<&str>, key: &str) -> Option<&'static str> {\nmatch (tag, key) {\n",
    );
    for arm in &arms {
        out.push_str(arm);
        out.push('\n');
    }
    out.push_str("_ => None,\n}\n}\n");
}

/// `written_only_when_given`: the keys pydantic-ai writes only when they were given
/// (`x-msgflow-conditional`: a total=False TypedDict's, ...), by the tag of the object holding them
/// (`None` for the objects without one).
pub(super) fn emit_conditional_keys(defs: &[Def], out: &mut String) -> Result<()> {
    let mut arms: Vec<(Option<String>, String, bool)> = Vec::new();
    for (tag, s) in tagged_structs(defs) {
        let tag = tag.cloned();
        for prop in &s.props {
            let PropKind::Value { omit_by_default, .. } = &prop.kind else {
                continue;
            };
            // A legacy name is read as its field, never written: not a key of the output.
            let conditional = *omit_by_default && prop.alias_of.is_none();
            match arms.iter().find(|(t, k, _)| *t == tag && *k == prop.key) {
                Some((_, _, other)) if *other != conditional => bail!(
                    "`{}` of objects tagged {tag:?} is written only when given in one and always in another",
                    prop.key
                ),
                Some(_) => {}
                None => arms.push((tag.clone(), prop.key.clone(), conditional)),
            }
        }
    }
    out.push_str(
        "/// Whether pydantic-ai writes `key` of an object whose tag is `tag` (`None` for an object\n\
         /// without one) only when it was given (a total=False TypedDict's key, a tool return's\n\
         /// `content_file_digests`): left out, it stays out, so it is not its `null`.\n\
         ///\n\
         /// ```\n\
         /// assert!(msgflow_wire::written_only_when_given(None, \"thinking\"));\n\
         /// assert!(!msgflow_wire::written_only_when_given(Some(\"tool-call\"), \"args\"));\n\
         /// ```\n\
         pub fn written_only_when_given(tag: Option<&str>, key: &str) -> bool {\nmatches!((tag, key),\n",
    );
    let arms: Vec<String> = arms
        .iter()
        .filter(|(_, _, conditional)| *conditional)
        .map(|(tag, key, _)| match tag {
            Some(tag) => format!("(Some({}), {})", lit(tag), lit(key)),
            None => format!("(None, {})", lit(key)),
        })
        .collect();
    out.push_str(&arms.join("\n| "));
    out.push_str(")\n}\n");
    Ok(())
}

/// `lax_scalar`: the scalar fields pydantic-ai reads in lax mode (`int`, `float`, `bool`), by the
/// tag of the object holding them (`None` for the objects without one, such as a usage). A key two
/// objects of one tag type differently is left out.
pub(super) fn emit_lax_scalars(defs: &[Def], out: &mut String) {
    let mut arms: Vec<(Option<String>, String, Option<&str>)> = Vec::new();
    for (tag, s) in tagged_structs(defs) {
        let tag = tag.cloned();
        for prop in &s.props {
            let PropKind::Value { ty, .. } = &prop.kind else {
                continue;
            };
            let kind = match ty {
                Ty::I64 => Some("Int"),
                Ty::F64 => Some("Float"),
                Ty::Bool => Some("Bool"),
                Ty::Named(name) if name == "LaxBool" => Some("Bool"),
                _ => None,
            };
            match arms.iter_mut().find(|(t, k, _)| *t == tag && *k == prop.key) {
                Some((_, _, other)) if *other != kind => *other = None,
                Some(_) => {}
                None => arms.push((tag.clone(), prop.key.clone(), kind)),
            }
        }
    }
    out.push_str(
        "/// The kind of scalar pydantic-ai reads `key` of an object whose tag is `tag` as (`None` for an\n\
         /// object without one, such as a usage), in lax mode: [`LaxScalar::reads_alike`] tells which\n\
         /// spellings it reads as one value.\n\
         ///\n\
         /// ```\n\
         /// use msgflow_wire::LaxScalar;\n\
         /// assert_eq!(msgflow_wire::lax_scalar(Some(\"model-settings-delta\"), \"top_level\"), Some(LaxScalar::Bool));\n\
         /// assert_eq!(msgflow_wire::lax_scalar(None, \"input_tokens\"), Some(LaxScalar::Int));\n\
         /// assert_eq!(msgflow_wire::lax_scalar(Some(\"text\"), \"content\"), None);\n\
         /// ```\n\
         pub fn lax_scalar(tag: Option<&str>, key: &str) -> Option<LaxScalar> {\nmatch (tag, key) {\n",
    );
    for (tag, key, kind) in &arms {
        let Some(kind) = kind else { continue };
        let tag = tag
            .as_ref()
            .map_or_else(|| "None".to_owned(), |tag| format!("Some({})", lit(tag)));
        let _ = writeln!(out, "({tag}, {}) => Some(LaxScalar::{kind}),", lit(key));
    }
    out.push_str("_ => None,\n}\n}\n");
}
