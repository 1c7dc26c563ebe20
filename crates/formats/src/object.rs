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

/// `map.get(key)`, found by comparing the keys in order when the map is small: serde_json's maps
/// hash the key of every lookup (SipHash), which costs more than comparing a few short keys, and
/// the loaders look up several keys of every message and part they read.
pub(crate) fn field<'m>(
    map: &'m serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Option<&'m serde_json::Value> {
    const SCANNED: usize = 8;
    if map.len() <= SCANNED {
        map.iter().find_map(|(name, value)| (name == key).then_some(value))
    } else {
        map.get(key)
    }
}

/// [`field`] of a value that is an object (`value.get(key)`).
pub(crate) fn field_of<'v>(value: &'v serde_json::Value, key: &str) -> Option<&'v serde_json::Value> {
    field(value.as_object()?, key)
}

/// [`field_of`], `null` where the value has no such key (or is no object), as the mappings read a
/// history's JSON: pydantic-ai's default for most fields is `None`.
pub(crate) fn value_field<'v>(value: &'v serde_json::Value, key: &str) -> &'v serde_json::Value {
    field_of(value, key).unwrap_or(&serde_json::Value::Null)
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::{field, field_of, value_field};

    #[test]
    fn a_field_is_what_get_finds() {
        let small = json!({"id": "m1", "role": "tool", "content": "x", "toolCallId": "c1"});
        let large: Value = (0..20)
            .map(|index| (format!("k{index}"), json!(index)))
            .collect::<serde_json::Map<_, _>>()
            .into();
        for value in [&small, &large, &json!({}), &json!("not an object")] {
            for key in ["id", "role", "toolCallId", "k3", "k19", "missing", ""] {
                assert_eq!(field_of(value, key), value.get(key), "{key} of {value}");
                assert_eq!(value_field(value, key), value.get(key).unwrap_or(&Value::Null));
                if let Some(map) = value.as_object() {
                    assert_eq!(field(map, key), map.get(key), "{key} of {value}");
                }
            }
        }
    }

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
