//! What the language server keeps of one environment's judgement of its layers between checks,
//! so that a check after an edit judges again only the keys the edited files can change (issue
//! 60: "the changed file, then the composition of the keys it binds").
//!
//! A key's judgement reads its candidates (their layers, `when`s, flags and values), the
//! contributions to the multibinds it collects, the categories' levels, the layers' names and
//! order, and the text of the files it points into. So a key's findings are kept unless a file
//! that binds it (now or at the last check) or contributes to what it collects changed, and
//! everything is judged again when anything else could have changed: a file renamed, added or
//! removed; a changed file that holds no bindings (the site, a `hiera.yaml`, whose changes alter
//! other files' blocks); other layers, levels, or a site appearing. The index of the bindings
//! is built whole only to judge everything; after an edit it holds only the keys to judge
//! again and what their judgement reads, from the files that bind or contribute to them (each
//! judgement lists what every file binds, contributes to and collects, for the next). It owns
//! that decision, those lists and the kept findings; the judging
//! is [`crate::compose::analysis`]'s and the wording `composition`'s, run as without it. Tests
//! hold every check with the memo to a check without it over edit sequences of corpus trees.

use crate::compose::{contributing_items, Bindings, BlockTake, Bound, LayerView, Only};
use crate::diag::Diagnostic;
use crate::eval::code::Code;
use crate::lower::model::NamedBindings;
use crate::span::{FileId, SourceMap, SourceText};
use foldhash::{HashMap, HashSet};
use smol_str::SmolStr;
use std::collections::BTreeMap;
use std::hash::BuildHasher;

/// One environment's last judgement, if any (see the module's documentation).
#[derive(Default)]
pub struct JudgementMemo {
    judged: Option<Judged>,
    /// How many keys the last check judged (every key, when it judged everything).
    pub(crate) judged_last: usize,
}

/// The file the system layer's blocks are said to be in: none of the tree's. Its blocks are
/// part of every build.
pub(super) const SYSTEM_FILE: FileId = FileId(u32::MAX);

/// A layer as the judgement sees it: its name and its files' blocks, in order.
pub(super) type PlacedLayer<'m> = (&'m str, Vec<(FileId, &'m NamedBindings<Code<'m>>)>);

/// What the judgement of the layers needs besides the blocks.
pub(super) struct Judging<'a> {
    pub files: &'a SourceMap,
    pub levels: &'a HashMap<SmolStr, u16>,
    pub has_site: bool,
    /// The files of unknown bindings (they did not parse).
    pub unknown: Vec<FileId>,
}

/// Judges the key entries `keys` of `bindings` (`None`: every key); for each finding, its
/// entry, its diagnostic, and the highest layer of unknown bindings that could change it (see
/// `composition::could_change`).
pub(super) type JudgeKeys<'j> =
    dyn Fn(&Bindings, Option<&[usize]>) -> Vec<(usize, Diagnostic, usize)> + 'j;

struct Judged {
    /// Each file of the source map: its name (shared with the source map) and text as judged.
    files: Vec<(std::sync::Arc<str>, SourceText)>,
    layers: Vec<(String, Vec<FileId>)>,
    levels: Vec<(SmolStr, u16)>,
    has_site: bool,
    /// The files whose blocks the judgement read or would have (those that did not parse).
    block_files: HashSet<FileId>,
    /// By file (dense, by id): the ids of the keys it binds and of the multibinds it
    /// contributes to, each list one text with an id per line (a tree's hundred thousand keys
    /// in a few megabytes).
    by_file: Vec<FileNames>,
    /// Each file's keys of `by_file` by a hash of their id, sorted: the files that bind a
    /// few keys, found without reading every file's list (every file is walked when each
    /// contributes to one multibind, and its list was read for whether it binds the keys).
    /// The hash is cut to 32 bits (8 bytes an entry, not 16: a megabyte for a tree's hundred
    /// thousand keys): a file a shared hash names is read, and left out (see
    /// [`Judged::binding`]).
    binders: Vec<(u32, FileId)>,
    /// The hash of `binders` (any fixed for the judgement's life).
    key_hash: foldhash::fast::RandomState,
    /// The findings of the keys that have any, by [`crate::lower::keys::Key::id`].
    found: BTreeMap<String, Vec<(Diagnostic, usize)>>,
}

