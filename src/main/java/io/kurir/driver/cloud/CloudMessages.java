package io.kurir.driver.cloud;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kurir.content.CloudMessageJson;
import io.kurir.content.MessageContent;
import io.kurir.driver.ContactId;
import java.util.Optional;

/** The bodies of {@code POST /<version>/<phone-number-id>/messages}, per Meta's reference. */
final class CloudMessages {
  private CloudMessages() {}

  /** The recipient as the Cloud API writes it: international digits, no {@code +}. */
  static String to(String e164) {
    return e164.startsWith("+") ? e164.substring(1) : e164;
  }

  /**
   * The common fields. A user known only by their business-scoped user id (a BSUID such as {@code
   * US.13491208655302741918}) is addressed with {@code recipient} in place of {@code to}, as Meta's
   * page on business-scoped user ids documents.
   */
  private static ObjectNode base(String address, String type) {
    ObjectNode body = GraphApi.JSON.createObjectNode();
    body.put("messaging_product", "whatsapp");
    body.put("recipient_type", "individual");
    Optional<ContactId> bsuid =
        ContactId.parse(address).filter(id -> id.kind() == ContactId.Kind.BSUID);
    if (bsuid.isPresent()) {
      body.put("recipient", bsuid.get().value());
    } else {
      body.put("to", to(address));
    }
    body.put("type", type);
    return body;
  }

  /**
   * A message of Kurir's own API: Meta's message object as {@link CloudMessageJson#graphRequest}
   * writes it (any kind, media by {@code link} or Meta's {@code id}, {@code context} for a reply),
   * after the common fields.
   */
  static ObjectNode of(String address, MessageContent content) {
    ObjectNode body = base(address, content.kind().wireName());
    body.setAll(CloudMessageJson.graphRequest(content));
    return body;
  }

  static ObjectNode text(String e164, String text, boolean preview) {
    ObjectNode body = base(e164, "text");
    ObjectNode t = body.putObject("text");
    t.put("body", text);
    t.put("preview_url", preview);
    return body;
  }

  /** An image (kind {@code image}) or a document (kind {@code file}) by its uploaded media id. */
  static ObjectNode media(String e164, String kind, String mediaId, String caption, String name) {
    boolean image = kind.equals("image");
    ObjectNode body = base(e164, image ? "image" : "document");
    ObjectNode m = body.putObject(image ? "image" : "document");
    m.put("id", mediaId);
    if (!caption.isBlank()) {
      m.put("caption", caption);
    }
    if (!image) {
      m.put("filename", name);
    }
    return body;
  }

  static ObjectNode template(String e164, CloudTemplate template, String text) {
    ObjectNode body = base(e164, "template");
    ObjectNode t = body.putObject("template");
    t.put("name", template.name());
    t.putObject("language").put("code", template.language());
    ObjectNode component = t.putArray("components").addObject();
    component.put("type", "body");
    ObjectNode parameter = component.putArray("parameters").addObject();
    parameter.put("type", "text");
    parameter.put("text", CloudTemplate.parameter(text));
    return body;
  }
}
