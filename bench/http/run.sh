#!/usr/bin/env bash
# HTTP load benchmark of the Anteroom gateway (issue 4, "Benchmark"); results: docs/benchmarks-http.md
#
# In ONE run, on 127.0.0.1 only, wrk measures in this order:
#   1. nginx direct               the origin: a 1 KiB static page
#   2. nginx reverse proxy        a second nginx server block, keep-alive upstream to (1)
#   3. Anteroom admitted path     room "open" (limits far above the load) in front of (1); every
#                                 request carries a valid admitted cookie, so it is decrypted,
#                                 renewed and proxied; the cookie is the one the gateway last set
#                                 (as a browser holds it), and the run starts early enough in a
#                                 minute to end within it, so the renewal is not re-sealed (wrk
#                                 would keep the old cookie past the minute, unlike a browser)
#   4. Anteroom queue page        room "full" (queueAll: true), requests without a cookie: every
#                                 request is a new arrival that gets the queue page
#   5. Anteroom queue page        room "wait" (1 user, taken by the checks), every request carrying
#      (returning)                a queued user's ticket cookie (a waiting user refreshing the page)
#   6. reference: Vert.x proxy    io.anteroom.bench.ReferenceProxy --kind vertx: the gateway's HTTP
#                                 stack (Vert.x server + client, one per event loop) with no room,
#                                 on Vert.x's default NIO transport
#   7. reference: Netty proxy     ReferenceProxy --kind netty: plain Netty codecs on native epoll,
#                                 one origin connection per client connection, no room
#   8. reference: Netty, io_uring ReferenceProxy --kind netty-uring: (7) on the io_uring transport,
#                                 the gateway's own where the kernel allows it
#      (6 to 8 are not Anteroom: they show what a JVM proxy costs here before any room logic)
# each at high concurrency (req/s) and at 4 connections (p50/p99), after a warm-up of the JVM;
# then prints a Markdown table and the ratios against the targets of issues 4 and 14 (CPU per
# request of Anteroom and the reference proxies from /proc/<pid>/stat over the load run).
#
# Usage (from anywhere; Anteroom is started from the repository root with ./anteroom):
#   bench/http/run.sh
# Environment (defaults in brackets):
#   DURATION_S [15]  seconds per measured wrk run (at most 50, so an admitted run fits in its cookie's minute)
#   WARMUP_S [20] WARMUP_MAX_S [180]  JVM warm-up: at least / at most, until the rates are steady
#                    (two successive rounds each within 10 % of the one before)
#   QUIET_MAX_S [60]  then at most this long until the idle gateway's JIT is done (under 5 % of a
#                    core for two seconds)
#   LOAD_THREADS [2] LOAD_CONNECTIONS [64]            LATENCY_CONNECTIONS [4] (1 wrk thread)
#   PIN [0]          0: no pinning; 1: wrk on CPU 0, nginx + Anteroom on CPU 1 (taskset). Unpinned
#                    is the default: on a machine shared with other work, pinning the servers to one
#                    core left them that core's share only and the JIT took minutes to warm up
#                    (docs/benchmarks-http.md has runs of both)
#   NGINX_WORKERS    [1 when pinned, else nproc]      ANTEROOM_JAVA_OPTS  passed to the JVM
#   MAX_SECONDS [1200] hard bound of the whole run      KEEP [0] 1 keeps the temp dir (logs)
#   RESULTS [unset]  also write the table to this file
#   REFERENCE [1]    1: also measure the reference proxies (6 to 8; builds the bench module)
#   ORDER [nginx-first]  anteroom-first measures Anteroom's three runs before nginx's two (runs
#                    in both orders show how much the machine's drift during a run moves a ratio)
#   ROUNDS [4] ROUND_S [8]  then ROUNDS rounds in rotating order, ROUND_S seconds each at the load
#                    connections: the nginx proxy, Anteroom's admitted path and the plain Netty
#                    references (epoll, io_uring; with REFERENCE=1). Round r starts at the r-th target
#                    of that list, so each target runs in each position once every four rounds (two
#                    with REFERENCE=0): the ratios per round and their median are free of the order
#                    effect that moves a single pass (runs 34-49). 0 skips them
#   SYSCALLS [0]     1: afterwards, count each server's system calls per 10,000 requests with
#                    `strace -c` attached to all its threads during a short run at 8 connections
#                    (nginx's workers serve the origin too: its proxy's own calls are the proxy run's
#                    minus the direct run's); needs strace
# Needs root only to install what is missing (apt-get install nginx wrk curl).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
SCRIPT=bench/http
# shellcheck source=lib.sh
source "$here/lib.sh"
DURATION_S=${DURATION_S:-15}
WARMUP_S=${WARMUP_S:-20}
WARMUP_MAX_S=${WARMUP_MAX_S:-180}
LOAD_THREADS=${LOAD_THREADS:-2}
LOAD_CONNECTIONS=${LOAD_CONNECTIONS:-64}
LATENCY_CONNECTIONS=${LATENCY_CONNECTIONS:-4}
PIN=${PIN:-0}
MAX_SECONDS=${MAX_SECONDS:-1200}
KEEP=${KEEP:-0}
REFERENCE=${REFERENCE:-1}
ORDER=${ORDER:-nginx-first}
SYSCALLS=${SYSCALLS:-0}
ROUNDS=${ROUNDS:-4}
ROUND_S=${ROUND_S:-8}
export ANTEROOM_JAVA_OPTS=${ANTEROOM_JAVA_OPTS:-}

