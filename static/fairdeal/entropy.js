/* The browser's own contribution to a table's seed.
   On submit, a form marked data-entropy gets 32 random bytes from crypto.getRandomValues,
   as hex, in its hidden "entropy" field; the server mixes them into the seed before the
   deal. Without this script (or without crypto) the field stays empty and the form still
   works, with no contribution. A form is sent once: a second submit (a double click) is
   ignored until the page is shown again. */
(function () {
  "use strict";

  function randomHex(length) {
    var bytes = new Uint8Array(length);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return (b < 16 ? "0" : "") + b.toString(16);
    }).join("");
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute("data-entropy")) return;
    if (form.dataset.sending) {
      event.preventDefault();
      return;
    }
    form.dataset.sending = "yes";
    var field = form.querySelector('input[name="entropy"]');
    if (field && window.crypto && window.crypto.getRandomValues) {
      field.value = randomHex(32);
    }
  });

  // Back to a page kept in the browser's cache: its forms may be sent again.
  window.addEventListener("pageshow", function () {
    document.querySelectorAll("form[data-entropy]").forEach(function (form) {
      delete form.dataset.sending;
    });
  });
})();
