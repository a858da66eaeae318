//! `pbc diff OLD NEW --nodes FACTSDIR`: what changes for which node between two trees (two
//! checkouts of a control repository, before and after a change) or two models (`pbc compile`
//! of each, kept from CI), or a model and a tree. Both sides answer every node of the factsets
//! directory as `pbc lookup --nodes` does; only the nodes and keys whose answers differ are
//! printed.
//!
//! It must not answer keys itself: both sides come from [`super::nodes::with_nodes`], so a
//! difference shown is a difference `pbc lookup` would show.

use super::nodes::{listed_nodes, with_nodes, Lines, NodeAnswers, NODES_AT_ONCE};
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
/// (`json`), written to `opts.output` as the nodes are answered when it is given. Exit 0 when
/// nothing differs, 1 when something does.
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
        if side.is_file() {
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
        }
    };
    // A node is done when both sides have answered it: the new side tells.
    let old_opts = LookupOptions {
        progress: None,
        ..side(old)
    };
    let new_opts = side(new);
    let listed = match listed_nodes(nodes) {
        Ok(listed) => listed,
        Err(outcome) => return outcome,
    };
    let mut lines = Lines::new(opts.output.clone());
    let mut differing = 0;
    let mut said_after = Vec::new();
    let ran = with_nodes(
        &old_opts,
        &listed,
        &PType::Data,
        default,
        options,
        |before| {
            said_after = with_nodes(
                &new_opts,
                &listed,
                &PType::Data,
                default,
                options,
                |after| {
                    for chunk in listed.chunks(NODES_AT_ONCE) {
                        let b = before.answer(chunk)?;
                        let a = after.answer(chunk)?;
                        let mut text = String::new();
                        for (b, a) in b.iter().zip(&a) {
                            differing += usize::from(node_difference(b, a, json, &mut text));
                        }
                        lines.write(text)?;
                    }
                    Ok(())
                },
            )?;
            Ok(())
        },
    );
    let mut said = match lines.end(ran) {
        Ok(said) => said,
        Err(outcome) => return outcome,
    };
    said.extend(said_after);
    if !opts.quiet {
        said.push(Said::pbc(format!(
            "{differing} of {} nodes differ",
            listed.len()
        )));
    }
    Outcome {
        stdout: lines.kept,
        said,
        status: u8::from(differing > 0),
    }
}

/// What differs for one node between its answers `b` (before) and `a` (after), appended to
/// `out`; whether anything does.
fn node_difference(b: &NodeAnswers, a: &NodeAnswers, json: bool, out: &mut String) -> bool {
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
        return false;
    }
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
        let _ = writeln!(out, "{line}");
    } else {
        let env = |e: &Option<String>| e.clone().unwrap_or_else(|| "none".into());
        if b.environment == a.environment {
            let _ = writeln!(out, "{} ({})", b.node, env(&b.environment));
        } else {
            let _ = writeln!(
                out,
                "{} ({} -> {})",
                b.node,
                env(&b.environment),
                env(&a.environment)
            );
        }
        for (k, x, y) in &changed {
            let _ = writeln!(out, "  {k}: {}", change_text(x, y));
        }
    }
    true
}