QUIET_MAX_S=${QUIET_MAX_S:-60}
[[ "$ROUNDS" =~ ^[0-9]+$ ]] || die "ROUNDS=$ROUNDS: use a whole number (0 skips the rounds)"
positive_whole ROUND_S QUIET_MAX_S DURATION_S WARMUP_S WARMUP_MAX_S LOAD_THREADS LOAD_CONNECTIONS LATENCY_CONNECTIONS MAX_SECONDS
((DURATION_S <= 50)) || say "WARNING: DURATION_S=$DURATION_S: an admitted run this long cannot end within the minute its cookie was set in; after the boundary wrk keeps the old cookie and every request is re-sealed (a client that ignores Set-Cookie)"
((ROUND_S <= 50)) || say "WARNING: ROUND_S=$ROUND_S: an admitted round this long cannot end within the minute its cookie was set in (see DURATION_S)"
[[ "$PIN" == 0 || "$PIN" == 1 ]] || die "PIN=$PIN: use 1 (pin wrk and servers to separate CPUs) or 0"
[[ "$ORDER" == nginx-first || "$ORDER" == anteroom-first ]] \
  || die "ORDER=$ORDER: use nginx-first (the default) or anteroom-first"
[[ "$REFERENCE" == 0 || "$REFERENCE" == 1 ]] || die "REFERENCE=$REFERENCE: use 1 (measure the reference proxies) or 0"

# ---------------------------------------------------------------- tools
missing=()
for tool in nginx wrk curl taskset; do
  command -v "$tool" >/dev/null 2>&1 || [[ -x "/usr/sbin/$tool" ]] || missing+=("$tool")
