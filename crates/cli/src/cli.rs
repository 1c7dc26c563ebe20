//! The command-line interface: arguments and subcommands (clap derive).
//!
//! To add a subcommand: add a variant to [`Command`] with its `Args` struct (flattening
//! [`InputArgs`] and [`OutputArgs`] or [`ReportOutputArgs`]), implement
//! [`crate::runner::FileCommand`] for it in `commands/`, and add one arm in `commands::dispatch`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

/// msgflow: read, format, inspect and validate pydantic-ai message histories.
#[derive(Debug, Parser)]
#[command(
    name = "msgflow",
    version,
    propagate_version = true,
    after_help = concat!(
        "Inputs: FILE, `-` or nothing for stdin, or several files and directories (batch mode; a directory\n",
        "means the *.json files directly inside it, add -r for subdirectories).\n\n",
        "Examples:\n",
        "  msgflow fmt history.json -o compact.json\n",
        "  msgflow show history.json | less -R\n",
        "  msgflow stats --json runs/\n",
        "  msgflow check -r runs/\n",
        "  msgflow repair --in-place --backup history.json\n\n",
        exit_codes_text!()
    )
)]
pub struct Cli {
    /// The subcommand to run.
    #[command(subcommand)]
    pub command: Command,
}

/// Every subcommand.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Rewrite a history in pydantic-ai's compact JSON form (as `dump_json` writes it).
    #[command(after_help = FMT_HELP)]
    Fmt(FmtArgs),
    /// Print a history as a readable transcript.
    #[command(after_help = SHOW_HELP)]
    Show(ShowArgs),
    /// Count messages, parts, tool calls, tokens and cost.
    #[command(after_help = STATS_HELP)]
    Stats(StatsArgs),
    /// Convert a history to msgflow's canonical JSON form.
    #[command(after_help = CANONICAL_HELP)]
    Canonical(CanonicalArgs),
    /// Convert canonical JSON back to a pydantic-ai history.
    #[command(after_help = WIRE_HELP)]
    Wire(WireArgs),
    /// Find what a provider would reject or pydantic-ai would change (dangling calls, orphan results...).
    #[command(after_help = CHECK_HELP)]
    Check(CheckArgs),
    /// Repair a history as pydantic-ai's repair_messages does, reporting every change.
    #[command(after_help = REPAIR_HELP)]
    Repair(RepairArgs),
    /// Print the request pydantic-ai would send for a history to a provider (JSON).
    #[command(after_help = EXPORT_HELP)]
    Export(ExportArgs),
    /// Convert between pydantic-ai histories and other formats (OpenAI Chat, Vercel AI UI messages), reporting every loss.
    #[command(name = "convert", after_help = CONVERT_HELP)]
    ConvertFormat(ConvertFormatArgs),
    /// Fit a history into a token, turn or byte budget: clear, clamp, keep the newest whole turns.
    #[command(after_help = TRIM_HELP)]
    Trim(TrimArgs),
    /// Move inline images, documents and audio out to content-addressed files, or back in.
    #[command(after_help = MEDIA_HELP)]
    Media(MediaArgs),
    /// Rebuild the history a streamed run recorded from its event log (JSON Lines), interrupted streams included.
    #[command(after_help = ASSEMBLE_HELP)]
    Assemble(AssembleArgs),
    /// Export the tool-call registry (lifecycle of every tool call) as JSON, or guidance hints.
    #[command(after_help = TOOLS_HELP)]
    Tools(ToolsArgs),
    /// Print a JSON Schema: the wire format, the canonical form or the registry export.
    #[command(after_help = SCHEMA_HELP)]
    Schema(SchemaArgs),
    /// Print a shell completion script.
    #[command(after_help = COMPLETIONS_HELP)]
    Completions(CompletionsArgs),
}

/// Which inputs to read.
#[derive(Debug, Args, Clone, Default)]
pub struct InputArgs {
    /// History files or directories; `-` or nothing reads standard input. Several inputs or a
    /// directory switch to batch mode.
    #[arg(value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// In batch mode, also read *.json files in subdirectories.
    #[arg(short = 'r', long)]
    pub recursive: bool,
    /// Refuse inputs larger than BYTES (checked before reading a file); no limit by default.
    #[arg(long, value_name = "BYTES")]
    pub max_input_bytes: Option<u64>,
}

