//! A configuration tree on disk: which `.pp` files pbc reads, and the role each file plays in
//! it. [`discover`] decides roles from paths the way Puppet lays a tree out: `environments.pp`,
//! `bindings/a/b.pp` (holds `bindings a::b`), `modules/m/bindings/x.pp` (holds `bindings m::x`),
//! and every other manifest (`manifests/site.pp`, module manifests). [`EnvironmentLayout`]
//! decides them from an environment's resolved paths (manifest, bindingsdir, modulepath).
//!
//! It owns file discovery, path resolution and naming only. It must not parse or judge the
//! files' contents, nor evaluate `environments.pp` (the injector's environment module does).

use crate::options::Options;
use crate::source::FileAccess;
use smol_str::SmolStr;
use std::path::{Component, Path, PathBuf};

/// The environment a request runs in when nothing names one (ARM-8: `production`, implied
/// when `environments.pp` does not declare it).
pub const DEFAULT_ENVIRONMENT: &str = "production";

/// What a file is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileRole {
    /// `environments.pp`: the site's environments, evaluated before any injector exists.
    Environments,
    /// A file under a `bindings/` directory. `expected_name` is the `bindings` name its path
    /// implies (`bindings/a/b.pp` → `a::b`, `modules/m/bindings/x.pp` → `m::x`); `module` is
    /// `m` for a module's bindings and `None` for the site's (the `confdir:` scheme's).
    Bindings {
        // Inline (no allocation) for most names: a language server's check copies every
        // file's role at each keystroke.
        expected_name: SmolStr,
        module: Option<SmolStr>,
    },
    /// Any other manifest (`site.pp`, module manifests ...).
    Manifest,
    /// A `hiera.yaml` (ARM-9 data) in `dir` (`""` for the root, `for_x`, or deeper where a URI
    /// names it: `data/for_x`) of the site or of `module`. Not Puppet: it is read by [`crate::data::hiera`].
    HieraConfig { module: Option<String>, dir: String },
    /// The bindings pbc makes of one data file of a `hiera.yaml` in `dir` of the site or of
    /// `module` (the `confdir-hiera:` and `module-hiera:` schemes): a `bindings NAME` block
    /// with the file's keys, made by [`crate::data::bind`], never read from source. Boxed:
    /// in place, its three names made every role 72 bytes, not 56 (one per file of a check,
    /// held by the walk and the parses the language server keeps).
    HieraData(Box<HieraDataRole>),
    /// The environment's `binder_config.yaml` (ARM-9, D19): its categories and layers as YAML,
    /// read by [`crate::data::binder_config`] into the `site { }` they stand for.
    BinderConfig,
    /// `--hiera-config FILE`: Hiera's global level (D24), version 5 or Hiera 3's format.
    GlobalHieraConfig,
    /// The environment's `environment.conf` or a module's `metadata.json`: its (deprecated)
    /// `environment_data_provider`/`data_provider` of `hiera` gives a directory without a
    /// `hiera.yaml` Hiera's default hierarchy (`data/common.yaml`), as in Puppet 7.
    DataProvider { module: Option<String> },
}

/// What [`FileRole::HieraData`] says of its data file: the `hiera.yaml`'s module and `dir`,
/// and the name of the block made of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HieraDataRole {
    pub module: Option<String>,
    pub dir: String,
    pub name: String,
}

/// The `dir` of the global Hiera level's bindings (`global-hiera:/`): no directory of a tree.
pub const GLOBAL_HIERA_DIR: &str = "<global>";

/// One file of the tree.
#[derive(Clone, Debug, PartialEq)]
pub struct TreeFile {
    /// Shared with the disk the language server keeps, which keeps the file's text by it.
    pub path: std::sync::Arc<Path>,
    /// The name diagnostics use: the path relative to the current directory where possible.
    /// Shared with the checks' source maps, which name the file by it.
    pub display: std::sync::Arc<str>,
    pub role: FileRole,
}

/// Expands `paths` into the tree's files: a directory contributes every `.pp` below it (hidden
/// directories skipped), a file stands for itself. Roles come from the path as written (so
/// `pbc check env/bindings` still knows its files are bindings). The result is sorted by display
/// name and de-duplicated, so nothing depends on argument order.
pub fn discover(paths: &[PathBuf], options: &Options) -> std::io::Result<Vec<TreeFile>> {
    let key = || walk_key(format!("discover {paths:?}"), options);
    crate::source::kept_walk(&options.files, key, || discover_now(paths, options))
}

