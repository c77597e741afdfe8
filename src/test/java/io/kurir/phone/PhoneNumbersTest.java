package io.kurir.phone;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullAndEmptySource;
import org.junit.jupiter.params.provider.ValueSource;

class PhoneNumbersTest {
  private static final String MOBILE_E164 = "+6281234567890";

  private final PhoneNumbers indonesia = new PhoneNumbers("ID");
  private final PhoneNumbers malaysia = new PhoneNumbers("MY");
  private final PhoneNumbers unitedStates = new PhoneNumbers("US");

  // --- default region ID ---
  @ParameterizedTest(name = "[{index}] \"{0}\"")
  @ValueSource(
      strings = {
        "+62 812-3456-7890",
        "+6281234567890",
        "6281234567890",
        "62 812 3456 7890",
        "081234567890",
        "81234567890",
        "812 3456 7890",
        "0812 3456 7890",
        "0812-3456-7890",
        "(0812) 3456-7890",
        "0812.3456.7890",
        "0812/3456/7890",
        "0062812 3456 7890",
        "0062-812-3456-7890",
        "006281234567890",
        "  0812 3456 7890  ",
        "\t+62 812 3456 7890\n",
        "0812\u00a03456\u00a07890",
      })
  void readsEveryCommonWritingOfOneMobileNumber(String raw) {
    assertThat(indonesia.normalize(raw)).contains(MOBILE_E164);
  }

  @Test
  void dropsTheTrunkZeroWrittenAfterTheCountryCode() {
    // "+62 (0)812…" style: customers keep the national 0 after the country code.
    assertThat(indonesia.normalize("+62 0812 3456 7890")).contains(MOBILE_E164);
    assertThat(indonesia.normalize("+62 (0)812 3456 7890")).contains(MOBILE_E164);
  }

