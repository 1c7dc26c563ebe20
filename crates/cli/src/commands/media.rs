//! `msgflow media extract|inline --dir DIR`: inline binary items moved out to content-addressed
//! files and back (msgflow-context's `media`).

use std::path::PathBuf;

use crate::outcome::Failure;
use crate::runner::{FileCommand, Mode, Processed, Source};

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
        let mut history = super::parse_history(source)?;
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
