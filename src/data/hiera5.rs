//! Hiera 5's `hiera.yaml` (version 5), read and checked as Puppet 7 checks it (`HieraConfigV5`):
//! the shape Puppet asserts (known keys, non-empty strings, lists of at least one path,
//! `mapped_paths` of three, option names), one data provider function per level (its own or
//! the defaults'), at most one kind of location, level names unique within a hierarchy, the
//! options Puppet reserves (`path`, `uri`), `default_hierarchy` only in a module and
//! `hiera3_backend` only in the global configuration. Issues keep Puppet's names, and unlike
//! Puppet (which stops at the first) every one in the file is reported, at its line and column.
//!
//! What pbc cannot run is a warning naming the level (D25: a lookup that reaches it before its
//! answer fails, unless `--empty-level` says it holds nothing): functions other than
//! `yaml_data`, `json_data` and hiera-eyaml's `eyaml_lookup_key` (custom `lookup_key` and
//! `data_dig` functions, Hiera 3 backends), and `uri`/`uris` locations (which only such
//! functions read). An eyaml level's key options are kept for the injector. Paths and data directories are checked as interpolations (`%{facts.os.family}`;
//! methods such as `%{lookup('k')}` are not allowed there). It reads and checks the file; it
//! does not interpolate paths for a request nor read data files.

use super::yaml::{Node, NodeKind};
use crate::diag::{codes, Diagnostic};
use crate::span::Span;

/// Which of Puppet's three Hiera levels a file is (D24).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConfigLevel {
    /// `--hiera-config FILE`: the only level where `hiera3_backend` is allowed.
    Global,
    /// `<environment>/hiera.yaml`.
    Environment,
    /// `<module>/hiera.yaml`: the only level with a `default_hierarchy`.
    Module,
}

/// A data provider function: the kind and the function's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Function {
    DataHash(String),
    LookupKey(String),
    DataDig(String),
    Hiera3Backend(String),
    V4DataHash(String),
}

impl Function {
    /// What pbc can read itself: the data hash functions of YAML and JSON files, and
    /// hiera-eyaml's files.
    pub fn supported(&self) -> bool {
        matches!(self, Function::DataHash(f) if f == "yaml_data" || f == "json_data")
            || self.is_eyaml()
    }

    /// hiera-eyaml's `eyaml_lookup_key`: its files are YAML, read like `yaml_data`'s, whose
    /// strings may hold encrypted values.
    pub fn is_eyaml(&self) -> bool {
        matches!(self, Function::LookupKey(f) if f == "eyaml_lookup_key")
    }

    pub fn describe(&self) -> String {
        let (kind, name) = match self {
            Function::DataHash(n) => ("data_hash", n),
            Function::LookupKey(n) => ("lookup_key", n),
            Function::DataDig(n) => ("data_dig", n),
            Function::Hiera3Backend(n) => ("hiera3_backend", n),
            Function::V4DataHash(n) => ("v4_data_hash", n),
        };
        format!("`{kind}: {name}`")
    }
}

/// Where a level's data is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Locations {
    /// None given: the function finds its data itself.
    Unspecified,
    /// `path` or `paths`, relative to the level's data directory, interpolated per request.
    Paths(Vec<String>),
    /// `glob` or `globs`.
    Globs(Vec<String>),
    /// `uri` or `uris`.
    Uris(Vec<String>),
    /// `mapped_paths: [variable, key, template]`.
    MappedPaths {
        variable: String,
        key: String,
        template: String,
    },
}

/// One level of a hierarchy.
#[derive(Clone, Debug, PartialEq)]
pub struct HierarchyLevel {
    pub name: String,
    /// The level's `name` in the file.
    pub span: Span,
    pub function: Function,
    /// Relative to the `hiera.yaml`'s directory (the level's own, else the defaults', else
    /// `data`).
    pub datadir: String,
    pub locations: Locations,
    /// Why pbc cannot search the level (a function it does not run, [`Function::supported`],
    /// or locations it cannot read): a lookup that reaches it before its answer fails. `None`
    /// for a level pbc searches.
    pub unsearchable: Option<String>,
    /// The level's own `options`, else the defaults' (Puppet takes one or the other whole),
    /// as far as pbc uses them: hiera-eyaml's private key.
    pub eyaml_key: EyamlKeyOptions,
}

