//! ARM-9's data in modules: reading `hiera.yaml` (versions 2 and 3) and, later, its data files
//! and `binder_config.yaml`, into positioned structures with diagnostics at their line and
//! column. This module reads and checks files; it does not decide which layer or request their
//! data belongs to (the loader and lowering do), and it evaluates nothing.

pub mod bind;
pub mod files;
pub mod hiera;
pub mod yaml;
