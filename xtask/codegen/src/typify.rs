//! typify's reading of the schema: the resolved Rust type of every property of every struct,
//! which the emitter checks its own reading against.

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{Map, Value};

use super::Ty;

/// typify's view of the schema: the resolved type of every property of every struct.
pub(super) struct TypifyTypes {
    /// struct name -> property name -> (type, nullable)
    pub(super) props: BTreeMap<String, BTreeMap<String, (Ty, bool)>>,
}

impl TypifyTypes {
    pub(super) fn build(schema: &Value, def_names: &BTreeSet<String>) -> Result<Self> {
        // typify names a root type only when it has a title; the schema's $defs are what we need.
        let root: schemars08::schema::RootSchema = serde_json::from_value(normalize_for_typify(schema))
            .context("the schema is not readable by schemars 0.8")?;
        let mut settings = typify_impl::TypeSpaceSettings::default();
        settings.with_map_type("::std::collections::BTreeMap".to_string());
        let mut space = typify_impl::TypeSpace::new(&settings);
        space
            .add_root_schema(root)
            .map_err(|err| anyhow!("typify rejected the schema: {err}"))?;

        let mut props = BTreeMap::new();
        for ty in space.iter_types() {
            let name = ty.name();
            if !def_names.contains(&name) {
                continue;
            }
            if let typify_impl::TypeDetails::Struct(details) = ty.details() {
                let mut fields = BTreeMap::new();
                for info in details.properties_info() {
                    if let Ok(resolved) = resolve(&space, &info.type_id, def_names) {
                        fields.insert(info.name.to_owned(), resolved);
                    }
                }
                props.insert(name, fields);
            }
        }
        Ok(TypifyTypes { props })
    }
}

/// The schema as typify should see it: defaults are dropped (msgflow reads them itself, and
/// typify checks them against schemas it only partly understands), the typed-part routes are
/// not unions typify could tag, and a `const` discriminator becomes a one-value enum so that
/// typify does not reuse one type for differently tagged structs.
fn normalize_for_typify(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out = Map::new();
            for (key, value) in map {
                if key == "default" || key == "deprecated" {
                    continue;
                }
                if key == "const" {
                    out.insert("type".into(), Value::String("string".into()));
                    out.insert("enum".into(), Value::Array(vec![value.clone()]));
                    continue;
                }
                out.insert(key.clone(), normalize_for_typify(value));
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(normalize_for_typify).collect()),
        other => other.clone(),
    }
}

/// Maps a typify type to a wire field type (and whether it is nullable).
fn resolve(space: &typify_impl::TypeSpace, id: &typify_impl::TypeId, defs: &BTreeSet<String>) -> Result<(Ty, bool)> {
    use typify_impl::TypeDetails as D;
    let ty = space.get_type(id).map_err(|err| anyhow!("{err}"))?;
    let name = ty.name();
    let details = ty.details();
    let resolved = match details {
        D::Option(inner) => (resolve(space, &inner, defs)?.0, true),
        D::Box(inner) => resolve(space, &inner, defs)?,
        D::Vec(inner) => (Ty::Vec(Box::new(resolve(space, &inner, defs)?.0)), false),
        D::String => (Ty::String, false),
        D::Map(..) | D::Unit => (Ty::RawJson, false),
        D::Builtin(builtin) => (
            match builtin {
                "bool" => Ty::Bool,
                "f64" | "f32" => Ty::F64,
                "i64" | "u64" | "i32" | "u32" | "i16" | "u16" | "i8" | "u8" | "std::num::NonZeroU64" => Ty::I64,
                "chrono::DateTime<chrono::offset::Utc>" | "::chrono::DateTime<::chrono::offset::Utc>" => Ty::Timestamp,
                "serde_json::Value" | "::serde_json::Value" => Ty::RawJson,
                other => bail!("unsupported builtin type {other}"),
            },
            false,
        ),
        D::Struct(_) | D::Enum(_) | D::Newtype(_) if defs.contains(&name) => (Ty::Named(name), false),
        // Inline objects and constrained strings typify invents names for.
        D::Newtype(newtype) => resolve(space, &newtype.inner(), defs)?,
        D::Struct(_) | D::Enum(_) => (Ty::RawJson, false),
        D::Set(_) | D::Tuple(_) | D::Array(..) => (Ty::RawJson, false),
    };
    Ok(resolved)
}
