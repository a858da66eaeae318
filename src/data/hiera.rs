//! `hiera.yaml` versions 2 and 3 (ARM-9 and its improvements): a module's, or the site's, own
//! hierarchy of data files. Reading a file gives its [`HieraConfig`] (with the defaults where
//! the file leaves a part out) and the diagnostics of Puppet 3.4's checker for version 2 and of
//! the version 3 rules, each at its line and column. What the hierarchy means for a request
//! (which data files apply, what they bind) is not decided here.

use super::yaml::{self, Node, NodeKind};
use crate::diag::{codes, Diagnostic};
use crate::span::{FileId, Span};

/// A data backend: the kind of file an entry's paths name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    Yaml,
    Json,
}

impl Backend {
    pub fn extension(self) -> &'static str {
        match self {
            Backend::Yaml => "yaml",
            Backend::Json => "json",
        }
    }
}

/// One level of the hierarchy: the data files of `paths` bind their keys
/// `when <category> <value>`.
#[derive(Clone, Debug, PartialEq)]
pub struct HierarchyEntry {
    pub category: String,
    /// The value: a Puppet string (`${osfamily}`), `true` for `common`.
    pub value: String,
    /// Whether the file writes the value (else it is the smart default, the category's own).
    pub value_written: bool,
    /// Paths relative to the entry's data directory, without the backend's extension.
    pub paths: Vec<String>,
    /// The entry's own data directory, relative to the `hiera.yaml` directory.
    pub datadir: String,
    /// The entry in the file (`Span::NONE` for a default entry).
    pub span: Span,
}

/// A path of a version 3 file's private hierarchy: its data is contributed to `common` for the
/// request, the first path that has a key winning.
#[derive(Clone, Debug, PartialEq)]
pub struct PrivatePath {
    pub path: String,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub struct HieraConfig {
    pub version: u8,
    pub hierarchy: Vec<HierarchyEntry>,
    pub private: Vec<PrivatePath>,
    /// In order: for one entry, the first backend with a file that has a key wins.
    pub backends: Vec<Backend>,
    /// Version 3's top-level `datadir` (for private paths); version 2 paths include theirs.
    pub datadir: String,
}

/// What became of a `hiera.yaml`.
#[derive(Debug)]
pub enum Read {
    Config(HieraConfig),
    /// A Hiera 1 file (no `version`, or version 1): not ARM-9 data. At `confdir-hiera:` it is
    /// skipped in silence (ARM-9's FAQ); in a module it gets a warning.
    Hiera1,
    /// Hiera 5's format (version 5), read and checked by [`super::hiera5`].
    Hiera5(Box<super::hiera5::Config>),
    /// Version 4 (Puppet 4.9's experimental format, which Puppet 7 still reads): not checked.
    Hiera4,
    /// The file has errors (reported); it contributes nothing.
    Broken,
}

/// The categories a version 3 string entry may name (anything else is a private path).
pub struct Known<'a> {
    pub categories: &'a [String],
}

