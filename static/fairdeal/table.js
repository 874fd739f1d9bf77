/* The table page keeps itself current: every 2 seconds it asks the table's version
   (GET tables/<id>/version/ with If-None-Match: one cheap query, 304 when nothing moved);
   when it has moved, it fetches the board again (the same page with ?fragment=1) and
   swaps it in. Focus stays on the same button if it is still there, else goes to the
   board's heading if it was inside the board; what happened is read out through the
   page's aria-live region. Without this script the page works the same, reloaded by hand.
   docs/pages.md says why polling and not a socket. */
(function () {
  "use strict";

  var board = document.getElementById("board");
  // ms between two polls (FAIRDEAL_POLL_MS, 2000): a move shows within three seconds
  var INTERVAL = Number(board && board.getAttribute("data-poll-ms")) || 2000;
  var MAX_BACKOFF = 30000; // after failures, poll no less often than this
  var live = document.getElementById("table-live");
  if (!board || !window.fetch) return;

  var versionUrl = board.getAttribute("data-version-url");
  var fragmentUrl = board.getAttribute("data-fragment-url");
  var delay = INTERVAL;
  var timer = null;
  var busy = false;
  var leaving = false; // a form is being sent: the page is about to be replaced

  function state() {
    return board.querySelector(".board-state");
  }

  function etag() {
    var s = state();
    return s ? s.getAttribute("data-etag") : "";
  }

  function ended() {
    var s = state();
    var status = s ? s.getAttribute("data-status") : "";
    return status === "finished" || status === "cancelled";
  }

  function lastSeq(root) {
    var highest = -1;
    root.querySelectorAll("[data-seq]").forEach(function (entry) {
      highest = Math.max(highest, Number(entry.getAttribute("data-seq")));
    });
    return highest;
  }

  function heading(root) {
    var h = root.querySelector("#board-heading");
    return h ? h.textContent.trim() : "";
  }

  // What the newest log entries say, oldest first, and the new turn if it changed.
  function news(beforeSeq, beforeHeading) {
    var lines = [];
    var entries = Array.prototype.slice.call(board.querySelectorAll("[data-seq]"));
    entries.reverse().forEach(function (entry) {
      if (Number(entry.getAttribute("data-seq")) > beforeSeq) {
        entry.querySelectorAll("li").forEach(function (item) {
          lines.push(item.textContent.trim());
        });
      }
    });
    var now = heading(board);
    if (now && now !== beforeHeading) lines.push(now);
    return lines.join(". ");
  }

  function focusKey() {
    var active = document.activeElement;
    if (!active || !board.contains(active) || active === board) return null;
    return {
      key: active.getAttribute("data-focus-key"),
      id: active.id
    };
  }

  function restoreFocus(was) {
    if (!was) return;
    var target = null;
    if (was.key) {
      board.querySelectorAll("[data-focus-key]").forEach(function (element) {
        if (!target && element.getAttribute("data-focus-key") === was.key) target = element;
      });
    }
    if (!target && was.id) target = document.getElementById(was.id);
    if (!target) target = document.getElementById("board-heading") || board;
    target.focus();
  }

  function swap(html) {
    var beforeSeq = lastSeq(board);
    var beforeHeading = heading(board);
    var was = focusKey();
    board.innerHTML = html;
    restoreFocus(was);
    if (window.fairdealTime) window.fairdealTime.refresh();
    var said = news(beforeSeq, beforeHeading);
    if (live && said) live.textContent = said;
  }

  function schedule(ms) {
    window.clearTimeout(timer);
    timer = null;
    if (leaving || ended()) return;
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
      if (!leaving) swap(html);
    });
  }

  function poll() {
    if (busy || leaving) return;
    busy = true;
    var headers = { "Accept": "application/json" };
    var current = etag();
    if (current) headers["If-None-Match"] = current;
    fetch(versionUrl, { credentials: "same-origin", cache: "no-store", headers: headers })
      .then(function (response) {
        if (response.status === 304) return null;
        if (!response.ok) throw new Error("the version answered " + response.status);
        var tag = response.headers.get("ETag");
        if (tag && tag === etag()) return null;
        return refreshBoard();
      })
      .then(function () {
        busy = false;
        delay = INTERVAL;
        schedule(delay);
      }, function () {
        busy = false;
        fail();
      });
  }

  // A move's form is sent once: a second click while the first is on its way is dropped
  // (the server would refuse it anyway, the table having moved on).
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement) || !board.contains(form)) return;
    if (form.getAttribute("data-sending")) {
      event.preventDefault();
      return;
    }
    form.setAttribute("data-sending", "yes");
    leaving = true;
    window.clearTimeout(timer);
  });

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) {
      delay = INTERVAL;
      schedule(0);
    }
  });

  // Back to this page from the browser's cache: poll again at once.
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      leaving = false;
      board.querySelectorAll("form[data-sending]").forEach(function (form) {
        form.removeAttribute("data-sending");
      });
      schedule(0);
    }
  });

  schedule(INTERVAL);
})();
