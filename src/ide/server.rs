//! `pbc lsp`'s protocol: the handshake, the loop that answers the editor's requests and
//! notifications in order, and the diagnostics it publishes after each batch of changes. It
//! owns the protocol's rules (no request before `initialize`, none after `shutdown`, errors for
//! what it does not know or cannot read); what the answers hold is [`super::Workspace`]'s. It
//! never prints: messages go to the connection, and what only a person should read to the
//! `log` it is given.

use super::look::{DiskLook, Looked};
use super::text::{uri_to_path, Encoding, LineIndex};
use super::watch::{DiskNews, OwnWatch};
use super::{uri_of, LoadAhead, Workspace};
use crate::Options;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::request::{self as req, Request as _};
use lsp_types::{
    DidChangeConfigurationParams, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, DocumentSymbolParams, DocumentSymbolResponse, InitializeParams,
    InitializeResult, MessageType, PublishDiagnosticsParams, ServerCapabilities, ServerInfo,
    ShowMessageParams, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What the editor was last sent for a file: the buffer's version, and the diagnostics.
type Published = (Option<i32>, Vec<lsp_types::Diagnostic>);

/// How the session ended: `exit` after `shutdown` is a clean end (exit status 0); `exit`
/// without it, or the editor gone, is not (1), as the protocol says.
#[derive(Debug, PartialEq, Eq)]
pub enum Ended {
    Clean,
    WithoutShutdown,
}

/// Serves one editor over `connection` until it says `exit` or goes away. `root` is the tree
/// when the editor names no workspace; `log` gets what a person reading the server's log
/// should know (a frame that was not a message, a check that could not run).
pub fn run(
    connection: &Connection,
    options: Options,
    root: &Path,
    log: &mut dyn FnMut(&str),
) -> Ended {
    let Some((id, params)) = wait_for_initialize(connection) else {
        return Ended::WithoutShutdown;
    };
    let mut workspace = Workspace::new(
        &workspace_root(&params).unwrap_or_else(|| root.to_path_buf()),
        options,
    );
    workspace.encoding = Encoding::choose(
        params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_deref()),
    );
    let watch = params
        .initialization_options
        .as_ref()
        .and_then(watch_setting)
        .unwrap_or(true);
    if let Some(settings) = &params.initialization_options {
        apply_settings(&mut workspace, settings);
    }
    // Links out of the tree lead to files its watchers do not see.
    let editor_can_watch = watch
        && !workspace.follows_links()
        && params
            .capabilities
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|w| w.dynamic_registration)
            == Some(true);
    let result = InitializeResult {
        capabilities: ServerCapabilities {
            position_encoding: Some(workspace.encoding.kind()),
            text_document_sync: Some(TextDocumentSyncCapability::Kind(
                TextDocumentSyncKind::INCREMENTAL,
            )),
            document_symbol_provider: Some(lsp_types::OneOf::Left(true)),
            hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
            definition_provider: Some(lsp_types::OneOf::Left(true)),
            references_provider: Some(lsp_types::OneOf::Left(true)),
            completion_provider: Some(lsp_types::CompletionOptions {
                trigger_characters: Some(vec![
                    "'".into(),
                    "\"".into(),
                    ":".into(),
                    "$".into(),
                    "{".into(),
                ]),
                ..Default::default()
            }),
            workspace_symbol_provider: Some(lsp_types::OneOf::Left(true)),
            document_formatting_provider: Some(lsp_types::OneOf::Left(true)),
            code_action_provider: Some(lsp_types::CodeActionProviderCapability::Options(
                lsp_types::CodeActionOptions {
                    code_action_kinds: Some(vec![lsp_types::CodeActionKind::QUICKFIX]),
                    ..Default::default()
                },
            )),
            ..Default::default()
        },
        server_info: Some(ServerInfo {
            name: "pbc".to_string(),
            version: Some(env!("CARGO_PKG_VERSION").to_string()),
        }),
    };
    let mut server = Server {
        connection,
        arrived: std::collections::VecDeque::new(),
        cancelled: std::collections::BTreeSet::new(),
        workspace,
        published: BTreeMap::new(),
        without_place: Vec::new(),
        shutdown: false,
        dirty: true,
        watch,
        can_watch: editor_can_watch,
        awaiting_watch: None,
        editor_watches: false,
        own_watch: None,
        disk_look: None,
        look_again: false,
        look_at: None,
        load_ahead_at: None,
        log,
    };
    if !server.send(Response::new_ok(id, result).into()) {
        return Ended::WithoutShutdown;
    }
    // Before the first check reads the tree: a change after it is then told.
    if !editor_can_watch {
        server.watch_ourselves();
    }
    server.serve()
}

