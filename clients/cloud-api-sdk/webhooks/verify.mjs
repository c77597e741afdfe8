// Reads webhook deliveries as a receiver written for Meta's Cloud API does, with the public SDK's
// own functions: verifySignature (X-Hub-Signature-256 with the app secret) and normalizeWebhook.
// Run by MetaWebhookSdkTest on the deliveries of a Kurir "meta" webhook subscription:
//   node webhooks/verify.mjs <input.json>
// where input.json is {"secret": "...", "deliveries": [{"body64": "<raw body, base64>",
// "signature": "<X-Hub-Signature-256 header>"}]}; prints, one per delivery, {"valid", "tampered",
// "normalized"} as JSON ("tampered": the same check with one byte of the body changed).
import { readFileSync } from 'node:fs';
import { verifySignature, normalizeWebhook } from '@kapso/whatsapp-cloud-api/server';

const input = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const out = input.deliveries.map(({ body64, signature }) => {
  const rawBody = Buffer.from(body64, 'base64');
  const changed = Buffer.from(rawBody);
  changed[changed.length - 2] ^= 1;
  return {
    valid: verifySignature({ appSecret: input.secret, rawBody, signatureHeader: signature }),
    tampered: verifySignature({ appSecret: input.secret, rawBody: changed, signatureHeader: signature }),
    normalized: normalizeWebhook(JSON.parse(rawBody.toString('utf8'))),
  };
});
process.stdout.write(JSON.stringify(out));
