package io.kurir.media;

import io.kurir.config.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Predicate;
import okhttp3.HttpUrl;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * Fetches a URL a caller gave (an image or file to send) without letting the caller use Kurir to
 * reach into the operator's network: only http and https; every host, the first and each redirect
 * target, is looked up once and refused when any of its addresses is internal ({@link
 * InternalAddresses}: loopback, private, link-local, this host's own addresses…), unless the
 * operator allows private addresses; the connection goes to exactly the addresses checked ({@link
 * GuardedHttp}). One deadline covers every hop and the whole body; the size limit is enforced while
 * reading; the type comes from the file's first bytes, never from the server's header.
 *
 * <p>Thread-safe; one instance shares its HTTP connections among all callers.
 */
public final class SafeFetcher {
  private static final int MAX_REDIRECTS = 5;

  private final Settings.Media limits;
  private final GuardedHttp http;

  public SafeFetcher(Settings.Media limits) {
    this(limits, Clock.systemUTC());
  }

  /** With {@code clock} deciding when this host's own addresses are listed again. */
  public SafeFetcher(Settings.Media limits, Clock clock) {
    this(limits, HostResolver.SYSTEM, new InternalAddresses(new HostAddresses(clock))::isInternal);
  }

  /**
   * With another notion of "internal": tests use it to stand a loopback alias for a private net.
   */
  SafeFetcher(Settings.Media limits, Predicate<InetAddress> internal) {
    this(limits, HostResolver.SYSTEM, internal);
  }

  /**
   * With a resolver and a notion of "internal" the caller controls: tests change the resolver's
   * answers between two lookups (rebinding), in this package and in the webhook's.
   */
  public SafeFetcher(
      Settings.Media limits, HostResolver resolver, Predicate<InetAddress> internal) {
    this.limits = limits;
    this.http = new GuardedHttp(resolver, internal, limits.allowPrivateAddresses());
  }

  /** The guarded HTTP client this fetcher uses, for webhook deliveries to caller-given targets. */
  public GuardedHttp http() {
    return http;
  }

  /**
   * Why Kurir may not send to or fetch from {@code rawUrl}, if it may not: not an http(s) URL, or a
   * host with an internal address (checked when a webhook target is set; each delivery checks again
   * as it connects).
   */
  public Optional<String> refusalOf(String rawUrl) {
    Optional<URI> uri = parse(rawUrl);
    if (uri.isEmpty()) {
      return Optional.of("not an http or https URL");
    }
    HttpUrl url = HttpUrl.parse(uri.get().toString());
    return url == null ? Optional.of("not an http or https URL") : http.refusalOf(url.host());
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
    Duration budget = Duration.between(Instant.now(), deadline);
    if (budget.compareTo(limits.fetchTimeout()) > 0) {
      budget = limits.fetchTimeout();
    }
    long until = System.nanoTime() + Math.max(budget.toNanos(), 0);
    Optional<URI> first = parse(rawUrl);
    if (first.isEmpty()) {
      return new FetchResult.BadUrl("not an http or https URL");
    }
    URI uri = first.get();
    for (int hop = 0; hop <= MAX_REDIRECTS; hop++) {
      HttpUrl url = HttpUrl.parse(uri.toString());
      if (url == null) {
        return new FetchResult.BadUrl("not an http or https URL");
      }
      Request request = new Request.Builder().url(url).header("User-Agent", "Kurir").get().build();
      GuardedHttp.Exchange<Hop> exchange;
      try {
        exchange = http.exchange(request, until, this::readHop);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return new FetchResult.Unreachable("interrupted");
      }
      Hop answer;
      switch (exchange) {
        case GuardedHttp.Exchange.Refused<Hop> refused -> {
          return new FetchResult.BadUrl(refused.why());
        }
        case GuardedHttp.Exchange.Failed<Hop> failed -> {
          return new FetchResult.Unreachable(failed.why());
        }
        case GuardedHttp.Exchange.TimedOut<Hop> timedOut -> {
          return new FetchResult.Unreachable("timed out");
        }
        case GuardedHttp.Exchange.Answered<Hop> answered -> answer = answered.value();
      }
      if (answer.status() >= 300 && answer.status() < 400) {
        URI current = uri;
        Optional<URI> next = answer.location().flatMap(l -> resolve(current, l));
        if (next.isEmpty()) {
          return new FetchResult.Unreachable("redirect without a usable Location");
        }
        uri = next.get();
        continue;
      }
      if (answer.status() != 200) {
        return new FetchResult.Unreachable("HTTP " + answer.status());
      }
      if (answer.tooLarge()) {
        return new FetchResult.TooLarge();
      }
      if (answer.body().length == 0) {
        return new FetchResult.Unreachable("empty body");
      }
      String name = FileTypes.nameFor(uri, FileTypes.sniff(answer.body()));
      return new FetchResult.Fetched(
          new FetchedFile(name, FileTypes.typeOf(answer.body(), name), answer.body()));
    }
    return new FetchResult.Unreachable("too many redirects");
  }

  /**
   * What one hop answered: a redirect's target, an error status, or the body (within the limit).
   */
  private record Hop(int status, Optional<String> location, byte[] body, boolean tooLarge) {}

  private Hop readHop(Response response) throws IOException {
    int status = response.code();
    if (status != 200) {
      return new Hop(status, Optional.ofNullable(response.header("Location")), new byte[0], false);
    }
    ResponseBody body = response.body();
    if (body == null || body.contentLength() > limits.maxBytes()) {
      return new Hop(status, Optional.empty(), new byte[0], body != null);
    }
    try (InputStream in = body.byteStream()) {
      byte[] bytes = in.readNBytes((int) Math.min(limits.maxBytes() + 1, Integer.MAX_VALUE));
      return bytes.length > limits.maxBytes()
          ? new Hop(status, Optional.empty(), new byte[0], true)
          : new Hop(status, Optional.empty(), bytes, false);
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

  /** The fetch timeout, for callers that bound their own wait by it. */
  public Duration timeout() {
    return limits.fetchTimeout();
  }
}
