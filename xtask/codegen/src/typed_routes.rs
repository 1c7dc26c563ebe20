//! The typed routes of the schema's unions (`x-msgflow-union.routes`) and the TypedDicts their
//! classes give their arguments or content: read from the schema, emitted as the `TYPED_ROUTES`
//! entries and the `TypedShape` constants of msgflow-wire, which the check and the provider
//! export read instead of restating them.

use std::fmt::Write as _;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;

use super::{doc_lines, doc_of, lit, ref_name, required_keys, snake};

/// A typed route of a union (`x-msgflow-union.routes`): pydantic-ai reads a part with this tag
/// and `tool_kind` as the narrower class `class`.
#[derive(Debug)]
pub(super) struct Route {
    pub(super) part_kind: String,
    pub(super) tool_kind: String,
    pub(super) class: String,
    /// pydantic-ai's `Tag` of the class in the union: the `loc` step of the routed part.
    pub(super) tag: String,
    /// The `tool_name` the class requires (its `const`).
    pub(super) tool_name: String,
    pub(super) outcome_success_only: bool,
    /// The class's field typed as a TypedDict (a `$ref`, alone or beside a string in `anyOf`,
    /// to a `$defs` entry the types do not hold), and that TypedDict: set by [`Model::read`].
    pub(super) field: String,
    pub(super) shape: String,
}

/// A TypedDict of pydantic-ai that a typed route's class gives its arguments or content: a
/// `$defs` entry the types do not hold, emitted as a `TypedShape` table.
#[derive(Debug)]
pub(super) struct ShapeDef {
    name: String,
    doc: String,
    /// The declared keys in order: name, type, required.
    keys: Vec<(String, ShapeValue, bool)>,
}

/// The type of a value in a [`ShapeDef`].
#[derive(Debug)]
pub(super) enum ShapeValue {
    Str,
    List(Box<ShapeValue>),
    Shape(String),
}

impl Route {
    /// The route's `crate::TypedRoute` entry in its union's `TYPED_ROUTES`.
    pub(super) fn entry(&self) -> String {
        format!(
            "crate::TypedRoute {{ part_kind: {}, tool_kind: {}, class: {}, tool_name: {}, outcome_success_only: {}, field: {}, shape: &crate::TypedShape::{} }}",
            lit(&self.part_kind),
            lit(&self.tool_kind),
            lit(&self.class),
            lit(&self.tool_name),
            self.outcome_success_only,
            lit(&self.field),
            shape_const(&self.shape)
        )
    }
}

/// One entry of `x-msgflow-union.routes`: `{"when": {"part_kind", "tool_kind"}, "schema", "tag",
/// "outcome_success_only"}`, whose target def fixes `tool_name` with a `const`.
pub(super) fn read_route(schema: &Value, route: &Value) -> Result<Route> {
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
        field: String::new(),
        shape: String::new(),
    })
}

/// The field of a typed route's class that is typed as a TypedDict (a `$ref` to a def outside
/// `held`, alone or in `anyOf`), and the TypedDict's name.
pub(super) fn route_shape(schema: &Value, class: &str, held: &[String]) -> Result<(String, String)> {
    let properties = schema
        .get("$defs")
        .and_then(|defs| defs.get(class))
        .and_then(|def| def.get("properties"))
        .and_then(Value::as_object)
        .ok_or_else(|| anyhow!("the typed class {class} has no properties"))?;
    let mut found = Vec::new();
    for (key, prop) in properties {
        let members = prop.get("anyOf").and_then(Value::as_array).cloned().unwrap_or_default();
        for member in std::iter::once(prop).chain(members.iter()) {
            if let Some(name) = ref_name(member).filter(|name| !held.iter().any(|held| held == name)) {
                found.push((key.clone(), name.to_owned()));
            }
        }
    }
    match found.len() {
        1 => Ok(found.remove(0)),
        n => bail!("the typed class {class} has {n} fields typed as a TypedDict; one is supported"),
    }
}

/// Reads the TypedDict `name` and, first, every TypedDict it refers to (into `shapes`, once each).
pub(super) fn read_shape(schema: &Value, name: &str, shapes: &mut Vec<ShapeDef>) -> Result<()> {
    if shapes.iter().any(|shape| shape.name == name) {
        return Ok(());
    }
    let def = schema
        .get("$defs")
        .and_then(|defs| defs.get(name))
        .ok_or_else(|| anyhow!("no $defs/{name}"))?;
    let required = required_keys(def);
    let mut keys = Vec::new();
    for (key, prop) in def.get("properties").and_then(Value::as_object).into_iter().flatten() {
        let value = shape_value(schema, prop, shapes).with_context(|| format!("{name}.{key}"))?;
        keys.push((key.clone(), value, required.contains(key.as_str())));
    }
    shapes.push(ShapeDef {
        name: name.to_owned(),
        doc: doc_of(def),
        keys,
    });
    Ok(())
}

fn shape_value(schema: &Value, prop: &Value, shapes: &mut Vec<ShapeDef>) -> Result<ShapeValue> {
    if let Some(name) = ref_name(prop) {
        read_shape(schema, name, shapes)?;
        return Ok(ShapeValue::Shape(name.to_owned()));
    }
    match prop.get("type").and_then(Value::as_str) {
        Some("string") => Ok(ShapeValue::Str),
        Some("array") => {
            let items = prop.get("items").ok_or_else(|| anyhow!("an array without items"))?;
            Ok(ShapeValue::List(Box::new(shape_value(schema, items, shapes)?)))
        }
        other => bail!("a TypedDict value of type {other:?} is not supported"),
    }
}

/// The TypedDicts of the typed routes, as `TypedShape` constants.
pub(super) fn emit_shapes(shapes: &[ShapeDef], out: &mut String) {
    if shapes.is_empty() {
        return;
    }
    out.push_str("impl crate::TypedShape {\n");
    for shape in shapes {
        doc_lines(out, &shape.doc);
        let keys: Vec<String> = (shape.keys.iter())
            .map(|(key, value, required)| {
                format!(
                    "crate::TypedKey {{ name: {}, value: {}, required: {required} }}",
                    lit(key),
                    shape_value_expr(value)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "pub const {}: crate::TypedShape = crate::TypedShape {{ name: {}, keys: &[{}] }};\n",
            shape_const(&shape.name),
            lit(&shape.name),
            keys.join(", ")
        );
    }
    out.push_str("}\n\n");
}

/// `ToolSearchArgs` -> `TOOL_SEARCH_ARGS`, the name of its `TypedShape` constant.
fn shape_const(name: &str) -> String {
    snake(name).to_ascii_uppercase()
}

fn shape_value_expr(value: &ShapeValue) -> String {
    match value {
        ShapeValue::Str => "crate::TypedValue::Str".to_owned(),
        ShapeValue::List(item) => format!("crate::TypedValue::List(&{})", shape_value_expr(item)),
        ShapeValue::Shape(name) => format!("crate::TypedValue::Shape(&crate::TypedShape::{})", shape_const(name)),
    }
}
