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
  var texts = {};
  try { texts = JSON.parse(document.getElementById("console-texts").textContent); } catch (e) { /* English */ }
  var text = texts.update_failed || "The last update failed (%(status)s). It is retried automatically.";
  note.textContent = text.replace("%(status)s", String(event.detail.xhr.status));
});
document.addEventListener("htmx:afterRequest", function (event) {
  var note = document.getElementById("console-error");
  if (note && event.detail.successful) { note.remove(); }
});
