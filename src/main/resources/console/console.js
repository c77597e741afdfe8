// Kurir's console: the little script it needs. An element with data-poll="<url>" has its content
// replaced every few seconds by what the url answers (the live QR code, a message's states), until
// an answer holds an element marked data-final. A form marked data-confirm asks before it is sent.
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
  });
  // A form that cannot be undone asks first; listening on the document also covers the forms a
  // poll puts in later (the linked device's "Log out").
  document.addEventListener('submit', function (e) {
    var f = e.target;
    if (f.hasAttribute && f.hasAttribute('data-confirm') &&
        !window.confirm(f.getAttribute('data-confirm'))) {
      e.preventDefault();
    }
  });
  // "Back" on an error page goes back to the page the form was on (its link, without the script).
  document.addEventListener('click', function (e) {
    var a = e.target.closest ? e.target.closest('a[data-back]') : null;
    if (a && window.history.length > 1) { e.preventDefault(); window.history.back(); }
  });
})();
