package io.kurir.schedule;

import io.kurir.message.FailureReason;
import io.kurir.message.MessageState;
import java.time.Instant;
import java.util.Optional;

/**
 * A scheduled message, with the state of the message it became once handed over.
 *
 * @param target the recipient's E.164 number
 * @param url the image or file to send, for every type but {@code text}
 * @param filename the name of the image or file, once known
 * @param reason why it failed, when it failed before becoming a message
 * @param messageState the state of the message it became, once handed over
 * @param messageReason the reason stored with that message, if any
 */
public record Schedule(
    long id,
    long deviceId,
    ApiType apiType,
    String body,
    String target,
    Optional<String> url,
    Optional<String> filename,
    Instant dueAt,
    Instant createdAt,
    ScheduleState state,
    Optional<String> reason,
    Optional<Long> messageId,
    Optional<MessageState> messageState,
    Optional<String> messageReason) {

  /** The values of the contract's {@code status} field. */
  public static final String WAITING = "waiting";

  public static final String SUCCESS = "success";
  public static final String NUMBER_NOT_FOUND = "number_not_found";
  public static final String FAILED = "failed";
  public static final String REMOVED = "removed";

  /**
   * Why it failed, as a token without details, while {@link #status} is {@code failed}: the reason
   * recorded when it could not become a message ({@code device_disabled}, {@code license_expired},
   * {@code device_not_found}, {@code driver_not_loaded}, {@code url_unreachable}, …), or the reason
   * of its message that failed ({@code driver_error}, {@code timeout}, …).
   */
  public Optional<String> failureReason() {
    if (!status().equals(FAILED)) {
      return Optional.empty();
    }
    Optional<String> why = state == ScheduleState.FAILED ? reason : messageReason;
    // Details after a colon (a fetch's error) are for operators, in the log and the database.
    return why.map(r -> r.split(":", 2)[0].strip()).filter(r -> !r.isEmpty());
  }

  /**
   * The contract's status: {@code waiting} until its message has gone out (also while it queues
   * behind an offline phone), then {@code success}, {@code number_not_found} or {@code failed};
   * {@code removed} when its owner removed it first.
   */
  public String status() {
    return switch (state) {
      case WAITING, CLAIMED -> WAITING;
      case REMOVED -> REMOVED;
      case FAILED -> FAILED;
      case HANDED -> {
        MessageState m = messageState.orElse(MessageState.PENDING);
        if (m.wentOut()) {
          yield SUCCESS;
        } else if (m == MessageState.FAILED) {
          yield messageReason.filter(FailureReason.NUMBER_NOT_FOUND::equals).isPresent()
              ? NUMBER_NOT_FOUND
              : FAILED;
        } else {
          yield WAITING;
        }
      }
    };
  }
}
