package io.anteroom.objects.http;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import io.anteroom.objects.Counters.Counter;
import io.anteroom.objects.Counters.CounterObject;
import io.anteroom.objects.Runtime;
import io.anteroom.testkit.ChildProcess;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.LoggerFactory;

/**
 * The child process of {@link ProcessCrashTest}: a SQLite-backed runtime on the data directory
 * given as the only argument, serving the naive counter over HTTP on 127.0.0.1, port 0, to callers
 * holding the secret in {@value #SECRET_VARIABLE}. Prints {@value #PORT_LINE}{@code <port>} once it
 * accepts calls, and exits when its standard input closes (so that it never outlives the test JVM),
 * unless it is killed first, which is the point.
 */
public final class CounterServerMain {
  static final String PORT_LINE = "ANTEROOM_PORT=";

  /** The environment variable holding the shared secret ({@link SharedSecret#parse} form). */
  static final String SECRET_VARIABLE = "ANTEROOM_TEST_SECRET";

  private CounterServerMain() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: CounterServerMain <data-dir>");
    }
    // the default logback configuration would print every DEBUG line of Netty
    ((Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME)).setLevel(Level.WARN);
    Runtime runtime = Runtime.builder().dataDir(Path.of(args[0])).build();
    runtime.namespace("counter", Counter.class, CounterObject::new);
    HttpObjectServer server =
        HttpObjectServer.builder(runtime.transport())
            .export("counter")
            .secret(SharedSecret.parse(System.getenv(SECRET_VARIABLE)))
            .start();
    ChildProcess.printLine(PORT_LINE + server.actualPort());
    ChildProcess.awaitParentGone();
    server.close();
    runtime.close();
  }
}
