//! Latency of `pbc lsp` as an editor meets it: `cargo bench --bench lsp [FILES]` (default
//! 10,000 bindings files, the generated tree of `common/mod.rs`). Runs the `pbc` binary over its
//! stdin and stdout, as an editor does, and prints:
//! - start to first diagnostics: `initialize` sent until the tree's first check is done (the
//!   answer to a request sent after `initialized`, which the server gives only after publishing
//!   the check's diagnostics);
//! - keystroke to diagnostics: a one-character edit of a module's bindings file until its new
//!   diagnostics are out (median of 10 edits, each alternately breaking and mending the file);
//! - hover with a node: keys of that file explained for a node (median of 5); the first hover
//!   of the session, which loads the tree for the node; and a hover after each of 6 edits of a
//!   bound value (median), which loads again only what the edit changed; and a hover after
//!   each of 6 more such edits and a pause of 500 ms (median), in which the server loads the
//!   tree again ahead of the hover;
//! - memory: the server's resident memory after the first check, per byte of the tree's source,
//!   again after the edits, and after the hovers, which keep the tree loaded for the node;
//! - references of a key and completion of a key being written: the first (which reads every
//!   file of the tree for its keys) and the median of 5 after it (which read only what changed);
//! - a file written outside the editor (a `git checkout`), then a keystroke: the time from the
//!   write to the file's diagnostics (told by the editor's watch, seen by the server's, or
//!   found by the look at the disk behind the keystroke's check).
//!
//! Each is measured three times: with an editor that watches the tree's files for the server
//! (the server then lists and reads the tree once and keeps it until told of a change), with
//! one that does not (the server watches them itself, to the same end), and with the setting
//! `watch` off (nothing watches: what is read is kept, and the disk is looked at again behind
//! the checks once the editor is quiet, `src/ide/look.rs`). The goals
//! (#60) are printed beside each figure.

mod common;

use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

struct Session {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
    next_id: i64,
}

impl Session {
    fn send(&mut self, message: Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("pbc reads");
        self.stdin.flush().expect("pbc reads");
    }

    fn receive(&mut self) -> Value {
        let mut length = 0;
        loop {
            let mut line = String::new();
            self.stdout.read_line(&mut line).expect("pbc writes");
            assert!(!line.is_empty(), "pbc lsp ended");
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = n.parse().expect("a length");
            }
        }
        let mut body = vec![0; length];
        self.stdout.read_exact(&mut body).expect("a body");
        serde_json::from_slice(&body).expect("JSON")
    }

    /// Sends a request and reads until its answer; the notifications before it are returned
    /// with it.
    fn request(&mut self, method: &str, params: Value) -> (Value, Vec<Value>) {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let mut before = Vec::new();
        loop {
            let message = self.receive();
            if message["id"] == id {
                return (message, before);
            }
            // The server's own requests (that the editor watch the tree's files) are
            // answered as an editor answers them.
            if message.get("method").is_some() && message.get("id").is_some() {
                self.send(json!({"jsonrpc": "2.0", "id": message["id"], "result": null}));
            }
            before.push(message);
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn resident_kb(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id()))
            .unwrap_or_default();
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let files = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(10_000);
    let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("lsp-{files}"));
    let spec = common::TreeSpec {
        files,
        bindings_per_file: 10,
        categories: 10,
    };
    let generated = common::generate(&root, &spec).expect("the tree is written");
    let root = std::fs::canonicalize(&root).expect("the tree");
    println!(
        "tree: {} files, {:.1} MB",
        generated.files,
        generated.bytes as f64 / 1e6
    );
    let watches = json!({"workspace": {"didChangeWatchedFiles": {"dynamicRegistration": true}}});
    for (editor, capabilities, watch) in [
        (
            "an editor that watches the tree's files for the server (VS Code, Helix, Emacs)",
            watches,
            true,
        ),
        (
            "an editor that does not (Neovim on Linux): the server watches them itself",
            json!({}),
            true,
        ),
        (
            "the setting `watch` off: nothing watches, the server looks at the disk behind its checks",
            json!({}),
            false,
        ),
    ] {
        let figures = session(&root, capabilities, watch);
        let per_byte = figures.resident as f64 * 1024.0 / generated.bytes as f64;
        println!("{editor}:");
        println!(
            "  start to first diagnostics: {:.0} ms (goal: under 1,000 ms)",
            common::ms(figures.first)
        );
        println!(
            "  keystroke to diagnostics: {:.0} ms median of {} (goal: under 50 ms)",
            common::ms(median(figures.keystrokes.clone())),
            figures.keystrokes.len()
        );
        println!(
            "  hover with a node: {:.1} ms median of {} (goal: under 20 ms); the first, which loads the tree for the node: {:.0} ms; after a change, which loads again what it changed: {:.0} ms median of {}",
            common::ms(median(figures.hovers.clone())),
            figures.hovers.len(),
            common::ms(figures.first_hover),
            common::ms(median(figures.hovers_after_changes.clone())),
            figures.hovers_after_changes.len()
        );
        println!(
            "  hover after a change and a pause of {} ms, the tree loaded again in the pause: {:.1} ms median of {}",
            PAUSE.as_millis(),
            common::ms(median(figures.hovers_after_pauses.clone())),
            figures.hovers_after_pauses.len()
        );
        println!(
            "  memory after the first check: {:.1} MB resident, {per_byte:.1} bytes per source byte (goal: under 10); after the edits: {:.1} MB, {:.1} bytes",
            figures.resident as f64 / 1024.0,
            figures.resident_after_edits as f64 / 1024.0,
            figures.resident_after_edits as f64 * 1024.0 / generated.bytes as f64
        );
        println!(
            "  memory with the tree loaded for the node: {:.1} MB resident, {:.1} bytes per source byte",
            figures.resident_after_hovers as f64 / 1024.0,
            figures.resident_after_hovers as f64 * 1024.0 / generated.bytes as f64
        );
        println!(
            "  references of a key: {:.0} ms the first, {:.1} ms median of {} after; completion of a key: {:.1} ms median of {}",
            common::ms(figures.first_references),
            common::ms(median(figures.references.clone())),
            figures.references.len(),
            common::ms(median(figures.completions.clone())),
            figures.completions.len()
        );
        println!(
            "  a file written outside the editor, then a keystroke: its diagnostics {:.0} ms after the write",
            common::ms(figures.outside_change)
        );
    }
}

