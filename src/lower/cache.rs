//! The model as an indexed cache file (`pbc compile --cache`): the same model as the JSON, cut
//! into one record per binding with an index by key name, so that `pbc lookup --model` reads
//! only the bindings a lookup needs instead of the whole model.
//!
//! A record holds one binding (as the JSON model writes it) with its place: the bindings block
//! and the chain of `when`s around it. The index maps each name a binding answers to (its key,
//! a multibind contribution's `+id`, the key a `bind renamed` erases) to its records. For a
//! lookup, [`Cache::needed`] follows the names the records may look up (`lookup('x')`,
//! `lookup` producers, aliases, multibind contributions, a class parameter's `class::param`)
//! to a closed set, and [`Cache::document`] rebuilds the model with those records only, in their
//! order: every key of the set has all its bindings, so it composes as in the whole model.
//! Where a name cannot be known before evaluating (`lookup($name)`), or the whole model is
//! asked for (`--all`, `/classes`), every record is read.
//!
//! It owns the file layout and the closure; it must not compose or evaluate (the model reader
//! and the injector do that on the document it rebuilds).
//!
//! Layout (integers little-endian): the magic line; `u32` version; `u64` XXH3 checksum of
//! everything after it (verified when the cache is opened, before any answer); `u64` length and the
//! header's JSON (environment, environments, categories, layers with their blocks); `u64` key
//! count and per key (sorted by name) `u64` name offset, `u32` name length, `u32` first
//! reference, `u32` reference count; `u64` length and the names; `u64` count and the references
//! (`u32` record numbers); `u64` record count, `count + 1` `u64` record offsets, the records'
//! JSON.

use super::model::hiera::{HieraDataFile, HieraLevel, HieraPlace};
use super::model::{
    AbstractBinding, Category, DataPath, EffectiveCategories, Environments, LayeredBindings,
    NamedBindings, NamedLayer, Origin, ProducerDescriptor, TreeDocument, FORMAT, VERSION,
};
use serde::{Deserialize, Serialize};
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Seek, SeekFrom};

/// The first bytes of a cache file.
pub const MAGIC: &[u8; 16] = b"pbc-model-cache\n";
const CACHE_VERSION: u32 = 3;
/// Where the checksum stands: after the magic line and the version.
const CHECKSUM_AT: usize = 20;
/// A key's entry: name offset (`u64`), name length, first reference, reference count (`u32`).
const KEY_ENTRY: u64 = 20;

#[derive(Serialize, Deserialize)]
struct Header {
    environment: String,
    environments: Environments<Json>,
    categories: EffectiveCategories<Json>,
    layers: Vec<LayerHeader>,
    /// The Hiera 5 levels without their files (their hierarchies and names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    hiera: Vec<HieraLevel>,
    /// Where each level's files are, after the records: (offset from the end of the records,
    /// length). A lookup reads the levels its keys can reach: a level's answer for a key
    /// depends on all its files.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    hiera_files: Vec<(u64, u64)>,
}

#[derive(Serialize, Deserialize)]
struct LayerHeader {
    name: String,
    providers: Vec<String>,
    blocks: Vec<BlockHeader>,
}

#[derive(Serialize, Deserialize)]
struct BlockHeader {
    name: String,
    origin: Origin,
}

/// A `when` around a record's binding; `id` tells the same `when` apart in several records.
#[derive(Serialize, Deserialize)]
struct When {
    id: u32,
    predicates: Box<[Category<Json>]>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    path: Option<Box<DataPath<Json>>>,
    origin: Origin,
}

#[derive(Serialize, Deserialize)]
struct Record {
    /// The block's number, counted over every layer's blocks in order.
    block: u32,
    whens: Vec<When>,
    binding: AbstractBinding<Json>,
}

/// Writes the cache of a tree's model (as `pbc compile` writes it, in JSON).
pub fn write(model_json: &str) -> Result<Vec<u8>, String> {
    let doc: TreeDocument<Json> =
        deep_json(model_json.as_bytes(), "the model").map_err(|e| e.to_string())?;
    let mut records: Vec<Vec<u8>> = Vec::new();
    let mut index: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    let mut layers = Vec::new();
    let mut block = 0u32;
    let mut whens = 0u32;
    for layer in doc.layers.layers {
        let mut blocks = Vec::new();
        for nb in layer.bindings {
            let nb = std::sync::Arc::unwrap_or_clone(nb);
            blocks.push(BlockHeader {
                name: nb.name,
                origin: nb.origin,
            });
            let mut out = Out {
                block,
                records: &mut records,
                index: &mut index,
                whens: &mut whens,
            };
            out.items(nb.bindings, &mut Vec::new())?;
            block += 1;
        }
        layers.push(LayerHeader {
            name: layer.name,
            providers: layer.providers,
            blocks,
        });
    }
    let mut hiera = doc.hiera;
    let mut hiera_blobs: Vec<Vec<u8>> = Vec::with_capacity(hiera.len());
    let mut hiera_files = Vec::with_capacity(hiera.len());
    let mut hiera_at = 0u64;
    for level in &mut hiera {
        let blob =
            serde_json::to_vec(&std::mem::take(&mut level.files)).map_err(|e| e.to_string())?;
        hiera_files.push((hiera_at, blob.len() as u64));
        hiera_at += blob.len() as u64;
        hiera_blobs.push(blob);
    }
    let header = serde_json::to_vec(&Header {
        environment: doc.environment,
        environments: doc.environments,
        categories: doc.categories,
        layers,
        hiera,
        hiera_files,
    })
    .map_err(|e| e.to_string())?;

    let mut out = Vec::with_capacity(records.iter().map(Vec::len).sum::<usize>() + header.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&CACHE_VERSION.to_le_bytes());
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(&(header.len() as u64).to_le_bytes());
    out.extend_from_slice(&header);
    let mut names = Vec::new();
    let mut refs: Vec<u32> = Vec::new();
    out.extend_from_slice(&(index.len() as u64).to_le_bytes());
    for (name, list) in &index {
        out.extend_from_slice(&(names.len() as u64).to_le_bytes());
        out.extend_from_slice(&(name.len() as u32).to_le_bytes());
        out.extend_from_slice(&(refs.len() as u32).to_le_bytes());
        out.extend_from_slice(&(list.len() as u32).to_le_bytes());
        names.extend_from_slice(name.as_bytes());
        refs.extend(list);
    }
    out.extend_from_slice(&(names.len() as u64).to_le_bytes());
    out.extend_from_slice(&names);
    out.extend_from_slice(&(refs.len() as u64).to_le_bytes());
    for r in refs {
        out.extend_from_slice(&r.to_le_bytes());
    }
    out.extend_from_slice(&(records.len() as u64).to_le_bytes());
    let mut at = 0u64;
    for r in &records {
        out.extend_from_slice(&at.to_le_bytes());
        at += r.len() as u64;
    }
    out.extend_from_slice(&at.to_le_bytes());
    for r in records {
        out.extend_from_slice(&r);
    }
    for blob in hiera_blobs {
        out.extend_from_slice(&blob);
    }
    let checksum = xxhash_rust::xxh3::xxh3_64(&out[CHECKSUM_AT + 8..]);
    out[CHECKSUM_AT..CHECKSUM_AT + 8].copy_from_slice(&checksum.to_le_bytes());
    Ok(out)
}