/// Corpora: many histories in one JSON Lines or Parquet file, one per row.
#[derive(Debug, Args, Clone)]
pub struct CorpusArgs {
    /// Read the input as JSON Lines, one history per line, whatever its name (`*.jsonl` and
    /// `*.ndjson` files are read so anyway; `-` reads them from standard input).
    #[arg(long)]
    pub jsonl: bool,
    /// JSON Lines: each line is an object holding the history in field NAME (an array, or a
    /// string of its JSON); the other fields are kept as they are in a rewritten corpus.
    #[arg(long, value_name = "NAME")]
    pub field: Option<String>,
    /// Parquet: the string or binary column of history JSON (a `*.parquet` input needs it).
    #[arg(long, value_name = "NAME")]
    pub column: Option<String>,
    /// Name each row in results by this field (JSON Lines, with --field) or column (Parquet; string
    /// or integer).
    #[arg(long, value_name = "NAME")]
    pub id_column: Option<String>,
    /// Writing commands: a row that holds no history or that the command fails on is reported,
    /// then written unchanged (pass) or left out (drop).
    #[arg(long, value_enum, default_value_t = OnError::Pass, value_name = "WHAT")]
    pub on_error: OnError,
    /// Rows read, processed in parallel and written at a time (memory is bounded by this, not by
    /// the corpus).
    #[arg(long, value_name = "N", default_value_t = msgflow_corpus::DEFAULT_BATCH_ROWS,
          value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..))]
    pub batch_rows: usize,
    /// Worker threads for the rows of a corpus (default: one per core, or RAYON_NUM_THREADS).
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1024))]
    pub threads: Option<usize>,
}

/// What a writing command does with a corpus row it fails on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum OnError {
    /// Write the row unchanged (nothing is lost).
    #[default]
    Pass,
    /// Leave the row out of the new corpus.
    Drop,
}

/// Where a rewritten history goes.
#[derive(Debug, Args, Clone, Default)]
pub struct OutputArgs {
    /// Write to FILE instead of standard output (`-` is stdout); in batch mode, a directory DIR
    /// that receives one file per input.
    #[arg(short = 'o', long, value_name = "FILE|DIR", conflicts_with = "in_place")]
    pub output: Option<PathBuf>,
    /// Rewrite each input file atomically (never half-written; untouched if anything fails).
    #[arg(short = 'i', long)]
    pub in_place: bool,
    /// With --in-place, keep the original as FILE.bak (overwriting an older one).
    #[arg(long, requires = "in_place")]
    pub backup: bool,
}

/// Whether a history that pydantic-ai would not load may be written.
#[derive(Debug, Args, Clone, Copy, Default)]
pub struct StrictArgs {
    /// Refuse to write a history pydantic-ai 2.68.0 would not load (exit 2, nothing written, the
    /// input untouched). Without it such a history is written, with a warning naming the first reason.
    #[arg(long)]
    pub strict: bool,
}

/// Where a report goes.
#[derive(Debug, Args, Clone, Default)]
pub struct ReportOutputArgs {
    /// Write the report to FILE instead of standard output (`-` is stdout); in batch mode, all
    /// files' reports go to this one file.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// `msgflow fmt`.
#[derive(Debug, Args)]
pub struct FmtArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub strict: StrictArgs,
    /// Write nothing; exit 1 if an input is not already in compact form.
    #[arg(long, conflicts_with_all = ["output", "in_place"])]
    pub check: bool,
}

/// When to colour the output.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum ColorChoice {
    /// Colour when writing to a terminal and NO_COLOR is not set.
    #[default]
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

