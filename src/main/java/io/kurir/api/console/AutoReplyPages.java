package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.bot.BotRule;
import io.kurir.bot.Bots;
import io.kurir.bot.MatchType;
import io.kurir.tenant.License;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A license's keyword auto-replies: the list, adding and deleting one, and a box to test a text.
 */
final class AutoReplyPages {
  private final ConsoleDeps deps;

  AutoReplyPages(ConsoleDeps deps) {
    this.deps = deps;
  }

  void list(Context ctx, ConsoleRoutes.Viewer v) {
    License l = deps.tenants().license(Pages.id(ctx));
    String base = "/console/licenses/" + l.id() + "/auto-replies";
    List<List<String>> rows = new ArrayList<>();
    for (BotRule r : deps.bots().rules(l.id())) {
      rows.add(
          List.of(
              Html.esc(r.keyword()),
              Html.esc(r.matchType().wireName()),
              Html.esc(r.response()),
              Html.post(
                  base + "/" + r.id() + "/delete",
                  v.csrf(),
                  "Delete",
                  "danger",
                  "Delete the auto-reply to “" + r.keyword() + "”?")));
    }
    Optional<String> test = Pages.query(ctx, "test");
    String tested =
        test.map(
                t ->
                    deps.bots()
                        .match(l.id(), t)
                        .map(
                            r ->
                                "<p class=\"notice\" data-testid=\"test-result\">Rule “"
                                    + Html.esc(r.keyword())
                                    + "” ("
                                    + Html.esc(r.matchType().wireName())
                                    + ") answers: "
                                    + Html.esc(r.response())
                                    + "</p>")
                        .orElse(
                            "<p class=\"error\" data-testid=\"test-result\">No rule answers"
                                + " that text.</p>"))
            .orElse("");
    Map<String, String> types = new LinkedHashMap<>();
    types.put("match", "the whole text");
    types.put("partial", "the text starts with it");
    types.put("partial_all", "anywhere in the text");
    String body =
        Html.table(List.of("Keyword", "Match", "Answer", ""), rows, "No auto-reply yet.")
            + "<h2>Add one</h2><form method=\"post\" action=\""
            + base
            + "\" class=\"stack\">"
            + Html.csrfField(v.csrf())
            + Html.input("Keyword", "keyword", Pages.typed(ctx, base, "keyword", ""), "required")
            + Html.select("Matches", "type", types, Pages.typed(ctx, base, "type", "match"))
            + "<label>Answer <textarea name=\"response\" required>"
            + Html.esc(Pages.typed(ctx, base, "response", ""))
            + "</textarea></label>"
            + "<button type=\"submit\">Add auto-reply</button></form>"
            + "<h2>Test a text</h2><form method=\"get\" action=\""
            + base
            + "\" class=\"row\">"
            + Html.input("Text", "test", test.orElse(""), "")
            + "<button type=\"submit\" class=\"secondary\">Which rule answers?</button></form>"
            + tested;
    Pages.operator(ctx, v, "Auto-replies of " + l.name(), body);
  }

  void add(Context ctx, ConsoleRoutes.Viewer v) {
    License l = deps.tenants().license(Pages.id(ctx));
    MatchType type =
        MatchType.ofWireName(Pages.field(ctx, "type").orElse("match"))
            .orElseThrow(() -> new ApiException(400, "type_not_valid", "Choose how it matches."));
    try {
      deps.bots()
          .add(
              l.id(),
              Pages.required(ctx, "keyword", "the keyword"),
              Pages.required(ctx, "response", "the answer"),
              type);
    } catch (Bots.RuleRefused e) {
      throw new ApiException(400, "rule_refused", e.getMessage());
    }
    Pages.seeOther(ctx, "/console/licenses/" + l.id() + "/auto-replies");
  }

  void delete(Context ctx, ConsoleRoutes.Viewer v) {
    long license = Pages.id(ctx);
    if (!deps.bots().delete(license, Pages.id(ctx, "rule"))) {
      throw new ApiException(404, "not_found", "No such auto-reply.");
    }
    Pages.seeOther(ctx, "/console/licenses/" + license + "/auto-replies");
  }
}
