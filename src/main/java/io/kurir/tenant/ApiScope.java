package io.kurir.tenant;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * What an API key of Kurir's own API ({@code /v1}) may do. A key without a route's scope is refused
 * with 403; a device's Eco key, used as a bearer token, has every scope for its device.
 */
public enum ApiScope {
  SEND,
  READ,
  WEBHOOKS,
  CONTACTS,
  CAMPAIGNS;

  /** The scope as the API writes it: {@code send}, {@code read}, .... */
  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The scopes named in {@code names} (comma-separated, any case, blanks ignored).
   *
   * @throws TenantException {@code INVALID} for a name that is no scope, or when none is named
   */
  public static Set<ApiScope> parse(String names) {
    Set<ApiScope> scopes = EnumSet.noneOf(ApiScope.class);
    for (String name : names == null ? new String[0] : names.split(",")) {
      String n = name.strip();
      if (n.isEmpty()) {
        continue;
      }
      try {
        scopes.add(valueOf(n.toUpperCase(Locale.ROOT)));
      } catch (IllegalArgumentException e) {
        throw new TenantException(
            TenantException.Reason.INVALID,
            "scopes are send, read, webhooks, contacts and campaigns, not '" + n + "'");
      }
    }
    if (scopes.isEmpty()) {
      throw new TenantException(
          TenantException.Reason.INVALID,
          "name at least one scope: send, read, webhooks, contacts, campaigns");
    }
    return scopes;
  }
}
