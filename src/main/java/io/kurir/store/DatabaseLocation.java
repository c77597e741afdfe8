package io.kurir.store;

/**
 * Where the database is and how to sign in to it: a JDBC URL ({@code jdbc:sqlite:…} or {@code
 * jdbc:postgresql://…}) and, for PostgreSQL, a user and password (empty: the URL's own, or the
 * driver's defaults). SQLite ignores the user and password.
 */
public record DatabaseLocation(String url, String user, String password) {

  public DatabaseLocation {
    user = user == null ? "" : user;
    password = password == null ? "" : password;
  }

  /** A location without credentials (SQLite, or a URL that carries its own). */
  public static DatabaseLocation of(String url) {
    return new DatabaseLocation(url, "", "");
  }

  /** Never prints the password. */
  @Override
  public String toString() {
    return url + (user.isEmpty() ? "" : " as " + user);
  }
}
