//! The `pbc` binary's flags, end to end: `--format pn` prints what the library writes, and
//! `--validate` turns Puppet's validation errors into a failing exit status.

use std::process::Command;

fn pbc(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pbc"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("pbc runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn format_pn_prints_one_line_per_file() {
    let files = ["corpus/pn/numbers.pp", "corpus/pn/selectors.pp"];
    let mut expected = String::new();
    for f in files {
        let src = std::fs::read_to_string(f).expect("corpus file");
        let program = puppet_bindings::parse_file(puppet_bindings::span::FileId(0), &src)
            .program
            .expect("parses");
        expected.push_str(&puppet_bindings::pn::program_to_json(&program));
    }
    let (code, stdout, _) = pbc(&["parse", "--format", "pn", files[0], files[1]]);
    assert_eq!(code, 0);
    assert_eq!(stdout, expected);
    assert_eq!(stdout.lines().count(), 2);
}

#[test]
fn validate_reports_puppet_issue_codes() {
    let file = "corpus/validate/illegal_assignment.pp";
    let (code, _, stderr) = pbc(&["parse", file]);
    assert_eq!(
        code, 0,
        "without --validate the file only has to parse: {stderr}"
    );
    let (code, stdout, stderr) = pbc(&["parse", "--validate", "--format", "pn", file]);
    assert_eq!(code, 1);
    assert!(stderr.contains("error[ILLEGAL_ASSIGNMENT]"), "{stderr}");
    assert!(
        stdout.is_empty(),
        "no output for a file with errors: {stdout}"
    );
}

#[test]
fn validation_warnings_do_not_fail() {
    let (code, _, stderr) = pbc(&["parse", "--validate", "corpus/validate/dup_key.pp"]);
    assert_eq!(code, 0);
    assert!(stderr.contains("warning[DUPLICATE_KEY]"), "{stderr}");
}
