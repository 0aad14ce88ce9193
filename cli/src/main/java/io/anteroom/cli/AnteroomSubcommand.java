package io.anteroom.cli;

/**
 * A command of the {@code anteroom} command line contributed by a module: a picocli
 * {@code @Command} class with a public no-argument constructor, listed in that module's {@code
 * META-INF/services/io.anteroom.cli.AnteroomSubcommand} (the coordinator's {@code coordinator} and
 * {@code cluster}, the simulator's {@code simulate}). The command line ({@code
 * io.anteroom.gateway.Main}) adds every one the class path holds, so {@code anteroom --help} and
 * {@code anteroom help NAME} know it like the built-in commands.
 */
public interface AnteroomSubcommand {}
