# The table of bench/http/run.sh's rounds in rotating order (docs/benchmarks-http.md, step 8).
#
# Input: one line per measured run, "ROUND TARGET REQ_PER_S CPU_US" (CPU_US "-" when the target's
# CPU is not measured, as for nginx). Variable `targets`: the targets in list order, comma-separated;
# the first is the nginx proxy every ratio is taken against, the second the admitted path, the third
# (if any) the plain Netty proxy on epoll whose CPU per request the admitted path's is compared with.
# Round r started with the r-th target of the list (rotating), which the "first" column names.
#
# Output: a Markdown table with one row per round (each target's req/s, its CPU in brackets, and
# each target's ratio to the nginx proxy of the same round), a row of medians over the rounds, then
# the admitted path's verdict against the goal (median ratio >= 0.9) and, with a third target, the
# ratio of the median CPU per request (goal <= 1.2).
#
#   awk -v targets=nginx-proxy,anteroom-admitted,reference-netty -f rounds.awk < rows
function median(a, n,   i, j, t) {
  for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
BEGIN { nt = split(targets, names, ",") }
NF == 4 { rps[$1, $2] = $3; cpu[$1, $2] = $4; if ($1 > rounds) rounds = $1 }
END {
  if (nt < 2 || rounds < 1) { print "no rounds"; exit 1 }
  head = "| round | first"; sep = "|---|---"
  for (t = 1; t <= nt; t++) { head = head " | " names[t] " req/s (CPU µs)"; sep = sep "|---:" }
  for (t = 2; t <= nt; t++) { head = head " | " names[t] " / " names[1]; sep = sep "|---:" }
  print head " |"; print sep "|"
  for (r = 1; r <= rounds; r++) {
    row = "| " r " | " names[(r - 1) % nt + 1]
    for (t = 1; t <= nt; t++) row = row " | " rps[r, names[t]] (cpu[r, names[t]] != "-" ? " (" cpu[r, names[t]] ")" : "")
    for (t = 2; t <= nt; t++) { q = rps[r, names[t]] / rps[r, names[1]]; ratio[t, r] = q; row = row sprintf(" | %.2f", q) }
    print row " |"
  }
  row = "| median | "
  for (t = 1; t <= nt; t++) {
    for (r = 1; r <= rounds; r++) v[r] = rps[r, names[t]]
    row = row " | " sprintf("%.0f", median(v, rounds))
    if (cpu[1, names[t]] != "-") {
      for (r = 1; r <= rounds; r++) v[r] = cpu[r, names[t]]
      c[t] = median(v, rounds)
      row = row sprintf(" (%.1f)", c[t])
    }
  }
  for (t = 2; t <= nt; t++) {
    for (r = 1; r <= rounds; r++) v[r] = ratio[t, r]
    row = row sprintf(" | **%.2f**", median(v, rounds))
  }
  print row " |"
  at = 0
  for (r = 1; r <= rounds; r++) { v[r] = ratio[2, r]; if (ratio[2, r] >= 0.9) at++ }
  m = median(v, rounds)
  printf "\n%s / %s over the rounds: median %.2f, %d of %d rounds at or above 0.9 (goal: >= 0.9): %s\n", names[2], names[1], m, at, rounds, (m >= 0.9 ? "met" : "**missed**")
  if (nt > 2 && c[2] > 0 && c[3] > 0) printf "CPU per request, %s / %s, medians over the rounds: %.2f (goal: <= 1.2)\n", names[2], names[3], c[2] / c[3]
}