/// Reads a `hiera.yaml`. `in_module`: the file is a module's (a Hiera 1 file there is worth a
/// warning).
pub fn read(file: FileId, text: &str, known: &Known, in_module: bool) -> (Read, Vec<Diagnostic>) {
    let mut out = Vec::new();
    let doc = match yaml::parse(file, text) {
        Ok(Some(doc)) => doc,
        Ok(None) => {
            out.push(Diagnostic::error(
                codes::CONFIG_IS_NOT_HASH,
                Span::new(file, 0, 0),
                "this hiera.yaml is empty: it needs a hash with `version`, `hierarchy` and `backends`",
            ));
            return (Read::Broken, out);
        }
        Err(e) => {
            out.push(Diagnostic::error(
                e.code.unwrap_or(codes::CONFIG_FILE_SYNTAX_ERROR),
                e.span,
                format!("this hiera.yaml is not valid YAML: {}", e.message),
            ));
            return (Read::Broken, out);
        }
    };
    if !matches!(doc.kind, NodeKind::Mapping(_)) {
        out.push(Diagnostic::error(
            codes::CONFIG_IS_NOT_HASH,
            doc.span,
            format!(
                "a hiera.yaml holds a hash (`version`, `hierarchy`, `backends`), not {}",
                doc.kind_name()
            ),
        ));
        return (Read::Broken, out);
    }
    let version = match doc.get("version").map(|v| &v.kind) {
        None | Some(NodeKind::Integer(1)) => {
            if in_module {
                let first_key = match &doc.kind {
                    NodeKind::Mapping(entries) => entries.first().map(|(k, _)| k.span),
                    _ => None,
                };
                out.push(
                    Diagnostic::warning(
                        codes::MISSING_VERSION,
                        first_key.unwrap_or(doc.span),
                        "this hiera.yaml has no `version` (or version 1): it is read as Hiera 1's, whose data a module cannot hold, and ignored",
                    )
                    .with_note("help: start it with `version: 3` (or `version: 5` for Hiera 5)"),
                );
            }
            return (Read::Hiera1, out);
        }
        Some(NodeKind::Integer(v @ (2 | 3))) => *v as u8,
        Some(NodeKind::Integer(4)) => return (Read::Hiera4, out),
        Some(NodeKind::Integer(5)) => {
            let level = if in_module {
                super::hiera5::ConfigLevel::Module
            } else {
                super::hiera5::ConfigLevel::Environment
            };
            let (config, found) = super::hiera5::read(&doc, level);
            out.extend(found);
            return (Read::Hiera5(Box::new(config)), out);
        }
        Some(_) => {
            let node = doc.get("version").unwrap_or(&doc);
            out.push(
                Diagnostic::error(
                    codes::WRONG_VERSION,
                    node.span,
                    "this hiera.yaml's `version` is not one pbc reads",
                )
                .with_note(
                    "note: versions 2 and 3 are ARM-9's data in modules; version 5 is Hiera 5's",
                ),
            );
            return (Read::Broken, out);
        }
    };
    let mut config = HieraConfig {
        version,
        hierarchy: Vec::new(),
        private: Vec::new(),
        backends: vec![Backend::Yaml, Backend::Json],
        datadir: "data".into(),
    };
    let allowed: &[&str] = if version == 2 {
        &["version", "hierarchy", "backends"]
    } else {
        &["version", "hierarchy", "backends", "datadir"]
    };
    super::hiera5::unknown_keys(
        &doc,
        allowed,
        &format!("a version {version} hiera.yaml"),
        &mut out,
    );
    if version == 3 {
        if let Some(d) = doc.get("datadir") {
            if let Some(dir) = non_empty_string(d, "datadir", &mut out) {
                if super::hiera5::relative_path(dir, d.span, &mut out) {
                    config.datadir = dir.to_string();
                }
            }
        }
    }
    if let Some(b) = doc.get("backends") {
        if let Some(backends) = backends(b, &mut out) {
            config.backends = backends;
        }
    }
    match doc.get("hierarchy") {
        // The defaults stand for a missing hierarchy (Puppet 3.4: MISSING_HIERARCHY is ignored).
        None => {
            config.hierarchy = default_hierarchy(version);
            // D20: version 3's top-level `datadir` is every category entry's default.
            if version == 3 {
                for entry in &mut config.hierarchy {
                    entry.datadir.clone_from(&config.datadir);
                }
            }
        }
        Some(h) => {
            let NodeKind::Sequence(items) = &h.kind else {
                out.push(Diagnostic::error(
                    codes::HIERARCHY_WRONG_TYPE,
                    h.span,
                    format!("`hierarchy` is a list of entries, not {}", h.kind_name()),
                ));
                return (Read::Broken, out);
            };
            for item in items {
                if version == 2 {
                    entry_v2(item, &mut config, &mut out);
                } else {
                    entry_v3(item, known, &mut config, &mut out);
                }
            }
        }
    }
    let broken = out.iter().any(Diagnostic::is_error);
    (
        if broken {
            Read::Broken
        } else {
            Read::Config(config)
        },
        out,
    )
}

/// ARM-9's default: `osfamily` then `common`, under `data/`.
fn default_hierarchy(version: u8) -> Vec<HierarchyEntry> {
    let prefix = if version == 2 { "data/" } else { "" };
    vec![
        HierarchyEntry {
            category: "osfamily".into(),
            value: "${osfamily}".into(),
            value_written: false,
            paths: vec![format!("{prefix}osfamily/${{osfamily}}")],
            datadir: if version == 2 {
                "".into()
            } else {
                "data".into()
            },
            span: Span::NONE,
        },
        HierarchyEntry {
            category: "common".into(),
            value: "true".into(),
            value_written: false,
            paths: vec![format!("{prefix}common")],
            datadir: if version == 2 {
                "".into()
            } else {
                "data".into()
            },
            span: Span::NONE,
        },
    ]
}

