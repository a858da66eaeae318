//! `pbc lsp` driven through the protocol: in-process over channels (every message the server
//! sends, snapshotted with the tree's place replaced by `<root>`), and the `pbc` binary over
//! its stdin and stdout, as an editor runs it.

use crate::common::snapshot_settings;
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use puppet_bindings::ide::server::{run, Ended};
use puppet_bindings::ide::text::path_to_uri;
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// An editor's side of a session with a server running on a thread of its own.
struct Editor {
    connection: Connection,
    server: Option<std::thread::JoinHandle<(Ended, Vec<String>)>>,
    root: PathBuf,
    next_id: i32,
}

impl Editor {
    /// A server for `root`, not yet initialized.
    fn start(root: &Path) -> Editor {
        let root = std::fs::canonicalize(root).expect("the tree exists");
        let (server_side, connection) = Connection::memory();
        let fallback = root.clone();
        let server = std::thread::spawn(move || {
            let mut log = Vec::new();
            let ended = run(&server_side, Default::default(), &fallback, &mut |line| {
                log.push(line.to_string())
            });
            (ended, log)
        });
        Editor {
            connection,
            server: Some(server),
            root,
            next_id: 0,
        }
    }

    /// A server for `root`, initialized with `initialization_options`; the messages it sent
    /// after `initialized` (the tree's first diagnostics, at least one).
    fn initialized(root: &Path, initialization_options: Value) -> (Editor, Vec<Value>) {
        let (editor, first) = Editor::initialized_quietly(root, initialization_options);
        assert!(!first.is_empty(), "diagnostics");
        (editor, first)
    }

    /// [`Editor::initialized`] for a tree that may have no diagnostics: a request answered
    /// after the first check shows when it is done.
    fn initialized_quietly(root: &Path, initialization_options: Value) -> (Editor, Vec<Value>) {
        let mut editor = Editor::start(root);
        let root_uri = path_to_uri(&editor.root);
        let answer = editor.request(
            "initialize",
            json!({
                "capabilities": {},
                "rootUri": root_uri,
                "initializationOptions": initialization_options,
            }),
        );
        assert_eq!(answer["serverInfo"]["name"], "pbc", "{answer}");
        editor.notify("initialized", json!({}));
        let first = editor.published_so_far();
        (editor, first)
    }

    fn uri(&self, relative: &str) -> String {
        path_to_uri(&self.root.join(relative))
    }

    fn send(&self, message: Message) {
        self.connection
            .sender
            .send(message)
            .expect("the server is listening");
    }

    fn notify(&self, method: &str, params: Value) {
        self.send(Notification::new(method.to_string(), params).into());
    }

    /// The answer to a request (its result, or its error as `{"error": ...}`); notifications
    /// that come before it are left for [`Editor::published_so_far`]... except that this
    /// asserts none come, so that a test sees every message.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.send(Request::new(id.clone(), method.to_string(), params).into());
        match self.receive() {
            Some(Message::Response(Response {
                id: got,
                response_result,
            })) => {
                assert_eq!(got, id);
                match response_result {
                    Ok(result) => result,
                    Err(error) => json!({"error": {"code": error.code, "message": error.message}}),
                }
            }
            other => panic!("{method}: expected its answer, got {other:?}"),
        }
    }

    fn receive(&self) -> Option<Message> {
        self.connection
            .receiver
            .recv_timeout(Duration::from_secs(60))
            .ok()
    }

    /// Every message the server sends before it answers a request sent now, as JSON with the
    /// tree's place written `<root>`: the server publishes the diagnostics of every change
    /// before it answers the next request.
    fn published_so_far(&mut self) -> Vec<Value> {
        self.next_id += 1;
        let id = RequestId::from(format!("sync-{}", self.next_id));
        self.send(Request::new(id.clone(), "pbc/testSync".to_string(), Value::Null).into());
        let mut out = Vec::new();
        loop {
            match self.receive() {
                Some(Message::Response(r)) if r.id == id => return out,
                Some(message) => out.push(self.portable(&message)),
                None => panic!("no answer to the sync request; so far: {out:#?}"),
            }
        }
    }

    /// The diagnostics next published for `relative`, skipping every other notification: for
    /// what the server publishes with no word from the editor (its watch, its look at the
    /// disk). Any other message fails the test.
    fn next_published_for(&self, relative: &str) -> Vec<Value> {
        loop {
            match self.receive() {
                Some(Message::Notification(n))
                    if n.method == "textDocument/publishDiagnostics"
                        && n.params["uri"] == self.uri(relative).as_str() =>
                {
                    return n.params["diagnostics"]
                        .as_array()
                        .cloned()
                        .unwrap_or_default();
                }
                Some(Message::Notification(_)) => {}
                other => panic!("{relative}: nothing published, got {other:?}"),
            }
        }
    }

    fn portable(&self, message: &Message) -> Value {
        let text = serde_json::to_string(message).expect("a message is JSON");
        let text = text.replace(&path_to_uri(&self.root), "<root>");
        serde_json::from_str(&text).expect("still JSON")
    }

    /// `shutdown` and `exit`, and how the server says the session ended, with its log.
    fn finish(mut self) -> (Ended, Vec<String>) {
        let answer = self.request("shutdown", Value::Null);
        assert_eq!(answer, Value::Null);
        self.notify("exit", Value::Null);
        self.join()
    }

    fn join(&mut self) -> (Ended, Vec<String>) {
        self.server
            .take()
            .expect("joined once")
            .join()
            .expect("the server does not panic")
    }
}

fn tree(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus/check/trees")
        .join(name)
}

fn did_open(editor: &Editor, relative: &str, text: &str) {
    editor.notify(
        "textDocument/didOpen",
        json!({"textDocument": {
            "uri": editor.uri(relative), "languageId": "puppet", "version": 1, "text": text
        }}),
    );
}

/// The open buffer of `relative` given the whole of `text`, as its `version`.
fn did_change(editor: &Editor, relative: &str, version: i32, text: &str) {
    editor.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": editor.uri(relative), "version": version},
            "contentChanges": [{"text": text}],
        }),
    );
}

/// What each item of a completion answer has at `pointer` (`/label`, `/textEdit/newText`).
fn completion_items(answer: &Value, pointer: &str) -> Vec<String> {
    answer["items"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|i| {
            i.pointer(pointer)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

fn snapshot(name: &str, value: &Value) {
    let pretty = serde_json::to_string_pretty(value).expect("JSON");
    snapshot_settings().bind(|| insta::assert_snapshot!(name, pretty));
}

/// The tree's diagnostics at start, then as the buffers change: an unsaved fix in the site
/// clears the finding it caused, a range edit brings it back (with the buffer's version), and
/// closing the buffer goes back to the file on disk.
#[test]
fn diagnostics_follow_the_buffers_the_editor_holds() {
    let (mut editor, first) = Editor::initialized(&tree("category_typo"), Value::Null);
    snapshot("lsp@first_diagnostics", &json!(first));
    let site = "manifests/site.pp";
    let on_disk = std::fs::read_to_string(editor.root.join(site)).expect("site.pp");
    assert!(on_disk.contains("osfamly"));
    did_open(&editor, site, &on_disk.replace("osfamly", "osfamily"));
    snapshot("lsp@buffer_fixed", &json!(editor.published_so_far()));
    // The typo back, as an edit of its range (line 4, `osfamily` at column 15: `i` removed).
    editor.notify(
        "textDocument/didChange",
        json!({
            "textDocument": {"uri": editor.uri(site), "version": 2},
            "contentChanges": [{
                "range": {"start": {"line": 3, "character": 20}, "end": {"line": 3, "character": 21}},
                "text": ""
            }]
        }),
    );
    let changed = editor.published_so_far();
    snapshot("lsp@buffer_broken_again", &json!(changed));
    let site_uri = "<root>/manifests/site.pp";
    let site_diagnostics = changed
        .iter()
        .find(|m| m["params"]["uri"] == site_uri)
        .expect("the site's diagnostics");
    assert_eq!(site_diagnostics["params"]["version"], 2);
    assert_eq!(
        site_diagnostics["params"]["diagnostics"][0]["code"],
        "UNKNOWN_CATEGORY"
    );
    // Closed: the file on disk (with the typo) again, unversioned; the other file's list has
    // not changed and is not sent again.
    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": editor.uri(site)}}),
    );
    let closed = editor.published_so_far();
    assert_eq!(closed.len(), 1, "{closed:#?}");
    let first_site = first.iter().find(|m| m["params"]["uri"] == site_uri);
    assert_eq!(Some(&closed[0]), first_site, "{closed:#?}");
    let (ended, log) = editor.finish();
    assert_eq!(ended, Ended::Clean);
    assert!(log.is_empty(), "{log:?}");
}

/// `strict` (in `initializationOptions` or a configuration change) makes warnings errors, as
/// `pbc check --strict` does.
#[test]
fn the_strict_setting_makes_warnings_errors() {
    let severities = |messages: &[Value]| -> Vec<i64> {
        messages
            .iter()
            .flat_map(|m| {
                m["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter_map(|d| d["severity"].as_i64())
            .collect()
    };
    let (mut editor, first) = Editor::initialized(&tree("include_typo"), Value::Null);
    assert_eq!(severities(&first), [2, 2], "two warnings: {first:#?}");
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"pbc": {"strict": true}}}),
    );
    let strict = editor.published_so_far();
    assert_eq!(severities(&strict), [1, 1], "{strict:#?}");
    assert_eq!(editor.finish().0, Ended::Clean);
    let (editor, first) = Editor::initialized(&tree("include_typo"), json!({"strict": true}));
    assert_eq!(severities(&first), [1, 1], "{first:#?}");
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// The outline of a site (environments, categories, layers), of a bindings file (blocks,
/// `when`s, keys), and of a file with a syntax error (what parsed before it).
#[test]
fn document_symbols_outline_sites_and_bindings() {
    let (mut editor, first) = Editor::initialized_quietly(&tree("valid_confdir"), Value::Null);
    assert!(first.is_empty(), "a clean tree: {first:#?}");
    let mut outlines = serde_json::Map::new();
    for file in [
        "environments.pp",
        "master/manifests/site.pp",
        "master/modules/site/ntp/bindings/default.pp",
        "master/modules/site/ntp/manifests/init.pp",
    ] {
        let answer = editor.request(
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": editor.uri(file)}}),
        );
        outlines.insert(file.to_string(), answer);
    }
    let broken = "bindings/default.pp";
    did_open(
        &editor,
        broken,
        "bindings default {\n  bind 'a' to 1\n  when virtual true { bind 'b' to 2 }\n}\nclass c { }\nbind oops to\n",
    );
    let _ = editor.published_so_far();
    let answer = editor.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": editor.uri(broken)}}),
    );
    outlines.insert(format!("{broken} (unsaved, with an error)"), answer);
    snapshot("lsp@document_symbols", &Value::Object(outlines));
    // Across the tree (the buffer above names no file of it: the walk finds what is on disk).
    let found = editor.request("workspace/symbol", json!({"query": "NTP"}));
    snapshot("lsp@workspace_symbols", &editor.portable_value(found));
    let all = editor.request("workspace/symbol", json!({"query": ""}));
    let names: Vec<&str> = all
        .as_array()
        .map(|a| a.iter().filter_map(|s| s["name"].as_str()).collect())
        .unwrap_or_default();
    for name in ["production", "virtual", "Mary", "ntp::load_balanced"] {
        assert!(names.contains(&name), "{name}: {names:?}");
    }
    assert!(!names.contains(&"b"), "{names:?}");
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// What the protocol forbids gets the error it names, and the session goes on: a request
/// before `initialize`, a second `initialize`, an unknown method, parameters of the wrong
/// shape, a file that is not local or does not exist, a request after `shutdown`. An `exit`
/// without `shutdown` ends the session as not clean.
#[test]
fn protocol_errors_are_answered_and_the_session_goes_on() {
    let mut editor = Editor::start(&tree("category_typo"));
    let early = editor.request("textDocument/documentSymbol", json!({}));
    assert_eq!(early["error"]["code"], -32002, "{early}");
    let answer = editor.request("initialize", json!({"capabilities": {}}));
    assert_eq!(answer["capabilities"]["positionEncoding"], "utf-16");
    editor.notify("initialized", json!({}));
    let _ = editor.published_so_far();
    let mut errors = serde_json::Map::new();
    for (what, method, params) in [
        (
            "second initialize",
            "initialize",
            json!({"capabilities": {}}),
        ),
        (
            "unknown method",
            "textDocument/semanticTokens/full",
            json!({}),
        ),
        (
            "wrong shape",
            "textDocument/documentSymbol",
            json!({"textDocument": 3}),
        ),
        (
            "not a local file",
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": "untitled:Untitled-1"}}),
        ),
        (
            "no such file",
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": editor.uri("manifests/nothing.pp")}}),
        ),
        (
            "a file outside the tree",
            "textDocument/documentSymbol",
            json!({"textDocument": {"uri": editor.uri("../valid_confdir/environments.pp")}}),
        ),
    ] {
        let answer = editor.request(method, params);
        errors.insert(what.to_string(), editor.portable_value(answer));
    }
    // A notification of the wrong shape is logged, not answered.
    editor.notify("textDocument/didOpen", json!({"textDocument": "x"}));
    let answer = editor.request("shutdown", Value::Null);
    assert_eq!(answer, Value::Null);
    let after = editor.request("textDocument/documentSymbol", json!({}));
    errors.insert("after shutdown".to_string(), after);
    snapshot("lsp@protocol_errors", &Value::Object(errors));
    editor.notify("exit", Value::Null);
    let (ended, log) = editor.join();
    assert_eq!(ended, Ended::Clean);
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(log[0].starts_with("pbc lsp: textDocument/didOpen: invalid parameters"));

    let mut editor = Editor::start(&tree("category_typo"));
    let _ = editor.request("initialize", json!({"capabilities": {}}));
    editor.notify("exit", Value::Null);
    assert_eq!(editor.join().0, Ended::WithoutShutdown);
}

/// A client that offers UTF-8 positions gets them: columns count bytes, not UTF-16 units.
#[test]
fn positions_are_in_the_encoding_agreed() {
    let mut editor = Editor::start(&tree("category_typo"));
    let answer = editor.request(
        "initialize",
        json!({"capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}}}),
    );
    assert_eq!(answer["capabilities"]["positionEncoding"], "utf-8");
    editor.notify("initialized", json!({}));
    let _ = editor.published_so_far();
    let site = "manifests/site.pp";
    // Two-byte characters before the typo: UTF-16 would count two columns fewer.
    let text = "site {\n  /* éé */ categories { osfamly => $facts['os']['family'] }\n}\n";
    did_open(&editor, site, text);
    let messages = editor.published_so_far();
    let on_site: Vec<&Value> = messages
        .iter()
        .filter(|m| m["params"]["uri"] == "<root>/manifests/site.pp")
        .collect();
    assert_eq!(on_site.len(), 1, "{messages:#?}");
    let typo = &on_site[0]["params"]["diagnostics"][0];
    assert_eq!(typo["code"], "UNKNOWN_CATEGORY", "{messages:#?}");
    let line_start = text.find('\n').unwrap_or_default() + 1;
    let column = text.find("osfamly").unwrap_or_default() - line_start;
    assert_eq!(
        typo["range"]["start"],
        json!({"line": 1, "character": column})
    );
    let _ = editor.finish();
}

impl Editor {
    fn portable_value(&self, value: Value) -> Value {
        let text = value
            .to_string()
            .replace(&path_to_uri(&self.root), "<root>");
        let text = text.replace(&self.root.display().to_string(), "<root>");
        serde_json::from_str(&text).expect("still JSON")
    }
}

/// A message framed as the protocol sends it over stdio.
fn frame(value: Value) -> String {
    let body = value.to_string();
    format!("Content-Length: {}\r\n\r\n{body}", body.len())
}

/// The `pbc` binary as an editor runs it: a session over stdin and stdout ends with exit 0;
/// a frame that claims more than the limit, or breaks the framing, ends it with exit 1 and a
/// reason on stderr, without reading what it claims.
#[test]
fn the_binary_serves_stdio_and_refuses_broken_frames() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let root = std::fs::canonicalize(tree("category_typo")).expect("tree");
    let session = [
        frame(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"capabilities": {}, "rootUri": path_to_uri(&root)}})),
        frame(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}})),
        "Content-Length: 9\r\n\r\nnot json!".to_string(),
        frame(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})),
        frame(json!({"jsonrpc": "2.0", "method": "exit"})),
    ]
    .concat();
    let run_with = |args: &[&str], input: &[u8]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_pbc"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("pbc runs");
        let mut stdin = child.stdin.take().expect("stdin");
        let input = input.to_vec();
        // Written on a thread: the server answers while it reads.
        let writer = std::thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
        let out = child.wait_with_output().expect("pbc ends");
        let _ = writer.join();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let run = |input: &[u8]| run_with(&["lsp", "--stdio"], input);
    let (code, stdout, stderr) = run(session.as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains(r#""id":1,"result":{"capabilities""#),
        "{stdout}"
    );
    assert!(stdout.contains("UNKNOWN_CATEGORY"), "{stdout}");
    assert!(stdout.contains(r#""id":2,"result":null"#), "{stdout}");
    assert!(stderr.contains("pbc lsp: ignored a message"), "{stderr}");
    for broken in [
        format!("Content-Length: {}\r\n\r\n", u64::MAX),
        "Content-Length: 99999999999\r\n\r\n".to_string(),
        "Content-Length: 5\nno CRLF".to_string(),
        format!("{}\r\n", "X".repeat(100_000)),
    ] {
        let (code, _, stderr) = run(broken.as_bytes());
        assert_eq!(code, Some(1), "{broken:.40}: {stderr}");
        assert!(stderr.contains("malformed frame"), "{stderr}");
    }
    // The editor gone without `exit`: not clean.
    let (code, _, _) = run(frame(json!({"jsonrpc": "2.0", "method": "initialized"})).as_bytes());
    assert_eq!(code, Some(1));
    // An editor that names no workspace: the tree is `-C DIR`'s.
    let unnamed = [
        frame(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"capabilities": {}}})),
        frame(json!({"jsonrpc": "2.0", "method": "initialized", "params": {}})),
        frame(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})),
        frame(json!({"jsonrpc": "2.0", "method": "exit"})),
    ]
    .concat();
    let tree_flag = root.display().to_string();
    let (code, stdout, stderr) = run_with(&["lsp", "-C", &tree_flag], unnamed.as_bytes());
    assert_eq!(code, Some(0), "{stderr}");
    let site_uri = path_to_uri(&root.join("manifests/site.pp"));
    assert!(
        stdout.contains(&site_uri) && stdout.contains("UNKNOWN_CATEGORY"),
        "{stdout}"
    );
}

