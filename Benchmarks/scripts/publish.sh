#!/usr/bin/env bash
# Runs the full benchmark in release mode and publishes it: results/latest.json, latest.svg,
# latest.md, and the table in README.md between the results markers.
#   Benchmarks/scripts/publish.sh [--instructions]
# --instructions also runs scripts/instructions.sh and puts its table in the README.
set -euo pipefail

cd "$(dirname "$0")/.."
swift build -c release --product knapsack-bench
bin="$(swift build -c release --show-bin-path)/knapsack-bench"
"$bin" --json results/latest.json --svg results/latest.svg --markdown results/latest.md | tee results/latest.txt.tmp
if [[ "${1:-}" == "--instructions" ]]; then
  SKIP_BUILD=1 scripts/instructions.sh | tee results/instructions.txt
fi

python3 - <<'PY'
import pathlib, re
readme = pathlib.Path("README.md")
table = pathlib.Path("results/latest.md").read_text().rstrip()
first = re.search(r"^First 10,000-registration.*\n(.*)$", pathlib.Path("results/latest.txt.tmp").read_text(), re.M)
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
PY
rm -f results/latest.txt.tmp
