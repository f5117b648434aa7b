#!/bin/sh
# SPDX-License-Identifier: MIT
# test_trace.sh - FIBERPAR_TRACE writes JSON that trace viewers accept:
# run the nbody example with a trace and check the file with Python's
# json module (skipped without python3): one span named after the kernel
# per launch, one per work-group, each inside its launch, valid ts/dur,
# and a named track for every thread that has spans.
set -eu
command -v python3 >/dev/null 2>&1 || { echo "python3 missing: skipped"; exit 77; }
: "${top_builddir:=.}"
trace="${TMPDIR:-/tmp}/fpar_trace_nbody_$$.json"
trap 'rm -f "$trace"' EXIT
FIBERPAR_TRACE="$trace" "$top_builddir/examples/nbody"
python3 - "$trace" <<'PY'
import json, sys

with open(sys.argv[1]) as f:
    events = json.load(f)["traceEvents"]
spans = [e for e in events if e["ph"] == "X"]
named = {(e["pid"], e["tid"]) for e in events
         if e["ph"] == "M" and e["name"] == "thread_name"}
for e in spans:
    assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
    assert isinstance(e["dur"], (int, float)) and e["dur"] >= 0, e
    assert (e["pid"], e["tid"]) in named, ("track without a name", e)
launches = [e for e in spans if e["cat"] == "launch"]
groups = [e for e in spans if e["cat"] == "group"]
assert [l["name"] for l in launches] == ["nbody"], launches
l = launches[0]
n = 1
for g, w in zip(l["args"]["global"], l["args"]["local"]):
    assert g % w == 0
    n *= g // w
assert l["args"]["groups"] == n == len(groups), (l, len(groups))
ids = set()
for g in groups:
    assert g["name"] == "nbody" and g["args"]["launch"] == l["args"]["launch"]
    assert g["ts"] >= l["ts"] - 0.001, (g, l)
    assert g["ts"] + g["dur"] <= l["ts"] + l["dur"] + 0.002, (g, l)
    assert g["args"]["barriers"] > 0, g  # nbody's tiles meet at barriers
    ids.add(tuple(g["args"]["group"]))
assert len(ids) == n, "a group id twice"
print("trace ok: %d launch, %d groups on %d workers"
      % (len(launches), len(groups), len({g["tid"] for g in groups})))
PY
