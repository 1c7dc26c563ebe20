//! The wire parts a canonical part can come from, kept so that conversion back is lossless.

use std::borrow::Cow;

use msgflow_wire as w;
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

/// Which message kind a wire part belongs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PartSide {
    /// A part of a `request` message.
    Request,
    /// A part of a `response` message.
    Response,
}

/// A wire part of either message kind.
#[derive(Clone, Debug, PartialEq)]
pub enum WirePart {
    /// A part of a `request` message.
    Request(w::ModelRequestPart),
    /// A part of a `response` message.
    Response(w::ModelResponsePart),
}

impl WirePart {
    /// The message kind the part belongs in.
    pub fn side(&self) -> PartSide {
        match self {
            Self::Request(_) => PartSide::Request,
            Self::Response(_) => PartSide::Response,
        }
    }

    /// The part's `part_kind` as written (`None` when an unknown part has none).
    pub fn part_kind(&self) -> Option<Cow<'_, str>> {
        match self {
            Self::Request(part) => part.tag(),
            Self::Response(part) => part.tag(),
        }
    }
}

impl Serialize for WirePart {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Request(part) => part.serialize(serializer),
            Self::Response(part) => part.serialize(serializer),
        }
    }
}

/// The wire form of a canonical tool call.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolCallOrigin {
    /// A `tool-call` part (a function tool run by the application).
    Function(w::ToolCallPart),
    /// A `builtin-tool-call` part (a tool run by the model provider).
    Builtin(w::NativeToolCallPart),
}

/// The wire form of a canonical tool return.
#[derive(Clone, Debug, PartialEq)]
pub enum ToolReturnOrigin {
    /// A `tool-return` part of a request.
    Function(w::ToolReturnPart),
    /// A `builtin-tool-return` part of a response.
    Builtin(w::NativeToolReturnPart),
    /// A legacy `retry-prompt` part with a `tool_name` (pydantic-ai loads it as a `tool-return`
    /// with outcome `retried`).
    RetryPrompt(w::RetryPromptPart),
}

/// The wire form of canonical retry feedback.
#[derive(Clone, Debug, PartialEq)]
pub enum RetryFeedbackOrigin {
    /// A `retry-feedback` part.
    Feedback(w::RetryFeedbackPart),
    /// A legacy `retry-prompt` part without a `tool_name` (pydantic-ai loads it as `retry-feedback`).
    RetryPrompt(w::RetryPromptPart),
}

macro_rules! delegate_serialize {
    ($ty:ident { $($variant:ident),* }) => {
        impl Serialize for $ty {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                match self {
                    $(Self::$variant(part) => part.serialize(serializer),)*
                }
            }
        }
    };
}

delegate_serialize!(ToolCallOrigin { Function, Builtin });
delegate_serialize!(ToolReturnOrigin {
    Function,
    Builtin,
    RetryPrompt
});
delegate_serialize!(RetryFeedbackOrigin { Feedback, RetryPrompt });

/// The value of `key` when it is a string, read from a JSON object's text.
///
/// Other values are skipped without being converted, so numbers outside `f64`'s range (which
/// msgflow keeps as written) do not stop the lookup.
pub(crate) fn peek_string(raw: &RawValue, key: &str) -> Option<String> {
    struct Peek<'k>(&'k str);

    impl<'de> serde::de::Visitor<'de> for Peek<'_> {
        type Value = Option<String>;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a JSON object")
        }

        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut found = None;
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                if key == self.0 && found.is_none() {
                    found = map.next_value::<serde_json::Value>()?.as_str().map(str::to_owned);
                } else {
                    map.next_value::<serde::de::IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }

    let mut deserializer = serde_json::Deserializer::from_str(raw.get());
    serde::Deserializer::deserialize_map(&mut deserializer, Peek(key))
        .ok()
        .flatten()
}

/// Parses JSON text as `T`, turning the error into the outer deserializer's error.
pub(crate) fn parse_raw<'a, T: Deserialize<'a>, E: serde::de::Error>(raw: &'a RawValue) -> Result<T, E> {
    serde_json::from_str(raw.get()).map_err(E::custom)
}

impl<'de> Deserialize<'de> for ToolCallOrigin {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        match peek_string(&raw, "part_kind").as_deref() {
            Some(w::ToolCallPart::TAG) => parse_raw(&raw).map(Self::Function),
            Some(w::NativeToolCallPart::TAG) => parse_raw(&raw).map(Self::Builtin),
            other => Err(D::Error::custom(format_args!(
                "a tool call's `wire` part must have part_kind \"tool-call\" or \"builtin-tool-call\", not {other:?}"
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for ToolReturnOrigin {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        match peek_string(&raw, "part_kind").as_deref() {
            Some(w::ToolReturnPart::TAG) => parse_raw(&raw).map(Self::Function),
            Some(w::NativeToolReturnPart::TAG) => parse_raw(&raw).map(Self::Builtin),
            Some(w::RetryPromptPart::TAG) => parse_raw(&raw).map(Self::RetryPrompt),
            other => Err(D::Error::custom(format_args!(
                "a tool return's `wire` part must have part_kind \"tool-return\", \"builtin-tool-return\" or \"retry-prompt\", not {other:?}"
            ))),
        }
    }
}

impl<'de> Deserialize<'de> for RetryFeedbackOrigin {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        match peek_string(&raw, "part_kind").as_deref() {
            Some(w::RetryFeedbackPart::TAG) => parse_raw(&raw).map(Self::Feedback),
            Some(w::RetryPromptPart::TAG) => parse_raw(&raw).map(Self::RetryPrompt),
            other => Err(D::Error::custom(format_args!(
                "retry feedback's `wire` part must have part_kind \"retry-feedback\" or \"retry-prompt\", not {other:?}"
            ))),
        }
    }
}
