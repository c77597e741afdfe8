package io.kurir.media;

import io.kurir.config.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * Fetches a URL a caller gave (an image or file to send) without letting the caller use Kurir to
 * reach into the operator's network: only http and https; every host, the first and each redirect
 * target, is resolved and refused when any of its addresses is loopback, private, link-local (cloud
 * metadata lives there), carrier-grade NAT, unique-local or multicast, unless the operator allows
 * private addresses. Connect and read time out; the size limit is enforced while reading; the type
 * comes from the file's first bytes, never from the server's header.
 *
 * <p>The address is checked after resolution and the HTTP client resolves again when it connects; a
 * DNS answer that changes between the two (rebinding) is outside what this class can see.
 *
 * <p>Thread-safe.
 */
public final class SafeFetcher {
  private static final int MAX_REDIRECTS = 5;
  private static final ScheduledExecutorService TIMER =
      Executors.newSingleThreadScheduledExecutor(
          r -> Thread.ofPlatform().daemon(true).name("fetch-deadlines").unstarted(r));

  private final Settings.Media limits;
  private final Predicate<InetAddress> internal;
  private final HttpClient http;

  public SafeFetcher(Settings.Media limits) {
    this(limits, SafeFetcher::isInternal);
  }

  /**
   * With another notion of "internal": tests use it to stand a loopback alias for a private net.
   */
  SafeFetcher(Settings.Media limits, Predicate<InetAddress> internal) {
    this.limits = limits;
    this.internal = internal;
    this.http =
        HttpClient.newBuilder()
            .followRedirects(HttpClient.Redirect.NEVER) // each hop is checked here
            .connectTimeout(limits.fetchTimeout())
            .version(HttpClient.Version.HTTP_1_1)
            .build();
  }

  /**
   * Why Kurir may not send to or fetch from {@code rawUrl}, if it may not: not an http(s) URL, or a
   * host with an internal address (the webhook outbox checks its targets with this).
   */
  public Optional<String> refusalOf(String rawUrl) {
    Optional<URI> uri = parse(rawUrl);
    return uri.isEmpty() ? Optional.of("not an http or https URL") : refusal(uri.get());
  }

  /** Fetches within the configured timeout, for every hop and the body together. */
  public FetchResult fetch(String rawUrl) {
    return fetch(rawUrl, Instant.now().plus(limits.fetchTimeout()));
  }

  /**
   * Fetches {@code rawUrl}, giving up at {@code deadline} (or the configured timeout, if sooner):
   * one deadline for every redirect hop and for reading the body, so a server that trickles bytes
   * cannot hold the caller.
   */
  public FetchResult fetch(String rawUrl, Instant deadline) {
    Instant configured = Instant.now().plus(limits.fetchTimeout());
    Instant until = deadline.isBefore(configured) ? deadline : configured;
    Optional<URI> first = parse(rawUrl);
    if (first.isEmpty()) {
      return new FetchResult.BadUrl("not an http or https URL");
    }
    URI uri = first.get();
    for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
      Optional<String> refused = refusal(uri);
      if (refused.isPresent()) {
        return new FetchResult.BadUrl(refused.get());
      }
      Duration left = Duration.between(Instant.now(), until);
      if (left.isNegative() || left.isZero()) {
        return new FetchResult.Unreachable("timed out");
      }
      HttpResponse<InputStream> response;
      try {
        response =
            http.send(
                HttpRequest.newBuilder(uri).timeout(left).GET().build(),
                HttpResponse.BodyHandlers.ofInputStream());
      } catch (IOException e) {
        return new FetchResult.Unreachable(e.toString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new FetchResult.Unreachable("interrupted");
      } catch (IllegalArgumentException e) {
        return new FetchResult.BadUrl(e.getMessage());
      }
      int status = response.statusCode();
      if (status >= 300 && status < 400) {
        close(response);
        URI current = uri;
        Optional<URI> next =
            response.headers().firstValue("Location").flatMap(l -> resolve(current, l));
        if (next.isEmpty()) {
          return new FetchResult.Unreachable("redirect without a usable Location");
        }
        uri = next.get();
        continue;
      }
      if (status != 200) {
        close(response);
        return new FetchResult.Unreachable("HTTP " + status);
      }
      return read(uri, response, until);
    }
    return new FetchResult.Unreachable("too many redirects");
  }

