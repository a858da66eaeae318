//! Lists and long lines: the one place where `pbc fmt` adds line ends where there were none,
//! and a comma after the last entry of a list whose closing bracket stands on a line of its own
//! (Puppet's style guide: after every attribute, parameter, array element and hash entry). It
//! owns the choice of which bracket of a long line to break, where, and where a list may end
//! with a comma; the indentation and the alignment of the lines it makes are the layout's
//! (`super::layout`), which lays the text out again after each round. It must not break a line
//! anywhere Puppet reads a line end differently from a blank (it only breaks after an opening
//! bracket, a comma or a title's `:`, and before a closing bracket), must not touch a line with a
//! heredoc's tag (its text starts on the next line), and must not add a comma where Puppet's
//! grammar has none (a method call's arguments, a type's parameters, a block's statements).
//! `format_source` proves the outcome as it proves any layout: the same PN or no change.
//!
//! The rule for long lines: on a line longer than [`WIDTH`], the first bracket that opens and
//! closes on it and ends past the width is broken: a line end after it (after the title's `:`
//! for a resource body), after each of its commas, and before its closing bracket. A bracket
//! whose only content is another bracket (`foo([...])`) is broken at the inner one, so the two
//! stay together. A bracket with one entry is broken only when that entry then fits, or has
//! brackets of its own to break in the next round. A line with no bracket to break breaks
//! before an `and` or `or` (the last that starts within the width), which Puppet reads across
//! a line end as across a blank. Lines are never joined: a list written over several lines
//! stays so.

use super::{layout, lexed, Kind, Lexed, Role, Token};
use crate::span::FileId;

/// The widest a line should be, in characters (Puppet's style guide; puppet-lint's `140chars`).
pub const WIDTH: usize = 140;

/// At most this many rounds of breaking (each breaks one bracket per long line, the outermost
/// first, and lays the text out again): as deep as brackets nest on one line in real code many
/// times over, and a bound on the work a hostile file can ask for.
const ROUNDS: usize = 32;

/// `laid_out` (the layout of a file) with its broken lists ended by a comma and its long lines
/// wrapped, laid out again: a text that neither step changes any more (so that formatting it
/// again changes nothing), unless the rounds run out.
pub(super) fn lists_and_long_lines(file: FileId, laid_out: String) -> String {
    let mut text = laid_out;
    for _ in 0..ROUNDS {
        // A comma leaves the layout as it was: it follows the entry's last token on its line.
        if let Some(ended) = end_lists_with_commas(file, &text) {
            text = ended;
        }
        match break_once(file, &text) {
            Some(broken) => text = layout(file, &broken),
            None => break,
        }
    }
    text
}