/// Where hiera-eyaml's `eyaml_lookup_key` finds a level's private key: the file
/// `pkcs7_private_key`, or the PEM text in the environment variable
/// `pkcs7_private_key_env_var` (which wins when it is set). Both as written, interpolated per
/// request.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EyamlKeyOptions {
    pub private_key: Option<String>,
    pub private_key_env_var: Option<String>,
}

impl EyamlKeyOptions {
    fn read(options: &Node) -> EyamlKeyOptions {
        let text = |name: &str| {
            options
                .get(name)
                .and_then(|n| n.as_str())
                .map(str::to_string)
        };
        EyamlKeyOptions {
            private_key: text("pkcs7_private_key"),
            private_key_env_var: text("pkcs7_private_key_env_var"),
        }
    }
}

impl Config {
    /// Puppet's default configuration (`HieraConfigV5::DEFAULT_CONFIG_HASH`): `data/common.yaml`,
    /// for a directory whose data provider is `hiera` but which has no `hiera.yaml`.
    pub fn puppet_default() -> Config {
        Config {
            hierarchy: vec![HierarchyLevel {
                name: "Common".into(),
                span: Span::NONE,
                function: Function::DataHash("yaml_data".into()),
                datadir: "data".into(),
                locations: Locations::Paths(vec!["common.yaml".into()]),
                unsearchable: None,
                eyaml_key: EyamlKeyOptions::default(),
            }],
            default_hierarchy: Vec::new(),
            plan_hierarchy: Vec::new(),
        }
    }
}

/// A version 5 `hiera.yaml`, with Puppet's defaults where the file leaves a part out.
#[derive(Clone, Debug, PartialEq)]
pub struct Config {
    pub hierarchy: Vec<HierarchyLevel>,
    /// A module's `default_hierarchy` (used for a key its `hierarchy` does not find).
    pub default_hierarchy: Vec<HierarchyLevel>,
    /// `plan_hierarchy` (for Bolt plans; checked, not used by lookups).
    pub plan_hierarchy: Vec<HierarchyLevel>,
}

/// The shape of the file's defaults.
#[derive(Default)]
struct Defaults {
    function: Option<Function>,
    datadir: Option<String>,
    eyaml_key: EyamlKeyOptions,
}

const TOP_KEYS: &[&str] = &[
    "version",
    "defaults",
    "hierarchy",
    "plan_hierarchy",
    "default_hierarchy",
];
const DEFAULTS_KEYS: &[&str] = &["data_hash", "lookup_key", "data_dig", "datadir", "options"];
const LEVEL_KEYS: &[&str] = &[
    "name",
    "options",
    "data_hash",
    "lookup_key",
    "hiera3_backend",
    "v4_data_hash",
    "data_dig",
    "path",
    "paths",
    "glob",
    "globs",
    "uri",
    "uris",
    "mapped_paths",
    "datadir",
];
/// The function kinds a level may name (Puppet's `ALL_FUNCTION_KEYS`); the defaults may name
/// the first three.
const FUNCTION_KEYS: &[&str] = &[
    "data_hash",
    "lookup_key",
    "data_dig",
    "hiera3_backend",
    "v4_data_hash",
];
const LOCATION_KEYS: &[&str] = &[
    "path",
    "paths",
    "glob",
    "globs",
    "uri",
    "uris",
    "mapped_paths",
];
/// Option names Puppet keeps for itself.
const RESERVED_OPTIONS: &[&str] = &["path", "uri"];

