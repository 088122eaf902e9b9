//! `completions` and `man`: the bash completion, sourced in a real bash, completes subcommands
//! and `--format` values; the man pages render and cover every command.

// A test should stop loudly; the no-panic rule is for code that reads input.
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::indexing_slicing)]

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_schema2iceberg");

fn run(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

/// What bash's completion function offers for the command line `line` (the cursor at its end),
/// after sourcing the script that `completions bash` printed.
fn bash_completes(line: &str) -> Vec<String> {
    let script = run(&["completions", "bash"]);
    assert!(script.status.success(), "{script:?}");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("schema2iceberg.bash");
    std::fs::write(&path, &script.stdout).unwrap();
    // What bash itself does on <Tab>: split the line into COMP_WORDS and call the function that
    // `complete -F` registered, with the command, the current word and the previous word.
    let driver = r#"
source "$1"
read -r -a COMP_WORDS <<< "$2"
if [[ "$2" == *" " ]]; then COMP_WORDS+=(""); fi
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE="$2"; COMP_POINT=${#COMP_LINE}
function="$(complete -p schema2iceberg | sed -E 's/.*-F ([^ ]+).*/\1/')"
"$function" schema2iceberg "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let out = Command::new("bash")
        .args(["-c", driver, "driver"])
        .arg(&path)
        .arg(line)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

#[test]
fn bash_completes_a_subcommand() {
    let offered = bash_completes("schema2iceberg comp");
    assert_eq!(offered, ["compile", "completions"], "{offered:?}");
    let offered = bash_completes("schema2iceberg deli");
    assert_eq!(offered, ["deliver"], "{offered:?}");
}

#[test]
fn bash_completes_format_values() {
    let offered = bash_completes("schema2iceberg compile schema.json --format ");
    assert!(offered.contains(&"json".to_string()), "{offered:?}");
    assert!(offered.contains(&"text".to_string()), "{offered:?}");
    let offered = bash_completes("schema2iceberg check --format sa");
    assert_eq!(offered, ["sarif"], "{offered:?}");
}

#[test]
fn every_shell_gets_a_script_and_an_unknown_shell_is_a_usage_error() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = run(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {out:?}");
        let script = String::from_utf8(out.stdout).unwrap();
        assert!(
            script.contains("compile") && script.contains("deliver"),
            "{shell}"
        );
    }
    let out = run(&["completions", "tcsh"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values"));
}

#[test]
fn man_prints_the_main_page_and_writes_one_page_per_command() {
    let out = run(&["man"]);
    assert!(out.status.success(), "{out:?}");
    let page = String::from_utf8(out.stdout).unwrap();
    assert!(page.contains(".TH schema2iceberg 1"));
    assert!(page.contains("schema2iceberg\\-compile(1)"));

    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("man1");
    let out = Command::new(BIN)
        .arg("man")
        .arg("--dir")
        .arg(&pages)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let mut written: Vec<String> = std::fs::read_dir(&pages)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let commands = [
        "bundle",
        "check",
        "compile",
        "completions",
        "deliver",
        "diff",
        "man",
        "policies",
        "records",
    ];
    let mut expected: Vec<String> = commands
        .iter()
        .map(|c| format!("schema2iceberg-{c}.1"))
        .collect();
    expected.push("schema2iceberg.1".to_string());
    expected.sort();
    assert_eq!(written, expected);
    let compile = std::fs::read_to_string(pages.join("schema2iceberg-compile.1")).unwrap();
    assert!(
        compile.contains("\\-\\-partition"),
        "the flags are in the page"
    );
}

#[test]
fn man_into_a_path_that_is_a_file_is_an_error_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let out = Command::new(BIN)
        .arg("man")
        .arg("--dir")
        .arg(&file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: cannot write the man pages"));
}

/// Every flag a shell completes for a command is one its `--help` shows: nothing hidden (a test
/// hook, say) reaches the completions. The test hooks are environment variables of test builds.
#[test]
fn completions_offer_only_what_help_shows() {
    let script = run(&["completions", "fish"]);
    assert!(script.status.success(), "{script:?}");
    let script = String::from_utf8(script.stdout).unwrap();
    let mut checked = 0;
    let mut helps = std::collections::BTreeMap::new();
    for line in script.lines() {
        let Some(rest) = line.split("__fish_schema2iceberg_using_subcommand ").nth(1) else {
            continue;
        };
        let command = rest.split(['"', ' ']).next().unwrap().to_string();
        let Some(long) = line
            .split(" -l ")
            .nth(1)
            .map(|l| l.split(' ').next().unwrap())
        else {
            continue;
        };
        let help = helps.entry(command.clone()).or_insert_with(|| {
            String::from_utf8(run(&[command.as_str(), "--help"]).stdout).unwrap()
        });
        assert!(
            help.contains(&format!("--{long}")),
            "`{command} --{long}` is completed but `{command} --help` does not show it"
        );
        checked += 1;
    }
    assert!(
        checked > 50,
        "only {checked} flags found in the fish completions"
    );
}
