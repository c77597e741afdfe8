package io.kurir.metrics;

import java.util.ArrayList;
import java.util.List;

/** A Prometheus text scrape, read back by a test: one sample's value by name and labels. */
record Scrape(String text) {

  /**
   * The value of the sample {@code name} whose labels include every {@code label="value"} pair
   * given; 0 when there is none (a counter not incremented yet is not listed).
   */
  double value(String name, String... labels) {
    List<String> matching = new ArrayList<>();
    for (String line : text.lines().toList()) {
      if (line.startsWith("#") || !(line.startsWith(name + "{") || line.startsWith(name + " "))) {
        continue;
      }
      boolean all = true;
      for (int i = 0; i < labels.length; i += 2) {
        all &= line.contains(labels[i] + "=\"" + labels[i + 1] + "\"");
      }
      if (all) {
        matching.add(line);
      }
    }
    if (matching.size() > 1) {
      throw new AssertionError(name + " " + List.of(labels) + " matches " + matching);
    }
    return matching.isEmpty()
        ? 0
        : Double.parseDouble(matching.getFirst().substring(matching.getFirst().lastIndexOf(' ')));
  }
}
