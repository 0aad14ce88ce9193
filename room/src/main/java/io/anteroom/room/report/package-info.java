/**
 * Event reports and webhooks, decided without I/O: {@link io.anteroom.room.report.EventReport}
 * folds a room's minutes into per-day and per-event totals kept for {@value
 * io.anteroom.room.report.EventReport#RETENTION_DAYS} days; {@link
 * io.anteroom.room.report.StateChanges} detects a room's state changes once; {@link
 * io.anteroom.room.report.WebhookOutbox} schedules their deliveries with back-off (the coordinator
 * signs and sends them).
 */
package io.anteroom.room.report;