/// `msgflow show`.
#[derive(Debug, Args)]
pub struct ShowArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: ReportOutputArgs,
    /// When to use colours.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN")]
    pub color: ColorChoice,
    /// Wrap text at this many columns (default: the terminal's width, or 100).
    #[arg(long, value_name = "COLUMNS", value_parser = clap::value_parser!(u16).range(20..))]
    pub width: Option<u16>,
    /// Show tool arguments and output whole instead of truncating them.
    #[arg(long)]
    pub full: bool,
    /// Lines of tool arguments and output shown before truncating (ignored with --full).
    #[arg(long, value_name = "N", default_value_t = 12, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_lines: u32,
    /// Write a self-contained HTML page instead (msgflow-transcript): the chat, check's findings
    /// at their messages, media, and a token chart. In batch mode -o DIR gets one page per input
    /// and an index.html.
    #[arg(long, conflicts_with_all = ["color", "width", "full", "max_lines"])]
    pub html: bool,
    /// With --html: also mark what this provider would reject (as `check --provider` does).
    #[arg(long, value_name = "PROVIDER", requires = "html", value_parser = crate::commands::parse_provider)]
    pub provider: Option<msgflow_providers::Provider>,
    /// With --html: draw the cumulative token count against a context window of N tokens.
    #[arg(long, value_name = "N", requires = "html")]
    pub context_window: Option<u64>,
    /// With --html: the token counter of the chart (as `stats --tokens --tokenizer`).
    #[arg(long, value_name = "NAME", default_value = "o200k_base", requires = "html",
          value_parser = crate::commands::parse_tokenizer)]
    pub tokenizer: String,
}

/// `msgflow stats`.
#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub output: ReportOutputArgs,
    /// Print JSON instead of a table (JSON Lines, one object per file, in batch mode).
    #[arg(long)]
    pub json: bool,
    /// Count tokens per message and part kind with a real tokenizer instead (see --tokenizer).
    #[arg(long)]
    pub tokens: bool,
    /// With --tokens: o200k_base, cl100k_base, chars4 (pydantic-ai-harness's estimate) or
    /// calibrated (o200k_base scaled to the history's recorded usage.input_tokens).
    #[arg(long, value_name = "NAME", default_value = "o200k_base", requires = "tokens",
          value_parser = crate::commands::parse_tokenizer)]
    pub tokenizer: String,
}

/// `msgflow trim`.
#[derive(Debug, Args)]
pub struct TrimArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub strict: StrictArgs,
    /// Keep the newest whole turns that fit in N tokens (counted by --tokenizer).
    #[arg(long, value_name = "N", group = "budget")]
    pub max_tokens: Option<usize>,
    /// Keep the newest N turns (a turn starts where the user speaks).
    #[arg(long, value_name = "N", group = "budget", value_parser = clap::value_parser!(u64).range(1..))]
    pub keep_turns: Option<u64>,
    /// Keep the newest whole turns that fit in N bytes of compact JSON.
    #[arg(long, value_name = "N", group = "budget")]
    pub max_bytes: Option<usize>,
    /// The token counter: o200k_base, cl100k_base, chars4 or calibrated.
    #[arg(long, value_name = "NAME", default_value = "o200k_base", value_parser = crate::commands::parse_tokenizer)]
    pub tokenizer: String,
    /// First replace the content of tool results older than the newest K turns with a placeholder
    /// naming the tool and the size (calls, returns and ids stay).
    #[arg(long, value_name = "K")]
    pub clear_tool_results_older_than: Option<usize>,
    /// First clear as pydantic-ai-harness's ClearToolResults(keep_pairs=N) does (its placeholder
    /// and metadata mark).
    #[arg(long, value_name = "KEEP_PAIRS")]
    pub harness_clear: Option<usize>,
    /// Then cut text, thinking, user prompt text and tool output over BYTES to head and tail (a
    /// marker between); at least 128.
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(128..))]
    pub clamp_parts: Option<u64>,
    /// Then clamp as pydantic-ai-harness's ClampOversizedMessages(max_part_chars=N) does
    /// (response text and tool-call arguments, 2000 characters of head and of tail kept).
    #[arg(long, value_name = "MAX_PART_CHARS", value_parser = clap::value_parser!(u64).range(1..))]
    pub harness_clamp: Option<u64>,
    /// Print what each step would reclaim instead of writing the history.
    #[arg(long)]
    pub dry_run: bool,
    /// Also write the report (every removed message, cleared result and clamped part) as JSON
    /// to FILE (single input only).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
}

