//! What the language server keeps of one environment's judgement of its layers between checks,
//! so that a check after an edit judges again only the keys the edited files can change (issue
//! 60: "the changed file, then the composition of the keys it binds").
//!
//! A key's judgement reads its candidates (their layers, `when`s, flags and values), the
//! contributions to the multibinds it collects, the categories' levels, the layers' names and
//! order, and the text of the files it points into. So a key's findings are kept unless a file
//! that binds it or contributes to what it collects changed, and everything is judged again when
//! anything else could have: a file renamed, added or removed; a changed file that holds no
//! bindings (the site, a `hiera.yaml`, whose changes alter other files' blocks); other layers,
//! levels, or a site appearing. It owns that decision and the kept findings; the judging is
//! [`crate::compose::analysis`]'s and the wording `composition`'s, run as without it. A test
//! holds every check with the memo to a check without it over edit sequences of corpus trees.

use crate::compose::{Bindings, LayerView};
use crate::diag::Diagnostic;
use crate::eval::code::Code;
use crate::lower::model::NamedBindings;
use crate::span::{FileId, SourceMap, SourceText};
use foldhash::{HashMap, HashSet};
use smol_str::SmolStr;
use std::collections::BTreeMap;

/// One environment's last judgement, if any (see the module's documentation).
#[derive(Default)]
pub struct JudgementMemo {
    judged: Option<Judged>,
    /// How many keys the last check judged (every key, when it judged everything).
    pub judged_last: usize,
}

/// A layer as the judgement sees it: its name and its files' blocks, in order.
pub(super) type PlacedLayer<'m> = (&'m str, Vec<(FileId, &'m NamedBindings<Code<'m>>)>);

/// The file the system layer's blocks are said to be in: none of the tree's. Its blocks are
/// part of every build.
pub(super) const SYSTEM_FILE: FileId = FileId(u32::MAX);

/// What the judgement of the layers needs besides the blocks.
pub(super) struct Judging<'a> {
    pub files: &'a SourceMap,
    pub levels: &'a HashMap<SmolStr, u16>,
    pub has_site: bool,
    /// The files of unknown bindings (they did not parse).
    pub unknown: Vec<FileId>,
}

struct Judged {
    /// Each file of the source map: its name and text as judged.
    files: Vec<(String, SourceText)>,
    layers: Vec<(String, Vec<FileId>)>,
    levels: Vec<(SmolStr, u16)>,
    has_site: bool,
    /// The files whose blocks the judgement read or would have (those that did not parse).
    block_files: HashSet<FileId>,
    /// By key (in name order: the findings are listed in it).
    keys: BTreeMap<String, KeyJudged>,
    /// By file, what it binds and contributes to.
    by_file: HashMap<FileId, FileJudged>,
}

struct KeyJudged {
    key: crate::lower::keys::Key,
    /// The files that bind it, and those that contribute to a multibind it collects.
    files: Vec<FileId>,
    /// Each finding, and the highest layer of unknown bindings that could change it (see
    /// `composition::could_change`).
    found: Vec<(Diagnostic, usize)>,
}

#[derive(Default)]
struct FileJudged {
    /// The keys it binds.
    binds: Vec<String>,
    /// The multibind ids it contributes to.
    contributes: Vec<String>,
    /// The multibind ids its multibinds collect, with their keys.
    collects: Vec<(String, String)>,
}

/// Judges `keys` of `bindings` (`None`: every key); for each, its findings with their limits.
pub(super) type JudgeKeys<'j> =
    dyn Fn(&Bindings, Option<&[usize]>) -> Vec<(usize, Diagnostic, usize)> + 'j;