struct Server<'c, 'l> {
    connection: &'c Connection,
    /// Messages read ahead (to see the cancellations among them), not yet handled.
    arrived: std::collections::VecDeque<Message>,
    /// The requests the editor cancelled before they were answered (`$/cancelRequest`).
    cancelled: std::collections::BTreeSet<RequestId>,
    workspace: Workspace,
    /// What the editor was last given for each file with diagnostics: a file is sent again
    /// only when its list or its buffer's version changed, and an empty list when it has none
    /// left.
    published: BTreeMap<PathBuf, Published>,
    without_place: Vec<String>,
    shutdown: bool,
    /// Something changed since the diagnostics were last published.
    dirty: bool,
    /// The setting `watch`: what is read of the tree's files may be kept from one check to
    /// the next, while the editor or the server's own watch tells of every change.
    watch: bool,
    /// The editor can watch the tree's files for the server: asked to once initialized.
    can_watch: bool,
    /// When the editor was asked to watch the tree, until it answers: the first check waits
    /// for the answer (at most [`WATCH_ANSWER_WAIT`]), so that it reads the tree once, into
    /// what is kept between checks. Checked before the answer, the tree was read again at the
    /// first edit, and both copies of its texts held until then.
    awaiting_watch: Option<std::time::Instant>,
    /// The editor agreed to tell of every change to the tree's files.
    editor_watches: bool,
    /// The server's own watch of the tree's files, when the editor does not watch them.
    own_watch: Option<OwnWatch>,
    /// The look at the disk under way, when nothing watches it ([`Server::looks_at_disk`]).
    disk_look: Option<DiskLook>,
    /// A check was published while the look under way was looking: another look follows it,
    /// so that each check is followed by a look begun after it.
    look_again: bool,
    /// When to look at the disk behind the last check ([`LOOK_AFTER`]).
    look_at: Option<std::time::Instant>,
    /// When to load again the tree loaded for hovers, which a change made stale: each change
    /// puts it off ([`LOAD_AHEAD_AFTER`]).
    load_ahead_at: Option<std::time::Instant>,
    log: &'l mut dyn FnMut(&str),
}

/// How long the editor stays quiet after a change before the tree loaded for hovers is loaded
/// again (`Workspace::load_ahead`). A hover then answers from a tree already loaded: loading
/// a large tree again after an edit takes a hover's whole budget and more (about 30 ms at
/// 10,000 files, docs/editors.md). The wait keeps the loads off the keystrokes of someone
/// typing (each keystroke would start one) and stays under the pause before an editor asks
/// for a hover (VS Code waits 300 ms with the pointer still).
pub(super) const LOAD_AHEAD_AFTER: std::time::Duration = std::time::Duration::from_millis(250);

/// How long the editor stays quiet after a check before the disk is looked at behind it, where
/// nothing watches the tree's files ([`super::look`]): someone typing starts no look at each
/// keystroke (a look lists and reads the whole tree, a quarter of a second of a core at
/// 10,000 files), and a change on disk is still seen soon after they stop. A little longer
/// than the wait before a tree is loaded again for hovers ([`LOAD_AHEAD_AFTER`]), whose
/// reasons are the same: that load starts first, and the look waits for it to end
/// ([`LOOK_AFTER_A_LOAD`]).
const LOOK_AFTER: std::time::Duration =
    LOAD_AHEAD_AFTER.saturating_add(std::time::Duration::from_millis(50));

/// How often the time to look at the disk is put off while a tree loads for hovers: a load
/// after a change takes some tens of milliseconds, and a look beside it would take a core
/// from it.
const LOOK_AFTER_A_LOAD: std::time::Duration = std::time::Duration::from_millis(20);

/// How many times a change is checked while the disk keeps changing under the check and
/// failing it, before the failure is said.
const MOST_CHECKS_PER_CHANGE: usize = 3;

/// How many cancelled requests not yet seen are remembered.
const MOST_CANCELLED: usize = 1024;

/// The id of the server's request that the editor watch the tree's files.
const WATCH_REQUEST: &str = "pbc/watch-the-tree";

fn watch_request_id() -> RequestId {
    RequestId::from(WATCH_REQUEST.to_string())
}

/// How long the first check waits for the editor's answer to [`WATCH_REQUEST`]: editors
/// answer at once; one that does not still gets its diagnostics.
const WATCH_ANSWER_WAIT: std::time::Duration = std::time::Duration::from_millis(500);

/// Waits for `initialize`, answering any other request with the error the protocol asks for.
fn wait_for_initialize(connection: &Connection) -> Option<(RequestId, InitializeParams)> {
    for message in &connection.receiver {
        match message {
            Message::Request(request) if request.method == req::Initialize::METHOD => {
                match serde_json::from_value::<InitializeParams>(request.params) {
                    Ok(params) => return Some((request.id, params)),
                    Err(e) => {
                        let answer = Response::new_err(
                            request.id,
                            ErrorCode::InvalidParams as i32,
                            format!("initialize: {e}"),
                        );
                        connection.sender.send(answer.into()).ok()?;
                    }
                }
            }
            Message::Request(request) => {
                let answer = Response::new_err(
                    request.id,
                    ErrorCode::ServerNotInitialized as i32,
                    "the server is not initialized yet".to_string(),
                );
                connection.sender.send(answer.into()).ok()?;
            }
            Message::Notification(n) if n.method == note::Exit::METHOD => return None,
            _ => {}
        }
    }
    None
}