#[derive(Clone, Default)]
struct FileNames {
    binds: Box<str>,
    contributes: Box<str>,
    /// The multibinds it holds (few files have any).
    collects: Box<[Collects]>,
    /// The top-level items of its block that hold its contributions
    /// ([`crate::compose::contributing_items`]).
    contributing: Box<[u32]>,
}

/// A multibind's id, and the id of the key whose binding collects it.
type Collects = (Box<str>, Box<str>);

impl JudgementMemo {
    /// The texts of the files as last judged, by id.
    pub(crate) fn texts(&self) -> impl Iterator<Item = (FileId, &SourceText)> {
        self.judged.iter().flat_map(|j| {
            j.files
                .iter()
                .enumerate()
                .map(|(i, (_, text))| (FileId(i as u32), text))
        })
    }

    /// The names of the files as last judged, by id.
    pub(crate) fn names(&self) -> impl Iterator<Item = (FileId, &std::sync::Arc<str>)> {
        self.judged.iter().flat_map(|j| {
            j.files
                .iter()
                .enumerate()
                .map(|(i, (name, _))| (FileId(i as u32), name))
        })
    }

    /// The findings of the layers `placed` (the system layer last), judged again only where
    /// the files changed since the last call could change them; `judge` judges and words them.
    /// Findings that a file of unknown bindings could change (from layer `unknown_from` on)
    /// are left out, as without the memo.
    pub(super) fn judge(
        &mut self,
        placed: &[PlacedLayer],
        judging: &Judging,
        unknown_from: Option<usize>,
        judge: &JudgeKeys,
    ) -> Vec<Diagnostic> {
        let layers: Vec<(String, Vec<FileId>)> = placed
            .iter()
            .map(|(name, blocks)| (name.to_string(), blocks.iter().map(|(f, _)| *f).collect()))
            .collect();
        let mut levels: Vec<(SmolStr, u16)> = judging
            .levels
            .iter()
            .map(|(name, level)| (name.clone(), *level))
            .collect();
        levels.sort();
        let mut block_files: HashSet<FileId> = layers
            .iter()
            .flat_map(|(_, files)| files.iter().copied())
            .collect();
        block_files.extend(judging.unknown.iter().copied());
        let changed = self.judged.as_ref().and_then(|judged| {
            judged.changed_files(
                judging.files,
                &layers,
                &levels,
                judging.has_site,
                &block_files,
            )
        });
        let text_of = |id: FileId| judging.files.source_text(id).clone();
        let judged = match (changed, self.judged.take()) {
            (Some(changed), Some(mut judged)) => {
                self.judged_last = judged.judge_again(placed, &changed, judge);
                // The names are the same; the changed texts are new, and the others' copies
                // read anew are kept in place of the old (one copy of each, shared with the
                // parses' memo and the disk the server keeps).
                for (i, (name, text)) in judged.files.iter_mut().enumerate() {
                    let id = FileId(i as u32);
                    // The same name, as this check's files share it (with the walk kept).
                    *name = judging.files.shared_name(id);
                    if changed.binary_search(&id).is_ok() {
                        *text = text_of(id);
                    } else {
                        text.take_shared_copy(judging.files.source_text(id));
                    }
                }
                judged
            }
            _ => {
                let mut judged = Judged {
                    files: (0..judging.files.len())
                        .map(|i| {
                            let id = FileId(i as u32);
                            (judging.files.shared_name(id), text_of(id))
                        })
                        .collect(),
                    layers: Vec::new(),
                    levels: Vec::new(),
                    has_site: judging.has_site,
                    block_files: HashSet::default(),
                    by_file: vec![FileNames::default(); judging.files.len()],
                    binders: Vec::new(),
                    key_hash: Default::default(),
                    found: BTreeMap::new(),
                };
                let (views, block_files) = views_of(placed, |_| true);
                let bindings = Bindings::build_from(&views);
                let every: Vec<usize> = (0..bindings.keys.len()).collect();
                let found = judge(&bindings, None);
                judged.take(&bindings, &block_files, &every, found, None);
                judged.find_contributing(placed, None);
                self.judged_last = every.len();
                judged
            }
        };
        let judged = self.judged.insert(judged);
        judged.layers = layers;
        judged.levels = levels;
        judged.has_site = judging.has_site;
        judged.block_files = block_files;
        judged
            .found
            .values()
            .flatten()
            .filter(|(_, limit)| unknown_from.is_none_or(|from| from > *limit))
            .map(|(d, _)| d.clone())
            .collect()
    }
}

