/**
 * Kurir — a message for every new form answer, through the Eco API (async send).
 *
 * Install in the spreadsheet that collects the form's answers:
 *   1. Extensions → Apps Script; paste this file and save.
 *   2. Fill in SETTINGS: your gateway's address, your device key, the column of the phone number
 *      and the message. In the template, [kolom1] is the answer's timestamp and [kolomN] the
 *      answer in column N.
 *   3. Triggers (clock icon) → Add trigger → function kirimPesan, event "On form submit".
 *      Approve the permissions it asks for (it calls your gateway).
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
  key: 'YOUR-DEVICE-KEY',
  kolom_no_wa: 3,
  template: 'Halo [kolom2], pendaftaran Anda pada [kolom1] sudah kami terima.'
};

/** The trigger's function: sends the message for the row the form just added. */
function kirimPesan(e) {
  var answer = answerOf_(e);
  var row = answer.row;
  var values = answer.values;
  var payload = {
    key: SETTINGS.key,
    phone_no: cell_(values, SETTINGS.kolom_no_wa),
    message: fillTemplate_(SETTINGS.template, values)
  };
  var response = UrlFetchApp.fetch(SETTINGS.base_url.replace(/\/+$/, '') + '/api/async_send_message', {
    method: 'post',
    contentType: 'application/json',
    payload: JSON.stringify(payload),
    muteHttpExceptions: true
  });
  Logger.log('Kurir row ' + row + ': HTTP ' + response.getResponseCode() + ' ' + response.getContentText());
  return response.getContentText();
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
