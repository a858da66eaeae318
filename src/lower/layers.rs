//! Which bindings files make up each layer: a layer's `include` URIs, expanded against the tree,
//! minus its `exclude` URIs (reference section 4.1, step 3; section 6.5 for the schemes).
//!
//! `confdir:/a::b` is the site's `bindings/a/b.pp`; `module:/m::x` is `modules/m/bindings/x.pp`;
//! `module:/*::x` is every module's `x` (implicitly optional). A `?` or `?optional` query makes a
//! reference optional. Every other scheme (`enc:`, `*-hiera:`, schemes bound in
//! `bindings_providers`) is resolved by the injector at request time and is only recorded here.

use crate::span::Span;

/// A layer as the site declares it (or as D11 implies it when the site declares none).
#[derive(Clone, Debug)]
pub struct LayerSpec {
    pub name: String,
    /// The layer's name in the site; `None` for an implied layer.
    pub span: Option<Span>,
    pub include: Vec<BindingsRef>,
    pub exclude: Vec<BindingsRef>,
}

/// One bindings URI of a layer.
#[derive(Clone, Debug)]
pub struct BindingsRef {
    pub uri: String,
    /// `None` for an implied reference (always optional).
    pub span: Option<Span>,
}

/// A bindings file of the tree, as the `confdir:` and `module:` schemes see it, or the bindings
/// of a data file, as the `confdir-hiera:` and `module-hiera:` schemes see them.
#[derive(Clone, Copy, Debug)]
pub struct BindingsSource<'a> {
    /// The module whose `bindings/` directory (or `hiera.yaml`) holds the file; `None` for the
    /// site's.
    pub module: Option<&'a str>,
    /// The bindings name the file's path gives (`ntp::default`).
    pub name: &'a str,
    /// For a data file: the directory of its `hiera.yaml` in the module or the site (`""` for
    /// the root).
    pub hiera: Option<&'a str>,
}

/// The layer of Hiera's global level (`--hiera-config`), above every layer of the site.
pub const GLOBAL_HIERA_LAYER: &str = "hiera-global";

/// [`GLOBAL_HIERA_LAYER`], holding `global-hiera:/`.
pub fn global_hiera_layer() -> LayerSpec {
    LayerSpec {
        name: GLOBAL_HIERA_LAYER.to_string(),
        span: None,
        include: vec![BindingsRef {
            uri: "global-hiera:/".to_string(),
            span: None,
        }],
        exclude: Vec::new(),
    }
}

impl<'a> BindingsSource<'a> {
    /// The bindings of Hiera's global level.
    pub fn is_global_hiera(&self) -> bool {
        self.hiera == Some(crate::tree::GLOBAL_HIERA_DIR)
    }

    /// The source a file of `role` is, if it holds bindings.
    pub fn of(role: &'a crate::tree::FileRole) -> Option<BindingsSource<'a>> {
        use crate::tree::FileRole;
        match role {
            FileRole::Bindings {
                expected_name,
                module,
            } => Some(BindingsSource {
                module: module.as_deref(),
                name: expected_name,
                hiera: None,
            }),
            FileRole::HieraData(data) => Some(BindingsSource {
                module: data.module.as_deref(),
                name: &data.name,
                hiera: Some(&data.dir),
            }),
            _ => None,
        }
    }
}

/// A layer with its references resolved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ComposedLayer {
    pub name: String,
    /// Indexes into the sources, in the order the includes name them (a wildcard's matches in
    /// source order), each once.
    pub files: Vec<usize>,
    /// The URIs of other schemes, for the injector, in include order.
    pub external: Vec<String>,
    /// Indexes into the sources that the layer's `exclude`s name.
    pub excluded: Vec<usize>,
}

/// An include the site writes that names no file of the tree: an error unless optional, and
/// worth a warning when it is a wildcard (`module:/*::x` is implicitly optional, so a typo in
/// it drops every module's bindings without a word).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingRef {
    pub layer: String,
    pub uri: String,
    pub span: Option<Span>,
    /// `module:/*::x`: optional by nature.
    pub wildcard: bool,
}

