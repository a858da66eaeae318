//! pbc: a compiler, checker and resolver for the Puppet bindings language (ARM-8 / ARM-9).
//!
//! The pipeline is `lexer` → `parser` (→ `ast`) → `validate` → `lower` → `compose` →
//! `inject`, with diagnostics rendered by `diag`; the first stages and `diag` are the
//! `puppet_bindings_syntax` crate (`crates/syntax`), re-exported here; `load` reads what a command needs and runs
//! the stages over it; `migrate` writes bindings for a Hiera 5 environment. This crate root only declares the modules and re-exports the API; each
//! module says what it owns.

pub mod compose;
pub mod data;
pub mod eval;
pub mod format;
pub mod ide;
pub mod indented_json;
pub mod inject;
pub mod load;
pub mod lower;
pub mod migrate;
pub mod options;
pub mod outcome;
pub mod parallel;
pub mod reclaim;
pub mod source;
pub mod tree;
pub mod types;
pub mod validate;

#[cfg(test)]
mod layering;

pub use load::{
    check_paths, check_sources, check_tree_files, compile_dir, compile_sources, compile_tree_files,
    keep_text, load_environments_file, load_request_files, load_sources, load_tree_files,
    parse_and_validate, CheckReport, CompileMode, CompileReport, JsonLayout, LoadedTree, ModelSink,
    ModelWriter, SourceInput,
};
pub use options::Options;
pub use parser::{parse_file, parse_file_statements, Parsed};
// The syntax crate's modules, where the engine and its users have always found them.
pub use puppet_bindings_syntax::{ast, bytewise, diag, lexer, parser, pn, span};