/// `msgflow media`.
#[derive(Debug, Args)]
pub struct MediaArgs {
    /// Which way.
    #[command(subcommand)]
    pub action: MediaAction,
}

/// `msgflow media extract` / `inline`.
#[derive(Debug, Subcommand)]
pub enum MediaAction {
    /// Move every inline binary item into DIR/<sha256>.<ext>, leaving a reference pydantic-ai loads.
    Extract(MediaDirArgs),
    /// Put back the bytes of every reference from DIR (byte for byte the history before extract).
    Inline(MediaDirArgs),
}

/// The arguments of `media extract` and `media inline`.
#[derive(Debug, Args)]
pub struct MediaDirArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub strict: StrictArgs,
    /// The media directory (created by extract if missing).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
}

/// `msgflow canonical`.
#[derive(Debug, Args)]
pub struct CanonicalArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// Pretty-print (indented) instead of compact JSON.
    #[arg(long)]
    pub pretty: bool,
}

/// `msgflow wire`.
#[derive(Debug, Args)]
pub struct WireArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub strict: StrictArgs,
}

/// `msgflow check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub output: ReportOutputArgs,
    /// Print the violations as JSON (JSON Lines, one object per file, in batch mode):
    /// `valid` (no violations: exit 0), `pydantic_ai_loadable` (pydantic-ai 2.68.0 would load the
    /// history; a dangling call loads, yet is a violation), `turns`, `violations`, `notes`.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 exactly when pydantic-ai 2.68.0 would not load the input, whether or not msgflow's
    /// own types can hold it (not JSON, not a history, or `pydantic_ai_loadable: false`), and 0
    /// when it would, whatever else is found.
    #[arg(long, conflicts_with = "provider")]
    pub require_loadable: bool,
    /// Check against a provider's rules instead, on the request msgflow would export:
    /// anthropic, openai-chat, openai-responses or gemini.
    #[arg(long, visible_alias = "to", value_name = "PROVIDER", value_parser = crate::commands::parse_provider)]
    pub provider: Option<msgflow_providers::Provider>,
    #[command(flatten)]
    pub profile: ProfileArgs,
}

/// The model profile's settings that change a provider's request (`export`, `check --provider`).
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// How OpenAI Chat sends thinking back (the profile's `openai_chat_send_back_thinking_parts`):
    /// auto (gpt-4o's default: a part from a `reasoning`-like field of OpenAI's goes back in it,
    /// others as <think> text), tags, field:NAME (every part in the field NAME) or off.
    #[arg(long, value_name = "MODE", value_parser = crate::commands::parse_chat_thinking)]
    pub openai_chat_thinking: Option<msgflow_providers::openai_chat::ChatThinking>,
    /// Where Anthropic gets reasoning it cannot take back as the model's own thinking block
    /// (unsigned, or another provider's; the profile's `mimics_assistant_message_formatting`):
    /// user-turn (claude-sonnet-4-5's default: an <assistant_thinking> frame in a user turn ahead
    /// of the reply) or assistant-turn (<thinking> text in the reply itself).
    #[arg(long, value_name = "WHERE", value_parser = crate::commands::parse_replayed_thinking)]
    pub anthropic_thinking: Option<msgflow_providers::ReplayedThinking>,
    /// Where OpenAI Chat and Responses put reasoning they write out as text (another provider's,
    /// or any with --openai-chat-thinking tags; the profile's `mimics_assistant_message_formatting`):
    /// assistant-turn (gpt-4o's and gpt-5's default: <think> text in the reply itself) or
    /// user-turn (an <assistant_thinking> frame in a user turn ahead of the reply).
    #[arg(long, value_name = "WHERE", value_parser = crate::commands::parse_replayed_thinking)]
    pub openai_thinking: Option<msgflow_providers::ReplayedThinking>,
}

