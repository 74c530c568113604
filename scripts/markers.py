#!/usr/bin/env python3
"""Replaces the text between two marker lines of a file: how every script that writes a generated
table into a document (Benchmarks/scripts/tables.py, scripts/plugin-timing.sh) does it.

    python3 scripts/markers.py FILE BEGIN END < BODY    # write BODY between the BEGIN and END lines
"""
import pathlib, re, sys


def replaced(text, begin, end, body, path="the file"):
    """`text` with the lines between `begin` and `end` replaced by `body`; exits if the markers are missing."""
    pattern = re.compile(re.escape(begin) + r"\n.*?" + re.escape(end), re.S)
    if not pattern.search(text):
        sys.exit(f"markers: {path} has no {begin} … {end} section")
    return pattern.sub(lambda _: begin + "\n" + body + "\n" + end, text)


if __name__ == "__main__":
    path, begin, end = sys.argv[1:4]
    file = pathlib.Path(path)
    file.write_text(replaced(file.read_text(), begin, end, sys.stdin.read().rstrip("\n"), path))