/// Reads the version 5 file whose document is `doc` (a mapping), at `level`.
pub fn read(doc: &Node, level: ConfigLevel) -> (Config, Vec<Diagnostic>) {
    let mut out = Vec::new();
    unknown_keys(doc, TOP_KEYS, "a version 5 hiera.yaml", &mut out);
    // Puppet's `config[KEY] ||= DEFAULT`: a key given no value (`defaults:` with everything
    // under it commented out) is as if absent.
    let given = |key: &str| doc.get(key).filter(|n| n.kind != NodeKind::Null);
    let defaults = match given("defaults") {
        // Puppet's default defaults apply only when the file has none.
        None => Defaults {
            function: Some(Function::DataHash("yaml_data".into())),
            datadir: Some("data".into()),
            eyaml_key: EyamlKeyOptions::default(),
        },
        Some(d) => read_defaults(d, level, &mut out),
    };
    let mut config = Config {
        hierarchy: Vec::new(),
        default_hierarchy: Vec::new(),
        plan_hierarchy: Vec::new(),
    };
    match given("hierarchy") {
        // Puppet's default hierarchy: `Common`, `common.yaml`.
        None => {
            config.hierarchy.push(HierarchyLevel {
                name: "Common".into(),
                span: Span::NONE,
                function: defaults
                    .function
                    .clone()
                    .unwrap_or(Function::DataHash("yaml_data".into())),
                datadir: defaults.datadir.clone().unwrap_or_else(|| "data".into()),
                locations: Locations::Paths(vec!["common.yaml".into()]),
                unsearchable: None,
                eyaml_key: defaults.eyaml_key.clone(),
            });
        }
        Some(h) => config.hierarchy = read_hierarchy(h, "hierarchy", &defaults, level, &mut out),
    }
    if let Some(h) = given("plan_hierarchy") {
        config.plan_hierarchy = read_hierarchy(h, "plan_hierarchy", &defaults, level, &mut out);
    }
    if let Some((key, h)) = doc
        .entry("default_hierarchy")
        .filter(|(_, h)| h.kind != NodeKind::Null)
    {
        if level != ConfigLevel::Module {
            out.push(
                Diagnostic::error(
                    codes::HIERA_DEFAULT_HIERARCHY_NOT_IN_MODULE,
                    key.span,
                    "only a module's hiera.yaml may have a `default_hierarchy`",
                )
                .with_note("help: put these levels in `hierarchy`"),
            );
        }
        config.default_hierarchy =
            read_hierarchy(h, "default_hierarchy", &defaults, level, &mut out);
    }
    (config, out)
}

/// A diagnostic for each key of `node` (a mapping) that `allowed` does not list.
pub(crate) fn unknown_keys(node: &Node, allowed: &[&str], what: &str, out: &mut Vec<Diagnostic>) {
    let NodeKind::Mapping(entries) = &node.kind else {
        return;
    };
    for (k, _) in entries {
        let name = k.as_str().unwrap_or("");
        if !allowed.contains(&name) {
            let mut d = Diagnostic::error(
                codes::UNKNOWN_HIERA_ATTRIBUTE,
                k.span,
                format!("{what} has no `{name}`"),
            );
            if let Some(s) = crate::diag::did_you_mean(name, allowed) {
                d = d.did_you_mean(name, s);
            }
            out.push(d);
        }
    }
}

fn wrong_type(node: &Node, what: &str, expected: &str, out: &mut Vec<Diagnostic>) {
    out.push(Diagnostic::error(
        codes::HIERA_WRONG_TYPE,
        node.span,
        format!("{what} must be {expected}, not {}", node.kind_name()),
    ));
}

/// A non-empty string where Hiera interpolates variables (`%{facts.x}`, not methods), or a
/// diagnostic at the value.
fn interpolated(node: &Node, what: &str, out: &mut Vec<Diagnostic>) -> Option<String> {
    let s = string(node, what, out)?;
    match super::interpolation::parse(&s, false) {
        // D21: data stays below its hiera.yaml.
        Ok(_) if !relative_path(&s, node.span, out) => None,
        Ok(_) => Some(s),
        Err(problem) => {
            out.push(Diagnostic::error(problem.code, node.span, problem.message));
            None
        }
    }
}

/// A `datadir`: below its `hiera.yaml` (D21), but for the global configuration, which whoever
/// runs pbc names (`--hiera-config`) and which names the server's directories
/// (`/etc/puppetlabs/code/hieradata`), as a Hiera 3 global configuration's `:datadir:` does.
fn datadir(node: &Node, level: ConfigLevel, out: &mut Vec<Diagnostic>) -> Option<String> {
    if level != ConfigLevel::Global {
        return interpolated(node, "`datadir`", out);
    }
    let s = string(node, "`datadir`", out)?;
    match super::interpolation::parse(&s, false) {
        Ok(_) => Some(s),
        Err(problem) => {
            out.push(Diagnostic::error(problem.code, node.span, problem.message));
            None
        }
    }
}

