#!/usr/bin/env python3
"""Puts results/latest.md (and results/instructions.txt, if present) into README.md between the
results markers. Run by scripts/publish.sh; run it alone after updating results/instructions.txt."""
import os
os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import pathlib, re
readme = pathlib.Path("README.md")
table = pathlib.Path("results/latest.md").read_text().rstrip()
first = re.search(r"^First 10,000-registration.*\n(.*)$", pathlib.Path("results/latest.txt").read_text(), re.M)
parts = [table, ""]
if first:
    parts += ["First 10,000-registration start-up in the process (one sample each, including one-time work): "
              + first.group(1).strip() + ".", ""]
parts += ["Ratios: the row's median ÷ the column contender's median (2.0 = twice as slow, 0.1 = ten times faster)."]
instructions = pathlib.Path("results/instructions.txt")
if instructions.exists():
    parts += ["", "Instructions per operation (callgrind, `scripts/instructions.sh`; deterministic):", "",
              "```", instructions.read_text().rstrip(), "```"]
text = readme.read_text()
text = re.sub(r"(<!-- results:begin -->\n).*?(<!-- results:end -->)",
              lambda m: m.group(1) + "\n".join(parts) + "\n" + m.group(2), text, flags=re.S)
readme.write_text(text)
print("updated README.md")
