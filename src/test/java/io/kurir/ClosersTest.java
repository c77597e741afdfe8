package io.kurir;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClosersTest {
  @Test
  void closesTheLastOpenedFirst() {
    List<String> closed = new ArrayList<>();
    Closers closers = new Closers();
    closers.push("database", "db", () -> closed.add("database"));
    closers.push("drivers", "drivers", () -> closed.add("drivers"));
    closers.push("senders", "senders", () -> closed.add("senders"));

    closers.close();

    assertEquals(List.of("senders", "drivers", "database"), closed);
  }

  @Test
  void aPartThatFailsToCloseDoesNotStopTheRest() {
    List<String> closed = new ArrayList<>();
    Closers closers = new Closers();
    closers.push("database", "db", () -> closed.add("database"));
    closers.push(
        "drivers",
        "drivers",
        () -> {
          throw new IllegalStateException("the network is gone");
        });
    closers.push("senders", "senders", () -> closed.add("senders"));

    closers.close();

    assertEquals(List.of("senders", "database"), closed);
  }

  @Test
  void closingTwiceClosesEachPartOnce() {
    List<String> closed = new ArrayList<>();
    Closers closers = new Closers();
    AutoCloseable part = () -> closed.add("part");
    assertEquals(part, closers.push("part", part));

    closers.close();
    closers.close();

    assertEquals(List.of("part"), closed);
  }
}
