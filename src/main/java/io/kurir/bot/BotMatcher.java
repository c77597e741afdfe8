package io.kurir.bot;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.regex.Pattern;

/**
 * Finds the rule an incoming text matches among a license's rules, in time proportional to the
 * text, whatever the number of rules: exact keywords by hash, the others with one Aho-Corasick
 * automaton over every {@code partial} and {@code partial_all} keyword.
 *
 * <p>Texts and keywords are compared {@link #normalize normalised}: case-insensitive, trimmed,
 * whitespace runs as one space. When several rules match, the most specific wins: {@code match}
 * over {@code partial} over {@code partial_all}, then the longer keyword, then the older rule.
 *
 * <p>Immutable and thread-safe once built.
 */
public final class BotMatcher {
  private static final Pattern WHITESPACE =
      Pattern.compile("\\s+", Pattern.UNICODE_CHARACTER_CLASS);

  /** Zero-width characters phones and copy-paste leave in text. */
  private static final Pattern INVISIBLE = Pattern.compile("[\\u200B-\\u200D\\u2060\\uFEFF]");

  private final Map<String, BotRule> exact = new HashMap<>();
  private final Node root = new Node(0);

  public BotMatcher(List<BotRule> rules) {
    for (BotRule r : rules) { // oldest first: an older rule keeps its place on a tie
      if (r.matchKey().isEmpty()) {
        continue;
      }
      switch (r.matchType()) {
        case MATCH -> exact.putIfAbsent(r.matchKey(), r);
        case PARTIAL, PARTIAL_ALL -> add(r);
      }
    }
    link();
  }

  /**
   * Lower case, every run of whitespace (no-break spaces included) as one space, trimmed, without
   * zero-width characters.
   */
  public static String normalize(String text) {
    String visible = INVISIBLE.matcher(text).replaceAll("");
    return WHITESPACE.matcher(visible).replaceAll(" ").strip().toLowerCase(Locale.ROOT);
  }

  /** The rule {@code text} matches, if any. */
  public Optional<BotRule> match(String text) {
    String t = normalize(text);
    BotRule whole = exact.get(t);
    if (whole != null) {
      return Optional.of(whole);
    }
    BotRule best = null;
    Node state = root;
    for (int i = 0; i < t.length(); i++) {
      state = state.step(t.charAt(i));
      // Every keyword that ends here: the node's own, and those along its output links.
      for (Node n = state; n != null; n = n.output) {
        for (BotRule r : n.rules) {
          boolean atStart = n.depth == i + 1;
          if (r.matchType() == MatchType.PARTIAL && !atStart) {
            continue;
          }
          if (best == null || moreSpecific(r, best)) {
            best = r;
          }
        }
      }
    }
    return Optional.ofNullable(best);
  }

  private static boolean moreSpecific(BotRule a, BotRule b) {
    if (a.matchType() != b.matchType()) {
      return a.matchType().ordinal() < b.matchType().ordinal();
    }
    if (a.matchKey().length() != b.matchKey().length()) {
      return a.matchKey().length() > b.matchKey().length();
    }
    return a.id() < b.id();
  }

  // --- the automaton

  private static final class Node {
    final int depth;
    final Map<Character, Node> next = new HashMap<>(4);
    final List<BotRule> rules = new java.util.ArrayList<>(1);
    Node fail;
    Node output; // the nearest node along the fail links that ends a keyword

    Node(int depth) {
      this.depth = depth;
    }

    Node step(char c) {
      Node n = this;
      while (true) {
        Node to = n.next.get(c);
        if (to != null) {
          return to;
        }
        if (n.fail == null) {
          return n; // the root
        }
        n = n.fail;
      }
    }
  }

  private void add(BotRule rule) {
    Node n = root;
    for (char c : rule.matchKey().toCharArray()) {
      Node parent = n;
      n = n.next.computeIfAbsent(c, k -> new Node(parent.depth + 1));
    }
    n.rules.add(rule);
  }

  private void link() {
    Queue<Node> queue = new ArrayDeque<>();
    for (Node child : root.next.values()) {
      child.fail = root;
      queue.add(child);
    }
    while (!queue.isEmpty()) {
      Node n = queue.remove();
      for (Map.Entry<Character, Node> e : n.next.entrySet()) {
        Node child = e.getValue();
        child.fail = n.fail.step(e.getKey());
        child.output = child.fail.rules.isEmpty() ? child.fail.output : child.fail;
        queue.add(child);
      }
    }
  }
}
