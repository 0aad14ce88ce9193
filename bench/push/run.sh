#!/usr/bin/env bash
# The queue page's push against its refresh (docs/benchmarks.md, "Queue push").
#   bench/push/run.sh [SAMPLES] [CONNECTIONS]     defaults: 12 samples per mode and round, 18000 held polls
# Starts a demo origin and a gateway (anteroom run, from the gateway module's classes) on
# 127.0.0.1:18480, then: the time from a freed slot to the waiting user's entry with the page's
# refresh only and with the push (same gateway, same room, alternating), and the gateway's heap
# and resident memory with CONNECTIONS push polls held. Raises the file-descriptor limit for
# itself (ulimit -n). Writes everything to target/push-bench/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
samples="${1:-12}"
connections="${2:-18000}"
out="$here/target/push-bench"
mkdir -p "$out"
java="${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}"
# each process needs a descriptor per connection; the hard limit is what the machine allows (20,000
# in the sandbox of the recorded runs, which no unprivileged process can raise)
want=$(( connections + 2000 ))
hard=$(ulimit -Hn)
if [[ "$hard" != unlimited && "$hard" -lt "$want" ]]; then
  echo "the hard file-descriptor limit is $hard: at most $(( hard - 2000 )) held connections here" >&2
  connections=$(( hard - 2000 ))
  want=$hard
fi
ulimit -n "$want"
cd "$here"
./mvnw -B -q -o -pl gateway -am compile dependency:build-classpath -Dmdep.outputFile="$out/cp.txt" -Dmdep.includeScope=runtime >&2
cp="gateway/target/classes"
for m in door room host pass coordinator objects objects-ratis backpressure picocli; do
  [[ -d "$m/target/classes" ]] && cp="$cp:$m/target/classes"
done
cp="$cp:$(cat "$out/cp.txt")"
rm -rf "$out/data"
cat > "$out/anteroom.yaml" <<YAML
listen: 127.0.0.1:18480
origin: http://127.0.0.1:18481
dataDir: $out/data
admin: { listen: 127.0.0.1:18482 }
maxConnections: $(( connections + 1000 ))
maxHeldPolls: $(( connections + 1000 ))
pollHoldSeconds: 120
idleTimeoutSeconds: 600
requestHeadTimeoutMillis: 600000
rooms:
  - { id: shop, totalActiveUsers: 10, newUsersPerMinute: 1000, queueRefreshSeconds: 10, sessionDurationMinutes: 60 }
YAML
bench="bench/src/main/java/io/anteroom/bench/PushBench.java"
"$java" "$bench" origin 18481 > "$out/origin.log" 2>&1 &
origin=$!
start_gateway() {
  rm -rf "$out/data"
  "$java" -Xmx4g -cp "$cp" io.anteroom.gateway.Main run --config "$out/anteroom.yaml" > "$out/gateway-$1.log" 2>&1 &
  gateway=$!
  for _ in $(seq 1 120); do
    curl -s -o /dev/null http://127.0.0.1:18480/ 2>/dev/null && break
    sleep 0.5
  done
}
stop_gateway() {
  kill "$gateway" 2>/dev/null || true
  wait "$gateway" 2>/dev/null || true
}
trap 'kill $origin 2>/dev/null || true; stop_gateway' EXIT
echo "machine: $(nproc) cores, $(uname -r), load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
# a fresh gateway (and room) for each run, the two modes in turn
for round in 1 2; do
  for mode in refresh push; do
    start_gateway "$mode-$round"
    "$java" "$bench" latency http://127.0.0.1:18480 "$samples" "$mode" | tee "$out/latency-$mode-$round.log" | tail -1
    stop_gateway
  done
done
echo "all samples:"
for mode in refresh push; do
  grep -h '^sample' "$out"/latency-"$mode"-*.log | awk '{ print $3 }' | sort -g | awk -v mode="$mode" '
    { v[++n] = $1 } END { i = int(0.95 * n); if (i < 0.95 * n) i++;
      printf "%s: %d samples, median %.2f s, p95 %.2f s\n", mode, n, (n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2), v[i] }'
done
echo "load average after the latency runs: $(cut -d' ' -f1-3 /proc/loadavg)"
start_gateway hold
"$java" "$bench" hold 127.0.0.1:18480 "$connections" "$gateway" | tee "$out/hold.log" | grep -v "connections held$"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
