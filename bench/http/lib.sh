# Shared by bench/http/run.sh and bench/http/ab.sh (sourced, not run); each sets SCRIPT first.

say() { printf '%s\n' "$*" >&2; }
die() { say "$SCRIPT: $*"; exit 1; }

# positive_whole VAR...: stops unless each named variable holds a positive whole number
positive_whole() {
  local v
  for v in "$@"; do
    [[ "${!v}" =~ ^[1-9][0-9]*$ ]] || die "$v=${!v} is not a positive whole number"
  done
}

# free_port VAR: sets VAR to a port nobody listens on and not handed out before in this run, below
# the ephemeral range (32768+), where a client socket of an earlier run may still hold it
taken=" "
free_port() {
  local p
  for _ in $(seq 200); do
    p=$((20000 + RANDOM % 12000))
    [[ "$taken" == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      taken+="$p "
      printf -v "$1" '%s' "$p"
      return
    fi
  done
  die "found no free port on 127.0.0.1"
}

# fit_in_minute SECONDS: returns when a run of SECONDS can start and end within the current minute
# (at once, or after sleeping into the next one); runs longer than 50 s never wait.
# A browser takes the cookie the gateway sets when the old one's minute is over; wrk keeps sending
# the cookie it started with, so after a minute boundary it is a client that ignores Set-Cookie,
# whose every request is re-sealed. A run that crossed a boundary measured that for the rest of the
# run, so the admitted rate depended on where the run fell in the minute. Each admitted run starts
# with a fresh cookie early enough in a minute to end within it.
fit_in_minute() {
  local s
  s=$((10#$(date +%S)))
  if (($1 <= 50 && s + $1 + 2 > 59)); then
    sleep "$((60 - s)).2"
  fi
}

# start_watchdog SECONDS: bounds the whole run; after SECONDS it stops this script (whose EXIT trap
# cleans up). Sets watchdog_pid; killing it also kills its sleep, so nothing holds the script's
# output open after the script ends.
start_watchdog() {
  (
    sleep "$1" &
    s=$!
    trap 'kill $s 2>/dev/null; exit 0' TERM
    wait $s
    say "$SCRIPT: still running after ${1}s; stopping"
    kill -TERM $$
  ) &
  watchdog_pid=$!
}

# gateway_yaml GW_PORT ORIGIN_PORT DATA_DIR ADMIN_PORT ADMIN_TOKEN: the benchmark's configuration
gateway_yaml() {
  cat <<EOF
listen: 127.0.0.1:$1
origin: http://127.0.0.1:$2
dataDir: $3
admin:
  listen: 127.0.0.1:$4
  token: $5
rooms:
  # never queues: the limits are far above what the benchmark can reach
  - id: open
    path: /open/
    totalActiveUsers: 100000000
    newUsersPerMinute: 100000000
    sessionDurationMinutes: 60
  # always queues: every user without an admitted ticket gets the queue page
  - id: full
    path: /full/
    queueAll: true
  # full after its first user: later users get the queue page and a ticket
  - id: wait
    path: /wait/
    totalActiveUsers: 1
    newUsersPerMinute: 1
    sessionDurationMinutes: 60
EOF
}
