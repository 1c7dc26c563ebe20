//! Where the tokens go, drawn as inline SVG: tokens per turn as bars, and the cumulative count
//! over the messages against the context window.

use std::fmt::Write as _;

const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 140.0;
/// At most this many bars: a long history's turns are grouped so that each bar stays visible.
const MAX_BARS: usize = 300;
/// At most this many points on the cumulative line.
const MAX_POINTS: usize = 600;

/// Appends both charts for `per_message` tokens, with turns starting at `turn_starts` (ascending,
/// the first 0) and an optional context window.
pub fn push_charts(out: &mut String, per_message: &[usize], turn_starts: &[usize], context_window: Option<u64>) {
    let total: usize = per_message.iter().sum();
    let per_turn: Vec<(usize, usize, usize)> = turn_starts
        .iter()
        .enumerate()
        .map(|(turn, &start)| {
            let end = turn_starts.get(turn + 1).copied().unwrap_or(per_message.len());
            let tokens = per_message.get(start..end).map_or(0, |slice| slice.iter().sum());
            (start, end, tokens)
        })
        .collect();
    let turns_per_bar = per_turn.len().div_ceil(MAX_BARS).max(1);
    let bars: Vec<(usize, usize, usize, usize)> = per_turn
        .chunks(turns_per_bar)
        .enumerate()
        .map(|(bar, chunk)| {
            let first_turn = bar * turns_per_bar;
            (
                first_turn,
                first_turn + chunk.len() - 1,
                chunk.iter().map(|turn| turn.2).sum(),
                chunk.first().map_or(0, |turn| turn.0),
            )
        })
        .collect();
    let grouping = if turns_per_bar > 1 {
        format!(" ({turns_per_bar} turns per bar)")
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "<figure class=\"chart\"><figcaption>Tokens per turn{grouping}: {} turns, {total} tokens in all</figcaption>",
        per_turn.len()
    );
    let _ = write!(
        out,
        "<svg class=\"bars\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"tokens per turn\">"
    );
    let highest = bars.iter().map(|bar| bar.2).max().unwrap_or(0).max(1) as f64;
    let slot = WIDTH / bars.len().max(1) as f64;
    for (first, last, tokens, start) in &bars {
        let height = (*tokens as f64 / highest * (HEIGHT - 4.0)).max(if *tokens > 0 { 1.0 } else { 0.0 });
        let turns = if first == last {
            format!("turn {first}")
        } else {
            format!("turns {first}-{last}")
        };
        let _ = write!(
            out,
            "<a href=\"#m{start}\"><rect x=\"{:.2}\" y=\"{:.2}\" width=\"{:.2}\" height=\"{height:.2}\"><title>{turns}: {tokens} tokens</title></rect></a>",
            *first as f64 / turns_per_bar as f64 * slot + slot * 0.1,
            HEIGHT - height,
            slot * 0.8,
        );
    }
    out.push_str("</svg></figure>");

    let window = context_window.unwrap_or(0);
    let ceiling = (total as f64).max(window as f64).max(1.0);
    let caption = match context_window {
        Some(window) => format!(
            "Cumulative tokens over {} messages: {total} of a {window}-token context window ({:.0}%)",
            per_message.len(),
            total as f64 / window.max(1) as f64 * 100.0
        ),
        None => format!(
            "Cumulative tokens over {} messages: {total} (--context-window N draws the window)",
            per_message.len()
        ),
    };
    let _ = write!(
        out,
        "<figure class=\"chart\"><figcaption>{caption}</figcaption><svg class=\"cumulative\" viewBox=\"0 0 {WIDTH} {HEIGHT}\" preserveAspectRatio=\"none\" role=\"img\" aria-label=\"cumulative tokens\">"
    );
    let step = per_message.len().div_ceil(MAX_POINTS).max(1);
    let mut running = 0usize;
    let mut points = format!("0,{HEIGHT}");
    for (index, tokens) in per_message.iter().enumerate() {
        running += tokens;
        if (index + 1) % step == 0 || index + 1 == per_message.len() {
            let x = (index + 1) as f64 / per_message.len() as f64 * WIDTH;
            let y = HEIGHT - running as f64 / ceiling * (HEIGHT - 4.0);
            let _ = write!(points, " {x:.2},{y:.2}");
        }
    }
    let _ = write!(
        out,
        "<polyline points=\"{points}\"><title>{total} tokens</title></polyline>"
    );
    if let Some(window) = context_window {
        let y = HEIGHT - window as f64 / ceiling * (HEIGHT - 4.0);
        let _ = write!(
            out,
            "<line class=\"window\" x1=\"0\" x2=\"{WIDTH}\" y1=\"{y:.2}\" y2=\"{y:.2}\"><title>context window: {window} tokens</title></line>"
        );
    }
    out.push_str("</svg></figure>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_bar_per_turn_and_the_window_line() {
        let mut out = String::new();
        push_charts(&mut out, &[10, 20, 30, 40], &[0, 2], Some(200));
        assert_eq!(out.matches("<rect").count(), 2);
        assert!(out.contains("turn 0: 30 tokens"), "{out}");
        assert!(out.contains("turn 1: 70 tokens"), "{out}");
        assert!(out.contains("100 of a 200-token context window (50%)"), "{out}");
        assert!(out.contains("class=\"window\""));
    }

    #[test]
    fn many_turns_are_grouped() {
        let per_message = vec![1; 1000];
        let starts: Vec<usize> = (0..1000).collect();
        let mut out = String::new();
        push_charts(&mut out, &per_message, &starts, None);
        assert_eq!(out.matches("<rect").count(), 250);
        assert!(out.contains("(4 turns per bar)"));
        assert!(!out.contains("class=\"window\""));
    }
}
