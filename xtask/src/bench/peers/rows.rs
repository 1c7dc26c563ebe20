//! The peer rows and linearity measurements of `cargo xtask bench` as data: what each row runs on,
//! msgflow's operation, the peer's, and which venv runs it (the measuring is in the parent module).

use super::super::measurement::{Dataset, Size, SMALL_100K, SMALL_10K};

/// What a row runs on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Input {
    /// One of the benchmark histories ([`DATASETS`](super::super::measurement::DATASETS) key).
    History(&'static str),
    /// `count` text deltas of a few characters each.
    TextDeltas(u32),
    /// One tool call's arguments in `count` fragments.
    ArgFragments(u32),
}

impl Input {
    pub(super) fn label(self) -> String {
        match self {
            Input::History(key) => key.to_owned(),
            Input::TextDeltas(count) => format!("{} text deltas", thousands(count)),
            Input::ArgFragments(count) => format!("{} argument fragments", thousands(count)),
        }
    }
}

fn thousands(count: u32) -> String {
    match count {
        count if count % 1_000_000 == 0 => format!("{}M", count / 1_000_000),
        count if count % 1_000 == 0 => format!("{}k", count / 1_000),
        count => count.to_string(),
    }
}

/// Which venv runs the Python side.
#[derive(Clone, Copy)]
pub(super) enum Venv {
    PydanticAi,
    Providers,
    Context,
}

