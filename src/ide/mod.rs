//! What an editor asks of a tree (`pbc lsp`): the tree's diagnostics with the editor's unsaved
//! buffers in place of their files, the outline of a file and of the tree, and what a key under
//! the cursor gives and where it is bound. It owns the [`Workspace`] (the tree's root, the
//! options and settings, the open buffers) and turns pbc's answers into the protocol's terms;
//! [`server`] speaks the protocol and [`transport`] frames it. It must not answer anything the
//! command line would answer otherwise: the diagnostics are `check_paths`'s over the same
//! files, hovers and definitions `pbc lookup --explain`'s, so an editor and the command line
//! never disagree.

mod keys;
pub mod server;
mod symbols;
pub mod text;
pub mod transport;

use crate::diag::{Diagnostic, Severity};
use crate::span::{FileId, SourceMap};
use crate::Options;
use lsp_types::{DiagnosticRelatedInformation, Location, NumberOrString, Uri};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use text::{Encoding, LineIndex};

pub use keys::KeyAt;
pub use symbols::document_symbols;

/// A buffer the editor has open: its text as last sent, and the version the editor gave it.
#[derive(Clone, Debug)]
pub struct Document {
    pub text: Arc<str>,
    pub version: i32,
}

/// The tree the editor works in, and the buffers it holds open.
pub struct Workspace {
    root: PathBuf,
    options: Options,
    open: BTreeMap<PathBuf, Document>,
    /// `--strict` (a setting): warnings are errors.
    pub strict: bool,
    pub encoding: Encoding,
    /// The node whose answers hovers show (settings): a facts file (relative to the tree) and
    /// a node name, as `pbc lookup --facts FILE --node NAME` takes them.
    pub facts: Option<PathBuf>,
    pub node: Option<String>,
    /// How many times the tree as the editor holds it changed (a buffer opened, changed or
    /// closed; files changed on disk): what a loaded tree was loaded from.
    generation: u64,
    /// The tree loaded for the last node explained, while nothing changed since.
    loaded: std::sync::Mutex<Option<LoadedTree>>,
    /// What the last check kept for the next: each file's parse, reused while its text is
    /// the same.
    check_memo: std::sync::Mutex<crate::load::CheckMemo>,
    /// The tree's directories and files as last listed and read, kept only while the editor
    /// tells of every change on disk ([`Workspace::keep_disk`]).
    kept_disk: Option<crate::source::KeptDisk>,
}

/// A tree loaded for one node ([`crate::inject::command::with_tree`]), answering the keys it is
/// asked on a thread of its own: loading a large tree is nearly all of a hover's time, and
/// the next hover, until the tree or the node changes, asks the same tree.
struct LoadedTree {
    /// The generation of the workspace, the facts file and the node it was loaded for.
    loaded_for: (u64, Option<PathBuf>, Option<String>),
    asks: std::sync::mpsc::Sender<TreeAsk>,
}

/// A key asked of a [`LoadedTree`] (as JSON or text), and where to send its explanation.
struct TreeAsk {
    key: String,
    json: bool,
    reply: std::sync::mpsc::Sender<Explained>,
}

/// The stack of the thread that loads and asks a tree: the command line's (passes over the
/// tree recurse to a bounded depth).
const TREE_STACK: usize = 256 * 1024 * 1024;

impl LoadedTree {
    /// Loads the tree `lookup` names on a thread of its own, which answers asks until this is
    /// dropped or an answer says the tree cannot be asked again.
    fn start(
        loaded_for: (u64, Option<PathBuf>, Option<String>),
        lookup: crate::inject::query::LookupOptions,
        options: Options,
    ) -> std::io::Result<LoadedTree> {
        let (asks, asked) = std::sync::mpsc::channel::<TreeAsk>();
        std::thread::Builder::new()
            .name("pbc-lsp-tree".to_string())
            .stack_size(TREE_STACK)
            .spawn(move || {
                let failed = crate::inject::command::with_tree(&lookup, &options, |answer| {
                    for ask in asked.iter() {
                        let keys = [ask.key];
                        let answered = answer(crate::inject::command::Ask {
                            keys: &keys,
                            explain: true,
                            json: ask.json,
                        });
                        let _ = ask.reply.send(explained(&answered.outcome));
                        if !answered.reusable {
                            // The asks still waiting get no reply: they load the tree again.
                            return;
                        }
                    }
                });
                // The tree could not be loaded: every ask gets why.
                if let Some(failed) = failed {
                    let why = explained(&failed);
                    for ask in asked.iter() {
                        let _ = ask.reply.send(Explained {
                            explanation: why.explanation.clone(),
                            said: why.said.clone(),
                        });
                    }
                }
            })?;
        Ok(LoadedTree { loaded_for, asks })
    }

