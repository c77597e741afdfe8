package io.kurir.api.console;

import java.util.List;
import java.util.Map;

/**
 * The console's HTML, written by hand: escaping, the page around each view, forms that carry the
 * session's CSRF token, and tables. Every text that came from a user or the database goes through
 * {@link #esc}.
 */
final class Html {
  private Html() {}

  /** {@code text} safe inside an element or a quoted attribute. */
  static String esc(Object text) {
    if (text == null) {
      return "";
    }
    String s = text.toString();
    StringBuilder out = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> out.append("&lt;");
        case '>' -> out.append("&gt;");
        case '&' -> out.append("&amp;");
        case '"' -> out.append("&quot;");
        case '\'' -> out.append("&#39;");
        default -> out.append(c);
      }
    }
    return out.toString();
  }

  /** A link in the navigation bar: its label and where it goes. */
  record Link(String label, String href) {}

  /** A whole page: the title, the navigation (empty before sign-in) and the body. */
  static String page(String title, List<Link> nav, String csrf, String body) {
    StringBuilder h = new StringBuilder(4096);
    h.append("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
        .append("<title>")
        .append(esc(title))
        .append(" · Kurir</title>")
        .append("<link rel=\"stylesheet\" href=\"/console/assets/console.css\">")
        .append("<script src=\"/console/assets/console.js\" defer></script></head><body>")
        .append("<header><a class=\"brand\" href=\"/console\">Kurir</a>");
    if (!nav.isEmpty()) {
      h.append("<nav>");
      for (Link l : nav) {
        h.append("<a href=\"").append(esc(l.href())).append("\">").append(esc(l.label()));
        h.append("</a>");
      }
      h.append(post("/console/sign-out", csrf, "Sign out", "link"));
      h.append("</nav>");
    }
    h.append("</header><main><h1>").append(esc(title)).append("</h1>");
    h.append(body).append("</main></body></html>");
    return h.toString();
  }

  /** A one-button form that POSTs to {@code action} (an action on a row, say). */
  static String post(String action, String csrf, String label, String cssClass) {
    return post(action, csrf, label, cssClass, "");
  }

  /**
   * A one-button form whose action cannot be undone: the browser asks {@code confirm} first (empty:
   * it does not ask).
   */
  static String post(String action, String csrf, String label, String cssClass, String confirm) {
    return "<form method=\"post\" class=\"inline\" action=\""
        + esc(action)
        + "\""
        + confirm(confirm)
        + ">"
        + csrfField(csrf)
        + "<button type=\"submit\" class=\""
        + esc(cssClass)
        + "\">"
        + esc(label)
        + "</button></form>";
  }

  /** The attribute that makes the script ask before the form is sent; empty for no question. */
  static String confirm(String question) {
    return question.isEmpty() ? "" : " data-confirm=\"" + esc(question) + "\"";
  }

  /**
   * The button that switches something off or on: off is a red button that asks first, on a plain
   * one; the same everywhere.
   */
  static String onOff(String base, String csrf, boolean disabled, String what) {
    return disabled
        ? post(base + "enable", csrf, "Switch on", "secondary")
        : post(
            base + "disable",
            csrf,
            "Switch off",
            "danger",
            "Switch off " + what + "? It stops working until it is switched on again.");
  }

  static String csrfField(String csrf) {
    return "<input type=\"hidden\" name=\"csrf\" value=\"" + esc(csrf) + "\">";
  }

  /** A labelled text input. */
  static String input(String label, String name, String value, String extra) {
    return "<label>"
        + esc(label)
        + " <input name=\""
        + esc(name)
        + "\" value=\""
        + esc(value)
        + "\" "
        + extra
        + "></label>";
  }

  /** A labelled choice among {@code options} (value → label). */
  static String select(String label, String name, Map<String, String> options, String chosen) {
    StringBuilder h = new StringBuilder("<label>").append(esc(label));
    h.append(" <select name=\"").append(esc(name)).append("\">");
    options.forEach(
        (value, text) ->
            h.append("<option value=\"")
                .append(esc(value))
                .append(value.equals(chosen) ? "\" selected>" : "\">")
                .append(esc(text))
                .append("</option>"));
    return h.append("</select></label>").toString();
  }

  /**
   * A table: its header cells, then rows of cells that are HTML already (escape them first). Wide
   * screens see a table; narrow ones a card per row (see console.css).
   */
  static String table(List<String> headers, List<List<String>> rows, String empty) {
    if (rows.isEmpty()) {
      return "<p class=\"muted\">" + esc(empty) + "</p>";
    }
    StringBuilder h = new StringBuilder("<div class=\"scroll\"><table class=\"cells\"><thead><tr>");
    headers.forEach(c -> h.append("<th>").append(esc(c)).append("</th>"));
    h.append("</tr></thead><tbody>");
    for (List<String> row : rows) {
      h.append("<tr>");
      // Each cell names its column: on a phone the stylesheet stacks a row's cells, label first.
      for (int i = 0; i < row.size(); i++) {
        String header = i < headers.size() ? headers.get(i) : "";
        h.append("<td data-label=\"").append(esc(header)).append("\">");
        h.append(row.get(i)).append("</td>");
      }
      h.append("</tr>");
    }
    return h.append("</tbody></table></div>").toString();
  }

  static String link(String href, Object text) {
    return "<a href=\"" + esc(href) + "\">" + esc(text) + "</a>";
  }

  /** A state as a coloured badge, e.g. {@code online} or {@code failed}. */
  static String badge(String state) {
    return "<span class=\"badge s-" + esc(state.replace(' ', '_')) + "\">" + esc(state) + "</span>";
  }

  /** A credential shown once, in a box that is easy to copy. */
  static String secret(String label, String value) {
    return "<div class=\"secret\"><span>"
        + esc(label)
        + "</span> <code data-testid=\"secret-"
        + esc(label.toLowerCase(java.util.Locale.ROOT).replace(' ', '-'))
        + "\">"
        + esc(value)
        + "</code></div>";
  }
}
