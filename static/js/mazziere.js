// Mazziere: countdowns (action timer, tournament clock), cambio card selection, refused sockets, command ids.
// No framework.
(function () {
  function pad(n) { return String(n).padStart(2, "0"); }
  function tick() {
    var now = Date.now();
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (el) {
      var left = Math.max(0, Math.ceil((+el.dataset.deadline - now) / 1000));
      el.textContent = left + " s";
      el.classList.toggle("urgent", left <= 5);
    });
    document.querySelectorAll("[data-ends-at]").forEach(function (el) {
      var end = +el.dataset.endsAt, paused = el.dataset.remaining;
      var ms = paused ? +paused : Math.max(0, end - now);
      if (!end && !paused) { el.textContent = "—"; return; }
      var s = Math.floor(ms / 1000);
      el.textContent = pad(Math.floor(s / 60)) + ":" + pad(s % 60);
    });
  }
  // the action timer ring on the acting seat (templates/tables/_timer.html): the action time, then the time
  // bank drawn apart (another colour); the number is the seconds left of the time running now
  function rings(now) {
    document.querySelectorAll(".timer-ring[data-action-end]").forEach(function (el) {
      var actionEnd = +el.dataset.actionEnd, bankEnd = +el.dataset.bankEnd;
      var inBank = now >= actionEnd && bankEnd > actionEnd;
      var left = inBank ? bankEnd - now : actionEnd - now;
      var whole = inBank ? +el.dataset.bankMs : +el.dataset.actionMs;
      var fraction = Math.max(0, Math.min(1, whole > 0 ? left / whole : 0));
      var circle = el.querySelector(".ring-time");
      if (circle) { circle.style.strokeDashoffset = String(100 - fraction * 100); }
      var seconds = Math.max(0, Math.ceil(left / 1000));
      var text = el.querySelector(".timer-text");
      if (text) { text.textContent = String(seconds); }
      el.classList.toggle("in-bank", inBank);
      el.classList.toggle("urgent", seconds <= 5);
    });
  }
  setInterval(function () { rings(Date.now()); }, 250);
  document.addEventListener("htmx:wsAfterMessage", function () { rings(Date.now()); });
  setInterval(tick, 250);
  tick();  // at once (this script is deferred: the page is parsed), not a quarter of a second after a "—"
  document.addEventListener("htmx:wsAfterMessage", tick);
  document.addEventListener("htmx:afterSettle", tick);
  // a notice with data-redirect (moved to another table of the tournament): go there after the delay
  document.addEventListener("htmx:wsAfterMessage", function () {
    document.querySelectorAll("[data-redirect]:not([data-redirecting])").forEach(function (el) {
      el.setAttribute("data-redirecting", "");
      setTimeout(function () { window.location.assign(el.dataset.redirect); }, +el.dataset.redirectAfter || 3000);
    });
  });
  // a socket refused by the server (tables/consumers.py): 4403 not allowed, 4404 no such table or tournament.
  // htmx's ws extension does not reconnect on these codes; the page says why (texts in base.html, translated)
  document.addEventListener("htmx:wsClose", function (e) {
    var code = e.detail && e.detail.event && e.detail.event.code;
    var notice = document.getElementById("socket-closed");
    if (!notice || (code !== 4403 && code !== 4404)) { return; }
    notice.textContent = notice.dataset["closed" + code];
    notice.dataset.code = code;
    notice.hidden = false;
  });
  // The command id of every action (a UUID v4, templates/tables/_table.html). crypto.randomUUID exists only
  // in secure contexts (https, localhost): a page served over plain http on a LAN address builds the same
  // from crypto.getRandomValues, which every context has (RFC 9562 §5.4: version 4, variant 10).
  window.mazziereCommandId = function () {
    if (window.crypto && typeof crypto.randomUUID === "function") { return crypto.randomUUID(); }
    var b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    var h = Array.from(b, function (x) { return x.toString(16).padStart(2, "0"); }).join("");
    return [h.slice(0, 8), h.slice(8, 12), h.slice(12, 16), h.slice(16, 20), h.slice(20)].join("-");
  };
  // the bet box's one-click amounts (Min, ½ Pot, Pot, Max: templates/tables/partials/common/amount.html)
  document.addEventListener("click", function (e) {
    var preset = e.target.closest && e.target.closest("button.preset[data-amount]");
    if (!preset) { return; }
    var box = preset.closest(".amount");
    box.querySelectorAll("input[type=number], input[type=range]").forEach(function (input) {
      input.value = preset.dataset.amount;
    });
  });
  // The hand log (templates/tables/_log.html): the current hand's lines, newest at the bottom and scrolled
  // into view; the lines of earlier hands are marked "earlier" (hidden until "Earlier hands" is pressed).
  function tidyLog() {
    var log = document.getElementById("hand-log");
    if (!log) { return; }
    var starts = log.querySelectorAll(":scope > .hand-start");
    var last = starts.length ? starts[starts.length - 1] : null;
    if (last) {
      for (var el = last.previousElementSibling; el && !el.classList.contains("earlier"); el = el.previousElementSibling) {
        el.classList.add("earlier");
      }
    }
    log.scrollTop = log.scrollHeight;
  }
  document.addEventListener("click", function (e) {
    var toggle = e.target.closest && e.target.closest(".log-toggle");
    if (!toggle) { return; }
    var log = document.getElementById("hand-log");
    var all = log && log.classList.toggle("show-all");
    toggle.setAttribute("aria-expanded", all ? "true" : "false");
    toggle.textContent = all ? toggle.dataset.less : toggle.dataset.more;
    tidyLog();
  });
  // The showdown moment: when a hand's result arrives (#last-hand with data-won), a copy is held over the
  // felt for the pots to be pushed one after the other, then 3 s more; the table itself is never held back
  // (the next hand's fragment replaces #table at once, under it).
  var shownHand = null;
  function showdownMoment() {
    var box = document.getElementById("last-hand");
    if (!box || !box.hasAttribute("data-won") || box.dataset.hand === shownHand) { return; }
    shownHand = box.dataset.hand;
    var old = document.querySelector(".showdown-moment");
    if (old) { old.remove(); }
    var moment = box.cloneNode(true);
    moment.removeAttribute("id");
    moment.removeAttribute("hx-swap-oob");
    moment.classList.add("showdown-moment");
    moment.setAttribute("data-showdown", "");
    box.parentNode.insertBefore(moment, box);
    var pots = moment.querySelectorAll(".pot-won").length;
    winners = Array.from(moment.querySelectorAll(".pot-won"), function (el) { return el.dataset.player; });
    markWinners();
    setTimeout(function () { moment.remove(); winners = []; markWinners(); }, 3000 + 700 * Math.max(0, pots - 1));
  }
  // the winners' seats glow while the moment lasts (again after each new #table fragment)
  var winners = [];
  function markWinners() {
    document.querySelectorAll("#table .seat[data-seat]").forEach(function (seat) {
      var name = seat.querySelector(".seat-name");
      seat.classList.toggle("winner", !!name && winners.indexOf(name.textContent.trim()) >= 0);
    });
  }
  // "Your turn" sound: off by default, a toggle in the page's head (remembered in this browser)
  var SOUND_KEY = "mazziere-sound";
  var wasMyTurn = false;
  function soundOn() { try { return localStorage.getItem(SOUND_KEY) === "on"; } catch (err) { return false; } }
  function beep() {
    try {
      var Ctx = window.AudioContext || window.webkitAudioContext;
      var ctx = new Ctx(), osc = ctx.createOscillator(), gain = ctx.createGain();
      osc.frequency.value = 880; gain.gain.value = 0.08;
      osc.connect(gain); gain.connect(ctx.destination);
      osc.start(); osc.stop(ctx.currentTime + 0.18);
    } catch (err) { /* no audio: nothing to do */ }
  }
  function yourTurn() {
    var mine = !!document.querySelector("#table [data-my-turn]");
    if (mine && !wasMyTurn && soundOn()) { beep(); }
    wasMyTurn = mine;
  }
  function soundButtons() {
    document.querySelectorAll(".sound-toggle").forEach(function (b) { b.setAttribute("aria-pressed", soundOn() ? "true" : "false"); });
  }
  document.addEventListener("click", function (e) {
    var toggle = e.target.closest && e.target.closest(".sound-toggle");
    if (!toggle) { return; }
    try { localStorage.setItem(SOUND_KEY, soundOn() ? "off" : "on"); } catch (err) { /* private mode */ }
    soundButtons();
  });
  // the phone's collapsed header menu (templates/base.html)
  document.addEventListener("click", function (e) {
    var toggle = e.target.closest && e.target.closest(".menu-toggle");
    if (!toggle) { return; }
    var bar = toggle.closest(".topbar");
    var open = bar.classList.toggle("open");
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
  });
  document.addEventListener("htmx:wsAfterMessage", function () { tidyLog(); showdownMoment(); markWinners(); yourTurn(); });
  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("last-hand");
    // a fresh page does not replay the moment of a hand already won; a hand running still gets its own
    if (box && box.hasAttribute("data-won")) { shownHand = box.dataset.hand; }
    tidyLog(); soundButtons();
  });
  document.addEventListener("change", function (e) {
    if (e.target.matches(".cambio-cards input[type=checkbox]")) {
      e.target.nextElementSibling.classList.toggle("selected", e.target.checked);
    }
  });
  // Keyboard shortcuts of the action bar (templates/tables/partials/common/buttons.html): each button names
  // its key in data-key (f fold, c check/call, b bet, r raise, a all-in, d draw, s stand pat or show, m
  // muck). Not while the player types in a field, nor with a modifier. "a" with no all-in button puts the
  // amount box at its maximum and presses bet or raise. In the amount box, Enter bets and Escape leaves it.
  function pressable(el) { return el && !el.disabled && el.offsetParent !== null; }
  function bettor(form) {
    return form.querySelector('button[data-key="r"]:not([data-all-in])') ||
      form.querySelector('button[data-key="b"]:not([data-all-in])');
  }
  document.addEventListener("keydown", function (e) {
    var form = document.getElementById("actions");
    if (!form || e.ctrlKey || e.metaKey || e.altKey || e.repeat) { return; }
    var target = e.target;
    if (target && target.matches && target.matches("input[name=amount]")) {
      if (e.key === "Enter") { var b = bettor(form); if (pressable(b)) { e.preventDefault(); b.click(); } }
      if (e.key === "Escape") { target.blur(); }
      return;
    }
    // typing in a field: text, a number, a list (ticked cards, the slider and buttons keep the shortcuts)
    var typing = "textarea, select, input:not([type=checkbox]):not([type=radio]):not([type=range]):not([type=button])";
    if (target && (target.isContentEditable || target.matches(typing))) { return; }
    // the preferences panel (its boxes and selects) is a form of its own, not the action bar
    if (target && target.closest && target.closest("[data-no-shortcuts]")) { return; }
    var key = (e.key || "").toLowerCase();
    if (key.length !== 1) { return; }
    var button = form.querySelector('button[data-key="' + key + '"]');
    if (!pressable(button) && key === "a") {
      var amount = form.querySelector("input[name=amount]");
      button = bettor(form);
      if (amount && pressable(button)) { amount.value = amount.max; } else { button = null; }
    }
    if (pressable(button)) { e.preventDefault(); button.click(); }
  });
})();
// Telesina (TL-VELE-1): pointing at (or focusing) a combination, or a vela, lights the vele a player may use
// together; the others dim. The vele carry data-combos (the indexes of their combinations).
(function () {
  function light(target) {
    var vele = target && target.closest && target.closest(".pot");
    if (!vele || !vele.querySelector(".vele")) { return; }
    var combos = [];
    if (target.matches("[data-combo]")) { combos = [target.dataset.combo]; }
    else if (target.closest("[data-vela]")) { combos = (target.closest("[data-vela]").dataset.combos || "").split(" ").filter(Boolean); }
    vele.querySelectorAll("[data-vela]").forEach(function (v) {
      var mine = (v.dataset.combos || "").split(" ");
      var on = combos.some(function (c) { return mine.indexOf(c) >= 0; });
      v.classList.toggle("in-combo", combos.length > 0 && on);
      v.classList.toggle("dim", combos.length > 0 && !on);
    });
    vele.querySelectorAll("[data-combo]").forEach(function (b) {
      b.classList.toggle("active", combos.indexOf(b.dataset.combo) >= 0);
    });
  }
  function clear(target) {
    var vele = target && target.closest && target.closest(".pot");
    if (!vele) { return; }
    vele.querySelectorAll(".in-combo, .dim, .combo.active").forEach(function (el) { el.classList.remove("in-combo", "dim", "active"); });
  }
  var sel = "[data-combo], [data-vela]";
  ["mouseover", "focusin"].forEach(function (type) {
    document.addEventListener(type, function (e) { var t = e.target.closest && e.target.closest(sel); if (t) { light(t); } });
  });
  ["mouseout", "focusout"].forEach(function (type) {
    document.addEventListener(type, function (e) { var t = e.target.closest && e.target.closest(sel); if (t) { clear(t); } });
  });
})();

// The creation forms' game options (issue 19): a field whose control names its games (data-games, e.g.
// Telesina's vele layout and carta coperta) is shown only when the form's game, or a code of its rotation
// of mixed games, is one of them.
(function () {
  function update(form) {
    var game = form.querySelector("[name=game]");
    if (!game) { return; }
    var rotation = form.querySelector("[name=rotation]");
    var codes = [game.value].concat(rotation ? rotation.value.toUpperCase().split(/[\s,]+/) : []);
    form.querySelectorAll("[data-games]").forEach(function (control) {
      var games = control.dataset.games.split(" ");
      var shown = codes.some(function (c) { return c && games.indexOf(c) >= 0; });
      var row = control.closest(".form-row") || control;
      row.hidden = !shown;
    });
  }
  function all() { document.querySelectorAll("form").forEach(function (f) { if (f.querySelector("[data-games]")) { update(f); } }); }
  document.addEventListener("DOMContentLoaded", all);
  document.addEventListener("change", function (e) { if (e.target.form && e.target.form.querySelector("[data-games]")) { update(e.target.form); } });
  document.addEventListener("input", function (e) { if (e.target.name === "rotation" && e.target.form) { update(e.target.form); } });
})();
