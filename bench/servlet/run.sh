#!/usr/bin/env bash
# The Servlet filter's benchmark (issue 44, "Performance"); results: docs/benchmarks.md
#
# One small Spring Boot (Tomcat) endpoint, GET /hello (io.anteroom.bench.servlet.Endpoint), started
# twice in one run on 127.0.0.1: "bare" (no anteroom.config: the starter does nothing) and
# "filter" (anteroom-spring-boot-starter with a room far above the load). wrk at 64 connections
# against each, in rotating rounds (the order changes every round); the filter's rounds send an
# admitted user's ticket cookie, obtained by one request first, fetched again before each round
# and started early enough in a minute to end within it (as bench/http does: wrk would keep a
# cookie past its minute, which a browser does not); the bare app's and the reference's windows
# are placed in the minute by the same rule, so that every server is measured in alike seconds. Each round: a load window at 64 connections
# (req/s; its p50 is mostly time spent queued behind the other 63) and a latency window at 4
# connections, 1 wrk thread (p50, as bench/http measures the gateway's added latency) and one at a
# single connection (the p50 of a request that waits behind no other). Prints
# every round, the medians of the per-round req/s ratio (target >= 0.95x) and of the added p50 at
# each concurrency (target <= 20 us), for the filter and the reference.
#
# The bare rounds send the same request as the filter's, admitted cookie included (BARE_COOKIE=1,
# as bench/http's nginx baselines get the gateway's cookie): what is compared is the filter's own
# work. BARE_COOKIE=0 sends the bare app no cookie (the runs before 2026-11-29 10:00 UTC), so the
# filter's side also pays for Tomcat parsing the longer request head. Each fetch of the filter's
# cookie (curl, without a cookie) is sent to the servers without the filter too, so that every JVM
# meets the same requests (2026-12-01, run 26).
#
# Usage: bench/servlet/run.sh            (builds the module first; JDK 21+ found as ./mvnw does;
#   installs wrk, curl and python3 when missing, as root)
# Environment: ROUNDS [6]  DURATION_S [10]  LATENCY_S [5]  WARMUP_S [90] (per server, in 10 s
#   windows)  CONNECTIONS [64]  THREADS [2]  LATENCY_CONNECTIONS [4]  BARE_COOKIE [1]
#   REFERENCE [1]: a third server, the same app behind a reference filter that only wraps the
#   request and the response and sets two headers (io.anteroom.bench.servlet.WrappersOnly): what
#   any filter with the door's duties pays to the Servlet API, apart from the door's own work.
#   The order of the servers rotates every round.
#   COST [0]: 1 measures CPU per request instead, every server loaded at once (one wrk each,
#   -t1 -cCONNECTIONS, DURATION_S per round): the machine's drift then hits every server alike,
#   which the windows one after another cannot give (their rounds move by 10 % here).
#   VARIANT_ROOT []: another checkout (a throwaway build to compare, e.g. with a switch), built as
#   this one is: its filter app joins as the server "variant", with its own data directory, so its
#   own keys and its own admitted user's cookie (fetched from it, never the filter's: a cookie its
#   keys do not open makes every request a new user's). VARIANT_OPTS [] adds JVM options to it.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ROUNDS=${ROUNDS:-6} DURATION_S=${DURATION_S:-10} LATENCY_S=${LATENCY_S:-5} WARMUP_S=${WARMUP_S:-90}
CONNECTIONS=${CONNECTIONS:-64} THREADS=${THREADS:-2} LATENCY_CONNECTIONS=${LATENCY_CONNECTIONS:-4}
BARE_COOKIE=${BARE_COOKIE:-1} REFERENCE=${REFERENCE:-1} COST=${COST:-0}
VARIANT_ROOT=${VARIANT_ROOT:-} VARIANT_OPTS=${VARIANT_OPTS:-}
java=""
for j in "${JAVA_HOME:-}/bin/java" /usr/lib/jvm/*/bin/java; do
  [[ -x "$j" ]] || continue
  v=$("$j" -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/{print $2}')
  if [[ "${v%%.*}" -ge 21 ]]; then java="$j"; break; fi
done
[[ -n "$java" ]] || { echo "bench/servlet: no JDK 21+ found" >&2; exit 1; }
missing=()
for tool in wrk curl python3; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if ((${#missing[@]})); then # as bench/http/run.sh: root installs what is missing, anyone else is told
  [[ $EUID -eq 0 ]] || { echo "bench/servlet: missing ${missing[*]}; run as root to install them, or apt-get install ${missing[*]}" >&2; exit 1; }
  echo "bench/servlet: installing ${missing[*]}..." >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

(cd "$root" && ./mvnw -B -q -o -pl bench/servlet -am package -DskipTests) >&2
cp="$(cat "$root/bench/servlet/target/classpath.txt"):$root/bench/servlet/target/classes"
work="$(mktemp -d)"
ref_pid="" variant_pid=""
trap 'kill $bare_pid $filter_pid $ref_pid $variant_pid 2>/dev/null || true; rm -rf "$work"' EXIT
cat > "$work/anteroom.yaml" <<YAML
dataDir: $work/data
rooms: [ { id: shop, totalActiveUsers: 1000000, newUsersPerMinute: 1000000, sessionDurationMinutes: 60 } ]
YAML
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
bare_port=$(free_port); filter_port=$(free_port); ref_port=$(free_port); variant_port=$(free_port)
jvm=(-Xms512m -Xmx512m -XX:+UseParallelGC)
"$java" "${jvm[@]}" -cp "$cp" io.anteroom.bench.servlet.Endpoint --server.port="$bare_port" \
  --server.address=127.0.0.1 --logging.level.root=WARN > "$work/bare.log" 2>&1 & bare_pid=$!
"$java" "${jvm[@]}" -cp "$cp" io.anteroom.bench.servlet.Endpoint --server.port="$filter_port" \
  --server.address=127.0.0.1 --logging.level.root=WARN --anteroom.config="$work/anteroom.yaml" \
  > "$work/filter.log" 2>&1 & filter_pid=$!
if [[ "$REFERENCE" == 1 ]]; then
  "$java" "${jvm[@]}" -cp "$cp" io.anteroom.bench.servlet.Endpoint --server.port="$ref_port" \
    --server.address=127.0.0.1 --logging.level.root=WARN --bench.reference=wrappers \
    > "$work/ref.log" 2>&1 & ref_pid=$!
fi
if [[ -n "$VARIANT_ROOT" ]]; then
  (cd "$VARIANT_ROOT" && ./mvnw -B -q -o -pl bench/servlet -am package -DskipTests) >&2
  sed "s|$work/data|$work/variant-data|" "$work/anteroom.yaml" > "$work/variant.yaml"
  # shellcheck disable=SC2086 # VARIANT_OPTS is a list of JVM options
  "$java" "${jvm[@]}" $VARIANT_OPTS \
    -cp "$(cat "$VARIANT_ROOT/bench/servlet/target/classpath.txt"):$VARIANT_ROOT/bench/servlet/target/classes" \
    io.anteroom.bench.servlet.Endpoint --server.port="$variant_port" --server.address=127.0.0.1 \
    --logging.level.root=WARN --anteroom.config="$work/variant.yaml" > "$work/variant.log" 2>&1 &
  variant_pid=$!
fi
for p in "$bare_port" "$filter_port" ${ref_pid:+"$ref_port"} ${variant_pid:+"$variant_port"}; do
  for _ in $(seq 1 120); do curl -fs -o /dev/null "http://127.0.0.1:$p/hello" && break; sleep 0.5; done
done

cookie() { # an admitted user's ticket cookie, as the filter (or the server on port $1) set it
  curl -s -D - -o /dev/null "http://127.0.0.1:${1:-$filter_port}/hello" |
    awk 'tolower($1)=="set-cookie:" && $2 ~ /^__anteroom_shop=/ {sub(/;.*/,"",$2); print $2; exit}' | tr -d '\r'
}
newcomer() { # the request cookie() sends, to a server without the filter (its answer unused): every
  # server gets the same requests, so that the one that fetches cookies is not the only one whose
  # compiled code meets curl's request (2026-12-01: in the filter's JVM alone, each fetch deoptimised
  # Spring's content negotiation, compiled for wrk's requests; MediaType.<init> class_check traps)
  curl -s -D - -o /dev/null "http://127.0.0.1:$1/hello" > /dev/null
}
within_minute() { # wait until a window of $1 s ends within the current minute
  local s; s=$(date +%-S); if (( s + $1 + 2 > 59 )); then sleep $((61 - s)); fi
}
run_wrk() { # $1 port $2 seconds $3 threads $4 connections [$5 cookie] -> "req/s p50_us non2xx"
  local args=(-t"$3" -c"$4" -d"$2"s --latency)
  [[ -n "${5:-}" ]] && args+=(-H "Cookie: $5")
  wrk "${args[@]}" "http://127.0.0.1:$1/hello" | awk '
    /Requests\/sec/ {rps=$2}
    /^ +50%/ {v=$2; if (v ~ /us$/) {sub(/us/,"",v)} else if (v ~ /ms$/) {sub(/ms/,"",v); v*=1000} else if (v ~ /s$/) {sub(/s/,"",v); v*=1e6}; p50=v}
    /Non-2xx/ {bad=$NF}
    END {printf "%s %s %s\n", rps, p50, (bad==""?0:bad)}'
}
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
c=$(cookie); [[ -n "$c" ]] || { echo "bench/servlet: the filter set no ticket cookie" >&2; exit 1; }
newcomer "$bare_port"; if [[ "$REFERENCE" == 1 ]]; then newcomer "$ref_port"; fi
curl -fs -H "Cookie: $c" "http://127.0.0.1:$filter_port/hello" | grep -q hello ||
  { echo "bench/servlet: the cookie was not admitted" >&2; exit 1; }