/// A cache file of `body` (everything after the checksum: the header's length onwards) with
/// the magic line, this version and the checksum: how tests and the `cache` fuzz target reach
/// the structural checks behind the checksum.
pub fn sealed(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(CHECKSUM_AT + 8 + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&CACHE_VERSION.to_le_bytes());
    out.extend_from_slice(&xxhash_rust::xxh3::xxh3_64(body).to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// Where a cache's body starts ([`sealed`]).
pub const BODY_AT: usize = CHECKSUM_AT + 8;

/// Whether the XXH3 checksum after `file`'s version (where it stands now) is that of
/// everything after it, read to the end in pieces.
fn checksum_holds(file: &mut std::fs::File) -> std::io::Result<bool> {
    let written = read_u64(file)?;
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut buffer = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    file.seek(SeekFrom::Start(CHECKSUM_AT as u64 + 8))?;
    Ok(hasher.digest() == written)
}

/// Cuts one block's bindings into records.
struct Out<'a> {
    block: u32,
    records: &'a mut Vec<Vec<u8>>,
    index: &'a mut BTreeMap<String, Vec<u32>>,
    whens: &'a mut u32,
}

impl Out<'_> {
    /// `when` nesting is bounded by the check (`MAX_WHEN_NESTING`), so this recursion is too.
    fn items(
        &mut self,
        items: Vec<AbstractBinding<Json>>,
        chain: &mut Vec<When>,
    ) -> Result<(), String> {
        for item in items {
            match item {
                AbstractBinding::CategorizedBindings {
                    predicates,
                    path,
                    bindings,
                    origin,
                } => {
                    chain.push(When {
                        id: *self.whens,
                        predicates,
                        path,
                        origin,
                    });
                    *self.whens += 1;
                    self.items(bindings, chain)?;
                    chain.pop();
                }
                binding => {
                    let number = self.records.len() as u32;
                    for name in answers(&binding) {
                        self.index.entry(name).or_default().push(number);
                    }
                    #[derive(Serialize)]
                    struct RecordOut<'r> {
                        block: u32,
                        whens: &'r [When],
                        binding: &'r AbstractBinding<Json>,
                    }
                    let bytes = serde_json::to_vec(&RecordOut {
                        block: self.block,
                        whens: chain,
                        binding: &binding,
                    })
                    .map_err(|e| e.to_string())?;
                    self.records.push(bytes);
                }
            }
        }
        Ok(())
    }
}

/// The names a binding is found under.
fn answers(b: &AbstractBinding<Json>) -> Vec<String> {
    let name = |n: Option<&str>| n.unwrap_or_default().to_string();
    match b {
        AbstractBinding::Binding(b) => match b.multibind_id() {
            Some(id) => vec![format!("+{id}")],
            None => vec![name(b.name.as_deref())],
        },
        AbstractBinding::Multibinding(m) => vec![name(m.name.as_deref())],
        AbstractBinding::AliasBinding(r) | AbstractBinding::Rebinding(r) => {
            vec![name(r.name.as_deref())]
        }
        // A lookup of the key it erases must see it.
        AbstractBinding::RenamedBinding(r) => {
            vec![name(r.name.as_deref()), name(r.from_name.as_deref())]
        }
        AbstractBinding::ParametersBinding(p) => vec![p.name.to_string()],
        AbstractBinding::ParameterMapBinding { name, .. } => vec![name.to_string()],
        AbstractBinding::DependencyBinding { .. } | AbstractBinding::CategorizedBindings { .. } => {
            Vec::new()
        }
    }
}

/// An open cache file: its header, and where its tables are.
pub struct Cache {
    file: std::fs::File,
    /// The file's length: no table or record is read past it.
    length: u64,
    header: Header,
    keys: u64,
    key_table: u64,
    names: u64,
    refs: u64,
    records: u64,
    offsets: u64,
    bodies: u64,
    /// Where the Hiera levels' files start: after the records.
    hiera_base: u64,
    /// Levels whose files were read (for the closure, then the document).
    hiera_read: BTreeMap<usize, Vec<HieraDataFile>>,
    /// By level read, where each key's data is (file, datum): the closure asks per key, and a
    /// scan of every datum per key was quadratic in a level of chained keys.
    hiera_keys: BTreeMap<usize, KeysInFiles>,
}