/// A site's `layer { 'name': include => ..., exclude => ... }` with its literal URIs (anything
/// else in it is the validator's to report).
pub fn spec_of(layer: &crate::ast::Layer) -> LayerSpec {
    use crate::ast::ExprKind;
    let mut spec = LayerSpec {
        name: layer.name.literal_text().unwrap_or("?").to_string(),
        span: Some(layer.name.span),
        include: Vec::new(),
        exclude: Vec::new(),
    };
    for op in &layer.ops {
        let refs = match op.name.as_str() {
            "include" => &mut spec.include,
            "exclude" => &mut spec.exclude,
            _ => continue,
        };
        let values = match &op.value.kind {
            ExprKind::Array { elements } => elements.as_slice(),
            _ => std::slice::from_ref(&op.value),
        };
        for v in values {
            if let ExprKind::String { value } = &v.kind {
                refs.push(BindingsRef {
                    uri: value.to_string(),
                    span: Some(v.span),
                });
            }
        }
    }
    spec
}

/// D11 with ARM-9's default configuration: `site` = `confdir-hiera:/` and `confdir:/default`,
/// `modules` = `module-hiera:/*/` and `module:/*::default`; implied, so nothing is missing.
pub fn default_layers() -> Vec<LayerSpec> {
    let implied = |name: &str, uris: &[&str]| LayerSpec {
        name: name.to_string(),
        span: None,
        include: uris
            .iter()
            .map(|uri| BindingsRef {
                uri: uri.to_string(),
                span: None,
            })
            .collect(),
        exclude: Vec::new(),
    };
    vec![
        implied("site", &["confdir-hiera:/", "confdir:/default"]),
        implied("modules", &["module-hiera:/*/", "module:/*::default"]),
    ]
}

/// Resolves every layer against `sources`. Layers keep their order (highest first).
pub fn compose(
    layers: &[LayerSpec],
    sources: &[BindingsSource],
) -> (Vec<ComposedLayer>, Vec<MissingRef>) {
    let mut composed = Vec::with_capacity(layers.len());
    let mut missing = Vec::new();
    // A site may name each of thousands of files: a named file is looked up, not searched for.
    let by_name = ByName::of(sources);
    let resolve = |uri: &str| resolve(uri, sources, &by_name);
    for layer in layers {
        let mut excluded: Vec<usize> = Vec::new();
        for r in &layer.exclude {
            if let Resolved::Files { files, .. } = resolve(&r.uri) {
                excluded.extend(files);
            }
        }
        let excluded_set: foldhash::HashSet<usize> = excluded.iter().copied().collect();
        let mut files: Vec<usize> = Vec::new();
        // Membership by set: a wildcard include can bring in every module of a large tree.
        let mut taken: foldhash::HashSet<usize> = foldhash::HashSet::default();
        let mut external = Vec::new();
        for r in &layer.include {
            match resolve(&r.uri) {
                Resolved::Files {
                    files: found,
                    optional,
                } => {
                    let wildcard = r.uri.contains("/*::");
                    if found.is_empty() && (!optional || wildcard) && r.span.is_some() {
                        missing.push(MissingRef {
                            layer: layer.name.clone(),
                            uri: r.uri.clone(),
                            span: r.span,
                            wildcard,
                        });
                    }
                    for f in found {
                        if !excluded_set.contains(&f) && taken.insert(f) {
                            files.push(f);
                        }
                    }
                }
                Resolved::External => external.push(r.uri.clone()),
                Resolved::Invalid => {}
            }
        }
        composed.push(ComposedLayer {
            name: layer.name.clone(),
            files,
            external,
            excluded,
        });
    }
    (composed, missing)
}

enum Resolved {
    Files {
        files: Vec<usize>,
        optional: bool,
    },
    /// Another scheme: the injector's business.
    External,
    /// Not a URI pbc can read (already reported by the site rules).
    Invalid,
}

