//! Terminal colours for reports, and the `--color` / `--width` decisions.

use anstyle::{AnsiColor, Effects, Style};
use clap::ValueEnum;

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

/// Whether to colour, given `--color` and whether the output is a terminal. `auto` also honours
/// the NO_COLOR convention (<https://no-color.org>).
pub fn use_color(choice: ColorChoice, output_is_terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => output_is_terminal && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty()),
    }
}

/// The width to wrap at: `--width`, else the terminal's width (capped, long lines are hard to read),
/// else `COLUMNS`, else 100.
pub fn wrap_width(requested: Option<u16>, output_is_terminal: bool) -> usize {
    if let Some(width) = requested {
        return usize::from(width);
    }
    if output_is_terminal {
        if let Some((_, columns)) = console::Term::stdout().size_checked() {
            return usize::from(columns).clamp(40, 160);
        }
    }
    std::env::var("COLUMNS")
        .ok()
        .and_then(|text| text.trim().parse::<usize>().ok())
        .filter(|columns| *columns >= 20)
        .unwrap_or(100)
}

/// The styles of the transcript's elements.
#[derive(Clone, Copy, Debug)]
pub enum Role {
    /// A message header.
    Header,
    /// Instructions and system prompts.
    System,
    /// The user.
    User,
    /// The model's text.
    Assistant,
    /// The model's thinking.
    Thinking,
    /// A tool call.
    ToolCall,
    /// A successful tool return.
    Success,
    /// A failed, denied or interrupted tool return, a retry, a dangling call.
    Failure,
    /// Notes about truncation, metadata and the like.
    Note,
}

/// Applies styles to text, or leaves it alone when colours are off.
#[derive(Clone, Copy, Debug)]
pub struct Painter {
    enabled: bool,
}

impl Painter {
    /// A painter that colours when `enabled`.
    pub fn new(enabled: bool) -> Self {
        Painter { enabled }
    }

    /// `text` in the style of `role`.
    pub fn paint(&self, role: Role, text: &str) -> String {
        if !self.enabled {
            return text.to_owned();
        }
        let style = style_of(role);
        format!("{}{text}{}", style.render(), style.render_reset())
    }
}

fn style_of(role: Role) -> Style {
    let color = |color: AnsiColor| Style::new().fg_color(Some(color.into()));
    match role {
        Role::Header => Style::new().effects(Effects::BOLD),
        Role::System => color(AnsiColor::Magenta),
        Role::User => color(AnsiColor::Green).effects(Effects::BOLD),
        Role::Assistant => color(AnsiColor::Cyan).effects(Effects::BOLD),
        Role::Thinking => Style::new().effects(Effects::DIMMED | Effects::ITALIC),
        Role::ToolCall => color(AnsiColor::Yellow),
        Role::Success => color(AnsiColor::Green),
        Role::Failure => color(AnsiColor::Red),
        Role::Note => Style::new().effects(Effects::DIMMED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn painting_is_a_no_op_without_colour() {
        assert_eq!(Painter::new(false).paint(Role::User, "user"), "user");
        assert_eq!(Painter::new(true).paint(Role::Header, "x"), "\u{1b}[1mx\u{1b}[0m");
    }

    #[test]
    fn explicit_choices_win() {
        assert!(use_color(ColorChoice::Always, false));
        assert!(!use_color(ColorChoice::Never, true));
        assert_eq!(wrap_width(Some(80), true), 80);
    }
}
