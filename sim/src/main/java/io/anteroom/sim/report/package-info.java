/**
 * What the simulator's reports share: {@link io.anteroom.sim.report.Charts} (XChart line charts and
 * PNG files) and {@link io.anteroom.sim.report.Stats} (means, percentiles, medians).
 */
package io.anteroom.sim.report;
