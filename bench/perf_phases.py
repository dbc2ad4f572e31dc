#!/usr/bin/env python3
"""Cuts a perf profile of the server by the phases of a bench run and compares two kinds of phase.

  perf record -k CLOCK_MONOTONIC -g -p <server pid> -o server.perf   (during the bench)
  perf script -i server.perf -F time,ip,sym > server.txt
  bench/perf_phases.py server.txt results.jsonl enrolment-plain enrolment-attested [top]

results.jsonl holds the bench's PHASE lines with `began_s`/`ended_s` (CLOCK_MONOTONIC seconds, `tessera-bench
app-attest`). Samples inside the phases whose name starts with A (then B) are counted per function: self (the
sample's own function) and total (the function anywhere on the sample's stack, once per sample; async code's
stacks end at the executor, so a total covers only a function's synchronous callees), per operation of the phases.
Prints the functions whose samples per operation grow most from A to B: where B's extra work goes.
"""
import collections, json, sys

perf_text, results, kind_a, kind_b = sys.argv[1:5]
top = int(sys.argv[5]) if len(sys.argv) > 5 else 40
phases = [json.loads(line) for line in open(results) if line.strip()]
windows = {kind: [(p["began_s"], p["ended_s"]) for p in phases if p["phase"].startswith(kind + "-") or p["phase"] == kind]
           for kind in (kind_a, kind_b)}
ops = {kind: sum(p["ops"] for p in phases if p["phase"].startswith(kind + "-") or p["phase"] == kind) for kind in windows}

def kind_of(t):
    for kind, spans in windows.items():
        if any(b <= t <= e for b, e in spans):
            return kind
    return None

self_counts = {k: collections.Counter() for k in windows}
total_counts = {k: collections.Counter() for k in windows}
samples = collections.Counter()

def flush(kind, stack):
    if kind is None or not stack:
        return
    samples[kind] += 1
    self_counts[kind][stack[0]] += 1
    for name in set(stack):
        total_counts[kind][name] += 1

kind, stack = None, []
for line in open(perf_text, errors="replace"):
    if not line.strip():
        flush(kind, stack)
        kind, stack = None, []
        continue
    if not line.startswith((" ", "\t")):     # a sample's header: "<comm> <pid> <time>:" or "<time>:"
        flush(kind, stack)
        stack = []
        fields = [f for f in line.replace(":", " ").split() if f.replace(".", "").isdigit() and "." in f]
        kind = kind_of(float(fields[-1])) if fields else None
        continue
    parts = line.split(None, 1)
    stack.append(parts[1].strip() if len(parts) > 1 else parts[0])
flush(kind, stack)

hz = {k: samples[k] / max(ops[k], 1) for k in windows}
print(f"samples per operation: {kind_a} {hz[kind_a]:.3f} ({samples[kind_a]} in {ops[kind_a]} ops), "
      f"{kind_b} {hz[kind_b]:.3f} ({samples[kind_b]} in {ops[kind_b]} ops)")
for label, counts in (("self", self_counts), ("total", total_counts)):
    names = set(counts[kind_a]) | set(counts[kind_b])
    grow = sorted(((counts[kind_b][n] / max(ops[kind_b], 1) - counts[kind_a][n] / max(ops[kind_a], 1), n) for n in names), reverse=True)
    print(f"\n== {label}: samples per operation, {kind_b} minus {kind_a}")
    for delta, name in grow[:top]:
        print(f"{delta:+8.3f}  {counts[kind_a][name] / max(ops[kind_a], 1):7.3f} -> {counts[kind_b][name] / max(ops[kind_b], 1):7.3f}  {name[:150]}")
