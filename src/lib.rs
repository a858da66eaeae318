//! pbc: a compiler, checker and resolver for the Puppet bindings language (ARM-8 / ARM-9).
//!
//! The pipeline is `lexer` → `parser` (→ `ast`) → `validate` → `lower` → `compose` →
//! `inject`, with diagnostics rendered by `diag`; `load` reads what a command needs and runs
//! the stages over it; `migrate` writes bindings for a Hiera 5 environment. This crate root only declares the modules and re-exports the API; each
//! module says what it owns.

pub mod ast;
pub(crate) mod bytewise;
pub mod compose;
pub mod data;
pub mod diag;
pub mod eval;
pub mod indented_json;
pub mod inject;
pub mod lexer;
pub mod load;
pub mod lower;
pub mod migrate;
pub mod parallel;
pub mod parser;
pub mod pn;
pub mod source;
pub mod span;
pub mod tree;
pub mod types;
pub mod validate;

pub use load::{
    check_paths, check_sources, check_tree_files, compile_dir, compile_sources, compile_tree_files,
    keep_text, load_environments_file, load_request_files, load_sources, load_tree_files,
    parse_and_validate, CheckReport, CompileMode, CompileReport, JsonLayout, LoadedTree, ModelSink,
    ModelWriter, SourceInput,
};
pub use parser::{parse_file, parse_file_statements, Parsed};