/// The pause between a change and the hover after it (`hovers_after_pauses`): longer than
/// the server's wait before it loads the tree again (250 ms) and the load.
const PAUSE: Duration = Duration::from_millis(500);

/// What one session measured.
struct Figures {
    outside_change: Duration,
    first: Duration,
    keystrokes: Vec<Duration>,
    first_hover: Duration,
    hovers: Vec<Duration>,
    hovers_after_changes: Vec<Duration>,
    hovers_after_pauses: Vec<Duration>,
    resident_after_hovers: u64,
    resident: u64,
    resident_after_edits: u64,
    first_references: Duration,
    references: Vec<Duration>,
    completions: Vec<Duration>,
}

/// One session of `pbc lsp` on the tree at `root`, with an editor of `capabilities` and the
/// setting `watch`.
fn session(root: &std::path::Path, capabilities: Value, watch: bool) -> Figures {
    let uri = |relative: &str| puppet_bindings::ide::text::path_to_uri(&root.join(relative));

    let mut child = Command::new(env!("CARGO_BIN_EXE_pbc"))
        .arg("lsp")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("pbc runs");
    let mut session = Session {
        stdin: child.stdin.take().expect("stdin"),
        stdout: BufReader::new(child.stdout.take().expect("stdout")),
        child,
        next_id: 0,
    };

    let start = Instant::now();
    let root_uri = puppet_bindings::ide::text::path_to_uri(root);
    session.request(
        "initialize",
        json!({"capabilities": capabilities, "rootUri": root_uri, "initializationOptions": {"node": "web01", "watch": watch}}),
    );
    session.notify("initialized", json!({}));
    let edited = "modules/m5/bindings/default.pp";
    let outline = json!({"textDocument": {"uri": uri(edited)}});
    session.request("textDocument/documentSymbol", outline.clone());
    let first = start.elapsed();
    let resident = session.resident_kb();

    let text = std::fs::read_to_string(root.join(edited)).expect("the module's file");
    session.notify(
        "textDocument/didOpen",
        json!({"textDocument": {"uri": uri(edited), "languageId": "puppet", "version": 1, "text": text}}),
    );
    session.request("textDocument/documentSymbol", outline.clone());
    // Each edit types or deletes one character at the start of the second line: `bind` becomes
    // `xbind` (a syntax error) and back.
    let mut keystrokes = Vec::new();
    for version in 2..12 {
        let change = if version % 2 == 0 {
            json!({"range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 2}}, "text": "x"})
        } else {
            json!({"range": {"start": {"line": 1, "character": 2}, "end": {"line": 1, "character": 3}}, "text": ""})
        };
        let typed = Instant::now();
        session.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(edited), "version": version}, "contentChanges": [change]}),
        );
        let (_, published) = session.request("textDocument/documentSymbol", outline.clone());
        keystrokes.push(typed.elapsed());
        assert!(
            published.iter().any(|m| m["params"]["uri"] == uri(edited)),
            "each edit changes the file's diagnostics"
        );
    }
    // Resident again once the edits are checked, before any hover loads a tree: what the
    // server holds while the editor idles, steadier than the figure after the first check
    // (which moves by a few megabytes from run to run with how the first check's threads
    // shared out its allocations).
    let resident_after_edits = session.resident_kb();
    // The first hover after the edits loads the tree for the node; the next ones, on other
    // keys of the file and on the first again, ask the tree loaded.
    let hover_at = [
        (1, 10, "m5::k0"),
        (4, 10, "m5::k2"),
        (6, 10, "m5::k3"),
        (7, 10, "m5::k4"),
        (8, 10, "m5::k5"),
        (1, 10, "m5::k0"),
    ];
    let mut hovers = Vec::new();
    for (line, character, key) in hover_at {
        let asked = Instant::now();
        let (answer, _) = session.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri(edited)}, "position": {"line": line, "character": character}}),
        );
        hovers.push(asked.elapsed());
        assert!(
            answer["result"]["contents"]["value"]
                .as_str()
                .is_some_and(|v| v.contains(&format!("key `{key}`"))),
            "{answer}"
        );
    }
    let first_hover = hovers.remove(0);
    // Each change edits the value `m5::k0` is bound to (`'value 5 0'`, its second line), and
    // the hover after it, once the edit is checked, answers with the new value.
    let mut hovers_after_changes = Vec::new();
    for version in 12..18 {
        let value = format!("value 5 0 v{version}");
        let change = json!({"range": {"start": {"line": 1, "character": 20}, "end": {"line": 1, "character": 29 + if version == 12 { 0 } else { 4 }}}, "text": value});
        session.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(edited), "version": version}, "contentChanges": [change]}),
        );
        session.request("textDocument/documentSymbol", outline.clone());
        let asked = Instant::now();
        let (answer, _) = session.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri(edited)}, "position": {"line": 1, "character": 10}}),
        );
        hovers_after_changes.push(asked.elapsed());
        assert!(
            answer["result"]["contents"]["value"]
                .as_str()
                .is_some_and(|v| v.contains(&format!("\"{value}\""))),
            "{answer}"
        );
    }
    let resident_after_hovers = session.resident_kb();
    // The same, with the editor quiet for a while between the change and the hover, as a
    // person is between typing and hovering (VS Code asks after 300 ms with the pointer
    // still): the server loads the tree again in the pause, and the hover asks it.
    let mut hovers_after_pauses = Vec::new();
    for version in 18..24 {
        let value = format!("value 5 0 v{version}");
        let change = json!({"range": {"start": {"line": 1, "character": 20}, "end": {"line": 1, "character": 33}}, "text": value});
        session.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri(edited), "version": version}, "contentChanges": [change]}),
        );
        session.request("textDocument/documentSymbol", outline.clone());
        std::thread::sleep(PAUSE);
        let asked = Instant::now();
        let (answer, _) = session.request(
            "textDocument/hover",
            json!({"textDocument": {"uri": uri(edited)}, "position": {"line": 1, "character": 10}}),
        );
        hovers_after_pauses.push(asked.elapsed());
        assert!(
            answer["result"]["contents"]["value"]
                .as_str()
                .is_some_and(|v| v.contains(&format!("\"{value}\""))),
            "{answer}"
        );
    }
    // `'m5::k0'` on the second line: its binding, and the cursor after `m5::k` to complete (the
    // key being written is not offered: the file's other keys are).
    let at = |character: u32| json!({"textDocument": {"uri": uri(edited)}, "position": {"line": 1, "character": character}});
    let mut references = Vec::new();
    for _ in 0..6 {
        let asked = Instant::now();
        let mut params = at(10);
        params["context"] = json!({"includeDeclaration": true});
        let (answer, _) = session.request("textDocument/references", params);
        references.push(asked.elapsed());
        assert!(
            answer["result"].as_array().is_some_and(|r| !r.is_empty()),
            "{answer}"
        );
    }
    let first_references = references.remove(0);
    let mut completions = Vec::new();
    for _ in 0..5 {
        let asked = Instant::now();
        let (answer, _) = session.request("textDocument/completion", at(13));
        completions.push(asked.elapsed());
        assert!(
            answer["result"]["items"]
                .as_array()
                .is_some_and(|items| items.iter().any(|i| i["label"] == "m5::k1")),
            "{answer}"
        );
    }
    // A file written by another program (a `git checkout` in a terminal), then a keystroke in
    // the editor: the time from the write until the file's diagnostics are published. An
    // editor that watches tells of the file as it is written; the server's own watch sees it;
    // with `watch` off, the look at the disk behind the keystroke's check finds it.
    let outside = "modules/m7/bindings/outside.pp";
    let written = Instant::now();
    std::fs::write(root.join(outside), "bindings outside {\n  bind 'x' to\n}\n").expect("written");
    if capabilities["workspace"]["didChangeWatchedFiles"]["dynamicRegistration"] == true {
        session.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": [{"uri": uri(outside), "type": 1}]}),
        );
    }
    session.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": uri(edited), "version": 24}, "contentChanges": [{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}}, "text": ""}]}),
    );
    loop {
        let message = session.receive();
        if message["method"] == "textDocument/publishDiagnostics"
            && message["params"]["uri"] == uri(outside)
        {
            break;
        }
    }
    let outside_change = written.elapsed();
    std::fs::remove_file(root.join(outside)).expect("removed");
    session.request("shutdown", Value::Null);
    session.notify("exit", Value::Null);
    let _ = session.child.wait();
    Figures {
        outside_change,
        first,
        keystrokes,
        first_hover,
        hovers,
        hovers_after_changes,
        hovers_after_pauses,
        resident_after_hovers,
        resident,
        resident_after_edits,
        first_references,
        references,
        completions,
    }
}
