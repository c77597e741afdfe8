package io.kurir.schedule;

import io.kurir.core.KurirException;

/** Why a schedule was not accepted; dialects turn the reasons into their own result strings. */
public final class ScheduleRefused extends KurirException {
  public enum Reason implements KurirException.Reason {
    /** Its minute has passed already. */
    DUE_IN_PAST,
    /** The device has as many schedules in that minute as it may. */
    TOO_MANY_IN_MINUTE,
    /** The URL's file is larger than the media limit. */
    FILE_TOO_LARGE,
    /** An image type whose URL is unreachable or is not an image. */
    IMAGE_NOT_FOUND,
    /** Not an http(s) URL, or one Kurir may not fetch. */
    URL_NOT_VALID,
    /** Longer than a message may be. */
    TEXT_TOO_LONG
  }

  private final Reason reason;

  public ScheduleRefused(Reason reason, String message) {
    super(message, false);
    this.reason = reason;
  }

  @Override
  public Reason reason() {
    return reason;
  }
}
