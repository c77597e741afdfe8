package io.kurir.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * One message object of each kind of the Cloud API's message object, as a caller of Kurir's API (or
 * of Meta's) writes it, for the tests of every kind. Written single-quoted for reading; {@link
 * #json} turns them into JSON.
 */
public final class MessageObjects {
  private MessageObjects() {}

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * Every kind, in order: text, image, video, audio (a voice note), document, sticker, location,
   * contacts, interactive buttons, interactive list, template, reaction, a text replying with a
   * mention. {@code messageId} is the id the reaction and the reply name.
   */
  public static List<String> everyKind(String messageId) {
    return List.of(
        "{'type':'text','text':{'body':'Hello','preview_url':true}}",
        "{'type':'image','image':{'link':'https://example.com/a.jpg','caption':'A'}}",
        "{'type':'video','video':{'link':'https://example.com/a.mp4','caption':'V'}}",
        "{'type':'audio','audio':{'link':'https://example.com/a.ogg','voice':true}}",
        "{'type':'document','document':{'link':'https://example.com/a.pdf','filename':'a.pdf'}}",
        "{'type':'sticker','sticker':{'link':'https://example.com/s.webp'}}",
        "{'type':'location','location':{'latitude':-6.2,'longitude':106.8,'name':'Monas',"
            + "'address':'Jakarta'}}",
        "{'type':'contacts','contacts':[{'name':{'formatted_name':'Budi'},"
            + "'phones':[{'phone':'+62 812 1111 2222','type':'WORK'}]}]}",
        "{'type':'interactive','interactive':{'type':'button','body':{'text':'Pick'},"
            + "'action':{'buttons':[{'type':'reply','reply':{'id':'y','title':'Yes'}}]}}}",
        "{'type':'interactive','interactive':{'type':'list','body':{'text':'Menu'},"
            + "'action':{'button':'Open','sections':[{'rows':[{'id':'r1','title':'One'}]}]}}}",
        "{'type':'template','template':{'name':'order_update','language':{'code':'id'},"
            + "'components':[{'type':'body','parameters':[{'type':'text','text':'A-1'}]}]}}",
        "{'type':'reaction','reaction':{'message_id':'"
            + messageId
            + "','emoji':'\\uD83D\\uDC4D'}}",
        "{'type':'text','text':{'body':'re','preview_url':false},"
            + "'context':{'message_id':'"
            + messageId
            + "'},'mentions':['+6281234500002']}");
  }

  /** A single-quoted object as JSON. */
  public static JsonNode json(String singleQuoted) {
    try {
      return JSON.readTree(singleQuoted.replace('\'', '"'));
    } catch (java.io.IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
