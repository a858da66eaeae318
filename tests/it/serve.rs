//! `pbc serve`, the binary, driven through its socket as `pbc::lookup_key` drives it: every key
//! of every factset of the corpus trees and examples is answered as `pbc lookup --model
//! --format answers` answers it; a model replaced on disk is loaded again for new connections
//! while open ones keep theirs; each way a client can get it wrong is an error naming why
//! (snapshotted), and never stops the server answering others.

use crate::common;

use common::{copy_tree, pbc, snapshot_settings, sorted_dirs};
use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

/// A running `pbc serve`, killed when dropped.
struct Server {
    child: Child,
    socket: PathBuf,
}

impl Server {
    fn start(scratch: &Path, models: &Path, extra: &[&str]) -> Server {
        let socket = scratch.join("pbc.sock");
        let child = Command::new(env!("CARGO_BIN_EXE_pbc"))
            .args(["serve", "--socket"])
            .arg(&socket)
            .arg("--models")
            .arg(models)
            .args(extra)
            .stderr(Stdio::null())
            .spawn()
            .expect("pbc serve starts");
        // Ready once the socket is there (bound and listening); a probing connection would
        // hold one of the server's slots until the server saw it close.
        for _ in 0..200 {
            if socket.exists() {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(25));
        }
        Server { child, socket }
    }

