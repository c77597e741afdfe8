package io.kurir.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** How one secret is sealed and opened, and how a credential's hash looks. */
class SecretBoxTest {
  private final SecretBox box = SecretBox.of(SecretBox.newKey());

  @Test
  void aSealedSecretOpensAgainAndNamesItsKeyButNotTheSecret() {
    String sealed = box.seal("webhook-secret-0123456789");

    assertThat(sealed).startsWith("enc:" + box.keyId() + ":").doesNotContain("webhook-secret");
    assertThat(SecretBox.keyIdOfSealed(sealed)).isEqualTo(box.keyId()).hasSize(8);
    assertThat(box.open(sealed)).isEqualTo("webhook-secret-0123456789");
  }

  @Test
  void eachSealingUsesAFreshNonce() {
    assertThat(box.seal("same")).isNotEqualTo(box.seal("same"));
  }

  @Test
  void anotherKeyOrAnAlteredValueOpensNothing() {
    String sealed = box.seal("secret");
    SecretBox other = SecretBox.of(SecretBox.newKey());

    assertThatThrownBy(() -> other.open(sealed))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(box.keyId())
        .hasMessageContaining(other.keyId());
    String altered =
        sealed.substring(0, sealed.length() - 2) + (sealed.endsWith("A") ? "BB" : "AA");
    assertThatThrownBy(() -> box.open(altered))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("altered");
    assertThatThrownBy(() -> SecretBox.none().seal("x")).hasMessageContaining("KURIR_SECRETS_KEY");
  }

  @Test
  void aCredentialIsStoredAsItsSha256() {
    // echo -n abc | sha256sum
    assertThat(SecretBox.hash("abc"))
        .isEqualTo("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assertThat(SecretBox.isHashed(SecretBox.hash("abc"))).isTrue();
    assertThat(SecretBox.isHashed("abc")).isFalse();
  }
}
