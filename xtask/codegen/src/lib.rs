//! `cargo xtask codegen`: the wire types of `msgflow-wire`, generated from the JSON Schema.
//!
//! The path is schema -> typify -> this emitter -> rustfmt -> `crates/wire/src/generated.rs`.
//!
//! * typify 0.8.0 reads the schema and resolves the type of every property (strings, numbers,
//!   datetimes, arrays, nullable references, maps). Its own Rust output is not used: it sorts
//!   fields alphabetically, drops unknown keys and explicit `null`s, normalises datetimes and
//!   turns pydantic's unions into untagged enums, all of which break byte identity.
//! * This emitter writes the structs with fields in the schema's (pydantic-ai's emission)
//!   order, three-state optional fields, an `extra` map for unknown keys, the tagged unions
//!   with one-pass dispatch on their discriminator, and string enums that keep unknown values.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{Map, Value};

/// The workspace root (two levels above this crate).
pub fn project_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.ancestors().nth(2).map(PathBuf::from).unwrap_or(manifest)
}

const SCHEMA: &str = "schema/pydantic-ai-messages.schema.json";
const OUTPUT: &str = "crates/wire/src/generated.rs";

pub mod oracle_tables;
mod strategies;
mod verdict;

/// Runs the generator; with `check`, fails instead of writing when a file is stale.
pub fn run(check: bool) -> Result<()> {
    let root = project_root();
    write_or_check(&root, OUTPUT, &generate(&root.join(SCHEMA))?, SCHEMA, check)?;
    write_or_check(
        &root,
        strategies::OUTPUT,
        &strategies::generate(&root.join(SCHEMA))?,
        SCHEMA,
        check,
    )?;
    write_or_check(
        &root,
        verdict::OUTPUT,
        &verdict::generate(&root.join(SCHEMA))?,
        SCHEMA,
        check,
    )?;
    oracle_tables::run(&root, check)
}

/// `true` when a property's schema is a JSON object, or a union (`anyOf`/`oneOf`, at any depth)
/// one of whose members is: the one answer the verdict rules and the strategies read.
fn is_object_schema(schema: &Value) -> bool {
    schema.get("type").and_then(Value::as_str) == Some("object")
        || schema
            .get("anyOf")
            .or_else(|| schema.get("oneOf"))
            .and_then(Value::as_array)
            .is_some_and(|options| options.iter().any(is_object_schema))
}

/// Writes `generated` to `relative` (under `root`); with `check`, fails with a diff instead when it differs
/// (naming `source`, the file it is generated from).
fn write_or_check(root: &Path, relative: &str, generated: &str, source: &str, check: bool) -> Result<()> {
    let output = root.join(relative);
    let current = std::fs::read_to_string(&output)
        .unwrap_or_default()
        .replace("\r\n", "\n");
    if current == generated {
        eprintln!("{relative} is up to date");
        return Ok(());
    }
    if check {
        let diff = similar::TextDiff::from_lines(current.as_str(), generated);
        let shown: String = diff
            .unified_diff()
            .context_radius(2)
            .header("checked in", "generated")
            .to_string();
        let shown: String = shown.lines().take(60).collect::<Vec<_>>().join("\n");
        bail!("{relative} is stale relative to {source}:\n{shown}\nrun `cargo xtask codegen` and commit the result");
    }
    if let Some(parent) = output.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
    }
    std::fs::write(&output, generated).with_context(|| format!("writing {}", output.display()))?;
    eprintln!("wrote {relative}");
    Ok(())
}

/// The formatted Rust source for a schema file.
pub fn generate(schema_path: &Path) -> Result<String> {
    let text = std::fs::read_to_string(schema_path).with_context(|| format!("reading {}", schema_path.display()))?;
    let schema: Value = serde_json::from_str(&text).with_context(|| format!("parsing {}", schema_path.display()))?;
    let model = Model::read(&schema)?;
    let source = model.emit()?;
    rustfmt(&source)
}

// ---------------------------------------------------------------------------------------------
// The model read from the schema.

#[derive(Clone, Debug, PartialEq)]
enum Ty {
    String,
    I64,
    F64,
    Bool,
    Timestamp,
    RawJson,
    /// A generated type (struct, union, enum or alias) or a runtime type of `msgflow-wire`.
    Named(String),
    Vec(Box<Ty>),
}

impl Ty {
    fn rust(&self) -> String {
        match self {
            Ty::String => "String".into(),
            Ty::I64 => "Int".into(),
            Ty::F64 => "Float".into(),
            Ty::Bool => "bool".into(),
            Ty::Timestamp => "Timestamp".into(),
            Ty::RawJson => "RawJson".into(),
            Ty::Named(name) => name.clone(),
            Ty::Vec(inner) => format!("Vec<{}>", inner.rust()),
        }
    }
}

#[derive(Debug)]
enum PropKind {
    /// A discriminator written as a constant at this position.
    Const(String),
    Value {
        ty: Ty,
        required: bool,
        nullable: bool,
        default: Option<Value>,
        omit_by_default: bool,
    },
}

#[derive(Debug)]
struct Prop {
    key: String,
    doc: String,
    kind: PropKind,
    /// `"x-msgflow-absent": "kept"`: the key may be missing on input where pydantic-ai defaults
    /// it (a class's literal tag read where the type is known, a typed class's literal
    /// `tool_name`); a `<field>_absent` flag records that, and the key is written back absent.
    absent_kept: bool,
    /// `x-msgflow-alias-of`: a legacy input alias of that property, which pydantic-ai reads only
    /// when the property is absent (`AliasChoices`).
    alias_of: Option<String>,
}

/// The name of the flag that records a missing `x-msgflow-absent: kept` key.
fn absent_flag(key: &str) -> String {
    format!("{}_absent", rust_field_name(key))
}

#[derive(Debug)]
struct StructDef {
    props: Vec<Prop>,
}

#[derive(Debug)]
enum UnknownPolicy {
    Keep,
    Error,
    Fallback(String),
}

#[derive(Debug)]
struct UnionDef {
    tag: String,
    /// Tag value -> struct name, in schema order.
    variants: Vec<(String, String)>,
    plain_string: bool,
    /// The tags whose variants hold `Box<Struct>` (`"boxed": true` for every one, or a list of
    /// tags): for unions of large structs, so that a `Vec` of them stays small and moving one
    /// moves a pointer, or for the few large members of a union whose others are small.
    boxed: Vec<String>,
    unknown: UnknownPolicy,
    routes: Vec<Route>,
    /// The members of pydantic's smart union that an object without the tag may validate as
    /// (`"untagged"`, in pydantic's order): such an object is read as the `Unknown` variant
    /// (it needs `"unknown": "keep"`) and the verdict tries it as each.
    untagged: Vec<String>,
}

/// A typed route of a union (`x-msgflow-union.routes`): pydantic-ai reads a part with this tag
/// and `tool_kind` as the narrower class `class`.
#[derive(Debug)]
struct Route {
    part_kind: String,
    tool_kind: String,
    class: String,
    /// pydantic-ai's `Tag` of the class in the union: the `loc` step of the routed part.
    tag: String,
    /// The `tool_name` the class requires (its `const`).
    tool_name: String,
    outcome_success_only: bool,
}

