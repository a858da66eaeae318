//! `pbc fmt`: the layout rules, one corpus file each (`corpus/fmt/`, snapshots of the laid-out
//! text); every `.pp` of the corpus and the examples laid out with its meaning (its PN) and its
//! comments kept, and laid out again unchanged; the command's modes end to end (in place,
//! `--check`, `--diff`, standard input) and a file that does not parse left alone; the bundled
//! examples already laid out.

use crate::common::{self, pbc};
use puppet_bindings::format::{comments, format_source, meaning_kept, Formatted};
use puppet_bindings::span::{FileId, SourceMap};
use std::path::Path;

fn laid_out(src: &str) -> Option<String> {
    match format_source(FileId(0), src) {
        Formatted::Text(text) => Some(text),
        Formatted::NotParsed(_) => None,
        Formatted::Refused(refusal) => panic!("refused: {refusal:?}"),
    }
}

/// Each rule's file, laid out: the snapshot shows the rule; laying it out again changes nothing.
#[test]
fn layout_rules() {
    let mut settings = common::snapshot_settings();
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta::glob!("../../corpus/fmt", "*.pp", |path| {
            let src = std::fs::read_to_string(path).expect("the case");
            let once = laid_out(&src).expect("the case parses");
            assert_eq!(
                laid_out(&once).as_deref(),
                Some(once.as_str()),
                "{}",
                path.display()
            );
            assert_eq!(comments(FileId(0), &src), comments(FileId(0), &once));
            insta::assert_snapshot!(once);
        });
    });
}

/// Every `.pp` of the corpus and the examples that parses is laid out without a refusal (its
/// PN unchanged), keeps every comment in order, and is laid out again unchanged.
#[test]
fn every_corpus_file_keeps_its_meaning_and_its_comments() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    // The files `pbc fmt corpus examples` lays out.
    let files = puppet_bindings::source::expand_paths(
        &[root.join("corpus"), root.join("examples")],
        &Default::default(),
    )
    .expect("the corpus and the examples");
    let (mut laid, mut changed, mut kept_comments) = (0, 0, 0);
    for file in &files {
        let Ok(src) = std::fs::read_to_string(file) else {
            continue;
        };
        // Deeply nested cases parse on a big stack, as the corpus test parses them.
        let given = src.clone();
        let once = std::thread::Builder::new()
            .stack_size(64 * 1024 * 1024)
            .spawn(move || laid_out(&given).map(|once| (laid_out(&once), once)))
            .expect("spawn")
            .join()
            .unwrap_or_else(|_| panic!("{} panicked", file.display()));
        let Some((again, once)) = once else {
            continue;
        };
        assert_eq!(again.as_deref(), Some(once.as_str()), "{}", file.display());
        let before = comments(FileId(0), &src);
        assert_eq!(before, comments(FileId(0), &once), "{}", file.display());
        laid += 1;
        changed += usize::from(once != src);
        kept_comments += before.len();
    }
    assert!(laid > 300, "{laid} files laid out");
    // Most of the corpus is laid out as the style has it already.
    assert!(changed > 10, "{changed} files changed");
    assert!(kept_comments > 150, "{kept_comments} comments");
}

/// The refusal, rendered: a laid-out text whose program is not the one given.
#[test]
fn a_layout_that_changes_the_program_is_refused() {
    let src = "$a = [1, 2]\n";
    let program = puppet_bindings::parse_file(FileId(0), src)
        .program
        .expect("parses");
    let pn = puppet_bindings::pn::program_to_json(&program);
    let refusal = meaning_kept(FileId(0), &pn, "$a = [1 , 2 , 3]\n").expect("refused");
    let mut files = SourceMap::default();
    files.add("changed.pp", src);
    let mut settings = common::snapshot_settings();
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        insta::assert_snapshot!(
            "fmt_refused",
            puppet_bindings::diag::render_text(&files, &[refusal])
        );
    });
}