impl Judged {
    /// The files changed since this judgement, when only the blocks of those files changed;
    /// `None` when anything else did, and everything is to be judged again.
    fn changed_files(
        &self,
        files: &SourceMap,
        layers: &[(String, Vec<FileId>)],
        levels: &[(SmolStr, u16)],
        has_site: bool,
        block_files: &HashSet<FileId>,
    ) -> Option<Vec<FileId>> {
        if files.len() != self.files.len() || levels != self.levels || has_site != self.has_site {
            return None;
        }
        let mut changed = Vec::new();
        for (i, (name, text)) in self.files.iter().enumerate() {
            let id = FileId(i as u32);
            if files.name(id) != &**name {
                return None;
            }
            if !text.same_as(files.source_text(id)) {
                // Only a file of bindings may change: any other (the site, a `hiera.yaml`)
                // can change what the others' blocks mean.
                if !(block_files.contains(&id) || self.block_files.contains(&id)) {
                    return None;
                }
                changed.push(id);
            }
        }
        // Without the changed files, the layers hold the same files in the same order.
        let without = |layers: &[(String, Vec<FileId>)]| -> Vec<(String, Vec<FileId>)> {
            layers
                .iter()
                .map(|(name, files)| {
                    let kept = files
                        .iter()
                        .copied()
                        .filter(|f| changed.binary_search(f).is_err())
                        .collect();
                    (name.clone(), kept)
                })
                .collect()
        };
        (without(layers) == without(&self.layers)).then_some(changed)
    }

