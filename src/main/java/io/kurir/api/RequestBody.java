package io.kurir.api;

import io.javalin.http.Context;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A request's body, read once for every reader of the request: {@link RequestFields}, a handler
 * that wants the raw JSON or CSV, a driver's route on the API. The API families read bodies only
 * through here, never with Javalin's {@code ctx.body()}: a body read here is not in Javalin's own
 * copy, and the other way round. (A driver's webhook route, which reads nothing else of its
 * request, uses Javalin's.)
 *
 * <p>A body of a declared length (nearly every call) is read into an array of that length, with the
 * reads it takes and no more. Javalin's read allocates an 8 KB chunk and a growing buffer for each
 * body, copies it twice and reads once more for the end: on the busiest call, {@code
 * async_send_message}, about a tenth of the gateway's time. Its limit needs no check here: a
 * declared length over {@code http.max-body} was answered 413 before any handler ran
 * (SizeLimitHandler). A chunked body goes through Javalin's read, which counts as it reads.
 */
public final class RequestBody {
  private static final String KEPT = RequestBody.class.getName();
  private static final Pattern CHARSET =
      Pattern.compile("charset\\s*=\\s*([^;]+)", Pattern.CASE_INSENSITIVE);

  private RequestBody() {}

  /** The body's bytes (empty when there is none). */
  public static byte[] bytes(Context ctx) {
    Object kept = ctx.req().getAttribute(KEPT);
    if (kept instanceof byte[] body) {
      return body;
    }
    long declared = ctx.req().getContentLengthLong();
    byte[] body;
    if (declared >= 0 && declared <= Integer.MAX_VALUE) {
      try {
        // Fewer bytes when the caller hangs up early: Jetty's end-of-file is thrown then.
        body = ctx.req().getInputStream().readNBytes((int) declared);
      } catch (IOException e) {
        throw new UncheckedIOException(e); // unreadable: HttpApi answers it as the client's doing
      }
    } else {
      body = ctx.bodyAsBytes();
    }
    ctx.req().setAttribute(KEPT, body);
    return body;
  }

  /**
   * The body as text: in the charset its {@code Content-Type} names, else UTF-8 (also when it names
   * a charset nobody has: the client still means its bytes). A leading byte-order mark is dropped.
   */
  public static String text(Context ctx) {
    Charset charset = StandardCharsets.UTF_8;
    Matcher m = CHARSET.matcher(contentType(ctx));
    if (m.find()) {
      try {
        charset = Charset.forName(m.group(1).replace("\"", "").strip());
      } catch (IllegalArgumentException unknown) {
        // keep UTF-8
      }
    }
    String text = new String(bytes(ctx), charset);
    return text.startsWith("\uFEFF") ? text.substring(1) : text;
  }

  /**
   * The raw Content-Type header: the servlet API's own accessor throws on a charset it does not
   * know, and such a header must not cost the client its request.
   */
  static String contentType(Context ctx) {
    String header = ctx.header("Content-Type");
    return header == null ? "" : header;
  }
}
