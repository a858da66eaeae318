//! `pbc serve`: answers Puppet's lookups from compiled models it keeps in memory, so that a
//! catalog compile on a Puppet or OpenVox server (`pbc::lookup_key`) pays for one key at a time
//! instead of loading the model and answering every key for each node.
//!
//! It owns the protocol (docs/answers.md, "pbc serve"), the models held (one generation per
//! model file, loaded when first named and again when the file changes, dropped when nobody has
//! asked for a while) and the connections: each is one node's compile, which opens with the
//! model, the environment and the node's facts, and then asks keys, one JSON line each, answered
//! exactly as `pbc lookup --model --format answers` answers them. It must not print (the command
//! line logs the [`Event`]s it is given), answer from a model outside its roots, or let one
//! connection's input make another wait, grow without bound or fail.

use super::command::{answer_error, found_answer};
use super::query::{check_environment, read_model_file, ModelError};
use super::Injector;
use crate::compose::Bindings;
use crate::diag::{codes, Diagnostic};
use crate::load::Request;
use crate::lower::keys::Key;
use crate::span::Span;
use crate::types::PType;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The first line of a connection (the model, the environment, the node's facts) may be this
/// long: facts of a large node are some hundreds of kilobytes.
pub const MAX_OPEN_BYTES: usize = 16 * 1024 * 1024;
/// A key's line may be this long.
pub const MAX_KEY_BYTES: usize = 64 * 1024;

/// The stack of a thread that reads a model: as the command line's, since reading recurses per
/// level of the model's nesting.
const MODEL_STACK: usize = 256 * 1024 * 1024;

/// How `pbc serve` runs.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The directories (canonical) whose models may be named; a model elsewhere is refused.
    pub roots: Vec<PathBuf>,
    /// How long a connection may wait for its next line before it is closed (a compile that
    /// ended never says so; its client opens again when it needs to).
    pub idle: Duration,
    /// How long a model stays loaded after its last connection.
    pub model_idle: Duration,
    /// How many connections may be open at once; one more is told the server is busy.
    pub max_connections: usize,
    /// What the command line's global flags say: how model files may be read, the Hiera
    /// levels to take as empty, the hiera-eyaml key.
    pub options: crate::options::Options,
}

/// What happened, for the command line to log.
#[derive(Debug)]
pub enum Event {
    Loaded {
        model: PathBuf,
        environment: String,
        took: Duration,
    },
    NotLoaded {
        model: PathBuf,
        why: String,
    },
    Dropped {
        model: PathBuf,
    },
    Refused {
        why: String,
    },
}

impl std::fmt::Display for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Event::Loaded {
                model,
                environment,
                took,
            } => write!(
                f,
                "loaded {} (environment `{environment}`) in {} ms",
                model.display(),
                took.as_millis()
            ),
            Event::NotLoaded { model, why } => {
                write!(f, "cannot answer from {}: {why}", model.display())
            }
            Event::Dropped { model } => write!(f, "dropped {} (not asked for)", model.display()),
            Event::Refused { why } => write!(f, "refused a connection: {why}"),
        }
    }
}

/// Serves connections from `listener` for as long as it gives them; `log` hears what happened.
pub fn serve(
    listener: &UnixListener,
    opts: &ServeOptions,
    log: &(dyn Fn(Event) + Sync),
) -> std::io::Result<()> {
    let registry = Registry::default();
    std::thread::scope(|scope| {
        for stream in listener.incoming() {
            let Ok(stream) = stream else {
                // A client that went away before it was accepted, or no descriptor left for
                // it (which a moment may free: not a loop that spins meanwhile).
                std::thread::sleep(Duration::from_millis(10));
                continue;
            };
            let open = registry.connections.fetch_add(1, Ordering::SeqCst);
            let connection = Connection {
                count: Arc::clone(&registry.connections),
            };
            if open >= opts.max_connections {
                let d = Diagnostic::error(
                    codes::SERVE_BUSY,
                    Span::NONE,
                    format!(
                        "pbc serve has {} connections open, as many as `--max-connections` allows",
                        opts.max_connections
                    ),
                );
                log(Event::Refused {
                    why: d.message.clone(),
                });
                let _ = stream.set_write_timeout(Some(opts.idle));
                let _ = write_line(&mut &stream, &opening_error(&d));
                drop(connection);
                continue;
            }
            let registry = &registry;
            let spawned = std::thread::Builder::new()
                .stack_size(crate::parallel::WORKER_STACK)
                .spawn_scoped(scope, move || {
                    open_connection(stream, connection, registry, opts, scope, log)
                });
            if let Err(e) = spawned {
                log(Event::Refused {
                    why: format!("no thread for it: {e}"),
                });
            }
        }
        Ok(())
    })
}