    /// Judges again the keys that the files `changed` bind or bound, and those collecting
    /// what they contribute or contributed to; how many. The index it judges them in holds
    /// only those keys and what they collect, from the files that bind or contribute to them
    /// (what every other file binds, contributes to and collects is listed since the last
    /// check): an edit does not number every key of the tree again.
    fn judge_again(
        &mut self,
        placed: &[PlacedLayer],
        changed: &[FileId],
        judge: &JudgeKeys,
    ) -> usize {
        if changed.is_empty() {
            return 0;
        }
        let is_changed = |file: FileId| changed.binary_search(&file).is_ok();
        // What the changed files bind, contribute to and collect now.
        let now = Bindings::build_from(&views_of(placed, is_changed).0);
        // The system layer's multibinds (`bindings_providers`) are no file's: what they
        // collect is read from its blocks each time.
        let system = Bindings::build_from(&views_of(placed, |file| file == SYSTEM_FILE).0);
        let mut collects_now: Vec<(&str, String)> = Vec::new();
        for index in [&now, &system] {
            for entry in 0..index.keys.len() {
                let id = index.keys[entry].key().id();
                for collected in collected(index, entry) {
                    collects_now.push((collected, id.clone()));
                }
            }
        }
        // The keys to judge, by id, and the multibind ids whose contributions they read.
        let mut keys: HashSet<String> = HashSet::default();
        let mut ids: HashSet<&str> = HashSet::default();
        for file in changed {
            let before = &self.by_file[file.0 as usize];
            keys.extend(before.binds.lines().map(str::to_string));
            ids.extend(before.contributes.lines());
        }
        keys.extend((0..now.keys.len()).map(|entry| now.keys[entry].key().id()));
        ids.extend(now.contributions.keys().copied());
        let every_collect = || {
            self.by_file
                .iter()
                .enumerate()
                .filter(|(i, _)| !is_changed(FileId(*i as u32)))
                .flat_map(|(_, names)| names.collects.iter())
                .map(|(id, key)| (&**id, &**key))
                .chain(collects_now.iter().map(|(id, key)| (*id, key.as_str())))
        };
        // Those collecting what the changed files contribute or contributed to.
        for (id, key) in every_collect() {
            if ids.contains(id) {
                keys.insert(key.to_string());
            }
        }
        // And the contributions the keys to judge collect.
        for (id, key) in every_collect() {
            if keys.contains(key) {
                ids.insert(id);
            }
        }
        // The files that bind them or contribute to them (the changed ones and the system
        // layer's blocks, which no file holds, always).
        let binding_keys = self.binding(&keys);
        let binds = |file: FileId| {
            file == SYSTEM_FILE || is_changed(file) || binding_keys.binary_search(&file).is_ok()
        };
        let contributes = |file: FileId| {
            self.by_file
                .get(file.0 as usize)
                .is_some_and(|names| names.contributes.lines().any(|id| ids.contains(id)))
        };
        let (views, block_files) = views_of(placed, |file| binds(file) || contributes(file));
        let only = Only {
            names: keys.iter().flat_map(|id| names_in_id(id)).collect(),
            multibind_ids: ids.clone(),
            // A file that binds none of the keys is walked for its contributions alone.
            blocks: Some(
                block_files
                    .iter()
                    .map(|&file| match binds(file) {
                        true => BlockTake {
                            binds: true,
                            items: None,
                        },
                        false => BlockTake {
                            binds: false,
                            items: self.by_file.get(file.0 as usize).map(|n| &*n.contributing),
                        },
                    })
                    .collect(),
            ),
            every_renamed: false,
        };
        let bindings = Bindings::build_only(&views, &only);
        let entries: Vec<usize> = (0..bindings.keys.len())
            .filter(|&entry| keys.contains(&bindings.keys[entry].key().id()))
            .collect();
        // The keys bound nowhere now lose their findings.
        for entry in &entries {
            keys.remove(&bindings.keys[*entry].key().id());
        }
        for gone in &keys {
            self.found.remove(gone);
        }
        let found = judge(&bindings, Some(&entries));
        self.take(&bindings, &block_files, &entries, found, Some(changed));
        self.find_contributing(placed, Some(changed));
        entries.len()
    }

    /// Notes which items of the blocks of the files `files` (`None`: every file) in `placed`
    /// hold contributions.
    fn find_contributing(&mut self, placed: &[PlacedLayer], files: Option<&[FileId]>) {
        for (_, blocks) in placed {
            for &(file, block) in blocks {
                if files.is_none_or(|files| files.binary_search(&file).is_ok()) {
                    if let Some(names) = self.by_file.get_mut(file.0 as usize) {
                        names.contributing = contributing_items(block);
                    }
                }
            }
        }
    }

    /// The files that bind any of `keys` (by their lists in `by_file`), in order.
    fn binding(&self, keys: &HashSet<String>) -> Vec<FileId> {
        let mut files: Vec<FileId> = keys
            .iter()
            .flat_map(|key| {
                let hash = key_hash(&self.key_hash, key);
                let from = self.binders.partition_point(|&(h, _)| h < hash);
                self.binders[from..]
                    .iter()
                    .take_while(move |&&(h, _)| h == hash)
                    .map(|&(_, file)| file)
            })
            .collect();
        files.sort_unstable();
        files.dedup();
        // A hash shared by two ids names a file that binds neither.
        files.retain(|file| {
            self.by_file[file.0 as usize]
                .binds
                .lines()
                .any(|key| keys.contains(key))
        });
        files
    }