/// Where each key's data is in a level's files: (file, datum) by key.
type KeysInFiles = foldhash::HashMap<String, Vec<(usize, usize)>>;

/// Which records a lookup needs: some (sorted, with the Hiera levels whose files they need),
/// or all of them.
pub enum Needed {
    Some {
        records: Vec<u32>,
        hiera: BTreeSet<usize>,
    },
    All,
}

/// A part of the cache (`what`) read from its JSON, which may nest as deep as a model may
/// ([`super::read::MAX_READ_DEPTH`], counted before parsing, which recurses per level) and must
/// end where its bytes end.
fn deep_json<'de, T: Deserialize<'de>>(bytes: &'de [u8], what: &str) -> std::io::Result<T> {
    if let Some((line, column)) = super::read::too_deep(bytes) {
        return Err(bad(format!(
            "{what} nests more than {} levels deep (at line {line}, column {column})",
            super::read::MAX_READ_DEPTH
        )));
    }
    let mut de = serde_json::Deserializer::from_slice(bytes);
    de.disable_recursion_limit();
    let value = T::deserialize(&mut de)
        .and_then(|v| de.end().map(|()| v))
        .map_err(|e| bad(format!("{what}: {e}")))?;
    Ok(value)
}

fn bad(why: impl Into<String>) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, why.into())
}

impl Cache {
    /// Whether `bytes` (a file's first bytes) start a cache.
    pub fn is_cache(bytes: &[u8]) -> bool {
        bytes.starts_with(MAGIC)
    }

    /// Opens a cache file: reads its header and where its tables are.
    pub fn open(path: &std::path::Path) -> std::io::Result<Cache> {
        let mut file = crate::source::open_without_waiting(path)?;
        let meta = file.metadata()?;
        if !meta.is_file() {
            return Err(bad("it is not a regular file"));
        }
        let length = meta.len();
        let mut magic = [0u8; 16];
        file.read_exact(&mut magic)?;
        if &magic != MAGIC {
            return Err(bad("it is not a model cache"));
        }
        let version = read_u32(&mut file)?;
        if version != CACHE_VERSION {
            return Err(bad(format!(
                "it is version {version} of the cache; this pbc reads version {CACHE_VERSION}"
            )));
        }
        // A damaged cache would answer wrongly (a bit of a length loses every key, one of a
        // category name changes answers): nothing is read from one that is not as written.
        if !checksum_holds(&mut file)? {
            return Err(bad(
                "its checksum does not match its content (it was damaged or changed after `pbc compile --cache` wrote it): compile it again",
            ));
        }
        let header_len = read_u64(&mut file)?;
        let header_bytes = read_exact(&mut file, header_len, length)?;
        let header: Header = deep_json(&header_bytes, "its header")?;
        if header.categories.categories.is_empty() && header.layers.is_empty() {
            return Err(bad("its header has no categories and no layers"));
        }
        let keys = read_u64(&mut file)?;
        let key_table = file.stream_position()?;
        file.seek(SeekFrom::Current(table_len(keys, KEY_ENTRY, length)?))?;
        let names_len = read_u64(&mut file)?;
        let names = file.stream_position()?;
        file.seek(SeekFrom::Current(table_len(names_len, 1, length)?))?;
        let refs_len = read_u64(&mut file)?;
        let refs = file.stream_position()?;
        file.seek(SeekFrom::Current(table_len(refs_len, 4, length)?))?;
        let records = read_u64(&mut file)?;
        let offsets = file.stream_position()?;
        let offsets_len = records
            .checked_add(1)
            .ok_or_else(|| bad("its record count overflows"))
            .and_then(|n| table_len(n, 8, length))?;
        let bodies = offsets
            .checked_add(offsets_len as u64)
            .ok_or_else(|| bad("its record table overflows"))?;
        if bodies > length {
            return Err(bad("it ends before its records"));
        }
        let records_len = {
            file.seek(SeekFrom::Start(offsets_end(offsets, records)?))?;
            read_u64(&mut file)?
        };
        let hiera_base = bodies
            .checked_add(records_len)
            .ok_or_else(|| bad("its records overflow"))?;
        if header.hiera_files.len() != header.hiera.len() {
            return Err(bad("its Hiera levels and their files do not match"));
        }
        Ok(Cache {
            file,
            length,
            header,
            keys,
            key_table,
            names,
            refs,
            records,
            offsets,
            bodies,
            hiera_base,
            hiera_read: BTreeMap::new(),
            hiera_keys: BTreeMap::new(),
        })
    }

    /// The files of Hiera level `level`, read once.
    fn hiera_files(&mut self, level: usize) -> std::io::Result<&Vec<HieraDataFile>> {
        if !self.hiera_read.contains_key(&level) {
            let &(offset, len) = self
                .header
                .hiera_files
                .get(level)
                .ok_or_else(|| bad("a binding names a Hiera level the cache does not have"))?;
            let at = self
                .hiera_base
                .checked_add(offset)
                .ok_or_else(|| bad("a Hiera level points past the end of the file"))?;
            let bytes = self.at(at, len)?;
            let files: Vec<HieraDataFile> = deep_json(&bytes, &format!("Hiera level {level}"))?;
            self.hiera_read.insert(level, files);
        }
        self.hiera_read
            .get(&level)
            .ok_or_else(|| bad("a Hiera level could not be read"))
    }

