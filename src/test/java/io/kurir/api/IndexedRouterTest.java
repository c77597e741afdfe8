package io.kurir.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.Javalin;
import io.javalin.http.HandlerType;
import io.javalin.router.InternalRouter;
import io.javalin.router.ParsedEndpoint;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

class IndexedRouterTest {
  private static final List<String> REQUESTS =
      List.of(
          "/api/send_message",
          "/api/send_message/",
          "/api//send_message",
          "/api/upload",
          "/api/upload/abc",
          "/v1/messages",
          "/v1/messages/12",
          "/v1/messages/12/status",
          "/v1/campaigns/7/start",
          "/v1/campaigns/stats",
          "/shadowed/fixed",
          "/nothing",
          "/API/SEND_MESSAGE");

  private static InternalRouter routerOf(boolean indexed) {
    Consumer<io.javalin.config.JavalinConfig> setup =
        config -> {
          if (indexed) {
            config.unsafe.internalRouter = new IndexedRouter(config.unsafe);
          }
          config.router.ignoreTrailingSlashes = true;
          config.router.treatMultipleSlashesAsSingleSlash = true;
          config.routes.post("/api/send_message", ctx -> {});
          config.routes.post("/api/upload/{key}", ctx -> {});
          config.routes.post("/api/upload", ctx -> {});
          // A parameter route added first answers for a fixed path added after it.
          config.routes.post("/shadowed/{x}", ctx -> {});
          config.routes.post("/shadowed/fixed", ctx -> {});
          config.routes.post("/v1/messages", ctx -> {});
          config.routes.get("/v1/messages/{id}", ctx -> {});
          config.routes.get("/v1/messages/{id}/status", ctx -> {});
          config.routes.post("/v1/campaigns/{id}/start", ctx -> {});
          config.routes.get("/v1/campaigns/stats", ctx -> {});
          config.routes.post("/v1/campaigns/stats", ctx -> {});
        };
    return Javalin.create(setup).unsafe.internalRouter;
  }

  @Test
  void findsTheRouteJavalinsOwnSearchFinds() {
    InternalRouter javalin = routerOf(false);
    InternalRouter indexed = routerOf(true);
    assertThat(indexed).isInstanceOf(IndexedRouter.class);
    for (HandlerType method : List.of(HandlerType.GET, HandlerType.POST, HandlerType.DELETE)) {
      for (String uri : REQUESTS) {
        assertThat(pathOf(indexed.findFirstHttpHandlerEntry(method, uri)))
            .as(method + " " + uri)
            .isEqualTo(pathOf(javalin.findFirstHttpHandlerEntry(method, uri)));
        assertThat(indexed.hasHttpHandlerEntry(method, uri))
            .as(method + " " + uri)
            .isEqualTo(javalin.hasHttpHandlerEntry(method, uri));
      }
    }
    assertThat(pathOf(indexed.findFirstHttpHandlerEntry(HandlerType.POST, "/shadowed/fixed")))
        .isEqualTo("POST /shadowed/{x}");
    assertThat(pathOf(indexed.findFirstHttpHandlerEntry(HandlerType.POST, "/api/send_message/")))
        .isEqualTo("POST /api/send_message");
  }

  private static String pathOf(ParsedEndpoint e) {
    return e == null ? null : e.endpoint.method.name() + " " + e.endpoint.path;
  }
}
