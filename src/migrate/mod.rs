//! `pbc migrate hiera`: the bindings a Hiera 5 environment stands for. The environment level's
//! hierarchy becomes the site's categories, from its first entry down to the first one that
//! cannot be one (a `glob`, `mapped_paths`, an unsupported function, a plain path before the
//! end): each interpolated path is a category whose value is the path's varying part (the
//! request's `os/%{facts.os.family}.yaml` gives `Debian`), a plain path at the very end is
//! `common`. Each data file those paths name becomes a `when <category> '<value>'` block of
//! `bind`s (the plain path's, top-level `bind`s), its values turned into Puppet (Hiera's
//! interpolation into `${...}`, `dig` and `lookup` with a default of `''`, as Hiera gives).
//! Hiera's first-found order is the categories' precedence, so the answers stay the same.
//! What cannot map stays Hiera data: the entries after the first that cannot, and every key
//! whose `lookup_options` merge other than `first` or `convert_to` (the data files keep those
//! keys only).
//!
//! This module only plans the new files from a loaded tree and writes them; it must not
//! evaluate anything (the caller verifies the answers with the injector).

pub mod run;

use crate::data::interpolation::{self, Dig, Part};
use crate::lower::model::hiera::{HieraLevel, HieraLocations, HieraPlace};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// What migrating a tree gives: files to write (relative path, content), data files to
/// rewrite or remove, and what was done, line by line.
pub struct Plan {
    pub write: Vec<(String, String)>,
    /// Data files (relative to the tree) keeping only these keys; `None`: removed.
    pub rewrite: Vec<(String, Option<Vec<String>>)>,
    pub report: Vec<String>,
}

/// One category made of a hierarchy path.
struct Category {
    name: String,
    /// The Puppet string of the path's varying part.
    value: String,
    /// The path's fixed text before and after it, and the data directory.
    prefix: String,
    suffix: String,
}

