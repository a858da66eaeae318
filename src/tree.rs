//! A configuration tree on disk: which `.pp` files `pbc check` (and later `pbc compile`) reads, and
//! the role each file plays in it, decided from its path the way Puppet lays a tree out:
//! `environments.pp`, `bindings/a/b.pp` (holds `bindings a::b`), `modules/m/bindings/x.pp` (holds
//! `bindings m::x`), and every other manifest (`manifests/site.pp`, module manifests).
//!
//! It owns file discovery and naming only. It must not parse or judge the files' contents.

use std::path::{Component, Path, PathBuf};

/// What a file is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileRole {
    /// `environments.pp`: the site's environments, evaluated before any injector exists.
    Environments,
    /// A file under a `bindings/` directory. `expected_name` is the `bindings` name its path
    /// implies (`bindings/a/b.pp` → `a::b`, `modules/m/bindings/x.pp` → `m::x`); `module` is
    /// `m` for a module's bindings and `None` for the site's (the `confdir:` scheme's).
    Bindings {
        expected_name: String,
        module: Option<String>,
    },
    /// Any other manifest (`site.pp`, module manifests ...).
    Manifest,
}

/// One file of the tree.
#[derive(Clone, Debug)]
pub struct TreeFile {
    pub path: PathBuf,
    /// The name diagnostics use: the path relative to the current directory where possible.
    pub display: String,
    pub role: FileRole,
}

/// Expands `paths` into the tree's files: a directory contributes every `.pp` below it (hidden
/// directories skipped), a file stands for itself. Roles come from the path as written (so
/// `pbc check env/bindings` still knows its files are bindings). The result is sorted by display
/// name and de-duplicated, so nothing depends on argument order.
pub fn discover(paths: &[PathBuf]) -> std::io::Result<Vec<TreeFile>> {
    let cwd = std::env::current_dir().ok();
    let mut out: Vec<TreeFile> = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p)?;
        if meta.is_dir() {
            let mut found = Vec::new();
            crate::source::walk(p, &mut found)?;
            for f in found {
                out.push(TreeFile {
                    display: display_name(&f, cwd.as_deref()),
                    role: role_of(&f),
                    path: f,
                });
            }
        } else {
            out.push(TreeFile {
                display: display_name(p, cwd.as_deref()),
                role: role_of(p),
                path: p.clone(),
            });
        }
    }
    out.sort_by(|a, b| a.display.cmp(&b.display));
    out.dedup_by(|a, b| a.display == b.display);
    Ok(out)
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
    let parts: Vec<String> = path
        .components()
        .filter_map(|c| match c {
            Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    let Some(file) = parts.last() else {
        return FileRole::Manifest;
    };
    if file == "environments.pp" && !parts.iter().any(|p| p == "bindings") {
        return FileRole::Environments;
    }
    // The innermost `bindings` directory decides; `modules/<m>/bindings` prefixes the module.
    let Some(at) = parts[..parts.len() - 1]
        .iter()
        .rposition(|p| p == "bindings")
    else {
        return FileRole::Manifest;
    };
    let module = (at >= 2 && parts[at - 2] == "modules").then(|| parts[at - 1].clone());
    let mut segments: Vec<String> = module.iter().cloned().collect();
    for p in &parts[at + 1..] {
        segments.push(p.strip_suffix(".pp").unwrap_or(p).to_string());
    }
    FileRole::Bindings {
        expected_name: segments.join("::"),
        module,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(p: &str) -> Option<String> {
        match role_of(Path::new(p)) {
            FileRole::Bindings { expected_name, .. } => Some(expected_name),
            _ => None,
        }
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
    }
}
