#!/usr/bin/env bash
# Coordinator restart time: starts the installed distribution's coordinator ROUNDS times on one
# data directory, each time measuring from the start until it answers an HTTP request (and the CPU
# time the process used until then), then kills it with SIGKILL. Run from the repository root after
# `./mvnw -q -DskipTests package -pl dist -am`:
#   bench/restart/run.sh [ROUNDS]            (ANTEROOM_AOT=off to measure without the AOT cache)
# FLOOR=1 also measures, alternating with the coordinator in every round, the floor of the same JVM
# on this machine (io.anteroom.bench.StartFloor, each with its own AOT cache): the JDK's own HTTP
# server, and a bare Vert.x HTTP server (the coordinator's HTTP stack, nothing of Anteroom); it
# needs `./mvnw -q -DskipTests package -pl bench -am` too.
# The first start trains the AOT cache in the background; the warm-up waits until it is written. Listens on 127.0.0.1 only; stops by itself. KEEP_WORK=1 keeps the
# temporary directory (logs, data, caches) for a look afterwards.
set -euo pipefail
rounds=${1:-5}
floor=${FLOOR:-0}
work=$(mktemp -d)
pid=
trap 'set +e; [[ -n "$pid" ]] && kill -9 "$pid" 2>/dev/null; [[ -n "${KEEP_WORK:-}" ]] || rm -rf "$work"' EXIT
tar xzf dist/target/anteroom-*.tar.gz -C "$work"
home=$(echo "$work"/anteroom-*)
export ANTEROOM_AOT_DIR="$work/aot"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
tick=$(getconf CLK_TCK)

# the JDK the launcher picks, for the floor processes
java=$(ANTEROOM_AOT=off ANTEROOM_JAVA_OPTS=-XshowSettings:properties "$home/bin/anteroom" --version 2>&1 \
  | sed -n 's/^ *java.home = //p' | head -n 1)/bin/java
[[ "$floor" != 1 || -x "$java" ]] \
  || { echo "FLOOR=1: could not find the JDK the launcher picks (got '$java')" >&2; exit 1; }
floor_cp="$(echo "$PWD"/bench/target/anteroom-bench-*.jar):$home/lib/*" # the AOT cache takes jars only

start() { # KIND [AOT option]
  case "$1" in
    coordinator)
      "$home/bin/anteroom" coordinator --listen "127.0.0.1:$port" --data-dir "$work/data" >"$work/log" 2>&1 &
      ;;
    jdk | vertx)
      "$java" ${2:-} -cp "$floor_cp" io.anteroom.bench.StartFloor "$1" "$port" >"$work/log" 2>&1 &
      ;;
  esac
  pid=$!
}
answering() { curl -s -o /dev/null --max-time 1 "http://127.0.0.1:$port/"; }
cpu_ms() { awk -v t="$tick" '{ print int(($14 + $15) * 1000 / t) }' "/proc/$1/stat"; }
aot() { echo "-XX:AOTCache=$work/floor-$1.aot"; }

kinds=(coordinator)
# warm-up: the first start trains the coordinator's AOT cache (Java 25+) in the background; wait
# until it is written (the training's lock is free and the .aot file is there)
start coordinator
for _ in $(seq 1 600); do answering && break; sleep 0.1; done
kill -TERM "$pid"; wait "$pid" || true
for _ in $(seq 1 3000); do
  if compgen -G "$ANTEROOM_AOT_DIR/*.aot" >/dev/null || compgen -G "$ANTEROOM_AOT_DIR/*.failed" >/dev/null; then break; fi
  sleep 0.1
done
if [[ "$floor" == 1 ]]; then
  [[ -f "${floor_cp%%:*}" ]] || { echo "FLOOR=1 needs the bench module built" >&2; exit 1; }
  for kind in jdk vertx; do
    start "$kind" "-XX:AOTCacheOutput=$work/floor-$kind.aot"
    for _ in $(seq 1 600); do answering && break; sleep 0.1; done
    kill -TERM "$pid"; wait "$pid" || true
    kinds+=("$kind")
  done
fi
pid=
for i in $(seq 1 "$rounds"); do
  for kind in "${kinds[@]}"; do
    t0=$(date +%s%N)
    if [[ "$kind" == coordinator ]]; then start "$kind"; else start "$kind" "$(aot "$kind")"; fi
    for _ in $(seq 1 6000); do answering && break; sleep 0.01; done
    t1=$(date +%s%N)
    echo "start $i $kind: $(( (t1 - t0) / 1000000 )) ms, CPU $(cpu_ms "$pid") ms"
    kill -9 "$pid"; wait "$pid" 2>/dev/null || true
    pid=
  done
done
