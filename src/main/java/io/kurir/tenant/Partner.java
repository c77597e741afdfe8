package io.kurir.tenant;

import java.time.Instant;

/**
 * A reseller: owns licenses and signs Partner API calls with Basic credentials. {@code basicSecret}
 * is stored as a hash: readable only in the partner answered by creation or rotation ({@link
 * Credentials#shown}).
 */
public record Partner(
    long id,
    String name,
    String email,
    String basicUser,
    String basicSecret,
    boolean disabled,
    Instant createdAt) {}