    /// `key` explained, or `None` when the tree is no longer answering.
    fn ask(&self, key: &str, json: bool) -> Option<Explained> {
        let (reply, replied) = std::sync::mpsc::channel();
        self.asks
            .send(TreeAsk {
                key: key.to_string(),
                json,
                reply,
            })
            .ok()?;
        replied.recv().ok()
    }
}

/// What a lookup's outcome says, as an [`Explained`].
fn explained(outcome: &crate::outcome::Outcome) -> Explained {
    let mut said = String::new();
    for part in &outcome.said {
        match part {
            crate::outcome::Said::Diagnostics {
                sources,
                diagnostics,
            } => said.push_str(&crate::diag::render_text(sources, diagnostics)),
            crate::outcome::Said::Line(line) => {
                said.push_str(line);
                said.push('\n');
            }
        }
    }
    Explained {
        explanation: outcome.stdout.clone(),
        said,
    }
}

/// What a lookup with `--explain` says about a key: its explanation (text, or the JSON
/// `pbc lookup --explain --format json` prints), and what it said on the side (why it
/// failed), as text.
#[derive(Debug)]
pub struct Explained {
    pub explanation: String,
    pub said: String,
}

/// One file's diagnostics in the protocol's terms, with the version of the buffer they were
/// computed from when it is open.
#[derive(Debug)]
pub struct FileDiagnostics {
    pub path: PathBuf,
    pub version: Option<i32>,
    pub diagnostics: Vec<lsp_types::Diagnostic>,
}

/// A whole check of the tree: the diagnostics of every file that has any, and the findings that
/// have no place in a file (a path the tree names that does not exist, say), as text.
#[derive(Debug, Default)]
pub struct TreeDiagnostics {
    pub files: Vec<FileDiagnostics>,
    pub without_place: Vec<String>,
}

impl Workspace {
    /// The tree at `root` (made absolute: the editor names files by absolute URIs).
    pub fn new(root: &Path, options: Options) -> Workspace {
        let root = std::fs::canonicalize(root).unwrap_or_else(|_| absolute(root));
        Workspace {
            root,
            options,
            open: BTreeMap::new(),
            strict: false,
            encoding: Encoding::Utf16,
            facts: None,
            node: None,
            generation: 0,
            loaded: std::sync::Mutex::new(None),
            check_memo: std::sync::Mutex::default(),
            kept_disk: None,
        }
    }

    /// Whether links may lead out of the tree (`--follow-symlinks`).
    pub fn follows_links(&self) -> bool {
        self.options.files.follow_symlinks
    }

    /// From now on the editor tells of every change to the tree's files on disk
    /// ([`Workspace::files_changed`]): the directories listed and the files read are kept
    /// from one check to the next, instead of listed and read again. `false`: it no longer
    /// does, and nothing is kept.
    pub fn keep_disk(&mut self, keep: bool) {
        self.kept_disk = keep.then(crate::source::KeptDisk::new);
    }

    /// Files of the tree changed on disk (saved, created, deleted): nothing listed or read
    /// before, and no tree loaded before, is used again.
    pub fn files_changed(&mut self) {
        if let Some(kept) = &self.kept_disk {
            kept.forget();
        }
        self.generation += 1;
    }

    /// The buffer at `path` opened or changed to `text`.
    pub fn set_text(&mut self, path: PathBuf, text: String, version: i32) {
        let text = Arc::from(text);
        self.open.insert(path, Document { text, version });
        self.generation += 1;
    }

    /// The buffer at `path` closed: its file is read from disk again.
    pub fn close(&mut self, path: &Path) {
        self.open.remove(path);
        self.generation += 1;
    }

    pub fn document(&self, path: &Path) -> Option<&Document> {
        self.open.get(path)
    }

    /// The text of `path`: its open buffer's, else the file's (within `--max-file-size`).
    pub fn text(&self, path: &Path) -> Result<Arc<str>, String> {
        if let Some(doc) = self.open.get(path) {
            return Ok(doc.text.clone());
        }
        if !self.may_read(path) {
            return Err(outside(path, &self.root));
        }
        let bytes = crate::source::read_file(path, "file", &self.options.files)
            .map_err(|e| e.to_string())?;
        Ok(Arc::from(String::from_utf8_lossy(&bytes).into_owned()))
    }

