//! The syntax of Puppet and its bindings extension, for pbc: source spans (`span`), diagnostics
//! with their stable codes and renderings (`diag`), the lexer (`lexer`), the LR(1) parsers
//! generated from the repository's `grammar/` (`parser`), the AST they build (`ast`) and
//! Puppet's PN form of it (`pn`).
//!
//! It is its own crate so that the generated parsers (about 300,000 lines) are compiled once
//! and not again with every change to the engine (`puppet_bindings`, which re-exports these
//! modules). It must not know what a bindings model, a tree or a request is: nothing here
//! depends on the engine.

pub mod ast;
pub mod bytewise;
pub mod diag;
pub mod lexer;
pub mod parser;
pub mod pn;
pub mod span;

pub use parser::{parse_file, parse_file_statements, Parsed};