/// What one round inserts: at each offset, a line end or a comma, in text order.
type Insertions = Vec<(usize, &'static str)>;

/// One round: the text with one bracket (or, without one, before one `and`/`or`) broken on
/// each line too long, or `None` when no line is too long or none has a place to break.
fn break_once(file: FileId, text: &str) -> Option<String> {
    let lines = Lines::of(text);
    let long: Vec<usize> = (0..lines.starts.len())
        .filter(|&l| wider_than(lines.text_of(l), WIDTH))
        .collect();
    if long.is_empty() {
        return None;
    }
    let lexed = lexed(file, text);
    let tokens = &lexed.tokens;
    let end_of = |i: usize| lexed.end_of(&tokens[i]);
    let closing = matching_brackets(tokens);
    let ends_past_width =
        |offset: usize| wider_than(&text[lines.start_of(lines.line_of(offset))..offset], WIDTH);
    let indentation = |line: usize| {
        let line = lines.text_of(line);
        line.len() - line.trim_start().len()
    };

    // A file written with `\r\n` gets them in its new lines too.
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut insertions: Insertions = Vec::new();
    for line in long {
        let first = tokens.partition_point(|t| t.start < lines.start_of(line));
        let last = tokens.partition_point(|t| lines.line_of(t.start) <= line);
        if tokens[first..last]
            .iter()
            .any(|t| t.role == Role::HeredocTag)
        {
            continue;
        }
        let mut broken = false;
        for open in first..last {
            let Some(close) = closing[open] else {
                continue;
            };
            if close >= last || !ends_past_width(end_of(close)) || close == open + 1 {
                continue;
            }
            // `foo([...])`: the inner bracket is broken, the outer two stay together.
            if tokens[open + 1].kind == Kind::Opens && closing[open + 1] == Some(close - 1) {
                continue;
            }
            let opener = text.as_bytes()[tokens[open].start];
            let Some(plan) = plan(tokens, &closing, opener, open, close) else {
                continue;
            };
            let inner = indentation(line) + super::INDENT;
            let one_entry_fits = |from: usize| {
                let entry = &text[tokens[from].start..end_of(close - 1)];
                !wider_than(entry, WIDTH.saturating_sub(inner + 1))
                    || tokens[from..close].iter().any(|t| t.kind == Kind::Opens)
            };
            if plan.breaks_after.len() == 1 && !one_entry_fits(plan.breaks_after[0] + 1) {
                continue;
            }
            for &after in &plan.breaks_after {
                insertions.push((end_of(after), newline));
            }
            insertions.push((tokens[close].start, newline));
            broken = true;
            break;
        }
        // No bracket to break: a condition breaks before its last `and` or `or` that starts
        // within the width (the first when none does), which then starts a line of its own.
        if !broken {
            let logical = (first + 1..last).filter(|&i| tokens[i].role == Role::Logical);
            let within = |&i: &usize| !ends_past_width(tokens[i].start);
            if let Some(at) = logical.clone().rfind(within).or(logical.clone().next()) {
                insertions.push((tokens[at].start, newline));
            }
        }
    }
    inserted(text, insertions)
}

/// The text with a comma after the last entry of each list that may end with one and whose
/// closing bracket starts its line; `None` when every such list has its comma.
fn end_lists_with_commas(file: FileId, text: &str) -> Option<String> {
    let lexed = lexed(file, text);
    let Lexed {
        tokens,
        heredoc_texts,
        ..
    } = &lexed;
    let closing = matching_brackets(tokens);
    let lines = Lines::of(text);
    let mut insertions: Insertions = Vec::new();
    for open in 0..tokens.len() {
        let Some(close) = closing[open] else {
            continue;
        };
        let close_at = tokens[close].start;
        let line_start = lines.start_of(lines.line_of(close_at));
        if close == open + 1 || !text[line_start..close_at].trim().is_empty() {
            continue;
        }
        // A heredoc's text stands after the rest of its tag's line: the entry ends on that line.
        let Some(last) = (open + 1..close).rfind(|&i| !heredoc_texts.contains(&tokens[i].start))
        else {
            continue;
        };
        if tokens[last].role == Role::Comma {
            continue;
        }
        let opener = text.as_bytes()[tokens[open].start];
        if plan(tokens, &closing, opener, open, close).is_some_and(|p| p.trailing_comma) {
            insertions.push((lexed.end_of(&tokens[last]), ","));
        }
    }
    inserted(text, insertions)
}

/// A text's lines: where each starts, and what it holds without its line end.
struct Lines<'t> {
    text: &'t str,
    starts: Vec<usize>,
}

impl<'t> Lines<'t> {
    fn of(text: &'t str) -> Self {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        Lines { text, starts }
    }

    /// The line that holds `offset`, from 0.
    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    fn start_of(&self, line: usize) -> usize {
        self.starts[line]
    }

    /// The line's text, without its `\n` or `\r\n`.
    fn text_of(&self, line: usize) -> &'t str {
        let end = self
            .starts
            .get(line + 1)
            .map_or(self.text.len(), |&e| e - 1);
        self.text[self.starts[line]..end].trim_end_matches('\r')
    }
}

/// `text` with `insertions` made, or `None` when there are none.
fn inserted(text: &str, mut insertions: Insertions) -> Option<String> {
    if insertions.is_empty() {
        return None;
    }
    insertions.sort_by_key(|&(at, _)| at);
    let mut out = String::with_capacity(text.len() + insertions.len() * 2);
    let mut from = 0;
    for (at, what) in insertions {
        out.push_str(&text[from..at]);
        out.push_str(what);
        from = at;
    }
    out.push_str(&text[from..]);
    Some(out)
}