fn backends(node: &Node, out: &mut Vec<Diagnostic>) -> Option<Vec<Backend>> {
    let NodeKind::Sequence(items) = &node.kind else {
        out.push(Diagnostic::error(
            codes::MISSING_BACKENDS,
            node.span,
            format!(
                "`backends` is a list such as `[yaml, json]`, not {}",
                node.kind_name()
            ),
        ));
        return None;
    };
    let mut found = Vec::new();
    for item in items {
        match item.as_str() {
            Some("yaml") => found.push(Backend::Yaml),
            Some("json") => found.push(Backend::Json),
            other => {
                let mut d = Diagnostic::error(
                    codes::UNKNOWN_BACKEND,
                    item.span,
                    format!(
                        "pbc reads the backends `yaml` and `json`, not {}",
                        other.map_or_else(|| item.kind_name().to_string(), |s| format!("`{s}`"))
                    ),
                );
                if let Some((o, s)) =
                    other.and_then(|o| Some((o, crate::diag::did_you_mean(o, &["yaml", "json"])?)))
                {
                    d = d.did_you_mean(o, s);
                }
                out.push(d);
            }
        }
    }
    if found.is_empty() && items.is_empty() {
        out.push(Diagnostic::error(
            codes::MISSING_BACKENDS,
            node.span,
            "`backends` is empty: give `[yaml, json]` or leave it out for that default",
        ));
        return None;
    }
    Some(found)
}

/// Version 2: `[category, value, path]`.
fn entry_v2(item: &Node, config: &mut HieraConfig, out: &mut Vec<Diagnostic>) {
    let parts: Option<Vec<&str>> = match &item.kind {
        NodeKind::Sequence(parts) if parts.len() == 3 => parts.iter().map(Node::as_str).collect(),
        _ => None,
    };
    let Some(parts) = parts else {
        out.push(
            Diagnostic::error(
                codes::CATEGORY_MUST_BE_THREE_ELEMENT_ARRAY,
                item.span,
                "a version 2 hierarchy entry is three strings: `[category, value, path]`",
            )
            .with_note("help: e.g. `['osfamily', '${osfamily}', 'data/osfamily/${osfamily}']`"),
        );
        return;
    };
    if !super::hiera5::relative_path(parts[2], item.span, out) {
        return;
    }
    config.hierarchy.push(HierarchyEntry {
        category: parts[0].to_string(),
        value: parts[1].to_string(),
        value_written: true,
        paths: vec![parts[2].to_string()],
        datadir: String::new(),
        span: item.span,
    });
}

