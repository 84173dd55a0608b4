#!/usr/bin/env python3
"""Runs every `$ rdpkit …` example of README.md and docs/*.md and checks its quoted output.

    python3 scripts/docs_examples.py RDPKIT_BINARY [--update]

An example is a line starting with "$ " inside a fenced code block (a trailing backslash
continues it on the next line); its expected output is every following line of the block up to
the next "$ " line. A document's commands run in order in one bash session (so a file one command
writes, or its exit status `$?`, is there for the next), in a scratch folder holding a link to
examples/, with the binary's folder first on PATH. Outputs are compared line by line; in JSON
lines the timing field "seconds" is ignored, and so are the samples of a draw from secure
randomness ("secure": true), which differ on every run. Only blocks that call rdpkit are run
(their other commands, echo or python3, with them); a block after a line
`<!-- docs_examples: skip -->` is not run.

--update rewrites the quoted outputs with what the commands print now. Exit status 1 when an
output differs (each difference is listed), 0 otherwise.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
SKIP_MARK = "<!-- docs_examples: skip -->"


def blocks(lines):
    """(start, end) line indices of fenced blocks (contents only), with their skip flag."""
    out = []
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            skip = i > 0 and lines[i - 1].strip() == SKIP_MARK
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            out.append((i + 1, j, skip))
            i = j + 1
        else:
            i += 1
    return out


def examples(lines, start, end):
    """[(command, first_output_line, end_output_line)] of one block."""
    out = []
    i = start
    while i < end:
        if not lines[i].startswith("$ "):
            i += 1
            continue
        command = lines[i][2:]
        while command.endswith("\\") and i + 1 < end:
            i += 1
            command = command[:-1] + " " + lines[i].strip()
        j = i + 1
        while j < end and not lines[j].startswith("$ "):
            j += 1
        out.append((command, i + 1, j))
        i = j
    return out


def normal(line):
    try:
        value = json.loads(line)
    except ValueError:
        return line.rstrip()
    if isinstance(value, dict):
        value.pop("seconds", None)
        if value.get("secure") is True and "samples" in value:
            value["samples"] = len(value["samples"])
    return json.dumps(value, sort_keys=True)


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    binary = pathlib.Path(sys.argv[1]).resolve()
    update = "--update" in sys.argv[2:]
    files = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
    failures = 0
    ran = 0
    marker = "__rdpkit_docs_example_done__"
    for path in files:
        lines = path.read_text(encoding="utf-8").split("\n")
        found = []
        for start, end, skip in blocks(lines):
            block = examples(lines, start, end)
            if not skip and any("rdpkit" in c for c, _, _ in block):
                found += block
        if not found:
            continue
        # One session: each command's output is followed by the marker; its status is restored
        # for the next command's `$?`.
        script = "".join(f"{{ {command}\n}} 2>&1; __s=$?; echo {marker}; (exit $__s)\n"
                         for command, _, _ in found)
        scratch = tempfile.mkdtemp(prefix="rdpkit_docs_")
        os.symlink(ROOT / "examples", os.path.join(scratch, "examples"))
        env = dict(os.environ, PATH=f"{binary.parent}:{os.environ['PATH']}")
        result = subprocess.run(["bash", "-c", script], cwd=scratch, env=env,
                                capture_output=True, text=True, timeout=1200)
        shutil.rmtree(scratch, ignore_errors=True)
        outputs = result.stdout.split(marker + "\n")
        replacements = []
        for k, (command, first, last) in enumerate(found):
            ran += 1
            text = outputs[k] if k < len(outputs) else ""
            got = text.rstrip("\n").split("\n") if text.strip("\n") else []
            want = lines[first:last]
            if [normal(x) for x in got] == [normal(x) for x in want]:
                continue
            if update:
                replacements.append((first, last, got))
                continue
            failures += 1
            print(f"{path.relative_to(ROOT)}:{first}: $ {command}")
            for w in want:
                print(f"  - {w}")
            for g in got:
                print(f"  + {g}")
        if replacements:
            for first, last, got in sorted(replacements, reverse=True):
                lines[first:last] = got
            path.write_text("\n".join(lines), encoding="utf-8")
            print(f"docs_examples: updated {path.relative_to(ROOT)}")
    print(f"docs_examples: {ran} examples run, {failures} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