/// In place, `--check`, `--diff`, standard input; a file that does not parse is left as it is,
/// with its errors, and fails the command.
#[test]
fn the_command_writes_lists_diffs_and_reads_standard_input() {
    let dir = tempfile::tempdir().expect("a directory");
    let messy = dir.path().join("messy.pp");
    let tidy = dir.path().join("tidy.pp");
    let broken = dir.path().join("broken.pp");
    std::fs::write(
        &messy,
        "class a {\nfile { '/x':\nensure => file,\nmode => '0644',\n}\n}\n",
    )
    .expect("written");
    std::fs::write(&tidy, "$a = 1\n").expect("written");
    std::fs::write(&broken, "class {\n").expect("written");
    let path = |p: &Path| p.display().to_string();

    let (code, stdout, stderr) = pbc(&["fmt", "--check", &path(&messy), &path(&tidy)]);
    assert_eq!(
        (code, stdout.as_str()),
        (1, format!("{}\n", path(&messy)).as_str()),
        "{stderr}"
    );
    let (code, stdout, _) = pbc(&["fmt", "--diff", &path(&messy)]);
    assert_eq!(code, 1);
    assert!(
        stdout.contains("-ensure => file,\n-mode => '0644',\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("+    ensure => file,\n+    mode   => '0644',\n"),
        "{stdout}"
    );
    let (code, _, stderr) = pbc(&["fmt", &path(&messy), &path(&tidy)]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&messy).expect("read"),
        "class a {\n  file { '/x':\n    ensure => file,\n    mode   => '0644',\n  }\n}\n"
    );
    let (code, stdout, _) = pbc(&["fmt", "--check", &path(&messy), &path(&tidy)]);
    assert_eq!((code, stdout.as_str()), (0, ""));

    let (code, _, stderr) = pbc(&["fmt", &path(&broken)]);
    assert_eq!(code, 1);
    assert!(stderr.contains("error[UNEXPECTED_EOF]"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&broken).expect("read"), "class {\n");

    // Standard input: laid out to standard output; a text that does not parse is written
    // back as it came, with its errors; `-` stands alone.
    let from_stdin = |input: &[u8]| {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pbc"))
            .args(["fmt", "-"])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("pbc runs");
        use std::io::Write;
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("written");
        let out = child.wait_with_output().expect("pbc ends");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, _) = from_stdin(b"node default {\n    include a\n}");
    assert_eq!(
        (code, stdout.as_str()),
        (Some(0), "node default {\n  include a\n}\n")
    );
    let (code, stdout, stderr) = from_stdin(b"class {\n");
    assert_eq!((code, stdout.as_str()), (Some(1), "class {\n"));
    assert!(stderr.contains("error[UNEXPECTED_EOF]"), "{stderr}");
    let (code, _, stderr) = pbc(&["fmt", "-", &path(&tidy)]);
    assert_eq!(code, 2, "{stderr}");
}

/// The files are written on every core: each one that cannot be written is reported (here two
/// links, which pbc reads but never replaces, and which a check by permissions would not catch
/// when the tests run as root), the others are written, and the command exits 2.
#[test]
fn every_file_that_cannot_be_written_is_reported() {
    let dir = tempfile::tempdir().expect("a directory");
    let messy = "class a {\n    $x = 1\n}\n";
    let targets = dir.path().join("targets");
    std::fs::create_dir(&targets).expect("a directory");
    let mut paths = Vec::new();
    for name in ["first", "second"] {
        let target = targets.join(format!("{name}.pp"));
        std::fs::write(&target, messy).expect("written");
        let link = dir.path().join(format!("{name}.pp"));
        std::os::unix::fs::symlink(&target, &link).expect("a link");
        paths.push(link.display().to_string());
    }
    let plain = dir.path().join("plain.pp");
    std::fs::write(&plain, messy).expect("written");
    paths.push(plain.display().to_string());

    let args: Vec<&str> = std::iter::once("fmt")
        .chain(paths.iter().map(String::as_str))
        .collect();
    let (code, _, stderr) = pbc(&args);
    assert_eq!(code, 2, "{stderr}");
    for link in &paths[..2] {
        assert!(
            stderr.contains(&format!("cannot write `{link}`")),
            "{stderr}"
        );
    }
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
    assert_eq!(
        std::fs::read_to_string(&plain).expect("read"),
        "class a {\n  $x = 1\n}\n"
    );
    for name in ["first", "second"] {
        let target = targets.join(format!("{name}.pp"));
        assert_eq!(std::fs::read_to_string(&target).expect("read"), messy);
        assert!(dir.path().join(format!("{name}.pp")).is_symlink());
    }
}

/// The bundled examples are what users read first and what the README runs: they are laid
/// out as `pbc fmt` lays them out, so that the style they show is the one it keeps.
#[test]
fn the_bundled_examples_are_laid_out() {
    let (code, stdout, stderr) = pbc(&["fmt", "--check", "examples"]);
    assert_eq!(
        code, 0,
        "`pbc fmt` would lay these out anew:\n{stdout}{stderr}"
    );
}
