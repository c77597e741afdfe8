// Kurir's console: the little script it needs. An element with data-poll="<url>" has its content
// replaced every few seconds by what the url answers (the live QR code, a message's states), until
// an answer holds an element marked data-final.
(function () {
  function poll(el) {
    var url = el.getAttribute('data-poll');
    var every = parseInt(el.getAttribute('data-every') || '2000', 10);
    function tick() {
      fetch(url, { credentials: 'same-origin', headers: { 'X-Console-Fragment': '1' } })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) {
          el.innerHTML = html;
          if (!el.querySelector('[data-final]')) { setTimeout(tick, every); }
        })
        .catch(function () { setTimeout(tick, every * 3); });
    }
    if (!el.querySelector('[data-final]')) { setTimeout(tick, every); }
  }
  document.addEventListener('DOMContentLoaded', function () {
    document.querySelectorAll('[data-poll]').forEach(poll);
    document.querySelectorAll('form[data-confirm]').forEach(function (f) {
      f.addEventListener('submit', function (e) {
        if (!window.confirm(f.getAttribute('data-confirm'))) { e.preventDefault(); }
      });
    });
  });
})();
