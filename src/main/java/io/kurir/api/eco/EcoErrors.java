package io.kurir.api.eco;

import io.kurir.api.ApiException;
import io.kurir.api.ErrorCatalogue;
import io.kurir.schedule.ScheduleRefused;

/**
 * The Eco API's answers to the core's refusals. A refused key is an error (401/403 token); a
 * refused send is an error whose text field is {@code message}; a refused schedule is, as the
 * contract has it, mostly a result string with 200.
 */
final class EcoErrors {
  private EcoErrors() {}

  /** The catalogue, with {@code maxKb} (the media limit) in the too-large result. */
  static ErrorCatalogue catalogue(long maxKb) {
    return ErrorCatalogue.builder()
        .credentialRefusals("key_disabled", "invalid_key", "no device has this key")
        .sendRefusals("message")
        .add(ScheduleRefused.Reason.DUE_IN_PAST, 200, EcoResults.SCH_DATE_BELOW_NOW)
        .add(ScheduleRefused.Reason.TOO_MANY_IN_MINUTE, 200, EcoResults.SCH_MORE_THAN_3_IN_1_MINUTE)
        .add(ScheduleRefused.Reason.FILE_TOO_LARGE, 200, EcoResults.fileMoreThan(maxKb))
        .add(ScheduleRefused.Reason.IMAGE_NOT_FOUND, 200, EcoResults.SCH_IMAGE_NOT_FOUND)
        .add(
            ScheduleRefused.Reason.URL_NOT_VALID,
            e -> ApiException.fieldNotValid("url", e.getMessage()))
        .add(ScheduleRefused.Reason.TEXT_TOO_LONG, 400, "message_too_long")
        .build();
  }
}
