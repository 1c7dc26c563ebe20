//! The string enums of the schema that no wire type holds (pydantic-ai's narrowed `RetryInfo`
//! causes, `ToolRetryCause` and `RetryFeedbackCause`): their literals, as constants of
//! `crates/wire/src/generated.rs`, for the hand-written rules that narrow a wider wire type
//! (the verdict, the UI loaders, the strategies).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::{lit, snake};

/// One such enum: its name and its literals, in schema order.
pub(super) struct LiteralSet {
    name: String,
    literals: Vec<String>,
}

/// The string enums among the schema's `$defs` that are not in `held` (the wire types).
pub(super) fn read(defs: &Map<String, Value>, held: &BTreeSet<String>) -> Vec<LiteralSet> {
    defs.iter()
        .filter(|(name, _)| !held.contains(*name))
        .filter_map(|(name, def)| {
            let values = def.get("enum")?.as_array()?;
            Some(LiteralSet {
                name: name.clone(),
                literals: values.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            })
        })
        .collect()
}

/// `pub const <NAME>_LITERALS: &[&str]` for each set.
pub(super) fn emit(sets: &[LiteralSet], out: &mut String) {
    for set in sets {
        let literals: Vec<String> = set.literals.iter().map(|literal| lit(literal)).collect();
        let _ = writeln!(
            out,
            "/// The literals of the schema's `{}` (a string enum no wire type holds), in schema order.\n\
             pub const {}_LITERALS: &[&str] = &[{}];\n",
            set.name,
            snake(&set.name).to_ascii_uppercase(),
            literals.join(", ")
        );
    }
}