/// A level whose globs pass one of pbc's limits (see [`super::glob::Limit`]), whether
/// `hiera.yaml` shows it or the walk of its data directory does: pbc cannot search it.
pub fn glob_limit_warning(level: &str, at: Span, limit: &super::glob::Limit) -> Diagnostic {
    Diagnostic::warning(
        codes::HIERA_GLOB_LIMIT,
        at,
        format!(
            "pbc cannot search the level `{level}`: {}; a lookup that reaches it before its answer fails",
            limit.describe()
        ),
    )
    .with_note(format!(
        "help: if it holds nothing pbc's lookups need, say so with `--empty-level '{level}'`"
    ))
}

/// A non-empty string, or a diagnostic.
fn string(node: &Node, what: &str, out: &mut Vec<Diagnostic>) -> Option<String> {
    match node.as_str() {
        Some(s) if !s.is_empty() => Some(s.to_string()),
        Some(_) => {
            out.push(Diagnostic::error(
                codes::HIERA_WRONG_TYPE,
                node.span,
                format!("{what} must not be empty"),
            ));
            None
        }
        None => {
            wrong_type(node, what, "a String", out);
            None
        }
    }
}

/// A list of `min..=max` non-empty strings.
fn strings(
    node: &Node,
    what: &str,
    min: usize,
    max: usize,
    out: &mut Vec<Diagnostic>,
) -> Option<Vec<String>> {
    let NodeKind::Sequence(items) = &node.kind else {
        wrong_type(node, what, "an Array of Strings", out);
        return None;
    };
    if items.len() < min || items.len() > max {
        let count = match (min, max) {
            (1, usize::MAX) => "at least one entry".to_string(),
            (min, max) if min == max => format!("{min} entries"),
            (min, _) => format!("at least {min} entries"),
        };
        out.push(Diagnostic::error(
            codes::HIERA_WRONG_TYPE,
            node.span,
            format!("{what} must list {count}, not {}", items.len()),
        ));
        return None;
    }
    let found: Vec<Option<String>> = items
        .iter()
        .map(|i| interpolated(i, &format!("an entry of {what}"), out))
        .collect();
    found.into_iter().collect()
}

/// `options`: a hash whose names start with a letter and end with a letter or digit; `path`
/// and `uri` are Puppet's.
fn options(node: &Node, level: Option<&str>, out: &mut Vec<Diagnostic>) {
    let NodeKind::Mapping(entries) = &node.kind else {
        wrong_type(node, "`options`", "a Hash", out);
        return;
    };
    for (k, _) in entries {
        let name = k.as_str().unwrap_or("");
        let well_formed = name.starts_with(|c: char| c.is_ascii_alphabetic())
            && name.ends_with(|c: char| c.is_ascii_alphanumeric())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == ':');
        if !well_formed {
            out.push(Diagnostic::error(
                codes::HIERA_WRONG_TYPE,
                k.span,
                format!("the option name `{name}` must start with a letter and end with a letter or digit (letters, digits, `_` and `-` between)"),
            ));
        }
        if RESERVED_OPTIONS.contains(&name) {
            out.push(match level {
                Some(level) => Diagnostic::error(
                    codes::HIERA_OPTION_RESERVED_BY_PUPPET,
                    k.span,
                    format!("the option `{name}` of the level `{level}` is Puppet's own: choose another name"),
                ),
                None => Diagnostic::error(
                    codes::HIERA_DEFAULT_OPTION_RESERVED_BY_PUPPET,
                    k.span,
                    format!("the default option `{name}` is Puppet's own: choose another name"),
                ),
            });
        }
    }
}

fn read_defaults(node: &Node, level: ConfigLevel, out: &mut Vec<Diagnostic>) -> Defaults {
    let mut d = Defaults::default();
    if !matches!(node.kind, NodeKind::Mapping(_)) {
        wrong_type(node, "`defaults`", "a Hash", out);
        return d;
    }
    unknown_keys(node, DEFAULTS_KEYS, "`defaults`", out);
    let functions: Vec<(&Node, &Node)> = FUNCTION_KEYS[..3]
        .iter()
        .filter_map(|k| node.entry(k))
        .collect();
    if functions.len() > 1 {
        out.push(
            Diagnostic::error(
                codes::HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS_IN_DEFAULT,
                functions[1].0.span,
                "`defaults` names more than one data provider function",
            )
            .with_label(functions[0].0.span, "the first"),
        );
    }
    if let Some((k, v)) = functions.first() {
        let name = k.as_str().unwrap_or("");
        d.function = string(v, &format!("`{name}`"), out).map(|f| function(name, f));
    }
    if let Some(dir) = node.get("datadir") {
        d.datadir = datadir(dir, level, out);
    }
    if let Some(o) = node.get("options") {
        options(o, None, out);
        d.eyaml_key = EyamlKeyOptions::read(o);
    }
    d
}

