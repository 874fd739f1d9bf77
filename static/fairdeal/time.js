/* Deadlines in the viewer's own clock and zone.
   Every <time data-countdown datetime="2025-03-01T12:00:00+00:00"> shows the server's
   absolute time; this turns it into "in 3 h 20 min (Sat 13:00)", in the viewer's zone, and
   keeps it current. Without the script the absolute time stays. Pages that add such
   elements later call window.fairdealTime.refresh(). */
(function () {
  "use strict";

  function span(ms) {
    var minutes = Math.floor(ms / 60000);
    if (minutes < 1) return "less than a minute";
    var days = Math.floor(minutes / 1440);
    var hours = Math.floor((minutes % 1440) / 60);
    var rest = minutes % 60;
    if (days) return days + " d" + (hours ? " " + hours + " h" : "");
    if (hours) return hours + " h" + (rest ? " " + rest + " min" : "");
    return rest + " min";
  }

  function local(when) {
    return when.toLocaleString(undefined, {
      weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit"
    });
  }

  function refresh() {
    var now = Date.now();
    document.querySelectorAll("time[data-countdown]").forEach(function (element) {
      var when = new Date(element.getAttribute("datetime"));
      if (isNaN(when.getTime())) return;
      if (!element.hasAttribute("title")) element.setAttribute("title", element.textContent.trim());
      var left = when.getTime() - now;
      var words = left >= 0 ? "in " + span(left) : span(-left) + " ago";
      element.textContent = words + " (" + local(when) + ")";
      element.classList.toggle("soon", left >= 0 && left < 3600000);
      element.classList.toggle("past", left < 0);
    });
  }

  window.fairdealTime = { refresh: refresh };
  refresh();
  window.setInterval(refresh, 30000);
})();
