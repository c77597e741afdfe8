package io.kurir.driver.cloud;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * An error of the Graph API, from a reply ({@code {"error": {"code": …}}}) or from a {@code failed}
 * status of the webhook ({@code errors[0]}). Kurir acts on {@link #code}, never on the text, which
 * Meta rewords: see {@link #kind}.
 *
 * @param httpStatus the reply's status, or 0 when it came by webhook
 * @param code Meta's error code, or 0 when the reply carried none (a proxy's 502 page)
 * @param message Meta's message, for logs
 * @param details {@code error_data.details}, for logs
 */
record GraphError(int httpStatus, int code, int subcode, String message, String details) {

  GraphError(int httpStatus, int code, String message, String details) {
    this(httpStatus, code, 0, message, details);
  }

  /**
   * Meta's subcode of error 100 for an object that does not exist or that the token may not use: in
   * a call on the phone number id, a wrong number id.
   */
  static final int NO_SUCH_OBJECT = 33;

  /** What Kurir does about an error. */
  enum Kind {
    /** Not on WhatsApp, or cannot receive: {@code Number not found}. */
    NOT_FOUND,
    /** More than 24 hours since the customer last wrote: failed, not retried. */
    WINDOW_CLOSED,
    /** The number's throughput, the app's call rate: the device's queue waits. */
    RATE_LIMIT,
    /** Too many messages to one customer in a short time: waits, longer each time. */
    PAIR_RATE_LIMIT,
    /** The access token expired or was revoked: the device fails until a new one is set. */
    TOKEN,
    /**
     * The account or the number cannot send at all (permission, locked, payment, not registered,
     * blocked for policy, a wrong phone number id): the device fails and its queue is held.
     */
    ACCOUNT,
    /**
     * The device's template cannot go (not approved on the account in its language, another number
     * of body parameters): its configuration's fault, not the message's; the device fails and its
     * queue is held until the configuration changes.
     */
    TEMPLATE,
    /** A network error, a 5xx, Meta's "something went wrong": retried with backoff. */
    TRANSIENT,
    /** The message itself is refused (bad parameter, media, template): final. */
    PERMANENT
  }

  static GraphError of(int httpStatus, JsonNode body) {
    JsonNode e = body.path("error");
    return new GraphError(
        httpStatus,
        e.path("code").asInt(0),
        e.path("error_subcode").asInt(0),
        e.path("message").asText(""),
        e.path("error_data").path("details").asText(""));
  }

  /** One item of a webhook's {@code errors} array. */
  static GraphError ofWebhook(JsonNode item) {
    String message = item.path("message").asText(item.path("title").asText(""));
    return new GraphError(
        0, item.path("code").asInt(0), message, item.path("error_data").path("details").asText(""));
  }

  /**
   * Codes from Meta's error-code reference (see docs/drivers/cloud.md): 131026 undeliverable,
   * 131047 re-engagement, 130429 throughput, 131056 pair rate, 4 / 80007 app and account call
   * rates, 131048 spam rate, 131057 maintenance, 0 / 190 / 102 authentication, 1 / 2 / 131000 /
   * 131016 temporary; 3, 10, 200-299 permissions, 131005 access denied, 131031 account locked,
   * 131042 payment, 133010 number not registered, 368 policy block and 100 with subcode 33 (a wrong
   * phone number id) hold the device; so do 132001 (template does not exist in that language) and
   * 132000 (its number of parameters), since Kurir sends only the device's template.
   */
  Kind kind() {
    if (code == 100 && subcode == NO_SUCH_OBJECT) {
      return Kind.ACCOUNT;
    }
    if (code >= 200 && code <= 299) {
      return Kind.ACCOUNT;
    }
    return switch (code) {
      case 3, 10, 131005, 131031, 131042, 133010, 368 -> Kind.ACCOUNT;
      case 132000, 132001 -> Kind.TEMPLATE;
      case 131026 -> Kind.NOT_FOUND;
      case 131047 -> Kind.WINDOW_CLOSED;
      case 130429, 4, 80007, 131048, 131057 -> Kind.RATE_LIMIT;
      case 131056 -> Kind.PAIR_RATE_LIMIT;
      case 0, 190, 102 -> code == 0 && httpStatus != 401 ? fromStatus() : Kind.TOKEN;
      case 1, 2, 131000, 131016 -> Kind.TRANSIENT;
      default -> Kind.PERMANENT;
    };
  }

  /** A reply with no Graph code: its HTTP status alone says what it was. */
  private Kind fromStatus() {
    if (httpStatus == 401) {
      return Kind.TOKEN;
    } else if (httpStatus == 429) {
      return Kind.RATE_LIMIT;
    } else if (httpStatus >= 500 || httpStatus == 0 || httpStatus == 408) {
      return Kind.TRANSIENT;
    }
    return Kind.PERMANENT;
  }

  /** For logs and stored details: {@code Graph error 131026 (HTTP 400): Message undeliverable}. */
  String describe() {
    StringBuilder b = new StringBuilder("Graph error ").append(code);
    if (httpStatus > 0) {
      b.append(" (HTTP ").append(httpStatus).append(')');
    }
    if (!message.isBlank()) {
      b.append(": ").append(message);
    }
    if (!details.isBlank()) {
      b.append(" — ").append(details);
    }
    return b.toString();
  }
}
