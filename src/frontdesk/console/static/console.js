// Every htmx request carries the session's CSRF token (the forms carry it as a field).
document.addEventListener("htmx:configRequest", function (event) {
  var meta = document.querySelector('meta[name="csrf-token"]');
  if (meta) { event.detail.headers["X-CSRF-Token"] = meta.content; }
});
// A signed-out poll gets 401 with HX-Redirect; htmx follows it. Other errors show a note.
document.addEventListener("htmx:responseError", function (event) {
  var note = document.getElementById("console-error");
  if (!note) {
    note = document.createElement("p");
    note.id = "console-error";
    note.className = "error";
    note.setAttribute("role", "alert");
    document.querySelector("main").prepend(note);
  }
  note.textContent = "The last update failed (" + event.detail.xhr.status + "). It is retried automatically.";
});
document.addEventListener("htmx:afterRequest", function (event) {
  var note = document.getElementById("console-error");
  if (note && event.detail.successful) { note.remove(); }
});