    /// Keeps what `found` says of the key entries `entries` of `bindings`: their findings
    /// (replacing those kept), and what the files bind, contribute to and collect (of every
    /// file, or only of `files`), by the file of each block (`block_files`, see [`views_of`]).
    fn take(
        &mut self,
        bindings: &Bindings,
        block_files: &[FileId],
        entries: &[usize],
        found: Vec<(usize, Diagnostic, usize)>,
        files: Option<&[FileId]>,
    ) {
        let mut by_entry: BTreeMap<usize, Vec<(Diagnostic, usize)>> = BTreeMap::new();
        for (entry, d, limit) in found {
            by_entry.entry(entry).or_default().push((d, limit));
        }
        let count = self.by_file.len();
        let listed = |block: usize| {
            let file = block_files.get(block).copied().unwrap_or(SYSTEM_FILE);
            ((file != SYSTEM_FILE && (file.0 as usize) < count)
                && files.is_none_or(|only| only.contains(&file)))
            .then_some(file)
        };
        // By file, the lines of its texts.
        let mut binds: HashMap<FileId, String> = HashMap::default();
        let mut contributes: HashMap<FileId, String> = HashMap::default();
        let mut collects: HashMap<FileId, Vec<Collects>> = HashMap::default();
        for &entry in entries {
            let id = bindings.keys[entry].key().id();
            let mut seen: Vec<FileId> = Vec::new();
            for &c in bindings.candidates_of(entry) {
                let candidate = &bindings.candidates[c];
                let Some(file) = listed(candidate.block()) else {
                    continue;
                };
                if let Bound::Multibinding(m) = candidate.bound {
                    if let Some(collected) = Bindings::multibind_id(m) {
                        let list = collects.entry(file).or_default();
                        list.push((collected.into(), id.as_str().into()));
                    }
                }
                if !seen.contains(&file) {
                    seen.push(file);
                    let text = binds.entry(file).or_default();
                    text.push_str(&id);
                    text.push('\n');
                }
            }
            match by_entry.remove(&entry) {
                Some(found) => {
                    self.found.insert(id, found);
                }
                None => {
                    self.found.remove(&id);
                }
            }
        }
        for (id, list) in &bindings.contributions {
            let mut seen: Vec<FileId> = Vec::new();
            for c in list {
                let Some(file) = listed(c.block) else {
                    continue;
                };
                if !seen.contains(&file) {
                    seen.push(file);
                    let text = contributes.entry(file).or_default();
                    text.push_str(id);
                    text.push('\n');
                }
            }
        }
        let mut listing: Vec<FileId> = match files {
            Some(files) => files.to_vec(),
            None => (0..self.by_file.len() as u32).map(FileId).collect(),
        };
        listing.retain(|f| *f != SYSTEM_FILE && (f.0 as usize) < count);
        for &file in &listing {
            self.by_file[file.0 as usize] = FileNames {
                binds: binds.remove(&file).unwrap_or_default().into(),
                contributes: contributes.remove(&file).unwrap_or_default().into(),
                collects: collects.remove(&file).unwrap_or_default().into(),
                contributing: Box::default(),
            };
        }
        let hash = &self.key_hash;
        if files.is_none() {
            let count = self.by_file.iter().map(|n| n.binds.lines().count()).sum();
            let mut binders = Vec::with_capacity(count);
            for (i, names) in self.by_file.iter().enumerate() {
                binders.extend(bound_by(hash, FileId(i as u32), names));
            }
            binders.sort_unstable();
            self.binders = binders;
        } else {
            self.binders
                .retain(|(_, file)| listing.binary_search(file).is_err());
            let mut added: Vec<(u32, FileId)> = listing
                .iter()
                .flat_map(|&file| bound_by(hash, file, &self.by_file[file.0 as usize]))
                .collect();
            added.sort_unstable();
            merge_into(&mut self.binders, &added);
        }
    }
}

