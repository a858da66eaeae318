//! The conformance harness's Rust half (driven by `scripts/conformance.sh`).
//!
//! `conformance mutate CORPUS OUT`: writes deterministic mutants of every `CORPUS/**/*.pp` to
//! `OUT/<path>.<kind>.pp`: truncated at a token boundary, one token deleted, one token
//! duplicated, one closing bracket dropped, one opening quote dropped. The token boundaries come
//! from pbc's own lexer; the choices from a seed derived from the file's path.
//!
//! `conformance compare ROOT ORACLE.tsv PN_DIR DIVERGENCES.tsv`: runs pbc (parse + Puppet's
//! validation) on every file the oracle judged, compares the verdict, the line of the first
//! error and, where both accept, the PN JSON with Puppet's dump. Prints a table and every
//! difference; exits 1 if a difference is not listed in the divergence file, or if the mutant
//! agreement falls below the bars (99% verdicts, 95% first-error lines).
//!
//! `conformance check ROOT ORACLE.tsv`: runs `pbc check` on `ROOT/corpus` as one tree and
//! fails if it reports anything (error or warning) in a file Puppet accepts: on real manifests
//! pbc's own rules must stay silent where Puppet is.
use puppet_bindings::lexer::{self, Tok};
use puppet_bindings::span::{FileId, SourceMap};
use puppet_bindings::{diag, parse_and_validate, pn, source};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let run = move || -> Result<bool, String> {
        match args.first().map(String::as_str) {
            Some("mutate") if args.len() == 3 => mutate(Path::new(&args[1]), Path::new(&args[2])),
            Some("compare") if args.len() == 5 => compare(
                Path::new(&args[1]),
                Path::new(&args[2]),
                Path::new(&args[3]),
                Path::new(&args[4]),
            ),
            Some("check") if args.len() == 3 => check(Path::new(&args[1]), Path::new(&args[2])),
            Some("fmt-comments") if args.len() == 3 => {
                fmt_comments(Path::new(&args[1]), Path::new(&args[2]))
            }
            _ => Err("usage: conformance mutate CORPUS OUT | compare ROOT ORACLE.tsv PN_DIR DIVERGENCES.tsv | check ROOT ORACLE.tsv | fmt-comments BEFORE AFTER".into()),
        }
    };
    // Deeply nested mutants are parsed on a big stack, as `pbc` itself does.
    let worker = std::thread::Builder::new()
        .stack_size(256 * 1024 * 1024)
        .spawn(run);
    match worker.map(|h| h.join()) {
        Ok(Ok(Ok(true))) => ExitCode::SUCCESS,
        Ok(Ok(Ok(false))) => ExitCode::from(1),
        Ok(Ok(Err(e))) => {
            eprintln!("conformance: {e}");
            ExitCode::from(2)
        }
        _ => {
            eprintln!("conformance: internal error");
            ExitCode::from(2)
        }
    }
}

/// A small deterministic generator (xorshift64*), seeded from the file's path.
struct Rng(u64);

impl Rng {
    fn new(seed: &str) -> Rng {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in seed.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(h | 1)
    }
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % (n.max(1) as u64)) as usize
    }
}

fn relative(root: &Path, p: &Path) -> String {
    p.strip_prefix(root)
        .unwrap_or(p)
        .to_string_lossy()
        .replace('\\', "/")
}

fn mutate(corpus: &Path, out: &Path) -> Result<bool, String> {
    let files = source::expand_paths(&[corpus.to_path_buf()], &Default::default())
        .map_err(|e| e.to_string())?;
    let mut written = 0;
    for path in files {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let rel = relative(corpus, &path);
        let tokens = lexer::lex(FileId(0), &text).tokens;
        if tokens.is_empty() {
            continue;
        }
        let mut rng = Rng::new(&rel);
        let mut mutants: Vec<(&str, String)> = Vec::new();
        let (s, _, _) = &tokens[rng.below(tokens.len())];
        mutants.push(("truncate", text[..*s].to_string()));
        let (s, _, e) = &tokens[rng.below(tokens.len())];
        mutants.push(("delete", format!("{}{}", &text[..*s], &text[*e..])));
        let (s, _, e) = &tokens[rng.below(tokens.len())];
        mutants.push(("duplicate", format!("{} {}", &text[..*e], &text[*s..])));
        let closers: Vec<_> = tokens
            .iter()
            .filter(|(_, t, _)| matches!(t, Tok::RBrace | Tok::RBrack | Tok::RParen))
            .collect();
        if !closers.is_empty() {
            let (s, _, e) = closers[rng.below(closers.len())];
            mutants.push(("unclosed", format!("{}{}", &text[..*s], &text[*e..])));
        }
        let quotes: Vec<usize> = tokens
            .iter()
            .filter(|(s, t, _)| {
                matches!(t, Tok::Str(_) | Tok::DqPre(_))
                    && matches!(text.as_bytes().get(*s), Some(b'"' | b'\''))
            })
            .map(|(s, _, _)| *s)
            .collect();
        if !quotes.is_empty() {
            let s = quotes[rng.below(quotes.len())];
            mutants.push(("unquoted", format!("{}{}", &text[..s], &text[s + 1..])));
        }
        for (kind, body) in mutants {
            let dst = out.join(format!("{rel}.{kind}.pp"));
            if let Some(dir) = dst.parent() {
                std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            }
            std::fs::write(&dst, body).map_err(|e| e.to_string())?;
            written += 1;
        }
    }
    eprintln!("{written} mutants written to {}", out.display());
    Ok(true)
}

