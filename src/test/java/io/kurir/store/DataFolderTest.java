package io.kurir.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The data folder's problems as an operator reads them: "permission denied" with the path that
 * refused and the setting that chooses another folder, whatever the kernel's error was. (A real
 * EACCES cannot be made here: the tests run as root, who may write anywhere; StartupFailuresTest
 * starts a gateway on a folder nobody may make.)
 */
class DataFolderTest {
  @TempDir Path dir;

  private static final String USER = System.getProperty("user.name");

  @Test
  void aFolderTheUserMayNotWriteIsPermissionDeniedWithItsPath() {
    Path data = Path.of("/srv/kurir/data");

    assertThat(DataFolder.problem(new AccessDeniedException(data.toString()), data))
        .isEqualTo(
            "permission denied: /srv/kurir/data (user "
                + USER
                + " may not write there); give that user write access to it, or choose another"
                + " data folder with --data=<folder> (data.dir)");
  }

  @Test
  void aLockFileOfAnotherUserNamesTheFile() {
    Path lock = Path.of("/srv/kurir/data/kurir.db.lock");

    assertThat(DataFolder.problem(new AccessDeniedException(lock.toString()), lock))
        .startsWith("permission denied: /srv/kurir/data/kurir.db.lock (user " + USER);
  }

  @Test
  void rootsRefusalsAreSaidTheSameWay() {
    Path data = Path.of("/sys/kurir/data");

    assertThat(
            DataFolder.problem(
                new FileSystemException("/sys/kurir", null, "Operation not permitted"), data))
        .startsWith("permission denied: /sys/kurir (user " + USER + " may not write there, making")
        .endsWith("--data=<folder> (data.dir)");
    assertThat(
            DataFolder.problem(
                new FileSystemException("/sys/kurir", null, "Read-only file system"), data))
        .startsWith("permission denied: /sys/kurir (a read-only file system, making")
        .contains("mount it writable, or choose another data folder");
  }

  @Test
  void aMissingFolderIsMadeAndAnExistingOneKept() throws Exception {
    Path data = dir.resolve("a/b/data");

    DataFolder.prepare(data);
    DataFolder.prepare(data);

    assertThat(data).isDirectory();
  }

  @Test
  void aFileWhereTheFolderShouldBeIsNamed() throws Exception {
    Path file = Files.writeString(dir.resolve("data"), "");

    assertThatThrownBy(() -> DataFolder.prepare(file))
        .hasMessage(
            "cannot make "
                + file
                + ": "
                + file
                + " is a file, not a folder; choose another data folder with --data=<folder>"
                + " (data.dir)");
  }
}
