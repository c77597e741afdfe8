package io.kurir.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.kurir.Gateway;
import io.kurir.config.Settings;
import io.kurir.config.SettingsLoader;
import io.kurir.config.SettingsLoader.Profile;
import io.kurir.tenant.Device;
import io.kurir.testing.TestGateway;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcePEMEncryptorBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code https://} served by Kurir itself, with certificates made here: PEM files (as certbot
 * writes them) or a keystore; a client that trusts the certificate makes real API calls; the
 * optional plain port redirects; files Kurir cannot use stop start-up naming their setting.
 */
class TlsTest {
  @TempDir Path dir;
  private TestGateway kurir;

  @AfterEach
  void stop() {
    if (kurir != null) {
      kurir.close();
    }
  }

  /** A self-signed certificate for 127.0.0.1 and localhost, and its key. */
  record Identity(X509Certificate certificate, PrivateKey key) {}

  static Identity identity(String algorithm) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance(algorithm);
    generator.initialize(algorithm.equals("EC") ? 256 : 2048);
    KeyPair pair = generator.generateKeyPair();
    X500Name name = new X500Name("CN=kurir-test");
    Instant now = Instant.now();
    var builder =
        new JcaX509v3CertificateBuilder(
            name,
            BigInteger.valueOf(now.toEpochMilli()),
            Date.from(now.minus(Duration.ofHours(1))),
            Date.from(now.plus(Duration.ofDays(2))),
            name,
            pair.getPublic());
    builder.addExtension(
        Extension.subjectAlternativeName,
        false,
        new GeneralNames(
            new GeneralName[] {
              new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
              new GeneralName(GeneralName.dNSName, "localhost")
            }));
    String signature = algorithm.equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
    X509Certificate certificate =
        new JcaX509CertificateConverter()
            .getCertificate(
                builder.build(new JcaContentSignerBuilder(signature).build(pair.getPrivate())));
    return new Identity(certificate, pair.getPrivate());
  }

  /** The certificate as PEM. */
  static Path writeCertificate(Path file, X509Certificate certificate) throws Exception {
    StringWriter pem = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(pem)) {
      writer.writeObject(certificate);
    }
    return Files.writeString(file, pem.toString());
  }

  /** The key in its traditional PEM form: PKCS#1 for RSA, SEC1 for EC (openssl's older output). */
  static Path writeTraditionalKey(Path file, PrivateKey key) throws Exception {
    StringWriter pem = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(pem)) {
      writer.writeObject(key);
    }
    return Files.writeString(file, pem.toString());
  }

  /** The key as PKCS#8 {@code BEGIN PRIVATE KEY}, as certbot and mkcert write it. */
  static Path writePkcs8Key(Path file, PrivateKey key) throws Exception {
    String base64 = Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(key.getEncoded());
    return Files.writeString(
        file, "-----BEGIN PRIVATE KEY-----\n" + base64 + "\n-----END PRIVATE KEY-----\n");
  }

  /** A client that trusts {@code certificate} only and follows no redirect. */
  static HttpClient trusting(X509Certificate certificate) throws Exception {
    return trusting(certificate, HttpClient.Redirect.NEVER);
  }

  static HttpClient trusting(X509Certificate certificate, HttpClient.Redirect redirects)
      throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("kurir", certificate);
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, factory.getTrustManagers(), null);
    return HttpClient.newBuilder()
        .sslContext(context)
        .followRedirects(redirects)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
  }

  private static HttpResponse<String> post(HttpClient client, String url, String json)
      throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(20))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json))
            .build(),
        HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
  }

  private static String sendBody(Device device) {
    return "{\"key\":\""
        + device.ecoKey()
        + "\",\"phone_no\":\"081234567890\",\"message\":\"over TLS\"}";
  }

  @Test
  void pemFilesServeHttpsToAClientThatTrustsTheCertificate() throws Exception {
    Identity rsa = identity("RSA");
    Path cert = writeCertificate(dir.resolve("fullchain.pem"), rsa.certificate());
    Path key = writeTraditionalKey(dir.resolve("privkey.pem"), rsa.key());
    kurir = TestGateway.start(dir, "--server.tls.cert=" + cert, "--server.tls.key=" + key);

    assertThat(kurir.gateway().baseUrl()).startsWith("https://127.0.0.1:");
    assertThat(kurir.gateway().listeningOn()).startsWith("https://127.0.0.1:");
    Device device = kurir.newDevice();
    HttpResponse<String> sent =
        post(trusting(rsa.certificate()), kurir.url("/api/send_message"), sendBody(device));
    assertThat(sent.statusCode()).isEqualTo(200);
    assertThat(sent.body()).as("a real sync send, answered over TLS").contains("success");

    // Plain HTTP is not served on the TLS port (no redirect port is configured): the answer to
    // a plain request is a TLS alert, not HTTP.
    try (Socket socket = new Socket("127.0.0.1", kurir.gateway().port())) {
      socket.setSoTimeout(5_000);
      socket
          .getOutputStream()
          .write("GET /api/info HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      byte[] first = socket.getInputStream().readNBytes(5);
      assertThat(new String(first, StandardCharsets.ISO_8859_1)).doesNotStartWith("HTTP");
    }
    // A client that does not trust it is refused in the handshake.
    assertThatThrownBy(
            () ->
                post(
                    trusting(identity("EC").certificate()),
                    kurir.url("/api/send_message"),
                    sendBody(device)))
        .isInstanceOf(SSLHandshakeException.class);
  }

  @Test
  void aKeystoreServesHttpsAndThePlainPortRedirectsWhereConfigured() throws Exception {
    Identity ec = identity("EC");
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry(
        "kurir", ec.key(), "store-secret".toCharArray(), new Certificate[] {ec.certificate()});
    Path keystore = dir.resolve("kurir.p12");
    try (var out = Files.newOutputStream(keystore)) {
      store.store(out, "store-secret".toCharArray());
    }
    int plainPort;
    try (ServerSocket free = new ServerSocket(0)) {
      plainPort = free.getLocalPort();
    }
    kurir =
        TestGateway.start(
            dir,
            "--server.tls.keystore=" + keystore,
            "--server.tls.keystore-password=store-secret",
            "--server.tls.redirect-port=" + plainPort);

    Device device = kurir.newDevice();
    HttpResponse<String> accepted =
        post(trusting(ec.certificate()), kurir.url("/api/async_send_message"), sendBody(device));
    assertThat(accepted.statusCode()).isEqualTo(200);
    assertThat(kurir.gateway().listeningOn())
        .endsWith("; port " + plainPort + " redirects plain http:// to it");

    HttpResponse<String> redirected =
        post(
            HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(),
            "http://127.0.0.1:" + plainPort + "/api/async_send_message?from=form",
            sendBody(device));
    assertThat(redirected.statusCode()).isEqualTo(308);
    assertThat(redirected.headers().firstValue("Location"))
        .hasValue(kurir.url("/api/async_send_message?from=form"));
    // Followed, the POST arrives over TLS, body and all.
    HttpResponse<String> followed =
        trusting(ec.certificate(), HttpClient.Redirect.ALWAYS)
            .send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + plainPort + "/api/async_send_message"))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(sendBody(device)))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(followed.statusCode()).isEqualTo(200);
    assertThat(followed.uri().getScheme()).isEqualTo("https");
  }

  @Test
  void filesKurirCannotUseStopStartUpNamingTheirSetting() throws Exception {
    Identity ec = identity("EC");
    Path cert = writeCertificate(dir.resolve("cert.pem"), ec.certificate());
    Path key = writePkcs8Key(dir.resolve("key.pem"), ec.key());
    Path otherKey = writePkcs8Key(dir.resolve("other.pem"), identity("EC").key());
    Path garbage = Files.writeString(dir.resolve("garbage.pem"), "not a key\n");
    StringWriter encryptedPem = new StringWriter();
    try (JcaPEMWriter writer = new JcaPEMWriter(encryptedPem)) {
      writer.writeObject(
          ec.key(),
          new JcePEMEncryptorBuilder("AES-128-CBC")
              .setProvider(new org.bouncycastle.jce.provider.BouncyCastleProvider())
              .build("secret".toCharArray()));
    }
    Path encrypted = Files.writeString(dir.resolve("encrypted.pem"), encryptedPem.toString());
    Path keystore = dir.resolve("store.p12");
    KeyStore store = KeyStore.getInstance("PKCS12");
    store.load(null, null);
    store.setKeyEntry("k", ec.key(), "right".toCharArray(), new Certificate[] {ec.certificate()});
    try (var out = Files.newOutputStream(keystore)) {
      store.store(out, "right".toCharArray());
    }

    assertRefused(
        "server.tls.cert: cannot read " + dir.resolve("missing.pem") + ": no such file",
        "--server.tls.cert=" + dir.resolve("missing.pem"),
        "--server.tls.key=" + key);
    assertRefused(
        "server.tls.cert: " + key + " is not a PEM certificate",
        "--server.tls.cert=" + key,
        "--server.tls.key=" + key);
    assertRefused(
        "server.tls.key: " + garbage + " holds no PEM private key",
        "--server.tls.cert=" + cert,
        "--server.tls.key=" + garbage);
    assertRefused(
        "server.tls.key: " + encrypted + " is encrypted",
        "--server.tls.cert=" + cert,
        "--server.tls.key=" + encrypted);
    assertRefused(
        "server.tls.key: is not the private key of the certificate in server.tls.cert",
        "--server.tls.cert=" + cert,
        "--server.tls.key=" + otherKey);
    assertRefused(
        "server.tls.keystore: cannot open " + keystore + ": wrong password",
        "--server.tls.keystore=" + keystore,
        "--server.tls.keystore-password=wrong");
    assertRefused(
        "server.tls.keystore: " + garbage + " is not a PKCS#12 or JKS keystore",
        "--server.tls.keystore=" + garbage);
    // And a good pair still starts: the refusals were about the files.
    kurir = TestGateway.start(dir, "--server.tls.cert=" + cert, "--server.tls.key=" + key);
    assertThat(kurir.gateway().baseUrl()).startsWith("https://");
  }

  private void assertRefused(String message, String... flags) {
    List<String> all =
        new ArrayList<>(
            List.of(
                "--server.host=127.0.0.1", "--server.port=0", "--data.dir=" + dir.resolve("data")));
    all.addAll(List.of(flags));
    Settings settings = SettingsLoader.load(Profile.SERVE, all, Map.of(), dir);
    assertThatThrownBy(() -> Gateway.start(settings, Clock.systemUTC()).close())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(message)
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    assertThat(dir.resolve("data")).as("nothing written to the data folder").doesNotExist();
  }
}
