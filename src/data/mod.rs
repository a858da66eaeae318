//! ARM-9's data in modules: reading `binder_config.yaml`, `hiera.yaml` (versions 2 and 3, and
//! Hiera 5's version 5, checked) and its data files into positioned structures with diagnostics at their line and column, and the
//! bindings (or site) they stand for. This module reads and checks files; it does not decide
//! which environment or layer reads them (the loader and lowering do), and it evaluates nothing.

pub mod bind;
pub mod binder_config;
pub mod eyaml;
pub mod files;
pub mod glob;
pub mod hiera;
pub mod hiera5;
pub mod interpolation;
pub mod merge;
pub mod yaml;
