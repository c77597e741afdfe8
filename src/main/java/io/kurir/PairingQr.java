package io.kurir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.config.Settings;
import io.kurir.device.QrCodes;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * {@code ./kurir admin device qr <id>}: the pairing QR code of a running gateway in the terminal,
 * for operators over ssh. Pairing codes live in the gateway's driver, so this asks the gateway
 * (Admin API) instead of the database; it waits until the device is paired, or its code expires.
 */
final class PairingQr {
  private static final Duration POLL = Duration.ofMillis(500);
  private static final Duration LONGEST_WAIT = Duration.ofMinutes(2);

  private PairingQr() {}

  static int show(
      List<String> words,
      Map<String, String> options,
      Settings settings,
      PrintStream out,
      PrintStream err) {
    Target target = Target.of("qr", "pairing", words, options, settings, err);
    if (target == null) {
      return 2;
    }
    String base = target.base();
    URI uri = target.uri();
    String token = target.token();
    HttpClient http = HttpClient.newHttpClient();
    String shown = null;
    long deadline = System.nanoTime() + LONGEST_WAIT.toNanos();
    try {
      while (System.nanoTime() < deadline) {
        HttpResponse<String> reply =
            http.send(
                HttpRequest.newBuilder(uri)
                    .header("Authorization", "Bearer " + token)
                    .POST(HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (reply.statusCode() != 200) {
          err.println("kurir admin: " + refusal(reply, base));
          return 1;
        }
        JsonNode pairing = new ObjectMapper().readTree(reply.body());
        String state = pairing.get("state").asText();
        JsonNode payload = pairing.get("payload");
        if (payload == null || payload.isNull()) {
          if (state.equals("online") || state.equals("offline")) {
            out.println("device " + words.get(2) + " is paired (" + state + ")");
            return 0;
          }
          err.println(
              "kurir admin: device "
                  + words.get(2)
                  + " is not paired ("
                  + state
                  + "), and its driver gives no pairing code now");
          return 1;
        }
        if (!payload.asText().equals(shown)) { // the first code, or the next one after 20 s
          out.println(shown == null ? "" : "The code changed; scan this one:");
          shown = payload.asText();
          out.println(QrCodes.terminal(shown));
          out.println("code: " + shown);
          out.println("Scan this code with the device's phone within 20 seconds.");
        }
        Thread.sleep(POLL);
      }
      err.println("kurir admin: not paired after " + LONGEST_WAIT.toMinutes() + " minutes");
      return 1;
    } catch (IOException e) {
      return unreachable(err, base, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  /**
   * {@code ./kurir admin device link-code <id>}: the code that links the device's number when typed
   * on its phone (WhatsApp: Linked devices → Link with phone number instead), from a running
   * gateway.
   */
  static int linkCode(
      List<String> words,
      Map<String, String> options,
      Settings settings,
      PrintStream out,
      PrintStream err) {
    Target target = Target.of("link-code", "link-code", words, options, settings, err);
    if (target == null) {
      return 2;
    }
    try {
      HttpResponse<String> reply =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(target.uri())
                      .header("Authorization", "Bearer " + target.token())
                      .POST(HttpRequest.BodyPublishers.noBody())
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      if (reply.statusCode() != 200) {
        err.println("kurir admin: " + refusal(reply, target.base()));
        return 1;
      }
      String code = new ObjectMapper().readTree(reply.body()).path("code").asText();
      out.println("code: " + code);
      out.println(
          "On the device's phone: WhatsApp → Linked devices → Link a device → Link with phone"
              + " number instead, and type this code.");
      return 0;
    } catch (IOException e) {
      return unreachable(err, target.base(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  /**
   * {@code ./kurir admin device retry <id>}: asks the running gateway to resume a device whose
   * queue is held because its network refused the account ({@code POST /admin/devices/{id}/retry}).
   */
  static int retry(
      List<String> words,
      Map<String, String> options,
      Settings settings,
      PrintStream out,
      PrintStream err) {
    Target target = Target.of("retry", "retry", words, options, settings, err);
    if (target == null) {
      return 2;
    }
    try {
      HttpResponse<String> reply =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(target.uri())
                      .header("Authorization", "Bearer " + target.token())
                      .POST(HttpRequest.BodyPublishers.noBody())
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      if (reply.statusCode() != 200) {
        err.println("kurir admin: " + refusal(reply, target.base()));
        return 1;
      }
      String state = new ObjectMapper().readTree(reply.body()).path("state").asText();
      out.println("resumed; the device is " + state);
      return 0;
    } catch (IOException e) {
      return unreachable(err, target.base(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  /** The running gateway's Admin API route of one device, and the token to call it with. */
  private record Target(String base, URI uri, String token) {

    /** Null, with the problem told on {@code err}, when the id or the token is missing. */
    static Target of(
        String command,
        String route,
        List<String> words,
        Map<String, String> options,
        Settings settings,
        PrintStream err) {
      if (words.size() < 3) {
        err.println(
            "kurir admin: give the device id, as in: kurir admin device " + command + " <id>");
        return null;
      }
      String token = options.getOrDefault("token", settings.adminToken());
      if (token.isBlank()) {
        err.println(
            "kurir admin: device "
                + command
                + " asks the running gateway's Admin API, so it needs the gateway's"
                + " admin token: pass --token <admin.token>, or set admin.token as the gateway has"
                + " it (KURIR_ADMIN_TOKEN, or admin.token in the config file)");
        return null;
      }
      String base = options.getOrDefault("url", "http://127.0.0.1:" + settings.port());
      URI uri =
          URI.create(base.replaceAll("/+$", "") + "/admin/devices/" + words.get(2) + "/" + route);
      return new Target(base, uri, token);
    }
  }

  private static int unreachable(PrintStream err, String base, IOException e) {
    err.println(
        "kurir admin: cannot reach the gateway at "
            + base
            + " ("
            + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage())
            + "): is it running there? Give its address with --url");
    return 1;
  }

  /** What a refusal of the gateway means to the operator, and what to do about it. */
  private static String refusal(HttpResponse<String> reply, String base) {
    String error = "";
    String message = reply.body();
    try {
      JsonNode body = new ObjectMapper().readTree(reply.body());
      error = body.path("error").asText("");
      message = body.path("message").asText(message);
    } catch (IOException e) {
      // not JSON (another server on that address?): the raw body is the best we have
    }
    return switch (error) {
      case "invalid_admin_token" ->
          "the gateway at "
              + base
              + " refused the admin token: give the admin.token it runs with (--token)";
      case "admin_disabled" ->
          "the gateway at "
              + base
              + " runs without admin.token, so its Admin API is off: restart it with admin.token"
              + " set (KURIR_ADMIN_TOKEN)";
      case "pairing_not_scannable", "driver_down" -> message;
      default -> "the gateway answered " + reply.statusCode() + " " + message;
    };
  }
}
