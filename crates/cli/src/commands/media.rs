//! `msgflow media extract|inline --dir DIR`: inline binary items moved out to content-addressed
//! files and back (msgflow-context's `media`).

use std::path::PathBuf;

use clap::{Args, Subcommand};

use crate::args::{InputArgs, OutputArgs, StrictArgs};
use crate::outcome::{Failure, Status};
use crate::runner::{FileCommand, Mode, Processed, Source};

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

/// The examples and notes after `msgflow media --help`'s options.
pub const HELP: &str = concat!(
    "Examples:\n",
    "  msgflow media extract --dir media/ session.json -o light.json\n",
    "  msgflow media inline --dir media/ light.json -o session.json   # the original, byte for byte\n",
    "  msgflow media extract --dir media/ --in-place -r sessions/\n\n",
    "Files are named by the SHA-256 of their bytes, with the media type's extension; an existing file\n",
    "with other bytes is never overwritten (exit 2). inline fails (exit 2) naming a missing or altered file.\n\n",
    exit_codes_text!()
);

/// Runs `msgflow media extract` or `msgflow media inline`.
pub fn run(args: &MediaArgs) -> Status {
    let (direction, args) = match &args.action {
        MediaAction::Extract(args) => (Direction::Extract, args),
        MediaAction::Inline(args) => (Direction::Inline, args),
    };
    let command = Media {
        direction,
        dir: args.dir.clone(),
        strict: args.strict.strict,
    };
    crate::runner::run(&command, &args.input, &args.output)
}

/// Which way the media moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Out of the history into files.
    Extract,
    /// From the files back into the history.
    Inline,
}

/// Moves the media of each input out to `dir` or back in from it.
pub struct Media {
    /// The direction.
    pub direction: Direction,
    /// The media directory.
    pub dir: PathBuf,
    /// `--strict`: refuse to write a history pydantic-ai would not load.
    pub strict: bool,
}

fn failure(err: &msgflow_context::media::MediaError) -> Failure {
    use msgflow_context::media::MediaError;
    let hint = match err {
        MediaError::Collision { .. } => "a different file has the digest's name: move it away, or use another --dir",
        MediaError::Missing { .. } => {
            "restore the file from where the history's media were extracted, or pass that --dir"
        }
        MediaError::Altered { .. } => "the file's bytes changed since extraction: restore the original file",
        MediaError::BadReference { .. } => "the reference was edited by hand: restore it as `media extract` wrote it",
        MediaError::Write { .. } => "check that the directory is writable; the history was not written",
    };
    Failure::invalid(err.to_string(), Some(hint.to_owned()))
}

impl FileCommand for Media {
    fn mode(&self) -> Mode {
        Mode::Transform
    }

    fn strict(&self) -> bool {
        self.strict
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let mut history = crate::runner::parse_history(source)?;
        if self.strict && self.direction == Direction::Extract {
            // Extraction writes the media files before the runner judges the history it
            // returns; a refusal must leave DIR alone too. Moving media out keeps loadability
            // either way (the reference is a `BinaryContent` pydantic-ai loads), so the input's
            // verdict is the output's.
            crate::runner::refuse_unloadable(&history)?;
        }
        let label = source.label;
        let notes = match self.direction {
            Direction::Extract => {
                let extraction =
                    msgflow_context::media::extract(&mut history, &self.dir).map_err(|err| failure(&err))?;
                let bytes: u64 = extraction.files.iter().map(|item| item.bytes).sum();
                let mut notes = format!(
                    "msgflow: {label}: moved {} media items ({bytes} bytes) to {}\n",
                    extraction.files.len(),
                    self.dir.display()
                );
                if extraction.left_inline > 0 {
                    notes.push_str(&format!(
                        "msgflow: {label}: left {} tool returns inline (their content is not in pydantic-ai's compact form)\n",
                        extraction.left_inline
                    ));
                }
                notes
            }
            Direction::Inline => {
                let restored = msgflow_context::media::inline(&mut history, &self.dir).map_err(|err| failure(&err))?;
                format!(
                    "msgflow: {label}: restored {restored} media items from {}\n",
                    self.dir.display()
                )
            }
        };
        Ok(Processed::history(history, notes))
    }
}
