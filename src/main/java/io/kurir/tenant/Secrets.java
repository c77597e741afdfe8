package io.kurir.tenant;

import java.security.SecureRandom;

/** Long random secrets made of letters and digits, so they survive URLs, forms and shells. */
public final class Secrets {
  private static final String ALPHABET =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  private static final SecureRandom RANDOM = new SecureRandom();

  private Secrets() {}

  /** {@code length} characters, about 5.95 bits each: 32 characters is 190 bits. */
  public static String random(int length) {
    StringBuilder out = new StringBuilder(length);
    for (int i = 0; i < length; i++) {
      out.append(ALPHABET.charAt(RANDOM.nextInt(ALPHABET.length())));
    }
    return out.toString();
  }
}
