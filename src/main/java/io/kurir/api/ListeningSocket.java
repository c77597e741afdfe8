package io.kurir.api;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.UnresolvedAddressException;
import java.util.Optional;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The gateway's listening socket, bound before anything else starts: a gateway whose port is taken
 * fails at once, naming the port, and has written nothing to its data folder. The HTTP server takes
 * this socket over ({@link HttpApi#start}); until then connections wait in its backlog.
 *
 * <p>With TLS on, the certificate is read first (a file it cannot use stops start-up before
 * anything is bound), and a second, plain-HTTP socket may be bound for the redirect to {@code
 * https://} ({@code server.tls.redirect-port}).
 */
public final class ListeningSocket implements AutoCloseable {
  private final String host;
  private final ServerSocketChannel channel;
  private final int port;
  private final Optional<SslContextFactory.Server> tls;
  private final Optional<ListeningSocket> redirect;

  private ListeningSocket(
      String host,
      ServerSocketChannel channel,
      int port,
      Optional<SslContextFactory.Server> tls,
      Optional<ListeningSocket> redirect) {
    this.host = host;
    this.channel = channel;
    this.port = port;
    this.tls = tls;
    this.redirect = redirect;
  }

  /**
   * Binds {@code host:port} for {@code https://} when {@code tls} is on, plain HTTP otherwise, and
   * the redirect port {@code tls} names; or says why it cannot.
   */
  public static ListeningSocket bind(String host, int port, io.kurir.config.Settings.Tls tls) {
    Optional<SslContextFactory.Server> certificate =
        tls.isOn() ? Optional.of(ServerCertificate.load(tls)) : Optional.empty();
    ListeningSocket main = bind(host, port);
    if (tls.redirectPort() == 0) {
      return new ListeningSocket(host, main.channel, main.port, certificate, Optional.empty());
    }
    try {
      ListeningSocket redirect = bind(host, tls.redirectPort());
      return new ListeningSocket(host, main.channel, main.port, certificate, Optional.of(redirect));
    } catch (IllegalStateException e) {
      main.close();
      throw new IllegalStateException(
          e.getMessage().replace("--port=<n> (server.port)", "--server.tls.redirect-port=<n>"), e);
    }
  }

  /** Binds {@code host:port} ({@code 0}: a free port) for plain HTTP, or says why it cannot. */
  public static ListeningSocket bind(String host, int port) {
    ServerSocketChannel channel;
    try {
      channel = ServerSocketChannel.open();
    } catch (IOException e) {
      throw new IllegalStateException("cannot open a socket: " + e.getMessage(), e);
    }
    try {
      channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      channel.bind(new InetSocketAddress(host, port), 1024);
      return new ListeningSocket(
          host,
          channel,
          ((InetSocketAddress) channel.getLocalAddress()).getPort(),
          Optional.empty(),
          Optional.empty());
    } catch (BindException e) {
      closeQuietly(channel);
      String why = String.valueOf(e.getMessage());
      if (why.contains("assign")) { // EADDRNOTAVAIL: no interface of this machine has the address
        throw new IllegalStateException(
            "cannot listen on "
                + host
                + ": it is not an address of this machine; give one of its addresses with"
                + " --host=<address> (server.host), or 0.0.0.0 for all of them",
            e);
      }
      // Most often a second ./kurir demo (or serve) while the first still runs: say so plainly.
      throw new IllegalStateException(
          "port "
              + port
              + " is taken: another program listens on "
              + host
              + ":"
              + port
              + " (perhaps another Kurir gateway still running). Stop it, or choose another port"
              + " with --port=<n> (server.port)",
          e);
    } catch (UnresolvedAddressException e) {
      closeQuietly(channel);
      throw new IllegalStateException(
          "cannot listen on " + host + ": no such address (server.host)", e);
    } catch (IOException | RuntimeException e) {
      closeQuietly(channel);
      throw new IllegalStateException(
          "cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
    }
  }

  /** The port it is bound to: the free one chosen when {@code 0} was asked for. */
  public int port() {
    return port;
  }

  /** The host it was asked to listen on, as configured ({@code 0.0.0.0}: every interface). */
  public String host() {
    return host;
  }

  /** Whether it listens on every interface rather than one address. */
  public boolean everyInterface() {
    return host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]");
  }

  /** {@code https} when it serves TLS, else {@code http}. */
  public String scheme() {
    return tls.isPresent() ? "https" : "http";
  }

  /** The plain-HTTP socket that redirects to {@code https://}, when configured. */
  public Optional<ListeningSocket> redirect() {
    return redirect;
  }

  ServerSocketChannel channel() {
    return channel;
  }

  Optional<SslContextFactory.Server> tls() {
    return tls;
  }

  @Override
  public void close() {
    closeQuietly(channel);
    redirect.ifPresent(ListeningSocket::close);
  }

  private static void closeQuietly(ServerSocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // nothing listens on it any more either way
    }
  }
}
