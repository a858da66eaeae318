//! Relationship arrows on their right operand's line: `a ->` at the end of a line, `b` on the
//! next, becomes `a` and `-> b` (Puppet's style guide; puppet-lint's
//! `arrow_on_right_operand_line`). The one place where `pbc fmt` moves a token, and only this
//! one: an arrow that ends its line (comments aside), to its right operand, past blank lines
//! and comments, each of which stays on its line. It must not move an arrow next to a heredoc
//! (whose text starts on the line after its tag); the layout that follows indents the moved
//! arrow's line as it indents any line that starts with one.

use super::{blanks_only, lexed, Lexed, Role};
use crate::span::FileId;

/// `src` with each relationship arrow that ends a line moved to the start of the next, or
/// `None` when none does.
pub(super) fn arrows_to_their_right_operand(file: FileId, src: &str) -> Option<String> {
    let lexed = lexed(file, src);
    let Lexed {
        tokens,
        heredoc_texts,
        ..
    } = &lexed;
    let heredoc =
        |i: usize| tokens[i].role == Role::HeredocTag || heredoc_texts.contains(&tokens[i].start);
    // Each move: the text from the left operand's end to the right operand's start, written
    // anew as the line ends and blanks after the arrow, the arrow, one space.
    let mut moves: Vec<(usize, usize, usize)> = Vec::new();
    for i in 1..tokens.len().saturating_sub(1) {
        let arrow = &tokens[i];
        if arrow.role != Role::Relationship || heredoc(i - 1) || heredoc(i + 1) {
            continue;
        }
        let left = &tokens[i - 1];
        let left_end = lexed.end_of(left);
        let (Some(before), Some(after)) = (
            src.get(left_end..arrow.start),
            src.get(arrow.end..tokens[i + 1].start),
        ) else {
            continue;
        };
        // The comments between the arrow and its operand stay on their lines: one after the
        // arrow on its line then follows the left operand, those on lines of their own stand
        // above the arrow's new line.
        if blanks_only(before) && after.contains('\n') {
            moves.push((left_end, i, tokens[i + 1].start));
        }
    }
    if moves.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(src.len() + moves.len());
    let mut from = 0;
    for (left_end, i, right_start) in moves {
        let arrow = &tokens[i];
        out.push_str(&src[from..left_end]);
        out.push_str(&src[arrow.end..right_start]);
        out.push_str(&src[arrow.start..arrow.end]);
        out.push(' ');
        from = right_start;
    }
    out.push_str(&src[from..]);
    Some(out)
}