/// `msgflow repair`.
#[derive(Debug, Args)]
pub struct RepairArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    /// The content of the results synthesized for dangling tool calls (default: pydantic-ai's
    /// "The tool call was interrupted before a result was produced."), e.g. '[Aborted by user]'.
    #[arg(long, value_name = "TEXT")]
    pub message: Option<String>,
    #[command(flatten)]
    pub strict: StrictArgs,
    /// Leave the dangling calls of the last response alone (a run that will still answer them).
    #[arg(long)]
    pub keep_last_response: bool,
    /// Also resolve what pydantic-ai's repair leaves, where nothing is lost silently: remove
    /// builtin tool calls without their return and messages without parts (each kept whole in
    /// the report). Without it the output is exactly pydantic-ai's.
    #[arg(long)]
    pub resolve_remaining: bool,
    /// Also write the list of changes as JSON to FILE (single input only).
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// After pydantic-ai's repair, fix what this provider would still reject (anthropic,
    /// openai-chat, openai-responses or gemini); exit 1 if something is left that it cannot fix.
    #[arg(long, visible_alias = "to", value_name = "PROVIDER", value_parser = crate::commands::parse_provider)]
    pub provider: Option<msgflow_providers::Provider>,
}

/// `msgflow export`.
#[derive(Debug, Args)]
pub struct ExportArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub corpus: CorpusArgs,
    #[command(flatten)]
    pub output: ReportOutputArgs,
    /// The provider whose request to build: anthropic, openai-chat or openai-responses.
    #[arg(long, visible_alias = "provider", value_name = "PROVIDER", value_parser = crate::commands::parse_provider)]
    pub to: msgflow_providers::Provider,
    #[command(flatten)]
    pub profile: ProfileArgs,
}

/// `msgflow convert`.
#[derive(Debug, Args)]
pub struct ConvertFormatArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Write to FILE instead of standard output (`-` is stdout); in batch mode, a directory DIR
    /// that receives one file per input.
    #[arg(short = 'o', long, value_name = "FILE|DIR")]
    pub output: Option<PathBuf>,
    /// The input's format: pydantic-ai, openai-chat, anthropic, vercel-ui or ag-ui.
    #[arg(long, value_name = "FORMAT", default_value = "pydantic-ai", value_parser = parse_format)]
    pub from: msgflow_formats::Format,
    /// The output's format: pydantic-ai, openai-chat, anthropic, vercel-ui, ag-ui or otel.
    #[arg(long, value_name = "FORMAT", default_value = "pydantic-ai", value_parser = parse_format)]
    pub to: msgflow_formats::Format,
    /// Refuse any loss: exit 2 and write nothing when the conversion would drop, invent or change
    /// a value (or write a history pydantic-ai 2.68.0 would not load).
    #[arg(long)]
    pub strict: bool,
    /// For the UI formats (vercel-ui, ag-ui): keep what pydantic-ai's adapters drop, so that a history
    /// converted to the UI format and back is unchanged (off: exactly pydantic-ai's adapters).
    #[arg(long)]
    pub lossless: bool,
    /// The Vercel AI SDK version vercel-ui output is for: 5, or 6 (tool calls awaiting a result
    /// as `approval-requested`).
    #[arg(long, value_name = "VERSION", default_value_t = 5, value_parser = clap::value_parser!(u8).range(5..=6))]
    pub vercel_sdk: u8,
    /// The pydantic-ai instrumentation version otel output is for (`InstrumentationSettings(version=...)`):
    /// 2 to 6; pydantic-ai 2.68.0's default is 5 (6 puts tool results in the `tool` role).
    #[arg(long, value_name = "VERSION", default_value_t = msgflow_formats::otel::DEFAULT_VERSION, value_parser = clap::value_parser!(u8).range(1..=6))]
    pub otel_version: u8,
}

fn parse_format(name: &str) -> Result<msgflow_formats::Format, String> {
    name.parse()
}

