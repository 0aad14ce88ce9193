package io.anteroom.objects.storage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * The default {@link StorageEngine}: one SQLite file ({@code objects.db}) under a data directory,
 * WAL journal, {@code synchronous=FULL} (every commit is fsynced), one {@code WITHOUT ROWID} table
 * keyed by (object, key) and one small table of alarms.
 *
 * <p>Invariants: commits use one dedicated write connection and are only ever called from the
 * runtime's single group-commit writer thread; reads borrow one of a few read-only connections (WAL
 * lets them run while a commit is in progress and they see only committed data).
 *
 * <pre>{@code
 * Runtime runtime = Runtime.builder().storage(SqliteStorageEngine.open(Path.of("data"))).build();
 * }</pre>
 */
public final class SqliteStorageEngine implements StorageEngine {
  /** The file name of the database inside the data directory. */
  public static final String FILE_NAME = "objects.db";

  private static final int READERS = 4;

  private final Path file;
  private final Connection writer;
  private final PreparedStatement deleteAllStatement;
  private final PreparedStatement upsertStatement;
  private final PreparedStatement deleteStatement;
  private final PreparedStatement setAlarmStatement;
  private final PreparedStatement deleteAlarmStatement;
  private final BlockingQueue<Connection> readers = new ArrayBlockingQueue<>(READERS);
  private final List<Connection> allReaders = new ArrayList<>();
  private volatile boolean closed;

  private SqliteStorageEngine(Path file) throws SQLException {
    this.file = file;
    this.writer = connect(file);
    try (Statement s = writer.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA synchronous=FULL");
      s.execute("PRAGMA busy_timeout=10000");
      s.execute(
          "CREATE TABLE IF NOT EXISTS kv (object TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,"
              + " PRIMARY KEY (object, key)) WITHOUT ROWID");
      s.execute(
          "CREATE TABLE IF NOT EXISTS alarms (object TEXT NOT NULL PRIMARY KEY, at_millis INTEGER NOT NULL)"
              + " WITHOUT ROWID");
    }
    writer.setAutoCommit(false);
    // prepared once: only the single group-commit writer thread uses them
    deleteAllStatement = writer.prepareStatement("DELETE FROM kv WHERE object = ?");
    upsertStatement =
        writer.prepareStatement("INSERT OR REPLACE INTO kv (object, key, value) VALUES (?, ?, ?)");
    deleteStatement = writer.prepareStatement("DELETE FROM kv WHERE object = ? AND key = ?");
    setAlarmStatement =
        writer.prepareStatement("INSERT OR REPLACE INTO alarms (object, at_millis) VALUES (?, ?)");
    deleteAlarmStatement = writer.prepareStatement("DELETE FROM alarms WHERE object = ?");
    for (int i = 0; i < READERS; i++) {
      Connection r = connect(file);
      try (Statement s = r.createStatement()) {
        s.execute("PRAGMA busy_timeout=10000");
        s.execute("PRAGMA query_only=true");
      }
      allReaders.add(r);
      readers.add(r);
    }
  }

  /**
   * A connection to {@code file} from sqlite-jdbc's driver itself: {@code DriverManager} would
   * first look for every JDBC driver on the class path (a {@code ServiceLoader} reading each of the
   * distribution's 70 jars: 5-20 ms of a start, measured), for the one driver used here.
   */
  private static Connection connect(Path file) throws SQLException {
    return org.sqlite.JDBC.createConnection(org.sqlite.JDBC.PREFIX + file, new Properties());
  }

  /**
   * Opens (creating if needed) the database in {@code dataDir}.
   *
   * @throws UncheckedIOException if the directory cannot be created or the file opened
   */
  public static SqliteStorageEngine open(Path dataDir) {
    try {
      Files.createDirectories(dataDir);
      return new SqliteStorageEngine(dataDir.resolve(FILE_NAME));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create data directory " + dataDir, e);
    } catch (SQLException e) {
      throw new UncheckedIOException(
          new IOException(
              "cannot open SQLite database " + dataDir.resolve(FILE_NAME) + ": " + e.getMessage(),
              e));
    }
  }

  /** The database file. */
  public Path file() {
    return file;
  }

