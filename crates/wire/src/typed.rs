//! pydantic-ai's typed tool parts as tables generated from the schema: the routes that read a
//! tool part as a narrower class ([`TypedRoute`]), and the TypedDict that class gives its
//! arguments or content ([`TypedShape`]), with pydantic's validation of such a TypedDict
//! ([`TypedShape::fit`]). msgflow holds typed parts in their base structs; the check (which
//! reports what pydantic-ai would refuse) and the provider export (which sends what pydantic-ai
//! would) both read these tables.

use serde_json::{Map, Value};

use crate::{ModelRequestPart, ModelResponsePart};

/// One of pydantic-ai's typed routes: it reads a part with tag `part_kind` and this `tool_kind`
/// as the narrower class `class` (only when its `outcome` is a success, if
/// `outcome_success_only`), which requires `tool_name` and validates its `field` as `shape`.
/// The tables are [`ModelRequestPart::TYPED_ROUTES`] and [`ModelResponsePart::TYPED_ROUTES`],
/// generated from the schema.
///
/// ```
/// use msgflow_wire::TypedRoute;
///
/// let route = TypedRoute::find("tool-call", "tool-search").unwrap();
/// assert_eq!((route.class, route.tool_name), ("ToolSearchCallPart", "search_tools"));
/// assert_eq!((route.field, route.shape.name), ("args", "ToolSearchArgs"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TypedRoute {
    /// The part's tag.
    pub part_kind: &'static str,
    /// The `tool_kind` that selects the route.
    pub tool_kind: &'static str,
    /// pydantic-ai's class for the routed part.
    pub class: &'static str,
    /// The only `tool_name` the class accepts.
    pub tool_name: &'static str,
    /// Only a part whose `outcome` is `success` (or missing) is routed.
    pub outcome_success_only: bool,
    /// The field the class types (`args` of a call, `content` of a return).
    pub field: &'static str,
    /// The TypedDict of that field.
    pub shape: &'static TypedShape,
}

impl TypedRoute {
    /// The route pydantic-ai takes for a part with tag `part_kind` and this `tool_kind`, if any.
    pub fn find(part_kind: &str, tool_kind: &str) -> Option<&'static TypedRoute> {
        ModelRequestPart::TYPED_ROUTES
            .iter()
            .chain(ModelResponsePart::TYPED_ROUTES)
            .find(|route| route.part_kind == part_kind && route.tool_kind == tool_kind)
    }

    /// Whether `tool_kind` is a kind pydantic-ai defines (`pydantic_ai.messages.parse_tool_kind`:
    /// the registry of `ToolKind`s, each of which types its parts through these routes).
    ///
    /// ```
    /// use msgflow_wire::TypedRoute;
    /// assert!(TypedRoute::is_defined_kind("tool-search"));
    /// assert!(!TypedRoute::is_defined_kind("mcp_server"));
    /// ```
    pub fn is_defined_kind(tool_kind: &str) -> bool {
        ModelRequestPart::TYPED_ROUTES
            .iter()
            .chain(ModelResponsePart::TYPED_ROUTES)
            .any(|route| route.tool_kind == tool_kind)
    }
}

/// A TypedDict of pydantic-ai (from the schema's `$defs`): its declared keys in order. Every
/// one allows extra keys (`extra='allow'`).
#[derive(Debug, PartialEq, Eq)]
pub struct TypedShape {
    /// The TypedDict's name.
    pub name: &'static str,
    /// The declared keys, in declaration order.
    pub keys: &'static [TypedKey],
}

/// A declared key of a [`TypedShape`].
#[derive(Debug, PartialEq, Eq)]
pub struct TypedKey {
    /// The key.
    pub name: &'static str,
    /// The type of its value.
    pub value: TypedValue,
    /// Whether the key must be present (else `NotRequired`).
    pub required: bool,
}

