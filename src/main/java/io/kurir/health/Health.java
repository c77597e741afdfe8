package io.kurir.health;

import io.kurir.driver.Drivers;
import io.kurir.store.Database;
import java.util.LinkedHashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the gateway can do its work, for load balancers and container platforms: the database
 * answers, its schema holds every migration of this version, the database writer runs, and the
 * drivers were started. Each check is cheap (a trivial query, Flyway's history table, two flags),
 * so a probe every few seconds costs nothing. Thread-safe.
 */
public final class Health {
  private static final Logger log = LoggerFactory.getLogger(Health.class);

  /** How long the database may take to answer the probe's query. */
  private static final int DATABASE_TIMEOUT_SECONDS = 2;

  private final Database db;
  private final Drivers drivers;
  private volatile boolean wasReady = true;

  public Health(Database db, Drivers drivers) {
    this.db = db;
    this.drivers = drivers;
  }

  /** Each check and its state, in a fixed order; {@link #ready} when every one is fine. */
  public record Readiness(boolean ready, Map<String, String> checks) {}

  public Readiness readiness() {
    Map<String, String> checks = new LinkedHashMap<>();
    boolean reachable = db.reachable(DATABASE_TIMEOUT_SECONDS);
    checks.put("database", reachable ? "up" : "down");
    // Asked only of a database that answers: Flyway would wait for one that does not.
    checks.put("migrations", reachable ? (db.migrated() ? "done" : "pending") : "unknown");
    checks.put("writer", db.writes().running() ? "running" : "stopped");
    checks.put("drivers", drivers.started() ? "started" : "stopped");
    boolean ready =
        reachable
            && checks.get("migrations").equals("done")
            && db.writes().running()
            && drivers.started();
    if (ready != wasReady) { // a change, not every probe: probes come every few seconds
      wasReady = ready;
      if (ready) {
        log.info("ready again: {}", checks);
      } else {
        log.warn("not ready: {}", checks);
      }
    }
    return new Readiness(ready, checks);
  }
}