/// The plan for the tree whose Hiera levels are `levels` (the environment level is the one
/// `confdir-hiera:/hiera.yaml` places). `Err`: why the tree cannot be migrated.
pub fn plan(levels: &[HieraLevel], has_site: bool) -> Result<Plan, String> {
    if has_site {
        return Err(
            "this tree already declares a site (or binder_config.yaml): migrate a plain Hiera 5 environment".into(),
        );
    }
    let Some(env) = levels
        .iter()
        .find(|l| l.place == HieraPlace::Environment && l.bindings == "confdir-hiera:/hiera.yaml")
    else {
        return Err("this tree has no version 5 hiera.yaml at its root: nothing to migrate".into());
    };
    let mut report = Vec::new();
    // The locations in search order, each with its entry.
    let mut locations: Vec<(&str, &str)> = Vec::new();
    let mut stop: Option<String> = None;
    for entry in &env.hierarchy {
        if entry.encrypted {
            stop = Some(format!(
                "entry \"{}\": hiera-eyaml data stays Hiera data (its values are encrypted)",
                entry.name
            ));
            break;
        }
        match &entry.locations {
            HieraLocations::Paths { paths } => {
                locations.extend(paths.iter().map(|p| (entry.datadir.as_str(), p.as_str())));
            }
            HieraLocations::Globs { .. } => {
                stop = Some(format!(
                    "entry \"{}\": a glob cannot be a category",
                    entry.name
                ));
                break;
            }
            HieraLocations::MappedPaths { .. } => {
                stop = Some(format!(
                    "entry \"{}\": mapped_paths cannot be a category",
                    entry.name
                ));
                break;
            }
            HieraLocations::Unsupported { why } => {
                stop = Some(format!("entry \"{}\": {why}", entry.name));
                break;
            }
        }
    }
    // Categories from the first location down; a plain path maps only as the last one.
    let total = locations.len();
    let mut categories: Vec<Option<Category>> = Vec::new();
    let mut names: BTreeSet<String> = BTreeSet::new();
    let mut mapped = 0;
    for (i, (datadir, path)) in locations.iter().enumerate() {
        let Ok(parts) = interpolation::parse(path, false) else {
            stop = Some(format!("path `{path}`: it does not interpolate"));
            break;
        };
        let has_scope = parts.iter().any(|p| matches!(p, Part::Scope(..)));
        if !has_scope {
            if i + 1 == total && stop.is_none() {
                categories.push(None);
                mapped += 1;
            } else {
                stop = Some(format!(
                    "path `{path}`: a plain path is `common` only at the end of the hierarchy"
                ));
            }
            break;
        }
        // The fixed text around the varying part.
        let first = parts
            .iter()
            .position(|p| matches!(p, Part::Scope(..)))
            .unwrap_or(0);
        let last = parts
            .iter()
            .rposition(|p| matches!(p, Part::Scope(..)))
            .unwrap_or(0);
        let text = |p: &Part| match p {
            Part::Text(t) => t.clone(),
            _ => String::new(),
        };
        let prefix: String = parts[..first].iter().map(text).collect();
        let suffix: String = parts[last + 1..].iter().map(text).collect();
        let mut value = String::from("\"");
        for p in &parts[first..=last] {
            match p {
                Part::Text(t) => value.push_str(&escape_double(t)),
                Part::Scope(root, digs) => {
                    let _ = write!(value, "${{{}}}", scope_expr(root, digs));
                }
                Part::Lookup(_) | Part::Alias(_) => {}
            }
        }
        value.push('"');
        let name = category_name(&parts[first..=last], &mut names);
        categories.push(Some(Category {
            name,
            value,
            prefix: prefix_path(datadir, &prefix),
            suffix,
        }));
        mapped += 1;
    }
    if mapped < total && stop.is_none() {
        stop = Some("the rest of the hierarchy".into());
    }
    if mapped == 0 {
        return Err(format!(
            "nothing in the hierarchy maps to a category ({})",
            stop.unwrap_or_default()
        ));
    }
    // Keys Hiera merges or converts stay Hiera data (from every level's lookup_options that can
    // name them).
    let merged = merged_keys(levels);
    // Per mapped location, its files: value → file.
    let mut blocks: Vec<String> = Vec::new();
    let mut top: Vec<String> = Vec::new();
    let mut keep: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut touched: BTreeSet<String> = BTreeSet::new();
    let mut moved = 0usize;
    for (c, category) in categories.iter().enumerate() {
        let (datadir, path) = locations[c];
        for file in &env.files {
            let value = match category {
                None => {
                    if file.path != crate::inject::hiera::data_path(datadir, path) {
                        continue;
                    }
                    None
                }
                Some(cat) => {
                    let Some(v) = file
                        .path
                        .strip_prefix(cat.prefix.as_str())
                        .and_then(|r| r.strip_suffix(cat.suffix.as_str()))
                    else {
                        continue;
                    };
                    if v.is_empty() {
                        continue;
                    }
                    Some(v.to_string())
                }
            };
            touched.insert(file.file.clone());
            let mut binds = Vec::new();
            for datum in &file.keys {
                // A key with a dot is one Hiera digs into (`a.b` is `b` of `a`): Puppet never
                // finds it as written, so it stays where it is.
                if datum.key == "lookup_options"
                    || datum.key.contains(['.', '"', '\''])
                    || merged.iter().any(|m| m.applies(&datum.key))
                {
                    keep.entry(file.file.clone())
                        .or_default()
                        .push(datum.key.clone());
                    continue;
                }
                binds.push(format!(
                    "bind '{}' to {}",
                    escape_single(&datum.key),
                    puppet_value(&datum.value)
                ));
                moved += 1;
            }
            if binds.is_empty() {
                continue;
            }
            match (category, value) {
                (Some(cat), Some(v)) => {
                    let mut block = format!(
                        "  # {}\n  when {} '{}' {{\n",
                        file.file,
                        cat.name,
                        escape_single(&v)
                    );
                    for b in binds {
                        let _ = writeln!(block, "    {b}");
                    }
                    block.push_str("  }\n");
                    blocks.push(block);
                }
                _ => {
                    top.push(format!("  # {}\n", file.file));
                    top.extend(binds.into_iter().map(|b| format!("  {b}\n")));
                }
            }
        }
    }
    let mut site = String::from(
        "# Written by `pbc migrate hiera`: the environment's Hiera hierarchy as categories.\nsite {\n  categories {\n",
    );
    for cat in categories.iter().flatten() {
        let _ = writeln!(site, "    {} => {},", cat.name, cat.value);
    }
    site.push_str("  }\n}\n");
    let mut bindings = String::from(
        "# Written by `pbc migrate hiera`: the data of the environment's hierarchy, each file a\n# `when` of its category (the last path, `common`, at the top level).\nbindings default {\n",
    );
    for b in &blocks {
        bindings.push_str(b);
    }
    for t in &top {
        bindings.push_str(t);
    }
    bindings.push_str("}\n");
    let rewrite = touched
        .into_iter()
        .map(|f| {
            let kept = keep.remove(&f);
            (f, kept)
        })
        .collect();
    report.push(format!(
        "categories: {}",
        categories
            .iter()
            .map(|c| c.as_ref().map_or("common".to_string(), |c| c.name.clone()))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    report.push(format!("{moved} values moved into bindings"));
    if let Some(why) = stop {
        report.push(format!("kept as Hiera data from here: {why}"));
    }
    if !merged.is_empty() {
        let names: Vec<&str> = merged.iter().map(|m| m.text.as_str()).collect();
        report.push(format!(
            "kept as Hiera data: keys whose lookup_options merge or convert ({})",
            shortened(&names)
        ));
    }
    report.push("category values compare ignoring case (file names compared with case)".into());
    Ok(Plan {
        write: vec![
            ("manifests/site.pp".into(), site),
            ("bindings/default.pp".into(), bindings),
        ],
        rewrite,
        report,
    })
}

/// A list for the report, cut after a dozen: the report is read, and the data files show every
/// key kept.
fn shortened(names: &[&str]) -> String {
    const SHOWN: usize = 12;
    let mut out = names[..names.len().min(SHOWN)].join(", ");
    if names.len() > SHOWN {
        out.push_str(&format!(", and {} more", names.len() - SHOWN));
    }
    out
}

/// A `lookup_options` key or pattern whose merge is not `first`, or that converts.
struct MergedKey {
    text: String,
    pattern: Option<regex::Regex>,
}

impl MergedKey {
    fn applies(&self, key: &str) -> bool {
        match &self.pattern {
            Some(re) => re.is_match(key),
            None => self.text == key,
        }
    }
}

/// The keys or patterns any level's `lookup_options` merges or converts (a conservative union:
/// a key some request could merge stays Hiera data).
fn merged_keys(levels: &[HieraLevel]) -> Vec<MergedKey> {
    let mut out: Vec<MergedKey> = Vec::new();
    for level in levels {
        for file in &level.files {
            for datum in file.keys.iter().filter(|d| d.key == "lookup_options") {
                let Some(map) = datum.value.as_object() else {
                    continue;
                };
                for (k, options) in map {
                    let merge = options.get("merge");
                    let first = match merge {
                        None | Some(serde_json::Value::Null) => true,
                        Some(serde_json::Value::String(s)) => s == "first" || s == "default",
                        Some(other) => other
                            .get("strategy")
                            .and_then(|s| s.as_str())
                            .is_some_and(|s| s == "first" || s == "default"),
                    };
                    let converts = !matches!(
                        options.get("convert_to"),
                        None | Some(serde_json::Value::Null)
                    );
                    if (first && !converts) || out.iter().any(|m| m.text == *k) {
                        continue;
                    }
                    let pattern = if k.starts_with('^') {
                        regex::Regex::new(k).ok()
                    } else {
                        None
                    };
                    out.push(MergedKey {
                        text: k.clone(),
                        pattern,
                    });
                }
            }
        }
    }
    out
}

/// The data directory and a path's fixed beginning, as the files' paths start
/// (`data/os/` for `os/%{...}`, `data/os-` for `os-%{...}`).
fn prefix_path(datadir: &str, prefix: &str) -> String {
    let joined = crate::inject::hiera::data_path(datadir, prefix);
    if prefix.is_empty() || prefix.ends_with('/') {
        format!("{joined}/")
    } else {
        joined
    }
}

/// A category's name from the variables of its path (`os_family` for `%{facts.os.family}`,
/// `node` for the certname), unique.
fn category_name(parts: &[Part], taken: &mut BTreeSet<String>) -> String {
    let mut words: Vec<String> = Vec::new();
    for p in parts {
        if let Part::Scope(root, digs) = p {
            let root = root.trim_start_matches("::");
            let mut path: Vec<String> = Vec::new();
            if root != "facts" && root != "trusted" {
                path.push(root.to_string());
            }
            path.extend(digs.iter().map(|d| match d {
                Dig::Key(k) => k.clone(),
                Dig::Index(i) => i.to_string(),
            }));
            words.push(path.join("_"));
        }
    }
    let mut name: String = words
        .join("_")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    if name == "certname" || name == "clientcert" || name == "fqdn" {
        name = "node".into();
    }
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name = format!("level_{name}");
    }
    if matches!(name.as_str(), "common" | "environment") {
        name.push_str("_data");
    }
    let mut unique = name.clone();
    let mut n = 2;
    while !taken.insert(unique.clone()) {
        unique = format!("{name}_{n}");
        n += 1;
    }
    unique
}

/// `%{facts.os.family}` as a Puppet expression: `dig($facts, 'os', 'family')`, or the
/// top-scope variable for `%{::x}` and `%{x}`.
fn scope_expr(root: &str, digs: &[Dig]) -> String {
    let root = root.trim_start_matches("::");
    let var = if matches!(root, "facts" | "trusted" | "server_facts") {
        format!("${root}")
    } else {
        format!("$::{root}")
    };
    if digs.is_empty() {
        return var;
    }
    let mut out = format!("dig({var}");
    for d in digs {
        match d {
            Dig::Key(k) => {
                let _ = write!(out, ", '{}'", escape_single(k));
            }
            Dig::Index(i) => {
                let _ = write!(out, ", {i}");
            }
        }
    }
    out.push(')');
    out
}

/// A Hiera value as a Puppet expression. Nesting is bounded by the YAML reader.
fn puppet_value(v: &serde_json::Value) -> String {
    use serde_json::Value as J;
    match v {
        J::Null => "undef".into(),
        J::Bool(b) => b.to_string(),
        J::Number(n) => {
            let text = n.to_string();
            if n.is_f64() && !text.contains(['.', 'e', 'E']) {
                format!("{text}.0")
            } else {
                text
            }
        }
        J::String(s) => puppet_string(s),
        J::Array(items) => format!(
            "[{}]",
            items
                .iter()
                .map(puppet_value)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        J::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("{} => {}", puppet_string(k), puppet_value(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A Hiera string as a Puppet string: plain text single-quoted; interpolations as `${...}`
/// (a value nothing gives is `''`, as in Hiera); `alias()` as the lookup itself.
fn puppet_string(s: &str) -> String {
    if !s.contains("%{") {
        return format!("'{}'", escape_single(s));
    }
    let Ok(parts) = interpolation::parse(s, true) else {
        return format!("'{}'", escape_single(s));
    };
    if let [Part::Alias(k)] = parts.as_slice() {
        return format!("lookup('{}', Data, '')", escape_single(k));
    }
    let mut out = String::from("\"");
    for p in parts {
        match p {
            Part::Text(t) => out.push_str(&escape_double(&t)),
            Part::Scope(root, digs) => {
                let _ = write!(out, "${{{}}}", scope_expr(&root, &digs));
            }
            Part::Lookup(k) | Part::Alias(k) => {
                let _ = write!(out, "${{lookup('{}', Data, '')}}", escape_single(&k));
            }
        }
    }
    out.push('"');
    out
}

fn escape_single(s: &str) -> String {
    s.replace('\\', "\\\\").replace('\'', "\\'")
}

fn escape_double(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '$' => out.push_str("\\$"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lists_are_cut_in_the_report() {
        assert_eq!(shortened(&["a", "b"]), "a, b");
        let many: Vec<String> = (0..15).map(|i| format!("k{i}")).collect();
        let names: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(
            shortened(&names),
            "k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10, k11, and 3 more"
        );
    }

    #[test]
    fn values_become_puppet() {
        let j = |t: &str| serde_json::from_str::<serde_json::Value>(t).expect("JSON");
        assert_eq!(puppet_value(&j(r#""it's""#)), r"'it\'s'");
        assert_eq!(
            puppet_value(&j(r#""on %{facts.os.family}, $5""#)),
            r#""on ${dig($facts, 'os', 'family')}, \$5""#
        );
        assert_eq!(
            puppet_value(&j(r#""%{alias('a::b')}""#)),
            "lookup('a::b', Data, '')"
        );
        assert_eq!(
            puppet_value(&j(r#"{"k": [1, 2.0, null, true]}"#)),
            "{'k' => [1, 2.0, undef, true]}"
        );
        assert_eq!(
            puppet_value(&j(r#""%{::hostname}""#)),
            r#""${$::hostname}""#
        );
    }
}
