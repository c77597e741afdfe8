package io.kurir.message;

/** The reasons stored with a failed message; dialects turn them into their own result strings. */
public final class FailureReason {
  /** As a driver's failed receipt gives it. */
  public static final String NUMBER_NOT_FOUND = io.kurir.driver.Receipt.NUMBER_NOT_FOUND;

  public static final String PHONE_OFFLINE = "phone_offline";
  public static final String TIMEOUT = "timeout";

  /** As a driver's failed receipt gives it. */
  public static final String DRIVER_ERROR = io.kurir.driver.Receipt.DRIVER_ERROR;

  /**
   * A crash cut the attempt off before its outcome was recorded, on a network that does not
   * de-duplicate: sending it again could deliver it twice.
   */
  public static final String INTERRUPTED = "interrupted";

  /** The image or file URL of an async send is not one Kurir may fetch. */
  public static final String MEDIA_URL_WRONG = "url_wrong";

  /** The image or file of an async send is larger than {@code media.max-size}. */
  public static final String MEDIA_TOO_LARGE = "file_too_large";

  /** The image of an async image send is not an image. */
  public static final String MEDIA_NOT_IMAGE = "image_not_found";

  /** The image or file URL of an async send could not be fetched (refused, timed out, 4xx/5xx). */
  public static final String MEDIA_UNREACHABLE = "media_unreachable";

  /**
   * The image or file is of a type the device's network does not take (a GIF or a WebP image on the
   * Cloud API).
   */
  public static final String MEDIA_TYPE_NOT_SUPPORTED = "media_type_not_supported";

  /** Taken back before it went out (a removed schedule). */
  public static final String CANCELLED = "cancelled";

  /** Still queued when its device was deleted: it never went to the network. */
  public static final String DEVICE_DELETED = "device_deleted";

  private FailureReason() {}
}
