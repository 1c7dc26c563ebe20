//! The types of the rule tables: a [`Rule`] a provider's API enforces and a [`Violation`] of one
//! in a history. Every provider's `rules.rs` builds its table and its violations from these.

use serde::Serialize;

use crate::PartLocation;

/// One rule a provider's API enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rule {
    /// `<provider>/<name>`.
    pub id: &'static str,
    /// What the API requires.
    pub requirement: &'static str,
    /// The error the API answers with (the 400's message, `{}` where it names the id).
    pub provider_error: &'static str,
    /// Where the provider documents it.
    pub documentation: &'static str,
    /// What `repair --provider` does about it.
    pub repair: &'static str,
    /// Whether `repair --provider` always fixes it (`false`: it fixes the common cause, such as a
    /// dangling call, or nothing; `repair` says so for what it leaves).
    pub fixable: bool,
}

/// The rule `id` of a provider's `table`.
pub(crate) fn rule(table: &'static [Rule], id: &str) -> &'static Rule {
    table
        .iter()
        .find(|rule| rule.id == id)
        .expect("every rule id used is in its table")
}

/// A broken rule, at the history's message and part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Violation {
    /// The rule.
    pub rule: &'static Rule,
    /// Index of the history message it is about.
    pub message: usize,
    /// Index of the part, when it is about one.
    pub part: Option<usize>,
    /// The provider's error, with the index and ids filled in.
    pub provider_error: String,
}

impl Violation {
    pub(crate) fn new(rule: &'static Rule, at: PartLocation, values: &[&str]) -> Self {
        let mut provider_error = String::with_capacity(rule.provider_error.len());
        let mut values = values.iter();
        let mut rest = rule.provider_error;
        while let Some(index) = rest.find("{}") {
            provider_error.push_str(&rest[..index]);
            provider_error.push_str(values.next().copied().unwrap_or("?"));
            rest = &rest[index + 2..];
        }
        provider_error.push_str(rest);
        Violation {
            rule,
            message: at.message,
            part: Some(at.part),
            provider_error,
        }
    }
}
