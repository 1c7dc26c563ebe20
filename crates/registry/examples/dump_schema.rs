//! Prints the JSON Schema of the registry export.
fn main() {
    let schema = msgflow_registry::registry_schema();
    println!("{}", serde_json::to_string_pretty(&schema).unwrap_or_default());
}
