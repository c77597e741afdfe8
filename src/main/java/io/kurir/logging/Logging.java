package io.kurir.logging;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.encoder.Encoder;
import io.kurir.config.Settings;
import net.logstash.logback.encoder.LogstashEncoder;
import org.slf4j.LoggerFactory;

/**
 * Sets the process's log up from {@code log.format} and {@code log.level}: records go to stderr
 * (stdout is for the start-up lines a person reads), as text or as one JSON object a line. Every
 * time states its offset from UTC, in the JVM's zone ({@code TZ}), so lines from machines in
 * different zones sort and compare.
 *
 * <p>Kurir's own records are written from {@code log.level}; the libraries' from {@code warn}
 * (their start-up chatter is noise), or from {@code log.level} when that is stricter.
 */
public final class Logging {
  /** The text layout: time with offset, level, logger, message, then the ids of the MDC. */
  static final String TEXT_PATTERN =
      "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level %logger{0}: %msg%replace( [%mdc]){' \\[\\]',"
          + " ''}%n";

  private Logging() {}

  /** Replaces whatever logged before (the default of {@code logback.xml}) with {@code logs}. */
  public static void configure(Settings.Logs logs) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.reset();
    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName("stderr");
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder(logs.format(), context));
    stderr.start();
    Level level = Level.toLevel(logs.level(), Level.INFO);
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    root.setLevel(level.isGreaterOrEqual(Level.WARN) ? level : Level.WARN);
    root.addAppender(stderr);
    context.getLogger("io.kurir").setLevel(level);
  }

  private static Encoder<ILoggingEvent> encoder(String format, LoggerContext context) {
    if (format.equals("json")) {
      // @timestamp in ISO-8601 with the offset, level, logger_name, thread_name, message,
      // stack_trace, and every MDC entry (device_id, message_id, …) as a field of its own.
      LogstashEncoder json = new LogstashEncoder();
      json.setContext(context);
      json.start();
      return json;
    }
    PatternLayoutEncoder text = new PatternLayoutEncoder();
    text.setContext(context);
    text.setPattern(TEXT_PATTERN);
    text.start();
    return text;
  }
}