struct Verdict {
    error: bool,
    line: Option<usize>,
    message: String,
}

/// pbc's verdict for one file: parse, then Puppet's validation; the first error by position.
fn pbc_verdict(path: &Path, rel: &str) -> (Verdict, Option<String>) {
    let bytes = std::fs::read(path).unwrap_or_default();
    let mut files = SourceMap::new();
    let (id, bad) = source::add_source(&mut files, rel.to_string(), bytes.into());
    let mut diags = Vec::new();
    let mut pn_json = None;
    if let Some(d) = bad {
        diags.push(d);
    } else {
        let parsed = parse_and_validate(id, files.source(id));
        diags = parsed.diagnostics;
        pn_json = parsed.program.as_ref().map(pn::program_to_json);
    }
    diag::sort(&mut diags);
    let first = diags.iter().find(|d| d.is_error());
    let verdict = Verdict {
        error: first.is_some(),
        line: first.map(|d| files.line_col(d.span.file, d.span.start).0),
        message: first
            .map(|d| format!("{} {}", d.code, d.message))
            .unwrap_or_default(),
    };
    let accepted = !verdict.error;
    (verdict, pn_json.filter(|_| accepted))
}

fn compare(root: &Path, oracle: &Path, pn_dir: &Path, divergences: &Path) -> Result<bool, String> {
    let listed: BTreeMap<(String, String), String> = std::fs::read_to_string(divergences)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut p = l.splitn(3, '\t');
            Some((
                (p.next()?.to_string(), p.next()?.to_string()),
                p.next()?.to_string(),
            ))
        })
        .collect();
    let oracle_text =
        std::fs::read_to_string(oracle).map_err(|e| format!("{}: {e}", oracle.display()))?;
    // group -> [files, verdict agree, both reject, line agree, both accept, pn identical]
    let mut table: BTreeMap<String, [usize; 6]> = BTreeMap::new();
    let mut unlisted = Vec::new();
    let mut listed_seen = 0;
    let mut used = std::collections::BTreeSet::new();
    for line in oracle_text.lines() {
        let mut p = line.splitn(4, '\t');
        let (Some(rel), Some(verdict), Some(pline)) = (p.next(), p.next(), p.next()) else {
            continue;
        };
        let puppet = Verdict {
            error: verdict == "error",
            line: pline.parse().ok(),
            message: p.next().unwrap_or("").to_string(),
        };
        let group = if rel.starts_with("mutants/") {
            "mutants"
        } else if rel.starts_with("pn/") {
            "pbc corpus/pn"
        } else {
            "corpus"
        };
        let (ours, our_pn) = pbc_verdict(&root.join(rel), rel);
        let row = table.entry(group.to_string()).or_default();
        row[0] += 1;
        let mut report = |kind: &str, detail: String| {
            // An entry's path may end in `*`: a known class of differences under that prefix.
            let entry = listed.keys().find(|(path, k)| {
                k == kind
                    && match path.strip_suffix('*') {
                        Some(prefix) => rel.starts_with(prefix),
                        None => path == rel,
                    }
            });
            if let Some(entry) = entry {
                listed_seen += 1;
                used.insert(entry.clone());
            } else {
                unlisted.push(format!("{kind:8} {rel}: {detail}"));
            }
        };
        if ours.error != puppet.error {
            report(
                "verdict",
                format!(
                    "puppet {} {:?}, pbc {} {:?}",
                    verdict,
                    puppet.message,
                    if ours.error { "error" } else { "ok" },
                    ours.message
                ),
            );
            continue;
        }
        row[1] += 1;
        if ours.error {
            row[2] += 1;
            // Puppet names no line for some errors (end of input, "giving up"): not compared.
            if puppet.line.is_none() || puppet.line == ours.line {
                row[3] += 1;
            } else {
                report(
                    "line",
                    format!(
                        "puppet line {:?} {:?}, pbc line {:?} {:?}",
                        puppet.line, puppet.message, ours.line, ours.message
                    ),
                );
            }
            continue;
        }
        row[4] += 1;
        let reference = std::fs::read_to_string(pn_dir.join(format!("{rel}.json")));
        match (reference, our_pn) {
            (Ok(r), Some(o)) if r == o => row[5] += 1,
            (Ok(_), _) => report("pn", "PN JSON differs from Puppet's dump".to_string()),
            (Err(_), _) => report("pn", "Puppet's dumper produced no PN".to_string()),
        }
    }
    println!(
        "{:16} {:>6} {:>9} {:>8} {:>12} {:>8} {:>9}",
        "files", "count", "verdicts", "reject", "error line", "accept", "PN same"
    );
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    let mut ok = true;
    for (group, r) in &table {
        println!(
            "{group:16} {:>6} {:>8.2}% {:>8} {:>11.2}% {:>8} {:>8.2}%",
            r[0],
            pct(r[1], r[0]),
            r[2],
            pct(r[3], r[2]),
            r[4],
            pct(r[5], r[4])
        );
        if group == "mutants" && (pct(r[1], r[0]) < 99.0 || pct(r[3], r[2]) < 95.0) {
            println!("  mutant agreement is below the bar (99% verdicts, 95% error lines)");
            ok = false;
        }
    }
    println!("differences listed as known divergences: {listed_seen}");
    for u in &unlisted {
        println!("  {u}");
    }
    // A listed divergence that no longer occurs is stale: the file must say what is true.
    for (path, kind) in listed.keys().filter(|k| !used.contains(*k)) {
        println!("  stale    {path} ({kind}): listed as a divergence but not seen");
        ok = false;
    }
    if !unlisted.is_empty() {
        println!(
            "{} differences not listed in {}",
            unlisted.len(),
            divergences.display()
        );
        ok = false;
    }
    Ok(ok)
}

