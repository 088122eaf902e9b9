#!/usr/bin/env python3
"""The helper of scripts/capture-outputs.sh: plans every invocation, runs them, and writes one
file per invocation. Read scripts/capture-outputs.sh for what is captured and what is normalised.

Usage: capture_outputs.py BIN OUTDIR [--repo DIR] [--corpus DIR] [--python PY] [--jobs N]
                          [--corpus-formats all|text]
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# --- what must differ between runs, and nothing else ------------------------------------------

# `--version` prints the commit the binary was built from, and so does the man page's header
# and VERSION section (`schema2iceberg 0.1.0 (COMMIT target)`, `v0.1.0 (COMMIT target)`).
VERSION_RE = re.compile(rb"^(schema2iceberg \S+ \()[0-9a-f]{7,40}( )", re.M)
MAN_VERSION_RE = re.compile(rb"((?:schema2iceberg |v)\d+\.\d+\.\d+\S* \()[0-9a-f]{7,40}( )")
# deliver: Iceberg snapshot ids are random 64-bit numbers.
SNAPSHOT_RES = [
    (re.compile(rb"snapshot -?\d+"), b"snapshot <id>"),
    (re.compile(rb'"snapshot-id": ?-?\d+'), b'"snapshot-id": <id>'),
    (re.compile(rb'"snapshot_id": ?-?\d+'), b'"snapshot_id": <id>'),
]
# deliver: data, manifest and metadata file names carry UUIDs (v4 and v7, i.e. time-based).
UUID_NAME_RE = re.compile(
    rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?=(-\d+)?(-m\d+)?\.(parquet|avro|metadata\.json))"
)

COMPILE_FORMATS = [
    ("text", []),
    ("json", []),
    ("table-metadata", []),
    ("avro", []),
    ("arrow", []),
    ("arrow-json", []),
    ("ddl-athena", ["--dialect", "athena"]),
    ("ddl-spark", ["--dialect", "spark"]),
    ("ddl-trino", ["--dialect", "trino"]),
]
CHECK_FORMATS = ["text", "json", "github", "sarif"]
DIFF_FORMATS = ["text", "json", "github"]
COMMANDS = ["compile", "check", "diff", "bundle", "records", "deliver", "policies", "completions", "man", "help"]
SHELLS = ["bash", "elvish", "fish", "powershell", "zsh"]
DLQ_KEY = "arn:aws:kms:us-east-1:123456789012:key/0a1b2c3d-0000-4000-8000-00000000d1a0"

# Seconds one invocation may take before it is recorded as `exit: timeout after N s`.
TIMEOUT = 600

SAFE = re.compile(r"[^A-Za-z0-9._=@,+-]")


def slug(parts):
    """A file name made from an invocation: its words joined by `__`, `/` as `+`; long names keep
    their first 120 characters and a hash of the whole."""
    text = "__".join(parts).replace("/", "+")
    text = SAFE.sub("_", text)
    if len(text) > 150:
        digest = hashlib.sha1("\0".join(parts).encode()).hexdigest()[:12]
        text = text[:120] + "~" + digest
    return text or "_"


class Ctx:
    def __init__(self, args):
        self.bin = os.path.realpath(args.bin)
        self.repo = Path(os.path.realpath(args.repo))
        self.corpus = Path(os.path.realpath(args.corpus))
        self.python = args.python
        self.out = Path(args.outdir)
        self.tmp_root = Path(tempfile.mkdtemp(prefix="s2i-capture-"))
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/tmp"),
            "LANG": "C.UTF-8",
            "LC_ALL": "C.UTF-8",
            "TZ": "UTC",
            "NO_COLOR": "1",
            "GIT_CONFIG_NOSYSTEM": "1",
        }

    def tmpdir(self, name):
        """A new folder under the capture's temporary root, named by the job (so its path, shown
        as <tmp>/NAME, is the same in every run)."""
        path = self.tmp_root / name
        path.mkdir(parents=True)
        return path

    def label_cwd(self, cwd):
        cwd = Path(os.path.realpath(cwd))
        for base, name in ((self.repo, "<repo>"), (self.corpus, "<corpus>"), (self.tmp_root, "<tmp>")):
            try:
                rel = cwd.relative_to(base)
                return name if str(rel) == "." else f"{name}/{rel}"
            except ValueError:
                pass
        return str(cwd)

    def subs(self, extra=()):
        pairs = list(extra)
        for path, name in ((self.tmp_root, "<tmp>"), (self.repo, "<repo>"), (self.corpus, "<corpus>")):
            pairs.append((str(path), name))
            real = os.path.realpath(path)
            if real != str(path):
                pairs.append((real, name))
        pairs.sort(key=lambda p: -len(p[0]))
        return [(a.encode(), b.encode()) for a, b in pairs]


def normalise(data, subs, deliver=False):
    for a, b in subs:
        data = data.replace(a, b)
    if deliver:
        for pattern, repl in SNAPSHOT_RES:
            data = pattern.sub(repl, data)
        data = UUID_NAME_RE.sub(b"<uuid>", data)
    return data


def run(ctx, argv, cwd, stdin=None, env=None, deliver=False, extra_subs=()):
    """Runs the binary; returns (exit, stdout, stderr, header) with the paths normalised."""
    full_env = dict(ctx.env)
    full_env.update(env or {})
    if stdin is None:
        stdin_data = b""
    else:
        stdin_data = Path(stdin).read_bytes()
    try:
        proc = subprocess.run(
            [ctx.bin, *argv], cwd=cwd, input=stdin_data, capture_output=True, env=full_env,
            check=False, timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired as e:
        proc = subprocess.CompletedProcess(e.cmd, f"timeout after {TIMEOUT} s", e.stdout or b"", e.stderr or b"")
    subs = ctx.subs(extra_subs)
    out = normalise(proc.stdout, subs, deliver)
    err = normalise(proc.stderr, subs, deliver)
    shown_env = "".join(f"{k}={v} " for k, v in sorted((env or {}).items()))
    stdin_label = f" < {os.path.realpath(stdin)}" if stdin is not None else ""
    header = f"$ cd {os.path.realpath(cwd)} && {shown_env}schema2iceberg {' '.join(argv)}{stdin_label}\n"
    header = normalise(header.encode(), subs).decode()
    code = proc.returncode
    if isinstance(code, int) and code < 0:
        code = f"signal {-code}"
    return code, out, err, header


def record(code, out, err, header):
    return b"".join(
        [
            header.encode(),
            f"exit: {code}\n".encode(),
            f"--- stdout ({len(out)} bytes)\n".encode(),
            out,
            f"\n--- stderr ({len(err)} bytes)\n".encode(),
            err,
            b"\n",
        ]
    )


def files_section(directory, subs, label):
    """Every file under `directory`, sorted by name, with its bytes."""
    parts = [f"--- files under {label}\n".encode()]
    if not directory.exists():
        parts.append(b"(does not exist)\n")
        return b"".join(parts)
    for path in sorted(p for p in directory.rglob("*") if p.is_file()):
        data = normalise(path.read_bytes(), subs)
        parts.append(f"--- file {path.relative_to(directory)} ({len(data)} bytes)\n".encode())
        parts.append(data)
        parts.append(b"\n")
    return b"".join(parts)


class Plan:
    def __init__(self, ctx):
        self.ctx = ctx
        self.jobs = {}

    def add(self, name, fn):
        assert name not in self.jobs, f"two invocations named {name}"
        self.jobs[name] = fn

    def simple(self, group, argv, cwd, stdin=None, env=None, name=None):
        ctx = self.ctx
        cwd = Path(cwd)
        if name is None:
            label = ctx.label_cwd(cwd)
            parts = list(argv)
            # The folder names the command; every run has --color never.
            if group != "help" and parts and group.startswith(parts[0]):
                parts = parts[1:]
            if parts[-2:] == ["--color", "never"]:
                parts = parts[:-2]
            if label != "<repo>":
                parts = ["in-" + label.replace("<", "").replace(">", ""), *parts]
            if stdin is not None:
                parts.append("stdin-" + Path(stdin).name)
            if env:
                parts = [f"{k}={v}" for k, v in sorted(env.items())] + parts
            name = slug(parts)
        self.add(f"{group}/{name}", lambda: record(*run(ctx, argv, cwd, stdin, env)))


# --- the fixtures' own arguments -----------------------------------------------------------------


def fixture_args(path):
    """The options of a fixture's root `"$comment": "args: …"` (crates/cli/tests/common)."""
    try:
        value = json.loads(Path(path).read_bytes())
    except (ValueError, UnicodeDecodeError, RecursionError):
        return []
    if not isinstance(value, dict):
        return []
    comment = value.get("$comment")
    if not isinstance(comment, str) or not comment.startswith("args:"):
        return []
    return comment[len("args:"):].split()


