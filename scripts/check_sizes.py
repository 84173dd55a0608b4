#!/usr/bin/env python3
"""Keeps the house easy to live in: no source file over 600 lines, no function over 120 lines.

    python3 scripts/check_sizes.py [ROOT]

Checks every *.h / *.cc under accountant/, mechanisms/, trees/, tools/, bench/ and python/
(tests and fuzz harnesses are exempt: long tables of cases read best in one place). A function
is a line at column 0 or inside a class that opens a brace after a parenthesised parameter
list; its length is counted from that line to its matching closing brace. Exits 1 and lists
what is too long.
"""
import pathlib
import re
import sys

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 120
CHECKED = ("accountant", "mechanisms", "trees", "tools", "bench", "python")
# A definition's head: a name, a parameter list, qualifiers, then an opening brace at line end
# (not a control statement, not a lambda assigned to a variable, not a namespace or a class).
HEAD = re.compile(r"^\s*[A-Za-z_~][\w:<>,\s\*&~\[\]]*\([^;]*\)[\w\s:&]*(->[^{;]*)?\{\s*$")
NOT_A_FUNCTION = re.compile(r"^\s*(if|for|while|switch|catch|do|else|namespace|class|struct|"
                            r"return|case)\b|=\s*\[|^\s*\}")


def strip_strings_and_comments(line):
    line = re.sub(r'"(\\.|[^"\\])*"', '""', line)
    line = re.sub(r"'(\\.|[^'\\])*'", "''", line)
    return line.split("//", 1)[0]


def long_functions(path, lines):
    found = []
    i = 0
    while i < len(lines):
        code = strip_strings_and_comments(lines[i])
        # Join a head that spans lines: from a line with '(' to the line ending in '{'.
        head, j = code, i
        while "(" in head and not head.rstrip().endswith(("{", ";", "}")) and j + 1 < len(lines) \
                and j - i < 8:
            j += 1
            head += " " + strip_strings_and_comments(lines[j]).strip()
        if HEAD.match(head) and not NOT_A_FUNCTION.match(head):
            depth = 0
            for k in range(j, len(lines)):
                text = strip_strings_and_comments(lines[k])
                depth += text.count("{") - text.count("}")
                if depth <= 0:
                    length = k - i + 1
                    if length > MAX_FUNCTION_LINES:
                        found.append((i + 1, length, lines[i].strip()))
                    break
            i = j + 1
            continue
        i += 1
    return found


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    problems = []
    for top in CHECKED:
        for path in sorted((root / top).rglob("*")):
            if path.suffix not in (".h", ".cc") or not path.is_file():
                continue
            lines = path.read_text(encoding="utf-8").splitlines()
            rel = path.relative_to(root)
            if len(lines) > MAX_FILE_LINES:
                problems.append(f"{rel}: {len(lines)} lines (at most {MAX_FILE_LINES})")
            for line, length, head in long_functions(rel, lines):
                problems.append(f"{rel}:{line}: function of {length} lines (at most "
                                f"{MAX_FUNCTION_LINES}): {head}")
    for p in problems:
        print(p)
    print(f"check_sizes: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
