package io.kurir.store;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The data folder ({@code data.dir}: the SQLite database, media files, drivers' files), made ready
 * at start-up, before anything is written to it, so that a folder the gateway may not write says so
 * at once with its path, not later as "cannot lock the database" or a failed upload.
 */
public final class DataFolder {
  /** How an operator chooses another data folder; every message ends with it. */
  static final String CHOOSE_ANOTHER = "choose another data folder with --data=<folder> (data.dir)";

  private DataFolder() {}

  /**
   * Creates {@code folder} if it is missing and checks that this process may write in it.
   *
   * @throws IllegalStateException with one line for the operator when it cannot
   */
  public static void prepare(Path folder) {
    Path dir = folder.toAbsolutePath().normalize();
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new IllegalStateException(problem(e, dir), e);
    }
    // access(2): what the kernel would allow this user (root may write anywhere that is not
    // read-only). A folder it may not write is refused now, with its path, before anything is
    // half made in it.
    if (!Files.isWritable(dir)) {
      AccessDeniedException refused = new AccessDeniedException(dir.toString());
      throw new IllegalStateException(problem(refused, dir), refused);
    }
  }

  /**
   * One line for an operator about {@code e}, which happened while making {@code target} (the data
   * folder, or a file in it): the path that refused and what to do. A refusal (EACCES, EPERM, a
   * read-only file system) is "permission denied", whoever runs the gateway: root gets EPERM or
   * EROFS where another user gets EACCES.
   */
  static String problem(IOException e, Path target) {
    return problem(e, target, CHOOSE_ANOTHER);
  }

  /** What went wrong making the secrets key file {@code file}, given with {@code option}. */
  static String keyFileProblem(IOException e, Path file, String option) {
    return problem(e, file, "name a key file elsewhere with " + option + "=<file>");
  }

  private static String problem(IOException e, Path target, String chooseAnother) {
    Path refused =
        e instanceof FileSystemException f && f.getFile() != null ? Path.of(f.getFile()) : target;
    String reason = e instanceof FileSystemException f ? f.getReason() : null;
    String why = reason == null ? "" : reason.toLowerCase(java.util.Locale.ROOT);
    if (e instanceof AccessDeniedException
        || why.contains("permission denied")
        || why.contains("operation not permitted")
        || why.contains("read-only file system")) {
      boolean readOnly = why.contains("read-only file system");
      return "permission denied: "
          + refused
          + " ("
          + (readOnly ? "a read-only file system" : "user " + user() + " may not write there")
          + (refused.equals(target) ? "" : ", making " + target)
          + "); "
          + (readOnly ? "mount it writable" : "give that user write access to it")
          + ", or "
          + chooseAnother;
    }
    Path file = firstFileAbove(target);
    if (file != null) {
      return "cannot make " + target + ": " + file + " is a file, not a folder; " + chooseAnother;
    }
    return "cannot make "
        + target
        + ": "
        + (reason != null ? refused + ": " + reason : e)
        + "; "
        + chooseAnother;
  }

  /** The nearest existing path at or above {@code path} when it is not a folder; else null. */
  private static Path firstFileAbove(Path path) {
    for (Path p = path; p != null; p = p.getParent()) {
      if (Files.exists(p)) {
        return Files.isDirectory(p) ? null : p;
      }
    }
    return null;
  }

  private static String user() {
    return System.getProperty("user.name", "?");
  }
}
