package io.kurir.message;

import java.time.Instant;
import java.util.Optional;

/** One state a message entered, when, and why (for failures and retries). */
public record MessageEvent(MessageState state, Optional<String> reason, Instant at) {}
