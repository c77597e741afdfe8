package io.kurir.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * The key that encrypts stored secrets, from where the operator keeps it: given as a value ({@code
 * secrets.key}, usually {@code KURIR_SECRETS_KEY}) or in a file ({@code secrets.key-file}). Checked
 * against the database when it is opened: a database whose secrets were sealed with another key, or
 * one that holds sealed secrets while no key is given, is refused with a message that says what to
 * do. A key file is created only while the database holds no sealed secret (a new install, or the
 * first start after an upgrade from plaintext), and the log says where.
 */
public final class SecretKeys {
  private SecretKeys() {}

  /** Where the key comes from, as the settings say. */
  public record Source(Path keyFile, String key) {
    String describe() {
      return key.isEmpty() ? "secrets.key-file " + keyFile : "secrets.key (KURIR_SECRETS_KEY)";
    }
  }

  /**
   * The box for {@code db}: its key read (or, when the database holds no sealed secret yet and no
   * key is given, made and written to the key file), checked against the database, and every
   * plaintext credential and secret protected with it. Failures are {@link IllegalStateException}s
   * with one message for the operator.
   */
  public static SecretBox open(Database db, Source source, Consumer<String> log) {
    // Not halfway through a rotation of the key by `./kurir admin secrets rotate-key`.
    InstanceLock.awaitSecretsKey(db);
    TreeSet<String> inUse = StoredSecrets.keyIdsInUse(db);
    Optional<byte[]> key = read(source);
    if (key.isEmpty()) {
      if (!inUse.isEmpty()) {
        throw new IllegalStateException(
            "the database's secrets are encrypted with key "
                + String.join(", ", inUse)
                + ", but there is no key: "
                + source.keyFile()
                + " does not exist and secrets.key (KURIR_SECRETS_KEY) is not set. Give the key"
                + " file the database was written with (secrets.key-file), or its value as"
                + " KURIR_SECRETS_KEY; see docs/operations.md, \"The secrets key\"");
      }
      key = Optional.of(create(source.keyFile(), "secrets.key-file"));
      log.accept(
          "created the secrets key "
              + source.keyFile()
              + " (it encrypts the secrets in the database): keep a copy outside the data"
              + " folder, and in production give it with secrets.key-file or KURIR_SECRETS_KEY"
              + " from somewhere a copy of the data folder does not reach");
    }
    SecretBox box = SecretBox.of(key.get());
    TreeSet<String> others = new TreeSet<>(inUse);
    others.remove(box.keyId());
    if (!others.isEmpty()) {
      throw new IllegalStateException(
          "wrong secrets key: the database's secrets are encrypted with key "
              + String.join(", ", others)
              + ", but "
              + source.describe()
              + " holds key "
              + box.keyId()
              + ". Give the key the database was written with; see docs/operations.md, \"The"
              + " secrets key\"");
    }
    String tied = StoredSecrets.tieTo(db, box.keyId(), System.currentTimeMillis());
    if (!tied.equals(box.keyId())) {
      throw new IllegalStateException(
          "wrong secrets key: another gateway on this database chose key "
              + tied
              + " a moment ago, and "
              + source.describe()
              + " holds key "
              + box.keyId()
              + ". Give every node the same key (secrets.key-file or KURIR_SECRETS_KEY); see"
              + " docs/operations.md, \"The secrets key\"");
    }
    int changed = StoredSecrets.protectPlaintext(db, box);
    if (changed > 0) {
      log.accept(
          "stored credentials hashed and secrets encrypted with key "
              + box.keyId()
              + ": "
              + changed
              + " values written by an older version");
    }
    return box;
  }

  /** The key {@code source} names, if it is there. */
  public static Optional<byte[]> read(Source source) {
    if (!source.key().isEmpty()) {
      return Optional.of(decode(source.key(), "secrets.key (KURIR_SECRETS_KEY)"));
    }
    return readFile(source.keyFile(), "secrets.key-file");
  }

  /**
   * The key in {@code file}, if it exists; a file that holds no key is refused naming {@code
   * option}, the setting or flag the operator gave it with.
   */
  public static Optional<byte[]> readFile(Path file, String option) {
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    String where = option + " " + file;
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (IOException e) {
      throw new IllegalStateException(where + ": cannot be read: " + e.getMessage());
    }
    // Decoded by hand: a binary file (a key written raw, a picture) is "not a key", not a charset
    // error such as "Input length = 1".
    for (byte b : bytes) {
      if (b < 0) {
        throw notAKey(where);
      }
    }
    return Optional.of(decode(new String(bytes, StandardCharsets.US_ASCII), where));
  }

  /** Reads the key in {@code file}, making a new one there first when it does not exist. */
  public static byte[] readOrCreate(Path file) {
    return readOrCreate(file, "secrets.key-file");
  }

  /** {@link #readOrCreate(Path)}, naming {@code option} in what it refuses. */
  public static byte[] readOrCreate(Path file, String option) {
    return readFile(file, option).orElseGet(() -> create(file, option));
  }

  private static byte[] decode(String text, String where) {
    try {
      byte[] key = Base64.getDecoder().decode(text.strip());
      if (key.length == 32) {
        return key;
      }
    } catch (IllegalArgumentException e) {
      // told below
    }
    throw notAKey(where);
  }

  private static IllegalStateException notAKey(String where) {
    return new IllegalStateException(
        where + ": not a secrets key (base64 of 32 bytes, as `openssl rand -base64 32` writes)");
  }

  /** A new key in a new file readable by its owner only. */
  private static byte[] create(Path file, String option) {
    byte[] key = SecretBox.newKey();
    try {
      Path parent = file.toAbsolutePath().getParent();
      if (parent != null) {
        Files.createDirectories(parent);
      }
      try {
        Files.createFile(
            file,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (UnsupportedOperationException e) { // not a POSIX file system
        Files.createFile(file);
      }
      Files.writeString(
          file, Base64.getEncoder().encodeToString(key) + "\n", StandardCharsets.US_ASCII);
      return key;
    } catch (FileAlreadyExistsException e) {
      // Another process made it at the same moment: use theirs.
      return readFile(file, option).orElseThrow();
    } catch (IOException e) {
      throw new IllegalStateException(DataFolder.keyFileProblem(e, file, option));
    }
  }
}
