//! What one check keeps for the next (`pbc lsp`, where each keystroke checks the tree again,
//! and each hover after a change loads the tree for its node again): every file's parse and,
//! for a bindings file, its own judgement and lowered block, with the text they were made
//! from; and the names a load gave its files. It owns deciding what may be reused: a file's
//! results only when the check's files are the same list as the last one's (so every file has
//! the id its results point to), the file's text is the same, byte for byte, and its block was
//! lowered for the same use under the same name; a file's name only for the same walk's file
//! below the same root. It must not change what a check reports: a check (or a load) with a
//! memo reports exactly what one without would.

use super::{parse_all, Digest, Digested, ParsedFile};
use crate::lower::model::FileName;
use crate::span::{FileId, SourceMap};
use crate::tree::FileRole;

/// A check's parses, kept for the next check (see the module's comment).
#[derive(Default)]
pub struct CheckMemo {
    /// Every file's name in the last check's source map, in id order (shared with it).
    names: Vec<std::sync::Arc<str>>,
    /// The last check's parses, in its jobs' order.
    kept: Vec<Kept>,
    /// How many files the last check parsed (the others' parses were kept).
    parsed_last: usize,
    /// Whether the last check's files were the same list as the one before.
    same_files_last: bool,
    /// How many of the last check's names were not the ones the check before held (every
    /// name, when the files were not the same list).
    names_renewed_last: usize,
    /// By environment (`""` for a tree without environments), its last judgement of its
    /// layers.
    judgements: std::collections::BTreeMap<String, crate::validate::JudgementMemo>,
    /// The environments the check under way judged: the others' judgements are forgotten
    /// when it ends (they hold the texts as they were).
    judged_now: std::collections::BTreeSet<String>,
    /// The names the last load's origins gave its files ([`CheckMemo::origins_below`]), with
    /// the root they were named below.
    origins: Vec<KeptOrigin>,
    origins_root: Option<std::path::PathBuf>,
    /// The list of files the last load read (a kept walk's, shared) and what it took from
    /// the kept disk ([`crate::source::read_identified_all_again`]).
    reads: Option<(
        std::sync::Arc<Vec<crate::tree::TreeFile>>,
        crate::source::KeptReads,
    )>,
}

/// A file's origin as a load named it, with the path and display name it was named from
/// (shared with the walk that found the file).
struct KeptOrigin {
    path: std::sync::Arc<std::path::Path>,
    display: std::sync::Arc<str>,
    name: FileName,
}

/// One file's parse, kept with what it was made from.
struct Kept {
    id: FileId,
    role: FileRole,
    /// Shared with the check's source map where the text is kept elsewhere (see
    /// [`crate::span::SourceText`]): the next check tells it unchanged without reading it.
    text: crate::span::SourceText,
    parsed: ParsedFile,
    /// The digest of bindings files the check asked for (with its result or not): what its
    /// block is for and the name its origins give the file.
    digested_as: Option<(crate::eval::code::Detached, crate::lower::model::FileName)>,
    digested: Option<Digested>,
}

impl CheckMemo {
    /// What the last load of `files` took from the kept disk, for this load of them to take
    /// again: nothing when the last load read another list.
    pub(super) fn kept_reads(
        &mut self,
        files: &std::sync::Arc<Vec<crate::tree::TreeFile>>,
    ) -> &mut crate::source::KeptReads {
        if !self
            .reads
            .as_ref()
            .is_some_and(|(read, _)| std::sync::Arc::ptr_eq(read, files))
        {
            self.reads = Some((files.clone(), crate::source::KeptReads::default()));
        }
        let (_, reads) = self.reads.get_or_insert_with(Default::default);
        reads
    }

    /// [`super::origins_below`], sharing the names the last load made for the files it held
    /// at the same place in the list, found by the same walk (the same shared path and
    /// display name) below the same root: a load for a hover after a change names 10,000
    /// files as the one before did.
    pub(super) fn origins_below(
        &mut self,
        tree_files: &[crate::tree::TreeFile],
        root: Option<&std::path::Path>,
    ) -> Vec<FileName> {
        use std::sync::Arc;
        if self.origins_root.as_deref() != root {
            self.origins.clear();
            self.origins_root = root.map(std::path::Path::to_path_buf);
        }
        let kept = std::mem::take(&mut self.origins);
        let mut kept = kept.into_iter();
        self.origins = tree_files
            .iter()
            .map(|file| {
                let name = match kept.next() {
                    Some(k)
                        if Arc::ptr_eq(&k.path, &file.path)
                            && Arc::ptr_eq(&k.display, &file.display) =>
                    {
                        k.name
                    }
                    _ => super::origin_below(file, root),
                };
                KeptOrigin {
                    path: file.path.clone(),
                    display: file.display.clone(),
                    name,
                }
            })
            .collect();
        self.origins.iter().map(|k| k.name.clone()).collect()
    }

