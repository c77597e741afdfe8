package io.kurir.driver.gowa;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.driver.DeviceState;

/**
 * The status of a device's slot as Kurir keeps it, read from GOWA's {@code GET /devices/{id}}
 * ({@code state} is {@code disconnected | connecting | connected | logged_in}, and {@code jid} is
 * set only while the slot is paired: GOWA clears it when the phone logs the device out), or set by
 * Kurir when GOWA cannot be asked.
 */
final class GowaStatus {
  private GowaStatus() {}

  /** Paired and connected: a send can go out. */
  static final String LOGGED_IN = "logged_in";

  /** Paired (a JID), but not connected now: the connection was lost; GOWA reconnects it. */
  static final String PAIRED_AWAY = "paired_not_connected";

  /** Never paired: waits for a QR code or a pairing code. */
  static final String NOT_PAIRED = "not_paired";

  /** Was paired, and GOWA lost the pairing: the phone logged the device out (or it was removed). */
  static final String LOGGED_OUT = "logged_out";

  /** No slot of that id on GOWA (removed behind Kurir's back); attaching makes it again. */
  static final String NO_SLOT = "no_slot";

  /** GOWA cannot be reached: Kurir's own status while it is away ({@code port_down}). */
  static final String UNREACHABLE = "unreachable";

  /** GOWA refused Kurir's Basic credentials: {@code drivers.gowa.basic-auth} is wrong. */
  static final String AUTH_REFUSED = "auth_refused";

  /**
   * The status of a slot GOWA described as {@code device}: a slot without a JID that was ever
   * logged in ({@code everPaired}) was logged out, not merely never paired.
   */
  static String of(JsonNode device, boolean everPaired) {
    String state = device.path("state").asText("disconnected");
    boolean paired = !device.path("jid").asText("").isBlank();
    if (state.equals("logged_in")) {
      return LOGGED_IN;
    }
    if (paired) {
      return PAIRED_AWAY;
    }
    return everPaired ? LOGGED_OUT : NOT_PAIRED;
  }

  /** The contract's {@code qr_status} of a status (docs/drivers/gowa.md has the table). */
  static DeviceState stateOf(String status) {
    return switch (status) {
      case LOGGED_IN -> DeviceState.ONLINE;
      case PAIRED_AWAY -> DeviceState.OFFLINE;
      case UNREACHABLE -> DeviceState.PORT_DOWN;
      case AUTH_REFUSED -> DeviceState.FAILED;
      default -> DeviceState.NONE; // not paired, logged out, no slot: a QR code links it
    };
  }

  /** Why a device is in {@code status}, for its history and the device-status webhook. */
  static String why(String status) {
    return switch (status) {
      case LOGGED_IN -> "GOWA: logged in";
      case PAIRED_AWAY -> "GOWA: paired, but not connected to WhatsApp now (GOWA reconnects it)";
      case NOT_PAIRED -> "GOWA: not paired yet; link it with a QR code or a pairing code";
      case LOGGED_OUT ->
          "GOWA: logged out (by the phone, or WhatsApp ended the link); link it again with a QR code";
      case NO_SLOT -> "GOWA: no such device on GOWA; it is made again when the device is attached";
      case AUTH_REFUSED -> "GOWA refused Kurir's credentials: check drivers.gowa.basic-auth";
      default -> "GOWA: " + status;
    };
  }
}