  private FetchResult read(URI uri, HttpResponse<InputStream> response, Instant until) {
    long declared = response.headers().firstValueAsLong("Content-Length").orElse(-1);
    if (declared > limits.maxBytes()) {
      close(response);
      return new FetchResult.TooLarge();
    }
    // Closing the stream at the deadline ends a read that is still waiting for bytes.
    ScheduledFuture<?> cutOff =
        TIMER.schedule(
            () -> close(response),
            Math.max(1, Duration.between(Instant.now(), until).toMillis()),
            TimeUnit.MILLISECONDS);
    try (InputStream body = response.body()) {
      byte[] bytes = body.readNBytes((int) Math.min(limits.maxBytes() + 1, Integer.MAX_VALUE));
      if (Instant.now().isAfter(until)) {
        return new FetchResult.Unreachable("timed out while reading");
      }
      if (bytes.length > limits.maxBytes()) {
        return new FetchResult.TooLarge();
      }
      if (bytes.length == 0) {
        return new FetchResult.Unreachable("empty body");
      }
      String type = FileTypes.sniff(bytes);
      return new FetchResult.Fetched(new FetchedFile(FileTypes.nameFor(uri, type), type, bytes));
    } catch (IOException e) {
      return new FetchResult.Unreachable(e.toString());
    } finally {
      cutOff.cancel(false);
    }
  }

  private static Optional<URI> parse(String raw) {
    if (raw == null || raw.isBlank()) {
      return Optional.empty();
    }
    try {
      URI uri = new URI(raw.strip().replace(" ", "%20"));
      String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
      if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        return Optional.empty();
      }
      return Optional.of(uri);
    } catch (URISyntaxException e) {
      return Optional.empty();
    }
  }

  private static Optional<URI> resolve(URI base, String location) {
    try {
      return parse(base.resolve(location.strip()).toString());
    } catch (IllegalArgumentException e) {
      return Optional.empty();
    }
  }

  /** Why Kurir may not fetch from this URI's host, if it may not. */
  private Optional<String> refusal(URI uri) {
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(uri.getHost());
    } catch (UnknownHostException e) {
      return Optional.of("unknown host " + uri.getHost());
    }
    if (limits.allowPrivateAddresses()) {
      return Optional.empty();
    }
    for (InetAddress a : addresses) {
      if (internal.test(a)) {
        return Optional.of(uri.getHost() + " is an internal address (" + a.getHostAddress() + ")");
      }
    }
    return Optional.empty();
  }

  static boolean isInternal(InetAddress a) {
    if (a.isLoopbackAddress()
        || a.isAnyLocalAddress()
        || a.isLinkLocalAddress()
        || a.isSiteLocalAddress()
        || a.isMulticastAddress()) {
      return true;
    }
    byte[] b = a.getAddress();
    if (a instanceof Inet4Address) {
      int first = b[0] & 0xff;
      int second = b[1] & 0xff;
      return first == 0 // "this network"
          || (first == 100 && second >= 64 && second < 128) // carrier-grade NAT
          || (first == 192 && second == 0 && (b[2] & 0xff) == 0) // IETF protocol assignments
          || first >= 240; // reserved and broadcast
    }
    if (a instanceof Inet6Address) {
      if ((b[0] & 0xfe) == 0xfc) {
        return true; // unique-local fc00::/7
      }
      // Forms that carry an IPv4 address: IPv4-compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4
      // 2002::/16. They reach the IPv4 address inside, so that address decides.
      byte[] v4 = null;
      if (allZero(b, 0, 12)) {
        v4 = java.util.Arrays.copyOfRange(b, 12, 16);
      } else if ((b[0] & 0xff) == 0x00
          && (b[1] & 0xff) == 0x64
          && (b[2] & 0xff) == 0xff
          && (b[3] & 0xff) == 0x9b
          && allZero(b, 4, 12)) {
        v4 = java.util.Arrays.copyOfRange(b, 12, 16);
      } else if ((b[0] & 0xff) == 0x20 && (b[1] & 0xff) == 0x02) {
        v4 = java.util.Arrays.copyOfRange(b, 2, 6);
      }
      if (v4 != null) {
        try {
          return isInternal(InetAddress.getByAddress(v4));
        } catch (java.net.UnknownHostException impossible) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean allZero(byte[] b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return true;
  }

  private static void close(HttpResponse<InputStream> response) {
    try {
      response.body().close();
    } catch (IOException ignored) {
      // nothing more to read from it anyway
    }
  }

  /** The fetch timeout, for callers that bound their own wait by it. */
  public Duration timeout() {
    return limits.fetchTimeout();
  }
}