/// Whether `s` has more than `width` characters; reads no more than that many, so that a line
/// of megabytes costs no more to measure at each of its brackets than a short one.
fn wider_than(s: &str, width: usize) -> bool {
    s.chars().nth(width).is_some()
}

/// By the index of each opening bracket, the index of the one that closes it.
fn matching_brackets(tokens: &[Token]) -> Vec<Option<usize>> {
    let mut closing = vec![None; tokens.len()];
    let mut open = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match t.kind {
            Kind::Opens => open.push(i),
            Kind::Closes => {
                if let Some(o) = open.pop() {
                    closing[o] = Some(i);
                }
            }
            _ => {}
        }
    }
    closing
}

/// Where a bracket breaks: after these tokens (the bracket itself or a title's `:`, then each
/// comma between entries), and before its closing bracket.
struct Plan {
    breaks_after: Vec<usize>,
    trailing_comma: bool,
}

/// How the bracket `open..=close` breaks, or `None` when it does not (a case's options, a
/// resource's several bodies, a title with nothing after it).
fn plan(
    tokens: &[Token],
    closing: &[Option<usize>],
    opener: u8,
    open: usize,
    close: usize,
) -> Option<Plan> {
    // The bracket's own tokens, those of brackets inside it and lambdas' parameters aside.
    let mut commas = Vec::new();
    let mut colon = None;
    let mut arrows_after_colon = 0usize;
    let mut arrows = 0usize;
    let mut in_pipes = false;
    let mut statements = 0usize;
    let mut i = open + 1;
    while i < close {
        let t = &tokens[i];
        match (t.kind, t.role) {
            (Kind::Opens, _) => {
                i = closing[i]?;
            }
            (_, Role::Pipe) => in_pipes = !in_pipes,
            (_, Role::Comma) if !in_pipes => commas.push(i),
            (Kind::Colon, _) => {
                // A case's option (`'a': {`) is not broken here; its block is.
                if colon.is_some() || tokens[i + 1].kind == Kind::Opens {
                    return None;
                }
                colon = Some(i);
            }
            (Kind::Semicolon, _) => return None,
            // `$a = $b ? 'x' => 1` or a site's `bindings => [...]`: a block's statement.
            (_, Role::ArrowOfAStatement) if tokens[i + 1].kind != Kind::Opens => statements += 1,
            (Kind::Arrow, _) => {
                arrows += 1;
                arrows_after_colon += usize::from(colon.is_some());
            }
            _ => {}
        }
        i += 1;
    }
    let brace = opener == b'{';
    let (first_break, commas) = match colon {
        Some(colon) if brace => {
            if colon + 1 == close {
                return None;
            }
            (colon, commas.into_iter().filter(|&c| c > colon).collect())
        }
        Some(_) => return None,
        None => (open, commas),
    };
    let mut breaks_after = vec![first_break];
    // A comma already before the closing bracket needs no line end of its own.
    breaks_after.extend(commas.iter().copied().filter(|&c| c + 1 != close));
    let may_end_with_comma = if statements > 0 {
        // `($a ? 'x' => 1)`: the arrow ends a selector, which a comma would not follow.
        false
    } else if brace {
        // A hash, a selector, attributes: their lists may end with a comma; a block's
        // statements may not.
        if colon.is_some() {
            arrows_after_colon > 0
        } else {
            arrows > 0
        }
    } else if opener == b'(' {
        // Not a method's arguments (`$x.foo(a, b)`).
        !(open >= 2 && tokens[open - 2].role == Role::Dot)
    } else {
        // Not a type's parameters (`Hash[String, Integer] $x`).
        !(open >= 1 && tokens[open - 1].role == Role::TypeName)
    };
    let is_list = !commas.is_empty() || arrows > 0;
    Some(Plan {
        breaks_after,
        trailing_comma: may_end_with_comma && is_list,
    })
}
