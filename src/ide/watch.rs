//! The language server's own watch over the tree's files on disk, for an editor that does not
//! watch them for it (one that cannot register `workspace/didChangeWatchedFiles`, as Neovim on
//! Linux by default, or refuses to). Told of every change, the server keeps what it listed and
//! read from one check to the next, as it does when the editor watches; untold, the server
//! has to look at the whole tree again behind its checks ([`super::look`]: a quarter of a second
//! of a core for 10,000 files). It owns the system's watches (inotify, on Linux; elsewhere it
//! cannot start, and the server looks instead) and what they say: which files were written over in place, that something else in
//! the tree changed, or that they can no longer see every change. It does not decide what is
//! forgotten; the server does, as for the editor's notices.

/// What the watch has to tell since it was last asked.
#[derive(Debug, PartialEq, Eq)]
pub enum DiskNews {
    Nothing,
    /// Only files written over in place (saved, or touched), by path, each once: each may be
    /// read again alone.
    Written(Vec<std::path::PathBuf>),
    /// Anything else (a file or directory made, removed or renamed; notices lost): nothing
    /// listed or read may be kept.
    Changed,
    /// The watch can no longer see every change (the system's limit on watches was reached
    /// as directories were made, say): nothing read may be kept from now on.
    Failed(String),
}

#[cfg(target_os = "linux")]
pub use linux::OwnWatch;

#[cfg(not(target_os = "linux"))]
pub use elsewhere::OwnWatch;

