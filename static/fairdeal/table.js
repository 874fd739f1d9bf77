/* The table page, played by its cards, kept current without a reload.

   Playing: a card in the hand, a centre card or the stock is what the player clicks (or
   focuses and presses Enter or Space). Each legal move's form (the list of every move,
   which stays the keyboard's and the screen reader's way) says what is clicked to make
   it (data-keys, in order: "card:8S", "stock", "centre:R7"); a click narrows the moves
   to those that begin so. One move left, made by what was clicked: it is sent. Several
   (an eight and the suit it calls, a card alone or with more): their buttons are offered
   by the hand. A card that can make no move now is marked so (aria-disabled). The
   server stays the judge: what is sent is the move's own form, and a refusal comes back
   in words.

   No reload: a move's form is sent with fetch (X-Fairdeal-Fragment: 1) and the server
   answers the board, which is swapped in; the scroll and the focus stay. Without this
   script the forms post and the page comes back (Post/Redirect/Get).

   Kept current: every 2 seconds the page asks the table's version (GET
   tables/<id>/version/ with If-None-Match: 304 when nothing moved); when it has moved,
   it fetches the board again (?fragment=1). After a move, and while the table moves, it
   asks a quarter of a second later, then half a second, a second, and back to 2 seconds:
   the computer's answers show at once, not at the next of the 2-second polls. Several
   moves since the last look (the bots' answers) are shown one at a time: the board as it
   was after each (GET tables/<id>/board/?version=V, the viewer's own view of that
   version, the last dozen at most), a short pause each, the move marked in the log and
   at its seat, the last one left marked; the aria-live region reads them out (no poll
   while they are shown). A click while they are shown brings the table as it is now.
   With prefers-reduced-motion the latest board is drawn at once, the last move marked
   and every one read out. docs/pages.md says why polling and not a socket. */
