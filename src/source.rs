//! Reading manifests from disk into a [`SourceMap`]: directory walking in a stable order, and
//! input hygiene that must happen before lexing (invalid UTF-8, UTF-16/32 byte order marks).
//! It must not interpret the text.

use crate::diag::{codes, Diagnostic};
use crate::span::{FileId, SourceMap, Span};
use std::path::{Path, PathBuf};

/// A file's bytes as read: its own, or a text held elsewhere (an editor's buffer, a file the
/// language server keeps between checks), shared so that a check takes it without a copy; such
/// a text is UTF-8 already.
#[derive(Clone, Debug)]
pub enum ReadBytes {
    Owned(Vec<u8>),
    Text(std::sync::Arc<str>),
}

impl ReadBytes {
    pub fn into_vec(self) -> Vec<u8> {
        match self {
            ReadBytes::Owned(bytes) => bytes,
            ReadBytes::Text(text) => text.as_bytes().to_vec(),
        }
    }
}

impl From<Vec<u8>> for ReadBytes {
    fn from(bytes: Vec<u8>) -> ReadBytes {
        ReadBytes::Owned(bytes)
    }
}

/// Adds `bytes` as a file. Returns the id and, when the bytes are not UTF-8, the diagnostic
/// that stops this file (the stored text is then a lossy copy, for rendering only).
pub fn add_source(
    files: &mut SourceMap,
    name: impl Into<std::sync::Arc<str>>,
    bytes: ReadBytes,
) -> (FileId, Option<Diagnostic>) {
    let id = FileId(u32::try_from(files.len()).unwrap_or(u32::MAX));
    match bytes {
        ReadBytes::Text(text) => (files.add(name, text), None),
        ReadBytes::Owned(bytes) => {
            let (text, bad) = decode(id, bytes);
            (files.add(name, text), bad)
        }
    }
}

/// The text of the file `id` will be, from its `bytes`, and when they are not UTF-8 the
/// diagnostic that stops it (the text is then a lossy copy, for rendering only). Apart from
/// [`add_source`] for files read on several cores, each of which knows its id beforehand.
pub fn decode(id: FileId, bytes: Vec<u8>) -> (String, Option<Diagnostic>) {
    match String::from_utf8(bytes) {
        Ok(text) => (text, None),
        Err(e) => {
            let bytes = e.as_bytes();
            let bad = e.utf8_error().valid_up_to();
            let bom = [
                (&[0x00, 0x00, 0xFE, 0xFF][..], "UTF-32 (big endian)"),
                (&[0xFF, 0xFE, 0x00, 0x00][..], "UTF-32 (little endian)"),
                (&[0xFE, 0xFF][..], "UTF-16 (big endian)"),
                (&[0xFF, 0xFE][..], "UTF-16 (little endian)"),
            ]
            .into_iter()
            .find(|(b, _)| bytes.starts_with(b));
            let text = String::from_utf8_lossy(bytes).into_owned();
            let d = match bom {
                Some((b, enc)) => Diagnostic::error(
                    codes::ILLEGAL_BOM,
                    Span::new(id, 0, 1),
                    format!("illegal {enc} byte order mark at the beginning of the input: {b:02X?}"),
                )
                .with_note("help: Puppet manifests are UTF-8: convert the file, e.g. `iconv -f UTF-16 -t UTF-8`"),
                None => {
                    // The lossy text keeps offsets up to the first bad byte.
                    Diagnostic::error(
                        codes::INVALID_UTF8,
                        Span::new(id, bad, bad + 1),
                        format!("the file is not valid UTF-8: byte 0x{:02X} at offset {bad}", bytes[bad]),
                    )
                    .with_note("help: Puppet manifests must be UTF-8")
                }
            };
            (text, Some(d))
        }
    }
}

/// Expands directories into their `.pp` files (recursively, sorted, hidden directories
/// skipped); files stay as given.
/// The result is sorted and de-duplicated, so output never depends on argument order.
pub fn expand_paths(paths: &[PathBuf], access: &FileAccess) -> std::io::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    let mut order = PathOrder::default();
    expand_paths_each(
        paths,
        &mut |p| {
            order.push(&p);
            found.push(p);
        },
        access,
    )?;
    Ok(in_order(found, order.finish_unique()))
}

/// [`expand_paths`]'s files as they are found, unsorted and not de-duplicated (a file given
/// twice is given twice); ordering them by [`PathOrder`] and dropping repeats gives
/// [`expand_paths`]'s list.
pub fn expand_paths_each(
    paths: &[PathBuf],
    found: &mut dyn FnMut(PathBuf),
    access: &FileAccess,
) -> std::io::Result<()> {
    for p in paths {
        if p.is_dir() {
            walk_each(
                p,
                &mut |f| {
                    if f.extension().is_some_and(|e| e == "pp") {
                        found(f);
                    }
                },
                access,
            )?;
        } else {
            found(p.clone());
        }
    }
    Ok(())
}

/// The order [`expand_paths`] sorts paths in (`Path`'s own, component by component), taken as
/// the paths come: a walk that hands its files to other cores ([`expand_paths_each`]) makes
/// each one's key as it finds it, while the cores parse, so that only the sort of the keys is
/// left for after the last file.
///
/// Each path is sorted by a key of bytes made once (see [`path_order_key`]), not by its
/// components: comparing two lists of components matched each pair by kind and was most of
/// the 1.3 ms that `pbc parse` of the 1,540-file corpus spent sorting after the last file was
/// parsed, on one core, while the other waited.
#[derive(Default)]
pub struct PathOrder {
    keyed: Vec<(Vec<u8>, usize)>,
}

impl PathOrder {
    /// How many paths were pushed.
    pub fn len(&self) -> usize {
        self.keyed.len()
    }

    /// Whether no path was pushed.
    pub fn is_empty(&self) -> bool {
        self.keyed.is_empty()
    }

    /// The next path, whose place is how many came before it.
    pub fn push(&mut self, path: &Path) {
        let at = self.keyed.len();
        self.keyed.push((path_order_key(path), at));
    }

    /// The place of each path pushed, in order, each path that equals the one before it left
    /// out (a file given twice, by two paths that overlap): only its first place is kept. Equal
    /// keys are equal paths, and comparing keys is cheaper than comparing paths again.
    pub fn finish_unique(self) -> Vec<usize> {
        let mut keyed = self.sorted();
        keyed.dedup_by(|later, first| later.0 == first.0);
        keyed.into_iter().map(|(_, at)| at).collect()
    }

    /// The keys in order; equal keys keep the paths' given order, the place breaking the tie.
    fn sorted(mut self) -> Vec<(Vec<u8>, usize)> {
        self.keyed.sort_unstable();
        self.keyed
    }
}

/// Bytes whose order is `Path`'s order (component by component): each component is a byte for
/// its kind, in the order of `Component`'s kinds, then its name's bytes for a name, then a
/// zero. A name holds no zero byte, so a name that begins another ends first, and keys are
/// compared kind against kind and name against name. (A Windows prefix, `C:` or `\\server`, is
/// keyed by its bytes, where `Path` orders prefixes by their kind first: pbc's paths are Unix
/// paths, which have none.)
fn path_order_key(path: &Path) -> Vec<u8> {
    use std::path::Component;
    let mut key = Vec::with_capacity(path.as_os_str().len() + 16);
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => {
                key.push(1);
                key.extend_from_slice(prefix.as_os_str().as_encoded_bytes());
            }
            Component::RootDir => key.push(2),
            Component::CurDir => key.push(3),
            Component::ParentDir => key.push(4),
            Component::Normal(name) => {
                key.push(5);
                key.extend_from_slice(name.as_encoded_bytes());
            }
        }
        key.push(0);
    }
    key
}

/// The paths at the places `order` names, in that order.
fn in_order(paths: Vec<PathBuf>, order: Vec<usize>) -> Vec<PathBuf> {
    let mut slots: Vec<Option<PathBuf>> = paths.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|at| slots.get_mut(at).and_then(Option::take))
        .collect()
}

/// The largest file pbc reads, unless `--max-file-size` says otherwise: far beyond any real
/// manifest, facts file or ENC output, and far below what would exhaust memory.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 256 * 1024 * 1024;

/// How a command may read files: what `--max-file-size`, `--follow-symlinks` and `--confine`
/// said. Every function here that reads or walks is given it; nothing is set for the process,
/// so a long-lived caller (a server, an editor's language server) may read two trees at once
/// under different rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileAccess {
    max_file_size: u64,
    /// Follow links wherever they lead.
    pub follow_symlinks: bool,
    /// Every path pbc reads must stay in the tree (for trees nobody has reviewed).
    pub confine: bool,
    /// Texts read in place of the files' own (an editor's unsaved buffers).
    pub overlay: Overlay,
    /// What a long-lived caller kept of the disk from its last command ([`KeptDisk`]).
    pub kept: Option<KeptDisk>,
    /// Texts read as shared copies ([`ReadBytes::Text`]), for a caller that keeps them past
    /// the command (the language server's memo of each check): kept, the one copy is shared;
    /// copied instead, the copy read was freed among what the check keeps, and stayed in the
    /// process as holes nothing else fills.
    pub share_texts: bool,
}

/// What a long-lived caller (the language server, from one keystroke's check to the next)
/// keeps of the disk between commands: the walks' results and the files read, so that the
/// next command lists and reads nothing again. (Not the directories' listings: every walk of
/// a check is kept whole, so a check lists only after a change, which forgets everything;
/// kept, the listings of a 10,000-module tree held 3.5 MB for nothing.) It holds only while
/// the disk has not changed under it: its owner keeps one only when something tells it of
/// every change (an editor watching the tree's files), and [`KeptDisk::forget`]s it all at
/// each. A file that could not be read is not kept (the next command tries again). Shared,
/// so that a command's options are cheap to copy; two are equal when they are the same.
#[derive(Clone)]
pub struct KeptDisk(std::sync::Arc<KeptDiskState>);

struct KeptDiskState {
    /// Each walk's result (what it found, as its caller made it), by what was walked and how,
    /// with what it recorded ([`Recorded`]), said again each time the result is used.
    walks: std::sync::Mutex<foldhash::HashMap<String, KeptWalk>>,
    /// Each file read, by the path it was read by. Read on every core at once by each check:
    /// a lock of one reader at a time made them wait for each other.
    /// By a path shared with the walk that found the file, where it was read by one.
    files: std::sync::RwLock<foldhash::HashMap<std::sync::Arc<Path>, KeptFile>>,
    /// The files forgotten alone and not read since ([`KeptDisk::forget_changed_in_place`]),
    /// with the inode each had: the watch may tell of the same save twice (once as the file is
    /// truncated, once as it is closed), the second time before a check has read it again.
    forgotten: std::sync::Mutex<foldhash::HashMap<PathBuf, FileIdentity>>,
    /// How many times `files` changed (a file kept or forgotten), counted once the change is
    /// made: a reader that took files when it was N took what is kept as long as it is N.
    changes: std::sync::atomic::AtomicU64,
}