#[cfg(target_os = "linux")]
mod linux {
    use super::DiskNews;
    use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};
    use std::collections::BTreeSet;
    use std::ffi::OsStr;
    use std::os::unix::fs::MetadataExt;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, SystemTime};

    /// What is watched in each directory: every change to what it holds, not reads (the
    /// server's own reads would wake it again and again, and a notice per file read could
    /// overflow the system's queue, which is itself told as a change). Links are not followed:
    /// the server keeps nothing when links may lead out of the tree.
    fn watched_events() -> WatchMask {
        WatchMask::MODIFY
            | WatchMask::ATTRIB
            | WatchMask::CLOSE_WRITE
            | WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
            | WatchMask::DELETE_SELF
            | WatchMask::MOVE_SELF
            | WatchMask::ONLYDIR
            | WatchMask::DONT_FOLLOW
    }

    /// How far before the watch began a change still counts as made while it was being set
    /// up: the system stamps changes with a clock that runs up to a tick behind the one read
    /// here.
    const CLOCK_SLACK: Duration = Duration::from_secs(1);

    /// A watch over every directory of a tree, `.git` aside, on a thread of its own, which
    /// sets it up while the server checks the tree (a directory at a time: 0.3 s for the
    /// 20,000 directories of the 10,000-file tree, which the first check no longer waits for).
    pub struct OwnWatch {
        /// One message while a change is not yet taken ([`OwnWatch::take`]): changes that
        /// come together are one change to the server.
        changed: crossbeam_channel::Receiver<()>,
        /// What the changes not yet taken were.
        news: Arc<Mutex<Pending>>,
        /// Why the watch stopped seeing every change, once it has.
        failed: Arc<Mutex<Option<String>>>,
        watches: Watches,
        /// The tree's own watch, once set: removed, it wakes the watching thread to end.
        root_watch: Arc<Mutex<Option<WatchDescriptor>>>,
        stop: Arc<AtomicBool>,
    }

    impl OwnWatch {
        /// Starts watching `root` and every directory below it. A change from now on is told,
        /// also one made while the watch is being set up: a file or directory changed since
        /// (by its change time, which no program sets) is told once the watch is complete.
        /// The error says why it could not start (the system's limit on inotify instances,
        /// say); the limit on watches, met as it is set up, is told as a failure.
        pub fn start(root: &Path) -> Result<OwnWatch, String> {
            let since = SystemTime::now()
                .checked_sub(CLOCK_SLACK)
                .unwrap_or(SystemTime::UNIX_EPOCH);
            let cannot = |e: std::io::Error| format!("cannot watch the tree's files: {e}");
            let inotify = Inotify::init().map_err(cannot)?;
            let watches = inotify.watches();
            let (tell, changed) = crossbeam_channel::bounded(1);
            let failed = Arc::new(Mutex::new(None));
            let stop = Arc::new(AtomicBool::new(false));
            let root_watch = Arc::new(Mutex::new(None));
            let news = Arc::new(Mutex::new(Pending::default()));
            let reader = Reader {
                inotify,
                watches: watches.clone(),
                root: root.to_path_buf(),
                root_watch: Arc::clone(&root_watch),
                dirs: Directories::default(),
                news: Arc::clone(&news),
                tell,
                failed: Arc::clone(&failed),
                stop: Arc::clone(&stop),
            };
            std::thread::Builder::new()
                .name("pbc-watch".to_string())
                .spawn(move || reader.run(since))
                .map_err(cannot)?;
            Ok(OwnWatch {
                changed,
                news,
                failed,
                watches,
                root_watch,
                stop,
            })
        }

        /// What wakes the server when something changed: one `()` per change not yet taken.
        pub fn changed(&self) -> &crossbeam_channel::Receiver<()> {
            &self.changed
        }

        /// What happened since the last call: the watch's failure first, since after it no
        /// change can be trusted to be told.
        pub fn take(&self) -> DiskNews {
            // The watching thread ended (the tree itself is gone, say).
            if let Err(crossbeam_channel::TryRecvError::Disconnected) = self.changed.try_recv() {
                let why = lock(&self.failed).clone();
                return DiskNews::Failed(
                    why.unwrap_or_else(|| "the watch of the tree's files ended".to_string()),
                );
            }
            if let Some(why) = lock(&self.failed).clone() {
                return DiskNews::Failed(why);
            }
            let news = std::mem::take(&mut *lock(&self.news));
            if news.everything {
                DiskNews::Changed
            } else if news.written.is_empty() {
                DiskNews::Nothing
            } else {
                DiskNews::Written(news.written.into_iter().collect())
            }
        }
    }

    impl Drop for OwnWatch {
        /// The tree's own watch removed: the system says so to the watching thread, which
        /// wakes and ends. One still setting the watch up sees `stop` when it is done.
        fn drop(&mut self) {
            let root_watch = lock(&self.root_watch);
            self.stop.store(true, Ordering::SeqCst);
            if let Some(watch) = root_watch.clone() {
                let _ = self.watches.remove(watch);
            }
        }
    }

    fn passed_over(e: &std::io::Error) -> bool {
        matches!(
            e.kind(),
            std::io::ErrorKind::NotFound
                | std::io::ErrorKind::PermissionDenied
                | std::io::ErrorKind::NotADirectory
        )
    }

    /// A repository's own records (`.git`, which an editor's git integration touches at every
    /// keystroke) are not the tree's: the walks skip hidden directories, and no `hiera.yaml`
    /// keeps its data there.
    fn is_git_records(name: &OsStr) -> bool {
        name == ".git"
    }

    /// Whether `meta` was changed at or after `since` (its change time: content, name,
    /// entries, permissions).
    fn changed_since(meta: &std::fs::Metadata, since: SystemTime) -> bool {
        let Ok(since) = since.duration_since(SystemTime::UNIX_EPOCH) else {
            return true;
        };
        let seconds = i64::try_from(since.as_secs()).unwrap_or(i64::MAX);
        (meta.ctime(), meta.ctime_nsec()) >= (seconds, i64::from(since.subsec_nanos()))
    }

    /// The changes the server has not yet taken.
    #[derive(Default)]
    struct Pending {
        /// Anything but files written in place.
        everything: bool,
        written: BTreeSet<PathBuf>,
    }

    impl Pending {
        fn written(&mut self, path: PathBuf) {
            // Past what the server forgets alone, the change is one to everything (and the
            // list stays bounded).
            if self.written.len() < crate::ide::MOST_FORGOTTEN_ALONE {
                self.written.insert(path);
            } else {
                self.everything = true;
            }
        }
    }

    /// The path of each watched directory, by its watch's number, held as its parent's number
    /// and its own name (a tree's 20,000 directories in a few hundred kilobytes, where their
    /// paths would take megabytes of a server that holds 10 bytes per byte of the tree).
    #[derive(Default)]
    struct Directories {
        /// By watch number: the parent's watch number (the tree's own: `NO_PARENT`) and the
        /// name's place in `names`.
        by_watch: foldhash::HashMap<i32, (i32, u32, u32)>,
        names: Vec<u8>,
    }

    const NO_PARENT: i32 = i32::MIN;

    /// Deeper than this no directory of a tree is watched through (a path longer than the
    /// system allows): a chain of parents this long is no path.
    const DEEPEST: usize = 4096;

    impl Directories {
        /// Notes that watch `id` is on the directory `name` of the one watched by `parent`
        /// (a directory renamed keeps its watch: its place is noted anew).
        fn note(&mut self, id: i32, parent: i32, name: &OsStr) {
            use std::os::unix::ffi::OsStrExt;
            let name = name.as_bytes();
            if let Some(&(p, at, len)) = self.by_watch.get(&id) {
                if p == parent && self.names.get(at as usize..(at + len) as usize) == Some(name) {
                    return;
                }
            }
            let (Ok(at), Ok(len)) = (u32::try_from(self.names.len()), u32::try_from(name.len()))
            else {
                return;
            };
            self.names.extend_from_slice(name);
            self.by_watch.insert(id, (parent, at, len));
        }

        /// The path of the directory watch `id` is on, below `root`.
        fn path(&self, id: i32, root: &Path) -> Option<PathBuf> {
            use std::os::unix::ffi::OsStrExt;
            let mut names: Vec<&OsStr> = Vec::new();
            let mut at = id;
            while at != NO_PARENT {
                if names.len() > DEEPEST {
                    return None;
                }
                let &(parent, from, len) = self.by_watch.get(&at)?;
                let name = self.names.get(from as usize..(from + len) as usize)?;
                names.push(OsStr::from_bytes(name));
                at = parent;
            }
            let mut path = root.to_path_buf();
            // The tree's own name is empty.
            path.extend(names.iter().rev().filter(|n| !n.is_empty()));
            Some(path)
        }
    }

    /// What a notice means to the server.
    #[derive(Debug, PartialEq, Eq)]
    enum Notice {
        /// Nothing the tree's checks read (a watch removed, `.git`).
        Nothing,
        /// A file of a watched directory written over in place (or its times or permissions
        /// changed): the same file, whose text may be read again alone.
        Written,
        Changed,
        /// A directory made in (or moved into) a watched one: watched too, then a change.
        NewDirectory,
    }

    fn notice(mask: EventMask, name: Option<&OsStr>) -> Notice {
        // Lost notices may hide any change.
        if mask.contains(EventMask::Q_OVERFLOW) {
            return Notice::Changed;
        }
        if mask.contains(EventMask::IGNORED) || name.is_some_and(is_git_records) {
            return Notice::Nothing;
        }
        if mask.contains(EventMask::ISDIR)
            && mask.intersects(EventMask::CREATE | EventMask::MOVED_TO)
        {
            return Notice::NewDirectory;
        }
        let in_place = EventMask::MODIFY | EventMask::CLOSE_WRITE | EventMask::ATTRIB;
        if name.is_some() && !mask.contains(EventMask::ISDIR) && in_place.contains(mask) {
            return Notice::Written;
        }
        Notice::Changed
    }

    /// The watching thread's side.
    struct Reader {
        inotify: Inotify,
        watches: Watches,
        root: PathBuf,
        root_watch: Arc<Mutex<Option<WatchDescriptor>>>,
        dirs: Directories,
        news: Arc<Mutex<Pending>>,
        tell: crossbeam_channel::Sender<()>,
        failed: Arc<Mutex<Option<String>>>,
        stop: Arc<AtomicBool>,
    }

    impl Reader {
        /// Sets the watch up, then reads notices until the watch is dropped or the tree is
        /// gone. Ending drops `tell`: the server then keeps nothing.
        fn run(mut self, since: SystemTime) {
            match self.watch_tree_apart(Some(since)) {
                Ok(true) => self.tell(|news| news.everything = true),
                Ok(false) => {}
                Err(e) => return self.fail(format!("cannot watch the tree's files: {e}")),
            }
            let mut buffer = vec![0; 64 * 1024];
            loop {
                if self.stop.load(Ordering::SeqCst) {
                    return;
                }
                let events = match self.inotify.read_events_blocking(&mut buffer) {
                    Ok(events) => events,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => {
                        return self.fail(format!("the watch of the tree's files failed: {e}"))
                    }
                };
                let root_watch = lock(&self.root_watch).clone();
                let mut changed = false;
                let mut new_directory = false;
                let mut tree_gone = false;
                let mut written = Vec::new();
                for event in events {
                    if event.mask.contains(EventMask::IGNORED)
                        && Some(&event.wd) == root_watch.as_ref()
                    {
                        tree_gone = true;
                    }
                    match notice(event.mask, event.name) {
                        Notice::Nothing => {}
                        Notice::Written => {
                            let id = event.wd.get_watch_descriptor_id();
                            match (self.dirs.path(id, &self.root), event.name) {
                                (Some(dir), Some(name)) => written.push(dir.join(name)),
                                _ => changed = true,
                            }
                        }
                        Notice::Changed => changed = true,
                        Notice::NewDirectory => new_directory = true,
                    }
                }
                if tree_gone || self.stop.load(Ordering::SeqCst) {
                    return;
                }
                // Watched before the change is told: a file made in it after the check that
                // follows has listed it is told in turn. Directories are made seldom (a new
                // module): the tree is walked again rather than each directory's place kept.
                if new_directory {
                    if let Err(e) = self.watch_tree_apart(None) {
                        return self.fail(format!("cannot watch the tree's new directories: {e}"));
                    }
                }
                if changed || new_directory {
                    self.tell(|news| news.everything = true);
                } else if !written.is_empty() {
                    self.tell(|news| written.into_iter().for_each(|path| news.written(path)));
                }
            }
        }

        /// [`Reader::watch_tree`] on a thread of its own, which ends with the walk: what the
        /// walk allocated and freed is handed back with that thread's memory, where the
        /// watching thread, which then waits for notices for as long as the server runs,
        /// would hold on to it (about half a megabyte of the 10,000-file tree's server after
        /// its first keystrokes: 68.9-69.3 MB resident, 68.5-69.0 with the walk apart).
        fn watch_tree_apart(&mut self, since: Option<SystemTime>) -> std::io::Result<bool> {
            std::thread::scope(|scope| {
                let walk = std::thread::Builder::new()
                    .name("pbc-lsp-watch-walk".to_string())
                    .spawn_scoped(scope, || self.watch_tree(since))?;
                walk.join().unwrap_or_else(|_| {
                    Err(std::io::Error::other(
                        "the walk over the tree's directories failed",
                    ))
                })
            })
        }

        /// Watches the tree and every directory below it, `.git` aside, links not followed
        /// (a directory watched already keeps its watch). A directory gone meanwhile, or one
        /// that cannot be read (nor then checked), is passed over; the system's limit on
        /// watches is an error. With `since`: whether anything watched, or held in what was
        /// watched, changed since then, as it was being watched.
        fn watch_tree(&mut self, since: Option<SystemTime>) -> std::io::Result<bool> {
            let mut changed_meanwhile = false;
            let mut pending = vec![(self.root.clone(), NO_PARENT)];
            while let Some((dir, parent)) = pending.pop() {
                if self.stop.load(Ordering::SeqCst) {
                    return Ok(false);
                }
                let id = match self.watches.add(&dir, watched_events()) {
                    Ok(watch) => {
                        let id = watch.get_watch_descriptor_id();
                        if dir == self.root {
                            *lock(&self.root_watch) = Some(watch);
                            self.dirs.note(id, NO_PARENT, OsStr::new(""));
                        } else if let Some(name) = dir.file_name() {
                            self.dirs.note(id, parent, name);
                        }
                        id
                    }
                    Err(e) if passed_over(&e) && dir != self.root => continue,
                    Err(e) => return Err(e),
                };
                // Stamped after the watch began: a change since is either told or seen here.
                let look = since.filter(|_| !changed_meanwhile);
                if let Some(since) = look {
                    changed_meanwhile |=
                        std::fs::metadata(&dir).is_ok_and(|m| changed_since(&m, since));
                }
                let Ok(entries) = std::fs::read_dir(&dir) else {
                    continue;
                };
                for entry in entries.flatten() {
                    let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
                    if is_dir && !is_git_records(&entry.file_name()) {
                        pending.push((entry.path(), id));
                    } else if let (Some(since), false) = (look, is_dir || changed_meanwhile) {
                        changed_meanwhile |=
                            entry.metadata().is_ok_and(|m| changed_since(&m, since));
                    }
                }
            }
            Ok(changed_meanwhile)
        }

        /// Notes a change in what the server has yet to take, and wakes it.
        fn tell(&self, change: impl FnOnce(&mut Pending)) {
            change(&mut lock(&self.news));
            // A change already waiting to be taken wakes the server for this one too.
            let _ = self.tell.try_send(());
        }

        fn fail(&self, why: String) {
            lock(&self.failed).get_or_insert(why);
            self.tell(|_| {});
        }
    }

    fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        mutex
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn reads_and_the_repositorys_records_are_not_changes() {
            assert!(!watched_events().contains(WatchMask::OPEN));
            assert!(!watched_events().contains(WatchMask::ACCESS));
            let name = Some(OsStr::new("a.pp"));
            for in_place in [EventMask::MODIFY, EventMask::CLOSE_WRITE, EventMask::ATTRIB] {
                assert_eq!(notice(in_place, name), Notice::Written);
                assert_eq!(notice(in_place | EventMask::ISDIR, name), Notice::Changed);
                assert_eq!(notice(in_place, None), Notice::Changed);
            }
            for listed in [
                EventMask::CREATE,
                EventMask::DELETE,
                EventMask::MOVED_FROM,
                EventMask::MOVED_TO,
            ] {
                assert_eq!(notice(listed, name), Notice::Changed);
            }
            let git = Some(OsStr::new(".git"));
            assert_eq!(
                notice(EventMask::CREATE | EventMask::ISDIR, git),
                Notice::Nothing
            );
            let data = Some(OsStr::new(".data"));
            assert_eq!(
                notice(EventMask::MOVED_TO | EventMask::ISDIR, data),
                Notice::NewDirectory
            );
            assert_eq!(notice(EventMask::IGNORED, None), Notice::Nothing);
            assert_eq!(notice(EventMask::Q_OVERFLOW, None), Notice::Changed);
        }

        /// A directory made after the watch began is watched too: a file made in it is told
        /// as a change, and then written over in place as written, by its path (also once
        /// the directory is renamed); one in `.git` is not told, and dropping the watch ends
        /// its thread.
        #[test]
        fn directories_made_later_are_watched() {
            use std::time::Duration;
            let tree = tempfile::tempdir().expect("a directory");
            std::fs::create_dir(tree.path().join(".git")).expect("a directory");
            let watch = OwnWatch::start(tree.path()).expect("watched");
            let changes = watch.changed().clone();
            // Every notice of what was done so far taken (the tree made just now is told as
            // changed while the watch was set up), and what they told.
            let settled = || {
                while changes.recv_timeout(Duration::from_millis(300)).is_ok() {}
                watch.take()
            };
            settled();
            std::fs::create_dir_all(tree.path().join("modules/m")).expect("made");
            assert!(changes.recv_timeout(Duration::from_secs(10)).is_ok());
            assert_eq!(settled(), DiskNews::Changed);
            let init = tree.path().join("modules/m/init.pp");
            std::fs::write(&init, "class m {}\n").expect("written");
            assert!(changes.recv_timeout(Duration::from_secs(10)).is_ok());
            assert_eq!(settled(), DiskNews::Changed, "a file made");
            std::fs::write(&init, "class m { }\n").expect("written");
            assert!(changes.recv_timeout(Duration::from_secs(10)).is_ok());
            assert_eq!(settled(), DiskNews::Written(vec![init]));
            std::fs::rename(tree.path().join("modules/m"), tree.path().join("modules/n"))
                .expect("renamed");
            assert_eq!(settled(), DiskNews::Changed);
            let renamed = tree.path().join("modules/n/init.pp");
            std::fs::write(&renamed, "class m {}\n").expect("written");
            assert_eq!(settled(), DiskNews::Written(vec![renamed]));
            assert_eq!(watch.take(), DiskNews::Nothing);
            std::fs::write(tree.path().join(".git/index"), "x").expect("written");
            std::fs::create_dir(tree.path().join(".git/refs")).expect("made");
            assert_eq!(settled(), DiskNews::Nothing);
            drop(watch);
            assert_eq!(
                changes.recv_timeout(Duration::from_secs(10)),
                Err(crossbeam_channel::RecvTimeoutError::Disconnected),
                "the watching thread ended"
            );
        }

        /// A change made before the watch is complete is told once it is, by the change time
        /// of what changed; a tree changed before the watch began (and its clock's slack) is
        /// not told.
        #[test]
        fn a_change_while_the_watch_is_set_up_is_told() {
            use std::time::Duration;
            let tree = tempfile::tempdir().expect("a directory");
            std::fs::create_dir_all(tree.path().join("data/nodes")).expect("made");
            std::fs::write(tree.path().join("data/common.yaml"), "a: 1\n").expect("written");
            std::thread::sleep(CLOCK_SLACK + Duration::from_millis(100));
            let watch = OwnWatch::start(tree.path()).expect("watched");
            assert!(watch
                .changed()
                .recv_timeout(Duration::from_millis(500))
                .is_err());
            drop(watch);
            for change in ["data/common.yaml", "data/nodes/web01.yaml"] {
                std::thread::sleep(CLOCK_SLACK + Duration::from_millis(100));
                std::fs::write(tree.path().join(change), "a: 2\n").expect("written");
                let watch = OwnWatch::start(tree.path()).expect("watched");
                assert!(watch
                    .changed()
                    .recv_timeout(Duration::from_secs(10))
                    .is_ok());
            }
        }
    }
}

#[cfg(not(target_os = "linux"))]
mod elsewhere {
    use super::DiskNews;
    use std::path::Path;

    /// No watch of its own here: editors on these systems watch the tree for the server.
    pub struct OwnWatch {
        changed: crossbeam_channel::Receiver<()>,
    }

    impl OwnWatch {
        pub fn start(_root: &Path) -> Result<OwnWatch, String> {
            Err("the server cannot watch the tree's files on this system".to_string())
        }

        pub fn changed(&self) -> &crossbeam_channel::Receiver<()> {
            &self.changed
        }

        pub fn take(&self) -> DiskNews {
            DiskNews::Nothing
        }
    }
}
