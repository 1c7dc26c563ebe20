//! The refusal every "to" direction gives for a part msgflow cannot yet write as pydantic-ai
//! would: one type, named by its target format, so the three UI and trace writers word it alike.

use std::marker::PhantomData;

/// The format a refusal names (`msgflow does not convert ... to <NAME> yet`).
pub(crate) trait Target {
    const NAME: &'static str;
}

/// A history msgflow cannot write as pydantic-ai would (a part it does not convert yet), at its
/// JSON path in the history.
#[derive(Debug)]
pub(crate) struct Unsupported<T: Target> {
    pub(crate) path: String,
    pub(crate) message: String,
    // `fn() -> T`: the error names its target and holds none, so it crosses threads whatever `T` is.
    target: PhantomData<fn() -> T>,
}

impl<T: Target> Unsupported<T> {
    pub(crate) fn at(path: impl Into<String>, what: impl Into<String>) -> Self {
        Unsupported {
            path: path.into(),
            message: format!("msgflow does not convert {} to {} yet", what.into(), T::NAME),
            target: PhantomData,
        }
    }

    /// A refusal pydantic-ai shares: it does not load `what` (`why`), so there is nothing to
    /// write as it would.
    pub(crate) fn not_loaded(path: impl Into<String>, what: &str, why: &str) -> Self {
        Unsupported {
            path: path.into(),
            message: format!(
                "pydantic-ai 2.68.0 does not load {what} ({why}), so msgflow does not convert it to {}",
                T::NAME
            ),
            target: PhantomData,
        }
    }

    /// A refusal pydantic-ai shares: it loads `what` but raises writing it (`why`).
    pub(crate) fn not_written(path: impl Into<String>, what: &str, why: &str) -> Self {
        Unsupported {
            path: path.into(),
            message: format!(
                "pydantic-ai 2.68.0 raises writing {what} to {} ({why}), so msgflow does not convert it",
                T::NAME
            ),
            target: PhantomData,
        }
    }

    /// The bytes of a binary item's `data`, at `path` (the item's), or pydantic-ai's refusal of
    /// data that is not base64.
    pub(crate) fn binary_data(data: &serde_json::Value, path: &str) -> Result<Vec<u8>, Self> {
        crate::binary_bytes(data).ok_or_else(|| {
            Unsupported::not_loaded(
                format!("{path}.data"),
                "binary data that is not base64",
                "`data` is base64",
            )
        })
    }

    /// A part of a kind pydantic-ai 2.68.0 does not have (or not in that message): the writers
    /// write every kind it has, so any other is one it does not load.
    pub(crate) fn part(path: String, kind: &str) -> Self {
        Unsupported::not_loaded(path, &format!("a `{kind}` part"), "an unknown `part_kind`")
    }
}