    /// The files of Hiera level `level` (read: [`Cache::hiera_files`]) and where each key's
    /// data is in them, indexed once.
    fn hiera_by_key(&mut self, level: usize) -> (&[HieraDataFile], &KeysInFiles) {
        let files: &[HieraDataFile] = self.hiera_read.get(&level).map_or(&[], Vec::as_slice);
        let by_key = self.hiera_keys.entry(level).or_insert_with(|| {
            let mut by_key = KeysInFiles::default();
            for (f, file) in files.iter().enumerate() {
                for (d, datum) in file.keys.iter().enumerate() {
                    by_key.entry(datum.key.clone()).or_default().push((f, d));
                }
            }
            by_key
        });
        (files, by_key)
    }

    /// The Hiera levels that answer a key of `module`: the global and environment levels, and
    /// that module's.
    fn hiera_stack(&self, module: Option<&str>) -> Vec<usize> {
        self.header
            .hiera
            .iter()
            .enumerate()
            .filter(|(_, l)| match l.place {
                HieraPlace::Global | HieraPlace::Environment => true,
                HieraPlace::Module => module.is_some() && l.module.as_deref() == module,
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// The environment the model was compiled for.
    pub fn environment(&self) -> &str {
        &self.header.environment
    }

    fn at(&mut self, offset: u64, len: u64) -> std::io::Result<Vec<u8>> {
        if offset.checked_add(len).is_none_or(|end| end > self.length) {
            return Err(bad("a table or record points past the end of the file"));
        }
        self.file.seek(SeekFrom::Start(offset))?;
        let mut buf = vec![0u8; usize::try_from(len).map_err(|_| bad("a length overflows"))?];
        self.file.read_exact(&mut buf)?;
        Ok(buf)
    }

    /// The records a name is found under (binary search of the key table).
    fn refs_of(&mut self, name: &str) -> std::io::Result<Vec<u32>> {
        let (mut low, mut high) = (0u64, self.keys);
        while low < high {
            let mid = low + (high - low) / 2;
            let entry = self.at(self.key_table + mid * KEY_ENTRY, KEY_ENTRY)?;
            let field = |r: std::ops::Range<usize>| entry[r].to_vec();
            let name_at = u64::from_le_bytes(array(&field(0..8)));
            let name_len = u32::from_le_bytes(array(&field(8..12)));
            let name_at = self
                .names
                .checked_add(name_at)
                .ok_or_else(|| bad("a key's name points past the end of the file"))?;
            let found = self.at(name_at, u64::from(name_len))?;
            match found.as_slice().cmp(name.as_bytes()) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => {
                    let first = u64::from(u32::from_le_bytes(array(&field(12..16))));
                    let count = u64::from(u32::from_le_bytes(array(&field(16..20))));
                    let list = self.at(self.refs + first * 4, count * 4)?;
                    return Ok(list
                        .chunks_exact(4)
                        .map(|c| u32::from_le_bytes(array(c)))
                        .collect());
                }
            }
        }
        Ok(Vec::new())
    }

    fn record(&mut self, number: u32) -> std::io::Result<Record> {
        if u64::from(number) >= self.records {
            return Err(bad("a reference points past the records"));
        }
        let bounds = self.at(self.offsets + u64::from(number) * 8, 16)?;
        let start = u64::from_le_bytes(array(&bounds[0..8]));
        let end = u64::from_le_bytes(array(&bounds[8..16]));
        if end < start {
            return Err(bad("a record ends before it starts"));
        }
        let at = self
            .bodies
            .checked_add(start)
            .ok_or_else(|| bad("a record points past the end of the file"))?;
        let bytes = self.at(at, end - start)?;
        decode_record(number, &bytes)
    }

    /// Every record, in order. Read a stretch at a time: two reads per record (its bounds,
    /// its body) were most of `--all` from a cache of 110,000 bindings, while reading the
    /// whole file at once would hold all of it beside the model it becomes.
    fn all_records(&mut self) -> std::io::Result<Vec<Record>> {
        /// About this much is read at once.
        const STRETCH: u64 = 1 << 20;
        let count = u32::try_from(self.records).map_err(|_| bad("too many records"))?;
        let table_len = (u64::from(count) + 1) * 8;
        let table = self.at(self.offsets, table_len)?;
        let count = count as usize;
        let bounds: Vec<u64> = table
            .chunks_exact(8)
            .map(|b| u64::from_le_bytes(array(b)))
            .collect();
        if bounds.windows(2).any(|w| w[1] < w[0]) {
            return Err(bad("a record ends before it starts"));
        }
        let mut records = Vec::with_capacity(count);
        let mut first = 0;
        while first < count {
            let mut last = first + 1;
            while last < count && bounds[last + 1] - bounds[first] <= STRETCH {
                last += 1;
            }
            let at = self
                .bodies
                .checked_add(bounds[first])
                .ok_or_else(|| bad("a record points past the end of the file"))?;
            let stretch = self.at(at, bounds[last] - bounds[first])?;
            for n in first..last {
                let body = &stretch[(bounds[n] - bounds[first]) as usize..]
                    [..(bounds[n + 1] - bounds[n]) as usize];
                // `n` is below `count`, which came from a u32.
                records.push(decode_record(n as u32, body)?);
            }
            first = last;
        }
        Ok(records)
    }

    /// The records the lookup of `names` needs: the closure over what their bindings may look
    /// up, or all of them when that cannot be known.
    pub fn needed(&mut self, names: &[String]) -> std::io::Result<Needed> {
        let mut seen: BTreeSet<String> = BTreeSet::new();
        let mut queue: Vec<String> = Vec::new();
        for n in names {
            if n == "/classes" {
                return Ok(Needed::All);
            }
            queue.push(n.clone());
            queue.extend(dotted_root(n));
            let key = crate::lower::keys::Key::new(crate::types::PType::Data, n.as_str());
            if let Some(implicit) = key.implicit_parameter() {
                queue.push(implicit.name);
            }
        }
        let mut records: BTreeSet<u32> = BTreeSet::new();
        let mut hiera: BTreeSet<usize> = BTreeSet::new();
        while let Some(name) = queue.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            for r in self.refs_of(&name)? {
                if !records.insert(r) {
                    continue;
                }
                let record = self.record(r)?;
                let mut more = Vec::new();
                if !looks_up(&record, &mut more) {
                    return Ok(Needed::All);
                }
                // A key of Hiera data needs every level that can answer it (whole), and the
                // keys its values there interpolate.
                if let AbstractBinding::Binding(b) = &record.binding {
                    if let Some(ProducerDescriptor::HieraProducerDescriptor { .. }) =
                        b.producer.as_deref()
                    {
                        let module = name.split_once("::").map(|(m, _)| m.to_string());
                        for level in self.hiera_stack(module.as_deref()) {
                            hiera.insert(level);
                            self.hiera_files(level)?;
                            let (files, by_key) = self.hiera_by_key(level);
                            for &(file, datum) in by_key.get(name.as_str()).into_iter().flatten() {
                                interpolated_keys(&files[file].keys[datum].value, &mut more);
                            }
                        }
                    }
                }
                queue.extend(more.into_iter().filter(|m| !seen.contains(m)));
            }
        }
        Ok(Needed::Some {
            records: records.into_iter().collect(),
            hiera,
        })
    }

    /// The model with the records `needed` (every layer and block, most of them empty).
    pub fn document(&mut self, needed: &Needed) -> std::io::Result<TreeDocument<Json>> {
        let (records, levels): (Vec<Record>, BTreeSet<usize>) = match needed {
            Needed::Some { records, hiera } => (
                records
                    .iter()
                    .map(|&n| self.record(n))
                    .collect::<std::io::Result<_>>()?,
                hiera.clone(),
            ),
            Needed::All => (self.all_records()?, (0..self.header.hiera.len()).collect()),
        };
        let mut document = rebuild(&self.header, records)?;
        // The levels not needed keep their hierarchies (and their places), without files.
        for level in levels {
            let files = self.hiera_files(level)?.clone();
            if let Some(l) = document.hiera.get_mut(level) {
                l.files = files;
            }
        }
        Ok(document)
    }
}

/// One record from its bytes.
fn decode_record(number: u32, bytes: &[u8]) -> std::io::Result<Record> {
    let record: Record = deep_json(bytes, &format!("record {number}"))?;
    if record.whens.len() > super::model::MAX_WHEN_NESTING {
        return Err(bad(format!("record {number} nests its `when`s too deep")));
    }
    Ok(record)
}

/// Reassembles a document from the header and records in record order: a record's `when`s
/// are the containers it goes into, the same `when` (by id) shared by consecutive records.
fn rebuild(header: &Header, records: Vec<Record>) -> std::io::Result<TreeDocument<Json>> {
    // (layer, block within the layer) by block number.
    let blocks: Vec<(usize, usize)> = header
        .layers
        .iter()
        .enumerate()
        .flat_map(|(l, layer)| (0..layer.blocks.len()).map(move |b| (l, b)))
        .collect();
    // Each layer's blocks, filled record by record, then shared as a layer holds them.
    let mut filled: Vec<Vec<NamedBindings<Json>>> = header
        .layers
        .iter()
        .map(|l| {
            l.blocks
                .iter()
                .map(|b| NamedBindings {
                    name: b.name.clone(),
                    bindings: Vec::new(),
                    origin: b.origin.clone(),
                    summary: Default::default(),
                })
                .collect()
        })
        .collect();
    // Per block, the ids of the `when`s around the last record placed in it.
    let mut open: Vec<Vec<u32>> = vec![Vec::new(); blocks.len()];
    for record in records {
        let Some(&(l, b)) = blocks.get(record.block as usize) else {
            return Err(bad(format!(
                "a record names bindings block {}, and the header has {}",
                record.block,
                blocks.len()
            )));
        };
        let chain = &mut open[record.block as usize];
        let depth = record.whens.len();
        place(
            &mut filled[l][b].bindings,
            record.whens.into_iter(),
            chain,
            0,
            record.binding,
        );
        // The `when`s the last record was in and this one is not are closed.
        chain.truncate(depth);
    }
    let layers = header
        .layers
        .iter()
        .zip(filled)
        .map(|(l, blocks)| NamedLayer {
            name: l.name.clone(),
            providers: l.providers.clone(),
            bindings: blocks.into_iter().map(std::sync::Arc::new).collect(),
        })
        .collect();
    Ok(TreeDocument {
        format: FORMAT.to_string(),
        version: VERSION,
        environment: header.environment.clone(),
        environments: header.environments.clone(),
        categories: header.categories.clone(),
        layers: LayeredBindings { layers },
        hiera: header.hiera.clone(),
    })
}

/// The keys a Hiera value interpolates (`%{lookup('k')}`, `%{hiera('k')}`, `%{alias('k')}`),
/// in its strings at any depth (an explicit stack: data nests as its reader allows).
fn interpolated_keys(value: &Json, out: &mut Vec<String>) {
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Json::String(s) if s.contains("%{") => {
                if let Ok(parts) = crate::data::interpolation::parse(s, true) {
                    for part in parts {
                        if let crate::data::interpolation::Part::Lookup(k)
                        | crate::data::interpolation::Part::Alias(k) = part
                        {
                            out.extend(dotted_root(&k));
                            out.push(k);
                        }
                    }
                }
            }
            Json::Array(items) => stack.extend(items),
            Json::Object(map) => {
                for (k, v) in map {
                    if k.contains("%{") {
                        if let Ok(parts) = crate::data::interpolation::parse(k, true) {
                            for part in parts {
                                if let crate::data::interpolation::Part::Lookup(k) = part {
                                    out.extend(dotted_root(&k));
                                    out.push(k);
                                }
                            }
                        }
                    }
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
}

/// The root of a dotted key (`ntp::servers` of `ntp::servers.0`), which a lookup of it reads.
fn dotted_root(name: &str) -> Option<String> {
    if !name.contains(['.', '"', '\'']) {
        return None;
    }
    crate::data::interpolation::split_key(name)
        .map(|(root, _)| root)
        .filter(|root| root != name)
}

/// Where the last record offset (the records' total length) is.
fn offsets_end(offsets: u64, records: u64) -> std::io::Result<u64> {
    records
        .checked_mul(8)
        .and_then(|n| offsets.checked_add(n))
        .ok_or_else(|| bad("its record table overflows"))
}

/// Puts `binding` into `list` inside its `when`s: the `when` at `depth` is the last item of
/// `list` when it is the one the last record was in (`chain`), else a new one.
fn place(
    list: &mut Vec<AbstractBinding<Json>>,
    mut whens: std::vec::IntoIter<When>,
    chain: &mut Vec<u32>,
    depth: usize,
    binding: AbstractBinding<Json>,
) {
    let Some(when) = whens.next() else {
        list.push(binding);
        return;
    };
    let reuse = chain.get(depth) == Some(&when.id)
        && matches!(
            list.last(),
            Some(AbstractBinding::CategorizedBindings { .. })
        );
    if !reuse {
        chain.truncate(depth);
        chain.push(when.id);
        list.push(AbstractBinding::CategorizedBindings {
            predicates: when.predicates,
            path: when.path,
            bindings: Vec::new(),
            origin: when.origin,
        });
    }
    match list.last_mut() {
        Some(AbstractBinding::CategorizedBindings { bindings, .. }) => {
            place(bindings, whens, chain, depth + 1, binding)
        }
        _ => list.push(binding),
    }
}

/// Adds the names a record's binding may look up to `out`; `false` when one cannot be known
/// without evaluating (a `lookup` of a computed name, the classes of `/classes`).
fn looks_up(record: &Record, out: &mut Vec<String>) -> bool {
    let mut pn: Vec<&Json> = Vec::new();
    for w in &record.whens {
        pn.extend(w.predicates.iter().map(|c| &c.value));
        if let Some(p) = &w.path {
            pn.push(&p.template);
            pn.extend(p.unless.iter().map(|t| &t.template));
        }
    }
    // An argument's `value` is a literal (plain JSON, never a lookup); its `expression` is PN.
    fn args(list: &[super::model::NamedArgument<Json>]) -> impl Iterator<Item = &Json> {
        list.iter().filter_map(|a| a.expression.as_ref())
    }
    let mut producers: Vec<&ProducerDescriptor<Json>> = Vec::new();
    match &record.binding {
        AbstractBinding::Binding(b) => {
            producers.extend(b.producer.as_deref());
            pn.extend(args(b.producer_args()));
        }
        AbstractBinding::Multibinding(m) => {
            producers.extend(&m.producer);
            pn.extend(args(&m.producer_args));
            if let Some(id) = m.id.as_ref().or(m.name.as_ref()) {
                out.push(format!("+{id}"));
            }
        }
        AbstractBinding::AliasBinding(r)
        | AbstractBinding::RenamedBinding(r)
        | AbstractBinding::Rebinding(r) => out.extend(r.from_name.as_deref().map(str::to_string)),
        AbstractBinding::ParametersBinding(p) => {
            pn.push(&p.source);
            pn.extend(args(&p.producer_args));
        }
        AbstractBinding::ParameterMapBinding { mappings, .. } => {
            pn.extend(args(mappings));
        }
        AbstractBinding::DependencyBinding(d) => {
            pn.push(&d.from);
            pn.push(&d.to);
        }
        AbstractBinding::CategorizedBindings { .. } => {}
    }
    while let Some(p) = producers.pop() {
        use ProducerDescriptor as P;
        match p {
            P::ConstantProducerDescriptor { .. }
            | P::ArrayMultibindProducerDescriptor
            | P::HashMultibindProducerDescriptor => {}
            P::EvaluatingProducerDescriptor { expression }
            | P::QueryProducerDescriptor { expression } => pn.push(expression),
            P::InstanceProducerDescriptor { arguments, .. } => pn.extend(arguments),
            P::ProducerProducerDescriptor { producer }
            | P::OptionalProducerDescriptor { producer } => producers.push(producer),
            P::LookupProducerDescriptor { name, .. } => out.push(name.clone()),
            P::ClassesProducerDescriptor { .. } => return false,
            // What Hiera data needs is found from its levels (`Cache::needed`).
            P::HieraProducerDescriptor { .. } => {}
        }
    }
    pn.into_iter().all(|p| pn_lookups(p, out))
}

/// The names `lookup()`/`inject()` calls in a PN expression look up; `false` when one is
/// computed. Walks with a stack (PN nests one level per operator).
fn pn_lookups(pn: &Json, out: &mut Vec<String>) -> bool {
    let mut stack = vec![pn];
    while let Some(node) = stack.pop() {
        match node {
            Json::Array(items) => stack.extend(items),
            Json::Object(map) => {
                if let Some(Json::Array(call)) = map.get("^") {
                    if let Some(names) = lookup_argument(call) {
                        match names {
                            Some(arg) => {
                                if !literal_names(arg, out) {
                                    return false;
                                }
                            }
                            None => return false,
                        }
                    }
                }
                stack.extend(map.values());
            }
            _ => {}
        }
    }
    true
}

/// For a call of `lookup` or `inject` (`{"^":["call", {"#":["functor", qn, "args", [...]]}]}`,
/// `invoke`, or `x.lookup(...)`): `Some(first argument)`, or `Some(None)` when it has none.
fn lookup_argument(call: &[Json]) -> Option<Option<&Json>> {
    let kind = call.first()?.as_str()?;
    if !matches!(kind, "call" | "invoke" | "call-method") {
        return None;
    }
    let entries = call.get(1)?.as_object()?.get("#")?.as_array()?;
    let field = |key: &str| {
        entries
            .chunks(2)
            .find(|kv| kv[0].as_str() == Some(key))
            .and_then(|kv| kv.get(1))
    };
    let functor = field("functor")?;
    let callee = functor.as_object()?.get("^")?.as_array()?;
    let (name, receiver) = match callee.first()?.as_str()? {
        "qn" => (callee.get(1)?.as_str()?, None),
        "." => {
            let method = callee.get(2)?.as_object()?.get("^")?.as_array()?;
            (method.get(1)?.as_str()?, callee.get(1))
        }
        _ => return None,
    };
    if !matches!(name, "lookup" | "inject") {
        return None;
    }
    Some(receiver.or_else(|| {
        field("args")
            .and_then(Json::as_array)
            .and_then(|a| a.first())
    }))
}

/// The strings a literal first argument of `lookup` holds (a name, names, an options hash);
/// `false` when it is computed.
fn literal_names(arg: &Json, out: &mut Vec<String>) -> bool {
    let mut stack = vec![arg];
    while let Some(node) = stack.pop() {
        match node {
            Json::String(s) => out.push(s.clone()),
            Json::Null | Json::Bool(_) | Json::Number(_) => {}
            Json::Array(items) => stack.extend(items),
            Json::Object(map) => {
                let Some(Json::Array(call)) = map.get("^") else {
                    return false;
                };
                match call.first().and_then(Json::as_str) {
                    Some("array" | "hash" | "=>" | "qn" | "default") => stack.extend(&call[1..]),
                    _ => return false,
                }
            }
        }
    }
    true
}

fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&bytes[..N]);
    out
}

fn read_u32(file: &mut std::fs::File) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    file.read_exact(&mut b)?;
    Ok(u32::from_le_bytes(b))
}

