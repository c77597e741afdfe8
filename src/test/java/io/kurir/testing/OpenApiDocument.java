package io.kurir.testing;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.dialect.Dialects;
import io.kurir.Gateway;
import io.kurir.api.docs.ApiDocsRoutes;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

/**
 * Kurir's API document (the JSON that {@code GET /openapi.json} serves), with what the tests ask of
 * it: the routes it documents, and whether a real exchange — a request and its reply — is what it
 * says. The schemas are checked by networknt's JSON Schema validator in the OpenAPI 3.1 dialect;
 * this class only finds which schema applies (operation, status, media type). Thread-safe.
 */
public final class OpenApiDocument {
  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final String BASE = "https://kurir.invalid/openapi.json";
  private static final List<String> METHODS =
      List.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

  private static final OpenApiDocument SERVED =
      new OpenApiDocument(
          new String(ApiDocsRoutes.documentAsJson(Gateway.VERSION), StandardCharsets.UTF_8));

  private final JsonNode root;
  private final SchemaRegistry schemas;

  /** The document as the gateway serves it. */
  public static OpenApiDocument served() {
    return SERVED;
  }

  public OpenApiDocument(String json) {
    this.root = JSON.readTree(json);
    this.schemas =
        SchemaRegistry.withDialect(Dialects.getOpenApi31(), b -> b.schemas(Map.of(BASE, json)));
  }

  /** One request and the reply it got, as the client saw them. */
  public record Exchange(
      String method,
      String path,
      String requestContentType,
      String requestBody,
      int status,
      String replyContentType,
      String replyBody) {

    @Override
    public String toString() {
      return method + " " + path + " → " + status + " " + abbreviate(replyBody);
    }
  }

  /** Every documented operation as {@code "METHOD /path"}, path parameters as {@code {name}}. */
  public List<String> documentedRoutes() {
    TreeSet<String> routes = new TreeSet<>();
    for (Map.Entry<String, JsonNode> path : root.path("paths").properties()) {
      JsonNode item = resolved(path.getValue()).node();
      for (String method : METHODS) {
        if (item.has(method)) {
          routes.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
        }
      }
    }
    return List.copyOf(routes);
  }

  /**
   * What is wrong with the reply of {@code e} (its status, media type and body), and with its
   * request when {@code checkRequest}; empty when both are as documented, or when the exchange
   * names no documented operation (an unknown path, a method a path does not take).
   */
  public List<String> problems(Exchange e, boolean checkRequest) {
    Optional<Operation> operation = find(e.method(), e.path());
    if (operation.isEmpty()) {
      return List.of();
    }
    List<String> problems = new ArrayList<>();
    if (checkRequest) {
      problems.addAll(parameterProblems(operation.get(), e.path()));
      problems.addAll(requestProblems(operation.get().pointer(), e));
    }
    problems.addAll(replyProblems(operation.get().pointer(), e));
    return problems.stream().map(p -> e + ": " + p).toList();
  }

  /** The JSON pointer of the operation that serves {@code method} on {@code path}. */
  public Optional<String> operationOf(String method, String path) {
    return find(method, path).map(Operation::pointer);
  }

  /** A documented operation: where it is in the document, and its path template. */
  private record Operation(String pointer, String pathItemPointer, String template) {}

  private Optional<Operation> find(String method, String path) {
    String m = method.toLowerCase(Locale.ROOT);
    String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    for (Map.Entry<String, JsonNode> entry : root.path("paths").properties()) {
      if (!matches(entry.getKey(), bare)) {
        continue;
      }
      Located item = resolved(entry.getValue());
      if (item.node().has(m)) {
        String pointer =
            item.pointer().isEmpty() ? "/paths/" + escape(entry.getKey()) : item.pointer();
        return Optional.of(new Operation(pointer + "/" + m, pointer, entry.getKey()));
      }
    }
    return Optional.empty();
  }

  /**
   * The path and query parameters of a request against those documented (the path item's and the
   * operation's): a required one missing, or a value its schema refuses.
   */
  private List<String> parameterProblems(Operation operation, String path) {
    String bare = path.contains("?") ? path.substring(0, path.indexOf('?')) : path;
    Map<String, String> query = new java.util.HashMap<>();
    formFields(path.contains("?") ? path.substring(path.indexOf('?') + 1) : "")
        .properties()
        .forEach(f -> query.put(f.getKey(), f.getValue().asString()));
    Map<String, String> segments = new java.util.HashMap<>();
    String[] t = operation.template().split("/", -1);
    String[] p = bare.split("/", -1);
    for (int i = 0; i < t.length; i++) {
      if (t[i].startsWith("{")) {
        // A '+' in a path is itself (only a query string's '+' is a space).
        String raw = p[i].replace("+", "%2B");
        segments.put(
            t[i].substring(1, t[i].length() - 1), URLDecoder.decode(raw, StandardCharsets.UTF_8));
      }
    }
    List<String> problems = new ArrayList<>();
    for (String owner : List.of(operation.pathItemPointer(), operation.pointer())) {
      JsonNode parameters = at(owner).path("parameters");
      for (int i = 0; i < parameters.size(); i++) {
        Located parameter = resolved(parameters.get(i), owner + "/parameters/" + i);
        String name = parameter.node().path("name").asString();
        String in = parameter.node().path("in").asString();
        Map<String, String> given =
            in.equals("query") ? query : in.equals("path") ? segments : null;
        if (given == null) {
          continue; // headers are not recorded
        }
        if (!given.containsKey(name)) {
          if (parameter.node().path("required").asBoolean(false)) {
            problems.add("the required " + in + " parameter " + name + " is missing");
          }
          continue;
        }
        problems.addAll(
            validate(
                parameter.pointer() + "/schema",
                StringNode.valueOf(given.get(name)),
                in + " parameter " + name));
      }
    }
    return problems;
  }

