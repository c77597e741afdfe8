package io.kurir.testing;

import java.util.Arrays;

/** Small files whose first bytes make them what they claim to be, for media tests. */
public final class TestFiles {
  public static final byte[] PNG =
      bytes(new int[] {0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, 200);
  public static final byte[] JPEG = bytes(new int[] {0xFF, 0xD8, 0xFF, 0xE0}, 300);
  public static final byte[] PDF = bytes(new int[] {'%', 'P', 'D', 'F', '-', '1', '.', '4'}, 400);

  private TestFiles() {}

  /** {@code size} bytes that start with {@code magic}. */
  public static byte[] bytes(int[] magic, int size) {
    byte[] b = new byte[size];
    Arrays.fill(b, (byte) 'x');
    for (int i = 0; i < magic.length; i++) {
      b[i] = (byte) magic[i];
    }
    return b;
  }
}
