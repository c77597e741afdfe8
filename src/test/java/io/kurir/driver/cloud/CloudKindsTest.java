package io.kurir.driver.cloud;

import static io.kurir.testing.MessageObjects.json;
import static io.kurir.testing.TestFiles.PDF;
import static io.kurir.testing.TestFiles.PNG;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.MessageContent;
import io.kurir.message.Message;
import io.kurir.message.MessageState;
import io.kurir.message.Recipient;
import io.kurir.message.SendCommand;
import io.kurir.message.Sends;
import io.kurir.testing.Eventually;
import io.kurir.testing.FakeGraphApi.Sent;
import io.kurir.testing.MessageObjects;
import io.kurir.testing.TestTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every kind of the Cloud API's message object through the Cloud API driver against the fake Graph
 * API: sent as Meta's object whole (media by link, replies by {@code context.message_id}), each
 * checked by the fake as Meta documents it; and every kind of Meta's webhook messages read and
 * stored with its kind, content and (for media) the downloaded file.
 */
class CloudKindsTest {
  @TempDir Path dir;

  @Test
  void everyKindIsSentAsMetasObjectAndDelivered() {
    try (CloudFixture f = new CloudFixture(dir)) {
      Sends sends = new Sends(f.kurir.gateway().messages(), Duration.ofSeconds(10));
      String to = f.customer();
      for (String object : MessageObjects.everyKind("wamid.HBgNfirst")) {
        MessageContent content = CloudMessageJson.parse(json(object));
        if (!content.mentions().isEmpty()) {
          continue; // the Cloud API has no mentions: refused at accept (below)
        }
        Message m =
            sends
                .send(
                    f.device,
                    SendCommand.builder("v1").to(new Recipient(to, false)).content(content).build())
                .first();
        f.awaitState(m.id(), MessageState.DELIVERY);
        Sent sent = f.graph.sent().getLast();
        String type = content.kind().wireName();
        assertThat(sent.type()).as(object).isEqualTo(type);
        assertThat(sent.to()).isEqualTo(to.substring(1));
        assertThat(sent.body().path("messaging_product").asText()).isEqualTo("whatsapp");
        if (type.equals("text")) {
          // A plain text goes as the seed's do: previewed only when it holds a link and the
          // device allows it (the driver's rule for every text).
          assertThat(sent.body().path("text").path("body").asText()).isEqualTo("Hello");
        } else {
          assertThat(sent.body().get(type))
              .as(object)
              .isEqualTo(CloudMessageJson.graphRequest(content).get(type));
        }
        assertThat(f.networkId(m.id())).contains(sent.wamid());
      }
      assertThat(f.graph.uploads()).as("media go by link, nothing uploaded").isZero();
      JsonNode voice = f.graph.sent().get(3).body().path("audio");
      assertThat(voice.has("voice")).as("Kurir's voice flag is not Meta's").isFalse();
    }
  }

