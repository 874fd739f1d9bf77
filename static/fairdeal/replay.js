/* The replay page steps through the match without asking the server again.

   The page carries every step: each distinct piece of HTML (a step's events, the board,
   a hand) once, in a <template>, and in data-steps each step as the numbers of its
   pieces, one per slot ([data-slot], in the page's order). A step swaps in the pieces
   that differ. The links and the "go to" forms step, Play steps on by itself at the
   chosen pace, and the keys ← → Home End and the space bar do the same; once the steps
   settle the address says ?step=n, so a reload or a shared link opens the same step. The step's events
   are read out through an aria-live region. Without this script the links and the
   forms load ?step=n, and the server draws that step. */
(function () {
  "use strict";

  var root = document.querySelector(".replay[data-steps]");
  if (!root || !("content" in document.createElement("template"))) return;

  var pieces = root.querySelectorAll(".replay-pieces > template");
  var steps = root.getAttribute("data-steps").split(";").map(function (row) {
    return row.split(",").map(Number);
  });
  var slots = root.querySelectorAll("[data-slot]");
  var last = steps.length - 1;
  var at = Number(root.getAttribute("data-step"));
  var shown = steps[at].slice();
  var said = document.getElementById("replay-said");
  var where = document.getElementById("replay-at");
  var previous = document.getElementById("replay-previous");
  var next = document.getElementById("replay-next");
  var field = document.getElementById("replay-step");
  var handPicker = document.getElementById("replay-hand");
  var play = document.getElementById("replay-play");
  var pace = document.getElementById("replay-pace");
  var timer = null;
  var addressTimer = null;

  function words(attribute, step) {
    return root.getAttribute(attribute).replace("{step}", String(step));
  }

  function urlOf(step) {
    var url = new URL(window.location.href);
    url.searchParams.set("step", String(step));
    return url.pathname + url.search;
  }

  function link(anchor, step, rel) {
    var on = step >= 0 && step <= last;
    anchor.classList.toggle("disabled", !on);
    if (on) {
      anchor.setAttribute("href", urlOf(step));
      anchor.setAttribute("rel", rel);
      anchor.removeAttribute("aria-disabled");
    } else {
      anchor.removeAttribute("href");
      anchor.removeAttribute("rel");
      anchor.setAttribute("aria-disabled", "true");
    }
  }

  // What the step says: its heading and its events, as one sentence for a screen reader.
  function spoken(slot) {
    var heading = slot.querySelector("h2");
    var lines = Array.prototype.map.call(slot.querySelectorAll("p, li"), function (line) {
      return line.textContent.trim();
    });
    return (heading ? heading.textContent.trim() + ": " : "") + lines.join(". ") + ".";
  }

  function show(step) {
    step = Math.max(0, Math.min(last, step));
    if (step === at) return;
    var focused = document.activeElement;
    var row = steps[step];
    for (var i = 0; i < slots.length; i++) {
      if (row[i] === shown[i]) continue;
      var slot = slots[i];
      slot.replaceChildren(pieces[row[i]].content.cloneNode(true));
      slot.classList.remove("replay-changed");
      void slot.offsetWidth; // start the highlight again
      slot.classList.add("replay-changed");
      shown[i] = row[i];
    }
    at = step;
    root.setAttribute("data-step", String(step));
    link(previous, step - 1, "prev");
    link(next, step + 1, "next");
    where.textContent = words("data-at", step);
    document.title = words("data-title", step);
    field.value = String(step);
    if (handPicker) {
      // The hand this step is in: the last one that starts at or before it.
      for (var h = handPicker.options.length - 1; h >= 0; h--) {
        if (Number(handPicker.options[h].value) <= step) {
          handPicker.selectedIndex = h;
          break;
        }
      }
    }
    if (!playing()) remember(step);
    said.textContent = spoken(slots[0]);
    // A link that can no longer be followed gives the focus to the other way.
    if (focused === previous && step === 0) next.focus();
    if (focused === next && step === last) previous.focus();
  }

  // The address says the step shown, once the steps have settled: browsers refuse a page
  // that changes its address too often (a key held down), and ask for its icon again.
  function remember(step) {
    window.clearTimeout(addressTimer);
    addressTimer = window.setTimeout(function () {
      try {
        history.replaceState(history.state, "", urlOf(step));
      } catch (error) {
        // Refused: the address stays as it was; the step is shown all the same.
      }
    }, 400);
  }

  function go(to) {
    if (to === "first") return 0;
    if (to === "previous") return at - 1;
    if (to === "next") return at + 1;
    if (to === "last") return last;
    return at;
  }

  function playing() {
    return timer !== null;
  }

  // The button says what it will do: its sign and its word, each kept in data-play and data-pause.
  function label(what) {
    Array.prototype.forEach.call(play.querySelectorAll("[data-" + what + "]"), function (part) {
      part.textContent = part.getAttribute("data-" + what);
    });
  }

  function pause() {
    if (!playing()) return;
    window.clearInterval(timer);
    timer = null;
    label("play");
    remember(at);
  }

  function start() {
    if (playing()) return;
    if (at === last) show(0); // from the start again, once at the end
    label("pause");
    timer = window.setInterval(function () {
      show(at + 1);
      if (at === last) pause();
    }, Number(pace.value));
  }

  function toggle() {
    if (playing()) pause();
    else start();
  }

  root.addEventListener("click", function (event) {
    var anchor = event.target.closest("a[data-go]");
    if (!anchor || event.button !== 0 || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    event.preventDefault();
    if (!anchor.hasAttribute("href")) return;
    pause();
    show(go(anchor.getAttribute("data-go")));
  });

  root.addEventListener("submit", function (event) {
    var form = event.target.closest("form[data-go]");
    if (!form) return;
    event.preventDefault();
    var value = form.elements.step.value;
    if (!/^\d+$/.test(value)) return;
    pause();
    show(Number(value));
  });

  play.addEventListener("click", toggle);
  pace.addEventListener("change", function () {
    if (playing()) {
      pause();
      start();
    }
  });

  var keys = { ArrowLeft: "previous", ArrowRight: "next", Home: "first", End: "last" };
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var target = event.target;
    // Keys typed into a field (the "go to move" number, a list) are the field's; the space
    // bar on a button presses that button.
    if (target && target.closest && target.closest("input, textarea, select")) return;
    if (event.key === " ") {
      if (target && target.closest && target.closest("button")) return;
      event.preventDefault();
      toggle();
      return;
    }
    var to = keys[event.key];
    if (!to) return;
    event.preventDefault();
    pause();
    show(go(to));
  });

  Array.prototype.forEach.call(root.querySelectorAll(".replay-player"), function (part) {
    part.hidden = false;
  });
})();
