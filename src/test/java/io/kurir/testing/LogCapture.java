package io.kurir.testing;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.slf4j.LoggerFactory;

/**
 * The records Kurir's loggers write while it is open, as Logback hands them to its appenders (the
 * real log, not a copy of stderr): tests count lines, levels and stack traces with it. Records of
 * {@code debug} are kept too for the loggers named at {@link #of}, whose level is lowered
 * meanwhile.
 */
public final class LogCapture implements AutoCloseable {
  /**
   * The resource a test class locks ({@code @ResourceLock(LogCapture.LOG)}) when its captures may
   * run beside other classes (./kurir test fast runs classes concurrently): what it reads is lines
   * only it causes. Captures must not overlap each other, as each sets the levels of the loggers it
   * names and puts them back. A class that counts every line, or wants none at WARN, is
   * {@code @Isolated} instead: every gateway in the JVM logs to the same loggers.
   */
  public static final String LOG = "io.kurir log";

  /** One record: its level, logger's short name, formatted message, and whether it had a trace. */
  public record Line(Level level, String logger, String message, boolean stackTrace) {
    @Override
    public String toString() {
      return level + " " + logger + ": " + message + (stackTrace ? " [stack trace]" : "");
    }
  }

  private final Logger root = (Logger) LoggerFactory.getLogger("io.kurir");
  private final List<Line> lines = new CopyOnWriteArrayList<>();
  private final AppenderBase<ILoggingEvent> appender =
      new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent e) {
          String name = e.getLoggerName();
          lines.add(
              new Line(
                  e.getLevel(),
                  name.substring(name.lastIndexOf('.') + 1),
                  e.getFormattedMessage(),
                  e.getThrowableProxy() != null));
        }
      };
  private final List<Logger> lowered;
  private final List<Level> before;

  private LogCapture(List<String> debugOf) {
    lowered = debugOf.stream().map(name -> (Logger) LoggerFactory.getLogger(name)).toList();
    before = lowered.stream().map(Logger::getLevel).toList();
    lowered.forEach(l -> l.setLevel(Level.DEBUG));
    appender.setContext(root.getLoggerContext());
    appender.setName("capture");
    appender.start();
    root.addAppender(appender);
  }

  /** Captures every record of {@code io.kurir}, and the debug ones of {@code debugOf}. */
  public static LogCapture of(Class<?>... debugOf) {
    return new LogCapture(java.util.Arrays.stream(debugOf).map(Class::getName).toList());
  }

  /**
   * Captures every record of {@code io.kurir}, and the debug ones of the loggers named (for a class
   * the test's package cannot see, such as {@code io.kurir.message.DeviceSender}).
   */
  public static LogCapture ofLoggers(String... debugOf) {
    return new LogCapture(List.of(debugOf));
  }

  public List<Line> lines() {
    return List.copyOf(lines);
  }

  /** The lines that match. */
  public List<Line> lines(Predicate<Line> which) {
    return lines.stream().filter(which).toList();
  }

  /** Whether a line was logged whose message contains {@code text}: tests wait on it. */
  public boolean saw(String text) {
    return lines.stream().anyMatch(l -> l.message().contains(text));
  }

  /** The lines at {@code level} or more severe. */
  public List<Line> atLeast(Level level) {
    return lines(l -> l.level().isGreaterOrEqual(level));
  }

  @Override
  public void close() {
    root.detachAppender(appender);
    appender.stop();
    for (int i = 0; i < lowered.size(); i++) {
      lowered.get(i).setLevel(before.get(i));
    }
  }
}
