package io.kurir.api;

import io.kurir.config.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.openssl.PEMEncryptedKeyPair;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;
import org.bouncycastle.pkcs.PKCS8EncryptedPrivateKeyInfo;
import org.eclipse.jetty.util.ssl.SslContextFactory;

/**
 * The certificate and private key the gateway serves {@code https://} with, read once at start-up
 * from PEM files ({@code server.tls.cert} with its chain, {@code server.tls.key} in PKCS#8, PKCS#1
 * or EC form, as certbot, mkcert and openssl write them) or from a PKCS#12 or JKS keystore. A file
 * it cannot use stops start-up with one line naming its setting, not at the first client's
 * handshake.
 */
final class ServerCertificate {
  private ServerCertificate() {}

  /** Jetty's TLS set-up for {@code tls}, which must be on. */
  static SslContextFactory.Server load(Settings.Tls tls) {
    SslContextFactory.Server factory = new SslContextFactory.Server();
    if (tls.keystore().isPresent()) {
      factory.setKeyStore(keystore(tls.keystore().get(), tls.keystorePassword()));
      factory.setKeyStorePassword(tls.keystorePassword());
    } else {
      List<X509Certificate> chain = certificates(tls.cert().orElseThrow());
      PrivateKey key = privateKey(tls.key().orElseThrow());
      requireMatch(key, chain.get(0));
      // Jetty takes a keystore: one in memory, under a password nobody needs to know.
      byte[] random = new byte[16];
      new SecureRandom().nextBytes(random);
      String password = HexFormat.of().formatHex(random);
      try {
        KeyStore store = KeyStore.getInstance("PKCS12");
        store.load(null, null);
        store.setKeyEntry("kurir", key, password.toCharArray(), chain.toArray(new Certificate[0]));
        factory.setKeyStore(store);
        factory.setKeyStorePassword(password);
      } catch (GeneralSecurityException | IOException e) {
        throw failure("server.tls.key", "cannot be used with its certificate: " + e.getMessage());
      }
    }
    return factory;
  }

  private static List<X509Certificate> certificates(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      List<X509Certificate> chain =
          CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
              .map(X509Certificate.class::cast)
              .toList();
      if (chain.isEmpty()) {
        throw failure("server.tls.cert", file + " holds no certificate");
      }
      return chain;
    } catch (IOException e) {
      throw failure("server.tls.cert", "cannot read " + file + ": " + reason(e));
    } catch (GeneralSecurityException e) {
      throw failure("server.tls.cert", file + " is not a PEM certificate: " + e.getMessage());
    }
  }

  private static PrivateKey privateKey(Path file) {
    Object pem;
    try (Reader reader = Files.newBufferedReader(file, StandardCharsets.US_ASCII);
        PEMParser parser = new PEMParser(reader)) {
      pem = parser.readObject();
      while (pem instanceof org.bouncycastle.asn1.ASN1ObjectIdentifier
          || pem instanceof org.bouncycastle.cert.X509CertificateHolder) {
        pem = parser.readObject(); // EC parameters before the key, or a certificate and its key
      }
    } catch (IOException e) {
      throw failure(
          "server.tls.key", "cannot read " + file + " as a PEM private key: " + reason(e));
    }
    JcaPEMKeyConverter converter = new JcaPEMKeyConverter();
    try {
      if (pem instanceof PEMKeyPair pair) { // PKCS#1 (RSA) or SEC1 (EC)
        return converter.getKeyPair(pair).getPrivate();
      } else if (pem instanceof PrivateKeyInfo info) { // PKCS#8
        return converter.getPrivateKey(info);
      } else if (pem instanceof PEMEncryptedKeyPair
          || pem instanceof PKCS8EncryptedPrivateKeyInfo) {
        throw failure(
            "server.tls.key",
            file
                + " is encrypted; give Kurir an unencrypted key (openssl pkey -in <key> -out"
                + " <plain key>) readable only by its user, or use server.tls.keystore");
      }
    } catch (org.bouncycastle.openssl.PEMException e) {
      throw failure("server.tls.key", file + " holds a key Kurir cannot read: " + e.getMessage());
    }
    throw failure("server.tls.key", file + " holds no PEM private key");
  }

  /** A key that is not the certificate's would fail every handshake: refuse it now instead. */
  private static void requireMatch(PrivateKey key, X509Certificate certificate) {
    PublicKey publicKey = certificate.getPublicKey();
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          case "Ed25519", "EdDSA" -> "Ed25519";
          default -> null;
        };
    if (algorithm == null) {
      return; // an unusual key type: the handshake is the judge
    }
    try {
      byte[] probe = "kurir".getBytes(StandardCharsets.US_ASCII);
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(key);
      signer.update(probe);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(publicKey);
      verifier.update(probe);
      if (verifier.verify(signature)) {
        return;
      }
    } catch (GeneralSecurityException e) {
      // a key of another type than the certificate's: not its key
    }
    throw failure("server.tls.key", "is not the private key of the certificate in server.tls.cert");
  }

  private static KeyStore keystore(Path file, String password) {
    KeyStore store;
    try {
      store = KeyStore.getInstance(file.toFile(), password.toCharArray()); // PKCS#12 or JKS
    } catch (IOException e) {
      throw failure(
          "server.tls.keystore",
          "cannot open "
              + file
              + ": "
              + (e.getCause() instanceof java.security.UnrecoverableKeyException
                  ? "wrong password (server.tls.keystore-password)"
                  : reason(e)));
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      throw failure(
          "server.tls.keystore", file + " is not a PKCS#12 or JKS keystore: " + e.getMessage());
    }
    try {
      for (String alias : Collections.list(store.aliases())) {
        if (store.isKeyEntry(alias)) {
          return store;
        }
      }
    } catch (GeneralSecurityException e) {
      throw failure("server.tls.keystore", "cannot read " + file + ": " + e.getMessage());
    }
    throw failure("server.tls.keystore", file + " holds no private key with its certificate");
  }

  private static String reason(IOException e) {
    return e instanceof java.nio.file.NoSuchFileException
        ? "no such file"
        : e instanceof java.nio.file.AccessDeniedException
            ? "permission denied"
            : String.valueOf(e.getMessage());
  }

  /** A start-up failure: one line, naming the setting (see {@code Kurir.describe}). */
  private static IllegalStateException failure(String setting, String problem) {
    return new IllegalStateException(setting + ": " + problem);
  }
}