fn function(kind: &str, name: String) -> Function {
    match kind {
        "data_hash" => Function::DataHash(name),
        "lookup_key" => Function::LookupKey(name),
        "data_dig" => Function::DataDig(name),
        "hiera3_backend" => Function::Hiera3Backend(name),
        _ => Function::V4DataHash(name),
    }
}

fn read_hierarchy(
    node: &Node,
    key: &str,
    defaults: &Defaults,
    level: ConfigLevel,
    out: &mut Vec<Diagnostic>,
) -> Vec<HierarchyLevel> {
    let NodeKind::Sequence(items) = &node.kind else {
        wrong_type(node, &format!("`{key}`"), "an Array of levels", out);
        return Vec::new();
    };
    let mut levels: Vec<HierarchyLevel> = Vec::new();
    for item in items {
        let Some(l) = read_level(item, key, defaults, level, out) else {
            continue;
        };
        if let Some(first) = levels.iter().find(|f| f.name == l.name) {
            out.push(
                Diagnostic::error(
                    codes::HIERA_HIERARCHY_NAME_MULTIPLY_DEFINED,
                    l.span,
                    format!("`{key}` has two levels named `{}`", l.name),
                )
                .with_label(first.span, "the first"),
            );
            continue;
        }
        levels.push(l);
    }
    levels
}

