package io.kurir.testing;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * A dump of every thread (virtual ones included) and the heap's use, written when a wait times out,
 * so that a test which fails only on a busy machine says what the threads were doing: a lost
 * wake-up, a stalled loop and a starved machine look alike in the assertion alone.
 */
final class ThreadDump {
  private static final Path FOLDER = Path.of("target", "thread-dumps");

  private ThreadDump() {}

  /** Writes the dump and answers where it is, and the heap's use, for the failure's message. */
  static String write(String what) {
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    String memory =
        "heap " + heap.getUsed() / (1 << 20) + " of " + heap.getMax() / (1 << 20) + " MiB used";
    try {
      Files.createDirectories(FOLDER);
      String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("HHmmss-SSS"));
      String name = stamp + "-" + what.replaceAll("[^A-Za-z0-9]+", "-") + ".json";
      Path file = FOLDER.resolve(name.length() > 120 ? name.substring(0, 115) + ".json" : name);
      ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
          .dumpThreads(
              file.toAbsolutePath().toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
      return memory + "; threads dumped to " + file.toAbsolutePath();
    } catch (Exception | LinkageError e) {
      return memory + "; no thread dump (" + e + ")";
    }
  }
}