/// `msgflow assemble`.
#[derive(Debug, Args)]
pub struct AssembleArgs {
    /// The event log: pydantic-ai stream events, one JSON object per line; `-` or nothing reads
    /// standard input.
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub strict: StrictArgs,
    /// The history the run started from: the assembled messages are appended to it (with
    /// --in-place, this file is rewritten).
    #[arg(long, value_name = "FILE")]
    pub history: Option<PathBuf>,
    /// Report on stderr as one JSON object: events read, responses and parts built, whether the
    /// stream completed, what was cut.
    #[arg(long)]
    pub json: bool,
    /// The responses' `timestamp` (RFC 3339); the current time by default.
    #[arg(long, value_name = "TIME")]
    pub timestamp: Option<String>,
    /// The responses' `model_name`.
    #[arg(long, value_name = "NAME")]
    pub model_name: Option<String>,
    /// The responses' `provider_name`.
    #[arg(long, value_name = "NAME")]
    pub provider_name: Option<String>,
}

/// `msgflow tools`.
#[derive(Debug, Args)]
pub struct ToolsArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub output: ReportOutputArgs,
    /// Print guidance hints for the next model turn (one per line) instead of the export.
    #[arg(long)]
    pub guidance: bool,
}

/// Which schema `msgflow schema` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum SchemaKind {
    /// pydantic-ai's message history wire format (schema/pydantic-ai-messages.schema.json).
    #[default]
    Wire,
    /// msgflow's canonical message form.
    Canonical,
    /// The tool-call registry export (`msgflow tools`).
    Registry,
}

/// `msgflow schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// The schema to print.
    #[arg(value_enum, default_value_t = SchemaKind::Wire)]
    pub kind: SchemaKind,
    #[command(flatten)]
    pub output: ReportOutputArgs,
}

/// `msgflow completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to generate completions for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

const FMT_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow fmt history.json > compact.json\n",
    "  cat history.json | msgflow fmt - -o compact.json\n",
    "  msgflow fmt --in-place --backup history.json    # keeps history.json.bak\n",
    "  msgflow fmt --in-place -r histories/            # batch: every *.json, in parallel\n",
    "  msgflow fmt --check histories/                  # exit 1 if any file would change\n\n",
    "The output has no trailing newline, exactly like pydantic-ai's dump_json.\n",
    "A history pydantic-ai 2.68.0 would not load is written with a warning, or refused with --strict.\n",
    "In batch mode fmt needs --in-place or -o DIR.\n\n",
    "With --check, exit status 1 means some input is not in compact form.\n\n",
    exit_codes_text!()
);

const SHOW_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow show history.json\n",
    "  msgflow show --full --color always history.json | less -R\n",
    "  msgflow show --width 80 histories/              # batch: one section per file\n",
    "  msgflow show --html history.json -o session.html\n",
    "  msgflow show --html --provider anthropic --context-window 200000 runs/ -o pages/  # one page each + index.html\n\n",
    exit_codes_text!()
);

const STATS_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow stats history.json\n",
    "  msgflow stats --json history.json | jq .tokens\n",
    "  msgflow stats --json -r runs/ > stats.jsonl     # batch: one JSON object per line\n",
    "  msgflow stats --tokens --tokenizer cl100k_base history.json\n\n",
    exit_codes_text!()
);

const CANONICAL_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow canonical history.json > canonical.json\n",
    "  msgflow canonical --pretty history.json | less\n",
    "  msgflow canonical -r -o canonical/ histories/    # batch: one output file per input\n\n",
    "`msgflow wire` converts the output back, byte for byte.\n\n",
    exit_codes_text!()
);

const WIRE_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow wire canonical.json > history.json\n",
    "  msgflow canonical history.json | msgflow wire - | cmp - history.json\n\n",
    "The input is canonical JSON as `msgflow canonical` writes it (`msgflow schema canonical`).\n\n",
    exit_codes_text!()
);

const CHECK_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow check history.json\n",
    "  msgflow check --provider anthropic history.json    # the 400s Anthropic would answer, and where\n",
    "  msgflow check --json history.json | jq '.violations[].kind'\n",
    "  msgflow check --require-loadable history.json      # exit 1 only if pydantic-ai would not load it\n",
    "  msgflow check -r histories/                      # batch: exit 1 if any file has problems\n\n",
    "Exit status 1 means at least one violation was found; a history pydantic-ai 2.68.0 would not load\n",
    "always has one (not-loadable) when msgflow's types can hold it, and exits 2 (not a pydantic-ai\n",
    "message history) when they cannot. With --require-loadable: 0 when pydantic-ai would load the input,\n",
    "1 when it would not (either way), 2 only for usage errors and unreadable files.\n",
    "Lines starting with `note:` (`notes` in --json) are the merges pydantic-ai's repair makes in a history\n",
    "nothing is wrong with (consecutive requests, consecutive synthetic responses); they fail nothing.\n\n",
    exit_codes_text!()
);

