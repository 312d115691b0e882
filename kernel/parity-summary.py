#!/usr/bin/env python3
"""kernel/parity-summary.py LOG — the largest differences that `go test -v ./lib/parity/` logged, one row
per test and dtype, as a Markdown table (kernel/gpu-check.sh puts it in figures/gpu-check.md).

Each parity test logs one line per comparison ending in "(tolerance T)": the loss (relative
|Δ|/|a|), the gradients and the weights after each step ((|Δ| − slack)/scale, lib/parity/doc.go).
The dtype is read off the tolerance: float64's are 1e-12 (loss), 1e-10 (gradients), 1e-8 (weights).
"""
import re
import sys
from collections import defaultdict

F64_TOLERANCES = {"loss": 1e-12, "gradients": 1e-10, "weights": 1e-8}


def summarize(lines):
    rows, order, pending = defaultdict(dict), [], []
    for line in lines:
        done = re.match(r"--- (PASS|FAIL|SKIP): (\w+)", line)
        if not done:
            pending.append(line)
            continue
        for entry in pending:
            tol = re.search(r"\(tolerance ([0-9.e+-]+)\)$", entry)
            if not tol:
                continue
            if "gradients" in entry:
                kind = "gradients"
            elif "weights" in entry:
                kind = "weights"
            elif "loss" in entry:
                kind = "loss"
            else:
                continue
            pattern = r"relative ([0-9.e+-]+)" if kind == "loss" else r"max \(\|Δ\| − slack\)/scale ([0-9.e+-]+)"
            value = re.search(pattern, entry)
            if not value:
                continue
            dtype = "float64" if float(tol.group(1)) == F64_TOLERANCES[kind] else "float32"
            key = (done.group(2), dtype)
            if key not in order:
                order.append(key)
            row = rows[key]
            row[kind] = max(row.get(kind, 0.0), float(value.group(1)))
            row["result"] = done.group(1)
        pending = []
    out = ["| test | dtype | result | loss: relative Δ | gradients: (max abs Δ − slack) / scale | weights after 3 steps: (max abs Δ − slack) / scale |",
           "|---|---|---|---|---|---|"]
    for key in order:
        row = rows[key]
        cell = lambda k: f"{row[k]:.2g}" if k in row else ""
        out.append(f"| {key[0]} | {key[1]} | {row['result']} | {cell('loss')} | {cell('gradients')} | {cell('weights')} |")
    if not order:
        out.append("| (no comparison was logged) | | | | | |")
    return "\n".join(out)


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as f:
        print(summarize(f.read().splitlines()))