    /// Whether the editor may have pbc read `path`: a file of the tree, where it really is
    /// (a link out of the tree only with `--follow-symlinks`), as `pbc check` reads only the
    /// tree. The editor may name the tree by another path that leads into it.
    fn may_read(&self, path: &Path) -> bool {
        let real = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        real.starts_with(&self.root)
            || (self.options.files.follow_symlinks && path.starts_with(&self.root))
    }

    /// The symbols of every manifest of the tree whose name holds `query` (ignoring case; all
    /// of them for an empty query), each with the symbol it is in, at most [`MOST_SYMBOLS`]:
    /// sites, environments, categories, layers, bindings blocks, keys, classes and the rest of
    /// [`document_symbols`]'s outline. Files are read and parsed on every core.
    pub fn workspace_symbols(
        &self,
        query: &str,
    ) -> Result<Vec<lsp_types::SymbolInformation>, String> {
        let files = crate::tree::discover(std::slice::from_ref(&self.root), &self.options)
            .map_err(|e| format!("pbc cannot list the tree `{}`: {e}", self.root.display()))?;
        let manifests: Vec<&Path> = files
            .iter()
            .map(|f| f.path.as_path())
            .filter(|p| p.extension().is_some_and(|e| e == "pp"))
            .collect();
        let query = query.to_lowercase();
        let found = crate::parallel::parallel_map(manifests.len(), |i| {
            let path = manifests[i];
            let (Ok(text), Some(uri)) = (self.text(path), uri_of(&absolute(path))) else {
                return Vec::new();
            };
            let mut out = Vec::new();
            flatten(
                document_symbols(&text, self.encoding),
                None,
                &uri,
                &query,
                &mut out,
            );
            out
        });
        let mut symbols: Vec<lsp_types::SymbolInformation> = found.into_iter().flatten().collect();
        symbols.truncate(MOST_SYMBOLS);
        Ok(symbols)
    }

    /// The options of a command over the tree as the editor holds it: the open buffers stand
    /// in for their files.
    fn options_with_buffers(&self) -> Options {
        let texts = self
            .open
            .iter()
            .map(|(path, doc)| (path.clone(), Arc::<[u8]>::from(doc.text.clone())))
            .collect();
        let mut options = self.options.clone();
        options.files.overlay = crate::source::Overlay::new(texts);
        options.files.kept = self.kept_disk.clone();
        options
    }

    /// `pbc check` of the tree, with the open buffers' texts.
    pub fn check(&self) -> Result<TreeDiagnostics, String> {
        let options = self.options_with_buffers();
        // A poisoned lock held only parses: the check starts without them.
        let mut memo = self.check_memo.lock().unwrap_or_else(|poisoned| {
            let mut memo = poisoned.into_inner();
            *memo = crate::load::CheckMemo::default();
            memo
        });
        let report = crate::load::check_paths_kept(
            std::slice::from_ref(&self.root),
            Some(&mut memo),
            &options,
        )
        .map_err(|e| format!("pbc cannot check `{}`: {e}", self.root.display()))?;
        Ok(self.diagnostics(&report.files, report.diagnostics))
    }

    /// `pbc lookup --explain KEY` over the tree as the editor holds it, for `node` (a node
    /// of the tree's `facts/` directory, or a name alone) or else the node the settings chose.
    pub fn explain(&self, key: &str, json: bool, node: Option<&str>) -> Explained {
        let (facts, node) = match node {
            Some(node) => (self.facts_of(node), Some(node.to_string())),
            None => {
                let facts = match (&self.facts, &self.node) {
                    (Some(facts), _) => Some(self.root.join(facts)),
                    (None, Some(node)) => self.facts_of(node),
                    (None, None) => None,
                };
                if let Some(facts) = facts.as_ref().filter(|f| !self.may_read(f)) {
                    return Explained {
                        explanation: String::new(),
                        said: format!("the `facts` setting: {}\n", outside(facts, &self.root)),
                    };
                }
                (facts, self.node.clone())
            }
        };
        let loaded_for = (self.generation, facts.clone(), node.clone());
        let lookup = crate::inject::query::LookupOptions {
            tree: self.root.clone(),
            facts,
            node,
            explain: true,
            ..Default::default()
        };
        // A poisoned lock held only the last tree loaded: it is loaded again.
        let mut loaded = self
            .loaded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(tree) = loaded.as_ref().filter(|t| t.loaded_for == loaded_for) {
            if let Some(explained) = tree.ask(key, json) {
                return explained;
            }
        }
        // Dropping the tree loaded before ends its thread (and frees it) there.
        *loaded = None;
        let tree = match LoadedTree::start(loaded_for, lookup, self.options_with_buffers()) {
            Ok(tree) => tree,
            Err(e) => {
                return Explained {
                    explanation: String::new(),
                    said: format!("pbc cannot start a thread to load the tree: {e}\n"),
                }
            }
        };
        let explained = tree.ask(key, json).unwrap_or_else(|| Explained {
            explanation: String::new(),
            said: "pbc stopped loading the tree (a bug in pbc; its log says more)\n".to_string(),
        });
        *loaded = Some(tree);
        explained
    }

