package io.anteroom.objects;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.anteroom.objects.Counters.Counter;
import io.anteroom.objects.Counters.CounterObject;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import io.anteroom.objects.storage.StorageEngine;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The "Acceptance behaviours" of durable-objects.md, one test each (in-process). */
class AcceptanceTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  // ------------------------------------------------------------------ unique numbers

  @Test
  void uniqueNumbersUnder64ConcurrentCallersInProcess(@TempDir Path dir) throws Exception {
    Set<Long> seen = ConcurrentHashMap.newKeySet();
    List<CompletableFuture<Void>> callers = new ArrayList<>();
    try (Runtime runtime = Runtime.builder().dataDir(dir).build()) {
      Counter counter =
          runtime.namespace("counter", Counter.class, CounterObject::new).get("orders");
      for (int c = 0; c < 64; c++) {
        callers.add(
            CompletableFuture.runAsync(
                () -> {
                  for (int i = 0; i < 100; i++) {
                    long n = counter.next();
                    assertThat(seen.add(n)).as("number %d issued twice", n).isTrue();
                  }
                },
                runnable -> Thread.ofVirtual().start(runnable)));
      }
      CompletableFuture.allOf(callers.toArray(CompletableFuture[]::new)).get();
      assertThat(seen).hasSize(6400).allMatch(n -> n >= 0 && n < 6400);
      assertThat(counter.current()).isEqualTo(6400);
    }
  }

  // ------------------------------------------------------------------ interleaving

  interface Peer {
    String ping();
  }

  /** A peer whose ping signals {@code entered}, then waits until the test opens {@code gate}. */
  static final class PeerObject implements Peer {
    private final CompletableFuture<Void> entered;
    private final CompletableFuture<Void> gate;

    PeerObject(CompletableFuture<Void> entered, CompletableFuture<Void> gate) {
      this.entered = entered;
      this.gate = gate;
    }

    @Override
    public String ping() {
      entered.complete(null);
      gate.join();
      return "pong";
    }
  }

  interface Account {
    long incrementAcrossCall();

    long increment();
  }

  static final class AccountObject implements Account {
    private final List<String> log;
    private final ObjectContext ctx;
    private final Storage storage;

    AccountObject(ObjectContext ctx, List<String> log) {
      this.log = log;
      this.ctx = ctx;
      this.storage = ctx.storage();
    }

    @Override
    public long incrementAcrossCall() {
      long v = storage.get("n", Long.class).orElse(0L);
      log.add("slow: read " + v);
      ctx.namespace("peer", Peer.class).get("p").ping(); // outgoing: the gate opens here
      log.add("slow: resumed");
      storage.put("n", v + 1);
      return v;
    }

    @Override
    public long increment() {
      long v = storage.get("n", Long.class).orElse(0L);
      log.add("fast: read " + v);
      storage.put("n", v + 1);
      return v;
    }
  }

  @Test
  void interleavingAllowedOnlyAtOutgoingCalls() throws Exception {
    CompletableFuture<Void> entered = new CompletableFuture<>();
    CompletableFuture<Void> gate = new CompletableFuture<>();
    List<String> log = new CopyOnWriteArrayList<>();
    try (Fixture f = new Fixture()) {
      f.runtime.namespace("peer", Peer.class, ctx -> new PeerObject(entered, gate));
      Account account =
          f.runtime
              .namespace("account", Account.class, ctx -> new AccountObject(ctx, log))
              .get("a");
      CompletableFuture<Long> slow = f.async(account::incrementAcrossCall);
      entered.get();
      // while the slow event waits on its outgoing call, another event runs to completion
      assertThat(account.increment()).isEqualTo(0);
      assertThat(slow).isNotDone();
      gate.complete(null);
      assertThat(slow.get()).isEqualTo(0);
      assertThat(log).containsExactly("slow: read 0", "fast: read 0", "slow: resumed");

      // without an outgoing call, no interleaving: 32 concurrent increments lose nothing
      List<CompletableFuture<Long>> calls = new ArrayList<>();
      for (int i = 0; i < 32; i++) calls.add(f.async(account::increment));
      Set<Long> results = ConcurrentHashMap.newKeySet();
      for (CompletableFuture<Long> c : calls) results.add(c.get());
      assertThat(results).hasSize(32);
    }
  }

  // ------------------------------------------------------------------ A -> B -> A

  interface Ping {
    String outer(int depth);

    String inner();
  }

  static final class PingObject implements Ping {
    private final ObjectContext ctx;

    PingObject(ObjectContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public String outer(int depth) {
      Namespace<Ping> pings = ctx.namespace("ping", Ping.class);
      if (depth == 0) return pings.get("a").inner(); // B calls back into A
      return "a(" + pings.get("b").outer(depth - 1) + ")";
    }

    @Override
    public String inner() {
      ctx.storage().put("touched", true);
      return "inner of " + ctx.id().name().orElse("?");
    }
  }

  @Test
  void callChainAToBToACompletes() {
    try (Fixture f = new Fixture()) {
      Namespace<Ping> pings = f.runtime.namespace("ping", Ping.class, PingObject::new);
      assertThat(pings.get("a").outer(1)).isEqualTo("a(inner of a)");
    }
  }

  // ------------------------------------------------------------------ blockConcurrencyWhile

  interface Loaded {
    long value();
  }

  static final class LoadedObject implements Loaded {
    private long value = -1;

    LoadedObject(ObjectContext ctx, CompletableFuture<Long> source) {
      ctx.blockConcurrencyWhile(
          () -> {
            long stored = ctx.storage().get("v", Long.class).orElse(0L);
            value = stored + ctx.await(source); // an outgoing wait, yet no event may start
            return null;
          });
    }

    @Override
    public long value() {
      return value;
    }
  }

  @Test
  void blockConcurrencyWhileInitialisationRace() throws Exception {
    CompletableFuture<Long> source = new CompletableFuture<>();
    try (Fixture f = new Fixture()) {
      Namespace<Loaded> ns =
          f.runtime.namespace("loaded", Loaded.class, ctx -> new LoadedObject(ctx, source));
      Loaded loaded = ns.get("x");
      List<CompletableFuture<Long>> calls = new ArrayList<>();
      for (int i = 0; i < 16; i++) calls.add(f.async(loaded::value));
      await().atMost(WAIT).until(() -> f.runtime.queuedEvents("loaded", ns.idFromName("x")) == 15);
      source.complete(42L);
      for (CompletableFuture<Long> c : calls) assertThat(c.get()).isEqualTo(42L);
    }
  }

  // ------------------------------------------------------------------ coalescing

  interface Mover {
    void seed();

    void move();
  }

  static final class MoverObject implements Mover {
    private final Storage storage;

    MoverObject(ObjectContext ctx) {
      this.storage = ctx.storage();
    }

    @Override
    public void seed() {
      storage.put("foo", "treasure");
    }

    @Override
    public void move() {
      String val = storage.get("foo", String.class).orElseThrow();
      storage.delete("foo");
      storage.put("bar", val);
      storage.put("moves", 1);
    }
  }

  @Test
  void writesCoalesceIntoOneAtomicBatchKillBetweenBatchesAllOrNothing() throws Exception {
    try (Fixture f = new Fixture()) {
      Namespace<Mover> ns = f.runtime.namespace("mover", Mover.class, MoverObject::new);
      Mover mover = ns.get("m");
      mover.seed();
      String object = Runtime.objectKey("mover", ns.idFromName("m"));
      int commitsBefore = f.engine.commits().size();

      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<Void> move =
          f.async(
              () -> {
                mover.move();
                return null;
              });
      commits.awaitBlocked();
      // kill now: the move's batch is not on disk, and none of its writes is
      Map<String, byte[]> crashed = f.engine.crashImage().rows(object);
      assertThat(crashed.keySet()).containsExactly("foo");
      assertThat(move).isNotDone();
      commits.release();
      move.get();
      // after the commit: all of it, in one batch of one commit
      assertThat(f.engine.crashImage().rows(object).keySet())
          .containsExactlyInAnyOrder("bar", "moves");
      List<List<StorageEngine.Batch>> newCommits =
          f.engine.commits().subList(commitsBefore, f.engine.commits().size());
      assertThat(newCommits).hasSize(1);
      assertThat(newCommits.get(0)).hasSize(1);
      assertThat(newCommits.get(0).get(0).writes().keySet())
          .containsExactlyInAnyOrder("foo", "bar", "moves");
    }
  }

  // ------------------------------------------------------------------ output gate

  @Test
  void outputGateHoldsTheResultUntilTheFlush() throws Exception {
    try (Fixture f = new Fixture()) {
      Counter counter = f.runtime.namespace("counter", Counter.class, CounterObject::new).get("c");
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<Long> call = f.async(counter::next);
      commits.awaitBlocked();
      // the event has run and its write is in the cache, but the result is held
      assertThat(call).isNotDone();
      commits.release();
      assertThat(call.get()).isZero();
      assertThat(f.engine.commits()).isNotEmpty();
    }
  }

  @Test
  void outputGateAlsoHoldsOutgoingCallsUntilTheFlush() throws Exception {
    CompletableFuture<Void> entered = new CompletableFuture<>();
    CompletableFuture<Void> gate = CompletableFuture.completedFuture(null);
    List<String> log = new CopyOnWriteArrayList<>();
    try (Fixture f = new Fixture()) {
      f.runtime.namespace("peer", Peer.class, ctx -> new PeerObject(entered, gate));
      Account account =
          f.runtime
              .namespace("account", Account.class, ctx -> new AccountObject(ctx, log))
              .get("a");
      account.increment(); // create the object; n = 1 is durable
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      Writer writer = f.runtime.namespace("writer", Writer.class, WriterObject::new).get("w");
      CompletableFuture<Void> call =
          f.async(
              () -> {
                writer.writeThenCall();
                return null;
              });
      commits.awaitBlocked();
      assertThat(entered).as("the outgoing call waits for the earlier write").isNotDone();
      commits.release();
      call.get();
      assertThat(entered).isDone();
    }
  }

  interface Writer {
    void writeThenCall();
  }

  static final class WriterObject implements Writer {
    private final ObjectContext ctx;

    WriterObject(ObjectContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public void writeThenCall() {
      ctx.storage().put("sent", true);
      ctx.namespace("peer", Peer.class).get("p").ping();
    }
  }

  // ------------------------------------------------------------------ flush failure

  @Test
  void flushFailureGivesCallersErrorsResetsInstanceAndReloadsState() throws Exception {
    try (Fixture f = new Fixture()) {
      Counter counter = f.runtime.namespace("counter", Counter.class, CounterObject::new).get("c");
      for (int i = 0; i < 5; i++) counter.next();

      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      List<CompletableFuture<Long>> calls = new ArrayList<>();
      calls.add(f.async(counter::next));
      commits.awaitBlocked(); // 5 -> 6 is being flushed
      for (int i = 0; i < 3; i++) calls.add(f.async(counter::next)); // pipelined behind it
      await().atMost(WAIT).until(() -> f.meter("events") >= 9);
      f.engine.failNextCommits(1);
      commits.release();

      for (CompletableFuture<Long> c : calls) {
        assertThatThrownBy(c::get)
            .isInstanceOf(ExecutionException.class)
            .hasCauseInstanceOf(ObjectResetException.class);
      }
      assertThat(f.meter("resets")).isEqualTo(1);
      // nobody received 5..8, so the fresh instance, reloaded from storage, issues 5 again
      assertThat(counter.next()).isEqualTo(5);
      assertThat(counter.current()).isEqualTo(6);
    }
  }

  // ------------------------------------------------------------------ allowUnconfirmed

  interface Notes {
    void note(String key, String value, boolean unconfirmed);

    String read(String key);
  }

  static final class NotesObject implements Notes {
    private final Storage storage;

    NotesObject(ObjectContext ctx) {
      this.storage = ctx.storage();
    }

    @Override
    public void note(String key, String value, boolean unconfirmed) {
      storage.put(
          key,
          value,
          unconfirmed ? StorageOptions.DEFAULT.withAllowUnconfirmed() : StorageOptions.DEFAULT);
    }

    @Override
    public String read(String key) {
      return storage.get(key, String.class).orElse(null);
    }
  }

  @Test
  void allowUnconfirmedReturnsBeforeTheFlushAndFailureStillResets() throws Exception {
    try (Fixture f = new Fixture()) {
      Notes notes = f.runtime.namespace("notes", Notes.class, NotesObject::new).get("n");
      notes.note("kept", "yes", false);

      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      notes.note("draft", "maybe", true); // returns although its flush cannot complete
      commits.awaitBlocked();
      assertThat(notes.read("draft")).isEqualTo("maybe");
      f.engine.failNextCommits(1);
      commits.release();

      await().atMost(WAIT).until(() -> f.meter("resets") == 1);
      assertThat(notes.read("draft")).isNull();
      assertThat(notes.read("kept")).isEqualTo("yes");
    }
  }

  // ------------------------------------------------------------------ allowConcurrency

  interface Reader {
    String slowRead(boolean allowConcurrency);

    String quick();
  }

  static final class ReaderObject implements Reader {
    private final List<String> log;
    private final Storage storage;

    ReaderObject(ObjectContext ctx, List<String> log) {
      this.log = log;
      this.storage = ctx.storage();
    }

    @Override
    public String slowRead(boolean allowConcurrency) {
      StorageOptions o =
          allowConcurrency ? StorageOptions.DEFAULT.withAllowConcurrency() : StorageOptions.DEFAULT;
      String v = storage.get("x", String.class, o).orElse("none");
      log.add("slow");
      return v;
    }

    @Override
    public String quick() {
      log.add("quick");
      return "quick";
    }
  }

  @Test
  void allowConcurrencyLetsAnotherEventRunDuringASlowRead() throws Exception {
    List<String> log = new CopyOnWriteArrayList<>();
    try (Fixture f = new Fixture()) {
      Reader reader =
          f.runtime.namespace("reader", Reader.class, ctx -> new ReaderObject(ctx, log)).get("r");
      reader.quick();
      try (InMemoryStorageEngine.Hold reads = f.engine.holdReads()) {
        CompletableFuture<String> slow = f.async(() -> reader.slowRead(true));
        reads.awaitBlocked();
        assertThat(reader.quick()).isEqualTo("quick"); // runs while the read is in flight
        assertThat(slow).isNotDone();
        reads.release();
        assertThat(slow.get()).isEqualTo("none");
      }
      assertThat(log).containsExactly("quick", "quick", "slow");
    }
  }

  @Test
  void withoutAllowConcurrencyASlowReadKeepsTheGateClosed() throws Exception {
    List<String> log = new CopyOnWriteArrayList<>();
    try (Fixture f = new Fixture()) {
      Namespace<Reader> ns =
          f.runtime.namespace("reader", Reader.class, ctx -> new ReaderObject(ctx, log));
      Reader reader = ns.get("r");
      reader.quick();
      CompletableFuture<String> quick;
      try (InMemoryStorageEngine.Hold reads = f.engine.holdReads()) {
        CompletableFuture<String> slow = f.async(() -> reader.slowRead(false));
        reads.awaitBlocked();
        quick = f.async(reader::quick);
        await().atMost(WAIT).until(() -> f.runtime.queuedEvents("reader", ns.idFromName("r")) == 1);
        assertThat(quick).isNotDone();
        reads.release();
        assertThat(slow.get()).isEqualTo("none");
      }
      assertThat(quick.get()).isEqualTo("quick");
      assertThat(log).containsExactly("quick", "slow", "quick");
    }
  }

  // ------------------------------------------------------------------ noCache

  interface Cached {
    void put(String key, String value, boolean noCache);

    String get(String key, boolean noCache);
  }

  static final class CachedObject implements Cached {
    private final Storage storage;

    CachedObject(ObjectContext ctx) {
      this.storage = ctx.storage();
    }

    @Override
    public void put(String key, String value, boolean noCache) {
      storage.put(
          key, value, noCache ? StorageOptions.DEFAULT.withNoCache() : StorageOptions.DEFAULT);
    }

    @Override
    public String get(String key, boolean noCache) {
      return storage
          .get(
              key,
              String.class,
              noCache ? StorageOptions.DEFAULT.withNoCache() : StorageOptions.DEFAULT)
          .orElse(null);
    }
  }

  @Test
  void noCacheDropsCleanEntriesButNeverChangesResults() {
    try (Fixture f = new Fixture()) {
      Cached c = f.runtime.namespace("cached", Cached.class, CachedObject::new).get("c");
      c.put("a", "1", true);
      long misses = f.meter("cache.misses");
      assertThat(c.get("a", false)).isEqualTo("1"); // evicted once clean: read from storage
      assertThat(f.meter("cache.misses")).isEqualTo(misses + 1);
      assertThat(c.get("a", false)).isEqualTo("1"); // now cached (a normal read fills the cache)
      assertThat(f.meter("cache.misses")).isEqualTo(misses + 1);

      c.put("b", "2", false);
      assertThat(c.get("b", true)).isEqualTo("2"); // hit, then dropped because clean
      long before = f.meter("cache.misses");
      assertThat(c.get("b", true)).isEqualTo("2"); // miss, and not cached
      assertThat(c.get("b", true)).isEqualTo("2");
      assertThat(f.meter("cache.misses")).isEqualTo(before + 2);
    }
  }

  // ------------------------------------------------------------------ program order

  interface Script {
    List<String> run();
  }

  static final class ProgramOrderObject implements Script {
    private final Storage s;

    ProgramOrderObject(ObjectContext ctx) {
      this.s = ctx.storage();
    }

    @Override
    public List<String> run() {
      List<String> out = new ArrayList<>();
      s.put("a", 1);
      out.add("get a=" + s.get("a", Integer.class).orElse(null));
      s.put("b", 2);
      s.put("c", 3);
      out.add("list=" + s.list(ListOptions.ALL, Integer.class));
      out.add("delete b=" + s.delete("b"));
      out.add("delete b again=" + s.delete("b"));
      out.add("get b=" + s.get("b", Integer.class).orElse(null));
      s.put("a", 10);
      out.add("list=" + s.list(ListOptions.ALL, Integer.class));
      out.add("get a=" + s.get("a", Integer.class).orElse(null));
      return out;
    }
  }

  @Test
  void programOrderOfGetPutDeleteList() throws Exception {
    try (Fixture f = new Fixture()) {
      Namespace<Script> ns = f.runtime.namespace("script", Script.class, ProgramOrderObject::new);
      List<String> expected =
          List.of(
              "get a=1",
              "list={a=1, b=2, c=3}",
              "delete b=true",
              "delete b again=false",
              "get b=null",
              "list={a=10, c=3}",
              "get a=10");
      assertThat(ns.get("p").run()).isEqualTo(expected);

      // again while every flush is stuck: reads still see every earlier write
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<List<String>> held = f.async(() -> ns.get("q").run());
      commits.awaitBlocked();
      commits.release();
      assertThat(held.get()).isEqualTo(expected);

      // and a fresh instance reading from storage (cache empty) sees the same final state
      Runtime reopened = f.restart(f.engine.crashImage());
      Namespace<Lister> listers = reopened.namespace("script", Lister.class, ListerObject::new);
      assertThat(listers.get("p").list()).isEqualTo(Map.of("a", 10, "c", 3));
    }
  }

  interface Lister {
    Map<String, Integer> list();
  }

  static final class ListerObject implements Lister {
    private final Storage s;

    ListerObject(ObjectContext ctx) {
      this.s = ctx.storage();
    }

    @Override
    public Map<String, Integer> list() {
      return s.list(ListOptions.ALL, Integer.class);
    }
  }

  // ------------------------------------------------------------------ transaction

  interface Bank {
    void open(long balance);

    String transfer(long amount);

    Map<String, Long> balances();
  }

  static final class BankObject implements Bank {
    private final Storage s;

    BankObject(ObjectContext ctx) {
      this.s = ctx.storage();
    }

    @Override
    public void open(long balance) {
      s.put(Map.of("alice", balance, "bob", 0L));
    }

    @Override
    public String transfer(long amount) {
      try {
        s.transaction(
            tx -> {
              long alice = tx.get("alice", Long.class).orElseThrow();
              tx.put("alice", alice - amount);
              tx.put("bob", tx.get("bob", Long.class).orElseThrow() + amount);
              tx.put("audit", "transfer " + amount);
              if (alice - amount < 0) throw new IllegalStateException("insufficient funds");
              return null;
            });
        return "ok";
      } catch (IllegalStateException e) {
        return e.getMessage();
      }
    }

    @Override
    public Map<String, Long> balances() {
      return s.get(List.of("alice", "bob"), Long.class);
    }
  }

  @Test
  void transactionRollback() {
    try (Fixture f = new Fixture()) {
      Namespace<Bank> ns = f.runtime.namespace("bank", Bank.class, BankObject::new);
      Bank bank = ns.get("b");
      bank.open(100);
      assertThat(bank.transfer(30)).isEqualTo("ok");
      assertThat(bank.transfer(500)).isEqualTo("insufficient funds");
      assertThat(bank.balances()).isEqualTo(Map.of("alice", 70L, "bob", 30L));
      assertThat(f.meter("resets"))
          .as("a rolled back transaction does not reset the object")
          .isZero();
      Map<String, byte[]> stored = f.engine.rows(Runtime.objectKey("bank", ns.idFromName("b")));
      assertThat(new String(stored.get("alice"))).isEqualTo("70");
      assertThat(new String(stored.get("audit"))).isEqualTo("\"transfer 30\"");
    }
  }

  // ------------------------------------------------------------------ deleteAll

  interface Wiper {
    void put(String key, int value);

    Map<String, Integer> putWipePut();

    Map<String, Integer> list();

    Integer get(String key);
  }

  static final class WiperObject implements Wiper {
    private final Storage s;

    WiperObject(ObjectContext ctx) {
      this.s = ctx.storage();
    }

    @Override
    public void put(String key, int value) {
      s.put(key, value);
    }

    @Override
    public Map<String, Integer> putWipePut() {
      s.put("c", 3);
      s.deleteAll();
      s.put("d", 4);
      return s.list(ListOptions.ALL, Integer.class);
    }

    @Override
    public Map<String, Integer> list() {
      return s.list(ListOptions.ALL, Integer.class);
    }

    @Override
    public Integer get(String key) {
      return s.get(key, Integer.class).orElse(null);
    }
  }

  @Test
  void deleteAllOrdering() throws Exception {
    try (Fixture f = new Fixture()) {
      Namespace<Wiper> ns = f.runtime.namespace("wiper", Wiper.class, WiperObject::new);
      Wiper w = ns.get("w");
      w.put("a", 1);
      InMemoryStorageEngine.Hold commits = f.engine.holdCommits();
      CompletableFuture<Void> b =
          f.async(
              () -> {
                w.put("b", 2); // its flush is stuck in the engine
                return null;
              });
      commits.awaitBlocked();
      CompletableFuture<Map<String, Integer>> wiped = f.async(w::putWipePut);
      await().atMost(WAIT).until(() -> f.meter("events") >= 3);
      commits.release();
      assertThat(wiped.get()).isEqualTo(Map.of("d", 4));
      b.get();
      assertThat(w.get("a")).isNull();
      assertThat(w.list()).isEqualTo(Map.of("d", 4));
      assertThat(f.engine.rows(Runtime.objectKey("wiper", ns.idFromName("w"))).keySet())
          .containsExactly("d");
    }
  }

  // ------------------------------------------------------------------ alarms

  interface Reminder {
    void remindAt(Instant at);

    Instant pendingAlarm();
  }

  static final class ReminderObject implements Reminder, AlarmHandler {
    private final List<String> fired;
    private final AtomicInteger failuresLeft;
    private final ObjectContext ctx;

    /** Records each alarm in {@code fired}; the first {@code failuresLeft} handler runs throw. */
    ReminderObject(ObjectContext ctx, List<String> fired, AtomicInteger failuresLeft) {
      this.fired = fired;
      this.failuresLeft = failuresLeft;
      this.ctx = ctx;
    }

    @Override
    public void remindAt(Instant at) {
      ctx.storage().setAlarm(at);
    }

    @Override
    public Instant pendingAlarm() {
      return ctx.storage().getAlarm().orElse(null);
    }

    @Override
    public void alarm() {
      String inside = ctx.storage().getAlarm().map(Instant::toString).orElse("none");
      fired.add(ctx.clock().instant() + " alarm inside=" + inside);
      if (failuresLeft.getAndDecrement() > 0) throw new IllegalStateException("handler failure");
    }
  }

  @Test
  void alarmFiresAtItsTimeAndIsDeletedAfterTheHandler() {
    List<String> fired = new CopyOnWriteArrayList<>();
    AtomicInteger failuresLeft = new AtomicInteger(0);
    try (Fixture f = new Fixture()) {
      Reminder r =
          f.runtime
              .namespace(
                  "reminder", Reminder.class, ctx -> new ReminderObject(ctx, fired, failuresLeft))
              .get("r");
      r.remindAt(Fixture.START.plusSeconds(10));
      assertThat(r.pendingAlarm()).isEqualTo(Fixture.START.plusSeconds(10));
      f.time.advance(Fixture.seconds(9.9));
      assertThat(fired).isEmpty();
      f.time.advance(Fixture.seconds(0.1));
      await().atMost(WAIT).until(() -> fired.size() == 1);
      assertThat(fired).containsExactly("2026-01-01T00:00:10Z alarm inside=none");
      await().atMost(WAIT).until(() -> r.pendingAlarm() == null);
    }
  }

  interface Gated {
    void arm(Instant at);
  }

  /** An alarm handler that waits for {@code open}, then sets the next alarm a minute on. */
  static final class GatedAlarmObject implements Gated, AlarmHandler {
    private final ObjectContext ctx;
    private final CountDownLatch open;

    GatedAlarmObject(ObjectContext ctx, CountDownLatch open) {
      this.ctx = ctx;
      this.open = open;
    }

    @Override
    public void arm(Instant at) {
      ctx.storage().setAlarm(at);
    }

    @Override
    public void alarm() {
      try {
        if (!open.await(30, TimeUnit.SECONDS)) throw new IllegalStateException("never opened");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      ctx.storage().setAlarm(ctx.clock().instant().plusSeconds(60));
    }
  }

  @Test
  void anAlarmCountsAsRunningUntilItsHandlerReturnedAndItsNextAlarmIsScheduled() {
    CountDownLatch open = new CountDownLatch(1);
    try (Fixture f = new Fixture()) {
      Gated g =
          f.runtime
              .namespace("gated", Gated.class, ctx -> new GatedAlarmObject(ctx, open))
              .get("g");
      g.arm(Fixture.START.plusSeconds(10));
      assertThat(f.runtime.alarmsRunning()).isZero();
      int scheduledBefore = f.time.pending();
      f.time.advance(Fixture.seconds(10));
      assertThat(f.runtime.alarmsRunning()).as("fired, handler waiting").isEqualTo(1);
      assertThat(f.runtime.metrics().getGauges().get("objects.alarms.running").getValue())
          .isEqualTo(1);
      open.countDown();
      await().atMost(WAIT).until(() -> f.runtime.alarmsRunning() == 0);
      assertThat(f.time.pending())
          .as("the next alarm is scheduled once the count drops")
          .isEqualTo(scheduledBefore);
    }
  }

  /**
   * {@link Runtime.Builder#virtualTime}: the clock waits at an alarm's time until its handler has
   * run; without it the clock is at the advance's end at once, with the handler still waiting.
   */
  @Test
  void onVirtualTimeAnAdvanceReturnsOnlyOnceTheAlarmsItFiredHaveRun() throws Exception {
    CountDownLatch open = new CountDownLatch(1);
    ManualScheduler time = new ManualScheduler(Fixture.START);
    try (Runtime runtime =
        Runtime.builder()
            .storage(new io.anteroom.objects.storage.InMemoryStorageEngine())
            .virtualTime(time)
            .build()) {
      Gated g =
          runtime.namespace("gated", Gated.class, ctx -> new GatedAlarmObject(ctx, open)).get("g");
      g.arm(Fixture.START.plusSeconds(10));
      var advancing =
          java.util.concurrent.CompletableFuture.runAsync(() -> time.advance(Fixture.seconds(20)));
      await().atMost(WAIT).until(() -> runtime.alarmsRunning() == 1);
      assertThat(time.clock().instant())
          .as("the clock waits at the alarm's time")
          .isEqualTo(Fixture.START.plusSeconds(10));
      assertThat(advancing).as("the advance waits for the handler").isNotDone();
      open.countDown();
      advancing.get(30, TimeUnit.SECONDS);
      assertThat(runtime.alarmsRunning()).isZero();
      assertThat(time.clock().instant()).isEqualTo(Fixture.START.plusSeconds(20));
    }
  }

  @Test
  void aSchedulerSetAfterVirtualTimeReplacesItClockAndAll() {
    ManualScheduler replaced = new ManualScheduler(Fixture.START);
    ManualScheduler used = new ManualScheduler(Fixture.START.plusSeconds(3600));
    try (Runtime runtime =
        Runtime.builder()
            .storage(new io.anteroom.objects.storage.InMemoryStorageEngine())
            .virtualTime(replaced)
            .scheduler(used)
            .build()) {
      assertThat(runtime.clock().instant()).isEqualTo(Fixture.START.plusSeconds(3600));
      assertThat(replaced.pending()).as("nothing scheduled on the replaced time").isZero();
      assertThat(used.pending()).as("the idle sweep").isPositive();
    }
  }

  @Test
  void alarmInThePastFiresAtOnce() {
    List<String> fired = new CopyOnWriteArrayList<>();
    AtomicInteger failuresLeft = new AtomicInteger(0);
    try (Fixture f = new Fixture()) {
      Reminder r =
          f.runtime
              .namespace(
                  "reminder", Reminder.class, ctx -> new ReminderObject(ctx, fired, failuresLeft))
              .get("r");
      r.remindAt(Fixture.START.minusSeconds(60));
      f.time.runDue();
      await().atMost(WAIT).until(() -> fired.size() == 1);
    }
  }

  @Test
  void alarmRetriesWithBackoffTwoSecondsDoubling() {
    List<String> fired = new CopyOnWriteArrayList<>();
    AtomicInteger failuresLeft = new AtomicInteger(2);
    try (Fixture f = new Fixture()) {
      Reminder r =
          f.runtime
              .namespace(
                  "reminder", Reminder.class, ctx -> new ReminderObject(ctx, fired, failuresLeft))
              .get("r");
      r.remindAt(Fixture.START.plusSeconds(1));
      f.time.advance(Fixture.seconds(1));
      await().atMost(WAIT).until(() -> fired.size() == 1);
      await().atMost(WAIT).until(() -> f.time.pending() >= 2); // sweep + retry
      f.time.advance(Fixture.seconds(1.9));
      assertThat(fired).hasSize(1);
      f.time.advance(Fixture.seconds(0.1)); // 2 s after the failure
      await().atMost(WAIT).until(() -> fired.size() == 2);
      await()
          .atMost(WAIT)
          .until(() -> f.runtime.metrics().counter("objects.alarms.retries").getCount() == 2);
      f.time.advance(Fixture.seconds(3.9));
      assertThat(fired).hasSize(2);
      f.time.advance(Fixture.seconds(0.1)); // 4 s after the second failure
      await().atMost(WAIT).until(() -> fired.size() == 3);
      assertThat(fired)
          .containsExactly(
              "2026-01-01T00:00:01Z alarm inside=none",
              "2026-01-01T00:00:03Z alarm inside=none",
              "2026-01-01T00:00:07Z alarm inside=none");
      await().atMost(WAIT).until(() -> r.pendingAlarm() == null);
    }
  }

  @Test
  void alarmGivesUpAfterSixRetries() {
    List<String> fired = new CopyOnWriteArrayList<>();
    AtomicInteger failuresLeft = new AtomicInteger(100);
    try (Fixture f = new Fixture()) {
      Reminder r =
          f.runtime
              .namespace(
                  "reminder", Reminder.class, ctx -> new ReminderObject(ctx, fired, failuresLeft))
              .get("r");
      r.remindAt(Fixture.START);
      f.time.runDue();
      for (int retry = 1; retry <= 6; retry++) {
        int failures = retry;
        await()
            .atMost(WAIT)
            .until(
                () -> f.runtime.metrics().counter("objects.alarms.retries").getCount() == failures);
        f.time.advance(Duration.ofSeconds(1L << retry)); // 2, 4, 8, 16, 32, 64 s
        await().atMost(WAIT).until(() -> fired.size() == failures + 1);
      }
      await().atMost(WAIT).until(() -> r.pendingAlarm() == null);
      f.time.advance(Duration.ofMinutes(10));
      assertThat(fired).hasSize(7);
    }
  }

  @Test
  void alarmSurvivesRestart(@TempDir Path dir) {
    List<String> fired = new CopyOnWriteArrayList<>();
    AtomicInteger failuresLeft = new AtomicInteger(0);
    ManualScheduler time = new ManualScheduler(Fixture.START);
    try (Runtime first = Runtime.builder().dataDir(dir).scheduler(time).build()) {
      first
          .namespace(
              "reminder", Reminder.class, ctx -> new ReminderObject(ctx, fired, failuresLeft))
          .get("r")
          .remindAt(Fixture.START.plusSeconds(60));
    }
    try (Runtime second = Runtime.builder().dataDir(dir).scheduler(time).build()) {
      Reminder r =
          second
              .namespace(
                  "reminder", Reminder.class, ctx -> new ReminderObject(ctx, fired, failuresLeft))
              .get("r");
      time.advance(Duration.ofSeconds(59));
      assertThat(fired).isEmpty();
      time.advance(Duration.ofSeconds(1));
      await().atMost(WAIT).until(() -> fired.size() == 1);
      await().atMost(WAIT).until(() -> r.pendingAlarm() == null);
    }
  }

  @Test
  void anAlarmWhoseEventTheRuntimeFailedFiresAgain(@TempDir Path dir) throws Exception {
    List<String> fired = new CopyOnWriteArrayList<>();
    AtomicInteger failuresLeft = new AtomicInteger(0);
    ManualScheduler time = new ManualScheduler(Fixture.START);
    try (Runtime first = Runtime.builder().dataDir(dir).scheduler(time).build()) {
      first
          .namespace(
              "reminder", Reminder.class, ctx -> new ReminderObject(ctx, fired, failuresLeft))
          .get("r")
          .remindAt(Fixture.START.plusSeconds(100));
    }
    java.util.concurrent.atomic.AtomicBoolean slowStart =
        new java.util.concurrent.atomic.AtomicBoolean(true);
    java.util.concurrent.CountDownLatch starting = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    try (Runtime second = Runtime.builder().dataDir(dir).scheduler(time).build()) {
      Reminder r =
          second
              .namespace(
                  "reminder",
                  Reminder.class,
                  ctx -> {
                    if (slowStart.getAndSet(false)) {
                      // the first instance's start outlasts its blockConcurrencyWhile timeout
                      ctx.blockConcurrencyWhile(
                          () -> {
                            starting.countDown();
                            release.await();
                            return null;
                          });
                    }
                    return new ReminderObject(ctx, fired, failuresLeft);
                  })
              .get("r");
      time.advance(Duration.ofSeconds(100)); // the stored alarm fires and starts the instance
      assertThat(starting.await(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      time.advance(Duration.ofSeconds(31)); // its start times out: the object is reset
      release.countDown();

      // the alarm comes again to a fresh instance (the timed-out start never built an object that
      // could run it). When exactly is not asserted: the reset is carried out by the timed-out
      // start's own thread, woken after virtual time moved on, so a fresh-clone run once saw the
      // alarm at 131 s, right after the release, instead of after the first backoff
      await()
          .atMost(WAIT)
          .until(
              () -> {
                time.advance(Duration.ofSeconds(1));
                return fired.size() == 1;
              });
      await().atMost(WAIT).until(() -> r.pendingAlarm() == null);
      time.advance(Duration.ofSeconds(60)); // and only once: no retry fires it a second time
      assertThat(fired).hasSize(1);
    }
  }

  // ------------------------------------------------------------------ idle eviction

  @Test
  void idleEvictionAndReload() {
    AtomicInteger constructed = new AtomicInteger();
    try (Fixture f = new Fixture(b -> b.idleTimeout(Duration.ofSeconds(30)))) {
      Counter counter =
          f.runtime
              .namespace(
                  "counter",
                  Counter.class,
                  ctx -> {
                    constructed.incrementAndGet();
                    return new CounterObject(ctx);
                  })
              .get("c");
      counter.next();
      counter.next();
      f.runtime.awaitIdle(); // the last batch's confirmation may still be in progress
      assertThat(f.runtime.liveObjects()).isEqualTo(1);
      f.time.advance(Duration.ofSeconds(29));
      assertThat(f.runtime.liveObjects()).isEqualTo(1);
      f.time.advance(Duration.ofSeconds(10));
      assertThat(f.runtime.liveObjects()).isZero();
      assertThat(counter.next()).isEqualTo(2); // reloaded from storage
      assertThat(constructed).hasValue(2);
    }
  }

  // ------------------------------------------------------------------ overload

  interface Blocker {
    String block();

    String hello();
  }

  static final class BlockerObject implements Blocker {
    private final CompletableFuture<Void> entered;
    private final CompletableFuture<Void> release;

    BlockerObject(CompletableFuture<Void> entered, CompletableFuture<Void> release) {
      this.entered = entered;
      this.release = release;
    }

    @Override
    public String block() {
      entered.complete(null);
      release.join(); // keeps the gate closed
      return "done";
    }

    @Override
    public String hello() {
      return "hello";
    }
  }

  /**
   * A deposed leader's runtime is fenced, then closed: a call queued behind a running event never
   * runs. Its caller must learn that the call was not run (a transport failure, 503 over HTTP), not
   * receive an {@code IllegalStateException} as if the object had thrown it.
   */
  @Test
  void aQueuedCallThatTheClosingRuntimeNeverRanFailsTheTransportNotTheObject() throws Exception {
    CompletableFuture<Void> entered = new CompletableFuture<>();
    CompletableFuture<Void> release = new CompletableFuture<>();
    try (Fixture f = new Fixture()) {
      Namespace<Blocker> ns =
          f.runtime.namespace("blocker", Blocker.class, ctx -> new BlockerObject(entered, release));
      ObjectId id = ns.idFromName("b");
      CompletableFuture<String> running = f.async(ns.get("b")::block);
      entered.get(30, TimeUnit.SECONDS);
      CompletableFuture<byte[]> queued =
          f.runtime.transport().call("blocker", id, "hello", "[]".getBytes());
      await().atMost(WAIT).until(() -> f.runtime.queuedEvents("blocker", id) == 1);
      f.runtime.resetAll("deposed");
      CompletableFuture<Void> closing = CompletableFuture.runAsync(f.runtime::close);
      await().atMost(WAIT).until(f.runtime::isClosed);
      release.complete(null);
      assertThatThrownBy(() -> queued.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .cause()
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("was not run");
      assertThatThrownBy(() -> running.get(30, TimeUnit.SECONDS))
          .hasCauseInstanceOf(ObjectResetException.class);
      closing.get(30, TimeUnit.SECONDS);
    }
  }

  @Test
  void overloadRejection() throws Exception {
    CompletableFuture<Void> entered = new CompletableFuture<>();
    CompletableFuture<Void> release = new CompletableFuture<>();
    try (Fixture f = new Fixture(b -> b.maxQueuedEvents(3))) {
      Namespace<Blocker> ns =
          f.runtime.namespace("blocker", Blocker.class, ctx -> new BlockerObject(entered, release));
      Blocker blocker = ns.get("b");
      CompletableFuture<String> running = f.async(blocker::block);
      entered.get();
      List<CompletableFuture<String>> queued = new ArrayList<>();
      for (int i = 0; i < 3; i++) queued.add(f.async(blocker::hello));
      await().atMost(WAIT).until(() -> f.runtime.queuedEvents("blocker", ns.idFromName("b")) == 3);
      assertThatThrownBy(blocker::hello)
          .isInstanceOf(ObjectOverloadedException.class)
          .hasMessageContaining("overloaded")
          .hasMessageContaining("limit 3");
      assertThat(f.meter("overload.rejections")).isEqualTo(1);
      release.complete(null);
      assertThat(running.get()).isEqualTo("done");
      for (CompletableFuture<String> q : queued) assertThat(q.get()).isEqualTo("hello");
      assertThat(blocker.hello()).isEqualTo("hello");
    }
  }
}