/// What a kept walk of `what` is kept by: what a walk finds depends on where it starts, how
/// files may be read and the global files named on the command line.
pub(crate) fn walk_key(what: String, options: &Options) -> String {
    format!(
        "{what} {:?} {:?} {:?}",
        std::env::current_dir().ok(),
        options.hiera_config,
        options.binder_config
    )
}

/// [`discover`], walked now and not kept (for a walk that keeps its own result).
pub(crate) fn discover_now(paths: &[PathBuf], options: &Options) -> std::io::Result<Vec<TreeFile>> {
    let cwd = std::env::current_dir().ok();
    let mut out: Vec<TreeFile> = Vec::new();
    // `hiera.yaml` files deeper than discovery reads of its own accord: kept where a URI names
    // their directory ([`DeepHieraDir`]).
    let mut deep_candidates: Vec<(DeepHieraDir, PathBuf)> = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p)?;
        if meta.is_dir() {
            let mut found = Vec::new();
            crate::source::walk(p, &mut found, &options.files)?;
            for f in found {
                let role = if is_manifest(&f) {
                    role_of(&f)
                } else {
                    match hiera_config_role(p, &f) {
                        Some(role) => role,
                        None => {
                            if let Some(deep) = deep_hiera_config_role(p, &f) {
                                deep_candidates.push((deep, f));
                            }
                            continue;
                        }
                    }
                };
                out.push(TreeFile {
                    display: display_name(&f, cwd.as_deref()).into(),
                    role,
                    path: f.into(),
                });
            }
        } else {
            out.push(TreeFile {
                display: display_name(p, cwd.as_deref()).into(),
                role: role_of(p),
                path: p.as_path().into(),
            });
        }
    }
    if !deep_candidates.is_empty() {
        let named = deep_hiera_dirs_in(&out, &options.files);
        for ((module, dir), path) in deep_candidates {
            let asked = named.iter().any(|(m, d)| {
                *d == dir
                    && match (m.as_deref(), module.as_deref()) {
                        (None, None) => true,
                        (Some(asked), Some(found)) => asked == "*" || asked == found,
                        _ => false,
                    }
            });
            if asked {
                out.push(TreeFile {
                    display: display_name(&path, cwd.as_deref()).into(),
                    role: FileRole::HieraConfig { module, dir },
                    path: path.into(),
                });
            }
        }
    }
    if let Some(file) = options.binder_config.clone() {
        out.retain(|f| f.role != FileRole::BinderConfig);
        out.push(TreeFile {
            display: display_name(&file, cwd.as_deref()).into(),
            role: FileRole::BinderConfig,
            path: file.into(),
        });
    }
    if let Some(file) = options.hiera_config.clone() {
        out.push(TreeFile {
            display: display_name(&file, cwd.as_deref()).into(),
            role: FileRole::GlobalHieraConfig,
            path: file.into(),
        });
    }
    out.sort_by(|a, b| a.display.cmp(&b.display));
    out.dedup_by(|a, b| a.display == b.display);
    Ok(out)
}

/// The name diagnostics give `path`: relative to the current directory where possible.
pub fn display(path: &Path) -> String {
    display_name(path, std::env::current_dir().ok().as_deref())
}

fn display_name(path: &Path, cwd: Option<&Path>) -> String {
    let shown = match cwd {
        Some(c) if path.is_absolute() => path.strip_prefix(c).unwrap_or(path),
        _ => path,
    };
    let shown = shown.strip_prefix(".").unwrap_or(shown);
    shown.to_string_lossy().replace('\\', "/")
}

