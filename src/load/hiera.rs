//! The Hiera side of loading a tree: each `hiera.yaml` (versions 2, 3 and 5, and
//! `--hiera-config`'s global level in version 5 or Hiera 3's format) read and checked against
//! the site's categories, every data file its hierarchies can name read once and checked, and
//! what they give the tree: the bindings blocks of ARM-9 data and the Hiera 5 levels of the
//! model. The formats are [`crate::data`]'s; this decides which files are read, from where, and
//! collects what they give for [`super::analyse`].

use super::{fact_of_text, trimmed};
use crate::source;
use crate::{ast, diag, span, tree};

/// The site's categories as a hierarchy needs them: the names, highest first, and the fact
/// each one reads, where it reads one.
pub(super) struct SiteCategories<'a> {
    pub(super) names: &'a [String],
    pub(super) facts: &'a [(String, String)],
}

/// What the tree's `hiera.yaml` files give: their diagnostics and their data files', and for
/// each data file without errors the bindings block it makes.
#[derive(Default)]
pub(super) struct HieraData {
    pub(super) diagnostics: Vec<diag::Diagnostic>,
    /// Data files read (for the count of files checked).
    pub(super) read: usize,
    /// (data file, the `hiera.yaml` it belongs to, its path relative to that file's
    /// directory, its role and program).
    pub(super) programs: Vec<(
        span::FileId,
        span::FileId,
        String,
        tree::FileRole,
        ast::Program,
    )>,
    /// The Hiera 5 levels read, with their `hiera.yaml` and the ids of their data files (in
    /// the order of the level's `files`), whose names the model takes from the tree's root.
    pub(super) hiera: Vec<HieraLevelRead>,
    /// The errors of ARM-9 data files that cannot be read, by the module and directory of
    /// their `hiera.yaml`: held until the site's layers say whether any layer reads that data
    /// (ARM-9: excluded data "may have syntax errors").
    pub(super) unreadable: Vec<(Option<String>, String, Vec<diag::Diagnostic>)>,
}

pub(super) type HieraLevelRead = (
    crate::lower::model::hiera::HieraLevel,
    span::FileId,
    Vec<span::FileId>,
);

