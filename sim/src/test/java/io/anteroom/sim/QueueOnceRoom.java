package io.anteroom.sim;

import io.anteroom.sim.engine.EventLoop;
import java.util.function.Consumer;

/**
 * A stand-in room for testing the traffic machinery alone: every new user is queued once (shown a
 * fixed wait), and admitted on its first refresh; admitted users are always let through. It makes
 * no slot decision at all, so tests can predict the ground truth exactly.
 */
final class QueueOnceRoom implements RoomUnderTest<QueueOnceRoom.Pass> {
  record Pass(long bucket, boolean admitted) {}

  private EventLoop loop;
  private final long replyDelayMillis;

  QueueOnceRoom(long replyDelayMillis) {
    this.replyDelayMillis = replyDelayMillis;
  }

  @Override
  public void start(EventLoop l) {
    this.loop = l;
  }

  @Override
  public void request(int dc, int worker, Pass ticket, Consumer<Reply<Pass>> reply) {
    Reply<Pass> answer =
        ticket == null
            ? new Reply<>(false, new Pass(loop.now() / 60_000, false), 0.5, "")
            : new Reply<>(true, new Pass(ticket.bucket(), true), Double.NaN, "REFRESHED");
    loop.after(replyDelayMillis, () -> reply.accept(answer));
  }

  @Override
  public long bucketOf(Pass ticket) {
    return ticket.bucket();
  }
}