/// The role a path implies (see [`FileRole`]).
pub fn role_of(path: &Path) -> FileRole {
    // Borrowed from the path (a name that is UTF-8 is not copied): a check asks this of every
    // file it finds, on one core before the files are read.
    let parts: Vec<std::borrow::Cow<str>> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy()),
            _ => None,
        })
        .collect();
    let Some(file) = parts.last() else {
        return FileRole::Manifest;
    };
    if file == "environments.pp" && !parts.iter().any(|p| p == "bindings") {
        return FileRole::Environments;
    }
    if file == "binder_config.yaml" {
        return FileRole::BinderConfig;
    }
    if file == "hiera.yaml" {
        let at = parts[..parts.len() - 1]
            .iter()
            .rposition(|p| p == "modules");
        return match at.filter(|&i| i + 2 < parts.len()) {
            Some(i) => FileRole::HieraConfig {
                module: Some(parts[i + 1].clone().into_owned()),
                dir: parts[i + 2..parts.len() - 1].join("/"),
            },
            None => FileRole::HieraConfig {
                module: None,
                dir: String::new(),
            },
        };
    }
    // The innermost `bindings` directory decides; `modules/<m>/bindings` prefixes the module.
    let Some(at) = parts[..parts.len() - 1]
        .iter()
        .rposition(|p| p == "bindings")
    else {
        return FileRole::Manifest;
    };
    let module = (at >= 2 && parts[at - 2] == "modules").then(|| parts[at - 1].as_ref());
    FileRole::Bindings {
        expected_name: bindings_name_of(module, parts[at + 1..].iter().map(AsRef::as_ref)).into(),
        module: module.map(SmolStr::from),
    }
}

/// Where one environment's files are (ARM-8 "environments.pp"), every path resolved: what
/// `environments.pp` said for the environment, or the defaults.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct EnvironmentLayout {
    /// The directory `environments.pp` lives in (`$confdir`).
    pub confdir: PathBuf,
    pub envdir: PathBuf,
    /// The environment's root manifest (a file, or a directory of manifests).
    pub manifest: PathBuf,
    /// The `confdir:` scheme's bindings.
    pub bindingsdir: PathBuf,
    /// Directories of modules, first one first.
    pub modulepath: Vec<PathBuf>,
}

/// An environment's path attributes as written (after evaluation), before resolution.
#[derive(Clone, Debug, Default)]
pub struct EnvironmentPaths {
    pub modulepath: Option<String>,
    pub manifestdir: Option<String>,
    pub manifest: Option<String>,
    pub bindingsdir: Option<String>,
}

impl EnvironmentLayout {
    /// ARM-8: relative paths are resolved against `envdir`, except `manifest`, which is
    /// resolved against `manifestdir` (itself resolved against `envdir`), so that naming the
    /// file is enough. `modulepath` is colon separated and may mix absolute and relative
    /// entries. Defaults: `<envdir>/modules`, `manifests/`, `<manifestdir>/site.pp`,
    /// `<envdir>/bindings`.
    pub fn resolve(confdir: &Path, envdir: &Path, paths: &EnvironmentPaths) -> EnvironmentLayout {
        let manifestdir = joined(envdir, paths.manifestdir.as_deref().unwrap_or("manifests"));
        let manifest = joined(&manifestdir, paths.manifest.as_deref().unwrap_or("site.pp"));
        let modulepath = match &paths.modulepath {
            Some(list) => list
                .split(':')
                .filter(|p| !p.is_empty())
                .map(|p| joined(envdir, p))
                .collect(),
            None => vec![envdir.join("modules")],
        };
        EnvironmentLayout {
            confdir: confdir.to_path_buf(),
            envdir: envdir.to_path_buf(),
            manifest,
            bindingsdir: joined(envdir, paths.bindingsdir.as_deref().unwrap_or("bindings")),
            modulepath,
        }
    }

    /// The layout when there is no `environments.pp`: `production` in `$confdir`.
    pub fn default_for(confdir: &Path) -> EnvironmentLayout {
        EnvironmentLayout::resolve(confdir, confdir, &EnvironmentPaths::default())
    }

    /// The environment's files, each with the role its place in the layout gives it:
    /// `environments.pp`, the root manifest (every `.pp` below it when it is a directory), the
    /// bindings under `bindingsdir`, and `<module>/bindings/` of every module on the
    /// modulepath (the first module of a name wins, as on Puppet's modulepath). Directories
    /// that do not exist contribute nothing. Sorted by display name, as [`discover`] sorts.
    /// Shared: the language server's load for a hover takes the kept walk's list as it is, not
    /// a copy of each of its files.
    pub fn files(&self, options: &Options) -> std::io::Result<std::sync::Arc<Vec<TreeFile>>> {
        // A command that keeps nothing (the command line, each node of `lookup --nodes`)
        // walks now, without the copies a walk made again needs.
        if options.files.kept.is_none() {
            return self.files_now(options).map(std::sync::Arc::new);
        }
        let key = || walk_key(format!("layout {self:?}"), options);
        // A hover's load walks one environment's layout, which a check walks only among the
        // site's (and may lay out otherwise, for a node's facts): the language server's look
        // at the disk walks it again to compare, with nothing kept and no buffers held.
        let layout = self.clone();
        let mut alone = options.clone();
        alone.files.kept = None;
        alone.files.overlay = crate::source::Overlay::default();
        crate::source::kept_walk_again(&options.files, key, move || {
            layout.files_now(&alone).map(std::sync::Arc::new)
        })
    }

