//! What one check keeps for the next (`pbc lsp`, where each keystroke checks the tree again):
//! every file's parse and, for a bindings file, its own judgement and lowered block, with the
//! text they were made from. It owns deciding what may be reused: a file's results only when
//! the check's files are the same list as the last one's (so every file has the id its
//! results point to) and the file's text is the same, byte for byte. It must not change what a
//! check reports: a check with a memo reports exactly what one without would.

use super::{parse_all, Digest, Digested};
use crate::parser::Parsed;
use crate::span::{FileId, SourceMap};
use crate::tree::FileRole;

/// A check's parses, kept for the next check (see the module's comment).
#[derive(Default)]
pub struct CheckMemo {
    /// Every file's name in the last check's source map, in id order.
    names: Vec<String>,
    /// The last check's parses, in its jobs' order.
    kept: Vec<Kept>,
    /// How many files the last check parsed (the others' parses were kept).
    parsed_last: usize,
    /// Whether the last check's files were the same list as the one before.
    same_files_last: bool,
}

/// One file's parse, kept with what it was made from.
struct Kept {
    id: FileId,
    role: FileRole,
    text: Box<str>,
    parsed: Parsed,
    /// Whether the check asked for a digest of bindings files (with its result or not).
    digesting: bool,
    digested: Option<Digested>,
}

impl CheckMemo {
    /// How many files the last check parsed: the others' parses were the ones kept.
    pub fn parsed_last(&self) -> usize {
        self.parsed_last
    }

    /// Whether the last check read the same files, by the same names, as the one before it.
    pub fn same_files_last(&self) -> bool {
        self.same_files_last
    }

    /// [`parse_all`] of `jobs`, parsing only the files whose text changed since the last check
    /// when the files are the same list; every other file's results are the ones kept.
    /// Only a check's digest ([`Digest::CHECK`]) is kept: a model's blocks name their files.
    pub(super) fn parse_all(
        &mut self,
        files: &SourceMap,
        jobs: &[(FileId, FileRole)],
        digest: Option<Digest>,
    ) -> Vec<(Parsed, Option<Digested>)> {
        self.same_files_last = false;
        if digest.is_some_and(|d| !d.origins.is_empty() || d.for_model) {
            return parse_all(files, jobs, digest);
        }
        let digesting = digest.is_some();
        let same_files = self.names.len() == files.len()
            && self
                .names
                .iter()
                .enumerate()
                .all(|(i, name)| files.name(FileId(i as u32)) == name)
            && self.kept.len() == jobs.len()
            && self
                .kept
                .iter()
                .zip(jobs)
                .all(|(kept, (id, role))| kept.id == *id && kept.role == *role);
        self.same_files_last = same_files;
        if !same_files {
            self.names = (0..files.len())
                .map(|i| files.name(FileId(i as u32)).to_string())
                .collect();
            self.kept.clear();
        }
        // A bindings file's results differ with and without a digest.
        let changed: Vec<usize> = (0..jobs.len())
            .filter(|&i| {
                !same_files
                    || *self.kept[i].text != *files.source(jobs[i].0)
                    || self.kept[i].digesting != digesting
            })
            .collect();
        self.parsed_last = changed.len();
        let to_parse: Vec<(FileId, FileRole)> = changed.iter().map(|&i| jobs[i].clone()).collect();
        let fresh = parse_all(files, &to_parse, digest);
        for (&i, ((id, role), (parsed, digested))) in
            changed.iter().zip(to_parse.into_iter().zip(fresh))
        {
            let kept = Kept {
                text: files.source(id).into(),
                id,
                role,
                parsed,
                digesting,
                digested,
            };
            if same_files {
                self.kept[i] = kept;
            } else {
                self.kept.push(kept);
            }
        }
        // The blocks are lent (shared); the rest is copied on every core.
        crate::parallel::parallel_map(self.kept.len(), |i| {
            (self.kept[i].parsed.clone(), self.kept[i].digested.clone())
        })
    }
}
