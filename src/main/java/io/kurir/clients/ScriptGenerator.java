package io.kurir.clients;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The spreadsheet scripts of {@code clients/apps-script/}, ready to paste: the script's SETTINGS
 * block filled in with a device's credentials, the column of the number and the template.
 */
public final class ScriptGenerator {
  /** The scripts there are, by the names the Admin API takes. */
  public static final List<String> SCRIPTS = List.of("eco-async", "push-v1", "multi-type");

  /** One {@code name: value,} line of a SETTINGS block. */
  private static final Pattern SETTING =
      Pattern.compile("^(  )([a-z_]+): (.*?)(,?)$", Pattern.MULTILINE);

  private ScriptGenerator() {}

  /**
   * The script {@code name} with {@code settings} written into its SETTINGS block; settings it does
   * not have are refused, so that a typo cannot give a script that silently ignores it.
   */
  public static String generate(String name, Map<String, Object> settings) {
    if (!SCRIPTS.contains(name)) {
      throw new IllegalArgumentException("script is one of " + SCRIPTS);
    }
    String source = read(name + ".gs");
    int start = source.indexOf("var SETTINGS = {");
    int end = source.indexOf("};", start);
    String block = source.substring(start, end);
    Map<String, Object> left = new LinkedHashMap<>(settings);
    Matcher m = SETTING.matcher(block);
    StringBuilder filled = new StringBuilder();
    while (m.find()) {
      Object value = left.remove(m.group(2));
      String written = value == null ? m.group(3) : literal(value);
      m.appendReplacement(
          filled, Matcher.quoteReplacement(m.group(1) + m.group(2) + ": " + written + m.group(4)));
    }
    m.appendTail(filled);
    if (!left.isEmpty()) {
      throw new IllegalArgumentException(name + " has no setting " + left.keySet());
    }
    return source.substring(0, start) + filled + source.substring(end);
  }

  /** A JavaScript literal: numbers as they are, anything else as a single-quoted string. */
  private static String literal(Object value) {
    if (value instanceof Number) {
      return value.toString();
    }
    StringBuilder s = new StringBuilder("'");
    for (char c : value.toString().toCharArray()) {
      switch (c) {
        case '\\' -> s.append("\\\\");
        case '\'' -> s.append("\\'");
        case '\n' -> s.append("\\n");
        case '\r' -> s.append("\\r");
        case '\u2028' -> s.append("\\u2028");
        case '\u2029' -> s.append("\\u2029");
        default -> s.append(c);
      }
    }
    return s.append('\'').toString();
  }

  private static String read(String file) {
    try (InputStream in = ScriptGenerator.class.getResourceAsStream("/apps-script/" + file)) {
      if (in == null) {
        throw new IllegalStateException("apps-script/" + file + " is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