/// The models held, by canonical path, and how many connections are open.
#[derive(Default)]
struct Registry {
    models: Mutex<BTreeMap<PathBuf, Generation>>,
    connections: Arc<AtomicUsize>,
    generations: AtomicU64,
}

/// One load of a model file: what the file was then, and where its connections go.
struct Generation {
    id: u64,
    stamp: Stamp,
    sender: mpsc::Sender<Opened>,
}

/// What tells a model file's versions apart: a deploy replaces the file (a new inode) or
/// rewrites it (a new length or time).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Stamp {
    device: u64,
    inode: u64,
    length: u64,
    modified: (i64, i64),
}

impl Stamp {
    fn of(path: &Path) -> std::io::Result<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let meta = std::fs::metadata(path)?;
        Ok(Stamp {
            device: meta.dev(),
            inode: meta.ino(),
            length: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
        })
    }
}

/// A connection counted in [`Registry::connections`] until it is dropped.
struct Connection {
    count: Arc<AtomicUsize>,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::SeqCst);
    }
}

/// A connection that has said what it asks of which model.
struct Opened {
    /// First, so dropped first: the connection's slot is free before its stream closes, and a
    /// client that opens another as soon as it sees the close is not told the server is busy.
    _counted: Connection,
    reader: BufReader<UnixStream>,
    writer: BufWriter<UnixStream>,
    request: Request,
    environment: Option<String>,
}

/// The first line of a connection, as sent.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenLine<'a> {
    model: String,
    #[serde(default)]
    environment: Option<String>,
    #[serde(borrow)]
    facts: &'a serde_json::value::RawValue,
}

/// A key's line, as sent: `namespace` asks for the key's neighbours too.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct KeyLine {
    key: String,
    #[serde(default)]
    namespace: bool,
}

/// How many keys of a namespace one answer holds at most (besides the key asked).
pub const MAX_NAMESPACE_KEYS: usize = 256;

fn request_error(message: String) -> Diagnostic {
    Diagnostic::error(codes::SERVE_REQUEST, Span::NONE, message)
}