    /// [`EnvironmentLayout::files`], walked now and not kept (for a walk that keeps its own
    /// result).
    pub(crate) fn files_now(&self, options: &Options) -> std::io::Result<Vec<TreeFile>> {
        let access = &options.files;
        let cwd = std::env::current_dir().ok();
        let mut out: Vec<TreeFile> = Vec::new();
        let mut add = |path: PathBuf, role: FileRole| {
            out.push(TreeFile {
                display: display_name(&path, cwd.as_deref()).into(),
                role,
                path: path.into(),
            })
        };
        let confdir = &self.confdir;
        // A path the layout names is read wherever it is (ARM-8 names `/etc/puppet/...`); a
        // link met on the way is followed only within the tree it belongs to.
        let root_of = |p: &Path| -> PathBuf {
            if p.starts_with(confdir) {
                confdir.clone()
            } else {
                p.to_path_buf()
            }
        };
        let environments = confdir.join("environments.pp");
        if environments.is_file() && crate::source::may_follow(&environments, confdir, access) {
            add(environments, FileRole::Environments);
        }
        let manifest_root = root_of(&self.manifest);
        let manifest_readable = crate::source::may_follow(&self.manifest, &manifest_root, access);
        if manifest_readable && self.manifest.is_dir() {
            let mut found = Vec::new();
            crate::source::walk_within(&self.manifest, &manifest_root, &mut found, access)?;
            for f in found.into_iter().filter(|f| is_manifest(f)) {
                add(f, FileRole::Manifest);
            }
        } else if manifest_readable && self.manifest.is_file() {
            add(self.manifest.clone(), FileRole::Manifest);
        }
        for f in bindings_below(&self.bindingsdir, &root_of(&self.bindingsdir), access)? {
            let expected_name = bindings_name(&self.bindingsdir, &f, None);
            add(
                f,
                FileRole::Bindings {
                    expected_name: expected_name.into(),
                    module: None,
                },
            );
        }
        let mut seen: foldhash::HashSet<String> = foldhash::HashSet::default();
        let mut modules: Vec<(String, PathBuf, PathBuf)> = Vec::new();
        for dir in &self.modulepath {
            let root = root_of(dir);
            let Ok(entries) = crate::source::list_dir(dir) else {
                continue;
            };
            let mut found: Vec<(String, PathBuf)> = entries
                .iter()
                .filter(|e| {
                    crate::source::entry_type(dir, e, &root, access).is_some_and(|t| t.is_dir())
                })
                .map(|e| (e.name.to_string_lossy().into_owned(), dir.join(&e.name)))
                .filter(|(name, _)| !name.starts_with('.'))
                .collect();
            found.sort();
            for (name, path) in found {
                if seen.insert(name.clone()) {
                    modules.push((name, path, root.clone()));
                }
            }
        }
        // Listing a module's directories is most of this walk on a large tree, and modules
        // are independent: they are walked on every core, and their files taken in order.
        let context = crate::source::walk_context();
        let walked = crate::parallel::parallel_map(modules.len(), |i| {
            let (name, path, root) = &modules[i];
            crate::source::recorded(&context, || module_files(name, path, root, access))
        });
        for (files, record) in walked {
            crate::source::adopt(record);
            for (path, role) in files? {
                add(path, role);
            }
        }
        if let Some(file) = options.hiera_config.clone() {
            add(file, FileRole::GlobalHieraConfig);
        }
        let environment_conf = self.envdir.join("environment.conf");
        if environment_conf.is_file()
            && crate::source::may_follow(&environment_conf, &root_of(&self.envdir), access)
        {
            add(environment_conf, FileRole::DataProvider { module: None });
        }
        let binder_config = self.envdir.join("binder_config.yaml");
        if let Some(file) = options.binder_config.clone() {
            add(file, FileRole::BinderConfig);
        } else if binder_config.is_file()
            && crate::source::may_follow(&binder_config, &root_of(&self.envdir), access)
        {
            add(binder_config, FileRole::BinderConfig);
        }
        let modules_dirs: Vec<&Path> = self.modulepath.iter().map(PathBuf::as_path).collect();
        for (dir, file) in hiera_configs(&self.envdir, &root_of(&self.envdir), access) {
            // A directory on the modulepath holds modules, not the site's data.
            if !modules_dirs.contains(&self.envdir.join(&dir).as_path()) {
                add(file, FileRole::HieraConfig { module: None, dir });
            }
        }
        for (module, dir) in deep_hiera_dirs_in(&out, access) {
            let mut found = Vec::new();
            match module.as_deref() {
                None => {
                    if let Some(file) =
                        hiera_config_at(&self.envdir, &dir, &root_of(&self.envdir), access)
                    {
                        found.push((file, None));
                    }
                }
                Some(asked) => {
                    for (name, path, root) in &modules {
                        if asked == "*" || asked == name {
                            if let Some(file) = hiera_config_at(path, &dir, root, access) {
                                found.push((file, Some(name.clone())));
                            }
                        }
                    }
                }
            }
            for (path, module) in found {
                out.push(TreeFile {
                    display: display_name(&path, cwd.as_deref()).into(),
                    role: FileRole::HieraConfig {
                        module,
                        dir: dir.clone(),
                    },
                    path: path.into(),
                });
            }
        }
        out.sort_by(|a, b| a.display.cmp(&b.display));
        out.dedup_by(|a, b| a.display == b.display);
        Ok(out)
    }
}

