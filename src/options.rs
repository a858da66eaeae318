//! What the caller of a command decides for the whole of it: how files may be read, the
//! binder and Hiera configurations that stand in for a tree's own, the Hiera levels to take as
//! empty, the hiera-eyaml key, and whether what the command built is left to the process's
//! exit. One value, given to every entry point that needs it and passed down from there.
//!
//! It must not be process-wide state: a long-lived caller (`pbc serve`, a language server, a
//! test) may run two commands at once under different options.

use crate::source::FileAccess;
use std::path::PathBuf;

/// One command's options (the `pbc` command line's global flags).
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// `--max-file-size`, `--follow-symlinks`, `--confine`.
    pub files: FileAccess,
    /// `--binder-config FILE`: the `binder_config.yaml` every environment uses instead of its
    /// own (ARM-9's `binder_config` setting).
    pub binder_config: Option<PathBuf>,
    /// `--hiera-config FILE`: Hiera's global configuration, read by every environment (D24).
    pub hiera_config: Option<PathBuf>,
    /// `--empty-level NAME`: Hiera levels pbc cannot search that the user says may be treated
    /// as holding nothing (D25); any other such level fails the lookups that reach it.
    pub empty_levels: Vec<String>,
    /// `--eyaml-private-key FILE`: the private key of every eyaml level, in place of the key
    /// files their `options` name (a CI machine has the key, not the server's path to it).
    pub eyaml_private_key: Option<PathBuf>,
    /// The caller exits once this command is done: what it built may be left to the exit
    /// instead of being freed piece by piece ([`crate::reclaim`]).
    pub exits_after_command: bool,
}
