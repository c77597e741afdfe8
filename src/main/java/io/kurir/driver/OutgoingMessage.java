package io.kurir.driver;

/**
 * A message as a driver needs it.
 *
 * @param id Kurir's message id, also the driver's idempotency key
 * @param recipient E.164 number, or group id when {@code toGroup}
 * @param toGroup whether {@code recipient} is a group
 * @param kind {@code text}, {@code image} or {@code file}
 * @param text the text, or the caption of a media message
 */
public record OutgoingMessage(
    long id, String recipient, boolean toGroup, String kind, String text) {}