/// A kept file as a read takes it: none when its text is over the size limit (read the usual
/// way, which refuses it with the reason).
fn within_limit(kept: Option<&KeptFile>, limit: u64) -> Option<KeptFile> {
    kept.filter(|(_, text)| text.len() as u64 <= limit).cloned()
}

/// What [`KeptDisk::forget_changed_in_place`] forgot.
#[derive(Debug, PartialEq, Eq)]
pub enum ForgotInPlace {
    /// The file's text as it was kept.
    Text(std::sync::Arc<str>),
    /// Nothing: the same file was forgotten alone before and not read since.
    Already,
}

/// A walk's result (of the type its caller made), what it recorded, how to tell whether
/// another walk found the same ([`KeptDisk::agrees_with`]), and how to walk again from
/// nothing where its caller said ([`kept_walk_again`]).
type KeptWalk = (
    std::sync::Arc<dyn Found>,
    Recorded,
    SameFound,
    Option<Rewalk>,
);

/// A walk made again from nothing (nothing kept, no buffers): what it finds, or `None` when
/// it fails.
type Rewalk = std::sync::Arc<dyn Fn() -> Option<std::sync::Arc<dyn Found>> + Send + Sync>;

/// What a walk found, whatever its type.
trait Found: std::any::Any + Send + Sync {
    fn as_any(&self) -> &dyn std::any::Any;
}

impl<T: std::any::Any + Send + Sync> Found for T {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// Whether two walks of one key found the same.
type SameFound = fn(&dyn Found, &dyn Found) -> bool;

fn same_found<T: PartialEq + 'static>(a: &dyn Found, b: &dyn Found) -> bool {
    match (
        a.as_any().downcast_ref::<T>(),
        b.as_any().downcast_ref::<T>(),
    ) {
        (Some(a), Some(b)) => a == b,
        _ => false,
    }
}

/// A file as read: its identity and its text (a file that is not UTF-8 is not kept).
type KeptFile = (Option<FileIdentity>, std::sync::Arc<str>);

impl KeptDisk {
    pub fn new() -> KeptDisk {
        KeptDisk(std::sync::Arc::new(KeptDiskState {
            walks: Default::default(),
            files: Default::default(),
            forgotten: Default::default(),
            changes: Default::default(),
        }))
    }

    /// Everything kept forgotten: the disk changed.
    pub fn forget(&self) {
        lock(&self.0.walks).clear();
        {
            let mut files = write_lock(&self.0.files);
            files.clear();
            self.changed();
        }
        lock(&self.0.forgotten).clear();
    }

    /// Counts a change of the files kept: called after the change, under the lock it was made
    /// under (counted before it, a reader could take the old files under the new count).
    fn changed(&self) {
        self.0
            .changes
            .fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }

    /// How many times the files kept changed so far ([`KeptDiskState::changes`]).
    fn changes(&self) -> u64 {
        self.0.changes.load(std::sync::atomic::Ordering::Acquire)
    }

    /// The file at `path` changed in place (saved over its own inode): that file alone is
    /// forgotten, under every path it was kept by, and the text it had is returned. `None`
    /// when that cannot be known, and nothing is forgotten: the path was not kept (or was
    /// kept without an inode), or the file there now is another one (an editor that saves
    /// to a new file and renames it over the old) or none. The walks' results stay kept:
    /// a file's content decides none of them except where it names a deep Hiera directory
    /// ([`crate::tree::may_name_deep_hiera_dirs`]), which the caller tests.
    pub fn forget_changed_in_place(&self, path: &Path) -> Option<ForgotInPlace> {
        let now = std::fs::metadata(path)
            .ok()
            .as_ref()
            .and_then(identity_of)?;
        let Some((kept, text)) = self.file(path) else {
            let forgotten = lock(&self.0.forgotten).get(path) == Some(&now);
            return forgotten.then_some(ForgotInPlace::Already);
        };
        if kept.as_ref() != Some(&now) || !matches!(now, FileIdentity::Inode(..)) {
            return None;
        }
        {
            let mut files = write_lock(&self.0.files);
            files.retain(|_, (identity, _)| identity.as_ref() != Some(&now));
            self.changed();
        }
        lock(&self.0.forgotten).insert(path.to_path_buf(), now);
        Some(ForgotInPlace::Text(text))
    }

    /// Whether the file at `path` is kept with this very text (the same copy, not an equal
    /// one): a reader that kept it knows the file has not changed since.
    pub fn holds(&self, path: &Path, text: &std::sync::Arc<str>) -> bool {
        read_lock(&self.0.files)
            .get(path)
            .is_some_and(|(_, kept)| std::sync::Arc::ptr_eq(kept, text))
    }

    /// How many files are kept.
    fn files(&self) -> usize {
        read_lock(&self.0.files).len()
    }

    fn file(&self, path: &Path) -> Option<KeptFile> {
        read_lock(&self.0.files).get(path).cloned()
    }

    /// [`KeptDisk::file`] of each of `paths`, under one hold of the lock, as
    /// [`read_identified_by`] would take it: none for a path an editor's buffer stands in for,
    /// or whose text is over the size limit (both are read the usual way).
    fn files_unless_overlaid<'p>(
        &self,
        paths: impl Iterator<Item = &'p std::sync::Arc<Path>>,
        access: &FileAccess,
    ) -> Vec<Option<KeptFile>> {
        let files = read_lock(&self.0.files);
        paths
            .map(|path| {
                if access.overlay.get(path).is_some() {
                    return None;
                }
                within_limit(files.get(&**path), access.max_file_size)
            })
            .collect()
    }

    /// [`KeptDisk::file`] of each of `paths`, under one hold of the lock, whatever stands in
    /// for them.
    fn files_kept<'p>(
        &self,
        paths: impl Iterator<Item = &'p std::sync::Arc<Path>>,
    ) -> Vec<Option<KeptFile>> {
        let files = read_lock(&self.0.files);
        paths.map(|path| files.get(&**path).cloned()).collect()
    }

    /// Keeps the file at `path` (`shared`: the same path, shared) as read, when it is UTF-8
    /// (the text kept, to be shared).
    fn keep(
        &self,
        path: &Path,
        shared: Option<&std::sync::Arc<Path>>,
        identity: Option<FileIdentity>,
        bytes: &[u8],
    ) -> Option<std::sync::Arc<str>> {
        let text: std::sync::Arc<str> = std::sync::Arc::from(std::str::from_utf8(bytes).ok()?);
        let path = shared.map_or_else(|| std::sync::Arc::from(path), std::sync::Arc::clone);
        {
            let mut forgotten = lock(&self.0.forgotten);
            if !forgotten.is_empty() {
                forgotten.remove(&*path);
            }
        }
        {
            let mut files = write_lock(&self.0.files);
            files.insert(path, (identity, text.clone()));
            self.changed();
        }
        Some(text)
    }
}

impl KeptDisk {
    /// Whether nothing is kept: the next command lists and reads the whole tree.
    pub fn is_empty(&self) -> bool {
        self.files() == 0 && lock(&self.0.walks).is_empty()
    }

    /// Whether what is kept here is what `fresh` (kept by a command that has just listed and
    /// read the disk anew, from nothing) found: every walk both made found the same, every
    /// file both read has the same text, and every file only this one read (a node's facts,
    /// read for a hover) still has the text kept, read again now by `access`. A walk only
    /// this one made is walked again where its caller said how ([`kept_walk_again`]), else
    /// not compared ([`KeptDisk::forget_walks_not_in`] forgets it).
    pub fn agrees_with(&self, fresh: &KeptDisk, access: &FileAccess) -> bool {
        let walks: Vec<(String, KeptWalk)> = lock(&self.0.walks)
            .iter()
            .map(|(key, walk)| (key.clone(), walk.clone()))
            .collect();
        {
            let fresh_walks = lock(&fresh.0.walks);
            for (key, (found, recorded, same, rewalk)) in &walks {
                let Some((now, recorded_now, _, _)) = fresh_walks.get(key) else {
                    match rewalk.as_ref().map(|rewalk| rewalk()) {
                        Some(Some(now)) if same(&**found, &*now) => {}
                        Some(_) => return false,
                        None => {}
                    }
                    continue;
                };
                if recorded != recorded_now || !same(&**found, &**now) {
                    return false;
                }
            }
        }
        let files: Vec<(std::sync::Arc<Path>, std::sync::Arc<str>)> = read_lock(&self.0.files)
            .iter()
            .map(|(path, (_, text))| (path.clone(), text.clone()))
            .collect();
        let mut unread = Vec::new();
        {
            let fresh_files = read_lock(&fresh.0.files);
            for (path, text) in files {
                match fresh_files.get(&path) {
                    Some((_, now)) if **now != *text => return false,
                    Some(_) => {}
                    None => unread.push((path, text)),
                }
            }
        }
        unread.into_iter().all(|(path, text)| {
            read_file(&path, "file", access).is_ok_and(|now| now == text.as_bytes())
        })
    }

    /// The walks `fresh` did not make and that cannot be made again forgotten:
    /// [`KeptDisk::agrees_with`] could not compare them, so they are walked again when next
    /// asked for.
    pub fn forget_walks_not_in(&self, fresh: &KeptDisk) {
        let fresh_walks: std::collections::BTreeSet<String> =
            lock(&fresh.0.walks).keys().cloned().collect();
        lock(&self.0.walks)
            .retain(|key, (_, _, _, rewalk)| rewalk.is_some() || fresh_walks.contains(key));
    }
}

impl Default for KeptDisk {
    fn default() -> KeptDisk {
        KeptDisk::new()
    }
}

impl std::fmt::Debug for KeptDisk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeptDisk({} files)", self.files())
    }
}

impl PartialEq for KeptDisk {
    fn eq(&self, other: &KeptDisk) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for KeptDisk {}

/// What `walk` finds, from what `access` kept of the same walk (`key`: what is walked and how)
/// when it keeps the disk, or walked now (and kept). What the walk recorded on this thread
/// (links it did not follow, directories whose path is too long) is recorded again each time
/// its result is used, so that a command reports the same with a kept walk as without.
pub fn kept_walk<T: Clone + PartialEq + Send + Sync + 'static>(
    access: &FileAccess,
    key: impl FnOnce() -> String,
    walk: impl FnOnce() -> std::io::Result<T>,
) -> std::io::Result<T> {
    kept_walk_with(access, key, walk, None)
}

/// [`kept_walk`] of a walk that `again` makes from nothing, without the command's other reads
/// around it: a look at the disk that made none of them (a hover's load of one environment's
/// layout, which no check walks as such) walks it again to compare.
pub fn kept_walk_again<T: Clone + PartialEq + Send + Sync + 'static>(
    access: &FileAccess,
    key: impl FnOnce() -> String,
    again: impl Fn() -> std::io::Result<T> + Send + Sync + 'static,
) -> std::io::Result<T> {
    if access.kept.is_none() {
        return again();
    }
    let again = std::sync::Arc::new(again);
    let rewalk: Rewalk = {
        let again = std::sync::Arc::clone(&again);
        std::sync::Arc::new(move || {
            again()
                .ok()
                .map(|found| std::sync::Arc::new(found) as std::sync::Arc<dyn Found>)
        })
    };
    kept_walk_with(access, key, || again(), Some(rewalk))
}

