package io.kurir.contactbook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** CSV as spreadsheets write it, read and written back; the opt-out words' matching. */
class ContactCsvTest {

  @Test
  void readsEachDelimiterSpreadsheetsWrite() {
    assertThat(ContactCsv.read("phone,name\n1,a\n", 10).delimiter()).isEqualTo(',');
    assertThat(ContactCsv.read("phone;name\n1;a,b\n", 10).delimiter()).isEqualTo(';');
    assertThat(ContactCsv.read("phone\tname\n1\ta\n", 10).delimiter()).isEqualTo('\t');
    assertThat(ContactCsv.read("\"a,b\";c;d\n", 10).delimiter()).isEqualTo(';');
    assertThat(ContactCsv.read("phone\n1\n", 10).header()).containsExactly("phone");
  }

  @Test
  void quotedFieldsHoldDelimitersQuotesAndLineBreaks() {
    ContactCsv.Table t =
        ContactCsv.read(
            "\uFEFFphone,note\r\n1,\"a, \"\"b\"\"\r\nc\"\r\n2,  \"x\"\r\n,\r\n3,last", 10);
    assertThat(t.header()).containsExactly("phone", "note");
    assertThat(t.rows()).hasSize(3);
    assertThat(t.rows().get(0).cells()).containsExactly("1", "a, \"b\"\r\nc");
    assertThat(t.rows().get(1).cells()).containsExactly("2", "x");
    // Row numbers as the spreadsheet shows them: the blank row 4 is left out, and counted.
    assertThat(t.rows().get(2).number()).isEqualTo(5);
    assertThat(t.rows().get(2).cells()).containsExactly("3", "last");
  }

  @Test
  void refusesWhatIsNotAContactList() {
    assertThatThrownBy(() -> ContactCsv.read("", 10)).hasMessageContaining("no header row");
    assertThatThrownBy(() -> ContactCsv.read(",,\n1,2,3\n", 10))
        .hasMessageContaining("no header row");
    assertThatThrownBy(() -> ContactCsv.read("phone\n\"1\n2\n", 10))
        .hasMessageContaining("row 2")
        .hasMessageContaining("never closed");
    assertThatThrownBy(() -> ContactCsv.read("phone\n1\n2\n3\n", 2))
        .isInstanceOf(ContactRefused.class)
        .extracting(e -> ((ContactRefused) e).reason())
        .isEqualTo(ContactRefused.Reason.CSV_TOO_LARGE);
  }

  @Test
  void writesWhatSpreadsheetsReadBackAndRunsNoFormula() {
    String line =
        ContactCsv.line(List.of("+62812", "=SUM(A1)", "a,b", "say \"hi\"", "-5", "ok"), 0);
    assertThat(line).isEqualTo("+62812,'=SUM(A1),\"a,b\",\"say \"\"hi\"\"\",'-5,ok\r\n");
    ContactCsv.Table back = ContactCsv.read("p,a,b,c,d,e\r\n" + line, 10);
    assertThat(back.rows().getFirst().cells())
        .containsExactly("+62812", "'=SUM(A1)", "a,b", "say \"hi\"", "'-5", "ok");
  }

  @Test
  void anOptOutIsTheWordAloneInAnyCase() {
    OptOutWords words = new OptOutWords(List.of("STOP", "BERHENTI", " "));
    assertThat(words.words()).containsExactly("STOP", "BERHENTI");
    assertThat(words.match("stop")).contains("STOP");
    assertThat(words.match("  Stop!! ")).contains("STOP");
    assertThat(words.match("Berhenti.")).contains("BERHENTI");
    assertThat(words.match("ＳＴＯＰ")).contains("STOP"); // full-width letters, as some keyboards type
    assertThat(words.match("stop sending promos")).isEmpty();
    assertThat(words.match("jangan berhenti")).isEmpty();
    assertThat(words.match("")).isEmpty();
    assertThat(words.match(null)).isEmpty();
  }
}