/// `path` resolved against `base` (an absolute `path` stays as it is), with `.` and `..`
/// taken away as written, so that `../shared/modules` names files as the reader knows them.
fn joined(base: &Path, path: &str) -> PathBuf {
    let mut out = PathBuf::new();
    for c in base.join(path).components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}

/// The files module `name` at `path` gives an environment: its bindings, its `hiera.yaml`
/// files and its `metadata.json`.
fn module_files(
    name: &str,
    path: &Path,
    root: &Path,
    access: &FileAccess,
) -> std::io::Result<Vec<(PathBuf, FileRole)>> {
    let mut out = Vec::new();
    // The module's directory is listed once (for its `hiera.yaml` files): what it holds is
    // read from that listing rather than asked of the system name by name.
    let Ok(entries) = crate::source::list_dir(path) else {
        return Ok(out);
    };
    let child_type = |name: &str| crate::source::listed_type(path, &entries, name, root, access);
    let bindings = path.join("bindings");
    let has_bindings = child_type("bindings").is_some_and(|t| t.is_dir());
    let bindings_files = if has_bindings {
        manifests_in(&bindings, root, access)?
    } else {
        Vec::new()
    };
    for f in bindings_files {
        let expected_name = bindings_name(&bindings, &f, Some(name));
        out.push((
            f,
            FileRole::Bindings {
                expected_name: expected_name.into(),
                module: Some(name.into()),
            },
        ));
    }
    for (dir, file) in hiera_configs_listed(path, &entries, root, access) {
        out.push((
            file,
            FileRole::HieraConfig {
                module: Some(name.to_string()),
                dir,
            },
        ));
    }
    if child_type("metadata.json").is_some_and(|t| t.is_file()) {
        out.push((
            path.join("metadata.json"),
            FileRole::DataProvider {
                module: Some(name.to_string()),
            },
        ));
    }
    Ok(out)
}

/// The `.pp` files below `dir`, none when it is not a directory (or a link out of `root`).
fn bindings_below(dir: &Path, root: &Path, access: &FileAccess) -> std::io::Result<Vec<PathBuf>> {
    if crate::source::followed_type(dir, root, access).is_some_and(|t| t.is_dir()) {
        manifests_in(dir, root, access)
    } else {
        Ok(Vec::new())
    }
}

/// The `.pp` files below `dir`, known to be a directory pbc may read.
fn manifests_in(dir: &Path, root: &Path, access: &FileAccess) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    crate::source::walk_within(dir, root, &mut found, access)?;
    found.retain(|f| is_manifest(f));
    Ok(found)
}

/// The `hiera.yaml` files of a module or of the site: at its root (`""`) and one directory
/// below (`module-hiera:/MODULE/DIR`, `confdir-hiera:/DIR`), with the directory, in name order.
fn hiera_configs(module: &Path, root: &Path, access: &FileAccess) -> Vec<(String, PathBuf)> {
    match crate::source::list_dir(module) {
        Ok(entries) => hiera_configs_listed(module, &entries, root, access),
        Err(_) => Vec::new(),
    }
}

