//! The language server's framing: `Content-Length` headers and JSON bodies read from a byte
//! stream (the editor's pipe) and written to another, turned into messages on channels for
//! [`super::server`]. It owns the limits on what the editor sends: a header line, the number of
//! headers and a body are bounded, so no input makes the server hold unbounded memory. It must
//! not look inside the messages beyond their JSON-RPC envelope.
//!
//! lsp-server's own stdio transport reads a header line of any length and allocates whatever
//! `Content-Length` says before reading: one bad frame could take all memory.

use crossbeam_channel::{bounded, Receiver, Sender};
use lsp_server::{Connection, Message};
use std::io::{BufRead, Read, Write};

/// The largest message body accepted: an editor sends a whole file's text in one message, and
/// a file above `--max-file-size` (64 MiB by default) is refused anyway.
pub const MAX_BODY: usize = 256 * 1024 * 1024;
/// The longest header line and the most header lines in one frame (LSP defines two headers).
const MAX_HEADER_LINE: usize = 4096;
const MAX_HEADERS: usize = 32;

/// Why the stream of messages ended other than by its end.
#[derive(Debug)]
pub enum TransportError {
    /// The framing is broken: what follows cannot be found.
    Framing(String),
    Io(std::io::Error),
}

impl std::fmt::Display for TransportError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportError::Framing(why) => write!(f, "the editor sent a malformed frame: {why}"),
            TransportError::Io(e) => write!(f, "{e}"),
        }
    }
}

