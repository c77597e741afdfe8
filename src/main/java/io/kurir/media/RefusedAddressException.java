package io.kurir.media;

import java.net.UnknownHostException;

/**
 * A host that resolved to an address a caller's URL may not reach. An {@link UnknownHostException}
 * so that the HTTP client gives up on the host as it would for a name that does not resolve.
 */
final class RefusedAddressException extends UnknownHostException {
  RefusedAddressException(String why) {
    super(why);
  }
}