fn kept_walk_with<T: Clone + PartialEq + Send + Sync + 'static>(
    access: &FileAccess,
    key: impl FnOnce() -> String,
    walk: impl FnOnce() -> std::io::Result<T>,
    rewalk: Option<Rewalk>,
) -> std::io::Result<T> {
    let Some(kept) = &access.kept else {
        return walk();
    };
    // How files may be read decides what a walk follows and finds.
    let key = format!(
        "{} {} {} {}",
        key(),
        access.follow_symlinks,
        access.confine,
        access.max_file_size
    );
    let found = lock(&kept.0.walks)
        .get(&key)
        .and_then(|(found, record, _, _)| {
            // The walk's own result, not the `Arc` around it (which is `Found` too).
            let found = (**found).as_any().downcast_ref::<T>()?.clone();
            Some((found, record.clone()))
        });
    if let Some((found, record)) = found {
        adopt(record);
        return Ok(found);
    }
    let (found, record) = recorded(&walk_context(), walk);
    adopt(record.clone());
    let found = found?;
    let same: SameFound = same_found::<T>;
    let walked = (
        std::sync::Arc::new(found.clone()) as _,
        record,
        same,
        rewalk,
    );
    lock(&kept.0.walks).insert(key, walked);
    Ok(found)
}

/// A lock that a panic elsewhere left poisoned still guards what it guarded: a map of what
/// was read, whole entries inserted or removed.
fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn read_lock<T>(lock: &std::sync::RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write_lock<T>(lock: &std::sync::RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Texts that stand in for files on disk: what an editor holds and has not saved. Reading a
/// path it names gives its text, under the same size limit; the file's identity is still the
/// file's. Only existing files are read through it: a walk finds what is on disk. Shared, so
/// that a command's options are cheap to copy; two overlays are equal when they are the same.
#[derive(Clone, Debug, Default)]
pub struct Overlay(
    Option<std::sync::Arc<std::collections::BTreeMap<PathBuf, std::sync::Arc<str>>>>,
);

impl Overlay {
    /// An overlay of `texts`, by absolute path.
    pub fn new(texts: std::collections::BTreeMap<PathBuf, std::sync::Arc<str>>) -> Overlay {
        Overlay((!texts.is_empty()).then(|| std::sync::Arc::new(texts)))
    }

    /// The text that stands in for `path`, if any. A relative path is taken from the current
    /// directory, as the system would.
    pub fn get(&self, path: &Path) -> Option<&std::sync::Arc<str>> {
        let texts = self.0.as_ref()?;
        if path.is_absolute() {
            return texts.get(path);
        }
        texts.get(&std::env::current_dir().ok()?.join(path))
    }
}

impl PartialEq for Overlay {
    fn eq(&self, other: &Overlay) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        }
    }
}

impl Eq for Overlay {}

impl Default for FileAccess {
    fn default() -> FileAccess {
        FileAccess {
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            follow_symlinks: false,
            confine: false,
            overlay: Overlay::default(),
            kept: None,
            share_texts: false,
        }
    }
}

impl FileAccess {
    /// The largest file [`read_file`] accepts (`--max-file-size`), held to 4 GiB: spans hold
    /// offsets as `u32`.
    pub fn with_max_file_size(self, bytes: u64) -> FileAccess {
        FileAccess {
            max_file_size: bytes.min(u64::from(u32::MAX)),
            ..self
        }
    }

    /// The largest file [`read_file`] accepts.
    pub fn max_file_size(&self) -> u64 {
        self.max_file_size
    }
}

/// Reads a whole file that pbc expects to be a regular file of bounded size. A FIFO, a device
/// (`/dev/zero`) or a directory is refused, and so is a file larger than the limit: nothing
/// endless is read until memory runs out. `what` says what the file is for, in the error.
/// Opens `path` for reading without waiting: a FIFO with no writer would block `open` until
/// one came (a data file that is a FIFO hung `pbc check`); opened so, it is then refused as
/// not a regular file. Reading a regular file is the same either way.
pub fn open_without_waiting(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    options.open(path)
}

pub fn read_file(path: &Path, what: &str, access: &FileAccess) -> std::io::Result<Vec<u8>> {
    read_identified(path, what, access)
        .1
        .map(ReadBytes::into_vec)
}

/// [`read_file`], with the file's identity ([`FileIdentity`]) taken from the open file, when
/// it could be opened: the `stat` that reading makes anyway, not another one of its path.
pub fn read_identified(
    path: &Path,
    what: &str,
    access: &FileAccess,
) -> (Option<FileIdentity>, std::io::Result<ReadBytes>) {
    read_identified_by(path, None, what, access)
}

/// [`read_identified`] of a path the caller holds shared: a kept disk keeps the file by it,
/// not by a copy of its own (a tree's paths were otherwise held twice).
pub fn read_identified_shared(
    path: &std::sync::Arc<Path>,
    what: &str,
    access: &FileAccess,
) -> (Option<FileIdentity>, std::io::Result<ReadBytes>) {
    read_identified_by(path, Some(path), what, access)
}

/// [`read_identified_shared`] of `count` files (the `i`th at `path_of(i)`), in order, on every
/// core. The kept disk is asked for a run of files at a time, under one hold of its lock: the
/// language server reads a 10,000-file tree from it at each keystroke and each load for a
/// hover, and a hold for each file had the cores take turns on the lock's count of readers.
/// The files it does not keep are then read one by one, each into a place of its own, as
/// before: read by runs, a first check's texts were laid out among the runs' lists, which
/// left holes in the memory the server keeps them in.
pub fn read_identified_all<'p>(
    count: usize,
    path_of: impl Fn(usize) -> &'p std::sync::Arc<Path> + Sync,
    what: &str,
    access: &FileAccess,
) -> Vec<(Option<FileIdentity>, std::io::Result<ReadBytes>)> {
    read_identified_all_again(count, path_of, what, access, None)
}

/// What [`read_identified_all_again`] took from the kept disk for a list of files, for the
/// next read of the same list: while nothing was kept or forgotten since, each file is what
/// was taken then. The language server reads the same 10,000 files for each load for a hover,
/// the edit that made it a new load in a buffer, not on disk: looking each up in the kept
/// disk again was a fifth of such a load.
#[derive(Default)]
pub struct KeptReads {
    /// The kept disk taken from, and its count of changes then.
    taken_from: Option<(std::sync::Weak<KeptDiskState>, u64)>,
    /// By file of the list, what the kept disk held for it (whatever stood in for it).
    files: Vec<Option<KeptFile>>,
}

impl KeptReads {
    /// Whether `kept` holds, for a list of `count` files, what was taken of it.
    fn still_held(&self, kept: &KeptDisk, count: usize) -> bool {
        self.files.len() == count
            && self.taken_from.as_ref().is_some_and(|(disk, changes)| {
                std::ptr::eq(disk.as_ptr(), std::sync::Arc::as_ptr(&kept.0))
                    && *changes == kept.changes()
            })
    }
}

/// [`read_identified_all`] of the same list of files as the read that left `again` (none: a
/// read of its own): the files the kept disk held then are taken from `again` as long as the
/// kept disk has not changed since, and `again` is left with what this read took.
pub fn read_identified_all_again<'p>(
    count: usize,
    path_of: impl Fn(usize) -> &'p std::sync::Arc<Path> + Sync,
    what: &str,
    access: &FileAccess,
    again: Option<&mut KeptReads>,
) -> Vec<(Option<FileIdentity>, std::io::Result<ReadBytes>)> {
    const RUN: usize = 256;
    let kept: Vec<Option<KeptFile>> = match (&access.kept, again) {
        (Some(kept), Some(again)) if kept.files() > 0 => {
            if !again.still_held(kept, count) {
                // Counted before the files are taken: a change made while they are is a
                // change since.
                let changes = kept.changes();
                again.files = crate::parallel::parallel_map(count.div_ceil(RUN), |run| {
                    let files = run * RUN..((run + 1) * RUN).min(count);
                    kept.files_kept(files.map(&path_of))
                })
                .into_iter()
                .flatten()
                .collect();
                again.taken_from = Some((std::sync::Arc::downgrade(&kept.0), changes));
            }
            let limit = access.max_file_size;
            again
                .files
                .iter()
                .enumerate()
                .map(|(i, file)| match access.overlay.get(path_of(i)) {
                    Some(_) => None,
                    None => within_limit(file.as_ref(), limit),
                })
                .collect()
        }
        (Some(kept), None) if kept.files() > 0 => {
            crate::parallel::parallel_map(count.div_ceil(RUN), |run| {
                let files = run * RUN..((run + 1) * RUN).min(count);
                kept.files_unless_overlaid(files.map(&path_of), access)
            })
            .into_iter()
            .flatten()
            .collect()
        }
        _ => Vec::new(),
    };
    let missing: Vec<usize> = (0..count)
        .filter(|&i| kept.get(i).is_none_or(Option::is_none))
        .collect();
    let mut read = crate::parallel::parallel_map(missing.len(), |m| {
        let path = path_of(missing[m]);
        read_identified_by(path, Some(path), what, access)
    })
    .into_iter();
    let mut kept = kept.into_iter();
    (0..count)
        .map(|_| match kept.next().flatten() {
            Some((identity, text)) => (identity, Ok(ReadBytes::Text(text))),
            None => read
                .next()
                .unwrap_or_else(|| (None, Err(std::io::Error::other("a file was left unread")))),
        })
        .collect()
}

