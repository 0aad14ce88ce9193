package io.anteroom.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The baseline: the counter a careful developer writes without the runtime. One lock around read,
 * write and commit, with SQLite in WAL mode and {@code synchronous=FULL}, so each confirmed number
 * is durable (one fsync per operation) and no two callers get the same number.
 *
 * <p>Invariant: the lock is held from the read to the end of the commit, so the read-modify-write
 * is serialized and a number is returned only after its increment is on disk.
 */
final class SqliteLockedCounter implements AutoCloseable {
  private final ReentrantLock lock = new ReentrantLock();
  private final Connection connection;
  private final PreparedStatement read;
  private final PreparedStatement write;

  SqliteLockedCounter(Path file) throws SQLException {
    connection = DriverManager.getConnection("jdbc:sqlite:" + file);
    try (Statement s = connection.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA synchronous=FULL");
      s.execute(
          "CREATE TABLE IF NOT EXISTS counter (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID");
    }
    connection.setAutoCommit(false);
    read = connection.prepareStatement("SELECT value FROM counter WHERE name = ?");
    write =
        connection.prepareStatement(
            "INSERT INTO counter (name, value) VALUES (?, ?) "
                + "ON CONFLICT (name) DO UPDATE SET value = excluded.value");
  }

  /** Returns the current value of {@code name} and stores value + 1, durably, before returning. */
  long next(String name) throws SQLException {
    lock.lock();
    try {
      read.setString(1, name);
      long value;
      try (ResultSet rs = read.executeQuery()) {
        value = rs.next() ? rs.getLong(1) : 0L;
      }
      write.setString(1, name);
      write.setLong(2, value + 1);
      write.executeUpdate();
      connection.commit();
      return value;
    } catch (SQLException e) {
      connection.rollback();
      throw e;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }
}
