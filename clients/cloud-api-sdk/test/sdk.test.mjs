// A public WhatsApp Cloud API client library (@kapso/whatsapp-cloud-api, written for Meta's Graph
// API) run unchanged against Kurir's /graph door: only its base URL and access token are Kurir's,
// and the phone-number id is a Kurir device's id. Each message is looked for on the sandbox phone
// it went to. Run by ./kurir test (GraphSdkTest), which starts the gateway, installs this folder's
// locked dependencies and passes the address and credentials in KURIR_* variables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WhatsAppClient, GraphApiError } from '@kapso/whatsapp-cloud-api';

function env(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: these tests run against a gateway that ./kurir test starts (GraphSdkTest)`);
  }
  return value;
}

const client = new WhatsAppClient({
  baseUrl: env('KURIR_URL') + '/graph',
  accessToken: env('KURIR_GRAPH_TOKEN'),
  graphVersion: 'v23.0',
});
const phoneNumberId = env('KURIR_PHONE_NUMBER_ID');
const to = env('KURIR_TO'); // international, without +, as Meta takes it

// A 1x1 PNG.
const PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

async function onThePhone(messageId) {
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${env('KURIR_URL')}/sandbox/phones/%2B${to}/inbox`, {
      headers: { Authorization: 'Bearer ' + env('KURIR_ADMIN_TOKEN') },
    });
    assert.equal(res.status, 200, await res.clone().text());
    const found = (await res.json()).messages.find((m) => m.messageId === messageId);
    if (found) {
      return found;
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // polling the phone, not a timing
  }
  assert.fail(`message ${messageId} never reached the phone`);
}

async function recordedSent(messageId) {
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${env('KURIR_URL')}/admin/messages/${messageId}`, {
      headers: { Authorization: 'Bearer ' + env('KURIR_ADMIN_TOKEN') },
    });
    assert.equal(res.status, 200, await res.clone().text());
    if (/"state":"(sent|delivery|read)"/.test(await res.text())) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // polling Kurir, not a timing
  }
  assert.fail(`message ${messageId} never recorded as sent`);
}

function sentId(reply) {
  assert.equal(reply.messagingProduct, 'whatsapp');
  assert.equal(reply.contacts[0].input, to);
  assert.equal(reply.contacts[0].waId, to);
  assert.match(reply.messages[0].id, /^[0-9]+$/);
  return reply.messages[0].id;
}

test('sendText reaches the phone', async () => {
  const id = sentId(await client.messages.sendText({ phoneNumberId, to, body: 'Hello from an SDK' }));
  assert.equal((await onThePhone(id)).text, 'Hello from an SDK');
});

test('sendLocation and a reply by contextMessageId keep their objects', async () => {
  const location = sentId(
    await client.messages.sendLocation({
      phoneNumberId,
      to,
      location: { latitude: -6.175, longitude: 106.8272, name: 'Monas', address: 'Jakarta' },
    }),
  );
  const shown = await onThePhone(location);
  await recordedSent(location); // Kurir quotes it by the network's id once it knows that id
  assert.equal(shown.kind, 'location');
  assert.equal(shown.location.name, 'Monas');
  const reply = sentId(
    await client.messages.sendText({ phoneNumberId, to, body: 'See you there', contextMessageId: location }),
  );
  // Quoted by Kurir's id, it reaches the network as the network's id of that message.
  assert.equal((await onThePhone(reply)).context.message_id, shown.networkId);
});

test('media.upload, media.get, media.download, then sendImage by the id', async () => {
  const uploaded = await client.media.upload({ phoneNumberId, type: 'image/png', file: PNG, fileName: 'dot.png' });
  assert.match(uploaded.id, /^[0-9]+$/);
  const media = await client.media.get({ mediaId: uploaded.id });
  assert.equal(media.mimeType, 'image/png');
  assert.equal(media.fileSize, PNG.length);
  assert.equal(media.id, uploaded.id);
  // The SDK fetches the URL without the token (auth "auto" on a host other than its vendor's).
  const bytes = new Uint8Array(await client.media.download({ mediaId: uploaded.id }));
  assert.deepEqual(bytes, PNG);
  const id = sentId(
    await client.messages.sendImage({ phoneNumberId, to, image: { id: uploaded.id, caption: 'A dot' } }),
  );
  const shown = await onThePhone(id);
  assert.equal(shown.kind, 'image');
  assert.equal(shown.mediaBytes, PNG.length);
  assert.equal(shown.image.caption, 'A dot');
});

test('sendDocument by link', async () => {
  const id = sentId(
    await client.messages.sendDocument({
      phoneNumberId,
      to,
      document: { link: 'https://example.com/invoice.pdf', filename: 'invoice.pdf', caption: 'Invoice' },
    }),
  );
  assert.equal((await onThePhone(id)).document.filename, 'invoice.pdf');
});

test('markRead marks a received message read, with the typing indicator', async () => {
  const received = env('KURIR_RECEIVED_ID'); // a message the customer wrote to the device
  assert.deepEqual(await client.messages.markRead({ phoneNumberId, messageId: received }), { success: true });
  assert.deepEqual(
    await client.messages.markRead({ phoneNumberId, messageId: received, typingIndicator: { type: 'text' } }),
    { success: true },
  );
  const res = await fetch(`${env('KURIR_URL')}/sandbox/phones/%2B${to}/inbox`, {
    headers: { Authorization: 'Bearer ' + env('KURIR_ADMIN_TOKEN') },
  });
  const phone = await res.json();
  assert.equal(Object.values(phone.readBy)[0].upTo, received);
  assert.equal(phone.typing.length, 1);
  await assert.rejects(
    client.messages.markRead({ phoneNumberId, messageId: 'wamid.never-received' }),
    (e) => e instanceof GraphApiError && e.code === 100 && e.httpStatus === 400,
  );
});

test("a bad token and another number's id are Meta's errors", async () => {
  const stranger = new WhatsAppClient({ baseUrl: env('KURIR_URL') + '/graph', accessToken: 'kurir_nobody' });
  await assert.rejects(
    stranger.messages.sendText({ phoneNumberId, to, body: 'x' }),
    (e) => e instanceof GraphApiError && e.code === 190 && e.httpStatus === 401,
  );
  await assert.rejects(
    client.messages.sendText({ phoneNumberId: env('KURIR_OTHER_PHONE_NUMBER_ID'), to, body: 'x' }),
    (e) => e instanceof GraphApiError && e.code === 100 && e.errorSubcode === 33,
  );
});
