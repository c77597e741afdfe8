package io.kurir.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.limit.RateLimited;
import io.kurir.message.IdempotencyKeyReused;
import io.kurir.message.SendRefused;
import io.kurir.schedule.ScheduleRefused;
import io.kurir.tenant.TenantException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a family's catalogue answers for each of the core's refusals. */
class ErrorCatalogueTest {

  @Test
  void everyCatalogueAnswersTheCommonRefusalsAlike() {
    ErrorCatalogue eco =
        ErrorCatalogue.builder()
            .credentialRefusals("key_disabled", "invalid_key", "no device")
            .build();

    ApiException limited =
        eco.answer(new RateLimited("too many", Duration.ofMillis(1_500))).orElseThrow();
    assertThat(limited.status()).isEqualTo(429);
    assertThat(limited.token()).isEqualTo("rate_limited");
    assertThat(limited.retryAfterSeconds()).isEqualTo(2);
    ApiException reused = eco.answer(new IdempotencyKeyReused("k1")).orElseThrow();
    assertThat(reused.status()).isEqualTo(422);
    assertThat(reused.token()).isEqualTo("idempotency_key_reused");
  }

  @Test
  void credentialRefusalsHideWhichKeysExist() {
    ErrorCatalogue crm =
        ErrorCatalogue.builder()
            .credentialRefusals("device_disabled", "invalid_device_id", "no device has this id")
            .build();

    ApiException unknown =
        crm.answer(new TenantException(TenantException.Reason.NOT_FOUND, "unknown device 42"))
            .orElseThrow();
    assertThat(unknown.status()).isEqualTo(401);
    assertThat(unknown.token()).isEqualTo("invalid_device_id");
    assertThat(unknown.getMessage()).isEqualTo("no device has this id");
    ApiException expired =
        crm.answer(new TenantException(TenantException.Reason.EXPIRED, "expired")).orElseThrow();
    assertThat(expired.status()).isEqualTo(403);
    assertThat(expired.token()).isEqualTo("license_expired");
  }

  @Test
  void aSendRefusalNamesTheFamilysTextFieldAndKeepsItsRetryAfter() {
    ErrorCatalogue account = ErrorCatalogue.builder().sendRefusals("text").build();

    ApiException tooLong =
        account.answer(new SendRefused(SendRefused.Reason.TEXT_TOO_LONG, "too long")).orElseThrow();
    assertThat(tooLong.token()).isEqualTo("text_too_long");
    ApiException busy =
        account.answer(new SendRefused(SendRefused.Reason.DEVICE_BUSY, "busy", 7)).orElseThrow();
    assertThat(busy.status()).isEqualTo(429);
    assertThat(busy.token()).isEqualTo("device_busy");
    assertThat(busy.retryAfterSeconds()).isEqualTo(7);
  }

  @Test
  void aReasonTheCatalogueDoesNotListIsNotAnswered() {
    ErrorCatalogue admin = ErrorCatalogue.builder().build();

    assertThat(admin.answer(new ScheduleRefused(ScheduleRefused.Reason.DUE_IN_PAST, "in the past")))
        .isEmpty();
    assertThat(ErrorCatalogue.builderWithoutCommon().build().answer(new IdempotencyKeyReused("k1")))
        .isEmpty();
  }

  @Test
  void aLaterEntryForTheSameReasonWins() {
    ErrorCatalogue catalogue =
        ErrorCatalogue.builder()
            .sendRefusals("message")
            .add(SendRefused.Reason.TEXT_TOO_LONG, 200, "result_string")
            .build();

    ApiException answer =
        catalogue
            .answer(new SendRefused(SendRefused.Reason.TEXT_TOO_LONG, "too long"))
            .orElseThrow();
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.token()).isEqualTo("result_string");
  }
}
