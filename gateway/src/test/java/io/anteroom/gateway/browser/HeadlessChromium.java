package io.anteroom.gateway.browser;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A real headless Chromium for page tests, driven over WebDriver by Debian's {@code chromedriver}
 * (nothing is downloaded). The binaries are found on the usual Debian paths or through {@code
 * ANTEROOM_CHROMIUM} and {@code ANTEROOM_CHROMEDRIVER}; when they are missing the test fails with
 * the command that installs them ({@code .ci/run} installs them), it is never skipped.
 */
public final class HeadlessChromium implements AutoCloseable {
  private static final List<String> BROWSERS =
      List.of("/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome");
  private static final List<String> DRIVERS =
      List.of("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");

  private final ChromeDriver driver;

  private HeadlessChromium(ChromeDriver driver) {
    this.driver = driver;
  }

  /** A new browser with an empty profile (its own cookies), a phone-or-laptop sized window. */
  public static HeadlessChromium start(int width, int height) {
    return start(width, height, Map.of());
  }

  /**
   * As above, with content settings of the profile, e.g. {@code javascript: 2} to block scripts
   * (Chromium's {@code profile.managed_default_content_settings}).
   */
  public static HeadlessChromium start(int width, int height, Map<String, Integer> content) {
    String browser = find("ANTEROOM_CHROMIUM", BROWSERS);
    String driverExe = find("ANTEROOM_CHROMEDRIVER", DRIVERS);
    var options = new ChromeOptions();
    options.setBinary(browser);
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-extensions",
        "--no-first-run",
        "--window-size=" + width + "," + height);
    if (!content.isEmpty()) {
      var prefs = new java.util.HashMap<String, Object>();
      content.forEach((k, v) -> prefs.put("profile.managed_default_content_settings." + k, v));
      options.setExperimentalOption("prefs", prefs);
    }
    var service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(driverExe))
            .usingAnyFreePort()
            .build();
    var driver = new ChromeDriver(service, options);
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
    return new HeadlessChromium(driver);
  }

  /**
   * A browser that lays pages out as a phone of {@code width} × {@code height} CSS pixels does
   * (Chromium's device emulation: the page's viewport meta tag applies, scrollbars overlay). A
   * desktop window cannot be that narrow: {@code start(390, 844)} gets a window of about 500
   * pixels.
   */
  public static HeadlessChromium phone(int width, int height) {
    HeadlessChromium browser = start(width, height);
    browser.driver.executeCdpCommand(
        "Emulation.setDeviceMetricsOverride",
        Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", true));
    return browser;
  }

  /** A laptop-sized browser. */
  public static HeadlessChromium start() {
    return start(1280, 900);
  }

  public ChromeDriver driver() {
    return driver;
  }

  /** Saves a PNG of the current page, creating the directory; returns the path. */
  public Path screenshot(Path file) throws Exception {
    Files.createDirectories(file.toAbsolutePath().getParent());
    byte[] png = driver.getScreenshotAs(OutputType.BYTES);
    Files.write(file, png);
    return file;
  }

  /** The screenshot interface, for callers that want other output types. */
  public TakesScreenshot camera() {
    return driver;
  }

  private static String find(String env, List<String> candidates) {
    String configured = System.getenv(env);
    if (configured != null && !configured.isBlank()) {
      if (!Files.isExecutable(Path.of(configured))) {
        throw new AssertionError(env + "=" + configured + " is not an executable file");
      }
      return configured;
    }
    for (String c : candidates) {
      if (Files.isExecutable(Path.of(c))) {
        return c;
      }
    }
    throw new AssertionError(
        "page tests need a headless Chromium and its chromedriver, none found at "
            + candidates
            + " (set "
            + env
            + "); on Debian: apt-get install -y chromium chromium-driver");
  }

  @Override
  public void close() {
    driver.quit();
  }
}
