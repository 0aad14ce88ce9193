package io.anteroom.room.report;

/**
 * One change of a room's state, as a webhook announces it.
 *
 * @param id unique per deployment and stable across retries and restarts ({@code room/number}): a
 *     receiver drops a body whose id it has seen
 * @param room the room's id
 * @param type what changed: {@code queueing.began}, {@code queueing.ended}, {@code degraded},
 *     {@code recovered}, {@code event.prequeue}, {@code event.start}, {@code event.end}, {@code
 *     config.changed}
 * @param subject what it concerns: the data center (degraded, recovered), the event's name
 *     (event.*), the change's source (config.changed), or null
 * @param atMillis when it was detected (epoch milliseconds, the coordinator's clock)
 * @param detail a sentence for people
 */
public record StateChange(
    String id, String room, String type, String subject, long atMillis, String detail) {}