/// The type of a value inside a [`TypedShape`].
#[derive(Debug, PartialEq, Eq)]
pub enum TypedValue {
    /// `str`: pydantic's lax `str` takes only a string from JSON.
    Str,
    /// `list[...]` of this type.
    List(&'static TypedValue),
    /// A nested TypedDict.
    Shape(&'static TypedShape),
}

/// Why a value does not fit a [`TypedShape`]: the first declared key (in declaration order)
/// that is missing or of another type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShapeMismatch {
    /// The value is not an object.
    NotAnObject,
    /// A required key is missing.
    Missing(&'static TypedKey),
    /// A declared key's value does not fit its type (anywhere inside it).
    Mistyped(&'static TypedKey),
}

impl TypedShape {
    /// The object validated as pydantic validates the TypedDict: declared keys first, in
    /// declaration order (nested shapes likewise), then the extra ones as written; the first
    /// key that does not fit otherwise.
    pub fn fit(&'static self, mut map: Map<String, Value>) -> Result<Map<String, Value>, ShapeMismatch> {
        let mut fitted = Map::with_capacity(map.len());
        for key in self.keys {
            let Some(value) = map.shift_remove(key.name) else {
                if key.required {
                    return Err(ShapeMismatch::Missing(key));
                }
                continue;
            };
            let value = key.value.fit(value).ok_or(ShapeMismatch::Mistyped(key))?;
            fitted.insert(key.name.to_owned(), value);
        }
        fitted.extend(map);
        Ok(fitted)
    }

    /// [`TypedShape::fit`] on any JSON value.
    pub fn fit_value(&'static self, value: Value) -> Result<Map<String, Value>, ShapeMismatch> {
        match value {
            Value::Object(map) => self.fit(map),
            _ => Err(ShapeMismatch::NotAnObject),
        }
    }
}

impl TypedValue {
    fn fit(&'static self, value: Value) -> Option<Value> {
        match (self, value) {
            (TypedValue::Str, value @ Value::String(_)) => Some(value),
            (TypedValue::List(item), Value::Array(items)) => items
                .into_iter()
                .map(|value| item.fit(value))
                .collect::<Option<_>>()
                .map(Value::Array),
            (TypedValue::Shape(shape), value) => shape.fit_value(value).ok().map(Value::Object),
            _ => None,
        }
    }

    /// The type in words, as a value of it is named in a sentence: "a string", "a list of
    /// strings", "an object with a string `name`".
    pub fn describe(&self) -> String {
        match self {
            TypedValue::Str => "a string".to_owned(),
            TypedValue::List(item) => format!("a list of {}", item.describe_plural()),
            TypedValue::Shape(shape) => format!("an object with {}", shape.describe_required()),
        }
    }

    fn describe_plural(&self) -> String {
        match self {
            TypedValue::Str => "strings".to_owned(),
            TypedValue::List(item) => format!("lists of {}", item.describe_plural()),
            TypedValue::Shape(shape) => format!("objects with {}", shape.describe_required()),
        }
    }
}

impl TypedShape {
    fn describe_required(&self) -> String {
        let required: Vec<String> = (self.keys.iter())
            .filter(|key| key.required)
            .map(|key| {
                let what = key.value.describe();
                let adjective = what.strip_prefix("a ").or(what.strip_prefix("an ")).unwrap_or(&what);
                format!("a {adjective} `{}`", key.name)
            })
            .collect();
        if required.is_empty() {
            "any keys".to_owned()
        } else {
            required.join(" and ")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn shape(part_kind: &str, tool_kind: &str) -> &'static TypedShape {
        TypedRoute::find(part_kind, tool_kind).unwrap().shape
    }

    #[test]
    fn declared_keys_go_first_then_the_extra_ones_as_written() {
        let content = json!({"z": 1, "message": "m", "discovered_tools": [{"x": 1, "name": "a"}], "a": 2});
        let fitted = shape("tool-return", "tool-search").fit_value(content).unwrap();
        assert_eq!(
            serde_json::to_string(&fitted).unwrap(),
            r#"{"discovered_tools":[{"name":"a","x":1}],"message":"m","z":1,"a":2}"#
        );
    }

    #[test]
    fn the_first_missing_or_mistyped_key_is_named() {
        let args = shape("tool-call", "tool-search");
        let name = |result: Result<Map<String, Value>, ShapeMismatch>| match result {
            Err(ShapeMismatch::Missing(key)) => format!("missing {}", key.name),
            Err(ShapeMismatch::Mistyped(key)) => format!("mistyped {}", key.name),
            Err(ShapeMismatch::NotAnObject) => "not an object".to_owned(),
            Ok(_) => "fits".to_owned(),
        };
        assert_eq!(name(args.fit_value(json!({"q": ["a"]}))), "missing queries");
        assert_eq!(name(args.fit_value(json!({"queries": "a"}))), "mistyped queries");
        assert_eq!(name(args.fit_value(json!({"queries": [1]}))), "mistyped queries");
        assert_eq!(name(args.fit_value(json!("queries"))), "not an object");
        let capability = shape("tool-call", "capability-load");
        assert_eq!(name(capability.fit_value(json!({"id": 1}))), "mistyped id");
        let loaded = shape("tool-return", "capability-load");
        assert_eq!(name(loaded.fit_value(json!({"message": null}))), "mistyped message");
        assert_eq!(name(loaded.fit_value(json!({}))), "fits");
        let found = shape("tool-return", "tool-search");
        assert_eq!(
            name(found.fit_value(json!({"discovered_tools": [{"name": 1}]}))),
            "mistyped discovered_tools"
        );
        assert_eq!(
            name(found.fit_value(json!({"discovered_tools": [], "message": 1}))),
            "mistyped message"
        );
    }

    #[test]
    fn types_are_described_in_words() {
        let found = shape("tool-return", "tool-search");
        assert_eq!(found.keys[0].value.describe(), "a list of objects with a string `name`");
        assert_eq!(
            shape("tool-call", "tool-search").keys[0].value.describe(),
            "a list of strings"
        );
    }
}