/// The server runs with its allocator handing freed memory back at once (`main`'s restart
/// with `MIMALLOC_PURGE_DELAY=0` and `MIMALLOC_ABANDONED_RECLAIM_ON_FREE=1`): what it runs as
/// once it answers is read from the system. A setting the user made is theirs, and kept.
#[cfg(target_os = "linux")]
#[test]
fn the_server_hands_freed_memory_back_at_once() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::process::{Command, Stdio};
    let root = std::fs::canonicalize(tree("category_typo")).expect("tree");
    const PURGE: &str = "MIMALLOC_PURGE_DELAY";
    const RECLAIM: &str = "MIMALLOC_ABANDONED_RECLAIM_ON_FREE";
    // The server's values of the two settings, with those the user set.
    let settings_of_server = |user_settings: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_pbc"));
        command
            .args(["lsp", "--stdio"])
            .env_remove(PURGE)
            .env_remove(RECLAIM)
            .envs(user_settings.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped());
        let mut child = command.spawn().expect("pbc runs");
        let mut stdin = child.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"capabilities": {}, "rootUri": path_to_uri(&root)}});
        stdin
            .write_all(frame(initialize).as_bytes())
            .expect("pbc reads");
        let mut length = 0;
        loop {
            let mut line = String::new();
            stdout.read_line(&mut line).expect("pbc answers");
            assert!(!line.is_empty(), "pbc lsp ended before answering");
            match line.trim_end() {
                "" => break,
                header => {
                    if let Some(n) = header.strip_prefix("Content-Length: ") {
                        length = n.parse().expect("a length");
                    }
                }
            }
        }
        let mut answer = vec![0; length];
        stdout.read_exact(&mut answer).expect("the answer");
        let environment = std::fs::read(format!("/proc/{}/environ", child.id()))
            .expect("the server's environment");
        let session_end = [
            frame(json!({"jsonrpc": "2.0", "id": 2, "method": "shutdown"})),
            frame(json!({"jsonrpc": "2.0", "method": "exit"})),
        ]
        .concat();
        stdin.write_all(session_end.as_bytes()).expect("pbc reads");
        drop(stdin);
        let mut rest = Vec::new();
        let _ = stdout.read_to_end(&mut rest);
        assert_eq!(child.wait().expect("pbc ends").code(), Some(0));
        let setting = |name: &str| {
            environment
                .split(|&b| b == 0)
                .find_map(|v| v.strip_prefix(format!("{name}=").as_bytes()))
                .map(|v| String::from_utf8_lossy(v).into_owned())
        };
        (setting(PURGE), setting(RECLAIM))
    };
    let some = |a: &str, b: &str| (Some(a.to_string()), Some(b.to_string()));
    assert_eq!(settings_of_server(&[]), some("0", "1"));
    assert_eq!(settings_of_server(&[(PURGE, "7")]), some("7", "1"));
    assert_eq!(settings_of_server(&[(RECLAIM, "0")]), some("0", "0"));
    assert_eq!(
        settings_of_server(&[(PURGE, "7"), (RECLAIM, "0")]),
        some("7", "0")
    );
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name)
}

fn at(editor: &Editor, relative: &str, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": editor.uri(relative)}, "position": {"line": line, "character": character}})
}

