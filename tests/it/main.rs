//! Every integration test of the `puppet-bindings` package, as one test binary: each module is
//! one suite (its header says what it holds), sharing `common`'s helpers. One binary links the
//! library once where thirteen linked it thirteen times.

mod check;
mod cli;
mod common;
mod compile;
mod composition;
mod composition_property;
mod corpus;
mod eval;
mod format;
mod inject;
mod limits;
mod lookup;
mod lsp;
mod migrate;
mod readme;
mod schema;
mod serve;
