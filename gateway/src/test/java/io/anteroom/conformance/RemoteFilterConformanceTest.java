package io.anteroom.conformance;

import io.anteroom.coordinator.CoordinatorServer;
import io.anteroom.objects.http.SharedSecret;
import io.anteroom.objects.storage.InMemoryStorageEngine;
import io.anteroom.servlet.AnteroomFilter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

/**
 * The door's conformance suite against the Servlet filter in the remote topology: the filter in a
 * real Tomcat is a gateway of a coordinator (in this process, over HTTP, calls signed with the
 * deployment's secret), as {@code anteroom gateway --coordinator} is.
 */
class RemoteFilterConformanceTest extends FilterConformanceTest {

  @Override
  Server start(Path dataDir, String roomsYaml) throws Exception {
    var secret = SharedSecret.generate("k1");
    var runtime =
        io.anteroom.objects.Runtime.builder().storage(new InMemoryStorageEngine()).build();
    var coordinator =
        CoordinatorServer.serve(
            runtime,
            CoordinatorServer.Options.builder("127.0.0.1", 0).secrets(List.of(secret)).build());
    Path secretFile = dataDir.resolve("coordinator.secret");
    Files.writeString(secretFile, secret.encoded() + "\n");
    // a gateway never makes the deployment's ticket keys: they are copied to it
    Path data = Files.createDirectories(dataDir.resolve("data"));
    Path keys = data.resolve("ticket-keys");
    Files.writeString(keys, "1 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n");
    Files.setPosixFilePermissions(keys, PosixFilePermissions.fromString("rw-------"));
    return start(
        dataDir,
        roomsYaml,
        Map.of(
            AnteroomFilter.COORDINATOR_PARAMETER,
            "http://127.0.0.1:" + coordinator.actualPort(),
            AnteroomFilter.DATACENTER_PARAMETER,
            "dublin",
            AnteroomFilter.SECRET_FILE_PARAMETER,
            secretFile.toString()),
        () -> {
          coordinator.close();
          runtime.close();
        });
  }
}
