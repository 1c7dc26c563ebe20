//! What the verdict differential records per input: each side's answer and the disagreements.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::mutate::Mutation;

/// One input judged by both sides.
pub(super) struct Case {
    pub(super) id: String,
    /// The input file, relative to the verdict work dir.
    pub(super) input: String,
    /// What the input is: the mutation (with its base) or the real-world file.
    pub(super) origin: Origin,
    pub(super) msgflow: MsgflowSide,
}

pub(super) enum Origin {
    Mutation {
        base: String,
        mutation: Box<Mutation>,
        /// The mutated history reduced to the one message the mutation is in (a smaller
        /// fixture when it shows the same disagreement; None for edits of the list itself).
        reduced: Option<String>,
    },
    RealWorld {
        name: String,
    },
    /// Mutated histories joined into one long enough for the verdict's parallel walk (which
    /// checks a history of [`LONG_MESSAGES`] messages or more in chunks).
    Long {
        messages: usize,
    },
    /// The one-message reduction of a disagreement, for its fixture.
    Reduced {
        fixture: String,
    },
    /// An any-flavour history of `msgflow_wire::arbitrary`, judged whole as msgflow writes it
    /// (or, `pretty`, re-indented). Its disagreements are grouped by what differs
    /// ([`any_base_group`]), as no mutation names them.
    AnyBase {
        name: String,
        pretty: bool,
    },
}

impl Origin {
    /// The disagreement group: mutations probing the same rule, or one real-world file.
    pub(super) fn group(&self) -> String {
        match self {
            Origin::Mutation { mutation, .. } => mutation.key(),
            Origin::RealWorld { name } => format!("realworld {name}"),
            Origin::Long { .. } => "long history".to_owned(),
            Origin::Reduced { fixture } => format!("reduced {fixture}"),
            Origin::AnyBase { .. } => "any-flavour base".to_owned(),
        }
    }

    pub(super) fn describe(&self) -> String {
        match self {
            Origin::Mutation { base, mutation, .. } => format!("{} (base {base})", mutation.describe()),
            Origin::RealWorld { name } => format!("real-world history {name}"),
            Origin::Long { messages } => format!("{messages} messages of mutated histories joined"),
            Origin::Reduced { fixture } => format!("one-message reduction of fixture {fixture}"),
            Origin::AnyBase { name, pretty } => format!(
                "any-flavour history {name}{}, as it is",
                if *pretty { " (re-indented)" } else { "" }
            ),
        }
    }
}

/// msgflow's answer for one input.
#[derive(Serialize)]
pub(super) struct MsgflowSide {
    pub(super) loadable: bool,
    /// Set when `msgflow_wire::from_str` refuses the input (no reasons to compare then).
    pub(super) parse_error: Option<String>,
    pub(super) reasons: Vec<ReasonRow>,
    /// The `fmt` output's file name, when msgflow parsed and wrote the input.
    pub(super) fmt: Option<String>,
    /// Why the `fmt` output does not have the input's JSON value (None when it has).
    pub(super) fmt_changes_value: Option<String>,
}

#[derive(Serialize)]
pub(super) struct ReasonRow {
    #[serde(rename = "type")]
    pub(super) error_type: String,
    pub(super) loc: Value,
    pub(super) at: String,
    pub(super) message: String,
}

/// One row of `verdict_oracle.py judge`'s report.
#[derive(Deserialize)]
pub(super) struct OracleRow {
    pub(super) id: String,
    pub(super) loadable: bool,
    pub(super) errors: Vec<OracleError>,
    pub(super) fmt_redump_equal: Option<bool>,
    pub(super) fmt_detail: Option<String>,
}

#[derive(Deserialize, Serialize, Clone)]
pub(super) struct OracleError {
    #[serde(rename = "type")]
    pub(super) error_type: String,
    pub(super) loc: Value,
    #[serde(default)]
    pub(super) msg: String,
}

/// A disagreement, as written to `disagreements.json` and printed.
#[derive(Serialize)]
pub(super) struct Disagreement {
    #[serde(skip)]
    pub(super) reduced: Option<String>,
    /// The any-flavour base the input is (or is a mutation of).
    #[serde(skip)]
    pub(super) any_base: Option<String>,
    pub(super) kind: &'static str,
    pub(super) group: String,
    pub(super) what: String,
    pub(super) input: PathBuf,
    pub(super) input_bytes: usize,
    pub(super) pydantic_loadable: bool,
    pub(super) pydantic_errors: Vec<OracleError>,
    pub(super) msgflow: Value,
    pub(super) detail: Option<String>,
}
