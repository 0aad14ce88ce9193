package io.anteroom.objects.ratis;

import io.anteroom.objects.storage.StorageEngine.AlarmChange;
import io.anteroom.objects.storage.StorageEngine.Batch;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The binary form of one group-commit ({@code List<Batch>}) as it travels in a Raft log entry, and
 * of a whole in-memory replica in a snapshot.
 *
 * <p>Layout (big-endian, {@link DataOutputStream}): a format byte ({@value #FORMAT_V1}), the batch
 * count, then per batch: object (string), deleteAll (boolean), write count, per write: key (string)
 * and value (int length, {@code -1} for a delete, then the bytes), then the alarm change (byte
 * {@code 0} none, {@code 1} delete, {@code 2} set followed by epoch seconds (long) and nanos
 * (int)). A string is its UTF-8 length (int) and bytes. The map order of the writes is kept.
 *
 * <p>Entries stay in the log and in snapshots for as long as a peer may replay them, so a format
 * once released is read forever: a new layout takes a new format byte.
 */
final class BatchCodec {
  static final byte FORMAT_V1 = 1;
  private static final byte ALARM_NONE = 0;
  private static final byte ALARM_DELETE = 1;
  private static final byte ALARM_SET = 2;

  private BatchCodec() {}

  static byte[] encode(List<Batch> batches) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(64 + 64 * batches.size());
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      out.writeByte(FORMAT_V1);
      out.writeInt(batches.size());
      for (Batch b : batches) {
        writeString(out, b.object());
        out.writeBoolean(b.deleteAll());
        out.writeInt(b.writes().size());
        for (Map.Entry<String, byte[]> w : b.writes().entrySet()) {
          writeString(out, w.getKey());
          byte[] v = w.getValue();
          if (v == null) {
            out.writeInt(-1);
          } else {
            out.writeInt(v.length);
            out.write(v);
          }
        }
        if (b.alarm() == null) {
          out.writeByte(ALARM_NONE);
        } else if (b.alarm().at() == null) {
          out.writeByte(ALARM_DELETE);
        } else {
          out.writeByte(ALARM_SET);
          out.writeLong(b.alarm().at().getEpochSecond());
          out.writeInt(b.alarm().at().getNano());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot happen: writing to memory", e);
    }
    return bytes.toByteArray();
  }

  /**
   * @throws IllegalArgumentException if {@code data} is not a whole entry of a known format
   */
  static List<Batch> decode(byte[] data) {
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(data))) {
      byte format = in.readByte();
      if (format != FORMAT_V1) {
        throw new IllegalArgumentException(
            "unknown batch format "
                + format
                + " (this version reads format "
                + FORMAT_V1
                + "): a newer peer wrote this entry");
      }
      int count = count(in, "batch");
      List<Batch> batches = new ArrayList<>(Math.min(count, 4096));
      for (int i = 0; i < count; i++) {
        String object = readString(in);
        boolean deleteAll = in.readBoolean();
        int writeCount = count(in, "write");
        Map<String, byte[]> writes = new LinkedHashMap<>();
        for (int j = 0; j < writeCount; j++) {
          String key = readString(in);
          int length = in.readInt();
          if (length < -1)
            throw new IllegalArgumentException("corrupt batch entry: value length " + length);
          byte[] value = length == -1 ? null : in.readNBytes(length);
          if (value != null && value.length != length) throw new EOFException();
          writes.put(key, value);
        }
        AlarmChange alarm =
            switch (in.readByte()) {
              case ALARM_NONE -> null;
              case ALARM_DELETE -> new AlarmChange(null);
              case ALARM_SET -> new AlarmChange(Instant.ofEpochSecond(in.readLong(), in.readInt()));
              default ->
                  throw new IllegalArgumentException("corrupt batch entry: unknown alarm tag");
            };
        batches.add(new Batch(object, deleteAll, writes, alarm));
      }
      if (in.read() != -1)
        throw new IllegalArgumentException(
            "corrupt batch entry: trailing bytes after " + count + " batches");
      return batches;
    } catch (EOFException e) {
      throw new IllegalArgumentException(
          "corrupt batch entry: truncated (" + data.length + " bytes)", e);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot happen: reading from memory", e);
    }
  }

  private static int count(DataInputStream in, String what) throws IOException {
    int n = in.readInt();
    if (n < 0) throw new IllegalArgumentException("corrupt batch entry: " + what + " count " + n);
    return n;
  }

  private static void writeString(DataOutputStream out, String s) throws IOException {
    byte[] utf8 = s.getBytes(StandardCharsets.UTF_8);
    out.writeInt(utf8.length);
    out.write(utf8);
  }

  private static String readString(DataInputStream in) throws IOException {
    int length = in.readInt();
    if (length < 0)
      throw new IllegalArgumentException("corrupt batch entry: string length " + length);
    byte[] utf8 = in.readNBytes(length);
    if (utf8.length != length) throw new EOFException();
    return new String(utf8, StandardCharsets.UTF_8);
  }
}
