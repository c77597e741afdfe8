package io.kurir.api.eco;

import static io.kurir.api.eco.EcoMessageHandlers.plain;

import io.javalin.http.Context;
import io.kurir.api.eco.EcoRoutes.EcoRequest;
import io.kurir.device.DeviceState;
import io.kurir.device.Sessions;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** The device's session: {@code info}, {@code qr_status}, {@code logout}. */
public final class EcoDeviceHandlers {
  static final String PORT_DOWN = "port_down";

  private final Sessions sessions;
  private final String version;

  public EcoDeviceHandlers(Sessions sessions, String version) {
    this.sessions = sessions;
    this.version = version;
  }

  /** {@code /api/qr_status}: none, online, offline, refresh_it, failed, or port_down. */
  void qrStatus(Context ctx, EcoRequest req) {
    plain(ctx, status(req));
  }

  /** {@code /api/info}: {status, number, account, version}. */
  void info(Context ctx, EcoRequest req) {
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("status", status(req));
    reply.put("number", req.device().number().substring(1));
    reply.put("account", Long.toString(req.device().id()));
    reply.put("version", version);
    ctx.json(reply);
  }

  /**
   * {@code /api/generate_qr}: a {@code data:image/png;base64,…} QR code to scan, {@code success}
   * when the device is paired already (log out first), {@code failed} or {@code port_down}.
   */
  void generateQr(Context ctx, EcoRequest req) {
    plain(
        ctx,
        switch (sessions.pairing(req.device())) {
          case Sessions.Pairing.Code code -> code.pngDataUrl();
          case Sessions.Pairing.AlreadyPaired paired -> EcoResults.SUCCESS;
          case Sessions.Pairing.Unavailable unavailable -> EcoResults.FAILED;
          case Sessions.Pairing.DriverDown down -> PORT_DOWN;
        });
  }

  /** {@code /api/logout}: success, failed (no session to end), or port_down. */
  void logout(Context ctx, EcoRequest req) {
    plain(
        ctx,
        switch (sessions.logout(req.device())) {
          case DONE -> EcoResults.SUCCESS;
          case NOT_PAIRED -> EcoResults.FAILED;
          case DRIVER_DOWN -> PORT_DOWN;
        });
  }

  private String status(EcoRequest req) {
    Optional<DeviceState> state = sessions.state(req.device());
    return state.map(DeviceState::wireName).orElse(PORT_DOWN);
  }
}
