//! Hiera 5 data in the model (D24): each level (the environment's `hiera.yaml`, a module's, or
//! the global one) with its hierarchy as written and every data file its hierarchy can name,
//! read into JSON with the place of each key. The injector's Hiera engine
//! ([`crate::inject::hiera`]) interpolates the paths and answers from these files per request;
//! this module only defines the shapes.

use super::Origin;
use serde::{Deserialize, Serialize};

/// One Hiera level: a version 5 `hiera.yaml` and its data.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind")]
pub struct HieraLevel {
    pub place: HieraPlace,
    /// A module level's module: it answers only keys of that module (`ntp::servers`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub module: Option<String>,
    /// The `hiera.yaml`, relative to the tree's root.
    pub config: String,
    /// The name of the bindings block of its keys (`confdir-hiera:/hiera.yaml`): the level
    /// answers only where a layer holds that block.
    pub bindings: String,
    pub hierarchy: Vec<HieraEntry>,
    /// A module's `default_hierarchy`: searched only when no level finds a key.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub default_hierarchy: Vec<HieraEntry>,
    /// Every data file the hierarchies can name, in the order they were found.
    pub files: Vec<HieraDataFile>,
}

/// Where a level stands in Puppet's order: global, then environment, then module.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HieraPlace {
    Global,
    Environment,
    Module,
}

impl HieraPlace {
    pub fn describe(self) -> &'static str {
        match self {
            HieraPlace::Global => "global",
            HieraPlace::Environment => "environment",
            HieraPlace::Module => "module",
        }
    }
}

/// One entry of a hierarchy.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HieraEntry {
    pub name: String,
    pub origin: Origin,
    /// The data directory, relative to the `hiera.yaml`'s directory (`data`).
    pub datadir: String,
    pub locations: HieraLocations,
    /// A hiera-eyaml level (`lookup_key: eyaml_lookup_key`): its files are YAML whose strings
    /// may hold `ENC[PKCS7,...]` values, which a lookup that returns one must decrypt.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub encrypted: bool,
    /// An eyaml level's `pkcs7_private_key` option, as written: the private key's file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eyaml_private_key: Option<String>,
    /// An eyaml level's `pkcs7_private_key_env_var` option: the environment variable that
    /// holds the private key's PEM text (it wins when it is set).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eyaml_private_key_env_var: Option<String>,
}

/// Where an entry looks, as written (interpolated per request).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HieraLocations {
    /// `path` or `paths`.
    Paths { paths: Vec<String> },
    /// `glob` or `globs`.
    Globs { globs: Vec<String> },
    /// `mapped_paths: [fact, variable, template]`.
    MappedPaths {
        fact: String,
        variable: String,
        template: String,
    },
    /// An entry pbc cannot read (a `lookup_key` function, a v3 backend, URIs): it finds nothing.
    Unsupported { why: String },
}

/// A data file: its path relative to the `hiera.yaml`'s directory, and its keys.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HieraDataFile {
    pub path: String,
    /// The file relative to the tree's root (what `--explain` shows).
    pub file: String,
    pub keys: Vec<HieraDatum>,
}

/// A top-level key of a data file and its value, as YAML or JSON gave it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct HieraDatum {
    pub key: String,
    pub value: serde_json::Value,
    pub line: usize,
    pub column: usize,
    /// A number in the value that Puppet reads and pbc cannot hold (`.inf`, an integer beyond
    /// 64 bits), as written: a lookup that returns the value fails.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unrepresentable: Option<String>,
    /// Where the value stands in its file, when the data was read from a tree (not kept in a
    /// model: `Span::NONE` there): a lookup that fails on the value points at it.
    #[serde(skip, default = "no_span")]
    pub value_span: crate::span::Span,
}

fn no_span() -> crate::span::Span {
    crate::span::Span::NONE
}
