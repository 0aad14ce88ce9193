package io.anteroom.objects.ratis;

import io.anteroom.objects.storage.InMemoryStorageEngine;
import io.anteroom.objects.storage.StorageEngine;
import io.anteroom.objects.storage.StorageEngine.AlarmChange;
import io.anteroom.objects.storage.StorageEngine.Batch;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A {@link LocalReplica} in an {@link InMemoryStorageEngine}, for tests: nothing survives the
 * process. A snapshot is the whole content as one list of batches in {@link BatchCodec}'s format.
 * The engine cannot list its objects, so this replica remembers every object it applied.
 */
final class MemoryReplica implements LocalReplica {
  private volatile InMemoryStorageEngine engine = new InMemoryStorageEngine();
  private final Set<String> objects = ConcurrentHashMap.newKeySet();

  @Override
  public StorageEngine engine() {
    return engine;
  }

  @Override
  public void apply(List<Batch> batches, long term, long index) {
    for (Batch b : batches) objects.add(b.object());
    objects.add(META_OBJECT);
    LocalReplica.super.apply(batches, term, index);
  }

  @Override
  public void snapshotTo(Path file) throws IOException {
    InMemoryStorageEngine image = engine.crashImage();
    Map<String, Instant> alarms = image.alarms();
    List<Batch> content = new ArrayList<>();
    for (String object : objects) {
      Map<String, byte[]> rows = image.rows(object);
      Instant alarm = alarms.get(object);
      if (rows.isEmpty() && alarm == null) continue;
      content.add(new Batch(object, true, rows, alarm == null ? null : new AlarmChange(alarm)));
    }
    Files.write(
        file, BatchCodec.encode(content), StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
  }

  @Override
  public void restoreFrom(Path file) throws IOException {
    List<Batch> content = BatchCodec.decode(Files.readAllBytes(file));
    InMemoryStorageEngine fresh = new InMemoryStorageEngine();
    if (!content.isEmpty()) fresh.commit(content);
    objects.clear();
    for (Batch b : content) objects.add(b.object());
    engine = fresh;
  }

  @Override
  public void close() {}
}