/// The tree the editor opened: its first workspace folder, else its root URI.
fn workspace_root(params: &InitializeParams) -> Option<PathBuf> {
    if let Some(folder) = params.workspace_folders.as_ref().and_then(|f| f.first()) {
        return uri_to_path(folder.uri.as_str());
    }
    #[allow(deprecated)] // Older clients send only `rootUri`.
    params
        .root_uri
        .as_ref()
        .and_then(|uri| uri_to_path(uri.as_str()))
}

/// The settings `pbc lsp` takes, as `initializationOptions` or in
/// `workspace/didChangeConfiguration` (bare, or under `pbc`): `strict` (`pbc check --strict`),
/// and the node hovers answer for: `facts` (a facts file, relative to the tree) and `node` (a
/// node name; with no `facts`, the node's file in the tree's `facts/` if it has one). A
/// setting given as `null` is unset. The setting `watch` is the server's ([`watch_setting`]).
fn apply_settings(workspace: &mut Workspace, settings: &serde_json::Value) {
    let settings = settings.get("pbc").unwrap_or(settings);
    if let Some(strict) = settings.get("strict").and_then(serde_json::Value::as_bool) {
        workspace.strict = strict;
    }
    if let Some(facts) = settings.get("facts") {
        workspace.facts = facts.as_str().map(PathBuf::from);
    }
    if let Some(node) = settings.get("node") {
        workspace.node = node.as_str().map(str::to_string);
    }
}

/// The setting `watch` (bare, or under `pbc`), when given: `false` keeps nothing read of the
/// tree's files from one check to the next, for a tree whose changes the system does not report
/// (a network file system changed from another machine).
fn watch_setting(settings: &serde_json::Value) -> Option<bool> {
    settings
        .get("pbc")
        .unwrap_or(settings)
        .get("watch")
        .and_then(serde_json::Value::as_bool)
}

/// What ended a wait for something to do ([`Server::wait`]).
enum Woke {
    Message(Message),
    Gone,
    LoadAhead,
    /// The server's own watch told of a change, or its thread ended.
    Disk,
    /// The time to look at the disk behind the last check.
    LookAt,
    /// The look at the disk is done.
    Looked,
}

/// The parameters of `pbc/explain`: the key, and the node (else the one the settings chose).
#[derive(serde::Deserialize)]
struct ExplainParams {
    key: String,
    #[serde(default)]
    node: Option<String>,
}

/// `pbc/explain`: what `pbc lookup --explain --format json KEY` prints, for an editor's panel.
pub const EXPLAIN_METHOD: &str = "pbc/explain";

impl Server<'_, '_> {
    fn send(&self, message: Message) -> bool {
        self.connection.sender.send(message).is_ok()
    }

    fn serve(&mut self) -> Ended {
        loop {
            let message = match self.arrived.pop_front() {
                Some(message) => Some(message),
                None => match self.wait() {
                    Woke::Message(message) => Some(message),
                    Woke::Gone => return Ended::WithoutShutdown,
                    // Quiet long enough: the tree loaded for hovers is loaded again.
                    Woke::LoadAhead => {
                        self.load_ahead_at = match self.workspace.load_ahead() {
                            LoadAhead::StillLoading => {
                                Some(std::time::Instant::now() + LOAD_AHEAD_AFTER)
                            }
                            LoadAhead::Started | LoadAhead::Nothing => None,
                        };
                        continue;
                    }
                    // A file changed on disk with no word from the editor (saved, or written
                    // by another program): its diagnostics are published all the same.
                    Woke::Disk => {
                        self.take_disk_news();
                        None
                    }
                    // Not while a tree loads for hovers: the look would take a core from it,
                    // and the hover it is loaded for may be waiting.
                    Woke::LookAt if self.workspace.loading_a_tree() => {
                        self.look_at = Some(std::time::Instant::now() + LOOK_AFTER_A_LOAD);
                        continue;
                    }
                    Woke::LookAt => {
                        self.look_at = None;
                        self.look_at_disk();
                        continue;
                    }
                    // A change on disk that nothing told of: checked and published again.
                    Woke::Looked => {
                        self.take_look();
                        None
                    }
                },
            };
            if let Some(ended) = message.and_then(|message| self.handle(message)) {
                return ended;
            }
            // Changes that came together are checked together.
            while let Some(message) = self.next_arrived() {
                if let Some(ended) = self.handle(message) {
                    return ended;
                }
            }
            if !self.catch_up() {
                return Ended::WithoutShutdown;
            }
        }
    }

