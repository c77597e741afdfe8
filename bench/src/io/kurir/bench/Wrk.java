package io.kurir.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Runs wrk, the load generator of every row, and reads its figures. */
final class Wrk {
  /**
   * What wrk measured, and the CPU time each request cost the benchmark's JVM (the gateway runs in
   * it; its own client threads are idle while wrk runs) and wrk itself, in microseconds: unlike the
   * rate, these hardly move when other work shares the machine.
   */
  record Result(
      long requests,
      double perSecond,
      double p50ms,
      double p99ms,
      long failed,
      double gatewayCpuMicros,
      double wrkCpuMicros) {

    Result withCpu(long gatewayCpuNanos, long wrkCpuNanos) {
      return new Result(
          requests,
          perSecond,
          p50ms,
          p99ms,
          failed,
          gatewayCpuNanos / 1000.0 / Math.max(1, requests),
          wrkCpuNanos / 1000.0 / Math.max(1, requests));
    }
  }

  private final int threads;
  private final int connections;
  private final Path scripts;

  Wrk(int threads, int connections, Path scripts) {
    this.threads = threads;
    this.connections = connections;
    this.scripts = scripts;
  }

  String settings() {
    return threads + " threads, " + connections + " connections";
  }

  /** POSTs the same JSON body for {@code duration}. */
  Result postJson(String url, String json, Duration duration) {
    return postJson(url, json, java.util.Map.of(), duration);
  }

  /**
   * POSTs the same JSON body with {@code headers} (besides its Content-Type) for {@code duration}.
   */
  Result postJson(
      String url, String json, java.util.Map<String, String> headers, Duration duration) {
    StringBuilder lua =
        new StringBuilder("wrk.method = \"POST\"\n")
            .append("wrk.body = ")
            .append(luaString(json))
            .append("\nwrk.headers[\"Content-Type\"] = \"application/json\"\n");
    headers.forEach(
        (name, value) ->
            lua.append("wrk.headers[")
                .append(luaString(name))
                .append("] = ")
                .append(luaString(value))
                .append('\n'));
    return run(url, lua.toString(), duration);
  }

  /** POSTs JSON bodies built from {@code template}, with %KEY% taking each key in turn. */
  Result postJsonRotatingKeys(String url, String template, List<String> keys, Duration duration) {
    return run(url, rotatingKeys(template, keys), duration);
  }

  private static String rotatingKeys(String template, List<String> keys) {
    StringBuilder lua = new StringBuilder("local keys = {");
    for (String k : keys) {
      lua.append(luaString(k)).append(",");
    }
    lua.append("}\nlocal i = 0\n")
        .append("local template = ")
        .append(luaString(template))
        .append("\nrequest = function()\n")
        .append("  i = i + 1\n")
        .append("  local body = string.gsub(template, \"%%KEY%%\", keys[(i % #keys) + 1])\n")
        .append(
            "  return wrk.format(\"POST\", nil, {[\"Content-Type\"] = \"application/json\"}, body)\n")
        .append("end\n");
    return lua.toString();
  }

  /**
   * As {@link #postJsonRotatingKeys}, stopped as soon as {@code enough} holds (asked every 50 ms),
   * or at {@code limit}: wrk is interrupted as Ctrl-C would, and reports what it did until then.
   * Requests in flight then may still be served: count what the server kept.
   */
  Result postJsonRotatingKeysUntil(
      String url, String template, List<String> keys, BooleanSupplier enough, Duration limit) {
    return run(url, rotatingKeys(template, keys), limit, enough);
  }

  private Result run(String url, String lua, Duration duration) {
    return run(url, lua, duration, () -> false);
  }