/// Hover on a key explains it for the chosen node, as `pbc lookup --explain` does: in a
/// bindings file, every binding of the key with its `when`; in Hiera data, with `node` set to
/// a node of the tree's `facts/`, the levels searched and the winner. Go to definition lists
/// every binding and every data entry found; `pbc/explain` answers the explanation as JSON.
#[test]
fn hover_and_definition_explain_a_key() {
    let (mut editor, first) = Editor::initialized_quietly(&example("site"), Value::Null);
    assert!(first.is_empty(), "{first:#?}");
    let mut answers = serde_json::Map::new();
    // `'ntp::servers'` on line 2 of bindings/default.pp.
    let hover = editor.request(
        "textDocument/hover",
        at(&editor, "bindings/default.pp", 1, 10),
    );
    answers.insert("site: hover on a bound key".into(), hover);
    let definition = editor.request(
        "textDocument/definition",
        at(&editor, "bindings/default.pp", 1, 10),
    );
    answers.insert(
        "site: definition of a bound key".into(),
        editor.portable_value(definition),
    );
    let nothing = editor.request(
        "textDocument/hover",
        at(&editor, "bindings/default.pp", 0, 2),
    );
    answers.insert("site: hover on no key".into(), nothing);
    assert_eq!(editor.finish().0, Ended::Clean);

    let (mut editor, _) =
        Editor::initialized_quietly(&example("control-repo"), json!({"node": "web01"}));
    // `ntp::servers: [...]` on line 4 of data/common.yaml.
    let hover = editor.request("textDocument/hover", at(&editor, "data/common.yaml", 3, 3));
    answers.insert("control-repo: hover on a data key for web01".into(), hover);
    let definition = editor.request(
        "textDocument/definition",
        at(&editor, "data/common.yaml", 3, 3),
    );
    answers.insert(
        "control-repo: definition of a data key for web01".into(),
        editor.portable_value(definition),
    );
    let explained = editor.request("pbc/explain", json!({"key": "motd", "node": "web01"}));
    let value = explained[0]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(value.starts_with("Welcome to web01"), "{explained:#}");
    // The `facts` setting (a file of the tree) gives the node's facts as `node` did; one
    // outside the tree is refused, not read.
    let with_node = editor.request("pbc/explain", json!({"key": "ntp::servers"}));
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"node": null, "facts": "facts/web01.json"}}),
    );
    let with_facts = editor.request("pbc/explain", json!({"key": "ntp::servers"}));
    assert_eq!(
        with_facts[0]["value"], with_node[0]["value"],
        "{with_facts:#}"
    );
    assert_eq!(
        with_facts[0]["value"][0], "0.debian.pool.ntp.org",
        "{with_facts:#}"
    );
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"facts": "../site/bindings/default.pp"}}),
    );
    let outside = editor.request("pbc/explain", json!({"key": "ntp::servers"}));
    let message = outside["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("the `facts` setting:") && message.contains("is outside the tree"),
        "{outside:#}"
    );
    editor.notify(
        "workspace/didChangeConfiguration",
        json!({"settings": {"facts": null, "node": "web01"}}),
    );
    let unknown = editor.request("pbc/explain", json!({"key": "no::such::key"}));
    answers.insert(
        "control-repo: explain an unbound key".into(),
        unknown[0]["winner"].clone(),
    );
    snapshot("lsp@hover_and_definition", &Value::Object(answers));
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// A hover asks the tree loaded for the node while nothing changed, and the tree as changed
/// after: an unsaved edit of a binding is in the next hover, and so is a file changed on disk
/// once the editor says so (a save, or a watched file).
#[test]
fn hovers_follow_the_changes_since_the_tree_was_loaded() {
    let copy = tempfile::tempdir().expect("a directory");
    let root = copy.path().join("site");
    copy_tree(&example("site"), &root);
    let (mut editor, _) = Editor::initialized_quietly(&root, Value::Null);
    let file = "bindings/default.pp";
    let hover = |editor: &mut Editor| {
        let answer = editor.request("textDocument/hover", at(editor, file, 1, 10));
        answer["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let first = hover(&mut editor);
    assert!(first.contains("0.pool.ntp.org"), "{first}");
    assert_eq!(hover(&mut editor), first, "the same tree, the same answer");
    let text = std::fs::read_to_string(root.join(file)).expect("the file");
    did_open(
        &editor,
        file,
        &text.replace("0.pool.ntp.org", "typed.example.com"),
    );
    let typed = hover(&mut editor);
    assert!(
        typed.contains("typed.example.com") && !typed.contains("0.pool.ntp.org"),
        "{typed}"
    );
    editor.notify(
        "textDocument/didClose",
        json!({"textDocument": {"uri": editor.uri(file)}}),
    );
    assert_eq!(hover(&mut editor), first, "closed: the file on disk again");
    std::fs::write(
        root.join(file),
        text.replace("0.pool.ntp.org", "saved.example.com"),
    )
    .expect("written");
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": editor.uri(file), "type": 2}]}),
    );
    let saved = hover(&mut editor);
    assert!(saved.contains("saved.example.com"), "{saved}");
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// A key whose value logs something (`notice`, `warning`) says it in its hover as
/// `pbc lookup --explain` says it, each time it is hovered, and the hover of another key after
/// it says nothing it did not log itself: the tree loaded for the node is not asked again
/// after an answer that logged.
#[test]
fn a_hover_says_what_its_own_key_logged() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/lookup/trees/errors");
    let (mut editor, _) = Editor::initialized_quietly(&root, json!({"node": "db01.example.com"}));
    let file = "bindings/default.pp";
    let mut hover = |line: u32, character: u32| {
        let answer = editor.request("textDocument/hover", at(&editor, file, line, character));
        answer["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    // `'noisy'` on line 36, `'role'` on line 33.
    let noisy = hover(35, 9);
    assert!(noisy.contains("key `noisy`"), "{noisy}");
    assert!(
        noisy.contains("notice: looking up for db01.example.com")
            && noisy.contains("warning: careful"),
        "{noisy}"
    );
    let role = hover(32, 11);
    assert!(role.contains("key `role`"), "{role}");
    assert!(
        !role.contains("notice:") && !role.contains("warning:"),
        "{role}"
    );
    assert_eq!(hover(35, 9), noisy, "hovered again, the key logs again");
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// An editor that watches files for the server is asked to watch the tree once initialized,
/// and the server then lists and reads the tree once, keeping it from one check to the next
/// until the editor tells of a change: a file written behind the editor's back is seen only
/// once the editor's watch tells of it. The first check waits for the editor's answer, so
/// the tree is read once, not again at the first edit. With the setting `watch` off, the
/// editor is not asked (nor does the server watch itself), and what is read is kept all the
/// same: the editor's word is taken when it comes, and the look at the disk behind each check
/// sees what nobody tells of
/// (`with_nothing_watching_a_look_behind_each_check_finds_what_changed_on_disk`).
#[test]
fn the_tree_on_disk_is_kept_while_the_editor_watches_it() {
    for (can_watch, watch) in [(true, true), (true, false), (false, false)] {
        let (_copy, root, mut editor) = site_copy_session(can_watch, json!({"watch": watch}));
        if can_watch && watch {
            let asked = accept_watch(&mut editor);
            assert_eq!(asked.method, "client/registerCapability");
            let registration = &asked.params["registrations"][0];
            assert_eq!(registration["method"], "workspace/didChangeWatchedFiles");
            assert_eq!(
                registration["registerOptions"]["watchers"][0]["globPattern"],
                "**/*"
            );
        }
        assert!(editor.published_so_far().is_empty(), "the example is clean");
        // The first check waited for the editor's answer: with the watch in place it listed
        // and read the tree and kept it, so a file written since is not seen by the next.
        let early = "bindings/early.pp";
        std::fs::write(root.join(early), "bindings early {\n  bind 'x' to\n}\n").expect("written");
        let file = "bindings/default.pp";
        let text = std::fs::read_to_string(root.join(file)).expect("the file");
        did_open(&editor, file, &text);
        let opened = editor.published_so_far();
        assert!(
            !opened
                .iter()
                .any(|m| m["params"]["uri"] == "<root>/bindings/early.pp"),
            "watching {watch}: {opened:#?}"
        );
        let broken = "bindings/broken.pp";
        std::fs::write(root.join(broken), "bindings broken {\n  bind 'x' to\n}\n")
            .expect("written");
        did_change(&editor, file, 2, &format!("{text}\n"));
        let unannounced = editor.published_so_far();
        let reports_broken = |published: &[Value]| {
            published
                .iter()
                .any(|m| m["params"]["uri"] == "<root>/bindings/broken.pp")
        };
        assert!(
            !reports_broken(&unannounced),
            "watching {watch}: {unannounced:#?}"
        );
        editor.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": editor.uri(broken), "type": 1}]}),
        );
        let announced = editor.published_so_far();
        assert!(reports_broken(&announced), "{announced:#?}");
        // References read a file's keys again when it changed on disk, once the editor tells
        // of it.
        let references = |editor: &mut Editor| {
            let mut params = at(editor, file, 1, 10);
            params["context"] = json!({"includeDeclaration": true});
            let found = editor.request("textDocument/references", params);
            found.as_array().map_or(0, Vec::len)
        };
        let before = references(&mut editor);
        std::fs::write(
            root.join(broken),
            "bindings broken {\n  bind 'ntp::servers' to []\n}\n",
        )
        .expect("written");
        let unannounced = references(&mut editor);
        assert_eq!(unannounced, before);
        editor.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": editor.uri(broken), "type": 2}]}),
        );
        let _ = editor.published_so_far();
        assert_eq!(references(&mut editor), before + 1);
        let (ended, log) = editor.finish();
        assert_eq!(ended, Ended::Clean);
        assert!(log.is_empty(), "{log:?}");
    }
}

/// A file saved in place (the editor's watch tells of it as changed) is the only one read
/// again: the tree is not listed again, so a file written behind the editor's back is still
/// not seen. Everything is listed and read again when the file may be another (renamed over
/// the old one, as some editors save) or when its old or new text may name a deep Hiera
/// directory, which decides what the listing finds.
#[test]
fn a_file_saved_in_place_is_read_again_alone() {
    let (_copy, root, mut editor) = site_copy_session(true, json!({"watch": true}));
    accept_watch(&mut editor);
    assert!(editor.published_so_far().is_empty(), "the example is clean");
    let saved = "bindings/default.pp";
    let clean = std::fs::read_to_string(root.join(saved)).expect("the file");
    let reported = |published: &[Value], relative: &str| {
        published.iter().any(|m| {
            m["params"]["uri"] == format!("<root>/{relative}")
                && m["params"]["diagnostics"]
                    .as_array()
                    .is_some_and(|d| !d.is_empty())
        })
    };
    let behind_the_editors_back = |n: usize| {
        let relative = format!("bindings/unannounced{n}.pp");
        std::fs::write(
            root.join(&relative),
            format!("bindings unannounced{n} {{\n  bind 'x' to\n}}\n"),
        )
        .expect("written");
        relative
    };
    let save = |editor: &mut Editor, text: &str, in_place: bool| {
        if in_place {
            std::fs::write(root.join(saved), text).expect("written");
        } else {
            let new = root.join("bindings/default.pp.new");
            std::fs::write(&new, text).expect("written");
            std::fs::rename(&new, root.join(saved)).expect("renamed over");
        }
        editor.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [
                {"uri": editor.uri(".git/index"), "type": 2},
                {"uri": editor.uri(saved), "type": 2},
            ]}),
        );
        editor.published_so_far()
    };

    let unannounced = behind_the_editors_back(1);
    let published = save(&mut editor, &format!("{clean}\nbindings broken {{\n"), true);
    assert!(reported(&published, saved), "{published:#?}");
    assert!(!reported(&published, &unannounced), "{published:#?}");
    // Mended with a comment that names a deep Hiera directory: listed again.
    let naming = format!("{clean}\n# module:ntp/-hiera:data/deep\n");
    let published = save(&mut editor, &naming, true);
    assert!(!reported(&published, saved), "{published:#?}");
    assert!(reported(&published, &unannounced), "{published:#?}");
    // The comment removed: the old text named one, so listed again.
    let unannounced = behind_the_editors_back(2);
    let published = save(&mut editor, &clean, true);
    assert!(reported(&published, &unannounced), "{published:#?}");
    // In place again: not listed.
    let unannounced = behind_the_editors_back(3);
    let published = save(&mut editor, &format!("{clean}\n"), true);
    assert!(!reported(&published, &unannounced), "{published:#?}");
    // Renamed over: another file, so listed again.
    let published = save(&mut editor, &clean, false);
    assert!(reported(&published, &unannounced), "{published:#?}");
    // More files told of at once than are forgotten alone: listed again.
    let unannounced = behind_the_editors_back(4);
    std::fs::write(root.join(saved), format!("{clean}\n")).expect("written");
    let changes: Vec<Value> = (0..=puppet_bindings::ide::MOST_FORGOTTEN_ALONE)
        .map(|_| json!({"uri": editor.uri(saved), "type": 2}))
        .collect();
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": changes }),
    );
    let published = editor.published_so_far();
    assert!(reported(&published, &unannounced), "{published:#?}");
    let (ended, log) = editor.finish();
    assert_eq!(ended, Ended::Clean);
    assert!(log.is_empty(), "{log:?}");
}

/// An editor that does not watch the tree's files (it cannot, or refuses) has the server
/// watch them itself: what it read is kept between checks, and a file written, changed or
/// removed behind the editor's back has its diagnostics published with no word from the
/// editor.
#[test]
fn the_server_watches_the_tree_itself_when_the_editor_does_not() {
    for can_watch in [false, true] {
        let (_copy, root, mut editor) = site_copy_session(can_watch, Value::Null);
        if can_watch {
            let Some(Message::Request(asked)) = editor.receive() else {
                panic!("the server asks the editor to watch the tree");
            };
            editor.send(Response::new_err(asked.id, -32601, "not here".to_string()).into());
        }
        assert!(editor.published_so_far().is_empty(), "the example is clean");
        // Waited for until the file's diagnostics hold an error, or none: a check may see the
        // file as it is being written. (Its bindings are in no layer: a warning says so.)
        let published_for = |editor: &Editor, relative: &str, with_errors: bool| {
            while has_errors(&editor.next_published_for(relative)) != with_errors {}
        };
        let broken = "bindings/broken.pp";
        std::fs::write(root.join(broken), "bindings broken {\n  bind 'x' to\n}\n")
            .expect("written");
        published_for(&editor, broken, true);
        std::fs::write(root.join(broken), "bindings broken {\n  bind 'x' to 1\n}\n")
            .expect("written");
        published_for(&editor, broken, false);
        std::fs::write(root.join(broken), "bindings broken {\n  bind 'x' to\n}\n")
            .expect("written");
        published_for(&editor, broken, true);
        std::fs::remove_file(root.join(broken)).expect("removed");
        published_for(&editor, broken, false);
        let (ended, log) = editor.finish();
        assert_eq!(ended, Ended::Clean);
        assert_eq!(log.len(), usize::from(can_watch), "{log:?}");
        assert!(
            log.iter()
                .all(|l| l.contains("does not watch") && l.contains("the server watches")),
            "{log:?}"
        );
    }
}

/// With the setting `watch` off nothing tells the server of changes on disk. A keystroke is
/// checked from what was listed and read before, so a file written behind the editor's back
/// is not yet seen; the look at the disk that follows the check finds it, and its diagnostics
/// are published with no word from the editor. A look that finds the disk as it was publishes
/// nothing.
#[test]
fn with_nothing_watching_a_look_behind_each_check_finds_what_changed_on_disk() {
    let (_copy, root, mut editor) = site_copy_session(false, json!({"watch": false}));
    assert!(editor.published_so_far().is_empty(), "the example is clean");
    let file = "bindings/default.pp";
    let text = std::fs::read_to_string(root.join(file)).expect("the file");
    did_open(&editor, file, &text);
    assert!(editor.published_so_far().is_empty(), "nothing changed");
    // The look behind that check (of a tree of three files) is long done, and found the disk
    // as kept.
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        editor.published_so_far().is_empty(),
        "the look found nothing"
    );
    let broken = "bindings/broken.pp";
    // The diagnostics `broken` is next published with hold errors as `with_errors` says.
    let published_for = |editor: &Editor, with_errors: bool| {
        let diagnostics = editor.next_published_for(broken);
        assert_eq!(has_errors(&diagnostics), with_errors, "{diagnostics:#?}");
    };
    let typed = |editor: &mut Editor, version: i32| {
        did_change(editor, file, version, &format!("{text}# typed {version}\n"));
        let keystroke = editor.published_so_far();
        assert!(
            keystroke.is_empty(),
            "checked from what was read: {keystroke:#?}"
        );
    };
    std::fs::write(root.join(broken), "bindings broken {\n  bind 'x' to\n}\n").expect("written");
    typed(&mut editor, 2);
    published_for(&editor, true);
    // Mended on disk: seen by the look behind the next keystroke's check.
    std::fs::write(root.join(broken), "bindings broken {\n  bind 'x' to 1\n}\n").expect("written");
    typed(&mut editor, 3);
    published_for(&editor, false);
    let (ended, log) = editor.finish();
    assert_eq!(ended, Ended::Clean);
    assert!(log.is_empty(), "{log:?}");
}

/// Whether published diagnostics hold an error.
fn has_errors(diagnostics: &[Value]) -> bool {
    diagnostics.iter().any(|d| d["severity"] == 1)
}

/// Answers the server's request that the editor watch the tree (the next message it sends)
/// as an editor that agrees; the request.
fn accept_watch(editor: &mut Editor) -> Request {
    let Some(Message::Request(asked)) = editor.receive() else {
        panic!("the server asks the editor to watch the tree");
    };
    editor.send(Response::new_ok(asked.id.clone(), Value::Null).into());
    asked
}

/// The setting `watch` changed in a session: off, what is read of the disk is kept and looked at
/// again behind each check (a file written behind the editor's back is seen by the look after
/// the next check); on again, what is read is kept while the editor watches (such a file is
/// seen only once the editor tells of it).
#[test]
fn the_watch_setting_can_be_changed_in_a_session() {
    let (_copy, root, mut editor) = site_copy_session(true, Value::Null);
    accept_watch(&mut editor);
    assert!(editor.published_so_far().is_empty(), "the example is clean");
    let file = "bindings/default.pp";
    let text = std::fs::read_to_string(root.join(file)).expect("the file");
    did_open(&editor, file, &text);
    let _ = editor.published_so_far();
    let reports = |published: &[Value], name: &str| {
        published
            .iter()
            .any(|m| m["params"]["uri"] == format!("<root>/bindings/{name}.pp"))
    };
    for (version, watch, name) in [(2, false, "off"), (3, true, "on")] {
        editor.notify(
            "workspace/didChangeConfiguration",
            json!({"settings": {"pbc": {"watch": watch}}}),
        );
        let _ = editor.published_so_far();
        std::fs::write(
            root.join(format!("bindings/{name}.pp")),
            format!("bindings {name} {{\n  bind 'x' to\n}}\n"),
        )
        .expect("written");
        did_change(&editor, file, version, &format!("{text}\n"));
        let published = editor.published_so_far();
        assert!(!reports(&published, name), "watch {watch}: {published:#?}");
        if !watch {
            let looked = editor.next_published_for(&format!("bindings/{name}.pp"));
            assert!(!looked.is_empty(), "the look found the file");
        }
    }
    let (ended, log) = editor.finish();
    assert_eq!(ended, Ended::Clean);
    assert!(log.is_empty(), "{log:?}");
}

/// An editor that says it can watch files but never answers the request to watch the tree
/// still gets the tree's diagnostics: the first check waits for the answer only so long.
#[test]
fn an_editor_that_never_answers_the_watch_request_still_gets_diagnostics() {
    let mut editor = Editor::start(&tree("category_typo"));
    let root_uri = path_to_uri(&editor.root);
    editor.request(
        "initialize",
        json!({
            "capabilities": {"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}},
            "rootUri": root_uri,
        }),
    );
    editor.notify("initialized", json!({}));
    let first = editor.published_so_far();
    assert_eq!(
        first[0]["method"], "client/registerCapability",
        "{first:#?}"
    );
    assert!(
        first[1..]
            .iter()
            .any(|m| m["method"] == "textDocument/publishDiagnostics"
                && !m["params"]["diagnostics"]
                    .as_array()
                    .is_none_or(Vec::is_empty)),
        "{first:#?}"
    );
    let (ended, log) = editor.finish();
    assert_eq!(ended, Ended::Clean);
    assert!(!log.iter().any(|l| l.contains("does not watch")), "{log:?}");
}

/// A session on a copy of the example `site` (the copy, its root, the editor), initialized by
/// an editor that can watch files for the server or cannot, with `initialization_options`.
fn site_copy_session(
    can_watch: bool,
    initialization_options: Value,
) -> (tempfile::TempDir, PathBuf, Editor) {
    let copy = tempfile::tempdir().expect("a directory");
    let root = copy.path().join("site");
    copy_tree(&example("site"), &root);
    let mut editor = Editor::start(&root);
    let capabilities = if can_watch {
        json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}})
    } else {
        json!({})
    };
    let root_uri = path_to_uri(&editor.root);
    editor.request(
        "initialize",
        json!({
            "capabilities": capabilities,
            "rootUri": root_uri,
            "initializationOptions": initialization_options,
        }),
    );
    editor.notify("initialized", json!({}));
    (copy, root, editor)
}