def json_files(directory, recursive=True):
    pattern = "**/*.json" if recursive else "*.json"
    return sorted(p for p in Path(directory).glob(pattern) if p.is_file() and not p.is_symlink())


# --- the plan -------------------------------------------------------------------------------------


def plan_help(plan):
    ctx = plan.ctx
    repo = ctx.repo
    plan.simple("help", [], repo, name="no-arguments")
    for flag in ["--help", "-h", "help"]:
        plan.simple("help", [flag], repo)

    def version():
        code, out, err, header = run(ctx, ["--version"], repo)
        return record(code, VERSION_RE.sub(rb"\1<commit>\2", out), err, header)

    plan.add("help/--version", version)
    for command in COMMANDS:
        plan.simple("help", [command, "--help"], repo)
        plan.simple("help", [command, "-h"], repo)
        plan.simple("help", ["help", command], repo)
    for shell in SHELLS:
        plan.simple("help", ["completions", shell], repo)
    def man():
        code, out, err, header = run(ctx, ["man"], repo)
        return record(code, MAN_VERSION_RE.sub(rb"\1<commit>\2", out), err, header)

    plan.add("help/man", man)

    def man_dir():
        tmp = ctx.tmpdir("man")
        target = tmp / "pages"
        res = run(ctx, ["man", "--dir", str(target)], repo)
        return MAN_VERSION_RE.sub(
            rb"\1<commit>\2", record(*res) + files_section(target, ctx.subs(), "--dir")
        )

    plan.add("help/man__--dir", man_dir)


