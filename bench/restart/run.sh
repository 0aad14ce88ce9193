#!/usr/bin/env bash
# Coordinator restart time: starts the installed distribution's coordinator ROUNDS times on one
# data directory, each time measuring from the start until it answers an HTTP request, then kills
# it with SIGKILL. Run from the repository root after `./mvnw -q -DskipTests package -pl dist -am`:
#   bench/restart/run.sh [ROUNDS]            (ANTEROOM_AOT=off to measure without the AOT cache)
# The first start records the AOT cache only if a clean exit follows, so one warm-up run is
# stopped with SIGTERM first. Listens on 127.0.0.1 only; stops by itself.
set -euo pipefail
rounds=${1:-5}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar xzf dist/target/anteroom-*.tar.gz -C "$work"
home=$(echo "$work"/anteroom-*)
export ANTEROOM_AOT_DIR="$work/aot"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
start() { "$home/bin/anteroom" coordinator --listen "127.0.0.1:$port" --data-dir "$work/data" >"$work/log" 2>&1 & pid=$!; }
answering() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"; }
start # warm-up: ends cleanly, so the AOT cache (Java 25+) is recorded
for _ in $(seq 1 600); do answering && break; sleep 0.1; done
kill -TERM "$pid"; wait "$pid" || true
for i in $(seq 1 "$rounds"); do
  t0=$(date +%s%N)
  start
  for _ in $(seq 1 6000); do answering && break; sleep 0.01; done
  t1=$(date +%s%N)
  echo "start $i: $(( (t1 - t0) / 1000000 )) ms"
  kill -9 "$pid"; wait "$pid" 2>/dev/null || true
done