/// Reads a connection's first line and hands the connection to its model's generation,
/// loading the model when no generation holds the file as it is now.
fn open_connection<'s, 'r: 's>(
    stream: UnixStream,
    counted: Connection,
    registry: &'r Registry,
    opts: &'r ServeOptions,
    scope: &'s std::thread::Scope<'s, 'r>,
    log: &'r (dyn Fn(Event) + Sync),
) {
    let (Ok(()), Ok(()), Ok(read_half)) = (
        stream.set_read_timeout(Some(opts.idle)),
        stream.set_write_timeout(Some(opts.idle)),
        stream.try_clone(),
    ) else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = BufWriter::new(stream);
    // Bound after the stream's halves, so dropped before them when the opening fails: the
    // slot is free before the client sees its connection closed (see [`Opened`]).
    let counted = counted;
    let fail = |writer: &mut BufWriter<UnixStream>, d: Diagnostic| {
        let _ = write_line(writer, &opening_error(&d));
    };
    let line = match read_line(&mut reader, MAX_OPEN_BYTES) {
        Ok(Some(line)) => line,
        Ok(None) => return,
        Err(LineError::TooLong) => {
            // Read to the line's end (within bounds) so that the answer is not lost to a
            // connection closed with input unread.
            skip_line(&mut reader, MAX_OPEN_BYTES);
            return fail(
                &mut writer,
                request_error(format!(
                    "the first line (the model, the environment and the facts) is longer than {MAX_OPEN_BYTES} bytes"
                )),
            );
        }
        Err(LineError::Io) => return,
    };
    let (path, environment, request) = match opening(&line, opts) {
        Ok(opened) => opened,
        Err(d) => return fail(&mut writer, d),
    };
    let stamp = match Stamp::of(&path) {
        Ok(s) => s,
        Err(e) => {
            let d = Diagnostic::error(
                codes::INVALID_MODEL,
                Span::NONE,
                format!(
                    "`{}` is not a model pbc can read: {}",
                    path.display(),
                    crate::source::io_reason(&e)
                ),
            );
            return fail(&mut writer, d);
        }
    };
    let opened = Opened {
        _counted: counted,
        reader,
        writer,
        request,
        environment,
    };
    // Sent with the registry locked, so that a generation that retires (under the same lock)
    // has every connection sent to it in its queue before it stops taking them.
    let Ok(mut models) = registry.models.lock() else {
        return;
    };
    let current = models
        .get(&path)
        .filter(|g| g.stamp == stamp)
        .map(|g| g.sender.clone());
    let opened = match current {
        Some(sender) => match sender.send(opened) {
            Ok(()) => return,
            // Its generation stopped without retiring (it could not start): load again.
            Err(mpsc::SendError(opened)) => opened,
        },
        None => opened,
    };
    let (sender, receiver) = mpsc::channel();
    let id = registry.generations.fetch_add(1, Ordering::SeqCst);
    let _ = sender.send(opened);
    // A newer file replaces the generation: the old one answers the connections it has and
    // ends when they do.
    models.insert(path.clone(), Generation { id, stamp, sender });
    drop(models);
    let spawned = std::thread::Builder::new()
        .stack_size(MODEL_STACK)
        .spawn_scoped(scope, move || {
            keep_model(&path, id, receiver, registry, opts, log);
        });
    if let Err(e) = spawned {
        log(Event::Refused {
            why: format!("no thread for the model: {e}"),
        });
    }
}

