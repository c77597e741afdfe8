package io.kurir.api;

import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.UnresolvedAddressException;

/**
 * The gateway's listening socket, bound before anything else starts: a gateway whose port is taken
 * fails at once, naming the port, and has written nothing to its data folder. The HTTP server takes
 * this socket over ({@link HttpApi#start}); until then connections wait in its backlog.
 */
public final class ListeningSocket implements AutoCloseable {
  private final String host;
  private final ServerSocketChannel channel;
  private final int port;

  private ListeningSocket(String host, ServerSocketChannel channel, int port) {
    this.host = host;
    this.channel = channel;
    this.port = port;
  }

  /** Binds {@code host:port} ({@code 0}: a free port), or says why it cannot. */
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
          host, channel, ((InetSocketAddress) channel.getLocalAddress()).getPort());
    } catch (BindException e) {
      closeQuietly(channel);
      throw new IllegalStateException(
          "port "
              + port
              + " on "
              + host
              + " is in use by another program (or the address is not this machine's): stop it,"
              + " or choose another port with --port=<n> (server.port)",
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

  ServerSocketChannel channel() {
    return channel;
  }

  @Override
  public void close() {
    closeQuietly(channel);
  }

  private static void closeQuietly(ServerSocketChannel channel) {
    try {
      channel.close();
    } catch (IOException e) {
      // nothing listens on it any more either way
    }
  }
}
