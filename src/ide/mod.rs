//! What an editor asks of a tree (`pbc lsp`): the tree's diagnostics with the editor's unsaved
//! buffers in place of their files, the outline of a file and of the tree, and what a key under
//! the cursor gives and where it is bound. It owns the [`Workspace`] (the tree's root, the
//! options and settings, the open buffers) and turns pbc's answers into the protocol's terms;
//! [`server`] speaks the protocol and [`transport`] frames it. It must not answer anything the
//! command line would answer otherwise: the diagnostics are `check_paths`'s over the same
//! files, hovers and definitions `pbc lookup --explain`'s, so an editor and the command line
//! never disagree.

mod complete;
mod keys;
mod look;
pub mod server;
mod symbols;
pub mod text;
pub mod transport;
mod watch;

use crate::diag::{Diagnostic, Severity};
use crate::span::{FileId, SourceMap};
use crate::Options;
use lsp_types::{DiagnosticRelatedInformation, Location, NumberOrString, Uri};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::mpsc::RecvTimeoutError;
use std::sync::Arc;
use text::{Encoding, LineIndex};

pub use keys::{CategoryAt, KeyAt, KeyRole};
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
    /// How many times the editor told of changes on disk: what a file's names were read at.
    disk_generation: u64,
    /// The tree loaded for the last node explained, while nothing changed since.
    loaded: std::sync::Mutex<Option<LoadedTree>>,
    /// How many trees were loaded for hovers ([`Workspace::trees_loaded`]).
    trees_loaded: std::sync::atomic::AtomicU64,
    /// What the last check kept for the next: each file's parse, reused while its text is
    /// the same.
    check_memo: std::sync::Mutex<crate::load::CheckMemo>,
    /// What the last tree loaded for a node kept for the next: each file's parse and, for a
    /// bindings file, its block lowered for the injector.
    lookup_memo: Arc<std::sync::Mutex<crate::load::CheckMemo>>,
    /// The tree's directories and files as last listed and read, kept only while the editor
    /// tells of every change on disk ([`Workspace::keep_disk`]).
    kept_disk: Option<crate::source::KeptDisk>,
    /// The manifests and data files the last check read: where keys are bound and asked.
    tree_files: std::sync::Mutex<Arc<TreeFiles>>,
    /// The keys and categories each of those files names, as last read
    /// ([`Workspace::name_index`]).
    key_index: std::sync::Mutex<BTreeMap<PathBuf, IndexedFile>>,
}

/// Past this many files written in place at once (a tool rewriting the tree, a notice of
/// thousands of files), everything kept is forgotten instead: each file forgotten alone costs
/// a look at the file, and reading the tree again costs less than thousands of them.
pub const MOST_FORGOTTEN_ALONE: usize = 256;

/// A category where a file names it.
type CategoryPlace = (PathBuf, CategoryAt);

/// The files of the tree that name keys, as the last check read them.
#[derive(Debug, Default)]
struct TreeFiles {
    /// By their names in the check (shared with its source map, not held again as paths),
    /// one name per file, in the order of their paths ([`path_of`]).
    manifests: Vec<Arc<str>>,
    data: Vec<PathBuf>,
    /// The `binder_config.yaml` files the check read (D19), whose categories are declared as a
    /// site's are.
    binder_configs: Vec<PathBuf>,
}

/// The keys and categories a file names, and a digest of the text they were read from: the
/// file is read again only when its text changed.
struct IndexedFile {
    digest: (usize, u64),
    names: Arc<keys::Names>,
    /// Read from the file on disk (not a buffer) at this [`Workspace::disk_generation`].
    from_disk_at: Option<u64>,
    /// The text read, as the kept disk holds it (not a buffer's): while the kept disk holds
    /// this very text, the file is as it was, whatever else changed on disk since. Dropped
    /// when the kept disk forgets everything, so that the index does not hold the old texts.
    kept_text: Option<Arc<str>>,
}

fn digest(text: &str) -> (usize, u64) {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    text.hash(&mut hasher);
    (text.len(), hasher.finish())
}

/// A tree loaded for one node ([`crate::inject::command::with_tree`]), answering the keys it is
/// asked on a thread of its own: loading a large tree is nearly all of a hover's time, and
/// the next hover, until the tree or the node changes, asks the same tree.
struct LoadedTree {
    /// The generation of the workspace, the facts file and the node it was loaded for.
    loaded_for: (u64, Option<PathBuf>, Option<String>),
    asks: std::sync::mpsc::Sender<TreeAsk>,
    /// Set once the load is over (the tree answers, or its failure does).
    loaded: Arc<std::sync::atomic::AtomicBool>,
    /// Set when the tree changes while this one loads: the load stops at its next step
    /// (no hover will ask it), and so leaves the cores to the check of the change.
    abandoned: Arc<std::sync::atomic::AtomicBool>,
}

