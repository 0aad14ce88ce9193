#!/usr/bin/env bash
# The Servlet filter's benchmark over several launches of its servers (issue 44; docs/benchmarks.md)
#
# Two launches of the same build can differ by 2-3 points of the ratio to the bare app, more than
# one launch's rounds differ from each other (2026-12-01, runs 22-24): each launch compiles the hot
# path its own way. This runs bench/servlet/run.sh LAUNCHES times (fresh JVMs each time, the same
# environment: ROUNDS, COST, REFERENCE, VARIANT_ROOT... as run.sh reads them), prints every launch's
# table, then each server's median over every round of every launch and each launch's own median.
#
# Usage: bench/servlet/launches.sh [LAUNCHES=4]
#   e.g. COST=1 REFERENCE=0 ROUNDS=6 bench/servlet/launches.sh 4 (run.sh warms each server up for 90 s)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
launches=${1:-4}
[[ "$launches" =~ ^[1-9][0-9]*$ ]] || { echo "bench/servlet/launches.sh: LAUNCHES must be a positive number" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
: > "$work/ratios"
for l in $(seq 1 "$launches"); do
  echo "launch $l of $launches ($(date -u +%H:%M:%S) UTC)"
  "$root/bench/servlet/run.sh" | tee "$work/launch.$l"
  # every round's ratio to bare, per server: the table's header names the servers; CPU mode has
  # one "bare/NAME" column per server, req/s mode one row per server with its "ratio to bare"
  awk -v l="$l" -F'|' '
    /^\| round \|/ {
      for (i = 2; i <= NF; i++) { h = $i; gsub(/^ +| +$/, "", h); if (h ~ /^bare\//) { sub(/^bare\//, "", h); col[i] = h; ncol++ } }
      next
    }
    /^\| [0-9]+ \|/ {
      if (ncol > 0) {
        for (i in col) { v = $i; gsub(/[ ×]/, "", v); print col[i], l, v }
      } else {
        s = $3; gsub(/^ +| +$/, "", s); sub(/ \([0-9]+\)$/, "", s); v = $5; gsub(/[ ×]/, "", v)
        if (s != "bare") print s, l, v
      }
    }' "$work/launch.$l" >> "$work/ratios"
done
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo
for s in $(awk '{print $1}' "$work/ratios" | sort -u); do
  per_launch=""
  for l in $(seq 1 "$launches"); do
    per_launch="$per_launch $(awk -v s="$s" -v l="$l" '$1 == s && $2 == l {print $3}' "$work/ratios" | median)×"
  done
  printf "%s: median over %d rounds of %d launches %s× to bare; each launch's median:%s\n" \
    "$s" "$(awk -v s="$s" '$1 == s' "$work/ratios" | wc -l)" "$launches" \
    "$(awk -v s="$s" '$1 == s {print $3}' "$work/ratios" | median)" "$per_launch"
done
