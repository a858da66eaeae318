//! SARIF 2.1.0 output (`--error-format sarif`), for code-scanning services. One run, tool
//! `pbc`, one rule per diagnostic code that occurs (the code is the stable rule id), results in
//! the order of the diagnostics, file paths as given (relative to the current directory),
//! columns counted in Unicode code points as everywhere in pbc.

use super::{Diagnostic, Severity};
use crate::span::SourceMap;
use serde_json::{json, Value};

pub fn render(files: &SourceMap, diags: &[Diagnostic]) -> String {
    let mut codes: Vec<(&str, Severity)> = Vec::new();
    for d in diags {
        if !codes.iter().any(|(c, _)| *c == d.code) {
            codes.push((d.code, d.severity));
        }
    }
    codes.sort_by(|a, b| a.0.cmp(b.0));
    let rules: Vec<Value> = codes
        .iter()
        .map(|(code, severity)| {
            json!({
                "id": code,
                "name": code,
                "defaultConfiguration": { "level": level(*severity) },
            })
        })
        .collect();
    let results: Vec<Value> = diags
        .iter()
        .map(|d| {
            let mut text = d.message.clone();
            for n in &d.notes {
                text.push('\n');
                text.push_str(n);
            }
            let rule_index = codes.iter().position(|(c, _)| *c == d.code).unwrap_or(0);
            let related: Vec<Value> = d
                .labels
                .iter()
                .enumerate()
                .filter_map(|(i, (span, label))| {
                    let ((l, c), (el, ec)) = files.positions(*span)?;
                    Some(json!({
                        "id": i,
                        "message": { "text": label },
                        "physicalLocation": location(files.name(span.file), l, c, el, ec),
                    }))
                })
                .collect();
            let mut result = json!({
                "ruleId": d.code,
                "ruleIndex": rule_index,
                "level": level(d.severity),
                "message": { "text": text },
            });
            // A diagnostic about no place in a file has no location (SARIF allows none).
            if let Some(((line, column), (end_line, end_column))) = files.positions(d.span) {
                result["locations"] = json!([{
                    "physicalLocation": location(files.name(d.span.file), line, column, end_line, end_column),
                }]);
            }
            if !related.is_empty() {
                result["relatedLocations"] = Value::Array(related);
            }
            if let Some(fix) = d.fix.as_ref() {
                if let (Some((span, replacement)), Some(title)) = (fix.edit(files), fix.title(files)) {
                    if let Some(((l, c), (el, ec))) = files.positions(span) {
                        let place = location(files.name(span.file), l, c, el, ec);
                        result["fixes"] = json!([{
                            "description": { "text": title },
                            "artifactChanges": [{
                                "artifactLocation": place["artifactLocation"],
                                "replacements": [{
                                    "deletedRegion": place["region"],
                                    "insertedContent": { "text": replacement },
                                }],
                            }],
                        }]);
                    }
                }
            }
            result
        })
        .collect();
    let doc = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "pbc",
                    "version": env!("CARGO_PKG_VERSION"),
                    "rules": rules,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    let mut s = serde_json::to_string_pretty(&doc).unwrap_or_else(|_| String::from("{}"));
    s.push('\n');
    s
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn location(file: &str, line: usize, column: usize, end_line: usize, end_column: usize) -> Value {
    json!({
        "artifactLocation": { "uri": uri_path(file) },
        "region": {
            "startLine": line,
            "startColumn": column,
            "endLine": end_line,
            "endColumn": end_column,
        }
    })
}

/// A relative URI reference for a path: unreserved characters and `/` stay, the rest is
/// percent-encoded.
fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