/// The first line read: the model's canonical path (under a root), the environment asked for,
/// and the request the node's facts make.
fn opening(
    line: &[u8],
    opts: &ServeOptions,
) -> Result<(PathBuf, Option<String>, Request), Diagnostic> {
    let open: OpenLine = serde_json::from_slice(line).map_err(|e| {
        request_error(format!(
            "the first line is not `{{\"model\": PATH, \"environment\": NAME, \"facts\": {{...}}}}`: {e}"
        ))
    })?;
    let named = Path::new(&open.model);
    if !named.is_absolute() {
        return Err(request_error(format!(
            "the model `{}` is not an absolute path",
            open.model
        )));
    }
    let refused = |why: String| {
        Diagnostic::error(
            codes::SERVE_MODEL_REFUSED,
            Span::NONE,
            format!("pbc serve does not answer from `{}`: {why}", open.model),
        )
        .with_note(format!(
            "note: it answers from models under {}",
            opts.roots
                .iter()
                .map(|r| format!("`{}`", r.display()))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    };
    let path = std::fs::canonicalize(named).map_err(|e| {
        Diagnostic::error(
            codes::INVALID_MODEL,
            Span::NONE,
            format!(
                "`{}` is not a model pbc can read: {}",
                open.model,
                crate::source::io_reason(&e)
            ),
        )
    })?;
    if !opts.roots.iter().any(|root| path.starts_with(root)) {
        return Err(refused(format!(
            "it is not under a directory given with `--models` (it is `{}`)",
            path.display()
        )));
    }
    let facts = crate::load::facts::parse_data(open.facts.get(), false).map_err(|e| {
        Diagnostic::error(
            codes::INVALID_FACTS,
            Span::NONE,
            format!("the facts are not JSON: {}", e.message),
        )
    })?;
    let mut request = Request::new(&opts.options);
    crate::load::facts::set_facts(facts, "the facts", &mut request)?;
    Ok((path, open.environment, request))
}

/// One generation of the model at `path`: loads it, then answers each connection sent to it on
/// its own thread, until a newer generation replaces it or nobody has asked for `model_idle`.
fn keep_model(
    path: &Path,
    id: u64,
    receiver: mpsc::Receiver<Opened>,
    registry: &Registry,
    opts: &ServeOptions,
    log: &(dyn Fn(Event) + Sync),
) {
    let started = Instant::now();
    match read_model_file(path, None, None, &opts.options.files) {
        Ok((mut read, _)) => {
            let environment = read.environment().to_string();
            let model = read.take_document();
            let index = Arc::new(Bindings::build(&model.layers.layers));
            // Sorted once here rather than by the first connection that asks a namespace.
            index.keys_in_order();
            log(Event::Loaded {
                model: path.to_path_buf(),
                environment: environment.clone(),
                took: started.elapsed(),
            });
            generation(path, id, receiver, registry, opts, |opened| {
                answer_connection(opened, path, &model, &index, &environment)
            });
        }
        Err(e) => {
            let d = match e {
                ModelError::Invalid(d) => d,
                ModelError::Unreadable(why) => Diagnostic::error(
                    codes::INVALID_MODEL,
                    Span::NONE,
                    format!("`{}` is not a model pbc can read: {why}", path.display()),
                ),
            };
            log(Event::NotLoaded {
                model: path.to_path_buf(),
                why: d.message.clone(),
            });
            // The error stays the answer for this file until it changes.
            generation(path, id, receiver, registry, opts, |mut opened| {
                let _ = write_line(&mut opened.writer, &opening_error(&d));
            });
        }
    }
    log(Event::Dropped {
        model: path.to_path_buf(),
    });
}

/// Takes the connections sent to generation `id` of `path` and answers each with `answer` on
/// its own thread, until the generation is replaced or retires (idle, with none open).
fn generation(
    path: &Path,
    id: u64,
    receiver: mpsc::Receiver<Opened>,
    registry: &Registry,
    opts: &ServeOptions,
    answer: impl Fn(Opened) + Sync,
) {
    let open = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let start = |opened: Opened| {
            open.fetch_add(1, Ordering::SeqCst);
            let (open, answer) = (&open, &answer);
            let spawned = std::thread::Builder::new()
                .stack_size(crate::parallel::WORKER_STACK)
                .spawn_scoped(scope, move || {
                    answer(opened);
                    open.fetch_sub(1, Ordering::SeqCst);
                });
            if spawned.is_err() {
                open.fetch_sub(1, Ordering::SeqCst);
            }
        };
        loop {
            match receiver.recv_timeout(opts.model_idle) {
                Ok(opened) => start(opened),
                Err(RecvTimeoutError::Disconnected) => break,
                Err(RecvTimeoutError::Timeout) => {
                    if open.load(Ordering::SeqCst) > 0 {
                        continue;
                    }
                    retire(registry, path, id);
                    while let Ok(opened) = receiver.try_recv() {
                        start(opened);
                    }
                    break;
                }
            }
        }
    });
}

/// Removes generation `id` of `path` from the registry, unless a newer one took its place
/// (whose sender replaced this one's, so nothing more can be sent here either way).
fn retire(registry: &Registry, path: &Path, id: u64) {
    if let Ok(mut models) = registry.models.lock() {
        if models.get(path).is_some_and(|g| g.id == id) {
            models.remove(path);
        }
    }
}

/// Answers one connection: the node's request against the model, then each key it asks.
fn answer_connection(
    mut opened: Opened,
    path: &Path,
    model: &crate::lower::model::TreeDocument<super::Code<'_>>,
    index: &Arc<Bindings<'_>>,
    environment: &str,
) {
    if let Err(d) = check_environment(
        opened.environment.as_deref(),
        "the compile",
        path,
        environment,
    ) {
        let _ = write_line(&mut opened.writer, &opening_error(&d));
        return;
    }
    let mut injector = match Injector::for_environment(
        model,
        Some(Arc::clone(index)),
        environment.to_string(),
        "the model",
        &opened.request,
    ) {
        Ok(i) => i,
        Err(d) => {
            let _ = write_line(&mut opened.writer, &opening_error(&d));
            return;
        }
    };
    let opening = serde_json::json!({
        "format": super::command::ANSWERS_FORMAT,
        "version": super::command::ANSWERS_VERSION,
        "pbc": env!("CARGO_PKG_VERSION"),
        "environment": environment,
    });
    if write_line(&mut opened.writer, &opening).is_err() {
        return;
    }
    loop {
        let answer = match read_line(&mut opened.reader, MAX_KEY_BYTES) {
            Ok(Some(line)) => match serde_json::from_slice::<KeyLine>(&line) {
                Ok(asked) if asked.namespace => answer_namespace(&mut injector, &asked.key),
                Ok(asked) => answer_key(&mut injector, &asked.key),
                Err(e) => answer_error(
                    &request_error(format!("a line is not `{{\"key\": NAME}}` (or `{{\"key\": NAME, \"namespace\": true}}`): {e}")),
                    None,
                ),
            },
            Ok(None) | Err(LineError::Io) => return,
            Err(LineError::TooLong) => {
                let d = request_error(format!("a key's line is longer than {MAX_KEY_BYTES} bytes"));
                // The rest of the line is read and dropped, so that the next line is a line;
                // past that, the connection ends.
                let whole = skip_line(&mut opened.reader, MAX_OPEN_BYTES);
                if write_line(&mut opened.writer, &answer_error(&d, None)).is_err() || !whole {
                    return;
                }
                continue;
            }
        };
        if write_line(&mut opened.writer, &answer).is_err() {
            return;
        }
    }
}

