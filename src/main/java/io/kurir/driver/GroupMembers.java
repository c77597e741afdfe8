package io.kurir.driver;

import java.util.List;

/** What a driver knows of a group's members, asked through one device. */
public sealed interface GroupMembers {

  /**
   * The members' E.164 numbers ({@code +<digits>}); a member the network names only by its own id
   * (a LID whose phone is not known) by that id's {@link ContactId#address()}.
   */
  record Members(List<String> numbers) implements GroupMembers {}

  /** No such group, or the device is not in it. */
  record NotFound() implements GroupMembers {}

  /** The device's account cannot list members (not a multi-device account). */
  record NotSupported() implements GroupMembers {}

  /** The device is not connected, so nobody could be asked. */
  record Unknown() implements GroupMembers {}
}