/// What [`Workspace::load_ahead`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoadAhead {
    /// It started loading the tree again.
    Started,
    /// No tree loaded for hovers is stale (or no thread could start to load it).
    Nothing,
    /// The stale tree is still loading: ask again later.
    StillLoading,
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
    /// dropped or an answer says the tree cannot be asked again. `memo` is what the last tree
    /// loaded kept: only the files changed since are loaded again.
    fn start(
        loaded_for: (u64, Option<PathBuf>, Option<String>),
        lookup: crate::inject::query::LookupOptions,
        options: Options,
        memo: Arc<std::sync::Mutex<crate::load::CheckMemo>>,
    ) -> std::io::Result<LoadedTree> {
        let (asks, asked) = std::sync::mpsc::channel::<TreeAsk>();
        let loaded = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let done = Arc::clone(&loaded);
        let done = move || done.store(true, std::sync::atomic::Ordering::Release);
        let abandoned = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let given_up = Arc::clone(&abandoned);
        std::thread::Builder::new()
            .name("pbc-lsp-tree".to_string())
            .stack_size(TREE_STACK)
            .spawn(move || {
                let memo = Some(&*memo);
                let given_up = Some(&*given_up);
                let failed = crate::inject::command::with_tree(
                    &lookup,
                    &options,
                    memo,
                    given_up,
                    |answer| {
                        done();
                        // Asks are answered from the parts of the index they read until
                        // the whole is built: at once when the load was ahead of any ask,
                        // else once the editor has asked nothing for a while (the whole
                        // index takes a hover's budget, and a keystroke now would wait for
                        // it).
                        let mut idle_before_whole = Some(std::time::Duration::ZERO);
                        loop {
                            let waited = match idle_before_whole {
                                Some(idle) => asked.recv_timeout(idle),
                                None => asked.recv().map_err(|_| RecvTimeoutError::Disconnected),
                            };
                            let ask = match waited {
                                Ok(ask) => ask,
                                Err(RecvTimeoutError::Timeout) => {
                                    idle_before_whole = None;
                                    answer(crate::inject::command::Ask::prepare());
                                    continue;
                                }
                                Err(RecvTimeoutError::Disconnected) => return,
                            };
                            if idle_before_whole.is_some() {
                                idle_before_whole = Some(server::LOAD_AHEAD_AFTER);
                            }
                            let keys = [ask.key];
                            let answered = answer(crate::inject::command::Ask {
                                keys: &keys,
                                explain: true,
                                json: ask.json,
                                prepare: false,
                            });
                            let _ = ask.reply.send(explained(&answered.outcome));
                            if !answered.reusable {
                                // The asks still waiting get no reply: they load the tree again.
                                return;
                            }
                        }
                    },
                );
                // The tree could not be loaded: every ask gets why.
                if let Some(failed) = failed {
                    done();
                    let why = explained(&failed);
                    for ask in asked.iter() {
                        let _ = ask.reply.send(Explained {
                            explanation: why.explanation.clone(),
                            said: why.said.clone(),
                        });
                    }
                }
            })?;
        Ok(LoadedTree {
            loaded_for,
            asks,
            loaded,
            abandoned,
        })
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

/// What a lookup's outcome says, as an [`Explained`] (what it says on the side as `pbc`
/// writes it to stderr, without colours).
fn explained(outcome: &crate::outcome::Outcome) -> Explained {
    Explained {
        explanation: outcome.stdout.clone(),
        said: outcome.stderr(false),
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
            disk_generation: 0,
            loaded: std::sync::Mutex::new(None),
            trees_loaded: std::sync::atomic::AtomicU64::new(0),
            check_memo: std::sync::Mutex::default(),
            lookup_memo: Arc::default(),
            kept_disk: None,
            tree_files: std::sync::Mutex::default(),
            key_index: std::sync::Mutex::default(),
        }
    }

    /// The tree, as an absolute path.
    pub fn root(&self) -> &Path {
        &self.root
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
        self.drop_indexed_texts();
        // What was read before is not known to be as it was.
        self.disk_generation += 1;
    }

    /// Whether what is listed and read of the disk is kept from one check to the next.
    pub fn keeps_disk(&self) -> bool {
        self.kept_disk.is_some()
    }

    /// Whether the next check lists and reads the whole tree: nothing of it is kept.
    pub fn disk_kept_is_empty(&self) -> bool {
        self.kept_disk.as_ref().is_none_or(|kept| kept.is_empty())
    }

    /// Starts a look at the disk behind the checks ([`look::DiskLook`]): a check of the tree
    /// as the editor holds it now, listing and reading everything anew, and whether what is
    /// kept agrees with it. `None` when nothing is kept, or no thread can start.
    pub(crate) fn look_at_disk(&self) -> Option<look::DiskLook> {
        let kept = self.kept_disk.clone()?;
        let mut options = self.options_with_buffers();
        let mut access = self.options.files.clone();
        access.kept = None;
        let root = self.root.clone();
        look::DiskLook::start(kept, access, move |fresh| {
            options.files.kept = Some(fresh.clone());
            // A tree that cannot be checked is told by the server's own checks.
            let _ = crate::load::check_paths_kept(std::slice::from_ref(&root), None, &options);
        })
        .ok()
    }

    /// What a look read of the disk kept in place of what was kept: the disk changed, as
    /// [`Workspace::files_changed`], but the next check takes what the look read instead of
    /// listing and reading the tree again.
    pub(crate) fn adopt_disk(&mut self, looked: crate::source::KeptDisk) {
        self.kept_disk = Some(looked);
        self.drop_indexed_texts();
        self.tree_changed();
        self.disk_generation += 1;
    }

    /// Whether `kept` is what the disk keeps now (not one kept before a change).
    pub(crate) fn keeps(&self, kept: &crate::source::KeptDisk) -> bool {
        self.kept_disk.as_ref() == Some(kept)
    }

    /// Files of the tree changed on disk (saved, created, deleted): nothing listed or read
    /// before, and no tree loaded before, is used again.
    pub fn files_changed(&mut self) {
        if let Some(kept) = &self.kept_disk {
            kept.forget();
        }
        self.drop_indexed_texts();
        self.tree_changed();
        self.disk_generation += 1;
    }

    /// The names index's texts let go of, with those the kept disk no longer holds.
    fn drop_indexed_texts(&mut self) {
        let index = self
            .key_index
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for indexed in index.values_mut() {
            indexed.kept_text = None;
        }
    }

    /// Files of the tree were written over in place (saved): each is read again, and the rest
    /// of what was listed and read is kept, when the kept disk can tell that each is the same
    /// file as before with a new text, and neither text may change what a walk of the tree
    /// finds, and they are at most [`MOST_FORGOTTEN_ALONE`]. Otherwise as
    /// [`Workspace::files_changed`].
    pub fn files_changed_in_place(&mut self, paths: &[PathBuf]) {
        use crate::source::ForgotInPlace;
        let Some(kept) = self
            .kept_disk
            .as_ref()
            .filter(|_| paths.len() <= MOST_FORGOTTEN_ALONE)
        else {
            return self.files_changed();
        };
        for path in paths {
            let alone = kept.forget_changed_in_place(path).is_some_and(|forgot| {
                let before_named = match forgot {
                    ForgotInPlace::Text(before) => {
                        crate::tree::may_name_deep_hiera_dirs(before.as_bytes())
                    }
                    // Its text then was looked at when it was first forgotten.
                    ForgotInPlace::Already => false,
                };
                !before_named
                    && crate::source::read_file(path, "file", &self.options.files)
                        .is_ok_and(|now| !crate::tree::may_name_deep_hiera_dirs(&now))
            });
            if !alone {
                return self.files_changed();
            }
        }
        self.tree_changed();
        // The names index reads its files again, from what the disk keeps, and reads names
        // again only where a text changed (it knows a file by a path that need not be the
        // editor's).
        self.disk_generation += 1;
    }

    /// The tree as the editor holds it changed: a tree loaded before no longer answers, and
    /// one still loading stops.
    fn tree_changed(&mut self) {
        self.generation += 1;
        if let Some(tree) = self.loaded_tree().as_ref() {
            tree.abandoned
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// The buffer at `path` opened or changed to `text`.
    pub fn set_text(&mut self, path: PathBuf, text: String, version: i32) {
        let text = Arc::from(text);
        self.open.insert(path, Document { text, version });
        self.tree_changed();
    }

    /// The buffer at `path` closed: its file is read from disk again.
    pub fn close(&mut self, path: &Path) {
        self.open.remove(path);
        self.tree_changed();
    }

    pub fn document(&self, path: &Path) -> Option<&Document> {
        self.open.get(path)
    }

    /// The text of `path`: its open buffer's, else the file's (within `--max-file-size`).
    pub fn text(&self, path: &Path) -> Result<Arc<str>, String> {
        self.text_read_by(path, &self.disk_access())
    }

    /// How files are read from disk: what the disk keeps, while it keeps anything, is the
    /// file as it is.
    fn disk_access(&self) -> crate::source::FileAccess {
        let mut access = self.options.files.clone();
        access.kept = self.kept_disk.clone();
        access
    }

    /// [`Workspace::text`], the file read with `access` (a text the disk keeps is shared, not
    /// copied: the names index reads every file of the tree after a save).
    fn text_read_by(
        &self,
        path: &Path,
        access: &crate::source::FileAccess,
    ) -> Result<Arc<str>, String> {
        if let Some(doc) = self.open.get(path) {
            return Ok(doc.text.clone());
        }
        if !self.may_read(path) {
            return Err(outside(path, &self.root));
        }
        match crate::source::read_identified(path, "file", access).1 {
            Ok(crate::source::ReadBytes::Text(text)) => Ok(text),
            Ok(crate::source::ReadBytes::Owned(bytes)) => {
                Ok(Arc::from(String::from_utf8_lossy(&bytes).into_owned()))
            }
            Err(e) => Err(e.to_string()),
        }
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
            .map(|f| &*f.path)
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
            .map(|(path, doc)| (path.clone(), doc.text.clone()))
            .collect();
        let mut options = self.options.clone();
        options.files.overlay = crate::source::Overlay::new(texts);
        options.files.kept = self.kept_disk.clone();
        // The check's memo keeps every text it parsed.
        options.files.share_texts = true;
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
        self.keep_tree_files(&report, memo.same_files_last());
        Ok(self.diagnostics(&report.files, report.diagnostics))
    }

    /// `textDocument/formatting`: the buffer at `path` laid out as `pbc fmt` lays it out, as
    /// one edit of the whole text (none when it is laid out already). `None` for a file that
    /// does not parse (its diagnostics say why) or is not a manifest.
    pub fn formatting(&self, path: &Path) -> Result<Option<Vec<lsp_types::TextEdit>>, String> {
        if path.extension().is_none_or(|e| e != "pp") {
            return Ok(None);
        }
        let text = self.text(path)?;
        match crate::format::format_source(FileId(0), &text) {
            crate::format::Formatted::Text(laid_out) if *laid_out == *text => Ok(Some(Vec::new())),
            crate::format::Formatted::Text(laid_out) => {
                let range = text::LineIndex::new(&text).range(0, text.len(), self.encoding);
                Ok(Some(vec![lsp_types::TextEdit {
                    range,
                    new_text: laid_out,
                }]))
            }
            crate::format::Formatted::NotParsed(_) => Ok(None),
            crate::format::Formatted::Refused(refusal) => Err(refusal.message),
        }
    }

    /// How many keys the last check judged the composition of again (see
    /// [`crate::validate::JudgementMemo`]): a measure of how much of the tree an edit re-checks.
    pub fn keys_judged_last(&self) -> usize {
        self.check_memo
            .lock()
            .map_or(0, |memo| memo.keys_judged_last())
    }

    /// How many files the last tree loaded for a node parsed (and lowered) again: the others'
    /// parses and blocks were the ones the load before kept.
    pub fn lookups_parsed_last(&self) -> usize {
        self.lookup_memo.lock().map_or(0, |memo| memo.parsed_last())
    }

    /// How many texts the last check's memo holds as copies of its own (see
    /// [`crate::load::CheckMemo::texts_copied`]): none, so the tree's text is held once.
    pub fn texts_copied(&self) -> usize {
        self.check_memo.lock().map_or(0, |memo| memo.texts_copied())
    }

    /// How many file names the last check's memo holds apart from another copy (see
    /// [`crate::load::CheckMemo::names_copied`]): none while the disk is kept, so each file's
    /// name is held once.
    pub fn names_copied(&self) -> usize {
        self.check_memo.lock().map_or(0, |memo| memo.names_copied())
    }

    /// What [`Workspace::check`] publishes, from a check that keeps nothing of the last one
    /// (no parses, no judgement): what `pbc check` reports of the same buffers. The memos'
    /// safety net holds the two to one answer.
    pub fn check_afresh(&self) -> Result<TreeDiagnostics, String> {
        let report = crate::load::check_paths_kept(
            std::slice::from_ref(&self.root),
            None,
            &self.options_with_buffers(),
        )
        .map_err(|e| format!("pbc cannot check `{}`: {e}", self.root.display()))?;
        Ok(self.diagnostics(&report.files, report.diagnostics))
    }

    /// Which files of `report`'s check name keys: its manifests and its data files (a module
    /// seen from two environments is one file). `same_inputs`: the check read the same files
    /// as the last one (its data files aside, which its `hiera.yaml` files find as they read).
    fn keep_tree_files(&self, report: &crate::load::CheckReport, same_inputs: bool) {
        let cwd = std::env::current_dir().unwrap_or_default();
        let files = &report.files;
        let mut data: Vec<PathBuf> = report
            .data_files
            .iter()
            .map(|&id| path_of(files.name(id), &cwd))
            .collect();
        data.sort();
        data.dedup();
        let mut kept = self
            .tree_files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if same_inputs && !kept.manifests.is_empty() {
            if kept.data != data {
                let manifests = kept.manifests.clone();
                let binder_configs = kept.binder_configs.clone();
                *kept = Arc::new(TreeFiles {
                    manifests,
                    data,
                    binder_configs,
                });
            }
            return;
        }
        let mut binder_configs: Vec<PathBuf> = (0..files.len())
            .map(|i| files.name(FileId(i as u32)))
            .filter(|name| name.ends_with("binder_config.yaml"))
            .map(|name| path_of(name, &cwd))
            .filter(|path| crate::tree::role_of(path) == crate::tree::FileRole::BinderConfig)
            .collect();
        binder_configs.sort();
        binder_configs.dedup();
        let mut manifests: Vec<(PathBuf, Arc<str>)> = (0..files.len())
            .map(|i| files.shared_name(FileId(i as u32)))
            .filter(|name| name.ends_with(".pp"))
            .map(|name| (path_of(&name, &cwd), name))
            .collect();
        manifests.sort();
        manifests.dedup_by(|a, b| a.0 == b.0);
        // Into a list of their own size: collected in place, the names kept the room of the
        // paths (0.5 MB for a 10,000-file tree).
        let mut names = Vec::with_capacity(manifests.len());
        names.extend(manifests.into_iter().map(|(_, name)| name));
        let manifests = names;
        *kept = Arc::new(TreeFiles {
            manifests,
            data,
            binder_configs,
        });
    }

    /// Every key and category each manifest and data file of the tree names, by file (as the
    /// editor holds it: an open buffer's text for its file). A file whose text is the same as
    /// when it was last read is not read for its names again.
    fn name_index(&self) -> Vec<(PathBuf, Arc<keys::Names>)> {
        let files = self
            .tree_files
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        let cwd = std::env::current_dir().unwrap_or_default();
        let manifests: Vec<PathBuf> = files
            .manifests
            .iter()
            .map(|name| path_of(name, &cwd))
            .collect();
        let all: Vec<(&PathBuf, keys::Holder)> = manifests
            .iter()
            .map(|p| (p, keys::Holder::Manifest))
            .chain(files.data.iter().map(|p| (p, keys::Holder::Data)))
            .chain(
                files
                    .binder_configs
                    .iter()
                    .map(|p| (p, keys::Holder::BinderConfig)),
            )
            .collect();
        // A poisoned lock held only keys read before: they are read again.
        let mut index = self
            .key_index
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let known = &*index;
        // While the editor tells of every change on disk, a file read from disk since the last
        // change, or whose text read is the very one the kept disk still holds, is as it was:
        // it is not read again. After a save, only the file saved is read.
        let unchanged_on_disk = |path: &Path| {
            let indexed = known.get(path)?;
            let kept = self.kept_disk.as_ref()?;
            let still = !self.open.contains_key(path)
                && (indexed.from_disk_at == Some(self.disk_generation)
                    || indexed
                        .kept_text
                        .as_ref()
                        .is_some_and(|text| kept.holds(path, text)));
            still.then(|| IndexedFile {
                digest: indexed.digest,
                names: indexed.names.clone(),
                from_disk_at: Some(self.disk_generation),
                kept_text: indexed.kept_text.clone(),
            })
        };
        let access = self.disk_access();
        let read = crate::parallel::parallel_map(all.len(), |i| {
            let (path, holder) = all[i];
            if let Some(indexed) = unchanged_on_disk(path) {
                return Some((path.clone(), indexed));
            }
            let text = self.text_read_by(path, &access).ok()?;
            let digest = digest(&text);
            let names = match known.get(path).filter(|f| f.digest == digest) {
                Some(indexed) => indexed.names.clone(),
                None => Arc::new(keys::names_in(&text, holder)),
            };
            let from_disk_at = (!self.open.contains_key(path)).then_some(self.disk_generation);
            let kept_text = match (&self.kept_disk, from_disk_at) {
                (Some(kept), Some(_)) if kept.holds(path, &text) => Some(text),
                _ => None,
            };
            let indexed = IndexedFile {
                digest,
                names,
                from_disk_at,
                kept_text,
            };
            Some((path.clone(), indexed))
        });
        let fresh: BTreeMap<PathBuf, IndexedFile> = read.into_iter().flatten().collect();
        let out = fresh
            .iter()
            .map(|(path, f)| (path.clone(), f.names.clone()))
            .collect();
        *index = fresh;
        out
    }

    /// Every place of the tree that names the key at `position` (bindings, data entries,
    /// `lookup()`s, `inject()`s, class parameters), or with `with_bindings` false only the
    /// places that ask for it. The places are the key's words (inside the quotes).
    pub fn references(
        &self,
        path: &Path,
        position: lsp_types::Position,
        with_bindings: bool,
    ) -> Vec<Location> {
        let Some((key, _)) = self.key_at(path, position) else {
            return self.category_references(path, position, with_bindings);
        };
        let mut out = Vec::new();
        for (file, names) in self.name_index() {
            let named: Vec<&KeyAt> = names
                .keys
                .iter()
                .filter(|k| k.key == key.key && (with_bindings || k.role == KeyRole::Asks))
                .collect();
            if named.is_empty() {
                continue;
            }
            let (Ok(text), Some(uri)) = (self.text(&file), uri_of(&file)) else {
                continue;
            };
            let index = LineIndex::new(&text);
            for k in named {
                let (start, end) = keys::unquoted(&text, k.start, k.end);
                out.push(Location::new(
                    uri.clone(),
                    index.range(start, end, self.encoding),
                ));
            }
        }
        out
    }

    /// What completes the word being written at `position`: a category after `when`, a
    /// category's value after it, a layer's URI, an option's name, a type, a fact
    /// ([`complete`]), or a key (in a binding's key, `lookup()`, `inject()`, or a data file's
    /// top-level key: the tree's keys, each with how many places bind and ask for it); `None`
    /// where none of them is being written. At most
    /// [`MOST_COMPLETIONS`], the list marked incomplete past them.
    pub fn completion(
        &self,
        path: &Path,
        position: lsp_types::Position,
    ) -> Option<lsp_types::CompletionList> {
        let text = self.text(path).ok()?;
        let index = LineIndex::new(&text);
        let offset = index.offset(position, self.encoding);
        let manifest = path.extension().is_some_and(|e| e == "pp");
        if let Some((start, end)) = keys::category_slot(&text, offset).filter(|_| manifest) {
            return Some(self.category_completion(&text, start, end, offset));
        }
        if let Some(slot) = keys::category_value_slot(&text, offset).filter(|_| manifest) {
            return Some(self.category_value_completion(&text, slot, offset));
        }
        if let Some((_, start, end)) = keys::layer_uri_at(&text, offset).filter(|_| manifest) {
            let (start, end) = keys::unquoted(&text, start, end);
            if start <= offset && offset <= end {
                return Some(self.layer_uri_completion(&text, start, end, offset));
            }
        }
        if let Some(slot) = complete::slot_at(&text, offset).filter(|_| manifest) {
            return Some(self.word_completion(&text, slot, offset));
        }
        let (start, end) = keys::key_slot(&text, offset, manifest)?;
        let written = text.get(start..offset.max(start))?;
        // Each key with how many places bind it and ask for it.
        let mut known: BTreeMap<String, (usize, usize)> = BTreeMap::new();
        for (file, names) in self.name_index() {
            for k in names.keys.iter().filter(|k| k.key.starts_with(written)) {
                // The key being written is not yet a key.
                if file == path && k.start <= offset && offset <= k.end {
                    continue;
                }
                let counts = known.entry(k.key.clone()).or_default();
                match k.role {
                    KeyRole::Binds => counts.0 += 1,
                    KeyRole::Asks => counts.1 += 1,
                }
            }
        }
        let offers = known.into_iter().map(|(key, (binds, asks))| Offer {
            new_text: key.clone(),
            label: key,
            kind: lsp_types::CompletionItemKind::CONSTANT,
            detail: format!(
                "bound in {binds} place{}, asked in {asks}",
                if binds == 1 { "" } else { "s" }
            ),
        });
        Some(completion_list(
            index.range(start, end, self.encoding),
            offers,
        ))
    }

    /// The category at `position` of the manifest or the `binder_config.yaml` at `path`.
    fn category_at(&self, path: &Path, position: lsp_types::Position) -> Option<CategoryAt> {
        let binder_config = crate::tree::role_of(path) == crate::tree::FileRole::BinderConfig;
        if !binder_config && path.extension().is_none_or(|e| e != "pp") {
            return None;
        }
        let text = self.text(path).ok()?;
        let offset = LineIndex::new(&text).offset(position, self.encoding);
        if binder_config {
            return keys::names_in(&text, keys::Holder::BinderConfig)
                .categories
                .into_iter()
                .find(|c| c.start <= offset && offset <= c.end);
        }
        keys::category_at(&text, offset)
    }

    /// Every place of the tree that names a category, as (file, place): the sites'
    /// declarations, and the `when`s.
    fn category_places(&self) -> (Vec<CategoryPlace>, Vec<CategoryPlace>) {
        let mut declared = Vec::new();
        let mut used = Vec::new();
        for (file, names) in self.name_index() {
            for c in &names.categories {
                let list = if c.declared.is_some() {
                    &mut declared
                } else {
                    &mut used
                };
                list.push((file.clone(), c.clone()));
            }
        }
        (declared, used)
    }

    /// `FILE:LINE:COLUMN` of byte `offset` of `file` (the file relative to the tree, the
    /// column in characters), as explanations write places.
    fn place(&self, file: &Path, offset: usize) -> String {
        let shown = file.strip_prefix(&self.root).unwrap_or(file);
        let (line, column) = self.text(file).map_or((0, 0), |text| {
            // The text is read again: a file changed since its names were read is not cut
            // inside a character.
            let before = &text[..text::char_start(&text, offset)];
            let line_start = before.rfind('\n').map_or(0, |i| i + 1);
            (
                before.matches('\n').count() + 1,
                before[line_start..].chars().count() + 1,
            )
        });
        format!("{}:{line}:{column}", shown.display())
    }

    /// The hover of a category: where each site declares it and with what value, its
    /// precedence there (the request's categories, highest first, as pbc ranks them), and how
    /// many `when`s name it.
    fn category_hover(
        &self,
        path: &Path,
        position: lsp_types::Position,
    ) -> Option<lsp_types::Hover> {
        let category = self.category_at(path, position)?;
        let name = category.name.as_str();
        let (declared, used) = self.category_places();
        let mut value = format!("```text\ncategory `{name}`\n");
        // Each site's declarations, in its order.
        let mut sites: BTreeMap<&Path, Vec<&CategoryAt>> = BTreeMap::new();
        for (file, c) in &declared {
            sites.entry(file.as_path()).or_default().push(c);
        }
        if sites.is_empty() {
            let order = crate::load::category_precedence(Vec::new());
            value.push_str(&precedence_line(
                name,
                &order,
                "pbc's defaults (no site declares categories, D10)",
            ));
        }
        for (file, entries) in &sites {
            if let Some(c) = entries.iter().find(|c| c.name == name) {
                value.push_str(&format!(
                    "declared at {} as `{}`\n",
                    self.place(file, c.start),
                    c.declared.as_deref().unwrap_or_default()
                ));
            }
            let order =
                crate::load::category_precedence(entries.iter().map(|c| c.name.clone()).collect());
            let shown = file.strip_prefix(&self.root).unwrap_or(file);
            let site = format!("the site of {}", shown.display());
            value.push_str(&precedence_line(name, &order, &site));
        }
        let whens = used.iter().filter(|(_, c)| c.name == name).count();
        let files: std::collections::BTreeSet<&Path> = used
            .iter()
            .filter(|(_, c)| c.name == name)
            .map(|(f, _)| f.as_path())
            .collect();
        value.push_str(&format!(
            "named by {whens} `when` predicate{} in {} file{}\n```",
            if whens == 1 { "" } else { "s" },
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        ));
        let text = self.text(path).ok()?;
        let index = LineIndex::new(&text);
        Some(lsp_types::Hover {
            contents: lsp_types::HoverContents::Markup(lsp_types::MarkupContent {
                kind: lsp_types::MarkupKind::Markdown,
                value,
            }),
            range: Some(index.range(category.start, category.end, self.encoding)),
        })
    }

    /// The files a layer's `include` or `exclude` URI at `position` names, as the layers take
    /// them: a bindings file (`confdir:/NAME`, `module:/MODULE::NAME`, `module:/*::NAME`), or
    /// the `hiera.yaml` whose data it reads (`confdir-hiera:/DIR`, `module-hiera:/MODULE/DIR`).
    /// `None` where the cursor is on no such URI.
    fn layer_uri_definition(
        &self,
        path: &Path,
        position: lsp_types::Position,
    ) -> Option<Vec<Location>> {
        if path.extension().is_none_or(|e| e != "pp") {
            return None;
        }
        let text = self.text(path).ok()?;
        let offset = LineIndex::new(&text).offset(position, self.encoding);
        let (uri, _, _) = keys::layer_uri_at(&text, offset)?;
        let options = self.options_with_buffers();
        let Ok(files) = crate::tree::discover(std::slice::from_ref(&self.root), &options) else {
            return Some(Vec::new());
        };
        let sources: Vec<(usize, crate::lower::layers::BindingsSource)> = files
            .iter()
            .enumerate()
            .filter_map(|(i, f)| {
                let source = match &f.role {
                    crate::tree::FileRole::HieraConfig { module, dir } => {
                        crate::lower::layers::BindingsSource {
                            module: module.as_deref(),
                            name: "",
                            hiera: Some(dir),
                        }
                    }
                    role => crate::lower::layers::BindingsSource::of(role)?,
                };
                Some((i, source))
            })
            .collect();
        let only: Vec<crate::lower::layers::BindingsSource> =
            sources.iter().map(|(_, s)| *s).collect();
        let named = crate::lower::layers::named_by(&uri, &only).unwrap_or_default();
        let start = lsp_types::Position::new(0, 0);
        Some(
            named
                .into_iter()
                .filter_map(|at| {
                    let file = &files[sources.get(at)?.0];
                    let uri = uri_of(&absolute(&file.path))?;
                    Some(Location::new(uri, lsp_types::Range::new(start, start)))
                })
                .collect(),
        )
    }

    /// The bindings URIs that complete the one being written in a layer's `include` or
    /// `exclude` (`start..end` of `text`): every file of the tree a layer can name
    /// (`confdir:/NAME`, `module:/MODULE::NAME`, `module:/*::NAME` for a name some module has,
    /// `confdir-hiera:/DIR`, `module-hiera:/MODULE/DIR`), each with the file it names.
    fn layer_uri_completion(
        &self,
        text: &str,
        start: usize,
        end: usize,
        offset: usize,
    ) -> lsp_types::CompletionList {
        let written = text.get(start..offset.max(start)).unwrap_or_default();
        let options = self.options_with_buffers();
        let files =
            crate::tree::discover(std::slice::from_ref(&self.root), &options).unwrap_or_default();
        let mut uris: BTreeMap<String, String> = BTreeMap::new();
        for f in &files {
            let shown = f.path.strip_prefix(&self.root).unwrap_or(&f.path);
            let shown = shown.display().to_string();
            match &f.role {
                crate::tree::FileRole::Bindings {
                    expected_name,
                    module: None,
                } => {
                    uris.insert(format!("confdir:/{expected_name}"), shown);
                }
                crate::tree::FileRole::Bindings {
                    expected_name,
                    module: Some(module),
                } => {
                    uris.insert(format!("module:/{expected_name}"), shown);
                    if let Some(name) = expected_name
                        .strip_prefix(module.as_str())
                        .and_then(|n| n.strip_prefix("::"))
                    {
                        uris.insert(
                            format!("module:/*::{name}"),
                            format!("the `{name}` bindings of every module that has them"),
                        );
                    }
                }
                crate::tree::FileRole::HieraConfig { module, dir } => {
                    let uri = match module {
                        None => format!("confdir-hiera:/{dir}"),
                        Some(m) if dir.is_empty() => format!("module-hiera:/{m}"),
                        Some(m) => format!("module-hiera:/{m}/{dir}"),
                    };
                    uris.insert(uri, shown);
                }
                _ => {}
            }
        }
        let offers = uris
            .into_iter()
            .filter(|(uri, _)| uri.starts_with(written))
            .map(|(uri, file)| Offer {
                new_text: uri.clone(),
                label: uri,
                kind: lsp_types::CompletionItemKind::FILE,
                detail: file,
            });
        let range = LineIndex::new(text).range(start, end, self.encoding);
        completion_list(range, offers)
    }

    /// Where the sites declare the category at `position`.
    fn category_definition(&self, path: &Path, position: lsp_types::Position) -> Vec<Location> {
        let Some(category) = self.category_at(path, position) else {
            return Vec::new();
        };
        let (declared, _) = self.category_places();
        self.locations(declared.iter().filter(|(_, c)| c.name == category.name))
    }

    /// The sites' declarations of the category at `position` (with `with_declarations`) and
    /// every `when` that names it.
    fn category_references(
        &self,
        path: &Path,
        position: lsp_types::Position,
        with_declarations: bool,
    ) -> Vec<Location> {
        let Some(category) = self.category_at(path, position) else {
            return Vec::new();
        };
        let (declared, used) = self.category_places();
        let declared = declared.iter().filter(|_| with_declarations);
        self.locations(
            declared
                .chain(used.iter())
                .filter(|(_, c)| c.name == category.name),
        )
    }

    fn locations<'a>(&self, places: impl Iterator<Item = &'a CategoryPlace>) -> Vec<Location> {
        let mut out = Vec::new();
        for (file, c) in places {
            let (Ok(text), Some(uri)) = (self.text(file), uri_of(file)) else {
                continue;
            };
            let index = LineIndex::new(&text);
            out.push(Location::new(
                uri,
                index.range(c.start, c.end, self.encoding),
            ));
        }
        out
    }

    /// The categories a `when` can name where one is being written (`start..end` of `text`):
    /// those the tree's sites declare with `node` and `environment` (pbc adds them where a
    /// site does not), or pbc's defaults where no site declares any.
    fn category_completion(
        &self,
        text: &str,
        start: usize,
        end: usize,
        offset: usize,
    ) -> lsp_types::CompletionList {
        let written = text.get(start..offset.max(start)).unwrap_or_default();
        let (declared, _) = self.category_places();
        let mut sites: BTreeMap<&Path, Vec<String>> = BTreeMap::new();
        for (file, c) in &declared {
            sites
                .entry(file.as_path())
                .or_default()
                .push(c.name.clone());
        }
        let mut names: Vec<String> = Vec::new();
        let orders: Vec<Vec<String>> = if sites.is_empty() {
            vec![crate::load::category_precedence(Vec::new())]
        } else {
            sites
                .into_values()
                .map(crate::load::category_precedence)
                .collect()
        };
        for order in orders {
            for name in order.into_iter().filter(|n| n != "common") {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        // Highest precedence first, as the site ranks them.
        let offers = names
            .into_iter()
            .filter(|n| n.starts_with(written))
            .map(|name| Offer {
                new_text: name.clone(),
                label: name,
                kind: lsp_types::CompletionItemKind::ENUM_MEMBER,
                detail: "category".to_string(),
            });
        let range = LineIndex::new(text).range(start, end, self.encoding);
        completion_list(range, offers)
    }

    /// The values a category being tested can take (`slot`: the category, where its value is
    /// written in `text`, and whether it is quoted): those the tree's `when`s name for it, and
    /// those its fact has in the nodes of the tree's `facts/` (the fact the site's
    /// declaration reads; `fqdn` for an undeclared `node`, D8; the category's own name for
    /// pbc's defaults, D10).
    fn category_value_completion(
        &self,
        text: &str,
        (category, start, end, quoted): (String, usize, usize, bool),
        offset: usize,
    ) -> lsp_types::CompletionList {
        let written = text.get(start..offset.max(start)).unwrap_or_default();
        let (declared, used) = self.category_places();
        // Each value with the `when`s that name it and the nodes whose facts give it.
        let mut values: BTreeMap<String, (usize, Vec<String>)> = BTreeMap::new();
        for (_, c) in used.iter().filter(|(_, c)| c.name == category) {
            if let Some(v) = &c.value {
                values.entry(v.clone()).or_default().0 += 1;
            }
        }
        let fact = match declared.iter().find(|(_, c)| c.name == category) {
            Some((_, c)) => c.value.clone(),
            None if category == "node" => Some("fqdn".to_string()),
            None if declared.is_empty()
                && crate::lower::DEFAULT_CATEGORIES.contains(&category.as_str()) =>
            {
                Some(category.clone())
            }
            None => None,
        };
        if let Some(fact) = fact {
            for (node, value) in self.fact_values(&fact) {
                values.entry(value).or_default().1.push(node);
            }
        }
        let offers = values
            .into_iter()
            .filter(|(v, _)| v.starts_with(written))
            .map(|(value, (whens, nodes))| {
                let mut detail = Vec::new();
                if whens > 0 {
                    detail.push(format!(
                        "named by {whens} `when`{}",
                        if whens == 1 { "" } else { "s" }
                    ));
                }
                if !nodes.is_empty() {
                    let shown: Vec<&str> = nodes.iter().take(3).map(String::as_str).collect();
                    let more = nodes.len().saturating_sub(shown.len());
                    detail.push(format!(
                        "the fact of {}{}",
                        shown.join(", "),
                        if more > 0 {
                            format!(" and {more} more")
                        } else {
                            String::new()
                        }
                    ));
                }
                Offer {
                    new_text: if quoted {
                        value.clone()
                    } else {
                        format!("'{value}'")
                    },
                    label: value,
                    kind: lsp_types::CompletionItemKind::VALUE,
                    detail: detail.join("; "),
                }
            });
        let range = LineIndex::new(text).range(start, end, self.encoding);
        completion_list(range, offers)
    }

    /// The value of the fact `fact` (a string, number or boolean) for each node of the tree's
    /// `facts/` that has it, as (node, value); at most [`MOST_FACTSETS`] factsets are read.
    fn fact_values(&self, fact: &str) -> Vec<(String, String)> {
        let Ok(sets) = crate::inject::nodes::factsets(&self.root.join("facts")) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for (node, path) in sets.into_iter().take(MOST_FACTSETS) {
            if !self.may_read(&path) {
                continue;
            }
            let mut request = crate::load::Request::default();
            if crate::load::facts::load(&path, &mut request, &self.options.files).is_err() {
                continue;
            }
            let value = match request.facts.get(fact) {
                Some(crate::eval::Value::String(s)) => s.to_string(),
                Some(v @ (crate::eval::Value::Integer(_) | crate::eval::Value::Boolean(_))) => {
                    v.to_display_string()
                }
                _ => continue,
            };
            out.push((node, value));
        }
        out
    }

    /// `pbc lookup --explain KEY` over the tree as the editor holds it, for `node` (a node
    /// of the tree's `facts/` directory, or a name alone) or else the node the settings chose.
    pub fn explain(&self, key: &str, json: bool, node: Option<&str>) -> Explained {
        let (facts, node) = match node {
            Some(node) => (self.facts_of(node), Some(node.to_string())),
            None => {
                let facts = self.chosen_facts();
                if let Some(facts) = facts.as_ref().filter(|f| !self.may_read(f)) {
                    return Explained {
                        explanation: String::new(),
                        said: format!("the `facts` setting: {}\n", outside(facts, &self.root)),
                    };
                }
                (facts, self.node.clone())
            }
        };
        let loaded_for = (self.generation, facts, node);
        let mut loaded = self.loaded_tree();
        if let Some(tree) = loaded.as_ref().filter(|t| t.loaded_for == loaded_for) {
            if let Some(explained) = tree.ask(key, json) {
                return explained;
            }
        }
        // Dropping the tree loaded before ends its thread (and frees it) there.
        *loaded = None;
        let tree = match self.load_tree(loaded_for) {
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

    /// The tree loaded for hovers. A poisoned lock held only the last tree loaded: it is
    /// loaded again.
    fn loaded_tree(&self) -> std::sync::MutexGuard<'_, Option<LoadedTree>> {
        self.loaded
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Starts loading the tree as the editor holds it now for the facts file and node of
    /// `loaded_for`, on a thread of its own.
    fn load_tree(
        &self,
        loaded_for: (u64, Option<PathBuf>, Option<String>),
    ) -> std::io::Result<LoadedTree> {
        let lookup = crate::inject::query::LookupOptions {
            tree: self.root.clone(),
            facts: loaded_for.1.clone(),
            node: loaded_for.2.clone(),
            explain: true,
            ..Default::default()
        };
        self.trees_loaded
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        LoadedTree::start(
            loaded_for,
            lookup,
            self.options_with_buffers(),
            self.lookup_memo.clone(),
        )
    }

    /// Whether a tree was loaded for hovers and the tree changed since
    /// ([`Workspace::load_ahead`] would load it again).
    pub fn loaded_tree_is_stale(&self) -> bool {
        self.loaded_tree()
            .as_ref()
            .is_some_and(|t| t.loaded_for.0 != self.generation)
    }

    /// Loads again, for the same node, the tree last loaded for hovers when the tree changed
    /// since, so that the next hover finds it loaded (or loading) instead of loading it then:
    /// the server calls this once the editor has been quiet for a while after a change. A
    /// hover that comes while it loads waits only for the rest of the load. Nothing is loaded
    /// for an editor that never hovered.
    pub fn load_ahead(&self) -> LoadAhead {
        let mut loaded = self.loaded_tree();
        let Some(stale) = loaded
            .as_ref()
            .filter(|t| t.loaded_for.0 != self.generation)
        else {
            return LoadAhead::Nothing;
        };
        // Two loads at once would hold two trees: the one under way finishes first.
        if !stale.loaded.load(std::sync::atomic::Ordering::Acquire) {
            return LoadAhead::StillLoading;
        }
        let (_, facts, node) = stale.loaded_for.clone();
        // The stale tree is freed on its own thread while the new one loads, as a hover's
        // load frees it.
        *loaded = None;
        *loaded = self.load_tree((self.generation, facts, node)).ok();
        match *loaded {
            Some(_) => LoadAhead::Started,
            None => LoadAhead::Nothing,
        }
    }

    /// Whether a tree is being loaded for hovers (ahead of them, on a thread of its own).
    pub fn loading_a_tree(&self) -> bool {
        self.loaded_tree()
            .as_ref()
            .is_some_and(|t| !t.loaded.load(std::sync::atomic::Ordering::Acquire))
    }

    /// How many trees were loaded for hovers (by a hover or ahead of one) in the session.
    pub fn trees_loaded(&self) -> u64 {
        self.trees_loaded.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The facts file the settings choose: `facts`, or else the factset of `node`.
    fn chosen_facts(&self) -> Option<PathBuf> {
        match (&self.facts, &self.node) {
            (Some(facts), _) => Some(self.root.join(facts)),
            (None, Some(node)) => self.facts_of(node),
            (None, None) => None,
        }
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
        let Some((key, text)) = self.key_at(path, position) else {
            return self.category_hover(path, position);
        };
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
        if let Some(files) = self.layer_uri_definition(path, position) {
            return files;
        }
        let Some((key, _)) = self.key_at(path, position) else {
            return self.category_definition(path, position);
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
            let data = d.fix.as_ref().and_then(|fix| {
                let (span, replacement) = fix.edit(files)?;
                let title = fix.title(files)?;
                // A fix is offered only in the file the diagnostic is shown in.
                if span.file != d.span.file {
                    return None;
                }
                let index = indexes
                    .entry(span.file)
                    .or_insert_with(|| LineIndex::new(files.source(span.file)));
                let range = index.range(span.start as usize, span.end as usize, self.encoding);
                serde_json::to_value(FixData {
                    fix: QuickFix {
                        title,
                        edit: lsp_types::TextEdit::new(range, replacement.to_string()),
                    },
                })
                .ok()
            });
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
                    data,
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

/// What a published diagnostic carries in its `data` when pbc can carry out its help: the
/// edit, and what an editor calls it.
#[derive(serde::Serialize, serde::Deserialize)]
struct FixData {
    fix: QuickFix,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct QuickFix {
    title: String,
    edit: lsp_types::TextEdit,
}

/// The quick fixes for the diagnostics of the file at `uri` that touch `range`: one for each
/// that carries its edit (a did-you-mean, a missing `to`, `=>` for `to`). `published` are the
/// diagnostics last sent for the file, with their `data`; an editor need not send it back.
pub fn quick_fixes(
    uri: &Uri,
    published: &[lsp_types::Diagnostic],
    range: lsp_types::Range,
) -> Vec<lsp_types::CodeActionOrCommand> {
    let touches = |r: &lsp_types::Range| r.start <= range.end && range.start <= r.end;
    published
        .iter()
        .filter(|d| touches(&d.range))
        .filter_map(|d| {
            let data: FixData = serde_json::from_value(d.data.clone()?).ok()?;
            // `changes`, the form every editor takes, is the protocol's map by URI (whose
            // hash lsp_types does not change once made).
            #[allow(clippy::mutable_key_type)]
            let changes = std::collections::HashMap::from([(uri.clone(), vec![data.fix.edit])]);
            Some(lsp_types::CodeActionOrCommand::CodeAction(
                lsp_types::CodeAction {
                    title: data.fix.title,
                    kind: Some(lsp_types::CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![d.clone()]),
                    edit: Some(lsp_types::WorkspaceEdit {
                        changes: Some(changes),
                        ..Default::default()
                    }),
                    is_preferred: Some(true),
                    ..Default::default()
                },
            ))
        })
        .collect()
}

/// One thing a completion offers: what the editor lists, what it writes in place of the word
/// being written, and what it shows beside it.
struct Offer {
    label: String,
    new_text: String,
    kind: lsp_types::CompletionItemKind,
    detail: String,
}

/// `offers`, in their order (which the editor keeps), each replacing `range`: at most
/// [`MOST_COMPLETIONS`], the list marked incomplete past them.
fn completion_list(
    range: lsp_types::Range,
    offers: impl Iterator<Item = Offer>,
) -> lsp_types::CompletionList {
    let mut items = Vec::new();
    let mut is_incomplete = false;
    for (rank, offer) in offers.enumerate() {
        if rank == MOST_COMPLETIONS {
            is_incomplete = true;
            break;
        }
        items.push(lsp_types::CompletionItem {
            label: offer.label,
            kind: Some(offer.kind),
            detail: Some(offer.detail),
            sort_text: Some(format!("{rank:04}")),
            text_edit: Some(lsp_types::CompletionTextEdit::Edit(
                lsp_types::TextEdit::new(range, offer.new_text),
            )),
            ..Default::default()
        });
    }
    lsp_types::CompletionList {
        is_incomplete,
        items,
    }
}

/// Where `name` stands in `order` (a request's categories, highest precedence first), for
/// `whose` order.
fn precedence_line(name: &str, order: &[String], whose: &str) -> String {
    let written = order.join(" > ");
    match order.iter().position(|c| c == name) {
        Some(at) => format!(
            "precedence in {whose}: {} of {} ({written}; within a layer, a binding whose `when` names a higher one wins, D6)\n",
            at + 1,
            order.len()
        ),
        None => format!("not a category of {whose} ({written})\n"),
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

/// The most keys a completion offers: past them, the editor asks again as more is typed.
pub const MOST_COMPLETIONS: usize = 1000;

/// The most factsets of the tree's `facts/` a completion reads for a category's values.
pub const MOST_FACTSETS: usize = 1000;

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

#[cfg(test)]
mod tests {
    use super::*;

    /// A completion lists its offers in their order, each replacing the word being written,
    /// and past [`MOST_COMPLETIONS`] says the list is incomplete (the editor asks again as
    /// more is typed).
    #[test]
    fn completion_lists_are_bounded_and_keep_their_order() {
        let range = lsp_types::Range::default();
        let offers = |n: usize| {
            (0..n).rev().map(|i| Offer {
                label: format!("k{i}"),
                new_text: format!("k{i}"),
                kind: lsp_types::CompletionItemKind::CONSTANT,
                detail: String::new(),
            })
        };
        let all = completion_list(range, offers(MOST_COMPLETIONS));
        assert!(!all.is_incomplete);
        assert_eq!(all.items.len(), MOST_COMPLETIONS);
        let sorted: Vec<&str> = all
            .items
            .iter()
            .filter_map(|i| i.sort_text.as_deref())
            .collect();
        assert!(sorted.windows(2).all(|w| w[0] < w[1]), "{sorted:?}");
        assert_eq!(all.items[0].label, format!("k{}", MOST_COMPLETIONS - 1));
        let more = completion_list(range, offers(MOST_COMPLETIONS + 1));
        assert!(more.is_incomplete);
        assert_eq!(more.items.len(), MOST_COMPLETIONS);
    }
}
