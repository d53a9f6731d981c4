#!/usr/bin/env bash
# Measures the load-test baseline gate on this machine (docs/load-testing.md): N+1 runs of the same
# build (A) interleaved with N runs whose paced agent is slowed by +7 ms of prefill (B, +30 % of the
# idle TTFT), all --local on loopback. A/A: each A judged against the A before it (N comparisons);
# injected: each B judged against the A before it. Prints how many of each the gate called WORSE.
# Runs already recorded in OUT are kept (delete OUT to record anew), so the gate can be re-judged
# on the same runs after a change to its rule.
# usage: scripts/gate-aa.sh [N=20] [OUT=.tmp/gate-aa]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-20}
out=${2:-.tmp/gate-aa}
mkdir -p "$out"
run() { # prefill-ms file
  [[ -f $2 ]] && return
  npm run -s loadtest -- --local --scenarios streaming --requests 200 --ceiling-seconds 0 \
    --prefill-ms "$1" --json "$2" >/dev/null
}
verdict() { # baseline current → the gate's exit code and its WORSE lines
  if npm run -s loadtest -- --compare "$2" --baseline "$1" >"$out/compare.txt" 2>&1; then echo ok; else
    echo "WORSE: $(grep -i worse "$out/compare.txt" | grep -v '^$' | head -3 | tr '\n' ' ')"
  fi
}
run 20 "$out/a0.json"
for i in $(seq 1 "$n"); do
  run 27 "$out/b$i.json"
  run 20 "$out/a$i.json"
done
aa=0
inj=0
for i in $(seq 1 "$n"); do
  v=$(verdict "$out/a$((i - 1)).json" "$out/a$i.json")
  echo "A/A $i: $v"
  [[ $v == ok ]] || aa=$((aa + 1))
  v=$(verdict "$out/a$((i - 1)).json" "$out/b$i.json")
  echo "injected $i: $v"
  [[ $v == ok ]] || inj=$((inj + 1))
done
echo "A/A comparisons called WORSE: $aa of $n; injected +7 ms prefill caught: $inj of $n"