fn read_identified_by(
    path: &Path,
    shared: Option<&std::sync::Arc<Path>>,
    what: &str,
    access: &FileAccess,
) -> (Option<FileIdentity>, std::io::Result<ReadBytes>) {
    use std::io::{Error, ErrorKind};
    let limit = access.max_file_size;
    let fail = |kind: ErrorKind, why: String| {
        Error::new(
            kind,
            format!("cannot read the {what} `{}`: {why}", path.display()),
        )
    };
    if let Some(text) = access.overlay.get(path) {
        let identity = Some(file_identity(path));
        if text.len() as u64 > limit {
            let why = format!(
                "it has {} bytes, more than the limit of {limit} (`--max-file-size` raises it)",
                text.len()
            );
            return (identity, Err(fail(ErrorKind::InvalidData, why)));
        }
        return (identity, Ok(ReadBytes::Text(text.clone())));
    }
    let kept = access.kept.as_ref().and_then(|k| k.file(path));
    if let Some((identity, text)) = within_limit(kept.as_ref(), limit) {
        return (identity, Ok(ReadBytes::Text(text)));
    }
    let opened = open_without_waiting(path).and_then(|file| Ok((file.metadata()?, file)));
    let (meta, file) = match opened {
        Ok(opened) => opened,
        Err(e) => return (None, Err(fail(e.kind(), io_reason(&e)))),
    };
    let read = || {
        if !meta.is_file() {
            return Err(fail(
                ErrorKind::InvalidInput,
                "it is not a regular file".to_string(),
            ));
        }
        if meta.len() > limit {
            return Err(fail(
                ErrorKind::InvalidData,
                format!(
                    "it has {} bytes, more than the limit of {limit} (`--max-file-size` raises it)",
                    meta.len()
                ),
            ));
        }
        if let Some(bytes) = read_on_two_cores(&file, meta.len()) {
            return Ok(bytes);
        }
        // A file that grows while being read stops at the limit too.
        match read_bounded(file, limit, meta.len()) {
            Ok(Some(bytes)) => Ok(bytes),
            Ok(None) => Err(fail(
                ErrorKind::InvalidData,
                format!("it grew past the limit of {limit} bytes while being read"),
            )),
            Err(e) => Err(fail(e.kind(), io_reason(&e))),
        }
    };
    let identity = identity_of(&meta);
    let read = read();
    // Kept, the text is shared from the first check on: the next check's (the same text)
    // is then known unchanged without being read.
    if let (Some(kept), Ok(bytes)) = (&access.kept, &read) {
        if let Some(text) = kept.keep(path, shared, identity.clone(), bytes) {
            return (identity, Ok(ReadBytes::Text(text)));
        }
    }
    if let (true, Ok(bytes)) = (access.share_texts, &read) {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return (identity, Ok(ReadBytes::Text(std::sync::Arc::from(text))));
        }
    }
    (identity, read.map(ReadBytes::Owned))
}

/// From this size a file is read on two cores ([`read_on_two_cores`]).
const READ_ON_TWO_CORES_FROM: u64 = 8 << 20;

/// A large file's bytes read on two cores, half each, when it has the size it says it has
/// (`size`); `None` otherwise, or when it is small, there is one core or the system is not
/// Unix, and it is read the usual way ([`read_bounded`]). Most of such a read is the system
/// giving the process fresh memory a page at a time: for a 64.6 MB manifest, 75 ms on one core
/// before anything could be parsed. The buffer is made zeroed, which the allocator gives
/// without writing (memory fresh from the system is zero), so each core touches its half
/// first. Positioned reads leave the file's offset where it was, for the usual way.
fn read_on_two_cores(file: &std::fs::File, size: u64) -> Option<Vec<u8>> {
    if size < READ_ON_TWO_CORES_FROM
        || std::thread::available_parallelism().map_or(1, |n| n.get()) < 2
    {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        let len = usize::try_from(size).ok()?;
        let mut bytes = vec![0u8; len];
        let half = len / 2;
        let (first, second) = bytes.split_at_mut(half);
        let read_both = std::thread::scope(|scope| {
            let second_read = std::thread::Builder::new()
                .spawn_scoped(scope, || file.read_exact_at(second, half as u64));
            // No thread to spare: the file is read the usual way.
            let second_read = second_read.ok()?;
            let first_read = file.read_exact_at(first, 0);
            first_read.and(second_read.join().ok()?).ok()
        });
        // A file that said less than it has (it grew since) is read the usual way, within the
        // limit.
        let mut after = [0u8; 1];
        let ended = matches!(file.read_at(&mut after, size), Ok(0));
        read_both.filter(|()| ended).map(|()| bytes)
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        None
    }
}

/// The system's reason for an I/O error, without Rust's `(os error N)` suffix.
pub fn io_reason(e: &std::io::Error) -> String {
    let text = e.to_string();
    match text.find(" (os error ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// Standard input as a file (`--facts -`), within the same size limit as [`read_file`].
pub fn read_stdin(what: &str, access: &FileAccess) -> std::io::Result<Vec<u8>> {
    use std::io::{Error, ErrorKind};
    let limit = access.max_file_size;
    let read = read_bounded(std::io::stdin().lock(), limit, 0).map_err(|e| {
        Error::new(
            e.kind(),
            format!(
                "cannot read the {what} from standard input: {}",
                io_reason(&e)
            ),
        )
    })?;
    read.ok_or_else(|| {
        Error::new(
            ErrorKind::InvalidData,
            format!("cannot read the {what} from standard input: it has more than {limit} bytes (`--max-file-size` raises the limit)"),
        )
    })
}

/// What `input` gives, up to `limit` bytes (`None` past it), in memory that never holds much
/// more than what was read: what the file says it has in one piece, anything else in pieces
/// of at most [`READ_PIECE`] bytes, joined once at the end, each freed as it is copied.
/// (`read_to_end` doubles its buffer, so that an endless stream stopped at 256 MiB had taken
/// 2.5 times that.) `expected` is the size the file says it has.
fn read_bounded(
    mut input: impl std::io::Read,
    limit: u64,
    expected: u64,
) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let mut pieces: Vec<Vec<u8>> = Vec::new();
    let mut total: u64 = 0;
    // A file of the size it says fits in its first piece (with a byte to see its end), however
    // large: in 8 MiB pieces, a 64 MB manifest was read into eight and copied into a ninth
    // buffer, which touched twice its size (its peak 129 MB, now 83) and took a tenth of its
    // parse's time. A file that says more than the limit is read in pieces up to it.
    let mut size = match expected {
        0 => 8192,
        n if n <= limit => usize::try_from(n.saturating_add(1)).unwrap_or(READ_PIECE),
        _ => READ_PIECE,
    };
    loop {
        let mut piece = Vec::with_capacity(size);
        let read =
            if pieces.is_empty() && expected > 0 && expected < SINGLE_READ_BELOW.min(size as u64) {
                // One read gives a file of the size it says it has; then nothing more is asked
                // (`read_to_end` asks again to see the end: a second system call for each of a
                // tree's thousands of small files). Less than that is read on as usual. The buffer
                // is zeroed first, which a large file does not pay: `read_to_end` reads into it as
                // it is (for a 64 MB manifest, the zeroing was 7 ms of its 0.45 s of CPU).
                piece.resize(size, 0);
                let first = loop {
                    match input.read(&mut piece) {
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        other => break other?,
                    }
                };
                piece.truncate(first);
                if first as u64 == expected {
                    first
                } else {
                    first
                        + (&mut input)
                            .take((size - first) as u64)
                            .read_to_end(&mut piece)?
                }
            } else {
                (&mut input).take(size as u64).read_to_end(&mut piece)?
            };
        total += read as u64;
        if total > limit {
            return Ok(None);
        }
        let done = read < size;
        if read > 0 {
            pieces.push(piece);
        }
        if done {
            break;
        }
        size = (size * 2).min(READ_PIECE);
    }
    if pieces.len() == 1 {
        // Thousands of small data files are read: none keeps more than it holds.
        let mut bytes = pieces.pop().unwrap_or_default();
        if bytes.capacity() - bytes.len() > 4096 {
            bytes.shrink_to_fit();
        }
        return Ok(Some(bytes));
    }
    let mut bytes = Vec::with_capacity(total as usize);
    for piece in pieces.drain(..) {
        bytes.extend_from_slice(&piece);
    }
    Ok(Some(bytes))
}

/// A file smaller than this is read by [`read_bounded`] in one system call, into a buffer
/// zeroed first; a larger one by `read_to_end`, which does not zero it but asks once more at
/// the end.
const SINGLE_READ_BELOW: u64 = 1 << 20;

/// The largest piece [`read_bounded`] reads at once.
const READ_PIECE: usize = 8 << 20;

thread_local! {
    /// Links a walk on this thread did not follow: (the link, where it leads).
    static SKIPPED_LINKS: std::cell::RefCell<Vec<(PathBuf, PathBuf)>> =
        const { std::cell::RefCell::new(Vec::new()) };
    /// Directories a walk on this thread could not read because their path is longer than the
    /// system allows: (the directory it is in, its name).
    static TOO_LONG: std::cell::RefCell<Vec<(PathBuf, PathBuf)>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// The directories the walks on this thread could not read since the last call because their
/// path is too long for the system, each as (the directory it is in, its name), sorted.
pub fn take_too_long() -> Vec<(PathBuf, PathBuf)> {
    let mut paths = TOO_LONG.with(|s| std::mem::take(&mut *s.borrow_mut()));
    paths.sort();
    paths.dedup();
    paths
}

/// Whether `e` says a path is longer than the system allows (ENAMETOOLONG).
fn is_too_long(e: &std::io::Error) -> bool {
    #[cfg(unix)]
    {
        e.raw_os_error() == Some(libc::ENAMETOOLONG)
    }
    #[cfg(not(unix))]
    {
        let _ = e;
        false
    }
}

/// The links the walks on this thread did not follow since the last call, sorted.
pub fn take_skipped_links() -> Vec<(PathBuf, PathBuf)> {
    let mut links = SKIPPED_LINKS.with(|s| std::mem::take(&mut *s.borrow_mut()));
    links.sort();
    links.dedup();
    links
}

/// What makes two paths the same file: its device and inode where the system has them (one
/// `stat`, where resolving the path would read every directory on the way), else its
/// canonical path.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum FileIdentity {
    Inode(u64, u64),
    Path(PathBuf),
}

pub fn file_identity(path: &Path) -> FileIdentity {
    if let Some(identity) = std::fs::metadata(path).ok().as_ref().and_then(identity_of) {
        return identity;
    }
    FileIdentity::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
}

/// The device and inode `meta` gives, where the system has them.
fn identity_of(meta: &std::fs::Metadata) -> Option<FileIdentity> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(FileIdentity::Inode(meta.dev(), meta.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// What `path` is, as [`may_follow`] lets pbc see it, from one `stat` when it is no link:
/// `None` when it does not exist or is a link pbc does not follow.
pub fn followed_type(path: &Path, root: &Path, access: &FileAccess) -> Option<std::fs::FileType> {
    let own = std::fs::symlink_metadata(path).ok()?.file_type();
    if !own.is_symlink() {
        return Some(own);
    }
    if !may_follow(path, root, access) {
        return None;
    }
    std::fs::metadata(path).ok().map(|m| m.file_type())
}

/// [`followed_type`] of the entry `entry` of `dir`: the type the directory listing gives,
/// unless it is a link.
pub fn entry_type(
    dir: &Path,
    entry: &Entry,
    root: &Path,
    access: &FileAccess,
) -> Option<std::fs::FileType> {
    if !entry.own_type.is_symlink() {
        return Some(entry.own_type);
    }
    followed_type(&dir.join(&entry.name), root, access)
}

/// [`listed_type`] when this command has listed `dir` already; `None` when it has not (a `stat`
/// then costs less than a listing).
pub fn listed_child_type(
    dir: &Path,
    name: &str,
    root: &Path,
    access: &FileAccess,
) -> Option<Option<std::fs::FileType>> {
    let (_, listed) = cached_listing(dir);
    Some(listed_type(dir, &listed?, name, root, access))
}

/// [`followed_type`] of `dir/name`, read from `entries`, the listing of `dir` the caller holds:
/// for a directory that a walk lists anyway, this costs no system call where a `stat` of a
/// missing file would.
pub fn listed_type(
    dir: &Path,
    entries: &[Entry],
    name: &str,
    root: &Path,
    access: &FileAccess,
) -> Option<std::fs::FileType> {
    let entry = entries.iter().find(|e| e.name == name)?;
    entry_type(dir, entry, root, access)
}

/// One entry of a directory listing.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: std::ffi::OsString,
    /// What the entry itself is (a link is a link here).
    pub own_type: std::fs::FileType,
}

/// The directories a command listed, shared by the threads it walks on.
type Listings = std::sync::Arc<ListingCache>;

struct ListingCache {
    /// The working directory when the command began: relative paths are keyed below it
    /// without asking the system again for each one.
    cwd: Option<PathBuf>,
    /// By absolute path, as bytes: hashing a `PathBuf` walks its components, which a large
    /// walk, asking for each directory several times, would pay every time.
    listed: std::sync::Mutex<foldhash::HashMap<std::ffi::OsString, std::sync::Arc<[Entry]>>>,
}

impl ListingCache {
    /// The key `dir` is listed under: its absolute path, so that one directory reached as
    /// `modules/ntp` and as `/etc/puppet/modules/ntp` is listed once. A path with nothing to
    /// normalise (no `.` component, no doubled or trailing separator) is taken as it is.
    fn key(&self, dir: &Path) -> std::ffi::OsString {
        let Some(cwd) = &self.cwd else {
            return std::path::absolute(dir)
                .unwrap_or_else(|_| dir.to_path_buf())
                .into_os_string();
        };
        let mut key = PathBuf::from(absolute_name(dir, cwd).into_owned());
        // As `std::path::absolute` does: `dir/` stays a directory's name.
        if dir.as_os_str().as_encoded_bytes().ends_with(b"/") {
            key.push("");
        }
        key.into_os_string()
    }
}

/// `path` as [`std::path::absolute`] writes it (below `cwd` when relative, without `.`
/// components or doubled separators), without asking the system for the working directory:
/// a walk of `.` meets every path as `./modules/...`. Two names of one file that differ only
/// so are equal here, as bytes (hashing a `Path` walks its components). A trailing separator
/// is dropped.
pub fn absolute_name<'p>(path: &'p Path, cwd: &Path) -> std::borrow::Cow<'p, std::ffi::OsStr> {
    if is_plain(path) {
        if path.is_absolute() {
            return std::borrow::Cow::Borrowed(path.as_os_str());
        }
        // Below the working directory as it is written: joined, not taken apart into its
        // components and put back together (a check listed 20,000 directories this way).
        let mut out = PathBuf::with_capacity(cwd.as_os_str().len() + 1 + path.as_os_str().len());
        out.push(cwd);
        out.push(path);
        return std::borrow::Cow::Owned(out.into_os_string());
    }
    let mut out = if path.is_absolute() {
        PathBuf::new()
    } else {
        cwd.to_path_buf()
    };
    out.extend(
        path.components()
            .filter(|c| !matches!(c, std::path::Component::CurDir)),
    );
    std::borrow::Cow::Owned(out.into_os_string())
}

