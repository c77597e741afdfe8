package io.kurir;

import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader.Profile;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.util.concurrent.Callable;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509TrustManager;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code kurir health}: asks the gateway running on this machine whether it is ready ({@code GET
 * /health/ready}) and exits 0 when it is, 1 when it is not or does not answer. It is the container
 * image's {@code HEALTHCHECK} and compose's: the runtime image has Java but no curl or wget, and
 * this reads the same settings ({@code KURIR_*}, {@code kurir.yml}, flags) as the gateway it asks,
 * so it finds the port and scheme the gateway listens on.
 */
@Command(
    description = "ask the gateway on this machine whether it is ready (exit 0) or not (exit 1)",
    footer = {
      "",
      "Asks GET /health/ready on 127.0.0.1 at server.port (https when server.tls",
      "is set), with the same settings as serve: KURIR_* variables, kurir.yml and",
      "settings flags. The container image's HEALTHCHECK runs it.",
      "Examples:",
      "  ${ROOT-COMMAND-NAME} health",
      "  ${ROOT-COMMAND-NAME} health --port=9000",
      "  ${ROOT-COMMAND-NAME} health --live"
    })
final class HealthCommand implements Callable<Integer> {
  /** A probe that takes longer than this counts as not ready; Docker's default timeout is 30 s. */
  private static final int TIMEOUT_MILLIS = 5_000;

  private final Invocation invocation;

  @Option(
      names = "--live",
      description = "only whether the process answers HTTP (/health/live), not whether it is ready")
  boolean live;

  HealthCommand(Invocation invocation) {
    this.invocation = invocation;
  }

  @Override
  public Integer call() {
    Settings settings = invocation.settings(Profile.SERVE);
    URI uri = address(settings, live ? "/health/live" : "/health/ready");
    try {
      HttpURLConnection c = (HttpURLConnection) uri.toURL().openConnection();
      if (c instanceof HttpsURLConnection https) {
        trustItself(https);
      }
      c.setConnectTimeout(TIMEOUT_MILLIS);
      c.setReadTimeout(TIMEOUT_MILLIS);
      int status = c.getResponseCode();
      String body;
      try (InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream()) {
        body = in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8).strip();
      }
      if (status == 200) {
        invocation.out().println(uri + ": " + body);
        return 0;
      }
      invocation.err().println("kurir: " + uri + " answered " + status + ": " + body);
      return 1;
    } catch (IOException e) {
      invocation
          .err()
          .println(
              "kurir: no gateway answers at "
                  + uri
                  + " ("
                  + e
                  + "); is it running, with the same server.port?");
      return 1;
    }
  }

  /**
   * Where the gateway of {@code settings} answers on this machine: loopback when it listens on
   * every address (or on loopback), else the one address it listens on.
   */
  static URI address(Settings settings, String path) {
    String host = settings.host();
    if (host.equals("0.0.0.0") || host.equals("::") || host.equals("localhost")) {
      host = "127.0.0.1";
    }
    if (host.contains(":") && !host.startsWith("[")) {
      host = "[" + host + "]"; // an IPv6 address in a URL
    }
    String scheme = settings.tls().isOn() ? "https" : "http";
    return URI.create(scheme + "://" + host + ":" + settings.port() + path);
  }

  /**
   * The probe asks its own gateway by address, which its certificate (made out to the public name)
   * does not name: it checks that the gateway answers, not who it is, and sends nothing secret.
   */
  private static void trustItself(HttpsURLConnection c) throws IOException {
    TrustManager any =
        new X509TrustManager() {
          @Override
          public void checkClientTrusted(X509Certificate[] chain, String authType) {}

          @Override
          public void checkServerTrusted(X509Certificate[] chain, String authType) {}

          @Override
          public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
          }
        };
    try {
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(null, new TrustManager[] {any}, new SecureRandom());
      c.setSSLSocketFactory(tls.getSocketFactory());
      c.setHostnameVerifier((name, session) -> true);
    } catch (java.security.GeneralSecurityException e) {
      throw new IOException("cannot set up TLS: " + e.getMessage(), e);
    }
  }
}
