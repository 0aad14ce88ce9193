/**
 * What every command of the {@code anteroom} command line shares, whichever module contributes it:
 * the plug-in point ({@link io.anteroom.cli.AnteroomSubcommand}) and how a long-running command
 * runs until the process stops ({@link io.anteroom.cli.UntilShutdown}).
 */
package io.anteroom.cli;
