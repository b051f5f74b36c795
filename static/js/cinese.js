// Poker cinese: the arrangement page (issue 20; rules CN-2, CN-3). The player's cards go into three rows by
// drag and drop (SortableJS, static/vendor/sortable.min.js) or by click-to-move (choose a card, then a row;
// Enter/Space on the focused card or row). The draft goes to /api/tables/{id}/rows/ (debounced), which names
// each full row's hand and says whether the rows are in order; "Suggest" fills the rows from /suggest/;
// "Submit" posts the action to /act/ (a 409, someone else's submit at the same moment, reloads the version
// and sends once more). The #table fragment is replaced on every table message: the draft lives here, keyed
// by table and game, and is put back into the new fragment.
(function () {
  "use strict";
  var draft = null; // {key, rows: [[codes] x3], stakes: [value|null x3]}
  var selected = null; // the card button chosen for click-to-move
  var saveTimer = null;
  var DEBOUNCE_MS = 400;

  function root() { return document.querySelector("[data-cinese]"); }
  function keyOf(el) { return el.dataset.table + "/" + el.dataset.hand; }
  function english() { return (document.documentElement.lang || "it").slice(0, 2) === "en"; }
  function csrf() {
    try { return JSON.parse(document.body.getAttribute("hx-headers"))["X-CSRFToken"] || ""; } catch (e) { return ""; }
  }
  function api(el, path, method, body) {
    var init = { method: method, credentials: "same-origin", headers: { "X-CSRFToken": csrf(), "Accept": "application/json" } };
    if (body !== undefined) { init.headers["Content-Type"] = "application/json"; init.body = JSON.stringify(body); }
    return fetch("/api/tables/" + el.dataset.table + "/" + path, init).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (data) { return { status: r.status, data: data }; });
    });
  }
  function zone(el, key) { return el.querySelector('[data-zone="' + key + '"]'); }
  function codes(node) { return Array.from(node.querySelectorAll("[data-card]"), function (b) { return b.dataset.card; }); }
  function read(el) {
    return {
      key: keyOf(el),
      rows: [0, 1, 2].map(function (i) { return codes(zone(el, i)); }),
      stakes: [0, 1, 2].map(function (i) {
        var v = el.querySelector('[data-stake="' + i + '"]').value;
        return v === "" ? null : parseInt(v, 10);
      })
    };
  }
  function apply(el, state) {
    var pool = zone(el, "pool");
    el.querySelectorAll(".cn-row [data-card]").forEach(function (b) { pool.appendChild(b); });
    state.rows.forEach(function (row, i) {
      var target = zone(el, i);
      row.forEach(function (code) {
        var b = el.querySelector('[data-card="' + code + '"]');
        if (b) { target.appendChild(b); }
      });
    });
    (state.stakes || []).forEach(function (stake, i) {
      var select = el.querySelector('[data-stake="' + i + '"]');
      if (select) { select.value = stake === null || stake === undefined ? "" : String(stake); }
    });
    counts(el);
  }
  function counts(el) {
    [0, 1, 2].forEach(function (i) {
      var z = zone(el, i), n = z.querySelectorAll("[data-card]").length;
      el.querySelector('[data-count="' + i + '"]').textContent = n + "/" + z.dataset.size;
      z.classList.toggle("full", n >= parseInt(z.dataset.size, 10));
      if (n < parseInt(z.dataset.size, 10)) { el.querySelector('[data-hand-name="' + i + '"]').textContent = ""; }
    });
  }
  function message(el, text) { el.querySelector("[data-message]").textContent = text || ""; }
  function show(el, body) {
    if (!body || !body.names) { return; }
    body.names.forEach(function (name, i) {
      el.querySelector('[data-hand-name="' + i + '"]').textContent = name ? (english() ? name.en : name.it) : "";
    });
    el.querySelector("[data-order-warning]").hidden = body.in_order !== false;
  }
  function changed(el) {
    draft = read(el);
    counts(el);
    clearTimeout(saveTimer);
    saveTimer = setTimeout(function () {
      var current = root();
      if (!current || keyOf(current) !== draft.key) { return; }
      api(current, "rows/", "POST", { rows: draft.rows, stakes: draft.stakes }).then(function (r) {
        if (r.status === 200) { show(root() || current, r.data); }
      });
    }, DEBOUNCE_MS);
  }
  function room(z) {
    return z.dataset.zone === "pool" || z.querySelectorAll("[data-card]").length < parseInt(z.dataset.size, 10);
  }
  function choose(card) {
    if (selected) { selected.setAttribute("aria-pressed", "false"); selected.classList.remove("chosen"); }
    selected = card;
    if (card) { card.setAttribute("aria-pressed", "true"); card.classList.add("chosen"); }
  }
  function moveTo(el, z) {
    if (!selected || !el.contains(selected)) { choose(null); return; }
    if (selected.parentNode !== z && room(z)) { z.appendChild(selected); changed(el); }
    var card = selected;
    choose(null);
    card.focus();
  }
  function onClick(e) {
    var el = root();
    if (!el || !el.contains(e.target)) { return; }
    var card = e.target.closest("[data-card]");
    var z = e.target.closest("[data-zone]");
    if (e.target.closest("[data-suggest]")) { suggest(el); return; }
    if (e.target.closest("[data-submit]")) { submit(el); return; }
    if (card && (!selected || selected === card || selected.parentNode === card.parentNode)) {
      choose(selected === card ? null : card);
      return;
    }
    if (z && selected) { moveTo(el, z); }
  }
  function onKey(e) {
    var el = root();
    if (!el || !el.contains(e.target) || (e.key !== "Enter" && e.key !== " ")) { return; }
    var z = e.target.matches("[data-zone]") ? e.target : null;
    if (z && selected) { e.preventDefault(); moveTo(el, z); }
  }
  function suggest(el) {
    message(el, "");
    api(el, "suggest/", "GET").then(function (r) {
      var current = root();
      if (r.status !== 200 || !current) { if (current) { message(current, (r.data && r.data.detail) || current.dataset.msgError); } return; }
      apply(current, { rows: r.data.rows, stakes: r.data.stakes });
      show(current, r.data);
      changed(current);
    });
  }
  function submit(el) {
    var state = read(el);
    var complete = state.rows.every(function (row, i) { return row.length === parseInt(zone(el, i).dataset.size, 10); })
      && state.stakes.every(function (s) { return s !== null; });
    if (!complete) { message(el, el.dataset.msgIncomplete); return; }
    message(el, "");
    var send = function (version, retried) {
      return api(el, "act/", "POST", {
        action: "submit", rows: state.rows, stakes: state.stakes,
        expected_version: version, command_id: window.mazziereCommandId()
      }).then(function (r) {
        if (r.status === 409 && !retried) { // a simultaneous submit moved the table on: read it, send once more
          return api(el, "", "GET").then(function (s) { return send(s.data.version, true); });
        }
        var current = root();
        if (r.status >= 400 && current) {
          message(current, (english() && r.data.english) || r.data.detail || current.dataset.msgError);
        }
        return r;
      });
    };
    send(parseInt(el.dataset.version, 10), false);
  }
  function init() {
    var el = root();
    if (!el || el.dataset.ready) { return; }
    el.dataset.ready = "1";
    selected = null;
    if (draft && draft.key === keyOf(el)) { apply(el, draft); } else { draft = read(el); }
    counts(el);
    el.querySelectorAll("[data-stake]").forEach(function (s) { s.addEventListener("change", function () { changed(el); }); });
    if (window.Sortable) {
      el.querySelectorAll("[data-zone]").forEach(function (z) {
        window.Sortable.create(z, {
          group: { name: "cinese", put: function (to) { return room(to.el); } },
          animation: 120,
          delay: 120,
          delayOnTouchOnly: true,
          onEnd: function () { choose(null); changed(el); }
        });
      });
    }
  }
  document.addEventListener("click", onClick);
  document.addEventListener("keydown", onKey);
  document.addEventListener("DOMContentLoaded", init);
  document.addEventListener("htmx:wsAfterMessage", init);
  document.addEventListener("htmx:afterSettle", init);
  if (document.readyState !== "loading") { init(); }
})();