/// The bindings files (not Hiera data) by module (`None`: the confdir's) and name, the
/// confdir's and the modules' each indexed when a URI first names one of them (a site that
/// names its own files and takes every module's by a wildcard never indexes the modules': the
/// language server composes the layers at every keystroke, and that was most of it).
struct ByName<'a, 's> {
    sources: &'a [BindingsSource<'s>],
    confdir: std::cell::OnceCell<NameIndex<'s>>,
    modules: std::cell::OnceCell<NameIndex<'s>>,
}

/// Each name's first file, and each file the next of its name: no name holds a list of its
/// own.
struct NameIndex<'s> {
    first: foldhash::HashMap<(Option<&'s str>, &'s str), usize>,
    /// By source, the next source of the same module and name (`usize::MAX`: none).
    next: Vec<usize>,
}

impl<'a, 's> ByName<'a, 's> {
    fn of(sources: &'a [BindingsSource<'s>]) -> ByName<'a, 's> {
        ByName {
            sources,
            confdir: std::cell::OnceCell::new(),
            modules: std::cell::OnceCell::new(),
        }
    }

    /// The sources of the confdir (`in_modules` false) or of modules, indexed.
    fn index(&self, in_modules: bool) -> &NameIndex<'s> {
        let cell = if in_modules {
            &self.modules
        } else {
            &self.confdir
        };
        cell.get_or_init(|| {
            let mut first = foldhash::HashMap::default();
            let mut next = vec![usize::MAX; self.sources.len()];
            // From the last, each file put before the ones after it: each name's files in
            // source order.
            for (i, s) in self.sources.iter().enumerate().rev() {
                if s.hiera.is_none() && s.module.is_some() == in_modules {
                    if let Some(after) = first.insert((s.module, s.name), i) {
                        next[i] = after;
                    }
                }
            }
            NameIndex { first, next }
        })
    }

    /// The files of `module` named `name`, in source order.
    fn files(&self, module: Option<&str>, name: &str) -> Vec<usize> {
        let index = self.index(module.is_some());
        let mut files = Vec::new();
        let mut at = index.first.get(&(module, name)).copied();
        while let Some(i) = at {
            files.push(i);
            at = index.next.get(i).copied().filter(|&n| n != usize::MAX);
        }
        files
    }
}

/// The sources a layer's `include` or `exclude` URI names (indexes into `sources`, as
/// [`compose`] takes them); `None` for a URI of another scheme (the injector's) or one pbc
/// cannot read.
pub fn named_by(uri: &str, sources: &[BindingsSource]) -> Option<Vec<usize>> {
    match resolve(uri, sources, &ByName::of(sources)) {
        Resolved::Files { files, .. } => Some(files),
        Resolved::External | Resolved::Invalid => None,
    }
}

fn resolve(uri: &str, sources: &[BindingsSource], by_name: &ByName) -> Resolved {
    let Some((scheme, rest)) = uri.split_once(':') else {
        return Resolved::Invalid;
    };
    let (path, query) = match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    };
    let mut optional = matches!(query, Some("" | "optional"));
    match scheme {
        "confdir" | "module" => {}
        "confdir-hiera" | "module-hiera" => return resolve_hiera(scheme, path, optional, sources),
        "global-hiera" => {
            return Resolved::Files {
                files: matching(sources, |s| s.is_global_hiera()),
                optional: true,
            }
        }
        _ => return Resolved::External,
    }
    let path = path.trim_start_matches('/').trim_end_matches('/');
    let path = path.strip_prefix("::").unwrap_or(path);
    // `*` stands only for a whole module (the site rules report any other use).
    let wildcard = scheme == "module" && path.starts_with("*::");
    if path.is_empty() || path[usize::from(wildcard)..].contains(['*', '/']) {
        return Resolved::Invalid;
    }
    let named = |module: Option<&str>| by_name.files(module, path);
    let files: Vec<usize> = if scheme == "confdir" {
        named(None)
    } else {
        match path.split_once("::") {
            Some(("*", name)) => {
                optional = true;
                matching(sources, |s| {
                    s.hiera.is_none()
                        && s.module.is_some_and(|m| {
                            s.name.strip_prefix(m).and_then(|r| r.strip_prefix("::")) == Some(name)
                        })
                })
            }
            Some((module, _)) => named(Some(module)),
            None => return Resolved::Invalid,
        }
    };
    Resolved::Files { files, optional }
}

