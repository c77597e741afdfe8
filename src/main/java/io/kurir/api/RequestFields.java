package io.kurir.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.http.Context;
import io.kurir.message.IdempotencyKeys;
import java.math.BigDecimal;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The fields of a request, however the client sent them. Real clients (PHP curl, Laravel, axios,
 * Apps Script, Python requests) send JSON with or without a {@code Content-Type}, form-encoded
 * bodies and multipart forms for the same call; all of them read the same here. Query-string
 * parameters fill in fields the body lacks. Unknown fields are ignored unless the endpoint asks
 * {@link #refuseUnknown}.
 */
public final class RequestFields {
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private static final Pattern PLAIN_NUMBER = Pattern.compile("\\d{1,18}(\\.\\d{1,9})?");

  /** The header that carries an idempotency key ({@link #idempotencyKey}). */
  public static final String IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

  /** The field that carries an idempotency key, for clients that cannot set headers. */
  public static final String IDEMPOTENCY_KEY_FIELD = "idempotency_key";

  private final Map<String, JsonNode> fields;
  private final Optional<String> idempotencyHeader;

  private RequestFields(Map<String, JsonNode> fields, Optional<String> idempotencyHeader) {
    this.fields = fields;
    this.idempotencyHeader = idempotencyHeader;
  }

  /**
   * Reads the request; a body that claims or looks like JSON but is not gives 400 malformed_json.
   */
  public static RequestFields of(Context ctx) {
    return of(ctx, Set.of());
  }

  /**
   * {@link #of(Context)} for an endpoint whose callers build form bodies by hand, unescaped: in a
   * form-encoded body a field ends only at an {@code &} followed by one of {@code formFields} and
   * {@code =}, so an {@code &} or {@code =} in the text stays in it; {@code +} is a space and a
   * {@code %} that is not an escape stays a {@code %}, as a tolerant form decoder reads them.
   */
  public static RequestFields of(Context ctx, Set<String> formFields) {
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    String type = RequestBody.contentType(ctx).toLowerCase(Locale.ROOT);
    if (type.startsWith("multipart/")) {
      readMultipart(ctx, fields);
    } else if (!readUtf8Json(ctx, type, fields)) {
      String trimmed = RequestBody.text(ctx).strip();
      if (type.contains("json") || trimmed.startsWith("{") || trimmed.startsWith("[")) {
        if (!trimmed.isEmpty()) {
          readJson(trimmed, fields);
        }
      } else if (!trimmed.isEmpty() && !formFields.isEmpty()) {
        readHandBuiltForm(trimmed, formFields, fields);
      } else if (!trimmed.isEmpty()) {
        readUrlEncoded(trimmed, fields);
      }
    }
    if (ctx.queryString() != null) {
      ctx.queryParamMap().forEach((k, v) -> fields.computeIfAbsent(k, x -> text(v)));
    }
    return new RequestFields(
        fields, Optional.ofNullable(ctx.header(IDEMPOTENCY_KEY_HEADER)).filter(h -> !h.isBlank()));
  }

  /**
   * Reads a JSON object straight from the body's bytes when they are UTF-8 (no other charset
   * declared) and begin, after a byte-order mark and blanks, with an object or array; true when it
   * did. Most calls are these, and Jackson reads UTF-8 bytes without first making a string of them.
   * Bytes that are not valid UTF-8 (a client writing Latin-1 without saying so) are left to the
   * text path, which reads them as before.
   */
  private static boolean readUtf8Json(Context ctx, String type, Map<String, JsonNode> fields) {
    if (type.contains("charset") && !CHARSET_UTF8.matcher(type).find()) {
      return false;
    }
    byte[] bytes = RequestBody.bytes(ctx);
    int start =
        bytes.length >= 3
                && (bytes[0] & 0xff) == 0xEF
                && (bytes[1] & 0xff) == 0xBB
                && (bytes[2] & 0xff) == 0xBF
            ? 3
            : 0;
    while (start < bytes.length
        && (bytes[start] == ' '
            || bytes[start] == '\t'
            || bytes[start] == '\r'
            || bytes[start] == '\n')) {
      start++;
    }
    if (start == bytes.length || (bytes[start] != '{' && bytes[start] != '[')) {
      return false;
    }
    JsonNode root;
    try {
      root = JSON.readTree(bytes, start, bytes.length - start);
    } catch (java.io.IOException notUtf8OrMalformed) {
      return false; // the text path reads it again and gives the usual answer
    }
    if (root == null || !root.isObject()) {
      throw ApiException.badRequest("malformed_json", "the body must be a JSON object");
    }
    root.properties().forEach(e -> fields.put(e.getKey(), e.getValue()));
    return true;
  }

  private static final Pattern CHARSET_UTF8 =
      Pattern.compile("charset\\s*=\\s*\"?utf-?8\"?\\s*(;|$)", Pattern.CASE_INSENSITIVE);

  private static void readMultipart(Context ctx, Map<String, JsonNode> fields) {
    try {
      ctx.formParamMap().forEach((k, v) -> putFirst(fields, k, v));
    } catch (Exception e) { // Jetty's ServletException arrives unchecked through Kotlin
      // Jetty refuses multipart bodies without a boundary, with too many parts or oversized
      // fields; to the client that is a body we cannot read, not a server failure.
      if (isTooLarge(e)) {
        throw new ApiException(413, "body_too_large", "a multipart field is too large");
      }
      throw ApiException.badRequest("malformed_body", "the multipart body cannot be read");
    }
  }

  private static boolean isTooLarge(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String message = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
      if (message.contains("too large") || message.contains("exceeds")) {
        return true;
      }
    }
    return false;
  }

  private static void readJson(String body, Map<String, JsonNode> fields) {
    JsonNode root;
    try {
      root = JSON.readTree(body);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest("malformed_json", "the body is not valid JSON");
    }
    if (root == null || !root.isObject()) {
      throw ApiException.badRequest("malformed_json", "the body must be a JSON object");
    }
    root.properties().forEach(e -> fields.put(e.getKey(), e.getValue()));
  }

  private static void readUrlEncoded(String body, Map<String, JsonNode> fields) {
    Map<String, List<String>> params = new LinkedHashMap<>();
    try {
      for (String pair : body.split("&")) {
        if (pair.isEmpty()) {
          continue;
        }
        int eq = pair.indexOf('=');
        String key =
            URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        String value =
            eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        params.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
      }
    } catch (IllegalArgumentException e) {
      throw ApiException.badRequest("malformed_body", "the form body is not valid url-encoding");
    }
    params.forEach(
        (k, v) -> {
          if (k.endsWith("[]") && k.length() > 2) {
            // PHP's array style (phone_no[]=a&phone_no[]=b) is a list: one field, comma-joined.
            fields.put(
                k.substring(0, k.length() - 2),
                JSON.getNodeFactory().textNode(String.join(",", v)));
          } else {
            putFirst(fields, k, v);
          }
        });
  }

  private static void readHandBuiltForm(
      String body, Set<String> known, Map<String, JsonNode> fields) {
    List<Integer> starts = new ArrayList<>();
    starts.add(0);
    for (int amp = body.indexOf('&'); amp >= 0; amp = body.indexOf('&', amp + 1)) {
      int eq = body.indexOf('=', amp + 1);
      if (eq > amp + 1 && known.contains(body.substring(amp + 1, eq))) {
        starts.add(amp + 1);
      }
    }
    for (int i = 0; i < starts.size(); i++) {
      int from = starts.get(i);
      int to = i + 1 < starts.size() ? starts.get(i + 1) - 1 : body.length();
      String pair = body.substring(from, to);
      int eq = pair.indexOf('=');
      String key = tolerantDecode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : tolerantDecode(pair.substring(eq + 1));
      if (!key.isEmpty()) {
        fields.putIfAbsent(key, JSON.getNodeFactory().textNode(value));
      }
    }
  }

  /** Form decoding that never fails: {@code +} is a space, {@code %XX} a byte, any other % a %. */
  private static String tolerantDecode(String s) {
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(s.length());
    byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
    for (int i = 0; i < bytes.length; i++) {
      byte b = bytes[i];
      if (b == '+') {
        out.write(' ');
      } else if (b == '%'
          && i + 2 < bytes.length
          && Character.digit(bytes[i + 1], 16) >= 0
          && Character.digit(bytes[i + 2], 16) >= 0) {
        out.write(Character.digit(bytes[i + 1], 16) * 16 + Character.digit(bytes[i + 2], 16));
        i += 2;
      } else {
        out.write(b);
      }
    }
    return out.toString(StandardCharsets.UTF_8);
  }

  private static void putFirst(Map<String, JsonNode> fields, String key, List<String> values) {
    if (!values.isEmpty()) {
      fields.put(key, JSON.getNodeFactory().textNode(values.getFirst()));
    }
  }

  private static JsonNode text(List<String> values) {
    return JSON.getNodeFactory().textNode(values.isEmpty() ? "" : values.getFirst());
  }

  /**
   * The field as text: strings as they are, numbers in their written form ({@code 6281...} sent as
   * a JSON number), booleans as {@code true}/{@code false}, arrays joined with commas. Empty when
   * missing, null or blank.
   */
  /**
   * A JSON object of strings, such as a device's {@code config}: empty when absent; 400 {@code
   * <name>_not_valid} when it is not an object or a value is not a string, a number or null (null
   * or "" removes a key where the caller supports that).
   */
  public Map<String, String> stringMap(String name) {
    JsonNode node = node(name);
    if (node == null || node.isNull() || node.isMissingNode()) {
      return Map.of();
    }
    if (!node.isObject()) {
      throw ApiException.fieldNotValid(name, name + " must be an object of strings");
    }
    Map<String, String> map = new LinkedHashMap<>();
    for (var e : node.properties()) {
      JsonNode v = e.getValue();
      if (v.isNull()) {
        map.put(e.getKey(), "");
      } else if (v.isTextual() || v.isNumber() || v.isBoolean()) {
        map.put(e.getKey(), v.asText());
      } else {
        throw ApiException.fieldNotValid(name, name + "." + e.getKey() + " must be a string");
      }
    }
    return map;
  }

  public Optional<String> text(String name) {
    JsonNode node = node(name);
    if (node == null || node.isNull() || node.isMissingNode()) {
      return Optional.empty();
    }
    String value;
    if (node.isArray()) {
      List<String> parts = new ArrayList<>();
      node.forEach(n -> parts.add(n.isValueNode() ? n.asText() : n.toString()));
      value = String.join(",", parts);
    } else if (node.isDouble() || node.isFloat()) {
      double d = node.doubleValue();
      if (!Double.isFinite(d) || Math.abs(d) > 1e18) {
        throw ApiException.fieldNotValid(name, name + " is not a usable number");
      }
      value = BigDecimal.valueOf(d).stripTrailingZeros().toPlainString();
    } else if (node.isBigDecimal()) {
      value = node.asText();
    } else if (node.isValueNode()) {
      value = node.asText();
    } else {
      value = node.toString();
    }
    return value.isBlank() ? Optional.empty() : Optional.of(value);
  }

  /**
   * The field's node. A dotted name ({@code data.message}) reaches into a JSON object, and also
   * finds the form spellings {@code data[message]} and {@code data.message}.
   */
  private JsonNode node(String name) {
    JsonNode node = fields.get(name);
    int dot = name.indexOf('.');
    if (node != null || dot < 0) {
      return node;
    }
    String head = name.substring(0, dot);
    String rest = name.substring(dot + 1);
    JsonNode parent = fields.get(head);
    if (parent != null && parent.isObject()) {
      JsonNode child = parent;
      for (String part : rest.split("\\.")) {
        child = child == null ? null : child.get(part);
      }
      return child;
    }
    return fields.get(head + "[" + rest.replace(".", "][") + "]");
  }

  /**
   * The caller's idempotency key: the {@code Idempotency-Key} header, else the {@code
   * idempotency_key} field (JSON, form, multipart or query string); empty when neither is given or
   * both are blank. 400 {@code idempotency_key_not_valid} when it is not 1 to 255 printable ASCII
   * characters.
   */
  public Optional<String> idempotencyKey() {
    Optional<String> raw = idempotencyHeader.or(() -> text(IDEMPOTENCY_KEY_FIELD));
    if (raw.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        IdempotencyKeys.wellFormed(raw.get())
            .orElseThrow(
                () ->
                    ApiException.fieldNotValid(
                        IDEMPOTENCY_KEY_FIELD,
                        "an idempotency key is 1 to "
                            + IdempotencyKeys.MAX_LENGTH
                            + " printable ASCII characters")));
  }

  /**
   * 400 {@code unknown_field} naming the first field of the request (body or query string) that is
   * not one of {@code known}, with the nearest known name when one is close: for APIs whose callers
   * are people and scripts of this project (the Admin API), where a misspelt field that is ignored
   * does the wrong thing silently. The contract's families keep ignoring unknown fields: their
   * clients send extras.
   */
  public RequestFields refuseUnknown(java.util.Collection<String> known) {
    for (String name : fields.keySet()) {
      if (!known.contains(name)) {
        String takes =
            known.isEmpty()
                ? "this call takes no fields"
                : "this call takes " + String.join(", ", known);
        throw ApiException.unknownField(
            name,
            "unknown field "
                + name
                + io.kurir.config.NearestName.to(name, known)
                    .map(n -> " (did you mean " + n + "?)")
                    .orElse("")
                + "; "
                + takes);
      }
    }
    return this;
  }

  /** The field as text, or 400 {@code <name>_empty}. */
  public String required(String name) {
    return text(name).orElseThrow(() -> ApiException.fieldEmpty(name));
  }

  /** The first of several accepted spellings of a field that is present. */
  public Optional<String> textOf(String... names) {
    for (String name : names) {
      Optional<String> v = text(name);
      if (v.isPresent()) {
        return v;
      }
    }
    return Optional.empty();
  }

  /** A yes/no field: true for {@code true}, {@code 1}, {@code on}, {@code yes} (any case). */
  public boolean flag(String name) {
    return text(name)
        .map(v -> v.strip().toLowerCase(Locale.ROOT))
        .map(v -> v.equals("true") || v.equals("1") || v.equals("on") || v.equals("yes"))
        .orElse(false);
  }

  /** A whole non-negative number, or 400 {@code <name>_not_valid}. */
  public Optional<Long> wholeNumber(String name, long max) {
    Optional<String> raw = text(name);
    if (raw.isEmpty()) {
      return Optional.empty();
    }
    String text = raw.get().strip();
    if (!PLAIN_NUMBER.matcher(text).matches()) {
      throw ApiException.fieldNotValid(name, name + " must be a number such as 30 or 2.5");
    }
    double value = Double.parseDouble(text);
    if (value > max) {
      throw ApiException.fieldNotValid(name, name + " must be between 0 and " + max);
    }
    return Optional.of((long) Math.ceil(value));
  }
}
