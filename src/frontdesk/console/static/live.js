// The live takeover in the console: a conversation's chat (#live-chat) and the site's
// ringing (body[data-ring]). Plain DOM, no inline script (the console's CSP allows only
// our own files); streams are read with fetch so each reconnect sends Last-Event-ID.
(function () {
  "use strict";

  // The page's words in the operator's language (base.html), with named placeholders.
  var texts = {};
  try { texts = JSON.parse(document.getElementById("console-texts").textContent); } catch (e) { /* English */ }
  var plurals = new Intl.PluralRules(document.documentElement.lang || "en");

  function t(key, values) {
    var text = texts[key];
    if (values && typeof values.count === "number" && text && typeof text === "object") {
      text = text[plurals.select(values.count)] || text.other;
    }
    return String(text || key).replace(/%\((\w+)\)s/g, function (_, name) {
      return values && values[name] !== undefined ? String(values[name]) : "";
    });
  }

  function csrf() {
    var meta = document.querySelector('meta[name="csrf-token"]');
    return meta ? meta.content : "";
  }

  function post(url, body) {
    return fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrf() },
      body: JSON.stringify(body || {}),
    }).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (body) {
        if (response.ok) { return body; }
        var failure = new Error(t("request_failed", { action: url.split("/").pop(), status: response.status }));
        failure.detail = body && body.error ? body.error.message : "";
        throw failure;
      });
    });
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function parseBlock(block) {
    var out = { event: "message", id: "", data: [] };
    block.split("\n").forEach(function (line) {
      if (!line || line.charAt(0) === ":") { return; }
      var colon = line.indexOf(":");
      var field = colon === -1 ? line : line.slice(0, colon);
      var value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
      if (field === "event") { out.event = value; }
      else if (field === "id") { out.id = value; }
      else if (field === "data") { out.data.push(value); }
    });
    if (!out.data.length) { return null; }
    try { out.data = JSON.parse(out.data.join("\n")); } catch (e) { return null; }
    return out;
  }

  /** Follow an SSE stream for ever: reconnect with backoff, resume after the last event
   * seen, hand each event to `handle` once. */
  function follow(url, handle, resumeAfter) {
    var lastId = resumeAfter && resumeAfter !== "0" ? String(resumeAfter) : "";
    var seen = new Set();
    var delay = 0;
    function connect() {
      var headers = { Accept: "text/event-stream" };
      if (lastId) { headers["Last-Event-ID"] = lastId; }
      fetch(url, { credentials: "same-origin", headers: headers, cache: "no-store" }).then(function (response) {
        if (response.status === 401 || response.status === 403 || response.status === 404) { return "stop"; }
        if (!response.ok || !response.body) { return null; }
        delay = 0;
        var reader = response.body.getReader();
        var decoder = new TextDecoder();
        var buffer = "";
        function pump() {
          return reader.read().then(function (chunk) {
            if (chunk.done) { return null; }
            buffer += decoder.decode(chunk.value, { stream: true }).replace(/\r\n?/g, "\n");
            var cut = buffer.indexOf("\n\n");
            while (cut !== -1) {
              var parsed = parseBlock(buffer.slice(0, cut));
              buffer = buffer.slice(cut + 2);
              if (parsed && !(parsed.id && seen.has(parsed.id))) {
                if (parsed.id) { seen.add(parsed.id); lastId = parsed.id; }
                handle(parsed.event, parsed.data, parsed.id);
              }
              cut = buffer.indexOf("\n\n");
            }
            return pump();
          });
        }
        return pump();
      }).catch(function () { return null; }).then(function (outcome) {
        if (outcome === "stop") { return; }
        delay = Math.min(10000, delay ? delay * 2 : 300);
        setTimeout(connect, delay);
      });
    }
    connect();
  }

  // ---- one conversation -----------------------------------------------------------------
  function liveChat(root) {
    var d = root.dataset;
    var log = root.querySelector(".live-log");
    var status = root.querySelector(".live-status");
    var typing = root.querySelector(".live-typing");
    var form = root.querySelector(".live-reply");
    var box = form ? form.querySelector("textarea") : null;
    var note = form ? form.querySelector(".live-note") : null;
    var join = root.querySelector(".join");
    var release = root.querySelector(".release");
    var closeButton = root.querySelector(".close-chat");
    var shownMessages = new Set();
    var typingTimer = null;
    var sentTyping = false;
    var sentAt = 0;
    var idleTimer = null;
    var announce = root.querySelector(".live-announce");
    log.querySelectorAll("[data-event-id]").forEach(function (node) {
      shownMessages.add(node.className.replace("msg ", "") + node.dataset.eventId);
    });

    function setState(state, text) {
      status.dataset.state = state;
      status.textContent = text;
      var mine = state === "mine";
      if (join) { join.hidden = mine || state === "closed"; }
      if (release) { release.hidden = !mine; }
      if (closeButton) { closeButton.hidden = !mine; }
      if (form) { form.hidden = !mine; }
      if (mine && box) { box.focus(); }
    }

    function add(kind, who, text, id) {
      if (id !== undefined && id !== null && id !== "") {
        if (shownMessages.has(kind + id)) { return; }
        shownMessages.add(kind + id);
      }
      var item = el("li", "msg " + kind);
      if (id !== undefined && id !== null) { item.dataset.id = String(id); }
      item.append(el("span", "who", who), document.createTextNode(text));
      log.append(item);
      item.scrollIntoView({ block: "nearest" });
      if (kind === "visitor") { announce.textContent = t("visitor_said", { text: text }); }
    }

    function notice(kind, text, id) {
      if (id) {
        if (shownMessages.has("note" + id)) { return; }
        shownMessages.add("note" + id);
      }
      var item = el("li", "msg note", text);
      item.dataset.kind = kind;
      log.append(item);
      item.scrollIntoView({ block: "nearest" });
    }

    function showTyping(active) {
      clearTimeout(typingTimer);
      typing.hidden = !active;
      if (active) { typingTimer = setTimeout(function () { typing.hidden = true; }, 8000); }
    }

    if (status.dataset.state === "unavailable") { return; }
    follow(d.events, function (event, data, id) {
      if (event === "visitor_message") {
        showTyping(false);
        add("visitor", t("visitor"), String(data.text || ""), data.id);
      } else if (event === "operator_message") {
        add("operator", data.name || t("operator"), String(data.text || ""), data.id);
      } else if (event === "assistant_message" || event === "bot_message") {
        add("assistant", t("assistant"), String(data.text || ""), data.id);
      } else if (event === "typing") {
        if (data.who === "visitor") { showTyping(Boolean(data.active)); }
      } else if (event === "operator_joined") {
        notice(event, !data.name ? t("someone_joined") : t(data.company ? "joined_from" : "joined", data), id);
        if (data.name === d.myName) { setState("mine", t("mine")); }
        else if (status.dataset.state !== "mine") { setState("taken", data.name ? t("taken", data) : t("taken_by_someone")); }
      } else if (event === "operator_left" || event === "released") {
        notice(event, data.name ? t("back_from", data) : t("back"), id);
        setState("watching", t("answering_again"));
      } else if (event === "closed") {
        notice(event, t("closed_note"), id);
        setState("closed", t("closed"));
      } else if (event === "handoff_waiting") {
        notice(event, t("waiting_note"), id);
      } else if (event === "handoff_async") {
        notice(event, t("async_note", { reason: data.reason || "" }), id);
      }
    }, d.lastEventId);

    function act(button, url, after) {
      if (!button) { return; }
      button.addEventListener("click", function () {
        button.disabled = true;
        post(url, {}).then(after).catch(function (error) {
          status.textContent = error.message + (error.detail ? ": " + error.detail : "");
        }).then(function () { button.disabled = false; });
      });
    }
    act(join, d.join, function () {
      setState("mine", t("mine"));
    });
    act(release, d.release, function () {
      setState("watching", t("released"));
    });
    act(closeButton, d.close, function () { setState("closed", t("closed")); });

    function sendTyping(active) {
      clearTimeout(idleTimer);
      if (active) { idleTimer = setTimeout(function () { sendTyping(false); }, 3000); }
      var now = Date.now();
      if (active === sentTyping && (!active || now - sentAt < 2500)) { return; }
      sentTyping = active;
      sentAt = now;
      post(d.typing, { active: active }).catch(function () { /* a lost typing signal is harmless */ });
    }

    if (form) {
      box.addEventListener("input", function () { sendTyping(Boolean(box.value.trim())); });
      box.addEventListener("keydown", function (event) {
        if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
          event.preventDefault();
          form.requestSubmit();
        }
      });
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var text = box.value.trim();
        if (!text) { return; }
        var send = form.querySelector(".send");
        send.disabled = true;
        sendTyping(false);
        post(d.reply, { text: text }).then(function (sent) {
          box.value = "";
          note.textContent = "";
          if (sent && sent.id !== undefined) { add("operator", sent.name || t("you"), text, sent.id); }
        }).catch(function (error) {
          note.textContent = t("text_kept", { error: error.message });
        }).then(function () { send.disabled = false; box.focus(); });
      });
      form.querySelector(".suggest").addEventListener("click", function () {
        note.textContent = t("drafting");
        post(d.suggest, {}).then(function (draft) {
          var text = String(draft.draft || "");
          if (!text) { note.textContent = t("no_draft"); return; }
          box.value = text;
          note.textContent = t("draft_ready");
          box.focus();
        }).catch(function (error) { note.textContent = error.message; });
      });
    }
  }

  // ---- ringing: a visitor accepted a handoff ---------------------------------------------
  function beep() {
    try {
      var audio = new (window.AudioContext || window.webkitAudioContext)();
      var tone = audio.createOscillator();
      var gain = audio.createGain();
      tone.frequency.value = 880;
      gain.gain.value = 0.05;
      tone.connect(gain).connect(audio.destination);
      tone.start();
      tone.stop(audio.currentTime + 0.25);
    } catch (e) { /* no sound: the notice is enough */ }
  }

  function ringing(url, base) {
    var tray = el("div", "ring-tray");
    tray.setAttribute("aria-live", "assertive");
    document.body.append(tray);
    var presence = el("span", "presence");
    var who = document.querySelector("header.top .who");
    if (who) { who.prepend(presence); }
    var toasts = {};
    follow(url, function (event, data) {
      var session = String(data.session_id || "");
      if (event === "ringing") {
        if (!session || toasts[session]) { return; }
        var toast = el("div", "ring");
        toast.setAttribute("role", "alert");
        toast.dataset.session = session;
        toast.append(el("strong", "", t("ringing")));
        if (data.expected_wait_seconds) {
          toast.append(el("span", "hint", t("answer_within", { minutes: Math.round(data.expected_wait_seconds / 60) })));
        }
        var link = el("a", "button", t("join"));
        link.href = base + "/conversations/" + encodeURIComponent(session) + "/live";
        var dismiss = el("button", "secondary", t("dismiss"));
        dismiss.type = "button";
        dismiss.addEventListener("click", function () { toast.remove(); delete toasts[session]; });
        toast.append(link, dismiss);
        tray.append(toast);
        toasts[session] = toast;
        beep();
      } else if (event === "ringing_stopped") {
        if (toasts[session]) { toasts[session].remove(); delete toasts[session]; }
      } else if (event === "presence") {
        var n = (data.operators || []).length;
        presence.textContent = t("presence", { count: n });
      }
    });
  }

  var chat = document.getElementById("live-chat");
  if (chat) { liveChat(chat); }
  if (document.body.dataset.ring) { ringing(document.body.dataset.ring, document.body.dataset.siteBase); }
})();
