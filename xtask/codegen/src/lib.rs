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

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{Map, Value};

use typed_routes::{read_route, read_shape, route_shape, Route, ShapeDef};
use typify::TypifyTypes;

/// The workspace root (two levels above this crate).
pub fn project_root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.ancestors().nth(2).map(PathBuf::from).unwrap_or(manifest)
}

const SCHEMA: &str = "schema/pydantic-ai-messages.schema.json";
const OUTPUT: &str = "crates/wire/src/generated.rs";

mod emit;
mod emit_serialize;
mod literal_sets;
pub mod oracle_tables;
mod schema_defaults;
mod strategies;
mod typed_routes;
mod typify;
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
    /// The TypedDicts of the typed routes, nested ones included.
    shapes: Vec<ShapeDef>,
    /// The string enums of the schema no wire type holds.
    literal_sets: Vec<literal_sets::LiteralSet>,
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
        let held: Vec<String> = defs.iter().map(|def| def.name.clone()).collect();
        let mut shapes = Vec::new();
        for def in &mut defs {
            if let DefKind::Union(union) = &mut def.kind {
                for route in &mut union.routes {
                    (route.field, route.shape) = route_shape(schema, &route.class, &held)?;
                    read_shape(schema, &route.shape, &mut shapes)?;
                }
            }
        }
        let literal_sets = literal_sets::read(defs_json, &keep);
        Ok(Model {
            defs,
            shapes,
            literal_sets,
        })
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