    /// Waits for the next message from the editor, a change the server's own watch saw, or
    /// the time to load the tree for hovers again ([`Server::load_ahead_at`]).
    fn wait(&mut self) -> Woke {
        let load_ahead = match self.load_ahead_at.filter(|_| !self.shutdown) {
            Some(at) => crossbeam_channel::at(at),
            None => crossbeam_channel::never(),
        };
        let never = crossbeam_channel::never();
        let disk = self.own_watch.as_ref().map_or(&never, OwnWatch::changed);
        let never_looked = crossbeam_channel::never();
        let looked = self
            .disk_look
            .as_ref()
            .map_or(&never_looked, DiskLook::done);
        let look_at = match self.look_at.filter(|_| !self.shutdown) {
            Some(at) => crossbeam_channel::at(at),
            None => crossbeam_channel::never(),
        };
        crossbeam_channel::select! {
            recv(self.connection.receiver) -> message => match message {
                Ok(message) => Woke::Message(message),
                Err(_) => Woke::Gone,
            },
            recv(load_ahead) -> _ => Woke::LoadAhead,
            // A watch whose thread ended wakes here at once: `take_disk_news` then drops it.
            // What changed is the watch's to tell (`take_disk_news`), not the message's.
            recv(disk) -> _ => Woke::Disk,
            // What the look found is the look's to tell (`take_look`), not the message's.
            recv(looked) -> _ => Woke::Looked,
            recv(look_at) -> _ => Woke::LookAt,
        }
    }

    /// What the server's own watch saw since it was last asked, acted on: files written in
    /// place are read again alone, another change forgets what was read of the disk; a watch
    /// that failed is dropped, and nothing read is kept from then on. `true`: the tree is to
    /// be checked again.
    fn take_disk_news(&mut self) -> bool {
        let Some(watch) = &self.own_watch else {
            return false;
        };
        match watch.take() {
            DiskNews::Nothing => return false,
            DiskNews::Written(paths) => {
                self.workspace.files_changed_in_place(&paths);
                self.dirty = true;
            }
            DiskNews::Changed => self.disk_changed(),
            DiskNews::Failed(why) => {
                (self.log)(&format!(
                    "pbc lsp: {why}: the server looks at the tree's files again after each check"
                ));
                self.own_watch = None;
                // What was kept under the watch may have changed unseen.
                self.workspace.keep_disk(true);
                self.dirty = true;
            }
        }
        true
    }

    /// Whether nothing tells the server of every change to the tree's files: neither the
    /// editor nor its own watch, or the setting `watch` is off (once the editor has answered
    /// whether it watches).
    fn looks_at_disk(&self) -> bool {
        let watched = self.watch && (self.editor_watches || self.own_watch.is_some());
        !watched && self.awaiting_watch.is_none()
    }

    /// Starts a look at the disk behind the check just published, or, while one is under
    /// way, another after it.
    fn look_at_disk(&mut self) {
        if self.disk_look.is_some() {
            self.look_again = true;
            return;
        }
        self.look_again = false;
        self.disk_look = self.workspace.look_at_disk();
        if self.disk_look.is_none() {
            // No thread to look with: nothing kept can be trusted.
            (self.log)("pbc lsp: cannot start a thread to look at the tree's files: each check lists and reads them again");
            self.workspace.files_changed();
        }
    }

    /// What the look at the disk found, acted on: for a disk that is not as kept, what the
    /// look read is kept instead, and the tree is checked again. A look at what was kept
    /// before a change, or while a watch has begun since, is not acted on.
    fn take_look(&mut self) {
        let Some(look) = self.disk_look.take() else {
            return;
        };
        let Some(looked) = look.take() else {
            self.disk_look = Some(look);
            return;
        };
        if !self.looks_at_disk() || !self.workspace.keeps(look.of()) {
            return;
        }
        match looked {
            Looked::Agrees if self.look_again => self.look_at_disk(),
            Looked::Agrees => {}
            Looked::Disagrees(read) => {
                self.workspace.adopt_disk(read);
                self.dirty = true;
            }
            Looked::Failed => {
                (self.log)("pbc lsp: the look at the tree's files ended without a word (a bug in pbc): what was read is read again");
                self.disk_changed();
            }
        }
    }

    fn disk_changed(&mut self) {
        self.workspace.files_changed();
        self.dirty = true;
    }

    /// Starts the server's own watch of the tree's files, where the setting allows it and links
    /// do not lead out of the tree; while it runs, what is read is kept between checks.
    fn watch_ourselves(&mut self) {
        // A tree that is gone has nothing to watch: its check says so.
        if !self.watch
            || self.workspace.follows_links()
            || self.own_watch.is_some()
            || !self.workspace.root().is_dir()
        {
            return;
        }
        match OwnWatch::start(self.workspace.root()) {
            Ok(watch) => {
                self.own_watch = Some(watch);
                self.workspace.keep_disk(true);
            }
            Err(why) => (self.log)(&format!(
                "pbc lsp: {why}: the server looks at them again after each check"
            )),
        }
    }