impl JudgementMemo {
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
        match changed {
            Some(changed) => {
                self.judge_again(placed, judging, &changed, judge);
                // The names are the same; only the changed texts are new.
                if let Some(judged) = &mut self.judged {
                    for id in changed {
                        judged.files[id.0 as usize].1 = text_of(id);
                    }
                }
            }
            None => {
                self.judge_everything(placed, judging, judge);
                if let Some(judged) = &mut self.judged {
                    judged.files = (0..judging.files.len())
                        .map(|i| {
                            let id = FileId(i as u32);
                            (judging.files.name(id).to_string(), text_of(id))
                        })
                        .collect();
                }
            }
        }
        let Some(judged) = &mut self.judged else {
            return Vec::new();
        };
        judged.layers = layers;
        judged.levels = levels;
        judged.has_site = judging.has_site;
        judged.block_files = block_files;
        let mut found: Vec<&(Diagnostic, usize)> =
            judged.keys.values().flat_map(|k| &k.found).collect();
        found.retain(|(_, limit)| unknown_from.is_none_or(|from| from > *limit));
        found.into_iter().map(|(d, _)| d.clone()).collect()
    }

    fn judge_everything(&mut self, placed: &[PlacedLayer], judging: &Judging, judge: &JudgeKeys) {
        let views = views_of(placed, None);
        let bindings = Bindings::build_from(&views);
        let mut judged = Judged {
            files: Vec::new(),
            layers: Vec::new(),
            levels: Vec::new(),
            has_site: judging.has_site,
            block_files: HashSet::default(),
            keys: BTreeMap::new(),
            by_file: HashMap::default(),
        };
        let every: Vec<usize> = (0..bindings.keys.len()).collect();
        judged.take(&bindings, &every, judge(&bindings, None));
        self.judged_last = every.len();
        self.judged = Some(judged);
    }

    /// Judges again the keys that the files `changed` bind, bound, or contribute to.
    fn judge_again(
        &mut self,
        placed: &[PlacedLayer],
        judging: &Judging,
        changed: &[FileId],
        judge: &JudgeKeys,
    ) {
        let Some(judged) = self.judged.as_mut() else {
            return self.judge_everything(placed, judging, judge);
        };
        if changed.is_empty() {
            self.judged_last = 0;
            return;
        }
        // What the changed files bind now, from their blocks alone.
        let changed_set: HashSet<FileId> = changed.iter().copied().collect();
        // (Without the system layer: its keys are affected only through what the changed
        // files contribute to them.)
        let tree_layers = placed.split_last().map_or(&[][..], |(_, layers)| layers);
        let now = Bindings::build_from(&views_of(tree_layers, Some(&changed_set)));
        // By id, each key to judge again.
        let mut affected: HashMap<String, crate::lower::keys::Key> = HashMap::default();
        let mut ids: HashSet<String> = HashSet::default();
        for file in changed {
            if let Some(before) = judged.by_file.get(file) {
                for key in &before.binds {
                    if let Some(k) = judged.keys.get(key) {
                        affected.insert(key.clone(), k.key.clone());
                    }
                }
                ids.extend(before.contributes.iter().cloned());
                ids.extend(before.collects.iter().map(|(_, id)| id.clone()));
            }
        }
        for entry in 0..now.keys.len() {
            let key = now.keys[entry].key();
            affected.insert(key.id(), key);
            ids.extend(collected(&now, entry).map(str::to_string));
        }
        ids.extend(now.contributions.keys().map(|id| id.to_string()));
        // Every key collecting one of those ids, and every file contributing to one.
        let mut files: HashSet<FileId> = changed_set.clone();
        for (file, judged_file) in &judged.by_file {
            for (key, id) in &judged_file.collects {
                if let (true, Some(k)) = (ids.contains(id), judged.keys.get(key)) {
                    affected.insert(key.clone(), k.key.clone());
                }
            }
            if judged_file.contributes.iter().any(|id| ids.contains(id)) {
                files.insert(*file);
            }
        }
        for key in affected.keys() {
            if let Some(k) = judged.keys.get(key) {
                files.extend(k.files.iter().copied());
            }
        }
        let bindings = Bindings::build_from(&views_of(placed, Some(&files)));
        let mut entries: Vec<usize> = affected
            .values()
            .filter_map(|key| bindings.entry(key))
            .collect();
        entries.sort_unstable();
        entries.dedup();
        // The affected keys are judged anew: those no file binds any more are gone.
        for key in affected.keys() {
            judged.keys.remove(key);
        }
        for file in changed {
            judged.by_file.remove(file);
        }
        for judged_file in judged.by_file.values_mut() {
            judged_file.binds.retain(|k| !affected.contains_key(k));
            judged_file
                .collects
                .retain(|(k, _)| !affected.contains_key(k));
        }
        let found = judge(&bindings, Some(&entries));
        judged.take(&bindings, &entries, found);
        self.judged_last = entries.len();
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
            if files.name(id) != name {
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

    /// Keeps what `found` says of the key entries `entries` of `bindings`: each key's
    /// findings, the files it reads, and by file what it binds, contributes and collects.
    fn take(
        &mut self,
        bindings: &Bindings,
        entries: &[usize],
        found: Vec<(usize, Diagnostic, usize)>,
    ) {
        let mut by_entry: BTreeMap<usize, Vec<(Diagnostic, usize)>> = BTreeMap::new();
        for (entry, d, limit) in found {
            by_entry.entry(entry).or_default().push((d, limit));
        }
        // Contributions by id, once: several keys may collect one id.
        let mut contributors: HashMap<&str, Vec<FileId>> = HashMap::default();
        for (id, list) in &bindings.contributions {
            let mut files: Vec<FileId> = list
                .iter()
                .map(|c| c.binding.origin.span)
                .filter(|s| !s.is_none())
                .map(|s| s.file)
                .collect();
            files.sort_unstable();
            files.dedup();
            for file in &files {
                let judged_file = self.by_file.entry(*file).or_default();
                if !judged_file.contributes.iter().any(|c| c == id) {
                    judged_file.contributes.push(id.to_string());
                }
            }
            contributors.insert(id, files);
        }
        for &entry in entries {
            let whole_key = bindings.keys[entry].key();
            let key = whole_key.id();
            let mut files: Vec<FileId> = bindings
                .candidates_of(entry)
                .iter()
                .map(|&c| bindings.candidates[c].origin().span)
                .filter(|s| !s.is_none())
                .map(|s| s.file)
                .collect();
            for file in &files {
                let judged_file = self.by_file.entry(*file).or_default();
                if !judged_file.binds.contains(&key) {
                    judged_file.binds.push(key.clone());
                }
            }
            for &c in bindings.candidates_of(entry) {
                let candidate = &bindings.candidates[c];
                let (crate::compose::Bound::Multibinding(m), span) =
                    (candidate.bound, candidate.origin().span)
                else {
                    continue;
                };
                if let (Some(id), false) = (Bindings::multibind_id(m), span.is_none()) {
                    let collects = &mut self.by_file.entry(span.file).or_default().collects;
                    let pair = (key.clone(), id.to_string());
                    if !collects.contains(&pair) {
                        collects.push(pair);
                    }
                }
            }
            for id in collected(bindings, entry) {
                files.extend(contributors.get(id).into_iter().flatten().copied());
            }
            files.sort_unstable();
            files.dedup();
            let found = by_entry.remove(&entry).unwrap_or_default();
            self.keys.insert(
                key,
                KeyJudged {
                    key: whole_key,
                    files,
                    found,
                },
            );
        }
    }
}

/// The multibind ids the key entry `entry` of `bindings` collects.
fn collected<'b>(bindings: &'b Bindings, entry: usize) -> impl Iterator<Item = &'b str> + 'b {
    bindings
        .candidates_of(entry)
        .iter()
        .filter_map(|&c| match bindings.candidates[c].bound {
            crate::compose::Bound::Multibinding(m) => Bindings::multibind_id(m),
            _ => None,
        })
}

/// The layers of `placed` as the composition takes them, with only the blocks of `only`'s
/// files when given (the system layer always whole).
fn views_of<'m>(placed: &[PlacedLayer<'m>], only: Option<&HashSet<FileId>>) -> Vec<LayerView<'m>> {
    placed
        .iter()
        .map(|(name, blocks)| LayerView {
            name,
            bindings: blocks
                .iter()
                .filter(|(file, _)| {
                    *file == SYSTEM_FILE || only.is_none_or(|only| only.contains(file))
                })
                .map(|(_, block)| *block)
                .collect(),
        })
        .collect()
}
