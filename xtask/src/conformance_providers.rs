//! The provider-export differential check (part of `cargo xtask conformance`): every committed
//! fixture, thousands of seeded histories built from the parts msgflow exports, and arbitrary
//! pydantic-ai histories (`msgflow_wire::arbitrary`, `Flavour::Pydantic`) are exported by
//! msgflow-providers to each provider and compared, as JSON values, with what pydantic-ai 2.68.0's
//! own models build (`oracle/providers_oracle.py`, one process for the whole batch, in the
//! `target/venv-providers` venv with the `anthropic` and `openai` extras).
//!
//! * msgflow exports and pydantic-ai builds a request: the two must be equal.
//! * pydantic-ai refuses: msgflow must refuse too (never export what pydantic-ai would not send).
//! * msgflow refuses as pydantic-ai does (`ExportError::Refused`, or `NeedsDownload` for a file
//!   pydantic-ai would download first): pydantic-ai must refuse too, and it must be a download
//!   (the oracle's `DownloadRefused`) exactly when msgflow says so.
//! * msgflow refuses as outside its export (`ExportError::Unsupported`): counted and listed by
//!   reason; the seeded histories contain none of those parts, so every one of them must export,
//!   but, where pydantic-ai refuses it too, an Anthropic cache point with no block before it or
//!   after a block that takes no `cache_control`.
//!
//! The seeded texts hold code, HTML and shell text with `<` and `&`, and framing-tag lookalikes
//! (`<pyai:context>`, `</system>`, entity-encoded and fullwidth ones, ...), so the lookalike notes
//! pydantic-ai adds are compared too; the `frames-` histories add mid-conversation system prompts,
//! which change the notes' wording (`genuine_change`), and odd tool names and call ids, which the
//! notes leave out.

mod history;
mod media;
mod parts;
mod respell;
mod texts;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use msgflow_providers::openai_chat::ChatThinking;
use msgflow_providers::{ExportError, ExportOptions, Provider, ReplayedThinking};
use msgflow_wire::arbitrary::{history, Flavour};
use proptest::strategy::{Strategy, ValueTree};
use serde_json::{json, Value};

/// Seeded histories of the exported subset per run.
const CORE_COUNT: usize = 3000;
/// Seeded histories with mid-conversation system prompts and odd tool names per run.
const FRAMES_COUNT: usize = 1000;
/// Seeded histories whose user prompts carry file and media items per run (`media.rs`).
const MEDIA_COUNT: usize = 1500;
/// Seeded histories with the parts `prepare_messages` rewrites or leaves out per run (`parts.rs`).
const PARTS_COUNT: usize = 1000;
/// Arbitrary pydantic-ai histories per run (mostly outside the subset: they check the refusals).
const ARBITRARY_COUNT: usize = 300;
/// The OpenAI Chat thinking modes compared besides the default (`'auto'`), as
/// `--openai-chat-thinking` spells them.
const CHAT_THINKING_MODES: [&str; 4] = ["tags", "field:reasoning_content", "field:thoughts", "off"];
/// Where Anthropic puts reasoning it cannot take back as its own, compared besides the default
/// (`user-turn`), as `--anthropic-thinking` spells it.
const ANTHROPIC_THINKING_PLACES: [&str; 1] = ["assistant-turn"];
/// Mismatches shown in detail.
const SHOWN: usize = 12;

