//! The command line's flags and subcommands, as clap reads them: every flag's help text is
//! here, and `pbc completions` and `pbc man` are generated from these definitions. It must not
//! run anything.

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Parser)]
#[command(name = "pbc", version, about = "The Puppet bindings compiler")]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
    /// The largest file pbc reads (manifests, facts, ENC output), in bytes (at most 4 GiB);
    /// larger ones, and anything that is not a regular file, are refused.
    #[arg(long, global = true, default_value_t = puppet_bindings::source::DEFAULT_MAX_FILE_SIZE)]
    pub(crate) max_file_size: u64,
    /// Follow symbolic links that lead out of the tree (by default they are not read, with a
    /// warning): for trees you trust.
    #[arg(long, global = true, conflicts_with = "confine")]
    pub(crate) follow_symlinks: bool,
    /// Read nothing outside the tree: an environment path that leads out of it is an error
    /// naming the attribute (turn this on when checking trees nobody has reviewed).
    #[arg(long, global = true)]
    pub(crate) confine: bool,
    /// The binder_config.yaml every environment uses (categories and layers, ARM-9) instead of
    /// the one in its directory.
    #[arg(long, global = true, value_name = "FILE")]
    pub(crate) binder_config: Option<PathBuf>,
    /// Hiera's global configuration (`hiera.yaml` version 5, or Hiera 3's format): the level
    /// above every environment's, as `puppet lookup` reads `$confdir/hiera.yaml`.
    #[arg(long, global = true, value_name = "FILE")]
    pub(crate) hiera_config: Option<PathBuf>,
    /// A Hiera level, by its `name` in hiera.yaml, to search as if it held nothing: one pbc
    /// cannot search (a custom `lookup_key` or `data_dig` function, a Hiera 3 backend, `uri`s),
    /// where a lookup that reaches it before its answer otherwise fails
    /// (HIERA_LEVEL_NOT_SEARCHABLE), or a hiera-eyaml level on a machine without its key.
    #[arg(long, global = true, value_name = "NAME")]
    pub(crate) empty_level: Vec<String>,
    /// The private key (PEM) that opens every hiera-eyaml level's encrypted values, in place of
    /// the `pkcs7_private_key` file the level names (a CI machine has the key, not the
    /// server's path to it). pbc prints a decrypted value only as the answer asked for.
    #[arg(long, global = true, value_name = "FILE")]
    pub(crate) eyaml_private_key: Option<PathBuf>,
    /// Colour diagnostics: `auto` on a terminal unless NO_COLOR is set, `always`, `never`.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColourChoice::Auto)]
    pub(crate) color: ColourChoice,
    /// Print no warnings; parse, check and compile print only the summary line instead of each
    /// finding (nothing when clean).
    #[arg(short, long, global = true)]
    pub(crate) quiet: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColourChoice {
    Auto,
    Always,
    Never,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Parse Puppet manifests (the language plus the bindings extension) and report syntax errors.
    Parse {
        /// What to print on success: nothing (`none`), the AST (`json`), or Puppet's PN JSON
        /// (`pn`, what `puppet parser dump --format json` prints, one line per file).
        #[arg(long, value_enum, default_value_t = Format::None)]
        format: Format,
        /// How to print diagnostics.
        #[arg(long, value_enum, default_value_t = ErrorFormat::Human)]
        error_format: ErrorFormat,
        /// Also run Puppet's parse-time validation (what `puppet parser validate` checks).
        #[arg(long)]
        validate: bool,
        /// Files or directories (searched for `*.pp`).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
    /// Check a configuration tree (confdir, environment or module directories, or files):
    /// Puppet's parse-time rules on every manifest, ARM-8's rules on site and bindings blocks,
    /// ARM-9's on binder_config.yaml, hiera.yaml and data files.
    Check {
        /// How to print diagnostics: `human` (to stderr, with a summary line), `json` or `sarif`
        /// (SARIF 2.1.0), both to stdout.
        #[arg(long, value_enum, default_value_t = CheckErrorFormat::Human)]
        error_format: CheckErrorFormat,
        /// Treat warnings as errors.
        #[arg(long)]
        strict: bool,
        /// The tree (default: the current directory); PATHS are relative to it.
        #[arg(short = 'C', long = "tree", value_name = "DIR")]
        tree: Option<PathBuf>,
        /// Files or directories (default: the tree).
        paths: Vec<PathBuf>,
    },
    /// Compile a configuration tree (one directory) or bindings files to the JSON bindings
    /// model. Nothing is written when the check finds errors.
    Compile {
        /// Write the model to this file (atomically: an existing file is replaced only by a
        /// complete model) instead of stdout.
        #[arg(short, long)]
        output: Option<PathBuf>,
        /// The environment to compile when the directory has an environments.pp (default:
        /// production): its manifest, bindingsdir and modulepath decide the files.
        #[arg(long = "env", value_name = "NAME")]
        environment: Option<String>,
        /// Write the model's JSON on one line instead of indented (smaller, for machines).
        #[arg(long)]
        compact: bool,
        /// Write the model as an indexed cache (with -o) instead of JSON: `pbc lookup --model`
        /// then reads only the bindings a lookup needs.
        #[arg(long, requires = "output", conflicts_with = "compact")]
        cache: bool,
        /// The tree (default: the current directory); PATHS are relative to it.
        #[arg(short = 'C', long = "tree", value_name = "DIR")]
        tree: Option<PathBuf>,
        /// One tree directory, or bindings files (default: the tree).
        paths: Vec<PathBuf>,
    },
    /// Print the JSON Schema (draft 2020-12) of the model `pbc compile` writes.
    Schema {
        /// The schema of `pbc lookup --format answers` instead.
        #[arg(long)]
        answers: bool,
    },
    /// Resolve keys for one node, offline, from the tree and the node's facts: each value as
    /// JSON on stdout. Exit 0 when all are found, 1 when one is not or an error occurs.
    Lookup(Box<LookupArgs>),
    /// What changes for which node between two trees (two checkouts, before and after a
    /// change): every node of a factsets directory is looked up in both, and only the nodes
    /// and keys whose answers differ are printed. Exit 0 when nothing differs, 1 when
    /// something does.
    Diff(DiffArgs),
    /// Write the bindings a tree in another format stands for, in a copy of the tree.
    #[command(subcommand)]
    Migrate(MigrateCommand),
    /// Print a completion script for a shell (`pbc completions bash > /etc/bash_completion.d/pbc`).
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
    /// Print pbc's manual page (roff; `pbc man > pbc.1`, then `man ./pbc.1`).
    Man,
    /// Answer Puppet's lookups from compiled models kept in memory, over a Unix socket: the
    /// `pbc::lookup_key` Hiera backend's server mode (docs/puppet.md). Each connection is one
    /// node's compile: its model, environment and facts, then one key per line, each answered
    /// as `pbc lookup --model --format answers` answers it (docs/answers.md). A model is loaded
    /// when first named and again when its file changes. Runs until killed.
    Serve(ServeArgs),
    /// Run a language server for editors (the Language Server Protocol over stdin and stdout):
    /// `pbc check`'s diagnostics as you type, with unsaved buffers in place of their files, the
    /// outline of each manifest, and hover and go to definition on keys from `pbc lookup
    /// --explain` (docs/editors.md). The tree is the editor's workspace folder. Exit 0 after
    /// the editor's `shutdown` and `exit`, 1 otherwise.
    Lsp {
        /// Accepted for editors that pass it: stdio is the only transport.
        #[arg(long)]
        stdio: bool,
        /// The tree when the editor names no workspace folder (default: the current directory).
        #[arg(short = 'C', long = "tree", value_name = "DIR")]
        tree: Option<PathBuf>,
    },
    /// Lay out Puppet and bindings files in the one style of docs/style.md (indentation,
    /// aligned `=>`s, blank lines, no trailing blanks), rewriting each in place. Only blanks and
    /// line ends between tokens change, and the file's PN must stay the same or it is left as
    /// it was; a file that does not parse is left alone with its errors.
    Fmt {
        /// Write nothing: list the files whose layout would change, exit 1 if there are any.
        #[arg(long)]
        check: bool,
        /// Write nothing: print the changes as a unified diff, exit 1 if there are any.
        #[arg(long, conflicts_with = "check")]
        diff: bool,
        /// Files or directories (searched for `*.pp`); `-` reads standard input and writes the
        /// laid-out text to standard output.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
    },
}

#[derive(clap::Args)]
pub(crate) struct ServeArgs {
    /// The Unix socket to listen on; created readable and writable by the owner and group
    /// (0660): whoever can open it can ask any model under `--models`.
    #[arg(long, value_name = "PATH")]
    pub(crate) socket: PathBuf,
    /// A directory whose models (at any depth) clients may name, usually the code directory's
    /// `environments`; repeatable. Any other model is refused.
    #[arg(long = "models", value_name = "DIR", required = true)]
    pub(crate) models: Vec<PathBuf>,
    /// Seconds a connection may wait for its next line before it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10)]
    pub(crate) idle: u64,
    /// Seconds a model stays loaded after its last connection.
    #[arg(long, value_name = "SECONDS", default_value_t = 600)]
    pub(crate) model_idle: u64,
    /// Connections open at once (one per compile in progress); one more is told the server is
    /// busy.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub(crate) max_connections: usize,
}

#[derive(clap::Subcommand)]
pub(crate) enum MigrateCommand {
    /// A Hiera 5 environment as bindings: its hierarchy as the site's categories (down to the
    /// first entry that cannot be one: a glob, mapped_paths), its data files as `when` blocks
    /// of `bind`s in `bindings/default.pp`; what cannot map stays Hiera data. Exit 0 when
    /// done (and, with --nodes, when every node gets the same answers from both trees).
    Hiera {
        /// The environment's directory (its hiera.yaml, data and modules).
        dir: PathBuf,
        /// The new tree (a directory that does not exist yet).
        #[arg(short = 'o', long = "out", value_name = "DIR")]
        out: PathBuf,
        /// Check the migration: every node of this factsets directory gets the same answer for
        /// every key from both trees (`pbc lookup --nodes --all` on each).
        #[arg(long, value_name = "FACTSDIR")]
        nodes: Option<PathBuf>,
    },
}

#[derive(clap::Args)]
pub(crate) struct LookupArgs {
    /// Keys (`ntp::servers`, `/param/Class[ntp]/servers`, `/classes`), then optionally the
    /// tree directory (or give it with -C).
    #[arg(required_unless_present = "all")]
    pub(crate) args: Vec<String>,
    /// The tree (default: the current directory), like `git -C` or `make -C`.
    #[arg(short = 'C', long = "tree", value_name = "DIR")]
    pub(crate) tree: Option<PathBuf>,
    /// A JSON or YAML facts file, a directory of `<node>.json` factsets (with --node), or `-`
    /// for standard input.
    #[arg(long)]
    pub(crate) facts: Option<PathBuf>,
    /// The node (its facts in a factsets directory; also `$fqdn` when facts lack it).
    #[arg(long)]
    pub(crate) node: Option<String>,
    /// Every node of a factsets directory (`<node>.json|yaml|yml`), in parallel: one JSON line
    /// per node, `{"node", "environment", "values", "errors"}`, in node order.
    #[arg(long, value_name = "FACTSDIR")]
    pub(crate) nodes: Option<PathBuf>,
    /// Answer from a model `pbc compile DIR` wrote (no tree is read), in the environment it
    /// was compiled for.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["tree", "agent_environment"])]
    pub(crate) model: Option<PathBuf>,
    /// A fact, `name=value` (JSON when it reads as JSON); repeatable, applied last.
    #[arg(long)]
    pub(crate) fact: Vec<String>,
    /// The environment, instead of what environments.pp picks.
    #[arg(long = "env")]
    pub(crate) environment: Option<String>,
    /// What the agent asked for: `$agent_environment` in environments.pp.
    #[arg(long)]
    pub(crate) agent_environment: Option<String>,
    /// The keys' type (`Array[String]`); the value must have it.
    #[arg(long = "type")]
    pub(crate) type_: Option<String>,
    /// The node classifier's output for the node (YAML or JSON: `environment`, `classes`,
    /// `parameters`; `-` for standard input): seen by environments.pp, and bindings wherever a
    /// layer includes `enc:`.
    #[arg(long)]
    pub(crate) enc: Option<PathBuf>,
    /// The value to print when nothing is bound (a Puppet literal, else a string).
    #[arg(long)]
    pub(crate) default: Option<String>,
    /// Every effective key with its value, as one JSON object sorted by key.
    #[arg(long)]
    pub(crate) all: bool,
    /// For each key: categories, every candidate binding per layer, the winner and why.
    #[arg(long)]
    pub(crate) explain: bool,
    /// With --explain, print a value decrypted from hiera-eyaml data too (an explanation
    /// leaves it out, since it is for logs and tickets).
    #[arg(long, requires = "explain")]
    pub(crate) show_decrypted: bool,
    /// `json`: the values as one JSON object (failed keys under `errors`), or with --explain
    /// the explanations as JSON; `text` (default): one JSON value per line, or explanations;
    /// `answers`: one document for programs (Puppet's Hiera backend), each key's value in
    /// Puppet's rich data with the binding that won, or its error (docs/answers.md, `pbc
    /// schema --answers`).
    #[arg(long, value_enum, default_value_t = LookupFormat::Text)]
    pub(crate) format: LookupFormat,
    /// Indent JSON output (--all, --format json); compact otherwise.
    #[arg(long)]
    pub(crate) pretty: bool,
    /// Unknown variables are errors.
    #[arg(long)]
    pub(crate) strict: bool,
    /// How Hiera 5 data merges, instead of what `lookup_options` says (as `puppet lookup
    /// --merge`): `first`, `unique`, `hash` or `deep`.
    #[arg(long, value_name = "STRATEGY")]
    pub(crate) merge: Option<String>,
    /// With `--merge deep`: array elements and hash values from lower levels that this prefix
    /// knocks out (`--knock-out-prefix --`).
    #[arg(long, value_name = "PREFIX", allow_hyphen_values = true)]
    pub(crate) knock_out_prefix: Option<String>,
    /// With `--merge deep`: sort merged arrays.
    #[arg(long)]
    pub(crate) sort_merged_arrays: bool,
    /// With `--merge deep`: merge arrays of hashes element by element.
    #[arg(long)]
    pub(crate) merge_hash_arrays: bool,
}

#[derive(clap::Args)]
pub(crate) struct DiffArgs {
    /// The tree (a directory) or model (a file `pbc compile` wrote) before the change, the one
    /// after it, then the keys to compare (or --all: every key either side binds).
    #[arg(value_name = "OLD NEW KEY")]
    pub(crate) args: Vec<String>,
    /// Both sides as models instead (`--model OLD --model NEW`); the arguments are then keys.
    #[arg(long = "model", value_name = "FILE")]
    pub(crate) model: Vec<PathBuf>,
    /// The factsets directory (`<node>.json|yaml|yml`): every node is compared.
    #[arg(long, value_name = "FACTSDIR")]
    pub(crate) nodes: PathBuf,
    /// Compare every key either tree binds.
    #[arg(long)]
    pub(crate) all: bool,
    /// A fact for every node, `name=value`; repeatable.
    #[arg(long)]
    pub(crate) fact: Vec<String>,
    /// The environment, instead of what environments.pp picks.
    #[arg(long = "env")]
    pub(crate) environment: Option<String>,
    /// `json`: a JSON line per node that differs; `text` (default): the node, then
    /// `key: old -> new` per key.
    #[arg(long, value_enum, default_value_t = ExplainFormat::Text)]
    pub(crate) format: ExplainFormat,
    /// Unknown variables are errors.
    #[arg(long)]
    pub(crate) strict: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ExplainFormat {
    Text,
    Json,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum LookupFormat {
    Text,
    Json,
    Answers,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CheckErrorFormat {
    Human,
    Json,
    Sarif,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    None,
    Json,
    Pn,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ErrorFormat {
    Human,
    Json,
}
