package io.kurir.message;

import java.nio.file.Path;

/**
 * An image or file attached to a message, as stored by the gateway.
 *
 * @param name safe file name shown to the recipient
 * @param mimeType type read from the content
 * @param path where the gateway keeps the bytes
 */
public record MediaRef(String name, String mimeType, Path path) {}