const REPAIR_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow repair history.json > repaired.json\n",
    "  msgflow repair --in-place --backup --report changes.json history.json\n",
    "  msgflow repair --keep-last-response --message '[Aborted by user]' history.json\n",
    "  msgflow repair --provider anthropic history.json  # then Anthropic's own rules\n\n",
    "The changes are listed on stderr, one per line, then every problem `msgflow check` still finds in\n",
    "the output, with why it was left. Exit 0: the output passes `check`; exit 1: the output was written\n",
    "but problems remain (pydantic-ai's own repair leaves them; --resolve-remaining fixes some).\n",
    "A history pydantic-ai 2.68.0 would not load is written with a warning, or refused with --strict.\n\n",
    exit_codes_text!()
);

const TRIM_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow trim --max-tokens 100000 history.json -o trimmed.json\n",
    "  msgflow trim --keep-turns 5 --report removed.json --in-place history.json\n",
    "  msgflow trim --clear-tool-results-older-than 2 --clamp-parts 16384 --max-tokens 50000 --dry-run history.json\n",
    "  msgflow trim --max-bytes 1000000 --tokenizer cl100k_base -r -o trimmed/ runs/\n\n",
    "A history is only cut where a turn starts (a request with a user prompt and no tool result), never\n",
    "between a tool call and its result. The system prompts and instructions of the first request are\n",
    "kept, moved onto the new first request. A history that fits is written unchanged.\n\n",
    "Exit status 1 means even the newest turn does not fit the budget (nothing is written).\n\n",
    exit_codes_text!()
);

const MEDIA_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow media extract --dir media/ session.json -o light.json\n",
    "  msgflow media inline --dir media/ light.json -o session.json   # the original, byte for byte\n",
    "  msgflow media extract --dir media/ --in-place -r sessions/\n\n",
    "Files are named by the SHA-256 of their bytes, with the media type's extension; an existing file\n",
    "with other bytes is never overwritten (exit 2). inline fails (exit 2) naming a missing or altered file.\n\n",
    exit_codes_text!()
);

const EXPORT_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow export --to anthropic history.json          # {\"system\": ..., \"messages\": [...]}\n",
    "  msgflow export --to openai-chat history.json        # {\"messages\": [...]}\n",
    "  msgflow export --to openai-responses history.json   # {\"instructions\": ..., \"input\": [...]}\n\n",
    "The request equals what pydantic-ai 2.68.0's AnthropicModel (claude-sonnet-4-5), OpenAIChatModel (gpt-4o)\n",
    "and OpenAIResponsesModel (gpt-5) build with default settings and no tools. A history holding parts\n",
    "msgflow does not export exactly yet is refused with exit 2, naming the part; nothing is downloaded.\n\n",
    exit_codes_text!()
);

