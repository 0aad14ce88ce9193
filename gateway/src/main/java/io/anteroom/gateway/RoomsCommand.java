package io.anteroom.gateway;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code anteroom rooms export|import}: the deployment's rooms (its room documents at the
 * coordinator) as the {@code rooms} key of a YAML config file, out and in, for GitOps. Both talk to
 * a gateway's admin API ({@code GET /api/export/rooms} with a token of scope read, {@code POST
 * /api/import/rooms} with one of scope admin): the gateway checks an import like the config file
 * and records it in the audit log under the token's name.
 */
@Command(
    name = "rooms",
    mixinStandardHelpOptions = true,
    description =
        "Export or import the deployment's rooms (kept at the coordinator) as YAML, through a"
            + " gateway's admin API.",
    subcommands = {RoomsCommand.Export.class, RoomsCommand.Import.class})
final class RoomsCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ObjectMapper YAML =
      new ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "rooms needs a command: export or import");
  }

  /** Which gateway, and the token to call it with. */
  static class Admin {
    @Option(
        names = "--admin",
        paramLabel = "URL",
        defaultValue = "http://127.0.0.1:9090",
        description = "a gateway's admin listener (default: ${DEFAULT-VALUE})")
    URI admin;

    @Option(
        names = "--token-file",
        paramLabel = "FILE",
        description =
            "file holding an admin token (default: $ANTEROOM_ADMIN_TOKEN, else ./data/admin-token)")
    Path tokenFile;

    String token() {
      if (tokenFile == null) {
        String env = System.getenv("ANTEROOM_ADMIN_TOKEN");
        if (env != null && !env.isBlank()) {
          return env.strip();
        }
      }
      Path file = tokenFile != null ? tokenFile : Path.of("data", "admin-token");
      try {
        return Files.readString(file).strip();
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "cannot read the admin token from "
                + file
                + " ("
                + e.getClass().getSimpleName()
                + "); give --token-file FILE or set ANTEROOM_ADMIN_TOKEN");
      }
    }

    HttpResponse<String> send(String method, String path, String body) {
      var request =
          HttpRequest.newBuilder(admin.resolve(path))
              .header("Authorization", "Bearer " + token())
              .header("Content-Type", "application/yaml")
              .timeout(Duration.ofSeconds(30))
              .method(
                  method,
                  body == null
                      ? HttpRequest.BodyPublishers.noBody()
                      : HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
      try (HttpClient client =
          HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "the admin API at " + admin + " did not answer (" + e + ")");
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalArgumentException("interrupted");
      }
    }

    /** The answer's error, as the API words it, for a status other than {@code ok}. */
    static String refusal(HttpResponse<String> r) {
      try {
        JsonNode error = JSON.readTree(r.body()).path("error");
        if (error.isTextual()) {
          return error.asText();
        }
      } catch (IOException e) {
        // not JSON: the body as it is
      }
      return "HTTP " + r.statusCode() + ": " + r.body();
    }
  }

  @Command(
      name = "export",
      mixinStandardHelpOptions = true,
      description =
          "Print every room of the deployment as YAML (the rooms key of a config file, each room"
              + " with all its keys and its generation).")
  static final class Export implements Callable<Integer> {
    @CommandLine.Mixin Admin admin;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--out",
        paramLabel = "FILE",
        description = "write to FILE instead of the standard output")
    Path out;

    @Override
    public Integer call() throws IOException {
      var r = admin.send("GET", "/api/export/rooms", null);
      if (r.statusCode() != 200) {
        throw new IllegalArgumentException(
            "export refused (HTTP " + r.statusCode() + "): " + Admin.refusal(r));
      }
      if (out != null) {
        Files.writeString(out, r.body());
        spec.commandLine().getOut().println("wrote the deployment's rooms to " + out);
      } else {
        spec.commandLine().getOut().print(r.body());
      }
      spec.commandLine().getOut().flush();
      return 0;
    }
  }

  @Command(
      name = "import",
      mixinStandardHelpOptions = true,
      description =
          "Make the rooms of a YAML config file the deployment's: checked like the config file"
              + " (every problem at once; nothing changes if any), then each room created or"
              + " replaced for every gateway; with --prune the deployment's other rooms deleted.")
  static final class Import implements Callable<Integer> {
    @CommandLine.Mixin Admin admin;
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(
        names = "--file",
        required = true,
        paramLabel = "FILE",
        description = "the YAML file whose rooms key is imported (a config file, or an export)")
    Path file;

    @Option(names = "--prune", description = "delete the deployment's rooms not in the file")
    boolean prune;

    @Override
    public Integer call() {
      String yaml;
      try {
        yaml = Files.readString(file);
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
      }
      String body = withTemplates(yaml);
      var r = admin.send("POST", "/api/import/rooms" + (prune ? "?prune=true" : ""), body);
      if (r.statusCode() != 200) {
        throw new IllegalArgumentException(
            "import of " + file + " refused (HTTP " + r.statusCode() + "): " + Admin.refusal(r));
      }
      JsonNode answer;
      try {
        answer = JSON.readTree(r.body());
      } catch (IOException e) {
        throw new IllegalArgumentException("unexpected answer: " + r.body());
      }
      if (!body.equals(yaml)) {
        spec.commandLine()
            .getOut()
            .println("with the templates its rooms name, read from its templatesDir");
      }
      var written = new java.util.ArrayList<String>();
      answer.path("written").forEach(n -> written.add(n.asText()));
      var out = spec.commandLine().getOut();
      out.println(
          written.isEmpty()
              ? "nothing to change: the deployment's rooms are those of " + file
              : "imported "
                  + file
                  + ": rooms "
                  + String.join(", ", written)
                  + " written (room documents version "
                  + answer.path("version").asLong()
                  + "); every gateway applies them within a few seconds");
      out.flush();
      return 0;
    }

    /**
     * A config file's rooms with their templates: when the file has a {@code templatesDir}, each
     * room without a {@code templates} key of its own gets the texts of the templates it and its
     * events name, their language variants and partials, as that directory has them, so that the
     * import makes the file's templates the deployment's too. Otherwise the text as it is.
     */
    static String withTemplates(String yaml) {
      JsonNode root;
      try {
        root = YAML.readTree(yaml);
      } catch (IOException e) {
        return yaml; // the gateway words the problem
      }
      if (root == null
          || !root.isObject()
          || !root.path("templatesDir").isTextual()
          || !root.path("rooms").isArray()) {
        return yaml;
      }
      var dir =
          new io.anteroom.door.config.TemplateDirectory(
              java.util.Optional.of(Path.of(root.path("templatesDir").asText())));
      boolean added = false;
      for (JsonNode room : root.path("rooms")) {
        if (!room.isObject() || room.has("templates")) {
          continue;
        }
        var names = new java.util.ArrayList<String>();
        if (room.path("template").isTextual()) {
          names.add(room.path("template").asText());
        }
        room.path("events")
            .forEach(
                e -> {
                  if (e.path("template").isTextual()) {
                    names.add(e.path("template").asText());
                  }
                });
        var languages = new java.util.ArrayList<String>();
        room.path("languages").forEach(l -> languages.add(l.asText()));
        var texts = io.anteroom.door.config.RoomTemplates.collect(names, languages, dir);
        if (!texts.isEmpty()) {
          var t = ((com.fasterxml.jackson.databind.node.ObjectNode) room).putObject("templates");
          texts.forEach(t::put);
          added = true;
        }
      }
      return added ? root.toString() : yaml;
    }
  }
}