    /// How many files the last check parsed: the others' parses were the ones kept.
    pub fn parsed_last(&self) -> usize {
        self.parsed_last
    }

    /// The last judgement of the layers of `environment` (`""`: the tree has none).
    pub(super) fn judgement(&mut self, environment: &str) -> &mut crate::validate::JudgementMemo {
        self.judged_now.insert(environment.to_string());
        self.judgements.entry(environment.to_string()).or_default()
    }

    /// The check is over: the judgements of environments it did not judge (gone, or not
    /// judged while the site has errors) are forgotten.
    pub(super) fn check_ended(&mut self) {
        let judged_now = std::mem::take(&mut self.judged_now);
        self.judgements
            .retain(|environment, _| judged_now.contains(environment));
    }

    /// How many keys the last check judged again, over its environments (every key of an
    /// environment judged whole).
    pub fn keys_judged_last(&self) -> usize {
        self.judgements.values().map(|j| j.judged_last).sum()
    }

    /// How many texts the memo holds as copies of their own: kept apart from the check that
    /// read them, or a judgement's copy of a file apart from the parse's. None when the
    /// check's texts were read shared ([`crate::source::FileAccess::share_texts`]), so that
    /// the server holds the tree's text once.
    pub fn texts_copied(&self) -> usize {
        use crate::span::SourceText;
        let parsed: foldhash::HashMap<FileId, &SourceText> =
            self.kept.iter().map(|k| (k.id, &k.text)).collect();
        let owned = |text: &SourceText| matches!(text, SourceText::Owned(_));
        let apart = self
            .judgements
            .values()
            .flat_map(|j| j.texts())
            .filter(|(id, text)| match parsed.get(id) {
                Some(kept) => !text.shares_copy_with(kept),
                None => owned(text),
            })
            .count();
        self.kept.iter().filter(|k| owned(&k.text)).count() + apart
    }

    /// How many file names the memo holds apart from another copy of the same name: the
    /// judgement's not shared with the parses', and those the last check made anew although
    /// its files were the same as the check before (a check that keeps the walk keeps its
    /// names too). None while the disk is kept and nothing changed, so that the server holds
    /// each name once.
    pub fn names_copied(&self) -> usize {
        let apart = self
            .judgements
            .values()
            .flat_map(|j| j.names())
            .filter(|(id, name)| {
                self.names
                    .get(id.0 as usize)
                    .is_none_or(|kept| !std::sync::Arc::ptr_eq(kept, name))
            })
            .count();
        self.names_renewed_last + apart
    }

    /// Whether the last check read the same files, by the same names, as the one before it.
    pub fn same_files_last(&self) -> bool {
        self.same_files_last
    }

