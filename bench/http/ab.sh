#!/usr/bin/env bash
# A/B of two gateway variants, both running at once in front of the same nginx origin, with the
# nginx reverse proxy measured in every round beside them (docs/benchmarks-http.md, "A/B runs").
# run.sh measures one build; this script compares two (builds, or JVM options of one build) in
# alternating rounds, so the machine's drift during the run falls on both alike.
#
# Per round, for the nginx proxy and then each variant in turn (B first in even rounds):
#   admitted   room "open", every request with that variant's admitted cookie: req/s and
#              CPU µs per request of the gateway process (/proc/<pid>/stat)
#   new        room "full" (queueAll), no cookie: the queue page for a new arrival
#   returning  room "wait", a queued user's ticket cookie: the queue page for a returning user
# each `wrk -t2 -c64 -d${SECONDS_PER}s`, after WARMUP_S seconds of warm-up per variant.
# With LATENCY=1, each round then also takes the p50 at 4 connections (`wrk -t1 -c4 --latency`)
# of the nginx proxy and of each variant's admitted path: the "added p50" of issue 14.
#
# Usage:  bench/http/ab.sh
# Environment (defaults in brackets):
#   A_HOME, B_HOME  [the repository's build, ./anteroom]  an unpacked distribution (its bin/anteroom)
#   A_OPTS, B_OPTS  [empty]      JVM options of each variant (ANTEROOM_JAVA_OPTS)
#   A_NAME, B_NAME  [A, B]       labels in the table
#   ROUNDS [4]  SECONDS_PER [8]  WARMUP_S [40]  MAX_SECONDS [1200] hard bound of the whole run
#   KEEP [0]        1 keeps the temp dir (logs)
#   LATENCY [0]     1 adds the p50 at 4 connections of the nginx proxy and each admitted path
# Before measuring it checks that each variant's admitted cookie gets the origin's page and that
# its queue rooms do not; a wrk run with non-2xx answers or socket errors stops the script.
# Needs nginx, wrk and curl (run.sh installs them).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
SCRIPT=bench/http/ab
# shellcheck source=lib.sh
source "$here/lib.sh"
ROUNDS=${ROUNDS:-4}
SECONDS_PER=${SECONDS_PER:-8}
WARMUP_S=${WARMUP_S:-40}
MAX_SECONDS=${MAX_SECONDS:-1200}
KEEP=${KEEP:-0}
LATENCY=${LATENCY:-0}
A_NAME=${A_NAME:-A}
B_NAME=${B_NAME:-B}
positive_whole ROUNDS SECONDS_PER WARMUP_S MAX_SECONDS
[[ "$LATENCY" == 0 || "$LATENCY" == 1 ]] || die "LATENCY=$LATENCY: use 1 (also measure the p50 at 4 connections) or 0"
[[ "$KEEP" == 0 || "$KEEP" == 1 ]] || die "KEEP=$KEEP: use 1 (keep the logs) or 0"
((SECONDS_PER <= 50)) || say "WARNING: SECONDS_PER=$SECONDS_PER: an admitted run this long cannot end within the minute its cookie was set in; after the boundary wrk keeps the old cookie and every request is re-sealed"
for tool in wrk curl; do command -v "$tool" >/dev/null || die "missing $tool (bench/http/run.sh installs it)"; done
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x "$NGINX" ]] || die "missing nginx (bench/http/run.sh installs it)"
launcher() { # launcher HOME: the command that starts that variant
  if [[ -z "$1" ]]; then echo "$root/anteroom"; else
    [[ -x "$1/bin/anteroom" ]] || die "$1/bin/anteroom is not an unpacked distribution"
    echo "$1/bin/anteroom"
  fi
}
a_cmd=$(launcher "${A_HOME:-}")
b_cmd=$(launcher "${B_HOME:-}")

