// Mazziere: the auditors' hand replayer (templates/audit/hand.html). Every step is rendered by the server,
// hidden but the current one; the slider, the buttons and the arrow keys choose which. No framework.
(function () {
  var root = document.querySelector("[data-replayer]");
  if (!root) { return; }
  var steps = root.querySelectorAll("[data-step]");
  var slider = root.querySelector("[data-replay=slider]");
  var position = root.querySelector("[data-replay=position]");
  var current = 0;

  function show(index) {
    current = Math.max(0, Math.min(steps.length - 1, index));
    steps.forEach(function (step, i) { step.hidden = i !== current; });
    slider.value = current;
    position.textContent = current + 1;
    history.replaceState(null, "", "#step-" + (current + 1));
  }

  slider.addEventListener("input", function () { show(+slider.value); });
  root.querySelector("[data-replay=prev]").addEventListener("click", function () { show(current - 1); });
  root.querySelector("[data-replay=next]").addEventListener("click", function () { show(current + 1); });
  document.addEventListener("keydown", function (e) {
    if (e.target === slider || e.altKey || e.ctrlKey || e.metaKey) { return; }  // the slider moves itself
    if (e.target.matches && e.target.matches("input, select, textarea")) { return; }
    var moves = { ArrowLeft: current - 1, ArrowRight: current + 1, Home: 0, End: steps.length - 1 };
    if (e.key in moves) { e.preventDefault(); show(moves[e.key]); }
  });
  var start = /^#step-(\d+)$/.exec(location.hash);
  show(start ? +start[1] - 1 : 0);
})();