/// `path` below `base`, as [`Path::strip_prefix`] gives it. A walk makes its paths by joining
/// names to the directory walked, so a path nearly always starts with `base`'s bytes and a
/// separator, followed by plain names: that is seen by comparing bytes. Anything else is left
/// to `strip_prefix`, which compares component by component (2% of a compile's instructions,
/// most of them in `Components`).
pub fn below<'p>(path: &'p Path, base: &Path) -> Option<&'p Path> {
    if let (Some(p), Some(b)) = (path.to_str(), base.to_str()) {
        let rest = p
            .strip_prefix(b)
            .and_then(|r| r.strip_prefix(std::path::MAIN_SEPARATOR));
        if let Some(rest) = rest.filter(|r| !b.is_empty() && is_plain_below(r)) {
            return Some(Path::new(rest));
        }
    }
    path.strip_prefix(base).ok()
}

/// Whether `rest` is plain names joined by separators, as `strip_prefix` would give it back.
fn is_plain_below(rest: &str) -> bool {
    !rest.starts_with(std::path::MAIN_SEPARATOR) && is_plain(Path::new(rest))
}

/// Whether `path` is already as [`std::path::absolute`] would write it below an absolute
/// directory: no empty or `.` component and no trailing separator. A name that is not Unicode
/// is not judged here (the caller normalises it).
fn is_plain(path: &Path) -> bool {
    let Some(text) = path.to_str() else {
        return false;
    };
    let sep = std::path::MAIN_SEPARATOR as u8;
    let mut names = text.as_bytes();
    if let [first, rest @ ..] = names {
        if *first == sep {
            names = rest;
        }
    }
    // Each name up to the next separator, found eight bytes at a time: comparing each pair
    // and triple of bytes with `//` and `/./` was 3% of a check's instructions.
    loop {
        let end = crate::bytewise::position(
            names,
            |word| crate::bytewise::equal(word, sep),
            |c| c == sep,
        );
        let name = &names[..end.unwrap_or(names.len())];
        if name.is_empty() || name == b"." {
            return false;
        }
        match end {
            Some(end) => names = &names[end + 1..],
            None => return true,
        }
    }
}

thread_local! {
    /// The directories listed so far in this thread's command, while a [`ListingScope`] is
    /// open: a command lists each directory once, however many walks (discovery, each
    /// environment's layout) pass through it, on whichever thread. Large trees live on disks
    /// where listing a directory is the slowest thing pbc does.
    static LISTINGS: std::cell::RefCell<Option<Listings>> = const { std::cell::RefCell::new(None) };
}

/// While it lives, [`list_dir`] lists each directory once (the tree is taken not to change
/// during one command); the outermost scope forgets the listings when it ends.
pub struct ListingScope {
    owner: bool,
}

impl ListingScope {
    pub fn begin() -> ListingScope {
        Self::begin_with(None)
    }

    /// A scope that uses `shared` when this thread has none open.
    fn begin_with(shared: Option<&Listings>) -> ListingScope {
        LISTINGS.with(|l| {
            let mut l = l.borrow_mut();
            let owner = l.is_none();
            if owner {
                *l = Some(shared.cloned().unwrap_or_else(new_listings));
            }
            ListingScope { owner }
        })
    }
}

impl Drop for ListingScope {
    fn drop(&mut self) {
        if self.owner {
            LISTINGS.with(|l| *l.borrow_mut() = None);
        }
    }
}

fn new_listings() -> Listings {
    std::sync::Arc::new(ListingCache {
        cwd: std::env::current_dir().ok().filter(|d| is_plain(d)),
        listed: Default::default(),
    })
}

/// What a thread that shares out a walk hands to its workers: the listings of its command, so
/// that no directory is listed twice whichever thread meets it.
#[derive(Clone, Default)]
pub struct WalkContext {
    listings: Option<Listings>,
}

/// This thread's [`WalkContext`], for the workers it is about to start.
pub fn walk_context() -> WalkContext {
    WalkContext {
        listings: LISTINGS.with(|l| l.borrow().clone()),
    }
}

/// What work on one thread recorded that its report needs: the links it did not follow.
/// [`recorded`] takes it on a worker; [`adopt`] gives it to the thread that shared out the work.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Recorded {
    skipped_links: Vec<(PathBuf, PathBuf)>,
    too_long: Vec<(PathBuf, PathBuf)>,
}

/// Runs `f` within `context` (the listings of the thread that shared out the work) and returns
/// with its result what it recorded on this thread.
pub fn recorded<R>(context: &WalkContext, f: impl FnOnce() -> R) -> (R, Recorded) {
    let links_before = SKIPPED_LINKS.with(|s| s.borrow().len());
    let too_long_before = TOO_LONG.with(|s| s.borrow().len());
    let scope = ListingScope::begin_with(context.listings.as_ref());
    let result = f();
    drop(scope);
    let skipped_links = SKIPPED_LINKS.with(|s| {
        let mut s = s.borrow_mut();
        let from = links_before.min(s.len());
        s.drain(from..).collect()
    });
    let too_long = TOO_LONG.with(|s| {
        let mut s = s.borrow_mut();
        let from = too_long_before.min(s.len());
        s.drain(from..).collect()
    });
    (
        result,
        Recorded {
            skipped_links,
            too_long,
        },
    )
}

/// Takes over what [`recorded`] returned on another thread.
pub fn adopt(record: Recorded) {
    SKIPPED_LINKS.with(|s| s.borrow_mut().extend(record.skipped_links));
    TOO_LONG.with(|s| s.borrow_mut().extend(record.too_long));
}

/// The entries of `dir`, in the order the system gives them; within a [`ListingScope`], listed
/// once.
pub fn list_dir(dir: &Path) -> std::io::Result<std::sync::Arc<[Entry]>> {
    let (key, cached) = cached_listing(dir);
    if let Some(found) = cached {
        return Ok(found);
    }
    let mut entries = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        entries.push(Entry {
            name: entry.file_name(),
            own_type: entry.file_type()?,
        });
    }
    let entries: std::sync::Arc<[Entry]> = entries.into();
    if let Some(key) = key {
        LISTINGS.with(|l| {
            if let Some(mut m) = l.borrow().as_ref().and_then(|c| c.listed.lock().ok()) {
                m.insert(key, entries.clone());
            }
        });
    }
    Ok(entries)
}

/// The key `dir` is listed under when this command keeps listings, and its listing if it has
/// one.
fn cached_listing(dir: &Path) -> (Option<std::ffi::OsString>, Option<std::sync::Arc<[Entry]>>) {
    LISTINGS.with(|l| {
        let l = l.borrow();
        let Some(cache) = l.as_ref() else {
            return (None, None);
        };
        let key = cache.key(dir);
        let cached = cache.listed.lock().ok().and_then(|m| m.get(&key).cloned());
        (Some(key), cached)
    })
}

/// Whether `path` may be read: it is not a symbolic link, or the link leads inside `root`, or
/// `--follow-symlinks` is on. Every subcommand asks this, so `check`, `compile` and `lookup`
/// read the same files; a link that leads out of the tree is recorded (see
/// [`take_skipped_links`]) and not followed. A dangling link leads nowhere.
pub fn may_follow(path: &Path, root: &Path, access: &FileAccess) -> bool {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if !is_link || access.follow_symlinks {
        return true;
    }
    let Ok(target) = std::fs::canonicalize(path) else {
        return false;
    };
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if target.starts_with(&root) {
        return true;
    }
    // Said as written in the link (portable in messages), not as resolved.
    let written = std::fs::read_link(path).unwrap_or(target);
    SKIPPED_LINKS.with(|s| s.borrow_mut().push((path.to_path_buf(), written)));
    false
}

