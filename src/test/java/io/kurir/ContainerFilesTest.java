package io.kurir;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.yaml.snakeyaml.Yaml;

/**
 * The {@code Dockerfile} and {@code compose.yaml}, checked for what can be checked without a
 * container engine (none runs where Kurir is built): the image copies the jar the release build
 * writes and runs the command the docs name; every {@code KURIR_*} variable they set is a setting
 * with a value the settings accept; the services reach each other under the names and credentials
 * they are given.
 */
class ContainerFilesTest {
  /** Values for the secrets compose.yaml requires from {@code .env}. */
  private static final Map<String, String> DOT_ENV =
      Map.of(
          "POSTGRES_PASSWORD", "a-long-database-password",
          "KURIR_ADMIN_TOKEN", "a-long-admin-token-of-32-characters",
          "WAHA_API_KEY", "a-long-engine-key");

  private static final Pattern VARIABLE = Pattern.compile("\\$\\{(\\w+)(?::([?-])([^}]*))?}");

  @TempDir Path dir;

  /** The Dockerfile's instructions, continuation lines joined, comments left out. */
  private static List<String[]> allInstructions() throws Exception {
    List<String[]> instructions = new ArrayList<>();
    String joined = Files.readString(Path.of("Dockerfile")).replaceAll("\\\\\n", " ");
    for (String line : joined.lines().toList()) {
      if (!line.isBlank() && !line.strip().startsWith("#")) {
        instructions.add(line.strip().split("\\s+", 2));
      }
    }
    return instructions;
  }

  /** One stage of the Dockerfile: {@code FROM <image> [AS <name>]} and its instructions. */
  private record Stage(String image, String name, List<String[]> instructions) {}

  private static List<Stage> stages() throws Exception {
    List<Stage> stages = new ArrayList<>();
    for (String[] instruction : allInstructions()) {
      if (instruction[0].equals("FROM")) {
        String[] from = instruction[1].split("\\s+");
        stages.add(new Stage(from[0], from.length == 3 ? from[2] : "", new ArrayList<>()));
      } else {
        assertThat(stages).as("an instruction before the first FROM").isNotEmpty();
        stages.getLast().instructions().add(instruction);
      }
    }
    return stages;
  }

  /** The instructions of the image's stage, the last one. */
  private static List<String[]> dockerfile() throws Exception {
    return stages().getLast().instructions();
  }

  private static List<String> argument(List<String[]> instructions, String name) {
    return instructions.stream().filter(i -> i[0].equals(name)).map(i -> i[1]).toList();
  }

  private static List<String> execForm(String json) throws Exception {
    return List.of(new ObjectMapper().readValue(json, String[].class));
  }

  @Test
  void theImageCopiesTheReleaseJarAndRunsTheCommandTheDocsName() throws Exception {
    List<String[]> instructions = dockerfile();
    List<String> copy = List.of(argument(instructions, "COPY").getFirst().split("\\s+"));
    Stage build = stages().getFirst();
    assertThat(copy)
        .as("the image takes the release jar from the build stage")
        .startsWith("--from=" + build.name(), workdir(build) + "/" + releaseJar());
    copy = copy.subList(1, copy.size());
    assertThat(shadeMainClass()).isEqualTo(io.kurir.launcher.Launcher.class.getName());

    List<String> entrypoint = execForm(argument(instructions, "ENTRYPOINT").getFirst());
    List<String> command = execForm(argument(instructions, "CMD").getFirst());
    assertThat(entrypoint).containsSubsequence("-jar", copy.get(1));
    assertThat(entrypoint.getFirst()).isEqualTo("java");
    assertThat(command).containsExactly("serve");
    picocli.CommandLine tree =
        Kurir.commandLine(new Invocation(new ArrayList<>(), Map.of(), dir, System.out, System.err));
    assertThat(tree.parseArgs(command.toArray(String[]::new)).subcommand().commandSpec().name())
        .isEqualTo("serve");

    List<String> whole = new ArrayList<>(entrypoint);
    whole.addAll(command);
    String operations = Files.readString(Path.of("docs/operations.md"));
    String containers = operations.substring(operations.indexOf("## Containers"));
    assertThat(containers)
        .as("docs/operations.md, Containers, names the command the image runs")
        .contains("`" + String.join(" ", whole) + "`")
        .contains("docker build -t kurir .")
        .contains("not built here");
    for (String secret : DOT_ENV.keySet()) {
      assertThat(containers).as("the docs name the .env secret " + secret).contains(secret);
    }

    String port = argument(instructions, "EXPOSE").getFirst();
    assertThat(Integer.parseInt(port)).isEqualTo(settings(Map.of()).port());
  }

