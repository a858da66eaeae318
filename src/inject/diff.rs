//! `pbc diff OLD NEW --nodes FACTSDIR`: what changes for which node between two trees (two
//! checkouts of a control repository, before and after a change) or two models (`pbc compile`
//! of each, kept from CI), or a model and a tree. Both sides answer every node of the factsets
//! directory as `pbc lookup --nodes` does; only the nodes and keys whose answers differ are
//! printed.
//!
//! It must not answer keys itself: both sides come from [`super::nodes::answer_all`], so a
//! difference shown is a difference `pbc lookup` would show.

use super::nodes::{answer_all, NodeAnswers};
use super::query::LookupOptions;
use crate::eval::Value;
use crate::outcome::{Outcome, Said};
use crate::types::PType;
use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;

/// One side's answer for a key: a value, a failure, or nothing (the key is not asked of it:
/// `--all` lists only the keys a tree binds).
#[derive(Clone, Debug, PartialEq)]
enum Answer<'a> {
    Value(&'a serde_json::Value),
    /// A value that holds a secret decrypted from hiera-eyaml data: compared, never printed.
    Decrypted(&'a serde_json::Value),
    /// A hiera-eyaml value pbc could not open: its code and its ciphertext's fingerprint,
    /// compared in place of the message (whose line may move while the value stays).
    Encrypted(&'a str, &'a str),
    Failed(&'a str),
    Absent,
}

impl Answer<'_> {
    fn of<'a>(node: &'a NodeAnswers, key: &str) -> Answer<'a> {
        if let Some(v) = node.values.get(key) {
            if node.decrypted.contains(key) {
                Answer::Decrypted(v)
            } else {
                Answer::Value(v)
            }
        } else if let Some(why) = node.errors.get(key) {
            match encrypted(why) {
                Some((code, fingerprint)) => Answer::Encrypted(code, fingerprint),
                None => Answer::Failed(why),
            }
        } else {
            Answer::Absent
        }
    }

    fn text(&self) -> String {
        match self {
            Answer::Value(v) => serde_json::to_string(v).unwrap_or_default(),
            Answer::Decrypted(_) => "(a decrypted value)".into(),
            Answer::Encrypted(code, _) => format!("({code})"),
            Answer::Failed(why) => format!("({})", why.split(':').next().unwrap_or(why)),
            Answer::Absent => "(not bound)".into(),
        }
    }

    fn json(&self) -> serde_json::Value {
        match self {
            Answer::Value(v) => serde_json::json!({ "value": v }),
            Answer::Decrypted(_) => serde_json::json!({ "decrypted": true }),
            Answer::Encrypted(code, fingerprint) => {
                serde_json::json!({ "error": code, "encrypted": fingerprint })
            }
            Answer::Failed(why) => serde_json::json!({ "error": why }),
            Answer::Absent => serde_json::Value::Null,
        }
    }
}

/// The code and ciphertext fingerprint of a failed hiera-eyaml lookup (`EYAML_...: ... (ENC[...],
/// fingerprint 0123456789abcdef) ...`).
fn encrypted(why: &str) -> Option<(&str, &str)> {
    let (code, message) = why.split_once(": ")?;
    if !code.starts_with("EYAML_") {
        return None;
    }
    let word = format!("{} ", super::hiera::FINGERPRINT);
    let at = message.find(&word)? + word.len();
    let fingerprint = message.get(at..at + 16)?;
    Some((code, fingerprint))
}

/// What a changed key's line says: both values, or that a secret changed.
fn change_text(old: &Answer, new: &Answer) -> String {
    match (old, new) {
        (Answer::Decrypted(_), Answer::Decrypted(_)) => "decrypted value changed".into(),
        (Answer::Encrypted(..), Answer::Encrypted(..)) => {
            "encrypted value changed (without the key pbc compares ciphertexts: re-encrypting a value changes it too)".into()
        }
        _ => format!("{} -> {}", old.text(), new.text()),
    }
}

/// Answers every node of `nodes` in the trees `old` and `new` (the rest of `opts` as for
/// `pbc lookup --nodes`) and says what differs: text, or a JSON line per node that differs
/// (`json`). Exit 0 when nothing differs, 1 when something does.
pub fn run(
    opts: &LookupOptions,
    old: &Path,
    new: &Path,
    nodes: &Path,
    default: Option<&Value>,
    json: bool,
    options: &crate::options::Options,
) -> Outcome {
    // A directory is a tree; a file, a model `pbc compile` wrote.
    let side = |side: &Path| {
        let opts = if side.is_file() {
            LookupOptions {
                model: Some(side.to_path_buf()),
                ..opts.clone()
            }
        } else {
            LookupOptions {
                tree: side.to_path_buf(),
                model: None,
                ..opts.clone()
            }
        };
        answer_all(&opts, nodes, &PType::Data, default, options)
    };
    let (before, mut said) = match side(old) {
        Ok(done) => done,
        Err(outcome) => return outcome,
    };
    let (after, more) = match side(new) {
        Ok(done) => done,
        Err(outcome) => return outcome,
    };
    said.extend(more);
    let mut stdout = String::new();
    let mut differing = 0;
    // Both sides list the same factsets in the same order.
    for (b, a) in before.iter().zip(&after) {
        let keys: BTreeSet<&str> = [b, a]
            .iter()
            .flat_map(|n| n.values.keys().chain(n.errors.keys()))
            .map(String::as_str)
            .collect();
        let changed: Vec<(&str, Answer, Answer)> = keys
            .into_iter()
            .map(|k| (k, Answer::of(b, k), Answer::of(a, k)))
            .filter(|(_, x, y)| x != y)
            .collect();
        if changed.is_empty() && b.environment == a.environment {
            continue;
        }
        differing += 1;
        if json {
            let keys: serde_json::Map<String, serde_json::Value> = changed
                .iter()
                .map(|(k, x, y)| {
                    (
                        k.to_string(),
                        serde_json::json!({ "old": x.json(), "new": y.json() }),
                    )
                })
                .collect();
            let line = serde_json::json!({
                "node": b.node,
                "environment": { "old": b.environment, "new": a.environment },
                "keys": keys,
            });
            let _ = writeln!(stdout, "{line}");
        } else {
            let env = |e: &Option<String>| e.clone().unwrap_or_else(|| "none".into());
            if b.environment == a.environment {
                let _ = writeln!(stdout, "{} ({})", b.node, env(&b.environment));
            } else {
                let _ = writeln!(
                    stdout,
                    "{} ({} -> {})",
                    b.node,
                    env(&b.environment),
                    env(&a.environment)
                );
            }
            for (k, x, y) in &changed {
                let _ = writeln!(stdout, "  {k}: {}", change_text(x, y));
            }
        }
    }
    if !opts.quiet {
        said.push(Said::pbc(format!(
            "{differing} of {} nodes differ",
            before.len().min(after.len())
        )));
    }
    Outcome {
        stdout,
        said,
        status: u8::from(differing > 0),
    }
}
