/* The new-table form offers only what goes together with the chosen game: its options (the
   other games' fieldsets are hidden and disabled), the numbers of seats it is played by, as
   many computer players as the seats leave room for (none where it has no bots at that
   count), and its bots' levels. The game's choice carries what it takes (data-min-seats,
   data-max-seats, data-bots-from-seats, data-bot-levels: games.forms.GameSelect).
   Without this script every game's fieldset and every count show, and the server says in
   words what does not go together. */
(function () {
  "use strict";
  var form = document.querySelector("form.table-new");
  if (!form) return;
  var game = form.querySelector('select[name="game"]');
  var seats = form.querySelector('select[name="seats"]');
  var bots = form.querySelector('select[name="bots"]');
  var level = form.querySelector('select[name="bot_level"]');
  var fill = form.querySelector('select[name="bot_fill"]');
  var rated = form.querySelector('input[name="rated"]');
  if (!game) return;

  function number(value, otherwise) {
    var n = parseInt(value, 10);
    return isNaN(n) ? otherwise : n;
  }

  // Fill a select with the whole numbers low..high, keeping its choice where it still fits.
  function offer(select, low, high) {
    var kept = number(select.value, low);
    while (select.options.length) select.remove(0);
    for (var n = low; n <= high; n++) select.add(new Option(String(n), String(n)));
    select.value = String(Math.min(Math.max(kept, low), high));
  }

  function chosen() {
    var option = game.options[game.selectedIndex];
    return option ? option.dataset : {};
  }

  function showOptions() {
    form.querySelectorAll("fieldset[data-game]").forEach(function (fieldset) {
      var shown = fieldset.getAttribute("data-game") === game.value;
      fieldset.hidden = !shown;
      fieldset.disabled = !shown;
    });
  }

  function adapt() {
    var data = chosen();
    if (seats && data.minSeats) {
      offer(seats, number(data.minSeats, 2), number(data.maxSeats, 2));
    }
    var count = seats ? number(seats.value, 2) : 2;
    var botsAllowed = count >= number(data.botsFromSeats, 2);
    if (bots) offer(bots, 0, botsAllowed ? count - 1 : 0);
    if (fill) {
      if (!botsAllowed) fill.value = "";
      fill.disabled = !botsAllowed;
    }
    if (level && data.botLevels) {
      var levels = data.botLevels.split(" ");
      Array.prototype.forEach.call(level.options, function (option) {
        option.disabled = levels.indexOf(option.value) < 0;
      });
      if (levels.indexOf(level.value) < 0) level.value = levels[0];
    }
    if (rated) {
      // A table with a bot is never rated.
      var withBots = (bots && bots.value !== "0") || (fill && fill.value !== "");
      if (withBots) rated.checked = false;
      rated.disabled = Boolean(withBots);
    }
  }

  game.addEventListener("change", function () {
    showOptions();
    adapt();
  });
  [seats, bots, fill].forEach(function (select) {
    if (select) select.addEventListener("change", adapt);
  });
  showOptions();
  adapt();
})();