(function () {
  "use strict";

  var board = document.getElementById("board");
  if (!board || !window.fetch || !window.FormData) return;
  // ms between two polls (FAIRDEAL_POLL_MS, 2000): a move shows within three seconds
  var INTERVAL = Number(board.getAttribute("data-poll-ms")) || 2000;
  var MAX_BACKOFF = 30000; // after failures, poll no less often than this
  // ms to the next poll while the table is moving (after a move, the bots' answers come
  // within a moment), doubled at each poll that finds nothing new, back to INTERVAL
  var SOON = Math.min(INTERVAL, 250);
  // ms each of several new moves is shown alone (FAIRDEAL_REVEAL_MS, 700)
  var PAUSE = Number(board.getAttribute("data-reveal-ms")) || 700;
  var live = document.getElementById("table-live");
  var versionUrl = board.getAttribute("data-version-url");
  var fragmentUrl = board.getAttribute("data-fragment-url");
  var boardUrl = board.getAttribute("data-board-url");
  var MOST_BOARDS = 12; // the earlier boards shown for several new moves, the newest ones
  var delay = INTERVAL;
  var timer = null;
  var polling = false; // a poll is on its way
  var sending = false; // a move is on its way
  var revealing = null; // the timer showing new moves one at a time
  var round = 0; // each showing of new moves, or a move sent, ends the one before
  var stepping = false; // earlier boards are being fetched or shown
  var hurry = null; // while an earlier board is shown: draws the table as it is now
  var listOpen = false; // whether the player left the list of every move open
  var selection = []; // the clicked elements, in order

  function state() {
    return board.querySelector(".board-state");
  }

  function attribute(name) {
    var s = state();
    return s ? s.getAttribute(name) || "" : "";
  }

  function ended() {
    var status = attribute("data-status");
    return status === "finished" || status === "cancelled";
  }

  function say(text) {
    if (live && text) live.textContent = text;
  }

  // While a move is on its way, or earlier boards or new moves are shown one at a time,
  // the board says it is busy: the board on screen is not yet the newest (its cards may
  // not be the ones to play).
  function busy() {
    if (sending || revealing || stepping) board.setAttribute("aria-busy", "true");
    else board.removeAttribute("aria-busy");
  }

  // The tables waiting on the player, as the board now counts them: in the tab's title
  // and the menu's badge, as base.html shows them when a page loads.
  function showWaiting() {
    var count = Number(attribute("data-waiting")) || 0;
    document.title = (count ? "(" + count + ") " : "") + document.title.replace(/^\(\d+\) /, "");
    var link = document.getElementById("nav-my-tables");
    if (!link) return;
    var badge = link.querySelector(".badge");
    if (!count) {
      if (badge) badge.remove();
      return;
    }
    if (!badge) {
      badge = document.createElement("span");
      badge.className = "badge";
      badge.title = "tables waiting on you";
      link.append(" ", badge);
    }
    badge.textContent = count;
    var hidden = document.createElement("span");
    hidden.className = "visually-hidden";
    hidden.textContent = " waiting on you";
    badge.append(hidden);
  }

  // -- the moves, and what is clicked to make them ------------------------------------

  function moves() {
    var found = [];
    board.querySelectorAll(".move-list form.move").forEach(function (form) {
      var keys = (form.getAttribute("data-keys") || "").split(" ").filter(Boolean);
      if (!keys.length) return;
      found.push({ form: form, keys: keys, button: form.querySelector("button") });
    });
    return found;
  }

  function keysOf(elements) {
    return elements.map(function (element) { return element.getAttribute("data-key"); });
  }

  // Whether ``move`` can still be made after clicking ``keys``: in order, or, where the
  // order does not matter (data-ordered="no"), as a part of its keys.
  function fits(move, keys) {
    if (keys.length > move.keys.length) return false;
    if (attribute("data-ordered") !== "no") {
      for (var i = 0; i < keys.length; i++) if (move.keys[i] !== keys[i]) return false;
      return true;
    }
    var left = move.keys.slice();
    for (var j = 0; j < keys.length; j++) {
      var at = left.indexOf(keys[j]);
      if (at < 0) return false;
      left.splice(at, 1);
    }
    return true;
  }

  function fitting(keys) {
    return moves().filter(function (move) { return fits(move, keys); });
  }

  function clickable() {
    return Array.prototype.slice.call(board.querySelectorAll("[data-key]"));
  }

  // Mark each card: whether clicking it now can make a move, whether it is chosen.
  function mark() {
    var chosen = keysOf(selection);
    var any = moves().length > 0;
    clickable().forEach(function (element) {
      var picked = selection.indexOf(element) >= 0;
      var open = picked || (any && fitting(chosen.concat([element.getAttribute("data-key")])).length > 0);
      if (!any) {
        element.removeAttribute("role");
        element.removeAttribute("tabindex");
        element.removeAttribute("aria-disabled");
        element.removeAttribute("aria-pressed");
        element.classList.remove("playable", "unplayable", "chosen");
        return;
      }
      element.setAttribute("role", "button");
      element.setAttribute("tabindex", "0");
      element.setAttribute("aria-disabled", open ? "false" : "true");
      element.setAttribute("aria-pressed", picked ? "true" : "false");
      element.classList.toggle("playable", open && !picked);
      element.classList.toggle("unplayable", !open);
      element.classList.toggle("chosen", picked);
    });
    var hint = board.querySelector("[data-dock-hint]");
    if (hint) hint.hidden = !any;
  }

  function chooser() {
    return board.querySelector("[data-chooser]");
  }

  function clearChoice() {
    selection = [];
    var box = chooser();
    if (box) {
      box.hidden = true;
      box.textContent = "";
    }
    mark();
  }

  // Offer the moves that the clicked cards make as they are, by the hand.
  function offer(complete, more) {
    var box = chooser();
    if (!box) return;
    box.textContent = "";
    var heading = document.createElement("p");
    heading.className = "chooser-heading";
    heading.textContent = more
      ? "Play these, or choose another card to go with them:"
      : "Which one?";
    box.appendChild(heading);
    complete.forEach(function (move) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "move-button chosen-move";
      // As the list's button draws it: its cards and suit for the eye, its words for all.
      button.innerHTML = move.button.innerHTML;
      button.addEventListener("click", function () { send(move.form); });
      box.appendChild(button);
    });
    var cancel = document.createElement("button");
    cancel.type = "button";
    cancel.className = "secondary";
    cancel.textContent = "Cancel";
    cancel.addEventListener("click", function () {
      clearChoice();
      say("Nothing chosen.");
    });
    box.appendChild(cancel);
    box.hidden = false;
    var first = box.querySelector("button");
    if (first && complete.length) first.focus();
  }

  function choose(element) {
    if (sending) return;
    if (hurry) { // a click on an earlier board: the table as it is now, to play on
      hurry();
      return;
    }
    if (element.getAttribute("aria-disabled") === "true") {
      say("That cannot be played now.");
      return;
    }
    var at = selection.indexOf(element);
    if (at >= 0) {
      selection = selection.slice(0, at); // unchosen, with what was chosen after it
    } else {
      selection.push(element);
    }
    var keys = keysOf(selection);
    if (!keys.length) {
      clearChoice();
      return;
    }
    var open = fitting(keys);
    var complete = open.filter(function (move) { return move.keys.length === keys.length; });
    var more = open.length > complete.length;
    mark();
    if (complete.length === 1 && !more) {
      send(complete[0].form);
    } else if (complete.length || more) {
      offer(complete, more);
      if (!complete.length) say("Now choose what goes with it.");
    } else {
      clearChoice();
    }
  }

  board.addEventListener("click", function (event) {
    var element = event.target.closest ? event.target.closest("[data-key]") : null;
    if (!element || !board.contains(element) || !element.hasAttribute("role")) return;
    event.preventDefault();
    choose(element);
  });

  board.addEventListener("keydown", function (event) {
    if (event.key !== "Enter" && event.key !== " ") return;
    var element = event.target;
    if (!element.hasAttribute || !element.hasAttribute("data-key") || !element.hasAttribute("role")) return;
    event.preventDefault();
    choose(element);
  });

  // -- sending a move, and swapping the board in --------------------------------------

  function focusKey() {
    var active = document.activeElement;
    if (!active || !board.contains(active) || active === board) return null;
    return {
      key: active.getAttribute("data-focus-key") || active.getAttribute("data-key"),
      id: active.id
    };
  }

  function restoreFocus(was) {
    if (!was) return;
    var target = null;
    if (was.key) {
      board.querySelectorAll("[data-focus-key], [data-key]").forEach(function (element) {
        var key = element.getAttribute("data-focus-key") || element.getAttribute("data-key");
        if (!target && key === was.key && element.getAttribute("aria-disabled") !== "true") target = element;
      });
    }
    if (!target && was.id) target = document.getElementById(was.id);
    if (!target) target = document.getElementById("board-heading") || board;
    target.focus({ preventScroll: true });
  }

  function lastSeq() {
    return Number(attribute("data-last-seq")) || 0;
  }

  // The log's entries newer than ``seq``, oldest first.
  function newer(seq) {
    var entries = Array.prototype.slice.call(board.querySelectorAll(".log-entries > [data-seq]"));
    return entries.reverse().filter(function (entry) {
      return Number(entry.getAttribute("data-seq")) > seq;
    });
  }

  function words(entry) {
    return Array.prototype.map.call(entry.querySelectorAll("li"), function (item) {
      return item.textContent.trim();
    }).join(". ");
  }

  // Show one entry of the log as the latest thing: in the log, and at its seat.
  function show(entry) {
    entry.classList.remove("pending");
    board.querySelectorAll(".log-entries > .latest").forEach(function (e) { e.classList.remove("latest"); });
    entry.classList.add("latest");
    var seat = entry.getAttribute("data-seat");
    board.querySelectorAll(".seat-box").forEach(function (box) {
      var here = box.getAttribute("data-seat") === seat;
      box.classList.toggle("moved-last", here);
      var news = box.querySelector("[data-seat-news]");
      if (news) news.textContent = here ? (entry.querySelector("li") || entry).textContent.trim() : "";
    });
  }

  // Several moves arrived at once: each is shown alone for a moment, in order.
  function reveal(entries, after) {
    window.clearTimeout(revealing);
    revealing = null;
    if (entries.length < 2) {
      if (entries.length) show(entries[0]);
      after();
      return;
    }
    entries.forEach(function (entry) { entry.classList.add("pending"); });
    var next = 0;
    (function step() {
      show(entries[next]);
      say(words(entries[next]));
      next += 1;
      if (next < entries.length) {
        revealing = window.setTimeout(step, PAUSE);
      } else {
        revealing = null;
        after();
      }
      busy();
    })();
  }

  function stillness() {
    return !!(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
  }

  // Put ``html`` in the board, keeping the list's state, the focus and the scroll.
  function draw(html) {
    var was = focusKey();
    var x = window.scrollX, y = window.scrollY;
    var list = board.querySelector("[data-move-list]");
    if (list) listOpen = list.open; // as the player left it
    board.innerHTML = html;
    selection = [];
    list = board.querySelector("[data-move-list]");
    if (list) list.open = listOpen;
    mark();
    restoreFocus(was);
    window.scrollTo(x, y);
    showWaiting();
    if (window.fairdealTime) window.fairdealTime.refresh();
  }

  // The seqs of the log's entries in a board not yet drawn, oldest first.
  function seqsIn(html) {
    var parsed = document.createElement("template");
    parsed.innerHTML = html;
    return Array.prototype.map.call(parsed.content.querySelectorAll(".log-entries > [data-seq]"), function (entry) {
      return Number(entry.getAttribute("data-seq"));
    }).sort(function (a, b) { return a - b; });
  }

  // End whatever showing of new moves is under way (a later board, or a move, replaces it).
  function stop() {
    round += 1;
    window.clearTimeout(revealing);
    revealing = null;
    stepping = false;
    hurry = null;
    busy();
  }

  // Draw the newest board; the moves after ``before`` marked one at a time on it (one
  // only, for the player's own move, or when motion is reduced), and said.
  function land(html, own, before, heading) {
    draw(html);
    var arrived = newer(before);
    var now = (document.getElementById("board-heading") || {}).textContent || "";
    var message = board.querySelector(".table-messages .message");
    var at = own || stillness() ? arrived.slice(-1) : arrived;
    reveal(at, function () {
      var lines = [];
      if (message) lines.push(message.textContent.trim());
      else if (arrived.length === 1) lines.push(words(arrived[0]));
      else if (arrived.length > 1 && at.length === 1 && !own) lines.push(arrived.map(words).join(". "));
      if (now.trim() && now.trim() !== heading.trim()) lines.push(now.trim());
      say(lines.join(" "));
    });
  }

  function swap(html, own) {
    var before = lastSeq();
    var heading = (document.getElementById("board-heading") || {}).textContent || "";
    stop();
    // Several moves by the others: first the board as it was after each but the last (the
    // newest of them), then this one.
    var versions = [];
    if (!own && boardUrl && !stillness()) {
      versions = seqsIn(html).filter(function (seq) { return seq > before; }).slice(0, -1).slice(-(MOST_BOARDS - 1));
    }
    if (!versions.length) {
      land(html, own, before, heading);
      return;
    }
    var mine = round;
    stepping = true;
    busy();
    Promise.all(versions.map(function (version) {
      return fetch(boardUrl + "?version=" + version, {
        credentials: "same-origin",
        cache: "no-store",
        headers: { "X-Fairdeal-Fragment": "1" }
      }).then(function (response) {
        if (!response.ok || response.headers.get("X-Fairdeal-Board") !== "1") throw new Error("no board");
        return response.text();
      });
    })).then(function (boards) {
      if (mine !== round) return;
      var next = 0;
      var finish = function () {
        stop();
        land(html, false, versions[versions.length - 1], heading);
      };
      (function step() {
        revealing = null;
        if (mine !== round) return;
        if (next >= boards.length) {
          finish();
          return;
        }
        hurry = finish;
        draw(boards[next]);
        var entry = board.querySelector('.log-entries > [data-seq="' + versions[next] + '"]');
        if (entry) {
          show(entry);
          say(words(entry));
        }
        next += 1;
        revealing = window.setTimeout(step, PAUSE);
      })();
    }, function () {
      // No earlier board to be had: the newest at once, its moves marked one at a time.
      if (mine !== round) return;
      stop();
      land(html, own, before, heading);
    });
  }

  function send(form) {
    if (sending) return;
    sending = true;
    window.clearTimeout(timer);
    stop(); // and the board is busy until the answer is drawn
    // (``form.action`` is the form's field called "action": the address is its attribute.)
    fetch(form.getAttribute("action"), {
      method: "POST",
      body: new FormData(form),
      credentials: "same-origin",
      headers: { "X-Fairdeal-Fragment": "1" }
    }).then(function (response) {
      // The board, refused or not; anything else (a 403 page, a 500) is the form's to show.
      if (response.headers.get("X-Fairdeal-Board") !== "1") throw new Error("no board");
      return response.text().then(function (html) { swap(html, true); });
    }).then(function () {
      sending = false;
      busy();
      delay = SOON; // the others answer now: the computer at once
      schedule(delay);
    }, function () {
      // Whatever went wrong on the way, the plain form says it in a page of its own.
      sending = false;
      busy();
      form.submit();
    });
  }

  // A move's form is sent by fetch, once: a second click while the first is on its way
  // is dropped (the server would refuse it anyway, the table having moved on).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !board.contains(form)) return;
    if (!form.classList.contains("move")) {
      window.clearTimeout(timer); // another form (a seat taken) loads a page
      return;
    }
    event.preventDefault();
    if (hurry) {
      hurry();
      return;
    }
    send(form);
  });

  // -- keeping current ----------------------------------------------------------------

  function schedule(ms) {
    window.clearTimeout(timer);
    timer = null;
    if (ended()) return;
    if (document.hidden) return; // visibilitychange starts it again
    timer = window.setTimeout(poll, ms);
  }

  function fail() {
    delay = Math.min(delay * 2, MAX_BACKOFF);
    schedule(delay);
  }

  function refreshBoard() {
    return fetch(fragmentUrl, {
      credentials: "same-origin",
      cache: "no-store",
      headers: { "X-Fairdeal-Fragment": "1" }
    }).then(function (response) {
      if (!response.ok) throw new Error("the board answered " + response.status);
      return response.text();
    }).then(function (html) {
      if (!sending) swap(html, false); // a move on its way brings its own board
    });
  }

  function poll() {
    if (polling || sending) return;
    if (revealing || stepping) { // the moves that came last are still being shown, one at a time
      schedule(PAUSE);
      return;
    }
    polling = true;
    var headers = { "Accept": "application/json" };
    var current = attribute("data-etag");
    if (current) headers["If-None-Match"] = current;
    fetch(versionUrl, { credentials: "same-origin", cache: "no-store", headers: headers })
      .then(function (response) {
        if (response.status === 304) return false;
        if (!response.ok) throw new Error("the version answered " + response.status);
        var tag = response.headers.get("ETag");
        if (tag && tag === attribute("data-etag")) return false;
        return refreshBoard().then(function () { return true; });
      })
      .then(function (moved) {
        polling = false;
        // Soon again while the table moves (several bots answer one after another), less
        // and less often while it stands still.
        delay = moved ? SOON : Math.min(delay * 2, INTERVAL);
        schedule(delay);
      }, function () {
        polling = false;
        fail();
      });
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) {
      delay = INTERVAL;
      schedule(0);
    }
  });

  // Back to this page from the browser's cache: poll again at once.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) schedule(0);
  });

  // On a phone the hand is docked at the bottom of the screen (table.css), over the rest of
  // the page, which scrolls. At the page's load, what is clicked on the table (the stock, a
  // centre card) and what a game's board keeps in view (data-in-view: a round in words) would
  // sit under the hand or below it, behind the title, the seats and any message. Scroll so
  // that it shows above the hand, with as much of the board above it as fits: the turn,
  // else the seats, else the table's middle at the top.
  function bringTheTableIntoView() {
    var dock = board.querySelector("[data-dock]");
    if (!dock || window.scrollY !== 0 || window.getComputedStyle(dock).position !== "sticky") return;
    var kept = Array.prototype.filter.call(board.querySelectorAll("[data-key], [data-in-view]"), function (element) {
      return !dock.contains(element);
    });
    if (!kept.length) return;
    var room = window.innerHeight - dock.getBoundingClientRect().height;
    var bottom = Math.max.apply(null, kept.map(function (element) {
      return element.getBoundingClientRect().bottom;
    }));
    if (bottom <= room) return; // all of it shows already
    var tops = [".board-top", ".seats", ".table-middle"].map(function (selector) {
      return board.querySelector(selector);
    }).filter(Boolean);
    if (!tops.length) return;
    var top = tops.find(function (element) {
      return bottom - element.getBoundingClientRect().top <= room;
    }) || tops[tops.length - 1];
    window.scrollTo(0, top.getBoundingClientRect().top + window.scrollY);
  }

  var list = board.querySelector("[data-move-list]");
  if (list) list.open = false;
  mark();
  bringTheTableIntoView();
  schedule(INTERVAL);
})();
