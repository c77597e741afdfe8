// The three spreadsheet scripts against a running Kurir: each sends a form row's message, and the
// sandbox phone receives it with the template filled in. Run by ./kurir test (AppsScriptTest),
// which starts the gateway and passes its address and credentials in KURIR_* variables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { fakeServices, loadScript } from './fakes.mjs';

const dir = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const script = (name) => path.join(dir, name);

function env(name) {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set: these tests run against a gateway that ./kurir test starts (AppsScriptTest)`);
  }
  return value;
}

let counter = 0;
/** A fresh phone number for each test, and a form row for it. */
function formRow(numberAsTyped) {
  const when = new Date(Date.UTC(2026, 10, 22, 3, 4, 5)); // 10:04:05 in Jakarta
  return [[ 'Timestamp', 'Nama', 'No WA' ], [ when, 'Sari ' + ++counter, numberAsTyped ]];
}

function freshNumber() {
  return '0813' + String(Date.now() % 100000000).padStart(8, '0').slice(-6) + String(++counter).padStart(2, '0');
}

async function inbox(e164) {
  const res = await fetch(`${env('KURIR_URL')}/sandbox/phones/${encodeURIComponent(e164)}/inbox`, {
    headers: { Authorization: 'Bearer ' + env('KURIR_ADMIN_TOKEN') },
  });
  assert.equal(res.status, 200, await res.clone().text());
  return (await res.json()).messages.map((m) => m.text);
}

async function arrives(e164, text) {
  for (let i = 0; i < 100; i++) {
    if ((await inbox(e164)).includes(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.fail(`"${text}" never reached ${e164}; inbox: ${JSON.stringify(await inbox(e164))}`);
}

const TEMPLATE = 'Halo [kolom2], terima kasih ([kolom1]).';
const expected = (row) => `Halo ${row[1][1]}, terima kasih (2026-11-22 10:04:05).`;
const e164 = (typed) => '+62' + typed.replace(/\D/g, '').replace(/^0/, '');

test('eco-async.gs sends the new row through the Eco API', async () => {
  const typed = freshNumber();
  const rows = formRow(typed);
  const { services, calls } = fakeServices(rows);
  const gs = loadScript(script('eco-async.gs'), services);
  Object.assign(gs.SETTINGS, { base_url: env('KURIR_URL'), key: env('KURIR_ECO_KEY'), kolom_no_wa: 3, template: TEMPLATE });
  const answer = gs.kirimPesan({ range: services.SpreadsheetApp.getActiveSheet().getRange(2, 1, 1, 3) });
  assert.match(answer, /^\d+$/, 'the async send answers the message id');
  assert.equal(calls.fetches[0].url, env('KURIR_URL') + '/api/async_send_message');
  await arrives(e164(typed), expected(rows));
});

test('push-v1.gs sends through a handset of the license', async () => {
  const typed = freshNumber();
  const rows = formRow(typed);
  const { services } = fakeServices(rows);
  const gs = loadScript(script('push-v1.gs'), services);
  Object.assign(gs.SETTINGS, {
    base_url: env('KURIR_URL'), push_key: env('KURIR_PUSH_KEY'), app_id: env('KURIR_APP_ID'),
    include_player_ids: env('KURIR_CS_PLAYER_ID'), kolom_no_wa: 3, template: TEMPLATE,
  });
  const answer = JSON.parse(gs.kirimPesan(undefined)); // no event: the last row
  assert.equal(answer.recipients, 1);
  await arrives(e164(typed), expected(rows));
});

for (const [type, keyVar, pushed] of [
  ['eco', 'KURIR_ECO_KEY', false],
  ['mobile_v1', 'KURIR_CS_PLAYER_ID', true],
  ['mobile_v2', 'KURIR_CS_HANDSET_ID', true],
  ['crm', 'KURIR_CRM_DEVICE_ID', false],
]) {
  test(`multi-type.gs with type ${type} normalises the number, waits 3 s and sends`, async () => {
    const typed = freshNumber().replace(/^(\d{4})(\d{4})/, '$1-$2 '); // typed with a dash and a space
    const rows = formRow(typed);
    const { services, calls } = fakeServices(rows);
    const gs = loadScript(script('multi-type.gs'), services);
    Object.assign(gs.SETTINGS, {
      base_url: env('KURIR_URL') + '/', type, key: env(keyVar),
      push_key: pushed ? env('KURIR_PUSH_KEY') : '', app_id: env('KURIR_APP_ID'),
      kolom_no_wa: 3, template: TEMPLATE,
    });
    gs.kirimPesan({ range: services.SpreadsheetApp.getActiveSheet().getRange(2, 1, 1, 3) });
    assert.deepEqual(calls.sleeps, [3000]);
    await arrives(e164(typed), expected(rows));
  });
}

test('multi-type.gs number normalisation', () => {
  const { services } = fakeServices(formRow('0'));
  const gs = loadScript(script('multi-type.gs'), services);
  assert.equal(gs.normalizeNumber_('0812-3456-7890'), '+6281234567890');
  assert.equal(gs.normalizeNumber_('+62 812 3456 7890'), '+6281234567890');
  assert.equal(gs.normalizeNumber_(6281234567890), '+6281234567890');
  assert.equal(gs.normalizeNumber_('0812'), '+62812'); // 6 characters: kept
  assert.equal(gs.normalizeNumber_('081'), ''); // +6281: 5 characters or fewer is empty
  assert.equal(gs.normalizeNumber_('1234'), '');
  assert.equal(gs.normalizeNumber_('12345'), '+12345');
  assert.equal(gs.normalizeNumber_(''), '');
  assert.equal(gs.normalizeNumber_(null), '');
});

test('multi-type.gs refuses an unknown type', () => {
  const { services } = fakeServices(formRow('08123456789'));
  const gs = loadScript(script('multi-type.gs'), services);
  gs.SETTINGS.type = 'telegram';
  assert.throws(() => gs.kirimPesan(undefined), /eco, mobile_v1, mobile_v2 or crm/);
});

test('a script generated by the Admin API works as handed out', async () => {
  const file = env('KURIR_GENERATED_MULTI_TYPE'); // multi-type, type crm, column 3, TEMPLATE
  const typed = freshNumber();
  const rows = formRow(typed);
  const { services } = fakeServices(rows);
  const gs = loadScript(file, services);
  assert.equal(gs.SETTINGS.type, 'crm');
  assert.equal(gs.SETTINGS.key, env('KURIR_CRM_DEVICE_ID'));
  gs.kirimPesan(undefined);
  await arrives(e164(typed), expected(rows));
});

// --- how a real form-submit trigger hands the row over (no HTTP: a recording UrlFetchApp)

function recording(name, rows, settings) {
  const { services } = fakeServices(rows);
  const sent = [];
  services.UrlFetchApp = {
    fetch(url, options) {
      sent.push({ url, body: JSON.parse(options.payload) });
      return { getResponseCode: () => 200, getContentText: () => '1' };
    },
  };
  const gs = loadScript(script(name), services);
  Object.assign(gs.SETTINGS, { base_url: 'http://gw', kolom_no_wa: 3, template: 'Halo [kolom2]' }, settings);
  return { gs, sent, services };
}

function sheetOf(rows) {
  const sheet = {
    getLastRow: () => rows.length,
    getLastColumn: () => Math.max(...rows.map((r) => r.length)),
    getRange: (row, col, n, c) => ({
      getRow: () => row,
      getSheet: () => sheet,
      getValues: () => rows.slice(row - 1, row - 1 + n).map((r) => r.slice(col - 1, col - 1 + c)),
    }),
  };
  return sheet;
}

const submitted = new Date(Date.UTC(2026, 10, 22, 3, 4, 5));

test('a number the sheet stored as a number keeps its 0 from the submitted answer', () => {
  const rows = [['T', 'N', 'W'], [submitted, 'Sari', 81234567890]];
  const { gs, sent } = recording('multi-type.gs', rows, { type: 'eco', key: 'k' });
  gs.kirimPesan({
    range: sheetOf(rows).getRange(2, 1, 1, 3),
    values: ['22/11/2026 10:04:05', 'Sari', '081234567890'],
  });
  assert.equal(sent[0].body.phone_no, '+6281234567890');
});

test('the row is read from the trigger\'s sheet, not the first tab', () => {
  const firstTab = [['Rekap'], ['x', 'not this', '0899999999']];
  const responses = [['T', 'N', 'W'], [submitted, 'Sari', '081234567890']];
  const { gs, sent } = recording('eco-async.gs', firstTab, { key: 'k' });
  gs.kirimPesan({ range: sheetOf(responses).getRange(2, 1, 1, 3) });
  assert.equal(sent[0].body.phone_no, '081234567890');
  assert.equal(sent[0].body.message, 'Halo Sari');
});

test('a row without the number column sends an empty number, not "undefined"', () => {
  const rows = [['T', 'N'], [submitted, 'Sari']];
  const { gs, sent } = recording('push-v1.gs', rows, { push_key: 'p', include_player_ids: 'x' });
  gs.kirimPesan({ range: sheetOf(rows).getRange(2, 1, 1, 2) });
  assert.equal(sent[0].body.data.no_wa, '');
});

test('multi-type.gs reads a number whose leading 0 the sheet dropped as Indonesian, not +81', () => {
  const { services } = fakeServices(formRow('0'));
  const gs = loadScript(script('multi-type.gs'), services);
  assert.equal(gs.normalizeNumber_('81234567890'), '+6281234567890');
  assert.equal(gs.normalizeNumber_(81234567890), '+6281234567890');
  assert.equal(gs.normalizeNumber_('+81 3 1234 5678'), '+81312345678', 'written with its +: Japan');
  // Typed by hand in a sheet without a Plain text column, the whole way through:
  const rows = [['Nama', 'No WA'], ['Sari', 81234567890]];
  const { gs: typed, sent } = recording('multi-type.gs', rows, { type: 'eco', key: 'k', kolom_no_wa: 2 });
  typed.kirimPesan({ range: sheetOf(rows).getRange(2, 1, 1, 2) });
  assert.equal(sent[0].body.phone_no, '+6281234567890');
});

for (const [name, settings, messageOf] of [
  ['eco-async.gs', { key: 'k' }, (b) => b.message],
  ['push-v1.gs', { push_key: 'p', include_player_ids: 'x' }, (b) => b.data.message],
  ['multi-type.gs', { type: 'eco', key: 'k' }, (b) => b.message],
]) {
  test(`${name} fills [kolom1] with the timestamp in a sheet typed by hand (no timestamp column)`, () => {
    const rows = [['Nama', 'Kelas', 'No WA'], ['Sari', '7B', '081234567890']];
    const { gs, sent } = recording(name, rows, { ...settings, template: '[kolom1] | [kolom2]' });
    gs.kirimPesan({ range: sheetOf(rows).getRange(2, 1, 1, 3) });
    assert.match(messageOf(sent[0].body), /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \| 7B$/);
  });

  test(`${name} says how to test it, where its log is, and that the gateway needs HTTPS`, async () => {
    const { readFileSync } = await import('node:fs');
    const header = readFileSync(script(name), 'utf8').split('var SETTINGS')[0];
    assert.match(header, /Test it:.*Run/s);
    assert.match(header, /Executions.*log/s);
    assert.match(header, /HTTPS from Google's servers/);
  });
}
