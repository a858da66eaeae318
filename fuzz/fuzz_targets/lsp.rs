//! `pbc lsp` and whatever an editor sends it. The input is read twice: as raw bytes through the
//! framing (`ide::transport`), which no bytes may panic; and as a session, one JSON-RPC body per
//! line (`file://ROOT` standing for the tree `corpus/check/trees/category_typo`, as in
//! `corpus/lsp/`), framed and served by a server on that tree. No message may panic or hang the
//! server, its buffers never reach the disk, and no request gets more than one answer.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lsp_server::{Connection, Message};
use puppet_bindings::ide::{server, text::path_to_uri, transport};
use std::path::PathBuf;

fuzz_target!(|data: &[u8]| {
    let mut raw = std::io::Cursor::new(data);
    while let Ok(Some(_)) = transport::read_frame(&mut raw) {}

    let root = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../corpus/check/trees/category_typo"
    ));
    let root = std::fs::canonicalize(&root).unwrap_or(root);
    let root_uri = path_to_uri(&root);
    let mut framed = Vec::new();
    for line in String::from_utf8_lossy(data).lines() {
        let body = line.replace("file://ROOT", &root_uri);
        framed.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
        framed.extend_from_slice(body.as_bytes());
    }
    let (server_side, editor) = Connection::memory();
    let Connection { sender, receiver } = editor;
    let mut requests = 0;
    let mut reader = std::io::Cursor::new(framed);
    while let Ok(Some(frame)) = transport::read_frame(&mut reader) {
        if let Ok(message) = frame {
            requests += usize::from(matches!(message, Message::Request(_)));
            let _ = sender.send(message);
        }
    }
    drop(sender);
    let _ = server::run(&server_side, Default::default(), &root, &mut |_| {});
    drop(server_side);
    let answers = receiver
        .try_iter()
        .filter(|m| matches!(m, Message::Response(_)))
        .count();
    assert!(answers <= requests, "{answers} answers to {requests} requests");
});
