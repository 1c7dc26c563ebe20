//! `schema_default` of `crates/wire/src/generated.rs`: the default the schema gives each key of a
//! tagged object where that default is a value pydantic-ai fills in for the key left out, for the
//! hand-written code that judges whether a key left out changes what pydantic-ai loads (the loss
//! report of `msgflow-formats`).

use std::fmt::Write as _;

use anyhow::{bail, Result};

use super::{lit, Def, DefKind, PropKind};

/// `schema_default`: the default the schema gives each key of a tagged object, where that
/// default is a value pydantic-ai fills in (not `null`, and not one computed at load time).
pub(super) fn emit(defs: &[Def], out: &mut String) -> Result<()> {
    let mut arms: Vec<(String, String, String)> = Vec::new();
    for def in defs {
        let DefKind::Struct(s) = &def.kind else { continue };
        let Some(tag) = s.props.iter().find_map(|p| match &p.kind {
            PropKind::Const(value) => Some(value),
            PropKind::Value { .. } => None,
        }) else {
            continue;
        };
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