bare_cookie() { if [[ "$BARE_COOKIE" == 1 ]]; then echo "$c"; fi; } # the filter's, as last fetched
vc=""
if [[ -n "$VARIANT_ROOT" ]]; then # the variant must be measured on the admitted path too
  vc=$(cookie "$variant_port")
  if [[ -z "$vc" ]] || curl -s -D - -o /dev/null -H "Cookie: $vc" "http://127.0.0.1:$variant_port/hello" |
    grep -qi '^set-cookie: __anteroom_shop='; then
    echo "bench/servlet: the variant's own cookie is not admitted quietly (see $work/variant.log)" >&2; exit 1
  fi
fi
cookie_of() { # $1 server name, $2 its port -> the cookie its requests carry (fetched afresh for the
  # filters; the others get the same request, its answer unused)
  case "$1" in
    filter) cookie ;;
    variant) cookie "$variant_port" ;;
    *) newcomer "$2"; bare_cookie ;;
  esac
}
load() { run_wrk "$1" "$DURATION_S" "$THREADS" "$CONNECTIONS" "${2:-}"; }
latency() { run_wrk "$1" "$LATENCY_S" 1 "$LATENCY_CONNECTIONS" "${2:-}"; }
echo "warm-up: ${WARMUP_S} s each, alternating 10 s windows" >&2
for _ in $(seq 1 $(( (WARMUP_S + 9) / 10 ))); do
  newcomer "$bare_port"; run_wrk "$bare_port" 10 "$THREADS" "$CONNECTIONS" "$(bare_cookie)" > /dev/null
  within_minute 10; c=$(cookie); run_wrk "$filter_port" 10 "$THREADS" "$CONNECTIONS" "$c" > /dev/null
  if [[ "$REFERENCE" == 1 ]]; then
    newcomer "$ref_port"; run_wrk "$ref_port" 10 "$THREADS" "$CONNECTIONS" "$(bare_cookie)" > /dev/null
  fi
  if [[ -n "$VARIANT_ROOT" ]]; then
    within_minute 10; run_wrk "$variant_port" 10 "$THREADS" "$CONNECTIONS" "$(cookie_of variant)" > /dev/null
  fi