    /// The facts file of `node` in the tree's `facts/` directory (as `pbc lookup --nodes`
    /// names them: `NODE.json`, `.yaml` or `.yml`).
    fn facts_of(&self, node: &str) -> Option<PathBuf> {
        let sets = crate::inject::nodes::factsets(&self.root.join("facts")).ok()?;
        sets.into_iter()
            .find(|(n, _)| n == node)
            .map(|(_, path)| path)
    }

    /// The key at `position` of the file at `path`, and the file's text.
    pub fn key_at(&self, path: &Path, position: lsp_types::Position) -> Option<(KeyAt, Arc<str>)> {
        let text = self.text(path).ok()?;
        let offset = LineIndex::new(&text).offset(position, self.encoding);
        let manifest = path.extension().is_some_and(|e| e == "pp");
        let key = keys::key_at(&text, offset, manifest)?;
        Some((key, text))
    }

    /// The hover of the key at `position`: its explanation for the chosen node (every binding
    /// of it per layer, with its `when`, and the Hiera levels searched), or why it has none.
    pub fn hover(&self, path: &Path, position: lsp_types::Position) -> Option<lsp_types::Hover> {
        let (key, text) = self.key_at(path, position)?;
        let explained = self.explain(&key.key, false, None);
        let mut value = format!("```text\n{}", explained.explanation);
        if !explained.said.is_empty() {
            value.push_str(&explained.said);
        }
        value.push_str("```");
        let index = LineIndex::new(&text);
        Some(lsp_types::Hover {
            contents: lsp_types::HoverContents::Markup(lsp_types::MarkupContent {
                kind: lsp_types::MarkupKind::Markdown,
                value,
            }),
            range: Some(index.range(key.start, key.end, self.encoding)),
        })
    }

    /// Where the key at `position` is bound: every binding of it the explanation lists (in
    /// every layer, matching the chosen node or not) and the Hiera data entries found for the
    /// chosen node.
    pub fn definition(&self, path: &Path, position: lsp_types::Position) -> Vec<Location> {
        let Some((key, _)) = self.key_at(path, position) else {
            return Vec::new();
        };
        let explained = self.explain(&key.key, true, None);
        let Ok(json) = serde_json::from_str::<serde_json::Value>(&explained.explanation) else {
            return Vec::new();
        };
        let mut places = Vec::new();
        for explanation in json.as_array().into_iter().flatten() {
            for layer in explanation["layers"].as_array().into_iter().flatten() {
                for candidate in layer["candidates"].as_array().into_iter().flatten() {
                    places.extend(candidate["origin"].as_str().map(str::to_string));
                }
            }
            for level in explanation["hiera"]["levels"]
                .as_array()
                .into_iter()
                .flatten()
            {
                for entry in level["entries"].as_array().into_iter().flatten() {
                    for location in entry["locations"].as_array().into_iter().flatten() {
                        places.extend(location["at"].as_str().map(str::to_string));
                    }
                }
            }
        }
        let mut out: Vec<Location> = Vec::new();
        for place in places {
            if let Some(location) = self.location_of(&place) {
                if !out.contains(&location) {
                    out.push(location);
                }
            }
        }
        out
    }

    /// `FILE:LINE:COLUMN` as an explanation writes a place (the file relative to the tree,
    /// the column in characters) as the editor's location.
    fn location_of(&self, place: &str) -> Option<Location> {
        let mut parts = place.rsplitn(3, ':');
        let column: usize = parts.next()?.parse().ok()?;
        let line: usize = parts.next()?.parse().ok()?;
        let path = self.root.join(parts.next()?);
        let text = self.text(&path).ok()?;
        let index = LineIndex::new(&text);
        let at = index.char_offset(line.checked_sub(1)?, column.saturating_sub(1));
        let position = index.position(at, self.encoding);
        Some(Location::new(
            uri_of(&path)?,
            lsp_types::Range::new(position, position),
        ))
    }