  @Override
  public byte[] get(String object, String key) {
    return withReader(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement("SELECT value FROM kv WHERE object = ? AND key = ?")) {
            ps.setString(1, object);
            ps.setString(2, key);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next() ? rs.getBytes(1) : null;
            }
          }
        });
  }

  @Override
  public List<Map.Entry<String, byte[]>> list(String object, KeyRange range) {
    if (range.isEmpty()) return List.of();
    StringBuilder sql = new StringBuilder("SELECT key, value FROM kv WHERE object = ?");
    if (range.start() != null)
      sql.append(range.startInclusive() ? " AND key >= ?" : " AND key > ?");
    if (range.end() != null) sql.append(" AND key < ?");
    sql.append(range.reverse() ? " ORDER BY key DESC" : " ORDER BY key");
    if (range.limit() > 0) sql.append(" LIMIT ").append(range.limit());
    return withReader(
        c -> {
          try (PreparedStatement ps = c.prepareStatement(sql.toString())) {
            int i = 1;
            ps.setString(i++, object);
            if (range.start() != null) ps.setString(i++, range.start());
            if (range.end() != null) ps.setString(i, range.end());
            List<Map.Entry<String, byte[]>> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
              while (rs.next()) out.add(Map.entry(rs.getString(1), rs.getBytes(2)));
            }
            return out;
          }
        });
  }

  @Override
  public Optional<Instant> getAlarm(String object) {
    return withReader(
        c -> {
          try (PreparedStatement ps =
              c.prepareStatement("SELECT at_millis FROM alarms WHERE object = ?")) {
            ps.setString(1, object);
            try (ResultSet rs = ps.executeQuery()) {
              return rs.next()
                  ? Optional.of(Instant.ofEpochMilli(rs.getLong(1)))
                  : Optional.<Instant>empty();
            }
          }
        });
  }

  @Override
  public Map<String, Instant> alarms() {
    return withReader(
        c -> {
          Map<String, Instant> out = new HashMap<>();
          try (Statement s = c.createStatement();
              ResultSet rs = s.executeQuery("SELECT object, at_millis FROM alarms")) {
            while (rs.next()) out.put(rs.getString(1), Instant.ofEpochMilli(rs.getLong(2)));
          }
          return out;
        });
  }

  @Override
  public void commit(List<Batch> batches) {
    checkOpen();
    try {
      if (distinctObjects(batches)) {
        apply(batches);
      } else {
        for (Batch b : batches) apply(List.of(b));
      }
      writer.commit();
    } catch (SQLException e) {
      try {
        writer.rollback();
      } catch (SQLException rollbackFailure) {
        e.addSuppressed(rollbackFailure);
      }
      throw new IllegalStateException(
          "SQLite commit of "
              + batches.size()
              + " batches failed in "
              + file
              + ": "
              + e.getMessage(),
          e);
    }
  }

  private static boolean distinctObjects(List<Batch> batches) {
    java.util.Set<String> seen = new java.util.HashSet<>();
    for (Batch b : batches) {
      if (!seen.add(b.object())) return false;
    }
    return true;
  }

  /**
   * Applies batches of distinct objects. Their statements commute, so every deleteAll runs first,
   * then all key deletes, then all upserts, each as one JDBC batch: few native calls per commit,
   * whatever the number of objects.
   */
  private void apply(List<Batch> batches) throws SQLException {
    boolean deleteAlls = false;
    boolean deletes = false;
    boolean upserts = false;
    for (Batch b : batches) {
      if (b.deleteAll()) {
        deleteAllStatement.setString(1, b.object());
        deleteAllStatement.addBatch();
        deleteAlls = true;
      }
    }
    if (deleteAlls) deleteAllStatement.executeBatch();
    for (Batch b : batches) {
      for (Map.Entry<String, byte[]> w : b.writes().entrySet()) {
        if (w.getValue() == null) {
          deleteStatement.setString(1, b.object());
          deleteStatement.setString(2, w.getKey());
          deleteStatement.addBatch();
          deletes = true;
        } else {
          upsertStatement.setString(1, b.object());
          upsertStatement.setString(2, w.getKey());
          upsertStatement.setBytes(3, w.getValue());
          upsertStatement.addBatch();
          upserts = true;
        }
      }
      if (b.alarm() != null) {
        if (b.alarm().at() == null) {
          deleteAlarmStatement.setString(1, b.object());
          deleteAlarmStatement.executeUpdate();
        } else {
          setAlarmStatement.setString(1, b.object());
          setAlarmStatement.setLong(2, b.alarm().at().toEpochMilli());
          setAlarmStatement.executeUpdate();
        }
      }
    }
    if (deletes) deleteStatement.executeBatch();
    if (upserts) upsertStatement.executeBatch();
  }

  @Override
  public synchronized void close() {
    if (closed) return;
    closed = true;
    List<SQLException> failures = new ArrayList<>();
    for (Connection c : allReaders) {
      try {
        c.close();
      } catch (SQLException e) {
        failures.add(e);
      }
    }
    try {
      writer.close();
    } catch (SQLException e) {
      failures.add(e);
    }
    if (!failures.isEmpty()) {
      IllegalStateException e =
          new IllegalStateException("closing SQLite database " + file + " failed", failures.get(0));
      failures.stream().skip(1).forEach(e::addSuppressed);
      throw e;
    }
  }

  private void checkOpen() {
    if (closed) throw new IllegalStateException("storage engine is closed: " + file);
  }

  private interface Read<R> {
    R apply(Connection c) throws SQLException;
  }

  private <R> R withReader(Read<R> read) {
    checkOpen();
    Connection c;
    try {
      c = readers.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for a SQLite read connection", e);
    }
    try {
      return read.apply(c);
    } catch (SQLException e) {
      throw new IllegalStateException("SQLite read failed in " + file + ": " + e.getMessage(), e);
    } finally {
      readers.add(c);
    }
  }
}