  @Test
  void theImageIsBuiltFromACleanCheckoutByTheReleaseBuild() throws Exception {
    List<Stage> stages = stages();
    assertThat(stages).as("a build stage and the image's").hasSize(2);
    Stage build = stages.getFirst();
    assertThat(build.name()).isNotEmpty();
    assertThat(javaFeature(build.image())).as(build.image()).isGreaterThanOrEqualTo(21);
    assertThat(build.image()).startsWith("maven:");
    assertThat(javaFeature(stages.getLast().image())).isGreaterThanOrEqualTo(21);
    assertThat(stages.getLast().image()).as("a runtime, not a JDK").endsWith("-jre");

    // The same Maven command as ./kurir release.
    List<String> release = releaseBuildOfTheScript();
    assertThat(release).contains("package", "-Prelease");
    List<List<String>> runs =
        argument(build.instructions(), "RUN").stream()
            .map(run -> List.of(run.split("\\s+")))
            .filter(run -> run.getFirst().equals("mvn") && run.contains("package"))
            .toList();
    assertThat(runs).as("one RUN builds the release jar").hasSize(1);
    assertThat(runs.getFirst()).containsAll(release);

    // What it copies into the build is in the checkout; what the build reads is copied.
    List<String> copied = new ArrayList<>();
    for (String copy : argument(build.instructions(), "COPY")) {
      List<String> words = List.of(copy.split("\\s+"));
      for (String source : words.subList(0, words.size() - 1)) {
        assertThat(Path.of(source)).as("COPY " + source + ": in the checkout").exists();
        assertThat(source).as("nothing built outside the image").doesNotStartWith("target");
        copied.add(source.replaceAll("/$", ""));
      }
    }
    List<String> read = new ArrayList<>(List.of("pom.xml", "src"));
    read.addAll(resourceDirectories());
    for (String path : read) {
      assertThat(copied)
          .as(path + " is copied into the build stage")
          .anyMatch(c -> path.equals(c) || path.startsWith(c + "/"));
    }
    assertThat(Files.readAllLines(Path.of(".dockerignore")))
        .as("a jar built outside cannot slip into the build context")
        .contains("target/");
  }

  @Test
  void everyServiceHasAHealthCheckAndKurirStartsOnceTheOthersAreHealthy() throws Exception {
    // The image's check: `kurir health` with the jar the image runs.
    String healthcheck = argument(dockerfile(), "HEALTHCHECK").getFirst();
    List<String> check = execForm(healthcheck.substring(healthcheck.indexOf("CMD ") + 4));
    String jar = execForm(argument(dockerfile(), "ENTRYPOINT").getFirst()).getLast();
    assertThat(check.getFirst()).isEqualTo("java");
    assertThat(check).containsSubsequence("-jar", jar);
    List<String> args = check.subList(check.indexOf(jar) + 1, check.size());
    picocli.CommandLine tree =
        Kurir.commandLine(new Invocation(new ArrayList<>(), Map.of(), dir, System.out, System.err));
    assertThat(tree.parseArgs(args.toArray(String[]::new)).subcommand().commandSpec().name())
        .isEqualTo("health");

    for (String name : List.of("kurir", "postgres", "waha")) {
      assertThat(service(name).healthcheck()).as(name + "'s healthcheck").isNotEmpty();
    }
    List<String> kurirCheck = new ArrayList<>(List.of("CMD"));
    kurirCheck.addAll(check);
    assertThat(service("kurir").healthcheck()).as("the image's").isEqualTo(kurirCheck);
    assertThat(service("kurir").dependsOn())
        .containsOnlyKeys("postgres", "waha")
        .allSatisfy(
            (name, condition) ->
                assertThat(condition).as(name).isEqualTo(Map.of("condition", "service_healthy")));
  }

