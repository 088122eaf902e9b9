//! The shape of the command line's source: no command module imports another. Each command
//! reads what it shares with others from the layers below it (`app`, `project`, `intake`,
//! `render`, `codes`), and those layers use no command; a `crate::` (or root-reaching
//! `super::`) path in a command's files that names another command, or in a layer's files that
//! names any command, fails here.
//!
//! `SCHEMA2ICEBERG_LAYOUT_SRC` points the test at another `src` folder (to see it fail on a
//! layout where commands import each other).

#![allow(clippy::expect_used, clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use regex::Regex;

/// The layers below the commands, which every command may use and which use no command.
const LAYERS: &[&str] = &["app", "codes", "intake", "project", "render"];

/// The command modules: one per subcommand (`shell` holds `completions` and `man`).
const COMMANDS: &[&str] = &[
    "bundle", "check", "compile", "deliver", "diff", "policies", "records", "shell",
];

fn src() -> PathBuf {
    std::env::var_os("SCHEMA2ICEBERG_LAYOUT_SRC").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
        PathBuf::from,
    )
}

/// The `.rs` files of a module, each with its depth below the crate root (`src/x.rs` and
/// `src/x/mod.rs` are 1, `src/x/y.rs` is 2).
fn module_files(src: &Path, module: &str) -> Vec<(PathBuf, usize)> {
    let mut files = Vec::new();
    let single = src.join(format!("{module}.rs"));
    if single.is_file() {
        files.push((single, 1));
    }
    let folder = src.join(module);
    if folder.is_dir() {
        for entry in walkdir::WalkDir::new(&folder)
            .into_iter()
            .filter_map(Result::ok)
        {
            let path = entry.into_path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let below = path.strip_prefix(&folder).unwrap().components().count();
            let depth = if path.file_name().is_some_and(|n| n == "mod.rs") {
                below
            } else {
                below + 1
            };
            files.push((path, depth));
        }
    }
    files
}

/// The root modules (and root re-exports, by the module they come from) that a file's paths
/// name: `crate::x`, `crate::{x, y::z}`, and `super::` chains that reach the crate root.
fn named_roots(text: &str, depth: usize, reexports: &[(String, String)]) -> BTreeSet<String> {
    let code: String = text
        .lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let mut named = BTreeSet::new();
    let mut add = |segment: &str| {
        let name = segment.trim();
        let module = reexports
            .iter()
            .find(|(item, _)| item == name)
            .map_or(name, |(_, module)| module.as_str());
        named.insert(module.to_string());
    };
    // `crate`, or `super` as many times as the file is deep.
    let root_path = Regex::new(&format!(
        r"\b(?:crate|{}super)\b",
        "super::".repeat(depth.saturating_sub(1))
    ))
    .unwrap();
    for found in root_path.find_iter(&code) {
        let rest = &code[found.end()..];
        let Some(rest) = rest.strip_prefix("::") else {
            continue;
        };
        if let Some(group) = rest.strip_prefix('{') {
            let mut level = 0;
            let mut start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => level += 1,
                    '}' if level == 0 => {
                        add(first_segment(&group[start..i]));
                        break;
                    }
                    '}' => level -= 1,
                    ',' if level == 0 => {
                        add(first_segment(&group[start..i]));
                        start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            add(first_segment(rest));
        }
    }
    named
}

fn first_segment(path: &str) -> &str {
    let path = path.trim_start();
    let end = path
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(path.len());
    &path[..end]
}

/// `pub use x::{a, b}` and `pub use x::a` in lib.rs: root names that stand for module `x`.
fn root_reexports(src: &Path) -> Vec<(String, String)> {
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let line = Regex::new(r"(?m)^pub use (\w+)::(?:\{([^}]*)\}|(\w+));").unwrap();
    let mut found = Vec::new();
    for captures in line.captures_iter(&lib) {
        let module = captures[1].to_string();
        let items = captures
            .get(2)
            .or(captures.get(3))
            .map_or("", |m| m.as_str());
        for item in items.split(',') {
            let item = item.trim();
            if !item.is_empty() {
                found.push((item.to_string(), module.clone()));
            }
        }
    }
    found
}

#[test]
fn no_command_module_imports_another() {
    let src = src();
    let reexports = root_reexports(&src);
    let mut problems = Vec::new();
    let mut files_read = 0;
    for command in COMMANDS {
        for (path, depth) in module_files(&src, command) {
            files_read += 1;
            let text = std::fs::read_to_string(&path).unwrap();
            for named in named_roots(&text, depth, &reexports) {
                if named != *command && COMMANDS.contains(&named.as_str()) {
                    problems.push(format!(
                        "{} (command `{command}`) imports the command `{named}`",
                        path.strip_prefix(&src).unwrap_or(&path).display()
                    ));
                }
            }
        }
    }
    assert!(
        files_read >= COMMANDS.len(),
        "no command files under {}",
        src.display()
    );
    assert!(
        problems.is_empty(),
        "commands import each other; move what they share to project, intake, render or app:\n{}",
        problems.join("\n")
    );
}

#[test]
fn the_layers_below_the_commands_import_no_command() {
    let src = src();
    let reexports = root_reexports(&src);
    let mut problems = Vec::new();
    for layer in LAYERS {
        for (path, depth) in module_files(&src, layer) {
            let text = std::fs::read_to_string(&path).unwrap();
            for named in named_roots(&text, depth, &reexports) {
                if COMMANDS.contains(&named.as_str()) {
                    problems.push(format!(
                        "{} (layer `{layer}`) imports the command `{named}`",
                        path.strip_prefix(&src).unwrap_or(&path).display()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn the_reader_sees_every_way_to_name_the_root() {
    let reexports = vec![("Format".to_string(), "compile".to_string())];
    let text = "use crate::{app::x, diff::{A, B}, Format};\nuse super::super::check::y;\n\
                // use crate::records;\nlet _ = crate::deliver::z();";
    let named = named_roots(text, 2, &reexports);
    let expected: BTreeSet<String> = ["app", "diff", "compile", "check", "deliver"]
        .into_iter()
        .map(String::from)
        .collect();
    assert_eq!(named, expected);
    // One `super` from a depth-2 file is the command itself, not the root.
    assert!(named_roots("use super::check;", 2, &[]).is_empty());
}

/// Every subcommand runs through `app::main` and so has the one shape, `app::Command`: the
/// dispatch in lib.rs names no command's own entry point.
#[test]
fn every_subcommand_runs_through_the_one_shape() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).expect("lib.rs is readable");
    let arm = Regex::new(r"Commands::(\w+)\(args\) =>\s*([^,\n]+)").unwrap();
    let arms: Vec<(String, String)> = arm
        .captures_iter(&lib)
        .map(|c| (c[1].to_string(), c[2].trim().to_string()))
        .collect();
    assert_eq!(arms.len(), 9, "one arm a subcommand: {arms:?}");
    for (name, call) in &arms {
        assert!(
            call.starts_with("app::main::<"),
            "`{name}` is dispatched to `{call}`, not through app::main"
        );
    }
}
