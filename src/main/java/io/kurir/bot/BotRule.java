package io.kurir.bot;

import java.time.Instant;

/**
 * A keyword auto-reply of a license.
 *
 * @param keyword the keyword as the partner gave it
 * @param matchKey the keyword normalised for matching ({@link BotMatcher#normalize})
 * @param response the reply sent to whoever wrote the matching text
 */
public record BotRule(
    long id,
    long licenseId,
    String keyword,
    String matchKey,
    MatchType matchType,
    String response,
    Instant createdAt) {}
