//! Nothing lost: `--in-place` killed at random moments leaves the old file or the new one, never a
//! partial one, and a failed command never modifies its input.

use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::harness::{fixture, listing, msgflow, msgflow_bin};

// ---------------------------------------------------------------------------------------------
// Nothing lost: SIGKILL during --in-place
// ---------------------------------------------------------------------------------------------

/// A large history (`target_bytes` or a bit more) in a non-compact layout, so `fmt` rewrites it.
fn large_history(target_bytes: usize) -> Vec<u8> {
    let history = msgflow_wire::from_slice(&fixture("v2_68/coding-agent-session.json")).expect("fixture parses");
    let messages: Vec<Vec<u8>> = history
        .iter()
        .map(|message| msgflow_wire::to_vec(std::slice::from_ref(message)).expect("serialises"))
        .collect();
    let mut out = Vec::with_capacity(target_bytes + 64 * 1024);
    out.extend_from_slice(b"[\n");
    let mut first = true;
    'fill: loop {
        for message in &messages {
            if !first {
                out.extend_from_slice(b",\n  ");
            }
            first = false;
            // Drop the `[` and `]` around the one-message array.
            out.extend_from_slice(&message[1..message.len() - 1]);
            if out.len() >= target_bytes {
                break 'fill;
            }
        }
    }
    out.extend_from_slice(b"\n]\n");
    out
}

/// A small deterministic pseudo-random sequence (no dependency): xorshift64.
struct Xorshift(u64);

impl Xorshift {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound.max(1)
    }
}

#[test]
fn sigkill_during_in_place_rewrite_leaves_old_or_new_never_partial() {
    let size_mb: usize = std::env::var("MSGFLOW_KILL_TEST_MB")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(100);
    let dir = tempfile::tempdir().expect("temporary directory");
    let original = large_history(size_mb * 1024 * 1024);
    let file = dir.path().join("big.json");

    // The expected new content, and how long a full run takes.
    fs::write(&file, &original).expect("write");
    let started = Instant::now();
    let run = msgflow(dir.path(), &["fmt", "--in-place", "big.json"]);
    let full_run = started.elapsed();
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let formatted = fs::read(&file).expect("formatted");
    assert_ne!(formatted, original, "the layout must change, or fmt would not rewrite");
    assert_eq!(listing(dir.path()), ["big.json"]);

    let seed = std::env::var("MSGFLOW_KILL_TEST_SEED")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15_u64);
    let mut random = Xorshift(seed);
    let mut outcomes = Vec::new();
    for attempt in 0..6 {
        fs::write(&file, &original).expect("restore");
        let mut child = Command::new(msgflow_bin())
            .args(["fmt", "--in-place", "big.json"])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let started = Instant::now();
        if attempt % 2 == 0 {
            // Anywhere in the run (reading, parsing, formatting, writing, renaming).
            let delay = random.below(full_run.as_millis() as u64 + 1);
            std::thread::sleep(Duration::from_millis(delay));
        } else {
            // During the write: once the temporary file exists, at a random moment of what is
            // left of a full run's duration (writing, fsync, rename).
            while child.try_wait().expect("wait").is_none()
                && !listing(dir.path()).iter().any(|name| name.ends_with(".msgflow-tmp"))
            {
                std::thread::sleep(Duration::from_micros(200));
            }
            let left = full_run.saturating_sub(started.elapsed());
            std::thread::sleep(Duration::from_millis(random.below(left.as_millis() as u64 + 1)));
        }
        let killed_after = started.elapsed();
        let _ = child.kill(); // SIGKILL on Unix
        let status = child.wait().expect("wait");
        let after = fs::read(&file).expect("the file is still there");
        let state = if after == original {
            "original"
        } else if after == formatted {
            "new"
        } else {
            panic!(
                "attempt {attempt}: killed after {killed_after:?}: the file is neither the original nor the new output ({} bytes)",
                after.len()
            )
        };
        let strays: Vec<String> = listing(dir.path())
            .into_iter()
            .filter(|name| name != "big.json")
            .collect();
        for stray in &strays {
            // A killed process cannot clean up; what it leaves is hidden, never a .json file, and
            // never replaces the input. Remove it for the next attempt.
            assert!(
                stray.starts_with(".big.json.") && stray.ends_with(".msgflow-tmp"),
                "unexpected file {stray}"
            );
            fs::remove_file(dir.path().join(stray)).expect("remove stray");
        }
        outcomes.push(format!(
            "attempt {attempt}: killed after {killed_after:?} (exit {status:?}): {state}, stray temporary files: {}",
            strays.len()
        ));
    }
    eprintln!(
        "full run {full_run:?} on {} bytes\n{}",
        original.len(),
        outcomes.join("\n")
    );
}

#[test]
fn failed_commands_never_modify_their_input() {
    let dir = tempfile::tempdir().expect("temporary directory");
    let valid = fixture("v2_68/tool-call-return-basic.json");
    let broken = &valid[..valid.len() / 2];
    fs::write(dir.path().join("broken.json"), broken).expect("write");
    fs::write(dir.path().join("valid.json"), &valid).expect("write");
    // Batch with a broken file: the broken one is untouched, the valid one is processed.
    let run = msgflow(
        dir.path(),
        &["repair", "--in-place", "--backup", "broken.json", "valid.json"],
    );
    assert_eq!(run.code, Some(2), "{}", run.stderr);
    assert_eq!(fs::read(dir.path().join("broken.json")).expect("read"), broken);
    assert!(!dir.path().join("broken.json.bak").exists());
    // `wire` on a history that is not canonical JSON, `canonical` on canonical JSON.
    for (command, name) in [("wire", "valid.json"), ("fmt", "broken.json")] {
        let before = fs::read(dir.path().join(name)).expect("read");
        let run = msgflow(dir.path(), &[command, "--in-place", name]);
        assert_eq!(run.code, Some(2), "{command}: {}", run.stderr);
        assert_eq!(
            fs::read(dir.path().join(name)).expect("read"),
            before,
            "{command} changed {name}"
        );
    }
    assert!(listing(dir.path()).iter().all(|name| !name.ends_with(".msgflow-tmp")));
}
