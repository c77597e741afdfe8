package io.kurir.api.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.OpenApiDocument;
import io.kurir.testing.TestGateway;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API document and the route tables agree: every route the gateway serves (every family, Admin,
 * sandbox, the drivers' webhooks) is documented, and nothing is documented that it does not serve.
 * The served routes are read from the running server's router, not listed by hand.
 */
class OpenApiRoutesAgreeTest {
  /**
   * Pages and probes for people and machines, not API endpoints: the docs page itself, the console,
   * health and metrics. Keep this list short: anything else a client calls belongs in the document.
   */
  static final List<String> NOT_API = List.of("/docs", "/console", "/health", "/metrics");

  @TempDir Path dir;

  @Test
  void everyServedRouteIsDocumentedAndNothingElse() {
    List<String> served;
    // The sandbox API on, and every standard driver loaded: every route there is.
    try (TestGateway kurir = TestGateway.start(dir)) {
      served = kurir.gateway().servedRoutes();
    }
    List<String> api = served.stream().filter(r -> !isNotApi(r)).toList();
    List<String> documented = OpenApiDocument.served().documentedRoutes();

    assertThat(api).as("routes of every family, admin, sandbox and drivers").hasSizeGreaterThan(80);
    assertThat(documented)
        .as("served routes missing from src/main/resources/openapi.yaml")
        .containsAll(api);
    assertThat(api)
        .as("documented routes that no route table serves")
        .containsAll(documented.stream().filter(r -> !isNotApi(r)).toList());
    assertThat(documented).as("the document documents no page").noneMatch(r -> isNotApi(r));
    assertThat(served).as("the docs page is served").contains("GET /docs", "GET /docs/{file}");
  }

  private static boolean isNotApi(String route) {
    String path = route.substring(route.indexOf(' ') + 1);
    return NOT_API.stream().anyMatch(p -> path.equals(p) || path.startsWith(p + "/"));
  }
}
