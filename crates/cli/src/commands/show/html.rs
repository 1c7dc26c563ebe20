//! `msgflow show --html`: a history as a self-contained HTML page (msgflow-transcript), with the
//! findings of `check` (and `check --provider P`) marked where they are and the tokens counted by
//! the `stats --tokens` counter. A batch writes one page per input into `-o DIR` and an
//! `index.html` listing them.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;

use msgflow_context::tokens::CounterChoice;
use msgflow_transcript::{IndexEntry, Marker, Options, Summary, TokenCounts};
use rayon::prelude::*;

use super::ShowArgs;
use crate::outcome::{Failure, Status};
use crate::runner::{self, FileCommand, Mode, Processed, Source};

/// The index page of a batch, in `-o DIR`.
const INDEX: &str = "index.html";

/// Writes transcript pages.
pub struct ShowHtml {
    provider: Option<msgflow_providers::Provider>,
    tokenizer: CounterChoice,
    context_window: Option<u64>,
    /// What each page holds, by input label, for the index of a batch.
    summaries: Mutex<HashMap<String, Summary>>,
}

impl ShowHtml {
    /// The command `args` ask for.
    pub fn from_args(args: &ShowArgs) -> Self {
        ShowHtml {
            provider: args.provider,
            tokenizer: args.tokenizer,
            context_window: args.context_window,
            summaries: Mutex::new(HashMap::new()),
        }
    }
}

impl FileCommand for ShowHtml {
    fn mode(&self) -> Mode {
        Mode::Transform
    }

    fn output_extension(&self) -> Option<&'static str> {
        Some("html")
    }

    fn process(&self, source: &Source<'_>) -> Result<Processed, Failure> {
        let history = crate::runner::parse_history(source)?;
        let violations = msgflow_sanitize::check_located(&history, source.input.as_str());
        let loadable = !violations.iter().any(|violation| violation.kind.refuses_loading());
        let mut markers: Vec<Marker> = violations
            .iter()
            .map(|violation| Marker {
                message: violation.message_index,
                part: violation.part_index,
                source: "check".to_owned(),
                text: violation.to_string(),
            })
            .collect();
        let mut notes = Vec::new();
        let mut warnings = String::new();
        if let Some(provider) = self.provider {
            match msgflow_providers::check_with(&history, provider, &msgflow_providers::ExportOptions::default()) {
                Ok(violations) => markers.extend(violations.iter().map(|violation| Marker {
                    message: violation.message,
                    part: violation.part,
                    source: provider.name().to_owned(),
                    text: crate::provider::violation_line(violation).trim_end().to_owned(),
                })),
                // `check --provider` fails here; the page is still worth having, so it says why
                // the provider's rules could not be applied.
                Err(error) => {
                    let note = format!("{provider}'s rules were not checked: {error}");
                    warnings.push_str(&format!("msgflow: warning: {}: {note}\n", source.label));
                    notes.push(note);
                }
            }
        }
        let (counter, _) = crate::tokenizer::counter_for(self.tokenizer, &history)?;
        let per_message = history
            .par_iter()
            .map(|message| counter.count_message(message))
            .collect();
        let title = Path::new(source.label)
            .file_name()
            .map_or_else(|| source.label.to_owned(), |name| name.to_string_lossy().into_owned());
        let options = Options {
            title,
            markers,
            loadable: Some(loadable),
            tokens: Some(TokenCounts {
                counter: self.tokenizer.to_string(),
                per_message,
            }),
            context_window: self.context_window,
            notes,
            max_embedded_bytes: None,
        };
        let (page, summary) = msgflow_transcript::render(&history, &options);
        if let Ok(mut summaries) = self.summaries.lock() {
            summaries.insert(source.label.to_owned(), summary);
        }
        Ok(Processed {
            output: page.into_bytes(),
            notes: warnings,
            ..Processed::default()
        })
    }
}

/// Runs `show --html`; in batch mode, then writes `DIR/index.html`.
pub fn run(args: &ShowArgs) -> Status {
    let command = ShowHtml::from_args(args);
    let destination = runner::report_destination(args.output.output.clone());
    let pages: Option<Vec<(String, String, std::path::PathBuf)>> = runner::batch_files(&args.input).map(|files| {
        files
            .into_iter()
            .map(|(path, relative)| {
                (
                    path.display().to_string(),
                    relative.display().to_string(),
                    runner::output_name(&command, &relative),
                )
            })
            .collect()
    });
    if let Some(pages) = &pages {
        if pages.iter().any(|(_, _, page)| page == Path::new(INDEX)) {
            return crate::outcome::usage_error(
                "an input would be written to index.html, which is the batch's index page",
                Some("rename that input, or give it in a run of its own"),
            );
        }
    }
    let status = runner::run(&command, &args.input, &destination);
    let (Some(pages), Some(directory)) = (pages, args.output.output.as_deref()) else {
        return status;
    };
    if pages.is_empty() || directory == Path::new("-") || !directory.is_dir() {
        return status;
    }
    let summaries = command.summaries.into_inner().unwrap_or_default();
    let entries: Vec<IndexEntry> = pages
        .iter()
        .map(|(label, name, page)| match summaries.get(label) {
            Some(summary) => IndexEntry {
                name: name.clone(),
                href: Some(
                    page.components()
                        .map(|part| part.as_os_str().to_string_lossy())
                        .collect::<Vec<_>>()
                        .join("/"),
                ),
                outcome: Ok(summary.clone()),
            },
            None => IndexEntry {
                name: name.clone(),
                href: None,
                outcome: Err("no page: the input could not be read or shown (the error is printed above)".to_owned()),
            },
        })
        .collect();
    let index = msgflow_transcript::render_index("msgflow transcripts", &entries);
    let target = directory.join(INDEX);
    match crate::files::write_atomically(&target, index.as_bytes(), None) {
        Ok(()) => status,
        Err(err) => {
            eprint!("{}", Failure::unwritable(&target, &err).render("index"));
            Status::Invalid
        }
    }
}
