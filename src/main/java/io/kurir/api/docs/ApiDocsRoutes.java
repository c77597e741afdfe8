package io.kurir.api.docs;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.kurir.api.ApiException;
import io.kurir.api.ErrorStyle;
import io.kurir.api.RouteTable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The API document and its browsable page: {@code GET /openapi.json} (the maintained {@code
 * openapi.yaml} resource, as JSON) and {@code GET /docs} (Swagger UI from its webjar, pointed at
 * that document). Everything the page loads is served here: its Content-Security-Policy lets the
 * browser fetch nothing from anywhere else.
 */
public final class ApiDocsRoutes implements RouteTable {
  /** The document's resource; {@code OpenApiRoutesAgreeTest} keeps it in step with the routes. */
  public static final String DOCUMENT = "/openapi.yaml";

  private static final String PAGE = "/api-docs/";
  private static final String SWAGGER_UI = "swagger-ui";

  /** The webjar's files the page uses, by the name they are served under, with their type. */
  private static final Map<String, String> SWAGGER_UI_FILES =
      Map.of(
          "swagger-ui.css", "text/css; charset=utf-8",
          "swagger-ui-bundle.js", "text/javascript; charset=utf-8",
          "favicon-32x32.png", "image/png",
          "favicon-16x16.png", "image/png");

  private static final String CONTENT_SECURITY_POLICY =
      "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline';"
          + " img-src 'self' data:; font-src 'self' data:; connect-src 'self';"
          + " base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

  private final byte[] document;
  private final byte[] page;
  private final byte[] initializer;
  private final String swaggerUiRoot;

  /**
   * Reads the document and the page once: a build without them does not start.
   *
   * @param version the running gateway's version, which the document states
   */
  public ApiDocsRoutes(String version) {
    this.document = documentAsJson(version);
    this.page = resource(PAGE + "index.html");
    this.initializer = resource(PAGE + "kurir-docs.js");
    this.swaggerUiRoot =
        "/META-INF/resources/webjars/" + SWAGGER_UI + "/" + webjarVersion(SWAGGER_UI) + "/";
  }

  @Override
  public String pathPrefix() {
    return "/docs";
  }

  @Override
  public List<String> pathPrefixes() {
    return List.of("/docs", "/openapi.json");
  }

  @Override
  public ErrorStyle errorStyle() {
    return ErrorStyle.KURIR_JSON;
  }

  @Override
  public void addTo(RoutesConfig routes) {
    routes.get("/openapi.json", ctx -> ctx.contentType("application/json").result(document));
    routes.get("/docs", ctx -> page(ctx, "text/html; charset=utf-8", page));
    routes.get("/docs/{file}", this::file);
  }

  private void file(Context ctx) {
    String name = ctx.pathParam("file");
    if (name.equals("kurir-docs.js")) {
      page(ctx, "text/javascript; charset=utf-8", initializer);
      return;
    }
    String type = SWAGGER_UI_FILES.get(name);
    if (type == null) {
      throw ApiException.notFound("no such file of the docs page");
    }
    // Large and fixed for this build: read from the jar, kept by the browser for a day.
    ctx.header("Cache-Control", "public, max-age=86400");
    page(ctx, type, resource(swaggerUiRoot + name));
  }

  private static void page(Context ctx, String type, byte[] body) {
    ctx.header("Content-Security-Policy", CONTENT_SECURITY_POLICY)
        .header("X-Content-Type-Options", "nosniff")
        .contentType(type)
        .result(body);
  }

  /**
   * The YAML document as JSON bytes, parsed with YAML's safe constructor (plain data only), stating
   * {@code version} as the API's version.
   */
  public static byte[] documentAsJson(String version) {
    // A constant of the build: parsed once per process (a test JVM starts a thousand gateways, and
    // the YAML was most of each one's start).
    return DOCUMENTS.computeIfAbsent(version, ApiDocsRoutes::parse).clone();
  }

  private static final java.util.concurrent.ConcurrentHashMap<String, byte[]> DOCUMENTS =
      new java.util.concurrent.ConcurrentHashMap<>();

  @SuppressWarnings("unchecked")
  private static byte[] parse(String version) {
    Map<String, Object> tree;
    try (InputStream in = open(DOCUMENT)) {
      tree = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + DOCUMENT, e);
    }
    ((Map<String, Object>) tree.get("info")).put("version", version);
    try {
      return new ObjectMapper().writeValueAsBytes(tree);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + DOCUMENT + " as JSON", e);
    }
  }

  /** The version of webjar {@code artifact} on the class path, from its Maven properties. */
  private static String webjarVersion(String artifact) {
    Properties p = new Properties();
    try (InputStream in = open("/META-INF/maven/org.webjars/" + artifact + "/pom.properties")) {
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the " + artifact + " webjar's version", e);
    }
    return p.getProperty("version");
  }

  private static byte[] resource(String path) {
    try (InputStream in = open(path)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path, e);
    }
  }

  private static InputStream open(String path) throws IOException {
    InputStream in = ApiDocsRoutes.class.getResourceAsStream(path);
    if (in == null) {
      throw new IOException(path + " is not on the class path (a broken build?)");
    }
    return in;
  }
}