/// Runs the check with the given seed.
pub fn run(python: &Path, work: &Path, seed: u64) -> Result<()> {
    println!("seed {seed} (from the HEAD commit unless --seed is given)");
    let dir = work.join("providers");
    if dir.exists() {
        std::fs::remove_dir_all(&dir).with_context(|| format!("clearing {}", dir.display()))?;
    }
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut cases: Vec<(String, Value)> = Vec::new();
    let root = crate::project_root();
    for fixtures in [
        "tests/fixtures/v2_68",
        "tests/fixtures/providers",
        "tests/fixtures/translations",
    ] {
        collect_fixtures(&root.join(fixtures), fixtures, &mut cases)?;
    }
    let fixture_count = cases.len();
    let mut rng = Rng(seed | 1);
    for index in 0..CORE_COUNT {
        let (history, thinks) = history::core_history(&mut rng, false, false, false);
        // Histories with thinking parts are named, so the report counts them.
        let name = if thinks {
            format!("core-{index}-thinking")
        } else {
            format!("core-{index}")
        };
        cases.push((name, history));
    }
    for index in 0..FRAMES_COUNT {
        let (history, thinks) = history::core_history(&mut rng, true, false, false);
        let name = if thinks {
            format!("frames-{index}-thinking")
        } else {
            format!("frames-{index}")
        };
        cases.push((name, history));
    }
    for index in 0..MEDIA_COUNT {
        let (history, _) = history::core_history(&mut rng, index % 4 == 0, true, false);
        cases.push((format!("media-{index}"), history));
    }
    for index in 0..PARTS_COUNT {
        // A quarter of them with files and media too (with and without thinking), whose refusals
        // (a URL pydantic-ai would download) come before or after the parts its mapping fails on.
        let (history, thinks) = history::core_history(&mut rng, index % 2 == 0, matches!(index % 8, 3 | 6), true);
        let name = if thinks {
            format!("parts-{index}-thinking")
        } else {
            format!("parts-{index}")
        };
        cases.push((name, history));
    }
    let mut runner = crate::conformance::seeded_runner(seed);
    let strategy = history(Flavour::Pydantic);
    for index in 0..ARBITRARY_COUNT {
        let tree = strategy.new_tree(&mut runner).map_err(|err| anyhow::anyhow!("{err}"))?;
        let text = msgflow_wire::to_string(&tree.current())?;
        cases.push((format!("arbitrary-{index}"), serde_json::from_str(&text)?));
    }

    // A quarter of the core and frames histories are written as a file pydantic-ai did not write
    // may spell them, which both sides read from that text (its own generator, so the histories
    // above stay those of the seed).
    let mut spelling_rng = Rng(seed.rotate_left(17) | 1);
    let texts: Vec<Option<String>> = cases
        .iter()
        .map(|(name, history)| {
            let respell = (name.starts_with("core-") || name.starts_with("frames-")) && spelling_rng.chance(25);
            respell.then(|| respell::respelled(history, &mut spelling_rng))
        })
        .collect();
    let cases_path = dir.join("cases.jsonl");
    let mut lines = String::new();
    for ((name, history), text) in cases.iter().zip(&texts) {
        let line = match text {
            Some(text) => json!({ "name": name, "history": history, "history_text": text }),
            None => json!({ "name": name, "history": history }),
        };
        lines.push_str(&serde_json::to_string(&line)?);
        lines.push('\n');
    }
    std::fs::write(&cases_path, lines).with_context(|| format!("writing {}", cases_path.display()))?;
    let oracle = run_oracle(python, &cases_path, &dir.join("oracle.jsonl"), &[])?;
    if oracle.len() != cases.len() {
        bail!("the oracle answered {} of {} cases", oracle.len(), cases.len());
    }

    let mut equal = BTreeMap::<&str, usize>::new();
    let mut both_refused = 0usize;
    let mut noted = BTreeMap::<&str, usize>::new();
    let mut thinking = BTreeMap::<&str, usize>::new();
    let thinking_cases = cases.iter().filter(|(name, _)| name.ends_with("-thinking")).count();
    let mut media_equal = BTreeMap::<&str, usize>::new();
    let mut media_both_refused = BTreeMap::<&str, usize>::new();
    // Refused by msgflow as pydantic-ai refuses it, and by pydantic-ai alike, per target.
    let mut refused_alike = BTreeMap::<&str, usize>::new();
    let mut parts_equal = BTreeMap::<&str, usize>::new();
    // Each reason's refusals, and how many of them pydantic-ai refuses too.
    let mut outside = BTreeMap::<String, (usize, usize)>::new();
    let mut failures = Vec::new();
    // Each provider with its default profile, and OpenAI Chat with each thinking mode msgflow
    // offers (`oracle/providers_oracle.py` builds a model per mode with the same names).
    let mut targets: Vec<(String, Provider, ExportOptions)> = Provider::EXPORTABLE
        .into_iter()
        .map(|provider| (provider.name().to_owned(), provider, ExportOptions::default()))
        .collect();
    for mode in CHAT_THINKING_MODES {
        let options = ExportOptions {
            openai_chat_thinking: mode.parse().map_err(|err: String| anyhow::anyhow!(err))?,
            ..ExportOptions::default()
        };
        targets.push((format!("openai-chat+thinking={mode}"), Provider::OpenAiChat, options));
    }
    for place in ANTHROPIC_THINKING_PLACES {
        let options = ExportOptions {
            anthropic_thinking: place.parse().map_err(|err: String| anyhow::anyhow!(err))?,
            ..ExportOptions::default()
        };
        targets.push((format!("anthropic+thinking={place}"), Provider::Anthropic, options));
    }
    // OpenAI's reasoning written out as text, carried in a user turn: Chat with its default
    // send-back and with `tags`, and Responses.
    let carried = ExportOptions {
        openai_thinking: ReplayedThinking::UserTurn,
        ..ExportOptions::default()
    };
    targets.push((
        "openai-chat+openai-thinking=user-turn".to_owned(),
        Provider::OpenAiChat,
        carried.clone(),
    ));
    targets.push((
        "openai-chat+thinking=tags+openai-thinking=user-turn".to_owned(),
        Provider::OpenAiChat,
        ExportOptions {
            openai_chat_thinking: ChatThinking::Tags,
            ..carried.clone()
        },
    ));
    targets.push((
        "openai-responses+openai-thinking=user-turn".to_owned(),
        Provider::OpenAiResponses,
        carried,
    ));
    let mut respelled_equal = BTreeMap::<&str, usize>::new();
    let respelled_count = texts.iter().flatten().count();
    for (((name, history_value), text), answer) in cases.iter().zip(&texts).zip(&oracle) {
        let history = match text {
            Some(text) => msgflow_wire::from_str(text),
            None => msgflow_wire::from_str(&history_value.to_string()),
        }
        .with_context(|| format!("msgflow cannot read case {name}"))?;
        for (label, provider, options) in &targets {
            let (label, provider) = (label.as_str(), *provider);
            let expected = &answer[label];
            if expected.get("invalid").is_some() {
                failures.push(format!(
                    "{name} / {label}: pydantic-ai rejects the history: {}",
                    expected["invalid"]
                ));
                continue;
            }
            match (
                msgflow_providers::export_with(&history, provider, options),
                expected.get("request"),
            ) {
                (Ok(actual), Some(request)) => {
                    if json_equal(&actual, request) {
                        *equal.entry(label).or_default() += 1;
                        if name.ends_with("-thinking") {
                            *thinking.entry(label).or_default() += 1;
                        }
                        if name.starts_with("media-") {
                            *media_equal.entry(label).or_default() += 1;
                        }
                        if name.starts_with("parts-") {
                            *parts_equal.entry(label).or_default() += 1;
                        }
                        if text.is_some() {
                            *respelled_equal.entry(label).or_default() += 1;
                        }
                        if actual.to_string().contains(LOOKALIKE_NOTE_MARK) {
                            *noted.entry(label).or_default() += 1;
                        }
                    } else {
                        failures.push(format!(
                            "{name} / {label}: requests differ\n  msgflow:    {actual}\n  pydantic-ai: {request}"
                        ));
                    }
                }
                (Ok(_), None) => failures.push(format!(
                    "{name} / {label}: pydantic-ai refuses ({}) but msgflow exports",
                    expected["refused"]
                )),
                // msgflow says pydantic-ai refuses, or would download first: the oracle must
                // agree, and on which of the two (its `DownloadRefused` is the download it was
                // stopped from making).
                (Err(error @ (ExportError::Refused { .. } | ExportError::NeedsDownload { .. })), answer) => {
                    let downloads = matches!(error, ExportError::NeedsDownload { .. });
                    let refused = expected
                        .get("refused")
                        .map(|refused| refused.as_str().unwrap_or_default());
                    match refused.filter(|_| answer.is_none()) {
                        Some(refused) if refused.starts_with("DownloadRefused") == downloads => {
                            *refused_alike.entry(label).or_default() += 1;
                            if name.starts_with("media-") {
                                *media_both_refused.entry(label).or_default() += 1;
                            }
                        }
                        Some(refused) => failures.push(format!(
                            "{name} / {label}: msgflow and pydantic-ai refuse differently\n  msgflow:     {error}\n  pydantic-ai: {refused}"
                        )),
                        None => failures.push(format!(
                            "{name} / {label}: msgflow says pydantic-ai would not send it ({error}), but pydantic-ai sends it"
                        )),
                    }
                }
                (Err(ExportError::Unsupported { what, .. }), answer) => {
                    let media_case = name.starts_with("media-");
                    let parts_case = name.starts_with("parts-");
                    let own_subset =
                        name.starts_with("core-") || name.starts_with("frames-") || media_case || parts_case;
                    // A media history msgflow refuses must be one pydantic-ai refuses too, but for
                    // the narrow refusals of the other seeded histories.
                    let allowed = (media_case
                        && (answer.is_none() || MEDIA_REFUSALS.iter().any(|refusal| what.starts_with(refusal))))
                        || (parts_case && PARTS_REFUSALS.iter().any(|refusal| what.starts_with(refusal)));
                    if media_case && answer.is_none() {
                        *media_both_refused.entry(label).or_default() += 1;
                    }
                    if own_subset && !allowed {
                        failures.push(format!(
                            "{name} / {label}: msgflow refuses a case of its own subset: {what}"
                        ));
                    }
                    let counts = outside.entry(reason_key(&what)).or_default();
                    counts.0 += 1;
                    if answer.is_none() {
                        both_refused += 1;
                        counts.1 += 1;
                    }
                }
                (Err(error), _) => failures.push(format!("{name} / {label}: {error}")),
            }
        }
    }
    println!(
        "{} cases ({fixture_count} fixtures, {CORE_COUNT} + {FRAMES_COUNT} + {MEDIA_COUNT} (media) + {PARTS_COUNT} (rewritten parts) seeded, {ARBITRARY_COUNT} arbitrary) x {} providers and profiles",
        cases.len(),
        targets.len()
    );
    for (provider, count) in &equal {
        let noted = noted.get(provider).copied().unwrap_or_default();
        let thinking = thinking.get(provider).copied().unwrap_or_default();
        println!(
            "  {provider}: {count} requests equal to pydantic-ai's ({noted} with lookalike notes, \
             {thinking} of the {thinking_cases} seeded histories with thinking parts)"
        );
        let media = media_equal.get(provider).copied().unwrap_or_default();
        let refused = media_both_refused.get(provider).copied().unwrap_or_default();
        println!("    media histories: {media} equal, {refused} refused by both, of {MEDIA_COUNT}");
        let parts = parts_equal.get(provider).copied().unwrap_or_default();
        println!("    histories with rewritten parts: {parts} equal of {PARTS_COUNT}");
        let alike = refused_alike.get(provider).copied().unwrap_or_default();
        println!("    refused by pydantic-ai, and by msgflow for the same reason: {alike}");
        let respelled = respelled_equal.get(provider).copied().unwrap_or_default();
        println!(
            "    histories spelled otherwise than pydantic-ai writes them: {respelled} equal of {respelled_count}"
        );
    }
    println!(
        "  refused by msgflow as outside its export (of which pydantic-ai refuses {both_refused} too; \
         each reason's count, then how many pydantic-ai sends):"
    );
    for (what, (count, both)) in &outside {
        println!("    {count:>5} {:>5}  {what}", count - both);
    }
    if failures.is_empty() {
        return Ok(());
    }
    // One failure per case is shown (a case often differs the same way for every Chat profile).
    let mut shown_cases = Vec::new();
    for failure in &failures {
        let case = failure.split(" / ").next().unwrap_or_default();
        if !shown_cases.contains(&case) && shown_cases.len() < SHOWN {
            shown_cases.push(case);
            println!("  {failure}");
        }
    }
    bail!("{} of the provider exports differ from pydantic-ai's", failures.len())
}

