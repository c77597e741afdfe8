package io.kurir.media;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The containers of videos and audio recordings named by their first bytes, for the media kinds of
 * Kurir's API whose network checks the type (GOWA); the seed families' sniffing is unchanged.
 */
class FileTypesTest {
  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  @Test
  void videoAndAudioContainersAreNamedByTheirFirstBytes() {
    assertThat(FileTypes.recording(bytes("\0\0\0\u0018ftypisom0000"))).contains("video/mp4");
    assertThat(FileTypes.recording(bytes("\0\0\0\u0018ftypM4A 0000"))).contains("audio/mp4");
    assertThat(FileTypes.recording(bytes("\0\0\0\u0018ftyp3gp50000"))).contains("video/3gpp");
    assertThat(FileTypes.recording(bytes("\0\0\0\u0014ftypqt  0000"))).contains("video/quicktime");
    assertThat(FileTypes.recording(bytes("\u001A\u0045\u00DF\u00A3\u0093B\u0082\u0084webm")))
        .contains("video/webm");
    assertThat(FileTypes.recording(bytes("\u001A\u0045\u00DF\u00A3\u0093B\u0082\u0088matroska")))
        .contains("video/x-matroska");
    assertThat(FileTypes.recording(bytes("RIFF\0\0\0\0AVI LIST"))).contains("video/x-msvideo");
    assertThat(FileTypes.recording(bytes("RIFF\0\0\0\0WAVEfmt "))).contains("audio/wav");
    assertThat(FileTypes.recording(bytes("OggS\0\u0002"))).contains("audio/ogg");
    assertThat(FileTypes.recording(bytes("ID3\u0004\0"))).contains("audio/mpeg");
    assertThat(FileTypes.recording(bytes("\u00FF\u00FB\u0090\0"))).contains("audio/mpeg");
    assertThat(FileTypes.recording(bytes("\u00FF\u00F1\u0050\u0080"))).contains("audio/aac");
    assertThat(FileTypes.recording(bytes("#!AMR\n"))).contains("audio/amr");
    assertThat(FileTypes.recording(bytes("fLaC\0\0\0\042"))).contains("audio/flac");
    assertThat(FileTypes.recording(bytes("RIFF\0\0\0\0WEBPVP8 ")))
        .as("a WebP is no recording")
        .isEmpty();
    assertThat(FileTypes.recording(bytes("%PDF-1.4"))).isEmpty();
  }

  @Test
  void theSeedFamiliesSniffingIsUnchanged() {
    assertThat(FileTypes.sniff(bytes("\0\0\0\u0018ftypisom0000")))
        .isEqualTo("application/octet-stream");
    assertThat(FileTypes.sniff(bytes("OggS\0\u0002"))).isEqualTo("application/octet-stream");
  }
}
