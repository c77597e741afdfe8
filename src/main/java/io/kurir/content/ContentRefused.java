package io.kurir.content;

import io.kurir.core.KurirException;

/**
 * A message object that is not one the Cloud API would take: a field missing, empty, too long or of
 * the wrong shape. {@link #token()} names the field as Meta's object path does, with {@code .}
 * written {@code _} ({@code text_body_empty}, {@code interactive_action_buttons_not_valid}), so an
 * API answers {@code 400} with it and the sentence.
 */
public final class ContentRefused extends KurirException {

  /** What is wrong with the field. */
  public enum Reason implements KurirException.Reason {
    /** Missing or empty. */
    CONTENT_EMPTY("_empty"),
    /** Of the wrong type or shape, or a value the kind does not take. */
    CONTENT_NOT_VALID("_not_valid"),
    /** Longer than Meta allows. */
    CONTENT_TOO_LONG("_too_long");

    private final String suffix;

    Reason(String suffix) {
      this.suffix = suffix;
    }
  }

  private final Reason reason;
  private final String field;

  ContentRefused(Reason reason, String field, String message) {
    super(message, false);
    this.reason = reason;
    this.field = field;
  }

  @Override
  public Reason reason() {
    return reason;
  }

  /** The field's path in the message object, such as {@code text.body}. */
  public String field() {
    return field;
  }

  /** The error token: the field's path with {@code _} for {@code .}, and what is wrong. */
  public String token() {
    return field.replace('.', '_').replaceAll("\\[\\d+]", "") + reason.suffix;
  }
}
