//! A generated configuration tree for the benchmarks: a site with `categories` categories of
//! its own (above `environment` and `common`, below `node`) and three layers (`site`, `roles`,
//! `modules`), one module per bindings file in `modules`, role files in `roles`, and site
//! bindings that override some module keys. Every binding is legal and no two conflict, so the
//! whole tree compiles; the same arguments always give the same bytes.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

pub struct TreeSpec {
    /// Bindings files in all (roles take one in a hundred, the site one).
    pub files: usize,
    pub bindings_per_file: usize,
    /// Categories the site declares besides `node`, `environment` and `common`.
    pub categories: usize,
}

pub struct GeneratedTree {
    pub root: PathBuf,
    pub files: usize,
    pub bytes: usize,
    pub bindings: usize,
}

/// Writes the tree under `root` (replacing what is there).
pub fn generate(root: &Path, spec: &TreeSpec) -> std::io::Result<GeneratedTree> {
    let _ = std::fs::remove_dir_all(root);
    std::fs::create_dir_all(root.join("manifests"))?;
    std::fs::create_dir_all(root.join("bindings/roles"))?;
    let roles = (spec.files / 100).max(1);
    let modules = spec.files.saturating_sub(roles + 1).max(1);
    let mut out = GeneratedTree {
        root: root.to_path_buf(),
        files: 0,
        bytes: 0,
        bindings: 0,
    };
    let mut write = |path: PathBuf, text: String, bindings: usize| -> std::io::Result<()> {
        out.files += 1;
        out.bytes += text.len();
        out.bindings += bindings;
        std::fs::write(path, text)
    };

    let mut site = String::from("site {\n  categories {\n    node => \"${::fqdn}\",\n");
    for c in 0..spec.categories {
        let _ = writeln!(site, "    cat{c} => $::fact{c},");
    }
    site.push_str("    environment => true,\n  }\n  bindings => [\n");
    site.push_str("    layer { 'site': include => 'confdir:/default' },\n");
    site.push_str("    layer { 'roles': include => [\n");
    for r in 0..roles {
        let _ = writeln!(site, "      'confdir:/roles::r{r}',");
    }
    site.push_str("    ] },\n    layer { 'modules': include => 'module:/*::default' },\n  ]\n}\n");
    write(root.join("manifests/site.pp"), site, 0)?;
    write(
        root.join("environments.pp"),
        "site {\n  environment { 'production': }\n  environment { 'staging': }\n}\n".into(),
        0,
    )?;

    // Site bindings: an override of the first key of every hundredth module.
    let mut text = String::from("bindings default {\n");
    let mut n = 0;
    for m in (0..modules).step_by(100) {
        let _ = writeln!(text, "  bind override 'm{m}::k0' to 'site {m}'");
        n += 1;
    }
    text.push_str("}\n");
    write(root.join("bindings/default.pp"), text, n)?;

    for r in 0..roles {
        let mut text = format!("bindings roles::r{r} {{\n  include role_{r}\n");
        for j in 0..spec.bindings_per_file.saturating_sub(1) {
            let _ = writeln!(text, "  bind 'roles::r{r}::k{j}' to {j}");
        }
        text.push_str("}\n");
        write(
            root.join(format!("bindings/roles/r{r}.pp")),
            text,
            spec.bindings_per_file,
        )?;
    }

    for m in 0..modules {
        let dir = root.join(format!("modules/m{m}/bindings"));
        std::fs::create_dir_all(&dir)?;
        let mut text = format!("bindings m{m}::default {{\n");
        if m == 0 {
            text.push_str("  multibind Hash[String, Integer], 'all_modules'\n");
        }
        for j in 0..spec.bindings_per_file {
            let key = format!("m{m}::k{j}");
            let category = if spec.categories == 0 {
                None
            } else {
                Some((m + j) % spec.categories)
            };
            match (j % 5, category) {
                (0, _) => {
                    let _ = writeln!(text, "  bind '{key}' to 'value {m} {j}'");
                }
                (1, Some(c)) => {
                    let _ = writeln!(
                        text,
                        "  bind Integer, '{key}' to {j}\n  when cat{c} 'v{}' {{ bind Integer, '{key}' to {} }}",
                        m % 7,
                        j + 1
                    );
                }
                (2, _) => {
                    let _ = writeln!(text, "  bind '{key}' to \"${{::fqdn}}-{m}-{j}\"");
                }
                (3, Some(c)) => {
                    let _ = writeln!(
                        text,
                        "  when cat{c} 'v{}' and environment 'production' {{ bind '{key}' to ['a', 'b', {j}] }}\n  bind '{key}' to []",
                        m % 3
                    );
                }
                _ => {
                    let _ = writeln!(
                        text,
                        "  bind '{key}' to {{ 'port' => {}, 'enabled' => true }}",
                        8000 + j
                    );
                }
            }
        }
        let _ = writeln!(text, "  bind 'm{m}' to {m} in 'all_modules'");
        text.push_str("}\n");
        write(dir.join("default.pp"), text, spec.bindings_per_file + 1)?;
    }
    Ok(out)
}

/// Milliseconds, for printing.
pub fn ms(d: std::time::Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// The fastest of `runs` runs of `f`.
pub fn best_of(runs: usize, mut f: impl FnMut()) -> std::time::Duration {
    (0..runs)
        .map(|_| {
            let start = std::time::Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Best of three whole `pbc` processes under `/usr/bin/time`: seconds and peak resident KB.
pub fn run_timed(args: &[&str]) -> (f64, u64) {
    let mut best = (f64::MAX, 0);
    for _ in 0..3 {
        let Ok(out) = std::process::Command::new("/usr/bin/time")
            .args(["-f", "%e %M", env!("CARGO_BIN_EXE_pbc")])
            .args(args)
            .stdout(std::process::Stdio::null())
            .output()
        else {
            eprintln!("/usr/bin/time is needed for whole-process figures");
            return best;
        };
        let text = String::from_utf8_lossy(&out.stderr);
        let last = text.lines().last().unwrap_or_default().to_string();
        let mut fields = last.split_whitespace();
        let seconds: f64 = fields
            .next()
            .and_then(|f| f.parse().ok())
            .unwrap_or(f64::MAX);
        let kb: u64 = fields.next().and_then(|f| f.parse().ok()).unwrap_or(0);
        if seconds < best.0 {
            best = (seconds, kb);
        }
    }
    best
}

// The allocator the `pbc` binary ships with, so that in-process figures are those of the
// command.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;