#[derive(Debug)]
enum DefKind {
    Struct(StructDef),
    Enum(Vec<String>),
    Union(UnionDef),
    /// `{"oneOf": [string, array of X]}`.
    StringOrList(Ty),
    Alias(Ty),
}

#[derive(Debug)]
struct Def {
    name: String,
    doc: String,
    kind: DefKind,
}

struct Model {
    defs: Vec<Def>,
}

fn doc_of(schema: &Value) -> String {
    let description = schema.get("description").and_then(Value::as_str).unwrap_or_default();
    let deprecated = schema.get("deprecated").and_then(Value::as_bool).unwrap_or(false);
    let mut doc = description.trim().to_owned();
    if deprecated && !doc.contains("eprecated") {
        doc.push_str("\n\nDeprecated: kept as written for lossless round trips.");
    }
    doc
}

fn ref_name(schema: &Value) -> Option<&str> {
    schema
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
}

/// typify's view of the schema: the resolved type of every property of every struct.
struct TypifyTypes {
    /// struct name -> property name -> (type, nullable)
    props: BTreeMap<String, BTreeMap<String, (Ty, bool)>>,
}

impl TypifyTypes {
    fn build(schema: &Value, def_names: &BTreeSet<String>) -> Result<Self> {
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

/// The field type the schema itself states (used to cross-check typify and for overrides).
fn schema_type(schema: &Value) -> Result<(Ty, bool)> {
    if let Some(runtime) = schema.get("x-msgflow-rust-type").and_then(Value::as_str) {
        return Ok((Ty::Named(runtime.to_owned()), false));
    }
    if let Some(name) = ref_name(schema) {
        return Ok((Ty::Named(name.to_owned()), false));
    }
    if let Some(options) = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))
        .and_then(Value::as_array)
    {
        let non_null: Vec<&Value> = options
            .iter()
            .filter(|o| o.get("type").and_then(Value::as_str) != Some("null"))
            .collect();
        let nullable = non_null.len() < options.len();
        if let [only] = non_null.as_slice() {
            let (ty, inner_nullable) = schema_type(only)?;
            return Ok((ty, nullable || inner_nullable));
        }
        return Ok((Ty::RawJson, nullable));
    }
    let (type_name, nullable) = match schema.get("type") {
        Some(Value::String(t)) => (Some(t.as_str()), false),
        Some(Value::Array(types)) => {
            let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            let non_null: Vec<&str> = names.iter().copied().filter(|t| *t != "null").collect();
            let nullable = non_null.len() < names.len();
            match non_null.as_slice() {
                [one] => (Some(*one), nullable),
                _ => return Ok((Ty::RawJson, nullable)),
            }
        }
        _ => (None, false),
    };
    let ty = match type_name {
        Some("string") if schema.get("format").and_then(Value::as_str) == Some("date-time") => Ty::Timestamp,
        Some("string") => Ty::String,
        Some("integer") => Ty::I64,
        Some("number") => Ty::F64,
        Some("boolean") => Ty::Bool,
        Some("array") => {
            let items = schema.get("items").ok_or_else(|| anyhow!("array without items"))?;
            Ty::Vec(Box::new(schema_type(items)?.0))
        }
        _ => Ty::RawJson,
    };
    Ok((ty, nullable))
}

