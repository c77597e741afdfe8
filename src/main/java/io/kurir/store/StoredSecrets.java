package io.kurir.store;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.Handle;

/**
 * Every column of the database that holds a credential or a secret, and the one-time work on them:
 * hashing and encrypting what an older version wrote in plaintext (at every start, idempotent: a
 * value already in its new form is left alone), and re-encrypting every secret under a new key. See
 * {@link SecretBox} for the forms and docs/decisions.md, "Secrets at rest", for which is which.
 */
public final class StoredSecrets {
  /** A column whose rows are found by {@code keys}. */
  private record Column(String table, List<String> keys, String column, String where) {}

  /** Credentials that are only compared: stored as their hash, looked up by it. */
  private static final List<Column> HASHED =
      List.of(
          new Column("partner", List.of("id"), "basic_secret", ""),
          new Column("license", List.of("id"), "code", ""),
          new Column("license", List.of("id"), "push_key", ""),
          new Column("device", List.of("id"), "device_key", ""),
          new Column("device", List.of("id"), "crm_device_id", ""));

  /** Secrets Kurir uses again: stored encrypted. */
  private static final List<Column> SEALED =
      List.of(
          new Column("license", List.of("id"), "webhook_secret", ""),
          new Column("license", List.of("id"), "previous_webhook_secret", ""),
          new Column("webhook_subscription", List.of("id"), "secret", ""),
          new Column("device", List.of("id"), "eco_key_sealed", ""),
          // Every value of a driver's configuration: which keys are secret is the driver's to say,
          // and a driver this gateway does not load cannot be asked; the rest costs nothing.
          new Column("device_config", List.of("device_id", "key"), "value", ""),
          // Session state is the driver's own; the WAHA driver keeps the key that signs its
          // webhooks there (DeviceSessionStore#putSecret names the keys that are secret).
          new Column(
              "driver_state",
              List.of("device_id", "driver", "key"),
              "value",
              " AND key IN ('" + String.join("', '", SessionSecrets.KEYS) + "')"));

  /** The names of session-state keys that hold secrets, kept sealed. */
  public static final class SessionSecrets {
    /** WAHA's webhook signing key. Keep in sync with WahaSessions.KEY_HMAC. */
    public static final List<String> KEYS = List.of("hmac-key");

    private SessionSecrets() {}
  }

  private StoredSecrets() {}

  /**
   * The ids of the keys the database's encrypted values were sealed with, and of the key it was
   * tied to ({@link #tieTo}); empty when none.
   */
  public static TreeSet<String> keyIdsInUse(Database db) {
    return db.jdbi()
        .withHandle(
            h -> {
              TreeSet<String> ids = new TreeSet<>();
              ids.addAll(
                  h.createQuery("SELECT key_id FROM secrets_key").mapTo(String.class).list());
              for (Column c : SEALED) {
                ids.addAll(
                    h.createQuery(
                            "SELECT DISTINCT substr("
                                + c.column()
                                + ", 5, 8) FROM "
                                + c.table()
                                + " WHERE "
                                + c.column()
                                + " LIKE 'enc:%'")
                        .mapTo(String.class)
                        .list());
              }
              return ids;
            });
  }

  /**
   * Ties the database to the key {@code keyId} unless it is tied to one already; answers the key it
   * is tied to now. Two nodes that each made a key at the same moment: one wins, the other sees the
   * winner's id here.
   */
  public static String tieTo(Database db, String keyId, long nowMillis) {
    return db.writes()
        .write(
            h -> {
              h.createUpdate(
                      "INSERT INTO secrets_key (id, key_id, created_at) VALUES (1, ?, ?)"
                          + " ON CONFLICT (id) DO NOTHING")
                  .bind(0, keyId)
                  .bind(1, nowMillis)
                  .execute();
              return h.createQuery("SELECT key_id FROM secrets_key WHERE id = 1")
                  .mapTo(String.class)
                  .one();
            });
  }

  /**
   * Hashes and encrypts what an older version wrote in plaintext, in one transaction; answers how
   * many values it changed (0 once done). Rows are changed only if they still hold what was read,
   * so nodes starting together on one PostgreSQL database do the work once.
   */
  public static int protectPlaintext(Database db, SecretBox box) {
    return db.writes()
        .write(
            h -> {
              int changed = 0;
              // The Eco key first: it is both hashed (for lookups) and kept encrypted (get_key).
              for (var row :
                  h.createQuery("SELECT id, eco_key FROM device WHERE eco_key NOT LIKE 'sha256:%'")
                      .mapToMap()
                      .list()) {
                String plain = (String) row.get("eco_key");
                changed +=
                    h.createUpdate(
                            "UPDATE device SET eco_key = ?, eco_key_sealed = ? WHERE id = ? AND"
                                + " eco_key = ?")
                        .bind(0, SecretBox.hash(plain))
                        .bind(1, box.seal(plain))
                        .bind(2, ((Number) row.get("id")).longValue())
                        .bind(3, plain)
                        .execute();
              }
              for (Column c : HASHED) {
                changed += rewrite(h, c, SecretBox.HASH_PREFIX, SecretBox::hash);
              }
              for (Column c : SEALED) {
                changed += rewrite(h, c, SecretBox.SEALED_PREFIX, box::seal);
              }
              return changed;
            });
  }

  /**
   * Re-encrypts every encrypted value from {@code from}'s key to {@code to}'s, in one transaction;
   * answers how many. Values already under {@code to}'s key are left (a rotation run again).
   * Refused while a gateway runs on a PostgreSQL database ({@link InstanceLock#lockSecretsKey}); on
   * SQLite the caller holds the gateway's lock.
   */
  public static int reseal(Database db, SecretBox from, SecretBox to) {
    return db.writes()
        .write(
            h -> {
              InstanceLock.lockSecretsKey(h, db.dialect());
              int changed = 0;
              h.createUpdate("UPDATE secrets_key SET key_id = ? WHERE id = 1")
                  .bind(0, to.keyId())
                  .execute();
              for (Column c : SEALED) {
                changed +=
                    rewrite(
                        h,
                        c,
                        SecretBox.SEALED_PREFIX + to.keyId() + ":",
                        value -> to.seal(from.open(value)));
              }
              return changed;
            });
  }

  /** Rewrites the values of {@code c} that do not start with {@code done}. */
  private static int rewrite(Handle h, Column c, String done, UnaryOperator<String> change) {
    String keys = String.join(", ", c.keys());
    List<Map<String, Object>> rows =
        h.createQuery(
                "SELECT "
                    + keys
                    + ", "
                    + c.column()
                    + " AS v FROM "
                    + c.table()
                    + " WHERE "
                    + c.column()
                    + " IS NOT NULL AND "
                    + c.column()
                    + " NOT LIKE '"
                    + done
                    + "%'"
                    + c.where())
            .mapToMap()
            .list();
    int changed = 0;
    for (Map<String, Object> row : rows) {
      String value = (String) row.get("v");
      List<String> conditions = new ArrayList<>();
      Map<String, Object> binds = new LinkedHashMap<>();
      for (String k : c.keys()) {
        conditions.add(k + " = :" + k);
        binds.put(k, row.get(k));
      }
      changed +=
          h.createUpdate(
                  "UPDATE "
                      + c.table()
                      + " SET "
                      + c.column()
                      + " = :new WHERE "
                      + String.join(" AND ", conditions)
                      + " AND "
                      + c.column()
                      + " = :old")
              .bindMap(binds)
              .bind("new", change.apply(value))
              .bind("old", value)
              .execute();
    }
    return changed;
  }
}
