package io.kurir.api.eco;

import static io.kurir.api.eco.EcoMessageHandlers.plain;

import io.javalin.http.Context;
import io.kurir.api.eco.EcoRoutes.EcoRequest;
import io.kurir.device.DeviceState;
import io.kurir.device.Sessions;
import io.kurir.media.SafeFetcher;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** The device's session: {@code info}, {@code qr_status}, {@code logout}. */
public final class EcoDeviceHandlers {
  static final String PORT_DOWN = "port_down";

  private final Sessions sessions;
  private final SafeFetcher targets;
  private final String version;

  public EcoDeviceHandlers(Sessions sessions, SafeFetcher targets, String version) {
    this.sessions = sessions;
    this.targets = targets;
    this.version = version;
  }

  /**
   * {@code /api/webhook_status}: {@code add} / {@code update} register the device-status webhook
   * {@code url}, {@code status} shows it, {@code delete} removes it; answers {status, url,
   * accountNo}. A URL Kurir may not call (not http(s), or an internal address) answers {@code
   * failed}.
   */
  void webhookStatus(Context ctx, EcoRequest req) {
    long id = req.device().id();
    String action = req.fields().text("action").orElse("").strip().toLowerCase(Locale.ROOT);
    Optional<String> url = req.fields().text("url").map(String::strip);
    String status = "success";
    switch (action) {
      case "add", "update" -> {
        if (url.isEmpty() || targets.refusalOf(url.get()).isPresent()) {
          status = EcoResults.FAILED;
        } else {
          sessions.states().setStatusWebhook(id, url.get());
        }
      }
      case "delete" -> sessions.states().setStatusWebhook(id, null);
      case "status" -> {}
      default -> status = EcoResults.FAILED;
    }
    Map<String, Object> reply = new LinkedHashMap<>();
    reply.put("status", status);
    reply.put("url", sessions.states().statusWebhook(id).orElse(""));
    reply.put("accountNo", req.device().number().substring(1));
    ctx.json(reply);
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
