#!/usr/bin/env bash
# Gateway benchmark (issue 4): wrk against nginx serving a 1 KiB page, all in one run:
#   A nginx direct   B nginx as reverse proxy   C Anteroom, admitted path (valid cookie, renewed)
#   D Anteroom serving the queue page;  E Anteroom proxying a path of no room (proxy cost alone).
# Throughput at $CONNS connections, latency (p50/p99) at 4 connections; $DURATION per run.
# Usage: gateway/bench/gateway-bench.sh [DURATION=10s] [CONNS=64]
# Needs: nginx and wrk (apt-get install -y nginx wrk), a built gateway (./anteroom builds it).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
DURATION="${1:-10s}"
CONNS="${2:-64}"
work="$(mktemp -d /tmp/anteroom-bench.XXXXXX)"
ORIGIN=18181 PROXY=18182 GW=18180 ADMIN=18190
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  [[ -f "$work/nginx.pid" ]] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

head -c 1024 /dev/zero | tr '\0' 'a' > "$work/index.html"
mkdir -p "$work/queue" && cp "$work/index.html" "$work/queue/index.html"
cat > "$work/nginx.conf" <<NGINX
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  upstream origin { server 127.0.0.1:$ORIGIN; keepalive 128; }
  server { listen 127.0.0.1:$ORIGIN; root $work; location / { try_files \$uri \$uri/index.html =404; } }
  server { listen 127.0.0.1:$PROXY;
           location / { proxy_pass http://origin; proxy_http_version 1.1;
                        proxy_set_header Connection ""; } }
}
NGINX
nginx -c "$work/nginx.conf" -p "$work"

cat > "$work/anteroom.yaml" <<YAML
listen: 127.0.0.1:$GW
origin: http://127.0.0.1:$ORIGIN
dataDir: $work/data
admin: { listen: 127.0.0.1:$ADMIN, token: bench }
rooms:
  - { id: site, host: site.test, totalActiveUsers: 100000000, sessionDurationMinutes: 30 }
  - { id: queue, host: site.test, path: /queue/, totalActiveUsers: 1, queueAll: true,
      queueStatusMaxQps: 10000000, queueStatusMaxLatencyMillis: 600000 }
YAML
"$here/anteroom" run --config "$work/anteroom.yaml" > "$work/anteroom.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$ADMIN/ready" >/dev/null && break; sleep 1; done
cookie=$(curl -s -D - -o /dev/null -H "Host: site.test" "http://127.0.0.1:$GW/index.html" | awk -F'[:;] *' 'tolower($1)=="set-cookie" {print $2; exit}')
[[ -n "$cookie" ]] || { echo "no admitted cookie; log:"; cat "$work/anteroom.log"; exit 1; }
curl -s -H "Host: site.test" "http://127.0.0.1:$GW/queue/" | grep -q "You are in line" || { echo "queue page missing"; exit 1; }

run() { # name url connections [header...]
  local args=(-t2 -c"$3" -d"$DURATION" --latency)
  local h
  for h in "${@:4}"; do args+=(-H "$h"); done
  wrk "${args[@]}" "$2" > "$work/wrk.out"
  local rps p50 p99
  rps=$(awk '/Requests\/sec/ {print $2}' "$work/wrk.out")
  p50=$(awk '$1=="50%" {print $2}' "$work/wrk.out")
  p99=$(awk '$1=="99%" {print $2}' "$work/wrk.out")
  printf '| %-34s | %3s | %10s | %8s | %8s |\n' "$1" "$3" "$rps" "$p50" "$p99"
}
# warm-up (JIT) of the gateway paths, not reported
wrk -t2 -c16 -d10s -H "Host: site.test" -H "Cookie: $cookie" "http://127.0.0.1:$GW/index.html" >/dev/null
wrk -t2 -c16 -d10s -H "Host: site.test" "http://127.0.0.1:$GW/queue/" >/dev/null
wrk -t2 -c16 -d5s "http://127.0.0.1:$GW/index.html" >/dev/null

echo "| run | conns | req/s | p50 | p99 |"
echo "|---|---|---|---|---|"
run "A nginx direct"                 "http://127.0.0.1:$ORIGIN/index.html" "$CONNS"
run "B nginx reverse proxy"          "http://127.0.0.1:$PROXY/index.html"  "$CONNS"
run "E Anteroom, no room (proxy only)" "http://127.0.0.1:$GW/index.html"   "$CONNS"
run "C Anteroom admitted (cookie)"   "http://127.0.0.1:$GW/index.html"     "$CONNS" "Host: site.test" "Cookie: $cookie"
run "D Anteroom queue page"          "http://127.0.0.1:$GW/queue/"         "$CONNS" "Host: site.test"
run "A nginx direct"                 "http://127.0.0.1:$ORIGIN/index.html" 4
run "B nginx reverse proxy"          "http://127.0.0.1:$PROXY/index.html"  4
run "E Anteroom, no room (proxy only)" "http://127.0.0.1:$GW/index.html"   4
run "C Anteroom admitted (cookie)"   "http://127.0.0.1:$GW/index.html"     4 "Host: site.test" "Cookie: $cookie"
run "D Anteroom queue page"          "http://127.0.0.1:$GW/queue/"         4 "Host: site.test"
