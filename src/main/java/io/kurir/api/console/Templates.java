package io.kurir.api.console;

import gg.jte.ContentType;
import gg.jte.TemplateEngine;
import gg.jte.output.StringOutput;
import java.util.Map;

/**
 * The console's templates ({@code src/main/jte}), compiled to Java at build time by the JTE Maven
 * plugin into this package, so that they see the pages' package-private view records. Output is
 * HTML-escaped by default: a template cannot forget to escape what came from a user.
 *
 * <p>Thread-safe.
 */
final class Templates {
  private static final TemplateEngine ENGINE =
      TemplateEngine.createPrecompiled(
          null, ContentType.Html, null, Templates.class.getPackageName());

  private Templates() {}

  /** The template {@code name} (e.g. {@code devices.jte}) with its parameters, as HTML. */
  static String render(String name, Map<String, Object> params) {
    StringOutput out = new StringOutput(4096);
    ENGINE.render(name, params, out);
    return out.toString();
  }
}