/// `confdir-hiera:/DIR` and `module-hiera:/MODULE[/DIR]` (`*` for every module, implicitly
/// optional): the data files of the `hiera.yaml` in that directory (D21).
fn resolve_hiera(scheme: &str, path: &str, optional: bool, sources: &[BindingsSource]) -> Resolved {
    let path = path.trim_start_matches('/').trim_end_matches('/');
    if path
        .split('/')
        .any(|segment| segment == "." || segment == "..")
    {
        return Resolved::Invalid;
    }
    if scheme == "confdir-hiera" {
        let files = matching(sources, |s| s.module.is_none() && s.hiera == Some(path));
        return Resolved::Files { files, optional };
    }
    let (module, dir) = path.split_once('/').unwrap_or((path, ""));
    if module.is_empty() {
        return Resolved::Invalid;
    }
    // `MODULE/*`: every `hiera.yaml` of the module, at its root or below (D21).
    let files = matching(sources, |s| {
        (s.hiera == Some(dir) || (dir == "*" && s.hiera.is_some()))
            && s.module.is_some()
            && (module == "*" || s.module == Some(module))
    });
    Resolved::Files {
        files,
        optional: optional || module == "*",
    }
}

/// The `hiera.yaml` a `confdir-hiera:` or `module-hiera:` URI names without a wildcard: its
/// module (`None` for the site's) and directory.
pub fn hiera_location(uri: &str) -> Option<(Option<&str>, &str)> {
    let (scheme, rest) = uri.split_once(':')?;
    let path = rest.split('?').next().unwrap_or("");
    let path = path.trim_start_matches('/').trim_end_matches('/');
    if path.contains('*') {
        return None;
    }
    match scheme {
        "confdir-hiera" => Some((None, path)),
        "module-hiera" => {
            let (module, dir) = path.split_once('/').unwrap_or((path, ""));
            (!module.is_empty()).then_some((Some(module), dir))
        }
        _ => None,
    }
}

