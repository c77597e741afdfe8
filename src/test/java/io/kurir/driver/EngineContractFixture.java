package io.kurir.driver;

import io.kurir.testing.Eventually;
import java.util.Optional;

/**
 * What the fixtures of the WhatsApp Web engine drivers (WAHA, GOWA) answer alike: a user who hides
 * their number is named by a LID of its own (BSUIDs are the Cloud API's), every kind of incoming
 * message comes, and an engine that stops is seen gone once the driver's trust in its last call ran
 * out on the clock.
 */
public abstract class EngineContractFixture extends ContractFixture {
  private final String engine;

  /** {@code engine} names what speaks WhatsApp Web, for the log ({@code WAHA's engines}). */
  protected EngineContractFixture(String engine) {
    this.engine = engine;
  }

  /** The digits of {@code e164}, as the engines take a number. */
  protected static String digits(String e164) {
    return e164.replaceAll("\\D", "");
  }

  @Override
  public Optional<String> noIncoming(IncomingKind kind) {
    return Optional.empty();
  }

  @Override
  public Optional<String> noHiddenSenders(ContactId.Kind kind) {
    return kind == ContactId.Kind.BSUID
        ? Optional.of(
            "WhatsApp Web ("
                + engine
                + ") names a user who hides their number by a LID; BSUIDs are the Cloud API's")
        : Optional.empty();
  }

  /** A LID of the person: digits of its own, not the phone's (WhatsApp's are not derived). */
  @Override
  public ContactId hiddenId(ContactId.Kind kind, String e164) {
    if (kind != ContactId.Kind.LID) {
      throw new UnsupportedOperationException(noHiddenSenders(kind).orElseThrow());
    }
    return ContactId.lid("2107" + digits(e164).substring(2) + "5");
  }

  /**
   * Waits until the driver sees its stopped engine gone. The driver trusts its last call to the
   * engine for {@link EngineWatch#PROBE_EVERY} of the gateway's clock; that while passes first, as
   * it would without a test holding the clock still.
   */
  protected final void awaitEngineSeenGone() {
    clock().advance(EngineWatch.PROBE_EVERY.plusMillis(1));
    Eventually.until("the driver sees its engine gone", () -> !driver().isRunning());
  }
}
