package io.kurir.message;

import java.util.List;

/** A message and every state it went through, oldest first. */
public record MessageHistory(Message message, List<MessageEvent> events) {}