dir="$(mktemp -d /tmp/anteroom-ab.XXXXXX)"
mkdir -p "$dir"/{www,logs,tmp}
chmod 755 "$dir" "$dir/www"
pids=()
cleanup() {
  local rc=$? p
  trap - EXIT INT TERM HUP
  set +e # clean up all of it: a process already gone (the watchdog that fired) is not an error
  [[ -n "${watchdog_pid:-}" ]] && kill "$watchdog_pid" 2>/dev/null
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do timeout 20 tail --pid="$p" -f /dev/null || kill -KILL "$p" 2>/dev/null || true; done
  [[ -s "$dir/nginx.pid" ]] && kill -TERM "$(cat "$dir/nginx.pid")" 2>/dev/null
  if [[ "$KEEP" == 1 || $rc -ne 0 ]]; then say "$SCRIPT: logs kept in $dir"; else rm -rf "$dir"; fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
start_watchdog "$MAX_SECONDS"

free_port origin_port
free_port proxy_port
head -c 1024 /dev/zero | tr '\0' x >"$dir/www/page.html"
sed -e "s#@DIR@#$dir#g" -e "s#@ORIGIN_PORT@#$origin_port#g" -e "s#@PROXY_PORT@#$proxy_port#g" \
  -e "s#@WORKERS@#$(nproc)#g" "$here/nginx.conf.template" >"$dir/nginx.conf"
"$NGINX" -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" || die "nginx did not start"

wait_http() { # wait_http URL SECONDS PID
  local waited=0
  until curl -s -o /dev/null --max-time 2 "$1"; do
    kill -0 "$3" 2>/dev/null || return 1
    ((waited < $2 * 5)) || return 1
    sleep 0.2
    waited=$((waited + 1))
  done
}

set_cookie() { # set_cookie NAME: "name=value" of the last saved response's Set-Cookie
  grep -i "^set-cookie: $1=" "$dir/h" | head -1 | sed -e 's/^[^:]*: *//' -e 's/;.*//' | tr -d '\r' || true
}
declare -A port pid cmd opts cookie queued
cmd[A]=$a_cmd; cmd[B]=$b_cmd; opts[A]=${A_OPTS:-}; opts[B]=${B_OPTS:-}
[[ -z "${A_HOME:-}" || -z "${B_HOME:-}" ]] && { (cd "$root" && timeout 900 ./anteroom --help >/dev/null) || die "./anteroom did not build"; }
for v in A B; do
  free_port port_tmp
  port[$v]=$port_tmp
  free_port admin
  gateway_yaml "${port[$v]}" "$origin_port" "$dir/data-$v" "$admin" "ab-$RANDOM$RANDOM$RANDOM$RANDOM" >"$dir/$v.yaml"
  ANTEROOM_JAVA_OPTS="${opts[$v]}" "${cmd[$v]}" run --config "$dir/$v.yaml" >"$dir/logs/$v.log" 2>&1 &
  pid[$v]=$!
  pids+=("${pid[$v]}")
done
for v in A B; do
  wait_http "http://127.0.0.1:${port[$v]}/full/" 90 "${pid[$v]}" || { tail -20 "$dir/logs/$v.log" >&2; die "variant $v did not start"; }
  # the launcher execs the JVM, so the PID is the gateway's
  curl -s --max-time 5 -D "$dir/h" -o /dev/null "http://127.0.0.1:${port[$v]}/open/"
  cookie[$v]=$(set_cookie __anteroom_open)
  curl -s --max-time 5 -o /dev/null "http://127.0.0.1:${port[$v]}/wait/"
  curl -s --max-time 5 -D "$dir/h" -o /dev/null "http://127.0.0.1:${port[$v]}/wait/"
  queued[$v]=$(set_cookie __anteroom_wait)
  [[ -n "${cookie[$v]}" && -n "${queued[$v]}" ]] || die "variant $v gave no admitted or no queued cookie"
  # what each target measures: the admitted cookie gets the origin's page, the queue rooms do not
  curl -s --max-time 5 -o "$dir/b" -H "Cookie: ${cookie[$v]}" "http://127.0.0.1:${port[$v]}/open/"
  cmp -s "$dir/b" "$dir/www/page.html" || die "variant $v: the admitted cookie did not get the origin's page"
  for q in full wait; do
    curl -s --max-time 5 -o "$dir/b" -H "Cookie: ${queued[$v]}" "http://127.0.0.1:${port[$v]}/$q/"
    ! cmp -s "$dir/b" "$dir/www/page.html" || die "variant $v: room $q let a queued user through"
  done
done

rps() { awk '/Requests\/sec/ {printf "%.0f", $2}'; }
ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
wrk_run() { # wrk_run URL COOKIE WRK_OPTION...: wrk's output, logged; stops on errors
  local url=$1 cookie=$2 out
  shift 2
  local args=(-d"${SECONDS_PER}s" --timeout 5s "$@")
  [[ -n "$cookie" ]] && args+=(-H "Cookie: $cookie")
  out=$(timeout $((SECONDS_PER + 30)) wrk "${args[@]}" "$url") || die "wrk failed on $url"
  printf '%s\n' "$out" >>"$dir/logs/wrk.txt"
  # a run with errors or non-2xx answers measured something else: stop rather than report it
  if grep -qE 'Non-2xx|Socket errors' <<<"$out"; then
    die "wrk on $url: $(grep -E 'Non-2xx|Socket errors' <<<"$out" | tr -s ' ')"
  fi
  printf '%s\n' "$out"
}
measured() { # measured WHAT URL: passes a figure through; stops when wrk printed none
  local v
  v=$(cat)
  [[ "$v" =~ ^[0-9]+$ ]] || die "wrk printed no $1 for $2; see $dir/logs/wrk.txt"
  echo "$v"
}
run() { # run URL [COOKIE]: req/s of one wrk run at 64 connections
  wrk_run "$1" "${2:-}" -t2 -c64 | rps | measured req/s "$1"
}
p50() { # p50 URL [COOKIE]: median latency in µs at 4 connections
  wrk_run "$1" "${2:-}" -t1 -c4 --latency -s "$here/report.lua" |
    sed -n 's/^RESULT .* p50_us=\([0-9]*\) .*/\1/p' | measured p50 "$1"
}
browser_cookie() { # browser_cookie VARIANT: the admitted cookie the gateway set last
  # as a browser holds it (re-sealed once its minute is over), for a run that ends within the
  # cookie's minute (wrk keeps the cookie it starts with)
  local v=$1 fresh
  fit_in_minute "$SECONDS_PER"
  curl -s --max-time 5 -D "$dir/h" -o /dev/null -H "Cookie: ${cookie[$v]}" "http://127.0.0.1:${port[$v]}/open/"
  fresh=$(set_cookie __anteroom_open)
  echo "${fresh:-${cookie[$v]}}"
}
admitted() { # admitted VARIANT: "req/s cpu_us_per_request"
  local v=$1 t0 r t1 c
  c=$(browser_cookie "$v")
  t0=$(ticks "${pid[$v]}")
  r=$(run "http://127.0.0.1:${port[$v]}/open/" "$c")
  t1=$(ticks "${pid[$v]}")
  echo "$r $(awk -v t=$((t1 - t0)) -v hz="$hz" -v r="$r" -v d="$SECONDS_PER" 'BEGIN {printf "%.1f", t / hz * 1e6 / (r * d > 0 ? r * d : 1)}')"
}
admitted_p50() { # admitted_p50 VARIANT: p50 of its admitted path, with the browser's cookie
  p50 "http://127.0.0.1:${port[$1]}/open/" "$(browser_cookie "$1")"
}

say "warming up each variant for ${WARMUP_S} s..."
for v in A B; do
  end=$((SECONDS + WARMUP_S))
  while ((SECONDS < end)); do
    admitted "$v" >/dev/null
    run "http://127.0.0.1:${port[$v]}/full/" >/dev/null
    run "http://127.0.0.1:${port[$v]}/wait/" "${queued[$v]}" >/dev/null
  done
done

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
rows=()
lat_rows=()
for r in $(seq "$ROUNDS"); do
  order=(A B); ((r % 2 == 0)) && order=(B A)
  np=$(run "http://127.0.0.1:$proxy_port/open/")
  line="| $r | $np"
  declare -A cell=()
  for v in "${order[@]}"; do
    read -r ar acpu < <(admitted "$v")
    [[ -n "${ar:-}" && -n "${acpu:-}" ]] || die "round $r, variant $v: the admitted run gave no figure"
    nr=$(run "http://127.0.0.1:${port[$v]}/full/")
    rr=$(run "http://127.0.0.1:${port[$v]}/wait/" "${queued[$v]}")
    cell[$v]="$ar ($acpu µs) | $nr | $rr"
    say "  round $r $v: admitted $ar req/s at $acpu µs CPU each, new $nr, returning $rr (nginx proxy $np)"
  done
  rows+=("$line | ${cell[A]} | ${cell[B]} |")
  if [[ "$LATENCY" == 1 ]]; then
    np50=$(p50 "http://127.0.0.1:$proxy_port/open/")
    declare -A lat=()
    for v in "${order[@]}"; do
      lat[$v]=$(admitted_p50 "$v")
      say "  round $r $v: admitted p50 ${lat[$v]} µs at 4 connections (nginx proxy ${np50} µs)"
    done
    lat_rows+=("| $r | $np50 | ${lat[A]} | $((lat[A] - np50)) | ${lat[B]} | $((lat[B] - np50)) |")
  fi
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo
echo "A = $A_NAME (${A_HOME:-this checkout}${A_OPTS:+, $A_OPTS}); B = $B_NAME (${B_HOME:-this checkout}${B_OPTS:+, $B_OPTS})"
echo "$(date -u +%FT%TZ), load average $load_before before, $load_after after; wrk -t2 -c64 -d${SECONDS_PER}s, warm-up ${WARMUP_S} s each"
echo
echo "| round | nginx proxy req/s | $A_NAME admitted req/s (CPU/req) | $A_NAME queue new | $A_NAME queue returning | $B_NAME admitted req/s (CPU/req) | $B_NAME queue new | $B_NAME queue returning |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${rows[@]}"
if [[ "$LATENCY" == 1 ]]; then
  echo
  echo "p50 at 4 connections (wrk -t1 -c4 -d${SECONDS_PER}s --latency), µs; added = the admitted path's p50 minus the nginx proxy's of the same round:"
  echo
  echo "| round | nginx proxy p50 | $A_NAME admitted p50 | $A_NAME added | $B_NAME admitted p50 | $B_NAME added |"
  echo "|---|---:|---:|---:|---:|---:|"
  printf '%s\n' "${lat_rows[@]}"
fi