fn matching(sources: &[BindingsSource], keep: impl Fn(&BindingsSource) -> bool) -> Vec<usize> {
    (0..sources.len()).filter(|&i| keep(&sources[i])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: &str, include: &[&str], exclude: &[&str]) -> LayerSpec {
        let refs = |uris: &[&str]| {
            uris.iter()
                .map(|u| BindingsRef {
                    uri: u.to_string(),
                    span: Some(Span::new(crate::span::FileId(0), 0, 1)),
                })
                .collect()
        };
        LayerSpec {
            name: name.to_string(),
            span: None,
            include: refs(include),
            exclude: refs(exclude),
        }
    }

    const SOURCES: &[BindingsSource] = &[
        BindingsSource {
            module: None,
            name: "default",
            hiera: None,
        },
        BindingsSource {
            module: None,
            name: "a::b",
            hiera: None,
        },
        BindingsSource {
            module: Some("apache"),
            name: "apache::default",
            hiera: None,
        },
        BindingsSource {
            module: Some("ntp"),
            name: "ntp::default",
            hiera: None,
        },
        BindingsSource {
            module: Some("ntp"),
            name: "ntp::load_balanced",
            hiera: None,
        },
        BindingsSource {
            module: Some("ntp"),
            name: "ntp::ntp::default",
            hiera: None,
        },
        BindingsSource {
            module: Some("ntp"),
            name: "module-hiera:/ntp/data/common.yaml",
            hiera: Some(""),
        },
        BindingsSource {
            module: Some("ntp"),
            name: "module-hiera:/ntp/for_x/data/common.yaml",
            hiera: Some("for_x"),
        },
        BindingsSource {
            module: None,
            name: "confdir-hiera:/data/common.yaml",
            hiera: Some(""),
        },
    ];

    /// `module-hiera:/MODULE[/DIR]` and `confdir-hiera:/DIR` name the data of a `hiera.yaml`,
    /// never a bindings file, and `*` is every module (D21); the default layers include them.
    #[test]
    fn hiera_schemes_name_data() {
        let (composed, missing) = compose(
            &[
                spec("a", &["module-hiera:/ntp"], &[]),
                spec("b", &["module-hiera:/*/for_x/"], &[]),
                spec(
                    "c",
                    &["confdir-hiera:/", "module-hiera:/apache?optional"],
                    &[],
                ),
                spec("d", &["module-hiera:/*/"], &["module-hiera:/ntp/"]),
            ],
            SOURCES,
        );
        let files: Vec<Vec<usize>> = composed.iter().map(|l| l.files.clone()).collect();
        assert_eq!(files, vec![vec![6], vec![7], vec![8], vec![]]);
        assert!(missing.is_empty(), "{missing:?}");
        let (composed, _) = compose(&default_layers(), SOURCES);
        assert_eq!(composed[0].files, vec![8, 0]);
        assert_eq!(composed[1].files, vec![6, 2, 3]);
    }

    /// A module found twice (in two directories of a modulepath), or a file by two names:
    /// a named include takes every file of that name, in source order, and an exclude of the
    /// name leaves none of them.
    #[test]
    fn a_name_held_by_several_files_names_each_in_source_order() {
        let twice = |module: Option<&'static str>, name: &'static str| BindingsSource {
            module,
            name,
            hiera: None,
        };
        let sources = [
            twice(Some("ntp"), "ntp::default"),
            twice(None, "default"),
            twice(Some("ntp"), "ntp::default"),
            twice(Some("apache"), "apache::default"),
            twice(Some("ntp"), "ntp::default"),
            twice(None, "default"),
        ];
        let (composed, missing) = compose(
            &[
                spec("site", &["confdir:/default"], &[]),
                spec("named", &["module:/ntp::default"], &[]),
                spec("all", &["module:/*::default"], &["module:/ntp::default"]),
            ],
            &sources,
        );
        let files: Vec<Vec<usize>> = composed.iter().map(|l| l.files.clone()).collect();
        assert_eq!(files, vec![vec![1, 5], vec![0, 2, 4], vec![3]]);
        assert!(missing.is_empty(), "{missing:?}");
        assert_eq!(
            named_by("module:/ntp::default", &sources),
            Some(vec![0, 2, 4])
        );
    }

    #[test]
    fn includes_minus_excludes_in_include_order() {
        let layers = [
            spec("site", &["confdir:/a::b", "confdir:/default"], &[]),
            spec(
                "modules",
                &["module:/*::default", "module:/ntp::load_balanced"],
                &["module:/ntp::default"],
            ),
        ];
        let (composed, missing) = compose(&layers, SOURCES);
        assert_eq!(composed[0].files, vec![1, 0]);
        assert_eq!(composed[1].files, vec![2, 4]);
        assert!(missing.is_empty());
    }

    #[test]
    fn missing_unless_optional_or_wildcard() {
        let layers = [spec(
            "site",
            &[
                "confdir:/nope",
                "confdir:/nope?optional",
                "confdir:/gone?",
                "module:/*::nothing",
                "module:/ntp::nothing",
                "module:/ntp::*",
                "confdir:/*::default",
                "enc:",
            ],
            &[],
        )];
        let (composed, missing) = compose(&layers, SOURCES);
        let uris: Vec<(&str, bool)> = missing
            .iter()
            .map(|m| (m.uri.as_str(), m.wildcard))
            .collect();
        assert_eq!(
            uris,
            [
                ("confdir:/nope", false),
                ("module:/*::nothing", true),
                ("module:/ntp::nothing", false)
            ]
        );
        assert_eq!(composed[0].external, ["enc:"]);
    }

    #[test]
    fn implied_layers_are_optional() {
        let (composed, missing) = compose(&default_layers(), &SOURCES[2..6]);
        assert!(missing.is_empty());
        assert_eq!(composed[0].files, Vec::<usize>::new());
        assert_eq!(composed[1].files, vec![0, 1]);
    }
}