  @Test
  void theEnginesHealthCheckAsksItsApiWithItsKey() throws Exception {
    Service waha = service("waha");
    List<String> check = waha.healthcheck();
    assertThat(check.subList(0, 3)).containsExactly("CMD", "node", "-e");
    String script = check.get(3);
    int enginePort =
        URI.create(service("kurir").environment().get("KURIR_DRIVERS_WAHA_URL")).getPort();
    String address = "http://127.0.0.1:" + enginePort;
    assertThat(script).as("the engine in its own container, on its own port").contains(address);
    String key = waha.environment().get("WAHA_API_KEY");

    // Run as written (on a stand-in engine on a free loopback port): healthy only when the
    // engine answers its ping to the key.
    com.sun.net.httpserver.HttpServer engine =
        com.sun.net.httpserver.HttpServer.create(
            new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), 0);
    engine.createContext(
        "/ping",
        exchange -> {
          boolean keyed = key.equals(exchange.getRequestHeaders().getFirst("X-Api-Key"));
          byte[] body =
              (keyed ? "{\"message\":\"pong\"}" : "{\"message\":\"Unauthorized\"}").getBytes();
          exchange.sendResponseHeaders(keyed ? 200 : 401, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    engine.start();
    String here = script.replace(address, "http://127.0.0.1:" + engine.getAddress().getPort());
    try {
      assertThat(node(here, key)).as("the engine answers").isZero();
      assertThat(node(here, "a-wrong-key")).as("the engine refuses the key").isEqualTo(1);
    } finally {
      engine.stop(0);
    }
    assertThat(node(here, key)).as("nothing answers").isEqualTo(1);
  }

  /**
   * docs/drivers/waha.md, "Kurir on the host, the engine in a container", read as a newcomer does:
   * Kurir reaches the engine where {@code docker run} publishes it, and the engine reaches Kurir by
   * a name its container has for the host (its own 127.0.0.1 is itself), where Kurir listens.
   */
  @Test
  void theWahaGuidesContainerNetworkingWorksAsWritten() throws Exception {
    String guide = Files.readString(Path.of("docs/drivers/waha.md"));
    String hostCase =
        guide.substring(
            guide.indexOf("### Kurir on the host, the engine in a container"),
            guide.indexOf("### Both in containers"));
    List<String> blocks = codeBlocks(hostCase);
    String run = blocks.stream().filter(b -> b.contains("docker run")).findFirst().orElseThrow();
    Matcher publish = Pattern.compile("-p (127\\.0\\.0\\.1):(\\d+):3000\\b").matcher(run);
    assertThat(publish.find()).as("the engine's port, published on the host's loopback").isTrue();
    Matcher hostName = Pattern.compile("--add-host=([\\w.-]+):host-gateway").matcher(run);
    assertThat(hostName.find()).as("the container's name for the host").isTrue();

    String yaml = blocks.stream().filter(b -> b.contains("callback-url")).findFirst().orElseThrow();
    Files.writeString(dir.resolve("kurir.yml"), yaml);
    Settings settings = settings(Map.of());
    URI engine = URI.create(settings.driver("waha").text("url"));
    assertThat(engine.getHost()).isEqualTo(publish.group(1));
    assertThat(engine.getPort()).isEqualTo(Integer.parseInt(publish.group(2)));
    URI callback = URI.create(settings.callbackUrlIfSet().orElseThrow());
    assertThat(callback.getHost())
        .as("the engine's container reaches the host by the name --add-host gives it")
        .isEqualTo(hostName.group(1));
    assertThat(callback.getPort()).as("where Kurir listens").isEqualTo(settings.port());
    assertThat(settings.host()).as("on every address, the bridge's included").isEqualTo("0.0.0.0");
    assertThat(settings.publicUrlIfSet())
        .hasValueSatisfying(u -> assertThat(u).startsWith("https"));

    String checks =
        blocks.stream().filter(b -> b.contains("docker exec")).findFirst().orElseThrow();
    assertThat(checks)
        .contains(engine + "/api/sessions")
        .contains("docker exec waha node -e")
        .contains(callback + "/health/live");
    assertThat(run).contains("--name waha");

    // Section 2's example is the same setup.
    String connect = guide.substring(guide.indexOf("## 2. Connect Kurir"));
    Files.writeString(dir.resolve("kurir.yml"), codeBlocks(connect).getFirst());
    assertThat(settings(Map.of()).callbackUrlIfSet()).isEqualTo(settings.callbackUrlIfSet());
    assertThat(settings(Map.of()).driver("waha").text("url")).isEqualTo(engine.toString());
  }

  /** The fenced code blocks of a Markdown text, without their fences. */
  private static List<String> codeBlocks(String markdown) {
    Matcher m = Pattern.compile("(?ms)^```\\w*\\n(.*?)^```").matcher(markdown);
    List<String> blocks = new ArrayList<>();
    while (m.find()) {
      blocks.add(m.group(1));
    }
    return blocks;
  }

  /** Runs a health check's script with Node.js as compose would, the engine's key in its env. */
  private int node(String script, String key) throws Exception {
    // Node.js from KURIR_NODE (./kurir test sets it) or the PATH, as the scripts' tests find it.
    String node = System.getenv().getOrDefault("KURIR_NODE", "node");
    ProcessBuilder b = new ProcessBuilder(node, "-e", script).redirectErrorStream(true);
    b.environment().put("WAHA_API_KEY", key);
    b.redirectOutput(dir.resolve("node.log").toFile());
    Process p = b.start();
    assertThat(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS)).as("node finished").isTrue();
    return p.exitValue();
  }

  @Test
  void everyVariableTheImageAndTheStackSetIsASettingTheyAccept() throws Exception {
    Map<String, String> env = new LinkedHashMap<>(imageEnvironment());
    env.putAll(service("kurir").environment());
    assertThat(env).containsKeys("KURIR_DATA_DIR", "KURIR_DATABASE_URL", "KURIR_DRIVERS_WAHA_URL");
    assertThat(env.keySet()).allMatch(name -> name.startsWith("KURIR_"));

    Settings settings = settings(env); // an unknown name or a bad value throws, naming it
    assertThat(settings.database().url()).startsWith("jdbc:postgresql://");
    assertThat(settings.adminToken()).isEqualTo(DOT_ENV.get("KURIR_ADMIN_TOKEN"));
    assertThat(settings.dataDir()).isEqualTo(Path.of("/var/lib/kurir/data"));
    assertThat(argument(dockerfile(), "VOLUME")).containsExactly("/var/lib/kurir");
  }

  @Test
  void theServicesReachEachOtherWithTheCredentialsTheyAreGiven() throws Exception {
    Service kurir = service("kurir");
    Service postgres = service("postgres");
    Service waha = service("waha");

    URI database = URI.create(kurir.environment().get("KURIR_DATABASE_URL").substring(5));
    assertThat(database.getHost()).isEqualTo("postgres");
    assertThat(database.getPort()).isEqualTo(5432);
    assertThat(database.getPath()).isEqualTo("/" + postgres.environment().get("POSTGRES_DB"));
    assertThat(kurir.environment().get("KURIR_DATABASE_USER"))
        .isEqualTo(postgres.environment().get("POSTGRES_USER"));
    assertThat(kurir.environment().get("KURIR_DATABASE_PASSWORD"))
        .isEqualTo(postgres.environment().get("POSTGRES_PASSWORD"));

    URI engine = URI.create(kurir.environment().get("KURIR_DRIVERS_WAHA_URL"));
    assertThat(engine.getHost()).isEqualTo("waha");
    assertThat(engine.getPort()).isEqualTo(3000);
    assertThat(kurir.environment().get("KURIR_DRIVERS_WAHA_API_KEY"))
        .isEqualTo(waha.environment().get("WAHA_API_KEY"));
    assertThat(waha.image())
        .as("the image docs/drivers/waha.md runs, pinned to a version")
        .matches("devlikeapro/waha:gows-(\\d{4})\\.(\\d+)\\.(\\d+)")
        .isIn(wahaImagesInTheDriverDocs());
    Matcher version = Pattern.compile("gows-(\\d{4})\\.(\\d+)\\.(\\d+)").matcher(waha.image());
    assertThat(version.find()).isTrue();
    assertThat(
            List.of(
                Integer.parseInt(version.group(1)),
                Integer.parseInt(version.group(2)),
                Integer.parseInt(version.group(3))))
        .as("WAHA 2026.6.1 or later, as the guide requires")
        .satisfies(
            v ->
                assertThat(v.get(0) * 1_000_000 + v.get(1) * 1_000 + v.get(2))
                    .isGreaterThanOrEqualTo(2026_006_001));
    assertThat(waha.environment().get("WHATSAPP_FILES_LIFETIME"))
        .as("received files outlive an outage of Kurir (the guide's day), not the engine's 180 s")
        .isNotNull();
    assertThat(Long.parseLong(waha.environment().get("WHATSAPP_FILES_LIFETIME")))
        .isGreaterThanOrEqualTo(86_400);
    URI callback = URI.create(kurir.environment().get("KURIR_PUBLIC_CALLBACK_URL"));
    assertThat(callback.getHost())
        .as("the engine calls Kurir back on the stack's network, by its service name")
        .isEqualTo("kurir");
    assertThat(callback.getPort()).isEqualTo(settings(kurir.environment()).port());
    assertThat(kurir.environment().get("KURIR_PUBLIC_URL"))
        .as("scripts get the public address, not the stack's")
        .doesNotContain("kurir:");
    assertThat(kurir.ports()).containsExactly("8080:8080");
    assertThat(postgres.ports()).as("the database is not published").isEmpty();
    assertThat(waha.ports()).as("the engine is not published").isEmpty();
  }

  private Settings settings(Map<String, String> env) {
    return SettingsLoader.load(Profile.SERVE, List.of(), env, dir);
  }

  private static Map<String, String> imageEnvironment() throws Exception {
    Map<String, String> env = new LinkedHashMap<>();
    for (String assignment : argument(dockerfile(), "ENV")) {
      for (String pair : assignment.split("\\s+")) {
        env.put(pair.substring(0, pair.indexOf('=')), pair.substring(pair.indexOf('=') + 1));
      }
    }
    return env;
  }

  private record Service(
      String image,
      Map<String, String> environment,
      List<String> ports,
      List<String> healthcheck,
      Map<String, Object> dependsOn) {}

  /** One service of compose.yaml, its variables interpolated as compose does from {@code .env}. */
  @SuppressWarnings("unchecked")
  private static Service service(String name) throws Exception {
    Map<String, Object> compose = new Yaml().load(Files.readString(Path.of("compose.yaml")));
    Map<String, Object> service =
        (Map<String, Object>) ((Map<String, Object>) compose.get("services")).get(name);
    assertThat(service).as("service " + name).isNotNull();
    Map<String, String> environment = new LinkedHashMap<>();
    ((Map<String, Object>) service.getOrDefault("environment", Map.of()))
        .forEach((key, value) -> environment.put(key, interpolate(String.valueOf(value))));
    Map<String, Object> health =
        (Map<String, Object>) service.getOrDefault("healthcheck", Map.of());
    return new Service(
        (String) service.get("image"),
        environment,
        (List<String>) service.getOrDefault("ports", List.of()),
        (List<String>) health.getOrDefault("test", List.of()),
        (Map<String, Object>) service.getOrDefault("depends_on", Map.of()));
  }

  private static String interpolate(String value) {
    Matcher m = VARIABLE.matcher(value);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String replacement;
      if ("-".equals(m.group(2))) {
        replacement = m.group(3);
      } else {
        assertThat(DOT_ENV)
            .as("compose.yaml requires ${%s}: the .env list in its header names it", m.group(1))
            .containsKey(m.group(1));
        replacement = DOT_ENV.get(m.group(1));
      }
      m.appendReplacement(out, Matcher.quoteReplacement(replacement));
    }
    m.appendTail(out);
    return out.toString();
  }

