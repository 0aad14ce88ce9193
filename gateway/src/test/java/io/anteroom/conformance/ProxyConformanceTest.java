package io.anteroom.conformance;

import io.anteroom.gateway.Harness;
import io.anteroom.gateway.TestOrigin;
import java.nio.file.Path;

/** The door's conformance suite against the Vert.x reverse proxy (module gateway). */
class ProxyConformanceTest extends DoorConformanceTest {

  @Override
  Server start(Path dataDir, String roomsYaml) throws Exception {
    var origin = new TestOrigin();
    var h = new Harness(dataDir, roomsYaml, origin);
    return new Server() {
      @Override
      public String url() {
        return h.url();
      }

      @Override
      public java.time.Clock clock() {
        return h.scheduler.clock();
      }

      @Override
      public String jwksUrl() {
        return h.adminUrl() + "/.well-known/jwks.json";
      }

      @Override
      public void close() throws Exception {
        h.close();
      }
    };
  }
}
