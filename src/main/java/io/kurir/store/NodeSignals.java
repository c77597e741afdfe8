package io.kurir.store;

import java.sql.Array;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.LongConsumer;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hints between the nodes that share a PostgreSQL database, sent with {@code NOTIFY}: "a device has
 * new messages", "a sync message has its outcome", "a device changed", "leases were given up". Each
 * is a topic and a number; a node hears the others' signals, never its own.
 *
 * <p>A signal is a hint, never the truth: the truth is in the tables, and every reader of a signal
 * also looks at the tables on a timer of its own, and again whenever this node starts listening
 * (see {@link #whenListening}), so a signal lost (a connection cut, a node starting) costs latency,
 * not correctness. On SQLite there is one node: nothing is sent and nothing heard.
 *
 * <p>Two connections of its own, opened on first use: one that sends (in batches: a burst of
 * accepts costs one round trip), one that listens. Either is opened again after it is lost.
 * Thread-safe.
 */
public final class NodeSignals implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeSignals.class);
  private static final String CHANNEL = "kurir_node";
  private static final Duration RECONNECT_AFTER = Duration.ofSeconds(1);
  private static final int MAX_BATCH = 1000;

  /** What a signal is about; its number is a device's or a message's id. */
  public enum Topic {
    /** A device has messages that its sender has not looked at (stored by another node). */
    WORK,
    /** A sync message has its first outcome in the database (for a caller on another node). */
    OUTCOME,
    /** A device was changed (switched off or on, its configuration). */
    DEVICE,
    /** A node gave leases up (a clean stop, a hand-over): they may be taken now. */
    LEASES
  }

  private final DatabaseLocation location; // null: SQLite, one node
  private final String me = UUID.randomUUID().toString().substring(0, 8);
  private final Map<Topic, List<LongConsumer>> handlers = new ConcurrentHashMap<>();
  private final List<Runnable> whenListening = new CopyOnWriteArrayList<>();
  private final LinkedBlockingQueue<String> outbox = new LinkedBlockingQueue<>();
  private final java.util.concurrent.atomic.AtomicInteger unsent =
      new java.util.concurrent.atomic.AtomicInteger();
  private volatile boolean closed;
  private Thread sender;
  private Thread listener;

  private NodeSignals(DatabaseLocation location) {
    this.location = location;
  }

  /** Signals for the database at {@code location}: between nodes on PostgreSQL, none on SQLite. */
  static NodeSignals forLocation(DatabaseLocation location, Dialect dialect) {
    return new NodeSignals(dialect.singleWriter() ? null : location);
  }

  /** Whether other nodes can hear this one (PostgreSQL). */
  public boolean shared() {
    return location != null;
  }

  /** Tells the other nodes; returns at once (sent in the background, in order). */
  public void publish(Topic topic, long id) {
    if (location == null || closed) {
      return;
    }
    startSender();
    unsent.incrementAndGet();
    outbox.add(me + ":" + topic.name() + ":" + id);
  }

  /** Calls {@code handler} with the number of every signal of {@code topic} another node sends. */
  public void subscribe(Topic topic, LongConsumer handler) {
    if (location == null) {
      return;
    }
    handlers.computeIfAbsent(topic, t -> new CopyOnWriteArrayList<>()).add(handler);
    startListener();
  }

  /**
   * Runs {@code look} each time this node starts listening (its first {@code LISTEN}, and again
   * after the connection was lost): whatever the other nodes signalled before was not heard, so the
   * tables are looked at then instead of at the next timer. Call before {@link #subscribe}.
   */
  public void whenListening(Runnable look) {
    if (location != null) {
      whenListening.add(look);
    }
  }

  private synchronized void startSender() {
    if (sender == null && !closed) {
      sender = Thread.ofVirtual().name("node-signals-out").start(this::sendLoop);
    }
  }

  private synchronized void startListener() {
    if (listener == null && !closed) {
      listener = Thread.ofVirtual().name("node-signals-in").start(this::listenLoop);
    }
  }

  private Connection connect() throws SQLException {
    Connection c =
        DriverManager.getConnection(location.url(), location.user(), location.password());
    c.setAutoCommit(true);
    return c;
  }

  private void sendLoop() {
    Connection c = null;
    while (!closed) {
      List<String> batch = new ArrayList<>();
      try {
        String first = outbox.poll(1, TimeUnit.SECONDS);
        if (first == null) {
          continue;
        }
        batch.add(first);
        outbox.drainTo(batch, MAX_BATCH - 1);
        if (c == null) {
          c = connect();
        }
        // One statement for the batch; PostgreSQL folds repeated payloads of one transaction.
        try (PreparedStatement q =
            c.prepareStatement("SELECT pg_notify('" + CHANNEL + "', p) FROM unnest(?) AS p")) {
          Array payloads = c.createArrayOf("text", batch.toArray());
          q.setArray(1, payloads);
          q.execute();
        }
      } catch (InterruptedException e) {
        break;
      } catch (Throwable e) { // a hint lost costs latency only; the loop goes on
        log.warn("node signals: cannot send: {}", e.toString());
        c = closeQuietly(c);
        pause();
      } finally {
        unsent.addAndGet(-batch.size());
      }
    }
    closeQuietly(c);
  }

  private void listenLoop() {
    Connection c = null;
    while (!closed) {
      try {
        if (c == null) {
          c = connect();
          try (Statement s = c.createStatement()) {
            s.execute("LISTEN " + CHANNEL);
          }
          whenListening.forEach(Runnable::run);
        }
        PGNotification[] received = c.unwrap(PGConnection.class).getNotifications(1000);
        if (received != null) {
          for (PGNotification n : received) {
            dispatch(n.getParameter());
          }
        }
      } catch (Throwable e) {
        if (closed) {
          break;
        }
        log.warn("node signals: cannot listen: {}", e.toString());
        c = closeQuietly(c);
        pause();
      }
    }
    closeQuietly(c);
  }

  private void dispatch(String payload) {
    String[] parts = payload.split(":", 3);
    if (parts.length != 3 || parts[0].equals(me)) {
      return; // this node's own, or not Kurir's
    }
    Topic topic;
    long id;
    try {
      topic = Topic.valueOf(parts[1]);
      id = Long.parseLong(parts[2]);
    } catch (IllegalArgumentException e) {
      return; // a newer node's topic
    }
    for (LongConsumer h : handlers.getOrDefault(topic, List.of())) {
      try {
        h.accept(id);
      } catch (RuntimeException e) {
        log.warn("node signals: handling {} {}: {}", topic, id, e.toString());
      }
    }
  }

  private void pause() {
    try {
      Thread.sleep(RECONNECT_AFTER);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static Connection closeQuietly(Connection c) {
    if (c != null) {
      try {
        c.close();
      } catch (SQLException ignored) {
        // it is being given up
      }
    }
    return null;
  }

  /** Sends what is queued (a stop's last hand-over signal), then stops both loops. */
  @Override
  public void close() {
    Thread s;
    Thread l;
    synchronized (this) {
      s = sender;
      l = listener;
    }
    if (s != null) {
      long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
      while (unsent.get() > 0 && System.nanoTime() < until) {
        try {
          Thread.sleep(10);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    closed = true;
    for (Thread t : new Thread[] {s, l}) {
      if (t != null) {
        t.interrupt();
        try {
          t.join(Duration.ofSeconds(2));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
  }
}