fn read_u64(file: &mut std::fs::File) -> std::io::Result<u64> {
    let mut b = [0u8; 8];
    file.read_exact(&mut b)?;
    Ok(u64::from_le_bytes(b))
}

fn read_exact(file: &mut std::fs::File, len: u64, limit: u64) -> std::io::Result<Vec<u8>> {
    if len > limit {
        return Err(bad("a length points past the end of the file"));
    }
    let mut buf = vec![0u8; len as usize];
    file.read_exact(&mut buf)?;
    Ok(buf)
}

/// The length in bytes of a table of `count` entries of `size` bytes, checked against the file.
fn table_len(count: u64, size: u64, limit: u64) -> std::io::Result<i64> {
    count
        .checked_mul(size)
        .filter(|&n| n <= limit)
        .and_then(|n| i64::try_from(n).ok())
        .ok_or_else(|| bad("a table is longer than the file"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache whose header is sound and whose tables hold `tail` (little-endian words).
    fn cache_with(tail: &[u64]) -> std::path::PathBuf {
        cache_with_header(br#"{"environment":"production","environments":{"kind":"Environments","defaults":[],"environments":[],"dynamic":[]},"categories":{"kind":"EffectiveCategories","categories":[{"kind":"Category","categorization":"common","value":true}]},"layers":[]}"#, tail)
    }

    /// A cache of `header` and `tail`, sealed with its checksum, so that what is tested is
    /// the structure behind it.
    fn cache_with_header(header: &[u8], tail: &[u64]) -> std::path::PathBuf {
        let mut body = (header.len() as u64).to_le_bytes().to_vec();
        body.extend_from_slice(header);
        for word in tail {
            body.extend_from_slice(&word.to_le_bytes());
        }
        written(&sealed(&body))
    }

    fn written(bytes: &[u8]) -> std::path::PathBuf {
        // One file per call: tests run in parallel.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let path = std::env::temp_dir().join(format!(
            "pbc-cache-test-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        std::fs::write(&path, bytes).expect("written");
        path
    }

    const MODEL: &str = r#"{"format":"puppet-bindings-model","version":1,"environment":"production","environments":{"kind":"Environments","defaults":[],"environments":[],"dynamic":[]},"categories":{"kind":"EffectiveCategories","categories":[{"kind":"Category","categorization":"node","value":{"^":["var","::fqdn"]}},{"kind":"Category","categorization":"common","value":true}]},"layers":{"kind":"LayeredBindings","layers":[{"kind":"NamedLayer","name":"site","providers":[],"bindings":[{"kind":"NamedBindings","name":"default","origin":{"file":"bindings/default.pp","line":1,"column":1},"bindings":[{"kind":"Binding","type":{"kind":"PStringType"},"name":"a","override":false,"abstract":false,"multibind_id":null,"producer":{"kind":"ConstantProducerDescriptor","value":"x"},"producer_args":[],"origin":{"file":"bindings/default.pp","line":2,"column":3}}]}]}]}}"#;

    /// Issue 56 item 10: any one bit flipped anywhere after the magic line and version (the
    /// checksum, a length, a category name, a record) is refused before any answer, never
    /// read as another model.
    #[test]
    fn a_damaged_cache_is_refused_whatever_bit_is_flipped() {
        let bytes = write(MODEL).expect("a cache");
        let path = written(&bytes);
        let mut cache = Cache::open(&path).expect("the cache as written opens");
        assert!(cache.document(&Needed::All).is_ok());
        let _ = std::fs::remove_file(&path);
        for at in CHECKSUM_AT..bytes.len() {
            for bit in [0, 3, 7] {
                let mut damaged = bytes.clone();
                damaged[at] ^= 1 << bit;
                let path = written(&damaged);
                let refused = Cache::open(&path).err().map(|e| e.to_string());
                let _ = std::fs::remove_file(&path);
                assert!(
                    refused.as_deref().is_some_and(|e| e.contains("checksum")),
                    "byte {at} bit {bit}: {refused:?}"
                );
            }
        }
    }

    /// A record whose block the header does not have is refused, not dropped (a key would
    /// then get a lower layer's value).
    #[test]
    fn a_record_of_a_block_the_header_lacks_is_refused() {
        let bytes = write(MODEL).expect("a cache");
        let record = br#"{"block":0"#;
        let at = bytes
            .windows(record.len())
            .position(|w| w == record)
            .expect("the record");
        let mut body = bytes[BODY_AT..].to_vec();
        body[at - BODY_AT + r#"{"block":"#.len()] = b'7';
        let path = written(&sealed(&body));
        let mut cache = Cache::open(&path).expect("opens: the checksum is right");
        let refused = cache.document(&Needed::All).err().map(|e| e.to_string());
        let _ = std::fs::remove_file(&path);
        assert!(
            refused.as_deref().is_some_and(|e| e.contains("block 7")),
            "{refused:?}"
        );
    }

    /// Issue 56 item 2: a header nested a million deep is refused by its count, before any
    /// parse that recurses per level (this test runs on a 2 MiB stack).
    #[test]
    fn a_deep_header_is_refused_before_it_is_parsed() {
        let deep = format!("{}{}", "[".repeat(1_000_000), "]".repeat(1_000_000));
        let path = cache_with_header(deep.as_bytes(), &[0, 0, 0, 0, 0]);
        let refused = Cache::open(&path).err().map(|e| e.to_string());
        let _ = std::fs::remove_file(&path);
        assert!(
            refused
                .as_deref()
                .is_some_and(|e| e.contains("levels deep")),
            "{refused:?}"
        );
    }

    /// A Hiera level whose files lie past the end of the file, or that has no files entry, is
    /// refused.
    #[test]
    fn hostile_hiera_sections_are_refused() {
        let level = r#"{"kind":"HieraLevel","place":"environment","config":"hiera.yaml","bindings":"confdir-hiera:/hiera.yaml","hierarchy":[],"files":[]}"#;
        let base = r#"{"environment":"production","environments":{"kind":"Environments","defaults":[],"environments":[],"dynamic":[]},"categories":{"kind":"EffectiveCategories","categories":[{"kind":"Category","categorization":"common","value":true}]},"layers":[],"hiera":[LEVEL]"#.replace("LEVEL", level);
        let unmatched = format!("{base}}}");
        let path = cache_with_header(unmatched.as_bytes(), &[0, 0, 0, 0, 0]);
        assert!(Cache::open(&path).is_err());
        let _ = std::fs::remove_file(&path);
        for files in ["[[18446744073709551615,10]]", "[[0,1000000]]"] {
            let header = format!("{base},\"hiera_files\":{files}}}");
            let path = cache_with_header(header.as_bytes(), &[0, 0, 0, 0, 0]);
            let mut cache = Cache::open(&path).expect("opens");
            assert!(cache.hiera_files(0).is_err(), "{files}");
            assert!(cache.document(&Needed::All).is_err(), "{files}");
            let _ = std::fs::remove_file(&path);
        }
    }

    /// Counts and offsets near `u64::MAX` are refused, never overflowed (found by fuzzing: a
    /// record count of `u64::MAX`).
    #[test]
    fn hostile_tables_are_refused() {
        // No keys, no names, no references, then a record count of u64::MAX.
        let path = cache_with(&[0, 0, 0, u64::MAX]);
        assert!(Cache::open(&path).is_err());
        let _ = std::fs::remove_file(&path);
        // A sound empty cache opens and needs nothing.
        let path = cache_with(&[0, 0, 0, 0, 0]);
        let mut cache = Cache::open(&path).expect("opens");
        assert!(
            matches!(cache.needed(&["a".into()]), Ok(Needed::Some { records, .. }) if records.is_empty())
        );
        let _ = std::fs::remove_file(&path);
    }

    /// Reading every record (`--all`) refuses bounds that go backwards or past the file, as
    /// reading one record does.
    #[test]
    fn hostile_record_bounds_are_refused_when_all_are_read() {
        // No keys, names or references; two records whose bounds are 0, 10, 5.
        let path = cache_with(&[0, 0, 0, 2, 0, 10, 5]);
        let mut cache = Cache::open(&path).expect("opens");
        let refused = cache.document(&Needed::All).err().map(|e| e.to_string());
        assert!(
            refused
                .as_deref()
                .is_some_and(|e| e.contains("ends before it starts")),
            "{refused:?}"
        );
        let _ = std::fs::remove_file(&path);
        // One record of a megabyte, in a file of a few hundred bytes.
        let path = cache_with(&[0, 0, 0, 1, 0, 1 << 20]);
        let mut cache = Cache::open(&path).expect("opens");
        assert!(cache.document(&Needed::All).is_err());
        let _ = std::fs::remove_file(&path);
    }
}