/// `from` copied to `to`, directories and files.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("a directory");
    for entry in std::fs::read_dir(from).expect("a directory") {
        let entry = entry.expect("an entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copied");
        }
    }
}

/// Every session of `corpus/lsp/` (one message per line, `file://ROOT` standing for the tree
/// `corpus/check/trees/category_typo`), replayed: what the server sends is snapshotted, and every
/// request before `exit` gets one answer. The fuzz target `lsp` starts from these sessions.
#[test]
fn corpus_sessions_replay() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/lsp");
    let mut sessions: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("corpus/lsp")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    sessions.sort();
    assert!(!sessions.is_empty());
    for session in sessions {
        let mut editor = Editor::start(&tree("category_typo"));
        let root = path_to_uri(&editor.root);
        let text = std::fs::read_to_string(&session).expect("a session");
        let mut asked = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let line = line.replace("file://ROOT", &root);
            let message: Message = serde_json::from_str(&line).expect("a message");
            if let Message::Request(r) = &message {
                asked.push(r.id.clone());
            }
            editor.send(message);
        }
        let (ended, log) = editor.join();
        let mut sent = Vec::new();
        while let Ok(message) = editor.connection.receiver.try_recv() {
            if let Message::Response(r) = &message {
                assert_eq!(asked.first(), Some(&r.id), "answers come in order");
                asked.remove(0);
            }
            sent.push(editor.portable(&message));
        }
        assert!(asked.is_empty(), "unanswered: {asked:?}");
        let name = session.file_stem().unwrap_or_default().to_string_lossy();
        snapshot(
            &format!("lsp@session_{name}"),
            &json!({"ended": format!("{ended:?}"), "log": log, "sent": sent}),
        );
    }
}

/// A tree that cannot be checked (gone since the editor opened it) is said to the editor as
/// an error message and in the server's log; the session goes on.
#[test]
fn a_tree_that_cannot_be_checked_is_said() {
    let root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("lsp-gone");
    std::fs::create_dir_all(root.join("manifests")).expect("a tree");
    std::fs::write(root.join("manifests/site.pp"), "site { }\n").expect("a file");
    let mut editor = Editor::start(&root);
    std::fs::remove_dir_all(&root).expect("removed");
    let answer = editor.request("initialize", json!({"capabilities": {}}));
    assert_eq!(answer["serverInfo"]["name"], "pbc", "{answer}");
    editor.notify("initialized", json!({}));
    let said = editor.published_so_far();
    assert_eq!(said.len(), 1, "{said:#?}");
    assert_eq!(said[0]["method"], "window/showMessage");
    assert_eq!(said[0]["params"]["type"], 1, "an error");
    let message = said[0]["params"]["message"].as_str().unwrap_or_default();
    assert!(message.starts_with("pbc cannot check"), "{message}");
    let (ended, log) = editor.finish();
    assert_eq!(ended, Ended::Clean);
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(log[0].starts_with("pbc cannot check"), "{log:?}");
}

/// `text` with the edits of a quick fix applied (positions in characters; the texts here are
/// ASCII, where UTF-16 units are characters).
fn apply_edits(text: &str, edits: &[Value]) -> String {
    let offset = |position: &Value| {
        let line = position["line"].as_u64().expect("a line") as usize;
        let character = position["character"].as_u64().expect("a character") as usize;
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        start + character
    };
    let mut edits: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["range"]["start"]),
                offset(&e["range"]["end"]),
                e["newText"].as_str().expect("new text"),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    let mut out = text.to_string();
    for (start, end, new) in edits {
        out.replace_range(start..end, new);
    }
    out
}

/// A diagnostic whose help is one edit comes with a quick fix that makes it: `=>` for `to`, a
/// missing `to`, a keyword in capitals, an unknown type (did you mean), a category the site
/// misspells. Each mistake is made in an unsaved buffer, its fix asked for over the
/// diagnostic's range and applied as the editor applies it: the tree has no diagnostics left,
/// and a fix in the file of the mistake gives the file as it was.
#[test]
fn quick_fixes_do_what_the_help_says() {
    let (mut editor, first) = Editor::initialized_quietly(&example("site"), Value::Null);
    assert!(first.is_empty(), "{first:#?}");
    let file = "bindings/default.pp";
    let original = std::fs::read_to_string(editor.root.join(file)).expect("the bindings");
    let mistakes = [
        ("bind 'ntp::servers' to ['0", "bind 'ntp::servers' => ['0"),
        ("bind 'ntp::servers' to ['0", "bind 'ntp::servers' ['0"),
        ("bind 'ntp::servers' to ['0", "Bind 'ntp::servers' to ['0"),
        ("multibind Array[String]", "multibind Array[Strng]"),
        // The site's name is the one no `when` uses: the fix renames it in the site.
        ("when datacenter", "when datacentre"),
    ];
    let mut versions: std::collections::BTreeMap<String, i32> = Default::default();
    let mut buffers: std::collections::BTreeMap<String, String> = Default::default();
    // Opens the buffer of `relative` with `text`, or changes it to `text`.
    let set = |editor: &Editor,
               versions: &mut std::collections::BTreeMap<String, i32>,
               buffers: &mut std::collections::BTreeMap<String, String>,
               relative: &str,
               text: &str| {
        let version = versions.entry(relative.to_string()).or_insert(0);
        *version += 1;
        if *version == 1 {
            did_open(editor, relative, text);
        } else {
            did_change(editor, relative, *version, text);
        }
        buffers.insert(relative.to_string(), text.to_string());
    };
    let mut answers = serde_json::Map::new();
    for (right, wrong) in mistakes {
        assert!(original.contains(right), "{right}");
        let broken = original.replacen(right, wrong, 1);
        set(&editor, &mut versions, &mut buffers, file, &broken);
        let published = editor.published_so_far();
        let (uri, diagnostic) = published
            .iter()
            .find_map(|m| {
                let first = m["params"]["diagnostics"].get(0)?;
                Some((m["params"]["uri"].as_str()?.to_string(), first.clone()))
            })
            .unwrap_or_else(|| panic!("{wrong}: diagnostics: {published:#?}"));
        let relative = uri.trim_start_matches("<root>/").to_string();
        let uri = editor.uri(&relative);
        // As the editor has it: with the tree's own URIs.
        let sent: Value = serde_json::from_str(
            &diagnostic
                .to_string()
                .replace("<root>", &path_to_uri(&editor.root)),
        )
        .expect("JSON");
        let actions = editor.request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": diagnostic["range"],
                "context": {"diagnostics": [sent]},
            }),
        );
        let actions = actions
            .as_array()
            .cloned()
            .unwrap_or_else(|| panic!("{wrong}: {actions:#}"));
        assert_eq!(actions.len(), 1, "{wrong}: {actions:#?} for {diagnostic:#}");
        assert_eq!(actions[0]["diagnostics"][0]["code"], diagnostic["code"]);
        let edits = actions[0]["edit"]["changes"][&uri].as_array().cloned();
        let text = buffers.get(&relative).cloned().unwrap_or_else(|| {
            std::fs::read_to_string(editor.root.join(&relative)).expect("the file")
        });
        let fixed = apply_edits(&text, &edits.unwrap_or_default());
        if relative == file {
            assert_eq!(fixed, original, "{wrong}: {:#}", actions[0]);
        }
        answers.insert(
            format!("{wrong}: {}", diagnostic["code"].as_str().unwrap_or_default()),
            json!({"file": relative, "title": actions[0]["title"], "edits": actions[0]["edit"]["changes"][&uri]}),
        );
        set(&editor, &mut versions, &mut buffers, &relative, &fixed);
        let after = editor.published_so_far();
        assert!(
            after.iter().all(|m| m["params"]["diagnostics"]
                .as_array()
                .is_some_and(Vec::is_empty)),
            "{wrong}: still {after:#?}"
        );
    }
    assert!(buffers["manifests/site.pp"].contains("    datacentre  => $facts"));
    // A range without diagnostics gets no action.
    let actions = editor.request(
        "textDocument/codeAction",
        json!({
            "textDocument": {"uri": editor.uri(file)},
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
            "context": {"diagnostics": []},
        }),
    );
    assert_eq!(actions, json!([]));
    snapshot("lsp@quick_fixes", &Value::Object(answers));
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// References of a key: every binding, data entry, `lookup()` and class parameter of it in
/// the tree (an unsaved buffer's too), or only the places that ask for it; completion of a
/// key being written in a `lookup()` (closed or not) and at the start of a data file's line,
/// from the keys the tree names.
#[test]
fn references_and_completion_know_every_key_of_the_tree() {
    let (mut editor, _) =
        Editor::initialized_quietly(&example("control-repo"), json!({"node": "web01"}));
    let manifest = "modules/ntp/manifests/init.pp";
    let class = "class ntp(Array[String] $servers, String $service = lookup('ntp::service')) {\n  $pool = lookup('ntp::s')\n}\n";
    did_open(&editor, manifest, class);
    let _ = editor.published_so_far();
    let mut answers = serde_json::Map::new();
    // `ntp::servers:` on line 4 of data/common.yaml.
    let params = |editor: &Editor, include: bool| {
        let mut p = at(editor, "data/common.yaml", 3, 3);
        p["context"] = json!({"includeDeclaration": include});
        p
    };
    let all = editor.request("textDocument/references", params(&editor, true));
    let all = editor.portable_value(all);
    let asks = editor.request("textDocument/references", params(&editor, false));
    let asks = editor.portable_value(asks);
    assert_eq!(all.as_array().map(Vec::len), Some(4), "{all:#}");
    assert_eq!(asks.as_array().map(Vec::len), Some(1), "{asks:#}");
    answers.insert("references of ntp::servers".into(), all);
    answers.insert("references of ntp::servers, asking only".into(), asks);
    let labels = |answer: &Value| completion_items(answer, "/label");
    // Inside `lookup('ntp::s')`, after the `s`.
    let in_lookup = editor.request("textDocument/completion", at(&editor, manifest, 1, 23));
    assert_eq!(
        labels(&in_lookup),
        ["ntp::servers", "ntp::service"],
        "{in_lookup:#}"
    );
    answers.insert("completion in lookup('ntp::s')".into(), in_lookup);
    // `lookup('mo`: not closed, the file does not parse there.
    let unclosed = class.replace("}\n", "  $motd = lookup('mo\n}\n");
    did_change(&editor, manifest, 2, &unclosed);
    let _ = editor.published_so_far();
    let unclosed = editor.request("textDocument/completion", at(&editor, manifest, 2, 20));
    assert_eq!(labels(&unclosed), ["motd"], "{unclosed:#}");
    // Not where a key goes: nothing.
    let elsewhere = editor.request("textDocument/completion", at(&editor, manifest, 1, 4));
    assert_eq!(elsewhere, Value::Null);
    // A new line of a data file.
    let data = "data/os/Debian.yaml";
    let text = std::fs::read_to_string(editor.root.join(data)).expect("the data");
    did_open(&editor, data, &format!("{text}ntp::se\n"));
    let _ = editor.published_so_far();
    let line = text.lines().count() as u32;
    let in_data = editor.request("textDocument/completion", at(&editor, data, line, 7));
    assert_eq!(
        labels(&in_data),
        ["ntp::servers", "ntp::service"],
        "{in_data:#}"
    );
    answers.insert("completion at a data file's new line".into(), in_data);
    snapshot("lsp@references_and_completion", &Value::Object(answers));
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// On a category (in a `when` or the site's declaration): hover says where the site declares
/// it, with what value, its precedence among the request's categories and how many `when`s
/// name it; definition goes to the declaration; references list it and every `when` of it;
/// completion after `when` offers the site's categories, highest first.
#[test]
fn categories_are_explained_found_and_completed() {
    let (mut editor, _) = Editor::initialized_quietly(&example("site"), Value::Null);
    let bindings = "bindings/default.pp";
    let mut answers = serde_json::Map::new();
    // `datacenter` in `when datacenter 'eu-west'` (line 3).
    let hover = editor.request("textDocument/hover", at(&editor, bindings, 2, 9));
    let text = hover["contents"]["value"].as_str().unwrap_or_default();
    assert!(
        text.contains("declared at manifests/site.pp:6:5 as `$facts['datacenter']`")
            && text.contains("3 of 4 (node > environment > datacenter > common"),
        "{text}"
    );
    answers.insert("hover on a category in a when".into(), hover);
    // `node`, declared by the site, from its declaration.
    let declared = editor.request("textDocument/hover", at(&editor, "manifests/site.pp", 3, 5));
    answers.insert("hover on a site's declaration".into(), declared);
    let definition = editor.request("textDocument/definition", at(&editor, bindings, 2, 9));
    answers.insert(
        "definition of a category".into(),
        editor.portable_value(definition),
    );
    let mut params = at(&editor, "manifests/site.pp", 5, 6);
    params["context"] = json!({"includeDeclaration": true});
    let references = editor.request("textDocument/references", params);
    let references = editor.portable_value(references);
    assert_eq!(
        references.as_array().map(Vec::len),
        Some(2),
        "{references:#}"
    );
    answers.insert("references of a category".into(), references);
    // A new `when` being written, `when d`.
    let text = std::fs::read_to_string(editor.root.join(bindings)).expect("the bindings");
    let typed = text.replacen(
        "  include [ntp, ssh]\n",
        "  when d\n  include [ntp, ssh]\n",
        1,
    );
    did_open(&editor, bindings, &typed);
    let _ = editor.published_so_far();
    let line = typed
        .lines()
        .position(|l| l == "  when d")
        .expect("the line") as u32;
    let completion = editor.request("textDocument/completion", at(&editor, bindings, line, 8));
    let labels = completion_items(&completion, "/label");
    assert_eq!(labels, ["datacenter"], "{completion:#}");
    let all = editor.request("textDocument/completion", at(&editor, bindings, line, 7));
    let labels = completion_items(&all, "/label");
    assert_eq!(labels, ["node", "environment", "datacenter"], "{all:#}");
    answers.insert("completion after when".into(), completion);
    snapshot("lsp@categories", &Value::Object(answers));
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// A tree whose categories a `binder_config.yaml` declares instead of a `site { }` (D19):
/// completion after `when` offers them in its order, a category's value is completed from the
/// fact its declaration reads, and hover and definition lead to the declaration in the YAML,
/// where hover and references work too.
#[test]
fn categories_a_binder_config_declares_are_completed_and_explained() {
    let copy = tempfile::tempdir().expect("a directory");
    let root = copy.path().join("arm9");
    let files = [
        (
            "binder_config.yaml",
            "version: 2\ncategories:\n  - node\n  - [datacenter, \"${facts['datacenter']}\"]\n  - {name: environment, value: '${environment}'}\n  - ['common', 'true']\nlayers:\n  - {name: site, include: ['confdir:/default', 'confdir:/other']}\n",
        ),
        (
            "bindings/other.pp",
            "bindings other {\n  when datacenter 'ams' { bind 'm' to 3 }\n}\n",
        ),
        (
            "bindings/default.pp",
            "bindings default {\n  when datacenter 'eu-west' { bind 'k' to 1 }\n  bind 'j' to 2\n}\n",
        ),
        (
            "facts/web01.json",
            r#"{"datacenter": "us-east", "fqdn": "web01.example.com"}"#,
        ),
    ];
    for (name, text) in files {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().expect("a parent")).expect("its directory");
        std::fs::write(path, text).expect("written");
    }
    let (mut editor, published) = Editor::initialized_quietly(&root, Value::Null);
    let errors: Vec<&Value> = published
        .iter()
        .flat_map(|p| p["params"]["diagnostics"].as_array().into_iter().flatten())
        .filter(|d| d["severity"] == 1)
        .collect();
    assert!(errors.is_empty(), "the tree checks cleanly: {errors:#?}");
    let bindings = "bindings/default.pp";
    let mut answers = serde_json::Map::new();
    // `datacenter` in `when datacenter 'eu-west'`.
    let hover = editor.request("textDocument/hover", at(&editor, bindings, 1, 9));
    let text = hover["contents"]["value"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        text.contains("binder_config.yaml:4:6"),
        "the hover names the declaration: {text}"
    );
    answers.insert("hover on a category in a when".into(), hover);
    let definition = editor.request("textDocument/definition", at(&editor, bindings, 1, 9));
    let definition = editor.portable_value(definition);
    assert_eq!(
        definition.pointer("/0/uri").and_then(Value::as_str),
        Some("<root>/binder_config.yaml"),
        "{definition:#}"
    );
    answers.insert("definition of a category".into(), definition);
    // From the declaration in the YAML: the same hover, and its references.
    let declared = editor.request(
        "textDocument/hover",
        at(&editor, "binder_config.yaml", 3, 8),
    );
    let declared_text = declared["contents"]["value"].as_str().unwrap_or_default();
    assert_eq!(declared_text, text, "{declared:#}");
    let mut params = at(&editor, "binder_config.yaml", 3, 8);
    params["context"] = json!({"includeDeclaration": true});
    let references = editor.request("textDocument/references", params);
    let references = editor.portable_value(references);
    let files: Vec<&str> = references
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["uri"].as_str())
        .collect();
    assert_eq!(
        files,
        [
            "<root>/binder_config.yaml",
            "<root>/bindings/default.pp",
            "<root>/bindings/other.pp"
        ],
        "{references:#}"
    );
    answers.insert("references of a declared category".into(), references);
    let typed = "bindings default {\n  when datacenter 'eu-west' { bind 'k' to 1 }\n  when \n  bind 'j' to 2\n}\n";
    did_open(&editor, bindings, typed);
    let _ = editor.published_so_far();
    let completion = editor.request("textDocument/completion", at(&editor, bindings, 2, 7));
    let labels = completion_items(&completion, "/label");
    assert_eq!(
        labels,
        ["node", "datacenter", "environment"],
        "{completion:#}"
    );
    answers.insert("completion after when".into(), completion);
    let value = typed.replacen("  when \n", "  when datacenter \n", 1);
    did_change(&editor, bindings, 2, &value);
    let _ = editor.published_so_far();
    let values = editor.request("textDocument/completion", at(&editor, bindings, 2, 18));
    let written = completion_items(&values, "/textEdit/newText");
    // The buffer does not parse while the value is being written: its own `when` is not
    // among them, the other file's is, and the factset's.
    assert_eq!(written, ["'ams'", "'us-east'"], "{values:#}");
    answers.insert("completion of a value".into(), values);
    snapshot("lsp@binder_config_categories", &Value::Object(answers));
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// A request the editor cancels (`$/cancelRequest`) before the server answers it is answered
/// `RequestCancelled`, and the ones around it as usual. Every message is sent before the server
/// starts, so it has them all when it comes to the request.
#[test]
fn cancelled_requests_are_answered_cancelled() {
    let root = std::fs::canonicalize(example("site")).expect("the example");
    let (server_side, editor) = Connection::memory();
    let uri = path_to_uri(&root.join("bindings/default.pp"));
    let hover = |id: i32| {
        Message::from(Request::new(
            RequestId::from(id),
            "textDocument/hover".to_string(),
            json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 10}}),
        ))
    };
    let messages = [
        Request::new(
            RequestId::from(1),
            "initialize".to_string(),
            json!({"capabilities": {}, "rootUri": path_to_uri(&root)}),
        )
        .into(),
        Notification::new("initialized".to_string(), json!({})).into(),
        hover(2),
        Notification::new("$/cancelRequest".to_string(), json!({"id": 2})).into(),
        hover(3),
        // A cancellation of what was answered, or never asked, changes nothing.
        Notification::new("$/cancelRequest".to_string(), json!({"id": 99})).into(),
        Request::new(RequestId::from(4), "shutdown".to_string(), Value::Null).into(),
        Notification::new("exit".to_string(), Value::Null).into(),
    ];
    for message in messages {
        editor.sender.send(message).expect("queued");
    }
    let fallback = root.clone();
    let server =
        std::thread::spawn(move || run(&server_side, Default::default(), &fallback, &mut |_| {}));
    assert_eq!(server.join().expect("no panic"), Ended::Clean);
    let mut answers = BTreeMap::new();
    while let Ok(message) = editor.receiver.try_recv() {
        if let Message::Response(r) = message {
            let answer = match r.response_result {
                Ok(result) => (Some(result), None),
                Err(error) => (None, Some(error.code)),
            };
            answers.insert(format!("{:?}", r.id), answer);
        }
    }
    assert_eq!(answers.len(), 4, "{answers:#?}");
    let cancelled = &answers[&format!("{:?}", RequestId::from(2))];
    assert_eq!(cancelled.1, Some(-32800), "{cancelled:?}");
    let answered = &answers[&format!("{:?}", RequestId::from(3))];
    assert!(
        answered.0.as_ref().is_some_and(|h| h["contents"]["value"]
            .as_str()
            .is_some_and(|v| v.contains("ntp::servers"))),
        "{answered:?}"
    );
}