    fn diagnostics(&self, files: &SourceMap, found: Vec<Diagnostic>) -> TreeDiagnostics {
        let cwd = std::env::current_dir().unwrap_or_default();
        let mut indexes: BTreeMap<FileId, LineIndex<'_>> = BTreeMap::new();
        let mut by_file: BTreeMap<FileId, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
        let mut out = TreeDiagnostics::default();
        let in_map = |id: FileId| (id.0 as usize) < files.len();
        for d in found {
            if d.span.is_none() || !in_map(d.span.file) {
                out.without_place.push(format!("{}: {}", d.code, d.message));
                continue;
            }
            let range = {
                let index = indexes
                    .entry(d.span.file)
                    .or_insert_with(|| LineIndex::new(files.source(d.span.file)));
                index.range(d.span.start as usize, d.span.end as usize, self.encoding)
            };
            let mut related = Vec::new();
            for (span, label) in &d.labels {
                if span.is_none() || !in_map(span.file) {
                    continue;
                }
                let index = indexes
                    .entry(span.file)
                    .or_insert_with(|| LineIndex::new(files.source(span.file)));
                let range = index.range(span.start as usize, span.end as usize, self.encoding);
                if let Some(uri) = uri_of(&path_of(files.name(span.file), &cwd)) {
                    related.push(DiagnosticRelatedInformation {
                        location: Location::new(uri, range),
                        message: label.clone(),
                    });
                }
            }
            let severity = match d.severity {
                Severity::Error => lsp_types::DiagnosticSeverity::ERROR,
                Severity::Warning if self.strict => lsp_types::DiagnosticSeverity::ERROR,
                Severity::Warning => lsp_types::DiagnosticSeverity::WARNING,
            };
            let mut message = d.message;
            for note in &d.notes {
                message.push('\n');
                message.push_str(note);
            }
            by_file
                .entry(d.span.file)
                .or_default()
                .push(lsp_types::Diagnostic {
                    range,
                    severity: Some(severity),
                    code: Some(NumberOrString::String(d.code.to_string())),
                    source: Some("pbc".to_string()),
                    message,
                    related_information: (!related.is_empty()).then_some(related),
                    ..Default::default()
                });
        }
        // A file the check read twice under two names (a module seen from two environments)
        // is one file to the editor.
        let mut by_path: BTreeMap<PathBuf, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
        for (id, diagnostics) in by_file {
            let path = path_of(files.name(id), &cwd);
            let list = by_path.entry(path).or_default();
            for d in diagnostics {
                if !list.contains(&d) {
                    list.push(d);
                }
            }
        }
        out.files = by_path
            .into_iter()
            .map(|(path, diagnostics)| FileDiagnostics {
                version: self.open.get(&path).map(|doc| doc.version),
                path,
                diagnostics,
            })
            .collect();
        out
    }
}

fn outside(path: &Path, root: &Path) -> String {
    format!(
        "`{}` is outside the tree `{}`: pbc lsp reads only the tree's files (`--follow-symlinks` lets links in the tree lead out of it)",
        path.display(),
        root.display()
    )
}

/// The most symbols a workspace search answers: an editor shows a list to pick from, and a
/// short query narrows it.
pub const MOST_SYMBOLS: usize = 2000;

/// `symbols` and those inside them, each named with the one it is in, where the name holds
/// `query` (already lowercase).
#[allow(deprecated)] // `deprecated` is a field the protocol keeps; `tags` replaced it.
fn flatten(
    symbols: Vec<lsp_types::DocumentSymbol>,
    container: Option<&str>,
    uri: &Uri,
    query: &str,
    out: &mut Vec<lsp_types::SymbolInformation>,
) {
    for symbol in symbols {
        if symbol.name.to_lowercase().contains(query) {
            out.push(lsp_types::SymbolInformation {
                name: symbol.name.clone(),
                kind: symbol.kind,
                tags: None,
                deprecated: None,
                location: Location::new(uri.clone(), symbol.selection_range),
                container_name: container.map(str::to_string),
            });
        }
        if let Some(children) = symbol.children {
            flatten(children, Some(&symbol.name), uri, query, out);
        }
    }
}

/// The path a diagnostic's file name stands for: names are relative to the current directory
/// where they can be (as `pbc check` prints them).
fn path_of(name: &str, cwd: &Path) -> PathBuf {
    let path = Path::new(name);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        cwd.join(path)
    }
}

fn absolute(path: &Path) -> PathBuf {
    path_of(
        &path.to_string_lossy(),
        &std::env::current_dir().unwrap_or_default(),
    )
}

/// The protocol's URI of `path`.
pub fn uri_of(path: &Path) -> Option<Uri> {
    Uri::from_str(&text::path_to_uri(path)).ok()
}
