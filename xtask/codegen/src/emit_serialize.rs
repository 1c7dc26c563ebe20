//! The emitter of a struct's `Serialize` and `rt::SizeHint` impls (for `emit.rs`): the keys
//! it writes, in the schema's order, each optional one unless absent, then the unknown keys kept.

use std::fmt::Write as _;

use super::{absent_flag, lit, rust_field_name, PropKind, StructDef};

/// The `Serialize` and `rt::SizeHint` impls of the struct `name`.
pub(super) fn struct_serialize(out: &mut String, name: &str, s: &StructDef) {
    // Serialize. The map is told its exact number of entries: `serde_json::to_value` sizes
    // the object's map by it (with `None` the map grew entry by entry), and a serializer may
    // rely on it being exact.
    let _ = writeln!(
        out,
        "impl Serialize for {name} {{\nfn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {{"
    );
    let always = s
        .props
        .iter()
        .filter(|prop| !prop.absent_kept && !matches!(prop.kind, PropKind::Value { required: false, .. }))
        .count();
    let _ = write!(out, "let entries = {always} + self.extra.len()");
    for prop in &s.props {
        let field = rust_field_name(&prop.key);
        let optional = matches!(prop.kind, PropKind::Value { required: false, .. });
        match (prop.absent_kept, optional) {
            (false, false) => {}
            (false, true) => {
                let _ = write!(out, " + usize::from(!self.{field}.is_absent())");
            }
            (true, false) => {
                let _ = write!(out, " + usize::from(!self.{})", absent_flag(&prop.key));
            }
            (true, true) => {
                let _ = write!(
                    out,
                    " + usize::from(!self.{} && !self.{field}.is_absent())",
                    absent_flag(&prop.key)
                );
            }
        }
    }
    out.push_str(
        ";
let mut map = serializer.serialize_map(Some(entries))?;
",
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
}
