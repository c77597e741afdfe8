package io.kurir.media;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.InetAddress;
import java.net.Proxy;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import okhttp3.Call;
import okhttp3.Callback;
import okhttp3.ConnectionPool;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;

/**
 * HTTP to a URL a caller gave (a media URL, a webhook target), one request at a time:
 *
 * <ul>
 *   <li>the host is looked up once, by {@link CheckedDns}, and the client connects only to the
 *       addresses that lookup gave and the check passed; an address written in the URL is checked
 *       as it is (the client does not look those up);
 *   <li>one deadline covers the lookup, connecting, sending, the answer's headers and whatever the
 *       {@link ResponseReader} reads of its body: at the deadline the call is cancelled, which
 *       closes its connection, and the caller is answered even while a lookup still hangs;
 *   <li>no proxy (the address checked is the address connected to) and no redirects (a caller that
 *       follows them checks each hop by calling again).
 * </ul>
 *
 * <p>Thread-safe; one instance shares its connections among all callers.
 */
public final class GuardedHttp implements AutoCloseable {
  // The hosts the client parses as an address instead of looking them up (OkHttp's own rule).
  private static final Pattern ADDRESS_LITERAL =
      Pattern.compile("[0-9a-fA-F]*:[0-9a-fA-F:.]*|[\\d.]+");

  /** How one exchange ended. */
  public sealed interface Exchange<T> {
    /** An answer came, and the reader read what it needed of it. */
    record Answered<T>(T value) implements Exchange<T> {}

    /**
     * The host may not be reached: an internal address. (A name that does not resolve is {@link
     * Failed}: it could not be reached, the URL itself is fine.)
     */
    record Refused<T>(String why) implements Exchange<T> {}

    /** No answer: the connection failed or broke. */
    record Failed<T>(String why) implements Exchange<T> {}

    /** The deadline passed first. */
    record TimedOut<T>() implements Exchange<T> {}
  }

  /** Reads what a caller needs of an answer, within the deadline; the response is closed after. */
  @FunctionalInterface
  public interface ResponseReader<T> {
    T read(Response response) throws IOException;
  }

  /** Idle connections kept for reuse, over all hosts: more than the outbox's attempts at once. */
  private static final int IDLE_CONNECTIONS = 128;

  private final CheckedDns dns;
  private final OkHttpClient client;

  GuardedHttp(HostResolver resolver, Predicate<InetAddress> internal, boolean allowInternal) {
    this.dns = new CheckedDns(resolver, internal, allowInternal);
    Dispatcher dispatcher = new Dispatcher(Executors.newVirtualThreadPerTaskExecutor());
    // Each caller bounds its own concurrency (delivery slots, request threads); the client's
    // queue must not add a wait of its own that the deadline would then spend.
    dispatcher.setMaxRequests(4096);
    dispatcher.setMaxRequestsPerHost(4096);
    this.client =
        new OkHttpClient.Builder()
            .dns(dns)
            .proxy(Proxy.NO_PROXY)
            .followRedirects(false)
            .followSslRedirects(false)
            .dispatcher(dispatcher)
            // OkHttp keeps 5 idle connections by default: with the outbox's 64 deliveries under
            // way to one receiver, every answer beyond the fifth closed its connection and the
            // next attempt opened a new one. Keep as many as are used at once.
            .connectionPool(new ConnectionPool(IDLE_CONNECTIONS, 5, TimeUnit.MINUTES))
            // The call's deadline bounds everything; no phase has a shorter limit of its own.
            .connectTimeout(0, TimeUnit.MILLISECONDS)
            .readTimeout(0, TimeUnit.MILLISECONDS)
            .writeTimeout(0, TimeUnit.MILLISECONDS)
            .build();
  }

  /**
   * Sends {@code request} and reads its answer with {@code reader}, all before {@code
   * deadlineNanos} (a {@link System#nanoTime()} value).
   *
   * @throws InterruptedException when the calling thread is interrupted; the call is cancelled
   */
  public <T> Exchange<T> exchange(Request request, long deadlineNanos, ResponseReader<T> reader)
      throws InterruptedException {
    String host = request.url().host();
    if (ADDRESS_LITERAL.matcher(host).matches()) {
      Optional<String> refused = literalRefusal(host);
      if (refused.isPresent()) {
        return new Exchange.Refused<>(refused.get());
      }
    }
    long left = deadlineNanos - System.nanoTime();
    if (left <= 0) {
      return new Exchange.TimedOut<>();
    }
    Call call = client.newCall(request);
    call.timeout().timeout(left, TimeUnit.NANOSECONDS);
    CompletableFuture<Exchange<T>> done = new CompletableFuture<>();
    call.enqueue(
        new Callback() {
          @Override
          public void onFailure(Call c, IOException e) {
            done.complete(failure(e));
          }

          @Override
          public void onResponse(Call c, Response response) {
            try (response) {
              done.complete(new Exchange.Answered<>(reader.read(response)));
            } catch (IOException e) {
              done.complete(failure(e));
            } catch (RuntimeException e) {
              done.complete(new Exchange.Failed<>(e.toString()));
            }
          }
        });
    try {
      // The outer wait also ends a call whose lookup hangs, which the call's timeout cannot end.
      return done.get(Math.max(deadlineNanos - System.nanoTime(), 0), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return new Exchange.TimedOut<>();
    } catch (ExecutionException e) {
      return new Exchange.Failed<>(e.getCause().toString());
    } finally {
      call.cancel(); // nothing when it completed; else ends the exchange and its connection
    }
  }

  /** Whether a URL may lead to {@code host}, looked up with the same resolver and rules. */
  public Optional<String> refusalOf(String host) {
    try {
      if (ADDRESS_LITERAL.matcher(host).matches()) {
        return literalRefusal(host);
      }
      dns.lookup(host);
      return Optional.empty();
    } catch (RefusedAddressException e) {
      return Optional.of(e.getMessage());
    } catch (UnknownHostException e) {
      // A name that does not resolve now is a URL that cannot be fetched (yet), not a bad one:
      // the fetch or delivery looks it up again and fails with that reason if it still does not.
      return Optional.empty();
    }
  }

  private Optional<String> literalRefusal(String host) {
    try {
      // A literal is parsed, not looked up; it is what the client will connect to.
      return dns.refusal(host, List.of(InetAddress.getByName(host)));
    } catch (UnknownHostException e) {
      return Optional.of("unknown host " + host);
    }
  }

  private static <T> Exchange<T> failure(IOException e) {
    if (e instanceof RefusedAddressException) {
      return new Exchange.Refused<>(e.getMessage()); // CheckedDns's words: an internal address
    }
    if (e instanceof UnknownHostException) {
      return new Exchange.Failed<>(e.getMessage()); // does not resolve: could not be fetched
    }
    if (e instanceof InterruptedIOException) {
      return new Exchange.TimedOut<>(); // the call's own timeout, or the cancel at the deadline
    }
    return new Exchange.Failed<>(e.toString());
  }

  /** Cancels what is under way and lets the client's threads and connections go. */
  @Override
  public void close() {
    client.dispatcher().cancelAll();
    client.dispatcher().executorService().shutdownNow();
    client.connectionPool().evictAll();
  }
}