/// A `hiera.yaml`'s own rules, and the rule that ties it to the site: the categories of its
/// hierarchy must be declared, in the site's order (Puppet 3.4's `MISSING_CATEGORY_PRECEDENCE`
/// and `PRECEDENCE_MISMATCH_IN_CONTRIBUTION`; reported across files). Then its data files.
pub(super) fn read_hiera_config(
    files: &mut span::SourceMap,
    id: span::FileId,
    module: Option<&str>,
    dir: &str,
    site: &SiteCategories,
    into: &mut HieraData,
    access: &source::FileAccess,
) {
    use crate::data::hiera;
    let categories = site.names;
    let known = hiera::Known { categories };
    let (read, found) = hiera::read(id, files.source(id), &known, module.is_some());
    into.diagnostics.extend(found);
    let config = match read {
        hiera::Read::Config(config) => config,
        hiera::Read::Hiera5(config) => {
            return read_hiera5_level(files, id, module, dir, &config, into, access)
        }
        _ => return,
    };
    let mut previous: Option<(usize, &hiera::HierarchyEntry)> = None;
    for entry in &config.hierarchy {
        let Some(rank) = categories.iter().position(|c| *c == entry.category) else {
            let mut d = diag::Diagnostic::error(
                diag::codes::MISSING_CATEGORY_PRECEDENCE,
                entry.span,
                format!(
                    "the hierarchy names the category `{}`, which the site does not declare",
                    entry.category
                ),
            )
            .with_note(format!(
                "note: the categories are {}",
                categories
                    .iter()
                    .map(|c| format!("`{c}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            let names: Vec<&str> = categories.iter().map(String::as_str).collect();
            if let Some(s) = diag::did_you_mean(&entry.category, &names) {
                d = d.did_you_mean(&entry.category, s);
            }
            into.diagnostics.push(d.across_files());
            continue;
        };
        if let Some((before, previous_entry)) = previous {
            if rank <= before {
                into.diagnostics.push(
                    diag::Diagnostic::error(
                        diag::codes::PRECEDENCE_MISMATCH_IN_CONTRIBUTION,
                        entry.span,
                        format!(
                            "`{}` comes after `{}` here, but the site ranks it {}",
                            entry.category,
                            previous_entry.category,
                            if rank == before { "the same" } else { "higher" }
                        ),
                    )
                    .with_label(previous_entry.span, "the entry it follows")
                    .with_note("help: list the hierarchy in the site's order of categories, most specific first")
                    .across_files(),
                );
            }
        }
        previous = Some((rank, entry));
        // A value other than the category's own: a file applies only where both agree (its
        // path, made with the entry's value, names it, and the site's category has the value
        // its name gives), which is rarely what was meant.
        let site_fact = site.facts.iter().find(|(c, _)| *c == entry.category);
        let written = Some(&entry.value).filter(|_| entry.value_written);
        if let (Some((_, site_fact)), Some(fact)) =
            (site_fact, written.and_then(|v| fact_of_text(v)))
        {
            if *site_fact != fact {
                into.diagnostics.push(
                    diag::Diagnostic::warning(
                        diag::codes::CATEGORY_VALUE_DIFFERS,
                        entry.span,
                        format!(
                            "this entry takes `{}` from `{}`, but the site's `{}` is the fact `{site_fact}`",
                            entry.category, entry.value, entry.category
                        ),
                    )
                    .with_note(format!(
                        "note: a data file applies where its path, made with `{}`, names it and the site's `{}` has the value its name gives: both must agree",
                        entry.value, entry.category
                    ))
                    .across_files(),
                );
            }
        }
    }
    // The data of a category the site does not have could never apply: not bound.
    let mut config = config;
    config
        .hierarchy
        .retain(|e| categories.contains(&e.category));
    // A value the entry does not write is the category's own (`- node` under a site whose
    // `node` is `$::fqdn` reads `node/${::fqdn}`), where the site's category reads a fact.
    for entry in config.hierarchy.iter_mut().filter(|e| !e.value_written) {
        if let Some((_, fact)) = site.facts.iter().find(|(c, _)| *c == entry.category) {
            let own = format!("${{{fact}}}");
            for path in &mut entry.paths {
                *path = path.replace(&entry.value, &own);
            }
            entry.value = own;
        }
    }
    read_data_files(files, id, module, dir, &config, into, access);
}

/// The directory of the `hiera.yaml` `config_id`: where its data paths start.
pub(super) fn config_dir(files: &span::SourceMap, config_id: span::FileId) -> std::path::PathBuf {
    std::path::Path::new(files.name(config_id))
        .parent()
        .map(std::path::Path::to_path_buf)
        .unwrap_or_default()
}

/// Reads a data file a hierarchy names into `files`, once (`seen`) and only where links may be
/// followed from the `hiera.yaml`'s directory `dir`. `None`: skipped, or it cannot be read
/// (said in `into`).
pub(super) fn read_data_file(
    files: &mut span::SourceMap,
    path: &std::path::Path,
    dir: &std::path::Path,
    seen: &mut std::collections::BTreeSet<std::path::PathBuf>,
    into: &mut HieraData,
    access: &source::FileAccess,
) -> Option<span::FileId> {
    if !admit(path, dir, seen, access) {
        return None;
    }
    let bytes = source::read_identified(path, "data file", access).1;
    add_data_file(files, path, bytes, into)
}

/// Whether a data file is to be read: once (`seen`), and only where links may be followed from
/// `dir`.
fn admit(
    path: &std::path::Path,
    dir: &std::path::Path,
    seen: &mut std::collections::BTreeSet<std::path::PathBuf>,
    access: &source::FileAccess,
) -> bool {
    source::may_follow(path, dir, access) && seen.insert(path.to_path_buf())
}

/// A data file's `bytes`, as read, added to `files`. `None`: it could not be read, or is not
/// UTF-8 (said in `into`).
fn add_data_file(
    files: &mut span::SourceMap,
    path: &std::path::Path,
    bytes: std::io::Result<source::ReadBytes>,
    into: &mut HieraData,
) -> Option<span::FileId> {
    let bytes = match bytes {
        Ok(bytes) => bytes,
        Err(e) => {
            into.diagnostics.push(diag::Diagnostic::error(
                diag::codes::DATA_FILE_SYNTAX_ERROR,
                span::Span::NONE,
                e.to_string(),
            ));
            return None;
        }
    };
    into.read += 1;
    let (id, bad) = source::add_source(files, tree::display(path), bytes);
    match bad {
        Some(d) => {
            into.diagnostics.push(d);
            None
        }
        None => Some(id),
    }
}

/// How many of a hierarchy entry's data files are parsed at once, on every core.
const DATA_FILES_PER_BATCH: usize = 64;

/// A version 5 `hiera.yaml` as a Hiera level (D24): its hierarchies as written and every data
/// file they can name (each `path` and `mapped_paths` template with its interpolations standing
/// for any name, each glob with them as `*`), each read and checked once (YAML or JSON holding
/// a hash, interpolations well formed). The level's keys become one bindings block of Hiera
/// bindings (a module's only those of its module), placed by `confdir-hiera:/` or
/// `module-hiera:/MODULE/` like any data.
pub(super) fn read_hiera5_level(
    files: &mut span::SourceMap,
    config_id: span::FileId,
    module: Option<&str>,
    hiera_dir: &str,
    config: &crate::data::hiera5::Config,
    into: &mut HieraData,
    access: &source::FileAccess,
) {
    use crate::data::{files as data_files, hiera5};
    use crate::lower::model::hiera as model;
    let dir = config_dir(files, config_id);
    let config_name = files.name(config_id).to_string();
    let global = hiera_dir == tree::GLOBAL_HIERA_DIR;
    let mut seen: std::collections::BTreeSet<std::path::PathBuf> =
        std::collections::BTreeSet::new();
    let mut level = model::HieraLevel {
        place: if global {
            model::HieraPlace::Global
        } else if module.is_some() {
            model::HieraPlace::Module
        } else {
            model::HieraPlace::Environment
        },
        module: module.map(str::to_string),
        config: config_name.clone(),
        bindings: String::new(),
        hierarchy: Vec::new(),
        default_hierarchy: Vec::new(),
        files: Vec::new(),
    };
    let mut ids: Vec<span::FileId> = Vec::new();
    // The level's files by path, so that a file many entries name is looked up, not searched.
    let mut level_paths: std::collections::HashSet<String> = std::collections::HashSet::new();
    // The first place of each key, in the order the hierarchy finds them.
    let mut keys: indexmap::IndexMap<String, span::Span> = indexmap::IndexMap::new();
    let prefix = module.map(|m| format!("{m}::"));
    for (entries, default) in [
        (&config.hierarchy, false),
        (&config.default_hierarchy, true),
    ] {
        for entry in entries {
            // Puppet's default configuration is written nowhere: its file's start.
            let position = if entry.span.is_none() {
                (1, 1)
            } else {
                files.line_col(config_id, entry.span.start)
            };
            let origin =
                crate::lower::model::Origin::new(config_name.as_str().into(), position, entry.span);
            let unsupported = |why: String| model::HieraLocations::Unsupported { why };
            let (mut locations, searches): (model::HieraLocations, Vec<String>) =
                if let Some(why) = &entry.unsearchable {
                    (unsupported(why.clone()), Vec::new())
                } else {
                    match &entry.locations {
                        hiera5::Locations::Paths(paths) => (
                            model::HieraLocations::Paths {
                                paths: paths.clone(),
                            },
                            paths.clone(),
                        ),
                        hiera5::Locations::MappedPaths {
                            variable,
                            key,
                            template,
                        } => (
                            model::HieraLocations::MappedPaths {
                                fact: variable.clone(),
                                variable: key.clone(),
                                template: template.clone(),
                            },
                            vec![template.clone()],
                        ),
                        // Found below, all globs in one walk.
                        hiera5::Locations::Globs(globs) => (
                            model::HieraLocations::Globs {
                                globs: globs.clone(),
                            },
                            Vec::new(),
                        ),
                        hiera5::Locations::Uris(_) => {
                            (unsupported("`uri`/`uris` locations".into()), Vec::new())
                        }
                        hiera5::Locations::Unspecified => (
                            unsupported("no `path`, `glob` or `mapped_paths`".into()),
                            Vec::new(),
                        ),
                    }
                };
            // A data directory that interpolates (`/etc/puppet/code/environments/%{::environment}/
            // hieradata`) is searched from its last plain directory, the rest as a template.
            let datadir = std::path::Path::new(&entry.datadir);
            let plain: std::path::PathBuf = datadir
                .components()
                .take_while(|c| !c.as_os_str().to_string_lossy().contains("%{"))
                .collect();
            let varying: Vec<String> = datadir
                .components()
                .skip(plain.components().count())
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            let base = dir.join(&plain);
            let under = |rest: &str, with: &str| {
                let mut parts = varying.clone();
                parts.push(rest.to_string());
                any_interpolation(&parts.join("/"), with)
            };
            let mut found: Vec<std::path::PathBuf> = Vec::new();
            if let (hiera5::Locations::Globs(globs), None) = (&entry.locations, &entry.unsearchable)
            {
                // Each interpolation stands for any name.
                let patterns: Vec<String> = globs.iter().map(|g| under(g, "*")).collect();
                match data_files::globbed(&base, &patterns) {
                    Ok(files) => found = files,
                    Err(limit) => {
                        into.diagnostics.push(hiera5::glob_limit_warning(
                            &entry.name,
                            entry.span,
                            &limit,
                        ));
                        locations = unsupported(limit.describe());
                    }
                }
            }
            for path in searches {
                // `os/%{facts.os.family}.yaml` as the search `files::matching` takes: without
                // its extension, each interpolation standing for any name.
                let Some((stem, ext)) = path
                    .rsplit_once('.')
                    .filter(|(s, e)| !s.is_empty() && !e.contains('/'))
                else {
                    continue;
                };
                found.extend(data_files::matching(&base, &under(stem, "${_}"), ext));
            }
            // The entry's files not read yet: relative to the `hiera.yaml`'s directory (a
            // global level's data may be anywhere, `/var/lib/hiera`: its path from the root
            // then), and where links may be followed from (a global configuration names its
            // data directory itself).
            let within = if global { &base } else { &dir };
            let mut admitted: Vec<(String, std::path::PathBuf)> = Vec::new();
            for found in found {
                let rel = relative_to(&found, &dir);
                if level_paths.insert(rel.clone()) && admit(&found, within, &mut seen, access) {
                    admitted.push((rel, found));
                }
            }
            // Read and parsed on every core; taken in order.
            let read = crate::parallel::parallel_map(admitted.len(), |at| {
                source::read_identified(&admitted[at].1, "data file", access).1
            });
            let mut added: Vec<(String, span::FileId)> = Vec::with_capacity(admitted.len());
            for ((rel, found), bytes) in admitted.into_iter().zip(read) {
                if let Some(id) = add_data_file(files, &found, bytes, into) {
                    added.push((rel, id));
                }
            }
            // Parsed a batch at a time: a batch's parsed documents are held until their keys
            // are taken, not every document of the entry at once.
            let added_ids: Vec<span::FileId> = added.iter().map(|(_, id)| *id).collect();
            let mut checked = Vec::new();
            for (at, (rel, id)) in added.into_iter().enumerate() {
                if at % DATA_FILES_PER_BATCH == 0 {
                    let files = &*files;
                    let batch = &added_ids[at..(at + DATA_FILES_PER_BATCH).min(added_ids.len())];
                    checked = crate::parallel::parallel_map(batch.len(), |b| {
                        data_files::check_hiera5(batch[b], files.source(batch[b]))
                    });
                    checked.reverse();
                }
                let Some((doc, problems)) = checked.pop() else {
                    continue;
                };
                into.diagnostics.extend(problems);
                let mut datums = Vec::new();
                if let Some(crate::data::yaml::Node {
                    kind: crate::data::yaml::NodeKind::Mapping(pairs),
                    ..
                }) = &doc
                {
                    for (key, value) in pairs {
                        let Some(name) = key.as_str() else { continue };
                        // A module's data answers only its own keys (Puppet drops the
                        // others with a warning).
                        if name != "lookup_options"
                            && prefix
                                .as_ref()
                                .is_some_and(|p| !name.starts_with(p.as_str()))
                        {
                            into.diagnostics.push(
                                    diag::Diagnostic::warning(
                                        diag::codes::HIERA_KEY_NOT_IN_MODULE,
                                        key.span,
                                        format!(
                                            "`{name}` is not a key of the module `{}`: lookups never find it here",
                                            module.unwrap_or_default()
                                        ),
                                    )
                                    .with_note(format!(
                                        "note: a module's data answers only its own keys (`{}...`), as in Puppet, which drops the others with a warning",
                                        prefix.as_deref().unwrap_or_default()
                                    )),
                                );
                            continue;
                        }
                        if name == "lookup_options" {
                            lookup_options_problems(files, id, value, module, into);
                        }
                        let (line, column) = files.line_col(id, key.span.start);
                        if name != "lookup_options" && !default {
                            keys.entry(name.to_string()).or_insert(key.span);
                        }
                        datums.push(model::HieraDatum {
                            key: name.to_string(),
                            value: crate::data::yaml::to_json(value),
                            line,
                            column,
                            unrepresentable: crate::data::yaml::unrepresentable(value)
                                .map(|(_, text)| text.to_string()),
                            value_span: trimmed(files.source(id), value.span),
                        });
                    }
                }
                ids.push(id);
                level.files.push(model::HieraDataFile {
                    path: rel,
                    file: files.name(id).to_string(),
                    keys: datums,
                });
            }
            let entry = model::HieraEntry {
                name: entry.name.clone(),
                origin,
                // As the files' paths are: an absolute data directory (a global level's)
                // relative to the `hiera.yaml`'s directory where it is below it.
                datadir: relative_to(&dir.join(&entry.datadir), &dir),
                locations,
                encrypted: entry.function.is_eyaml(),
                eyaml_private_key: entry.eyaml_key.private_key.clone(),
                eyaml_private_key_env_var: entry.eyaml_key.private_key_env_var.clone(),
            };
            if default {
                level.default_hierarchy.push(entry);
            } else {
                level.hierarchy.push(entry);
            }
        }
    }
    // A key only a module's default hierarchy has is that module's too.
    for file in &level.files {
        for datum in &file.keys {
            if datum.key != "lookup_options" && !keys.contains_key(&datum.key) {
                keys.insert(datum.key.clone(), span::Span::new(config_id, 0, 0));
            }
        }
    }
    let index = into.hiera.len();
    let name = match module {
        None if global => "global-hiera:/hiera.yaml".to_string(),
        Some(m) if hiera_dir.is_empty() => format!("module-hiera:/{m}/hiera.yaml"),
        Some(m) => format!("module-hiera:/{m}/{hiera_dir}/hiera.yaml"),
        None if hiera_dir.is_empty() => "confdir-hiera:/hiera.yaml".to_string(),
        None => format!("confdir-hiera:/{hiera_dir}/hiera.yaml"),
    };
    level.bindings.clone_from(&name);
    let program = crate::data::bind::hiera_program(&name, config_id, &keys, index);
    let role = tree::FileRole::HieraData(Box::new(tree::HieraDataRole {
        module: module.map(str::to_string),
        dir: hiera_dir.to_string(),
        name,
    }));
    // Named as the file it is (`hiera.yaml`, or the `metadata.json` that asked for the default).
    let own_name = std::path::Path::new(&config_name)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    into.programs
        .push((config_id, config_id, own_name, role, program));
    into.hiera.push((level, config_id, ids));
}

/// Whether an `environment.conf` (`environment_data_provider = hiera`) or a module's
/// `metadata.json` (`"data_provider": "hiera"`) asks for Hiera's default hierarchy.
pub(super) fn asks_for_hiera(name: &str, text: &str) -> bool {
    if name.ends_with("metadata.json") {
        return serde_json::from_str::<serde_json::Value>(text)
            .ok()
            .and_then(|v| v.get("data_provider")?.as_str().map(|s| s == "hiera"))
            .unwrap_or(false);
    }
    text.lines().any(|line| {
        let line = line.split('#').next().unwrap_or_default();
        line.split_once('=').is_some_and(|(k, v)| {
            k.trim() == "environment_data_provider"
                && v.trim().trim_matches(|c| c == '"' || c == '\'') == "hiera"
        })
    })
}

/// `--hiera-config FILE`: Hiera's global level (D24), in version 5 or in Hiera 3's format
/// (`:backends:`, `:hierarchy:`, `:yaml: {:datadir: ...}`), which Puppet 7 still reads there:
/// each backend (`yaml`, `json`) searches every path of the hierarchy in its own data directory
/// (default `/var/lib/hiera`), backends in their order.
pub(super) fn read_global_hiera(
    files: &mut span::SourceMap,
    id: span::FileId,
    into: &mut HieraData,
    access: &source::FileAccess,
) {
    use crate::data::hiera5;
    use crate::data::yaml::{self, NodeKind};
    let doc = match yaml::parse(id, files.source(id)) {
        Ok(Some(doc)) => doc,
        Ok(None) => return,
        Err(e) => {
            into.diagnostics.push(diag::Diagnostic::error(
                e.code.unwrap_or(diag::codes::CONFIG_FILE_SYNTAX_ERROR),
                e.span,
                format!("this hiera.yaml is not valid YAML: {}", e.message),
            ));
            return;
        }
    };
    // Puppet takes a configuration without a `version` for Hiera 3's, whose keys are mostly
    // written as Ruby symbols (`:backends:`).
    let is_hiera3 = match &doc.kind {
        NodeKind::Mapping(entries) => {
            entries
                .iter()
                .any(|(k, _)| k.as_str().is_some_and(|k| k.starts_with(':')))
                || matches!(
                    doc.get("version").map(|v| &v.kind),
                    None | Some(NodeKind::Integer(3))
                )
        }
        _ => false,
    };
    let config = if is_hiera3 {
        hiera3_global(&doc, &mut into.diagnostics)
    } else if matches!(
        doc.get("version").map(|v| &v.kind),
        Some(NodeKind::Integer(5))
    ) {
        let (config, found) = hiera5::read(&doc, hiera5::ConfigLevel::Global);
        into.diagnostics.extend(found);
        config
    } else {
        into.diagnostics.push(diag::Diagnostic::error(
            diag::codes::WRONG_VERSION,
            doc.get("version").unwrap_or(&doc).span,
            "a global Hiera configuration is version 5, or Hiera 3's format (`:backends:`, `:hierarchy:`)",
        ));
        return;
    };
    read_hiera5_level(
        files,
        id,
        None,
        tree::GLOBAL_HIERA_DIR,
        &config,
        into,
        access,
    );
}

/// A configuration in Hiera 3's format as the version 5 levels Puppet 7 makes of it
/// (`HieraConfigV3`): a level per backend, in order, each searching the whole hierarchy;
/// `yaml` and `json` read by their data hash functions, `eyaml` by hiera-eyaml's
/// `eyaml_lookup_key` with the backend's options (its private key), every other backend a
/// level pbc cannot search. A file's extension is the backend's name, or its `:extension:`.
/// A backend without `:datadir:` cannot be searched either: Puppet's default is under its
/// `$codedir`, which a tree does not have. A relative `:datadir:` is the `hiera.yaml`'s
/// directory's (Puppet takes it from its working directory).
pub(super) fn hiera3_global(
    doc: &crate::data::yaml::Node,
    out: &mut Vec<diag::Diagnostic>,
) -> crate::data::hiera5::Config {
    use crate::data::hiera5::{Config, EyamlKeyOptions, Function, HierarchyLevel, Locations};
    use crate::data::yaml::{Node, NodeKind};
    // Hiera 3's keys are Ruby symbols (`:backends:`); Puppet reads `backends:` alike.
    fn get<'n>(node: &'n Node, key: &str) -> Option<&'n Node> {
        node.get(&format!(":{key}")).or_else(|| node.get(key))
    }
    let strings = |key: &str| -> Option<Vec<String>> {
        match get(doc, key).map(|n| &n.kind) {
            Some(NodeKind::Sequence(items)) => Some(
                items
                    .iter()
                    .filter_map(|i| i.as_str().map(str::to_string))
                    .collect(),
            ),
            Some(NodeKind::String(s)) => Some(vec![s.clone()]),
            _ => None,
        }
    };
    let backends = strings("backends").unwrap_or_else(|| vec!["yaml".into()]);
    let hierarchy = strings("hierarchy")
        .unwrap_or_else(|| vec!["nodes/%{::trusted.certname}".into(), "common".into()]);
    let at = doc
        .entry(":backends")
        .or_else(|| doc.entry("backends"))
        .map_or(doc.span, |(k, _)| k.span);
    let mut levels: Vec<HierarchyLevel> = Vec::new();
    for backend in backends {
        // Puppet names each backend's level by the backend (`Hierarchy entry "yaml"`).
        let name = backend.clone();
        if levels.iter().any(|l| l.name == name) {
            out.push(diag::Diagnostic::error(
                diag::codes::HIERA_HIERARCHY_NAME_MULTIPLY_DEFINED,
                at,
                format!(
                    "the backend `{backend}` is named twice in `:backends:`, which Puppet refuses"
                ),
            ));
            continue;
        }
        let options = get(doc, &backend);
        let option = |key: &str| -> Option<String> {
            options
                .and_then(|o| get(o, key))
                .and_then(|v| v.as_str())
                .map(str::to_string)
        };
        let function = match backend.as_str() {
            "yaml" => Function::DataHash("yaml_data".into()),
            "json" => Function::DataHash("json_data".into()),
            "eyaml" => Function::LookupKey("eyaml_lookup_key".into()),
            other => Function::Hiera3Backend(other.into()),
        };
        let datadir = option("datadir");
        let unsearchable = if !function.supported() {
            Some(format!(
                "the Hiera 3 backend `{backend}` is not a data provider pbc runs"
            ))
        } else if datadir.is_none() {
            Some(format!(
                "the backend `{backend}` has no `:datadir:`, and Puppet's default (`$codedir/environments/%{{::environment}}/hieradata`) is a directory of the server's that pbc cannot know"
            ))
        } else {
            None
        };
        if let Some(why) = &unsearchable {
            let help = if datadir.is_none() && function.supported() {
                format!("help: write `:{backend}: {{:datadir: DIR}}`, or, if it holds nothing pbc's lookups need, say so with `--empty-level '{name}'`")
            } else {
                format!("help: if it holds nothing pbc's lookups need, say so with `--empty-level '{name}'`")
            };
            out.push(
                diag::Diagnostic::warning(
                    diag::codes::HIERA_FUNCTION_NOT_SUPPORTED,
                    at,
                    format!("pbc cannot search the level `{name}`: {why}; a lookup that reaches it before its answer fails"),
                )
                .with_note(help),
            );
        }
        let extension = option("extension").unwrap_or_else(|| {
            if backend == "hocon" {
                "conf".into()
            } else {
                backend.clone()
            }
        });
        let eyaml_key = if function.is_eyaml() {
            EyamlKeyOptions {
                private_key: option("pkcs7_private_key"),
                private_key_env_var: option("pkcs7_private_key_env_var"),
            }
        } else {
            EyamlKeyOptions::default()
        };
        levels.push(HierarchyLevel {
            name,
            span: at,
            unsearchable,
            function,
            eyaml_key,
            datadir: datadir.unwrap_or_default(),
            locations: Locations::Paths(
                hierarchy
                    .iter()
                    .map(|h| format!("{h}.{extension}"))
                    .collect(),
            ),
        });
    }
    Config {
        hierarchy: levels,
        default_hierarchy: Vec::new(),
        plan_hierarchy: Vec::new(),
    }
}

/// [`crate::data::merge::lookup_options_problems`] of a data file's `lookup_options`, each
/// at the key (or pattern) whose options they are.
pub(super) fn lookup_options_problems(
    files: &span::SourceMap,
    id: span::FileId,
    value: &crate::data::yaml::Node,
    module: Option<&str>,
    into: &mut HieraData,
) {
    use crate::data::yaml::NodeKind;
    let at = |span| trimmed(files.source(id), span);
    let NodeKind::Mapping(pairs) = &value.kind else {
        into.diagnostics
            .extend(crate::data::merge::lookup_options_problems(
                &crate::data::yaml::to_json(value),
                module,
                at(value.span),
            ));
        return;
    };
    for (key, options) in pairs {
        let one = crate::data::yaml::Node {
            kind: NodeKind::Mapping(vec![(key.clone(), options.clone())]),
            span: value.span,
        };
        into.diagnostics
            .extend(crate::data::merge::lookup_options_problems(
                &crate::data::yaml::to_json(&one),
                module,
                at(key.span),
            ));
    }
}

pub(super) fn relative_to(path: &std::path::Path, dir: &std::path::Path) -> String {
    path.strip_prefix(dir)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
        .trim_start_matches('/')
        .to_string()
}

/// `text` with each `%{...}` replaced by `with`.
pub(super) fn any_interpolation(text: &str, with: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("%{") {
        let Some(end) = rest[at..].find('}') else {
            break;
        };
        out.push_str(&rest[..at]);
        out.push_str(with);
        rest = &rest[at + end + 1..];
    }
    out.push_str(rest);
    out
}

/// One level of a hierarchy: its entry (`None` for the private paths) and its searches in order
/// (data directory, path, the place of the path in the `hiera.yaml`).
pub(super) type Level<'c> = (
    Option<&'c crate::data::hiera::HierarchyEntry>,
    Vec<(&'c str, &'c str, span::Span)>,
);

/// Every data file the hierarchy (and the private hierarchy) of `config` matches on disk, read
/// and checked on its own, once however many paths match it; each clean one becomes a bindings
/// block. Within one level (an entry, or the private paths) the first file that has a key wins
/// for a request, in the order of the hierarchy, its paths and its backends (`bind::program`
/// turns that into path tests).
pub(super) fn read_data_files(
    files: &mut span::SourceMap,
    config_id: span::FileId,
    module: Option<&str>,
    hiera_dir: &str,
    config: &crate::data::hiera::HieraConfig,
    into: &mut HieraData,
    access: &source::FileAccess,
) {
    use crate::data::{bind, files as data_files};
    let dir = config_dir(files, config_id);
    let mut levels: Vec<Level> = config
        .hierarchy
        .iter()
        .map(|e| {
            let searches = e
                .paths
                .iter()
                .map(|p| (e.datadir.as_str(), p.as_str(), e.span))
                .collect();
            (Some(e), searches)
        })
        .collect();
    if !config.private.is_empty() {
        let searches = config
            .private
            .iter()
            .map(|p| (config.datadir.as_str(), p.path.as_str(), p.span))
            .collect();
        levels.push((None, searches));
    }
    let mut seen: std::collections::BTreeSet<std::path::PathBuf> =
        std::collections::BTreeSet::new();
    for (entry, searches) in levels {
        let mut level: Vec<bind::Found> = Vec::new();
        // A file a plain path of the level names (`os/default`) is that path's, not one an
        // interpolated path (`os/${osfamily}`) reads for the family `default`.
        let plain: std::collections::BTreeSet<std::path::PathBuf> = searches
            .iter()
            .filter(|(_, template, _)| !template.contains('$'))
            .map(|(datadir, template, _)| dir.join(datadir).join(template))
            .collect();
        for (datadir, template, at) in searches {
            let base = dir.join(datadir);
            // The path as Puppet 3.4 read it: a Puppet string interpolated per request.
            let test = if template.contains('$') {
                match data_files::parse_string(config_id, template, at, false) {
                    Some(expr) => expr,
                    None => {
                        into.diagnostics.push(
                            diag::Diagnostic::error(
                                diag::codes::CONFIG_FILE_SYNTAX_ERROR,
                                at,
                                format!("the path `{template}` is not a Puppet string that pbc can interpolate"),
                            )
                            .with_note("help: write interpolations as `${fact}` or `$fact`, and `\\$` for a dollar sign"),
                        );
                        continue;
                    }
                }
            } else {
                ast::Expr {
                    kind: ast::ExprKind::String {
                        value: template.into(),
                    },
                    span: at,
                    depth: 1,
                }
            };
            for backend in &config.backends {
                for path in data_files::matching(&base, template, backend.extension()) {
                    if template.contains('$') && plain.contains(&path.with_extension("")) {
                        continue;
                    }
                    let Some(id) = read_data_file(files, &path, &dir, &mut seen, into, access)
                    else {
                        continue;
                    };
                    let (doc, problems) = data_files::check(id, files.source(id));
                    let Some(doc) = doc else {
                        into.unreadable.push((
                            module.map(str::to_string),
                            hiera_dir.to_string(),
                            problems,
                        ));
                        continue;
                    };
                    into.diagnostics.extend(problems);
                    let rel = path
                        .strip_prefix(&dir)
                        .unwrap_or(&path)
                        .to_string_lossy()
                        .replace('\\', "/");
                    let stem = path
                        .strip_prefix(&base)
                        .unwrap_or(&path)
                        .with_extension("")
                        .to_string_lossy()
                        .replace('\\', "/");
                    let when = match entry {
                        None => None,
                        Some(e) if e.category == "common" => None,
                        Some(e) => {
                            let value = match data_files::category_value(template, &e.value, &stem)
                            {
                                Some(named) => bind::WhenValue::Named(named),
                                // A path that does not name the value (`os/default`): the
                                // file applies whenever the category has one.
                                None => match data_files::parse_string(
                                    config_id, &e.value, e.span, false,
                                ) {
                                    Some(expr) => bind::WhenValue::Entry(expr),
                                    None => continue,
                                },
                            };
                            Some((e.category.clone(), value))
                        }
                    };
                    let test = ast::PathTest {
                        path: template.into(),
                        template: test.clone(),
                        file: stem.as_str().into(),
                    };
                    level.push(bind::Found {
                        applies: bind::Applies { when, test },
                        keys: bind::keys(&doc),
                    });
                    let text = files.source(id);
                    let block_name = match module {
                        Some(m) if hiera_dir.is_empty() => format!("module-hiera:/{m}/{rel}"),
                        Some(m) => format!("module-hiera:/{m}/{hiera_dir}/{rel}"),
                        None => format!("confdir-hiera:/{rel}"),
                    };
                    let program =
                        bind::program(&block_name, id, text, &doc, &level, level.len() - 1);
                    let role = tree::FileRole::HieraData(Box::new(tree::HieraDataRole {
                        module: module.map(str::to_string),
                        dir: hiera_dir.to_string(),
                        name: block_name,
                    }));
                    into.programs.push((id, config_id, rel, role, program));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hiera3(text: &str) -> (crate::data::hiera5::Config, Vec<&'static str>) {
        let doc = crate::data::yaml::parse(span::FileId(0), text)
            .expect("YAML")
            .expect("a document");
        let mut found = Vec::new();
        let config = hiera3_global(&doc, &mut found);
        (config, found.iter().map(|d| d.code).collect())
    }

    /// Puppet 7's `HieraConfigV3`: a level per backend named after it; `eyaml` runs
    /// `eyaml_lookup_key` with the backend's key; `:extension:` names the files; a backend
    /// without `:datadir:` or that pbc does not run cannot be searched; keys with or without
    /// the symbol's colon.
    #[test]
    fn hiera3_backends_are_levels_as_puppet_makes_them() {
        use crate::data::hiera5::{Function, Locations};
        let (config, found) = hiera3(
            ":backends: [eyaml, yaml, json, vault]\n\
             :eyaml:\n  :datadir: secrets\n  :pkcs7_private_key: /keys/private.pem\n  :extension: yaml\n\
             yaml: {datadir: data}\n\
             :hierarchy: ['nodes/%{trusted.certname}', common]\n",
        );
        let names: Vec<&str> = config.hierarchy.iter().map(|l| l.name.as_str()).collect();
        assert_eq!(names, ["eyaml", "yaml", "json", "vault"]);
        let eyaml = &config.hierarchy[0];
        assert!(eyaml.function.is_eyaml());
        assert_eq!(eyaml.unsearchable, None);
        assert_eq!(eyaml.datadir, "secrets");
        assert_eq!(
            eyaml.eyaml_key.private_key.as_deref(),
            Some("/keys/private.pem")
        );
        assert_eq!(
            eyaml.locations,
            Locations::Paths(vec![
                "nodes/%{trusted.certname}.yaml".into(),
                "common.yaml".into()
            ])
        );
        assert_eq!(
            config.hierarchy[1].function,
            Function::DataHash("yaml_data".into())
        );
        assert_eq!(config.hierarchy[1].datadir, "data");
        assert!(config.hierarchy[2]
            .unsearchable
            .as_deref()
            .is_some_and(|w| w.contains(":datadir:")));
        assert!(config.hierarchy[3].unsearchable.is_some());
        assert_eq!(
            found,
            [
                diag::codes::HIERA_FUNCTION_NOT_SUPPORTED,
                diag::codes::HIERA_FUNCTION_NOT_SUPPORTED
            ]
        );
        let (config, found) = hiera3(":backends: [yaml, yaml]\n:yaml:\n  :datadir: d\n");
        assert_eq!(config.hierarchy.len(), 1);
        assert_eq!(found, [diag::codes::HIERA_HIERARCHY_NAME_MULTIPLY_DEFINED]);
    }
}