/// Definition on a layer's `include` URI goes to the files it names, as the layers take them:
/// a site's bindings file, every module's for `module:/*::NAME`, nothing for an optional one
/// the tree lacks, and the `hiera.yaml` a `module-hiera:` URI reads the data of. Completion
/// in one offers the URIs of the tree's files.
#[test]
fn a_layers_include_leads_to_its_files() {
    let (mut editor, _) = Editor::initialized_quietly(&tree("valid_composition"), Value::Null);
    let site = "manifests/site.pp";
    let text = std::fs::read_to_string(editor.root.join(site)).expect("the site");
    let column = |line: usize, needle: &str| {
        let found = text.lines().nth(line).and_then(|l| l.find(needle));
        found.expect("the URI") as u32 + 2
    };
    let files = |editor: &mut Editor, line: usize, needle: &str| {
        let found = editor.request(
            "textDocument/definition",
            at(editor, site, line as u32, column(line, needle)),
        );
        let found = editor.portable_value(found);
        let mut uris: Vec<String> = found
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| l["uri"].as_str().map(str::to_string))
            .collect();
        uris.sort();
        uris
    };
    assert_eq!(
        files(&mut editor, 7, "'confdir:/default"),
        ["<root>/bindings/default.pp"]
    );
    assert!(files(&mut editor, 7, "'confdir:/optional").is_empty());
    assert_eq!(
        files(&mut editor, 8, "'module:/*::default"),
        [
            "<root>/modules/apache/bindings/default.pp",
            "<root>/modules/ntp/bindings/default.pp"
        ]
    );
    let completed = |editor: &mut Editor, line: usize, needle: &str| {
        let character = text.lines().nth(line).and_then(|l| l.find(needle));
        let character = (character.expect("the URI") + needle.len()) as u32;
        let answer = editor.request(
            "textDocument/completion",
            at(editor, site, line as u32, character),
        );
        let labels = completion_items(&answer, "/label");
        let details = completion_items(&answer, "/detail");
        labels
            .iter()
            .zip(&details)
            .map(|(label, detail)| format!("{label} {detail}"))
            .collect::<Vec<String>>()
    };
    assert_eq!(
        completed(&mut editor, 7, "'confdir:/d"),
        ["confdir:/default bindings/default.pp"]
    );
    assert_eq!(
        completed(&mut editor, 8, "'module:/"),
        [
            "module:/*::default the `default` bindings of every module that has them",
            "module:/apache::default modules/apache/bindings/default.pp",
            "module:/ntp::default modules/ntp/bindings/default.pp"
        ]
    );
    assert_eq!(editor.finish().0, Ended::Clean);

    let (mut editor, _) = Editor::initialized(&tree("hiera_config"), Value::Null);
    let on_disk = std::fs::read_to_string(editor.root.join(site)).expect("the site");
    let with_layers = on_disk.replace(
        "  }\n}\n",
        "  }\n  bindings => [layer { 'data': include => 'module-hiera:/good' }]\n}\n",
    );
    did_open(&editor, site, &with_layers);
    let _ = editor.published_so_far();
    let line = with_layers
        .lines()
        .position(|l| l.contains("module-hiera"))
        .expect("the layer") as u32;
    let character = with_layers
        .lines()
        .nth(line as usize)
        .and_then(|l| l.find("good"))
        .expect("good") as u32;
    let found = editor.request(
        "textDocument/definition",
        at(&editor, site, line, character),
    );
    let found = editor.portable_value(found);
    assert_eq!(
        found,
        json!([{"uri": "<root>/modules/good/hiera.yaml", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}}])
    );
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// A copy of the `site` example with `factsets` (file name, text) in its `facts/`; the
/// directory lives as long as the first value.
fn site_with_factsets(factsets: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let copy = tempfile::tempdir().expect("a directory");
    let root = copy.path().join("site");
    copy_tree(&example("site"), &root);
    std::fs::create_dir_all(root.join("facts")).expect("facts/");
    for (name, text) in factsets {
        std::fs::write(root.join("facts").join(name), text).expect("written");
    }
    (copy, root)
}