/// [`hiera_configs`] of `module`, listed as `entries`.
fn hiera_configs_listed(
    module: &Path,
    entries: &[crate::source::Entry],
    root: &Path,
    access: &FileAccess,
) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let is_file =
        |p: &Path| crate::source::followed_type(p, root, access).is_some_and(|t| t.is_file());
    let mut below: Vec<(String, PathBuf)> = Vec::new();
    for e in entries.iter() {
        let name = e.name.to_string_lossy().into_owned();
        let path = module.join(&e.name);
        if name == "hiera.yaml" {
            if is_file(&path) {
                out.push((String::new(), path));
            }
            continue;
        }
        if name.starts_with('.')
            || !crate::source::entry_type(module, e, root, access).is_some_and(|t| t.is_dir())
        {
            continue;
        }
        let file = path.join("hiera.yaml");
        let found = match crate::source::listed_child_type(&path, "hiera.yaml", root, access) {
            Some(listed) => listed.is_some_and(|t| t.is_file()),
            None => is_file(&file),
        };
        if found {
            below.push((name, file));
        }
    }
    below.sort();
    out.extend(below);
    out
}

/// The role of a `hiera.yaml` found below the tree `root`, if the tree's data comes from it:
/// at the root or one directory below it (`confdir-hiera:/[DIR]`), or at a module's root or one
/// directory below it (`module-hiera:/MODULE[/DIR]`).
fn hiera_config_role(root: &Path, file: &Path) -> Option<FileRole> {
    let rel = file.strip_prefix(root).unwrap_or(file);
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    if parts.last().is_some_and(|f| f == "binder_config.yaml") {
        return (parts.len() == 1).then_some(FileRole::BinderConfig);
    }
    match parts.last().map(String::as_str) {
        Some("environment.conf") => {
            return (parts.len() == 1).then_some(FileRole::DataProvider { module: None })
        }
        // A module's, wherever the check starts (`pbc check modules/ntp` too).
        Some("metadata.json") => {
            let full: Vec<String> = file
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            return match full.as_slice() {
                [.., modules, module, _] if modules == "modules" => Some(FileRole::DataProvider {
                    module: Some(module.clone()),
                }),
                _ => None,
            };
        }
        _ => {}
    }
    // A module's file, wherever the check starts (`pbc check modules/ntp` too).
    if let FileRole::HieraConfig {
        module: Some(module),
        dir,
    } = role_of(file)
    {
        return (!dir.contains('/')).then_some(FileRole::HieraConfig {
            module: Some(module),
            dir,
        });
    }
    match parts.as_slice() {
        [_] => Some(FileRole::HieraConfig {
            module: None,
            dir: String::new(),
        }),
        [dir, _] if dir != "modules" => Some(FileRole::HieraConfig {
            module: None,
            dir: dir.clone(),
        }),
        [modules, module, _] if modules == "modules" => Some(FileRole::HieraConfig {
            module: Some(module.clone()),
            dir: String::new(),
        }),
        [modules, module, dir, _] if modules == "modules" => Some(FileRole::HieraConfig {
            module: Some(module.clone()),
            dir: dir.clone(),
        }),
        _ => None,
    }
}

/// The role of a `hiera.yaml` below `root` that [`hiera_config_role`] leaves, because it is
/// more than one directory below the site or a module: a [`DeepHieraDir`] it may answer to.
fn deep_hiera_config_role(root: &Path, file: &Path) -> Option<DeepHieraDir> {
    if file.file_name().is_none_or(|n| n != "hiera.yaml") {
        return None;
    }
    if let FileRole::HieraConfig {
        module: Some(module),
        dir,
    } = role_of(file)
    {
        return dir.contains('/').then_some((Some(module), dir));
    }
    let rel = file.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.as_slice() {
        [first, .., _] if parts.len() >= 3 && first != "modules" => {
            Some((None, parts[..parts.len() - 1].join("/")))
        }
        _ => None,
    }
}

fn is_manifest(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "pp")
}

/// `a/b.pp` below a bindings directory holds `bindings a::b` (`m::a::b` in module `m`).
fn bindings_name(dir: &Path, file: &Path, module: Option<&str>) -> String {
    let rel = crate::source::below(file, dir).unwrap_or(file);
    let parts: Vec<std::borrow::Cow<str>> = rel
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy()),
            _ => None,
        })
        .collect();
    bindings_name_of(module, parts.iter().map(|p| p.as_ref()))
}

