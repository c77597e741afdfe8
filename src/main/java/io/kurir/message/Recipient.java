package io.kurir.message;

/** Where a message goes: an E.164 number, or a group id when {@code group}. */
public record Recipient(String address, boolean group) {

  public static Recipient number(String e164) {
    return new Recipient(e164, false);
  }
}
