package io.kurir.message;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class MessageTextTest {

  @ParameterizedTest
  @ValueSource(strings = {"<ENTER>", "<enter>", "<Enter>", "<eNtEr>"})
  void enterTokenInAnyCaseIsALineBreak(String token) {
    assertThat(MessageText.normalize("Halo" + token + "Apa kabar?")).isEqualTo("Halo\nApa kabar?");
  }

  @Test
  void repeatedEnterTokensGiveBlankLines() {
    assertThat(MessageText.normalize("a<ENTER><ENTER>b")).isEqualTo("a\n\nb");
  }

  @Test
  void enterWithoutItsBracketsStaysText() {
    assertThat(MessageText.normalize("press ENTER or <ENTER")).isEqualTo("press ENTER or <ENTER");
  }

  @Test
  void backslashNIsALineBreak() {
    assertThat(MessageText.normalize("line 1\\nline 2")).isEqualTo("line 1\nline 2");
  }

  @Test
  void backslashRBackslashNIsOneLineBreak() {
    assertThat(MessageText.normalize("line 1\\r\\nline 2")).isEqualTo("line 1\nline 2");
  }

  @Test
  void realLineBreaksAreKept() {
    assertThat(MessageText.normalize("line 1\nline 2\r\nline 3"))
        .isEqualTo("line 1\nline 2\r\nline 3");
  }

  @Test
  void allLineBreakConventionsMix() {
    assertThat(MessageText.normalize("a<ENTER>b\\nc\\r\\nd\ne")).isEqualTo("a\nb\nc\nd\ne");
  }

  @Test
  void unicodeEscapeBecomesItsCharacter() {
    assertThat(MessageText.normalize("caf\\u00e9")).isEqualTo("café");
    assertThat(MessageText.normalize("CAF\\u00C9")).isEqualTo("CAFÉ");
  }

  @Test
  void surrogatePairEscapesBecomeOneEmoji() {
    String out = MessageText.normalize("hi \\ud83d\\ude00!");

    assertThat(out).isEqualTo("hi 😀!");
    assertThat(out.codePointAt(3)).isEqualTo(0x1F600);
  }

  @Test
  void escapedArabicBecomesArabic() {
    assertThat(MessageText.normalize("\\u0645\\u0631\\u062d\\u0628\\u0627")).isEqualTo("مرحبا");
  }

  @Test
  void escapedNewlineViaUnicodeIsALineBreak() {
    assertThat(MessageText.normalize("a\\u000ab")).isEqualTo("a\nb");
  }

  @Test
  void incompleteOrInvalidEscapesStayAsWritten() {
    assertThat(MessageText.normalize("\\u12")).isEqualTo("\\u12");
    assertThat(MessageText.normalize("\\uXYZW")).isEqualTo("\\uXYZW");
    assertThat(MessageText.normalize("C:\\users")).isEqualTo("C:\\users");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "Terima kasih 🙏🏽 sudah order 👍",
        "👨‍👩‍👧‍👦 family",
        "مرحبا بك في متجرنا",
        "שלום",
        "日本語のテキスト",
        "Price: $5 (50% off) & free [shipping] {now} *bold* _it_ ~x~",
        "regex chars $1 \\\\ \\d",
        "",
      })
  void textWithoutConventionsIsUnchanged(String text) {
    assertThat(MessageText.normalize(text)).isEqualTo(text);
  }

  @Test
  void nullBecomesEmpty() {
    assertThat(MessageText.normalize(null)).isEmpty();
  }

  @Test
  void replacementCharactersInEscapesAreTakenLiterally() {
    // $ and \ produced by escapes must not be read as regex group references.
    assertThat(MessageText.normalize("\\u0024\\u0031 and \\u005c")).isEqualTo("$1 and \\");
  }
}
