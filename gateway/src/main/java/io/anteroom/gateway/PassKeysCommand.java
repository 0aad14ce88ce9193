package io.anteroom.gateway;

import io.anteroom.door.config.ConfigLoader;
import io.anteroom.pass.PassKeys;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code anteroom pass-keys create|list|rotate|retire KID}: the keys of the signed pass ({@code
 * dataDir/pass-keys}, {@link PassKeys}) for operators, rotated like ticket keys. The file is found
 * in {@code --data-dir DIR}, else in the {@code dataDir} of {@code --config FILE} (default {@code
 * ./anteroom.yaml} when it exists). Gateways read the file at start: after a change, copy it to
 * every gateway of the deployment and restart them.
 */
@Command(
    name = "pass-keys",
    mixinStandardHelpOptions = true,
    description =
        "Create, list, rotate or retire the keys that sign the pass (dataDir/pass-keys). Gateways read"
            + " the file at start: copy it to every gateway and restart them after a change.",
    subcommands = {
      PassKeysCommand.Create.class,
      PassKeysCommand.ListKeys.class,
      PassKeysCommand.Rotate.class,
      PassKeysCommand.Retire.class
    })
final class PassKeysCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "pass-keys needs a command: create, list, rotate or retire KID");
  }

  /** Where the key file is: {@code --data-dir}, or the config file's {@code dataDir}. */
  static class Where {
    @Option(
        names = "--data-dir",
        paramLabel = "DIR",
        description = "the data directory holding pass-keys (overrides the config's dataDir)")
    Path dataDir;

    @Option(
        names = "--config",
        paramLabel = "FILE",
        description = "YAML configuration whose dataDir holds pass-keys (default: ./anteroom.yaml)")
    Path config;

    /** The key file, which must exist (only {@code create} makes one). */
    Path file() {
      Path file = path();
      if (!Files.exists(file)) {
        throw new IllegalArgumentException(
            "no pass key file "
                + file
                + ": anteroom pass-keys create (or anteroom run, or the filter, at its first start)"
                + " makes it; a gateway of a deployment uses a copy of that file");
      }
      return file;
    }

    /** Where the key file is or would be. */
    Path path() {
      Path dir = dataDir;
      if (dir == null) {
        Path yaml = config != null ? config : Path.of("anteroom.yaml");
        if (config == null && !Files.exists(yaml)) {
          throw new IllegalArgumentException(
              "give --data-dir DIR (or --config FILE) naming the data directory of the pass keys");
        }
        dir = ConfigLoader.load(yaml).dataDir();
      }
      return dir.resolve(PassKeys.FILE);
    }
  }

  /** Runs {@code action}, turning the key file's faults into one line (exit code 2). */
  static PassKeys keys(java.util.function.Supplier<PassKeys> action) {
    try {
      return action.get();
    } catch (UncheckedIOException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
  }

  static void describe(PrintWriter out, Path file, PassKeys keys) {
    List<String> ids = keys.keyIds();
    out.println("pass keys in " + file + " (the first signs, all verify):");
    for (int i = 0; i < ids.size(); i++) {
      out.println("  " + ids.get(i) + (i == 0 ? "  signs" : "  verifies"));
    }
    keys.warnings().forEach(w -> out.println("warning: " + w));
  }

  @Command(
      name = "create",
      mixinStandardHelpOptions = true,
      description =
          "Make the pass key file (one key and the pass-id secret, mode 0600) unless it exists:"
              + " for a deployment whose gateways must all use one copy of it.")
  static final class Create implements Callable<Integer> {
    @CommandLine.Mixin Where where;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Path file = where.path();
      boolean existed = Files.exists(file);
      PassKeys keys = keys(() -> PassKeys.openOrCreate(file.getParent()));
      var out = spec.commandLine().getOut();
      out.println(
          existed
              ? file + " exists: kept as it is"
              : "created "
                  + file
                  + ": copy it to the data directory of every gateway of the deployment");
      describe(out, file, keys);
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "list",
      mixinStandardHelpOptions = true,
      description = "List the pass keys: the key that signs first, then those that still verify.")
  static final class ListKeys implements Callable<Integer> {
    @CommandLine.Mixin Where where;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Path file = where.file();
      describe(spec.commandLine().getOut(), file, keys(() -> PassKeys.read(file)));
      spec.commandLine().getOut().flush();
      return 0;
    }
  }

  @Command(
      name = "rotate",
      mixinStandardHelpOptions = true,
      description =
          "Add a new key in front: it signs from the next start of each gateway; the others"
              + " still verify. Pass ids do not change.")
  static final class Rotate implements Callable<Integer> {
    @CommandLine.Mixin Where where;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
      Path file = where.file();
      PassKeys before = keys(() -> PassKeys.read(file));
      PassKeys after = keys(() -> PassKeys.rotate(file));
      var out = spec.commandLine().getOut();
      out.println(
          "rotated: "
              + after.currentKeyId()
              + " signs passes from the next start of each gateway; "
              + String.join(", ", before.keyIds())
              + " still verify.");
      out.println(
          "Copy "
              + file
              + " to every gateway of the deployment and restart them; once every gateway signs"
              + " with the new key and 5 minutes have passed, retire the old one: anteroom"
              + " pass-keys retire "
              + before.currentKeyId());
      describe(out, file, after);
      out.flush();
      return 0;
    }
  }

  @Command(
      name = "retire",
      mixinStandardHelpOptions = true,
      description =
          "Remove a key: passes it signed are refused from then on. Only once they have expired"
              + " (5 minutes after every gateway signs with a newer key); the signing key cannot"
              + " be retired.")
  static final class Retire implements Callable<Integer> {
    @CommandLine.Mixin Where where;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Parameters(paramLabel = "KID", description = "the id of the key to retire (see list)")
    String keyId;

    @Override
    public Integer call() {
      Path file = where.file();
      PassKeys after = keys(() -> PassKeys.retire(file, keyId));
      var out = spec.commandLine().getOut();
      out.println(
          "retired: "
              + keyId
              + "; copy "
              + file
              + " to every gateway and restart them: their JWKS then drops it, and the passes it"
              + " signed are refused.");
      describe(out, file, after);
      out.flush();
      return 0;
    }
  }
}
