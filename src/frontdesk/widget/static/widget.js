/*!
 * Frontdesk chat widget: <frontdesk-chat>, a dependency-free Web Component.
 *
 *   <script src="https://frontdesk.example.com/widget.js" defer></script>
 *   <frontdesk-chat api-url="https://frontdesk.example.com" site-key="pk_..."
 *                   fallback-url="https://example.com/contact"></frontdesk-chat>
 *
 * Streams answers over SSE (fetch + ReadableStream, since EventSource cannot POST),
 * renders a safe subset of Markdown by building DOM nodes (answer text never goes
 * through innerHTML), and reports what happens as `frontdesk:*` CustomEvents on the
 * element (they bubble and cross the shadow boundary). See docs/widget.md.
 */
(() => {
  "use strict";

  const TAG = "frontdesk-chat";
  if (typeof window === "undefined" || !window.customElements || customElements.get(TAG)) {
    return;
  }

  // The widget's strings per language in the formal register, and the informal texts
  // where they differ (widget/texts.yaml; the server fills them in when it sends this
  // script). The site's `tone` picks the register.
  const CATALOG = /*@frontdesk-strings@*/ { formal: { en: {} }, informal: {} };
  const STRINGS = CATALOG.formal;
  const INFORMAL = CATALOG.informal;
  const inTone = (lang, tone) =>
    Object.assign({}, STRINGS[lang], tone === "informal" ? INFORMAL[lang] || {} : {});
  const RTL = new Set(["ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "dv", "ku"]);

  const STORE = {
    gdpr: "frontdesk_gdpr_acknowledged",
    fallback: "frontdesk_fallback_active",
    proactive: "frontdesk_proactive_shown",
    open: "frontdesk_open",
  };
  const NEAR_LIMIT = 0.8;
  const DEFAULT_MAX_CHARS = 15000;
  const SESSION_REFUSALS = new Set(["session_secret_invalid", "session_expired", "session_identity_mismatch"]);
  const OWNER_HINTS = {
    missing_site_key: () => "<frontdesk-chat> has no site-key attribute: set it to the site's widget.public_key.",
    unknown_site_key: (w) => `the site-key "${w.siteKey}" is unknown to ${w.apiBase}: copy widget.public_key from the site file.`,
    origin_not_allowed: () => `this page's origin ${window.location.origin} is not in the site's widget.allowed_origins: add it to the site file.`,
  };
  const DEFAULT_PROACTIVE_DELAY_MS = 45000;
  const DEFAULT_STREAM_TIMEOUT_MS = 10000;
  // How long an answer's next paint waits for an animation frame before a timer does it.
  const LATE_FRAME_MS = 250;
  const DEFAULT_INACTIVITY_MS = 15 * 60 * 1000;
  const EMAIL = /[^\s@<>()]+@[^\s@<>()]+\.[a-z]{2,}/i;
  const HUMAN_ROUTINGS = new Set(["cannot_answer", "high_stakes", "out_of_scope"]);
  const FALLBACK_STATUSES = new Set([401, 403, 404]);
  // The session's event stream is gone for good (refused, expired, erased): stop retrying.
  const LIVE_STOP = new Set([401, 403, 404, 410]);
  const LIVE_RETRY_MAX_MS = 10000;
  const TYPING_IDLE_MS = 3000;

  /** The page is on its developer's own machine (localhost, 127.0.0.0/8, ::1). */
  function onLoopbackPage() {
    const host = window.location.hostname;
    return host === "localhost" || host.endsWith(".localhost") || /^127\./.test(host) || host === "[::1]";
  }

  /** The first of localStorage, sessionStorage that works (private windows may refuse
   * both or one), else memory: the conversation then lasts for this page only. */
  function durableStore() {
    for (const kind of ["localStorage", "sessionStorage"]) {
      try {
        const store = window[kind];
        store.setItem("frontdesk_probe", "1");
        store.removeItem("frontdesk_probe");
        return { kind, store };
      } catch (_) {
        /* refused: try the next one */
      }
    }
    const memory = new Map();
    return {
      kind: "memory",
      store: {
        getItem: (k) => (memory.has(k) ? memory.get(k) : null),
        setItem: (k, v) => memory.set(k, String(v)),
        removeItem: (k) => memory.delete(k),
      },
    };
  }
  const durable = durableStore();

  // sessionStorage can throw (privacy modes); losing it only means the notice shows again.
  const storage = {
    get(key) {
      try {
        return window.sessionStorage.getItem(key);
      } catch (_) {
        return null;
      }
    },
    set(key, value) {
      try {
        window.sessionStorage.setItem(key, value);
      } catch (_) {
        /* degraded: state lasts for this page only */
      }
    },
  };

  function uuid4() {
    if (window.crypto && typeof window.crypto.randomUUID === "function") {
      return window.crypto.randomUUID();
    }
    const bytes = window.crypto.getRandomValues(new Uint8Array(16));
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  function escapeHtml(text) {
    return String(text).replace(/[&<>"']/g, (c) => ({
      "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;",
    })[c]);
  }

  /** Only http(s) and mailto links ever become clickable. */
  function safeUrl(url) {
    if (!url) return null;
    try {
      const parsed = new URL(url, window.location.href);
      if (["http:", "https:", "mailto:"].includes(parsed.protocol)) return parsed.href;
    } catch (_) {
      /* not a URL */
    }
    return null;
  }

  /** Create an element; attributes are set as attributes, children as text or nodes. */
  function h(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "class") node.className = value;
      else if (key.startsWith("on") && typeof value === "function") {
        node.addEventListener(key.slice(2), value);
      } else node.setAttribute(key, value === true ? "" : String(value));
    }
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // ---- safe light Markdown ------------------------------------------------------------
  // Text becomes text nodes; only the constructs below become elements. Nothing from the
  // answer is ever parsed as HTML.
  const INLINE =
    /(`[^`\n]+`)|(\*\*[^*\n]+\*\*)|(\[[^\]\n]+\]\([^)\s]+\))|(\[\d{1,3}\])|(\*[^*\s][^*\n]*\*)|((?<![\w_])_[^_\s][^_\n]*_(?![\w_]))/g;

  function renderInline(text, ctx, target) {
    let last = 0;
    for (const match of text.matchAll(new RegExp(INLINE.source, "g"))) {
      const token = match[0];
      if (match.index > last) target.append(text.slice(last, match.index));
      if (match[1]) {
        target.append(h("code", {}, token.slice(1, -1)));
      } else if (match[2]) {
        const strong = h("strong");
        renderInline(token.slice(2, -2), ctx, strong);
        target.append(strong);
      } else if (match[3]) {
        const parts = /^\[([^\]]+)\]\(([^)\s]+)\)$/.exec(token);
        const href = safeUrl(parts[2]);
        if (href) {
          target.append(
            h("a", { href, target: "_blank", rel: "noopener noreferrer nofollow" }, parts[1]),
          );
        } else {
          target.append(parts[1]);
        }
      } else if (match[4]) {
        target.append(ctx.pill(Number(token.slice(1, -1))));
      } else {
        const em = h("em");
        renderInline(token.slice(1, -1), ctx, em);
        target.append(em);
      }
      last = match.index + token.length;
    }
    if (last < text.length) target.append(text.slice(last));
  }

  function renderMarkdown(text, ctx) {
    const fragment = document.createDocumentFragment();
    const lines = String(text).replace(/\r\n?/g, "\n").split("\n");
    let paragraph = [];
    let list = null;
    const flush = () => {
      if (!paragraph.length) return;
      const p = h("p");
      paragraph.forEach((line, i) => {
        if (i) p.append(h("br"));
        renderInline(line, ctx, p);
      });
      fragment.append(p);
      paragraph = [];
    };
    for (let i = 0; i < lines.length; i += 1) {
      const line = lines[i];
      if (line.trim().startsWith("```")) {
        flush();
        list = null;
        const code = [];
        for (i += 1; i < lines.length && !lines[i].trim().startsWith("```"); i += 1) {
          code.push(lines[i]);
        }
        fragment.append(h("pre", {}, h("code", {}, code.join("\n"))));
        continue;
      }
      const item = /^\s*([-*•]|\d{1,3}[.)])\s+(.*)$/.exec(line);
      if (item) {
        flush();
        const ordered = /\d/.test(item[1]);
        if (!list || list.ordered !== ordered) {
          list = { ordered, node: h(ordered ? "ol" : "ul") };
          fragment.append(list.node);
        }
        const li = h("li");
        renderInline(item[2], ctx, li);
        list.node.append(li);
        continue;
      }
      const heading = /^#{1,6}\s+(.*)$/.exec(line);
      if (heading) {
        flush();
        list = null;
        const p = h("p", { class: "heading" });
        const strong = h("strong");
        renderInline(heading[1], ctx, strong);
        p.append(strong);
        fragment.append(p);
        continue;
      }
      if (!line.trim()) {
        flush();
        list = null;
        continue;
      }
      list = null;
      paragraph.push(line);
    }
    flush();
    return fragment;
  }

  // ---- SSE over fetch -------------------------------------------------------------------
  /** Yields {event, data} for each SSE block; comment lines (heartbeats) are skipped. */
  async function* readEvents(response) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true }).replace(/\r\n?/g, "\n");
        let cut = buffer.indexOf("\n\n");
        while (cut !== -1) {
          const block = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const parsed = parseBlock(block);
          if (parsed) yield parsed;
          cut = buffer.indexOf("\n\n");
        }
      }
      const tail = parseBlock(buffer);
      if (tail) yield tail;
    } finally {
      reader.releaseLock();
    }
  }

  function parseBlock(block) {
    let event = "message";
    let id = "";
    const data = [];
    for (const line of block.split("\n")) {
      if (!line || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon === -1 ? line : line.slice(0, colon);
      let value = colon === -1 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
      else if (field === "id") id = value;
    }
    if (!data.length) return null;
    try {
      return { event, id, data: JSON.parse(data.join("\n")) };
    } catch (_) {
      return null;
    }
  }

  class StreamFailure extends Error {
    constructor(reason, status, code) {
      super(reason);
      this.reason = reason;
      this.status = status || 0;
      this.code = code || "";
    }
  }

  const ICONS = {
    chat:
      '<svg viewBox="0 0 24 24" width="26" height="26" aria-hidden="true" focusable="false">' +
      '<path fill="currentColor" d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2zm3 6.5a1.5 1.5 0 1 0 0-.01zm5 0a1.5 1.5 0 1 0 0-.01zm5 0a1.5 1.5 0 1 0 0-.01z"/></svg>',
    close:
      '<svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true" focusable="false">' +
      '<path fill="currentColor" d="M6.4 5 12 10.6 17.6 5 19 6.4 13.4 12l5.6 5.6-1.4 1.4L12 13.4 6.4 19 5 17.6 10.6 12 5 6.4z"/></svg>',
    send:
      '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false">' +
      '<path fill="currentColor" d="M3 20.5 21 12 3 3.5v6.6l12 1.9-12 1.9z"/></svg>',
    restart:
      '<svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">' +
      '<path fill="currentColor" d="M12 5V2L7 6l5 4V7a5 5 0 1 1-5 5H5a7 7 0 1 0 7-7z"/></svg>',
    up:
      '<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">' +
      '<path fill="currentColor" d="M1 21h4V9H1v12zm22-11a2 2 0 0 0-2-2h-6.3l1-4.6v-.3c0-.4-.2-.8-.5-1.1L14.2 1 7.6 7.6C7.2 8 7 8.5 7 9v10a2 2 0 0 0 2 2h9c.8 0 1.5-.5 1.8-1.2l3-7c.1-.3.2-.5.2-.8v-2z"/></svg>',
    down:
      '<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">' +
      '<path fill="currentColor" d="M15 3H6c-.8 0-1.5.5-1.8 1.2l-3 7c-.1.3-.2.5-.2.8v2a2 2 0 0 0 2 2h6.3l-1 4.6v.3c0 .4.2.8.5 1.1L9.8 23l6.6-6.6c.4-.4.6-.9.6-1.4V5a2 2 0 0 0-2-2zm4 0v12h4V3h-4z"/></svg>',
    person:
      '<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">' +
      '<path fill="currentColor" d="M12 12a4 4 0 1 0-4-4 4 4 0 0 0 4 4zm0 2c-4 0-8 2-8 5v1h16v-1c0-3-4-5-8-5z"/></svg>',
  };

  const STYLE = `
    :host { all: initial; --_accent: var(--fd-accent, #4f46e5); --_accent-text: var(--fd-accent-text, #ffffff);
      --_bg: var(--fd-bg, #ffffff); --_text: var(--fd-text, #1f2937); --_muted: var(--fd-muted, #4b5563);
      --_surface: var(--fd-surface, #f3f4f6); --_radius: var(--fd-radius, 16px);
      --_font: var(--fd-font, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif); }
    * { box-sizing: border-box; }
    .fd { position: fixed; bottom: 20px; right: 20px; z-index: 2147483000; font-family: var(--_font);
      font-size: 15px; line-height: 1.45; color: var(--_text); display: flex; flex-direction: column;
      align-items: flex-end; gap: 12px; }
    .fd[data-position="bottom-left"] { right: auto; left: 20px; align-items: flex-start; }
    button { font: inherit; cursor: pointer; }
    :focus-visible { outline: 3px solid color-mix(in srgb, var(--_accent) 55%, white); outline-offset: 2px; }
    .sr-only { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden;
      clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
    [hidden] { display: none !important; }
    .launcher { width: 60px; height: 60px; border-radius: 50%; border: 0; background: var(--_accent);
      color: var(--_accent-text); box-shadow: 0 8px 24px rgba(15, 23, 42, .25); display: grid;
      place-items: center; transition: transform .15s ease; }
    .launcher:hover { transform: scale(1.05); }
    .proactive { max-width: 280px; background: var(--_bg); color: var(--_text); border-radius: 14px;
      box-shadow: 0 10px 30px rgba(15, 23, 42, .18); padding-block: 12px; padding-inline: 14px 36px; position: relative;
      animation: pop .25s ease; }
    .proactive-text { background: none; border: 0; padding: 0; text-align: start; color: inherit; }
    .proactive-close { position: absolute; top: 6px; inset-inline-end: 6px; border: 0; background: none;
      color: var(--_muted); width: 24px; height: 24px; border-radius: 50%; display: grid; place-items: center; }
    .panel { width: min(400px, calc(100vw - 24px)); height: min(620px, calc(100vh - 110px));
      background: var(--_bg); border-radius: var(--_radius); box-shadow: 0 18px 50px rgba(15, 23, 42, .28);
      display: flex; flex-direction: column; overflow: hidden; animation: pop .2s ease; }
    @keyframes pop { from { opacity: 0; transform: translateY(8px); } to { opacity: 1; transform: none; } }
    header { background: var(--_accent); color: var(--_accent-text); padding-block: 14px; padding-inline: 18px 12px;
      display: flex; align-items: center; gap: 8px; }
    header .titles { flex: 1; min-width: 0; }
    header h2 { margin: 0; font-size: 16px; font-weight: 650; }
    header p { margin: 2px 0 0; font-size: 12.5px; opacity: .85; }
    .icon { border: 0; background: transparent; color: inherit; width: 34px; height: 34px;
      border-radius: 50%; display: grid; place-items: center; }
    .icon:hover { background: rgba(255, 255, 255, .16); }
    .log { flex: 1; overflow-y: auto; padding: 16px; display: flex; flex-direction: column; gap: 14px;
      background: var(--_bg); }
    .turn { display: flex; flex-direction: column; gap: 6px; max-width: 100%; }
    .turn.user { align-items: flex-end; }
    .bubble { padding: 10px 14px; border-radius: 14px; max-width: 88%; overflow-wrap: anywhere; }
    .user .bubble { background: var(--_accent); color: var(--_accent-text); border-end-end-radius: 4px;
      white-space: pre-wrap; }
    .assistant .bubble, .greeting .bubble { background: var(--_surface); border-end-start-radius: 4px; }
    .content p { margin: 0 0 8px; } .content p:last-child { margin-bottom: 0; }
    .content ul, .content ol { margin: 4px 0 8px; padding-inline-start: 20px; }
    .content code { background: rgba(15, 23, 42, .08); padding: 1px 4px; border-radius: 4px; font-size: .92em; }
    .content pre { background: #0f172a; color: #e2e8f0; padding: 10px; border-radius: 8px; overflow-x: auto; }
    .content pre code { background: none; padding: 0; color: inherit; }
    .content a { color: var(--_accent); }
    .cite { display: inline-flex; align-items: center; justify-content: center; min-width: 20px;
      height: 20px; padding: 0 5px; margin: 0 1px; border-radius: 10px; border: 0; font-size: 11.5px;
      font-weight: 650; vertical-align: text-top; background: color-mix(in srgb, var(--_accent) 16%, white);
      color: var(--_accent); }
    .cite:hover { background: var(--_accent); color: var(--_accent-text); }
    .typing { display: inline-flex; gap: 4px; padding: 4px 0; }
    .typing span { width: 7px; height: 7px; border-radius: 50%; background: var(--_muted);
      animation: blink 1.2s infinite ease-in-out; }
    .typing span:nth-child(2) { animation-delay: .2s; } .typing span:nth-child(3) { animation-delay: .4s; }
    @keyframes blink { 0%, 80%, 100% { opacity: .25; } 40% { opacity: 1; } }
    .disclaimer { font-size: 13px; background: #fef3c7; color: #78350f; border-inline-start: 3px solid #f59e0b;
      padding: 8px 10px; border-radius: 8px; max-width: 88%; }
    .sources { max-width: 88%; font-size: 13px; }
    .sources summary { cursor: pointer; color: var(--_muted); font-weight: 600; }
    .sources ol { margin: 6px 0 0; padding-inline-start: 22px; }
    .sources li { margin: 4px 0; border-radius: 6px; }
    .sources li.flash { background: color-mix(in srgb, var(--_accent) 14%, white); }
    .sources a { color: var(--_accent); font-weight: 600; text-decoration: none; }
    .sources a:hover { text-decoration: underline; }
    .sources blockquote { margin: 2px 0 0; color: var(--_muted); font-size: 12.5px; }
    .soft { font-size: 13px; color: var(--_muted); margin: 0; }
    .linkish { border: 0; background: none; padding: 0; color: var(--_accent); text-decoration: underline; }
    .actions { display: flex; flex-wrap: wrap; gap: 8px; }
    .cta, .human { display: inline-flex; align-items: center; gap: 6px; border-radius: 999px;
      padding: 7px 14px; font-size: 14px; font-weight: 600; text-decoration: none; }
    .cta { background: var(--_accent); color: var(--_accent-text); border: 0; }
    .human { background: var(--_bg); color: var(--_accent); border: 1.5px solid var(--_accent); }
    .handoff { font-size: 13px; background: #ecfdf5; color: #065f46; border-radius: 8px; padding: 8px 10px;
      max-width: 88%; }
    .operator .who { font-size: 12px; color: var(--_muted); font-weight: 600; }
    .operator .bubble { background: #ecfdf5; color: #064e3b; border: 1px solid #a7f3d0;
      border-end-start-radius: 4px; white-space: pre-wrap; }
    .live-note { font-size: 12.5px; color: var(--_muted); text-align: center; margin: 0; padding: 0 8px; }
    .live-note[data-kind="operator_joined"] { color: #065f46; font-weight: 600; }
    .launcher.unread::after { content: ""; position: absolute; top: 4px; inset-inline-end: 4px; width: 14px;
      height: 14px; border-radius: 50%; background: #dc2626; border: 2px solid #fff; }
    .launcher { position: relative; }
    .chips { display: flex; flex-wrap: wrap; gap: 6px; }
    .chip { border: 1.5px solid color-mix(in srgb, var(--_accent) 40%, white); background: var(--_bg);
      color: var(--_accent); border-radius: 999px; padding: 5px 12px; font-size: 13.5px; text-align: start; }
    .chip:hover { background: color-mix(in srgb, var(--_accent) 10%, white); }
    .error { font-size: 13.5px; color: #991b1b; }
    .gdpr { margin: 0 12px 10px; padding: 12px; border-radius: 12px; background: var(--_surface);
      font-size: 13px; display: flex; flex-direction: column; gap: 10px; }
    .gdpr p { margin: 0; } .gdpr a { color: var(--_accent); }
    .gdpr-ok { align-self: flex-end; border: 0; border-radius: 999px; padding: 7px 16px; font-weight: 650;
      background: var(--_accent); color: var(--_accent-text); }
    form { display: flex; align-items: flex-end; gap: 8px; padding: 10px 12px; border-top: 1px solid #e5e7eb; }
    textarea { flex: 1; resize: none; border: 1.5px solid #d1d5db; border-radius: 12px; padding: 9px 12px;
      font: inherit; color: var(--_text); background: var(--_bg); max-height: 120px; min-height: 42px; }
    textarea:focus { outline: none; border-color: var(--_accent); }
    textarea:disabled { background: var(--_surface); cursor: not-allowed; }
    .send { width: 42px; height: 42px; border-radius: 50%; border: 0; background: var(--_accent);
      color: var(--_accent-text); display: grid; place-items: center; flex: none; }
    .send:disabled { opacity: .45; cursor: not-allowed; }
    .footer { display: flex; justify-content: space-between; align-items: center; padding: 0 14px 10px;
      font-size: 12px; color: var(--_muted); }
    .footer .linkish { display: inline-flex; align-items: center; gap: 4px; font-size: 12.5px; }
    .fallback { margin: auto 16px 20px; padding: 16px; border-radius: 12px; background: var(--_surface);
      display: flex; flex-direction: column; gap: 12px; }
    .fallback p { margin: 0; }
    .fallback .owner-hint { font-size: 12.5px; color: var(--_muted); overflow-wrap: anywhere; }
    .fallback a { align-self: flex-start; background: var(--_accent); color: var(--_accent-text);
      padding: 8px 16px; border-radius: 999px; text-decoration: none; font-weight: 650; }
    .greeting .bubble { white-space: pre-wrap; }
    .counter { font-size: 12px; color: var(--_muted); padding: 0 14px; margin: -4px 0 4px; text-align: end; }
    .counter[data-full] { color: #991b1b; font-weight: 600; }
    .feedback { display: flex; align-items: center; gap: 4px; flex-wrap: wrap; font-size: 12.5px; color: var(--_muted); }
    .vote { border: 1px solid #d1d5db; background: var(--_bg); border-radius: 999px; min-width: 32px; height: 28px;
      padding: 0 8px; font-size: 14px; line-height: 1; }
    .vote[aria-pressed="true"] { border-color: var(--_accent); background: color-mix(in srgb, var(--_accent) 12%, white); }
    .feedback form { display: flex; gap: 6px; padding: 0; border: 0; width: 100%; margin-top: 4px; }
    .feedback input { flex: 1; min-width: 0; border: 1.5px solid #d1d5db; border-radius: 8px; padding: 5px 8px;
      font: inherit; color: var(--_text); background: var(--_bg); }
    .feedback form button { border: 0; border-radius: 8px; padding: 5px 10px; background: var(--_accent);
      color: var(--_accent-text); font-size: 12.5px; font-weight: 600; }
    @media (max-width: 480px) {
      .fd { bottom: 12px; right: 12px; } .fd[data-position="bottom-left"] { left: 12px; }
      .panel { height: calc(100vh - 96px); }
      .fd.open { inset: 0; gap: 0; }
      .fd.open .panel { width: 100vw; height: 100vh; height: 100dvh; border-radius: 0; }
      .fd.open .launcher { display: none; }
    }
    @media (prefers-reduced-motion: reduce) {
      *, *::before, *::after { animation: none !important; transition: none !important; scroll-behavior: auto !important; }
    }
  `;
  let sheet = null;
  /** One constructed stylesheet shared by every widget: no <style> element, so a page
   * whose Content-Security-Policy refuses inline styles still shows the widget. */
  function adoptStyles(shadow) {
    if ("adoptedStyleSheets" in shadow && typeof CSSStyleSheet === "function") {
      try {
        if (!sheet) {
          sheet = new CSSStyleSheet();
          sheet.replaceSync(STYLE);
        }
        shadow.adoptedStyleSheets = [sheet];
        return true;
      } catch (_) {
        /* older engines: fall back to a <style> element */
      }
    }
    const style = document.createElement("style");
    style.textContent = STYLE;
    shadow.prepend(style);
    return false;
  }

  class FrontdeskChat extends HTMLElement {
    static get observedAttributes() {
      return ["accent-color", "accent-text-color", "background-color", "text-color", "position"];
    }

    constructor() {
      super();
      this.shadow = this.attachShadow({ mode: "open" });
      this.built = false;
      this.isOpen = false;
      this.hasOpened = false;
      this.busy = false;
      this.turns = 0;
      this.firstSent = false;
      this.fallbackActive = false;
      this.ownerHint = "";
      this.leadLevel = "cold";
      this.sessionId = uuid4();
      this.session = null; // {id, secret, expires, user, rev} once the server issued a secret
      this.settings = null;
      this.maxChars = DEFAULT_MAX_CHARS;
      this.timers = {};
      this.onStorage = this.onStorage.bind(this);
      this.controller = null;
      // The live takeover: event stream, last event id, ids already shown, who owns the chat.
      this.live = { controller: null, lastId: "", seen: new Set(), owner: null, typingSent: false, typingAt: 0 };
      this.onDocumentClick = this.onDocumentClick.bind(this);
    }

    connectedCallback() {
      if (this.built) return;
      this.built = true;
      this.readConfig();
      this.build();
      this.applyTheme();
      if (!this.apiBase) {
        console.error("ConfigurationError: <frontdesk-chat> needs an api-url attribute.");
        this.activateFallback("connection_error", { persist: false, announce: false });
      } else if (storage.get(STORE.fallback)) {
        this.activateFallback(storage.get(STORE.fallback), { persist: false, announce: false });
      }
      if (!this.fallbackUrl) {
        console.error(
          "ConfigurationError: <frontdesk-chat> has no valid fallback-url; " +
            "the fallback state will have no contact link.",
        );
      }
      if (this.proactiveFromAttributes) this.scheduleProactive();
      document.addEventListener("click", this.onDocumentClick, true);
      window.addEventListener("storage", this.onStorage);
      if (this.hasAttribute("open") || storage.get(STORE.open) === "1") {
        this.openChat({ focus: this.hasAttribute("open") });
      }
      if (this.apiBase) this.boot();
    }

    disconnectedCallback() {
      Object.values(this.timers).forEach((t) => clearTimeout(t));
      this.timers = {};
      if (this.controller) this.controller.abort();
      this.stopLive();
      document.removeEventListener("click", this.onDocumentClick, true);
      window.removeEventListener("storage", this.onStorage);
    }

    /** Settings from the server and the stored conversation, fetched side by side. */
    async boot() {
      const restored = this.restore();
      await this.loadSettings();
      await restored;
      if (this.isOpen) this.showGreeting();
    }

    attributeChangedCallback() {
      if (this.built) this.applyTheme();
    }

    readConfig() {
      const attr = (name) => (this.getAttribute(name) || "").trim();
      this.apiBase = "";
      if (attr("api-url")) {
        try {
          // Relative values ("/") mean the page's own origin.
          const base = new URL(attr("api-url"), window.location.href);
          if (base.protocol === "http:" || base.protocol === "https:") {
            this.apiBase = base.href.replace(/\/+$/, "").replace(/\/v1\/chat$/, "");
          }
        } catch (_) {
          this.apiBase = "";
        }
      }
      this.siteKey = attr("site-key");
      this.fallbackUrl = safeUrl(attr("fallback-url"));
      this.privacyUrl = safeUrl(attr("privacy-url"));
      const wanted = (attr("lang") || document.documentElement.lang || navigator.language || "en")
        .toLowerCase()
        .split(/[-_]/)[0];
      this.lang = STRINGS[wanted] ? wanted : "en";
      // The site's register: the `tone` attribute, else the site file's (from the server).
      this.toneFromAttribute = attr("tone") === "informal" || attr("tone") === "formal";
      this.tone = this.toneFromAttribute ? attr("tone") : "formal";
      this.t = inTone(this.lang, this.tone);
      this.attributeTexts = {
        proactive: attr("proactive-message"),
        heading: attr("heading"),
        gdpr: attr("gdpr-notice"),
      };
      const pageDir = (document.documentElement.dir || "").toLowerCase();
      this.dir = attr("dir") || (RTL.has(wanted) || pageDir === "rtl" ? "rtl" : "ltr");
      this.identity = attr("user-id")
        ? {
            user_id: attr("user-id"),
            email: attr("user-email") || null,
            name: attr("user-name") || null,
            user_hash: attr("user-hash"),
          }
        : null;
      this.proactiveFromAttributes =
        this.hasAttribute("proactive-delay-ms") || this.hasAttribute("proactive-message");
      const number = (name, fallback) => {
        const raw = attr(name);
        if (raw === "") return fallback;
        if (raw === "off") return -1;
        const value = Number(raw);
        return Number.isFinite(value) ? value : fallback;
      };
      this.proactiveDelayMs = number("proactive-delay-ms", DEFAULT_PROACTIVE_DELAY_MS);
      this.streamTimeoutMs = number("stream-timeout-ms", DEFAULT_STREAM_TIMEOUT_MS);
      this.inactivityMs = number("inactivity-timeout-ms", DEFAULT_INACTIVITY_MS);
      this.retentionDays = number("retention-days", 90);
      this.wordTexts();
    }

    /** The texts an attribute may replace, in the current register. */
    wordTexts() {
      const own = this.attributeTexts;
      this.proactiveMessage = own.proactive || this.t.proactive;
      this.heading = own.heading || this.t.heading;
      this.gdprText = own.gdpr || this.t.gdpr.replace("{days}", String(this.retentionDays));
    }

    /** Speak in `tone` (the site's register): the strings, and the labels already shown. */
    applyTone(tone) {
      if (this.toneFromAttribute || tone === this.tone || (tone !== "formal" && tone !== "informal")) return;
      this.tone = tone;
      this.t = inTone(this.lang, tone);
      this.wordTexts();
      if (!this.$root) return;
      const $ = (selector) => this.shadow.querySelector(selector);
      $("#fd-title").textContent = this.heading;
      this.$log.setAttribute("aria-label", this.heading);
      $(".titles p").textContent = this.t.subtitle;
      this.$input.setAttribute("placeholder", this.t.placeholder);
      $("label[for=fd-input]").textContent = this.t.placeholder;
      $(".human-action span").textContent = this.t.human;
      $(".proactive-text").textContent = this.proactiveMessage;
      this.fillGdpr();
    }

    fillGdpr() {
      const gdprText = this.shadow.querySelector(".gdpr-text");
      gdprText.replaceChildren(this.gdprText);
      if (this.privacyUrl) {
        gdprText.append(" ", h("a", { href: this.privacyUrl, target: "_blank", rel: "noopener" }, this.t.privacy));
      }
    }

    applyTheme() {
      const map = {
        "accent-color": "--fd-accent",
        "accent-text-color": "--fd-accent-text",
        "background-color": "--fd-bg",
        "text-color": "--fd-text",
      };
      for (const [name, property] of Object.entries(map)) {
        const value = this.getAttribute(name);
        if (value) this.style.setProperty(property, value);
      }
      const position = this.getAttribute("position") === "bottom-left" ? "bottom-left" : "bottom-right";
      if (this.$root) this.$root.dataset.position = position;
    }

    // ---- DOM skeleton (static markup; dynamic strings escaped) ---------------------------
    build() {
      const t = this.t;
      const e = escapeHtml;
      this.shadow.innerHTML = `
        <div class="fd" part="container" lang="${e(this.lang)}" dir="${e(this.dir)}">
          <div class="proactive" part="proactive" role="status" hidden>
            <button type="button" class="proactive-text">${e(this.proactiveMessage)}</button>
            <button type="button" class="proactive-close" aria-label="${e(t.dismiss)}">${ICONS.close}</button>
          </div>
          <section class="panel" part="panel" id="fd-panel" role="dialog" aria-modal="false"
                   aria-labelledby="fd-title" hidden>
            <header>
              <div class="titles"><h2 id="fd-title">${e(this.heading)}</h2><p>${e(t.subtitle)}</p></div>
              <button type="button" class="icon end" aria-label="${e(t.newConversation)}" title="${e(t.newConversation)}">${ICONS.restart}</button>
              <button type="button" class="icon close" aria-label="${e(t.close)}" title="${e(t.close)}">${ICONS.close}</button>
            </header>
            <div class="log" role="log" aria-live="off" aria-label="${e(this.heading)}" tabindex="-1"></div>
            <div class="sr-only announce" aria-live="polite" aria-atomic="true"></div>
            <div class="gdpr" role="region" aria-label="${e(t.privacy)}" hidden>
              <p class="gdpr-text"></p>
              <button type="button" class="gdpr-ok">${e(t.gdprOk)}</button>
            </div>
            <form class="composer" novalidate>
              <label class="sr-only" for="fd-input">${e(t.placeholder)}</label>
              <textarea id="fd-input" rows="1" placeholder="${e(t.placeholder)}"
                        maxlength="${DEFAULT_MAX_CHARS}" aria-describedby="fd-counter"></textarea>
              <button type="submit" class="send" aria-label="${e(t.send)}" title="${e(t.send)}">${ICONS.send}</button>
            </form>
            <p class="counter" id="fd-counter" hidden></p>
            <div class="footer">
              <button type="button" class="linkish human-action">${ICONS.person}<span>${e(t.human)}</span></button>
              <span>${e(t.poweredBy)}</span>
            </div>
            <div class="fallback" role="alert" hidden><p></p></div>
          </section>
          <button type="button" class="launcher" part="launcher" aria-expanded="false"
                  aria-controls="fd-panel" aria-label="${e(t.launcher)}">${ICONS.chat}</button>
        </div>`;
      adoptStyles(this.shadow);
      const $ = (selector) => this.shadow.querySelector(selector);
      this.$root = $(".fd");
      this.$panel = $(".panel");
      this.$log = $(".log");
      this.$announce = $(".announce");
      this.$gdpr = $(".gdpr");
      this.$form = $("form");
      this.$input = $("textarea");
      this.$send = $(".send");
      this.$footer = $(".footer");
      this.$fallback = $(".fallback");
      this.$launcher = $(".launcher");
      this.$proactive = $(".proactive");
      this.$counter = $(".counter");

      this.fillGdpr();

      this.$launcher.addEventListener("click", () => (this.isOpen ? this.closeChat() : this.openChat()));
      $(".close").addEventListener("click", () => this.closeChat());
      $(".end").addEventListener("click", () => this.endConversation());
      $(".gdpr-ok").addEventListener("click", () => this.acknowledgeGdpr());
      $(".human-action").addEventListener("click", () => this.send(this.t.humanRequest));
      $(".proactive-text").addEventListener("click", () => this.openChat());
      $(".proactive-close").addEventListener("click", () => this.hideProactive());
      this.$form.addEventListener("submit", (event) => {
        event.preventDefault();
        this.send(this.$input.value);
      });
      this.$input.addEventListener("keydown", (event) => {
        if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
          event.preventDefault();
          this.send(this.$input.value);
        }
      });
      this.$input.addEventListener("input", () => {
        this.autosize();
        this.updateCounter();
        this.visitorTyping(Boolean(this.$input.value.trim()));
      });
      this.$input.addEventListener("paste", (event) => this.onPaste(event));
      this.$panel.addEventListener("keydown", (event) => {
        if (event.key === "Escape") {
          event.stopPropagation();
          this.closeChat();
        }
      });
      this.applyTheme();
      this.syncComposer();
    }

    autosize() {
      this.$input.style.height = "auto";
      this.$input.style.height = `${Math.min(this.$input.scrollHeight, 120)}px`;
    }

    get gdprAcknowledged() {
      return this.gdprAckedHere || storage.get(STORE.gdpr) === "1";
    }

    syncComposer() {
      const showGdpr = this.hasOpened && !this.gdprAcknowledged && !this.fallbackActive;
      this.$gdpr.hidden = !showGdpr;
      const enabled = this.gdprAcknowledged && !this.fallbackActive;
      this.$input.disabled = !enabled;
      this.$send.disabled = !enabled || this.busy;
      this.$form.hidden = this.fallbackActive;
      this.$footer.hidden = this.fallbackActive;
    }

    // ---- open / close / proactive --------------------------------------------------------
    openChat(options) {
      const { focus = true } = options || {};
      if (this.isOpen) return;
      this.isOpen = true;
      this.hasOpened = true;
      storage.set(STORE.open, "1");
      this.hideProactive();
      this.$root.classList.add("open");
      this.$panel.hidden = false;
      this.$launcher.setAttribute("aria-expanded", "true");
      this.$launcher.setAttribute("aria-label", this.t.close);
      this.$launcher.innerHTML = ICONS.close;
      this.syncComposer();
      this.showGreeting();
      this.$launcher.classList.remove("unread");
      this.syncLive();
      this.emit("chat_opened");
      if (focus) this.focusBest();
    }

    closeChat() {
      if (!this.isOpen) return;
      this.isOpen = false;
      storage.set(STORE.open, "");
      this.$root.classList.remove("open");
      this.$panel.hidden = true;
      this.$launcher.setAttribute("aria-expanded", "false");
      this.$launcher.setAttribute("aria-label", this.t.launcher);
      this.$launcher.innerHTML = ICONS.chat;
      this.$launcher.focus();
      this.syncLive();
    }

    focusBest() {
      if (this.fallbackActive) {
        const link = this.$fallback.querySelector("a");
        (link || this.$log).focus();
      } else if (!this.$gdpr.hidden) {
        this.shadow.querySelector(".gdpr-ok").focus();
      } else {
        this.$input.focus();
      }
    }

    acknowledgeGdpr() {
      this.gdprAckedHere = true;
      storage.set(STORE.gdpr, "1");
      this.syncComposer();
      this.emit("gdpr_acknowledged");
      this.$input.focus();
    }

    scheduleProactive() {
      if (this.proactiveDelayMs < 0 || storage.get(STORE.proactive) || this.fallbackActive) return;
      this.timers.proactive = setTimeout(() => {
        if (this.hasOpened || this.turns > 0 || this.fallbackActive) return;
        storage.set(STORE.proactive, "1");
        this.$proactive.hidden = false;
      }, this.proactiveDelayMs);
    }

    hideProactive() {
      clearTimeout(this.timers.proactive);
      this.$proactive.hidden = true;
    }

    onDocumentClick(event) {
      if (!this.$proactive.hidden && !event.composedPath().includes(this)) this.hideProactive();
    }

    // ---- analytics -----------------------------------------------------------------------
    emit(name, detail) {
      const payload = Object.assign(
        { session_id: this.sessionId },
        detail || {},
        { timestamp: new Date().toISOString() },
      );
      this.dispatchEvent(
        new CustomEvent(`frontdesk:${name}`, { detail: payload, bubbles: true, composed: true }),
      );
    }

    armInactivity() {
      clearTimeout(this.timers.inactivity);
      if (this.inactivityMs < 0) return;
      this.timers.inactivity = setTimeout(() => {
        if (this.turns > 0) {
          this.emit("conversation_ended", {
            termination_type: "inactivity_timeout",
            turn_count: this.turns,
          });
        }
      }, this.inactivityMs);
    }

    endConversation() {
      if (this.controller) this.controller.abort();
      clearTimeout(this.timers.inactivity);
      if (this.turns > 0) {
        this.emit("conversation_ended", { termination_type: "explicit_close", turn_count: this.turns });
      }
      this.forgetSession();
      this.resetView();
      this.busy = false;
      this.syncComposer();
      if (!this.fallbackActive) this.$input.focus();
    }

    resetView() {
      this.$log.replaceChildren();
      this.turns = 0;
      this.firstSent = false;
      this.leadLevel = "cold";
      if (this.isOpen) this.showGreeting();
    }

    // ---- continuity: the session survives reloads, pages and tabs --------------------------
    get sessionKey() {
      return `frontdesk_session:${this.siteKey || "default"}`;
    }

    readSession() {
      try {
        const saved = JSON.parse(durable.store.getItem(this.sessionKey) || "null");
        if (!saved || !saved.id || !saved.secret) return null;
        if (saved.expires && saved.expires < Date.now()) {
          durable.store.removeItem(this.sessionKey);
          return null;
        }
        // Another signed-in user on this browser: not their conversation.
        if ((saved.user || "") !== (this.identity ? this.identity.user_id : "")) return null;
        return saved;
      } catch (_) {
        return null;
      }
    }

    writeSession(saved) {
      this.session = saved;
      this.sessionId = saved.id;
      try {
        durable.store.setItem(this.sessionKey, JSON.stringify(saved));
      } catch (_) {
        /* storage full or refused: the conversation lasts for this page */
      }
    }

    forgetSession() {
      this.stopLive();
      this.live = { controller: null, lastId: "", seen: new Set(), owner: null, typingSent: false, typingAt: 0 };
      this.session = null;
      this.sessionId = uuid4();
      try {
        durable.store.removeItem(this.sessionKey);
      } catch (_) {
        /* nothing stored */
      }
    }

    /** Session id, secret and expiry from a turn's response headers. */
    adoptSession(headers) {
      const id = headers.get("X-Frontdesk-Session");
      if (!id) return;
      const secret = headers.get("X-Frontdesk-Session-Secret") ||
        (this.session && this.session.id === id ? this.session.secret : null);
      if (!secret) return;
      const ttl = ((this.settings && this.settings.session.ttl_hours) || 24) * 3600e3;
      const expires = Date.parse(headers.get("X-Frontdesk-Session-Expires") || "") || Date.now() + ttl;
      const rev = this.session && this.session.id === id ? this.session.rev || 0 : 0;
      this.writeSession({ id, secret, expires, user: this.identity ? this.identity.user_id : "", rev });
    }

    request(path, options) {
      const { method = "GET", body, session, keyed = true } = options || {};
      // Unkeyed GETs are "simple" requests (no preflight): their errors stay readable.
      const headers = keyed ? { Accept: "application/json", "X-Frontdesk-Key": this.siteKey } : {};
      if (session) headers["X-Frontdesk-Session-Secret"] = session.secret;
      if (body !== undefined) headers["Content-Type"] = "application/json";
      // An explicit referrer policy: same-origin GETs carry no Origin, and pages that
      // send no referrer would otherwise leave the server no way to check the origin.
      return fetch(`${this.apiBase}${path}`, {
        method, headers, mode: "cors", credentials: "omit", referrerPolicy: "origin",
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    }

    async restore() {
      let saved = this.readSession();
      if (!saved && this.identity) saved = await this.resumeIdentity();
      if (!saved) return;
      const history = await this.fetchHistory(saved);
      if (history && !this.busy && this.turns === 0) {
        this.session = saved;
        this.sessionId = saved.id;
        this.renderHistory(history.messages || [], history);
      }
      this.syncLive();
    }

    /** A signed-in visitor's conversation from another device (server-verified). */
    async resumeIdentity() {
      try {
        const response = await this.request("/v1/sessions/resume", {
          method: "POST", body: { identity: this.identity },
        });
        if (!response.ok) return null;
        const grant = await response.json();
        const saved = {
          id: grant.session_id, secret: grant.session_secret, expires: Date.parse(grant.expires_at),
          user: this.identity.user_id, rev: 0,
        };
        this.writeSession(saved);
        return saved;
      } catch (_) {
        return null;
      }
    }

    async fetchHistory(saved) {
      try {
        const response = await this.request(`/v1/sessions/${encodeURIComponent(saved.id)}`, { session: saved });
        if (response.ok) return await response.json();
        // Refused, expired or erased: start afresh next time.
        if ([403, 404, 410].includes(response.status) && this.readSession()?.id === saved.id) {
          this.forgetSession();
        }
      } catch (_) {
        /* offline: the transcript comes back on the next page */
      }
      return null;
    }

    renderHistory(messages, history) {
      this.$log.replaceChildren();
      this.live.seen = new Set();
      let turns = 0;
      for (const message of messages) {
        if (message.role === "user") {
          this.addUserTurn(message.content);
        } else if (message.role === "assistant") {
          turns = Math.max(turns, Number(message.turn) || 0);
          // A message relayed to a person has no bot reply: nothing to show for it.
          if (message.route !== "HUMAN") this.addAssistantTurn().restore(message);
        } else if (message.role === "operator" || message.role === "event") {
          // A live takeover's messages and notices, stored as events: shown as they were.
          this.onLive({ event: message.event || "operator_message", id: String(message.event_id || ""), data: message }, true);
        }
      }
      const live = (history && history.live) || {};
      if (live.last_event_id) this.live.lastId = String(live.last_event_id);
      if (live.owner) this.live.owner = live.owner === "human" ? { name: String(live.name || this.t.team), company: "" } : null;
      this.turns = turns;
      this.firstSent = turns > 0;
      if (!turns && this.isOpen) this.showGreeting();
    }

    /** Another tab of this site changed the conversation: show the same one. */
    onStorage(event) {
      if (event.key !== this.sessionKey && event.key !== null) return;
      const next = this.readSession();
      if (!next) {
        if (this.session) {
          this.forgetSession();
          if (!this.busy) this.resetView();
        }
        return;
      }
      if (this.busy) return;
      this.session = next;
      this.sessionId = next.id;
      this.fetchHistory(next).then((history) => {
        if (history && !this.busy) this.renderHistory(history.messages || [], history);
        this.syncLive();
      });
    }

    // ---- first impression ----------------------------------------------------------------
    async loadSettings() {
      let response;
      try {
        response = await this.request(`/v1/widget/config?key=${encodeURIComponent(this.siteKey)}`, { keyed: false });
      } catch (_) {
        console.warn(
          `Frontdesk: cannot reach ${this.apiBase} from ${window.location.origin}. Check the ` +
            "api-url attribute, that the server runs, and that this origin is in the site's " +
            "widget.allowed_origins.",
        );
        if (!this.proactiveFromAttributes) this.scheduleProactive();
        return;
      }
      if (!response.ok) {
        await this.warnOwner(response);
        if (!this.proactiveFromAttributes) this.scheduleProactive();
        return;
      }
      this.settings = await response.json();
      this.applyTone(this.settings.site && this.settings.site.tone);
      this.setLimit(Number(this.settings.limits && this.settings.limits.max_message_chars) || DEFAULT_MAX_CHARS);
      if (!this.proactiveFromAttributes) this.scheduleRules(this.settings.proactive || []);
    }

    /** A console warning the site owner can act on (the visitor sees the fallback). On the
     * developer's own machine the server adds what to change, and the fallback shows it. */
    async warnOwner(response) {
      let error = {};
      try {
        error = (await response.clone().json()).error || {};
      } catch (_) {
        /* not JSON */
      }
      const code = error.code || "";
      if (error.hint && onLoopbackPage()) this.ownerHint = String(error.hint);
      const hint = OWNER_HINTS[code];
      console.warn(
        `Frontdesk: ${this.ownerHint || (hint ? hint(this) : `the server answered ${response.status} ${code}`.trim())}`,
      );
      return code;
    }

    localized(table) {
      if (!table) return null;
      const fallback = this.settings && this.settings.site.default_language;
      return table[this.lang] || table[fallback] || table.en || null;
    }

    showGreeting() {
      // Opened before the site's settings arrived (a slow network): the generic greeting
      // shown meanwhile gives way to the site's own, with its suggestions.
      const early = this.$log.querySelector(":scope > .greeting[data-before-settings]");
      if (early && this.settings && this.turns === 0 && this.$log.childElementCount === 1) early.remove();
      if (this.turns > 0 || this.$log.childElementCount || this.fallbackActive) return;
      const text = this.localized(this.settings && this.settings.greeting) || this.t.proactive;
      const node = h("div", { class: "turn greeting", "data-before-settings": !this.settings },
        h("div", { class: "bubble" }, h("span", { class: "sr-only" }, `${this.t.bot}: `), text));
      const questions = (this.localized(this.settings && this.settings.suggestions) || []).slice(0, 3);
      if (questions.length) {
        node.append(h("div", { class: "chips", role: "group", "aria-label": this.t.suggestions },
          ...questions.map((q) => h("button", { type: "button", class: "chip", onclick: () => this.send(q) }, q))));
      }
      this.$log.append(node);
    }

    scheduleRules(rules) {
      const path = window.location.pathname;
      // Patterns match the page path; `*` is the only wildcard.
      const glob = (pattern) => {
        const body = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
        return new RegExp("^" + body + "$");
      };
      const seen = (rule) => `${STORE.proactive}:${this.siteKey}:${rule.id}`;
      const rule = rules.find((r) => {
        const where = !r.url_patterns.length || r.url_patterns.some((p) => glob(p).test(path));
        const shown = r.once_per_visitor ? durable.store.getItem(seen(r)) : storage.get(seen(r));
        return where && !shown;
      });
      if (!rule || this.fallbackActive) {
        if (!rules.length) this.scheduleProactive();
        return;
      }
      this.timers.proactive = setTimeout(() => {
        if (this.hasOpened || this.turns > 0 || this.fallbackActive) return;
        if (rule.once_per_visitor) durable.store.setItem(seen(rule), "1");
        else storage.set(seen(rule), "1");
        this.shadow.querySelector(".proactive-text").textContent = this.localized(rule.message) || this.t.proactive;
        this.$proactive.hidden = false;
      }, Math.max(0, Number(rule.delay_s) || 0) * 1000);
    }

    // ---- clear limits --------------------------------------------------------------------
    setLimit(max) {
      this.maxChars = max;
      this.$input.maxLength = max;
      this.updateCounter();
    }

    updateCounter() {
      const n = this.$input.value.length;
      const near = n >= this.maxChars * NEAR_LIMIT;
      this.$counter.hidden = !near;
      if (!near) return;
      const fmt = (v) => Number(v).toLocaleString(this.lang);
      this.$counter.textContent = this.t.counter.replace("{n}", fmt(n)).replace("{max}", fmt(this.maxChars));
      this.$counter.toggleAttribute("data-full", n >= this.maxChars);
    }

    onPaste(event) {
      const pasted = (event.clipboardData && event.clipboardData.getData("text")) || "";
      const input = this.$input;
      const kept = input.value.length - Math.abs(input.selectionEnd - input.selectionStart);
      if (kept + pasted.length <= this.maxChars) return;
      // The browser cuts the paste at maxlength; say so instead of cutting silently.
      setTimeout(() => {
        this.flashNotice(this.t.pasteCut.replace("{max}", Number(this.maxChars).toLocaleString(this.lang)));
        this.updateCounter();
      }, 0);
    }

    // ---- fallback --------------------------------------------------------------------------
    activateFallback(reason, options) {
      const { persist = true, announce = true } = options || {};
      if (this.fallbackActive) return;
      this.fallbackActive = true;
      if (persist) storage.set(STORE.fallback, reason || "connection_error");
      const box = this.$fallback;
      box.replaceChildren(h("p", {}, this.fallbackUrl ? this.t.fallback : this.t.fallbackNoLink));
      if (this.ownerHint) {
        box.append(h("p", { class: "owner-hint" }, `For the site's developer (shown on this machine only): ${this.ownerHint}`));
      }
      if (this.fallbackUrl) {
        box.append(
          h(
            "a",
            { href: this.fallbackUrl, target: "_blank", rel: "noopener", class: "contact" },
            this.t.contact,
            h("span", { class: "sr-only" }, ` ${this.t.newTab}`),
          ),
        );
      }
      box.hidden = false;
      this.hideProactive();
      this.stopLive();
      this.syncComposer();
      if (announce) this.emit("fallback_activated", { reason: reason || "connection_error" });
      if (this.isOpen) this.focusBest();
    }

    // ---- a turn ----------------------------------------------------------------------------
    async send(raw) {
      const text = String(raw || "").trim();
      if (!text || this.busy || this.fallbackActive || !this.gdprAcknowledged) {
        if (this.busy && text) this.flashNotice(this.t.busy);
        return;
      }
      this.busy = true;
      this.$input.value = "";
      this.autosize();
      this.updateCounter();
      this.syncComposer();
      this.$log.querySelectorAll(".chips").forEach((node) => node.remove());
      this.$log.querySelectorAll(".notice").forEach((node) => node.remove());
      this.addUserTurn(text);
      if (!this.firstSent) {
        this.firstSent = true;
        this.emit("first_message_sent");
      }
      if (EMAIL.test(text)) this.emit("contact_captured");
      this.armInactivity();
      this.visitorTyping(false);
      const view = this.addAssistantTurn();
      if (this.live.owner) view.hide();
      else this.$announce.textContent = this.t.typing;
      try {
        let meta;
        try {
          meta = await this.stream(text, view);
        } catch (failure) {
          // The stored session was refused (expired, erased, another visitor's): the
          // message goes to a new conversation instead of being lost.
          if (!(failure instanceof StreamFailure && SESSION_REFUSALS.has(failure.code) && this.session)) {
            throw failure;
          }
          this.forgetSession();
          meta = await this.stream(text, view);
        }
        await this.finishTurn(view, meta);
      } catch (failure) {
        this.failTurn(view, failure, text);
      } finally {
        this.busy = false;
        this.controller = null;
        this.syncComposer();
      }
    }

    async stream(text, view) {
      const controller = new AbortController();
      this.controller = controller;
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        controller.abort();
      }, Math.max(1, this.streamTimeoutMs));
      const started = () => clearTimeout(timer);
      try {
        let response;
        try {
          response = await fetch(`${this.apiBase}/v1/chat`, {
            method: "POST",
            mode: "cors",
            credentials: "omit",
            headers: {
              "Content-Type": "application/json",
              Accept: "text/event-stream",
              "X-Frontdesk-Key": this.siteKey,
            },
            body: JSON.stringify({
              message: text,
              session_id: this.sessionId,
              session_secret: this.session ? this.session.secret : undefined,
              identity: this.identity || undefined,
              page_url: window.location.href,
              referrer: document.referrer || undefined,
            }),
            signal: controller.signal,
            referrerPolicy: "origin",
          });
        } catch (_) {
          throw new StreamFailure(timedOut ? "stream_timeout" : "connection_error");
        }
        if (!response.ok || !response.body) {
          let code = "";
          if (response.status === 401 || response.status === 403) {
            code = await this.warnOwner(response);
          } else {
            try {
              code = ((await response.json()).error || {}).code || "";
            } catch (_) {
              /* not JSON */
            }
          }
          throw new StreamFailure("http_error", response.status, code);
        }
        this.adoptSession(response.headers);
        try {
          for await (const { event, data } of readEvents(response)) {
            if (event === "token" && typeof data.content === "string") {
              started();
              view.append(data.content);
            } else if (event === "complete") {
              started();
              return data.metadata || {};
            } else if (event === "relayed") {
              // A person owns the conversation: the message went to them, no bot answer.
              started();
              return Object.assign({}, data.metadata, { relayed: true });
            } else if (event === "error") {
              started();
              throw new StreamFailure("server_error", 0, data.code);
            }
          }
        } catch (error) {
          if (error instanceof StreamFailure) throw error;
          throw new StreamFailure(timedOut ? "stream_timeout" : "connection_error");
        }
        throw new StreamFailure(timedOut ? "stream_timeout" : "connection_error");
      } finally {
        clearTimeout(timer);
      }
    }

    failTurn(view, failure, text) {
      const reason = failure instanceof StreamFailure ? failure.reason : "connection_error";
      const status = failure instanceof StreamFailure ? failure.status : 0;
      if (status === 429) {
        view.showError(failure.code === "session_busy" ? this.t.busy : this.t.rateLimited, null);
        return;
      }
      const fatal =
        reason === "connection_error" ||
        reason === "stream_timeout" ||
        reason === "server_error" ||
        (reason === "http_error" && (status >= 500 || FALLBACK_STATUSES.has(status)));
      if (this.turns === 0 && fatal && !view.hasTokens) {
        view.remove();
        // A refusal the developer is fixing right now is not remembered across reloads.
        this.activateFallback(reason === "server_error" ? "http_error" : reason, { persist: !this.ownerHint });
        return;
      }
      view.showError(this.t.error, () => {
        view.remove();
        this.send(text);
      });
      this.$announce.textContent = this.t.error;
    }

    async finishTurn(view, meta) {
      if (meta.session_id) this.sessionId = meta.session_id;
      this.turns = Number(meta.turn) || this.turns + 1;
      if (this.session) {
        // A new revision tells the site's other tabs to show this turn too.
        this.writeSession(Object.assign({}, this.session, { rev: (this.session.rev || 0) + 1 }));
      }
      this.syncLive();
      if (meta.relayed) {
        view.remove();
        return;
      }
      const shown = view.complete(meta);
      const level = meta.lead && meta.lead.level;
      if (level && level !== this.leadLevel) {
        this.leadLevel = level;
        this.emit("qualification_state_changed", { lead_level: level });
      }
      if (meta.handoff) {
        this.emit("escalation_triggered", {
          handoff_reason: meta.handoff.reason,
          lead_level: this.leadLevel,
        });
      }
      await shown;
      this.$announce.textContent = `${this.t.bot}: ${view.plainText()}`;
      if (this.isOpen && this.shadow.activeElement !== this.$input) this.$input.focus();
    }

    flashNotice(text) {
      this.$log.querySelectorAll(".notice").forEach((node) => node.remove());
      this.$log.append(h("p", { class: "soft notice", role: "status" }, text));
      this.scrollToEnd();
    }

    scrollToEnd() {
      this.$log.scrollTop = this.$log.scrollHeight;
    }

    addUserTurn(text) {
      this.$log.append(
        h("div", { class: "turn user" }, h("span", { class: "sr-only" }, `${this.t.you}: `),
          h("div", { class: "bubble" }, text)),
      );
      this.scrollToEnd();
    }

    addAssistantTurn() {
      const widget = this;
      const t = this.t;
      const content = h("div", { class: "content" });
      const typing = h("div", { class: "typing", "aria-hidden": "true" }, h("span"), h("span"), h("span"));
      const bubble = h("div", { class: "bubble" }, h("span", { class: "sr-only" }, `${t.bot}: `), content, typing);
      const node = h("div", { class: "turn assistant", "data-state": "waiting" }, bubble);
      this.$log.append(node);
      this.scrollToEnd();

      let text = "";
      let scheduled = false;
      let frame = 0;
      let fallback = 0;
      let citations = new Map();
      let sourcesNode = null;
      const ctx = {
        pill(n) {
          const citation = citations.get(n);
          const label = citation ? `${t.source} ${n}: ${citation.title}` : `${t.source} ${n}`;
          return h("button", {
            type: "button", class: "cite", "data-cite": n, "aria-label": label,
            title: citation ? citation.title : null,
            onclick: () => view.reveal(n),
          }, String(n));
        },
      };
      // Tokens can arrive in bursts (a local engine sends a whole answer in one packet):
      // reveal any backlog over a few frames so the answer still reads as it streams.
      let shown = 0;
      let pending = null;
      const reduceMotion = window.matchMedia
        ? window.matchMedia("(prefers-reduced-motion: reduce)").matches
        : false;
      const schedule = () => {
        if (scheduled) return;
        scheduled = true;
        // Hidden tabs get no animation frames: catch up with a timer instead. A frame
        // asked for while visible may never come either (the tab is hidden before it,
        // or a headless browser draws nothing), and the turn must still finish: a timer
        // paints if the frame is late.
        if (document.hidden) {
          fallback = setTimeout(paint, 16);
        } else {
          frame = requestAnimationFrame(paint);
          fallback = setTimeout(paint, LATE_FRAME_MS);
        }
      };
      const paint = () => {
        if (!scheduled) return;
        scheduled = false;
        cancelAnimationFrame(frame);
        clearTimeout(fallback);
        const backlog = text.length - shown;
        if (backlog > 0) {
          shown =
            reduceMotion || document.hidden
              ? text.length
              : shown + Math.max(3, Math.ceil(backlog / 6));
          shown = Math.min(shown, text.length);
        } else {
          shown = text.length;
        }
        content.replaceChildren(renderMarkdown(text.slice(0, shown), ctx));
        widget.scrollToEnd();
        if (shown < text.length) schedule();
        else if (pending) {
          const { meta, done } = pending;
          pending = null;
          finalize(meta);
          done();
        }
      };
      const view = {
        hasTokens: false,
        append(token) {
          node.hidden = false;
          if (!view.hasTokens) {
            view.hasTokens = true;
            typing.remove();
            node.dataset.state = "streaming";
          }
          text += token;
          schedule();
        },
        /** Resolves once the whole answer is shown and its extras are rendered. */
        complete(meta) {
          typing.remove();
          citations = new Map((meta.citations || []).map((c) => [Number(c.index), c]));
          if (typeof meta.answer === "string" && meta.answer) {
            if (!meta.answer.startsWith(text.slice(0, shown))) shown = 0;
            text = meta.answer;
          }
          return new Promise((done) => {
            pending = { meta, done };
            schedule();
          });
        },
      };
      const finalize = (meta) => {
        node.dataset.state = "complete";
        if (meta.restored) {
          // A turn from the transcript: its text and sources, no actions from the past.
          if (!(meta.low_confidence || meta.routing === "low_confidence")) {
            sourcesNode = widget.renderSources(meta, meta.routing === "partially_answered");
            if (sourcesNode) node.append(sourcesNode);
          }
          widget.addFeedback(node, meta);
          return;
        }
        node.dataset.routing = meta.routing || "";
        node.dataset.route = meta.route || "";
        const routing = meta.routing || "";
        const lowConfidence = Boolean(meta.low_confidence) || routing === "low_confidence";
        if (lowConfidence) {
          node.insertBefore(h("div", { class: "disclaimer", role: "note" }, t.lowConfidence), bubble);
        }
        if (!lowConfidence) {
          sourcesNode = widget.renderSources(meta, routing === "partially_answered");
          if (sourcesNode) node.append(sourcesNode);
        }
        if (routing === "partially_answered") {
          node.append(h("p", { class: "soft" }, `${t.partial} `,
            h("button", { type: "button", class: "linkish", onclick: () => widget.send(t.humanRequest) },
              t.partialLink)));
        }
        const actions = h("div", { class: "actions" });
        const cta = meta.cta && safeUrl(meta.cta.url);
        if (cta && meta.cta.label) {
          actions.append(h("a", { class: "cta", href: cta, target: "_blank", rel: "noopener" },
            meta.cta.label, h("span", { class: "sr-only" }, ` ${t.newTab}`)));
        }
        const proposed = meta.handoff && meta.handoff.status === "proposed";
        if ((HUMAN_ROUTINGS.has(routing) && !meta.handoff) || proposed) {
          actions.append(h("button", { type: "button", class: "human", onclick: () => widget.send(t.humanRequest) },
            t.human));
        }
        if (actions.childElementCount) node.append(actions);
        if (meta.handoff) {
          node.append(h("div", { class: "handoff", role: "status", "data-status": meta.handoff.status || "" },
            proposed ? t.handoffProposed : t.handoffDone));
        }
        const chips = [...(meta.suggested_answers || []), ...(meta.suggested_follow_ups || [])]
          .filter((s) => typeof s === "string" && s.trim())
          .slice(0, 5);
        widget.addFeedback(node, meta);
        if (chips.length) {
          node.append(h("div", { class: "chips", role: "group", "aria-label": t.suggestions },
            ...chips.map((s) => h("button", { type: "button", class: "chip", onclick: () => widget.send(s) }, s))));
        }
        widget.scrollToEnd();
      };
      Object.assign(view, {
        /** Show a stored answer at once (a restored transcript). */
        restore(message) {
          typing.remove();
          citations = new Map((message.citations || []).map((c) => [Number(c.index), c]));
          text = String(message.content || "");
          shown = text.length;
          content.replaceChildren(renderMarkdown(text, ctx));
          finalize({
            restored: true, routing: message.routing, route: message.route, turn: message.turn,
            citations: message.citations || [], feedback: message.feedback,
          });
        },
        reveal(n) {
          if (!sourcesNode) return;
          sourcesNode.open = true;
          const item = sourcesNode.querySelector(`li[data-index="${Number(n)}"]`);
          if (!item) return;
          sourcesNode.querySelectorAll("li.flash").forEach((li) => li.classList.remove("flash"));
          item.classList.add("flash");
          item.focus();
        },
        showError(message, retry) {
          node.hidden = false;
          typing.remove();
          node.dataset.state = "error";
          bubble.replaceChildren(h("p", { class: "error", role: "alert" }, message));
          if (retry) {
            bubble.append(h("button", { type: "button", class: "linkish", onclick: retry }, t.retry));
          }
          widget.scrollToEnd();
        },
        plainText() {
          return content.textContent || "";
        },
        hide() {
          node.hidden = true;
        },
        remove() {
          node.remove();
        },
      });
      return view;
    }

    // ---- live takeover: the session's event stream ------------------------------------
    /** Open while the panel is open or a person owns the conversation (their replies must
     * arrive even with the panel closed); only once the server issued a session. */
    syncLive() {
      const wanted = Boolean(this.session) && !this.fallbackActive && (this.isOpen || Boolean(this.live.owner));
      if (!wanted) this.stopLive();
      else if (!this.live.controller) this.runLive();
    }

    stopLive() {
      clearTimeout(this.timers.live);
      if (this.live.controller) this.live.controller.abort();
      this.live.controller = null;
    }

    /** fetch + ReadableStream (EventSource cannot send the secret header); reconnects with
     * backoff and `Last-Event-ID`, so a restart or another replica resumes where it left. */
    async runLive() {
      const controller = new AbortController();
      const live = this.live;
      live.controller = controller;
      const sessionId = this.session.id;
      let delay = 0;
      const current = () => !controller.signal.aborted && this.session && this.session.id === sessionId;
      while (current()) {
        try {
          const headers = { Accept: "text/event-stream", "X-Frontdesk-Key": this.siteKey,
            "X-Frontdesk-Session-Secret": this.session.secret };
          if (live.lastId) headers["Last-Event-ID"] = live.lastId;
          const response = await fetch(`${this.apiBase}/v1/sessions/${encodeURIComponent(sessionId)}/events`, {
            headers, mode: "cors", credentials: "omit", referrerPolicy: "origin", cache: "no-store",
            signal: controller.signal,
          });
          if (LIVE_STOP.has(response.status)) break;
          if (response.ok && response.body) {
            delay = 0;
            for await (const block of readEvents(response)) this.onLive(block);
          }
        } catch (_) {
          /* the connection dropped (a replica went away): retry below */
        }
        if (!current()) break;
        delay = Math.min(LIVE_RETRY_MAX_MS, delay ? delay * 2 : 250);
        await new Promise((resume) => {
          this.timers.live = setTimeout(resume, delay * (0.75 + Math.random() / 2));
        });
      }
      if (live.controller === controller) live.controller = null;
    }

    /** One event of the stream (or of the restored transcript): shown once, whatever the
     * number of reconnects, by its event id and its message id. */
    onLive({ event, id, data }, restoring) {
      const live = this.live;
      if (id) {
        if (live.seen.has(`e${id}`)) return;
        live.seen.add(`e${id}`);
        live.lastId = id;
      }
      if (event === "operator_message" && data.id !== undefined) {
        if (live.seen.has(`m${data.id}`)) return;
        live.seen.add(`m${data.id}`);
      }
      const t = this.t;
      const name = String(data.name || (live.owner && live.owner.name) || t.team);
      const fill = (text) => text.replace("{name}", name).replace("{company}", String(data.company || ""));
      const note = (text) => {
        this.$log.append(h("p", { class: "live-note", "data-kind": event }, text));
        if (!restoring) this.$announce.textContent = text;
      };
      if (event === "state") {
        // Who owns the conversation as the stream opens (no id: not part of the log).
        live.owner = data.owner === "human" ? { name: String(data.name || t.team), company: "" } : null;
        if (!live.owner) this.showOperatorTyping(null);
        return;
      }
      if (event === "typing") {
        if (!restoring && data.who === "operator") this.showOperatorTyping(data.active ? name : null);
        return;
      }
      if (event === "operator_joined") {
        live.owner = { name, company: data.company || "" };
        note(fill(data.company ? t.joined : t.joinedNoCompany));
      } else if (event === "operator_message") {
        this.showOperatorTyping(null);
        const text = String(data.text || data.content || "");
        this.$log.append(h("div", { class: "turn operator", "data-id": data.id === undefined ? null : String(data.id) },
          h("span", { class: "who", "aria-hidden": "true" }, name),
          h("div", { class: "bubble" }, h("span", { class: "sr-only" }, `${name}: `), text)));
        if (!restoring) {
          this.$announce.textContent = `${name}: ${text}`;
          if (!this.isOpen) {
            this.$launcher.classList.add("unread");
            this.$launcher.setAttribute("aria-label", `${t.launcher} (${t.unread})`);
          }
        }
      } else if (event === "operator_left" || event === "released") {
        live.owner = null;
        this.showOperatorTyping(null);
        note(t.released);
      } else if (event === "closed") {
        live.owner = null;
        this.showOperatorTyping(null);
        note(t.closedByTeam);
      } else if (event === "handoff_waiting") {
        const seconds = Number(data.expected_wait_seconds) || 0;
        const wait = seconds < 60 ? t.waitShort : `${Math.round(seconds / 60)} min`;
        live.contact = data.contact || live.contact;
        note(t.waiting.replace("{wait}", wait));
      } else if (event === "handoff_async") {
        // What the site asks for (e-mail, phone or either); after a ring that nobody
        // answered, what the ring said.
        const way = data.contact || live.contact || "email";
        note(t["async_" + way] || t.async);
      } else {
        return;
      }
      this.scrollToEnd();
      if (!restoring) this.syncLive();
    }

    showOperatorTyping(name) {
      clearTimeout(this.timers.opTyping);
      if (this.$opTyping) this.$opTyping.remove();
      this.$opTyping = null;
      if (!name) return;
      this.$opTyping = h("div", { class: "turn operator typing-row", "aria-hidden": "true" },
        h("span", { class: "who" }, this.t.opTyping.replace("{name}", name)),
        h("div", { class: "typing" }, h("span"), h("span"), h("span")));
      this.$log.append(this.$opTyping);
      this.scrollToEnd();
      // A lost "stopped typing" must not leave the dots forever.
      this.timers.opTyping = setTimeout(() => this.showOperatorTyping(null), 8000);
    }

    /** The visitor's typing, for the person who owns the chat: at most one POST every few
     * seconds while typing, and one when they stop (or send). */
    visitorTyping(active) {
      const live = this.live;
      if (!this.session || !live.owner) return;
      clearTimeout(this.timers.typingIdle);
      if (active) this.timers.typingIdle = setTimeout(() => this.visitorTyping(false), TYPING_IDLE_MS);
      const now = Date.now();
      if (active === live.typingSent && (!active || now - live.typingAt < TYPING_IDLE_MS - 500)) return;
      live.typingSent = active;
      live.typingAt = now;
      this.request(`/v1/sessions/${encodeURIComponent(this.session.id)}/typing`, {
        method: "POST", session: this.session, body: { active },
      }).catch(() => null);
    }

    /** 👍/👎 on an answer; a 👎 may add a short comment. Stored per site/session/turn. */
    addFeedback(node, meta) {
      const turn = Number(meta.turn);
      if (!turn || !this.session || meta.route === "BLOCKED") return;
      const t = this.t;
      const previous = (meta.feedback && meta.feedback.rating) || "";
      const vote = (rating) => h("button", {
        type: "button", class: `vote ${rating}`, "aria-pressed": String(previous === rating),
        "aria-label": rating === "up" ? t.up : t.down, title: rating === "up" ? t.up : t.down,
        onclick: () => rate(rating),
      });
      const up = vote("up");
      const down = vote("down");
      up.innerHTML = ICONS.up;
      down.innerHTML = ICONS.down;
      const status = h("span", { class: "sr-only", role: "status" });
      const group = h("div", { class: "feedback", role: "group", "aria-label": t.helpful }, up, down, status);
      const session = this.session;
      const post = (body) => this.request(`/v1/sessions/${encodeURIComponent(session.id)}/feedback`, {
        method: "POST", session, body: Object.assign({ turn }, body),
      }).catch(() => null);
      const rate = (rating) => {
        up.setAttribute("aria-pressed", String(rating === "up"));
        down.setAttribute("aria-pressed", String(rating === "down"));
        group.querySelectorAll("form, .soft").forEach((n) => n.remove());
        post({ rating });
        status.textContent = t.thanks;
        if (rating !== "down") return;
        const input = h("input", { type: "text", maxlength: "500", "aria-label": t.comment, placeholder: t.comment });
        const form = h("form", {}, input, h("button", { type: "submit" }, t.commentSend));
        form.addEventListener("submit", (event) => {
          event.preventDefault();
          post({ rating: "down", comment: input.value.trim() });
          form.replaceWith(h("p", { class: "soft", role: "status" }, t.thanks));
          down.focus();
        });
        group.append(form);
        input.focus();
      };
      node.append(group);
    }

    renderSources(meta, partial) {
      let items = (meta.citations || []).map((c) => ({
        index: Number(c.index), title: c.title || c.doc_id || "", url: c.url, excerpt: c.excerpt || "",
      }));
      if (!items.length) {
        items = (meta.sources || []).map((s, i) => ({ index: i + 1, title: s.title || s.doc_id || "", url: s.url, excerpt: "" }));
      }
      if (partial) items = items.slice(0, 1);
      if (!items.length) return null;
      const label = partial ? this.t.related : `${this.t.sources} (${items.length})`;
      const list = h("ol");
      for (const item of items) {
        const href = safeUrl(item.url);
        const title = href
          ? h("a", { href, target: "_blank", rel: "noopener noreferrer" }, item.title,
            h("span", { class: "sr-only" }, ` ${this.t.newTab}`))
          : h("strong", {}, item.title);
        const li = h("li", { "data-index": item.index, value: item.index, tabindex: "-1" }, title);
        if (item.excerpt) li.append(h("blockquote", {}, item.excerpt));
        list.append(li);
      }
      return h("details", { class: "sources" }, h("summary", {}, label), list);
    }
  }

  customElements.define(TAG, FrontdeskChat);
})();
