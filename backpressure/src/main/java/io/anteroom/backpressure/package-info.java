/**
 * Back-pressure between Anteroom's parts, after "Knowing when to back off".
 *
 * <ul>
 *   <li>Server side: {@link io.anteroom.backpressure.ThresholdMonitor} decides whether an operation
 *       is overloaded (throughput or median latency above a threshold).
 *   <li>On the wire: {@link io.anteroom.backpressure.ThrottleSignal} names the JSON field {@code
 *       throttle} and the header {@code Anteroom-Throttle: 1|0}.
 *   <li>Client side: a {@link io.anteroom.backpressure.RateController} turns the signal into the
 *       delay before the next periodic request: {@link io.anteroom.backpressure.AimdRateController}
 *       (the default) or {@link io.anteroom.backpressure.IntervalRuleController} (the reference
 *       text's rule, kept for comparison).
 * </ul>
 */
package io.anteroom.backpressure;
