-- wrk script: no per-request or per-response hook (those would slow wrk down and skew the
-- figures); done() only prints the run's totals in one machine-readable line for run.sh.
-- Latencies are in microseconds; "status" counts responses that are not 2xx/3xx.
done = function(summary, latency, requests)
  io.write(string.format(
    "RESULT requests=%d duration_us=%d bytes=%d status=%d connect=%d read=%d write=%d timeout=%d p50_us=%d p99_us=%d mean_us=%.1f\n",
    summary.requests, summary.duration, summary.bytes, summary.errors.status,
    summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.mean))
end