def plan_check(plan, counts):
    ctx = plan.ctx
    repo = ctx.repo
    config = str(repo / "testdata/corpus/schema2iceberg.toml")
    if ctx.corpus.is_dir():
        for fmt in CHECK_FORMATS:
            plan.simple(
                "check",
                ["check", "--config", config, "--format", fmt, "--color", "never"],
                ctx.corpus,
                name=f"corpus__--format_{fmt}",
            )
    # testdata/check/<repo> as crates/cli/tests/check.rs runs them.
    variants = [(d.name, d, []) for d in sorted((repo / "testdata/check").iterdir()) if d.is_dir()]
    layout = repo / "testdata/check/layout-repo"
    kinesis = repo / "testdata/check/kinesis-repo"
    variants += [
        ("layout-repo.changed-channel", layout, ["channels/orders-kinesis.json"]),
        ("layout-repo+schemas", layout / "schemas", ["orders.json"]),
        (
            "kinesis-repo.single-schema",
            kinesis,
            ["schemas/clicks.json", "--config", "../msk-repo/schema2iceberg.toml", "--partition",
             "event_time", "--deny", "warnings", "--allow", "uppercase-name"],
        ),
        ("kinesis-repo.usage-unknown-code", kinesis, ["--deny", "no-such-code"]),
        ("kinesis-repo.usage-code-twice", kinesis, ["--deny", "uppercase-name", "--allow", "uppercase-name"]),
        ("kinesis-repo.usage-partition-many", kinesis, ["--partition", "ts"]),
        ("kinesis-repo.usage-missing-path", kinesis, ["schemas/nope.json"]),
        ("kinesis-repo.glob", kinesis, ["schemas/*.json"]),
        ("kinesis-repo.folder", kinesis, ["schemas/legacy"]),
        ("kinesis-repo.twice", kinesis, ["schemas/legacy/session.json", "schemas/**/session.json"]),
        ("policies-repo.changed-role", repo / "testdata/check/policies-repo", ["iam/orders-role.json"]),
    ]
    for name, cwd, extra in variants:
        for fmt in CHECK_FORMATS:
            plan.simple("check", ["check", *extra, "--format", fmt, "--color", "never"], cwd,
                        name=f"{name}__--format_{fmt}")
    # Repo root, as crates/cli/tests/compile_formats.rs and policies.rs do.
    plan.simple("check", ["check", "testdata/examples/event.json", "--color", "never"], repo)
    plan.simple("check", ["check", "--channel-config", "testdata/channel/kinesis/combined-valid.json",
                          "--dlq-kms-key", "arn:aws:kms:us-east-1:123456789012:alias/dlq"], repo)
    plan.simple("check", ["check", "--role-policy", "x.json"], repo)

    # A data team's repository with a warehouse and ignored files (check.rs), made in a temporary
    # git repository.
    def warehouse_repo():
        tmp = ctx.tmpdir("check")
        files = {
            "schemas/orders.json": '{"type": "object", "properties": {"id": {"type": "integer", "maximum": 1000}}, "required": ["id"]}',
            "warehouse/catalog.db": "",
            "warehouse/deliver.lock": "",
            "warehouse/shop/orders/metadata/00000-0.metadata.json": '{"format-version": 2, "table-uuid": "x", "location": "file:///w"}',
            ".gitignore": "build/\n",
            "build/out.json": '{"anything": true}',
            "scratch.json": '{"not": "a schema"}',
            "package.json": '{"name": "app", "version": "1.0.0", "dependencies": {}}',
            "iam/table-key-policy-statement.json": '{"Sid": "AllowS3TablesMaintenance", "Effect": "Allow", "Principal": {"Service": "maintenance.s3tables.amazonaws.com"}, "Action": ["kms:GenerateDataKey", "kms:Decrypt"], "Resource": "*"}',
        }
        subprocess.run(["git", "init", "--quiet"], cwd=tmp, check=True, env=ctx.env)
        for rel, text in files.items():
            (tmp / rel).parent.mkdir(parents=True, exist_ok=True)
            (tmp / rel).write_text(text)
        (tmp / ".git/info").mkdir(parents=True, exist_ok=True)
        (tmp / ".git/info/exclude").write_text("scratch.json\n")
        return b"".join(
            record(*run(ctx, ["check", "--format", fmt, "--color", "never"], tmp))
            for fmt in CHECK_FORMATS
        )

    plan.add("check/temporary-repository-with-warehouse", warehouse_repo)

    # Every channel fixture of testdata/channel: `check` with the configuration as path and as
    # --channel-config (as the policies round trip in crates/cli/tests/policies.rs does).
    for files in channel_fixtures(repo):
        rel = [str(f.relative_to(repo)) for f in files]
        base = slug([str(Path(rel[0]).parent) if len(rel) > 1 else rel[0]])
        cc = [a for f in rel for a in ("--channel-config", f)]
        for fmt in CHECK_FORMATS:
            plan.simple("check", ["check", *rel, *cc, "--format", fmt, "--color", "never"], repo,
                        name=f"channel__{base}__--format_{fmt}")
        counts["channel fixtures"] = counts.get("channel fixtures", 0) + 1

    # Every testdata/policies case: check with its documents (crates/mapper/tests/policies.rs).
    for case in sorted(d for d in (repo / "testdata/policies").iterdir() if d.is_dir()):
        args = policy_case_args(case)
        for fmt in CHECK_FORMATS:
            plan.simple("check", ["check", *args, "--format", fmt, "--color", "never"], case,
                        name=f"policies-case__{case.name}__--format_{fmt}")


