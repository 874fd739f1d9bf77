/* The replay page: the arrow keys step back and forward through the moves, Home and End
   go to the start and the end. The links do the same without this script. */
(function () {
  "use strict";

  var nav = document.querySelector(".replay-nav");
  if (!nav) return;
  var keys = {
    ArrowLeft: "data-previous",
    ArrowRight: "data-next",
    Home: "data-first",
    End: "data-last"
  };

  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    var target = event.target;
    // Keys typed into a field (the "go to move" number) are the field's.
    if (target && target.closest && target.closest("input, textarea, select")) return;
    var attribute = keys[event.key];
    var url = attribute && nav.getAttribute(attribute);
    if (!url) return;
    event.preventDefault();
    window.location.assign(url);
  });
})();