  @ParameterizedTest(name = "[{index}] \"{0}\" -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "+49 1512 3456789 | +4915123456789",
        "4915123456789    | +4915123456789",
        "0049 1512 3456789| +4915123456789",
        "+1 650 253 0000  | +16502530000",
        "1 650 253 0000   | +16502530000",
        "16502530000      | +16502530000",
        "+1 (650) 253-0000| +16502530000",
        "+60 12-345 6789  | +60123456789",
        "60123456789      | +60123456789",
        "+44 7911 123456  | +447911123456",
        "447911123456     | +447911123456",
      })
  void readsOtherCountriesWithOrWithoutPlus(String raw, String e164) {
    assertThat(indonesia.normalize(raw)).contains(e164);
  }

  @ParameterizedTest(name = "[{index}] \"{0}\" -> {1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "021 1234567        | +62211234567",
        "+62 21 1234567     | +62211234567",
        "+62 (21) 1234-5678 | +622112345678",
        "62 21 12345678     | +622112345678",
      })
  void readsLandlines(String raw, String e164) {
    assertThat(indonesia.normalize(raw)).contains(e164);
  }

  @ParameterizedTest(name = "[{index}] \"{0}\"")
  @NullAndEmptySource
  @ValueSource(
      strings = {
        "   ",
        "abc",
        "12",
        "123",
        "08123",
        "+",
        "+62",
        "++6281234567890",
        "+6281234567890+",
        "62+81234567890",
        "0812abc34567890",
        "0812-3456-789O",
        "phone: 081234567890",
        "081234567890 ext 5",
        "+62 812 3456 7890 ext 5",
        "0812_3456_7890",
        "0812,3456,7890",
        "081234567890123",
        "62812345678901234567",
        "+628123456789012345678",
        "0000",
        "+0000",
        "00000000000",
        "+999 1234 5678",
      })
  void rejectsWhatIsNotAPhoneNumber(String raw) {
    assertThat(indonesia.normalize(raw)).isEmpty();
  }

  @Test
  void rejectsNonAsciiDigits() {
    // Arabic-Indic and full-width digits are not accepted even though they are "digits".
    assertThat(indonesia.normalize("٠٨١٢٣٤٥٦٧٨٩٠")).isEmpty();
    assertThat(indonesia.normalize("０８１２３４５６７８９０")).isEmpty();
  }

  @Test
  void resultIsAFixedPointOfNormalize() {
    for (String raw : List.of("0812 3456 7890", "+49 1512 3456789", "1 650 253 0000")) {
      String once = indonesia.normalize(raw).orElseThrow();
      assertThat(indonesia.normalize(once)).contains(once);
      assertThat(once).matches("\\+[1-9]\\d{6,14}");
    }
  }

  @Test
  void readsCountryCodeWithoutPlusForShortIndonesianNumbers() {
    assertThat(indonesia.normalize("6221 1234567")).contains("+62211234567");
    assertThat(indonesia.normalize("62211234567")).contains("+62211234567");
    assertThat(indonesia.normalize("62812345678")).contains("+62812345678");
    assertThat(indonesia.normalize("62 274 123456")).contains("+62274123456");
  }

  @Test
  void isSafeToShareBetweenThreads() throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Callable<Optional<String>>> tasks = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        String raw = i % 2 == 0 ? "0812-3456-7890" : "+62 812 3456 7890";
        tasks.add(() -> indonesia.normalize(raw));
      }
      for (Future<Optional<String>> f : pool.invokeAll(tasks)) {
        assertThat(f.get()).contains(MOBILE_E164);
      }
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void readsTheSameWhetherRememberedOrForgotten() {
    // Past the bound what was read is forgotten at once; each answer stays the reading's.
    for (int i = 0; i <= PhoneNumbers.REMEMBERED + 10; i++) {
      String raw = "0812 " + (10_000_000 + i);
      assertThat(indonesia.normalize(raw)).as(raw).contains("+62812" + (10_000_000 + i));
    }
    for (int round = 0; round < 2; round++) {
      assertThat(indonesia.normalize("0812-3456-7890")).contains(MOBILE_E164);
      assertThat(indonesia.normalize("0812-3456")).isEmpty();
      assertThat(malaysia.normalize("0812-3456-7890")).isEmpty();
    }
  }

  // --- default region MY ---
  @ParameterizedTest(name = "[{index}] \"{0}\"")
  @ValueSource(
      strings = {"012-345 6789", "0123456789", "123456789", "+60 12-345 6789", "60123456789"})
  void readsMalaysianNationalNumbers(String raw) {
    assertThat(malaysia.normalize(raw)).contains("+60123456789");
  }

  @Test
  void malaysiaStillReadsIndonesianNumbersWithTheirCountryCode() {
    assertThat(malaysia.normalize("+62 812-3456-7890")).contains(MOBILE_E164);
    assertThat(malaysia.normalize("6281234567890")).contains(MOBILE_E164);
  }

  @Test
  void malaysiaDoesNotReadAnIndonesianNationalNumber() {
    assertThat(malaysia.normalize("081234567890")).isEmpty();
  }

  // --- default region US ---
  @ParameterizedTest(name = "[{index}] \"{0}\"")
  @ValueSource(
      strings = {
        "(650) 253-0000",
        "650-253-0000",
        "650.253.0000",
        "6502530000",
        "1 650 253 0000",
        "16502530000",
        "+1 650 253 0000",
      })
  void readsUsNationalNumbers(String raw) {
    assertThat(unitedStates.normalize(raw)).contains("+16502530000");
  }

  @Test
  void unitedStatesReadsForeignNumbersWithCountryCodeOrExitCode() {
    assertThat(unitedStates.normalize("+6281234567890")).contains(MOBILE_E164);
    assertThat(unitedStates.normalize("6281234567890")).contains(MOBILE_E164);
    assertThat(unitedStates.normalize("011 62 812 3456 7890")).contains(MOBILE_E164);
    assertThat(unitedStates.normalize("4915123456789")).contains("+4915123456789");
  }

  @Test
  void unitedStatesDoesNotReadAnIndonesianNationalNumber() {
    assertThat(unitedStates.normalize("081234567890")).isEmpty();
  }
}