/// Runs `oracle/providers_oracle.py` on a file of cases (all its models, or only `models`) and
/// returns its answers, one per case.
pub(crate) fn run_oracle(python: &Path, cases_path: &Path, out_path: &Path, models: &[&str]) -> Result<Vec<Value>> {
    let root = crate::project_root();
    let mut command = Command::new(python);
    command.arg(root.join("oracle/providers_oracle.py"));
    if !models.is_empty() {
        command.arg("--models").args(models);
    }
    let output = command
        .arg("--cases")
        .arg(cases_path)
        .arg("--out")
        .arg(out_path)
        .current_dir(root.join("oracle"))
        .output()
        .context("running oracle/providers_oracle.py")?;
    if !output.status.success() {
        bail!(
            "providers_oracle.py failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let oracle_text = std::fs::read_to_string(out_path)?;
    oracle_text
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .context("reading the oracle's output")
}

pub(crate) fn collect_fixtures(dir: &Path, label: &str, cases: &mut Vec<(String, Value)>) -> Result<()> {
    if !dir.is_dir() {
        return Ok(());
    }
    let mut entries: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            // Named by their path under `label`: directories hold files of one name (`fixed.json`).
            let nested = format!("{label}/{}", path.file_name().unwrap_or_default().to_string_lossy());
            collect_fixtures(&path, &nested, cases)?;
        } else if path.extension().is_some_and(|ext| ext == "json") {
            let text = std::fs::read_to_string(&path)?;
            let Ok(value) = serde_json::from_str::<Value>(&text) else {
                continue;
            };
            // Only histories (a fixture directory may hold reports too).
            if value.is_array() && msgflow_wire::from_str(&text).is_ok() {
                cases.push((
                    format!("{label}/{}", path.file_name().unwrap_or_default().to_string_lossy()),
                    value,
                ));
            }
        }
    }
    Ok(())
}