/// One entry of `x-msgflow-union.routes`: `{"when": {"part_kind", "tool_kind"}, "schema", "tag",
/// "outcome_success_only"}`, whose target def fixes `tool_name` with a `const`.
fn read_route(schema: &Value, route: &Value) -> Result<Route> {
    let when = route
        .get("when")
        .and_then(Value::as_object)
        .ok_or_else(|| anyhow!("a route without `when`"))?;
    if let Some(key) = when
        .keys()
        .find(|key| !matches!(key.as_str(), "part_kind" | "tool_kind"))
    {
        bail!("a route on `{key}`: only `part_kind` and `tool_kind` are supported");
    }
    let text = |value: Option<&Value>, what: &str| {
        value
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| anyhow!("a route without a string {what}"))
    };
    let class = text(route.get("schema"), "`schema`")?;
    let tool_name = text(
        schema
            .get("$defs")
            .and_then(|defs| defs.get(&class))
            .and_then(|def| def.get("properties"))
            .and_then(|properties| properties.get("tool_name"))
            .and_then(|tool_name| tool_name.get("const")),
        &format!("`tool_name` const in {class}"),
    )?;
    Ok(Route {
        part_kind: text(when.get("part_kind"), "`when.part_kind`")?,
        tool_kind: text(when.get("tool_kind"), "`when.tool_kind`")?,
        class,
        tag: text(route.get("tag"), "`tag`")?,
        tool_name,
        outcome_success_only: route
            .get("outcome_success_only")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

impl Model {
    fn read(schema: &Value) -> Result<Self> {
        let defs_json = schema
            .get("$defs")
            .and_then(Value::as_object)
            .ok_or_else(|| anyhow!("the schema has no $defs"))?;
        let route_targets: BTreeSet<String> = defs_json
            .values()
            .filter_map(|d| d.get("x-msgflow-union")?.get("routes")?.as_array())
            .flatten()
            .filter_map(|r| r.get("schema").and_then(Value::as_str).map(str::to_owned))
            .collect();
        let keep = reachable(schema, defs_json, &route_targets);
        let names: BTreeSet<String> = keep.iter().cloned().collect();
        let typify = TypifyTypes::build(schema, &names)?;

        let mut defs = Vec::new();
        for (name, def) in defs_json {
            if !keep.contains(name) {
                continue;
            }
            let kind = Self::read_def(name, def, schema, &typify).with_context(|| format!("in $defs/{name}"))?;
            defs.push(Def {
                name: name.clone(),
                doc: doc_of(def),
                kind,
            });
        }
        Ok(Model { defs })
    }

    fn read_def(name: &str, def: &Value, schema: &Value, typify: &TypifyTypes) -> Result<DefKind> {
        if let Some(union) = def.get("x-msgflow-union") {
            if union.get("by").and_then(Value::as_str) == Some("json-type") {
                let options = def
                    .get("oneOf")
                    .and_then(Value::as_array)
                    .ok_or_else(|| anyhow!("json-type union without oneOf"))?;
                let items = options
                    .iter()
                    .find_map(|o| o.get("items"))
                    .ok_or_else(|| anyhow!("json-type union needs an array member"))?;
                return Ok(DefKind::StringOrList(schema_type(items)?.0));
            }
            let tag = union
                .get("tag")
                .and_then(Value::as_str)
                .ok_or_else(|| anyhow!("union without tag"))?;
            let mut variants = union
                .get("variants")
                .and_then(Value::as_object)
                .ok_or_else(|| anyhow!("union without variants"))?
                .iter()
                .map(|(value, target)| {
                    Ok((
                        value.clone(),
                        target.as_str().ok_or_else(|| anyhow!("bad variant"))?.to_owned(),
                    ))
                })
                .collect::<Result<Vec<_>>>()?;
            let unknown = match (
                union.get("fallback").and_then(Value::as_str),
                union.get("unknown").and_then(Value::as_str),
            ) {
                (Some(fallback), _) => UnknownPolicy::Fallback(fallback.to_owned()),
                (None, Some("error")) => UnknownPolicy::Error,
                _ => UnknownPolicy::Keep,
            };
            if let UnknownPolicy::Fallback(target) = &unknown {
                if !variants.iter().any(|(_, t)| t == target) {
                    // The fallback struct's own tag value (its default), so it gets a variant too.
                    let value = schema
                        .get("$defs")
                        .and_then(|d| d.get(target))
                        .and_then(|d| d.get("properties"))
                        .and_then(|p| p.get(tag))
                        .and_then(|p| p.get("default"))
                        .and_then(Value::as_str)
                        .unwrap_or(target)
                        .to_owned();
                    variants.push((value, target.clone()));
                }
            }
            let untagged: Vec<String> = union
                .get("untagged")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|member| {
                    let member = member
                        .as_str()
                        .ok_or_else(|| anyhow!("untagged members are struct names"))?;
                    if !variants.iter().any(|(_, target)| target == member) {
                        bail!("untagged member {member} is not a variant of {name}");
                    }
                    Ok(member.to_owned())
                })
                .collect::<Result<_>>()?;
            if !untagged.is_empty() && !matches!(unknown, UnknownPolicy::Keep) {
                bail!("{name}: untagged members need \"unknown\": \"keep\"");
            }
            let routes = union
                .get("routes")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .map(|route| read_route(schema, route))
                .collect::<Result<Vec<_>>>()
                .with_context(|| format!("the routes of {name}"))?;
            let boxed = match union.get("boxed") {
                None | Some(Value::Bool(false)) => Vec::new(),
                Some(Value::Bool(true)) => variants.iter().map(|(tag, _)| tag.clone()).collect(),
                Some(Value::Array(tags)) => tags
                    .iter()
                    .map(|tag| {
                        let tag = tag.as_str().ok_or_else(|| anyhow!("{name}: `boxed` lists tags"))?;
                        if !variants.iter().any(|(known, _)| known == tag) {
                            bail!("{name}: `boxed` names {tag}, which is not one of its tags");
                        }
                        Ok(tag.to_owned())
                    })
                    .collect::<Result<_>>()?,
                Some(other) => bail!("{name}: `boxed` is true or a list of tags, not {other}"),
            };
            return Ok(DefKind::Union(UnionDef {
                tag: tag.to_owned(),
                variants,
                plain_string: union.get("plain").and_then(Value::as_str) == Some("string"),
                boxed,
                unknown,
                routes,
                untagged,
            }));
        }
        if let Some(values) = def.get("enum").and_then(Value::as_array) {
            return Ok(DefKind::Enum(
                values.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
            ));
        }
        if let Some(properties) = def.get("properties").and_then(Value::as_object) {
            return Ok(DefKind::Struct(Self::read_struct(name, def, properties, typify)?));
        }
        Ok(DefKind::Alias(schema_type(def)?.0))
    }

    fn read_struct(
        name: &str,
        def: &Value,
        properties: &Map<String, Value>,
        typify: &TypifyTypes,
    ) -> Result<StructDef> {
        let required = required_keys(def);
        let resolved = typify.props.get(name);
        let mut props = Vec::new();
        for (key, prop) in properties {
            let doc = doc_of(prop);
            let absent_kept = match prop.get("x-msgflow-absent") {
                None => false,
                Some(Value::String(how)) if how == "kept" => true,
                Some(other) => bail!("property {key}: x-msgflow-absent is \"kept\", not {other}"),
            };
            if let Some(value) = prop.get("const").and_then(Value::as_str) {
                props.push(Prop {
                    key: key.clone(),
                    doc,
                    kind: PropKind::Const(value.to_owned()),
                    absent_kept,
                    alias_of: None,
                });
                continue;
            }
            let (stated, stated_nullable) = schema_type(prop).with_context(|| format!("property {key}"))?;
            // typify's resolution decides, except where the schema names a runtime type or keeps
            // a value opaque on purpose.
            let (ty, nullable) = match resolved.and_then(|r| r.get(&rust_field_name(key))) {
                Some((typified, nullable)) if !mentions_runtime_type(prop) && stated != Ty::RawJson => {
                    if *typified != stated {
                        bail!("property {key}: typify resolved {typified:?}, the schema says {stated:?}");
                    }
                    (typified.clone(), *nullable || stated_nullable)
                }
                _ => (stated, stated_nullable),
            };
            let omit_by_default =
                prop.get("x-msgflow-conditional").is_some() || prop.get("x-msgflow-alias-of").is_some();
            let is_required = required.contains(key.as_str());
            if absent_kept && (!is_required || stated_nullable || ty != Ty::String) {
                bail!("property {key}: x-msgflow-absent is for a const or a required string");
            }
            props.push(Prop {
                key: key.clone(),
                doc,
                absent_kept,
                alias_of: prop
                    .get("x-msgflow-alias-of")
                    .and_then(Value::as_str)
                    .map(str::to_owned),
                kind: PropKind::Value {
                    ty,
                    required: required.contains(key.as_str()),
                    nullable,
                    default: prop.get("default").cloned(),
                    omit_by_default,
                },
            });
        }
        Ok(StructDef { props })
    }
}

/// The `required` keys of an object schema.
fn required_keys(schema: &Value) -> BTreeSet<&str> {
    schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect()
}

/// `true` when a property (or a member of its nullable wrapper) names a runtime type.
fn mentions_runtime_type(prop: &Value) -> bool {
    prop.get("x-msgflow-rust-type").is_some()
        || prop
            .get("anyOf")
            .or_else(|| prop.get("oneOf"))
            .and_then(Value::as_array)
            .is_some_and(|options| options.iter().any(mentions_runtime_type))
}

/// The $defs reachable from the root and from the stream-event unions, without descending into
/// typed-part route targets (they are held by their base structs at runtime).
fn reachable(schema: &Value, defs: &Map<String, Value>, skip: &BTreeSet<String>) -> BTreeSet<String> {
    fn walk(value: &Value, defs: &Map<String, Value>, skip: &BTreeSet<String>, seen: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                if let Some(name) = ref_name(value) {
                    if !skip.contains(name) && seen.insert(name.to_owned()) {
                        if let Some(def) = defs.get(name) {
                            walk(def, defs, skip, seen);
                        }
                    }
                }
                for (key, child) in map {
                    if key != "$defs" && key != "x-msgflow-union" {
                        walk(child, defs, skip, seen);
                    }
                }
                if let Some(union) = map.get("x-msgflow-union") {
                    for target in union
                        .get("variants")
                        .and_then(Value::as_object)
                        .into_iter()
                        .flat_map(|v| v.values())
                    {
                        if let Some(name) = target.as_str() {
                            if seen.insert(name.to_owned()) {
                                if let Some(def) = defs.get(name) {
                                    walk(def, defs, skip, seen);
                                }
                            }
                        }
                    }
                    if let Some(name) = union.get("fallback").and_then(Value::as_str) {
                        if seen.insert(name.to_owned()) {
                            if let Some(def) = defs.get(name) {
                                walk(def, defs, skip, seen);
                            }
                        }
                    }
                }
            }
            Value::Array(items) => items.iter().for_each(|item| walk(item, defs, skip, seen)),
            _ => {}
        }
    }
    let mut seen = BTreeSet::new();
    walk(schema.get("items").unwrap_or(&Value::Null), defs, skip, &mut seen);
    for root in ["AgentStreamEvent", "ModelResponsePartDelta"] {
        if defs.contains_key(root) && seen.insert(root.to_owned()) {
            walk(&defs[root], defs, skip, &mut seen);
        }
    }
    seen
}

