package io.kurir.testing;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * A headless Chromium for the console's browser tests: Debian's {@code chromium} (found or
 * installed by {@link Chromium}) driven through its {@code chromedriver} (package {@code
 * chromium-driver}), never a downloaded browser. A missing driver is installed with apt-get as root
 * ({@code ./kurir test} does it before the tests); otherwise the tests fail saying what to install.
 */
public final class Browser implements AutoCloseable {
  /** Where the tests leave a screenshot of each page they visit. */
  public static final Path SCREENSHOTS = Path.of("target", "console-screenshots");

  private static final List<String> DRIVERS =
      List.of("/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver");

  private final ChromeDriver driver;
  private final ChromeDriverService service;

  private Browser(ChromeDriver driver, ChromeDriverService service) {
    this.driver = driver;
    this.service = service;
  }

  /** Starts a headless browser with a desktop-sized window. */
  public static Browser start() {
    Path browser =
        find("KURIR_TEST_CHROMIUM", List.of()).orElseGet(() -> Path.of(Chromium.executable()));
    Path chromedriver =
        find("KURIR_TEST_CHROMEDRIVER", DRIVERS)
            .or(Browser::installDriver)
            .orElseThrow(Browser::missing);
    // Selenium looks for drivers and browsers on the internet unless told where they are.
    System.setProperty("webdriver.chrome.driver", chromedriver.toString());
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(chromedriver.toFile())
            .usingAnyFreePort()
            .withLogOutput(java.io.OutputStream.nullOutputStream())
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(browser.toFile());
    options.addArguments(
        "--headless=new",
        "--no-sandbox", // as root in a container, Chromium's sandbox cannot start
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--lang=en",
        "--window-size=1280,1000");
    ChromeDriver driver = new ChromeDriver(service, options);
    driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(20));
    return new Browser(driver, service);
  }

  public ChromeDriver driver() {
    return driver;
  }

  /** Resizes the window, e.g. to a phone's 390 × 844. */
  public void resize(int width, int height) {
    driver.manage().window().setSize(new Dimension(width, height));
  }

  /** Saves what the browser shows as {@code target/console-screenshots/<name>.png}. */
  public Path screenshot(String name) {
    try {
      Files.createDirectories(SCREENSHOTS);
      Path file = SCREENSHOTS.resolve(name + ".png");
      Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Optional<Path> find(String variable, List<String> candidates) {
    String given = System.getenv(variable);
    if (given != null && !given.isBlank()) {
      return Optional.of(Path.of(given.strip()));
    }
    return candidates.stream().map(Path::of).filter(Files::isExecutable).findFirst();
  }

  /** Installs Debian's chromium-driver when this runs as root with apt-get. */
  private static Optional<Path> installDriver() {
    if (!"root".equals(System.getProperty("user.name"))
        || !new File("/usr/bin/apt-get").canExecute()) {
      return Optional.empty();
    }
    try {
      if (run("apt-get", "install", "-y", "-qq", "chromium-driver") != 0) {
        run("apt-get", "update", "-qq"); // an old package list: refresh it once
        run("apt-get", "install", "-y", "-qq", "chromium-driver");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("apt-get could not install chromium-driver", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
    return find("KURIR_TEST_CHROMEDRIVER", DRIVERS);
  }

  private static int run(String... command) throws IOException, InterruptedException {
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
    pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
    pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
    return pb.start().waitFor();
  }

  private static IllegalStateException missing() {
    return new IllegalStateException(
        "the console's browser tests drive Chromium through its chromedriver, which is not"
            + " installed and could not be installed here: run ./kurir test (as root it installs"
            + " Debian's chromium-driver package), or install it (Debian/Ubuntu: sudo apt-get"
            + " install chromium-driver), or name it with KURIR_TEST_CHROMEDRIVER");
  }

  @Override
  public void close() {
    try {
      driver.quit();
    } finally {
      service.stop();
    }
  }
}
