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

mod media;
mod parts;
mod respell;

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
    for fixtures in ["tests/fixtures/v2_68", "tests/fixtures/providers"] {
        collect_fixtures(&root.join(fixtures), fixtures, &mut cases)?;
    }
    let fixture_count = cases.len();
    let mut rng = Rng(seed | 1);
    for index in 0..CORE_COUNT {
        let (history, thinks) = core_history(&mut rng, false, false, false);
        // Histories with thinking parts are named, so the report counts them.
        let name = if thinks {
            format!("core-{index}-thinking")
        } else {
            format!("core-{index}")
        };
        cases.push((name, history));
    }
    for index in 0..FRAMES_COUNT {
        let (history, thinks) = core_history(&mut rng, true, false, false);
        let name = if thinks {
            format!("frames-{index}-thinking")
        } else {
            format!("frames-{index}")
        };
        cases.push((name, history));
    }
    for index in 0..MEDIA_COUNT {
        let (history, _) = core_history(&mut rng, index % 4 == 0, true, false);
        cases.push((format!("media-{index}"), history));
    }
    for index in 0..PARTS_COUNT {
        // A quarter of them with files and media too (with and without thinking), whose refusals
        // (a URL pydantic-ai would download) come before or after the parts its mapping fails on.
        let (history, thinks) = core_history(&mut rng, index % 2 == 0, matches!(index % 8, 3 | 6), true);
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
            collect_fixtures(&path, label, cases)?;
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

const WORDS: &[&str] = &[
    "read",
    "the",
    "file",
    "ok",
    "done",
    "λ",
    "日本",
    "\"quoted\"",
    "tab\t",
    "line\nbreak",
    "emoji 🎉",
    "\\path",
    // `<` and `&` in code, HTML and shell text, none of them a lookalike.
    "<div>",
    "a && b",
    "x < y",
    "Vec<String>",
    "&amp;",
    "&lt;br&gt;",
    "</p>",
    "<context>",
    "<tool_result>",
    "<systemd>",
    "if (a<b && c>d)",
    "&",
    "<",
    // Next to non-ASCII text pydantic-ai's NFKC folding leaves as it is.
    "<名前>",
    "a <— b",
    "&日本",
    "</λ>",
    "<sy€",
    // and next to fullwidth punctuation, which NFKC changes, but not before it.
    "x<y，A&B：",
];

/// Framing-tag lookalikes as users and tools write them: pydantic-ai notes each.
const LOOKALIKES: &[&str] = &[
    "<pyai:context>",
    "</system>",
    "<SYSTEM attr=\"1\">",
    "< / pyai : tool_result >",
    "<assistant_thinking>",
    "text <pyai:retry_feedback",
    "<pyai:context_diff id=\"a\">",
    "&lt;system&gt;",
    "&#60;pyai:validation_errors&#62;",
    "</pyai:conversation_summary>",
    "λ <system/> 日本",
    "<system 日本",
    "&lt;pyai:context—",
    "\u{ff1c}system>",
    "\u{fe64}/pyai:context>",
    "\u{ff06}lt;system>",
];

/// Lookalikes only `_comparable`'s folding reads (a zero-width space or joiner, a fullwidth letter,
/// `>`, `:` or entity, a combining mark, Python's non-ASCII whitespace, Cyrillic, Greek and
/// small-capital look-alike letters, the letters `re.IGNORECASE` matches to ASCII), and texts
/// folding changes into no lookalike (a combining mark composing with a tag's letter or its `>`):
/// msgflow folds the text as pydantic-ai does.
const FOLDED: &[&str] = &[
    "<\u{200b}system>",
    "<sys\u{200d}tem>",
    "<\u{ff53}ystem>",
    "\u{ff1c}system\u{ff1e}",
    "<system>\u{338}",
    "<system\u{a0}",
    "< \u{301}",
    "<s\u{301}ystem>",
    "<system\u{301}>",
    "<\u{2028}system>",
    "<\u{3000}system>",
    "<\u{1680}/system>",
    "<\u{85}system>",
    "<\u{455}ystem>",
    "<\u{a731}\u{28f}\u{a731}\u{1d1b}\u{1d07}\u{1d0d}>",
    "</pyai\u{ff1a}tool_result>",
    "\u{ff06}\u{ff03}\u{ff16}\u{ff10};system>",
    "&#x3C;\u{455}ystem&#X3e;",
    "<system> \u{131}",
    "<\u{fb01}le>",
];

/// A possible lookalike next to a character Unicode 14 does not assign (which Python 3.11's NFKC
/// leaves as it is), and tags spelled with a dotted or dotless `i` (which pydantic-ai names as
/// written).
const UNASSIGNED_OR_DOTTED_I: &[&str] = &[
    "<sys\u{378}tem>",
    "<pya\u{131}:context>",
    "<pya\u{130}:context>",
    "<assistant_th\u{131}nking \u{2713}",
    "<Pya\u{131} : Context_d\u{131}ff>",
    "</pyai:val\u{130}dation_errors>",
    "&lt;pya\u{131}:retry_feedback&gt;",
    "<system\u{378}",
    "<\u{1f7d9}system>",
    "<system>\u{378}\u{338}",
];

fn text(rng: &mut Rng) -> String {
    let words = rng.below(5);
    let mut out: Vec<String> = (0..words)
        .map(|_| match rng.below(100) {
            0 if rng.chance(3) => (*rng.pick(UNASSIGNED_OR_DOTTED_I)).to_owned(),
            0 => (*rng.pick(FOLDED)).to_owned(),
            1 => spliced_lookalike(rng),
            2..=5 => (*rng.pick(LOOKALIKES)).to_owned(),
            _ => (*rng.pick(WORDS)).to_owned(),
        })
        .collect();
    if rng.chance(10) {
        out.push(" ".to_owned());
    }
    out.join(" ")
}

/// Code points around which `_comparable` and `_lookalike_pattern` decide: combining marks (which
/// compose or reorder), fullwidth and compatibility forms, ligatures, format characters,
/// whitespace of every kind, look-alike and case-folding letters, Hangul jamo, CJK, emoji,
/// private use and unassigned code points, as inclusive ranges.
const SPLICED: &[(u32, u32)] = &[
    (0x0300, 0x036F),
    (0x0590, 0x05FF),
    (0x1AB0, 0x1AFF),
    (0x20D0, 0x20FF),
    (0xFF01, 0xFF5E),
    (0xFE50, 0xFE6B),
    (0xFB00, 0xFB06),
    (0x2100, 0x214F),
    (0x2460, 0x24FF),
    (0x1D400, 0x1D7FF),
    (0x00A0, 0x00FF),
    (0x2000, 0x206F),
    (0x3000, 0x3003),
    (0x0080, 0x009F),
    (0x0370, 0x03FF),
    (0x0400, 0x04FF),
    (0x1D00, 0x1DBF),
    (0xA720, 0xA7FF),
    (0x0130, 0x0131),
    (0x017F, 0x017F),
    (0x212A, 0x212B),
    (0x1100, 0x11FF),
    (0xAC00, 0xAC10),
    (0x4E00, 0x4E10),
    (0x1F600, 0x1F64F),
    (0xE000, 0xE010),
    (0x0378, 0x0379),
    (0xE0000, 0xE007F),
];

/// A possible lookalike with code points of [`SPLICED`] put in it at random places: an opener (or
/// an entity or fullwidth one), a tag name, a closer, each maybe broken or completed by what is
/// spliced in. Both sides must find the same lookalikes in it, or msgflow must refuse it.
fn spliced_lookalike(rng: &mut Rng) -> String {
    let opener = *rng.pick(&[
        "<",
        "</",
        "< /",
        "&lt;",
        "&#60;",
        "&#x3C;",
        "\u{ff1c}",
        "\u{fe64}",
        "&",
        "\u{ff06}lt;",
    ]);
    let name = *rng.pick(&[
        "system",
        "pyai:context",
        "pyai:context_diff",
        "assistant_thinking",
        "pyai:tool_result",
        "sys",
        "pyai",
    ]);
    let closer = *rng.pick(&[">", "/>", " ", "", "&gt;", "\u{ff1e}", ">x"]);
    let mut chars: Vec<char> = format!("{opener}{name}{closer}").chars().collect();
    for _ in 0..1 + rng.below(3) {
        let (start, end) = *rng.pick(SPLICED);
        let code = start + rng.below((end - start + 1) as usize) as u32;
        // Surrogates and the like are no `char`: a space instead.
        let ch = char::from_u32(code).unwrap_or(' ');
        let at = rng.below(chars.len() + 1);
        chars.insert(at, ch);
    }
    chars.into_iter().collect()
}

fn tool_content(rng: &mut Rng) -> Value {
    // Numbers Python re-dumps otherwise than they are written (`-0`, `1.50`, `1e2`), and an
    // integer beyond 64 bits.
    let number = |text: &str| serde_json::from_str::<Value>(text).expect("a JSON number");
    if rng.chance(4) {
        return json!({"n": number("-0"), "x": number("1.50"), "e": number("1e2"), "big": number("18446744073709551616"), "l": [number("-0.0"), number("1e400")]});
    }
    match rng.below(9) {
        0 => Value::Null,
        1 => json!(rng.below(1000)),
        2 => json!(1.5),
        3 => json!({"lines": [text(rng), text(rng)], "n": rng.below(9), "ok": true}),
        4 => json!([text(rng), {"b": null}]),
        5 => json!([]),
        6 => json!([text(rng)]),
        _ => json!(text(rng)),
    }
}

/// A legacy `retry-prompt` answering call `id` (2.68.0 loads it as the call's retried result):
/// a message, or validation error details with the keys in any order, `ctx` and `url`, and
/// root-level errors whose `input` repeats the first one's (`True` and `1` are equal in Python).
fn retry_prompt(rng: &mut Rng, id: &str, name: &str) -> Value {
    let content = if rng.chance(40) {
        json!(text(rng))
    } else {
        // Python's `==` decides which root-level `input` is dropped: `True == 1 == 1.0`, `-0 == 0`,
        // integers of any size compared exactly.
        let number = |text: &str| serde_json::from_str::<Value>(text).expect("a JSON number");
        let first_input = rng
            .pick(&[
                json!({"a": 1}),
                json!(1),
                json!(true),
                json!("x"),
                json!(null),
                number("18446744073709551616"),
                json!(0),
            ])
            .clone();
        let inputs = [
            first_input.clone(),
            json!({"a": 1}),
            json!(1.0),
            json!(true),
            json!([1, "b"]),
            number("18446744073709551616"),
            number("18446744073709551617"),
            number("-0"),
            json!({"a": 1.0}),
        ];
        let details: Vec<Value> = (0..1 + rng.below(4))
            .map(|index| {
                let loc = match rng.below(4) {
                    0 => json!([]),
                    1 => json!(["field"]),
                    2 => json!([0]),
                    _ => json!(["items", 0, "name"]),
                };
                let input = if index == 0 {
                    first_input.clone()
                } else {
                    rng.pick(&inputs).clone()
                };
                let mut detail = if rng.chance(50) {
                    json!({"type": "missing", "loc": loc, "msg": text(rng), "input": input})
                } else {
                    json!({"input": input, "msg": text(rng), "loc": loc, "type": "int_parsing"})
                };
                if rng.chance(20) {
                    detail["ctx"] = json!({"error": "x"});
                }
                if rng.chance(20) {
                    detail["url"] = json!("https://errors.pydantic.dev/2/v/missing");
                }
                detail
            })
            .collect();
        Value::Array(details)
    };
    json!({"part_kind": "retry-prompt", "tool_name": name, "tool_call_id": id, "content": content, "timestamp": STAMP})
}

/// Retry feedback answering no call: a `retry-feedback` part of each cause (`no_output` with the
/// agent loop's own texts, which go in the system voice, and with others), or a legacy
/// `retry-prompt` naming no tool (2.68.0 loads it as feedback).
fn retry_feedback(rng: &mut Rng) -> Value {
    let no_output_texts = [
        "Please return text.",
        "Please include your response in a tool call or return an image.",
        "Please return text or call a tool.",
        "Please.",
        "Please return text or return an image or call a tool.",
    ];
    let content = match rng.below(4) {
        0 => json!([{"type": "missing", "loc": ["answer"], "msg": text(rng), "input": {"a": 1}},
                    {"type": "int_parsing", "loc": [], "msg": "bad", "input": {"a": 1}, "ctx": {"x": 1}}]),
        1 => json!(rng.pick(&no_output_texts).to_string()),
        _ => json!(text(rng)),
    };
    if rng.chance(20) {
        return json!({"part_kind": "retry-prompt", "content": content, "timestamp": STAMP});
    }
    let cause = *rng.pick(&["validation_error", "model_retry", "no_output"]);
    json!({"part_kind": "retry-feedback", "content": content, "retry": {"cause": cause, "attempt": 1, "max_retries": 3},
           "timestamp": STAMP})
}

fn args(rng: &mut Rng) -> Value {
    if rng.chance(4) {
        // Numbers Python re-dumps otherwise than they are written.
        let number = |text: &str| serde_json::from_str::<Value>(text).expect("a JSON number");
        return json!({"n": number("-0"), "x": number("1.50"), "big": number("-18446744073709551617")});
    }
    match rng.below(8) {
        0 => Value::Null,
        1 => json!(""),
        2 => json!({"path": text(rng), "n": 3}),
        3 => json!("{\"path\": \"a.rs\", \"n\": 1.25}"),
        4 => json!("not json"),
        5 => json!("[1, 2]"),
        6 => json!({}),
        _ => json!({"nested": {"deep": [1, {"x": text(rng)}]}}),
    }
}

const STAMP: &str = "2025-01-02T03:04:05.678901Z";

/// A history of the parts msgflow exports: system prompts leading the first request, user
/// prompts (strings and lists), tool calls and their returns (every outcome, all kinds of
/// content), texts (empty ones too), instructions; sometimes dangling calls, orphan returns,
/// responses first, empty messages; thinking parts of every flavour (`thinking_part`). With `frames`,
/// also mid-conversation system prompts, second user prompts, and tool names and call ids a note
/// cannot quote. With `media`, most user prompts are lists with file and media items. With
/// `rewritten`, the parts `prepare_messages` rewrites or leaves out (`parts.rs`), and sometimes a
/// run of requests at the end.
fn core_history(rng: &mut Rng, frames: bool, media: bool, rewritten: bool) -> (Value, bool) {
    let mut thinks = false;
    let mut messages = Vec::new();
    let mut open: Vec<(String, String)> = Vec::new();
    let mut next_id = 0usize;
    // The instruction block values the history's changes and baselines have stated so far.
    let mut instruction_values = Vec::new();
    // Some histories change their instructions on every request, so changes follow each other in
    // a window (and go as diffs against the value they replace).
    let changes_instructions = rewritten && rng.chance(15);
    let length = rng.below(8);
    let mut request_turn = !rng.chance(5);
    for index in 0..length {
        if request_turn {
            let mut parts = Vec::new();
            if index == 0 {
                for _ in 0..rng.below(3) {
                    parts.push(json!({"part_kind": "system-prompt", "content": text(rng), "timestamp": STAMP}));
                }
            }
            let answer_all = rng.chance(80);
            for (id, name) in std::mem::take(&mut open) {
                if (answer_all || rng.chance(50)) && rng.chance(10) {
                    parts.push(retry_prompt(rng, &id, &name));
                } else if answer_all || rng.chance(50) {
                    let outcome = *rng.pick(&["success", "success", "failed", "denied", "interrupted", "retried"]);
                    let content = if media && rng.chance(75) {
                        media::tool_media_content(rng)
                    } else {
                        tool_content(rng)
                    };
                    let mut part = json!({"part_kind": "tool-return", "tool_name": name, "tool_call_id": id,
                        "content": content, "outcome": outcome, "timestamp": STAMP});
                    // Nested file items come with the part's `content_file_digests` record (or none).
                    if part["content"].get(media::NESTED_RECORD_KEY).is_some() {
                        let mut nested = part["content"].take();
                        part["content"] = nested[media::NESTED_RECORD_KEY].take();
                        if let Some(record) = nested.get_mut("content_file_digests") {
                            part["content_file_digests"] = record.take();
                        }
                    }
                    parts.push(part);
                }
            }
            if rng.chance(5) {
                parts.push(
                    json!({"part_kind": "tool-return", "tool_name": "ghost", "tool_call_id": "orphan_1",
                    "content": "late", "timestamp": STAMP}),
                );
            }
            if index > 0 && rng.chance(12) {
                parts.push(retry_feedback(rng));
            }
            if parts.is_empty() || rng.chance(60) {
                let content = if media && rng.chance(70) {
                    media::media_prompt(rng)
                } else if rng.chance(25) {
                    json!([text(rng), text(rng)])
                } else {
                    json!(text(rng))
                };
                let user = json!({"part_kind": "user-prompt", "content": content, "timestamp": STAMP});
                // Sometimes ahead of the returns, which pydantic-ai moves after them (never ahead of the
                // standing system prompts of the first request).
                if index > 0 && rng.chance(20) {
                    parts.insert(0, user);
                } else {
                    parts.push(user);
                }
            }
            if frames && rng.chance(40) {
                let system = json!({"part_kind": "system-prompt", "content": text(rng), "timestamp": STAMP});
                let at = rng.below(parts.len() + 1);
                parts.insert(at, system);
            }
            if frames && rng.chance(25) {
                // A second user prompt: its note goes ahead of it even where the first one's follows.
                let user = json!({"part_kind": "user-prompt", "content": text(rng), "timestamp": STAMP});
                let at = rng.below(parts.len() + 1);
                parts.insert(at, user);
            }
            if rewritten {
                if index == 0 && rng.chance(30) {
                    // A standing system prompt with a `context_id`.
                    parts.insert(0, parts::context_prompt(rng));
                }
                for _ in 0..rng.below(3) {
                    let at = rng.below(parts.len() + 1);
                    parts.insert(at, parts::request_part(rng, &mut instruction_values));
                }
                if rng.chance(8) {
                    // A request of deltas alone, which pydantic-ai leaves out for some providers.
                    parts = vec![parts::request_part(rng, &mut instruction_values)];
                }
                if changes_instructions {
                    let at = rng.below(parts.len() + 1);
                    parts.insert(at, parts::instruction_delta(rng, &mut instruction_values));
                }
            }
            let instructions = if rng.chance(25) { json!(text(rng)) } else { Value::Null };
            messages.push(json!({"kind": "request", "parts": parts, "instructions": instructions}));
        } else {
            let mut parts = Vec::new();
            for _ in 0..rng.below(4) {
                if media && rng.chance(10) {
                    // A file the model generated (an image), which no mapping sends back.
                    let data = msgflow_wire::Base64Data::from_bytes(b"\x89PNG\r\n\x1a\n");
                    parts.push(
                        json!({"part_kind": "file", "content": {"kind": "binary", "data": data.as_str(),
                        "media_type": "image/png"}}),
                    );
                } else if rng.chance(15) {
                    thinks = true;
                    parts.push(thinking_part(rng, &mut next_id));
                } else if rng.chance(50) {
                    let mut part = json!({"part_kind": "text", "content": text(rng)});
                    if rng.chance(25) {
                        // OpenAI Responses' output message ids (consecutive texts may share one).
                        if !rng.chance(30) {
                            next_id += 1;
                        }
                        part["id"] = json!(format!("msg_{next_id}"));
                        part["provider_name"] = json!(*rng.pick(&["openai", "openai", "anthropic"]));
                    }
                    parts.push(part);
                } else {
                    next_id += 1;
                    let id = if rng.chance(3) {
                        "call_1".to_owned()
                    } else if frames && rng.chance(15) {
                        format!("call #{next_id}")
                    } else {
                        format!("call_{next_id}")
                    };
                    let names: &[&str] = if frames {
                        &["read_file", "run_shell", "search", "web search", "ns.tool:v1-2"]
                    } else {
                        &["read_file", "run_shell", "search"]
                    };
                    let name = rng.pick(names).to_string();
                    let mut part =
                        json!({"part_kind": "tool-call", "tool_name": name, "tool_call_id": id, "args": args(rng)});
                    if rng.chance(25) {
                        // An OpenAI Responses call's item id.
                        part["id"] = json!(format!("fc_{next_id}"));
                        part["provider_name"] = json!(*rng.pick(&["openai", "openai", "google-gla"]));
                    }
                    parts.push(part);
                    open.push((id, name));
                }
            }
            if rewritten {
                for _ in 0..rng.below(3) {
                    let at = rng.below(parts.len() + 1);
                    parts.insert(at, parts::response_part(rng, &mut next_id));
                }
                if rng.chance(15) {
                    // A compaction opening the response, or alone in it (what a provider's
                    // compaction returns).
                    parts.insert(0, parts::compaction(rng, &mut next_id));
                    if rng.chance(60) {
                        parts.truncate(1);
                        open.clear();
                    }
                }
            }
            let mut response = json!({"kind": "response", "parts": parts, "model_name": "m", "timestamp": STAMP});
            if rewritten && rng.chance(15) {
                // A response the listener cut off (`assistant_speech_text` marks its last speech).
                response["state"] = json!("interrupted");
            }
            // Sometimes the response names its provider (and rarely a canonical system that differs
            // from it), which decides whose signed or encrypted thinking a model sends back.
            // The provider of the response's first thinking part.
            let thinker = response["parts"]
                .as_array()
                .and_then(|parts| parts.iter().find(|part| part["part_kind"] == "thinking"))
                .map(|part| part["provider_name"].clone())
                .filter(Value::is_string);
            match rng.below(20) {
                0 => response["provider_name"] = json!("anthropic"),
                1 => response["provider_name"] = json!("google-gla"),
                2 => {
                    response["provider_name"] = json!("azure");
                    response["canonical_system"] = json!(*rng.pick(&["openai", "anthropic", "azure"]));
                }
                3 | 4 => {
                    // A response from OpenAI, at its API (any spelling of the URL) or elsewhere:
                    // OpenAI Responses replays its item ids only to the endpoint that made them.
                    response["provider_name"] = json!("openai");
                    let url = *rng.pick(&[
                        "",
                        "https://api.openai.com/v1/",
                        "HTTPS://API.OPENAI.COM:443/v1",
                        "https://api.openai.com/v1//",
                        "http://api.openai.com/v1",
                        "https://proxy.example.com/v1",
                    ]);
                    if !url.is_empty() {
                        response["provider_url"] = json!(url);
                    }
                }
                5..=8 => {
                    if let Some(thinker) = thinker {
                        response["provider_name"] = thinker;
                        if rng.chance(50) {
                            response["canonical_system"] = json!(*rng.pick(&["openai", "anthropic", "google"]));
                        }
                    }
                }
                _ => {}
            }
            messages.push(response);
        }
        request_turn = if rng.chance(8) { request_turn } else { !request_turn };
    }
    if rewritten && rng.chance(10) {
        // The current request as a run of requests (an interrupted run and the next one): current
        // request-scoped prompts, parts pydantic-ai rewrites or leaves out, and statements opening
        // an id with nothing to state. `_move_request_scoped_prompts_to_tail` looks for the last
        // request after `_render_system_prompt_contexts` and
        // `_announce_tool_availability_delta_messages` may have left some of them without parts.
        for _ in 0..1 + rng.below(2) {
            // Half of them deltas alone, which pydantic-ai leaves out for some providers.
            let deltas = rng.chance(50);
            let mut parts: Vec<Value> = (0..1 + rng.below(2))
                .map(|_| {
                    if deltas {
                        parts::delta_part(rng)
                    } else {
                        parts::request_part(rng, &mut instruction_values)
                    }
                })
                .collect();
            if rng.chance(40) {
                let at = rng.below(parts.len() + 1);
                parts.insert(
                    at,
                    json!({"part_kind": "system-prompt", "content": text(rng), "scope": "request", "timestamp": STAMP}),
                );
            }
            if rng.chance(40) {
                parts.push(
                    json!({"part_kind": "system-prompt", "content": "", "context_id": "unopened",
                    "timestamp": STAMP}),
                );
            }
            let instructions = if rng.chance(25) { json!(text(rng)) } else { Value::Null };
            messages.push(json!({"kind": "request", "parts": parts, "instructions": instructions}));
        }
    }
    (Value::Array(messages), thinks)
}

/// A thinking part of every flavour a coding agent's history holds: Anthropic's signed (and
/// redacted, and empty) thinking, unsigned thinking, OpenAI reasoning with `rs_` ids (sometimes
/// two parts of one item) and encrypted content, OpenAI Chat's field ids (`reasoning`,
/// `reasoning_content`, `content`), other providers' (signed or not, with or without a name), the
/// legacy `openai-codex` name, empty content, and content full of framing-tag lookalikes.
fn thinking_part(rng: &mut Rng, next_id: &mut usize) -> Value {
    let content = match rng.below(10) {
        0 => String::new(),
        1 | 2 => format!("{} {} {}", text(rng), rng.pick(LOOKALIKES), text(rng)),
        _ => text(rng),
    };
    let (id, signature, provider_name) = match rng.below(12) {
        0 | 1 => {
            let id = if rng.chance(20) {
                json!("redacted_thinking")
            } else {
                Value::Null
            };
            (id, json!("EqQBCkYIBxgCKkB"), json!("anthropic"))
        }
        2 => (Value::Null, json!(*rng.pick(&["", "EqQB"])), json!("anthropic")),
        3 => (Value::Null, Value::Null, json!("anthropic")),
        4 | 5 => {
            // Consecutive parts of one reasoning item share its id.
            if !rng.chance(30) {
                *next_id += 1;
            }
            let signature = if rng.chance(60) {
                json!("gAAAAABo-enc")
            } else {
                Value::Null
            };
            (json!(format!("rs_{next_id}")), signature, json!("openai"))
        }
        6 => (
            json!(*rng.pick(&["reasoning", "reasoning_content", "content"])),
            if rng.chance(20) {
                json!("gAAAAABo-enc")
            } else {
                Value::Null
            },
            json!("openai"),
        ),
        7 => (Value::Null, json!("c2lnbmF0dXJl"), json!("google-gla")),
        8 => (
            json!(*rng.pick(&["reasoning_content", "reasoning", "content", "thought_1"])),
            Value::Null,
            json!(*rng.pick(&["deepseek", "groq", "openrouter"])),
        ),
        9 => (json!("rs_codex"), json!("gAAAAABo-codex"), json!("openai-codex")),
        10 => (Value::Null, Value::Null, Value::Null),
        _ => (json!("rs_az"), json!("gAAAAABo-az"), json!("azure")),
    };
    json!({"part_kind": "thinking", "content": content, "id": id, "signature": signature,
        "provider_name": provider_name})
}

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
