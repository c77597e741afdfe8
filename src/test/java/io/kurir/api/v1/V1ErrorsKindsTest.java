package io.kurir.api.v1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.kurir.api.ApiException;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.ContentRefused;
import io.kurir.message.SendRefused;
import io.kurir.testing.MessageObjects;
import org.junit.jupiter.api.Test;

/**
 * What {@code /v1} answers to the refusals of message kinds: 422 {@code kind_not_supported} naming
 * the driver and the kind, 422 {@code capability_not_supported}, and 400 with the field's token for
 * a message object Meta would refuse.
 */
class V1ErrorsKindsTest {

  @Test
  void aKindTheDriverCannotCarryAnswers422NamingTheDriverAndTheKind() {
    ApiException answer =
        V1Errors.CATALOGUE
            .answer(
                new SendRefused(
                    SendRefused.Reason.KIND_NOT_SUPPORTED, "the cloud driver cannot carry sticker"))
            .orElseThrow();
    assertThat(answer.status()).isEqualTo(422);
    assertThat(answer.token()).isEqualTo("kind_not_supported");
    assertThat(answer.getMessage()).contains("the cloud driver cannot carry sticker");
    assertThat(
            V1Errors.CATALOGUE
                .answer(
                    new SendRefused(
                        SendRefused.Reason.CAPABILITY_NOT_SUPPORTED,
                        "the cloud driver cannot carry mentions"))
                .orElseThrow()
                .status())
        .isEqualTo(422);
  }

  @Test
  void aMessageObjectMetaWouldRefuseAnswers400WithTheFieldsToken() {
    ContentRefused refused =
        catchThrowableOfType(
            ContentRefused.class,
            () ->
                CloudMessageJson.parse(MessageObjects.json("{'type':'text','text':{'body':''}}")));
    ApiException answer = V1Errors.CATALOGUE.answer(refused).orElseThrow();
    assertThat(answer.status()).isEqualTo(400);
    assertThat(answer.token()).isEqualTo("text_body_empty");
  }
}
