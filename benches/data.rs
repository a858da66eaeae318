//! Data in modules as a whole process: `cargo bench --bench data [MODULES]` writes a tree of
//! MODULES modules (default 100), each with a version 3 `hiera.yaml` (node, osfamily, common)
//! and 25 keys in each of 4 data files (10,000 keys for 100 modules; every fifth value
//! interpolates a fact), then times `pbc check` of the tree and `pbc lookup` of one key for one
//! node, best of 10 runs each. Goal (issue 15): under 100 ms each.

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
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("data-{modules}"));
    let keys = write_tree(&root, modules).expect("the tree is written");
    let pbc = env!("CARGO_BIN_EXE_pbc");
    let facts = root.join("web01.json");
    let root_arg = root.display().to_string();
    let facts_arg = facts.display().to_string();
    let check = best_of(10, || {
        let out = Command::new(pbc)
            .args(["check", &root_arg])
            .output()
            .expect("pbc runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    });
    let lookup = best_of(10, || {
        let out = Command::new(pbc)
            .args([
                "lookup",
                "-C",
                &root_arg,
                "--facts",
                &facts_arg,
                "m7::key3_5",
            ])
            .output()
            .expect("pbc runs");
        assert_eq!(String::from_utf8_lossy(&out.stdout), "\"value 5 web01\"\n");
    });
    println!(
        "data in modules: {modules} modules, {keys} keys in {} data files",
        modules * 4
    );
    println!(
        "  pbc check (whole process):          {:>7.1} ms",
        ms(check)
    );
    println!(
        "  pbc lookup of one key (whole process): {:>4.1} ms",
        ms(lookup)
    );
}

/// The tree; returns how many keys it binds.
fn write_tree(root: &Path, modules: usize) -> std::io::Result<usize> {
    let _ = std::fs::remove_dir_all(root);
    std::fs::create_dir_all(root.join("manifests"))?;
    std::fs::write(
        root.join("manifests/site.pp"),
        "site {\n  categories { node => $::fqdn, osfamily => $::osfamily, environment => true }\n}\n",
    )?;
    std::fs::write(
        root.join("web01.json"),
        "{\"fqdn\": \"web01\", \"osfamily\": \"Debian\"}",
    )?;
    let files = [
        "data/common.yaml",
        "data/osfamily/Debian.yaml",
        "data/osfamily/RedHat.yaml",
        "data/node/web01.yaml",
    ];
    let mut keys = 0;
    for m in 0..modules {
        let dir = root.join(format!("modules/m{m}"));
        std::fs::create_dir_all(dir.join("data/osfamily"))?;
        std::fs::create_dir_all(dir.join("data/node"))?;
        std::fs::write(
            dir.join("hiera.yaml"),
            "version: 3\nhierarchy:\n  - node\n  - osfamily\n  - common\n",
        )?;
        for (f, file) in files.iter().enumerate() {
            let mut text = String::new();
            for k in 0..25 {
                if k % 5 == 0 {
                    let _ = writeln!(text, "m{m}::key{f}_{k}: 'value {k} ${{::fqdn}}'");
                } else {
                    let _ = writeln!(text, "m{m}::key{f}_{k}: [{k}, 'x', {{a: {k}}}]");
                }
                keys += 1;
            }
            std::fs::write(dir.join(file), text)?;
        }
    }
    Ok(keys)
}