  @Test
  void aReplyCarriesContextByTheNetworksIdAndMentionsAreRefusedAtAccept() {
    try (CloudFixture f = new CloudFixture(dir)) {
      Sends sends = new Sends(f.kurir.gateway().messages(), Duration.ofSeconds(10));
      String to = f.customer();
      long first = f.sendAsync(to, "first");
      f.awaitState(first, MessageState.DELIVERY);
      String wamid = f.networkId(first).orElseThrow();
      MessageContent reply =
          CloudMessageJson.parse(
              json(
                  "{'type':'text','text':{'body':'re'},'context':{'message_id':'" + wamid + "'}}"));
      Message m =
          sends
              .send(
                  f.device,
                  SendCommand.builder("v1").to(new Recipient(to, false)).content(reply).build())
              .first();
      f.awaitState(m.id(), MessageState.DELIVERY);
      assertThat(f.graph.sent().getLast().body().path("context").path("message_id").asText())
          .isEqualTo(wamid);

      // Quoted by Kurir's id (what Kurir's API answered): sent with the network's id.
      MessageContent byKurirId =
          CloudMessageJson.parse(
              json(
                  "{'type':'text','text':{'body':'re'},'context':{'message_id':'" + first + "'}}"));
      Message again =
          sends
              .send(
                  f.device,
                  SendCommand.builder("v1").to(new Recipient(to, false)).content(byKurirId).build())
              .first();
      f.awaitState(again.id(), MessageState.DELIVERY);
      assertThat(f.graph.sent().getLast().body().path("context").path("message_id").asText())
          .isEqualTo(wamid);

      MessageContent mentioning =
          CloudMessageJson.parse(json(MessageObjects.everyKind(wamid).getLast()));
      long stored = f.kurir.storedMessages(f.device.id());
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () ->
                  sends.send(
                      f.device,
                      SendCommand.builder("v1")
                          .to(new Recipient(to, false))
                          .content(mentioning)
                          .build()))
          .hasMessage("the cloud driver cannot carry mentions");
      assertThat(f.kurir.storedMessages(f.device.id())).isEqualTo(stored);
    }
  }

  @Test
  void aKindOtherThanATemplateWaitsForTheWindowATemplateGoesAtOnce() {
    try (CloudFixture f = new CloudFixture(dir)) {
      Sends sends = new Sends(f.kurir.gateway().messages(), Duration.ofSeconds(10));
      String stranger = io.kurir.testing.Numbers.fresh();
      MessageContent location = CloudMessageJson.parse(json(MessageObjects.everyKind("x").get(6)));
      Message refused =
          sends
              .send(
                  f.device,
                  SendCommand.builder("v1")
                      .to(new Recipient(stranger, false))
                      .content(location)
                      .build())
              .first();
      f.awaitState(refused.id(), MessageState.FAILED);
      assertThat(f.graph.sent()).isEmpty();
      MessageContent template = CloudMessageJson.parse(json(MessageObjects.everyKind("x").get(10)));
      Message went =
          sends
              .send(
                  f.device,
                  SendCommand.builder("v1")
                      .to(new Recipient(stranger, false))
                      .content(template)
                      .build())
              .first();
      f.awaitState(went.id(), MessageState.DELIVERY);
      assertThat(f.graph.sent().getLast().body().path("template").path("name").asText())
          .isEqualTo("order_update");
    }
  }

  @Test
  void everyKindOfMetasWebhookIsStoredWithItsKindContentAndFile() {
    try (CloudFixture f = new CloudFixture(dir)) {
      TestTables tables = TestTables.of(f.kurir);
      String from = io.kurir.testing.Numbers.fresh().substring(1);
      String image = f.graph.addMedia(PNG, "image/png");
      String doc = f.graph.addMedia(PDF, "application/pdf");
      String ogg = f.graph.addMedia(new byte[] {1, 2, 3}, "audio/ogg");
      List<JsonNode> payloads =
          List.of(
              f.graph.kindMessage(
                  from,
                  "wamid.in1",
                  "image",
                  json(
                      "{'caption':'Taj','mime_type':'image/png','sha256':'x','id':'"
                          + image
                          + "'}"),
                  null),
              f.graph.kindMessage(
                  from,
                  "wamid.in2",
                  "document",
                  json(
                      "{'filename':'r.pdf','mime_type':'application/pdf','sha256':'x','id':'"
                          + doc
                          + "'}"),
                  null),
              f.graph.kindMessage(
                  from,
                  "wamid.in3",
                  "audio",
                  json("{'voice':true,'mime_type':'audio/ogg','sha256':'x','id':'" + ogg + "'}"),
                  null),
              f.graph.kindMessage(
                  from,
                  "wamid.in4",
                  "location",
                  json(
                      "{'address':'101 Forest Ave','latitude':37.44221496582,"
                          + "'longitude':-122.16165924072,'name':'Philz Coffee',"
                          + "'url':'https://philzcoffee.com/'}"),
                  null),
              f.graph.kindMessage(
                  from,
                  "wamid.in5",
                  "contacts",
                  json(
                      "[{'name':{'first_name':'Lucía','formatted_name':'Lucía Gómez'},"
                          + "'phones':[{'phone':'+1 (983) 555-2319','wa_id':'19835552319',"
                          + "'type':'MOBILE'}]}]"),
                  null),
              f.graph.kindMessage(
                  from,
                  "wamid.in6",
                  "reaction",
                  json("{'message_id':'wamid.out1','emoji':'\\uD83D\\uDE00'}"),
                  null),
              f.graph.kindMessage(
                  from,
                  "wamid.in7",
                  "interactive",
                  json("{'type':'list_reply','list_reply':{'id':'r1','title':'One'}}"),
                  "wamid.out2"));
      payloads.forEach(f.graph::deliver);
      Eventually.until("all stored", () -> tables.inboundOf(f.device.id()).size() == 7);
      List<TestTables.InboundRow> rows = tables.inboundOf(f.device.id());
      assertThat(rows)
          .extracting(r -> r.kind().orElse(""))
          .containsExactly(
              "image", "document", "audio", "location", "contacts", "reaction", "interactive");
      assertThat(rows.get(0).mediaPath()).isPresent();
      assertThat(rows.get(0).body()).isEqualTo("Taj");
      assertThat(rows.get(2).mediaPath()).isPresent();
      MessageContent audio = CloudMessageJson.fromStored(rows.get(2).content().orElseThrow());
      assertThat(((io.kurir.content.Content.Audio) audio.content()).voice()).isTrue();
      MessageContent location = CloudMessageJson.fromStored(rows.get(3).content().orElseThrow());
      assertThat(location.content())
          .isEqualTo(
              new io.kurir.content.Content.Location(
                  37.44221496582, -122.16165924072, "Philz Coffee", "101 Forest Ave"));
      assertThat(rows.get(3).body()).isEqualTo("Philz Coffee");
      assertThat(rows.get(4).body()).isEqualTo("Lucía Gómez");
      MessageContent reaction = CloudMessageJson.fromStored(rows.get(5).content().orElseThrow());
      assertThat(reaction.content())
          .isEqualTo(new io.kurir.content.Content.Reaction("wamid.out1", "\uD83D\uDE00"));
      assertThat(rows.get(5).body()).isEmpty();
      MessageContent choice = CloudMessageJson.fromStored(rows.get(6).content().orElseThrow());
      assertThat(choice.replyTo()).contains("wamid.out2");
      assertThat(rows.get(6).body()).isEqualTo("One");
    }
  }
}
