package io.kurir.contactbook;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * A contact in a license's contact book: the person a campaign writes to.
 *
 * @param id Kurir's id of the contact
 * @param licenseId the license whose book holds it
 * @param phone its number in E.164 ({@code +628…}), its key within the license
 * @param name the name to greet it by ({@code {name}} in a campaign's message), if known
 * @param attributes the other columns an import gave (their names lower case, spaces as {@code _}),
 *     read by a campaign's {@code {attribute}} variables; sorted by name
 * @param tags what a campaign's audience picks it by, lower case; sorted
 * @param unsubscribed when and how it opted out; a campaign skips it
 * @param createdAt when it was first added
 * @param updatedAt when it last changed
 */
public record BookContact(
    long id,
    long licenseId,
    String phone,
    Optional<String> name,
    SortedMap<String, String> attributes,
    SortedSet<String> tags,
    Optional<Unsubscribed> unsubscribed,
    Instant createdAt,
    Instant updatedAt) {

  public BookContact {
    attributes = java.util.Collections.unmodifiableSortedMap(new TreeMap<>(attributes));
    tags = java.util.Collections.unmodifiableSortedSet(new TreeSet<>(tags));
  }

  /**
   * How a contact opted out.
   *
   * @param at when
   * @param by how: {@code reply:<word>} for a reply of an opt-out word (the word as written in
   *     {@code contacts.opt-out-words}), {@code api}, {@code console}
   */
  public record Unsubscribed(Instant at, String by) {}

  /** Whether campaigns skip it. */
  public boolean isUnsubscribed() {
    return unsubscribed.isPresent();
  }

  /** Its values as a campaign's variables see them: {@code name}, {@code phone}, attributes. */
  public Map<String, String> variables() {
    Map<String, String> v = new TreeMap<>(attributes);
    v.put("phone", phone);
    v.put("name", name.orElse(""));
    return v;
  }
}