/// One frame read from `input`: `Ok(None)` at the end of the stream. A body that is not a
/// JSON-RPC message is `Ok(Some(Err(reason)))`: the frame was whole, so the next one can
/// still be read.
pub fn read_frame(
    input: &mut impl BufRead,
) -> Result<Option<Result<Message, String>>, TransportError> {
    let mut length = None;
    let mut headers = 0;
    loop {
        let mut line = Vec::new();
        let read = input
            .by_ref()
            .take(MAX_HEADER_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(TransportError::Io)?;
        if read == 0 {
            return if headers == 0 {
                Ok(None)
            } else {
                Err(TransportError::Framing(
                    "the stream ended in a header".into(),
                ))
            };
        }
        if line.len() > MAX_HEADER_LINE {
            return Err(TransportError::Framing(format!(
                "a header line longer than {MAX_HEADER_LINE} bytes"
            )));
        }
        let Some(line) = line.strip_suffix(b"\r\n") else {
            return Err(TransportError::Framing(
                "a header line that does not end in CRLF".into(),
            ));
        };
        if line.is_empty() {
            break;
        }
        headers += 1;
        if headers > MAX_HEADERS {
            return Err(TransportError::Framing(format!(
                "more than {MAX_HEADERS} header lines"
            )));
        }
        let line = String::from_utf8_lossy(line);
        let Some((name, value)) = line.split_once(':') else {
            return Err(TransportError::Framing(format!(
                "a header without `:`: {line:?}"
            )));
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let value = value.trim();
            let n: usize = value.parse().map_err(|_| {
                TransportError::Framing(format!("Content-Length is not a number: {value:?}"))
            })?;
            if n > MAX_BODY {
                return Err(TransportError::Framing(format!(
                    "Content-Length {n} is more than the limit of {MAX_BODY} bytes"
                )));
            }
            length = Some(n);
        }
    }
    let Some(length) = length else {
        return Err(TransportError::Framing(
            "a frame without Content-Length".into(),
        ));
    };
    let mut body = Vec::new();
    let got = input
        .by_ref()
        .take(length as u64)
        .read_to_end(&mut body)
        .map_err(TransportError::Io)?;
    if got < length {
        return Err(TransportError::Framing(format!(
            "the stream ended {} bytes into a body of {length}",
            got
        )));
    }
    Ok(Some(
        serde_json::from_slice::<Message>(&body).map_err(|e| e.to_string()),
    ))
}

/// A connection whose messages are read from `input` and written to `output` by two threads,
/// and what ends them: [`Transport::join`] after the server returns. `rejected` is told of each
/// frame whose body was not a message (the server logs it; the editor learns nothing more
/// useful from an answer to a message without an id).
pub struct Transport {
    reader: std::thread::JoinHandle<()>,
    /// How the reader ended, told before it lets go of the server's channel: a server that
    /// returned because the editor's side closed finds it there, even while the reader's
    /// thread is still ending (read from the thread's result, it was sometimes not yet there,
    /// and a malformed frame ended the server without a word).
    read: std::sync::mpsc::Receiver<Result<(), TransportError>>,
    writer: std::thread::JoinHandle<std::io::Result<()>>,
}

impl Transport {
    pub fn start(
        mut input: impl BufRead + Send + 'static,
        mut output: impl Write + Send + 'static,
        rejected: impl Fn(String) + Send + 'static,
    ) -> (Connection, Transport) {
        let (to_server, from_editor): (Sender<Message>, Receiver<Message>) = bounded(0);
        let (to_editor, from_server): (Sender<Message>, Receiver<Message>) = bounded(0);
        let (tell_read, read) = std::sync::mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut read_all = || {
                while let Some(frame) = read_frame(&mut input)? {
                    match frame {
                        Ok(message) => {
                            let exit =
                                matches!(&message, Message::Notification(n) if n.method == "exit");
                            if to_server.send(message).is_err() || exit {
                                break;
                            }
                        }
                        Err(why) => rejected(why),
                    }
                }
                Ok(())
            };
            let outcome = read_all();
            // Told while `to_server` still stands (it goes when this thread ends).
            let _ = tell_read.send(outcome);
        });
        let writer = std::thread::spawn(move || {
            for message in from_server {
                message.write(&mut output)?;
            }
            Ok(())
        });
        let connection = Connection {
            sender: to_editor,
            receiver: from_editor,
        };
        (
            connection,
            Transport {
                reader,
                read,
                writer,
            },
        )
    }

    /// Waits for the writer to send what the server left (the server must have returned and
    /// its connection been dropped); the reader is not waited for when the server ended first,
    /// since it may be blocked on the editor's next message.
    pub fn join(self, server_ended_first: bool) -> Result<(), TransportError> {
        let written = self
            .writer
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the writer thread failed")));
        // Whether the reader has ended, asked before its word is looked for: an ended reader
        // told how it ended first, unless it panicked.
        let reader_ended = !server_ended_first || self.reader.is_finished();
        if !server_ended_first {
            let _ = self.reader.join();
        }
        match self.read.try_recv() {
            Ok(read) => read?,
            Err(_) if reader_ended => {
                return Err(TransportError::Framing("the reader thread failed".into()));
            }
            Err(_) => {}
        }
        written.map_err(TransportError::Io)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frames(input: &[u8]) -> Vec<Result<Option<Result<Message, String>>, String>> {
        let mut reader = std::io::BufReader::new(input);
        let mut out = Vec::new();
        loop {
            let frame = read_frame(&mut reader).map_err(|e| e.to_string());
            let stop = !matches!(frame, Ok(Some(_)));
            out.push(frame);
            if stop {
                return out;
            }
        }
    }

    #[test]
    fn a_frame_holds_one_message_and_bad_bodies_do_not_lose_the_next() {
        let good = r#"{"jsonrpc":"2.0","method":"initialized","params":{}}"#;
        let bad = "{not json";
        let input = format!(
            "Content-Length: {}\r\n\r\n{bad}Content-Type: x\r\ncontent-length:{}\r\n\r\n{good}",
            bad.len(),
            good.len()
        );
        let got = frames(input.as_bytes());
        assert_eq!(got.len(), 3, "{got:?}");
        assert!(matches!(&got[0], Ok(Some(Err(_)))), "{got:?}");
        assert!(
            matches!(&got[1], Ok(Some(Ok(Message::Notification(n)))) if n.method == "initialized")
        );
        assert!(matches!(&got[2], Ok(None)));
    }

    #[test]
    fn broken_framing_ends_the_stream_without_reading_what_it_claims() {
        for input in [
            format!("Content-Length: {}\r\n\r\n", usize::MAX).into_bytes(),
            format!("Content-Length: {}\r\n\r\n", MAX_BODY + 1).into_bytes(),
            b"Content-Length: 10\r\n\r\nshort".to_vec(),
            b"Content-Length: ten\r\n\r\n".to_vec(),
            b"no header end\n".to_vec(),
            b"\r\n".to_vec(),
            vec![b'x'; MAX_HEADER_LINE * 4],
            b"X: y\r\n".repeat(MAX_HEADERS + 1),
        ] {
            let got = frames(&input);
            assert!(
                matches!(got.last(), Some(Err(e)) if e.starts_with("the editor sent a malformed frame")),
                "{:?}: {got:?}",
                String::from_utf8_lossy(&input[..input.len().min(60)])
            );
        }
    }

    /// A malformed frame ends the reader, and with it the server's channel: a server that
    /// returns as soon as it sees the channel closed, and joins at once, still learns why. The
    /// reader's thread is kept from ending for a while after it let go of the channel (its
    /// callback is slow to drop), as a loaded machine may keep it: the reader has told why
    /// before it let go, so `join` does not depend on the thread having ended.
    #[test]
    fn the_server_that_sees_the_editor_gone_learns_of_the_malformed_frame() {
        struct SlowToDrop;
        impl Drop for SlowToDrop {
            fn drop(&mut self) {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        }
        for _ in 0..3 {
            let input = std::io::Cursor::new(b"Content-Length: 5\nno CRLF".to_vec());
            let slow = SlowToDrop;
            let (connection, transport) = Transport::start(input, std::io::sink(), move |_| {
                let _ = &slow;
            });
            assert!(connection.receiver.recv().is_err(), "no message came");
            drop(connection);
            let ended = transport.join(true);
            assert!(
                matches!(ended, Err(TransportError::Framing(_))),
                "{ended:?}"
            );
        }
    }
}
