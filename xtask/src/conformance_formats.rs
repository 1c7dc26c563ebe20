//! The format-conversion differential check (part of `cargo xtask conformance`, `--only formats`):
//! msgflow-formats' `from openai-chat` and `from anthropic` against pydantic-ai 2.68.0's own
//! `OpenAIChatModel` and `AnthropicModel` mappings (`oracle/providers_oracle.py --models
//! openai-chat anthropic`, in the `target/venv-providers` venv), each format on its own as below.
//!
//! For every committed fixture, every history of the real-world corpora (`../shared/realworld*`)
//! and seeded arbitrary histories (`Flavour::Pydantic`), msgflow converts the history to Chat
//! messages (`to`, the export) and back (`from`); pydantic-ai then loads what `from` made and maps
//! it to Chat messages itself. It must load, and its messages must be the very ones `from` read:
//! `from` inverts pydantic-ai's mapping on everything Chat messages hold. Histories whose messages
//! carry pydantic-ai's framing (lookalike notes, `<pyai:...>` frames), or whose read-back history
//! gets framing the original did not, are read back as the text they are (the crate README's
//! table): for those only loading is required. The real foreign
//! files of `../shared/formats/<format>` are converted too: pydantic-ai must load each history
//! and map it to the messages msgflow's `to` gives. Anthropic's `cache_control` is compared
//! left out: `from` drops it (a request setting, reported as a loss). What only a request that
//! defers tools holds is checked on requests pydantic-ai writes itself ([`deferred_tools`]).

use std::path::Path;

use anyhow::{bail, Context, Result};
use msgflow_formats::openai_chat::ShapeError;
use msgflow_formats::{anthropic, openai_chat, ConvertError, Format, Report};
use msgflow_wire::arbitrary::{history, Flavour};
use msgflow_wire::ModelMessage;
use proptest::strategy::{Strategy, ValueTree};
use serde_json::{json, Value};

mod deferred_tools;

/// Seeded arbitrary histories per run.
const ARBITRARY_COUNT: usize = 2500;
/// Mismatches shown in detail.
const SHOWN: usize = 8;

/// A provider format checked against pydantic-ai's mapping for that provider.
struct ProviderFormat {
    format: Format,
    /// The oracle's model (`providers_oracle.py --models`).
    oracle_model: &'static str,
    to: fn(&[ModelMessage], usize, &mut Report) -> Result<Value, ConvertError>,
    from: fn(&Value, usize, &mut Report) -> Result<Vec<ModelMessage>, ShapeError>,
    /// Keys `from` drops (reported), left out of the comparison.
    ignored_keys: &'static [&'static str],
}

const PROVIDER_FORMATS: [ProviderFormat; 2] = [
    ProviderFormat {
        format: Format::OpenAiChat,
        oracle_model: "openai-chat",
        to: openai_chat::to_value,
        from: openai_chat::from_value,
        ignored_keys: &[],
    },
    ProviderFormat {
        format: Format::Anthropic,
        oracle_model: "anthropic",
        to: anthropic::to_value,
        from: anthropic::from_value,
        ignored_keys: &["cache_control"],
    },
];

/// What the oracle's messages of a case must be.
enum Expect {
    /// The messages `from` read (the case is compared).
    Messages(Value),
    /// Loading is all that is required (framed text).
    Loads,
}

/// Runs the check with the given seed.
pub fn run(python: &Path, work: &Path, seed: u64) -> Result<()> {
    println!("seed {seed} (from the HEAD commit unless --seed is given)");
    let dir = work.join("formats");
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let root = crate::project_root();
    let (sources, fixture_count, realworld_count) = history_sources(&root, seed, ARBITRARY_COUNT)?;

    for spec in &PROVIDER_FORMATS {
        check_format(spec, python, &dir, &root, &sources, fixture_count, realworld_count)?;
    }
    // Drawn after the arbitrary histories, from a runner of its own, so that they stay the same.
    let mut runner = crate::conformance::seeded_runner(seed.rotate_left(17));
    deferred_tools::run(python, &dir, runner.rng())
}

