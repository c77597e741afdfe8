/**
 * Kurir — a message for every new form answer or edited row, through the API family you choose.
 *
 * Install in the spreadsheet that collects the answers:
 *   1. Extensions → Apps Script; paste this file and save.
 *   2. Fill in SETTINGS: your gateway's address; type: eco (key = device key), mobile_v1 (key =
 *      the handset's CS id, plus push_key and app_id), mobile_v2 (key = the handset's CS id or
 *      device id, plus push_key) or crm (key = the CRM deviceId); the column of the phone number
 *      and the message. In the template, [kolom1] is the timestamp and [kolomN] the answer in
 *      column N.
 *   3. Triggers (clock icon) → Add trigger → function kirimPesan, event "On form submit" (or
 *      "On edit" for a sheet typed by hand).
 * Numbers are cleaned (digits only, a leading 0 becomes 62, a leading 8 becomes 628); it waits
 * 3 s before each send. In a sheet typed by hand, format the number column as Plain text, or
 * Sheets drops the leading 0.
 * The leading 8 goes beyond the original script's rule on purpose: a number whose leading 0 the
 * sheet dropped (81234567890 for 081234567890) would otherwise be sent as +81…, a Japanese number;
 * the gateway reads such a number as Indonesian (+62812…), and so does this script.
 *   4. Test it: add a row (or send the form once), then in the editor choose kirimPesan in the
 *      list beside Run and press Run: it sends for the last row of the sheet.
 *   5. The log: Executions (the list icon on the left) → the run → its log line says the row, the
 *      HTTP status and the gateway's answer (a message id, or what was wrong). Every run of the
 *      trigger is listed there too.
 * Your gateway must be reachable over HTTPS from Google's servers (the script runs there, not on
 * your computer): base_url is its public address, such as https://kurir.example.com; an address
 * on your own network (127.0.0.1, 192.168.…) cannot work.
 */
var SETTINGS = {
  base_url: 'https://kurir.example.com',
  type: 'eco',
  key: 'YOUR-KEY-OR-CS-ID',
  push_key: '',
  app_id: '6b757269-7200-4000-8000-707573680001',
  kolom_no_wa: 3,
  template: 'Halo [kolom2], data Anda pada [kolom1] sudah kami terima.'
};

/** The trigger's function: sends the message for the row that was added or edited. */
function kirimPesan(e) {
  var answer = answerOf_(e);
  var row = answer.row;
  var values = answer.values;
  var number = normalizeNumber_(cell_(values, SETTINGS.kolom_no_wa));
  var message = fillTemplate_(SETTINGS.template, values);
  Utilities.sleep(3000); // paced, so that a burst of answers does not burst the gateway
  var request = requestFor_(SETTINGS.type, number, message);
  request.options.muteHttpExceptions = true;
  var response = UrlFetchApp.fetch(SETTINGS.base_url.replace(/\/+$/, '') + request.path, request.options);
  Logger.log('Kurir row ' + row + ' (' + SETTINGS.type + '): HTTP ' + response.getResponseCode() + ' ' +
      response.getContentText());
  return response.getContentText();
}

/** The path and options of the send for each type. */
function requestFor_(type, number, message) {
  var json = function (body, headers) {
    return { method: 'post', contentType: 'application/json', headers: headers || {}, payload: JSON.stringify(body) };
  };
  switch (type) {
    case 'eco':
      return { path: '/api/async_send_message', options: json({ key: SETTINGS.key, phone_no: number, message: message }) };
    case 'mobile_v1':
      return {
        path: '/api/v1/notifications',
        options: json({
          app_id: SETTINGS.app_id,
          include_player_ids: [SETTINGS.key],
          data: { type: 'text', message: message, no_wa: number },
          contents: { en: message },
          headings: { en: 'Kurir' }
        }, { Authorization: 'Basic ' + SETTINGS.push_key })
      };
    case 'mobile_v2':
      return {
        path: '/send',
        options: json({ to: SETTINGS.key, data: { message: message, number: number, send_from: 'spreadsheet' } },
            { Authorization: 'Bearer ' + SETTINGS.push_key })
      };
    case 'crm':
      return { path: '/send/message-text', options: json({ deviceId: SETTINGS.key, number: number, message: message }) };
    default:
      throw new Error('SETTINGS.type must be eco, mobile_v1, mobile_v2 or crm, not ' + type);
  }
}

/**
 * Digits only, a leading 0 becomes 62, a leading 8 (a local number whose 0 the sheet dropped;
 * not one written with its +) becomes 628, then a +; empty when that leaves 5 characters or fewer.
 */
function normalizeNumber_(raw) {
  var text = String(raw === undefined || raw === null ? '' : raw).trim();
  var digits = text.replace(/\D/g, '');
  if (digits.charAt(0) === '0') {
    digits = '62' + digits.substring(1);
  } else if (digits.charAt(0) === '8' && text.charAt(0) !== '+') {
    digits = '62' + digits; // as the gateway reads it, not +81… (Japan)
  }
  var number = '+' + digits;
  return number.length <= 5 ? '' : number;
}

/**
 * The row of the answer and its values: the trigger's row on the trigger's own sheet (not
 * whichever tab comes first), else the active sheet's last row. A form-submit trigger's e.values
 * are the answers as submitted, as text: a number typed 0812... keeps its leading 0 there, where
 * the cell may hold the number 812....
 */
function answerOf_(e) {
  var sheet = e && e.range && e.range.getSheet ? e.range.getSheet() : SpreadsheetApp.getActiveSheet();
  var row = e && e.range ? e.range.getRow() : sheet.getLastRow();
  var values = sheet.getRange(row, 1, 1, sheet.getLastColumn()).getValues()[0];
  if (e && e.values) {
    for (var i = 1; i < e.values.length; i++) { // column 1 stays the timestamp cell
      values[i] = e.values[i];
    }
  }
  return { row: row, values: values };
}

/** Column n of the row as text; empty when the row has no such column. */
function cell_(values, n) {
  var value = values[n - 1];
  return value === undefined || value === null ? '' : String(value);
}

/**
 * [kolom1] → always the timestamp: column 1's when it holds one (a form's answers), else the time
 * of this run (a sheet typed by hand has no timestamp column); [kolomN] → the answer in column N.
 */
function fillTemplate_(template, values) {
  var zone = SpreadsheetApp.getActive().getSpreadsheetTimeZone();
  var isDate = function (value) {
    return Object.prototype.toString.call(value) === '[object Date]';
  };
  return template.replace(/\[kolom(\d+)\]/g, function (all, n) {
    var value = values[Number(n) - 1];
    if (Number(n) === 1 && !isDate(value)) {
      value = new Date();
    }
    if (value === undefined || value === null) {
      return '';
    }
    if (isDate(value)) {
      return Utilities.formatDate(value, zone, 'yyyy-MM-dd HH:mm:ss');
    }
    return String(value);
  });
}
