package io.anteroom.objects.ratis;

import io.anteroom.objects.storage.SqliteStorageEngine;
import io.anteroom.objects.storage.StorageEngine.Batch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Backs up a peer's copies of its shards, and restores them into the empty data directories of a
 * new cluster (docs/cluster.md, "Back up and restore a cluster").
 *
 * <ul>
 *   <li>{@link #backup}: an online, consistent copy of each {@code shards/<n>/objects.db} of a
 *       running (or stopped) peer, written by SQLite's {@code VACUUM INTO} (one read transaction;
 *       the peer keeps writing). A peer's copy holds every entry it applied: take it from a peer
 *       that is up to date (the leader, or a follower whose {@code /health} shows an applied index
 *       close to the commit index).
 *   <li>{@link #restore}: puts the backed-up copies into a data directory that holds no Raft log
 *       and no copy yet, without the applied log index they carry: that index counts entries of the
 *       old cluster's log, and a copy that kept it would skip as many entries of the new cluster's
 *       log (writes confirmed and never applied). Every peer of the new cluster restores the same
 *       backup, so they start from the same state and apply the new log on top of it.
 * </ul>
 *
 * <p>The shard count of the new cluster must be the backup's: each object's shard is a hash of its
 * name modulo the count.
 */
public final class ShardBackup {
  private static final Pattern BACKUP_FILE = Pattern.compile("shard-(\\d+)\\.db");

  private ShardBackup() {}

  /** One shard's copy, backed up or restored. */
  public record Copy(int shard, Path file, long appliedIndex, long bytes) {}

  /**
   * Writes {@code dataDir}'s copy of every shard to {@code out/shard-<n>.db} ({@code out} is
   * created; existing backups there are refused).
   *
   * @throws IllegalArgumentException if {@code dataDir} holds no shard copy, or a backup exists
   */
  public static List<Copy> backup(Path dataDir, Path out) {
    List<Integer> shards = shards(dataDir.resolve("shards"));
    if (shards.isEmpty())
      throw new IllegalArgumentException(
          dataDir + " holds no shard copy (shards/<n>/objects.db): is it a peer's data directory?");
    try {
      Files.createDirectories(out);
      List<Copy> copies = new ArrayList<>();
      for (int shard : shards) {
        Path db = shardDir(dataDir, shard).resolve(SqliteStorageEngine.FILE_NAME);
        Path target = out.resolve("shard-" + shard + ".db");
        if (Files.exists(target))
          throw new IllegalArgumentException(
              target + " exists: back up into an empty directory (a backup is never overwritten)");
        Path tmp = out.resolve("shard-" + shard + ".db.tmp");
        Files.deleteIfExists(tmp);
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + db);
            Statement s = c.createStatement()) {
          s.execute("PRAGMA busy_timeout=10000");
          s.execute("VACUUM INTO '" + tmp.toAbsolutePath().toString().replace("'", "''") + "'");
        } catch (SQLException e) {
          throw new UncheckedIOException(
              new IOException("cannot back up " + db + " into " + tmp + ": " + e.getMessage(), e));
        }
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
        copies.add(new Copy(shard, target, appliedIndex(target), size(target)));
      }
      return copies;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the backup into " + out, e);
    }
  }

  /**
   * Puts every {@code from/shard-<n>.db} into {@code dataDir/shards/<n>/objects.db}, with no
   * applied log index, for a peer of a new cluster to start on.
   *
   * @throws IllegalArgumentException if {@code from} holds no backup, or {@code dataDir} already
   *     holds a Raft log or a shard copy (a peer's directory: restoring there would lose it)
   */
  public static List<Copy> restore(Path from, Path dataDir) {
    List<Integer> shards = new ArrayList<>();
    try (Stream<Path> files = Files.list(from)) {
      for (Path f : files.toList()) {
        Matcher m = BACKUP_FILE.matcher(f.getFileName().toString());
        if (m.matches()) shards.add(Integer.parseInt(m.group(1)));
      }
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the backup in " + from + ": " + e, e);
    }
    if (shards.isEmpty())
      throw new IllegalArgumentException(from + " holds no backup (shard-<n>.db files)");
    shards.sort(null);
    for (int i = 0; i < shards.size(); i++) {
      if (shards.get(i) != i)
        throw new IllegalArgumentException(
            from
                + " lacks shard-"
                + i
                + ".db: a backup holds every shard, 0 to "
                + shards.getLast());
    }
    for (String sub : List.of("raft", "shards")) {
      Path p = dataDir.resolve(sub);
      if (notEmpty(p))
        throw new IllegalArgumentException(
            dataDir
                + " already holds "
                + sub
                + "/: restore into the empty data directory of a new peer (move this one aside"
                + " first)");
    }
    List<Copy> copies = new ArrayList<>();
    for (int shard : shards) {
      Path dir = shardDir(dataDir, shard);
      Path db = dir.resolve(SqliteStorageEngine.FILE_NAME);
      try {
        Files.createDirectories(dir);
        Files.copy(from.resolve("shard-" + shard + ".db"), db);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot restore shard " + shard + " into " + db, e);
      }
      long applied;
      try (SqliteStorageEngine engine = SqliteStorageEngine.open(dir)) {
        applied = appliedIndexOf(engine);
        // the old cluster's log index means nothing to the new cluster's log
        engine.commit(List.of(new Batch(LocalReplica.META_OBJECT, true, Map.of(), null)));
      }
      copies.add(new Copy(shard, db, applied, size(db)));
    }
    return copies;
  }

  /** The applied log index a backed-up copy records (read without changing the file). */
  private static long appliedIndex(Path file) {
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:file:" + file + "?mode=ro");
        var q = c.prepareStatement("SELECT value FROM kv WHERE object = ? AND key = ?")) {
      q.setString(1, LocalReplica.META_OBJECT);
      q.setString(2, LocalReplica.APPLIED_KEY);
      try (var r = q.executeQuery()) {
        return r.next() ? java.nio.ByteBuffer.wrap(r.getBytes(1)).getLong(Long.BYTES) : 0;
      }
    } catch (SQLException e) {
      throw new UncheckedIOException(
          new IOException("cannot read the backup " + file + ": " + e.getMessage(), e));
    }
  }

  private static long appliedIndexOf(SqliteStorageEngine engine) {
    byte[] v = engine.get(LocalReplica.META_OBJECT, LocalReplica.APPLIED_KEY);
    return v == null ? 0 : java.nio.ByteBuffer.wrap(v).getLong(Long.BYTES);
  }

  private static List<Integer> shards(Path dir) {
    List<Integer> shards = new ArrayList<>();
    if (!Files.isDirectory(dir)) return shards;
    try (Stream<Path> subs = Files.list(dir)) {
      for (Path p : subs.toList()) {
        String name = p.getFileName().toString();
        if (name.matches("\\d+") && Files.exists(p.resolve(SqliteStorageEngine.FILE_NAME)))
          shards.add(Integer.parseInt(name));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    shards.sort(null);
    return shards;
  }

  private static Path shardDir(Path dataDir, int shard) {
    return dataDir.resolve("shards").resolve(Integer.toString(shard));
  }

  private static boolean notEmpty(Path dir) {
    if (!Files.isDirectory(dir)) return false;
    try (Stream<Path> s = Files.list(dir)) {
      return s.findAny().isPresent();
    } catch (IOException e) {
      return true;
    }
  }

  private static long size(Path p) {
    try {
      return Files.size(p);
    } catch (IOException e) {
      return -1;
    }
  }
}
