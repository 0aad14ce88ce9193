/**
 * Not API: what Ratis loads by name. {@link io.anteroom.objects.ratis.internal.LeanRatisMetrics} is
 * the metrics implementation Ratis' servers find through {@link java.util.ServiceLoader}.
 */
package io.anteroom.objects.ratis.internal;
