// Small fakes of the Apps Script services the scripts use. UrlFetchApp makes real, synchronous
// HTTP calls (as Apps Script's does), so a script under test talks to a running Kurir.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const FETCH_IN_CHILD = `
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', async () => {
  const { url, init } = JSON.parse(input);
  try {
    const res = await fetch(url, init);
    process.stdout.write(JSON.stringify({ status: res.status, body: await res.text() }));
  } catch (e) {
    process.stdout.write(JSON.stringify({ error: String(e) }));
  }
});`;

/** A sheet holding `rows` (arrays of cell values), row 1 first. */
export function fakeServices(rows, { timeZone = 'Asia/Jakarta' } = {}) {
  const calls = { fetches: [], sleeps: [], logs: [] };
  const sheet = {
    getLastRow: () => rows.length,
    getLastColumn: () => Math.max(...rows.map((r) => r.length)),
    getRange: (row, col, numRows, numCols) => ({
      getRow: () => row,
      getSheet: () => sheet,
      getValues: () =>
        rows.slice(row - 1, row - 1 + numRows).map((r) => {
          const out = r.slice(col - 1, col - 1 + numCols);
          while (out.length < numCols) out.push('');
          return out;
        }),
    }),
  };
  const SpreadsheetApp = {
    getActiveSheet: () => sheet,
    getActive: () => ({ getSpreadsheetTimeZone: () => timeZone, getActiveSheet: () => sheet }),
    getActiveSpreadsheet: () => ({ getSpreadsheetTimeZone: () => timeZone, getActiveSheet: () => sheet }),
  };
  const UrlFetchApp = {
    fetch(url, options = {}) {
      const headers = { ...(options.headers || {}) };
      if (options.contentType) headers['Content-Type'] = options.contentType;
      const init = { method: (options.method || 'get').toUpperCase(), headers };
      if (options.payload !== undefined) init.body = options.payload;
      calls.fetches.push({ url, init });
      const child = spawnSync(process.execPath, ['-e', FETCH_IN_CHILD], {
        input: JSON.stringify({ url, init }),
        encoding: 'utf8',
        timeout: 20000,
      });
      const result = JSON.parse(child.stdout || '{"error":"no answer"}');
      if (result.error) throw new Error(`fetch ${url}: ${result.error}`);
      if (result.status >= 400 && !options.muteHttpExceptions) {
        throw new Error(`Request failed for ${url} returned code ${result.status}`);
      }
      return { getResponseCode: () => result.status, getContentText: () => result.body };
    },
  };
  const Utilities = {
    sleep: (ms) => calls.sleeps.push(ms),
    formatDate(date, zone, format) {
      if (format !== 'yyyy-MM-dd HH:mm:ss') throw new Error('fake formatDate: ' + format);
      const parts = Object.fromEntries(
        new Intl.DateTimeFormat('en-CA', {
          timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit',
          hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
        }).formatToParts(date).map((p) => [p.type, p.value]));
      return `${parts.year}-${parts.month}-${parts.day} ${parts.hour}:${parts.minute}:${parts.second}`;
    },
  };
  const Logger = { log: (m) => calls.logs.push(String(m)) };
  return { services: { SpreadsheetApp, UrlFetchApp, Utilities, Logger }, calls };
}

/** Loads a .gs file into a fresh context with the fakes; returns that context (its globals). */
export function loadScript(file, services) {
  const context = vm.createContext({ ...services });
  vm.runInContext(readFileSync(file, 'utf8'), context, { filename: file });
  return context;
}
