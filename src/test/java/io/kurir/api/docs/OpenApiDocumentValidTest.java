package io.kurir.api.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.Gateway;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.Operation;
import io.swagger.v3.parser.OpenAPIV3Parser;
import io.swagger.v3.parser.core.models.ParseOptions;
import io.swagger.v3.parser.core.models.SwaggerParseResult;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The served document is a well-formed OpenAPI 3.1 document, read by swagger-parser as client
 * generators read it: no error, every reference resolved, and every operation with a summary and
 * the replies a client has to handle.
 */
class OpenApiDocumentValidTest {

  @Test
  void theDocumentParsesWithoutAMessage() {
    ParseOptions options = new ParseOptions();
    options.setResolve(true);
    options.setValidateInternalRefs(true);
    SwaggerParseResult result =
        new OpenAPIV3Parser()
            .readContents(
                new String(ApiDocsRoutes.documentAsJson(Gateway.VERSION), StandardCharsets.UTF_8),
                null,
                options);
    assertThat(result.getMessages()).as("parser messages").isEmpty();
    OpenAPI api = result.getOpenAPI();
    assertThat(api.getOpenapi()).isEqualTo("3.1.0");

    List<String> incomplete = new ArrayList<>();
    api.getPaths()
        .forEach(
            (path, item) ->
                item.readOperationsMap()
                    .forEach(
                        (method, op) -> {
                          if (!complete(op)) {
                            incomplete.add(method + " " + path);
                          }
                        }));
    assertThat(incomplete).as("operations without a summary, a success or the 4XX reply").isEmpty();
  }

  private static boolean complete(Operation op) {
    return op.getSummary() != null
        && op.getTags() != null
        && op.getResponses().keySet().stream().anyMatch(code -> code.startsWith("2"))
        && (op.getResponses().containsKey("4XX") || op.getOperationId().equals("openApiDocument"));
  }
}
