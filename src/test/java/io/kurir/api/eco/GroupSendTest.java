package io.kurir.api.eco;

import static org.assertj.core.api.Assertions.assertThat;

import io.kurir.driver.sandbox.SandboxNetwork.InboxEntry;
import io.kurir.tenant.Device;
import io.kurir.testing.Eventually;
import io.kurir.testing.Numbers;
import io.kurir.testing.TestGateway;
import io.kurir.testing.TestGateway.Reply;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/** Group sends by name and by id, and getGroupMember, against sandbox groups. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class GroupSendTest {
  TestGateway kurir;
  Device device;
  String a = Numbers.fresh();
  String b = Numbers.fresh();
  String groupId;

  @BeforeAll
  void start(@TempDir Path dir) {
    kurir = TestGateway.start(dir);
    device = kurir.newDevice();
    groupId = Numbers.digits(device.number()) + "-1600000000";
    kurir.sandbox().createGroup(groupId, "Kelas 7A", List.of(device.number(), a, b));
    kurir.sandbox().createGroup("6281299999999-1", "Not mine", List.of(a, b));
  }

  @AfterAll
  void stop() {
    kurir.close();
  }

  private Reply post(String path, String fields) {
    return kurir.postJson(path, "{\"key\":\"" + device.ecoKey() + "\"," + fields + "}");
  }

  private List<String> texts(String number) {
    return kurir.sandbox().inbox(number).stream().map(InboxEntry::text).toList();
  }

  @Test
  void sendsToAGroupByNameAndByIdInEveryForm() {
    assertThat(
            post("/api/send_group", "\"group_name\":\"kelas 7a\",\"message\":\"by name\"").body())
        .isEqualTo("success");
    assertThat(
            post(
                    "/api/send_message_group_id",
                    "\"group_id\":\"" + groupId + "\",\"message\":\"by id\"")
                .body())
        .isEqualTo("success");
    assertThat(
            post(
                    "/api/send_message_group_id",
                    "\"group_id\":\"" + groupId + "@g.us\",\"message\":\"g.us\"")
                .body())
        .isEqualTo("success");
    String id1 =
        post("/api/async_send_group", "\"group_name\":\"Kelas 7A\",\"message\":\"async name\"")
            .body();
    String id2 =
        post(
                "/api/async_send_message_group_id",
                "\"group_id\":\"" + groupId + "\",\"message\":\"async id\"")
            .body();
    assertThat(id1).matches("\\d+");
    assertThat(id2).matches("\\d+");

    Eventually.until("all five arrive", () -> texts(a).size() == 5);
    assertThat(texts(a)).containsExactly("by name", "by id", "g.us", "async name", "async id");
    assertThat(texts(b)).hasSize(5);
    assertThat(kurir.sandbox().inbox(a).getFirst().group()).isEqualTo(groupId);
    assertThat(kurir.sandbox().inbox(device.number()))
        .as("the sender is not its own recipient")
        .isEmpty();
  }

  @Test
  void unknownGroupsAndGroupsTheDeviceIsNotInAreNotFound() {
    assertThat(post("/api/send_group", "\"group_name\":\"Nope\",\"message\":\"x\"").body())
        .isEqualTo("group_not_found");
    assertThat(post("/api/send_group", "\"group_name\":\"Not mine\",\"message\":\"x\"").body())
        .isEqualTo("group_not_found");
    assertThat(
            post("/api/send_message_group_id", "\"group_id\":\"6281299999999-1\",\"message\":\"x\"")
                .body())
        .isEqualTo("group_not_found");
    assertThat(
            post("/api/send_message_group_id", "\"group_id\":\"not a group\",\"message\":\"x\"")
                .body())
        .isEqualTo("group_not_found");
    assertThat(post("/api/async_send_group", "\"group_name\":\"Nope\",\"message\":\"x\"").body())
        .isEqualTo("group_not_found");
    assertThat(post("/api/send_group", "\"message\":\"x\"").body()).isEqualTo("group_name_empty");
  }

  @Test
  void getGroupMemberListsNumbersOrSaysNone() {
    assertThat(post("/api/getGroupMember", "\"group_id\":\"" + groupId + "\"").body())
        .isEqualTo(
            String.join(
                ",", Numbers.digits(device.number()), Numbers.digits(a), Numbers.digits(b)));
    assertThat(post("/api/getGroupMember", "\"group_id\":\"6281299999999-1\"").body())
        .isEqualTo("n,o,n,e");
    assertThat(post("/api/getGroupMember", "\"group_id\":\"6281200000000-9\"").body())
        .isEqualTo("n,o,n,e");
    kurir.sandbox().setMultiDevice(device.id(), false);
    try {
      assertThat(post("/api/getGroupMember", "\"group_id\":\"" + groupId + "\"").body())
          .isEqualTo("failed");
    } finally {
      kurir.sandbox().setMultiDevice(device.id(), true);
    }
  }

  @Test
  void anOfflineDeviceAnswersPhoneOffline() {
    kurir.sandbox().setDeviceOnline(device.id(), false);
    try {
      assertThat(post("/api/send_group", "\"group_name\":\"Kelas 7A\",\"message\":\"x\"").body())
          .isEqualTo("phone_offline");
      assertThat(
              post(
                      "/api/send_message_group_id",
                      "\"group_id\":\"" + groupId + "\",\"message\":\"x\"")
                  .body())
          .isEqualTo("phone_offline");
    } finally {
      kurir.sandbox().setDeviceOnline(device.id(), true);
    }
  }

  @Test
  void inviteCodeStyleIdsWork() {
    String code = "AbCdEfGhIjKlMnOpQrStUv"; // 22 characters
    String c = Numbers.fresh();
    kurir.sandbox().createGroup(code, "Invite", List.of(device.number(), c));
    assertThat(
            post("/api/send_message_group_id", "\"group_id\":\"" + code + "\",\"message\":\"hi\"")
                .body())
        .isEqualTo("success");
    assertThat(texts(c)).containsExactly("hi");
    assertThat(
            post("/api/send_message_group_id", "\"group_id\":\"AbCdEf\",\"message\":\"hi\"").body())
        .isEqualTo("group_not_found");
  }
}
