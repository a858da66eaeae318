//! The README's walk-throughs (the quick start, data in modules), run exactly as written: every
//! `$ pbc ...` line of their `console` blocks is run from the package root and its output
//! (stdout, then stderr) must be the lines that follow it. The README cannot promise what pbc
//! does not do.

use std::process::Command;

/// (command line, expected output) for each `$ ` line of the console blocks of the README's
/// section `title`.
fn section_commands(title: &str) -> Vec<(String, String)> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let start = readme
        .find(&format!("\n## {title}\n"))
        .unwrap_or_else(|| panic!("a section `{title}`"));
    let section = &readme[start + 1..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let mut commands: Vec<(String, String)> = Vec::new();
    let mut in_console = false;
    for line in section.lines() {
        if line.starts_with("```") {
            in_console = line == "```console";
            continue;
        }
        if !in_console {
            continue;
        }
        if let Some(command) = line.strip_prefix("$ ") {
            commands.push((command.to_string(), String::new()));
        } else if let Some((_, output)) = commands.last_mut() {
            output.push_str(line);
            output.push('\n');
        }
    }
    commands
}

#[test]
fn the_walk_throughs_run_as_written() {
    for title in ["Quick start", "Data in modules"] {
        let commands = section_commands(title);
        assert!(commands.len() >= 4, "{title}: {commands:?}");
        run_as_written(commands);
    }
}

fn run_as_written(commands: Vec<(String, String)>) {
    for (line, expected) in commands {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[0], "pbc", "{line}");
        let out = Command::new(env!("CARGO_BIN_EXE_pbc"))
            .args(&words[1..])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("pbc runs");
        let printed = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(0), "{line}\n{printed}");
        assert_eq!(printed, expected, "{line}");
    }
}

/// The mistake the quick start suggests: without the site's message, the motd module's
/// abstract binding wins for every node, and `check` says so at the module's line.
#[test]
fn the_quick_start_mistake_is_caught() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/quickstart");
    let copy = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("quickstart-mistake");
    let _ = std::fs::remove_dir_all(&copy);
    for file in [
        "manifests/site.pp",
        "bindings/default.pp",
        "modules/ntp/bindings/default.pp",
        "modules/motd/bindings/default.pp",
    ] {
        let text = std::fs::read_to_string(root.join(file)).expect("quick start file");
        let text: String = text
            .lines()
            .filter(|l| !l.contains("bind 'motd::message'"))
            .map(|l| format!("{l}\n"))
            .collect();
        let to = copy.join(file);
        std::fs::create_dir_all(to.parent().expect("a directory")).expect("directory");
        std::fs::write(to, text).expect("written");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_pbc"))
        .args(["check", "-C"])
        .arg(&copy)
        .output()
        .expect("pbc runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("error[ABSTRACT_NOT_OVERRIDDEN]")
            && stderr.contains("modules/motd/bindings/default.pp:3:3"),
        "{stderr}"
    );
}