done
if ((${#missing[@]})); then
  [[ $EUID -eq 0 ]] || die "missing ${missing[*]}; run as root to install them, or apt-get install nginx wrk curl"
  pkgs=("${missing[@]/taskset/util-linux}")
  say "installing ${pkgs[*]}..."
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${pkgs[@]}" >/dev/null
fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

if [[ "$PIN" == 1 ]]; then
  (( $(nproc) >= 2 )) || die "PIN=1 needs 2 CPUs; this machine has $(nproc); use PIN=0"
  client_cpu=(taskset -c 0)
  server_cpu=(taskset -c 1)
  NGINX_WORKERS=${NGINX_WORKERS:-1}
else
  client_cpu=()
  server_cpu=()
  NGINX_WORKERS=${NGINX_WORKERS:-$(nproc)}
fi

# ---------------------------------------------------------------- temp dir, cleanup, time bound
dir="$(mktemp -d /tmp/anteroom-httpbench.XXXXXX)"
mkdir -p "$dir"/{www,logs,tmp,data,wrk}
chmod 755 "$dir" "$dir/www" # nginx workers run as an unprivileged user when started by root
gw_pid=""
ref_pids=()
watchdog_pid=""

stop_pid() { # stop_pid PID SECONDS: TERM, wait, then KILL
  local pid=$1 waited=0
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  while kill -0 "$pid" 2>/dev/null && ((waited < $2 * 10)); do sleep 0.1; waited=$((waited + 1)); done
  kill -KILL "$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  set +e # clean up all of it: a process already gone (the watchdog that fired) is not an error
  [[ -n "$watchdog_pid" ]] && kill "$watchdog_pid" 2>/dev/null
  [[ -n "$gw_pid" ]] && stop_pid "$gw_pid" 20
  local ref
  for ref in "${ref_pids[@]}"; do stop_pid "$ref" 10; done
  if [[ -s "$dir/nginx.pid" ]]; then
    local master
    master=$(cat "$dir/nginx.pid")
    stop_pid "$master" 10 # TERM = fast shutdown of the master and its workers
  fi
  if [[ "$KEEP" == 1 || $rc -ne 0 ]]; then
    say "$SCRIPT: logs kept in $dir"
  else
    rm -rf "$dir"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# the whole run is bounded: the watchdog stops this script (whose EXIT trap cleans up) after
# MAX_SECONDS; every wrk and curl call has its own bound as well
start_watchdog "$MAX_SECONDS"

# ---------------------------------------------------------------- ports
free_port origin_port
free_port proxy_port
free_port gw_port
free_port admin_port
free_port ref_vertx_port
free_port ref_netty_port
free_port ref_uring_port

# ---------------------------------------------------------------- nginx: origin + reference proxy
# exactly 1024 bytes of HTML; the marker lets the checks tell the origin's page from a queue page
page_head='<!doctype html><html><head><title>origin</title></head><body><p>anteroom-bench-origin-page</p><p>'
page_tail=$'</p></body></html>\n'
{
  printf '%s' "$page_head"
  printf 'x%.0s' $(seq $((1024 - ${#page_head} - ${#page_tail})))
  printf '%s' "$page_tail"
} >"$dir/www/page.html"
page_size=$(stat -c %s "$dir/www/page.html")
((page_size == 1024)) || die "page is $page_size bytes, not 1024"

sed -e "s#@DIR@#$dir#g" -e "s#@ORIGIN_PORT@#$origin_port#g" -e "s#@PROXY_PORT@#$proxy_port#g" \
  -e "s#@WORKERS@#$NGINX_WORKERS#g" "$here/nginx.conf.template" >"$dir/nginx.conf"
"${server_cpu[@]}" "$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" \
  || die "nginx did not start; see $dir/logs/error.log"

wait_http() { # wait_http URL SECONDS [PID]: until the URL answers, or fail
  local waited=0
  until curl -s -o /dev/null --max-time 2 "$1"; do
    [[ -z "${3:-}" ]] || kill -0 "$3" 2>/dev/null || return 1
    ((waited < $2 * 5)) || return 1
    sleep 0.2
    waited=$((waited + 1))
  done
}
wait_http "http://127.0.0.1:$origin_port/" 10 || die "nginx origin does not answer"
wait_http "http://127.0.0.1:$proxy_port/" 10 || die "nginx proxy does not answer"

# ---------------------------------------------------------------- Anteroom: two rooms
admin_token=bench-$RANDOM$RANDOM$RANDOM
gateway_yaml "$gw_port" "$origin_port" "$dir/data" "$admin_port" "$admin_token" >"$dir/anteroom.yaml"

say "building Anteroom if needed..."
(cd "$root" && timeout 900 ./anteroom --help >/dev/null) || die "./anteroom did not build or start"
if [[ "$REFERENCE" == 1 ]]; then
  say "building the reference proxies (bench module)..."
  (cd "$root" && timeout 900 ./mvnw -q -B -DskipTests package -pl bench -am >"$dir/logs/bench-build.log" 2>&1) \
    || { tail -20 "$dir/logs/bench-build.log" >&2; die "the bench module did not build"; }
fi
(cd "$root" && exec "${server_cpu[@]}" ./anteroom run --config "$dir/anteroom.yaml" \
  >"$dir/logs/anteroom.log" 2>&1) &
gw_pid=$!
wait_http "http://127.0.0.1:$admin_port/metrics" 90 "$gw_pid" \
  || { tail -20 "$dir/logs/anteroom.log" >&2; die "Anteroom did not start"; }

# ---------------------------------------------------------------- cookies and response checks
fetch() { # fetch NAME URL [CURL ARGS...]: headers to $dir/NAME.h, body to $dir/NAME.b
  local name=$1 url=$2
  shift 2
  curl -s --max-time 5 -D "$dir/$name.h" -o "$dir/$name.b" "$@" "$url" \
    -w '%{http_code} %{size_header} %{size_download}\n' >"$dir/$name.w" || die "GET $url failed"
  read -r status hsize bsize <"$dir/$name.w"
  echo "$status $((hsize + bsize))"
}
set_cookie() { # set_cookie NAME COOKIE_NAME: "name=value" from the saved response's Set-Cookie
  grep -i "^set-cookie: $2=" "$dir/$1.h" | head -1 | sed -e 's/^[^:]*: *//' -e 's/;.*//' | tr -d '\r' || true
}
is_origin_page() { cmp -s "$dir/$1.b" "$dir/www/page.html"; }

metric() { # metric "NAME ROOM": the current value of an Anteroom counter of a room from /metrics
  { curl -s --max-time 5 "http://127.0.0.1:$admin_port/metrics" || true; } \
    | awk -v m="${1% *}" -v r="${1#* }" '$1 == m"_total{room=\""r"\"}" || $1 == m"{room=\""r"\"}" {print int($2); found=1} END {if (!found) print -1}'
}

origin_url="http://127.0.0.1:$origin_port/open/"
proxy_url="http://127.0.0.1:$proxy_port/open/"
open_url="http://127.0.0.1:$gw_port/open/"
full_url="http://127.0.0.1:$gw_port/full/"
wait_url="http://127.0.0.1:$gw_port/wait/"

read -r status first_size < <(fetch first "$open_url")
[[ "$status" == 200 ]] && is_origin_page first \
  || die "the first request to room open did not get the origin's page (status $status)"
admitted_cookie=$(set_cookie first __anteroom_open)
[[ -n "$admitted_cookie" ]] || die "room open set no __anteroom_open cookie"

read -r status admitted_size < <(fetch admitted "$open_url" -H "Cookie: $admitted_cookie")
[[ "$status" == 200 ]] && is_origin_page admitted \
  || die "a request with the admitted cookie did not get the origin's page (status $status)"
# no Set-Cookie check here: a renewal in the cookie's own minute keeps the cookie (the gateway
# re-seals once a minute, TicketBytes.renewalCanWait); the measured runs check the counter of
# returning admitted users instead
read -r status direct_size < <(fetch direct "$origin_url" -H "Cookie: $admitted_cookie")
read -r status proxied_size < <(fetch proxied "$proxy_url" -H "Cookie: $admitted_cookie")

read -r status queue_size < <(fetch queue "$full_url")
[[ "$status" == 200 ]] && ! is_origin_page queue && grep -qi '<html' "$dir/queue.b" \
  || die "room full did not answer with a queue page (status $status)"
# a queued user with a ticket: room wait admits its first user, then queues the next with a ticket
fetch wait-first "$wait_url" >/dev/null
read -r status _ < <(fetch wait-queued "$wait_url")
[[ "$status" == 200 ]] && ! is_origin_page wait-queued \
  || die "room wait did not queue its second user (status $status)"
queued_cookie=$(set_cookie wait-queued __anteroom_wait)
[[ "$queued_cookie" == __anteroom_wait=?* ]] \
  || die "room wait gave its queued user no ticket cookie (Set-Cookie: ${queued_cookie:-none})"
read -r status requeue_size < <(fetch requeue "$wait_url" -H "Cookie: $queued_cookie")
[[ "$status" == 200 ]] && ! is_origin_page requeue \
  || die "a returning queued user did not get the queue page (status $status)"

m_admitted="anteroom_room_admitted_returning open"
m_queued="anteroom_room_queued full"
m_waiting="anteroom_room_queued wait"
for m in "$m_admitted" "$m_queued" "$m_waiting"; do
  [[ $(metric "$m") -ge 0 ]] || die "/metrics has no $m; the checks below need it"
done

# ---------------------------------------------------------------- wrk
# run_wrk LABEL KIND(load|latency) SECONDS URL [COOKIE]: prints the RESULT line of report.lua,
# prefixed with the label and kind; the full wrk output goes to $dir/wrk/
run_wrk() {
  local label=$1 kind=$2 seconds=$3 url=$4 cookie=${5:-} args out
  if [[ "$kind" == load ]]; then
    args=(-t"$LOAD_THREADS" -c"$LOAD_CONNECTIONS")
  else
    args=(-t1 -c"$LATENCY_CONNECTIONS" --latency)
  fi
  [[ -n "$cookie" ]] && args+=(-H "Cookie: $cookie")
  out="$dir/wrk/$label-$kind.txt"
  timeout $((seconds + 30)) "${client_cpu[@]}" wrk "${args[@]}" -d"${seconds}s" --timeout 5s \
    -s "$here/report.lua" "$url" >"$out" 2>&1 || die "wrk failed on $url: $(tail -3 "$out")"
  { grep '^RESULT ' "$out" || true; } | sed "s/^RESULT /label=$label kind=$kind /"
}

field() { # field LINE KEY
  sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<" $1"
}

# check_run LINE EXPECTED_BYTES_PER_RESPONSE WHAT [METRIC BEFORE]: every response was 2xx, of the
# expected size (the origin's page and the queue page differ in size), and, for Anteroom, its own
# counter of the expected outcome moved with the requests (so they were not, e.g., queued)
check_run() {
  local line=$1 expect=$2 what=$3 requests status errors bpr lo hi
  lo=${expect%-*} # EXPECTED may be a range LO-HI (the admitted page with or without Set-Cookie)
  hi=${expect#*-}
  requests=$(field "$line" requests)
  status=$(field "$line" status)
  errors=$(($(field "$line" connect) + $(field "$line" read) + $(field "$line" write) + $(field "$line" timeout)))
  bpr=$(($(field "$line" bytes) / (requests > 0 ? requests : 1)))
  ((requests > 0)) || die "$what: no response at all"
  ((status == 0)) || say "WARNING $what: $status responses were not 2xx/3xx"
  ((errors == 0)) || say "WARNING $what: $errors socket errors"
  ((bpr * 100 >= lo * 90 && bpr * 100 <= hi * 110)) \
    || die "$what: $bpr bytes per response where the checked responses had $expect; wrong content"
  if [[ -n "${4:-}" ]]; then
    local after
    after=$(metric "$4")
    ((after - $5 >= requests)) \
      || die "$what: Anteroom counted $((after - $5)) $4 for $requests responses"
  fi
}

results=()
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; } # user + system time of a process
cpu_us=()
measure() { # measure LABEL URL EXPECTED_SIZE [COOKIE [METRIC [PID]]]: PID's CPU per request too
  local label=$1 url=$2 size=$3 cookie=${4:-} m=${5:-} pid=${6:-} kind line before="" ticks=""
  for kind in load latency; do
    if [[ "$label" == anteroom-admitted ]]; then # each run starts with the browser's cookie
      fit_in_minute "$DURATION_S"
      fresh_cookie
      cookie=$admitted_cookie
    fi
    [[ -n "$m" ]] && before=$(metric "$m")
    [[ -n "$pid" && "$kind" == load ]] && ticks=$(cpu_ticks "$pid")
    line=$(run_wrk "$label" "$kind" "$DURATION_S" "$url" "$cookie")
    if [[ -n "$pid" && "$kind" == load ]]; then
      cpu_us+=("$label=$(awk -v t="$(($(cpu_ticks "$pid") - ticks))" -v hz="$(getconf CLK_TCK)" \
        -v r="$(field "$line" requests)" 'BEGIN {printf "%.1f", t / hz * 1e6 / (r > 0 ? r : 1)}')")
    fi
    [[ -n "$line" ]] || die "$label $kind: wrk printed no result; see $dir/wrk/$label-$kind.txt"
    if [[ -n "$m" ]]; then
      check_run "$line" "$size" "$label $kind" "$m" "$before"
    else
      check_run "$line" "$size" "$label $kind"
    fi
    results+=("$line")
    say "  $label $kind: $(field "$line" requests) responses, p50 $(field "$line" p50_us) us"
  done
}

# the admitted users' cookie as a browser holds it: the one the gateway last set (a client that
# ignores Set-Cookie keeps an old cookie whose renewal is re-sealed on every request)
fresh_cookie() {
  fetch renew "$open_url" -H "Cookie: $admitted_cookie" >/dev/null
  local renewed
  renewed=$(set_cookie renew __anteroom_open)
  [[ -n "$renewed" ]] && admitted_cookie=$renewed
  true
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
# warm-up: nginx briefly; Anteroom in rounds (admitted path, then both queue pages, so the JIT sees
# every measured path before any is measured) until the admitted path's and the queue page's rates
# each move less than 10% from one round to the next in two successive rounds, for at least
# WARMUP_S and at most WARMUP_MAX_S seconds. On a loaded machine the JIT needs far longer than a
# fixed 10 s (measured: a 1-core JVM still compiling after 30 s gave a tenth of its warm rate), and
# one steady step is not enough (run 39: 17.3k, 27.4k, 28.9k req/s was taken for steady, then the
# run measured 34.1k; run 38's warm-up went 25.4k, 48.4k, 42.9k, 43.0k).
rate() { awk -v r="$(field "$1" requests)" -v d="$(field "$1" duration_us)" 'BEGIN {printf "%.0f", r / (d / 1e6)}'; }
steady() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(b > 0 && a < b * 1.1 && a > b * 0.9)}'; }
say "warming up (nginx 2 s each; Anteroom in rounds of 5 + 3 + 3 s until steady, ${WARMUP_S}-${WARMUP_MAX_S} s)..."
run_wrk warmup-direct load 2 "$origin_url" "$admitted_cookie" >/dev/null
run_wrk warmup-proxy load 2 "$proxy_url" "$admitted_cookie" >/dev/null
warm=0
prev_admitted=0
prev_queue=0
steady_rounds=0
warm_rates=""
while :; do
  fresh_cookie # the JIT warms on the path the run measures: the cookie a browser holds
  a=$(rate "$(run_wrk warmup-admitted load 5 "$open_url" "$admitted_cookie")")
  q=$(rate "$(run_wrk warmup-queue load 3 "$full_url")")
  run_wrk warmup-requeue load 3 "$wait_url" "$queued_cookie" >/dev/null
  warm=$((warm + 11))
  warm_rates+="${warm_rates:+, }$a/$q"
  say "  after ${warm} s: admitted $a req/s, queue page $q req/s"
  if steady "$a" "$prev_admitted" && steady "$q" "$prev_queue"; then
    steady_rounds=$((steady_rounds + 1))
  else
    steady_rounds=0
  fi
  if ((warm >= WARMUP_S && steady_rounds >= 2)); then break; fi
  if ((warm >= WARMUP_MAX_S)); then
    say "WARNING: Anteroom's rates were still moving after ${warm} s of warm-up"
    break
  fi
  prev_admitted=$a
  prev_queue=$q
done
# Then the JIT's backlog: on 2 shared cores the compiler threads get little CPU while wrk, nginx
# and the event loops run, so compilations the warm-up queued may still be pending when the rates
# look steady. (Anteroom-first runs, which measured the gateway right after its warm-up, came out
# below nginx-first runs, which measure nginx for a minute in between: 0.75-0.82x against
# 0.82-1.10x in runs 34-42.) Wait until the idle gateway uses under 5 % of a core for two seconds
# in a row, at most QUIET_MAX_S seconds.
quiet=0
idle_rounds=0
hz=$(getconf CLK_TCK)
while ((quiet < QUIET_MAX_S && idle_rounds < 2)); do
  t0=$(cpu_ticks "$gw_pid")
  sleep 1
  t1=$(cpu_ticks "$gw_pid")
  quiet=$((quiet + 1))
  if (((t1 - t0) * 100 < 5 * hz)); then idle_rounds=$((idle_rounds + 1)); else idle_rounds=0; fi
done
((idle_rounds >= 2)) || say "WARNING: the gateway still used CPU ${quiet} s after its warm-up"
say "  the gateway went quiet ${quiet} s after its warm-up"

say "measuring (${DURATION_S} s per run, $ORDER)..."
# the nginx runs send the same cookie header as the admitted path: the same request bytes
measure_nginx() {
  measure nginx-direct "$origin_url" "$direct_size" "$admitted_cookie"
  measure nginx-proxy "$proxy_url" "$proxied_size" "$admitted_cookie"
}
[[ "$ORDER" == nginx-first ]] && measure_nginx
# bytes per response: between the page without Set-Cookie (still the cookie's minute) and with one
measure anteroom-admitted "$open_url" "$((admitted_size < first_size ? admitted_size : first_size))-$((admitted_size < first_size ? first_size : admitted_size))" "$admitted_cookie" "$m_admitted" "$gw_pid"
measure anteroom-queue "$full_url" "$queue_size" "" "$m_queued"
measure anteroom-queue-returning "$wait_url" "$requeue_size" "$queued_cookie" "$m_waiting"
[[ "$ORDER" == anteroom-first ]] && measure_nginx

if [[ "$REFERENCE" == 1 ]]; then
  # the same JDK as Anteroom (the launcher's pick), the bench module's classpath
  java_bin=$(readlink -f "/proc/$gw_pid/exe")
  ref_cp="$root/bench/target/classes:$(cat "$root/bench/target/classpath.txt")"
  for kind in vertx netty uring; do # uring: ReferenceProxy --kind netty-uring
    port_var=ref_${kind}_port
    "${server_cpu[@]}" "$java_bin" --enable-native-access=ALL-UNNAMED ${ANTEROOM_JAVA_OPTS} -cp "$ref_cp" \
      io.anteroom.bench.ReferenceProxy --kind "${kind/uring/netty-uring}" --port "${!port_var}" --origin-port "$origin_port" \
      >"$dir/logs/reference-$kind.log" 2>&1 &
    ref_pids+=($!)
    printf -v "ref_${kind}_pid" '%s' "$!"
    if ! wait_http "http://127.0.0.1:${!port_var}/open/" 60 "$!"; then
      if [[ "$kind" == uring ]] && grep -q 'io_uring is not available' "$dir/logs/reference-$kind.log"; then
        say "WARNING: io_uring is not available here; the reference-netty-uring run is left out"
        continue
      fi
      tail -20 "$dir/logs/reference-$kind.log" >&2
      die "reference proxy $kind did not start"
    fi
    read -r status size < <(fetch "reference-$kind" "http://127.0.0.1:${!port_var}/open/" -H "Cookie: $admitted_cookie")
    [[ "$status" == 200 ]] && is_origin_page "reference-$kind" \
      || die "reference proxy $kind did not return the origin's page (status $status)"
    printf -v "ref_${kind}_size" '%s' "$size"
    say "warming up reference proxy $kind (${WARMUP_S} s)..."
    run_wrk "warmup-reference-$kind" load "$WARMUP_S" "http://127.0.0.1:${!port_var}/open/" "$admitted_cookie" >/dev/null
  done
  measure reference-vertx "http://127.0.0.1:$ref_vertx_port/open/" "$ref_vertx_size" "$admitted_cookie" "" "$ref_vertx_pid"
  measure reference-netty "http://127.0.0.1:$ref_netty_port/open/" "$ref_netty_size" "$admitted_cookie" "" "$ref_netty_pid"
  if [[ -n "${ref_uring_size:-}" ]]; then
    measure reference-netty-uring "http://127.0.0.1:$ref_uring_port/open/" "$ref_uring_size" "$admitted_cookie" "" "$ref_uring_pid"
  fi
fi

# ---------------------------------------------------------------- rounds in rotating order
# A single pass measures each target once, at its place in the order, and the place moved the
# admitted/nginx ratio by up to 0.4 (0.75-0.82x when Anteroom ran first, 0.82-1.19x after nginx, in
# runs 34-47; pinned, the order did not matter). The rounds measure the targets again, each round
# starting one place further along the list, and report each round's ratios and their median.
# Every run starts early enough in a minute to end within it (the admitted cookie's minute, the
# same wait for every target) and the admitted run with the cookie the gateway last set.
round_targets=("nginx-proxy|$proxy_url|$proxied_size||"
  "anteroom-admitted|$open_url|$((admitted_size < first_size ? admitted_size : first_size))-$((admitted_size < first_size ? first_size : admitted_size))|$m_admitted|$gw_pid")
if [[ "$REFERENCE" == 1 ]]; then
  round_targets+=("reference-netty|http://127.0.0.1:$ref_netty_port/open/|$ref_netty_size||$ref_netty_pid")
  [[ -n "${ref_uring_size:-}" ]] \
    && round_targets+=("reference-netty-uring|http://127.0.0.1:$ref_uring_port/open/|$ref_uring_size||$ref_uring_pid")
fi
round_rows=() # "round label req/s cpu_us" per run
if ((ROUNDS > 0)); then
  say "rounds: $ROUNDS x ${#round_targets[@]} targets, ${ROUND_S} s each, rotating order..."
fi
for ((r = 1; r <= ROUNDS; r++)); do
  n=${#round_targets[@]}
  for ((i = 0; i < n; i++)); do
    IFS='|' read -r label url size m pid <<<"${round_targets[$(((r - 1 + i) % n))]}"
    fit_in_minute "$ROUND_S"
    cookie=$admitted_cookie
    if [[ "$label" == anteroom-admitted ]]; then
      fresh_cookie
      cookie=$admitted_cookie
    fi
    [[ -n "$m" ]] && before=$(metric "$m")
    [[ -n "$pid" ]] && ticks=$(cpu_ticks "$pid")
    line=$(run_wrk "round$r-$label" load "$ROUND_S" "$url" "$cookie")
    [[ -n "$line" ]] || die "round $r $label: wrk printed no result; see $dir/wrk/round$r-$label-load.txt"
    cpu_round=""
    if [[ -n "$pid" ]]; then
      cpu_round=$(awk -v t="$(($(cpu_ticks "$pid") - ticks))" -v hz="$(getconf CLK_TCK)" \
        -v r="$(field "$line" requests)" 'BEGIN {printf "%.1f", t / hz * 1e6 / (r > 0 ? r : 1)}')
    fi
    if [[ -n "$m" ]]; then
      check_run "$line" "$size" "round $r $label" "$m" "$before"
    else
      check_run "$line" "$size" "round $r $label"
    fi
    round_rows+=("$r $label $(rate "$line") ${cpu_round:--}")
    say "  round $r $label: $(rate "$line") req/s${cpu_round:+, $cpu_round µs CPU per request}"
  done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------- system calls per request
# syscalls LABEL URL COOKIE PID...: strace -c on every thread of the PIDs during a 3 s wrk run at 8
# connections; prints "LABEL requests total name=calls..." (the ten most frequent calls)
syscalls() {
  local label=$1 url=$2 cookie=$3 out="$dir/strace-$1.txt" targets=() p t line sp
  shift 3
  for p in "$@"; do for t in /proc/"$p"/task/*; do targets+=(-p "${t##*/}"); done; done
  strace -c -f -q -o "$out" "${targets[@]}" 2>/dev/null &
  sp=$!
  sleep 1 # strace attaches to each thread before the run starts
  line=$(timeout 40 wrk -t1 -c8 -d3s --timeout 5s -s "$here/report.lua" ${cookie:+-H "Cookie: $cookie"} "$url" \
    | { grep '^RESULT ' || true; })
  kill -INT "$sp" 2>/dev/null || true
  wait "$sp" 2>/dev/null || true
  [[ -s "$out" ]] || die "strace wrote nothing for $label"
  # strace -c columns: % time, seconds, usecs/call, calls, [errors,] syscall; per 10,000 requests
  local r
  r=$(field "$line" requests)
  echo "$label $r $(awk -v r="$r" '$NF == "total" {printf "%.0f", ($4 * 10000 / (r > 0 ? r : 1))}' "$out")" \
    "$(awk -v r="$r" '$1 ~ /^[0-9.]+$/ && $NF != "total" {printf "%d %s\n", ($4 * 10000 / (r > 0 ? r : 1)), $NF}' "$out" \
      | sort -rn | head -8 | awk '{printf "%s%s %s", (NR > 1 ? ", " : ""), $2, $1}')"
}
syscall_lines=()
if [[ "$SYSCALLS" == 1 ]]; then
  command -v strace >/dev/null || die "SYSCALLS=1 needs strace (apt-get install strace)"
  say "counting system calls (strace -c, 3 s per server at 8 connections)..."
  mapfile -t nginx_workers < <(pgrep -P "$(cat "$dir/nginx.pid")")
  syscall_lines+=("$(syscalls nginx-direct "$origin_url" "$admitted_cookie" "${nginx_workers[@]}")")
  syscall_lines+=("$(syscalls nginx-proxy "$proxy_url" "$admitted_cookie" "${nginx_workers[@]}")")
  fresh_cookie
  syscall_lines+=("$(syscalls anteroom-admitted "$open_url" "$admitted_cookie" "$gw_pid")")
  syscall_lines+=("$(syscalls anteroom-queue "$full_url" "" "$gw_pid")")
  if [[ "$REFERENCE" == 1 ]]; then
    syscall_lines+=("$(syscalls reference-vertx "http://127.0.0.1:$ref_vertx_port/open/" "$admitted_cookie" "$ref_vertx_pid")")
    syscall_lines+=("$(syscalls reference-netty "http://127.0.0.1:$ref_netty_port/open/" "$admitted_cookie" "$ref_netty_pid")")
    if [[ -n "${ref_uring_size:-}" ]]; then
      syscall_lines+=("$(syscalls reference-netty-uring "http://127.0.0.1:$ref_uring_port/open/" "$admitted_cookie" "$ref_uring_pid")")
    fi
  fi
fi

# ---------------------------------------------------------------- report
rps() { # rps LABEL: req/s of the load run
  local l
  for l in "${results[@]}"; do
    if [[ "$(field "$l" label)" == "$1" && "$(field "$l" kind)" == load ]]; then
      rate "$l"
    fi
  done
}
lat() { # lat LABEL KEY: a field of the latency run
  local l
  for l in "${results[@]}"; do
    if [[ "$(field "$l" label)" == "$1" && "$(field "$l" kind)" == latency ]]; then field "$l" "$2"; fi
  done
}
bad() { # bad LABEL: non-2xx responses + socket errors over both runs of LABEL
  local l n=0
  for l in "${results[@]}"; do
    if [[ "$(field "$l" label)" == "$1" ]]; then
      n=$((n + $(field "$l" status) + $(field "$l" connect) + $(field "$l" read) + $(field "$l" write) + $(field "$l" timeout)))
    fi
  done
  echo "$n"
}
cpu() { # cpu LABEL: CPU µs per request of the load run (the server's process only)
  local c
  for c in "${cpu_us[@]}"; do [[ "${c%%=*}" == "$1" ]] && echo "${c#*=}"; done
  true
}
# round_table: one row per round, the medians and the admitted path's verdict (bench/http/rounds.awk)
round_table() {
  printf '%s\n' "${round_rows[@]}" | awk -v targets="$(IFS=,; echo "${round_targets[*]%%|*}")" -f "$here/rounds.awk"
}
verdict() { awk -v v="$1" -v t="$2" -v op="$3" 'BEGIN {ok = op == ">=" ? v >= t : v <= t; print ok ? "met" : "**missed**"}'; }

jdk=$("$(readlink -f "/proc/$gw_pid/exe")" -version 2>&1 | head -1)
ratio=$(awk -v a="$(rps anteroom-admitted)" -v p="$(rps nginx-proxy)" 'BEGIN {printf "%.2f", a / p}')
added=$(($(lat anteroom-admitted p50_us) - $(lat nginx-proxy p50_us)))
queue_rps=$(rps anteroom-queue)
requeue_rps=$(rps anteroom-queue-returning)
queue_ratio=$(awk -v a="$queue_rps" -v p="$(rps nginx-proxy)" 'BEGIN {printf "%.2f", a / p}')
requeue_ratio=$(awk -v a="$requeue_rps" -v p="$(rps nginx-proxy)" 'BEGIN {printf "%.2f", a / p}')

{
  echo "Anteroom HTTP benchmark, $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) CPUs; $jdk; $("$NGINX" -v 2>&1 | sed 's/.*: //'); $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2)"
  if [[ "$PIN" == 1 ]]; then
    echo "pinning: wrk on CPU 0; nginx ($NGINX_WORKERS worker) and Anteroom on CPU 1"
  else
    echo "pinning: none; wrk, nginx ($NGINX_WORKERS workers) and Anteroom share all CPUs"
  fi
  echo "Anteroom warm-up: ${warm} s, then ${quiet} s until it was idle; admitted/queue-page req/s per round: $warm_rates"
  echo "load average before / after: $load_before / $load_after (shared machine: figures are noisy)"
  echo "order: $ORDER; req/s: wrk -t$LOAD_THREADS -c$LOAD_CONNECTIONS -d${DURATION_S}s; p50/p99: wrk -t1 -c$LATENCY_CONNECTIONS -d${DURATION_S}s --latency"
  echo
  echo "| target | req/s (c$LOAD_CONNECTIONS) | p50 µs (c$LATENCY_CONNECTIONS) | p99 µs (c$LATENCY_CONNECTIONS) | bytes/response | non-2xx + errors |"
  echo "|---|---:|---:|---:|---:|---:|"
  targets=(nginx-direct:"$direct_size" nginx-proxy:"$proxied_size" anteroom-admitted:"$admitted_size"
    anteroom-queue:"$queue_size" anteroom-queue-returning:"$requeue_size")
  [[ "$REFERENCE" == 1 ]] && targets+=(reference-vertx:"$ref_vertx_size" reference-netty:"$ref_netty_size")
  if [[ "$REFERENCE" == 1 && -n "${ref_uring_size:-}" ]]; then targets+=(reference-netty-uring:"$ref_uring_size"); fi
  for t in "${targets[@]}"; do
    label=${t%%:*}
    echo "| $label | $(rps "$label") | $(lat "$label" p50_us) | $(lat "$label" p99_us) | ${t#*:} | $(bad "$label") |"
  done
  echo
  echo "| target | measured | goal | |"
  echo "|---|---:|---:|---|"
  echo "| admitted path / nginx proxy, req/s | $ratio | ≥ 0.9 | $(verdict "$ratio" 0.9 '>=') |"
  echo "| added p50 latency vs nginx proxy, c$LATENCY_CONNECTIONS | $added µs | ≤ 60 µs | $(verdict "$added" 60 '<=') |"
  echo "| queue page (new arrivals) / nginx proxy, req/s | $queue_ratio | ≥ 2 | $(verdict "$queue_ratio" 2 '>=') |"
  echo "| queue page (returning queued users) / nginx proxy, req/s | $requeue_ratio | ≥ 2 | $(verdict "$requeue_ratio" 2 '>=') |"
  echo "| Anteroom CPU µs per admitted request (c$LOAD_CONNECTIONS) | $(cpu anteroom-admitted) | | |"
  if [[ "$REFERENCE" == 1 ]]; then
    cpu_ratio=$(awk -v a="$(cpu anteroom-admitted)" -v n="$(cpu reference-netty)" 'BEGIN {printf "%.2f", a / n}')
    echo "| CPU per admitted request / plain Netty proxy's ($(cpu reference-netty) µs) | $cpu_ratio | ≤ 1.2 | $(verdict "$cpu_ratio" 1.2 '<=') |"
  fi
  if [[ "$REFERENCE" == 1 ]]; then
    echo
    echo "| reference (no waiting room, not Anteroom) | req/s / nginx proxy | added p50 vs nginx proxy, c$LATENCY_CONNECTIONS | CPU µs/request |"
    echo "|---|---:|---:|---:|"
    for label in reference-vertx reference-netty ${ref_uring_size:+reference-netty-uring}; do
      echo "| $label | $(awk -v a="$(rps $label)" -v p="$(rps nginx-proxy)" 'BEGIN {printf "%.2f", a / p}') | $(($(lat $label p50_us) - $(lat nginx-proxy p50_us))) µs | $(cpu $label) |"
    done
  fi
  if ((ROUNDS > 0)); then
    echo
    echo "Rounds in rotating order (wrk -t$LOAD_THREADS -c$LOAD_CONNECTIONS -d${ROUND_S}s each; round r starts with the r-th target; req/s, CPU µs per request in brackets):"
    echo
    round_table
  fi
  if [[ "${#syscall_lines[@]}" -gt 0 ]]; then
    echo
    echo "System calls per 10,000 requests (strace -c on every thread of the server, wrk -t1 -c8 -d3s):"
    echo
    echo "| server | requests | calls per 10,000 requests | most frequent (per 10,000 requests) |"
    echo "|---|---:|---:|---|"
    for l in "${syscall_lines[@]}"; do
      read -r label requests total rest <<<"$l"
      echo "| $label | $requests | $total | $rest |"
    done
  fi
} | tee "${RESULTS:-/dev/null}"
