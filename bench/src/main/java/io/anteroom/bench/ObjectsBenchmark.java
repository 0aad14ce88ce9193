package io.anteroom.bench;

import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectTransport;
import io.anteroom.objects.http.HttpObjectServer;
import io.anteroom.objects.http.HttpObjectTransport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Benchmarks of the Durable Objects runtime against the hand-written baseline, printed as a
 * Markdown report.
 *
 * <pre>
 * ./mvnw -q -DskipTests package -pl bench -am
 * java -cp "bench/target/classes:$(cat bench/target/classpath.txt)" io.anteroom.bench.ObjectsBenchmark --duration 10s
 * </pre>
 */
@Command(name = "objects-benchmark", mixinStandardHelpOptions = true,
        description = "Naive durable counter on the runtime vs. a locked SQLite baseline; many objects; over HTTP.")
public final class ObjectsBenchmark implements Callable<Integer> {
    /** Connections (and callers) of the HTTP scenarios, as the spec asks. */
    static final int HTTP_CONNECTIONS = 64;

    @Option(names = "--duration", defaultValue = "10s", converter = DurationConverter.class,
            description = "Measured time per scenario and caller count (e.g. 10s, 500ms). Default: ${DEFAULT-VALUE}.")
    Duration duration;

    @Option(names = "--warmup", defaultValue = "2s", converter = DurationConverter.class,
            description = "Unmeasured warm-up before each measurement. Default: ${DEFAULT-VALUE}.")
    Duration warmup;

    @Option(names = "--max-ops", defaultValue = "5000000",
            description = "Upper bound of operations per measurement. Default: ${DEFAULT-VALUE}.")
    long maxOps;

    @Option(names = "--callers", split = ",", defaultValue = "1,16,64,256",
            description = "Concurrent callers for the one-object counter. Default: ${DEFAULT-VALUE}.")
    List<Integer> callers;

    @Option(names = "--data-dir", description = "Where the SQLite files go (a fresh temporary directory by default; deleted after).")
    Path dataDir;

    @Option(names = "--scenarios", split = ",", defaultValue = "baseline",
            description = "Which scenarios to run, any of: baseline, http-noop. Default: ${DEFAULT-VALUE}.")
    List<String> scenarios;

    public static void main(String[] args) {
        System.exit(new CommandLine(new ObjectsBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        boolean temporary = dataDir == null;
        Path dir = temporary ? Files.createTempDirectory("anteroom-bench") : Files.createDirectories(dataDir);
        List<LoadRun.Measurement> results = new ArrayList<>();
        try {
            if (scenarios.contains("baseline")) {
                results.addAll(baseline(dir));
            }
            if (scenarios.contains("http-noop")) {
                results.add(httpNoop());
            }
        } finally {
            if (temporary) deleteRecursively(dir);
        }
        System.out.println(table(results));
        return results.stream().anyMatch(m -> m.duplicates() > 0) ? 1 : 0;
    }

    private List<LoadRun.Measurement> baseline(Path dir) throws Exception {
        List<LoadRun.Measurement> out = new ArrayList<>();
        for (int n : callers) {
            try (SqliteLockedCounter counter = new SqliteLockedCounter(dir.resolve("baseline-" + n + ".db"))) {
                out.add(measure("baseline: lock + SQLite fsync per op", n, caller -> counter.next("counter")));
            }
        }
        return out;
    }

    /**
     * The HTTP round trip alone: server and transport in front of an in-memory counter with no
     * storage at all, so the figure is the ceiling the HTTP layer puts on any remote call here.
     */
    private LoadRun.Measurement httpNoop() throws Exception {
        AtomicLong counter = new AtomicLong();
        ObjectTransport noStorage = (namespace, id, method, args) -> CompletableFuture.completedFuture(
                ByteBuffer.allocate(Long.BYTES).putLong(counter.getAndIncrement()).array());
        ObjectId id = ObjectId.fromName("noop", "one");
        try (HttpObjectServer server = HttpObjectServer.builder(noStorage).start();
             HttpObjectTransport transport = HttpObjectTransport.builder(server.uri()).poolSize(HTTP_CONNECTIONS).build()) {
            return measure("HTTP round trip, no storage (ceiling)", HTTP_CONNECTIONS,
                    caller -> ByteBuffer.wrap(transport.call("noop", id, "next", new byte[0]).join()).getLong());
        }
    }

    /** A warm-up (discarded) then the measurement, on the same state. */
    LoadRun.Measurement measure(String scenario, int n, LoadRun.Call call) throws InterruptedException {
        if (!warmup.isZero()) {
            LoadRun.run(scenario, n, warmup, maxOps, call);
        }
        LoadRun.Measurement m = LoadRun.run(scenario, n, duration, maxOps, call);
        System.err.printf(Locale.ROOT, "%-45s %4d callers: %,10.0f ops/s  p50 %,7d us  p99 %,7d us  dup %d%n",
                m.scenario(), m.callers(), m.opsPerSecond(), m.p50Micros(), m.p99Micros(), m.duplicates());
        return m;
    }

    static String table(List<LoadRun.Measurement> results) {
        StringBuilder sb = new StringBuilder();
        sb.append("| scenario | callers | ops | ops/s | p50 (ms) | p99 (ms) | max (ms) | duplicates |\n");
        sb.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
        for (LoadRun.Measurement m : results) {
            sb.append(String.format(Locale.ROOT, "| %s | %d | %,d | %,.0f | %.2f | %.2f | %.1f | %d |%n",
                    m.scenario(), m.callers(), m.ops(), m.opsPerSecond(), m.p50Micros() / 1000.0,
                    m.p99Micros() / 1000.0, m.maxMicros() / 1000.0, m.duplicates()));
        }
        return sb.toString();
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Accepts {@code 10s}, {@code 500ms}, {@code 2m} or ISO-8601 ({@code PT10S}). */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            String v = value.trim().toLowerCase(Locale.ROOT);
            try {
                if (v.startsWith("pt")) return Duration.parse(v);
                if (v.endsWith("ms")) return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
                if (v.endsWith("s")) return Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
                if (v.endsWith("m")) return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)) * 60);
            } catch (RuntimeException e) {
                throw new CommandLine.TypeConversionException(notADuration(value) + " (" + e.getMessage() + ")");
            }
            throw new CommandLine.TypeConversionException(notADuration(value));
        }

        private static String notADuration(String value) {
            return "not a duration: '" + value + "'; use e.g. 10s, 500ms, 2m or PT10S";
        }
    }
}
