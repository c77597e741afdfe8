package io.kurir.api.eco;

import io.kurir.message.SendResult;
import io.kurir.time.Timestamps;
import java.time.Instant;

/**
 * The Eco API's result strings, exactly as the contract spells them. Keep in sync with the Errors
 * table of the spec.
 */
final class EcoResults {
  static final String SUCCESS = "success";
  static final String PHONE_OFFLINE = "phone_offline";
  static final String OTHER_ERROR = "Other error";
  static final String NOT_FOUND = "not_found";
  static final String EXISTS = "exists";
  static final String NOT_EXISTS = "not_exists";
  static final String UNKNOWN = "unknow"; // sic: the contract's spelling
  static final String STATUS_SUCCESS = "success";
  static final String STATUS_FAILED = "failed";

  private final Timestamps timestamps;

  EcoResults(Timestamps timestamps) {
    this.timestamps = timestamps;
  }

  /** {@code [YYYYMMDDHHMMSS] Number not found}, stamped with the operator-zone time. */
  String numberNotFound(Instant at) {
    return "[" + timestamps.compact(at) + "] Number not found";
  }

  static final String URL_WRONG = "url_wrong";
  static final String FILE_NOT_EXISTS = "file_not_exists";

  /** An upload that would take the license past {@code media.upload-quota} (413). */
  static final String STORAGE_QUOTA_EXCEEDED = "storage_quota_exceeded";

  static final String GROUP_NOT_FOUND = "group_not_found";
  static final String GROUP_OTHER_ERROR = "other_error";
  static final String NO_MEMBERS = "n,o,n,e"; // sic: the contract's way of saying "none"
  static final String FAILED = "failed";

  static final String NOT_VALID_API = "not_valid_api";
  static final String SCH_DATE_NOT_VALID = "sch_date_not_valid";
  static final String SCH_DATE_BELOW_NOW = "sch_date_below_now";
  static final String MESSAGE_EMPTY = "message_empty";
  static final String URL_EMPTY = "url_empty";
  static final String SCH_MORE_THAN_3_IN_1_MINUTE = "sch_more_than_3_in_1_minute";

  /** The scheduler's {@code image_not_found}: without the size that send_image_url adds. */
  static final String SCH_IMAGE_NOT_FOUND = "image_not_found";

  static final String ALREADY_SENT = "already_sent";
  static final String ALREADY_FAILED = "already_failed";

  /** {@code file_more_than_<N>KB}: N is the configured limit in KB. */
  static String fileMoreThan(long maxKb) {
    return "file_more_than_" + maxKb + "KB";
  }

  /** {@code image_not_found <N>KB}: what came back is not an image; N is the limit in KB. */
  static String imageNotFound(long maxKb) {
    return "image_not_found " + maxKb + "KB";
  }

  /** The plain result of a sync send to a group. */
  String ofGroupSend(SendResult result) {
    return switch (result) {
      case SENT -> SUCCESS;
      case NUMBER_NOT_FOUND -> GROUP_NOT_FOUND;
      case PHONE_OFFLINE, TIMEOUT -> PHONE_OFFLINE;
      case FAILED, DEVICE_BUSY -> GROUP_OTHER_ERROR;
    };
  }

  /** The plain result of a sync send to a number. */
  String ofSend(SendResult result, Instant now) {
    return switch (result) {
      case SENT -> SUCCESS;
      case NUMBER_NOT_FOUND -> numberNotFound(now);
      // A sync call that got no outcome in time was withdrawn: to the caller the phone did not
      // answer, which is what phone_offline means.
      case PHONE_OFFLINE, TIMEOUT -> PHONE_OFFLINE;
      // Only when an earlier number of the request went out (else 429 device_busy): the caller
      // must learn that something was sent, which an HTTP error would hide.
      case FAILED, DEVICE_BUSY -> OTHER_ERROR;
    };
  }
}
