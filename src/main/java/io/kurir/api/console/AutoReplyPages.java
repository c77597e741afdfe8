package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.bot.BotRule;
import io.kurir.bot.MatchType;
import io.kurir.tenant.License;
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
    Optional<String> test = Pages.query(ctx, "test");
    Map<String, String> types = new LinkedHashMap<>();
    types.put("match", "the whole text");
    types.put("partial", "the text starts with it");
    types.put("partial_all", "anywhere in the text");
    View view =
        new View(
            base,
            deps.bots().rules(l.id()),
            types,
            Pages.typed(ctx, base, "keyword", ""),
            Pages.typed(ctx, base, "type", "match"),
            Pages.typed(ctx, base, "response", ""),
            test.orElse(""),
            test.map(t -> deps.bots().match(l.id(), t)),
            v.csrf());
    Pages.operator(ctx, v, "Auto-replies of " + l.name(), "autoReplies.jte", view);
  }

  /**
   * A license's rules, the form to add one (as typed when refused), and the text tested with the
   * rule that answers it ({@code tested} empty when none was tested; holding an empty rule when no
   * rule answers).
   */
  record View(
      String base,
      List<BotRule> rules,
      Map<String, String> types,
      String keyword,
      String type,
      String response,
      String test,
      Optional<Optional<BotRule>> tested,
      String csrf) {}

  void add(Context ctx, ConsoleRoutes.Viewer v) {
    License l = deps.tenants().license(Pages.id(ctx));
    MatchType type =
        MatchType.ofWireName(Pages.field(ctx, "type").orElse("match"))
            .orElseThrow(() -> new ApiException(400, "type_not_valid", "Choose how it matches."));
    deps.bots()
        .add(
            l.id(),
            Pages.required(ctx, "keyword", "the keyword"),
            Pages.required(ctx, "response", "the answer"),
            type);
    Pages.seeOther(ctx, "/console/licenses/" + l.id() + "/auto-replies");
  }

  void delete(Context ctx, ConsoleRoutes.Viewer v) {
    long license = Pages.id(ctx);
    if (!deps.bots().delete(license, Pages.id(ctx, "rule"))) {
      throw ApiException.notFound("No such auto-reply.");
    }
    Pages.seeOther(ctx, "/console/licenses/" + license + "/auto-replies");
  }
}
