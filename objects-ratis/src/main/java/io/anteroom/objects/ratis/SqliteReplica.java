package io.anteroom.objects.ratis;

import io.anteroom.objects.storage.SqliteStorageEngine;
import io.anteroom.objects.storage.StorageEngine;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A {@link LocalReplica} in a {@link SqliteStorageEngine} under its own directory. A snapshot is a
 * whole SQLite database written by {@code VACUUM INTO} (one read transaction: a consistent copy,
 * compacted, while the engine stays open); a restore closes the engine, swaps the database file and
 * reopens it.
 */
final class SqliteReplica implements LocalReplica {
  private final Path dir;
  private volatile SqliteStorageEngine engine;

  SqliteReplica(Path dir) {
    this.dir = dir;
    this.engine = SqliteStorageEngine.open(dir);
  }

  @Override
  public StorageEngine engine() {
    return engine;
  }

  @Override
  public void snapshotTo(Path file) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + engine.file());
        Statement s = c.createStatement()) {
      s.execute("PRAGMA busy_timeout=10000");
      s.execute("VACUUM INTO '" + tmp.toAbsolutePath().toString().replace("'", "''") + "'");
    } catch (SQLException e) {
      throw new IOException(
          "cannot snapshot " + engine.file() + " into " + tmp + ": " + e.getMessage(), e);
    }
    fsync(tmp);
    Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    fsync(file.getParent());
  }

  @Override
  public void restoreFrom(Path file) throws IOException {
    Path db = dir.resolve(SqliteStorageEngine.FILE_NAME);
    Path tmp = dir.resolve(SqliteStorageEngine.FILE_NAME + ".restoring");
    Files.copy(file, tmp, StandardCopyOption.REPLACE_EXISTING);
    fsync(tmp);
    engine.close();
    // the old WAL belongs to the old file: left beside the new one, SQLite would replay it into it
    Files.deleteIfExists(dir.resolve(SqliteStorageEngine.FILE_NAME + "-wal"));
    Files.deleteIfExists(dir.resolve(SqliteStorageEngine.FILE_NAME + "-shm"));
    Files.move(tmp, db, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    fsync(dir);
    engine = SqliteStorageEngine.open(dir);
  }

  @Override
  public void close() {
    engine.close();
  }

  private static void fsync(Path path) throws IOException {
    boolean directory = Files.isDirectory(path);
    try (FileChannel ch =
        FileChannel.open(path, directory ? StandardOpenOption.READ : StandardOpenOption.WRITE)) {
      ch.force(true);
    }
  }

  @Override
  public String toString() {
    return "SQLite replica in " + dir;
  }
}