def channel_fixtures(repo):
    out = []
    base = repo / "testdata/channel"
    for folder in ["kinesis", "msk", "multi"]:
        for path in sorted((base / folder).iterdir()):
            if path.is_dir():
                files = sorted(p for p in path.iterdir() if p.suffix == ".json")
            else:
                files = [path]
            out.append(files)
    return out


def policy_case_args(case):
    channels = sorted(p.name for p in case.iterdir() if p.name.startswith("channel"))
    args = list(channels)
    for c in channels:
        args += ["--channel-config", c]
    for p in sorted(case.iterdir()):
        n = p.name
        if n.startswith("role"):
            args += ["--role-policy", n]
        elif n == "trust.json":
            args += ["--trust-policy", n]
        elif n == "table-key.json":
            args += ["--table-key-policy", n]
        elif n == "table-bucket.json":
            args += ["--table-bucket-policy", n]
        elif n == "dlq-kms-key.txt":
            args += ["--dlq-kms-key", p.read_text().strip()]
    return args


def plan_policies(plan, counts):
    ctx = plan.ctx
    repo = ctx.repo
    cli_cases = [
        ["--channel-config", "testdata/channel/kinesis/combined-valid.json", "--dlq-kms-key", DLQ_KEY,
         "--query-role", "arn:aws:iam::123456789012:role/analyst"],
        ["--channel-config", "testdata/channel/msk/msk-request-valid.json", "--format", "json"],
        ["--channel-config", "testdata/channel/kinesis/table-bucket-arn-s3.json"],
        [],
        ["--channel-config", "testdata/channel/kinesis/combined-valid.json", "--dlq-kms-key", "alias/my-key"],
        ["--channel-config", "testdata/channel/multi/kinesis-split-valid/stream-config.json"],
    ]
    for args in cli_cases:
        plan.simple("policies", ["policies", *args], repo, name=None if args else "no-arguments")
    # Every channel fixture, in both formats, and --out DIR with its files.
    for files in channel_fixtures(repo):
        rel = [str(f.relative_to(repo)) for f in files]
        base = slug([str(Path(rel[0]).parent) if len(rel) > 1 else rel[0]])
        cc = [a for f in rel for a in ("--channel-config", f)]
        for fmt in ["text", "json"]:
            plan.simple("policies", ["policies", *cc, "--dlq-kms-key", DLQ_KEY, "--format", fmt,
                                     "--color", "never"], repo, name=f"channel__{base}__--format_{fmt}")

        def out_dir(cc=cc, base=base):
            tmp = ctx.tmpdir(f"policies-{base}")
            target = tmp / "iam"
            res = run(ctx, ["policies", *cc, "--dlq-kms-key", DLQ_KEY, "--out", str(target)], repo)
            return record(*res) + files_section(target, ctx.subs(), "--out")

        plan.add(f"policies/channel__{base}__--out", out_dir)
    # Every testdata/policies case.
    for case in sorted(d for d in (repo / "testdata/policies").iterdir() if d.is_dir()):
        channels = sorted(p.name for p in case.iterdir() if p.name.startswith("channel"))
        cc = [a for c in channels for a in ("--channel-config", c)]
        key = case / "dlq-kms-key.txt"
        if key.exists():
            cc += ["--dlq-kms-key", key.read_text().strip()]
        for fmt in ["text", "json"]:
            plan.simple("policies", ["policies", *cc, "--format", fmt, "--color", "never"], case,
                        name=f"policies-case__{case.name}__--format_{fmt}")
        counts["policies cases"] = counts.get("policies cases", 0) + 1


