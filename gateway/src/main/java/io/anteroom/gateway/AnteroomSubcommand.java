package io.anteroom.gateway;

/**
 * A command of the {@code anteroom} command line contributed by another module, e.g. the
 * simulator's {@code simulate}: a picocli {@code @Command} class with a public no-argument
 * constructor, listed in that module's {@code
 * META-INF/services/io.anteroom.gateway.AnteroomSubcommand}. {@link Main} adds every one the class
 * path holds, so {@code anteroom --help} and {@code anteroom help NAME} know it like the built-in
 * commands.
 */
public interface AnteroomSubcommand {}
