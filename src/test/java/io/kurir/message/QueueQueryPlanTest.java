package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.testing.CoreNode;
import io.kurir.testing.ScriptedDriver;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reads of a device's queue go through the queue's partial index on SQLite, whose planner has
 * no statistics: by {@code message_device_recipient} they walked every message the device ever
 * sent, and a sender with nothing due ran one of them on each look (in the end-to-end benchmark, 12
 * % of the gateway's CPU). PostgreSQL's planner chooses by its statistics and is not asked here.
 */
class QueueQueryPlanTest {
  private static final String SEARCH =
      "SEARCH message USING INDEX message_queue (device_id=? AND sync=?)";
  private static final String SEARCH_COVERING =
      "SEARCH message USING COVERING INDEX message_queue (device_id=? AND sync=?)";

  @TempDir Path dir;

  private static List<String> plan(Connection c, String sql, int parameters) throws Exception {
    try (PreparedStatement q = c.prepareStatement("EXPLAIN QUERY PLAN " + sql)) {
      for (int i = 1; i <= parameters; i++) {
        q.setLong(i, 1);
      }
      List<String> details = new ArrayList<>();
      try (ResultSet rs = q.executeQuery()) {
        while (rs.next()) {
          details.add(rs.getString("detail"));
        }
      }
      return details;
    }
  }

  @Test
  void eachReadOfADevicesQueueSearchesTheQueueIndex() throws Exception {
    try (CoreNode node =
            CoreNode.start(
                dir.resolve("k.db"), 0, Clock.systemUTC(), new ScriptedDriver("scripted", false));
        Handle h = node.db().jdbi().open()) {
      Connection c = h.getConnection();
      assertThat(plan(c, MessageStore.NEXT_NOT_BEFORE, 1)).containsExactly(SEARCH);
      assertThat(plan(c, MessageStore.PENDING_COUNT, 1)).containsExactly(SEARCH_COVERING);
      assertThat(plan(c, MessageStore.PENDING_SYNC_COUNT, 1)).containsExactly(SEARCH_COVERING);
      assertThat(plan(c, MessageStore.DUE, 4)).containsExactly(SEARCH);
      assertThat(plan(c, MessageStore.PENDING_SYNC_IDS, 2)).containsExactly(SEARCH_COVERING);
      assertThat(plan(c, MessageStore.PENDING_IDS, 2)).first().isEqualTo(SEARCH_COVERING);
    }
  }

  /**
   * Not the queue's, but the same planner: a group of receipts, or of sends recorded, joins its
   * list to the messages by an index.
   */
  @Test
  void aGroupOfReceiptsOrOfSendsFindsEachMessageByAnIndex() throws Exception {
    try (CoreNode node =
            CoreNode.start(
                dir.resolve("k.db"), 0, Clock.systemUTC(), new ScriptedDriver("scripted", false));
        Handle h = node.db().jdbi().open()) {
      Connection c = h.getConnection();
      for (MessageState next :
          List.of(MessageState.DELIVERY, MessageState.READ, MessageState.FAILED)) {
        assertThat(plan(c, ReceiptGroupStore.sql(next, 16), 4 * 16))
            .as("a group of receipts to %s", next)
            .endsWith(
                "SCAN r",
                "SEARCH message USING INDEX message_network (device_id=? AND network_id=?)");
      }
      assertThat(plan(c, SentRecordStore.sql(16), 3 * 16))
          .as("a group of sends recorded")
          .contains(
              "SEARCH message USING INTEGER PRIMARY KEY (rowid=?)",
              "SEARCH e USING COVERING INDEX early_receipt_network (device_id=? AND network_id=?)");
    }
  }
}
