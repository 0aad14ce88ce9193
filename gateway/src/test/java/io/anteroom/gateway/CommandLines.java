package io.anteroom.gateway;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs an {@code anteroom} command line in this process, for tests of other packages. */
public final class CommandLines {
  private CommandLines() {}

  /** Exit code, standard output and standard error of a command. */
  public record Outcome(int exit, String out, String err) {}

  public static Outcome run(String... args) {
    var out = new StringWriter();
    var err = new StringWriter();
    var cl = Main.commandLine(args);
    cl.setOut(new PrintWriter(out, true));
    cl.setErr(new PrintWriter(err, true));
    int exit = cl.execute(args);
    return new Outcome(exit, out.toString(), err.toString());
  }
}
