//! The atomic writer of `pbc compile -o`: readers see the old file or the whole new one, never
//! a partial model.

use std::io::Write;
use std::path::PathBuf;

/// A temporary file beside `path` that [`commit`](AtomicFile::commit) renames over `path`:
/// readers see the old file or the whole new one, never a partial model. The temporary file is
/// created exclusively under a random name (no one can plant a link there), takes the target's
/// permissions, and is removed on every failure and when dropped uncommitted; ones that a
/// killed run left behind are removed by the next run. A target that exists and is not a
/// regular file (a FIFO, a device, a link) is refused.
pub(crate) struct AtomicFile {
    pub(crate) tmp: tempfile::NamedTempFile,
    /// Written since the last flush to disk was started.
    pub(crate) unflushed: usize,
    /// Flushes what was written so far to disk while more is written, so that `commit` waits
    /// only for the last part (a model is tens of megabytes).
    pub(crate) flushing: Option<std::thread::JoinHandle<std::io::Result<()>>>,
    pub(crate) path: PathBuf,
    /// The target's permissions, when it exists.
    pub(crate) permissions: Option<std::fs::Permissions>,
}

impl AtomicFile {
    pub(crate) fn create(path: &std::path::Path) -> std::io::Result<AtomicFile> {
        use std::io::{Error, ErrorKind};
        let permissions = match std::fs::symlink_metadata(path) {
            Ok(m) if m.file_type().is_file() => Some(m.permissions()),
            Ok(_) => {
                return Err(Error::new(
                    ErrorKind::InvalidInput,
                    format!(
                        "{} exists and is not a regular file; pbc replaces only regular files",
                        path.display()
                    ),
                ))
            }
            Err(e) if e.kind() == ErrorKind::NotFound => None,
            Err(e) => return Err(e),
        };
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path
            .file_name()
            .map_or_else(|| "model".into(), |n| n.to_string_lossy().into_owned());
        let prefix = format!(".{name}.pbc-");
        remove_stale_temporaries(&dir, &prefix);
        // The writer's process id in the name tells the next run whether it is still alive.
        let ours = format!("{prefix}{}-", std::process::id());
        let mut builder = tempfile::Builder::new();
        builder.prefix(&ours).suffix(".tmp");
        // A new model is created as any new file is (0666 less the umask), not private as a
        // temporary would be: CI writes it for others to read.
        #[cfg(unix)]
        if permissions.is_none() {
            use std::os::unix::fs::PermissionsExt;
            builder.permissions(std::fs::Permissions::from_mode(0o666));
        }
        Ok(AtomicFile {
            tmp: builder.tempfile_in(&dir)?,
            unflushed: 0,
            flushing: None,
            path: path.to_path_buf(),
            permissions,
        })
    }

    /// How the flush started last went, once it is over (none: `Ok`).
    pub(crate) fn flushed(&mut self) -> std::io::Result<()> {
        match self.flushing.take() {
            Some(flushing) => flushing
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => Ok(()),
        }
    }

    /// Makes the written file the target, once it is on disk.
    pub(crate) fn commit(mut self) -> std::io::Result<()> {
        self.flushed()?;
        self.tmp.as_file().sync_all()?;
        if let Some(p) = self.permissions {
            self.tmp.as_file().set_permissions(p)?;
        }
        self.tmp
            .persist(&self.path)
            .map(|_| ())
            .map_err(|e| e.error)
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // A flush that failed fails the next write, before it writes anything.
        if self.flushing.as_ref().is_some_and(|f| f.is_finished()) {
            self.flushed()?;
        }
        let written = self.tmp.as_file_mut().write(buf)?;
        self.unflushed += written;
        // Every 8 MB, unless the last flush is still running.
        if self.unflushed >= 8 << 20 && self.flushing.is_none() {
            if let Ok(file) = self.tmp.as_file().try_clone() {
                self.flushing = Some(std::thread::spawn(move || file.sync_data()));
            }
            self.unflushed = 0;
        }
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Temporary files of our naming pattern left by a run that was killed before it could remove
/// them (`kill -9`, a machine that lost power): those whose writer's process is gone (its id is
/// in the name, and `/proc` says whether it runs), and any older than an hour (a running
/// compile writes its file within seconds; where there is no `/proc`, or a process id was
/// reused).
pub(crate) fn remove_stale_temporaries(dir: &std::path::Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let hour = std::time::Duration::from_secs(3600);
    let proc = std::path::Path::new("/proc/self").is_dir();
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if !name.starts_with(prefix) || !name.ends_with(".tmp") {
            continue;
        }
        let Some(meta) = entry.metadata().ok().filter(|m| m.file_type().is_file()) else {
            continue;
        };
        let writer_gone = name[prefix.len()..]
            .split_once('-')
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
            .is_some_and(|pid| {
                proc && pid != std::process::id()
                    && !std::path::Path::new("/proc").join(pid.to_string()).exists()
            });
        let old = meta
            .modified()
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > hour);
        if writer_gone || old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