/// One comparison: msgflow's operation and the peer's, on one input.
pub(super) struct Row {
    pub(super) group: &'static str,
    pub(super) what: &'static str,
    pub(super) input: Input,
    pub(super) ours: &'static str,
    pub(super) peer: Option<(&'static str, Venv)>,
}

const fn row(
    group: &'static str,
    what: &'static str,
    input: Input,
    ours: &'static str,
    peer: Option<(&'static str, Venv)>,
) -> Row {
    Row {
        group,
        what,
        input,
        ours,
        peer,
    }
}

const STREAM: &str = "Streaming assembly (pydantic-ai `ModelResponsePartsManager`)";
const PROVIDERS: &str = "Provider export (pydantic-ai's own request mapping)";
const CONTEXT: &str = "Context window (pydantic-ai-harness, Python tiktoken)";
pub(super) const BIG_STRINGS: &str = super::super::measurement::BIG_STRINGS;

pub(super) const ROWS: &[Row] = &[
    row(
        STREAM,
        "text deltas",
        Input::TextDeltas(100_000),
        "stream-text-deltas",
        Some(("stream-text-deltas", Venv::PydanticAi)),
    ),
    row(
        STREAM,
        "text deltas",
        Input::TextDeltas(1_000_000),
        "stream-text-deltas",
        Some(("stream-text-deltas", Venv::PydanticAi)),
    ),
    row(
        STREAM,
        "tool-call argument fragments",
        Input::ArgFragments(100_000),
        "stream-arg-fragments",
        Some(("stream-arg-fragments", Venv::PydanticAi)),
    ),
    row(
        STREAM,
        "tool-call argument fragments",
        Input::ArgFragments(1_000_000),
        "stream-arg-fragments",
        Some(("stream-arg-fragments", Venv::PydanticAi)),
    ),
    row(
        PROVIDERS,
        "export to anthropic",
        Input::History(SMALL_10K),
        "export-anthropic",
        Some(("map-anthropic", Venv::Providers)),
    ),
    row(
        PROVIDERS,
        "export to anthropic",
        Input::History(SMALL_100K),
        "export-anthropic",
        Some(("map-anthropic", Venv::Providers)),
    ),
    row(
        PROVIDERS,
        "export to anthropic",
        Input::History(BIG_STRINGS),
        "export-anthropic",
        Some(("map-anthropic", Venv::Providers)),
    ),
    row(
        PROVIDERS,
        "export to anthropic, CPU caches emptied before each run",
        Input::History(SMALL_10K),
        "export-anthropic-cold",
        None,
    ),
    row(
        PROVIDERS,
        "export to anthropic, CPU caches emptied before each run",
        Input::History(SMALL_100K),
        "export-anthropic-cold",
        None,
    ),
    row(
        PROVIDERS,
        "export to openai-chat",
        Input::History(SMALL_100K),
        "export-openai-chat",
        Some(("map-openai-chat", Venv::Providers)),
    ),
    row(
        PROVIDERS,
        "export to openai-responses",
        Input::History(SMALL_100K),
        "export-openai-responses",
        Some(("map-openai-responses", Venv::Providers)),
    ),
    row(
        PROVIDERS,
        "`check --provider anthropic` (vs the mapping alone)",
        Input::History(SMALL_100K),
        "check-provider-anthropic",
        Some(("map-anthropic", Venv::Providers)),
    ),
    row(
        CONTEXT,
        "trim to a token budget (characters / 4; the harness counts recorded usage)",
        Input::History(SMALL_10K),
        "trim-chars4",
        Some(("harness-sliding-window", Venv::Context)),
    ),
    row(
        CONTEXT,
        "trim to a token budget (characters / 4; the harness counts recorded usage)",
        Input::History(SMALL_100K),
        "trim-chars4",
        Some(("harness-sliding-window", Venv::Context)),
    ),
    row(
        CONTEXT,
        "trim to a token budget (characters / 4), CPU caches emptied before each run",
        Input::History(SMALL_10K),
        "trim-chars4-cold",
        None,
    ),
    row(
        CONTEXT,
        "trim to a token budget (characters / 4), CPU caches emptied before each run",
        Input::History(SMALL_100K),
        "trim-chars4-cold",
        None,
    ),
    row(
        CONTEXT,
        "trim to a token budget (`o200k_base`, msgflow's default)",
        Input::History(SMALL_100K),
        "trim-o200k",
        None,
    ),
    row(
        CONTEXT,
        "count `o200k_base` tokens",
        Input::History(SMALL_100K),
        "count-tokens",
        Some(("tiktoken-o200k", Venv::Providers)),
    ),
    row(
        CONTEXT,
        "count `o200k_base` tokens",
        Input::History(BIG_STRINGS),
        "count-tokens",
        Some(("tiktoken-o200k", Venv::Providers)),
    ),
];

/// One linear-scaling measurement: an operation, the smaller input and the larger one, and
/// whether it is a target (the others are listed for what they show).
pub(super) struct Linearity {
    pub(super) op: &'static str,
    pub(super) base: Input,
    pub(super) large: Input,
    pub(super) target: bool,
}

const fn linearity(op: &'static str, base: Input, large: Input, target: bool) -> Linearity {
    Linearity {
        op,
        base,
        large,
        target,
    }
}

/// The linear-scaling measurements. Each is measured apart from the rows, in [`SCALING_ROUNDS`](super::SCALING_ROUNDS)
/// rounds that alternate the two sizes process by process, and the target reads the median of the
/// rounds' ratios. On a shared VM the time per byte of one process swings by a third from one
/// minute to the next (see BENCHMARKS.md), so two sizes timed minutes apart, as the rows are,
/// compare the machine's moods more than the code.
///
/// The history operations are read where neither size's data stays in the last-level cache
/// between runs (32 MB here; a 10k-message history's parsed form and request fit in it, a 100k
/// one's do not): cold from 10k to 100k messages (the caches emptied before each run), and warm
/// from 100k to 400k for the export and `check --provider`. The warm export from 10k to 100k is listed, not a target: it measures how
/// much of the export is reading memory the cache holds at 10k messages and not at 100k (the
/// instructions per message are the same at both sizes, callgrind says), not how the export
/// grows with the history.
pub(super) const LINEARITY: &[Linearity] = &[
    linearity(
        "stream-text-deltas",
        Input::TextDeltas(100_000),
        Input::TextDeltas(1_000_000),
        true,
    ),
    linearity(
        "stream-arg-fragments",
        Input::ArgFragments(100_000),
        Input::ArgFragments(1_000_000),
        true,
    ),
    linearity(
        "export-anthropic-cold",
        Input::History(SMALL_10K),
        Input::History(SMALL_100K),
        true,
    ),
    linearity(
        "export-anthropic",
        Input::History(SMALL_100K),
        Input::History(SMALL_400K),
        true,
    ),
    linearity(
        "export-anthropic",
        Input::History(SMALL_10K),
        Input::History(SMALL_100K),
        false,
    ),
    linearity(
        "check-provider-anthropic-cold",
        Input::History(SMALL_10K),
        Input::History(SMALL_100K),
        true,
    ),
    linearity(
        "check-provider-anthropic",
        Input::History(SMALL_100K),
        Input::History(SMALL_400K),
        true,
    ),
    linearity(
        "trim-chars4-cold",
        Input::History(SMALL_10K),
        Input::History(SMALL_100K),
        true,
    ),
];

/// A history of the small shape four times the largest of the main benchmark's, for the warm
/// linearity of the export beyond the cache (msgflow only: no peer row runs on it).
pub(super) const SMALL_400K: &str = "small 400k msgs";
pub(super) const SMALL_400K_DATASET: Dataset = Dataset {
    key: SMALL_400K,
    shape: "small",
    size: Size::Messages(400_000),
    with_pydantic: false,
};
