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
  private static List<String[]> dockerfile() throws Exception {
    List<String[]> instructions = new ArrayList<>();
    String joined = Files.readString(Path.of("Dockerfile")).replaceAll("\\\\\n", " ");
    for (String line : joined.lines().toList()) {
      if (!line.isBlank() && !line.strip().startsWith("#")) {
        instructions.add(line.strip().split("\\s+", 2));
      }
    }
    return instructions;
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
    assertThat(copy.getFirst()).isEqualTo(releaseJar());
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
        .contains("mvn -Prelease package -DskipTests")
        .contains("not built here");
    for (String secret : DOT_ENV.keySet()) {
      assertThat(containers).as("the docs name the .env secret " + secret).contains(secret);
    }

    String port = argument(instructions, "EXPOSE").getFirst();
    assertThat(Integer.parseInt(port)).isEqualTo(settings(Map.of()).port());
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
        .as("the image docs/drivers/waha.md runs")
        .isEqualTo("devlikeapro/waha:gows")
        .isIn(wahaImagesInTheDriverDocs());
    assertThat(URI.create(kurir.environment().get("KURIR_PUBLIC_URL")).getHost())
        .as("the engine calls Kurir back on the stack's network")
        .isEqualTo("kurir");
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

  private record Service(String image, Map<String, String> environment, List<String> ports) {}

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
    return new Service(
        (String) service.get("image"),
        environment,
        (List<String>) service.getOrDefault("ports", List.of()));
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
