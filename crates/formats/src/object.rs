//! JSON objects built from values taken as they are ([`object!`]).
//!
//! `serde_json::json!` turns every interpolated expression into a `Value` with
//! `serde_json::to_value(&expr)`, which rebuilds a `Value` through the serializer: a tool call's
//! arguments or a tool return's structured content were copied key by key (every key hashed
//! again into a new map) and the original then dropped. [`object!`] moves a `Value` in, and
//! clones (a plain copy of the map) only what it is given by reference.

use serde_json::{Map, Value};

/// `json!({"key": value, ...})` for a flat object whose values are expressions, each taken by
/// [`IntoValue`]: a `Value` is moved in, not copied. Nested objects are `object!` again.
///
/// Keys are inserted in order, a repeated key keeping its first place and its last value, as
/// `json!` inserts them.
macro_rules! object {
    ($($key:literal : $value:expr),* $(,)?) => {{
        let mut map = ::serde_json::Map::new();
        $( map.insert(::std::string::String::from($key), $crate::object::IntoValue::into_value($value)); )*
        ::serde_json::Value::Object(map)
    }};
}
pub(crate) use object;

/// What [`object!`] takes as a value: what `json!` takes, with a `Value` moved in.
pub(crate) trait IntoValue {
    fn into_value(self) -> Value;
}

impl IntoValue for Value {
    fn into_value(self) -> Value {
        self
    }
}

impl IntoValue for &Value {
    fn into_value(self) -> Value {
        self.clone()
    }
}

impl IntoValue for Map<String, Value> {
    fn into_value(self) -> Value {
        Value::Object(self)
    }
}

impl IntoValue for Vec<Value> {
    fn into_value(self) -> Value {
        Value::Array(self)
    }
}

impl IntoValue for &str {
    fn into_value(self) -> Value {
        Value::String(self.to_owned())
    }
}

impl IntoValue for String {
    fn into_value(self) -> Value {
        Value::String(self)
    }
}

impl IntoValue for &String {
    fn into_value(self) -> Value {
        Value::String(self.clone())
    }
}

impl IntoValue for bool {
    fn into_value(self) -> Value {
        Value::Bool(self)
    }
}

impl<T: IntoValue> IntoValue for Option<T> {
    fn into_value(self) -> Value {
        self.map_or(Value::Null, IntoValue::into_value)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    #[test]
    fn an_object_is_what_json_builds_from_the_same_values() {
        let args =
            json!({"path": "a.py", "options": {"deep": [1, 2.5, null, "x"]}, "n": 123456789012345678901234567890u128});
        let id: &Value = &json!("call_1");
        let name = String::from("read_file");
        let missing: Option<&str> = None;
        let built = object! {"tool_name": &name, "args": args.clone(), "tool_call_id": id,
        "kind": "tool-call", "flag": true, "absent": missing, "tool_name": "again"};
        let expected = json!({"tool_name": &name, "args": args, "tool_call_id": id,
                              "kind": "tool-call", "flag": true, "absent": missing, "tool_name": "again"});
        assert_eq!(built, expected);
        assert_eq!(
            serde_json::to_string(&built).unwrap(),
            serde_json::to_string(&expected).unwrap()
        );
    }
}
