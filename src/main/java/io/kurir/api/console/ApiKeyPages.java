package io.kurir.api.console;

import io.javalin.http.Context;
import io.kurir.api.admin.AdminRoutes;
import io.kurir.tenant.ApiKey;
import io.kurir.tenant.ApiScope;
import io.kurir.tenant.License;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * A license's API keys for Kurir API v1: the list (never the keys themselves), making one (its key
 * shown once, as the console shows every new credential), and revoking one.
 */
final class ApiKeyPages {
  private final ConsoleDeps deps;

  ApiKeyPages(ConsoleDeps deps) {
    this.deps = deps;
  }

  void list(Context ctx, ConsoleRoutes.Viewer v) {
    License l = deps.tenants().license(Pages.id(ctx));
    View view =
        new View(
            base(l.id()),
            deps.tenants().apiKeys().of(l.id()).stream().map(AdminRoutes::apiKey).toList(),
            Arrays.stream(ApiScope.values()).map(ApiScope::wireName).toList(),
            Pages.typed(ctx, base(l.id()), "name", ""),
            v.csrf());
    Pages.operator(ctx, v, "API keys of " + l.name(), "apiKeys.jte", view);
  }

  /**
   * A license's keys (as the Admin API lists them), the scopes to choose from and the form's name
   * as typed when refused.
   */
  record View(
      String base, List<Map<String, Object>> keys, List<String> scopes, String name, String csrf) {}

  void create(Context ctx, ConsoleRoutes.Viewer v) {
    License l = deps.tenants().license(Pages.id(ctx));
    ApiKey made =
        deps.tenants()
            .apiKeys()
            .create(
                l.id(),
                Pages.required(ctx, "name", "a name"),
                ApiScope.parse(String.join(",", ctx.formParams("scopes"))));
    OnceShown.keep(
        ctx,
        v,
        new OnceShown.Shown(
            "New API key",
            List.of(new OnceShown.Secret("API key", made.key().orElseThrow())),
            "Give it to the integrator, who sends it as a Bearer token: it is not shown again.",
            "",
            "",
            base(l.id())),
        ConsoleRoutes.overHttps(ctx, deps));
  }

  void revoke(Context ctx, ConsoleRoutes.Viewer v) {
    long license = Pages.id(ctx);
    deps.tenants().apiKeys().revoke(license, Pages.id(ctx, "key"));
    Pages.seeOther(ctx, base(license));
  }

  private static String base(long license) {
    return "/console/licenses/" + license + "/api-keys";
  }
}