fn read_level(
    node: &Node,
    key: &str,
    defaults: &Defaults,
    level: ConfigLevel,
    out: &mut Vec<Diagnostic>,
) -> Option<HierarchyLevel> {
    if !matches!(node.kind, NodeKind::Mapping(_)) {
        wrong_type(node, &format!("a level of `{key}`"), "a Hash", out);
        return None;
    }
    let Some(name_node) = node.get("name") else {
        out.push(Diagnostic::error(
            codes::HIERARCHY_ENTRY_MISSING_ATTRIBUTE,
            node.span,
            format!("this level of `{key}` has no `name`"),
        ));
        unknown_keys(node, LEVEL_KEYS, &format!("a level of `{key}`"), out);
        return None;
    };
    let name = string(name_node, "a level's `name`", out)?;
    let what = format!("the level `{name}`");
    unknown_keys(node, LEVEL_KEYS, &what, out);
    let errors_before = out.iter().filter(|d| d.is_error()).count();

    let functions: Vec<(&Node, &Node)> =
        FUNCTION_KEYS.iter().filter_map(|k| node.entry(k)).collect();
    let function = match functions.as_slice() {
        [] => match &defaults.function {
            Some(f) => Some(f.clone()),
            None => {
                out.push(
                    Diagnostic::error(
                        codes::HIERA_MISSING_DATA_PROVIDER_FUNCTION,
                        name_node.span,
                        format!("{what} names no data provider function, and `defaults` has none"),
                    )
                    .with_note("help: add `data_hash: yaml_data` to the level or to `defaults`"),
                );
                None
            }
        },
        [(k, v)] => {
            let kind = k.as_str().unwrap_or("");
            string(v, &format!("`{kind}`"), out).map(|f| function(kind, f))
        }
        [first, second, ..] => {
            out.push(
                Diagnostic::error(
                    codes::HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS,
                    second.0.span,
                    format!("{what} names more than one data provider function"),
                )
                .with_label(first.0.span, "the first"),
            );
            None
        }
    };
    if let Some((k, v)) = node.entry("hiera3_backend") {
        if level != ConfigLevel::Global {
            out.push(
                Diagnostic::error(
                    codes::HIERA_V3_BACKEND_NOT_GLOBAL,
                    k.span,
                    format!("{what} uses `hiera3_backend`, which only the global hiera.yaml may"),
                )
                .with_note("help: Hiera 3 backends run only in the global configuration"),
            );
        }
        if let Some(backend @ ("yaml" | "json" | "hocon")) = v.as_str() {
            out.push(
                Diagnostic::error(
                    codes::HIERA_V3_BACKEND_REPLACED_BY_DATA_HASH,
                    v.span,
                    format!("the Hiera 3 backend `{backend}` is replaced by `data_hash: {backend}_data` in version 5"),
                )
                .with_note(format!("help: write `data_hash: {backend}_data`")),
            );
        }
    }

    let locations: Vec<(&Node, &Node)> =
        LOCATION_KEYS.iter().filter_map(|k| node.entry(k)).collect();
    if locations.len() > 1 {
        out.push(
            Diagnostic::error(
                codes::HIERA_MULTIPLE_LOCATION_SPECS,
                locations[1].0.span,
                format!("{what} gives its data's location twice: only one of `path`, `paths`, `glob`, `globs`, `uri`, `uris` or `mapped_paths`"),
            )
            .with_label(locations[0].0.span, "the first"),
        );
    }
    let location_span = locations.first().map_or(name_node.span, |(_, v)| v.span);
    let locations = match locations.first() {
        None => Locations::Unspecified,
        Some((k, v)) => {
            let kind = k.as_str().unwrap_or("");
            let what_key = format!("`{kind}`");
            let one = |out: &mut Vec<Diagnostic>| interpolated(v, &what_key, out).map(|s| vec![s]);
            let many = |out: &mut Vec<Diagnostic>| strings(v, &what_key, 1, usize::MAX, out);
            match kind {
                "path" => Locations::Paths(one(out).unwrap_or_default()),
                "paths" => Locations::Paths(many(out).unwrap_or_default()),
                "glob" => Locations::Globs(one(out).unwrap_or_default()),
                "globs" => Locations::Globs(many(out).unwrap_or_default()),
                "uri" => Locations::Uris(one(out).unwrap_or_default()),
                "uris" => Locations::Uris(many(out).unwrap_or_default()),
                _ => match strings(v, &what_key, 3, 3, out).as_deref() {
                    Some([variable, key, template]) => Locations::MappedPaths {
                        variable: variable.clone(),
                        key: key.clone(),
                        template: template.clone(),
                    },
                    _ => Locations::Unspecified,
                },
            }
        }
    };
    let datadir = match node.get("datadir") {
        Some(d) => datadir(d, level, out),
        None => defaults.datadir.clone(),
    }
    .unwrap_or_else(|| "data".into());
    let eyaml_key = match node.get("options") {
        Some(o) => {
            options(o, Some(&name), out);
            EyamlKeyOptions::read(o)
        }
        None => defaults.eyaml_key.clone(),
    };
    let function = function?;
    if out.iter().filter(|d| d.is_error()).count() > errors_before {
        return None;
    }
    let mut unsearchable = None;
    let glob_limit = match &locations {
        Locations::Globs(globs) => super::glob::check(globs).err(),
        _ => None,
    };
    if let Some(limit) = glob_limit {
        out.push(glob_limit_warning(&name, location_span, &limit));
        unsearchable = Some(limit.describe());
    } else if !function.supported() {
        unsearchable = Some(format!(
            "{} is not a data provider pbc runs",
            function.describe()
        ));
        out.push(
            Diagnostic::warning(
                codes::HIERA_FUNCTION_NOT_SUPPORTED,
                name_node.span,
                format!(
                    "pbc cannot run {} (only `data_hash: yaml_data`, `data_hash: json_data` and `lookup_key: eyaml_lookup_key`): a lookup that reaches {what} before its answer fails",
                    function.describe()
                ),
            )
            .with_note(format!("help: if it holds nothing pbc's lookups need, say so with `--empty-level '{name}'`")),
        );
    } else if matches!(locations, Locations::Uris(_)) {
        unsearchable =
            Some("`uri`/`uris` locations, which a data hash function does not read".into());
        out.push(Diagnostic::warning(
            codes::HIERA_FUNCTION_NOT_SUPPORTED,
            name_node.span,
            format!(
                "{what} reads `uri`s, which a data hash function does not: a lookup that reaches it before its answer fails"
            ),
        ).with_note(format!("help: if it holds nothing pbc's lookups need, say so with `--empty-level '{name}'`")));
    }
    Some(HierarchyLevel {
        name,
        span: name_node.span,
        function,
        datadir,
        locations,
        unsearchable,
        eyaml_key,
    })
}