    /// The diagnostics of what changed since they were last published, published; `false`
    /// when the editor is gone. Once they are, and the editor stays quiet for
    /// [`LOAD_AHEAD_AFTER`], a tree loaded for hovers before the change is loaded again.
    fn catch_up(&mut self) -> bool {
        // A change the watch saw is checked with the rest, not after them.
        self.take_disk_news();
        if !self.dirty || self.shutdown {
            return true;
        }
        self.await_watch_answer();
        self.dirty = false;
        // Where nothing watches the disk, what is read is kept all the same, and a look at the
        // disk follows each check that used anything kept.
        let look_after = self.looks_at_disk() && {
            if !self.workspace.keeps_disk() {
                self.workspace.keep_disk(true);
            }
            !self.workspace.disk_kept_is_empty()
        };
        let published = self.publish_diagnostics();
        if look_after {
            self.look_at = Some(std::time::Instant::now() + LOOK_AFTER);
        }
        self.load_ahead_at = self
            .workspace
            .loaded_tree_is_stale()
            .then(|| std::time::Instant::now() + LOAD_AHEAD_AFTER);
        published
    }

    /// The editor's answer to [`WATCH_REQUEST`], when it was asked and has not answered: taken
    /// from the messages read ahead, else waited for. What comes meanwhile is kept, in order,
    /// to be handled after the check.
    fn await_watch_answer(&mut self) {
        let Some(asked) = self.awaiting_watch else {
            return;
        };
        let watch = watch_request_id();
        let is_answer = |m: &Message| matches!(m, Message::Response(r) if r.id == watch);
        if let Some(at) = self.arrived.iter().position(is_answer) {
            if let Some(Message::Response(response)) = self.arrived.remove(at) {
                self.answered(response);
            }
            return;
        }
        loop {
            let left = WATCH_ANSWER_WAIT.saturating_sub(asked.elapsed());
            match self.connection.receiver.recv_timeout(left) {
                Ok(Message::Response(response)) if response.id == watch => {
                    self.answered(response);
                    return;
                }
                Ok(Message::Notification(n)) if n.method == note::Cancel::METHOD => self.cancel(&n),
                Ok(other) => self.arrived.push_back(other),
                // No answer in time, or the editor is gone (the next read says so): the check
                // goes on with the server's own watch.
                Err(_) => {
                    self.awaiting_watch = None;
                    self.watch_ourselves();
                    return;
                }
            }
        }
    }

    /// Every message that has come, read ahead: the cancellations among them noted.
    fn read_ahead(&mut self) {
        while let Ok(message) = self.connection.receiver.try_recv() {
            match message {
                Message::Notification(n) if n.method == note::Cancel::METHOD => self.cancel(&n),
                other => self.arrived.push_back(other),
            }
        }
    }

    /// The next message that has come, if any, without waiting.
    fn next_arrived(&mut self) -> Option<Message> {
        if self.arrived.is_empty() {
            self.read_ahead();
        }
        self.arrived.pop_front()
    }

    /// `$/cancelRequest`: the request is answered `RequestCancelled` if it is not answered
    /// yet. Ids the session never answers are forgotten past a bound: a client cannot grow
    /// the set without end.
    fn cancel(&mut self, n: &Notification) {
        let Ok(params) = serde_json::from_value::<lsp_types::CancelParams>(n.params.clone()) else {
            return;
        };
        let id = match params.id {
            lsp_types::NumberOrString::Number(n) => RequestId::from(n),
            lsp_types::NumberOrString::String(s) => RequestId::from(s),
        };
        if self.cancelled.len() >= MOST_CANCELLED {
            self.cancelled.clear();
        }
        self.cancelled.insert(id);
    }

    /// One message handled; `Some` when the session is over.
    fn handle(&mut self, message: Message) -> Option<Ended> {
        match message {
            Message::Notification(n) if n.method == note::Cancel::METHOD => self.cancel(&n),
            Message::Request(request) => {
                // A request is answered from the tree as changed so far, and after the
                // diagnostics of those changes: an editor never sees an answer that is newer
                // than the diagnostics it shows.
                if !self.catch_up() {
                    return Some(Ended::WithoutShutdown);
                }
                // A request the editor cancelled while the tree was checked is not answered
                // from it.
                self.read_ahead();
                let answer = if self.cancelled.remove(&request.id) {
                    Response::new_err(
                        request.id,
                        ErrorCode::RequestCanceled as i32,
                        "the editor cancelled the request".to_string(),
                    )
                } else if self.shutdown {
                    Response::new_err(
                        request.id,
                        ErrorCode::InvalidRequest as i32,
                        "the server is shutting down".to_string(),
                    )
                } else {
                    self.answer(request)
                };
                if !self.send(answer.into()) {
                    return Some(Ended::WithoutShutdown);
                }
            }
            Message::Notification(n) if n.method == note::Exit::METHOD => {
                return Some(if self.shutdown {
                    Ended::Clean
                } else {
                    Ended::WithoutShutdown
                });
            }
            Message::Notification(n) => self.notified(n),
            Message::Response(response) => self.answered(response),
        }
        None
    }