  private Result run(String url, String lua, Duration duration, BooleanSupplier enough) {
    try {
      Path script = Files.createTempFile(scripts, "wrk", ".lua");
      Files.writeString(script, lua);
      // Through a shell that prints its own /proc stat after wrk ends: its fields 16 and 17 are the
      // CPU time of the children it waited for, which is wrk's.
      List<String> command =
          List.of(
              "sh",
              "-c",
              "\"$@\"; s=$?; echo; echo \"wrk-stat: $(cat /proc/$$/stat)\"; exit $s",
              "sh",
              "wrk",
              "-t" + threads,
              "-c" + connections,
              "-d" + duration.toSeconds() + "s",
              "--timeout",
              "20s",
              "--latency",
              "-s",
              script.toString(),
              url);
      long cpuBefore = processCpuNanos();
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      // wrk writes its figures only at the end, so its pipe does not fill while this waits.
      while (!p.waitFor(50, TimeUnit.MILLISECONDS)) {
        // SIGINT ends wrk's run early with its figures (SIGTERM would end it without them); wrk
        // is the shell's child, and the shell then prints its stat as after a full run.
        List<ProcessHandle> wrkItself = p.children().toList();
        if (!wrkItself.isEmpty() && enough.getAsBoolean()) {
          for (ProcessHandle w : wrkItself) {
            new ProcessBuilder("kill", "-INT", Long.toString(w.pid())).start().waitFor();
          }
          break;
        }
      }
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(duration.toSeconds() + 60, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IllegalStateException("wrk failed:\n" + out);
      }
      long gatewayCpu = processCpuNanos() - cpuBefore;
      return parse(out).withCpu(gatewayCpu, childrenCpuNanos(out));
    } catch (IOException e) {
      throw new IllegalStateException("cannot run wrk: " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  /** The children's user and system time from the shell's stat line, in nanoseconds. */
  static long childrenCpuNanos(String out) {
    Matcher m = Pattern.compile("wrk-stat: \\d+ \\(.*?\\) (.*)").matcher(out);
    if (!m.find()) {
      return 0;
    }
    // After "(comm)": field 3 is the first; cutime and cstime are fields 16 and 17, in clock ticks.
    String[] f = m.group(1).trim().split(" ");
    long ticks = Long.parseLong(f[16 - 3]) + Long.parseLong(f[17 - 3]);
    return ticks * 10_000_000L; // USER_HZ is 100 on Linux
  }

  static Result parse(String out) {
    long requests = longOf(out, "(\\d+) requests in");
    double perSecond = Double.parseDouble(group(out, "Requests/sec:\\s+([0-9.]+)"));
    double p50 = millis(group(out, "\\n\\s+50%\\s+([0-9.]+\\w+)"));
    double p99 = millis(group(out, "\\n\\s+99%\\s+([0-9.]+\\w+)"));
    long failed = 0;
    Matcher non2xx = Pattern.compile("Non-2xx or 3xx responses: (\\d+)").matcher(out);
    if (non2xx.find()) {
      failed += Long.parseLong(non2xx.group(1));
    }
    Matcher errors =
        Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)")
            .matcher(out);
    if (errors.find()) {
      for (int g = 1; g <= 4; g++) {
        failed += Long.parseLong(errors.group(g));
      }
    }
    return new Result(requests, perSecond, p50, p99, failed, Double.NaN, Double.NaN);
  }

  private static String group(String text, String regex) {
    Matcher m = Pattern.compile(regex).matcher(text);
    if (!m.find()) {
      throw new IllegalStateException("wrk output lacks /" + regex + "/:\n" + text);
    }
    return m.group(1);
  }

  private static long longOf(String text, String regex) {
    return Long.parseLong(group(text, regex));
  }

  /** wrk writes latencies as 812.00us, 1.23ms, 2.01s or 1.00m. */
  static double millis(String value) {
    Matcher m = Pattern.compile("([0-9.]+)(us|ms|s|m)").matcher(value.toLowerCase(Locale.ROOT));
    if (!m.matches()) {
      throw new IllegalStateException("unexpected latency " + value);
    }
    double n = Double.parseDouble(m.group(1));
    return switch (m.group(2)) {
      case "us" -> n / 1000;
      case "ms" -> n;
      case "s" -> n * 1000;
      default -> n * 60_000;
    };
  }

  private static String luaString(String s) {
    List<String> parts = new ArrayList<>();
    for (char c : s.toCharArray()) {
      parts.add(c == '\'' || c == '\\' ? "\\" + c : String.valueOf(c));
    }
    return "'" + String.join("", parts) + "'";
  }
}