/// A path or data directory stays inside the directory of its `hiera.yaml` (D21): no absolute
/// path, no `..` segment.
pub(crate) fn relative_path(path: &str, span: Span, out: &mut Vec<Diagnostic>) -> bool {
    let escapes = path.starts_with('/')
        || path.starts_with('\\')
        || path.split(['/', '\\']).any(|segment| segment == "..");
    if escapes {
        out.push(
            Diagnostic::error(
                codes::HIERA_PATH_ESCAPES,
                span,
                format!("`{path}` leads out of the directory of this hiera.yaml"),
            )
            .with_note(
                "note: data paths are relative to the hiera.yaml's directory and stay inside it",
            ),
        );
    }
    !escapes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::FileId;

    fn read_str(text: &str, level: ConfigLevel) -> (Config, Vec<&'static str>) {
        let doc = crate::data::yaml::parse(FileId(0), text)
            .expect("YAML")
            .expect("a document");
        let (config, found) = read(&doc, level);
        (config, found.iter().map(|d| d.code).collect())
    }

    #[test]
    fn puppets_defaults_fill_what_the_file_leaves_out() {
        let (config, found) = read_str("version: 5\n", ConfigLevel::Environment);
        assert!(found.is_empty());
        assert_eq!(config.hierarchy.len(), 1);
        let common = &config.hierarchy[0];
        assert_eq!(common.name, "Common");
        assert_eq!(common.datadir, "data");
        assert_eq!(common.function, Function::DataHash("yaml_data".into()));
        assert_eq!(
            common.locations,
            Locations::Paths(vec!["common.yaml".into()])
        );

        let (config, found) = read_str(
            "version: 5\ndefaults:\n  datadir: hieradata\n  data_hash: json_data\nhierarchy:\n  - name: Nodes\n    path: 'nodes/%{trusted.certname}.json'\n  - name: Mapped\n    mapped_paths: [services, tmp, 'services/%{tmp}.json']\n    datadir: other\n",
            ConfigLevel::Environment,
        );
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(config.hierarchy[0].datadir, "hieradata");
        assert_eq!(
            config.hierarchy[0].function,
            Function::DataHash("json_data".into())
        );
        assert_eq!(config.hierarchy[1].datadir, "other");
        assert!(matches!(
            &config.hierarchy[1].locations,
            Locations::MappedPaths { variable, .. } if variable == "services"
        ));
    }

    /// `defaults:` and `hierarchy:` given no value are Puppet's defaults (`||=`), as in
    /// ComputeCanada's magic_castle, whose `defaults:` has only comments under it.
    #[test]
    fn keys_without_a_value_are_puppets_defaults() {
        let (config, found) = read_str(
            "version: 5\ndefaults:\n  # datadir: data\nhierarchy:\n  - name: a\n    path: a.yaml\n",
            ConfigLevel::Environment,
        );
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(
            config.hierarchy[0].function,
            Function::DataHash("yaml_data".into())
        );
        assert_eq!(config.hierarchy[0].datadir, "data");
        let (config, found) = read_str("version: 5\nhierarchy:\n", ConfigLevel::Environment);
        assert!(found.is_empty(), "{found:?}");
        assert_eq!(config.hierarchy[0].name, "Common");
    }

    #[test]
    fn each_rule_has_its_issue() {
        use ConfigLevel::*;
        for (text, level, code) in [
            ("version: 5\nhierachy: []\n", Environment, codes::UNKNOWN_HIERA_ATTRIBUTE),
            ("version: 5\ndefaults: {datadir: data, data_hash: yaml_data, lookup_key: x}\n", Environment, codes::HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS_IN_DEFAULT),
            ("version: 5\ndefaults: {datadir: data, options: {path: x}}\nhierarchy: [{name: a, data_hash: yaml_data}]\n", Environment, codes::HIERA_DEFAULT_OPTION_RESERVED_BY_PUPPET),
            ("version: 5\ndefaults: {datadir: data}\nhierarchy: [{name: a, path: a.yaml}]\n", Environment, codes::HIERA_MISSING_DATA_PROVIDER_FUNCTION),
            ("version: 5\nhierarchy: [{name: a, data_hash: yaml_data, data_dig: x}]\n", Environment, codes::HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS),
            ("version: 5\nhierarchy: [{name: a, path: a.yaml, glob: '*.yaml'}]\n", Environment, codes::HIERA_MULTIPLE_LOCATION_SPECS),
            ("version: 5\nhierarchy: [{name: a, path: a.yaml, options: {uri: x}}]\n", Environment, codes::HIERA_OPTION_RESERVED_BY_PUPPET),
            ("version: 5\nhierarchy: [{name: a, path: a.yaml}, {name: a, path: b.yaml}]\n", Environment, codes::HIERA_HIERARCHY_NAME_MULTIPLY_DEFINED),
            ("version: 5\ndefault_hierarchy: [{name: a, path: a.yaml}]\n", Environment, codes::HIERA_DEFAULT_HIERARCHY_NOT_IN_MODULE),
            ("version: 5\nhierarchy: [{name: a, hiera3_backend: eyaml}]\n", Environment, codes::HIERA_V3_BACKEND_NOT_GLOBAL),
            ("version: 5\nhierarchy: [{name: a, path: a.yaml}, {path: b.yaml}]\n", Environment, codes::HIERARCHY_ENTRY_MISSING_ATTRIBUTE),
            ("version: 5\nhierarchy: [{name: a, paths: []}]\n", Environment, codes::HIERA_WRONG_TYPE),
            ("version: 5\nhierarchy: [{name: a, mapped_paths: [a, b]}]\n", Environment, codes::HIERA_WRONG_TYPE),
            ("version: 5\nhierarchy: [{name: a, path: ''}]\n", Environment, codes::HIERA_WRONG_TYPE),
            ("version: 5\nhierarchy: {name: a}\n", Environment, codes::HIERA_WRONG_TYPE),
            ("version: 5\nhierarchy: [{name: a, lookup_key: vault_lookup, path: a.eyaml}]\n", Environment, codes::HIERA_FUNCTION_NOT_SUPPORTED),
            ("version: 5\nhierarchy: [{name: a, path: a.yaml, pathz: b}]\n", Environment, codes::UNKNOWN_HIERA_ATTRIBUTE),
            ("version: 5\nhierarchy: [{name: a, path: \"%{lookup('x')}.yaml\"}]\n", Environment, codes::HIERA_INTERPOLATION_METHOD_SYNTAX_NOT_ALLOWED),
            ("version: 5\nhierarchy: [{name: a, paths: [ok.yaml, \"%{facts..x}.yaml\"]}]\n", Environment, codes::HIERA_INTERPOLATION_SYNTAX_ERROR),
            ("version: 5\nhierarchy: [{name: a, path: a.yaml, datadir: ../../etc}]\n", Environment, codes::HIERA_PATH_ESCAPES),
        ] {
            let (_, found) = read_str(text, level);
            assert_eq!(found, vec![code], "{text}");
        }
        // A module may have a default hierarchy; the global level Hiera 3 backends.
        let (config, found) = read_str(
            "version: 5\ndefault_hierarchy: [{name: d, path: d.yaml}]\n",
            Module,
        );
        assert!(
            found.is_empty() && config.default_hierarchy.len() == 1,
            "{found:?}"
        );
        let (config, found) = read_str(
            "version: 5\nhierarchy: [{name: a, hiera3_backend: eyaml}]\n",
            Global,
        );
        assert_eq!(found, vec![codes::HIERA_FUNCTION_NOT_SUPPORTED]);
        assert!(config.hierarchy[0].unsearchable.is_some());
        // `hiera3_backend: yaml` is both: not global, and replaced by `yaml_data`.
        let (_, found) = read_str(
            "version: 5\nhierarchy: [{name: a, hiera3_backend: yaml}]\n",
            Environment,
        );
        assert_eq!(
            found,
            vec![
                codes::HIERA_V3_BACKEND_NOT_GLOBAL,
                codes::HIERA_V3_BACKEND_REPLACED_BY_DATA_HASH
            ]
        );
    }

    /// Every problem in the file is reported, not only the first (Puppet stops at one).
    #[test]
    fn every_problem_is_reported() {
        let (config, found) = read_str(
            "version: 5\nhierarchy:\n  - {name: a, path: a.yaml, glob: x}\n  - {name: b}\n  - {name: c, data_hash: yaml_data, lookup_key: k}\n  - {name: d, path: d.yaml}\n",
            ConfigLevel::Environment,
        );
        assert_eq!(
            found,
            vec![
                codes::HIERA_MULTIPLE_LOCATION_SPECS,
                codes::HIERA_MULTIPLE_DATA_PROVIDER_FUNCTIONS
            ]
        );
        let names: Vec<&str> = config.hierarchy.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["b", "d"]);
    }
}