/// Version 3: an object (`category`, `value`, `path` or `paths`, `datadir`), or a string: a
/// category with its defaults, or a private path.
fn entry_v3(item: &Node, known: &Known, config: &mut HieraConfig, out: &mut Vec<Diagnostic>) {
    if let Some(s) = item.as_str() {
        if s.is_empty() {
            out.push(Diagnostic::error(
                codes::CATEGORY_ATTR_EMPTY,
                item.span,
                "a hierarchy entry may not be empty",
            ));
        } else if known.categories.iter().any(|c| c == s) {
            let datadir = Some(config.datadir.clone());
            config
                .hierarchy
                .push(smart_default(s, None, None, datadir, item.span));
        } else if super::hiera5::relative_path(s, item.span, out) {
            config.private.push(PrivatePath {
                path: s.to_string(),
                span: item.span,
            });
        }
        return;
    }
    let NodeKind::Mapping(attributes) = &item.kind else {
        out.push(Diagnostic::error(
            codes::HIERARCHY_WRONG_TYPE,
            item.span,
            format!(
                "a hierarchy entry is a category's name, a path, or a hash with `category`, not {}",
                item.kind_name()
            ),
        ));
        return;
    };
    const ATTRIBUTES: &[&str] = &["category", "value", "path", "paths", "datadir"];
    let mut ok = true;
    for (k, _) in attributes {
        let name = k.as_str().unwrap_or("");
        if !ATTRIBUTES.contains(&name) {
            let mut d = Diagnostic::error(
                codes::UNKNOWN_CATEGORY_ATTRIBUTE,
                k.span,
                format!("a hierarchy entry has no attribute `{name}`"),
            );
            if let Some(s) = crate::diag::did_you_mean(name, ATTRIBUTES) {
                d = d.did_you_mean(name, s);
            }
            out.push(d);
            ok = false;
        }
    }
    let Some(category_node) = item.get("category") else {
        out.push(
            Diagnostic::error(
                codes::HIERARCHY_ENTRY_MISSING_ATTRIBUTE,
                item.span,
                "this hierarchy entry has no `category`",
            )
            .with_note("help: add e.g. `category: osfamily`; `value` and `path` have defaults"),
        );
        return;
    };
    let Some(category) = non_empty_string(category_node, "category", out) else {
        return;
    };
    let value = match item.get("value") {
        Some(v) if category == "common" => {
            out.push(Diagnostic::error(
                codes::ILLEGAL_VALUE_FOR_COMMON,
                v.span,
                "`common` applies to every request: it takes no `value`",
            ));
            ok = false;
            None
        }
        Some(v) => non_empty_scalar(v, "value", out),
        None => None,
    };
    let paths = match (item.get("path"), item.get("paths")) {
        (Some(p), Some(ps)) => {
            out.push(
                Diagnostic::error(
                    codes::PATH_PATHS_EXCLUSIVE,
                    ps.span,
                    "an entry has `path` or `paths`, not both",
                )
                .with_label(p.span, "`path` is given here"),
            );
            return;
        }
        (Some(p), None) => match non_empty_string(p, "path", out) {
            Some(path) => Some(vec![(path.to_string(), p.span)]),
            None => return,
        },
        (None, Some(ps)) => match &ps.kind {
            NodeKind::Sequence(list) if !list.is_empty() => {
                let mut paths = Vec::new();
                for p in list {
                    match p.as_str() {
                        Some("") => {
                            out.push(Diagnostic::error(
                                codes::CATEGORY_ATTR_ARRAY_ENTRY_EMPTY,
                                p.span,
                                "an entry of `paths` may not be empty",
                            ));
                            ok = false;
                        }
                        Some(s) => paths.push((s.to_string(), p.span)),
                        None => {
                            out.push(Diagnostic::error(
                                codes::CATEGORY_ATTR_WRONG_TYPE,
                                p.span,
                                format!("an entry of `paths` is a String, not {}", p.kind_name()),
                            ));
                            ok = false;
                        }
                    }
                }
                Some(paths)
            }
            _ => {
                out.push(Diagnostic::error(
                    codes::CATEGORY_ATTR_WRONG_TYPE,
                    ps.span,
                    format!(
                        "`paths` is a non-empty list of Strings, not {}",
                        ps.kind_name()
                    ),
                ));
                return;
            }
        },
        (None, None) => None,
    };
    let datadir = match item.get("datadir") {
        Some(d) => match non_empty_string(d, "datadir", out) {
            Some(dir) if super::hiera5::relative_path(dir, d.span, out) => Some(dir.to_string()),
            _ => return,
        },
        // D20: the file's top-level `datadir` (default `data`).
        None => Some(config.datadir.clone()),
    };
    if let Some(paths) = &paths {
        for (p, span) in paths {
            ok &= super::hiera5::relative_path(p, *span, out);
        }
    }
    if ok {
        config.hierarchy.push(smart_default(
            category,
            value,
            paths.map(|p| p.into_iter().map(|(p, _)| p).collect()),
            datadir,
            item.span,
        ));
    }
}

/// ARM-9 improvements' smart defaults: value `${<category>}` (`true` for `common`), path
/// `<category>/<value>` (`common` for `common`), datadir the file's top-level one (`data`).
fn smart_default(
    category: &str,
    value: Option<String>,
    paths: Option<Vec<String>>,
    datadir: Option<String>,
    span: Span,
) -> HierarchyEntry {
    let common = category == "common";
    let value_written = value.is_some();
    let value = value.unwrap_or_else(|| {
        if common {
            "true".into()
        } else {
            format!("${{{category}}}")
        }
    });
    let paths = paths.unwrap_or_else(|| {
        vec![if common {
            "common".into()
        } else {
            format!("{category}/{value}")
        }]
    });
    HierarchyEntry {
        category: category.to_string(),
        value,
        value_written,
        paths,
        datadir: datadir.unwrap_or_else(|| "data".into()),
        span,
    }
}

fn non_empty_string<'n>(node: &'n Node, what: &str, out: &mut Vec<Diagnostic>) -> Option<&'n str> {
    match node.as_str() {
        Some("") => {
            out.push(Diagnostic::error(
                codes::CATEGORY_ATTR_EMPTY,
                node.span,
                format!("`{what}` may not be empty"),
            ));
            None
        }
        Some(s) => Some(s),
        None => {
            out.push(Diagnostic::error(
                codes::CATEGORY_ATTR_WRONG_TYPE,
                node.span,
                format!("`{what}` is a String, not {}", node.kind_name()),
            ));
            None
        }
    }
}

