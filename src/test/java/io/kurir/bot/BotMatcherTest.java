package io.kurir.bot;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class BotMatcherTest {
  private long nextId = 1;

  BotRule rule(String keyword, MatchType type) {
    return new BotRule(
        nextId++,
        1,
        keyword,
        BotMatcher.normalize(keyword),
        type,
        "reply to " + keyword,
        Instant.EPOCH);
  }

  static Optional<String> keywordOf(BotMatcher m, String text) {
    return m.match(text).map(BotRule::keyword);
  }

  @Test
  void matchIsTheWholeTextIgnoringCaseAndSpacing() {
    BotMatcher m = new BotMatcher(List.of(rule("Info Harga", MatchType.MATCH)));
    assertThat(keywordOf(m, "info harga")).contains("Info Harga");
    assertThat(keywordOf(m, "  INFO   harga\n")).contains("Info Harga");
    assertThat(keywordOf(m, "info\u00a0harga")).as("a no-break space is whitespace").isPresent();
    assertThat(keywordOf(m, "info harga dong")).isEmpty();
    assertThat(keywordOf(m, "minta info harga")).isEmpty();
  }

  @Test
  void partialIsTheBeginningOfTheText() {
    BotMatcher m = new BotMatcher(List.of(rule("daftar", MatchType.PARTIAL)));
    assertThat(keywordOf(m, "DAFTAR kelas 7")).contains("daftar");
    assertThat(keywordOf(m, "daftar")).contains("daftar");
    assertThat(keywordOf(m, "  daftarkan saya")).contains("daftar");
    assertThat(keywordOf(m, "mau daftar")).isEmpty();
    assertThat(keywordOf(m, "dafta")).isEmpty();
  }

  @Test
  void partialAllIsAnywhereInTheText() {
    BotMatcher m = new BotMatcher(List.of(rule("ongkir", MatchType.PARTIAL_ALL)));
    assertThat(keywordOf(m, "berapa ONGKIR ke Bandung?")).contains("ongkir");
    assertThat(keywordOf(m, "ongkir")).contains("ongkir");
    assertThat(keywordOf(m, "cek ongkir")).contains("ongkir");
    assertThat(keywordOf(m, "ongkos kirim")).isEmpty();
  }

  @Test
  void theMostSpecificRuleWins() {
    BotMatcher m =
        new BotMatcher(
            List.of(
                rule("harga", MatchType.PARTIAL_ALL),
                rule("info", MatchType.PARTIAL),
                rule("info harga", MatchType.PARTIAL),
                rule("info harga", MatchType.MATCH),
                rule("harga", MatchType.PARTIAL_ALL))); // a later duplicate loses the tie
    assertThat(keywordOf(m, "info harga")).contains("info harga");
    assertThat(m.match("info harga").orElseThrow().matchType()).isEqualTo(MatchType.MATCH);
    assertThat(m.match("info harga baju").orElseThrow().matchType())
        .as("the longer partial keyword")
        .isEqualTo(MatchType.PARTIAL);
    assertThat(keywordOf(m, "info harga baju")).contains("info harga");
    assertThat(keywordOf(m, "info stok")).contains("info");
    BotRule anywhere = m.match("berapa harga?").orElseThrow();
    assertThat(anywhere.matchType()).isEqualTo(MatchType.PARTIAL_ALL);
    assertThat(anywhere.id()).as("the older of two equal rules").isEqualTo(1);
  }

  @Test
  void overlappingKeywordsAreAllFound() {
    // "she" inside "ushers" is only found through the automaton's fail links.
    BotMatcher m =
        new BotMatcher(
            List.of(rule("he", MatchType.PARTIAL_ALL), rule("she", MatchType.PARTIAL_ALL)));
    assertThat(keywordOf(m, "ushers")).contains("she");
    assertThat(keywordOf(m, "the")).contains("he");
  }

  @Test
  void thousandsOfRulesAnswerTheSameAsAPlainScan() {
    List<BotRule> rules = new ArrayList<>();
    for (int i = 0; i < 5000; i++) {
      MatchType type = MatchType.values()[i % 3];
      rules.add(rule("kata" + i, type));
    }
    BotMatcher m = new BotMatcher(rules);
    assertThat(keywordOf(m, "kata4999")).contains("kata4999"); // 4999 % 3 == 1: partial
    assertThat(keywordOf(m, "kata4998")).contains("kata4998"); // match
    assertThat(keywordOf(m, "tolong kata4997 ya")).contains("kata4997"); // partial_all
    assertThat(keywordOf(m, "tolong kata4999 ya")).as("partial only at the start").isEmpty();
    assertThat(keywordOf(m, "tolong kata4997 dan kata5 ya"))
        .as("the longest keyword found inside")
        .contains("kata4997");
    assertThat(keywordOf(m, "tidak ada")).isEmpty();
  }

  @Test
  void emptyKeywordsNeverMatch() {
    BotMatcher m = new BotMatcher(List.of(rule("   ", MatchType.PARTIAL_ALL)));
    assertThat(m.match("apa saja")).isEmpty();
  }
}
