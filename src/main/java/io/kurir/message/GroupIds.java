package io.kurir.message;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Group ids as clients write them: {@code <phone>-<suffix>} (the usual form), the network's own
 * {@code <...>@g.us} (the suffix is dropped), or a 22-character invite-code style id.
 */
public final class GroupIds {
  private static final Pattern PHONE_SUFFIX = Pattern.compile("\\d{6,20}-\\d{1,20}");
  private static final Pattern INVITE_CODE = Pattern.compile("[A-Za-z0-9]{22}");
  private static final Pattern NETWORK_ID = Pattern.compile("\\d{6,40}");

  private GroupIds() {}

  /** The group id in the form Kurir stores and drivers use, or empty when it is none of these. */
  public static Optional<String> normalize(String raw) {
    if (raw == null) {
      return Optional.empty();
    }
    String id = raw.strip();
    if (id.endsWith("@g.us")) {
      id = id.substring(0, id.length() - "@g.us".length());
      if (NETWORK_ID.matcher(id).matches()) {
        return Optional.of(id);
      }
    }
    if (PHONE_SUFFIX.matcher(id).matches() || INVITE_CODE.matcher(id).matches()) {
      return Optional.of(id);
    }
    return Optional.empty();
  }
}
