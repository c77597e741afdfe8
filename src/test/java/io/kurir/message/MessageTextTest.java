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
  void aBackslashUThatSurvivedJsonStaysAsWritten() {
    // JSON decodes its own escapes before the text gets here; what is left is the caller's text.
    assertThat(MessageText.normalize("caf\\u00e9")).isEqualTo("caf\\u00e9");
    assertThat(MessageText.normalize("hi \\ud83d\\ude00!")).isEqualTo("hi \\ud83d\\ude00!");
    assertThat(MessageText.normalize("a\\u000ab")).isEqualTo("a\\u000ab");
  }

  @Test
  void otherBackslashSequencesArriveAsWritten() {
    assertThat(MessageText.normalize("C:\\Users\\budi\\dokumen.pdf"))
        .isEqualTo("C:\\Users\\budi\\dokumen.pdf");
    assertThat(MessageText.normalize("tab\\there \\r alone \\\\ two"))
        .isEqualTo("tab\\there \\r alone \\\\ two");
    assertThat(MessageText.normalize("\\u12 \\uXYZW")).isEqualTo("\\u12 \\uXYZW");
  }

  @Test
  void aLineBreakNextToEnterIsOneBreak() {
    assertThat(MessageText.normalize("Baris 1<ENTER>\r\nBaris 2<ENTER>\r\nBaris 3"))
        .isEqualTo("Baris 1\nBaris 2\nBaris 3");
    assertThat(MessageText.normalize("a<ENTER>\nb")).isEqualTo("a\nb");
    assertThat(MessageText.normalize("a\r\n<ENTER>b")).isEqualTo("a\nb");
    assertThat(MessageText.normalize("a<ENTER>\r\n<ENTER>b"))
        .as("two tokens, two breaks")
        .isEqualTo("a\n\nb");
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
  void aLoneSurrogateBecomesTheReplacementCharacter() {
    assertThat(MessageText.normalize("a\ud83db")).isEqualTo("a\uFFFDb");
  }
}
