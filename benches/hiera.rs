//! Hiera 5 as a whole process: `cargo bench --bench hiera [MODULES]` writes a control
//! repository (`production/`: an environment `hiera.yaml` with node, OS, glob and common
//! levels, and MODULES modules, default 100, each with a version 5 `hiera.yaml` and 25 keys in
//! each of 4 data files: 10,000 keys for 100 modules, every fifth value interpolating a fact,
//! every module's `list` merged by `lookup_options`), then times `pbc lookup` of one key and of
//! `--all` for one node (best of several runs), and, when `puppet` is installed, `puppet
//! lookup` of the same key and Puppet's lookup of every key in one process
//! (`scripts/hiera-oracle.rb`), printing the ratios. Goal (issue 19): milliseconds, against
//! Puppet's seconds.

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

mod common;
use common::{best_of, ms};

fn main() {
    let modules = std::env::args()
        .skip(1)
        .find_map(|a| a.parse::<usize>().ok())
        .unwrap_or(100);
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("hiera-{modules}"));
    let keys = write_repository(&root, modules).expect("the repository is written");
    let env = root.join("production");
    let facts = root.join("web01.example.com.json");
    let (env_arg, facts_arg) = (env.display().to_string(), facts.display().to_string());
    let pbc = env!("CARGO_BIN_EXE_pbc");
    let key = "m7::key3_5";
    let expected = "\"value 5 web01 Debian\"\n";
    let one = best_of(10, || {
        let out = Command::new(pbc)
            .args(["lookup", "-C", &env_arg, "--facts", &facts_arg, key])
            .output()
            .expect("pbc runs");
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    });
    // Compiled once (`pbc compile --cache`), then answered from the cache.
    let cache = root.join("production.pbcm");
    let cache_arg = cache.display().to_string();
    let compiled = Command::new(pbc)
        .args(["compile", "--cache", "-o", &cache_arg, &env_arg])
        .output()
        .expect("pbc runs");
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let from_cache = best_of(10, || {
        let out = Command::new(pbc)
            .args(["lookup", "--model", &cache_arg, "--facts", &facts_arg, key])
            .output()
            .expect("pbc runs");
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    });
    let mut all_count = 0;
    let all = best_of(5, || {
        let out = Command::new(pbc)
            .args(["lookup", "-C", &env_arg, "--facts", &facts_arg, "--all"])
            .output()
            .expect("pbc runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        all_count = v.as_object().map_or(0, |o| o.len());
    });
    println!(
        "hiera 5: {modules} modules, {keys} keys in {} data files",
        modules * 4 + 3
    );
    println!(
        "  pbc lookup of one key (whole process): {:>8.1} ms",
        ms(one)
    );
    println!(
        "  pbc lookup of one key from the compiled cache:   {:>8.1} ms",
        ms(from_cache)
    );
    println!(
        "  pbc lookup --all, {all_count} keys (whole process): {:>8.1} ms",
        ms(all)
    );
    let has_puppet = Command::new("puppet")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_puppet {
        println!("  (puppet is not installed: no ratio; scripts/hiera-conformance.sh installs it)");
        return;
    }
    let envpath = root.display().to_string();
    let puppet_one = best_of(3, || {
        let out = Command::new("puppet")
            .args([
                "lookup",
                "--environmentpath",
                &envpath,
                "--environment",
                "production",
                "--node",
                "web01.example.com",
                "--facts",
                &facts_arg,
                "--render-as",
                "json",
                key,
            ])
            .output()
            .expect("puppet runs");
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected);
    });
    let all_keys: Vec<String> = (0..modules)
        .flat_map(|m| (0..4).flat_map(move |f| (0..25).map(move |k| format!("m{m}::key{f}_{k}"))))
        .collect();
    let oracle = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/hiera-oracle.rb");
    let puppet_all = best_of(1, || {
        let out = Command::new("ruby")
            .args([
                oracle,
                "--environmentpath",
                &envpath,
                "--environment",
                "production",
                "--node",
                "web01.example.com",
                "--facts",
                &facts_arg,
            ])
            .args(&all_keys)
            .output()
            .expect("ruby runs");
        let answered = String::from_utf8_lossy(&out.stdout).lines().count();
        assert_eq!(
            answered,
            all_keys.len(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
    println!(
        "  puppet lookup of one key (whole process): {:>8.1} ms, {:.0}x pbc from the tree, {:.0}x from the cache",
        ms(puppet_one),
        puppet_one.as_secs_f64() / one.as_secs_f64(),
        puppet_one.as_secs_f64() / from_cache.as_secs_f64()
    );
    println!(
        "  Puppet's lookup of all {} keys in one process: {:>8.1} ms, {:.0}x pbc --all",
        all_keys.len(),
        ms(puppet_all),
        puppet_all.as_secs_f64() / all.as_secs_f64()
    );
}

/// The control repository; gives the number of keys.
fn write_repository(root: &Path, modules: usize) -> std::io::Result<usize> {
    let _ = std::fs::remove_dir_all(root);
    let env = root.join("production");
    let write = |path: &Path, text: &str| -> std::io::Result<()> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, text)
    };
    let hiera = "version: 5\ndefaults:\n  datadir: data\n  data_hash: yaml_data\nhierarchy:\n  - name: node\n    path: \"nodes/%{trusted.certname}.yaml\"\n  - name: os\n    path: \"os/%{facts.os.family}.yaml\"\n  - name: roles\n    glob: \"roles/%{facts.role}/*.yaml\"\n  - name: common\n    path: common.yaml\n";
    write(&env.join("hiera.yaml"), hiera)?;
    write(
        &env.join("data/common.yaml"),
        "lookup_options:\n  \"^m[0-9]+::list$\":\n    merge: unique\nsite::motd: \"%{facts.os.family} node\"\n",
    )?;
    write(&env.join("data/os/Debian.yaml"), "site::ntp: debian\n")?;
    write(
        &env.join("data/nodes/web01.example.com.yaml"),
        "site::node: true\n",
    )?;
    let mut keys = 0;
    for m in 0..modules {
        let dir = env.join(format!("modules/m{m}"));
        write(&dir.join("hiera.yaml"), hiera)?;
        write(
            &dir.join("manifests/init.pp"),
            &format!("class m{m} {{}}\n"),
        )?;
        let files = [
            "data/nodes/web01.example.com.yaml",
            "data/os/Debian.yaml",
            "data/roles/web/a.yaml",
            "data/common.yaml",
        ];
        for (f, file) in files.iter().enumerate() {
            let mut text = String::new();
            for k in 0..25 {
                keys += 1;
                if k % 5 == 0 {
                    let _ = writeln!(
                        text,
                        "m{m}::key{f}_{k}: \"value {k} %{{facts.hostname}} %{{facts.os.family}}\""
                    );
                } else {
                    let _ = writeln!(text, "m{m}::key{f}_{k}: value {k}");
                }
            }
            let _ = writeln!(text, "m{m}::list: [f{f}, shared]");
            write(&dir.join(file), &text)?;
        }
    }
    write(
        &root.join("web01.example.com.json"),
        r#"{"hostname": "web01", "domain": "example.com", "fqdn": "web01.example.com", "clientcert": "web01.example.com", "role": "web", "os": {"family": "Debian", "name": "Debian", "release": {"major": "12"}}}"#,
    )?;
    Ok(keys)
}