const CONVERT_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow convert --from openai-chat chat.json -o history.json     # messages from a database\n",
    "  msgflow convert --from openai-chat finetune.jsonl -o histories.jsonl\n",
    "  msgflow convert --to openai-chat history.json                     # {\"messages\": [...]}\n",
    "  msgflow convert --from anthropic request.json -o history.json     # a logged Messages API request\n",
    "  msgflow convert --to vercel-ui --vercel-sdk 6 history.json        # UIMessage[] for useChat\n",
    "  msgflow convert --from vercel-ui --lossless ui.json -o history.json\n",
    "  msgflow convert --from ag-ui run_input.json -o history.json       # a RunAgentInput's messages\n\n",
    "  msgflow convert --from otel traces.jsonl -o histories.jsonl        # OTLP JSON: one history per agent run\n\n",
    "openai-chat input is an array of Chat Completions messages, a request body {\"messages\": [...]}, a Batch\n",
    "API line {\"body\": {...}}, or JSON Lines of those (one conversation per line; the output is then JSON\n",
    "Lines too). To openai-chat is the request pydantic-ai 2.68.0's OpenAIChatModel sends; from it, the\n",
    "inverse of that mapping. anthropic input is a Messages API request {\"system\": ..., \"messages\": [...]}, a\n",
    "Message Batches line {\"params\": {...}}, a bare array of messages, or JSON Lines of those; to and from it\n",
    "mirror AnthropicModel the same way.\n",
    "Every value dropped, invented (timestamps pydantic-ai fills in, tool-call ids\n",
    "of legacy function calls) or changed is reported on stderr, grouped, with the JSON path of its first\n",
    "occurrence; --strict refuses any. The crate README of msgflow-formats tabulates what each direction\n",
    "cannot hold.\n\n",
    "vercel-ui is an array of Vercel AI SDK UIMessages (or a chat request body {\"messages\": [...]}); both\n",
    "directions equal pydantic-ai 2.68.0's VercelAIAdapter (dump_messages / load_messages). --lossless adds\n",
    "what that adapter drops (one assistant message per turn with step-start parts, and a record of the exact\n",
    "messages in each message's first part), so that a history converted to vercel-ui and back is unchanged.\n\n",
    "ag-ui is an array of AG-UI messages (or a RunAgentInput {\"messages\": [...]}); both directions equal\n",
    "pydantic-ai 2.68.0's AGUIAdapter with ag-ui-protocol 1.0, message ids aside (UUID5s of their place, not\n",
    "random). --lossless adds a record of the exact messages in the metadata of each message's last AG-UI message.\n\n",
    "otel is a span's message attributes {\"gen_ai.input.messages\": [...], \"gen_ai.output.messages\": [...],\n",
    "\"gen_ai.system_instructions\": [...]}. To it: what pydantic-ai 2.68.0's instrumentation (--otel-version)\n",
    "records on the model request span answered by the history's last response. From it: that document, a bare\n",
    "message array, an agent run's pydantic_ai.all_messages, or an OTLP JSON trace export (one history per\n",
    "agent run, from its all_messages or its last model request span).\n\n",
    exit_codes_text!()
);

const ASSEMBLE_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow assemble events.jsonl -o session.json\n",
    "  msgflow assemble events.jsonl --history before.json | msgflow repair - -o session.json\n",
    "  msgflow assemble events.jsonl --history session.json --in-place --backup --json\n\n",
    "Response events are replayed as pydantic-ai 2.68.0's parts manager (`apply_event`) replays them;\n",
    "tool results become the request between two responses. A log that ends before its stream did (no\n",
    "final part_end, a last line cut mid-JSON) gives a response with state \"interrupted\" that keeps what was\n",
    "streamed: text cut short, a tool call with its partial arguments; `msgflow repair` then answers the call.\n",
    "stderr says what was built and what was cut. A malformed line is an error naming its line and column.\n\n",
    exit_codes_text!()
);

const TOOLS_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow tools history.json | jq '.calls[] | select(.status == \"failed\")'\n",
    "  msgflow tools --guidance history.json\n\n",
    "Registry warnings (lifecycles that do not fit) are printed on stderr.\n\n",
    exit_codes_text!()
);

const SCHEMA_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow schema > pydantic-ai-messages.schema.json\n",
    "  msgflow schema registry -o registry.schema.json\n\n",
    exit_codes_text!()
);

const COMPLETIONS_HELP: &str = concat!(
    "Examples:\n",
    "  msgflow completions bash > ~/.local/share/bash-completion/completions/msgflow\n",
    "  msgflow completions zsh > ~/.zfunc/_msgflow\n",
    "  msgflow completions fish > ~/.config/fish/completions/msgflow.fish\n\n",
    exit_codes_text!()
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::EXIT_CODES_HELP;
    use clap::CommandFactory;

    #[test]
    fn the_command_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn the_exit_code_table_matches_the_shared_one() {
        let help = Cli::command().render_long_help().to_string();
        assert!(help.contains(EXIT_CODES_HELP), "{help}");
    }
}