fn check(root: &Path, oracle: &Path) -> Result<bool, String> {
    let oracle_text =
        std::fs::read_to_string(oracle).map_err(|e| format!("{}: {e}", oracle.display()))?;
    let rejected: std::collections::BTreeSet<String> = oracle_text
        .lines()
        .filter_map(|l| {
            let mut p = l.splitn(3, '\t');
            let (rel, verdict) = (p.next()?, p.next()?);
            (verdict == "error").then(|| rel.to_string())
        })
        .collect();
    let corpus = root.join("corpus");
    let files = puppet_bindings::tree::discover(std::slice::from_ref(&corpus), &Default::default())
        .map_err(|e| e.to_string())?;
    let report = puppet_bindings::check_tree_files(&files, &Default::default())
        .map_err(|e| e.to_string())?;
    // Diagnostics name files as pbc shows them; the oracle names them relative to ROOT.
    let rel_of: BTreeMap<&str, String> = files
        .iter()
        .map(|f| {
            let rel = f.path.strip_prefix(root).unwrap_or(&f.path);
            (&*f.display, rel.to_string_lossy().into_owned())
        })
        .collect();
    let mut extra = Vec::new();
    let mut flagged = std::collections::BTreeSet::new();
    for d in &report.diagnostics {
        let name = report.files.name(d.span.file);
        let rel = rel_of
            .get(name)
            .cloned()
            .unwrap_or_else(|| name.to_string());
        flagged.insert(rel.clone());
        if !rejected.contains(&rel) {
            let (line, _) = report.files.line_col(d.span.file, d.span.start);
            extra.push(format!("  {rel}:{line}: {} {}", d.code, d.message));
        }
    }
    println!(
        "pbc check on {} corpus files: {} files with findings, {} of them accepted by Puppet",
        report.file_count,
        flagged.len(),
        flagged.iter().filter(|f| !rejected.contains(*f)).count()
    );
    for e in &extra {
        println!("{e}");
    }
    Ok(extra.is_empty())
}

/// `pbc fmt` keeps every comment: each `.pp` under `before` and its copy under `after` (laid
/// out by `pbc fmt`) have the same comments in the same order. Prints the count.
fn fmt_comments(before: &Path, after: &Path) -> Result<bool, String> {
    use puppet_bindings::format::comments;
    use puppet_bindings::span::FileId;
    // The files `pbc fmt BEFORE` lays out.
    let files = puppet_bindings::source::expand_paths(&[before.to_path_buf()], &Default::default())
        .map_err(|e| e.to_string())?;
    let (mut count, mut lost) = (0usize, Vec::new());
    for file in &files {
        let rel = file.strip_prefix(before).map_err(|e| e.to_string())?;
        let (Ok(was), Ok(is)) = (
            std::fs::read_to_string(file),
            std::fs::read_to_string(after.join(rel)),
        ) else {
            continue;
        };
        let kept = comments(FileId(0), &was);
        count += kept.len();
        if kept != comments(FileId(0), &is) {
            lost.push(rel.display().to_string());
        }
    }
    println!(
        "fmt: {} files, {count} comments before and after; {} files whose comments differ",
        files.len(),
        lost.len()
    );
    for rel in &lost {
        println!("  comments differ: {rel}");
    }
    Ok(lost.is_empty())
}
