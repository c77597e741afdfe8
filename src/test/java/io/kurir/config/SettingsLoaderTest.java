package io.kurir.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.config.SettingsLoader.Profile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SettingsLoaderTest {
  private static final String TOKEN = "0123456789abcdef-admin";

  @TempDir Path workDir;

  private Settings serve(String... args) {
    return SettingsLoader.load(Profile.SERVE, List.of(args), Map.of(), workDir);
  }

  private Settings serve(Map<String, String> env, String... args) {
    return SettingsLoader.load(Profile.SERVE, List.of(args), env, workDir);
  }

  private AbstractThrowableAssert<?, ? extends Throwable> assertServeFails(
      Map<String, String> env, String... args) {
    return assertThatThrownBy(() -> serve(env, args)).isInstanceOf(SettingsException.class);
  }

  private AbstractThrowableAssert<?, ? extends Throwable> assertServeFails(String... args) {
    return assertServeFails(Map.of(), args);
  }

  private void writeYaml(String name, String yaml) throws IOException {
    Path file = workDir.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, yaml);
  }

  // --- defaults ---

  @Test
  void defaultsOfServeProfile() {
    Settings s = serve();

    assertThat(s.host()).isEqualTo("0.0.0.0");
    assertThat(s.port()).isEqualTo(8080);
    assertThat(s.dataDir()).isEqualTo(workDir.resolve("data"));
    assertThat(s.databaseUrl()).isEqualTo("jdbc:sqlite:" + workDir.resolve("data/kurir.db"));
    assertThat(s.adminToken()).isEmpty();
    assertThat(s.adminTokenIfSet()).isEmpty();
    assertThat(s.zone()).isEqualTo(ZoneId.of("Asia/Jakarta"));
    assertThat(s.defaultRegion()).isEqualTo("ID");
    assertThat(s.nodeId()).isZero();
    assertThat(s.driver("sandbox").duration("pacing.min-gap")).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.driver("sandbox").duration("pacing.jitter")).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.syncTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.retryBackoff()).isEqualTo(Duration.ofSeconds(30));
    assertThat(s.maxRetries()).isEqualTo(3);
    assertThat(s.maxBodyBytes()).isEqualTo(16L * 1024 * 1024);
    assertThat(s.driver("sandbox").bool("api")).isFalse();
    assertThat(s.driver("sandbox").duration("delivery-after")).isEqualTo(Duration.ofSeconds(2));
    assertThat(s.driver("sandbox").duration("read-after")).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.driver("sandbox").bool("journal")).as("the network outlives the gateway").isTrue();
    assertThat(s.demo()).isFalse();
  }

  @Test
  void defaultsOfDemoProfile() {
    Settings s = SettingsLoader.load(Profile.DEMO, List.of(), Map.of(), workDir);

    assertThat(s.host()).isEqualTo("127.0.0.1");
    assertThat(s.port()).isEqualTo(8080);
    assertThat(s.dataDir()).isEqualTo(workDir.resolve("data/demo"));
    assertThat(s.databaseUrl()).isEqualTo("jdbc:sqlite:" + workDir.resolve("data/demo/kurir.db"));
    assertThat(s.adminToken()).isEqualTo("demo-admin-token");
    assertThat(s.adminTokenIfSet()).contains("demo-admin-token");
    assertThat(s.zone()).isEqualTo(ZoneId.of("Asia/Jakarta"));
    assertThat(s.defaultRegion()).isEqualTo("ID");
    // The demo's sandbox sends at once: nobody is banned on a simulated network.
    assertThat(s.driver("sandbox").duration("pacing.min-gap")).isZero();
    assertThat(s.driver("sandbox").duration("pacing.jitter")).isZero();
    assertThat(s.syncTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.retryBackoff()).isEqualTo(Duration.ofSeconds(5));
    assertThat(s.maxRetries()).isEqualTo(3);
    assertThat(s.driver("sandbox").bool("api")).isTrue();
    assertThat(s.demo()).isTrue();
  }

  @Test
  void demoProfileSettingsCanBeOverriddenToo() {
    Settings s =
        SettingsLoader.load(
            Profile.DEMO,
            List.of("--port=0", "--sandbox.api=false"),
            Map.of("KURIR_ADMIN_TOKEN", ""),
            workDir);

    assertThat(s.port()).isZero();
    assertThat(s.driver("sandbox").bool("api")).isFalse();
    assertThat(s.adminTokenIfSet()).isEmpty();
    assertThat(s.demo()).isTrue();
  }

  // --- precedence: flags > KURIR_* env > file > defaults ---

  @Test
  void theSafeSendingPolicyIsCarefulByDefaultAndReadFromTheFile() throws IOException {
    assertThat(serve().safeSending()).isEqualTo(io.kurir.campaign.SafeSending.DEFAULT);
    writeYaml(
        "kurir.yml",
        "campaigns:\n  safe-sending:\n    warm-up-start: 5\n    gap-min: 2s\n    gap-max: 4s\n");
    var p = serve().safeSending();
    assertThat(p.warmUpStart()).isEqualTo(5);
    assertThat(p.gapMin()).isEqualTo(java.time.Duration.ofSeconds(2));
    assertThat(p.gapMax()).isEqualTo(java.time.Duration.ofSeconds(4));
    assertThat(p.dailyCap()).isEqualTo(500);
  }

  @Test
  void aSafeSendingGapWhoseEndsAreCrossedOrAShareOverAHundredIsRefused() {
    assertServeFails(
            Map.of(),
            "--campaigns.safe-sending.gap-min=30s",
            "--campaigns.safe-sending.gap-max=10s")
        .hasMessageContaining("campaigns.safe-sending.gap-max");
    assertServeFails(Map.of(), "--campaigns.safe-sending.unanswered-max=120")
        .hasMessageContaining("campaigns.safe-sending.unanswered-max");
  }

  @Test
  void fileOverridesDefaults() throws IOException {
    writeYaml("kurir.yml", "server:\n  port: 7001\n");

    assertThat(serve().port()).isEqualTo(7001);
  }

  @Test
  void environmentOverridesFile() throws IOException {
    writeYaml("kurir.yml", "server:\n  port: 7001\n");

    assertThat(serve(Map.of("KURIR_SERVER_PORT", "7002")).port()).isEqualTo(7002);
  }

  @Test
  void flagsOverrideEnvironmentAndFile() throws IOException {
    writeYaml("kurir.yml", "server:\n  port: 7001\n");

    assertThat(serve(Map.of("KURIR_SERVER_PORT", "7002"), "--server.port=7003").port())
        .isEqualTo(7003);
  }

  @Test
  void eachSettingTakesItsValueFromTheHighestLayerThatSetsIt() throws IOException {
    writeYaml(
        "kurir.yml",
        """
        server:
          host: 10.0.0.1
          port: 7001
        time:
          zone: Europe/Berlin
        send:
          max-retries: 5
        """);
    Map<String, String> env = Map.of("KURIR_SERVER_PORT", "7002", "KURIR_TIME_ZONE", "Asia/Tokyo");

    Settings s = serve(env, "--time.zone", "UTC");

    assertThat(s.host()).isEqualTo("10.0.0.1"); // file
    assertThat(s.port()).isEqualTo(7002); // env
    assertThat(s.zone()).isEqualTo(ZoneId.of("UTC")); // flag
    assertThat(s.maxRetries()).isEqualTo(5); // file
    assertThat(s.driver("sandbox").duration("pacing.min-gap"))
        .isEqualTo(Duration.ofSeconds(1)); // default
  }

  @Test
  void fileAcceptsDottedKeysAsWellAsNesting() throws IOException {
    writeYaml("kurir.yml", "server.port: 7005\nphone.default-region: my\n");

    Settings s = serve();

    assertThat(s.port()).isEqualTo(7005);
    assertThat(s.defaultRegion()).isEqualTo("MY");
  }

  @Test
  void everyKeyHasAnEnvironmentVariable() {
    Map<String, String> env =
        Map.ofEntries(
            Map.entry("KURIR_SERVER_HOST", "127.0.0.2"),
            Map.entry("KURIR_SERVER_PORT", "9001"),
            Map.entry("KURIR_DATA_DIR", "var/kurir"),
            Map.entry("KURIR_ADMIN_TOKEN", TOKEN),
            Map.entry("KURIR_TIME_ZONE", "+07:00"),
            Map.entry("KURIR_PHONE_DEFAULT_REGION", "US"),
            Map.entry("KURIR_NODE_ID", "15"),
            Map.entry("KURIR_PACING_MIN_GAP", "500ms"),
            Map.entry("KURIR_PACING_JITTER", "0ms"),
            Map.entry("KURIR_SEND_SYNC_TIMEOUT", "14s"),
            Map.entry("KURIR_SEND_RETRY_BACKOFF", "5m"),
            Map.entry("KURIR_SEND_MAX_RETRIES", "0"),
            Map.entry("KURIR_HTTP_MAX_BODY", "512KB"),
            Map.entry("KURIR_SANDBOX_API", "yes"),
            Map.entry("KURIR_SANDBOX_DELIVERY_AFTER", "1h"),
            Map.entry("KURIR_SANDBOX_READ_AFTER", "2h"));

    Settings s = serve(env);

    assertThat(s.host()).isEqualTo("127.0.0.2");
    assertThat(s.port()).isEqualTo(9001);
    assertThat(s.dataDir()).isEqualTo(workDir.resolve("var/kurir"));
    assertThat(s.databaseUrl()).isEqualTo("jdbc:sqlite:" + workDir.resolve("var/kurir/kurir.db"));
    assertThat(s.adminTokenIfSet()).contains(TOKEN);
    assertThat(s.zone()).isEqualTo(ZoneOffset.ofHours(7));
    assertThat(s.defaultRegion()).isEqualTo("US");
    assertThat(s.nodeId()).isEqualTo(15);
    assertThat(s.driver("sandbox").duration("pacing.min-gap")).isEqualTo(Duration.ofMillis(500));
    assertThat(s.driver("sandbox").duration("pacing.jitter")).isZero();
    assertThat(s.syncTimeout()).isEqualTo(Duration.ofSeconds(14));
    assertThat(s.retryBackoff()).isEqualTo(Duration.ofMinutes(5));
    assertThat(s.maxRetries()).isZero();
    assertThat(s.maxBodyBytes()).isEqualTo(512L * 1024);
    assertThat(s.driver("sandbox").bool("api")).isTrue();
    assertThat(s.driver("sandbox").duration("delivery-after")).isEqualTo(Duration.ofHours(1));
    assertThat(s.driver("sandbox").duration("read-after")).isEqualTo(Duration.ofHours(2));
  }

  @Test
  void envNameFollowsTheKey() {
    assertThat(SettingsLoader.envName("server.port")).isEqualTo("KURIR_SERVER_PORT");
    assertThat(SettingsLoader.envName("phone.default-region"))
        .isEqualTo("KURIR_PHONE_DEFAULT_REGION");
  }

  @Test
  void otherEnvironmentVariablesAreIgnored() {
    Settings s = serve(Map.of("PATH", "/usr/bin", "HOME", "/root", "PORT", "1", "kurir_x", "y"));

    assertThat(s.port()).isEqualTo(8080);
  }

  @Test
  void configFlagNamesAnotherFileAndKurirYmlIsThenIgnored() throws IOException {
    writeYaml("kurir.yml", "server:\n  port: 7001\n");
    writeYaml("conf/prod.yml", "server:\n  port: 7100\n");

    assertThat(serve("--config", "conf/prod.yml").port()).isEqualTo(7100);
    assertThat(serve("--config=conf/prod.yml").port()).isEqualTo(7100);
  }

  @Test
  void configFlagAcceptsAnAbsolutePath(@TempDir Path elsewhere) throws IOException {
    Path file = elsewhere.resolve("other.yml");
    Files.writeString(file, "server:\n  port: 7200\n");

    assertThat(serve("--config=" + file).port()).isEqualTo(7200);
  }

  @Test
  void configEnvironmentVariableNamesTheFile() throws IOException {
    writeYaml("conf/env.yml", "server:\n  port: 7300\n");

    assertThat(serve(Map.of("KURIR_CONFIG", "conf/env.yml")).port()).isEqualTo(7300);
  }

  @Test
  void configFlagBeatsConfigEnvironmentVariable() throws IOException {
    writeYaml("a.yml", "server:\n  port: 7401\n");
    writeYaml("b.yml", "server:\n  port: 7402\n");

    assertThat(serve(Map.of("KURIR_CONFIG", "a.yml"), "--config", "b.yml").port()).isEqualTo(7402);
  }

  @Test
  void emptyFileMeansDefaults() throws IOException {
    writeYaml("kurir.yml", "# nothing set yet\n");

    assertThat(serve().port()).isEqualTo(8080);
  }

  @Test
  void emptyYamlValueMeansEmptyString() throws IOException {
    writeYaml("kurir.yml", "admin:\n  token:\n");

    assertThat(
            SettingsLoader.load(Profile.DEMO, List.of("--config=kurir.yml"), Map.of(), workDir)
                .adminTokenIfSet())
        .as("an explicitly named config file is read in demo mode too")
        .isEmpty();
  }

  // --- flag forms ---

  @Test
  void flagAsKeyEqualsValue() {
    assertThat(serve("--server.port=9000").port()).isEqualTo(9000);
  }

  @Test
  void flagAsKeySpaceValue() {
    assertThat(serve("--server.port", "9000").port()).isEqualTo(9000);
  }

  @Test
  void flagAliases() {
    Settings s = serve("--port", "9100", "--host=127.0.0.1", "--data", "store");

    assertThat(s.port()).isEqualTo(9100);
    assertThat(s.host()).isEqualTo("127.0.0.1");
    assertThat(s.dataDir()).isEqualTo(workDir.resolve("store"));
  }

  @Test
  void aliasAndFullNameAreTheSameSettingAndTheLastOneWins() {
    assertThat(serve("--server.port=9001", "--port=9002").port()).isEqualTo(9002);
    assertThat(serve("--port=9002", "--server.port=9001").port()).isEqualTo(9001);
  }

  @Test
  void valueMayContainEqualsSigns() {
    assertThat(serve("--admin.token=abc=def=ghi=jklmnop").adminToken())
        .isEqualTo("abc=def=ghi=jklmnop");
  }

  @Test
  void flagFormsMix() {
    Settings s = serve("--port=9200", "--time.zone", "Asia/Makassar", "--node.id=4");

    assertThat(s.port()).isEqualTo(9200);
    assertThat(s.zone()).isEqualTo(ZoneId.of("Asia/Makassar"));
    assertThat(s.nodeId()).isEqualTo(4);
  }

  @Test
  void flagWithoutValueIsRejected() {
    assertServeFails("--port").hasMessageContaining("--port");
    assertServeFails("--port", "--host=x").hasMessageContaining("--port");
  }

  @Test
  void argumentThatIsNotAFlagIsRejected() {
    assertServeFails("port=1").hasMessageContaining("port=1");
    assertServeFails("--").hasMessageContaining("--");
    assertServeFails("-p", "1").hasMessageContaining("-p");
  }

  // --- values ---

  @ParameterizedTest(name = "{0} = {1} ms")
  @CsvSource({"500ms, 500", "2s, 2000", "5m, 300000", "1h, 3600000", "0s, 0", "2 s, 2000"})
  void durationValues(String raw, long millis) {
    assertThat(serve("--pacing.jitter=" + raw).driver("sandbox").duration("pacing.jitter"))
        .isEqualTo(Duration.ofMillis(millis));
  }

  @ParameterizedTest(name = "{0} = {1} bytes")
  @CsvSource({
    "512KB, 524288",
    "16MB, 16777216",
    "1GB, 1073741824",
    "2048, 2048",
    "4096B, 4096",
    "512kb, 524288",
    "1KB, 1024",
  })
  void sizeValues(String raw, long bytes) {
    assertThat(serve("--http.max-body=" + raw).maxBodyBytes()).isEqualTo(bytes);
  }

  @ParameterizedTest
  @ValueSource(strings = {"true", "yes", "on", "1", "TRUE", "Yes"})
  void booleanTrueValues(String raw) {
    assertThat(
            serve("--sandbox.api=" + raw, "--admin.token=" + TOKEN).driver("sandbox").bool("api"))
        .isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"false", "no", "off", "0", "FALSE"})
  void booleanFalseValues(String raw) {
    assertThat(serve("--sandbox.api=" + raw).driver("sandbox").bool("api")).isFalse();
  }

  @Test
  void yamlBooleansAndNumbersAreRead() throws IOException {
    writeYaml(
        "kurir.yml",
        """
        sandbox:
          api: yes
        admin:
          token: %s
        send:
          max-retries: 7
        """
            .formatted(TOKEN));

    Settings s = serve();

    assertThat(s.driver("sandbox").bool("api")).isTrue();
    assertThat(s.maxRetries()).isEqualTo(7);
  }

  @Test
  void valuesAreTrimmed() {
    Settings s = serve("--port= 9300 ", "--time.zone= UTC ", "--phone.default-region= my ");

    assertThat(s.port()).isEqualTo(9300);
    assertThat(s.zone()).isEqualTo(ZoneId.of("UTC"));
    assertThat(s.defaultRegion()).isEqualTo("MY");
  }

  @Test
  void sqliteDatabaseUrlIsKept() {
    assertThat(serve("--database.url=jdbc:sqlite:/var/lib/kurir/k.db").databaseUrl())
        .isEqualTo("jdbc:sqlite:/var/lib/kurir/k.db");
  }

  @Test
  void portZeroPicksAFreePortLater() {
    assertThat(serve("--port=0").port()).isZero();
    assertThat(serve("--port=65535").port()).isEqualTo(65535);
  }

  @Test
  void sandboxApiInServeModeWithAdminToken() {
    Settings s = serve("--sandbox.api=true", "--admin.token=" + TOKEN);

    assertThat(s.driver("sandbox").bool("api")).isTrue();
    assertThat(s.adminTokenIfSet()).contains(TOKEN);
  }

  @Test
  void syncTimeoutBounds() {
    assertThat(serve("--send.sync-timeout=14s").syncTimeout()).isEqualTo(Duration.ofSeconds(14));
    assertThat(serve("--send.sync-timeout=100ms").syncTimeout()).isEqualTo(Duration.ofMillis(100));
  }

  // --- errors name the setting ---

  @Test
  void unknownKeyInTheFile() throws IOException {
    writeYaml("kurir.yml", "server:\n  prot: 9000\n");

    assertServeFails()
        .hasMessageContaining("server.prot")
        .hasMessageContaining("kurir.yml")
        .hasMessageContaining("(did you mean server.port?)")
        .hasMessageContaining("server.port"); // lists what is known
  }

  @Test
  void unknownKeyInANamedFileNamesThatFile() throws IOException {
    writeYaml("conf/prod.yml", "colour: blue\n");

    assertServeFails("--config=conf/prod.yml")
        .hasMessageContaining("colour")
        .hasMessageContaining("conf/prod.yml");
  }

  @Test
  void unknownEnvironmentVariable() {
    assertServeFails(Map.of("KURIR_SERVER_PROT", "9000"))
        .hasMessageContaining("KURIR_SERVER_PROT")
        .hasMessageContaining("(did you mean KURIR_SERVER_PORT?)");
  }

  @Test
  void unknownFlag() {
    assertServeFails("--server.prot=9000")
        .hasMessageContaining("server.prot")
        .hasMessageContaining("--server.prot");
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "65536", "70000", "abc", "80.5", "", "99999999999"})
  void badPort(String raw) {
    assertServeFails("--port=" + raw).hasMessageStartingWith("server.port:");
  }

  @Test
  void badPortFromTheEnvironmentNamesTheSetting() {
    assertServeFails(Map.of("KURIR_SERVER_PORT", "http")).hasMessageContaining("server.port");
  }

  @ParameterizedTest
  @ValueSource(strings = {"Asia/Jkt", "Mars/Olympus", "", "+25:00", "GMT+99"})
  void badZone(String raw) {
    assertServeFails("--time.zone=" + raw).hasMessageStartingWith("time.zone:");
  }

  @ParameterizedTest
  @ValueSource(strings = {"10", "2 weeks", "1.5s", "-1s", "s", "2S", "1w", "PT2S", ""})
  void badDuration(String raw) {
    // Given by its old name, named by its name now.
    assertServeFails("--pacing.min-gap=" + raw)
        .hasMessageStartingWith("drivers.sandbox.pacing.min-gap:");
  }

  @Test
  void badDurationInTheFileNamesTheSetting() throws IOException {
    writeYaml("kurir.yml", "sandbox:\n  read-after: soon\n");

    assertServeFails().hasMessageContaining("sandbox.read-after").hasMessageContaining("soon");
  }

  @ParameterizedTest
  @ValueSource(strings = {"15s", "20s", "1m", "1h", "15000ms", "99ms", "0s"})
  void syncTimeoutOutsideItsRange(String raw) {
    assertServeFails("--send.sync-timeout=" + raw).hasMessageContaining("send.sync-timeout");
  }

  @Test
  void syncTimeoutJustAboveFourteenSeconds() {
    assertServeFails("--send.sync-timeout=14001ms").hasMessageContaining("send.sync-timeout");
    assertServeFails("--send.sync-timeout=14999ms").hasMessageContaining("send.sync-timeout");
  }

  @Test
  void hugeNumbersAreReportedAsSettingProblems() {
    assertServeFails("--send.retry-backoff=99999999999999999999s")
        .hasMessageContaining("send.retry-backoff");
    assertServeFails("--pacing.min-gap=9999999999999999h").hasMessageContaining("pacing.min-gap");
    assertServeFails("--http.max-body=99999999999999999999").hasMessageContaining("http.max-body");
  }

  @Test
  void postgresqlDatabaseWithItsUserAndPassword() {
    Settings s =
        serve(
            Map.of("KURIR_DATABASE_PASSWORD", "s3cret"),
            "--database.url=jdbc:postgresql://db.example:5432/kurir",
            "--database.user=kurir");
    assertThat(s.database().url()).isEqualTo("jdbc:postgresql://db.example:5432/kurir");
    assertThat(s.database().user()).isEqualTo("kurir");
    assertThat(s.database().password()).isEqualTo("s3cret");
    assertThat(s.database().toString()).doesNotContain("s3cret");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "jdbc:postgresql:kurir",
        "jdbc:mysql://localhost/kurir",
        "sqlite:kurir.db",
        "kurir.db"
      })
  void databaseOtherThanSqliteOrPostgresql(String url) {
    assertServeFails("--database.url=" + url)
        .hasMessageContaining("database.url")
        .hasMessageContaining(url);
  }

  @Test
  void sandboxApiWithoutAdminTokenOutsideDemo() {
    assertServeFails("--sandbox.api=true")
        .hasMessageContaining("sandbox.api")
        .hasMessageContaining("admin.token");
  }

  @Test
  void sandboxApiWithoutAdminTokenIsFineInDemo() {
    Settings s = SettingsLoader.load(Profile.DEMO, List.of("--admin.token="), Map.of(), workDir);

    assertThat(s.driver("sandbox").bool("api")).isTrue();
    assertThat(s.adminTokenIfSet()).isEmpty();
  }

  @Test
  void shortAdminToken() {
    assertServeFails("--admin.token=secret").hasMessageContaining("admin.token");
  }

  @ParameterizedTest
  @ValueSource(strings = {"IDN", "I", "1D", "", "id-ID"})
  void badRegion(String raw) {
    assertServeFails("--phone.default-region=" + raw)
        .hasMessageStartingWith("phone.default-region:");
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "16", "x"})
  void badNodeId(String raw) {
    assertServeFails("--node.id=" + raw).hasMessageStartingWith("node.id:");
  }

  @ParameterizedTest
  @ValueSource(strings = {"-1", "21", "many"})
  void badMaxRetries(String raw) {
    assertServeFails("--send.max-retries=" + raw).hasMessageStartingWith("send.max-retries:");
  }

  @ParameterizedTest
  @ValueSource(strings = {"16TB", "big", "1.5MB", "512", "1023B", "-1KB"})
  void badSize(String raw) {
    assertServeFails("--http.max-body=" + raw).hasMessageStartingWith("http.max-body:");
  }

  @Test
  void badBoolean() {
    assertServeFails("--sandbox.api=maybe").hasMessageStartingWith("drivers.sandbox.api:");
  }

  @Test
  void emptyHost() {
    assertServeFails("--host=").hasMessageStartingWith("server.host:");
  }

  @Test
  void theShippedExampleFileLoadsAsItIs() throws IOException {
    // kurir.example.yml is what operators copy: every key in it is a setting, none twice.
    Files.copy(Path.of("kurir.example.yml"), workDir.resolve("kurir.yml"));

    Settings s = serve("--admin.token=" + TOKEN);

    assertThat(s.driver("sandbox").bool("journal")).isTrue();
    assertThat(s.driver("sandbox").duration("pacing.min-gap")).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.pushAppIds()).as("a YAML list").isEqualTo(serve().pushAppIds());
  }

  @Test
  void aKeyWrittenTwiceInTheFileIsRefused() throws IOException {
    writeYaml(
        "kurir.yml",
        "drivers:\n  sandbox:\n    api: false\ndrivers:\n  sandbox:\n    journal: true\n");

    assertServeFails().hasMessageContaining("kurir.yml").hasMessageContaining("drivers");
  }

  @Test
  void severalProblemsAreReportedTogether() throws IOException {
    writeYaml("kurir.yml", "pacing:\n  jitter: lots\n");

    assertServeFails(
            Map.of("KURIR_TIME_ZONE", "Nowhere/City"),
            "--port=99999",
            "--database.url=jdbc:mysql://db/kurir",
            "--sandbox.api=on")
        .satisfies(
            e ->
                assertThat(e.getMessage().lines())
                    .anyMatch(l -> l.startsWith("server.port:"))
                    .anyMatch(l -> l.startsWith("time.zone:"))
                    .anyMatch(l -> l.startsWith("drivers.sandbox.pacing.jitter:"))
                    .anyMatch(l -> l.startsWith("database.url:"))
                    .anyMatch(l -> l.startsWith("drivers.sandbox.api:"))
                    .hasSize(5));
  }

  @Test
  void missingConfigFile() {
    assertServeFails("--config=missing.yml")
        .hasMessageStartingWith("config:")
        .hasMessageContaining("missing.yml");
  }

  @Test
  void missingConfigFileFromTheEnvironment() {
    assertServeFails(Map.of("KURIR_CONFIG", "gone.yml"))
        .hasMessageStartingWith("config:")
        .hasMessageContaining("gone.yml");
  }

  @Test
  void configPointingAtAFolder() throws IOException {
    Files.createDirectories(workDir.resolve("conf"));

    assertServeFails("--config=conf").hasMessageStartingWith("config:");
  }

  @Test
  void fileThatIsNotAMap() throws IOException {
    writeYaml("kurir.yml", "- server.port\n- 9000\n");

    assertServeFails().hasMessageStartingWith("config:").hasMessageContaining("map");
  }

  @Test
  void fileThatIsNotYaml() throws IOException {
    writeYaml("kurir.yml", "server:\n  port: [9000\n");

    assertServeFails().hasMessageStartingWith("config:");
  }

  // --- push.app-ids (issue 25, item 4)

  @Test
  void pushAppIdsDefaultToKurirsOwnAndThePublicClientsId() {
    assertThat(serve().pushAppIds())
        .containsExactly(
            "6b757269-7200-4000-8000-707573680001", "429d3472-da0f-4b2b-a63e-4644050caf8f");
    assertThat(serve().pushAppId()).isEqualTo("6b757269-7200-4000-8000-707573680001");
  }

  @Test
  void pushAppIdsAreAListInEveryLayer() throws IOException {
    assertThat(serve("--push.app-ids=a, b,,a").pushAppIds()).containsExactly("a", "b");
    assertThat(serve(Map.of("KURIR_PUSH_APP_IDS", "c,d")).pushAppIds()).containsExactly("c", "d");
    writeYaml("kurir.yml", "push:\n  app-ids:\n    - e\n    - f\n");
    assertThat(serve().pushAppIds()).containsExactly("e", "f");
    writeYaml("kurir.yml", "push:\n  app-ids: [g, h]\n");
    assertThat(serve().pushAppIds()).containsExactly("g", "h");
  }

  @Test
  void theOldSinglePushAppIdIsAnAliasThatSetsTheList() throws IOException {
    assertThat(serve("--push.app-id=mine").pushAppIds()).containsExactly("mine");
    assertThat(serve(Map.of("KURIR_PUSH_APP_ID", "mine")).pushAppIds()).containsExactly("mine");
    assertThat(serve(Map.of("KURIR_PUSH_APP_ID", "old", "KURIR_PUSH_APP_IDS", "new")).pushAppIds())
        .as("the name wins over the old name")
        .containsExactly("new");
    writeYaml("kurir.yml", "push:\n  app-id: mine\n");
    assertThat(serve().pushAppIds()).containsExactly("mine");
  }

  @Test
  void noPushAppIdAtAllIsRefused() {
    assertServeFails("--push.app-ids= , ").hasMessageContaining("push.app-ids");
  }
}
