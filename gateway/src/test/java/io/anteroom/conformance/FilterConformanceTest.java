package io.anteroom.conformance;

import io.anteroom.servlet.AnteroomFilter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * The door's conformance suite against the Servlet filter ({@link AnteroomFilter}, module servlet)
 * in a real embedded Tomcat 11 on 127.0.0.1, in front of a servlet that answers as the proxy's test
 * origin does.
 */
class FilterConformanceTest extends DoorConformanceTest {

  /** The application behind the filter: the same answers as the proxy's test origin. */
  static final class Origin extends HttpServlet {
    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
      resp.setContentType("text/plain");
      String pass = req.getHeader("Anteroom-Pass");
      resp.setHeader("X-Origin-Saw-Pass", pass == null ? "none" : pass);
      if (req.getRequestURI().equals("/revoke")) {
        resp.setHeader("Anteroom-Command", "revoke");
      }
      resp.getWriter().write("origin:" + req.getRequestURI() + ":");
    }
  }

  @Override
  Server start(Path dataDir, String roomsYaml) throws Exception {
    return start(dataDir, roomsYaml, java.util.Map.of(), () -> {});
  }

  /**
   * The filter in a Tomcat, with the init parameters {@code topology} besides the config file;
   * {@code alsoClose} is closed after the Tomcat.
   */
  Server start(
      Path dataDir,
      String roomsYaml,
      java.util.Map<String, String> topology,
      AutoCloseable alsoClose)
      throws Exception {
    Path config = dataDir.resolve("anteroom.yaml");
    Files.writeString(config, "dataDir: " + dataDir.resolve("data") + "\n" + roomsYaml + "\n");
    var tomcat = new Tomcat();
    tomcat.setBaseDir(dataDir.resolve("tomcat").toString());
    var connector = new Connector();
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", dataDir.toString());
    Tomcat.addServlet(context, "origin", new Origin());
    context.addServletMappingDecoded("/", "origin");
    var filter = new FilterDef();
    filter.setFilterName("anteroom");
    filter.setFilterClass(AnteroomFilter.class.getName());
    filter.addInitParameter(AnteroomFilter.CONFIG_PARAMETER, config.toString());
    topology.forEach(filter::addInitParameter);
    context.addFilterDef(filter);
    var mapping = new FilterMap();
    mapping.setFilterName("anteroom");
    mapping.addURLPattern("/*");
    context.addFilterMap(mapping);
    tomcat.start();
    int port = connector.getLocalPort();
    return new Server() {
      @Override
      public String url() {
        return "http://127.0.0.1:" + port;
      }

      @Override
      public String jwksUrl() {
        return url() + io.anteroom.servlet.AnteroomFilter.JWKS_PATH;
      }

      @Override
      public void close() throws Exception {
        tomcat.stop();
        tomcat.destroy();
        alsoClose.close();
      }
    };
  }
}