/// The check of one format on the histories of `sources`.
fn check_format(
    spec: &ProviderFormat,
    python: &Path,
    dir: &Path,
    root: &Path,
    sources: &[(String, Value)],
    fixture_count: usize,
    realworld_count: usize,
) -> Result<()> {
    let format = spec.format.name();
    let mut cases: Vec<(String, Value, Expect)> = Vec::new();
    let mut refused = 0usize;
    for (name, value) in sources {
        let original = msgflow_wire::from_str(&value.to_string())?;
        let Ok(sent) = (spec.to)(&original, 0, &mut Report::default()) else {
            refused += 1; // the export's refusals are the provider check's business
            continue;
        };
        let back = (spec.from)(&sent, 0, &mut Report::default())
            .map_err(|err| anyhow::anyhow!("{name}: msgflow cannot read its own messages: {err:?}"))?;
        // A history read back whose text needs a frame the original did not (a carried thinking
        // turn that no longer follows a standing system prompt, ...) is only required to load.
        let reframed = (spec.to)(&back, 0, &mut Report::default()).is_ok_and(|again| framed(&again));
        let expect = if framed(&sent) || reframed {
            Expect::Loads
        } else {
            Expect::Messages(without_keys(sent, spec.ignored_keys))
        };
        cases.push((
            name.clone(),
            serde_json::from_str(&msgflow_wire::to_string(&back)?)?,
            expect,
        ));
    }
    let mut foreign = 0usize;
    for path in crate::conformance::foreign_files(root, format)? {
        let text = std::fs::read_to_string(&path)?;
        let converted = msgflow_formats::convert(&text, spec.format, Format::PydanticAi)
            .map_err(|err| anyhow::anyhow!("{}: {err}", path.display()))?;
        let msgflow_formats::Output::Histories(histories) = converted.output else {
            unreachable!()
        };
        for (index, history) in histories.iter().enumerate() {
            let messages = (spec.to)(history, 0, &mut Report::default())
                .map_err(|err| anyhow::anyhow!("{}: {err}", path.display()))?;
            let name = format!("formats/{}#{index}", crate::conformance::file_name(&path));
            cases.push((
                name,
                serde_json::from_str(&msgflow_wire::to_string(history)?)?,
                Expect::Messages(without_keys(messages, spec.ignored_keys)),
            ));
            foreign += 1;
        }
    }

    let cases_path = dir.join(format!("cases-{format}.jsonl"));
    let mut lines = String::new();
    for (name, history, _) in &cases {
        lines.push_str(&serde_json::to_string(&json!({ "name": name, "history": history }))?);
        lines.push('\n');
    }
    std::fs::write(&cases_path, lines).with_context(|| format!("writing {}", cases_path.display()))?;
    let oracle_path = dir.join(format!("oracle-{format}.jsonl"));
    let oracle = crate::conformance_providers::run_oracle(python, &cases_path, &oracle_path, &[spec.oracle_model])?;
    if oracle.len() != cases.len() {
        bail!("the oracle answered {} of {} cases", oracle.len(), cases.len());
    }
    let (mut equal, mut loaded) = (0usize, 0usize);
    let mut failures = Vec::new();
    for ((name, _, expect), answer) in cases.iter().zip(&oracle) {
        let answer = &answer[spec.oracle_model];
        if let Some(invalid) = answer.get("invalid") {
            failures.push(format!("{name}: pydantic-ai does not load what `from` made: {invalid}"));
            continue;
        }
        match (expect, answer.get("request")) {
            (Expect::Loads, _) => loaded += 1,
            (Expect::Messages(messages), Some(request))
                if crate::conformance_providers::json_equal(&without_keys(request.clone(), spec.ignored_keys), messages) =>
            {
                equal += 1
            }
            (Expect::Messages(messages), Some(request)) => failures.push(format!(
                "{name}: pydantic-ai maps the history to other messages\n  msgflow read:  {messages}\n  pydantic-ai:   {request}"
            )),
            (Expect::Messages(_), None) => failures.push(format!("{name}: pydantic-ai refuses: {}", answer["refused"])),
        }
    }
    println!(
        "{format}: {} cases ({fixture_count} fixtures, {realworld_count} real-world, {ARBITRARY_COUNT} arbitrary, \
         {foreign} from real {format} files; {refused} refused by the export): {equal} mapped back by pydantic-ai to \
         the very messages read, {loaded} framed ones loaded",
        cases.len()
    );
    if !failures.is_empty() {
        for failure in failures.iter().take(SHOWN) {
            println!("FAIL {failure}");
        }
        bail!("{format}: {} of {} cases differ", failures.len(), cases.len());
    }
    if equal < cases.len() / 3 {
        bail!("{format}: too few cases compared: {equal} of {}", cases.len());
    }
    Ok(())
}

/// Named histories, each as its JSON value.
pub(crate) type Sources = Vec<(String, Value)>;

/// The histories of the format checks: every committed fixture, every history of the real-world
/// corpora (required under CI) and `count` seeded arbitrary histories (`Flavour::Pydantic`),
/// with how many fixtures and real-world histories lead the list.
pub(crate) fn history_sources(root: &Path, seed: u64, count: usize) -> Result<(Sources, usize, usize)> {
    let mut sources: Vec<(String, Value)> = Vec::new();
    for fixtures in [
        "tests/fixtures/v2_68",
        "tests/fixtures/providers",
        "tests/fixtures/realworld",
        // Inputs pydantic-ai reads in spellings it does not write (base64 alphabets, legacy parts),
        // histories older releases and other tools wrote.
        "tests/fixtures/translations",
        "tests/fixtures/legacy",
        "tests/fixtures/other",
    ] {
        crate::conformance_providers::collect_fixtures(&root.join(fixtures), fixtures, &mut sources)?;
    }
    let fixture_count = sources.len();
    for corpus in ["../shared/realworld", "../shared/realworld2"] {
        let dir = root.join(corpus);
        if !dir.is_dir() {
            if std::env::var_os("CI").is_some() {
                bail!("the real-world corpus {} is missing", dir.display());
            }
            println!("skipped {corpus}: missing (outside CI)");
            continue;
        }
        crate::conformance_providers::collect_fixtures(&dir, corpus, &mut sources)?;
    }
    let realworld_count = sources.len() - fixture_count;
    let mut runner = crate::conformance::seeded_runner(seed);
    let strategy = history(Flavour::Pydantic);
    for index in 0..count {
        let tree = strategy.new_tree(&mut runner).map_err(|err| anyhow::anyhow!("{err}"))?;
        let text = msgflow_wire::to_string(&tree.current())?;
        sources.push((format!("arbitrary-{index}"), serde_json::from_str(&text)?));
    }
    Ok((sources, fixture_count, realworld_count))
}

fn framed(sent: &Value) -> bool {
    let text = sent.to_string();
    text.contains("looks like an application frame") || text.contains("<pyai:") || text.contains("<system>")
}

/// `value` without the object keys named, at any depth.
fn without_keys(mut value: Value, keys: &[&str]) -> Value {
    if keys.is_empty() {
        return value;
    }
    match &mut value {
        Value::Object(object) => {
            object.retain(|key, _| !keys.contains(&key.as_str()));
            for inner in object.values_mut() {
                *inner = without_keys(inner.take(), keys);
            }
        }
        Value::Array(items) => {
            for inner in items {
                *inner = without_keys(inner.take(), keys);
            }
        }
        _ => {}
    }
    value
}
