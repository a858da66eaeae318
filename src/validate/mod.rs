//! Judgement over parsed trees: rules a tree can break although it parsed.
//!
//! Owns the validation rules and nothing else: it reads the AST and returns diagnostics, and
//! must not change the tree, evaluate anything or print. [`puppet`] holds Puppet 7's parse-time
//! rules (its `Checker4_0`), run by `pbc parse --validate`; the ARM-8 rules for site and bindings
//! files build on it.

pub mod puppet;

pub use puppet::check_program;
