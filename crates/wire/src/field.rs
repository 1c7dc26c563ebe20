//! [`Field`]: an optional wire field that remembers whether it was absent, `null` or set.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An optional key of a wire object.
///
/// pydantic-ai 2.68.0 writes every key, `null` included, but older releases and other tools leave
/// keys out. `Option<T>` cannot tell "absent" from "`null`", so msgflow keeps three states and
/// writes back exactly what it read: an absent key stays absent, a `null` stays `null`.
///
/// ```
/// use msgflow_wire::Field;
/// let id: Field<String> = Field::Present("call_1".to_owned());
/// assert_eq!(id.get().map(String::as_str), Some("call_1"));
/// assert!(Field::<String>::Null.get().is_none());
/// assert!(Field::<String>::Absent.is_absent());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Field<T> {
    /// The key was not in the object (it is not written back).
    #[default]
    Absent,
    /// The key was present with the value `null`.
    Null,
    /// The key was present with a value.
    Present(T),
}

impl<T> Field<T> {
    /// The value, if the key holds one.
    pub fn get(&self) -> Option<&T> {
        match self {
            Field::Present(value) => Some(value),
            Field::Absent | Field::Null => None,
        }
    }

    /// The value, mutably, if the key holds one.
    pub fn get_mut(&mut self) -> Option<&mut T> {
        match self {
            Field::Present(value) => Some(value),
            Field::Absent | Field::Null => None,
        }
    }

    /// Consumes the field and returns its value, if any.
    pub fn into_option(self) -> Option<T> {
        match self {
            Field::Present(value) => Some(value),
            Field::Absent | Field::Null => None,
        }
    }

    /// `true` when the key was not in the object.
    pub fn is_absent(&self) -> bool {
        matches!(self, Field::Absent)
    }

    /// `true` when the key was present with `null`.
    pub fn is_null(&self) -> bool {
        matches!(self, Field::Null)
    }

    /// `true` when the key holds a value.
    pub fn is_present(&self) -> bool {
        matches!(self, Field::Present(_))
    }

    /// A field that borrows the value.
    pub fn as_ref(&self) -> Field<&T> {
        match self {
            Field::Absent => Field::Absent,
            Field::Null => Field::Null,
            Field::Present(value) => Field::Present(value),
        }
    }

    /// Maps the value, keeping absent and `null` as they are.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Field<U> {
        match self {
            Field::Absent => Field::Absent,
            Field::Null => Field::Null,
            Field::Present(value) => Field::Present(f(value)),
        }
    }
}

impl<T> From<Option<T>> for Field<T> {
    /// `None` becomes `null` (what pydantic-ai writes for an unset optional field).
    fn from(value: Option<T>) -> Self {
        match value {
            Some(value) => Field::Present(value),
            None => Field::Null,
        }
    }
}

impl<T: Serialize> Serialize for Field<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Absent fields are skipped by the generated struct serializers before this is reached;
        // standing alone, absent and null both serialize as `null`.
        match self {
            Field::Present(value) => value.serialize(serializer),
            Field::Absent | Field::Null => serializer.serialize_none(),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Field<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        Ok(Option::<T>::deserialize(deserializer)?.into())
    }
}