def plan_compile(plan, counts, corpus_formats):
    ctx = plan.ctx
    repo = ctx.repo
    fixtures = []
    for folder, default_root in [
        ("testdata/compile", "testdata/compile"),
        ("testdata/lint", None),
        ("testdata/hostile", "testdata/hostile"),
        ("testdata/json-file", None),
        ("testdata/examples", None),
        ("testdata/compile-formats", None),
    ]:
        for path in json_files(repo / folder):
            args = fixture_args(path)
            if default_root and "--ref-root" not in args:
                args += ["--ref-root", default_root]
            fixtures.append((str(path.relative_to(repo)), args))
    for rel, args in fixtures:
        for fmt, extra in COMPILE_FORMATS:
            plan.simple("compile", ["compile", rel, *args, "--format", fmt.split("-")[0] if fmt.startswith("ddl") else fmt,
                                    *extra, "--color", "never"], repo)
    counts["compile fixtures"] = len(fixtures)
    # testdata/compile-formats/*.args, as crates/cli/tests/compile_formats.rs runs them.
    for args_file in sorted((repo / "testdata/compile-formats").glob("*.args")):
        words = args_file.read_text().split()
        plan.simple("compile", ["compile", *words, "--color", "never"], repo, name=f"args__{args_file.stem}")
    # Standard input, and -o FILE.
    plan.simple("compile", ["compile", "-", "--partition", "event_time", "--color", "never"], repo,
                stdin=repo / "testdata/examples/event.json")

    def output_file():
        tmp = ctx.tmpdir("compile")
        res = run(ctx, ["compile", "testdata/examples/event.json", "--partition", "event_time", "--format",
                        "arrow", "-o", str(tmp / "event.arrow")], repo)
        return record(*res) + files_section(tmp, ctx.subs(), "-o")

    plan.add("compile/-o__arrow", output_file)

    # The two schemas crates/cli/tests/hostile.rs makes on the fly: 100 MB of properties, and
    # 200,000 properties all required.
    def generated(name, fmt):
        tmp = ctx.tmpdir(f"{name}-{fmt}")
        path = tmp / f"{name}.json"
        head = '{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{'
        with open(path, "w") as f:
            f.write(head)
            if name == "generated-100mb":
                size, i = len(head), 0
                while size < 100 * 1024 * 1024:
                    item = ("," if i else "") + f'"column_{i:07d}_with_a_long_descriptive_name":{{"type":"string","maxLength":64}}'
                    f.write(item)
                    size += len(item)
                    i += 1
                f.write("}}")
            else:
                count = 200_000
                f.write(",".join(f'"c{i}":{{"type":"string"}}' for i in range(count)))
                f.write('},"required":[' + ",".join(f'"c{i}"' for i in range(count)) + "]}")
        res = run(ctx, ["compile", str(path), "--ref-root", str(tmp), "--format", fmt, "--color", "never"], tmp)
        path.unlink()
        return record(*res)

    for name in ["generated-100mb", "generated-wide-required"]:
        for fmt in ["text", "json"]:
            plan.add(f"compile/{name}__--format_{fmt}", lambda name=name, fmt=fmt: generated(name, fmt))
    # The corpus: every .json, run in the corpus root with its relative path; Snowplow read as
    # draft-04, as testdata/corpus/schema2iceberg.toml does.
    if ctx.corpus.is_dir():
        corpus_files = json_files(ctx.corpus)
        for path in corpus_files:
            rel = str(path.relative_to(ctx.corpus))
            draft = ["--draft", "04"] if rel.startswith("snowplow-iglu-central/") else []
            formats = COMPILE_FORMATS if corpus_formats == "all" else COMPILE_FORMATS[:1]
            for fmt, extra in formats:
                f = fmt.split("-")[0] if fmt.startswith("ddl") else fmt
                plan.simple("compile-corpus", ["compile", rel, *draft, "--format", f, *extra, "--color", "never"],
                            ctx.corpus, name=slug([rel, fmt]))
        counts["corpus files"] = len(corpus_files)


