//! JSON objects built from values taken as they are ([`object!`]).
//!
//! `serde_json::json!` turns every interpolated expression into a `Value` with
//! `serde_json::to_value(&expr)`, which rebuilds a `Value` through the serializer: a tool call's
//! arguments or a tool return's structured content were copied key by key (every key hashed
//! again into a new map) and the original then dropped. [`object!`] takes each value with
//! `Value::from`, so a `Value` is moved in.

/// `json!({"key": value, ...})` for a flat object whose values are expressions, each taken by
/// `Value::from`: a `Value` is moved in, not copied (a borrowed one is cloned where it is given).
/// Nested objects are `object!` again.
///
/// Keys are inserted in order, a repeated key keeping its first place and its last value, as
/// `json!` inserts them.
macro_rules! object {
    ($($key:literal : $value:expr),* $(,)?) => {{
        let mut map = ::serde_json::Map::new();
        $( map.insert(::std::string::String::from($key), ::serde_json::Value::from($value)); )*
        ::serde_json::Value::Object(map)
    }};
}
pub(crate) use object;

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
        let built = object! {"tool_name": name.as_str(), "args": args.clone(), "tool_call_id": id.clone(),
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