/// The entries of `binders` ([`Judged::binders`]) for the keys `names` lists of `file`.
fn bound_by<'n>(
    hash: &'n foldhash::fast::RandomState,
    file: FileId,
    names: &'n FileNames,
) -> impl Iterator<Item = (u32, FileId)> + 'n {
    names
        .binds
        .lines()
        .map(move |key| (key_hash(hash, key), file))
}

/// A key's hash in [`Judged::binders`]: its low 32 bits.
fn key_hash(hash: &foldhash::fast::RandomState, key: &str) -> u32 {
    hash.hash_one(key) as u32
}

/// `added` merged into `sorted`, both in order, in place: a few keys among a tree's hundred
/// thousand, without sorting them all again or making room for a copy.
fn merge_into<T: Copy + Ord>(sorted: &mut Vec<T>, added: &[T]) {
    let Some(&filler) = added.first() else {
        return;
    };
    let mut kept = sorted.len();
    sorted.resize(kept + added.len(), filler);
    let mut next_added = added.len();
    // From the end: each place is filled by the larger of the two lists' last.
    for at in (0..sorted.len()).rev() {
        if next_added == 0 {
            break;
        }
        if kept > 0 && sorted[kept - 1] > added[next_added - 1] {
            sorted[at] = sorted[kept - 1];
            kept -= 1;
        } else {
            sorted[at] = added[next_added - 1];
            next_added -= 1;
        }
    }
}

/// The multibind ids the key entry `entry` of `bindings` collects.
fn collected<'b>(bindings: &'b Bindings, entry: usize) -> impl Iterator<Item = &'b str> + 'b {
    bindings
        .candidates_of(entry)
        .iter()
        .filter_map(|&c| match bindings.candidates[c].bound {
            Bound::Multibinding(m) => Bindings::multibind_id(m),
            _ => None,
        })
}

/// The layers of `placed` as the composition takes them, with only the blocks of the files
/// `wanted` keeps, and the file of each block taken, in the walk's order (what
/// [`crate::compose::Candidate::block`] counts).
fn views_of<'m>(
    placed: &[PlacedLayer<'m>],
    wanted: impl Fn(FileId) -> bool,
) -> (Vec<LayerView<'m>>, Vec<FileId>) {
    let mut files = Vec::new();
    let views = placed
        .iter()
        .map(|(name, blocks)| LayerView {
            name,
            bindings: blocks
                .iter()
                .filter(|(file, _)| wanted(*file))
                .map(|(file, block)| {
                    files.push(*file);
                    *block
                })
                .collect(),
        })
        .collect();
    (views, files)
}

/// The names a key of id `id` may have ([`crate::lower::keys::Key::id`]: its type, `/`, its
/// name). A name may hold a `/`, so a typed key's id gives every name it could end with: the
/// part of the index takes a few more bindings, never fewer.
fn names_in_id(id: &str) -> impl Iterator<Item = &str> {
    let data = id.strip_prefix("Data/");
    let typed = data
        .is_none()
        .then(|| id.match_indices('/').map(move |(at, _)| &id[at + 1..]))
        .into_iter()
        .flatten();
    data.into_iter().chain(typed)
}

#[cfg(test)]
mod tests {
    use super::merge_into;

    #[test]
    fn a_few_merged_into_many_keep_the_order() {
        for (sorted, added) in [
            (vec![2, 4, 6, 8], vec![1, 5, 9]),
            (vec![2, 4], vec![]),
            (vec![], vec![3, 3]),
            (vec![1, 2, 3], vec![0]),
            (vec![1, 2, 3], vec![3, 4]),
            (vec![5, 5, 7], vec![5, 6]),
        ] {
            let mut merged = sorted.clone();
            merge_into(&mut merged, &added);
            let mut expected = [sorted, added].concat();
            expected.sort();
            assert_eq!(merged, expected);
        }
    }
}
