package io.kurir.testing;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Debian's Chromium for the tests that look at a page in a real browser: found on the PATH, else
 * installed with apt-get when the tests run as root (no browser download of its own), else a
 * failure that says what to install.
 */
public final class Chromium {
  private static final List<String> NAMES = List.of("chromium", "chromium-browser");

  private Chromium() {}

  /** The browser's executable, installed first if it can be. */
  public static synchronized String executable() {
    String found = onPath();
    if (found == null && isRoot()) {
      run("apt-get", "install", "-y", "-qq", "chromium");
      found = onPath();
      if (found == null) { // an old package list: refresh it once
        run("apt-get", "update", "-qq");
        run("apt-get", "install", "-y", "-qq", "chromium");
        found = onPath();
      }
    }
    if (found == null) {
      throw new AssertionError(
          "these tests look at pages in Debian's Chromium, which is not installed and could not be"
              + " installed here: install it (Debian/Ubuntu: sudo apt-get install chromium) and"
              + " run again");
    }
    return found;
  }

  /**
   * The DOM of {@code url} once its scripts ran (headless, with a virtual time budget), written
   * under {@code dir}.
   */
  public static String renderedDom(String url, Path dir) throws IOException, InterruptedException {
    Path out = dir.resolve("dom.html");
    Process p =
        new ProcessBuilder(
                executable(),
                "--headless",
                "--no-sandbox", // root in CI: Chromium's sandbox refuses to run as root
                "--disable-gpu",
                "--no-first-run",
                "--user-data-dir=" + dir.resolve("chromium-profile"),
                "--virtual-time-budget=20000",
                "--dump-dom",
                url)
            .redirectOutput(out.toFile())
            .redirectError(dir.resolve("chromium.log").toFile())
            .start();
    if (!p.waitFor(90, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("Chromium did not finish rendering " + url);
    }
    return Files.readString(out, StandardCharsets.UTF_8);
  }

  private static String onPath() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      for (String name : NAMES) {
        File f = new File(dir, name);
        if (f.canExecute()) {
          return f.getPath();
        }
      }
    }
    return null;
  }

  private static boolean isRoot() {
    return "root".equals(System.getProperty("user.name"))
        && new File("/usr/bin/apt-get").canExecute();
  }

  private static void run(String... command) {
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      if (!p.waitFor(10, TimeUnit.MINUTES)) {
        p.destroyForcibly();
      }
    } catch (IOException | InterruptedException e) {
      // what it could not do shows as Chromium still missing
    }
  }
}