    /// [`parse_all`] of `jobs`, parsing only the files whose text changed since the last check
    /// when the files are the same list; every other file's results are the ones kept.
    /// A bindings file's block is kept for a digest of the same kind that names the file the
    /// same ([`Digest::origins`]): a model's blocks name their files.
    pub(super) fn parse_all(
        &mut self,
        files: &SourceMap,
        jobs: &[(FileId, FileRole)],
        digest: Option<Digest>,
    ) -> Vec<(ParsedFile, Option<Digested>)> {
        for judgement in self.judgements.values_mut() {
            judgement.judged_last = 0;
        }
        self.judged_now.clear();
        self.same_files_last = false;
        let digested_as = |id: FileId| {
            digest.map(|d| {
                let origin = d.origins.get(id.0 as usize).cloned().unwrap_or_default();
                (d.blocks, origin)
            })
        };
        let same_digest = |kept: &Kept, id: FileId| match (&kept.digested_as, digested_as(id)) {
            (None, None) => true,
            (Some((kept, kept_origin)), Some((now, origin))) => {
                *kept == now && *kept_origin == origin
            }
            _ => false,
        };
        let same_files = self.names.len() == files.len()
            && self.names.iter().enumerate().all(|(i, name)| {
                // A name shared with the last check is the same without reading it: the
                // names of 10,000 files are as many places in memory.
                let now = files.name(FileId(i as u32));
                std::ptr::eq(now, &**name) || now == &**name
            })
            && self.kept.len() == jobs.len()
            && self
                .kept
                .iter()
                .zip(jobs)
                .all(|(kept, (id, role))| kept.id == *id && kept.role == *role);
        self.same_files_last = same_files;
        if same_files {
            // This check's names, the same text: the last check's copies are let go.
            self.names_renewed_last = 0;
            for (i, name) in self.names.iter_mut().enumerate() {
                let now = files.shared_name(FileId(i as u32));
                if !std::sync::Arc::ptr_eq(name, &now) {
                    self.names_renewed_last += 1;
                    *name = now;
                }
            }
        } else {
            self.names_renewed_last = files.len();
            self.names = (0..files.len())
                .map(|i| files.shared_name(FileId(i as u32)))
                .collect();
            self.kept.clear();
            self.kept.reserve_exact(jobs.len());
        }
        // A bindings file's results differ with and without a digest.
        let changed: Vec<usize> = (0..jobs.len())
            .filter(|&i| {
                !same_files
                    || !self.kept[i].text.same_as(files.source_text(jobs[i].0))
                    || !same_digest(&self.kept[i], jobs[i].0)
            })
            .collect();
        self.parsed_last = changed.len();
        // A text unchanged but read anew (the disk's kept copy forgotten): its new copy is
        // kept, so that the next check tells it unchanged without reading it.
        if same_files {
            for (i, (id, _)) in jobs.iter().enumerate() {
                if changed.binary_search(&i).is_err() {
                    self.kept[i].text.take_shared_copy(files.source_text(*id));
                }
            }
        }
        let to_parse: Vec<(FileId, FileRole)> = changed.iter().map(|&i| jobs[i].clone()).collect();
        let fresh = parse_all(files, &to_parse, digest);
        for (&i, ((id, role), (parsed, digested))) in
            changed.iter().zip(to_parse.into_iter().zip(fresh))
        {
            let kept = Kept {
                text: files.source_text(id).clone(),
                digested_as: digested_as(id),
                id,
                role,
                parsed,
                digested,
            };
            if same_files {
                self.kept[i] = kept;
            } else {
                self.kept.push(kept);
            }
        }
        // The programs, blocks and judgements are lent (shared); only diagnostics are copied.
        crate::parallel::parallel_map(self.kept.len(), |i| {
            (self.kept[i].parsed.clone(), self.kept[i].digested.clone())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::CheckMemo;
    use crate::tree::{FileRole, TreeFile};
    use std::path::Path;
    use std::sync::Arc;

    fn file(path: &str) -> TreeFile {
        TreeFile {
            path: Arc::from(Path::new(path)),
            display: Arc::from(path),
            role: FileRole::Manifest,
        }
    }

    /// What `origins_below` gives, as strings, and where each name's text is held.
    fn named(names: &[crate::lower::model::FileName]) -> Vec<(String, *const u8)> {
        names
            .iter()
            .map(|n| (n.as_str().to_string(), n.as_str().as_ptr()))
            .collect()
    }

    #[test]
    fn a_load_names_its_files_as_without_a_memo_sharing_the_names_of_the_same_files() {
        let root = Path::new("/tree");
        let first: Vec<TreeFile> = ["/tree/modules/a/bindings/default.pp", "/tree/site.pp"]
            .into_iter()
            .map(file)
            .collect();
        let mut memo = CheckMemo::default();
        let before = named(&memo.origins_below(&first, Some(root)));
        let fresh = super::super::origins_below(&first, Some(root));
        let strings =
            |n: &[(String, *const u8)]| n.iter().map(|(s, _)| s.clone()).collect::<Vec<_>>();
        assert_eq!(strings(&before), strings(&named(&fresh)));
        assert_eq!(
            strings(&before),
            ["modules/a/bindings/default.pp", "site.pp"]
        );

        // The same walk's files: the same names, shared.
        let again = named(&memo.origins_below(&first, Some(root)));
        assert_eq!(again, before);

        // A file found in between (another walk: other shared paths for the same files), and
        // another root: each named anew, as without a memo.
        let mut second = first.clone();
        second.insert(1, file("/tree/modules/b/bindings/default.pp"));
        let after = named(&memo.origins_below(&second, Some(root)));
        assert_eq!(
            strings(&after),
            strings(&named(&super::super::origins_below(&second, Some(root))))
        );
        assert_eq!(
            after[0], before[0],
            "the first file is the same walk's: its name is shared"
        );
        let other_root = named(&memo.origins_below(&second, Some(Path::new("/tree/modules"))));
        assert_eq!(
            strings(&other_root),
            [
                "a/bindings/default.pp",
                "b/bindings/default.pp",
                "/tree/site.pp"
            ]
        );
    }
}