  /** The folder a stage's last {@code WORKDIR} names. */
  private static String workdir(Stage stage) {
    return argument(stage.instructions(), "WORKDIR").getLast();
  }

  /** The Java feature version an image's tag names: maven:3.9-eclipse-temurin-25 is 25. */
  private static int javaFeature(String image) {
    Matcher m = Pattern.compile("temurin-(\\d+)|temurin:(\\d+)").matcher(image);
    assertThat(m.find()).as(image + " names its Java").isTrue();
    return Integer.parseInt(m.group(1) != null ? m.group(1) : m.group(2));
  }

  /** The Maven arguments of {@code ./kurir release}, from the script. */
  private static List<String> releaseBuildOfTheScript() throws Exception {
    Matcher m =
        Pattern.compile("(?m)^\\s*release\\)\\s*\\n\\s*mvn_progress \\w+ (.+)$")
            .matcher(Files.readString(Path.of("kurir")));
    assertThat(m.find()).as("the kurir script's release command").isTrue();
    return List.of(m.group(1).strip().split("\\s+"));
  }

  /** The pom's resource folders, which the build reads besides src. */
  private static List<String> resourceDirectories() throws Exception {
    Document pom =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(Path.of("pom.xml").toFile());
    NodeList resources = pom.getElementsByTagName("resource");
    List<String> folders = new ArrayList<>();
    for (int i = 0; i < resources.getLength(); i++) {
      folders.add(
          ((Element) resources.item(i))
              .getElementsByTagName("directory")
              .item(0)
              .getTextContent()
              .strip());
    }
    return folders;
  }