// ---------------------------------------------------------------------------------------------
// Emission.

const KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for", "if", "impl", "in",
    "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "static", "struct", "super", "trait",
    "true", "type", "unsafe", "use", "where", "while", "async", "await", "dyn", "abstract", "become", "box", "do",
    "final", "macro", "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "gen",
];

fn rust_field_name(key: &str) -> String {
    let name: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c } else { '_' })
        .collect();
    if KEYWORDS.contains(&name.as_str()) {
        format!("r#{name}")
    } else {
        name
    }
}

/// `ModelRequestPart` -> `model_request_part`.
fn snake(name: &str) -> String {
    let mut out = String::new();
    for (index, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if index > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `tool-call` -> `ToolCall`, `content_filter` -> `ContentFilter`, `5m` -> `V5m`.
fn variant_name(value: &str) -> String {
    let mut out = String::new();
    let mut upper = true;
    for c in value.chars() {
        if c.is_ascii_alphanumeric() {
            if upper {
                out.extend(c.to_uppercase());
            } else {
                out.push(c);
            }
            upper = false;
        } else {
            upper = true;
        }
    }
    if out.starts_with(|c: char| c.is_ascii_digit()) || out.is_empty() {
        out.insert(0, 'V');
    }
    out
}

fn doc_lines(out: &mut String, doc: &str) {
    for line in doc.lines() {
        let line = line.trim_end();
        if line.is_empty() {
            out.push_str("///\n");
        } else {
            let _ = writeln!(out, "/// {line}");
        }
    }
}

fn lit(text: &str) -> String {
    format!("{text:?}")
}

impl Model {
    fn def(&self, name: &str) -> Option<&Def> {
        self.defs.iter().find(|d| d.name == name)
    }

    fn emit(&self) -> Result<String> {
        let mut out = String::new();
        out.push_str(
            "// @generated by `cargo xtask codegen` from schema/pydantic-ai-messages.schema.json.\n\
             // Do not edit by hand: change the schema (or xtask/codegen/src/lib.rs) and regenerate.\n\n\
             use std::fmt;\n\n\
             use serde::de::{self, Deserializer, MapAccess, Visitor};\n\
             use serde::ser::{SerializeMap, Serializer};\n\
             use serde::{Deserialize, Serialize};\n\n\
             use crate::rt;\n\
             #[allow(unused_imports)]\n\
             use crate::{Base64Data, Decimal, Duration, Extra, Field, FileDigests, Float, ForceDownload, Int, LaxBool, RawJson, Timestamp, UnknownObject};\n\n",
        );
        for def in &self.defs {
            match &def.kind {
                DefKind::Struct(s) => self.emit_struct(&mut out, def, s)?,
                DefKind::Enum(values) => emit_enum(&mut out, def, values),
                DefKind::Union(u) => self.emit_union(&mut out, def, u)?,
                DefKind::StringOrList(item) => emit_string_or_list(&mut out, def, item),
                DefKind::Alias(ty) => {
                    doc_lines(&mut out, &def.doc);
                    let _ = writeln!(out, "pub type {} = {};\n", def.name, ty.rust());
                }
            }
        }
        Ok(out)
    }

    fn default_expr(&self, ty: &Ty, default: &Value) -> Option<String> {
        Some(match (ty, default) {
            (_, Value::Null) => return None,
            (Ty::String, Value::String(s)) => format!("{}.to_owned()", lit(s)),
            (Ty::Bool, Value::Bool(b)) => b.to_string(),
            (Ty::I64, Value::Number(n)) => format!("Int::from({n}_i64)"),
            (Ty::F64, Value::Number(n)) => format!("Float::from({:?}_f64)", n.as_f64()?),
            (Ty::Vec(_), Value::Array(items)) if items.is_empty() => "Vec::new()".into(),
            (Ty::Vec(inner), Value::Array(items)) if **inner == Ty::String => format!(
                "vec![{}]",
                items
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|s| format!("{}.to_owned()", lit(s)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            (Ty::RawJson, value) => format!("RawJson::trusted({})", lit(&value.to_string())),
            (Ty::Named(name), Value::Bool(false)) if name == "ForceDownload" => "ForceDownload::No".into(),
            (Ty::Named(name), Value::Bool(true)) if name == "ForceDownload" => "ForceDownload::Yes".into(),
            (Ty::Named(name), Value::Bool(b)) if name == "LaxBool" => format!("LaxBool::from({b})"),
            (Ty::Named(name), Value::String(s)) if matches!(self.def(name)?.kind, DefKind::Enum(_)) => {
                format!("{name}::from_wire({})", lit(s))
            }
            (Ty::Named(name), Value::Object(map)) if map.is_empty() => match &self.def(name)?.kind {
                DefKind::Struct(_) => format!("{name}::default()"),
                DefKind::Alias(Ty::RawJson) => "RawJson::empty_object()".into(),
                _ => return None,
            },
            _ => return None,
        })
    }

    /// The value a missing `x-msgflow-absent: kept` string takes: the literal `tool_name` of the
    /// typed class pydantic-ai's discriminator routes the part to by its `tool_kind` (the class
    /// defaults it), or empty where none does (the verdict then reports it missing).
    fn absent_default(&self, name: &str, key: &str) -> String {
        let mut arms = String::new();
        for def in &self.defs {
            let DefKind::Union(u) = &def.kind else {
                continue;
            };
            for route in &u.routes {
                let holds = u
                    .variants
                    .iter()
                    .any(|(value, target)| *value == route.part_kind && target == name);
                if holds && key == "tool_name" {
                    let _ = writeln!(
                        arms,
                        "Some({}) => {}.to_owned(),",
                        lit(&route.tool_kind),
                        lit(&route.tool_name)
                    );
                }
            }
        }
        if arms.is_empty() {
            return "String::new()".to_owned();
        }
        format!("match tool_kind.get().map(String::as_str) {{\n{arms}_ => String::new(),\n}}")
    }

    fn has_required(&self, s: &StructDef) -> bool {
        s.props
            .iter()
            .any(|p| matches!(p.kind, PropKind::Value { required: true, .. }))
    }

    fn emit_struct(&self, out: &mut String, def: &Def, s: &StructDef) -> Result<()> {
        let name = &def.name;
        let tag = s.props.iter().find_map(|p| match &p.kind {
            PropKind::Const(value) => Some((p.key.as_str(), value.as_str())),
            PropKind::Value { .. } => None,
        });
        // The struct.
        doc_lines(out, &def.doc);
        out.push_str("#[derive(Clone, Debug, PartialEq)]\n");
        let _ = writeln!(out, "pub struct {name} {{");
        for prop in &s.props {
            let PropKind::Value {
                ty, required, nullable, ..
            } = &prop.kind
            else {
                continue;
            };
            doc_lines(out, &prop.doc);
            let field_ty = match (required, nullable) {
                (true, false) => ty.rust(),
                (true, true) => format!("Option<{}>", ty.rust()),
                (false, _) => format!("Field<{}>", ty.rust()),
            };
            let _ = writeln!(out, "pub {}: {field_ty},", rust_field_name(&prop.key));
        }
        for prop in s.props.iter().filter(|p| p.absent_kept) {
            let why = match prop.kind {
                PropKind::Const(_) => "which pydantic-ai defaults where the type is not chosen by it".to_owned(),
                PropKind::Value { .. } => format!(
                    "which the typed class pydantic-ai routes the part to by its `tool_kind` defaults\n\
                     /// (`{field}` is then that class's literal; elsewhere it is empty and the part is refused)",
                    field = rust_field_name(&prop.key)
                ),
            };
            let _ = writeln!(
                out,
                "/// `true` when the input had no `{key}`, {why}: it is written back without it, so\n\
                 /// that the JSON value is the input's.\npub {}: bool,",
                absent_flag(&prop.key),
                key = prop.key
            );
        }
        out.push_str("/// Keys the schema does not name, in input order; written back after the known keys.\npub extra: Extra,\n}\n\n");

        // Constructor and constants.
        let _ = writeln!(out, "impl {name} {{");
        if let Some((key, value)) = tag {
            let _ = writeln!(
                out,
                "/// The `{key}` value that selects this type.\npub const TAG: &'static str = {};\n",
                lit(value)
            );
        }
        let required: Vec<&Prop> = s
            .props
            .iter()
            .filter(|p| matches!(p.kind, PropKind::Value { required: true, .. }))
            .collect();
        let params: Vec<String> = required
            .iter()
            .map(|p| {
                let PropKind::Value { ty, nullable, .. } = &p.kind else {
                    unreachable!()
                };
                let ty = if *nullable {
                    format!("Option<{}>", ty.rust())
                } else {
                    ty.rust()
                };
                format!("{}: {ty}", rust_field_name(&p.key))
            })
            .collect();
        let _ = writeln!(
            out,
            "/// A `{name}` with the given required fields and every other field as pydantic-ai sets it by default\n\
             /// (fields whose default pydantic-ai computes, such as timestamps and ids, are left absent).\n\
             #[allow(clippy::too_many_arguments)]\npub fn new({}) -> Self {{\nSelf {{",
            params.join(", ")
        );
        for prop in &s.props {
            let PropKind::Value {
                ty,
                required,
                default,
                omit_by_default,
                ..
            } = &prop.kind
            else {
                continue;
            };
            let field = rust_field_name(&prop.key);
            if *required {
                let _ = writeln!(out, "{field},");
                continue;
            }
            let value = if *omit_by_default {
                "Field::Absent".to_owned()
            } else {
                match default {
                    Some(Value::Null) => "Field::Null".to_owned(),
                    Some(value) => match self.default_expr(ty, value) {
                        Some(expr) => format!("Field::Present({expr})"),
                        None => "Field::Absent".to_owned(),
                    },
                    None => "Field::Absent".to_owned(),
                }
            };
            let _ = writeln!(out, "{field}: {value},");
        }
        for prop in s.props.iter().filter(|p| p.absent_kept) {
            let _ = writeln!(out, "{}: false,", absent_flag(&prop.key));
        }
        out.push_str("extra: Extra::new(),\n}\n}\n}\n\n");
        if !self.has_required(s) {
            let _ = writeln!(
                out,
                "impl Default for {name} {{\nfn default() -> Self {{\nSelf::new()\n}}\n}}\n"
            );
        }

        // Serialize.
        let _ = writeln!(
            out,
            "impl Serialize for {name} {{\nfn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {{\n\
             let mut map = serializer.serialize_map(None)?;"
        );
        for prop in &s.props {
            if prop.absent_kept {
                let _ = write!(out, "if !self.{} ", absent_flag(&prop.key));
                out.push('{');
            }
            match &prop.kind {
                PropKind::Const(value) => {
                    let _ = writeln!(out, "map.serialize_entry({}, {})?;", lit(&prop.key), lit(value));
                }
                PropKind::Value { required: true, .. } => {
                    let _ = writeln!(
                        out,
                        "map.serialize_entry({}, &self.{})?;",
                        lit(&prop.key),
                        rust_field_name(&prop.key)
                    );
                }
                PropKind::Value { required: false, .. } => {
                    let _ = writeln!(
                        out,
                        "rt::serialize_field(&mut map, {}, &self.{})?;",
                        lit(&prop.key),
                        rust_field_name(&prop.key)
                    );
                }
            }
            if prop.absent_kept {
                out.push_str("}\n");
            }
        }
        out.push_str("self.extra.serialize_into(&mut map)?;\nmap.end()\n}\n}\n\n");

        // Size hint.
        let _ = writeln!(out, "impl rt::SizeHint for {name} {{\nfn size_hint(&self) -> usize {{\nlet mut size = 2 + rt::SizeHint::size_hint(&self.extra);");
        for prop in &s.props {
            match &prop.kind {
                PropKind::Const(value) => {
                    let _ = writeln!(out, "size += {};", prop.key.len() + value.len() + 6);
                }
                PropKind::Value { .. } => {
                    let _ = writeln!(
                        out,
                        "size += {} + rt::SizeHint::size_hint(&self.{});",
                        prop.key.len() + 4,
                        rust_field_name(&prop.key)
                    );
                }
            }
        }
        out.push_str("size\n}\n}\n\n");

        // Deserialize.
        let _ = writeln!(
            out,
            "impl<'de> Deserialize<'de> for {name} {{\nfn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {{\n\
             struct FieldsVisitor;\nimpl<'de> Visitor<'de> for FieldsVisitor {{\ntype Value = {name};\n\
             fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{\nf.write_str({})\n}}\n\
             fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<{name}, A::Error> {{",
            lit(&format!("a {name} object"))
        );
        for prop in &s.props {
            let PropKind::Value {
                ty, required, nullable, ..
            } = &prop.kind
            else {
                continue;
            };
            let field = rust_field_name(&prop.key);
            let holder = match (required, nullable) {
                (true, false) => format!("Option<{}>", ty.rust()),
                (true, true) => format!("Option<Option<{}>>", ty.rust()),
                (false, _) => format!("Field<{}>", ty.rust()),
            };
            let init = if *required { "None" } else { "Field::Absent" };
            let _ = writeln!(out, "let mut {field}: {holder} = {init};");
        }
        for prop in s
            .props
            .iter()
            .filter(|p| p.absent_kept && matches!(p.kind, PropKind::Const(_)))
        {
            let _ = writeln!(out, "let mut {} = true;", absent_flag(&prop.key));
        }
        out.push_str("let mut extra = Extra::new();\nwhile let Some(key) = map.next_key::<rt::Key<'de>>()? {\nmatch key.as_str() {\n");
        for prop in &s.props {
            let key = lit(&prop.key);
            match &prop.kind {
                PropKind::Const(value) if prop.absent_kept => {
                    let _ = writeln!(
                        out,
                        "{key} => {{\nrt::expect_tag(&mut map, {key}, {})?;\n{} = false;\n}}",
                        lit(value),
                        absent_flag(&prop.key)
                    );
                }
                PropKind::Const(value) => {
                    let _ = writeln!(out, "{key} => rt::expect_tag(&mut map, {key}, {})?,", lit(value));
                }
                PropKind::Value {
                    ty, required, nullable, ..
                } => {
                    let field = rust_field_name(&prop.key);
                    let read = match (ty, required, nullable) {
                        (Ty::Vec(inner), true, false) => {
                            format!(
                                "Some(rt::next_value::<rt::IndexedVec<{}>, _>(&mut map, {key})?.0)",
                                inner.rust()
                            )
                        }
                        (Ty::Vec(inner), true, true) => {
                            format!(
                                "Some(rt::next_value::<rt::IndexedOption<{}>, _>(&mut map, {key})?.0)",
                                inner.rust()
                            )
                        }
                        (Ty::Vec(inner), false, _) => {
                            format!(
                                "rt::next_value::<rt::IndexedField<{}>, _>(&mut map, {key})?.0",
                                inner.rust()
                            )
                        }
                        (_, true, _) => format!("Some(rt::next_value(&mut map, {key})?)"),
                        (_, false, _) => format!("rt::next_value(&mut map, {key})?"),
                    };
                    if prop.alias_of.is_some() && !required && *ty != Ty::RawJson {
                        // pydantic-ai reads a legacy alias only when its property is absent, so
                        // beside the property it may hold anything: a value of another type is
                        // kept as an unknown key (the verdict checks it where pydantic-ai reads it).
                        let _ = writeln!(
                            out,
                            "{key} => match rt::next_alias_value(&mut map, {key})? {{\nOk(value) => {field} = value,\nErr(raw) => extra.push({key}.to_owned(), raw),\n}},"
                        );
                        continue;
                    }
                    let _ = writeln!(out, "{key} => {field} = {read},");
                }
            }
        }
        out.push_str(
            "other => {\nlet value = rt::next_unknown_value(&mut map, other)?;\nextra.push(other.to_owned(), value);\n}\n}\n}\n",
        );
        for prop in s
            .props
            .iter()
            .filter(|p| p.absent_kept && matches!(p.kind, PropKind::Value { .. }))
        {
            let field = rust_field_name(&prop.key);
            let _ = writeln!(
                out,
                "let {flag} = {field}.is_none();\nlet {field} = {field}.unwrap_or_else(|| {});",
                self.absent_default(name, &prop.key),
                flag = absent_flag(&prop.key)
            );
        }
        let _ = writeln!(out, "Ok({name} {{");
        for prop in &s.props {
            if prop.absent_kept {
                let _ = writeln!(out, "{},", absent_flag(&prop.key));
            }
            let PropKind::Value { required, .. } = &prop.kind else {
                continue;
            };
            let field = rust_field_name(&prop.key);
            if *required && prop.absent_kept {
                let _ = writeln!(out, "{field},");
            } else if *required {
                let _ = writeln!(
                    out,
                    "{field}: {field}.ok_or_else(|| rt::missing({}, {}))?,",
                    lit(&prop.key),
                    lit(name)
                );
            } else {
                let _ = writeln!(out, "{field},");
            }
        }
        out.push_str("extra,\n})\n}\n}\ndeserializer.deserialize_map(FieldsVisitor)\n}\n}\n\n");
        Ok(())
    }

    /// Keys whose value is, in every member of the union, an array of a tagged union: they are
    /// split into entries while the union's own tag is still unknown, so they are scanned once.
    fn split_keys(&self, u: &UnionDef) -> Vec<String> {
        let mut keys: Option<BTreeSet<String>> = None;
        for (_, target) in &u.variants {
            let Some(Def {
                kind: DefKind::Struct(s),
                ..
            }) = self.def(target)
            else {
                return Vec::new();
            };
            let here: BTreeSet<String> = s
                .props
                .iter()
                .filter(|p| match &p.kind {
                    PropKind::Value { ty: Ty::Vec(inner), required: true, nullable: false, .. } => matches!(
                        &**inner,
                        Ty::Named(n) if matches!(self.def(n), Some(Def { kind: DefKind::Union(inner_union), .. }) if !inner_union.plain_string)
                    ),
                    _ => false,
                })
                .map(|p| p.key.clone())
                .collect();
            keys = Some(match keys {
                None => here,
                Some(previous) => previous.intersection(&here).cloned().collect(),
            });
        }
        keys.unwrap_or_default().into_iter().collect()
    }

    fn emit_union(&self, out: &mut String, def: &Def, u: &UnionDef) -> Result<()> {
        let name = &def.name;
        let split = self.split_keys(u).iter().map(|k| lit(k)).collect::<Vec<_>>().join(", ");
        let tag_key = lit(&u.tag);
        doc_lines(out, &def.doc);
        if !u.routes.is_empty() {
            out.push_str("///\n/// pydantic-ai routes some parts by more than their tag; msgflow holds those typed parts in\n/// their base struct (nothing is lost when one does not fit its narrower shape):\n");
            for route in &u.routes {
                let _ = writeln!(
                    out,
                    "/// * `{{\"part_kind\":\"{}\",\"tool_kind\":\"{}\"}} -> {}{}`",
                    route.part_kind,
                    route.tool_kind,
                    route.class,
                    if route.outcome_success_only {
                        " (outcome success only)"
                    } else {
                        ""
                    }
                );
            }
        }
        out.push_str("#[derive(Clone, Debug, PartialEq)]\npub enum ");
        let _ = writeln!(out, "{name} {{");
        if u.plain_string {
            out.push_str("/// A plain JSON string.\nText(String),\n");
        }
        for (value, target) in &u.variants {
            self.def(target)
                .ok_or_else(|| anyhow!("union {name} names unknown struct {target}"))?;
            let held = if u.is_boxed(value) {
                format!("Box<{target}>")
            } else {
                target.clone()
            };
            let _ = writeln!(out, "/// `{}` = `{value}`.\n{}({held}),", u.tag, variant_name(value));
        }
        if matches!(u.unknown, UnknownPolicy::Keep) {
            let _ = writeln!(
                out,
                "/// A `{}` this version of msgflow does not know (from a newer pydantic-ai), kept whole and\n/// written back unchanged.\nUnknown(UnknownObject),",
                u.tag
            );
        }
        out.push_str("}\n\n");

        // Tag accessor.
        let _ = writeln!(out, "impl {name} {{");
        let _ = writeln!(
            out,
            "/// Every `{}` value this type knows.\npub const KNOWN_TAGS: &'static [&'static str] = &[{}];\n",
            u.tag,
            u.variants.iter().map(|(v, _)| lit(v)).collect::<Vec<_>>().join(", ")
        );
        if !u.routes.is_empty() {
            let entries: Vec<String> = u
                .routes
                .iter()
                .map(|route| {
                    format!(
                        "crate::TypedRoute {{ part_kind: {}, tool_kind: {}, class: {}, tool_name: {}, outcome_success_only: {} }}",
                        lit(&route.part_kind),
                        lit(&route.tool_kind),
                        lit(&route.class),
                        lit(&route.tool_name),
                        route.outcome_success_only
                    )
                })
                .collect();
            let _ = writeln!(
                out,
                "/// pydantic-ai's typed routes among these parts (the schema's `x-msgflow-union.routes`).
                 pub const TYPED_ROUTES: &'static [crate::TypedRoute] = &[{}];
",
                entries.join(", ")
            );
        }
        let _ = writeln!(out, "/// The `{}` value as written (`None` for a plain string or a missing tag).\npub fn tag(&self) -> Option<std::borrow::Cow<'_, str>> {{\nmatch self {{", u.tag);
        if u.plain_string {
            out.push_str("Self::Text(_) => None,\n");
        }
        for (value, target) in &u.variants {
            let fallback_here = matches!(&u.unknown, UnknownPolicy::Fallback(f) if f == target);
            if fallback_here && self.struct_has_field(target, &u.tag) {
                let _ = writeln!(
                    out,
                    "Self::{}(v) => v.{}.get().map(|t| std::borrow::Cow::Borrowed(t.as_str())),",
                    variant_name(value),
                    rust_field_name(&u.tag)
                );
            } else {
                let _ = writeln!(
                    out,
                    "Self::{}(_) => Some(std::borrow::Cow::Borrowed({})),",
                    variant_name(value),
                    lit(value)
                );
            }
        }
        if matches!(u.unknown, UnknownPolicy::Keep) {
            let _ = writeln!(
                out,
                "Self::Unknown(v) => v.tag({tag_key}).map(std::borrow::Cow::Owned),"
            );
        }
        out.push_str("}\n}\n\n");

        // Dispatch from entries.
        let _ = writeln!(
            out,
            "fn from_entries<E: de::Error>(entries: rt::Entries<'_>) -> Result<Self, E> {{\n\
             let tag = entries.tag::<E>({tag_key})?;\nmatch tag.as_ref().map(rt::Key::as_str) {{"
        );
        for (value, target) in &u.variants {
            let _ = writeln!(
                out,
                "Some({}) => entries.into_struct::<{target}, E>().map({}),",
                lit(value),
                u.constructor(value)
            );
        }
        let expected = u
            .variants
            .iter()
            .map(|(v, _)| format!("{v:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        // A tag another union with the same discriminator knows (a response part in a request)
        // is a mistake, not a kind from the future.
        for (sibling, values) in self.sibling_tags(def, u) {
            for value in values {
                let message = format!(
                    "`{}` {value:?} belongs in a {sibling}, not here (expected one of {})",
                    u.tag,
                    expected.replace('{', "{{").replace('}', "}}")
                );
                let _ = writeln!(
                    out,
                    "Some({}) => Err(entries.error_at({tag_key}, format_args!({}))),",
                    lit(&value),
                    lit(&message)
                );
            }
        }
        match &u.unknown {
            UnknownPolicy::Keep if !u.untagged.is_empty() => {
                // pydantic's smart union: an object without the tag (or with `null`) may still
                // validate as a member that defaults it; kept whole, the verdict tries each.
                out.push_str("Some(_) | None => Ok(Self::Unknown(entries.into_unknown())),\n");
            }
            UnknownPolicy::Keep => {
                out.push_str("Some(_) => Ok(Self::Unknown(entries.into_unknown())),\n");
                let _ = writeln!(
                    out,
                    "None => Err(entries.error(format_args!({}))),",
                    lit(&format!(
                        "missing `{}`: expected one of {}",
                        u.tag,
                        expected.replace('{', "{{").replace('}', "}}")
                    ))
                );
            }
            UnknownPolicy::Error => {
                let _ = writeln!(
                    out,
                    "Some(other) => Err(entries.error_at({tag_key}, format_args!({}, other))),",
                    lit(&format!(
                        "unknown `{}` {{:?}}: expected one of {}",
                        u.tag,
                        expected.replace('{', "{{").replace('}', "}}")
                    ))
                );
                let _ = writeln!(
                    out,
                    "None => Err(entries.error(format_args!({}))),",
                    lit(&format!(
                        "missing `{}`: expected one of {}",
                        u.tag,
                        expected.replace('{', "{{").replace('}', "}}")
                    ))
                );
            }
            UnknownPolicy::Fallback(target) => {
                let variant = u
                    .variants
                    .iter()
                    .find(|(_, t)| t == target)
                    .map(|(v, _)| u.constructor(v))
                    .ok_or_else(|| anyhow!("fallback {target} is not a variant of {name}"))?;
                let _ = writeln!(out, "_ => entries.into_struct::<{target}, E>().map({variant}),");
            }
        }
        out.push_str("}\n}\n}\n\n");

        for (value, target) in &u.variants {
            if u.is_boxed(value) {
                let _ = writeln!(
                    out,
                    "impl From<{target}> for {name} {{\nfn from(value: {target}) -> Self {{\nSelf::{}(Box::new(value))\n}}\n}}\n",
                    variant_name(value)
                );
            }
        }

        // Serialize and size hint delegate to the variant's value.
        let _ = writeln!(
            out,
            "impl Serialize for {name} {{\nfn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {{"
        );
        emit_delegating_match(out, u, "serializer.serialize_str(text)", "v.serialize(serializer)");
        out.push_str("}\n}\n\n");
        let _ = writeln!(out, "impl rt::SizeHint for {name} {{\nfn size_hint(&self) -> usize {{");
        emit_delegating_match(out, u, "rt::SizeHint::size_hint(text)", "rt::SizeHint::size_hint(v)");
        out.push_str("}\n}\n\n");

        // Deserialize.
        let _ = writeln!(
            out,
            "impl<'de> Deserialize<'de> for {name} {{\nfn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {{\n\
             struct UnionVisitor;\nimpl<'de> Visitor<'de> for UnionVisitor {{\ntype Value = {name};\n\
             fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{\nf.write_str({})\n}}\n\
             fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<{name}, A::Error> {{\n\
             {name}::from_entries(rt::Entries::from_map_splitting(map, &[{split}])?)\n}}",
            lit(&if u.plain_string {
                format!("a string or a {name} object with `{}`", u.tag)
            } else {
                format!("a {name} object with `{}`", u.tag)
            })
        );
        if u.plain_string {
            out.push_str(
                "fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {\nOk(Self::Value::Text(text.to_owned()))\n}\n\
                 fn visit_string<E: de::Error>(self, text: String) -> Result<Self::Value, E> {\nOk(Self::Value::Text(text))\n}\n",
            );
            out.push_str("}\ndeserializer.deserialize_any(UnionVisitor)\n}\n}\n\n");
        } else {
            out.push_str("}\ndeserializer.deserialize_map(UnionVisitor)\n}\n}\n\n");
        }
        Ok(())
    }

    /// Tag values that other tagged unions with the same discriminator use and this one does not,
    /// by union name (only for unions that keep unknown tags).
    fn sibling_tags(&self, def: &Def, u: &UnionDef) -> Vec<(String, Vec<String>)> {
        if !matches!(u.unknown, UnknownPolicy::Keep) {
            return Vec::new();
        }
        let own: BTreeSet<&str> = u.variants.iter().map(|(v, _)| v.as_str()).collect();
        let mut seen = BTreeSet::new();
        let mut out = Vec::new();
        for other in &self.defs {
            let DefKind::Union(o) = &other.kind else { continue };
            if other.name == def.name || o.tag != u.tag || matches!(o.unknown, UnknownPolicy::Fallback(_)) {
                continue;
            }
            let values: Vec<String> = o
                .variants
                .iter()
                .map(|(v, _)| v.clone())
                .filter(|v| !own.contains(v.as_str()) && seen.insert(v.clone()))
                .collect();
            if !values.is_empty() {
                out.push((other.name.clone(), values));
            }
        }
        out
    }

    fn struct_has_field(&self, name: &str, key: &str) -> bool {
        matches!(self.def(name), Some(Def { kind: DefKind::Struct(s), .. })
            if s.props.iter().any(|p| p.key == key && matches!(p.kind, PropKind::Value { .. })))
    }
}

impl UnionDef {
    /// Whether the variant for tag `value` holds a `Box`.
    fn is_boxed(&self, value: &str) -> bool {
        self.boxed.iter().any(|tag| tag == value)
    }

    /// The expression that makes the variant for tag `value` from its struct.
    fn constructor(&self, value: &str) -> String {
        if self.is_boxed(value) {
            format!("|value| Self::{}(Box::new(value))", variant_name(value))
        } else {
            format!("Self::{}", variant_name(value))
        }
    }
}

/// `match self { Self::Text(text) => <text_arm>, Self::X(v) => <value_arm>, ... }` over a union's
/// variants (the plain-string and unknown variants included when the union has them).
fn emit_delegating_match(out: &mut String, u: &UnionDef, text_arm: &str, value_arm: &str) {
    out.push_str("match self {\n");
    if u.plain_string {
        let _ = writeln!(out, "Self::Text(text) => {text_arm},");
    }
    for (value, _) in &u.variants {
        let _ = writeln!(out, "Self::{}(v) => {value_arm},", variant_name(value));
    }
    if matches!(u.unknown, UnknownPolicy::Keep) {
        let _ = writeln!(out, "Self::Unknown(v) => {value_arm},");
    }
    out.push_str("}\n");
}

fn emit_enum(out: &mut String, def: &Def, values: &[String]) {
    let name = &def.name;
    doc_lines(out, &def.doc);
    out.push_str(
        "///\n/// A value outside the list (from a newer pydantic-ai) is kept as `Unknown` and written back.\n",
    );
    out.push_str("#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]\n");
    let _ = writeln!(out, "pub enum {name} {{");
    for value in values {
        let _ = writeln!(out, "/// `{value:?}`\n{},", variant_name(value));
    }
    out.push_str("/// A value this version of msgflow does not know.\nUnknown(String),\n}\n\n");
    let _ = writeln!(out, "impl {name} {{\n/// Every value this type knows, in schema order.\npub const KNOWN: &'static [&'static str] = &[{}];\n",
        values.iter().map(|v| lit(v)).collect::<Vec<_>>().join(", "));
    out.push_str("/// The wire value.\npub fn as_str(&self) -> &str {\nmatch self {\n");
    for value in values {
        let _ = writeln!(out, "Self::{} => {},", variant_name(value), lit(value));
    }
    out.push_str("Self::Unknown(value) => value,\n}\n}\n\n/// The variant for a wire value (an unknown value is kept).\npub fn from_wire(value: &str) -> Self {\nmatch value {\n");
    for value in values {
        let _ = writeln!(out, "{} => Self::{},", lit(value), variant_name(value));
    }
    out.push_str("other => Self::Unknown(other.to_owned()),\n}\n}\n\n/// `false` for a value outside the schema's list.\npub fn is_known(&self) -> bool {\n!matches!(self, Self::Unknown(_))\n}\n}\n\n");
    let _ = writeln!(
        out,
        "impl rt::SizeHint for {name} {{\nfn size_hint(&self) -> usize {{\nself.as_str().len() + 2\n}}\n}}\n"
    );
    let _ = writeln!(out, "impl fmt::Display for {name} {{\nfn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{\nf.write_str(self.as_str())\n}}\n}}\n");
    let _ = writeln!(out, "impl Serialize for {name} {{\nfn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {{\nserializer.serialize_str(self.as_str())\n}}\n}}\n");
    let _ = writeln!(out, "impl<'de> Deserialize<'de> for {name} {{\nfn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {{\nrt::Key::deserialize(deserializer).map(|key| Self::from_wire(key.as_str()))\n}}\n}}\n");
}

fn emit_string_or_list(out: &mut String, def: &Def, item: &Ty) {
    let name = &def.name;
    let item = item.rust();
    doc_lines(out, &def.doc);
    let _ = writeln!(
        out,
        "#[derive(Clone, Debug, PartialEq)]\npub enum {name} {{\n/// A plain string.\nText(String),\n/// A list of items.\nItems(Vec<{item}>),\n}}\n\n\
         impl Serialize for {name} {{\nfn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {{\nmatch self {{\n\
         Self::Text(text) => serializer.serialize_str(text),\nSelf::Items(items) => items.serialize(serializer),\n}}\n}}\n}}\n\n\
         impl rt::SizeHint for {name} {{\nfn size_hint(&self) -> usize {{\nmatch self {{\n\
         Self::Text(text) => rt::SizeHint::size_hint(text),\nSelf::Items(items) => rt::SizeHint::size_hint(items),\n}}\n}}\n}}\n\n\
         impl<'de> Deserialize<'de> for {name} {{\nfn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {{\n\
         struct ContentVisitor;\nimpl<'de> Visitor<'de> for ContentVisitor {{\ntype Value = {name};\n\
         fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{\nf.write_str(\"a string or an array\")\n}}\n\
         fn visit_str<E: de::Error>(self, text: &str) -> Result<{name}, E> {{\nOk({name}::Text(text.to_owned()))\n}}\n\
         fn visit_string<E: de::Error>(self, text: String) -> Result<{name}, E> {{\nOk({name}::Text(text))\n}}\n\
         fn visit_seq<A: de::SeqAccess<'de>>(self, seq: A) -> Result<{name}, A::Error> {{\nrt::read_indexed_seq(seq).map({name}::Items)\n}}\n\
         }}\ndeserializer.deserialize_any(ContentVisitor)\n}}\n}}\n"
    );
}

fn rustfmt(source: &str) -> Result<String> {
    let root = project_root();
    let mut child = Command::new(std::env::var("RUSTFMT").unwrap_or_else(|_| "rustfmt".to_owned()))
        .args(["--edition", "2021", "--emit", "stdout", "--config-path"])
        .arg(root.join("rustfmt.toml"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .context("running rustfmt (install it with `rustup component add rustfmt`)")?;
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().ok_or_else(|| anyhow!("rustfmt stdin"))?;
        stdin.write_all(source.as_bytes())?;
    }
    let output = child.wait_with_output()?;
    if !output.status.success() {
        let dump: PathBuf = std::env::temp_dir().join("msgflow-generated-unformatted.rs");
        let _ = std::fs::write(&dump, source);
        bail!(
            "rustfmt failed (unformatted output in {}):\n{}",
            dump.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    Ok(String::from_utf8(output.stdout)?)
}

#[cfg(test)]
mod tests {
    #[test]
    fn generated_code_is_fresh() {
        if let Err(err) = super::run(true) {
            panic!("{err:#}");
        }
    }

    #[test]
    fn a_union_is_an_object_when_a_member_is_at_any_depth() {
        use serde_json::json;
        assert!(super::is_object_schema(&json!({"type": "object"})));
        assert!(super::is_object_schema(
            &json!({"anyOf": [{"type": "null"}, {"type": "object"}]})
        ));
        assert!(super::is_object_schema(
            &json!({"anyOf": [{"type": "null"}, {"oneOf": [{"type": "object"}]}]})
        ));
        assert!(!super::is_object_schema(
            &json!({"anyOf": [{"type": "null"}, {"type": "string"}]})
        ));
        assert!(!super::is_object_schema(
            &json!({"type": "array", "items": {"type": "object"}})
        ));
    }

    #[test]
    fn variant_names() {
        assert_eq!(super::variant_name("tool-call"), "ToolCall");
        assert_eq!(super::variant_name("content_filter"), "ContentFilter");
        assert_eq!(super::variant_name("5m"), "V5m");
    }
}