done

names=(bare filter); ports=("$bare_port" "$filter_port"); pids=("$bare_pid" "$filter_pid")
if [[ "$REFERENCE" == 1 ]]; then names+=(wrappers); ports+=("$ref_port"); pids+=("$ref_pid"); fi
if [[ -n "$VARIANT_ROOT" ]]; then names+=(variant); ports+=("$variant_port"); pids+=("$variant_pid"); fi

sort_median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

if [[ "$COST" == 1 ]]; then
  # CPU per request, every server loaded at once: one wrk (1 thread, CONNECTIONS connections) per
  # server for DURATION_S, all started together, and each server's CPU time (/proc/PID/stat) over
  # its answered requests. The machine's drift hits every server alike within a round; req/s are
  # not compared here (the scheduler's shares between the JVMs are not controlled), CPU per request
  # is: for a server bound by CPU, about as the req/s ratio alone would be (wrk's own CPU aside).
  cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }
  echo "| round | $(printf '%s CPU µs/req | ' "${names[@]}")$(printf 'bare/%s | ' "${names[@]:1}")"
  echo "|---|$(printf -- '---|%.0s' "${names[@]}")$(printf -- '---|%.0s' "${names[@]:1}")"
  hz=$(getconf CLK_TCK); : > "$work/costs"
  for r in $(seq 1 "$ROUNDS"); do
    within_minute "$DURATION_S"; c=$(cookie); declare -A before=() sent=(); waits=()
    for i in "${!names[@]}"; do # one request without a cookie each (the filter's was the fetch)
      if [[ "${names[$i]}" == filter ]]; then sent[$i]="$c"; else sent[$i]=$(cookie_of "${names[$i]}" "${ports[$i]}"); fi
    done
    for i in "${!names[@]}"; do before[$i]=$(cpu_ticks "${pids[$i]}"); done
    for i in "${!names[@]}"; do
      cookie_value="${sent[$i]}"
      run_wrk "${ports[$i]}" "$DURATION_S" 1 "$CONNECTIONS" "$cookie_value" > "$work/cost.$i" &
      waits+=($!)
    done
    wait "${waits[@]}"
    line="| $r |"; costs=()
    for i in "${!names[@]}"; do
      read -r rps _ bad < "$work/cost.$i"
      if [[ "$bad" != 0 ]]; then echo "round $r, ${names[$i]}: $bad non-2xx answers" >&2; fi
      costs[$i]=$(awk -v t="$(( $(cpu_ticks "${pids[$i]}") - ${before[$i]} ))" -v hz="$hz" \
        -v n="$rps" -v d="$DURATION_S" 'BEGIN {printf "%.2f", t / hz * 1e6 / (n * d)}')
      line="$line ${costs[$i]} |"
    done
    for i in $(seq 1 $((${#names[@]} - 1))); do
      ratio=$(awk -v b="${costs[0]}" -v x="${costs[$i]}" 'BEGIN {printf "%.3f", b / x}')
      line="$line $ratio× |"; echo "${names[$i]} $ratio" >> "$work/costs"
    done
    echo "$line"
  done
  for name in "${names[@]:1}"; do
    printf 'median over %d rounds, %s: CPU per request, bare/%s %s× (the req/s ratio of a server bound by CPU)\n' \
      "$ROUNDS" "$name" "$name" "$(awk -v s="$name" '$1 == s {print $2}' "$work/costs" | sort_median)"
  done
  echo "(all servers at once: wrk -t1 -c$CONNECTIONS -d${DURATION_S}s each; $("$java" -version 2>&1 | head -1); $(nproc) CPUs; load average before: $load_before)"
  exit 0
fi
measure() { # $1 index into names -> "req/s p50 p50_at_LATENCY_CONNECTIONS p50_at_1 non2xx"
  local cookie_value
  # every server's windows are placed alike in the minute (the filter's must end within the
  # minute of its cookie): a window that starts at a minute's first second for one server only
  # would compare unlike seconds (2026-11-30: windows from second 1 ran 3-9 % below windows from
  # second 30 on this machine, the bare app's included)
  within_minute $((DURATION_S + 2 * LATENCY_S + 2))
  cookie_value=$(cookie_of "${names[$1]}" "${ports[$1]}")
  local l t u; l=$(load "${ports[$1]}" "$cookie_value"); t=$(latency "${ports[$1]}" "$cookie_value")
  u=$(run_wrk "${ports[$1]}" "$LATENCY_S" 1 1 "$cookie_value")
  read -r rps p50 bad <<< "$l"; read -r _ lp50 lbad <<< "$t"; read -r _ up50 ubad <<< "$u"
  echo "$rps $p50 $lp50 $up50 $((bad + lbad + ubad))"
}
echo "| round | server (order) | req/s | ratio to bare | p50 at $CONNECTIONS µs | added | p50 at $LATENCY_CONNECTIONS µs | added | p50 at 1 µs | added |"
echo "|---|---|---|---|---|---|---|---|---|---|"
: > "$work/rounds"
for r in $(seq 1 "$ROUNDS"); do
  c=$(cookie); n=${#names[@]}; declare -A got=() place=()
  for i in "${!names[@]}"; do # the same request to the servers without the filter (the variant's
    # own fetch is in measure, as the filter's second)
    case "${names[$i]}" in filter | variant) ;; *) newcomer "${ports[$i]}" ;; esac
  done
  for k in $(seq 0 $((n - 1))); do
    i=$(( (k + r - 1) % n )); place[${names[$i]}]=$((k + 1))
    got[${names[$i]}]=$(measure "$i")
  done
  read -r brps bp50 blp50 bup50 _ <<< "${got[bare]}"
  for name in "${names[@]}"; do
    read -r rps p50 lp50 up50 bad <<< "${got[$name]}"
    if [[ "$bad" != 0 ]]; then echo "round $r, $name: $bad non-2xx answers" >&2; fi
    echo "$name $brps $rps $bp50 $p50 $blp50 $lp50 $bup50 $up50" >> "$work/rounds"
    awk -v r="$r" -v s="$name (${place[$name]})" -v b="$brps" -v x="$rps" -v bp="$bp50" -v xp="$p50" \
      -v blp="$blp50" -v xlp="$lp50" -v bup="$bup50" -v xup="$up50" \
      'BEGIN {printf "| %d | %s | %.0f | %.3f× | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f |\n", r, s, x, x/b, xp, xp-bp, xlp, xlp-blp, xup, xup-bup}'
  done
done
median_of() { # $1 server, $2 awk expression over: b x bp xp blp xlp bup xup
  awk -v s="$1" '$1 == s {b=$2; x=$3; bp=$4; xp=$5; blp=$6; xlp=$7; bup=$8; xup=$9; print '"$2"'}' "$work/rounds" | sort_median
}
echo
for name in "${names[@]:1}"; do
  printf 'median over %d rounds, %s: req/s ratio to bare %.3f× (target >= 0.95×); added p50 %.0f µs at %d connections, %.0f µs at %d, %.0f µs at 1 (target <= 20 µs)\n' \
    "$ROUNDS" "$name" "$(median_of "$name" 'x/b')" "$(median_of "$name" 'xp-bp')" "$CONNECTIONS" \
    "$(median_of "$name" 'xlp-blp')" "$LATENCY_CONNECTIONS" "$(median_of "$name" 'xup-bup')"
done
echo "(bare rounds with the filter's cookie: BARE_COOKIE=$BARE_COOKIE; load: wrk -t$THREADS -c$CONNECTIONS -d${DURATION_S}s; latency: wrk -t1 -c$LATENCY_CONNECTIONS -d${LATENCY_S}s; $("$java" -version 2>&1 | head -1); $(nproc) CPUs; load average before: $load_before)"