  /** The file the release profile's shade plugin writes, relative to the project folder. */
  private static String releaseJar() throws Exception {
    return shadeConfiguration()
        .getElementsByTagName("outputFile")
        .item(0)
        .getTextContent()
        .strip()
        .replace("${project.build.directory}", "target");
  }

  private static String shadeMainClass() throws Exception {
    return shadeConfiguration().getElementsByTagName("mainClass").item(0).getTextContent().strip();
  }

  private static Element shadeConfiguration() throws Exception {
    Document pom =
        DocumentBuilderFactory.newInstance()
            .newDocumentBuilder()
            .parse(Path.of("pom.xml").toFile());
    NodeList plugins = pom.getElementsByTagName("plugin");
    for (int i = 0; i < plugins.getLength(); i++) {
      Element plugin = (Element) plugins.item(i);
      if (plugin
          .getElementsByTagName("artifactId")
          .item(0)
          .getTextContent()
          .equals("maven-shade-plugin")) {
        return (Element) plugin.getElementsByTagName("configuration").item(0);
      }
    }
    throw new AssertionError("pom.xml has no maven-shade-plugin (the release jar)");
  }

  private static List<String> wahaImagesInTheDriverDocs() throws Exception {
    Matcher m =
        Pattern.compile("devlikeapro/waha:[\\w.-]+")
            .matcher(Files.readString(Path.of("docs/drivers/waha.md")));
    List<String> images = new ArrayList<>();
    while (m.find()) {
      images.add(m.group());
    }
    return images;
  }
}