/// The module (if any) and the path below the bindings directory, `.pp` dropped, joined by `::`.
fn bindings_name_of<'p>(module: Option<&str>, below: impl Iterator<Item = &'p str>) -> String {
    let below = below.map(|p| p.strip_suffix(".pp").unwrap_or(p));
    module
        .into_iter()
        .chain(below)
        .collect::<Vec<_>>()
        .join("::")
}

/// A `hiera.yaml` directory more than one level below the site (`None`) or a module (`Some`,
/// `"*"` for every module) that a layer URI names: discovery reads the root and one level
/// below of its own accord, and a deeper directory only where a URI asks for it, as Puppet
/// 3.4's hiera scheme resolves the URI it is given (ARM-9: "the path following the module name
/// is relative to the module root"). Walking every module to any depth would read test
/// fixtures (`spec/fixtures/hiera/hiera.yaml`) as data.
type DeepHieraDir = (Option<String>, String);

/// The [`DeepHieraDir`]s the `confdir-hiera:` and `module-hiera:` URIs in `text` name. The text
/// is a `binder_config.yaml` or a manifest that may hold a `site { }`; a URI in a comment only
/// makes discovery look for a file, which the layers then read or leave.
fn deep_hiera_dirs_named(text: &str, out: &mut Vec<DeepHieraDir>) {
    for scheme in ["confdir-hiera:", "module-hiera:"] {
        let mut rest = text;
        while let Some(at) = rest.find(scheme) {
            rest = &rest[at + scheme.len()..];
            let end = rest
                .find(|c: char| {
                    c.is_whitespace() || matches!(c, '\'' | '"' | ',' | ']' | '}' | ')' | '?' | '#')
                })
                .unwrap_or(rest.len());
            let path = rest[..end].trim_start_matches('/').trim_end_matches('/');
            let segments: Vec<&str> = path.split('/').collect();
            let plain = |s: &&str| !s.is_empty() && *s != "." && *s != ".." && !s.contains('*');
            let (module, dir) = if scheme == "confdir-hiera:" {
                (None, &segments[..])
            } else {
                match segments.split_first() {
                    Some((m, dir)) if *m == "*" || plain(m) => (Some(m.to_string()), dir),
                    _ => continue,
                }
            };
            if dir.len() >= 2 && dir.iter().all(plain) {
                out.push((module, dir.join("/")));
            }
        }
    }
}

/// The files that may name a [`DeepHieraDir`]: where layers are declared.
fn may_declare_layers(role: &FileRole) -> bool {
    matches!(
        role,
        FileRole::BinderConfig | FileRole::Environments | FileRole::Manifest
    )
}

/// The deep directories the layer-declaring `files` name, sorted, each once. A file that
/// cannot be read names none here; reading it for the tree reports why.
fn deep_hiera_dirs_in(files: &[TreeFile], access: &FileAccess) -> Vec<DeepHieraDir> {
    let mut named = Vec::new();
    for f in files.iter().filter(|f| may_declare_layers(&f.role)) {
        if let Ok(bytes) = crate::source::read_file(&f.path, "manifest", access) {
            if may_name_deep_hiera_dirs(&bytes) {
                deep_hiera_dirs_named(&String::from_utf8_lossy(&bytes), &mut named);
            }
        }
    }
    named.sort();
    named.dedup();
    named
}

/// Whether a file's text may name deep Hiera directories, which decides what a walk of the
/// tree finds: the one thing a file's content decides of a walk's result (the language server
/// keeps the walks across a file saved unless its old or new text may).
pub fn may_name_deep_hiera_dirs(text: &[u8]) -> bool {
    text.windows(7).any(|w| w == b"-hiera:")
}

