//! [`Extra`] and [`UnknownObject`]: what msgflow reads but does not know, kept for writing back.

use serde::ser::{SerializeMap, Serializer};
use serde::Serialize;

use crate::RawJson;

/// The keys of a wire object that its schema does not name, in input order.
///
/// pydantic-ai drops unknown keys (except on usage, where it re-emits them after `cost`);
/// msgflow keeps them and writes them back after the known keys, so that a history written by
/// a newer release or another tool survives a round trip.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Extra(Vec<(String, RawJson)>);

impl Extra {
    /// No unknown keys.
    pub fn new() -> Self {
        Self::default()
    }

    /// `true` when there are no unknown keys.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many unknown keys there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The value of an unknown key (the last one, if it was written twice).
    pub fn get(&self, key: &str) -> Option<&RawJson> {
        self.0
            .iter()
            .rev()
            .find(|(name, _)| name == key)
            .map(|(_, value)| value)
    }

    /// Appends a key, or replaces its value when it is already there.
    pub fn insert(&mut self, key: impl Into<String>, value: RawJson) {
        let key = key.into();
        match self.0.iter_mut().find(|(name, _)| *name == key) {
            Some(slot) => slot.1 = value,
            None => self.0.push((key, value)),
        }
    }

    /// Removes a key and returns its value.
    pub fn remove(&mut self, key: &str) -> Option<RawJson> {
        let index = self.0.iter().position(|(name, _)| name == key)?;
        Some(self.0.remove(index).1)
    }

    /// The keys and values in input order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &RawJson)> {
        self.0.iter().map(|(name, value)| (name.as_str(), value))
    }

    /// Appends without looking for an earlier key of the same name (duplicates are kept as read).
    pub(crate) fn push(&mut self, key: String, value: RawJson) {
        self.0.push((key, value));
    }

    pub(crate) fn serialize_into<M: SerializeMap>(&self, map: &mut M) -> Result<(), M::Error> {
        for (key, value) in &self.0 {
            map.serialize_entry(key, value)?;
        }
        Ok(())
    }
}

/// A JSON object of a kind msgflow does not know (a part or content item from a newer
/// pydantic-ai), kept whole and written back unchanged.
///
/// ```
/// use msgflow_wire::UnknownObject;
/// let object = UnknownObject::from_json_text(r#"{"content":"x","part_kind":"hologram"}"#).unwrap();
/// assert_eq!(object.tag("part_kind").as_deref(), Some("hologram"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UnknownObject {
    entries: Extra,
}

impl UnknownObject {
    /// Parses a JSON object.
    pub fn from_json_text(text: &str) -> Result<Self, serde_json::Error> {
        let map: serde_json::Map<String, serde_json::Value> = serde_json::from_str(text)?;
        let mut entries = Extra::new();
        for (key, value) in map {
            entries.push(key, RawJson::from(value));
        }
        Ok(UnknownObject { entries })
    }

    pub(crate) fn from_extra(entries: Extra) -> Self {
        UnknownObject { entries }
    }

    /// The string value of a key such as `part_kind` or `kind`.
    pub fn tag(&self, key: &str) -> Option<String> {
        self.entries.get(key).and_then(RawJson::as_string)
    }

    /// The value of a key.
    pub fn get(&self, key: &str) -> Option<&RawJson> {
        self.entries.get(key)
    }

    /// All keys and values in input order.
    pub fn entries(&self) -> &Extra {
        &self.entries
    }
}

impl Serialize for UnknownObject {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.entries.len()))?;
        self.entries.serialize_into(&mut map)?;
        map.end()
    }
}
