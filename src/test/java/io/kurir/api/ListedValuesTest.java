package io.kurir.api;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ListedValuesTest {
  @Test
  void countsTheNonBlankEntriesBetweenSeparators() {
    assertThat(ListedValues.count("", ",", 10)).isZero();
    assertThat(ListedValues.count(null, ",", 10)).isZero();
    assertThat(ListedValues.count(" , ,\n", ",;\n", 10)).isZero();
    assertThat(ListedValues.count("0812 1, 0813;0814\n0815,", ",;\n", 10)).isEqualTo(4);
    assertThat(ListedValues.count("a,,b", ",", 10)).isEqualTo(2);
  }

  @Test
  void stopsCountingPastTheLimit() {
    String many = "1,".repeat(100_000);
    assertThat(ListedValues.count(many, ",", 1000)).isEqualTo(1001);
    assertThat(ListedValues.moreThan(many, ",", 1000)).isTrue();
    assertThat(ListedValues.moreThan("1,".repeat(1000), ",", 1000)).isFalse();
  }
}