    fn connect(&self) -> Client {
        let stream = UnixStream::connect(&self.socket).expect("connects");
        stream
            .set_read_timeout(Some(std::time::Duration::from_secs(60)))
            .expect("timeout");
        Client {
            reader: BufReader::new(stream.try_clone().expect("clone")),
            writer: stream,
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

struct Client {
    reader: BufReader<UnixStream>,
    writer: UnixStream,
}

impl Client {
    /// Sends a line (as given) and reads the answer's; `None` when the server closed.
    fn send(&mut self, line: &str) -> Option<serde_json::Value> {
        self.writer.write_all(line.as_bytes()).ok()?;
        self.writer.write_all(b"\n").ok()?;
        self.read()
    }

    /// The next line the server sends, without sending one.
    fn read(&mut self) -> Option<serde_json::Value> {
        let mut answer = String::new();
        match self.reader.read_line(&mut answer) {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(serde_json::from_str(&answer).expect("a JSON line")),
        }
    }

    fn open(
        &mut self,
        model: &Path,
        environment: &str,
        facts: &serde_json::Value,
    ) -> serde_json::Value {
        let line = serde_json::json!({"model": model, "environment": environment, "facts": facts});
        self.send(&line.to_string()).expect("an opening answer")
    }

    fn ask(&mut self, key: &str) -> Option<serde_json::Value> {
        self.send(&serde_json::json!({ "key": key }).to_string())
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pbc-serve-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// `pbc lookup --model --format answers` for the facts in `facts` and `keys`: the document.
fn answers(model: &Path, facts: &Path, keys: &[&str]) -> serde_json::Value {
    let (model, facts) = (model.to_string_lossy(), facts.to_string_lossy());
    let args = [
        &["lookup", "--model", &model, "--facts", &facts][..],
        &["--format", "answers", "--quiet", "--color", "never"],
        keys,
    ]
    .concat();
    let (_, stdout, stderr) = pbc(&args);
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("no answers ({e}): {stderr}"))
}

#[test]
fn every_key_is_served_as_the_answers_document_gives_it() {
    let scratch = scratch("keys");
    let models = scratch.join("models");
    std::fs::create_dir_all(&models).expect("models dir");
    let mut trees = sorted_dirs("corpus/lookup/trees");
    trees.extend(sorted_dirs("examples"));
    let mut built = Vec::new();
    for dir in trees {
        let facts: Vec<PathBuf> = std::fs::read_dir(dir.join("facts"))
            .map(|d| {
                let mut f: Vec<PathBuf> = d
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|e| e == "json"))
                    .collect();
                f.sort();
                f
            })
            .unwrap_or_default();
        if facts.is_empty() {
            continue;
        }
        let name = dir
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let model = models.join(format!("{name}.pbcm"));
        let (status, _, _) = pbc(&[
            "compile",
            "--cache",
            "--quiet",
            "-o",
            &model.to_string_lossy(),
            &dir.to_string_lossy(),
        ]);
        // A tree whose check fails has no model (its lookups are the tree's: tests/it/lookup.rs).
        if status == 0 {
            built.push((name, model, facts));
        }
    }
    assert!(built.len() >= 15, "models built: {}", built.len());
    let server = Server::start(&scratch, &models, &[]);
    let absent = "serve_test::nothing_binds_this";
    let (mut compared, mut failed_keys, mut batched) = (0, 0, 0);
    // Documents whose unlisted keys are certainly not found, and those that must be asked.
    let (mut complete_documents, mut incomplete_documents) = (0, 0);
    for (name, model, facts) in &built {
        for file in facts {
            let document = answers(model, file, &["--all"]);
            let environment = document["environment"].as_str().expect("environment");
            let facts_json: serde_json::Value =
                serde_json::from_str(&std::fs::read_to_string(file).expect("facts"))
                    .expect("JSON facts");
            let mut client = server.connect();
            let opening = client.open(model, environment, &facts_json);
            assert_eq!(
                opening,
                serde_json::json!({"format": "pbc-answers", "version": 1,
                    "pbc": document["pbc"], "environment": environment}),
                "{name} {}",
                file.display()
            );
            let mut expected: Vec<(String, serde_json::Value)> = document["keys"]
                .as_object()
                .expect("keys")
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            let by_name = answers(model, file, &["--", absent]);
            expected.push((absent.to_string(), by_name["keys"][absent].clone()));
            let complete = document["complete"] == serde_json::json!(true);
            if complete {
                complete_documents += 1;
            } else {
                incomplete_documents += 1;
            }
            for (key, answer) in &expected {
                let served = client.ask(key).expect("an answer");
                assert_eq!(&served, answer, "{name} {} `{key}`", file.display());
                compared += 1;
                failed_keys += usize::from(answer.get("error").is_some());
                // With its namespace: the key's answer, and each other key's as the document
                // has it (or, bound only for other nodes, not found).
                let batch = client
                    .send(&serde_json::json!({"key": key, "namespace": true}).to_string())
                    .expect("an answer");
                let batch = batch["answers"].as_object().expect("answers");
                assert_eq!(
                    batch.get(key.as_str()),
                    Some(answer),
                    "{name} `{key}` in its namespace"
                );
                for (other, served) in batch {
                    assert!(
                        key.rsplit_once("::").map(|(n, _)| n)
                            == other.rsplit_once("::").map(|(n, _)| n),
                        "{name}: `{other}` is not in the namespace of `{key}`"
                    );
                    match document["keys"].get(other) {
                        Some(listed) => assert_eq!(served, listed, "{name} `{other}` with `{key}`"),
                        None if complete => assert_eq!(
                            served,
                            &serde_json::json!({"found": false}),
                            "{name} `{other}`"
                        ),
                        None => assert_eq!(served["found"], false, "{name} `{other}`"),
                    }
                    batched += usize::from(other != key);
                }
            }
        }
    }
    assert!(compared >= 250, "keys compared: {compared}");
    // `hiera5-globs` has a level pbc cannot search: its keys not listed must be asked.
    assert!(
        complete_documents > 10 && incomplete_documents >= 1,
        "complete: {complete_documents}, not: {incomplete_documents}"
    );
    assert!(
        batched >= 100,
        "keys answered with their namespace: {batched}"
    );
    assert!(
        failed_keys >= 10,
        "failed keys compared: {failed_keys} of {compared}"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A deploy replaces the model: connections opened after it get the new answers, one opened
/// before keeps answering from the model it opened with.
#[test]
fn a_replaced_model_answers_new_connections() {
    let scratch = scratch("reload");
    let models = scratch.join("models");
    let tree = scratch.join("tree");
    std::fs::create_dir_all(&models).expect("models dir");
    copy_tree(Path::new("examples/quickstart"), &tree);
    let model = models.join("model.pbcm");
    let compile = |out: &Path| {
        let (status, _, stderr) = pbc(&[
            "compile",
            "--cache",
            "-o",
            &out.to_string_lossy(),
            &tree.to_string_lossy(),
        ]);
        assert_eq!(status, 0, "{stderr}");
    };
    compile(&model);
    let facts: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string("examples/quickstart/facts/web01.json").expect("facts"),
    )
    .expect("JSON");
    let server = Server::start(&scratch, &models, &[]);
    let mut before = server.connect();
    before.open(&model, "production", &facts);
    let old = before.ask("ntp::servers").expect("answer");

    let bindings = tree.join("bindings/default.pp");
    let text = std::fs::read_to_string(&bindings).expect("bindings");
    assert!(text.contains("ntp1.ams.example.com"));
    std::fs::write(
        &bindings,
        text.replace("ntp1.ams.example.com", "ntp9.ams.example.com"),
    )
    .expect("edited");
    let next = models.join("next.pbcm");
    compile(&next);
    std::fs::rename(&next, &model).expect("replaced");

    let mut after = server.connect();
    after.open(&model, "production", &facts);
    let new = after.ask("ntp::servers").expect("answer");
    assert_eq!(
        new["value"],
        serde_json::json!(["ntp9.ams.example.com", "ntp2.ams.example.com"])
    );
    assert_eq!(
        old["value"],
        serde_json::json!(["ntp1.ams.example.com", "ntp2.ams.example.com"])
    );
    assert_eq!(before.ask("ntp::servers").expect("answer"), old);
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Each wrong request gets an error with its code and the connection's end; the server goes on
/// answering (the last case is a good one).
#[test]
fn wrong_requests_are_refused_with_their_reason() {
    let scratch = scratch("refused");
    let models = scratch.join("models");
    let outside = scratch.join("outside");
    std::fs::create_dir_all(&models).expect("models dir");
    std::fs::create_dir_all(&outside).expect("outside dir");
    let model = models.join("model.pbcm");
    let (status, _, _) = pbc(&[
        "compile",
        "--cache",
        "-o",
        &model.to_string_lossy(),
        "examples/quickstart",
    ]);
    assert_eq!(status, 0);
    std::fs::copy(&model, outside.join("model.pbcm")).expect("copied");
    let mut damaged = std::fs::read(&model).expect("model");
    let middle = damaged.len() / 2;
    damaged[middle] ^= 0xff;
    std::fs::write(models.join("damaged.pbcm"), damaged).expect("damaged");
    let server = Server::start(
        &scratch,
        &models,
        &["--max-connections", "2", "--idle", "1"],
    );
    let scrub = |text: String| text.replace(&scratch.to_string_lossy().into_owned(), "SCRATCH");
    let show = |answer: Option<serde_json::Value>| -> String {
        match answer {
            None => "(closed)".to_string(),
            Some(a) => match a.get("error") {
                Some(e) => {
                    let mut line = format!(
                        "error[{}]: {}",
                        e["code"].as_str().unwrap_or(""),
                        e["message"].as_str().unwrap_or("")
                    );
                    for note in e["notes"].as_array().into_iter().flatten() {
                        line.push_str(&format!("\n  = {}", note.as_str().unwrap_or("")));
                    }
                    line
                }
                None => a.to_string(),
            },
        }
    };
    let facts = r#"{"fqdn": "web01.ams.example.com", "datacenter": "ams"}"#;
    let model_text = model.to_string_lossy().into_owned();
    let opening = |model: &str, environment: &str, facts: &str| {
        format!(
            r#"{{"model": {}, "environment": "{environment}", "facts": {facts}}}"#,
            serde_json::json!(model)
        )
    };
    let mut out = String::new();
    let cases: Vec<(&str, String)> = vec![
        ("not JSON", "hello".to_string()),
        // Refused before the model is looked at (a path of fixed length: serde's columns).
        ("no facts", r#"{"model": "/m.pbcm"}"#.to_string()),
        (
            "an unknown member",
            r#"{"model": "/m.pbcm", "facts": {}, "node": "x"}"#.to_string(),
        ),
        (
            "a relative model",
            opening("model.pbcm", "production", facts),
        ),
        (
            "a model outside --models",
            opening(
                &outside.join("model.pbcm").to_string_lossy(),
                "production",
                facts,
            ),
        ),
        (
            "a model that is not there",
            opening(
                &models.join("absent.pbcm").to_string_lossy(),
                "production",
                facts,
            ),
        ),
        (
            "a damaged model",
            opening(
                &models.join("damaged.pbcm").to_string_lossy(),
                "production",
                facts,
            ),
        ),
        (
            "another environment",
            opening(&model_text, "staging", facts),
        ),
        (
            "facts that are not an object",
            opening(&model_text, "production", "[1, 2]"),
        ),
    ];
    for (what, line) in cases {
        let mut client = server.connect();
        out.push_str(&format!("# {what}\n{}\n", scrub(show(client.send(&line)))));
        out.push_str(&format!("then: {}\n\n", show(client.ask("ntp::servers"))));
    }
    let mut client = server.connect();
    out.push_str(&format!(
        "# a good opening\n{}\n",
        show(client.send(&opening(&model_text, "production", facts)))
    ));
    for (what, line) in [
        ("a key", r#"{"key": "ntp::servers"}"#.to_string()),
        ("a line that is not a key", r#"{"keys": ["a"]}"#.to_string()),
        ("a key after it", r#"{"key": "ntp::iburst"}"#.to_string()),
        (
            "a key with its namespace",
            r#"{"key": "ntp::servers", "namespace": true}"#.to_string(),
        ),
        (
            "a key's line too long",
            format!(r#"{{"key": "{}"}}"#, "k".repeat(70_000)),
        ),
        ("a key after that", r#"{"key": "ntp::iburst"}"#.to_string()),
    ] {
        out.push_str(&format!("{what}: {}\n", show(client.send(&line))));
    }
    // Two connections are allowed: with two open, a third is told the server is busy.
    let first = server.connect();
    let second = server.connect();
    let mut third = server.connect();
    out.push_str(&format!(
        "\n# a third connection with two open\n{}\n",
        show(third.read())
    ));
    drop((first, second, third));
    // Idle connections are closed after `--idle 1`; a new one is answered.
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let mut client = server.connect();
    client.send(&opening(&model_text, "production", facts));
    std::thread::sleep(std::time::Duration::from_millis(2500));
    out.push_str(&format!(
        "\n# a key after the connection was idle for longer than --idle\n{}\n",
        show(client.ask("ntp::servers"))
    ));
    let mut client = server.connect();
    client.send(&opening(&model_text, "production", facts));
    out.push_str(&format!(
        "# on a new connection\n{}\n",
        show(client.ask("ntp::servers"))
    ));
    snapshot_settings().bind(|| insta::assert_snapshot!("serve@refused", out));
    let _ = std::fs::remove_dir_all(&scratch);
}

/// A connection's slot is free by the time its client sees it closed: with one connection
/// allowed, a client that reconnects as soon as its failed opening is closed is never told the
/// server is busy. While the slot was freed after the close, 2,000 reconnections met that
/// window in about one run in four on an idle machine (more often under load): the test
/// catches the wrong order often, not always, and never fails with the right one.
#[test]
fn a_closed_connection_frees_its_slot_before_its_client_sees_the_close() {
    let scratch = scratch("slot");
    let models = scratch.join("models");
    std::fs::create_dir_all(&models).expect("models dir");
    let server = Server::start(&scratch, &models, &["--max-connections", "1"]);
    let mut busy = Vec::new();
    for attempt in 0..2000 {
        let mut client = server.connect();
        let refused = client.send("not an opening").expect("an answer");
        if refused["error"]["code"] == "SERVE_BUSY" {
            busy.push(attempt);
        }
        // The server closes the connection after its error: wait for that close.
        assert!(client.read().is_none(), "{refused}");
    }
    assert!(
        busy.is_empty(),
        "told busy at attempts {busy:?} of 2000, with no other connection open"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