  private List<String> requestProblems(String operation, Exchange e) {
    JsonNode op = at(operation);
    if (!op.has("requestBody")) {
      return List.of();
    }
    Located body = resolved(op.path("requestBody"), operation + "/requestBody");
    String type = baseType(e.requestContentType());
    if (!body.node().path("content").has(type)) {
      return List.of("request content type " + type + " is not documented");
    }
    JsonNode instance;
    switch (type) {
      case "application/json" -> {
        try {
          instance = JSON.readTree(e.requestBody());
        } catch (RuntimeException notJson) {
          return List.of("the request body is not JSON");
        }
      }
      case "application/x-www-form-urlencoded" -> instance = formFields(e.requestBody());
      default -> {
        return List.of(); // multipart: files, not checked field by field
      }
    }
    return validate(body.pointer() + "/content/" + escape(type) + "/schema", instance, "request");
  }

  private List<String> replyProblems(String operation, Exchange e) {
    JsonNode responses = at(operation).path("responses");
    String code = Integer.toString(e.status());
    String key =
        responses.has(code)
            ? code
            : responses.has(code.charAt(0) + "XX")
                ? code.charAt(0) + "XX"
                : responses.has("default") ? "default" : null;
    if (key == null) {
      return List.of("status " + code + " is not documented");
    }
    Located response = resolved(responses.path(key), operation + "/responses/" + escape(key));
    JsonNode content = response.node().path("content");
    if (content.isMissingNode() || content.isEmpty()) {
      return e.replyBody().isEmpty() ? List.of() : List.of("a body where none is documented");
    }
    String type = baseType(e.replyContentType());
    if (!content.has(type)) {
      return List.of("reply content type '" + type + "' is not documented for " + key);
    }
    String schema = response.pointer() + "/content/" + escape(type) + "/schema";
    JsonNode instance;
    if (type.equals("application/json")) {
      try {
        instance = JSON.readTree(e.replyBody());
      } catch (RuntimeException notJson) {
        return List.of("the reply is not JSON");
      }
    } else if (type.startsWith("text/plain")) {
      instance = StringNode.valueOf(e.replyBody());
    } else {
      return List.of(); // a script or a page: its media type is what is documented
    }
    return validate(schema, instance, "reply");
  }

  private List<String> validate(String pointer, JsonNode instance, String what) {
    Schema schema = schemas.getSchema(SchemaLocation.of(BASE + "#" + pointer));
    List<Error> errors = schema.validate(instance);
    return errors.stream().map(err -> what + " " + err.toString()).toList();
  }

  /** A node and where it is: a {@code $ref} followed to its target's pointer. */
  private record Located(JsonNode node, String pointer) {}

  private Located resolved(JsonNode node) {
    return resolved(node, "");
  }

  private Located resolved(JsonNode node, String pointer) {
    while (node.has("$ref")) {
      String ref = node.path("$ref").asString();
      if (!ref.startsWith("#/")) {
        throw new IllegalStateException("only local references are expected: " + ref);
      }
      pointer = ref.substring(1);
      node = at(pointer);
    }
    return new Located(node, pointer);
  }

  private JsonNode at(String pointer) {
    JsonNode node = root.at(pointer);
    if (node.isMissingNode()) {
      throw new IllegalStateException("the document has nothing at " + pointer);
    }
    return node;
  }

  private static boolean matches(String template, String path) {
    String[] t = template.split("/", -1);
    String[] p = path.split("/", -1);
    if (t.length != p.length) {
      return false;
    }
    for (int i = 0; i < t.length; i++) {
      boolean parameter = t[i].startsWith("{") && t[i].endsWith("}");
      if (parameter ? p[i].isEmpty() : !t[i].equals(p[i])) {
        return false;
      }
    }
    return true;
  }

  private static ObjectNode formFields(String body) {
    ObjectNode fields = JSON.createObjectNode();
    for (String pair : body.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = eq < 0 ? pair : pair.substring(0, eq);
      String value = eq < 0 ? "" : pair.substring(eq + 1);
      fields.put(
          URLDecoder.decode(name, StandardCharsets.UTF_8),
          URLDecoder.decode(value, StandardCharsets.UTF_8));
    }
    return fields;
  }

  private static String baseType(String contentType) {
    String type = contentType == null ? "" : contentType;
    int semicolon = type.indexOf(';');
    return (semicolon < 0 ? type : type.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
  }

  /** A JSON pointer segment (RFC 6901). */
  private static String escape(String segment) {
    return segment.replace("~", "~0").replace("/", "~1");
  }

  private static String abbreviate(String body) {
    String oneLine = body.replace('\n', ' ');
    return oneLine.length() <= 200 ? oneLine : oneLine.substring(0, 200) + "…";
  }
}
