//! `msgflow schema`: print one of msgflow's JSON Schemas.

use clap::{Args, ValueEnum};

use crate::args::ReportOutputArgs;
use crate::outcome::{usage_error, Status};

/// Which schema `msgflow schema` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum SchemaKind {
    /// pydantic-ai's message history wire format (schema/pydantic-ai-messages.schema.json).
    #[default]
    Wire,
    /// msgflow's canonical message form.
    Canonical,
    /// The tool-call registry export (`msgflow tools`).
    Registry,
}

/// `msgflow schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The schema to print.
    #[arg(value_enum, default_value_t = SchemaKind::Wire)]
    pub kind: SchemaKind,
    #[command(flatten)]
    pub output: ReportOutputArgs,
}

/// The examples and notes after `msgflow schema --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow schema > pydantic-ai-messages.schema.json\n",
    "  msgflow schema registry -o registry.schema.json\n\n",
    exit_codes_text!()
);

/// The committed wire-format schema, embedded so the binary needs no repository checkout.
const WIRE_SCHEMA: &str = include_str!("../../../../schema/pydantic-ai-messages.schema.json");

/// Prints the requested schema to stdout or `-o FILE`.
pub fn run(args: &SchemaArgs) -> Status {
    let text = match schema_text(args.kind) {
        Ok(text) => text,
        Err(message) => return usage_error(&message, None),
    };
    let target = args
        .output
        .output
        .as_deref()
        .filter(|path| *path != std::path::Path::new("-"));
    let written = match target {
        Some(path) => crate::files::write_atomically(path, text.as_bytes(), None)
            .map_err(|err| crate::outcome::Failure::unwritable(path, &err).render("schema")),
        None => crate::files::write_stdout(text.as_bytes()).map_err(|err| format!("msgflow: error: {err}\n")),
    };
    match written {
        Ok(()) => Status::Ok,
        Err(message) => {
            eprint!("{message}");
            Status::Invalid
        }
    }
}

/// The schema as pretty-printed JSON with a trailing newline.
fn schema_text(kind: SchemaKind) -> Result<String, String> {
    let value = match kind {
        SchemaKind::Wire => {
            let mut text = WIRE_SCHEMA.to_owned();
            if !text.ends_with('\n') {
                text.push('\n');
            }
            return Ok(text);
        }
        SchemaKind::Registry => msgflow_registry::registry_schema(),
        SchemaKind::Canonical => msgflow_canonical::canonical_schema(),
    };
    serde_json::to_string_pretty(&value)
        .map(|text| text + "\n")
        .map_err(|err| err.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_and_registry_schemas_are_json_objects() -> Result<(), String> {
        for kind in [SchemaKind::Wire, SchemaKind::Registry, SchemaKind::Canonical] {
            let text = schema_text(kind)?;
            let value: serde_json::Value = serde_json::from_str(&text).map_err(|err| err.to_string())?;
            assert!(value.is_object(), "{kind:?}");
        }
        Ok(())
    }
}
