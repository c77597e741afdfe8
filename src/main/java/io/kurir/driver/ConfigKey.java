package io.kurir.driver;

/**
 * One key of a device's driver configuration ({@code --set key=value}, the Admin API's {@code
 * config}).
 *
 * @param name the key, such as {@code access-token}
 * @param secret whether the value is a secret: stored, given to the driver, never printed back by
 *     the API or the command line
 * @param required whether a device of this driver cannot work without it
 * @param description one line for help texts and error messages
 */
public record ConfigKey(String name, boolean secret, boolean required, String description) {

  public static ConfigKey optional(String name, String description) {
    return new ConfigKey(name, false, false, description);
  }

  public static ConfigKey required(String name, String description) {
    return new ConfigKey(name, false, true, description);
  }

  public static ConfigKey secret(String name, String description) {
    return new ConfigKey(name, true, true, description);
  }
}
