package io.kurir.driver.sandbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sandbox network's memory on disk, so that the network outlives the gateway as a real one
 * does: one JSON object per line, each change appended and handed to the operating system (one
 * {@code write} per change) before it takes effect. A gateway killed with {@code kill -9} therefore
 * loses nothing the network did; a power cut may lose the last lines (there is no {@code fsync} per
 * change), and a line cut off in the middle is skipped when the journal is read.
 *
 * <p>The journal is rewritten from the network's state ({@link #rewrite}) when it is opened and
 * whenever it has grown well past that state ({@link #wantsRewrite}), so its size follows the
 * network's bounded state, not the gateway's uptime. A rewrite goes to a new file that replaces the
 * old one in one rename: a crash in the middle keeps the old file.
 *
 * <p>Not thread-safe: the network calls it under its own lock.
 */
final class SandboxJournal implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SandboxJournal.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Lines appended after a rewrite before the next: at least this many... */
  static final long MIN_GROWTH = 100_000;

  /** ...and at least twice the lines the rewrite wrote, so that rewrites cost O(1) per change. */
  static final long GROWTH_FACTOR = 2;

  private final Path file;
  private final boolean readOnly;
  private final long minGrowth;
  private FileOutputStream out;
  private long lines; // lines in the file now
  private long linesAtRewrite; // lines the last rewrite wrote
  private boolean closed;

  private SandboxJournal(Path file, boolean readOnly, long minGrowth) {
    this.file = file;
    this.readOnly = readOnly;
    this.minGrowth = minGrowth;
  }

  /**
   * A journal that is read, then rewritten and appended to, and rewritten again after {@code
   * minGrowth} lines at least ({@link #MIN_GROWTH} but in tests). Its folder is created if missing.
   */
  static SandboxJournal open(Path file, long minGrowth) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    if (dir != null) {
      Files.createDirectories(dir);
    }
    return new SandboxJournal(file, false, minGrowth);
  }

  /** A journal that is only read (another process may own it): nothing is ever written. */
  static SandboxJournal readOnly(Path file) {
    return new SandboxJournal(file, true, MIN_GROWTH);
  }

  Path file() {
    return file;
  }

  boolean isReadOnly() {
    return readOnly;
  }

  /**
   * Hands every complete line to {@code apply}, oldest first, and returns how many it read. The
   * last line without its line break was cut off by a crash in the middle of a write and is skipped
   * (the change it records never took effect); a line that cannot be read elsewhere is skipped with
   * a warning.
   */
  int replay(Consumer<JsonNode> apply) throws IOException {
    if (!Files.exists(file)) {
      return 0;
    }
    boolean tornTail = endsWithoutLineBreak();
    int read = 0;
    long number = 0;
    try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
      // One line behind, so that the last one is known as the last.
      String line = in.readLine();
      while (line != null) {
        String next = in.readLine();
        number++;
        if (next == null && tornTail) {
          log.warn("sandbox journal {}: the last line was cut off by a crash; skipped", file);
          break;
        }
        if (!line.isBlank()) {
          JsonNode record = null;
          try {
            record = JSON.readTree(line);
          } catch (JsonProcessingException e) {
            log.warn("sandbox journal {}: line {} cannot be read; skipped", file, number);
          }
          if (record != null && record.isObject()) {
            apply.accept(record);
            read++;
          }
        }
        line = next;
      }
    }
    lines = number;
    return read;
  }

  private boolean endsWithoutLineBreak() throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
      if (f.length() == 0) {
        return false;
      }
      f.seek(f.length() - 1);
      return f.read() != '\n';
    }
  }

  /** Appends {@code records} in one write: they are in the file when this returns. */
  void append(List<ObjectNode> records) throws IOException {
    if (readOnly) {
      throw new IOException("the sandbox journal " + file + " is open for reading only");
    }
    if (closed || out == null) {
      throw new IOException("the sandbox journal " + file + " is closed");
    }
    StringBuilder text = new StringBuilder(records.size() * 200);
    for (ObjectNode r : records) {
      text.append(JSON.writeValueAsString(r)).append('\n');
    }
    // One write system call: a process killed after it returns has the lines in the OS's cache.
    out.write(text.toString().getBytes(StandardCharsets.UTF_8));
    lines += records.size();
  }

  /** Whether the file has grown well past the state it records. */
  boolean wantsRewrite() {
    return !readOnly
        && lines - linesAtRewrite > Math.max(minGrowth, GROWTH_FACTOR * linesAtRewrite);
  }

  /**
   * Replaces the file with the records {@code snapshot} gives (the network's state now), synced to
   * disk before it takes the old file's place, then appends after them.
   */
  void rewrite(Consumer<Consumer<ObjectNode>> snapshot) throws IOException {
    if (readOnly) {
      throw new IOException("the sandbox journal " + file + " is open for reading only");
    }
    Path next = file.resolveSibling(file.getFileName() + ".next");
    long[] written = {0};
    try (FileOutputStream raw = new FileOutputStream(next.toFile());
        BufferedWriter w =
            new BufferedWriter(new OutputStreamWriter(raw, StandardCharsets.UTF_8), 1 << 16)) {
      IOException[] failed = {null};
      snapshot.accept(
          r -> {
            if (failed[0] != null) {
              return;
            }
            try {
              w.write(JSON.writeValueAsString(r));
              w.write('\n');
              written[0]++;
            } catch (IOException e) {
              failed[0] = e;
            }
          });
      if (failed[0] != null) {
        throw failed[0];
      }
      w.flush();
      raw.getFD().sync();
    }
    if (out != null) {
      out.close();
      out = null;
    }
    Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    out = new FileOutputStream(file.toFile(), true);
    lines = written[0];
    linesAtRewrite = written[0];
  }

  /** Lines in the file now. */
  long lines() {
    return lines;
  }

  static ObjectNode record(String type) {
    return JSON.createObjectNode().put("t", type);
  }

  static com.fasterxml.jackson.databind.node.ArrayNode array() {
    return JSON.createArrayNode();
  }

  @Override
  public void close() {
    closed = true;
    if (out != null) {
      try {
        out.close();
      } catch (IOException e) {
        log.warn("sandbox journal {}: close: {}", file, e.toString());
      }
      out = null;
    }
  }
}
