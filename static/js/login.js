// Mazziere: the login page's demo accounts (templates/registration/login.html). "Use" fills the form with
// that account (the password is the user name); without JavaScript the buttons stay hidden.
(function () {
  document.querySelectorAll("[data-fill]").forEach(function (button) {
    button.hidden = false;
    button.addEventListener("click", function () {
      document.querySelector("input[name=username]").value = button.dataset.fill;
      document.querySelector("input[name=password]").value = button.dataset.fill;
      document.querySelector("form.field button[type=submit]").focus();
    });
  });
})();