/// Completion of a category's value in a `when`: the values other `when`s name for it and
/// those its fact has in the nodes of the tree's `facts/` (quoted when the quote is not
/// written yet).
#[test]
fn category_values_are_completed_from_whens_and_factsets() {
    let (_copy, root) = site_with_factsets(&[
        (
            "web01.json",
            r#"{"datacenter": "eu-west", "fqdn": "web01.example.com"}"#,
        ),
        ("db01.yaml", "datacenter: us-east\nfqdn: db01.example.com\n"),
    ]);
    let (mut editor, _) = Editor::initialized_quietly(&root, Value::Null);
    let bindings = "bindings/default.pp";
    let text = std::fs::read_to_string(root.join(bindings)).expect("the bindings");
    let typed = text.replacen(
        "  include [ntp, ssh]\n",
        "  when datacenter 'eu\n  include [ntp, ssh]\n",
        1,
    );
    did_open(&editor, bindings, &typed);
    let _ = editor.published_so_far();
    let line = typed
        .lines()
        .position(|l| l == "  when datacenter 'eu")
        .expect("the line") as u32;
    let labels = |answer: &Value| -> Vec<(String, String)> {
        let written = completion_items(answer, "/textEdit/newText");
        written
            .into_iter()
            .zip(completion_items(answer, "/detail"))
            .collect()
    };
    let quoted = editor.request("textDocument/completion", at(&editor, bindings, line, 22));
    assert_eq!(
        labels(&quoted),
        // The `when` of `eu-west` is in the file, which does not parse while the string is
        // open: only the fact names it.
        [("eu-west".to_string(), "the fact of web01".to_string())],
        "{quoted:#}"
    );
    let bare = typed.replacen("  when datacenter 'eu\n", "  when datacenter \n", 1);
    did_change(&editor, bindings, 2, &bare);
    let _ = editor.published_so_far();
    let unquoted = editor.request("textDocument/completion", at(&editor, bindings, line, 18));
    let values: Vec<String> = labels(&unquoted).into_iter().map(|(v, _)| v).collect();
    assert_eq!(values, ["'eu-west'", "'us-east'"], "{unquoted:#}");
    // `node` is the fact `fqdn` (D8).
    let node = bare.replacen("  when datacenter \n", "  when node '\n", 1);
    did_change(&editor, bindings, 3, &node);
    let _ = editor.published_so_far();
    let nodes = editor.request("textDocument/completion", at(&editor, bindings, line, 13));
    let values: Vec<String> = labels(&nodes).into_iter().map(|(v, _)| v).collect();
    assert_eq!(
        values,
        ["db01.example.com", "web01.example.com"],
        "{nodes:#}"
    );
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// A data file that appears on disk (the manifests the same) is among the places references
/// name once the editor tells of it: the data files are those the last check read.
#[test]
fn references_follow_the_data_files_the_check_reads() {
    let copy = tempfile::tempdir().expect("a directory");
    let root = copy.path().join("control-repo");
    copy_tree(&example("control-repo"), &root);
    let (mut editor, _) = Editor::initialized_quietly(&root, json!({"node": "web01"}));
    let references = |editor: &mut Editor| {
        let mut params = at(editor, "data/common.yaml", 3, 3);
        params["context"] = json!({"includeDeclaration": true});
        let found = editor.request("textDocument/references", params);
        found.as_array().map_or(0, Vec::len)
    };
    let before = references(&mut editor);
    assert_eq!(before, 3);
    std::fs::create_dir_all(root.join("data/nodes")).expect("data/nodes");
    std::fs::write(
        root.join("data/nodes/web01.yaml"),
        "ntp::servers: [ntp.web01.example.com]\n",
    )
    .expect("written");
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": editor.uri("data/nodes/web01.yaml"), "type": 1}]}),
    );
    let _ = editor.published_so_far();
    assert_eq!(references(&mut editor), before + 1);
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// Whether the diagnostics published so far hold one with `code`.
fn published_code(published: &[Value], code: &str) -> bool {
    published.iter().any(|n| {
        n["params"]["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|d| d["code"] == code)
    })
}

/// Inside a binding's `{ }`, the options offered are those the checker lets that operation
/// have, less those written: every option is written in turn, and the check finds it not
/// applicable exactly when it was not offered.
#[test]
fn options_offered_are_those_the_check_accepts() {
    let (mut editor, _) = Editor::initialized_quietly(&example("site"), Value::Null);
    let bindings = "bindings/default.pp";
    let text = std::fs::read_to_string(editor.root.join(bindings)).expect("the bindings");
    let multibind = "  multibind Array[String], 'admins' as 'site::admins'";
    let bind = "  bind 'ntp::servers' to ['0.pool.ntp.org', '1.pool.ntp.org']";
    let line_of = |text: &str, start: &str| {
        text.lines()
            .position(|l| l.starts_with(start))
            .expect("the line") as u32
    };
    let mut version = 1;
    let mut offered_for = |editor: &mut Editor, operation: &str| {
        let typed = text.replacen(operation, &format!("{operation} {{ }}"), 1);
        version += 1;
        if version == 2 {
            did_open(editor, bindings, &typed);
        } else {
            did_change(editor, bindings, version, &typed);
        }
        let _ = editor.published_so_far();
        let line = line_of(&typed, operation);
        let column = operation.len() as u32 + 3;
        let answer = editor.request(
            "textDocument/completion",
            at(editor, bindings, line, column),
        );
        completion_items(&answer, "/label")
    };
    let for_multibind = offered_for(&mut editor, multibind);
    assert_eq!(
        for_multibind,
        [
            "combinator",
            "flatten",
            "uniq",
            "priority_on_named",
            "priority_on_unnamed",
            "transformer"
        ]
    );
    let for_bind = offered_for(&mut editor, bind);
    assert_eq!(for_bind, ["transformer"]);
    for (operation, offered) in [(multibind, &for_multibind), (bind, &for_bind)] {
        for option in puppet_bindings::validate::bindings::OPTIONS {
            let typed = text.replacen(
                operation,
                &format!("{operation} {{ {option} => undef }}"),
                1,
            );
            version += 1;
            did_change(&editor, bindings, version, &typed);
            let published = editor.published_so_far();
            assert_eq!(
                published_code(&published, "OPTION_NOT_APPLICABLE"),
                !offered.iter().any(|o| o == option),
                "`{option}` after `{operation}`: {published:#?}"
            );
        }
    }
    // An option written is not offered again; a word begun is completed.
    let typed = text.replacen(
        multibind,
        &format!("{multibind} {{ flatten => true, u }}"),
        1,
    );
    version += 1;
    did_change(&editor, bindings, version, &typed);
    let _ = editor.published_so_far();
    let line = line_of(&typed, multibind);
    let column = multibind.len() as u32 + 21;
    let answer = editor.request(
        "textDocument/completion",
        at(&editor, bindings, line, column),
    );
    assert_eq!(completion_items(&answer, "/label"), ["uniq"], "{answer:#}");
    let typed = text.replacen(
        multibind,
        &format!("{multibind} {{ flatten => true,  }}"),
        1,
    );
    version += 1;
    did_change(&editor, bindings, version, &typed);
    let _ = editor.published_so_far();
    let column = multibind.len() as u32 + 20;
    let answer = editor.request(
        "textDocument/completion",
        at(&editor, bindings, line, column),
    );
    assert_eq!(
        completion_items(&answer, "/label"),
        [
            "combinator",
            "uniq",
            "priority_on_named",
            "priority_on_unnamed",
            "transformer"
        ],
        "{answer:#}"
    );
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// A type being written: in a binding's key, the types pbc gives a key (each of which the
/// check accepts there); elsewhere, Puppet's and the tree's type aliases.
#[test]
fn types_are_completed_where_they_are_written() {
    let (mut editor, _) = Editor::initialized_quietly(&example("site"), Value::Null);
    let bindings = "bindings/default.pp";
    let text = std::fs::read_to_string(editor.root.join(bindings)).expect("the bindings");
    let typed = text.replacen(
        "  include [ntp, ssh]\n",
        "  bind S\n  include [ntp, ssh]\n",
        1,
    );
    did_open(&editor, bindings, &typed);
    let _ = editor.published_so_far();
    let line = typed
        .lines()
        .position(|l| l == "  bind S")
        .expect("the line") as u32;
    let answer = editor.request("textDocument/completion", at(&editor, bindings, line, 8));
    assert_eq!(
        completion_items(&answer, "/label"),
        ["String"],
        "{answer:#}"
    );
    let answer = editor.request("textDocument/completion", at(&editor, bindings, line, 7));
    assert!(answer.is_null(), "{answer:#}");
    // Every type offered in a key, bound: the check has nothing to say of the types.
    let typed = text.replacen("  bind A\n", "", 1).replacen(
        "  include [ntp, ssh]\n",
        "  bind Hash[String, A]\n  include [ntp, ssh]\n",
        1,
    );
    did_change(&editor, bindings, 2, &typed);
    let _ = editor.published_so_far();
    let line = typed
        .lines()
        .position(|l| l.starts_with("  bind Hash[String, A]"))
        .expect("the line") as u32;
    let answer = editor.request("textDocument/completion", at(&editor, bindings, line, 21));
    assert_eq!(
        completion_items(&answer, "/label"),
        ["Array", "Any"],
        "{answer:#}"
    );
    let mut all = Vec::new();
    for letter in 'A'..='Z' {
        let typed = text.replacen(
            "  include [ntp, ssh]\n",
            &format!("  bind {letter}\n  include [ntp, ssh]\n"),
            1,
        );
        did_change(&editor, bindings, 3, &typed);
        let _ = editor.published_so_far();
        let answer = editor.request("textDocument/completion", at(&editor, bindings, line, 8));
        all.extend(completion_items(&answer, "/label"));
    }
    assert_eq!(all.len(), puppet_bindings::types::KEY_TYPES.len());
    let keys: String = all
        .iter()
        .enumerate()
        .map(|(i, t)| match t.as_str() {
            "Class" => format!("  bind Class[ntp], 'k{i}' to undef\n"),
            "Type" => format!("  bind Type[Ntp], 'k{i}' to producer undef\n"),
            _ => format!("  bind {t}, 'k{i}' to undef\n"),
        })
        .collect();
    let typed = text.replacen("  include [ntp, ssh]\n", &keys, 1);
    did_change(&editor, bindings, 4, &typed);
    let published = editor.published_so_far();
    for code in [
        "UNKNOWN_TYPE",
        "WRONG_TYPE_PARAMETER_COUNT",
        "RESERVED_TYPE_NAME",
        "PARSE_ERROR",
    ] {
        assert!(!published_code(&published, code), "{code}: {published:#?}");
    }
    // Outside a binding, Puppet's types: a parameter's type on the site's last line.
    let site = "manifests/site.pp";
    let on_last_line = |editor: &mut Editor, typed: &str, column: u32| {
        let _ = editor.published_so_far();
        let line = typed.lines().count() as u32 - 1;
        let params = at(editor, site, line, column);
        editor.request("textDocument/completion", params)
    };
    let text = std::fs::read_to_string(editor.root.join(site)).expect("the site");
    let typed = format!("{text}\nclass motd(Opt) {{}}\n");
    did_open(&editor, site, &typed);
    let answer = on_last_line(&mut editor, &typed, 14);
    assert_eq!(
        completion_items(&answer, "/label"),
        ["Optional"],
        "{answer:#}"
    );
    // And the type aliases the tree declares, with where.
    let typed = format!("{text}\ntype Motd::Line = String[1]\nclass motd(Mo) {{}}\n");
    did_change(&editor, site, 2, &typed);
    let answer = on_last_line(&mut editor, &typed, 13);
    assert_eq!(
        completion_items(&answer, "/label"),
        ["Motd::Line"],
        "{answer:#}"
    );
    assert_eq!(
        completion_items(&answer, "/detail"),
        ["type alias, manifests/site.pp"],
        "{answer:#}"
    );
    assert_eq!(editor.finish().0, Ended::Clean);
}

/// Facts are completed after `$`, `$::` and inside `$facts[...]`, also in an interpolation:
/// from every factset of the tree's `facts/` (with how many have each), or from the one the
/// settings choose (with its value).
#[test]
fn facts_are_completed_from_the_factsets() {
    let (_copy, root) = site_with_factsets(&[
        (
            "web01.json",
            r#"{"datacenter": "eu-west", "fqdn": "web01.example.com",
                "os": {"family": "Debian", "release": {"major": "12"}}}"#,
        ),
        (
            "db01.yaml",
            "datacenter: us-east\nfqdn: db01.example.com\nos:\n  family: RedHat\n",
        ),
    ]);
    let bindings = "bindings/default.pp";
    let text = std::fs::read_to_string(root.join(bindings)).expect("the bindings");
    let lines = [
        "  bind 'motd' to \"Hello ${facts['os']['",
        "  bind 'motd' to \"Hello ${facts['os']['release']['m",
        "  bind 'motd' to $::d",
        "  bind 'motd' to \"${f",
    ];
    let mut answers = serde_json::Map::new();
    for (settings, name) in [
        (Value::Null, "every factset"),
        (json!({"node": "web01"}), "web01"),
    ] {
        let (mut editor, _) = Editor::initialized_quietly(&root, settings);
        let mut got = Vec::new();
        for (version, written) in lines.iter().enumerate() {
            let typed = text.replacen(
                "  include [ntp, ssh]\n",
                &format!("{written}\n  include [ntp, ssh]\n"),
                1,
            );
            if version == 0 {
                did_open(&editor, bindings, &typed);
            } else {
                did_change(&editor, bindings, version as i32 + 1, &typed);
            }
            let _ = editor.published_so_far();
            let line = typed.lines().position(|l| l == *written).expect("the line") as u32;
            let answer = editor.request(
                "textDocument/completion",
                at(&editor, bindings, line, written.len() as u32),
            );
            let labels = completion_items(&answer, "/label");
            let details = completion_items(&answer, "/detail");
            got.push(json!([written, labels, details]));
        }
        assert_eq!(editor.finish().0, Ended::Clean);
        answers.insert(name.into(), Value::Array(got));
    }
    let every = &answers["every factset"];
    assert_eq!(every[0][1], json!(["family", "release"]), "{every:#}");
    assert_eq!(
        every[0][2],
        json!(["in 2 of 2 factsets", "in 1 of 2 factsets"])
    );
    assert_eq!(every[1][1], json!(["major"]));
    assert_eq!(every[2][1], json!(["datacenter"]));
    assert_eq!(every[3][1], json!(["fqdn"]));
    let web01 = &answers["web01"];
    assert_eq!(
        web01[0][2],
        json!(["Debian", "{'major' => '12'}"]),
        "{web01:#}"
    );
    snapshot("lsp@facts", &Value::Object(answers));
}

/// Every file of `dir` (recursively, in name order) that binds something: a manifest with a
/// `bind` line, or a data file with a top-level key.
fn files_that_bind(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_that_bind(&path, out);
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        let binds = match path.extension().and_then(|e| e.to_str()) {
            Some("pp") => text.lines().any(|l| l.trim_start().starts_with("bind")),
            Some("yaml") if !path.ends_with("hiera.yaml") => text
                .lines()
                .any(|l| l.starts_with(|c: char| c.is_alphanumeric())),
            _ => false,
        };
        if binds {
            out.push(path);
        }
    }
}

/// The edits made to a file in turn at each of `lines` (`None`: the first line that binds):
/// a binding doubled, removed, broken (a syntax error), and written back as it was. For a
/// manifest, lines that bind; for a data file, top-level keys' lines.
fn edits_of(text: &str, manifest: bool, every_line: bool) -> Vec<String> {
    let lines: Vec<&str> = text.lines().collect();
    let binds = |l: &&str| {
        if manifest {
            // A `bind` or `multibind`, not the block's `bindings NAME {` (doubled, it would
            // leave the file unparsable, and every finding of its layer held back).
            let l = l.trim_start();
            (l.starts_with("bind") && !l.starts_with("bindings")) || l.starts_with("multibind")
        } else {
            l.starts_with(|c: char| c.is_alphanumeric())
        }
    };
    let at: Vec<usize> = (0..lines.len()).filter(|&i| binds(&lines[i])).collect();
    let at = if every_line {
        &at[..]
    } else {
        &at[..at.len().min(1)]
    };
    let with = |f: &dyn Fn(&mut Vec<String>)| {
        let mut changed: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        f(&mut changed);
        changed.join("\n") + "\n"
    };
    let mut edits = Vec::new();
    for &at in at {
        let line = lines[at].to_string();
        edits.push(with(&|l| l.insert(at, line.clone())));
        edits.push(with(&|l| {
            l.remove(at);
        }));
        edits.push(with(&|l| l[at] = format!("x{}", l[at])));
        edits.push(text.to_string());
    }
    edits
}

/// A tree's diagnostics as the language server publishes them, in one order.
fn published(workspace: &puppet_bindings::ide::Workspace) -> Vec<String> {
    in_one_order(workspace.check().expect("the tree is checked"))
}

fn in_one_order(checked: puppet_bindings::ide::TreeDiagnostics) -> Vec<String> {
    let mut all: Vec<String> = checked
        .files
        .iter()
        .flat_map(|f| {
            f.diagnostics
                .iter()
                .map(move |d| format!("{}: {d:?}", f.path.display()))
        })
        .chain(checked.without_place)
        .collect();
    all.sort();
    all
}

/// Each edit of [`edits_of`] made to each of `files` of `tree` in turn, in one server that
/// keeps the disk between checks (as with an editor that watches the files), whose
/// diagnostics after each are held to those of a server that starts afresh on the same
/// buffers (and keeps nothing). Every other file's last edit is a doubled binding left in
/// place: edits pile up.
/// (edits made, edits after which fewer keys were judged than afresh)
fn edited_in_turn(tree: &Path, files: &[PathBuf], every_line: bool) -> (usize, usize) {
    let options = puppet_bindings::Options::default;
    let (mut edits, mut judged_less) = (0, 0);
    let mut kept = puppet_bindings::ide::Workspace::new(tree, options());
    // As an editor that watches the files has it: the disk is kept between checks.
    kept.keep_disk(true);
    let mut buffers: Vec<(PathBuf, String)> = Vec::new();
    let _ = published(&kept);
    for (n, file) in files.iter().enumerate() {
        let text = std::fs::read_to_string(file).expect("the file");
        let manifest = file.extension().is_some_and(|e| e == "pp");
        let mut all = edits_of(&text, manifest, every_line);
        if n % 2 == 1 && all.len() >= 4 {
            let doubled = all[0].clone();
            if let Some(last) = all.last_mut() {
                *last = doubled;
            }
        }
        for (version, edited) in all.into_iter().enumerate() {
            kept.set_text(file.clone(), edited.clone(), version as i32 + 1);
            buffers.retain(|(p, _)| p != file);
            buffers.push((file.clone(), edited));
            let with_memo = published(&kept);
            let judged = kept.keys_judged_last();
            // The memo shares the check's texts: the tree's text is held once.
            assert_eq!(
                kept.texts_copied(),
                0,
                "{} after edit {version} of {}",
                tree.display(),
                file.display()
            );
            // A server starting afresh judges every key of the tree.
            let mut fresh = puppet_bindings::ide::Workspace::new(tree, options());
            for (path, text) in &buffers {
                fresh.set_text(path.clone(), text.clone(), 1);
            }
            let without = published(&fresh);
            if judged < fresh.keys_judged_last() {
                judged_less += 1;
            }
            assert_eq!(
                with_memo,
                without,
                "{} after edit {version} of {}",
                tree.display(),
                file.display()
            );
            edits += 1;
        }
    }
    (edits, judged_less)
}

/// The language server judges again only the keys an edit can change (the memo of the
/// composition's judgement), and that is never seen: over every corpus tree and example,
/// each file that binds something is edited in turn (its first binding doubled, removed,
/// broken, written back), and after every edit the diagnostics are those of a server that
/// starts afresh on the same buffers.
#[test]
fn judging_again_only_what_an_edit_changes_finds_what_judging_everything_finds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut trees: Vec<PathBuf> = std::fs::read_dir(root.join("corpus/check/trees"))
        .expect("the corpus trees")
        .flatten()
        .map(|e| e.path())
        .collect();
    trees.sort();
    for name in ["site", "control-repo", "quickstart", "data-in-modules"] {
        trees.push(example(name));
    }
    let (mut edits, mut judged_less) = (0, 0);
    for tree in trees {
        let mut files = Vec::new();
        files_that_bind(&tree, &mut files);
        let (made, less) = edited_in_turn(&tree, &files, false);
        edits += made;
        judged_less += less;
    }
    assert!(edits > 100, "{edits} edits");
    // The memo is used: edits of bindings files judge fewer keys than a server starting
    // afresh. (Edits of the site, a `binder_config.yaml`, Hiera 5 data or another
    // environment's files judge everything again, by design: a third of these.)
    assert!(
        judged_less * 3 > edits,
        "{judged_less} of {edits} edits judged fewer keys"
    );
}