/// A value may be written as a number or Boolean too (`value: true`); it is read as its text.
fn non_empty_scalar(node: &Node, what: &str, out: &mut Vec<Diagnostic>) -> Option<String> {
    match &node.kind {
        NodeKind::Bool(b) => Some(b.to_string()),
        NodeKind::Integer(i) => Some(i.to_string()),
        _ => non_empty_string(node, what, out).map(str::to_string),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> (Read, Vec<&'static str>) {
        let categories = vec![
            "node".to_string(),
            "osfamily".to_string(),
            "common".to_string(),
        ];
        let (read, diags) = read(
            FileId(0),
            text,
            &Known {
                categories: &categories,
            },
            true,
        );
        (read, diags.iter().map(|d| d.code).collect())
    }

    #[test]
    fn version_3_smart_defaults_and_private_paths() {
        let (read, codes) = read_str(
            "version: 3\nhierarchy:\n  - osfamily\n  - {category: node, paths: ['nodes/${fqdn}', 'nodes/default']}\n  - common\n  - extra/settings\n",
        );
        assert!(codes.is_empty(), "{codes:?}");
        let Read::Config(c) = read else {
            panic!("a config")
        };
        assert_eq!(c.hierarchy.len(), 3);
        assert_eq!(c.hierarchy[0].value, "${osfamily}");
        assert_eq!(
            c.hierarchy[0].paths,
            vec!["osfamily/${osfamily}".to_string()]
        );
        assert_eq!(c.hierarchy[1].paths.len(), 2);
        assert_eq!(c.hierarchy[2].value, "true");
        assert_eq!(c.hierarchy[2].paths, vec!["common".to_string()]);
        assert_eq!(c.private[0].path, "extra/settings");
        assert_eq!(c.backends, vec![Backend::Yaml, Backend::Json]);
    }

    #[test]
    fn version_2_triples_and_defaults() {
        let (read, codes) = read_str("version: 2\nbackends: [json]\n");
        assert!(codes.is_empty(), "{codes:?}");
        let Read::Config(c) = read else {
            panic!("a config")
        };
        assert_eq!(
            c.hierarchy[0].paths,
            vec!["data/osfamily/${osfamily}".to_string()]
        );
        assert_eq!(c.backends, vec![Backend::Json]);
        let (_, codes) = read_str("version: 2\nhierarchy:\n  - ['node', '${fqdn}']\n");
        assert_eq!(codes, vec![codes::CATEGORY_MUST_BE_THREE_ELEMENT_ARRAY]);
    }

    #[test]
    fn the_checker_rules() {
        for (text, code) in [
            (
                "version: 3\nhierarchy:\n  - {value: x}\n",
                codes::HIERARCHY_ENTRY_MISSING_ATTRIBUTE,
            ),
            (
                "version: 3\nhierarchy:\n  - {category: common, value: x}\n",
                codes::ILLEGAL_VALUE_FOR_COMMON,
            ),
            (
                "version: 3\nhierarchy:\n  - {category: node, path: a, paths: [b]}\n",
                codes::PATH_PATHS_EXCLUSIVE,
            ),
            (
                "version: 3\nhierarchy:\n  - {category: node, pth: a}\n",
                codes::UNKNOWN_CATEGORY_ATTRIBUTE,
            ),
            (
                "version: 3\nhierarchy:\n  - {category: ''}\n",
                codes::CATEGORY_ATTR_EMPTY,
            ),
            (
                "version: 3\nhierarchy:\n  - {category: node, paths: ['']}\n",
                codes::CATEGORY_ATTR_ARRAY_ENTRY_EMPTY,
            ),
            (
                "version: 3\nhierarchy:\n  - {category: [node]}\n",
                codes::CATEGORY_ATTR_WRONG_TYPE,
            ),
            ("version: 3\nhierarchy: node\n", codes::HIERARCHY_WRONG_TYPE),
            (
                "version: 3\nhierarchy:\n  - {category: node, path: '../../etc/passwd'}\n",
                codes::HIERA_PATH_ESCAPES,
            ),
            ("version: 3\nbackends: [yml]\n", codes::UNKNOWN_BACKEND),
            ("version: 3\nhierachy: []\n", codes::UNKNOWN_HIERA_ATTRIBUTE),
            ("version: 'three'\n", codes::WRONG_VERSION),
            ("hierarchy: []\n", codes::MISSING_VERSION),
            ("- a\n", codes::CONFIG_IS_NOT_HASH),
            ("version: [3\n", codes::CONFIG_FILE_SYNTAX_ERROR),
        ] {
            let (_, found) = read_str(text);
            assert_eq!(found, vec![code], "{text}");
        }
        assert!(matches!(read_str("version: 5\n").0, Read::Hiera5(_)));
    }
}
