package io.anteroom.gateway;

import io.anteroom.coordinator.RoomCounter;
import io.anteroom.coordinator.RoomObjects;
import io.anteroom.objects.ObjectId;
import io.anteroom.objects.ObjectResetException;
import io.anteroom.objects.ObjectTransportException;
import io.anteroom.objects.Stubs;
import io.anteroom.objects.http.RoutingObjectTransport;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.room.CounterKey;
import io.anteroom.room.Grant;
import io.anteroom.room.Rules;
import io.anteroom.testkit.ChildProcess;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A child process of {@link ClusterFaultsTest}, run on a host of the test's network: callers that
 * draw numbers from one of the room's counter objects ({@link RoomCounter}, the object a gateway
 * draws from) through a {@link RoutingObjectTransport} over every peer, as a gateway does (2 s
 * timeout), and write each call to a file for the history checker, one line each: {@code <invoked
 * ms> <completed ms> OK <minute> <number>}, {@code ... FAILED} (the call certainly did not run) or
 * {@code ... UNKNOWN} (it may have run), in epoch milliseconds.
 *
 * <p>Usage: {@code CounterLoad <out file> <secret file> <callers> <pause ms> <trust pem>
 * <coordinator URL>...}; prints {@code counter load running} once the first number came back and
 * stops when its standard input closes.
 */
public final class CounterLoad {
  private CounterLoad() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args[0]);
    SharedSecret secret = SharedSecret.parse(Files.readString(Path.of(args[1])).strip());
    int callers = Integer.parseInt(args[2]);
    long pauseMillis = Long.parseLong(args[3]);
    Path trust = Path.of(args[4]);
    List<URI> coordinators = new ArrayList<>();
    for (int i = 5; i < args.length; i++) coordinators.add(URI.create(args[i]));
    AtomicBoolean running = new AtomicBoolean(true);
    try (RoutingObjectTransport transport =
            RoutingObjectTransport.builder(coordinators)
                .secret(secret)
                .trust(trust)
                .timeout(Duration.ofSeconds(2))
                .build();
        BufferedWriter file = Files.newBufferedWriter(out)) {
      String room = "faults-counter";
      RoomCounter counter =
          Stubs.create(
              RoomCounter.class,
              RoomObjects.COUNTER_NAMESPACE,
              ObjectId.fromName(
                  RoomObjects.COUNTER_NAMESPACE,
                  CounterKey.dataCenter(room, "load", 0).objectName()),
              transport);
      AtomicBoolean first = new AtomicBoolean(true);
      List<Thread> threads = new ArrayList<>();
      for (int c = 0; c < callers; c++) {
        threads.add(
            Thread.ofVirtual()
                .start(
                    () -> {
                      while (running.get()) {
                        String line = call(counter, room);
                        synchronized (file) {
                          try {
                            file.write(line);
                            file.newLine();
                          } catch (IOException e) {
                            throw new UncheckedIOException(e);
                          }
                        }
                        if (line.contains(" OK ") && first.compareAndSet(true, false)) {
                          ChildProcess.printLine("counter load running");
                        }
                        try {
                          Thread.sleep(pauseMillis); // the load's pace
                        } catch (InterruptedException e) {
                          return;
                        }
                      }
                    }));
      }
      Thread flusher =
          Thread.ofVirtual()
              .start(
                  () -> {
                    while (running.get()) {
                      synchronized (file) {
                        try {
                          file.flush();
                        } catch (IOException e) {
                          return;
                        }
                      }
                      try {
                        Thread.sleep(100); // the file's flush pace
                      } catch (InterruptedException e) {
                        return;
                      }
                    }
                  });
      ChildProcess.awaitParentGone();
      running.set(false);
      for (Thread t : threads) t.join(Duration.ofSeconds(10));
      flusher.join(Duration.ofSeconds(1));
    }
  }

  private static String call(RoomCounter counter, String room) {
    long invoked = System.currentTimeMillis();
    long minute = Math.floorDiv(invoked, 60_000);
    try {
      Grant g =
          counter.takeCarrying(
              Rules.published(), CounterKey.dataCenter(room, "load", minute), Long.MAX_VALUE, null);
      long done = System.currentTimeMillis();
      if (g.number() < 0) return invoked + " " + done + " FAILED"; // its minute was over
      return invoked + " " + done + " OK " + g.minute() + " " + g.number();
    } catch (ObjectTransportException e) {
      long done = System.currentTimeMillis();
      boolean notRun = String.valueOf(e.getMessage()).contains("not run");
      return invoked + " " + done + (notRun ? " FAILED" : " UNKNOWN");
    } catch (ObjectResetException e) {
      return invoked + " " + System.currentTimeMillis() + " UNKNOWN";
    } catch (RuntimeException e) {
      return invoked + " " + System.currentTimeMillis() + " UNKNOWN " + e;
    }
  }
}
