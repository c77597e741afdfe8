package io.kurir.launcher;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * The jars' entry point ({@code Main-Class} of {@code target/run/kurir.jar} and of the release
 * jar): checks that the running Java is new enough, then hands over to {@code io.kurir.Kurir}.
 *
 * <p>Why a class of its own, compiled for Java 8 (a separate compiler execution in {@code pom.xml},
 * this package only): the gateway's classes are Java 21 class files, and an older Java refuses the
 * first of them with {@code UnsupportedClassVersionError} and a stack trace that names no version a
 * person would recognise. This class loads on any Java since 8 and says what is wrong in one line.
 * It must therefore use nothing newer than Java 8 and name the gateway only by reflection (a direct
 * reference would load {@code Kurir} before the check).
 */
public final class Launcher {
  /** The oldest Java the gateway runs on; keep in sync with {@code maven.compiler.release}. */
  static final int MIN_JAVA = 21;

  /** The gateway's command line, loaded only once the Java is known to be new enough. */
  static final String MAIN_CLASS = "io.kurir.Kurir";

  private Launcher() {}

  public static void main(String[] args) throws Throwable {
    String problem = problem(System.getProperty("java.specification.version"));
    if (problem != null) {
      System.err.println(problem);
      System.err.println(
          "(the Java that ran it: "
              + System.getProperty("java.home")
              + "; install Java "
              + MIN_JAVA
              + " or newer, for example Temurin 21 or 25, and run the jar with its java)");
      System.exit(1);
      return;
    }
    Method main = Class.forName(MAIN_CLASS).getMethod("main", String[].class);
    try {
      main.invoke(null, (Object) args);
    } catch (InvocationTargetException e) {
      throw e.getCause(); // the gateway's own failure, as if it had been the main class
    }
  }

  /**
   * What is wrong with the Java whose {@code java.specification.version} is {@code version} ("1.8"
   * up to Java 8, then "9", "17", "21"…), or null when it is new enough. A value this cannot read
   * is let through: the gateway's own classes then decide.
   */
  static String problem(String version) {
    int feature = feature(version);
    if (feature < 0 || feature >= MIN_JAVA) {
      return null;
    }
    return "Kurir needs Java " + MIN_JAVA + " or newer; this is Java " + feature;
  }

  private static int feature(String version) {
    if (version == null) {
      return -1;
    }
    String v = version.trim();
    if (v.startsWith("1.")) {
      v = v.substring(2);
    }
    int end = 0;
    while (end < v.length() && Character.isDigit(v.charAt(end))) {
      end++;
    }
    if (end == 0) {
      return -1;
    }
    try {
      return Integer.parseInt(v.substring(0, end));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