/// Every `.pp` file, `hiera.yaml`, `binder_config.yaml`, `metadata.json` and
/// `environment.conf` below `dir`, skipping hidden
/// directories (`.git` ...); unsorted. Links are
/// followed when [`may_follow`] allows it within `dir`, each directory once (no cycles).
pub(crate) fn walk(dir: &Path, out: &mut Vec<PathBuf>, access: &FileAccess) -> std::io::Result<()> {
    walk_within(dir, dir, out, access)
}

/// [`walk`], each file given to `found` as soon as it is found, in the order the walk finds
/// them (not sorted): for work that starts on a file before the walk is over.
pub(crate) fn walk_each(
    dir: &Path,
    found: &mut dyn FnMut(PathBuf),
    access: &FileAccess,
) -> std::io::Result<()> {
    walk_within_each(dir, dir, found, access)
}

/// A directory a walk reads, and the one it was found in: each directory's way down is shared
/// with its siblings', not copied for each.
struct WalkedDir {
    path: PathBuf,
    parent: Option<std::rc::Rc<WalkedDir>>,
}

/// A deep directory's way down is let go one directory at a time, not by recursion.
impl Drop for WalkedDir {
    fn drop(&mut self) {
        let mut parent = self.parent.take();
        while let Some(dir) = parent {
            parent = std::rc::Rc::try_unwrap(dir)
                .ok()
                .and_then(|mut d| d.parent.take());
        }
    }
}

impl WalkedDir {
    /// This directory and those on the way to it, up to where the walk began.
    fn up(&self) -> impl Iterator<Item = &Path> {
        std::iter::successors(Some(self), |d| d.parent.as_deref()).map(|d| d.path.as_path())
    }
}

/// [`walk`], with links judged against `root` (the tree that `dir` belongs to). A directory
/// reached again through a link from inside itself (a cycle) is not entered twice; the same
/// directory under two names is, as Puppet reads both.
pub(crate) fn walk_within(
    dir: &Path,
    root: &Path,
    out: &mut Vec<PathBuf>,
    access: &FileAccess,
) -> std::io::Result<()> {
    walk_within_each(dir, root, &mut |path| out.push(path), access)
}

