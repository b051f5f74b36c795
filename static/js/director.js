// Mazziere director pages: the clock screen's time of day (the countdowns are mazziere.js's), and a
// confirmation before a control that cannot be undone (forms with data-confirm).
(function () {
  function pad(n) { return String(n).padStart(2, "0"); }
  function timeOfDay() {
    var now = new Date();
    document.querySelectorAll("[data-time-of-day]").forEach(function (el) {
      el.textContent = pad(now.getHours()) + ":" + pad(now.getMinutes());
    });
  }
  timeOfDay();
  setInterval(timeOfDay, 1000);
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.dataset && form.dataset.confirm && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
})();
