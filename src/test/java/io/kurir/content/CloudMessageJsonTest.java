package io.kurir.content;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The Cloud API's message object read, checked and written back, kind by kind. */
class CloudMessageJsonTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** One message object of each kind, written as Meta's reference writes them. */
  static List<String> everyKind() {
    return List.of(
        "{'type':'text','text':{'body':'Hello','preview_url':true}}",
        "{'type':'image','image':{'link':'https://example.com/a.jpg','caption':'A'}}",
        "{'type':'video','video':{'link':'https://example.com/a.mp4','caption':'V'}}",
        "{'type':'audio','audio':{'link':'https://example.com/a.ogg','voice':true}}",
        "{'type':'document','document':{'id':'1003383421387256','caption':'C','filename':'a.pdf'}}",
        "{'type':'sticker','sticker':{'link':'https://example.com/s.webp'}}",
        "{'type':'location','location':{'latitude':37.4847,'longitude':-122.1486,"
            + "'name':'Meta HQ','address':'1 Hacker Way'}}",
        "{'type':'contacts','contacts':[{'name':{'formatted_name':'Lucía Gómez',"
            + "'first_name':'Lucía'},'phones':[{'phone':'+1 (983) 555-2319','wa_id':'19835552319',"
            + "'type':'WORK'}]}]}",
        "{'type':'interactive','interactive':{'type':'button','body':{'text':'Pick'},"
            + "'action':{'buttons':[{'type':'reply','reply':{'id':'y','title':'Yes'}},"
            + "{'type':'reply','reply':{'id':'n','title':'No'}}]}}}",
        "{'type':'interactive','interactive':{'type':'list','header':{'type':'text','text':'H'},"
            + "'body':{'text':'Menu'},'footer':{'text':'F'},'action':{'button':'Open',"
            + "'sections':[{'title':'S','rows':[{'id':'r1','title':'One','description':'d'}]}]}}}",
        "{'type':'template','template':{'name':'order_update','language':{'code':'en_US'},"
            + "'components':[{'type':'body','parameters':[{'type':'text','text':'12345'}]}]}}",
        "{'type':'reaction','reaction':{'message_id':'wamid.X','emoji':'\\uD83D\\uDC4D'}}",
        "{'type':'reaction','reaction':{'message_id':'wamid.X','emoji':''}}",
        "{'type':'text','text':{'body':'re','preview_url':false},"
            + "'context':{'message_id':'wamid.Y'},'mentions':['+6281234567890']}");
  }

  @ParameterizedTest
  @MethodSource("everyKind")
  void everyKindReadsAndWritesBackAsItCame(String object) throws Exception {
    JsonNode given = json(object);
    MessageContent content = CloudMessageJson.parse(given);
    assertThat(content.kind().wireName()).isEqualTo(given.path("type").asText());
    assertThat(CloudMessageJson.write(content)).isEqualTo(given);
    assertThat(CloudMessageJson.fromStored(CloudMessageJson.toStored(content))).isEqualTo(content);
  }

  @Test
  void theRecordsHoldMetasFields() throws Exception {
    var location = (Content.Location) CloudMessageJson.parse(json(everyKind().get(6))).content();
    assertThat(location)
        .isEqualTo(new Content.Location(37.4847, -122.1486, "Meta HQ", "1 Hacker Way"));
    var reply = CloudMessageJson.parse(json(everyKind().get(13)));
    assertThat(reply.replyTo()).contains("wamid.Y");
    assertThat(reply.mentions()).containsExactly("+6281234567890");
    var buttons = (Content.Interactive) CloudMessageJson.parse(json(everyKind().get(8))).content();
    assertThat(buttons.buttons())
        .extracting(Content.Interactive.Choice::title)
        .containsExactly("Yes", "No");
    var reaction = (Content.Reaction) CloudMessageJson.parse(json(everyKind().get(12))).content();
    assertThat(reaction.removes()).isTrue();
    var audio = (Content.Audio) CloudMessageJson.parse(json(everyKind().get(3))).content();
    assertThat(audio.voice()).isTrue();
    // Meta's request schema writes coordinates as strings: read as the same numbers.
    var asStrings =
        CloudMessageJson.parse(
            json("{'type':'location','location':{'latitude':'37.4847','longitude':'-122.1486'}}"));
    assertThat(((Content.Location) asStrings.content()).latitude()).isEqualTo(37.4847);
  }

  @Test
  void metasRequestLeavesOutKurirsAdditions() throws Exception {
    MessageContent voice = CloudMessageJson.parse(json(everyKind().get(3)));
    assertThat(CloudMessageJson.graphRequest(voice))
        .isEqualTo(json("{'type':'audio','audio':{'link':'https://example.com/a.ogg'}}"));
    MessageContent mentioning = CloudMessageJson.parse(json(everyKind().get(13)));
    assertThat(CloudMessageJson.graphRequest(mentioning).has("mentions")).isFalse();
    assertThat(
            CloudMessageJson.graphRequest(mentioning).path("context").path("message_id").asText())
        .isEqualTo("wamid.Y");
  }

  static List<String[]> refusals() {
    return List.of(
        new String[] {"{}", "type_empty"},
        new String[] {"{'type':'poll'}", "type_not_valid"},
        new String[] {"{'type':'text'}", "text_empty"},
        new String[] {"{'type':'text','text':{'body':' '}}", "text_body_empty"},
        new String[] {
          "{'type':'text','text':{'body':'" + "x".repeat(4097) + "'}}", "text_body_too_long"
        },
        new String[] {"{'type':'image','image':{}}", "image_link_empty"},
        new String[] {"{'type':'image','image':{'link':'ftp://x/a.jpg'}}", "image_link_not_valid"},
        new String[] {
          "{'type':'image','image':{'link':'https://x/a.jpg','id':'1'}}", "image_link_not_valid"
        },
        new String[] {
          "{'type':'image','image':{'id':'1','caption':'" + "c".repeat(1025) + "'}}",
          "image_caption_too_long"
        },
        new String[] {
          "{'type':'location','location':{'latitude':91,'longitude':0}}",
          "location_latitude_not_valid"
        },
        new String[] {"{'type':'location','location':{'longitude':0}}", "location_latitude_empty"},
        new String[] {"{'type':'contacts','contacts':[]}", "contacts_empty"},
        new String[] {
          "{'type':'contacts','contacts':[{'phones':[{'phone':'1'}]}]}",
          "contacts_name_formatted_name_empty"
        },
        new String[] {
          "{'type':'interactive','interactive':{'type':'button','body':{'text':'b'},'action':{'buttons':[]}}}",
          "interactive_action_buttons_not_valid"
        },
        new String[] {
          "{'type':'interactive','interactive':{'type':'button','body':{'text':'b'},'action':{'buttons':[{'type':'reply','reply':{'id':'a','title':'"
              + "t".repeat(21)
              + "'}}]}}}",
          "interactive_action_buttons_reply_title_too_long"
        },
        new String[] {
          "{'type':'interactive','interactive':{'type':'flow','body':{'text':'b'},'action':{}}}",
          "interactive_type_not_valid"
        },
        new String[] {
          "{'type':'interactive','interactive':{'type':'list','body':{'text':'b'},'action':{'button':'o','sections':[{'rows':[]}]}}}",
          "interactive_action_sections_rows_empty"
        },
        new String[] {
          "{'type':'template','template':{'name':'x'}}", "template_language_code_empty"
        },
        new String[] {"{'type':'reaction','reaction':{'emoji':'x'}}", "reaction_message_id_empty"},
        new String[] {
          "{'type':'text','text':{'body':'b'},'context':{}}", "context_message_id_empty"
        },
        new String[] {"{'type':'text','text':{'body':'b'},'mentions':'x'}", "mentions_not_valid"});
  }

  @ParameterizedTest
  @MethodSource("refusals")
  void whatMetaRefusesIsRefusedWithATokenNamingTheField(String object, String token) {
    assertThatThrownBy(() -> CloudMessageJson.parse(json(object)))
        .isInstanceOfSatisfying(ContentRefused.class, e -> assertThat(e.token()).isEqualTo(token));
  }

  @Test
  void metasWebhookMessagesReadAsTheirKinds() throws Exception {
    var image =
        CloudMessageJson.readIncoming(
                json(
                    "{'from':'16505551234','id':'wamid.1','timestamp':'1','type':'image',"
                        + "'image':{'caption':'Taj','mime_type':'image/jpeg','sha256':'x','id':'9'}}"))
            .orElseThrow();
    assertThat(image.content()).isEqualTo(new Content.Image(MediaSource.NONE, "Taj"));
    var button =
        CloudMessageJson.readIncoming(
                json(
                    "{'type':'button','context':{'from':'1555','id':'wamid.T'},"
                        + "'button':{'payload':'Unsubscribe','text':'Stop'}}"))
            .orElseThrow();
    assertThat(button.replyTo()).contains("wamid.T");
    assertThat(((Content.Interactive) button.content()).bodyText()).isEqualTo("Stop");
    assertThat(CloudMessageJson.readIncoming(json("{'type':'unsupported','errors':[]}")))
        .isEqualTo(Optional.empty());
  }

  private static JsonNode json(String singleQuoted) throws Exception {
    return JSON.readTree(singleQuoted.replace('\'', '"'));
  }
}
