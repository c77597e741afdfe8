package io.kurir.config;

import java.util.Collection;
import java.util.Comparator;
import java.util.Optional;
import org.apache.commons.text.similarity.LevenshteinDistance;

/**
 * The name someone probably meant when they typed one that does not exist: a setting, an option, a
 * command. Leading dashes are not counted.
 */
public final class NearestName {
  private NearestName() {}

  /**
   * The candidate fewest edits away from {@code typed}, when it is close enough to be a typing
   * mistake (two edits, or a third of the name for long ones); empty otherwise, and for names
   * shorter than three letters.
   */
  public static Optional<String> to(String typed, Collection<String> candidates) {
    LevenshteinDistance distance = LevenshteinDistance.getDefaultInstance();
    String bare = bare(typed);
    // Every one- or two-letter name is a couple of edits from every other: no guess for those.
    int allowed = bare.length() < 3 ? 0 : Math.max(2, bare.length() / 3);
    return candidates.stream()
        .min(Comparator.comparingInt(c -> distance.apply(bare, bare(c))))
        .filter(best -> distance.apply(bare, bare(best)) <= allowed);
  }

  private static String bare(String name) {
    return name.replaceFirst("^-+", "");
  }
}
