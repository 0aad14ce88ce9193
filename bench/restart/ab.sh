#!/usr/bin/env bash
# Coordinator restart A/B: two distributions started in alternating order, ROUNDS times each, on
# their own data directories and AOT caches (a first start trains each in the background, or for
# older distributions records it at its stop and a second start writes it: the warm-up waits until
# the cache is there either way).
# Prints "round variant wall_ms cpu_ms" per start, then each variant's median and the paired
# differences (B - A). Listens on 127.0.0.1 only; stops by itself.
#   bench/restart/ab.sh A.tar.gz B.tar.gz [ROUNDS]     (ROUNDS default 12)
# Build a tarball with `./mvnw -q -DskipTests package -pl dist -am` (dist/target/anteroom-*.tar.gz)
# and copy it aside before building the other variant.
set -euo pipefail
[[ $# -ge 2 && -f "$1" && -f "$2" ]] || { echo "usage: bench/restart/ab.sh A.tar.gz B.tar.gz [ROUNDS]" >&2; exit 2; }
rounds=${3:-12}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "ROUNDS=$rounds is not a positive whole number" >&2; exit 2; }
work=$(mktemp -d)
pid=
trap 'set +e; [[ -n "$pid" ]] && kill -9 "$pid" 2>/dev/null; rm -rf "$work"' EXIT
tick=$(getconf CLK_TCK)
declare -A tarball=([A]=$1 [B]=$2)
for v in A B; do mkdir -p "$work/$v"; tar xzf "${tarball[$v]}" -C "$work/$v"; done
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
answering() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"; }
start() {
  ANTEROOM_AOT_DIR="$work/$1/aot" "$(echo "$work/$1"/anteroom-*)/bin/anteroom" coordinator \
    --listen "127.0.0.1:$port" --data-dir "$work/$1/data" >"$work/$1/log" 2>&1 &
  pid=$!
}
has() { compgen -G "$work/$1/aot/*.$2" >/dev/null; }
for v in A B; do # each variant's AOT cache, until it is there
  for _ in 1 2 3; do
    start "$v"
    for _ in $(seq 1 600); do answering && break; sleep 0.1; done
    # older distributions write it while a start serves, from the recording of an earlier stop
    for _ in $(seq 1 1800); do has "$v" aotconf || break; sleep 0.1; done
    kill -TERM "$pid"; wait "$pid" || true
    # newer ones train it in the background after a start
    for _ in $(seq 1 1800); do { has "$v" aot || has "$v" failed || has "$v" aotconf; } && break; sleep 0.1; done
    has "$v" aot && break
  done
done
for r in $(seq "$rounds"); do
  order=(A B); ((r % 2 == 0)) && order=(B A)
  for v in "${order[@]}"; do
    t0=$(date +%s%N); start "$v"
    for _ in $(seq 1 6000); do answering && break; sleep 0.005; done
    t1=$(date +%s%N)
    cpu=$(awk -v t="$tick" '{ print int(($14 + $15) * 1000 / t) }' "/proc/$pid/stat")
    echo "$r $v $(((t1 - t0) / 1000000)) $cpu" | tee -a "$work/results"
    kill -9 "$pid"; wait "$pid" 2>/dev/null || true; pid=
  done
done
median() { sort -n | awk '{a[NR]=$1} END {printf "%.0f", (a[int((NR+1)/2)] + a[int(NR/2)+1]) / 2}'; }
for v in A B; do
  echo "$v: wall median $(awk -v v=$v '$2==v {print $3}' "$work/results" | median) ms, CPU median $(awk -v v=$v '$2==v {print $4}' "$work/results" | median) ms"
done
echo "B - A per round (ms): $(awk '{t[$1" "$2]=$3} END {for (r = 1; t[r" A"] != ""; r++) print t[r" B"] - t[r" A"]}' "$work/results" | sort -n | tr '\n' ' ')"
