//! pbc: a compiler, checker and resolver for the Puppet bindings language (ARM-8 / ARM-9).
//!
//! The pipeline is `lexer` → `parser` (→ `ast`) → `validate` → `lower` → `inject`, with
//! diagnostics rendered by `diag`. This crate root only wires the stages together; each stage's
//! module says what it owns.

pub mod ast;
pub mod diag;
pub mod lexer;
pub mod parser;
pub mod pn;
pub mod source;
pub mod span;
pub mod validate;

pub use parser::{parse_file, Parsed};

/// Parses one file and, when it parsed, runs Puppet's parse-time validation on it: what
/// `pbc parse --validate` (and `puppet parser validate`) report. The program is kept even when
/// validation finds errors.
pub fn parse_and_validate(file: span::FileId, src: &str) -> Parsed {
    let mut parsed = parse_file(file, src);
    if let Some(program) = &parsed.program {
        parsed.diagnostics.extend(validate::check_program(program));
    }
    parsed
}
