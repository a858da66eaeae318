//! The language server's look at the disk behind its checks, where nothing tells it of changes
//! to the tree's files: the setting `watch` off, a watch that could not start or failed (the
//! system's limit on watches), links that lead out of the tree. The server then keeps what it
//! listed and read all the same, so that a keystroke is checked from memory (25 ms for 10,000
//! files, where listing and reading them again took a quarter of a second), and after each
//! check (once the editor is quiet) this looks at the disk anew: it lists and reads
//! everything a check would, from nothing, on a thread of its own and one core (the other
//! cores stay with the keystrokes), and tells whether what is kept agrees. When it does not,
//! the server keeps what the look read instead, and checks again. It owns only the looking;
//! what a look reads is a check's (its caller's), and what is kept is the server's to decide.

use crate::source::{FileAccess, KeptDisk};

/// A look under way, and what it found once it is done.
pub struct DiskLook {
    /// One message when the look is done, which wakes the server (whose wait takes it);
    /// none, and closed, when its thread ended without one (a bug: the look then failed).
    done: crossbeam_channel::Receiver<()>,
    /// Whether what is kept agrees with the disk, once the look is done.
    agrees: std::sync::Arc<std::sync::OnceLock<bool>>,
    /// What is kept, that the look compares with the disk.
    of: KeptDisk,
    /// What the look kept of the disk as it read it, once it is done.
    fresh: KeptDisk,
}

/// What a finished look found.
#[derive(Debug, PartialEq, Eq)]
pub enum Looked {
    /// The disk is as kept: what is kept may still be used.
    Agrees,
    /// The disk is not as kept: nothing kept may be used, and what the look read of it (as
    /// the disk is now) may be kept instead.
    Disagrees(KeptDisk),
    /// The look could not tell (its thread ended without a word): nothing kept may be used.
    Failed,
}

impl DiskLook {
    /// Starts looking: `read_as_a_check_does` lists and reads the tree, keeping what it reads in
    /// the kept disk it is given (an empty one), on a thread of its own, held to one core; then
    /// what `of` keeps is compared with it ([`KeptDisk::agrees_with`], files read only by `of`
    /// read again by `access`, which must keep nothing). The error says why no thread could
    /// start.
    pub fn start(
        of: KeptDisk,
        access: FileAccess,
        read_as_a_check_does: impl FnOnce(&KeptDisk) + Send + 'static,
    ) -> std::io::Result<DiskLook> {
        let (tell, done) = crossbeam_channel::bounded(1);
        let agrees = std::sync::Arc::new(std::sync::OnceLock::new());
        let fresh = KeptDisk::new();
        let (kept, read_into, found) = (of.clone(), fresh.clone(), agrees.clone());
        std::thread::Builder::new()
            .name("pbc-look".to_string())
            .stack_size(crate::parallel::WORKER_STACK)
            .spawn(move || {
                crate::parallel::on_one_core(|| read_as_a_check_does(&read_into));
                let _ = found.set(kept.agrees_with(&read_into, &access));
                let _ = tell.send(());
            })?;
        Ok(DiskLook {
            done,
            agrees,
            of,
            fresh,
        })
    }

    /// What wakes the server when the look is done.
    pub fn done(&self) -> &crossbeam_channel::Receiver<()> {
        &self.done
    }

    /// What is kept, that the look compares with the disk.
    pub fn of(&self) -> &KeptDisk {
        &self.of
    }

    /// What the look found, once it is done; `None` while it looks.
    pub fn take(&self) -> Option<Looked> {
        let agrees = self.agrees.get().copied();
        // The thread ended without saying (the wake may have been taken by the wait already).
        let ended = || {
            matches!(
                self.done.try_recv(),
                Err(crossbeam_channel::TryRecvError::Disconnected)
            )
        };
        match agrees {
            Some(true) => {
                // A listing the look neither made nor could make again is made again when
                // next asked for: it could not be compared.
                self.of.forget_walks_not_in(&self.fresh);
                Some(Looked::Agrees)
            }
            Some(false) => Some(Looked::Disagrees(self.fresh.clone())),
            None if ended() => Some(Looked::Failed),
            None => None,
        }
    }
}
