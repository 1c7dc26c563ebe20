"use strict";
// The page's only script (named by its hash in the Content-Security-Policy): the search box,
// and opening collapsed sections that a link points into. It reads text, never writes markup.
(function () {
  var input = document.getElementById("search");
  var shown = document.getElementById("shown");
  var messages = document.querySelectorAll("article.msg");
  var turns = document.querySelectorAll("div.turn");
  var texts = null;
  var timer = 0;
  function apply() {
    var query = input.value.trim().toLowerCase();
    if (texts === null) {
      texts = new Array(messages.length);
      for (var i = 0; i < messages.length; i++) texts[i] = messages[i].textContent.toLowerCase();
    }
    var count = 0;
    for (var j = 0; j < messages.length; j++) {
      var hit = query === "" || texts[j].indexOf(query) !== -1;
      messages[j].hidden = !hit;
      if (hit) count++;
    }
    for (var k = 0; k < turns.length; k++) turns[k].hidden = query !== "";
    shown.textContent = query === "" ? "" : count + " of " + messages.length + " messages";
    document.body.setAttribute("data-filter", query);
  }
  if (input) {
    input.addEventListener("input", function () {
      clearTimeout(timer);
      timer = setTimeout(apply, 150);
    });
  }
  function reveal() {
    var id = decodeURIComponent(location.hash.slice(1));
    var target = id && document.getElementById(id);
    if (!target) return;
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
      if (node.hidden) node.hidden = false;
    }
  }
  window.addEventListener("hashchange", reveal);
  reveal();
})();
