package io.anteroom.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code anteroom gateway} asks its coordinator once at start (CoordinatorLink#probe). */
class GatewayStartTest {

  @TempDir Path dir;

  @Test
  void aGatewayWhoseSecretTheCoordinatorRefusesStopsAtStartWithOneLine() throws Exception {
    var runtime =
        io.anteroom.objects.Runtime.builder().storage(new InMemoryStorageEngine()).build();
    var coordinator =
        CoordinatorServer.serve(
            runtime,
            CoordinatorServer.Options.builder("127.0.0.1", 0)
                .secrets(List.of(SharedSecret.generate("k1")))
                .build());
    try {
      Path data = Files.createDirectories(dir.resolve("data"));
      Path keys = data.resolve("ticket-keys");
      Files.writeString(keys, "1 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n");
      Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-------"));
      Path config = dir.resolve("anteroom.yaml");
      Files.writeString(
          config,
          "dataDir: "
              + data
              + "\nlisten: 127.0.0.1:0\nadmin: { listen: 127.0.0.1:0 }\n"
              + "origin: http://127.0.0.1:9\nrooms: [ { id: shop, totalActiveUsers: 2 } ]\n");
      Path wrong = dir.resolve("wrong.secret");
      Files.writeString(wrong, SharedSecret.generate("k1").encoded() + "\n");
      String[] args = {
        "gateway",
        "--config",
        config.toString(),
        "--coordinator",
        "http://127.0.0.1:" + coordinator.actualPort(),
        "--datacenter",
        "dublin",
        "--coordinator-secret-file",
        wrong.toString()
      };
      var out = new StringWriter();
      var err = new StringWriter();
      var cl = Main.commandLine(args);
      cl.setOut(new PrintWriter(out, true));
      cl.setErr(new PrintWriter(err, true));

      int exit = cl.execute(args);

      assertThat(exit).isEqualTo(2);
      assertThat(err.toString())
          .startsWith(
              "anteroom: the coordinator refused this gateway's signature: is"
                  + " --coordinator-secret-file "
                  + wrong
                  + " the deployment's shared secret? (HTTP 401 from")
          .hasLineCount(1);
    } finally {
      coordinator.close();
      runtime.close();
    }
  }
}
