package io.kurir.config;

import io.kurir.driver.DriverSettings;
import io.kurir.store.DatabaseLocation;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every setting of a running gateway, built once at the edge by {@link SettingsLoader} and never
 * changed afterwards. No component reads the environment or files itself.
 *
 * @param host address the HTTP server binds to
 * @param port HTTP port; 0 picks a free one (tests)
 * @param dataDir folder for the database file and uploaded media
 * @param database JDBC URL (SQLite under {@code dataDir} by default, or PostgreSQL) and, for
 *     PostgreSQL, its user and password
 * @param adminToken bearer token of the Admin API; empty turns the Admin API off
 * @param zone operator time zone for timestamps in replies and for {@code sch_date}
 * @param defaultRegion region used to read phone numbers written without a country code
 * @param nodeId this node's number (0..15), part of every id it issues
 * @param syncTimeout how long a sync send waits for its outcome before answering
 * @param retryBackoff first wait before a {@code flag_retry=on} message is tried again (doubles)
 * @param maxRetries how many times a {@code flag_retry=on} message is tried again
 * @param maxBodyBytes largest request body accepted
 * @param drivers each driver's settings section ({@code drivers.<driver>.…}), validated
 * @param demo whether this is {@code ./kurir demo}: seeds and pairs the demo device
 * @param media limits of the images and files Kurir fetches and sends
 * @param webhooks how webhook deliveries are retried
 * @param pushAppIds the {@code app_id}s push v1 callers may send, at least one; the first is the
 *     one Kurir writes into the scripts it generates
 * @param publicUrl the gateway's public address ({@code https://…}, no trailing slash) written into
 *     the spreadsheet scripts it generates; empty when not set
 * @param trustedProxies addresses or ranges of reverse proxies whose {@code X-Forwarded-For} is
 *     believed; empty: the connection's address is the caller's
 * @param bots how auto-replies answer
 * @param safeSending the safe-sending policy that paces each device's campaign sends ({@code
 *     campaigns.safe-sending.*})
 * @param limits request rate limits per caller key and per client address
 * @param tls the HTTPS certificate, when the gateway serves {@code https://} itself
 * @param metrics who may read {@code /metrics}, and where
 * @param logs how the log is written
 * @param edge how long a client may take to send a request, and how many connections it may hold
 * @param secrets where the key that encrypts stored secrets comes from
 */
public record Settings(
    String host,
    int port,
    Path dataDir,
    DatabaseLocation database,
    String adminToken,
    ZoneId zone,
    String defaultRegion,
    int nodeId,
    Duration syncTimeout,
    Duration retryBackoff,
    int maxRetries,
    long maxBodyBytes,
    Map<String, DriverSettings> drivers,
    boolean demo,
    Media media,
    Webhooks webhooks,
    List<String> trustedProxies,
    List<String> pushAppIds,
    String publicUrl,
    String callbackUrl,
    Bots bots,
    Contacts contacts,
    io.kurir.campaign.SafeSending safeSending,
    Limits limits,
    Tls tls,
    Metrics metrics,
    Logs logs,
    Edge edge,
    Secrets secrets) {

  // --- secrets at rest (issue 25 item 12)

  /**
   * @param keyFile the file holding the key (base64 of 32 bytes) when {@code key} is empty
   * @param key the key itself (base64 of 32 bytes), from {@code KURIR_SECRETS_KEY}; empty: read
   *     {@code keyFile}
   */
  public record Secrets(Path keyFile, String key) {
    /** Whether the key is given as a value rather than a file. */
    public boolean keyGiven() {
      return !key.isEmpty();
    }

    @Override
    public String toString() {
      return "Secrets[keyFile=" + keyFile + ", key=" + (key.isEmpty() ? "" : "(set)") + "]";
    }
  }

  /**
   * @param perKey requests one caller key (a device's key, a push license, a partner) may make
   * @param perAddress requests one client address may make
   * @param exempt addresses and CIDR ranges never limited
   */
  public record Limits(
      io.kurir.limit.RateLimit perKey, io.kurir.limit.RateLimit perAddress, List<String> exempt) {}

  /**
   * The certificate of {@code https://}: PEM files ({@code cert} with its chain, {@code key}) or a
   * PKCS#12/JKS keystore; none of them: plain HTTP.
   *
   * @param redirectPort a plain-HTTP port that redirects every request to {@code https://}; 0: none
   */
  public record Tls(
      Optional<Path> cert,
      Optional<Path> key,
      Optional<Path> keystore,
      String keystorePassword,
      int redirectPort) {
    /** Whether the gateway serves {@code https://}. */
    public boolean isOn() {
      return cert.isPresent() || keystore.isPresent();
    }
  }

  /**
   * @param access who may read {@code /metrics}: nobody, Admin API callers, or anyone who reaches
   *     its own port
   * @param port the port of {@link MetricsAccess#PORT}, on {@code server.host}
   */
  public record Metrics(MetricsAccess access, int port, Duration gaugesFreshFor) {}

  /** Who may read {@code /metrics}. */
  public enum MetricsAccess {
    /** Not served: {@code /metrics} answers 404. */
    OFF,
    /** On the API port, behind the admin token (off while {@code admin.token} is empty). */
    ADMIN,
    /** Open, on a listener of its own ({@code metrics.port}), and not on the API port. */
    PORT
  }

  /**
   * What bounds slow and greedy clients at the HTTP edge.
   *
   * @param requestDeadline one deadline for a whole request, head and body, counted from the
   *     request's first byte (a new connection's opening for its first request), and moved on by
   *     each body byte read at 32 KiB/s; a client still sending when it passes is disconnected
   * @param maxConnectionsPerAddress connections one peer address (the socket's, never a forwarded
   *     one) may hold open at once; more are closed at once; 0: no bound
   */
  public record Edge(java.time.Duration requestDeadline, int maxConnectionsPerAddress) {
    /** The defaults: 30 s, 100 connections. */
    public static final Edge DEFAULT = new Edge(java.time.Duration.ofSeconds(30), 100);
  }

  /**
   * @param format {@code text} (one line a record) or {@code json} (one JSON object a line)
   * @param level the least severe level of Kurir's own records that is written
   */
  public record Logs(String format, String level) {}

  /**
   * @param answerInGroups whether auto-replies answer messages written in a group (into that
   *     group); off, a group message is stored and pushed to the incoming webhook but not answered
   */
  public record Bots(boolean answerInGroups) {}

  /**
   * @param optOutWords the words that, replied alone (any case, final punctuation ignored),
   *     unsubscribe the sender from the license's campaigns
   */
  public record Contacts(List<String> optOutWords) {
    public Contacts {
      optOutWords = List.copyOf(optOutWords);
    }
  }

  /**
   * @param retryFor how long a delivery that keeps failing is tried again before it is dead
   * @param timeout connect and answer timeout of one delivery
   * @param secretOverlap how long a rotated webhook secret still signs deliveries
   * @param eventsKeepFor how long the event log keeps an event ({@code GET /v1/events} reads back
   *     that far)
   */
  public record Webhooks(
      Duration retryFor, Duration timeout, Duration secretOverlap, Duration eventsKeepFor) {}

  /**
   * @param maxBytes largest image or file sent; larger ones answer {@code file_more_than_<N>KB}
   * @param allowPrivateAddresses whether URLs may point at loopback, private or link-local
   *     addresses (off: a caller must not make Kurir reach into the operator's network)
   * @param fetchTimeout one deadline over a whole fetch: lookup, connect, headers and body
   * @param uploadQuotaBytes most bytes the uploaded images of one license's devices hold together
   * @param keepFor how long the image or file of a message that ended (or of an incoming message)
   *     is kept; zero keeps them forever
   */
  public record Media(
      long maxBytes,
      boolean allowPrivateAddresses,
      Duration fetchTimeout,
      long uploadQuotaBytes,
      Duration keepFor) {
    /** The default of {@code media.upload-quota}. */
    public static final long DEFAULT_UPLOAD_QUOTA = 200L * 1024 * 1024;

    /** The default of {@code media.keep-for}. */
    public static final Duration DEFAULT_KEEP_FOR = Duration.ofDays(30);

    /** With the default upload quota and keeping (tests that do not upload). */
    public Media(long maxBytes, boolean allowPrivateAddresses, Duration fetchTimeout) {
      this(maxBytes, allowPrivateAddresses, fetchTimeout, DEFAULT_UPLOAD_QUOTA);
    }

    /** With the default keeping. */
    public Media(
        long maxBytes, boolean allowPrivateAddresses, Duration fetchTimeout, long uploadQuota) {
      this(maxBytes, allowPrivateAddresses, fetchTimeout, uploadQuota, DEFAULT_KEEP_FOR);
    }

    /** The limit as the contract writes it, in KB. */
    public long maxKb() {
      return maxBytes / 1024;
    }
  }

  /** A driver's settings section; empty values when the driver has none. */
  public DriverSettings driver(String name) {
    return drivers.getOrDefault(name, new DriverSettings(name, Map.of()));
  }

  /** The database's JDBC URL. */
  public String databaseUrl() {
    return database.url();
  }

  public Optional<String> adminTokenIfSet() {
    return adminToken.isBlank() ? Optional.empty() : Optional.of(adminToken);
  }

  /** A copy listening on another port; tests bind to port 0 and learn the real port later. */
  public Settings withPort(int newPort) {
    return new Settings(
        host,
        newPort,
        dataDir,
        database,
        adminToken,
        zone,
        defaultRegion,
        nodeId,
        syncTimeout,
        retryBackoff,
        maxRetries,
        maxBodyBytes,
        drivers,
        demo,
        media,
        webhooks,
        trustedProxies,
        pushAppIds,
        publicUrl,
        callbackUrl,
        bots,
        contacts,
        safeSending,
        limits,
        tls,
        metrics,
        logs,
        edge,
        secrets);
  }

  /** The push v1 {@code app_id} Kurir hands out (spreadsheet scripts): the first accepted one. */
  public String pushAppId() {
    return pushAppIds.getFirst();
  }

  /**
   * The gateway's address as others reach it ({@code public.url}), for what it hands out: the
   * spreadsheet scripts. Empty when not set.
   */
  public Optional<String> publicUrlIfSet() {
    return publicUrl.isBlank() ? Optional.empty() : Optional.of(publicUrl);
  }

  /**
   * The address an engine calls the gateway back at ({@code public.callback-url}, else {@code
   * public.url}): the drivers' webhooks, set on the engine by the gateway. Empty when neither is
   * set.
   */
  public Optional<String> callbackUrlIfSet() {
    return callbackUrl.isBlank() ? publicUrlIfSet() : Optional.of(callbackUrl);
  }
}
