package io.kurir.media;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.config.Settings;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The ranges a caller's URL may not reach, in every form that carries them; none is contacted. */
class InternalAddressesTest {
  private final InternalAddresses rules = new InternalAddresses(Set::of);

  @ParameterizedTest
  @ValueSource(
      strings = {
        "198.18.0.0", // benchmarking 198.18.0.0/15, first and last
        "198.19.255.255",
        "64:ff9b:1::", // NAT64 local use 64:ff9b:1::/48, whatever it embeds
        "64:ff9b:1:ffff:ffff:ffff:ffff:ffff",
        "64:ff9b:1::5db8:d822",
        "::ffff:0:7f00:1", // IPv4-translated loopback
        "::ffff:0:a00:1", // IPv4-translated 10.0.0.1
        "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo whose client is 127.0.0.1 (inverted)
        "::ffff:127.0.0.1" // mapped, as Java reads it when written: plain IPv4 loopback
      })
  void theRangesLetThroughBeforeAreRefused(String address) throws Exception {
    assertThat(rules.isInternal(InetAddress.getByName(address))).as(address).isTrue();
  }

  /**
   * A resolver can hand over an IPv4-mapped address as IPv6 (Java turns a written one into IPv4): a
   * dual-stack socket then reaches the IPv4 address inside, so the whole ::ffff:0:0/96 is refused,
   * also where it carries a public address.
   */
  @ParameterizedTest
  @ValueSource(strings = {"00000000000000000000ffff7f000001", "00000000000000000000ffff5db8d822"})
  void everyMappedAddressHandedOverAsIpv6IsRefused(String hex) throws Exception {
    InetAddress mapped = Inet6Address.getByAddress(null, HexFormat.of().parseHex(hex), -1);
    assertThat(mapped).isInstanceOf(Inet6Address.class);
    assertThat(rules.isInternal(mapped)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "198.17.255.255", // either side of 198.18.0.0/15
        "198.20.0.0",
        "64:ff9b::5db8:d822", // well-known NAT64 prefix of a public address
        "64:ff9b:2::1",
        "2001:0:4136:e378:8000:63bf:a247:27dd" // Teredo whose client is a public address
      })
  void theirNeighboursAreNot(String address) throws Exception {
    assertThat(rules.isInternal(InetAddress.getByName(address))).as(address).isFalse();
  }

  @Test
  void anAddressOfThisHostIsInternalWhateverItsRange() throws Exception {
    InetAddress publicLooking = InetAddress.getByName("93.184.216.34");
    assertThat(rules.isInternal(publicLooking)).isFalse();
    InternalAddresses onThatHost = new InternalAddresses(() -> Set.of(publicLooking));
    assertThat(onThatHost.isInternal(publicLooking)).isTrue();
  }

  /** Every address of every interface of this machine is refused, through the fetcher's check. */
  @Test
  void theRealInterfacesOfThisHostAreEnumeratedAndRefused() throws Exception {
    Set<InetAddress> own = new HostAddresses(Clock.systemUTC()).get();
    assertThat(own).contains(InetAddress.getByName("127.0.0.1"));
    SafeFetcher fetcher = new SafeFetcher(new Settings.Media(1024, false, Duration.ofSeconds(1)));
    for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      for (InetAddress a : Collections.list(nic.getInetAddresses())) {
        assertThat(own).contains(a);
        String literal =
            a instanceof Inet6Address
                ? "[" + a.getHostAddress().replaceFirst("%.*$", "") + "]"
                : a.getHostAddress();
        assertThat(fetcher.refusalOf("http://" + literal + "/x.png")).as(literal).isPresent();
      }
    }
  }

  @Test
  void aResolverThatAnswersAnInternalAddressAmongPublicOnesIsRefusedWhole() throws Exception {
    SafeFetcher fetcher =
        new SafeFetcher(
            new Settings.Media(1024, false, Duration.ofSeconds(1)),
            host ->
                List.of(
                    InetAddress.getByName("93.184.216.34"), InetAddress.getByName("198.18.0.1")),
            rules::isInternal);
    assertThat(fetcher.refusalOf("http://mixed.example/x.png"))
        .get()
        .asString()
        .contains("198.18.0.1");
    // Refused at the lookup: nothing is contacted, not even the public address.
    assertThat(fetcher.fetch("http://mixed.example/x.png")).isInstanceOf(FetchResult.BadUrl.class);
  }
}