/// A refusal's reason without the URL or file id it names, so that the report counts reasons.
fn reason_key(what: &str) -> String {
    let mut key = what.to_owned();
    for lead in [
        "uploaded file `",
        "ImageUrl `",
        "AudioUrl `",
        "VideoUrl `",
        "DocumentUrl `",
    ] {
        if let Some(start) = key.find(lead).map(|start| start + lead.len()) {
            if let Some(length) = key[start..].find('`') {
                key.replace_range(start..start + length, "...");
            }
        }
    }
    key
}

/// xorshift64*: a small deterministic generator, so a seed always gives the same histories.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// msgflow's refusals, in the media histories, of what it leaves to pydantic-ai: file items
/// nested in tool output (which pydantic-ai re-serialises).
const MEDIA_REFUSALS: &[&str] = &["tool output holding a file item inside"];
/// msgflow's refusals, in the `parts-` histories, of what pydantic-ai rebuilds from data msgflow
/// does not reproduce: citations it replays and server-side tool blocks.
const PARTS_REFUSALS: &[&str] = &[
    "a text part with citations pydantic-ai replays",
    "a server-side tool part",
];
/// A phrase every lookalike note ends with (`The rest of the ... is unaffected.`).
const LOOKALIKE_NOTE_MARK: &str = " is unaffected.";

/// JSON values equal as pydantic-ai compares them: numbers by value (the workspace's serde_json
/// keeps a number's spelling, and the oracle's `json.dumps` spells `1e-05` where pydantic-core
/// writes `0.00001`).
pub(crate) fn json_equal(left: &Value, right: &Value) -> bool {
    match (left, right) {
        (Value::Number(a), Value::Number(b)) => match (a.as_i64(), b.as_i64(), a.as_u64(), b.as_u64()) {
            (Some(a), Some(b), _, _) => a == b,
            (_, _, Some(a), Some(b)) => a == b,
            _ => a.as_f64() == b.as_f64() && (a.as_f64().is_some() || a.to_string() == b.to_string()),
        },
        (Value::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(a, b)| json_equal(a, b)),
        (Value::Object(a), Value::Object(b)) => {
            a.len() == b.len()
                && a.iter()
                    .all(|(key, value)| b.get(key).is_some_and(|other| json_equal(value, other)))
        }
        (a, b) => a == b,
    }
}