def plan_diff(plan, counts):
    ctx = plan.ctx
    repo = ctx.repo
    # testdata/diff/<case>: the CLI has one --partition for both sides; a case whose args file
    # names partitions is run without, and with each one named.
    for case in sorted(d for d in (repo / "testdata/diff").iterdir() if d.is_dir()):
        args_file = case / "args"
        variants = [[]]
        if args_file.exists():
            words = args_file.read_text().split()
            for value in dict.fromkeys(words[1::2]):
                variants.append(["--partition", value])
        for extra in variants:
            for fmt in DIFF_FORMATS:
                plan.simple("diff", ["diff", "old.json", "new.json", *extra, "--format", fmt, "--color", "never"], case)
        counts["diff cases"] = counts.get("diff cases", 0) + 1
    cli = repo / "testdata/diff-cli"
    requests = [
        (cli, ["event-v1.json", "event-v2.json", "--partition", "event_time"]),
        (cli, ["event-v1.json", "event-v1.json", "--partition", "event_time"]),
        (cli, ["event-v1.json", "broken.json"]),
        (cli, ["live-table-metadata.json", "event-v2.json", "--partition", "event_time"]),
        (cli, ["live-iceberg-schema.json", "event-v1.json", "--partition", "event_time"]),
        (cli, ["event-v1.json", "event-v2.json", "--partition", "event_time", "--record-format", "gsr-json"]),
        (cli, ["event-v1.json", "event-v2.json", "--partition", "event_time", "--record-format", "json"]),
        (cli / "channel-repo", ["schemas/orders-v1.json", "schemas/orders-v2.json"]),
        (cli / "channel-repo", ["schemas/payments-v1.json", "schemas/payments-v2.json"]),
        (cli / "channel-repo", ["schemas/orders-v1.json", "schemas/orders-v2.json", "--record-format", "gsr-json",
                                "--fail-on", "dead-letter"]),
        (cli / "shared-refs/repo", ["schemas/order-v1.json", "schemas/order-v2.json"]),
        (cli / "shared-refs/repo", ["schemas/order-v1.json", "schemas/order-v2.json", "--ref-root", ".."]),
    ]
    for level in ["table-change", "dead-letter", "iceberg-incompatible", "never"]:
        requests.append((cli, ["event-v1.json", "event-v2.json", "--partition", "event_time", "--fail-on", level]))
    for cwd, args in requests:
        for fmt in DIFF_FORMATS:
            plan.simple("diff", ["diff", *args, "--format", fmt, "--color", "never"], cwd)

    def git(cwd, *args):
        env = dict(ctx.env, GIT_AUTHOR_NAME="test", GIT_AUTHOR_EMAIL="test@example.invalid",
                   GIT_COMMITTER_NAME="test", GIT_COMMITTER_EMAIL="test@example.invalid",
                   GIT_AUTHOR_DATE="2024-01-01T00:00:00Z", GIT_COMMITTER_DATE="2024-01-01T00:00:00Z")
        subprocess.run(["git", *args], cwd=cwd, check=True, env=env, capture_output=True)

    def git_mode():
        tmp = ctx.tmpdir("diff-git")
        (tmp / "schemas").mkdir()
        for name in ["event.json", "gone.json", "same.json"]:
            shutil.copy(cli / "event-v1.json", tmp / "schemas" / name)
        (tmp / "schema2iceberg.toml").write_text('[[schemas]]\nfiles = "schemas/*.json"\npartition = "event_time"\n')
        git(tmp, "init", "-q")
        git(tmp, "add", ".")
        git(tmp, "commit", "-q", "-m", "v1")
        shutil.copy(cli / "event-v2.json", tmp / "schemas/event.json")
        (tmp / "schemas/gone.json").unlink()
        shutil.copy(cli / "event-v2.json", tmp / "schemas/new.json")
        return b"".join(record(*run(ctx, ["diff", "--git", "HEAD", "schemas", "--format", fmt, "--color", "never"], tmp)) for fmt in DIFF_FORMATS)

    plan.add("diff/git-mode", git_mode)

    def git_mode_shared_refs():
        tmp = ctx.tmpdir("diff-refs")
        fixtures = cli / "shared-refs"
        (tmp / "common").mkdir()
        (tmp / "repo/schemas").mkdir(parents=True)
        shutil.copy(fixtures / "common/money.json", tmp / "common/money.json")
        shutil.copy(fixtures / "repo/schema2iceberg.toml", tmp / "repo/schema2iceberg.toml")
        shutil.copy(fixtures / "repo/schemas/order-v1.json", tmp / "repo/schemas/order.json")
        git(tmp / "repo", "init", "-q")
        git(tmp / "repo", "add", ".")
        git(tmp / "repo", "commit", "-q", "-m", "v1")
        shutil.copy(fixtures / "repo/schemas/order-v2.json", tmp / "repo/schemas/order.json")
        out = []
        for extra in [[], ["--ref-root", ".."]]:
            for fmt in DIFF_FORMATS:
                out.append(record(*run(ctx, ["diff", "--git", "HEAD", *extra, "--format", fmt, "--color", "never"],
                                       tmp / "repo")))
        return b"".join(out)

    plan.add("diff/git-mode-shared-refs", git_mode_shared_refs)

    def git_outside():
        tmp = ctx.tmpdir("diff-nogit")
        return record(*run(ctx, ["diff", "--git", "HEAD", "--color", "never"], tmp,
                           env={"GIT_CEILING_DIRECTORIES": str(ctx.tmp_root)}))

    plan.add("diff/git-mode-outside-a-repository", git_outside)

    def source_name_repo():
        srepo = cli / "source-name-repo"
        tmp = ctx.tmpdir("diff-meta")
        metadata = tmp / "orders.metadata.json"
        res = run(ctx, ["compile", "schemas/orders.json", "--channel-config", "channels/orders.json", "--format",
                        "table-metadata"], srepo)
        metadata.write_bytes(res[1])
        out = [record(*res)]
        for extra in [[], ["--partition", "created_at"]]:
            for fmt in DIFF_FORMATS:
                out.append(record(*run(ctx, ["diff", str(metadata), "schemas/orders.json", *extra, "--format", fmt,
                                             "--color", "never"], srepo)))
        return b"".join(out)

    plan.add("diff/table-metadata-against-schema-source-name-repo", source_name_repo)

    # Snowplow's version histories (crates/cli/tests/diff.rs), each consecutive pair.
    iglu = ctx.corpus / "snowplow-iglu-central"
    pairs = 0
    if iglu.is_dir():
        def version_key(name):
            return [int(p) if p.isdigit() else 0 for p in name[: -len(".json")].split("-")]

        for d in sorted(p for p in iglu.rglob("jsonschema") if p.is_dir()):
            versions = sorted((p.name for p in d.iterdir() if p.name.endswith(".json")), key=version_key)
            for old, new in zip(versions, versions[1:]):
                for fmt in ["text", "json"]:
                    plan.simple("diff-snowplow", ["diff", old, new, "--draft", "04", "--fail-on",
                                                  "iceberg-incompatible", "--format", fmt, "--color", "never"], d)
                pairs += 1
    counts["snowplow diff pairs"] = pairs


