package io.kurir.testing;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Distinct valid Indonesian mobile numbers, so that tests sharing a gateway never share an inbox.
 */
public final class Numbers {
  private static final AtomicInteger NEXT = new AtomicInteger(1000);

  private Numbers() {}

  /** A new number in E.164, e.g. {@code +6281234501000}. */
  public static String fresh() {
    return "+62812345" + String.format("%05d", NEXT.getAndIncrement());
  }

  /** The same number the way an Indonesian user writes it, e.g. {@code 081234501000}. */
  public static String national(String e164) {
    return "0" + e164.substring(3);
  }

  /** The same number without {@code +}. */
  public static String digits(String e164) {
    return e164.substring(1);
  }
}
