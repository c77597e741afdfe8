package io.kurir.driver;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One request to a driver's route, as the HTTP layer read it: the path's parameters, the query
 * string, the headers and the raw body (the bytes a network signed). Immutable.
 *
 * <p>Its {@link #fields} are read only when asked for, as the gateway's other APIs read theirs
 * (JSON, form or multipart bodies alike, the query string filling in fields the body lacks): a
 * webhook that checks a signature over the raw body never has its body parsed first.
 */
public final class DriverRequest {
  private final Map<String, String> pathParams;
  private final Map<String, List<String>> query;
  private final Map<String, String> headers;
  private final byte[] body;
  private final Function<String, Optional<String>> fieldReader;

  /**
   * @param pathParams the values of the route path's {@code {name}} segments
   * @param query the query string's parameters, each with its values in order
   * @param headers the request's headers (names in any case)
   * @param body the raw body, empty when there is none
   * @param fieldReader a field's text by name, empty when missing or blank; throws {@link
   *     RouteException} (or the HTTP layer's own refusal) when the body cannot be read as fields
   */
  public DriverRequest(
      Map<String, String> pathParams,
      Map<String, List<String>> query,
      Map<String, String> headers,
      byte[] body,
      Function<String, Optional<String>> fieldReader) {
    this.pathParams = Map.copyOf(pathParams);
    this.query = Map.copyOf(query);
    TreeMap<String, String> h = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    h.putAll(headers);
    this.headers = java.util.Collections.unmodifiableMap(h);
    this.body = body.clone();
    this.fieldReader = fieldReader;
  }

  /** A request with no fields of its own beyond its body (a driver's tests). */
  public static DriverRequest of(
      Map<String, String> pathParams,
      Map<String, List<String>> query,
      Map<String, String> headers,
      byte[] body) {
    return new DriverRequest(
        pathParams,
        query,
        headers,
        body,
        name -> Optional.ofNullable(query.get(name)).flatMap(v -> v.stream().findFirst()));
  }

  /** The path parameter {@code name} of the route's path; "" when the path has none so named. */
  public String pathParam(String name) {
    return pathParams.getOrDefault(name, "");
  }

  /** The first value of query parameter {@code name}, or null when there is none. */
  public String queryParam(String name) {
    List<String> values = query.get(name);
    return values == null || values.isEmpty() ? null : values.getFirst();
  }

  public Map<String, List<String>> queryParams() {
    return query;
  }

  /** Header {@code name} (any case), or null when there is none. */
  public String header(String name) {
    return headers.get(name);
  }

  public Map<String, String> headers() {
    return headers;
  }

  /** The raw body, as the network signed it; a copy. */
  public byte[] bodyAsBytes() {
    return body.clone();
  }

  /** The request's fields, read from its body and query string when first asked for. */
  public Fields fields() {
    return new Fields(fieldReader);
  }

  /** A request's fields, each as text, with the checks the gateway's APIs apply to theirs. */
  public static final class Fields {
    private static final Pattern PLAIN_NUMBER = Pattern.compile("\\d{1,18}(\\.\\d{1,9})?");
    private final Function<String, Optional<String>> reader;

    Fields(Function<String, Optional<String>> reader) {
      this.reader = reader;
    }

    /** The field as text; empty when missing, null or blank. */
    public Optional<String> text(String name) {
      return reader.apply(name);
    }

    /** The field as text, or 400 {@code <name>_empty}. */
    public String required(String name) {
      return text(name).orElseThrow(() -> RouteException.fieldEmpty(name));
    }

    /** A yes/no field: true for {@code true}, {@code 1}, {@code on}, {@code yes} (any case). */
    public boolean flag(String name) {
      return text(name)
          .map(v -> v.strip().toLowerCase(Locale.ROOT))
          .map(v -> v.equals("true") || v.equals("1") || v.equals("on") || v.equals("yes"))
          .orElse(false);
    }

    /** A whole non-negative number (a fraction rounded up), or 400 {@code <name>_not_valid}. */
    public Optional<Long> wholeNumber(String name, long max) {
      Optional<String> raw = text(name);
      if (raw.isEmpty()) {
        return Optional.empty();
      }
      String text = raw.get().strip();
      if (!PLAIN_NUMBER.matcher(text).matches()) {
        throw RouteException.fieldNotValid(name, name + " must be a number such as 30 or 2.5");
      }
      double value = Double.parseDouble(text);
      if (value > max) {
        throw RouteException.fieldNotValid(name, name + " must be between 0 and " + max);
      }
      return Optional.of((long) Math.ceil(value));
    }
  }
}