def plan_bundle(plan, counts):
    ctx = plan.ctx
    repo = ctx.repo
    cases = sorted((repo / "testdata/bundle").glob("*/schema.json"))
    for schema in cases:
        args = fixture_args(schema)
        rel = str(schema.relative_to(repo))
        extra = [] if "--ref-root" in args else ["--ref-root", str(schema.parent.relative_to(repo))]
        args = [a for pair in zip(args[::2], args[1::2]) if pair[0] != "--partition" for a in pair]
        plan.simple("bundle", ["bundle", rel, *args, *extra, "--color", "never"], repo)
    counts["bundle cases"] = len(cases)
    compile_fixtures = json_files(repo / "testdata/compile")
    for path in compile_fixtures:
        args = fixture_args(path)
        args = [a for pair in zip(args[::2], args[1::2]) if pair[0] != "--partition" for a in pair]
        if "--ref-root" not in args:
            args += ["--ref-root", "testdata/compile"]
        plan.simple("bundle", ["bundle", str(path.relative_to(repo)), *args, "--color", "never"], repo)
    counts["bundle compile fixtures"] = len(compile_fixtures)


def plan_records(plan, counts):
    ctx = plan.ctx
    cases = sorted(p.parent for p in (ctx.repo / "testdata/records").glob("*/args"))
    for case in cases:
        args = case.joinpath("args").read_text().splitlines()
        line = ["records", "schema.json"]
        if "--format" not in args:
            line += ["--format", "ndjson"]
        if "--show" not in args:
            line += ["--show", "all"]
        line += args
        stdin = case / "stdin"
        plan.simple("records", line, case, stdin=stdin if stdin.exists() else None, name=case.name)
    counts["records cases"] = len(cases)


# The deliver tests' own reader: the rows as pyiceberg scans them, one JSON object a line.
PYICEBERG_READER = Path(__file__).parent.parent / "crates/cli/tests/deliver/read_pyiceberg.py"


def plan_deliver(plan, counts):
    ctx = plan.ctx
    cases = sorted(p.parent for p in (ctx.repo / "testdata/deliver").glob("*/run-1"))

    def one(case):
        tmp = ctx.tmpdir(f"deliver-{case.name}")
        warehouse = tmp / "warehouse"
        subs = [(str(warehouse), "<warehouse>"), (str(case), "<case>")]
        parts = []
        runs = sorted(p for p in case.iterdir() if p.name.startswith("run-") and "." not in p.name)
        for run_file in runs:
            args = run_file.read_text().splitlines()
            env = {}
            env_file = run_file.with_name(run_file.name + ".env")
            if env_file.exists():
                env = dict(l.split("=", 1) for l in env_file.read_text().splitlines() if "=" in l)
            stdin = run_file.with_name(run_file.name + ".stdin")
            res = run(ctx, ["deliver", *args, "--warehouse", str(warehouse)], case,
                      stdin=stdin if stdin.exists() else None, env=env, deliver=True, extra_subs=subs)
            parts.append(f"== {run_file.name}\n".encode() + record(*res))
        parts.append(warehouse_state(ctx, warehouse, subs))
        same_as = case / "same-as"
        if same_as.exists():
            fresh = tmp / "uninterrupted"
            subs2 = [(str(fresh), "<warehouse>"), (str(case), "<case>")]
            args = same_as.read_text().splitlines()
            res = run(ctx, ["deliver", *args, "--warehouse", str(fresh)], case, deliver=True, extra_subs=subs2)
            parts.append(b"== same-as (one uninterrupted run on a fresh warehouse)\n" + record(*res))
            parts.append(warehouse_state(ctx, fresh, subs2))
        return b"".join(parts)

    for case in cases:
        plan.add(f"deliver/{case.name}", lambda case=case: one(case))
    counts["deliver cases"] = len(cases)