    fn answer(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        // A bug in pbc answers this request with an error; the session goes on.
        let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.answer_request(request)
        }));
        match answered {
            Ok(Ok(value)) => Response::new_ok(id, value),
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(_) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                "pbc failed on this request (a bug in pbc; its log says more)".to_string(),
            ),
        }
    }

    fn answer_request(
        &mut self,
        request: Request,
    ) -> Result<serde_json::Value, (ErrorCode, String)> {
        match request.method.as_str() {
            req::Shutdown::METHOD => {
                self.shutdown = true;
                Ok(serde_json::Value::Null)
            }
            req::Initialize::METHOD => Err((
                ErrorCode::InvalidRequest,
                "the server is already initialized".to_string(),
            )),
            req::DocumentSymbolRequest::METHOD => {
                let params: DocumentSymbolParams = params(request)?;
                let path = file_path(&params.text_document.uri)?;
                let symbols = if is_manifest(&path) {
                    let text = self
                        .workspace
                        .text(&path)
                        .map_err(|e| (ErrorCode::RequestFailed, e))?;
                    super::document_symbols(&text, self.workspace.encoding)
                } else {
                    Vec::new()
                };
                to_value(DocumentSymbolResponse::Nested(symbols))
            }
            req::HoverRequest::METHOD => {
                let params: lsp_types::HoverParams = params(request)?;
                let at = params.text_document_position_params;
                let path = file_path(&at.text_document.uri)?;
                to_value(self.workspace.hover(&path, at.position))
            }
            req::GotoDefinition::METHOD => {
                let params: lsp_types::GotoDefinitionParams = params(request)?;
                let at = params.text_document_position_params;
                let path = file_path(&at.text_document.uri)?;
                let locations = self.workspace.definition(&path, at.position);
                to_value(lsp_types::GotoDefinitionResponse::Array(locations))
            }
            req::Completion::METHOD => {
                let params: lsp_types::CompletionParams = params(request)?;
                let at = params.text_document_position;
                let path = file_path(&at.text_document.uri)?;
                to_value(
                    self.workspace
                        .completion(&path, at.position)
                        .map(lsp_types::CompletionResponse::List),
                )
            }
            req::References::METHOD => {
                let params: lsp_types::ReferenceParams = params(request)?;
                let at = params.text_document_position;
                let path = file_path(&at.text_document.uri)?;
                to_value(self.workspace.references(
                    &path,
                    at.position,
                    params.context.include_declaration,
                ))
            }
            req::WorkspaceSymbolRequest::METHOD => {
                let params: lsp_types::WorkspaceSymbolParams = params(request)?;
                let symbols = self
                    .workspace
                    .workspace_symbols(&params.query)
                    .map_err(|e| (ErrorCode::RequestFailed, e))?;
                to_value(lsp_types::WorkspaceSymbolResponse::Flat(symbols))
            }
            req::CodeActionRequest::METHOD => {
                let params: lsp_types::CodeActionParams = params(request)?;
                let path = file_path(&params.text_document.uri)?;
                let published = self.published.get(&path).map_or(&[][..], |(_, d)| d);
                let wanted = params.context.only.as_ref().is_none_or(|only| {
                    only.iter().any(|k| {
                        k.as_str() == lsp_types::CodeActionKind::QUICKFIX.as_str()
                            || lsp_types::CodeActionKind::QUICKFIX
                                .as_str()
                                .starts_with(&format!("{}.", k.as_str()))
                    })
                });
                let actions = if wanted {
                    super::quick_fixes(&params.text_document.uri, published, params.range)
                } else {
                    Vec::new()
                };
                to_value(actions)
            }
            req::Formatting::METHOD => {
                let params: lsp_types::DocumentFormattingParams = params(request)?;
                let path = file_path(&params.text_document.uri)?;
                let edits = self
                    .workspace
                    .formatting(&path)
                    .map_err(|e| (ErrorCode::RequestFailed, e))?;
                to_value(edits)
            }
            EXPLAIN_METHOD => {
                let params: ExplainParams = params(request)?;
                let explained = self
                    .workspace
                    .explain(&params.key, true, params.node.as_deref());
                match serde_json::from_str::<serde_json::Value>(&explained.explanation) {
                    Ok(json) => Ok(json),
                    Err(_) => Err((ErrorCode::RequestFailed, explained.said)),
                }
            }
            other => Err((
                ErrorCode::MethodNotFound,
                format!("pbc lsp does not answer `{other}`"),
            )),
        }
    }

    /// The editor's answer to a request of the server's: once it watches the tree's files
    /// for the server, what was listed and read of them is kept from one check to the next.
    /// Changes on disk before the watch began are not told: nothing read before is kept.
    fn answered(&mut self, response: Response) {
        if response.id == watch_request_id() {
            self.awaiting_watch = None;
            match response.response_result.err() {
                None => {
                    self.editor_watches = true;
                    if self.watch {
                        // An answer after the wait: the server's own watch is no longer needed.
                        self.own_watch = None;
                        self.workspace.keep_disk(true);
                    }
                }
                Some(error) => {
                    self.watch_ourselves();
                    let instead = if self.own_watch.is_some() {
                        "the server watches them"
                    } else {
                        "each check lists and reads them again"
                    };
                    (self.log)(&format!(
                        "pbc lsp: the editor does not watch the tree's files ({}): {instead}",
                        error.message
                    ));
                }
            }
        }
    }

    /// Asks the editor to tell of every change to the tree's files on disk.
    fn watch_the_tree(&mut self) -> bool {
        let params = lsp_types::RegistrationParams {
            registrations: vec![lsp_types::Registration {
                id: WATCH_REQUEST.to_string(),
                method: note::DidChangeWatchedFiles::METHOD.to_string(),
                register_options: serde_json::to_value(
                    lsp_types::DidChangeWatchedFilesRegistrationOptions {
                        watchers: vec![lsp_types::FileSystemWatcher {
                            glob_pattern: lsp_types::GlobPattern::String("**/*".to_string()),
                            kind: None,
                        }],
                    },
                )
                .ok(),
            }],
        };
        let request = Request::new(
            watch_request_id(),
            req::RegisterCapability::METHOD.to_string(),
            params,
        );
        self.send(request.into())
    }

    fn notified(&mut self, n: Notification) {
        let method = n.method.clone();
        if method == note::Initialized::METHOD && self.can_watch {
            self.can_watch = false;
            if self.watch_the_tree() {
                self.awaiting_watch = Some(std::time::Instant::now());
            } else {
                (self.log)("pbc lsp: the editor is gone");
            }
            return;
        }
        let handled = match method.as_str() {
            note::DidOpenTextDocument::METHOD => notification::<DidOpenTextDocumentParams>(n)
                .and_then(|p| {
                    let path = file_path(&p.text_document.uri).map_err(|e| e.1)?;
                    self.workspace
                        .set_text(path, p.text_document.text, p.text_document.version);
                    Ok(())
                }),
            note::DidChangeTextDocument::METHOD => {
                notification::<DidChangeTextDocumentParams>(n).and_then(|p| self.changed(p))
            }
            note::DidCloseTextDocument::METHOD => notification::<DidCloseTextDocumentParams>(n)
                .and_then(|p| {
                    let path = file_path(&p.text_document.uri).map_err(|e| e.1)?;
                    self.workspace.close(&path);
                    Ok(())
                }),
            note::DidChangeConfiguration::METHOD => notification::<DidChangeConfigurationParams>(n)
                .map(|p| {
                    apply_settings(&mut self.workspace, &p.settings);
                    if let Some(watch) = watch_setting(&p.settings) {
                        self.set_watch(watch);
                    }
                }),
            // A save is told by the watch, the editor's or the server's own: told twice, it
            // would be checked twice. The buffer's text, not the file's, is what the checks
            // read until the buffer closes.
            note::DidSaveTextDocument::METHOD
                if self.own_watch.is_some() || self.editor_watches =>
            {
                Ok(())
            }
            // Without a watch, the file saved is read again (alone where it can be), and the
            // look after the check sees any other change.
            note::DidSaveTextDocument::METHOD => {
                match notification::<lsp_types::DidSaveTextDocumentParams>(n)
                    .ok()
                    .and_then(|p| file_path(&p.text_document.uri).ok())
                {
                    Some(path) => self.workspace.files_changed_in_place(&[path]),
                    None => self.workspace.files_changed(),
                }
                Ok(())
            }
            note::DidChangeWatchedFiles::METHOD => {
                match notification::<lsp_types::DidChangeWatchedFilesParams>(n) {
                    // Only the repository's records changed: nothing to check again.
                    Ok(p) if !self.files_changed_on_disk(&p.changes) => return,
                    other => other.map(|_| ()),
                }
            }
            // Everything else (`initialized`) needs nothing.
            _ => return,
        };
        match handled {
            Ok(()) => self.dirty = true,
            Err(why) => (self.log)(&format!("pbc lsp: {method}: {why}")),
        }
    }

    /// What the editor's watch tells of the files on disk: files written over in place are
    /// read again alone (a save: what the next check lists and reads is otherwise the whole
    /// tree again); a file made or removed, or one the editor names that was not read by that
    /// path, makes the next check and the next hover list and read everything again. The
    /// repository's own records (`.git`) are none of the tree's files. `false`: nothing of the
    /// tree changed.
    fn files_changed_on_disk(&mut self, changes: &[lsp_types::FileEvent]) -> bool {
        let root = self.workspace.root().to_path_buf();
        let mut in_place = Vec::new();
        for change in changes {
            let Ok(path) = file_path(&change.uri) else {
                self.workspace.files_changed();
                return true;
            };
            let in_git_records = path.strip_prefix(&root).is_ok_and(|below| {
                below
                    .components()
                    .any(|c| c.as_os_str() == std::ffi::OsStr::new(".git"))
            });
            if in_git_records {
                continue;
            }
            if change.typ != lsp_types::FileChangeType::CHANGED {
                self.workspace.files_changed();
                return true;
            }
            in_place.push(path);
        }
        if in_place.is_empty() {
            return false;
        }
        self.workspace.files_changed_in_place(&in_place);
        true
    }

    /// The setting `watch` changed: off, nothing read is kept and the server's own watch
    /// ends; on, what is read is kept again, told of changes by the editor if it watches, else
    /// by the server's own watch.
    fn set_watch(&mut self, watch: bool) {
        if watch == self.watch {
            return;
        }
        self.watch = watch;
        if !watch {
            self.own_watch = None;
            // Nothing read under the watch is trusted; what is read from now on is looked at
            // again after each check.
            self.workspace.keep_disk(true);
        } else if self.editor_watches {
            self.workspace.keep_disk(true);
        } else if self.awaiting_watch.is_none() {
            self.watch_ourselves();
        }
    }

    /// A buffer's changes applied in order: each replaces a range, or the whole text.
    fn changed(&mut self, p: DidChangeTextDocumentParams) -> Result<(), String> {
        let path = file_path(&p.text_document.uri).map_err(|e| e.1)?;
        let Some(doc) = self.workspace.document(&path) else {
            return Err(format!("`{}` changed but was never opened", path.display()));
        };
        let mut text = doc.text.to_string();
        for change in p.content_changes {
            match change.range {
                None => text = change.text,
                Some(range) => {
                    let index = LineIndex::new(&text);
                    let start = index.offset(range.start, self.workspace.encoding);
                    let end = index.offset(range.end, self.workspace.encoding).max(start);
                    text.replace_range(start..end, &change.text);
                }
            }
        }
        self.workspace.set_text(path, text, p.text_document.version);
        Ok(())
    }

    /// The tree checked with the open buffers, and every file's diagnostics sent (empty for a
    /// file that had some and has none now). `false` when the editor is gone.
    fn publish_diagnostics(&mut self) -> bool {
        let mut checks = 0;
        let checked = loop {
            let checked =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.workspace.check()))
                    .unwrap_or_else(|_| {
                        Err(
                            "pbc failed checking the tree (a bug in pbc; its log says more)"
                                .to_string(),
                        )
                    });
            checks += 1;
            // A check that met the disk changing under it (a file listed, then removed, as
            // in a `git checkout`) fails for a tree that no longer is: the change it met is
            // told, and the tree as it now is checked instead.
            if checked.is_err() && checks < MOST_CHECKS_PER_CHANGE && self.take_disk_news() {
                continue;
            }
            break checked;
        };
        // Every change told so far is in the check.
        self.dirty = false;
        let checked = match checked {
            Ok(checked) => checked,
            Err(why) => {
                (self.log)(&why);
                return self.show(MessageType::ERROR, why);
            }
        };
        let mut now = BTreeMap::new();
        for file in checked.files {
            now.insert(file.path, (file.version, file.diagnostics));
        }
        let before = std::mem::take(&mut self.published);
        // Every file the check lists has diagnostics: one it no longer lists has none left.
        for path in before.keys().filter(|p| !now.contains_key(*p)) {
            let version = self.workspace.document(path).map(|d| d.version);
            if !self.publish(path, version, Vec::new()) {
                return false;
            }
        }
        for (path, (version, diagnostics)) in &now {
            let unchanged = before
                .get(path)
                .is_some_and(|(v, d)| v == version && d == diagnostics);
            if !unchanged && !self.publish(path, *version, diagnostics.clone()) {
                return false;
            }
        }
        self.published = now;
        if checked.without_place != self.without_place {
            self.without_place = checked.without_place;
            if !self.without_place.is_empty() {
                let text = self.without_place.join("\n");
                return self.show(MessageType::WARNING, text);
            }
        }
        true
    }

    /// `true` also for a path that has no URI (nothing can be sent for it).
    fn publish(
        &self,
        path: &Path,
        version: Option<i32>,
        diagnostics: Vec<lsp_types::Diagnostic>,
    ) -> bool {
        let Some(uri) = uri_of(path) else {
            return true;
        };
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.send(Notification::new(note::PublishDiagnostics::METHOD.to_string(), params).into())
    }

    fn show(&self, typ: MessageType, message: String) -> bool {
        let params = ShowMessageParams { typ, message };
        self.send(Notification::new(note::ShowMessage::METHOD.to_string(), params).into())
    }
}

fn params<P: serde::de::DeserializeOwned>(request: Request) -> Result<P, (ErrorCode, String)> {
    serde_json::from_value(request.params)
        .map_err(|e| (ErrorCode::InvalidParams, format!("{}: {e}", request.method)))
}

fn notification<P: serde::de::DeserializeOwned>(n: Notification) -> Result<P, String> {
    serde_json::from_value(n.params).map_err(|e| format!("invalid parameters: {e}"))
}

fn to_value(value: impl serde::Serialize) -> Result<serde_json::Value, (ErrorCode, String)> {
    serde_json::to_value(value).map_err(|e| (ErrorCode::InternalError, e.to_string()))
}

/// The local file a URI names; pbc reads no other.
fn file_path(uri: &Uri) -> Result<PathBuf, (ErrorCode, String)> {
    uri_to_path(uri.as_str()).ok_or_else(|| {
        (
            ErrorCode::InvalidParams,
            format!("`{}` is not a local file", uri.as_str()),
        )
    })
}

fn is_manifest(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "pp")
}