fn walk_within_each(
    dir: &Path,
    root: &Path,
    found: &mut dyn FnMut(PathBuf),
    access: &FileAccess,
) -> std::io::Result<()> {
    let canonical = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    // Each directory to read, with the directories on the way to it. Only a link can lead back
    // into one of them, so paths are resolved only when a link is met (resolving reads every
    // directory on the way: doing it for every directory of a large tree is most of a walk).
    let mut stack = vec![std::rc::Rc::new(WalkedDir {
        path: dir.to_path_buf(),
        parent: None,
    })];
    while let Some(chain) = stack.pop() {
        let d = &chain.path;
        let entries = match list_dir(d) {
            Ok(entries) => entries,
            // One directory whose path is longer than the system allows is reported, and the
            // rest of the tree is read (the whole command stopped, naming no file).
            Err(e) if is_too_long(&e) && chain.parent.is_some() => {
                let (within, name) = match (d.parent(), d.file_name()) {
                    (Some(p), Some(n)) => (p.to_path_buf(), PathBuf::from(n)),
                    _ => (d.clone(), PathBuf::new()),
                };
                TOO_LONG.with(|s| s.borrow_mut().push((within, name)));
                continue;
            }
            Err(e) => return Err(e),
        };
        for entry in entries.iter() {
            let path = d.join(&entry.name);
            let mut ft = entry.own_type;
            let is_link = ft.is_symlink();
            if is_link {
                if !may_follow(&path, root, access) {
                    continue;
                }
                match std::fs::metadata(&path) {
                    Ok(m) => ft = m.file_type(),
                    Err(_) => continue,
                }
            }
            if ft.is_dir() && !entry.name.to_string_lossy().starts_with('.') {
                if is_link {
                    let here = canonical(&path);
                    if chain.up().any(|c| canonical(c) == here) {
                        continue;
                    }
                }
                stack.push(std::rc::Rc::new(WalkedDir {
                    path,
                    parent: Some(chain.clone()),
                }));
            } else if ft.is_file()
                && (path.extension().is_some_and(|e| e == "pp")
                    || entry.name == "hiera.yaml"
                    || entry.name == "binder_config.yaml"
                    || entry.name == "metadata.json"
                    || entry.name == "environment.conf")
            {
                found(path);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A path the overlay names is read as its text, under the same size limit, with the
    /// file's own identity; other paths are read from disk; an empty overlay is none.
    #[test]
    fn a_kept_disk_keeps_a_file_by_the_path_it_was_read_by() {
        let dir = tempfile::tempdir().expect("a directory");
        let path: std::sync::Arc<Path> = dir.path().join("kept.pp").into();
        std::fs::write(&path, "on disk").expect("written");
        let kept = KeptDisk::new();
        let access = FileAccess {
            kept: Some(kept.clone()),
            ..FileAccess::default()
        };
        let (_, bytes) = read_identified_shared(&path, "manifest", &access);
        assert_eq!(
            bytes.ok().map(ReadBytes::into_vec).as_deref(),
            Some(&b"on disk"[..])
        );
        // The walk's path and the kept disk's are one: no copy of the path is made.
        assert_eq!(std::sync::Arc::strong_count(&path), 2);
        let (held, text) = kept.file(&path).expect("kept");
        assert_eq!(held, Some(file_identity(&path)));
        assert_eq!(&*text, "on disk");
        // Read by a path of its own, the file is kept by a copy.
        let elsewhere = dir.path().join("elsewhere.pp");
        std::fs::write(&elsewhere, "also").expect("written");
        let _ = read_identified(&elsewhere, "manifest", &access);
        assert!(kept.file(&elsewhere).is_some());
        assert_eq!(kept.files(), 2);
    }

    /// A file written over in place is forgotten alone, under each path it was read by, and
    /// read anew; one replaced by another file, or gone, or never kept, cannot be forgotten
    /// alone.
    #[cfg(unix)]
    #[test]
    fn a_file_changed_in_place_is_forgotten_alone() {
        let dir = tempfile::tempdir().expect("a directory");
        let saved = dir.path().join("saved.pp");
        let other = dir.path().join("other.pp");
        std::fs::write(&saved, "before").expect("written");
        std::fs::write(&other, "other").expect("written");
        std::os::unix::fs::symlink(&saved, dir.path().join("alias.pp")).expect("linked");
        let kept = KeptDisk::new();
        let access = FileAccess {
            kept: Some(kept.clone()),
            ..FileAccess::default()
        };
        let read = |path: &Path| {
            let (_, bytes) = read_identified(path, "manifest", &access);
            String::from_utf8(bytes.expect("read").into_vec()).expect("text")
        };
        for name in ["saved.pp", "other.pp", "alias.pp"] {
            read(&dir.path().join(name));
        }
        assert_eq!(kept.files(), 3);
        // Written over, as an editor that truncates and writes does: the same inode.
        std::fs::write(&saved, "after").expect("written");
        assert_eq!(
            kept.forget_changed_in_place(&saved),
            Some(ForgotInPlace::Text("before".into()))
        );
        assert_eq!(kept.files(), 1, "both of its paths are forgotten");
        assert!(kept.file(&other).is_some());
        // Told again before it is read: nothing more to forget.
        assert_eq!(
            kept.forget_changed_in_place(&saved),
            Some(ForgotInPlace::Already)
        );
        assert_eq!(read(&saved), "after");
        // Read since, it is no longer one forgotten: were it then not kept, it could not be
        // forgotten alone.
        write_lock(&kept.0.files).retain(|path, _| **path != *saved);
        assert_eq!(kept.forget_changed_in_place(&saved), None);
        assert_eq!(read(&saved), "after");
        assert_eq!(read(&dir.path().join("alias.pp")), "after");
        // Replaced by a new file renamed over it: another inode.
        let replacement = dir.path().join("new.tmp");
        std::fs::write(&replacement, "replaced").expect("written");
        std::fs::rename(&replacement, &other).expect("renamed");
        assert_eq!(kept.forget_changed_in_place(&other), None);
        assert!(kept.file(&other).is_some(), "nothing is forgotten alone");
        // Gone, and never read.
        std::fs::remove_file(&saved).expect("removed");
        assert_eq!(kept.forget_changed_in_place(&saved), None);
        assert_eq!(
            kept.forget_changed_in_place(&dir.path().join("never.pp")),
            None
        );
    }

    /// Many files read at once are read as each alone would be, in order: a kept file as kept
    /// (not as the disk has it since), a buffer over a kept file, a kept text over the size
    /// limit refused, a file never kept read from disk and kept, a missing file an error.
    #[test]
    fn files_read_together_are_read_as_each_alone() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = |name: &str| -> std::sync::Arc<Path> { dir.path().join(name).into() };
        let names = ["kept.pp", "buffer.pp", "large.pp", "new.pp", "missing.pp"];
        let paths: Vec<std::sync::Arc<Path>> = names.iter().map(|n| path(n)).collect();
        let kept = KeptDisk::new();
        let keeping = FileAccess {
            kept: Some(kept.clone()),
            ..FileAccess::default()
        };
        for (name, text) in [
            ("kept.pp", "kept"),
            ("buffer.pp", "kept too"),
            ("large.pp", "0123456789abcdef"),
        ] {
            std::fs::write(&*path(name), text).expect("written");
            let _ = read_identified_shared(&path(name), "manifest", &keeping);
            std::fs::write(&*path(name), format!("{text}, changed since")).expect("written");
        }
        std::fs::write(&*path("new.pp"), "new").expect("written");
        let access = FileAccess {
            overlay: Overlay::new(
                [(path("buffer.pp").to_path_buf(), "editor".into())]
                    .into_iter()
                    .collect(),
            ),
            ..keeping.with_max_file_size(12)
        };
        let shown = |read: &(Option<FileIdentity>, std::io::Result<ReadBytes>)| match &read.1 {
            Ok(ReadBytes::Text(text)) => Ok(text.to_string()),
            Ok(ReadBytes::Owned(bytes)) => Ok(String::from_utf8_lossy(bytes).into_owned()),
            Err(e) => Err(e.to_string()),
        };
        let together: Vec<_> = read_identified_all(paths.len(), |i| &paths[i], "manifest", &access)
            .iter()
            .map(shown)
            .collect();
        assert!(
            kept.file(&path("new.pp")).is_some(),
            "a file read from disk is kept"
        );
        let alone: Vec<_> = paths
            .iter()
            .map(|p| shown(&read_identified_shared(p, "manifest", &access)))
            .collect();
        assert_eq!(together, alone);
        assert_eq!(together[0], Ok("kept".to_string()));
        assert_eq!(together[1], Ok("editor".to_string()));
        assert!(together[2]
            .as_ref()
            .is_err_and(|e| e.contains("more than the limit of 12")));
        assert_eq!(together[3], Ok("new".to_string()));
        assert!(together[4].is_err());
    }

    /// A kept disk agrees with one that has just listed and read the disk anew while every
    /// walk both made found the same, every file both read has the same text, every file only
    /// it read (a node's facts) is still as kept, and every walk only it made that can be made
    /// again (a hover's layout) finds the same again; a walk only it made that cannot is not
    /// compared, and is forgotten once the look is taken.
    #[test]
    fn a_kept_disk_agrees_with_a_fresh_look_only_while_the_disk_is_as_kept() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = |name: &str| dir.path().join(name);
        std::fs::write(path("a.pp"), "a").expect("written");
        std::fs::write(path("facts.json"), "{}").expect("written");
        let listed = |access: &FileAccess, what: &str| {
            kept_walk(
                access,
                || what.to_string(),
                || {
                    let mut names: Vec<String> = std::fs::read_dir(dir.path())?
                        .map(|e| e.map(|e| e.file_name().to_string_lossy().into_owned()))
                        .collect::<std::io::Result<_>>()?;
                    names.sort();
                    Ok(names)
                },
            )
        };
        let keeping_in = |kept: &KeptDisk| FileAccess {
            kept: Some(kept.clone()),
            ..FileAccess::default()
        };
        let data = dir.path().join("data");
        std::fs::create_dir(&data).expect("a directory");
        let kept = KeptDisk::new();
        let keeping = keeping_in(&kept);
        listed(&keeping, "the tree").expect("listed");
        read_file(&path("a.pp"), "manifest", &keeping).expect("read");
        read_file(&path("facts.json"), "facts", &keeping).expect("read");
        listed(&keeping, "for a hover").expect("listed");
        // A walk only the kept disk made that can be made again: walked again to compare.
        let listed_again = {
            let data = data.clone();
            move || -> std::io::Result<Vec<std::ffi::OsString>> {
                let mut names: Vec<std::ffi::OsString> = std::fs::read_dir(&data)?
                    .map(|e| e.map(|e| e.file_name()))
                    .collect::<std::io::Result<_>>()?;
                names.sort();
                Ok(names)
            }
        };
        kept_walk_again(&keeping, || "a layout".to_string(), listed_again).expect("listed");
        // A check's reads: the tree listed and `a.pp`, not the facts nor the hover's walk.
        let look = || {
            let fresh = KeptDisk::new();
            let reading = keeping_in(&fresh);
            listed(&reading, "the tree").expect("listed");
            read_file(&path("a.pp"), "manifest", &reading).expect("read");
            fresh
        };
        let plain = FileAccess::default();
        assert!(kept.agrees_with(&look(), &plain), "as kept");
        std::fs::write(path("a.pp"), "a, changed").expect("written");
        assert!(!kept.agrees_with(&look(), &plain), "a file both read");
        std::fs::write(path("a.pp"), "a").expect("written");
        std::fs::write(path("facts.json"), r#"{"role": "db"}"#).expect("written");
        assert!(
            !kept.agrees_with(&look(), &plain),
            "a file only the kept disk read"
        );
        std::fs::write(path("facts.json"), "{}").expect("written");
        std::fs::write(path("b.pp"), "b").expect("written");
        assert!(!kept.agrees_with(&look(), &plain), "a walk both made");
        std::fs::remove_file(path("b.pp")).expect("removed");
        std::fs::write(data.join("common.yaml"), "").expect("written");
        assert!(!kept.agrees_with(&look(), &plain), "a walk only it made");
        std::fs::remove_file(data.join("common.yaml")).expect("removed");
        let fresh = look();
        assert!(kept.agrees_with(&fresh, &plain), "as kept again");
        kept.forget_walks_not_in(&fresh);
        let mut walks: Vec<String> = lock(&kept.0.walks).keys().cloned().collect();
        walks.sort();
        assert_eq!(walks.len(), 2, "{walks:?}");
        assert!(walks[0].starts_with("a layout"), "{walks:?}");
        assert!(walks[1].starts_with("the tree"), "{walks:?}");
        assert!(!kept.is_empty());
    }

    /// Files read again with what the last read took ([`read_identified_all_again`]) are read
    /// as each alone would be, at every step: what the kept disk held is taken again only
    /// while nothing was kept or forgotten since, and a buffer opened since stands in for its
    /// file all the same.
    #[test]
    fn files_read_again_are_read_as_each_alone_until_the_kept_disk_changes() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = |name: &str| -> std::sync::Arc<Path> { dir.path().join(name).into() };
        let names = ["kept.pp", "other.pp", "new.pp"];
        let paths: Vec<std::sync::Arc<Path>> = names.iter().map(|n| path(n)).collect();
        let kept = KeptDisk::new();
        let keeping = FileAccess {
            kept: Some(kept.clone()),
            ..FileAccess::default()
        };
        for name in ["kept.pp", "other.pp"] {
            std::fs::write(&*path(name), format!("{name} as kept")).expect("written");
            let _ = read_identified_shared(&path(name), "manifest", &keeping);
        }
        std::fs::write(&*path("new.pp"), "new").expect("written");
        let shown = |read: &(Option<FileIdentity>, std::io::Result<ReadBytes>)| match &read.1 {
            Ok(ReadBytes::Text(text)) => Ok(text.to_string()),
            Ok(ReadBytes::Owned(bytes)) => Ok(String::from_utf8_lossy(bytes).into_owned()),
            Err(e) => Err(e.to_string()),
        };
        let mut again = KeptReads::default();
        let read_again =
            |again: &mut KeptReads, access: &FileAccess| -> Vec<Result<String, String>> {
                let together: Vec<_> = read_identified_all_again(
                    paths.len(),
                    |i| &paths[i],
                    "manifest",
                    access,
                    Some(again),
                )
                .iter()
                .map(shown)
                .collect();
                let alone: Vec<_> = paths
                    .iter()
                    .map(|p| shown(&read_identified_shared(p, "manifest", access)))
                    .collect();
                assert_eq!(together, alone);
                together
            };
        // The first read keeps `new.pp`: the second takes every file from the kept disk
        // again, the third what the second took.
        for _ in 0..3 {
            assert_eq!(read_again(&mut again, &keeping)[2], Ok("new".to_string()));
        }
        assert!(again.still_held(&kept, paths.len()));
        // Changed on disk, unknown to the kept disk: still the text kept.
        std::fs::write(&*path("kept.pp"), "kept.pp saved").expect("written");
        assert_eq!(
            read_again(&mut again, &keeping)[0],
            Ok("kept.pp as kept".to_string())
        );
        // A buffer opened since stands in for its file, though nothing else changed.
        let editing = FileAccess {
            overlay: Overlay::new(
                [(path("other.pp").to_path_buf(), "editor".into())]
                    .into_iter()
                    .collect(),
            ),
            ..keeping.clone()
        };
        assert_eq!(
            read_again(&mut again, &editing)[1],
            Ok("editor".to_string())
        );
        assert!(again.still_held(&kept, paths.len()));
        // Forgotten (the watch saw the save): the file's new text, then the kept one again.
        assert!(kept.forget_changed_in_place(&path("kept.pp")).is_some());
        assert!(!again.still_held(&kept, paths.len()));
        assert_eq!(
            read_again(&mut again, &keeping)[0],
            Ok("kept.pp saved".to_string())
        );
        assert_eq!(
            read_again(&mut again, &keeping)[0],
            Ok("kept.pp saved".to_string())
        );
        // Everything forgotten: every file read from disk again.
        std::fs::write(&*path("other.pp"), "other.pp saved").expect("written");
        kept.forget();
        assert_eq!(
            read_again(&mut again, &keeping)[..2],
            [
                Ok("kept.pp saved".to_string()),
                Ok("other.pp saved".to_string())
            ]
        );
        // Another kept disk: nothing of this one is taken from it.
        let elsewhere = FileAccess {
            kept: Some(KeptDisk::new()),
            ..FileAccess::default()
        };
        let _ = read_identified_shared(&path("new.pp"), "manifest", &elsewhere);
        std::fs::write(&*path("new.pp"), "new, read elsewhere").expect("written");
        assert_eq!(read_again(&mut again, &elsewhere)[2], Ok("new".to_string()));
        assert_eq!(read_again(&mut again, &keeping)[2], Ok("new".to_string()));
    }

    #[test]
    fn an_overlay_stands_in_for_the_files_it_names() {
        let dir = tempfile::tempdir().expect("a directory");
        let held = dir.path().join("held.pp");
        let other = dir.path().join("other.pp");
        std::fs::write(&held, "on disk").expect("written");
        std::fs::write(&other, "other on disk").expect("written");
        let text: std::sync::Arc<str> = std::sync::Arc::from("in the editor");
        let access = FileAccess {
            overlay: Overlay::new([(held.clone(), text)].into_iter().collect()),
            ..FileAccess::default()
        };
        let (identity, bytes) = read_identified(&held, "manifest", &access);
        assert_eq!(
            bytes.ok().map(ReadBytes::into_vec).as_deref(),
            Some(&b"in the editor"[..])
        );
        assert_eq!(identity, Some(file_identity(&held)));
        let other_bytes = read_file(&other, "manifest", &access).ok();
        assert_eq!(other_bytes.as_deref(), Some(&b"other on disk"[..]));
        let small = access.clone().with_max_file_size(5);
        let refused = read_file(&held, "manifest", &small).map_err(|e| e.to_string());
        assert!(
            refused
                .as_ref()
                .is_err_and(|e| e.contains("more than the limit of 5")),
            "{refused:?}"
        );
        assert_eq!(Overlay::new(Default::default()), Overlay::default());
        assert_ne!(access.overlay, Overlay::default());
    }

    /// A plain path is one that its components, put back together, spell again: no `.`
    /// component, no doubled or trailing separator (and not the empty path).
    #[test]
    fn plain_paths_are_their_components() {
        let paths = [
            "", ".", "..", "/", "//", "a", "a/", "a/.", "./a", "a/b", "a//b", "a/./b", "a/b/",
            "a/..", "a/../b", "/a", "/a/", "//a", "/./a", "/a/.", "a/.b", "a/b.", ".a", "é/x",
            "a/b/c.pp",
        ];
        for p in paths {
            let path = Path::new(p);
            let rebuilt: PathBuf = path.components().collect();
            let expected = !p.is_empty()
                && !p.ends_with('/')
                && !path.components().any(|c| c == std::path::Component::CurDir)
                && rebuilt.as_os_str() == path.as_os_str();
            assert_eq!(is_plain(path), expected, "{p:?}");
        }
    }

    /// `below` gives what `strip_prefix` gives, for every pair of a set of paths with the
    /// forms where bytes and components differ (`.`, `..`, doubled and trailing separators,
    /// a shared prefix that ends inside a name, the empty path, absolute and relative).
    #[test]
    fn below_is_strip_prefix() {
        let paths = [
            "",
            ".",
            "/",
            "a",
            "a/",
            "a/.",
            "./a",
            "a/b",
            "a//b",
            "a/./b",
            "a/b/",
            "a/b/.",
            "a/..",
            "a/../b",
            "ab/c",
            "a/bc",
            "a/b/c.pp",
            "a/b/./c.pp",
            "a/b//c.pp",
            "/a",
            "/a/b",
            "//a/b",
            "/a/b/c.pp",
            "./a/b",
            "a/.b",
            "a/b..",
            "é/x.pp",
        ];
        for p in paths {
            for base in paths {
                let (p, base) = (Path::new(p), Path::new(base));
                // As names: `Path`'s own equality would compare components.
                assert_eq!(
                    below(p, base).map(Path::as_os_str),
                    p.strip_prefix(base).ok().map(Path::as_os_str),
                    "{p:?} below {base:?}"
                );
            }
        }
    }

    /// Every path's place in [`PathOrder`]'s order, repeats kept.
    fn path_order(paths: &[PathBuf]) -> Vec<usize> {
        let mut order = PathOrder::default();
        paths.iter().for_each(|path| order.push(path));
        order.sorted().into_iter().map(|(_, at)| at).collect()
    }

    /// Paths are sorted exactly as a stable `sort` by `Path`'s order sorts them, with the
    /// forms where component order and byte order differ (`-` before `/`, `.` and `..`,
    /// doubled and trailing separators, absolute and relative).
    #[test]
    fn paths_sort_in_path_order() {
        let paths: Vec<PathBuf> = [
            "a/b.pp",
            "a-b.pp",
            "a/b/c.pp",
            "a//b.pp",
            "a/b.pp/",
            "./a/b.pp",
            "a/./b.pp",
            "../x.pp",
            "-x.pp",
            "/r/a.pp",
            "/r-a.pp",
            "/r/a/b.pp",
            "a/../b.pp",
            "a/.b.pp",
            "A/b.pp",
            "a/b.pp",
            "é/x.pp",
            "z.pp",
            "a/b-c.pp",
            "a/b/c.pp",
            "",
        ]
        .iter()
        .map(PathBuf::from)
        .collect();
        let mut expected = paths.clone();
        expected.sort();
        // Equal paths in the given order too: compare what they are written as.
        let written = |v: &[PathBuf]| {
            v.iter()
                .map(|p| p.as_os_str().to_owned())
                .collect::<Vec<_>>()
        };
        let sorted = |v: &[PathBuf]| in_order(v.to_vec(), path_order(v));
        assert_eq!(written(&sorted(&paths)), written(&expected));
        let mut reversed = paths;
        reversed.reverse();
        let mut expected = reversed.clone();
        expected.sort();
        assert_eq!(written(&sorted(&reversed)), written(&expected));
    }

    /// Many paths made of the pieces where component order and byte order part (`/`, `-`,
    /// `.`, a name that begins another, doubled and trailing separators), sorted by their
    /// keys and by `Path`'s own order: the same order, and with repeats left out, the same as
    /// `dedup` leaves.
    #[test]
    fn path_order_keys_sort_as_paths_do() {
        let pieces = ["a", "ab", "a-b", "b", ".", "..", "", "-", "a.pp", "é"];
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |below: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            usize::try_from(seed % below as u64).unwrap_or(0)
        };
        let paths: Vec<PathBuf> = (0..4000)
            .map(|_| {
                let mut path = String::new();
                if next(4) == 0 {
                    path.push('/');
                }
                for i in 0..1 + next(4) {
                    if i > 0 {
                        path.push_str(if next(6) == 0 { "//" } else { "/" });
                    }
                    path.push_str(pieces[next(pieces.len())]);
                }
                if next(8) == 0 {
                    path.push('/');
                }
                PathBuf::from(path)
            })
            .collect();
        let written = |v: &[PathBuf]| {
            v.iter()
                .map(|p| p.as_os_str().to_owned())
                .collect::<Vec<_>>()
        };
        let mut expected = paths.clone();
        expected.sort();
        assert_eq!(
            written(&in_order(paths.clone(), path_order(&paths))),
            written(&expected)
        );
        expected.dedup();
        let mut order = PathOrder::default();
        paths.iter().for_each(|p| order.push(p));
        assert_eq!(
            written(&in_order(paths.clone(), order.finish_unique())),
            written(&expected)
        );
    }

    /// A path taken as it is must be what `std::path::absolute` makes of it.
    #[test]
    fn plain_paths_are_their_own_absolute_form() {
        let cwd = std::env::current_dir().expect("a working directory");
        for p in [
            "modules/ntp",
            "/etc/puppet/modules",
            "a/../b",
            "..",
            "a.b/.c",
            "/",
            "x",
            "./a",
            "a/./b",
            "a//b",
            "a/",
            "a/.",
            ".",
            "",
            "/a/b/",
        ] {
            let path = Path::new(p);
            if !is_plain(path) {
                continue;
            }
            let given = if path.is_absolute() {
                path.to_path_buf()
            } else {
                cwd.join(path)
            };
            let normal = std::path::absolute(path).expect("absolute");
            assert_eq!(given.as_os_str(), normal.as_os_str(), "{p}");
        }
        assert!(is_plain(Path::new("modules/ntp/bindings")));
        assert!(!is_plain(Path::new("modules/./ntp")));
        assert!(!is_plain(Path::new("modules//ntp")));
    }

    /// A reader that gives `bytes` and remembers the largest buffer it was asked to fill.
    struct Watched {
        bytes: std::io::Cursor<Vec<u8>>,
        largest_ask: usize,
    }

    impl std::io::Read for Watched {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            self.largest_ask = self.largest_ask.max(buf.len());
            self.bytes.read(buf)
        }
    }

    /// A file of the size it says is read into one buffer of that size, however large (in
    /// pieces, a large manifest was copied into one more buffer: twice its size in memory);
    /// a stream of unknown size is read in pieces of at most [`READ_PIECE`]; both give their
    /// bytes, and past the limit nothing.
    #[test]
    fn a_file_of_the_size_it_says_is_read_in_one_piece() {
        let size = 3 * READ_PIECE + 5;
        let bytes: Vec<u8> = (0..size).map(|i| (i % 251) as u8).collect();
        let watched = |bytes: &Vec<u8>| Watched {
            bytes: std::io::Cursor::new(bytes.clone()),
            largest_ask: 0,
        };
        let mut file = watched(&bytes);
        let read = read_bounded(&mut file, u64::MAX, size as u64).expect("read");
        assert_eq!(read.as_deref(), Some(&bytes[..]));
        assert_eq!(read.map(|r| r.capacity()), Some(size + 1));
        // A large file is read into its buffer as it is, not zeroed first, by asks that grow
        // past a piece's size: it is not read in pieces.
        assert!(file.largest_ask > READ_PIECE, "{}", file.largest_ask);
        // A small file is asked for all it says it has at once (one system call).
        let small = &bytes[..SINGLE_READ_BELOW as usize - 1];
        let mut file = watched(&small.to_vec());
        let read = read_bounded(&mut file, u64::MAX, small.len() as u64).expect("read");
        assert_eq!(read.as_deref(), Some(small));
        assert_eq!(file.largest_ask, small.len() + 1);
        let mut stream = watched(&bytes);
        let read = read_bounded(&mut stream, u64::MAX, 0).expect("read");
        assert_eq!(read.as_deref(), Some(&bytes[..]));
        assert!(stream.largest_ask <= READ_PIECE, "{}", stream.largest_ask);
        let mut too_large = watched(&bytes);
        let limit = READ_PIECE as u64;
        assert_eq!(
            read_bounded(&mut too_large, limit, size as u64).ok(),
            Some(None)
        );
        assert!(
            too_large.largest_ask <= READ_PIECE,
            "{}",
            too_large.largest_ask
        );
    }

    /// A large file is read on two cores, each half where it belongs, through the path every
    /// command reads a file by; one that has more than it said (it grew as it was read) is not
    /// read so, nor is a small one.
    #[test]
    fn a_large_file_read_on_two_cores_gives_its_bytes() {
        let dir = tempfile::tempdir().expect("a directory");
        let path = dir.path().join("big.pp");
        let size = READ_ON_TWO_CORES_FROM as usize + 3;
        let bytes: Vec<u8> = (0..size).map(|i| b'a' + (i % 23) as u8).collect();
        std::fs::write(&path, &bytes).expect("written");
        let read = read_file(&path, "manifest", &FileAccess::default()).expect("read");
        assert!(read == bytes, "the bytes read differ from the file's");
        let file = std::fs::File::open(&path).expect("opened");
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let on_two = read_on_two_cores(&file, size as u64);
        assert_eq!(on_two.is_some(), cfg!(unix) && cores > 1);
        if let Some(on_two) = on_two {
            assert!(on_two == bytes, "the halves read differ from the file's");
        }
        assert_eq!(read_on_two_cores(&file, size as u64 - 1), None);
        assert_eq!(read_on_two_cores(&file, size as u64 + 1), None);
        let small = READ_ON_TWO_CORES_FROM - 1;
        std::fs::write(&path, &bytes[..small as usize]).expect("written");
        let file = std::fs::File::open(&path).expect("opened");
        assert_eq!(read_on_two_cores(&file, small), None);
    }

    /// A file no span could point into the end of is never read.
    #[test]
    fn no_file_past_four_gigabytes_is_read() {
        let limit = |bytes| {
            FileAccess::default()
                .with_max_file_size(bytes)
                .max_file_size()
        };
        assert_eq!(FileAccess::default().max_file_size(), DEFAULT_MAX_FILE_SIZE);
        assert_eq!(limit(DEFAULT_MAX_FILE_SIZE), DEFAULT_MAX_FILE_SIZE);
        assert_eq!(limit(u64::MAX), u64::from(u32::MAX));
        assert_eq!(limit(0), 0);
    }

    /// Every name of a directory is listed under what `std::path::absolute` makes of it, though
    /// it is made without asking the system; a file's name without its trailing separator.
    #[test]
    fn listing_keys_are_the_absolute_form() {
        let cwd = std::env::current_dir().expect("a working directory");
        let cache = ListingCache {
            cwd: Some(cwd.clone()),
            listed: Default::default(),
        };
        for p in [
            "modules/ntp",
            "modules/ntp/bindings/x.pp",
            "x",
            "é/x",
            "./modules/ntp",
            "./modules/./ntp/",
            "modules//ntp",
            "/etc//puppet/./modules/",
            "a/../b",
            "./..",
            "..",
            "/",
            "./a",
            "a/.",
            ".",
            "./",
            "a/",
        ] {
            let path = Path::new(p);
            let normal = std::path::absolute(path).expect("absolute");
            assert_eq!(cache.key(path), normal.as_os_str(), "{p}");
            let file = absolute_name(path, &cwd);
            let trimmed = normal.as_os_str().as_encoded_bytes();
            let trimmed = match trimmed.strip_suffix(b"/") {
                Some(t) if !t.is_empty() => t,
                _ => trimmed,
            };
            assert_eq!(file.as_encoded_bytes(), trimmed, "{p}");
        }
    }
}
