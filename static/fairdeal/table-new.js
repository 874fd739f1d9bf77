/* The new-table form shows only the chosen game's options (without this script every game's
   fieldset is shown under its heading, and only the chosen game's are used), and sets the
   seats field's range to the chosen game's. */
(function () {
  "use strict";
  var form = document.querySelector("form.table-new");
  if (!form) return;
  var game = form.querySelector('select[name="game"]');
  var seats = form.querySelector('input[name="seats"]');
  if (!game) return;

  function show() {
    form.querySelectorAll("fieldset[data-game]").forEach(function (fieldset) {
      var chosen = fieldset.getAttribute("data-game") === game.value;
      fieldset.hidden = !chosen;
      fieldset.disabled = !chosen;
    });
    var option = game.options[game.selectedIndex];
    if (seats && option && option.dataset.minSeats) {
      seats.min = option.dataset.minSeats;
      seats.max = option.dataset.maxSeats;
    }
  }

  game.addEventListener("change", show);
  show();
})();