/// `base/dir/hiera.yaml` when every directory on the way is one pbc may enter from `root` and
/// the file is there.
fn hiera_config_at(base: &Path, dir: &str, root: &Path, access: &FileAccess) -> Option<PathBuf> {
    let mut at = base.to_path_buf();
    for segment in dir.split('/') {
        at.push(segment);
        if !crate::source::followed_type(&at, root, access).is_some_and(|t| t.is_dir()) {
            return None;
        }
    }
    at.push("hiera.yaml");
    crate::source::followed_type(&at, root, access)
        .is_some_and(|t| t.is_file())
        .then_some(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A role is held per file by the language server's kept walks and its parse memo: a
    /// data file's three names stay in their box, out of every other role.
    #[test]
    fn a_role_stays_small() {
        assert!(std::mem::size_of::<FileRole>() <= 56);
    }

    fn name(p: &str) -> Option<String> {
        match role_of(Path::new(p)) {
            FileRole::Bindings { expected_name, .. } => Some(expected_name.to_string()),
            _ => None,
        }
    }

    #[test]
    fn deep_hiera_directories_are_those_uris_name() {
        let mut named = Vec::new();
        deep_hiera_dirs_named(
            "include => ['module-hiera:/deep/data/for_x?optional', 'module-hiera:/*/a/b/',\n\
             'confdir-hiera:/teams/web', 'module-hiera:/ntp/for_x', 'confdir-hiera:/',\n\
             'module-hiera:/bad/*', 'module-hiera:/up/../../x', 'module-hiera:/m/a/*/b']",
            &mut named,
        );
        named.sort();
        assert_eq!(
            named,
            vec![
                (None, "teams/web".to_string()),
                (Some("*".to_string()), "a/b".to_string()),
                (Some("deep".to_string()), "data/for_x".to_string()),
            ]
        );
    }

    #[test]
    fn roles_follow_the_layout() {
        assert_eq!(name("bindings/default.pp").as_deref(), Some("default"));
        assert_eq!(name("bindings/a/b.pp").as_deref(), Some("a::b"));
        assert_eq!(
            name("/etc/puppet/modules/ntp/bindings/x.pp").as_deref(),
            Some("ntp::x")
        );
        assert_eq!(name("modules/ntp/manifests/init.pp"), None);
        assert_eq!(
            role_of(Path::new("modules/ntp/bindings/x.pp")),
            FileRole::Bindings {
                expected_name: "ntp::x".into(),
                module: Some("ntp".into())
            }
        );
        assert_eq!(
            role_of(Path::new("environments.pp")),
            FileRole::Environments
        );
        assert_eq!(role_of(Path::new("manifests/site.pp")), FileRole::Manifest);
        // A module's hiera.yaml below its root: the module and the directory it is in.
        assert_eq!(
            role_of(Path::new("site/modules/ntp/data/deep/hiera.yaml")),
            FileRole::HieraConfig {
                module: Some("ntp".into()),
                dir: "data/deep".into()
            }
        );
        assert_eq!(
            role_of(Path::new("hiera.yaml")),
            FileRole::HieraConfig {
                module: None,
                dir: String::new()
            }
        );
    }

    #[test]
    fn environment_paths_resolve_as_arm8_says() {
        let confdir = Path::new("/etc/puppet");
        let envdir = Path::new("/etc/puppet/master");
        let defaults = EnvironmentLayout::resolve(confdir, envdir, &EnvironmentPaths::default());
        assert_eq!(
            defaults.manifest,
            Path::new("/etc/puppet/master/manifests/site.pp")
        );
        assert_eq!(
            defaults.bindingsdir,
            Path::new("/etc/puppet/master/bindings")
        );
        assert_eq!(
            defaults.modulepath,
            [Path::new("/etc/puppet/master/modules")]
        );

        let written = EnvironmentPaths {
            modulepath: Some("modules/site:../shared/modules::/opt/puppet/modules".into()),
            manifestdir: Some("code".into()),
            manifest: Some("staging.pp".into()),
            bindingsdir: Some("./data/bindings".into()),
        };
        let layout = EnvironmentLayout::resolve(confdir, envdir, &written);
        // A relative manifest is resolved against manifestdir, itself against envdir.
        assert_eq!(
            layout.manifest,
            Path::new("/etc/puppet/master/code/staging.pp")
        );
        assert_eq!(
            layout.bindingsdir,
            Path::new("/etc/puppet/master/data/bindings")
        );
        // Relative and absolute entries mix; empty ones are skipped; `..` is resolved.
        assert_eq!(
            layout.modulepath,
            [
                Path::new("/etc/puppet/master/modules/site"),
                Path::new("/etc/puppet/shared/modules"),
                Path::new("/opt/puppet/modules"),
            ]
        );
        let absolute = EnvironmentPaths {
            manifest: Some("/srv/site.pp".into()),
            ..EnvironmentPaths::default()
        };
        assert_eq!(
            EnvironmentLayout::resolve(confdir, envdir, &absolute).manifest,
            Path::new("/srv/site.pp")
        );
    }
}
