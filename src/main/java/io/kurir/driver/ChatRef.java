package io.kurir.driver;

/**
 * A chat of a device as the core names it to a driver: a person by number (E.164, or a LID or BSUID
 * the device met), or a group by its id.
 *
 * @param id the number or the group's id
 * @param group whether {@code id} names a group
 */
public record ChatRef(String id, boolean group) {}