/// The language server holds the tree's text once, shared by the check that read it, the
/// memo of its parses and the memo of its judgement: from the first check (before the editor
/// says it watches the files), once the files read are kept between checks, after a save, and
/// with a buffer edited.
#[test]
fn the_tree_text_is_held_once() {
    let copy = tempfile::tempdir().expect("a directory");
    let tree = copy.path().join("quickstart");
    copy_tree(&example("quickstart"), &tree);
    let mut workspace = puppet_bindings::ide::Workspace::new(&tree, Default::default());
    let first = published(&workspace);
    assert_eq!(workspace.texts_copied(), 0, "the first check");
    // The editor watches the files: the next check reads them into the kept disk, and the
    // memos take those copies in place of their own.
    workspace.keep_disk(true);
    assert_eq!(published(&workspace), first);
    assert_eq!(workspace.texts_copied(), 0, "the files kept between checks");
    assert_eq!(published(&workspace), first);
    assert_eq!(workspace.texts_copied(), 0, "a check of kept files");
    workspace.files_changed();
    assert_eq!(published(&workspace), first);
    assert_eq!(workspace.texts_copied(), 0, "after a save");
    // A file created on disk is read once the editor says so: what the last checks kept of
    // the site's files (the walks, the files chosen) is forgotten.
    let created = tree.join("modules/zz/bindings/default.pp");
    std::fs::create_dir_all(created.parent().expect("a directory")).expect("created");
    std::fs::write(&created, "bindings zz::default {\n  bind\n}\n").expect("written");
    workspace.files_changed();
    let with_created = published(&workspace);
    assert_ne!(with_created, first);
    assert!(
        with_created.iter().any(|d| d.contains("zz")),
        "{with_created:#?}"
    );
    let afresh = puppet_bindings::ide::Workspace::new(&tree, Default::default());
    assert_eq!(with_created, published(&afresh));
    assert_eq!(workspace.texts_copied(), 0, "after a file is created");
    let file = tree.join("bindings/default.pp");
    let text = std::fs::read_to_string(&file).expect("the site's bindings");
    workspace.set_text(file, format!("{text}\n"), 1);
    let _ = published(&workspace);
    assert_eq!(workspace.texts_copied(), 0, "a buffer edited");
}

/// While the disk is kept, the language server holds each file's name once: the walk that
/// found the file, the check's source map and the memos of its parses and its judgement share
/// it. Without the kept disk each check names the files anew, and the memos take its names.
/// A tree without environments and a site (whose walk is its own).
#[test]
fn each_file_name_is_held_once() {
    for name in ["quickstart", "site"] {
        let copy = tempfile::tempdir().expect("a directory");
        let tree = copy.path().join(name);
        copy_tree(&example(name), &tree);
        let mut workspace = puppet_bindings::ide::Workspace::new(&tree, Default::default());
        let first = published(&workspace);
        let _ = published(&workspace);
        assert!(
            workspace.names_copied() > 0,
            "{name}: without the kept disk, each check names the files anew"
        );
        workspace.keep_disk(true);
        assert_eq!(published(&workspace), first);
        assert_eq!(published(&workspace), first);
        assert_eq!(workspace.names_copied(), 0, "{name}: the kept walk");
        let file = tree.join("bindings/default.pp");
        let text = std::fs::read_to_string(&file).expect("the site's bindings");
        workspace.set_text(file, format!("{text}\n"), 1);
        let _ = published(&workspace);
        assert_eq!(workspace.names_copied(), 0, "{name}: a buffer edited");
        workspace.files_changed();
        let _ = published(&workspace);
        let _ = published(&workspace);
        assert_eq!(workspace.names_copied(), 0, "{name}: walked again and kept");
    }
}

/// A buffer open when the disk's files were first kept, then closed: the file is read as it
/// is on disk again, not as the buffer held it.
#[test]
fn a_buffer_closed_gives_its_file_back() {
    let copy = tempfile::tempdir().expect("a directory");
    let root = copy.path().join("site");
    copy_tree(&example("site"), &root);
    let file = root.join("bindings/default.pp");
    let mut kept = puppet_bindings::ide::Workspace::new(&root, Default::default());
    kept.keep_disk(true);
    let on_disk = published(&kept);
    kept.set_text(
        file.clone(),
        "bindings default {\n  bind\n}\n".to_string(),
        1,
    );
    // The disk kept anew: the next check chooses the site's files (and keeps their texts)
    // with the buffer open.
    kept.keep_disk(true);
    let broken = published(&kept);
    assert_ne!(broken, on_disk);
    kept.close(&file);
    assert_eq!(published(&kept), on_disk);
}

/// An edit of environments.pp that lays an environment out anew is checked over the files of
/// the new layout, though the disk is kept between checks (as for an editor that watches the
/// files) and the files of the last layout were kept with it.
#[test]
fn an_environment_laid_out_anew_in_a_buffer_reads_the_files_of_its_new_layout() {
    let copy = tempfile::tempdir().expect("a directory");
    let root = copy.path().join("site");
    copy_tree(&example("site"), &root);
    let module = root.join("other/m/bindings/default.pp");
    std::fs::create_dir_all(module.parent().expect("a directory")).expect("created");
    std::fs::write(
        &module,
        "bindings m::default {\n  bind 'x' to 1\n  bind 'x' to 2\n}\n",
    )
    .expect("written");
    let mut kept = puppet_bindings::ide::Workspace::new(&root, Default::default());
    kept.keep_disk(true);
    let twice = |published: &[String]| published.iter().any(|d| d.contains("bound twice"));
    assert!(!twice(&published(&kept)), "`other` is on no modulepath yet");
    let environments = root.join("environments.pp");
    let text = std::fs::read_to_string(&environments).expect("environments.pp");
    let laid_out_anew = text.replace("'modules/dist:modules/site'", "'other'");
    assert_ne!(laid_out_anew, text);
    kept.set_text(environments.clone(), laid_out_anew.clone(), 1);
    let after = published(&kept);
    assert!(twice(&after), "{after:#?}");
    let mut afresh = puppet_bindings::ide::Workspace::new(&root, Default::default());
    afresh.set_text(environments, laid_out_anew, 1);
    assert_eq!(after, published(&afresh));
}

/// The same, on a tree whose keys reach across files and layers: a multibind collecting
/// contributions of three files (names that collide), an abstract binding made concrete in
/// another module and overridden from the site, a key every file binds, under a `when` too,
/// one under a `when` in a `when`,
/// a typed key whose name holds a `/` (its id, `Any/path/to`, is read back for its name).
/// Every line that binds is edited in turn.
#[test]
fn judging_again_follows_keys_across_files_and_layers() {
    let copy = tempfile::tempdir().expect("a directory");
    let tree = copy.path().join("quickstart");
    copy_tree(&example("quickstart"), &tree);
    let files = [
        (
            "bindings/default.pp",
            "bindings default {\n  multibind Array[String], 'admins' as 'site::admins'\n  bind to 'root' in 'site::admins'\n  bind override 'ntp::servers' to ['site']\n  bind 'dns' to 'site'\n}\n",
        ),
        (
            "modules/a/bindings/default.pp",
            "bindings a::default {\n  bind 'alice' to 'a' in 'site::admins'\n  bind abstract 'ntp::servers'\n  bind 'dns' to 'a'\n  multibind Hash[String, Integer], 'limits'\n  bind Any, 'path/to' to 'a'\n}\n",
        ),
        (
            "modules/b/bindings/default.pp",
            "bindings b::default {\n  bind 'alice' to 'b' in 'site::admins'\n  bind 'ntp::servers' to ['b']\n  bind 'dns' to 'b'\n  bind 'cpu' to 4 in 'limits'\n  when datacenter 'eu-west' {\n    bind 'dns' to 'eu'\n    bind 'pool' to 'eu'\n    when node 'web1' {\n      bind 'pool' to 'eu-web1'\n    }\n  }\n}\n",
        ),
        (
            "modules/c/bindings/default.pp",
            "bindings c::default {\n  bind 'cpu' to 8 in 'limits'\n  bind 'mem' to 2 in 'limits'\n  bind 'bob' to 'c' in 'site::admins'\n  bind Any, 'path/to' to 'c'\n  when node 'web1' {\n    bind 'pool' to 'c'\n  }\n}\n",
        ),
        // Binding none of the others' keys, a contribution in a `when` only: what another
        // file's edit judges again reads it all the same.
        (
            "modules/f/bindings/default.pp",
            "bindings f::default {\n  bind 'f' to 1\n  when node 'web1' {\n    bind 'f' to 2\n    bind 'carol' to 'f' in 'site::admins'\n    bind 'carol' to 'g' in 'site::admins'\n  }\n}\n",
        ),
    ];
    let mut paths = Vec::new();
    for (path, text) in files {
        let path = tree.join(path);
        std::fs::create_dir_all(path.parent().expect("a directory")).expect("created");
        std::fs::write(&path, text).expect("written");
        paths.push(path);
    }
    let first = published(&puppet_bindings::ide::Workspace::new(
        &tree,
        puppet_bindings::Options::default(),
    ));
    assert!(
        first
            .iter()
            .any(|d| d.contains("`Any, 'path/to'` is bound twice")),
        "{first:#?}"
    );
    assert!(
        first.iter().any(|d| d.contains("named 'carol'")),
        "{first:#?}"
    );
    let (edits, judged_less) = edited_in_turn(&tree, &paths, true);
    assert!(edits >= 60, "{edits} edits");
    assert!(judged_less > 0, "{judged_less} of {edits}");
    // A multibind declared where there was none, for contributions two other files made
    // already (two of one name), and then a plain binding of its key beside it.
    let declaring = tree.join("modules/d/bindings/default.pp");
    std::fs::create_dir_all(declaring.parent().expect("a directory")).expect("created");
    std::fs::write(&declaring, "bindings d::default {\n  bind 'd' to 1\n}\n").expect("written");
    for (file, extra) in [("b", 1), ("c", 2)] {
        let path = tree.join(format!("modules/{file}/bindings/default.pp"));
        let text = std::fs::read_to_string(&path).expect("the file");
        let text = text.replacen("{\n", &format!("{{\n  bind 'x' to {extra} in 'extra'\n"), 1);
        std::fs::write(&path, text).expect("written");
    }
    let kept = puppet_bindings::ide::Workspace::new(&tree, puppet_bindings::Options::default());
    let _ = published(&kept);
    let declared =
        "bindings d::default {\n  bind 'd' to 1\n  multibind Hash[String, Integer], 'extra'\n}\n";
    let bound_too = "bindings d::default {\n  bind 'd' to 1\n  multibind Hash[String, Integer], 'extra'\n  bind 'x' to 3 in 'extra'\n}\n";
    // (abstract, in a file that neither collects nor contributes to `extra`: the multibind
    // still wins, and its contributions are judged)
    let plain = "bindings e::default {\n  bind abstract 'extra'\n}\n";
    let other = tree.join("modules/e/bindings/default.pp");
    std::fs::create_dir_all(other.parent().expect("a directory")).expect("created");
    std::fs::write(&other, "bindings e::default {\n  bind 'e' to 1\n}\n").expect("written");
    let mut kept = kept;
    let mut buffers = Vec::new();
    for (path, text) in [
        (declaring.clone(), declared),
        (declaring.clone(), bound_too),
        (other.clone(), plain),
    ] {
        kept.set_text(path.clone(), text.to_string(), 2);
        buffers.retain(|(p, _): &(PathBuf, String)| *p != path);
        buffers.push((path, text.to_string()));
        let expected = in_one_order(kept.check_afresh().expect("the tree is checked"));
        assert!(
            expected.iter().any(|d| d.contains("`extra`")),
            "{expected:#?}"
        );
        assert_eq!(published(&kept), expected);
    }
}

