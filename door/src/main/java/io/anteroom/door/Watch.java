package io.anteroom.door;

import io.anteroom.door.queue.HeldPolls;
import io.anteroom.room.Ticket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * One push poll of the queue page ({@link Door#watch}): answered at once, or held until the room
 * lets the user's bucket enter ({@link io.anteroom.door.queue.EntryRule}), the adapter's timer runs
 * out ({@link #expire}) or the client leaves ({@link #cancel}). The answer never admits, sets no
 * cookie and is never cached: {@code {"enter": true}} tells the page to reload (that request is
 * decided like any refresh), {@code {"enter": false}} to poll again, and {@code {"enter": false,
 * "push": false}} (also {@code 503} when the gateway holds {@code maxHeldPolls} already) to stop
 * polling and keep refreshing.
 */
public final class Watch {

  private static final List<Answer.Header> HEADERS =
      List.of(
          new Answer.Header("Content-Type", "application/json"),
          new Answer.Header("Cache-Control", "no-store"));

  private final CompletableFuture<Answer.Respond> answer;
  private final HeldPolls.Poll poll;

  private Watch(CompletableFuture<Answer.Respond> answer, HeldPolls.Poll poll) {
    this.answer = answer;
    this.poll = poll;
  }

  /** The answer: complete at once, or when the poll is woken, expired or cancelled. */
  public CompletionStage<Answer.Respond> answer() {
    return answer;
  }

  /** Whether the poll is held (the adapter then sets its timer and watches the connection). */
  public boolean held() {
    return poll != null && !answer.isDone();
  }

  /** The adapter's timer ran out: answered "not yet" ({@code {"enter": false}}). */
  public void expire() {
    if (poll != null) {
      poll.release();
    }
  }

  /** The client left: the place is freed (the answer is not written anywhere). */
  public void cancel() {
    expire();
  }

  /**
   * The answer of an adapter that cannot hold a poll (a servlet container without async support):
   * no push here, the page keeps refreshing.
   */
  public static Watch unavailable() {
    return now(null, null, Reply.NO_PUSH);
  }

  static Watch now(String roomId, Ticket ticket, Reply reply) {
    return new Watch(CompletableFuture.completedFuture(respond(roomId, ticket, reply)), null);
  }

  static Watch held(String roomId, Ticket ticket, HeldPolls.Poll poll) {
    CompletableFuture<Answer.Respond> answer =
        poll.outcome()
            .thenApply(enter -> respond(roomId, ticket, enter ? Reply.ENTER : Reply.NOT_YET));
    return new Watch(answer, poll);
  }

  /** The three answers of a push poll. */
  enum Reply {
    /** Try again now: reload the page. */
    ENTER(200, "{\"enter\":true}", "push_enter"),
    /** Nothing yet: poll again. */
    NOT_YET(200, "{\"enter\":false}", "push_wait"),
    /** No push for this request (no waiting ticket, no room, push off): keep refreshing. */
    NO_PUSH(200, "{\"enter\":false,\"push\":false}", "push_none"),
    /** The gateway holds {@code maxHeldPolls} already: keep refreshing. */
    FULL(503, "{\"enter\":false,\"push\":false}", "push_full");

    final int status;
    final byte[] body;
    final String decision;

    Reply(int status, String body, String decision) {
      this.status = status;
      this.body = body.getBytes(StandardCharsets.UTF_8);
      this.decision = decision;
    }
  }

  private static Answer.Respond respond(String roomId, Ticket ticket, Reply reply) {
    List<Answer.Header> headers =
        reply == Reply.FULL
            ? List.of(HEADERS.get(0), HEADERS.get(1), new Answer.Header("Retry-After", "30"))
            : HEADERS;
    return new Answer.Respond(
        reply.status, headers, reply.body, false, roomId, reply.decision, ticket, () -> {});
  }
}
