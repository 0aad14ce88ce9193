/**
 * The coordinator process: {@code anteroom coordinator} ({@link
 * io.anteroom.coordinator.server.CoordinatorCommand}: the room objects served to remote gateways,
 * by {@link io.anteroom.coordinator.CoordinatorServer}, or one peer of the replicated coordinator,
 * {@link io.anteroom.coordinator.server.CoordinatorPeer}) and {@code anteroom cluster} ({@link
 * io.anteroom.coordinator.server.ClusterCommand}: the replicated coordinator's membership, backup
 * and restore). Both are contributed to the command line as {@link
 * io.anteroom.cli.AnteroomSubcommand}s.
 */
package io.anteroom.coordinator.server;