/// `textDocument/formatting` lays out the buffer as `pbc fmt` does, as one edit the editor
/// applies; a buffer laid out already gets no edit, one that does not parse none at all.
#[test]
fn formatting_lays_out_the_buffer_as_pbc_fmt_does() {
    let (mut editor, _) = Editor::initialized_quietly(&example("site"), Value::Null);
    let file = "bindings/default.pp";
    let messy = "bindings default {\nbind 'ntp::servers'   to ['a']\n      when datacenter 'eu' {\nbind 'dns' to 'eu'   \n}\n}\n";
    did_open(&editor, file, messy);
    let _ = editor.published_so_far();
    let format = |editor: &mut Editor| {
        editor.request(
            "textDocument/formatting",
            json!({"textDocument": {"uri": editor.uri(file)}, "options": {"tabSize": 2, "insertSpaces": true}}),
        )
    };
    let answer = format(&mut editor);
    let edits = answer.as_array().expect("edits").clone();
    assert_eq!(edits.len(), 1, "{answer}");
    let laid_out = apply_edits(messy, &edits);
    assert_eq!(
        laid_out,
        "bindings default {\n  bind 'ntp::servers' to ['a']\n  when datacenter 'eu' {\n    bind 'dns' to 'eu'\n  }\n}\n"
    );
    did_change(&editor, file, 2, &laid_out);
    let _ = editor.published_so_far();
    assert_eq!(format(&mut editor), json!([]));
    did_change(&editor, file, 3, "bindings default {\n");
    let _ = editor.published_so_far();
    assert_eq!(format(&mut editor), Value::Null);
}

/// The tree loaded for a node's hovers keeps each file's parse and block for the next load,
/// which parses and lowers only the files changed since. Loaded so, it answers every key as
/// `pbc lookup --explain` (which loads the tree whole) does, before and after each change: its
/// value, its evaluation error at its place, what it logs.
#[test]
fn a_tree_loaded_again_loads_only_what_changed_and_answers_as_lookup_does() {
    let copy = tempfile::tempdir().expect("a directory");
    let root = copy.path().join("errors");
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/lookup/trees/errors");
    copy_tree(&corpus, &root);
    let mut workspace = puppet_bindings::ide::Workspace::new(&root, Default::default());
    let _ = workspace.explain("role", false, Some(DB01));
    let files = workspace.lookups_parsed_last();
    assert!(files >= 2, "the first load parses every file ({files})");
    answers_as_lookup_does(&workspace, &root, "first loaded");
    let bindings = root.join("bindings/default.pp");
    let text = std::fs::read_to_string(&bindings).expect("the bindings");
    let edits = [
        (
            "a value changed",
            text.replace("bind 'cpu' to 16", "bind 'cpu' to 32"),
        ),
        (
            "a binding added",
            text.replace(
                "bindings default {",
                "bindings default {\n  bind 'added' to 1 + 2",
            ),
        ),
        (
            "an evaluation error moved",
            text.replace(
                "bind 'type_error' to 1 + 'a'",
                "\n\n  bind 'type_error' to 'a' + [1]",
            ),
        ),
        ("as it was", text.clone()),
    ];
    for (when, edited) in edits {
        assert_ne!(edited, std::fs::read_to_string(&bindings).expect("read"));
        std::fs::write(&bindings, edited).expect("written");
        workspace.files_changed();
        let _ = workspace.explain("role", false, Some(DB01));
        assert_eq!(
            workspace.lookups_parsed_last(),
            1,
            "{when}: only the file changed is loaded again"
        );
        answers_as_lookup_does(&workspace, &root, when);
    }
}

/// After a change, `load_ahead` loads the tree again for the node of the last hover, and the
/// next hovers answer from it, without a load of their own, as `pbc lookup --explain` does.
/// With nothing hovered yet, or nothing changed, it loads nothing.
#[test]
fn a_tree_loaded_ahead_answers_the_next_hovers_as_lookup_does() {
    use puppet_bindings::ide::LoadAhead;
    let copy = tempfile::tempdir().expect("a directory");
    let root = copy.path().join("errors");
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/lookup/trees/errors");
    copy_tree(&corpus, &root);
    let mut workspace = puppet_bindings::ide::Workspace::new(&root, Default::default());
    assert_eq!(
        workspace.load_ahead(),
        LoadAhead::Nothing,
        "nothing hovered"
    );
    let _ = workspace.explain("port", false, Some(DB01));
    assert_eq!(workspace.trees_loaded(), 1);
    assert_eq!(
        workspace.load_ahead(),
        LoadAhead::Nothing,
        "nothing changed"
    );
    let bindings = root.join("bindings/default.pp");
    let text = std::fs::read_to_string(&bindings).expect("the bindings");
    let edited = text.replace("'port' to $::port_fact", "'port' to 8080");
    assert_ne!(edited, text);
    std::fs::write(&bindings, edited).expect("written");
    workspace.files_changed();
    assert_eq!(workspace.load_ahead(), LoadAhead::Started);
    assert_eq!(workspace.trees_loaded(), 2);
    let facts = root.join(format!("facts/{DB01}.json"));
    explained_as_lookup_does(&workspace, &root, DB01, &facts, "port", "loaded ahead");
    let port = workspace.explain("port", false, Some(DB01)).explanation;
    assert!(port.contains("value: 8080"), "{port}");
    assert_eq!(
        workspace.trees_loaded(),
        2,
        "the hovers asked the tree loaded ahead"
    );
    assert_eq!(workspace.lookups_parsed_last(), 1, "only the file changed");
    assert_eq!(workspace.load_ahead(), LoadAhead::Nothing, "loaded already");
    // A change while a tree loads ahead stops that load; the hover after it loads the tree
    // as it is now.
    let edited = text.replace("'port' to $::port_fact", "'port' to 8081");
    std::fs::write(&bindings, edited).expect("written");
    workspace.files_changed();
    assert_eq!(workspace.load_ahead(), LoadAhead::Started);
    let edited = text.replace("'port' to $::port_fact", "'port' to 8082");
    std::fs::write(&bindings, edited).expect("written");
    workspace.files_changed();
    explained_as_lookup_does(
        &workspace,
        &root,
        DB01,
        &facts,
        "port",
        "changed while loading",
    );
    let port = workspace.explain("port", false, Some(DB01)).explanation;
    assert!(port.contains("value: 8082"), "{port}");
}

/// The server loads the tree for hovers again once the editor has been quiet for a while
/// after a change: a hover after the pause answers from the tree loaded then. The node's facts
/// file, changed on disk after the pause (and not told of), shows which load answered: the
/// tree loaded ahead read the facts before the change, a hover's own load reads them after.
#[test]
fn after_a_pause_a_hover_answers_from_the_tree_loaded_ahead() {
    let copy = tempfile::tempdir().expect("a directory");
    let root = copy.path().join("site");
    copy_tree(&example("site"), &root);
    std::fs::create_dir_all(root.join("facts")).expect("a directory");
    let facts = root.join("facts/web01.json");
    std::fs::write(&facts, r#"{"datacenter": "us-east"}"#).expect("written");
    // Nothing watches the tree: the facts written behind the editor's back show which tree
    // answered, the one loaded ahead or one loaded for the hover.
    let (mut editor, _) =
        Editor::initialized_quietly(&root, json!({"node": "web01", "watch": false}));
    let file = "bindings/default.pp";
    let hover = |editor: &mut Editor| {
        let answer = editor.request("textDocument/hover", at(editor, file, 1, 10));
        answer["contents"]["value"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    let pool = r#"value: ["0.pool.ntp.org","#;
    let eu_west = r#"value: ["ntp.eu-west.example.com"]"#;
    let first = hover(&mut editor);
    assert!(first.contains(pool), "{first}");
    let text = std::fs::read_to_string(root.join(file)).expect("the file");
    did_open(&editor, file, &format!("{text}# typed\n"));
    let _ = editor.published_so_far();
    // Well past the server's wait (250 ms) and the load.
    std::thread::sleep(Duration::from_secs(2));
    std::fs::write(&facts, r#"{"datacenter": "eu-west"}"#).expect("written");
    let after_the_pause = hover(&mut editor);
    assert!(
        after_the_pause.contains(pool),
        "the tree loaded ahead answers: {after_the_pause}"
    );
    // Without a pause, the hover loads the tree itself, with the facts as they are now (told
    // of, so that the hover does not wait for the look at the disk behind the check).
    editor.notify(
        "workspace/didChangeWatchedFiles",
        json!({"changes": [{"uri": editor.uri("facts/web01.json"), "type": 2}]}),
    );
    did_change(&editor, file, 2, &format!("{text}# typed again\n"));
    let _ = editor.published_so_far();
    let at_once = hover(&mut editor);
    assert!(at_once.contains(eu_west), "{at_once}");
    assert_eq!(editor.finish().0, Ended::Clean);
}

const DB01: &str = "db01.example.com";

/// Each key of the lookup corpus's `errors` tree (and two it does not bind) explained by
/// `workspace` for db01 as `pbc lookup --explain` explains it.
fn answers_as_lookup_does(workspace: &puppet_bindings::ide::Workspace, root: &Path, when: &str) {
    let keys = [
        "type_error",
        "no_match",
        "failing",
        "strict_only",
        "misspelt",
        "loop_a",
        "port",
        "limits",
        "role",
        "noisy",
        "added",
        "unbound",
    ];
    let facts = root.join(format!("facts/{DB01}.json"));
    for key in keys {
        explained_as_lookup_does(workspace, root, DB01, &facts, key, when);
    }
}

/// Every tree of the lookup corpus, for up to two of its nodes: each key `pbc lookup --all`
/// answers is explained by the tree loaded for the node as `pbc lookup --explain` explains it,
/// and so again after a line is added at the top of one of its bindings files (which moves
/// every binding of that file: a block kept from before the change would place them wrong),
/// and once the file is as it was.
#[test]
fn every_tree_loaded_again_answers_as_lookup_does() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/lookup/trees");
    let mut trees: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("the lookup corpus")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.join("facts").is_dir())
        .collect();
    trees.sort();
    let mut compared = 0;
    for tree in trees {
        let copy = tempfile::tempdir().expect("a directory");
        let root = copy.path().join(tree.file_name().expect("a name"));
        copy_tree(&tree, &root);
        let mut nodes: Vec<(String, PathBuf)> = std::fs::read_dir(root.join("facts"))
            .expect("facts")
            .map(|e| e.expect("an entry").path())
            .filter_map(|p| Some((p.file_stem()?.to_str()?.to_string(), p.clone())))
            .collect();
        nodes.sort();
        nodes.truncate(2);
        let bindings_files = crate::common::files_below(&root, |path| {
            path.extension().is_some_and(|e| e == "pp")
                && std::fs::read_to_string(path).is_ok_and(|t| t.contains("bindings "))
        });
        let mut workspace = puppet_bindings::ide::Workspace::new(&root, Default::default());
        for (node, facts) in nodes {
            let all = puppet_bindings::inject::query::LookupOptions {
                tree: root.clone(),
                facts: Some(facts.clone()),
                node: Some(node.clone()),
                all: true,
                json: true,
                ..Default::default()
            };
            let answered = puppet_bindings::inject::command::run(&all, &Default::default());
            let keys: Vec<String> = serde_json::from_str::<Value>(&answered.stdout)
                .ok()
                .and_then(|v| v.as_object().cloned())
                .map(|o| o.keys().filter(|k| !k.starts_with('/')).cloned().collect())
                .unwrap_or_default();
            let Some(edited) = bindings_files.first() else {
                continue;
            };
            let text = std::fs::read_to_string(edited).expect("the bindings file");
            let name = root
                .file_name()
                .and_then(|n| n.to_str())
                .unwrap_or_default();
            for (when, now) in [
                ("as read", None),
                ("a line added", Some(format!("\n{text}"))),
                ("as it was", Some(text.clone())),
            ] {
                if let Some(now) = now {
                    std::fs::write(edited, now).expect("written");
                    workspace.files_changed();
                }
                for key in &keys {
                    let when = format!("{name}, {node}, {when}");
                    explained_as_lookup_does(&workspace, &root, &node, &facts, key, &when);
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 100, "{compared} keys compared");
}

/// `key` explained by `workspace` for `node` as `pbc lookup --explain` explains it with the
/// facts of `facts`, as text and as JSON.
fn explained_as_lookup_does(
    workspace: &puppet_bindings::ide::Workspace,
    root: &Path,
    node: &str,
    facts: &Path,
    key: &str,
    when: &str,
) {
    for json in [false, true] {
        let kept = workspace.explain(key, json, Some(node));
        let lookup = puppet_bindings::inject::query::LookupOptions {
            tree: root.to_path_buf(),
            facts: Some(facts.to_path_buf()),
            node: Some(node.to_string()),
            keys: vec![key.to_string()],
            explain: true,
            json,
            ..Default::default()
        };
        let fresh = puppet_bindings::inject::command::run(&lookup, &Default::default());
        assert_eq!(
            kept.explanation, fresh.stdout,
            "{when}: `{key}`, json {json}"
        );
        assert_eq!(
            kept.said,
            fresh.stderr(false),
            "{when}: `{key}`, json {json}"
        );
    }
}
