package io.anteroom.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.anteroom.door.config.ConfigLoader;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The filter reads the same YAML as {@code anteroom run}, and says plainly what is wrong with it.
 */
class AnteroomFilterInitTest {

  @TempDir Path dir;

  private static FilterConfig params(Map<String, String> values) {
    return new FilterConfig() {
      @Override
      public String getFilterName() {
        return "anteroom";
      }

      @Override
      public ServletContext getServletContext() {
        return null;
      }

      @Override
      public String getInitParameter(String name) {
        return values.get(name);
      }

      @Override
      public Enumeration<String> getInitParameterNames() {
        return Collections.enumeration(values.keySet());
      }
    };
  }

  @Test
  void aBadFileFailsInitWithTheLoadersMessagesOneLinePerProblem() throws Exception {
    Path file = dir.resolve("anteroom.yaml");
    Files.writeString(
        file,
        "dataDir: "
            + dir.resolve("data")
            + "\nrooms: [ { id: shop, totalActiveUsers: 0, queueingMethod: nope } ]\n");
    String loader = "";
    try {
      ConfigLoader.load(file);
    } catch (IllegalArgumentException e) {
      loader = e.getMessage();
    }

    var filter = new AnteroomFilter();
    assertThatThrownBy(() -> filter.init(params(Map.of("config", file.toString()))))
        .isInstanceOf(ServletException.class)
        .hasMessage("anteroom: " + loader)
        .hasNoCause();
    assertThat(loader.lines().filter(l -> l.startsWith("  - "))).hasSize(2);
    assertThat(loader).contains("totalActiveUsers").contains("queueingMethod");
  }

  @Test
  void withoutTheConfigParameterInitSaysWhatToGive() {
    assertThatThrownBy(() -> new AnteroomFilter().init(params(Map.of())))
        .isInstanceOf(ServletException.class)
        .hasMessageContaining("init parameter 'config'");
  }

  @Test
  void aMissingFileIsNamed() {
    Path missing = dir.resolve("nope.yaml");
    assertThatThrownBy(
            () -> new AnteroomFilter().init(params(Map.of("config", missing.toString()))))
        .isInstanceOf(ServletException.class)
        .hasMessageContaining(missing.toString());
  }
}
