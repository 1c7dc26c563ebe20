//! Every step on every committed fixture and on the real-world corpus (`../shared/realworld/`,
//! 59 histories from public projects): trim keeps a pair-safe suffix and is idempotent, clearing
//! and clamping keep every call/return pair and are idempotent, token counting runs, media
//! extraction then inlining gives the input back byte for byte.

use std::path::{Path, PathBuf};

use msgflow_context::clamp::{clamp_like_harness, clamp_parts, HarnessClamp};
use msgflow_context::clear::{clear_like_harness, clear_tool_results, HarnessClear};
use msgflow_context::media::{extract, inline};
use msgflow_context::tokens::{TokenCounter, Tokenizer};
use msgflow_context::trim::{trim, Budget, TrimError};
use msgflow_context::Turns;
use msgflow_sanitize::{check, ViolationKind};
use msgflow_wire::ModelMessage;

fn json_files(dir: &Path, out: &mut Vec<PathBuf>) {
    // A missing directory fails the test: CI checks the corpus out beside the repository, and a
    // run without it would check the fixtures alone while claiming the real-world histories.
    let entries = std::fs::read_dir(dir).unwrap_or_else(|err| panic!("{}: {err}", dir.display()));
    let mut entries: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            json_files(&path, out);
        } else if path.extension().is_some_and(|ext| ext == "json") {
            out.push(path);
        }
    }
}

/// Every history of the corpus that msgflow reads (some fixtures are deliberately broken input).
fn corpus() -> Vec<(PathBuf, Vec<ModelMessage>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = Vec::new();
    json_files(&root.join("tests/fixtures"), &mut files);
    let fixtures = files.len();
    json_files(&root.join("../shared/realworld"), &mut files);
    let real_world = files.len() - fixtures;
    assert!(
        real_world >= 50,
        "only {real_world} real-world histories in ../shared/realworld"
    );
    files
        .into_iter()
        .filter_map(|path| {
            let bytes = std::fs::read(&path).ok()?;
            let history = msgflow_wire::from_slice(&bytes).ok()?;
            Some((path, history))
        })
        .collect()
}

fn kinds(history: &[ModelMessage], kind: ViolationKind) -> usize {
    check(history).iter().filter(|violation| violation.kind == kind).count()
}

/// What `check` says about calls and results.
fn pairing(history: &[ModelMessage]) -> Vec<msgflow_sanitize::Violation> {
    check(history)
        .into_iter()
        .filter(|violation| {
            matches!(
                violation.kind,
                ViolationKind::DanglingCall
                    | ViolationKind::OrphanReturn
                    | ViolationKind::DuplicateCallId
                    | ViolationKind::MisplacedReturn
                    | ViolationKind::BuiltinCallWithoutReturn
            )
        })
        .collect()
}

fn written(history: &[ModelMessage]) -> Vec<u8> {
    msgflow_wire::to_vec(history).expect("a parsed history is written")
}

#[test]
fn every_step_works_on_every_fixture_and_real_world_history() {
    let corpus = corpus();
    assert!(corpus.len() > 50, "only {} histories read", corpus.len());
    let counter = TokenCounter::new(Tokenizer::O200kBase);
    for (path, history) in &corpus {
        let name = path.display();
        let turns = Turns::of(history);
        let valid = check(history).is_empty();
        for budget in [
            Budget::Turns(1),
            Budget::Turns(2),
            Budget::Bytes(written(history).len() / 2),
            Budget::Tokens(history.iter().map(|m| counter.count_message(m)).sum::<usize>() / 2),
        ] {
            let trimmed = match trim(history.clone(), budget, &counter) {
                Ok(trimmed) => trimmed,
                // Half a history's size can be less than its newest turn; any other error is a bug.
                Err(TrimError::NewestTurnTooLarge { .. }) if !matches!(budget, Budget::Turns(_)) => continue,
                Err(err) => panic!("{name}: {budget:?}: {err}"),
            };
            let start = trimmed.report.removed.len();
            assert!(turns.is_cut_point(start), "{name}: {budget:?} cut at {start}");
            assert!(
                kinds(&trimmed.history, ViolationKind::OrphanReturn) <= kinds(history, ViolationKind::OrphanReturn),
                "{name}: {budget:?} orphaned a result"
            );
            if valid {
                assert_eq!(check(&trimmed.history), vec![], "{name}: {budget:?}");
            }
            let again = trim(trimmed.history.clone(), budget, &counter).expect("what fit still fits");
            assert_eq!(written(&again.history), written(&trimmed.history), "{name}: {budget:?}");
        }

        let mut cleared = history.clone();
        clear_tool_results(&mut cleared, 1);
        let mut harness = history.clone();
        clear_like_harness(&mut harness, &HarnessClear::default());
        let mut clamped = history.clone();
        clamp_parts(&mut clamped, 256);
        let mut harness_clamped = history.clone();
        clamp_like_harness(
            &mut harness_clamped,
            &HarnessClamp {
                max_part_chars: Some(300),
                keep_head_chars: 100,
                keep_tail_chars: 100,
                ..HarnessClamp::default()
            },
        );
        for (step, changed) in [
            ("clear", &cleared),
            ("harness clear", &harness),
            ("clamp", &clamped),
            ("harness clamp", &harness_clamped),
        ] {
            // Content changes; structure and pairing do not (whether pydantic-ai would load the
            // content, which `check` also reports, is not a pairing question).
            assert_eq!(pairing(changed), pairing(history), "{name}: {step}");
            let reread = msgflow_wire::from_slice(&written(changed)).expect("the output is a history");
            // Compared as bytes: a NaN read from a verdict fixture never equals itself.
            assert_eq!(written(&reread), written(changed), "{name}: {step}");
        }
        let mut twice = cleared.clone();
        assert!(clear_tool_results(&mut twice, 1).is_empty(), "{name}: clearing twice");
        let mut twice = clamped.clone();
        assert!(clamp_parts(&mut twice, 256).is_empty(), "{name}: clamping twice");
        let mut twice = harness.clone();
        assert_eq!(
            clear_like_harness(&mut twice, &HarnessClear::default()),
            0,
            "{name}: harness twice"
        );

        for tokenizer in [Tokenizer::O200kBase, Tokenizer::Cl100kBase, Tokenizer::Chars4] {
            let counter = TokenCounter::new(tokenizer);
            let total: usize = history.iter().map(|message| counter.count_message(message)).sum();
            let has_parts = history.iter().any(|message| message.parts_len() > 0);
            assert!(
                total > 0 || !has_parts || tokenizer == Tokenizer::Chars4,
                "{name}: {tokenizer}"
            );
        }
        let _ = TokenCounter::calibrated(history);

        let media = tempfile::tempdir().expect("a temporary directory");
        let mut extracted = history.clone();
        let extraction = extract(&mut extracted, media.path()).expect("extract");
        let mut restored = msgflow_wire::from_slice(&written(&extracted)).expect("the references are a history");
        assert_eq!(
            inline(&mut restored, media.path()).expect("inline"),
            extraction.files.len(),
            "{name}"
        );
        assert_eq!(written(&restored), written(history), "{name}: extract then inline");
    }
}