def warehouse_state(ctx, warehouse, subs):
    """The rows pyiceberg scans from every table of the catalog (sorted JSON lines), and the
    dead-letter lines (sorted; their file names are not compared)."""
    parts = [b"== warehouse\n"]
    db = warehouse / "catalog.db"
    tables = []
    if db.exists():
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            tables = sorted(f"{ns}.{name}" for ns, name in con.execute(
                "SELECT table_namespace, table_name FROM iceberg_tables"))
        except sqlite3.Error as e:
            parts.append(f"catalog not readable: {e}\n".encode())
        finally:
            con.close()
    else:
        parts.append(b"no catalog.db\n")
    for table in tables:
        proc = subprocess.run([ctx.python, str(PYICEBERG_READER), str(warehouse), table],
                              capture_output=True, check=False)
        if proc.returncode != 0:
            parts.append(f"--- table {table}: pyiceberg failed ({proc.returncode})\n".encode())
            parts.append(normalise(proc.stderr, ctx.subs(subs)))
            continue
        rows = sorted(proc.stdout.decode().splitlines())
        parts.append(f"--- table {table}: {len(rows)} rows (pyiceberg scan, sorted)\n".encode())
        parts.append("".join(r + "\n" for r in rows).encode())
    dlq = warehouse / "dlq"
    lines = []
    if dlq.exists():
        for f in sorted(dlq.rglob("*")):
            if f.is_file():
                lines += f.read_bytes().splitlines()
    lines = sorted(normalise(l, ctx.subs(subs), deliver=True) for l in lines)
    parts.append(f"--- dead-letter lines: {len(lines)} (sorted)\n".encode())
    parts.append(b"".join(l + b"\n" for l in lines))
    return b"".join(parts)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("outdir")
    parser.add_argument("--repo", required=True)
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--python", required=True)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--corpus-formats", choices=["all", "text"], default="all")
    parser.add_argument("--only", default="", help="comma-separated groups (help,check,...) for a quick try")
    args = parser.parse_args()
    ctx = Ctx(args)
    try:
        capture(ctx, args)
    finally:
        shutil.rmtree(ctx.tmp_root, ignore_errors=True)


def capture(ctx, args):
    if ctx.out.exists() and any(ctx.out.iterdir()):
        sys.exit(f"{ctx.out} exists and is not empty; give a new folder")
    ctx.out.mkdir(parents=True, exist_ok=True)
    counts = {}
    plan = Plan(ctx)
    plan_help(plan)
    plan_check(plan, counts)
    plan_policies(plan, counts)
    plan_compile(plan, counts, args.corpus_formats)
    plan_diff(plan, counts)
    plan_bundle(plan, counts)
    plan_records(plan, counts)
    plan_deliver(plan, counts)
    only = set(filter(None, args.only.split(",")))
    names = sorted(n for n in plan.jobs if not only or n.split("/")[0] in only)
    start = time.monotonic()

    def do(name):
        data = plan.jobs[name]()
        path = ctx.out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return name

    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(do, n): n for n in names}
        for fut in concurrent.futures.as_completed(futures):
            try:
                fut.result()
            except Exception as e:  # a capture that could not run is reported, not hidden
                failed.append(f"{futures[fut]}: {e!r}")
    per_group = {}
    for n in names:
        g = n.split("/")[0]
        per_group[g] = per_group.get(g, 0) + 1
    summary = {
        "files per folder": per_group,
        "inputs": counts,
        "corpus formats": args.corpus_formats,
    }
    (ctx.out / "CAPTURE.json").write_text(json.dumps(summary, indent=2, sort_keys=True) + "\n")
    print(json.dumps(summary, indent=2, sort_keys=True))
    print(f"{len(names)} files in {time.monotonic() - start:.0f} s into {ctx.out}", file=sys.stderr)
    if failed:
        print("could not capture:\n  " + "\n  ".join(sorted(failed)), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