/// One key's answer, as `pbc lookup --model --format answers` gives it.
fn answer_key(injector: &mut Injector, name: &str) -> serde_json::Value {
    let key = Key::new(PType::Data, name);
    let found = injector.lookup_found_key(&key);
    // A compile's `notice()`s are not the server's to keep.
    injector.messages.clear();
    match found {
        Ok(Some(value)) => found_answer(injector, &key, &value),
        Ok(None) => serde_json::json!({ "found": false }),
        Err(d) => answer_error(&d, injector.winner_of(&key)),
    }
}

/// The key asked and the other keys of its namespace, by name (`{"answers": {...}}`): Puppet
/// asks a class's parameters one after another, and each after the first is then in the
/// client's hands already. Each is answered as if asked alone.
fn answer_namespace(injector: &mut Injector, name: &str) -> serde_json::Value {
    let mut answers = serde_json::Map::new();
    answers.insert(name.to_string(), answer_key(injector, name));
    for other in injector
        .names_in_namespace_of(name)
        .into_iter()
        .filter(|n| *n != name)
        .take(MAX_NAMESPACE_KEYS)
    {
        answers.insert(other.to_string(), answer_key(injector, other));
    }
    serde_json::json!({ "answers": answers })
}

/// An error in place of the opening answer: the connection ends after it.
fn opening_error(d: &Diagnostic) -> serde_json::Value {
    let mut error = answer_error(d, None);
    if let Some(entry) = error.as_object_mut() {
        entry.remove("found");
    }
    error
}

fn write_line(writer: &mut impl Write, value: &serde_json::Value) -> std::io::Result<()> {
    serde_json::to_writer(&mut *writer, value)?;
    writer.write_all(b"\n")?;
    writer.flush()
}

/// Reads and drops input to the end of the line, at most `max` bytes: whether it ended.
fn skip_line(reader: &mut impl BufRead, max: usize) -> bool {
    let mut skipped = 0;
    while skipped <= max {
        let available = match reader.fill_buf() {
            Ok([]) | Err(_) => return false,
            Ok(b) => b,
        };
        if let Some(at) = available.iter().position(|&b| b == b'\n') {
            reader.consume(at + 1);
            return true;
        }
        let n = available.len();
        reader.consume(n);
        skipped += n;
    }
    false
}

enum LineError {
    /// Longer than allowed: the rest of the line is not read.
    TooLong,
    /// The connection failed or timed out.
    Io,
}

/// The next line (without its newline), at most `max` bytes; `None` at the end of the input.
fn read_line(reader: &mut impl BufRead, max: usize) -> Result<Option<Vec<u8>>, LineError> {
    let mut line = Vec::new();
    loop {
        let available = match reader.fill_buf() {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(LineError::Io),
        };
        if available.is_empty() {
            return Ok((!line.is_empty()).then_some(line));
        }
        let (taken, done) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (at, true),
            None => (available.len(), false),
        };
        if line.len() + taken > max {
            return Err(LineError::TooLong);
        }
        line.extend_from_slice(&available[..taken]);
        reader.consume(if done { taken + 1 } else { taken });
        if done {
            return Ok(Some(line));
        }
    }
}
