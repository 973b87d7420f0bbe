"""Small-business websites, crawled and asked like a visitor would: facts, absent facts,
small talk and questions in another language, scored per site and category.

    PYTHONPATH=src:. .venv/bin/python benchmarks/small_business.py
        [--sites radwerk,garage-kazan] [--sample 6] [--seed 0] [--verbose] [--json out.json]

The sites live in `benchmarks/data/small_business/<site>/`: `pages/` (the HTML of the
site, or `pages:` in `site.yaml` pointing elsewhere), `site.yaml` (name, language,
timezone) and `questions.yaml`. Each question has an `id`, a `category`, `ask` (a message,
or a list of messages sent in one session: the last one is judged, the earlier ones are
the conversation before it), optional `expect` (regexes, case-insensitive, every one must
match the answer), `reject` (regexes none may match) and `language` (the reply's expected
language; default: the site's).

What runs:
- each site's pages on a loopback HTTP server of their own (with the robots.txt and
  sitemap.xml any site builder writes);
- one sites folder with a site file per site (its language, the eight languages, its
  timezone, the served address as its web source and as the widget's allowed origin);
- `frontdesk kb crawl SITE` per site (the product's crawler, as an operator runs it);
- one `frontdesk serve` (local engine, SQLite), and every question through the widget's
  endpoint `POST /v1/chat` (Server-Sent Events): a new session per question, the same
  session for the turns of a multi-turn question.

Scored:
- fact, crosslang: correct when every `expect` pattern matches and no `reject` does;
- absent (the site does not say): answered cleanly when nothing is cited, no `[n]` mark
  is in the answer and the routing is an honest "not found" (`cannot_answer`,
  `low_confidence`, or `followup`: not found, tell me more, or talk to a person): never a
  passage presented as the answer, never "that's outside what I can help with";
- smalltalk: handled when nothing is cited, the reply is short (≤ 300 characters), in the
  conversation's language, matches no `reject` pattern and is none of the product's stock
  replies that ignore the message ("that's outside what I can help with", "I didn't
  understand", "not found", and — except for a question marked `greeting: true` — its
  introduction "Hi! I'm the assistant of …");
- reply language, for every question: the product's own language detector
  (`frontdesk.text.language.detect_language`) on the answer with citation marks,
  addresses, numbers and times removed. A quoted passage in the page's language after a
  lead-in in the visitor's is allowed (the lead-in, up to the first colon or line
  break, is then what is checked). A reply of fewer than three words once numbers are
  removed ("sábado: 9:00–14:00") counts as in the expected language: a weekday alone
  cannot tell Spanish from Portuguese, and the detector's default is the expected one.

Exit code 1 when a target is missed: facts ≥ 0.90, cross-language ≥ 0.80, absent
answered cleanly ≥ 0.90, small talk handled ≥ 0.95, reply language 100 %.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx
import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # the test doubles in tests/support are not shipped
from benchmarks.load import start_server, stop  # noqa: E402

SITES_DIR = REPO / "benchmarks" / "data" / "small_business"
Category = Literal["fact", "absent", "smalltalk", "crosslang"]
CATEGORIES: tuple[Category, ...] = ("fact", "crosslang", "absent", "smalltalk")
TARGETS: dict[str, float] = {
    "fact": 0.90,
    "crosslang": 0.80,
    "absent": 0.90,
    "smalltalk": 0.95,
    "language": 1.0,
}
ALL_LANGUAGES = ["en", "ru", "fr", "de", "es", "it", "pt", "nl"]
RATE_LIMITS = {
    "per_session_per_minute": 100_000,
    "per_ip_per_minute": 10_000_000,
    "per_site_per_day": 100_000_000,
}
HONEST_ABSENCE = {"cannot_answer", "low_confidence", "followup"}
SMALLTALK_MAX_CHARS = 300
ADMIN_KEY = "fd-admin-smb-bench-0123456789"


# -- sites and questions -------------------------------------------------------------------
@dataclass(frozen=True)
class Question:
    id: str
    category: Category
    turns: tuple[str, ...]
    language: str
    expect: tuple[str, ...] = ()
    reject: tuple[str, ...] = ()
    greeting: bool = False  # small talk that opens a conversation: an introduction fits


@dataclass(frozen=True)
class Site:
    id: str
    name: str
    language: str
    timezone: str
    pages: Path
    questions: tuple[Question, ...]


class BadSiteData(ValueError):
    """A site folder or its questions file is malformed (the message says where)."""


def _strings(value: Any, where: str) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(i, str) for i in items):
        raise BadSiteData(f"{where}: expected a string or a list of strings, got {value!r}")
    return tuple(items)


def _question(raw: Any, site_language: str, where: str) -> Question:
    if not isinstance(raw, dict):
        raise BadSiteData(f"{where}: expected a mapping, got {raw!r}")
    unknown = set(raw) - {"id", "category", "ask", "expect", "reject", "language", "greeting"}
    if unknown:
        raise BadSiteData(f"{where}: unknown keys {sorted(unknown)}")
    category = raw.get("category")
    if category not in CATEGORIES:
        raise BadSiteData(f"{where}: category must be one of {CATEGORIES}, got {category!r}")
    language = raw.get("language", site_language)
    if language not in ALL_LANGUAGES:
        raise BadSiteData(f"{where}: language {language!r} is not one of {ALL_LANGUAGES}")
    expect = _strings(raw["expect"], f"{where}.expect") if "expect" in raw else ()
    reject = _strings(raw["reject"], f"{where}.reject") if "reject" in raw else ()
    for pattern in (*expect, *reject):
        try:
            re.compile(pattern)
        except re.error as exc:
            raise BadSiteData(f"{where}: bad pattern {pattern!r}: {exc}") from exc
    if not isinstance(raw.get("id"), str):  # `id: no` reads as a boolean in YAML
        raise BadSiteData(f"{where}: `id` must be a string, got {raw.get('id')!r}")
    if category in ("fact", "crosslang") and not expect:
        raise BadSiteData(f"{where}: a {category} question needs `expect`")
    return Question(
        id=raw["id"],
        category=category,
        turns=_strings(raw.get("ask"), f"{where}.ask"),
        language=language,
        expect=expect,
        reject=reject,
        greeting=raw.get("greeting") is True,
    )


def _yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text("utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise BadSiteData(f"{path}: {exc}") from exc


def load_site(folder: Path) -> Site:
    meta = _yaml(folder / "site.yaml")
    for key in ("name", "language", "timezone"):
        if not isinstance(meta, dict) or not isinstance(meta.get(key), str):
            raise BadSiteData(f"{folder / 'site.yaml'}: `{key}` is missing")
    pages = (folder / str(meta.get("pages", "pages"))).resolve()
    if not (pages / "index.html").is_file():
        raise BadSiteData(f"{folder}: no index.html in {pages}")
    raw = _yaml(folder / "questions.yaml")
    if not isinstance(raw, list):
        raise BadSiteData(f"{folder / 'questions.yaml'}: expected a list of questions")
    questions = tuple(
        _question(item, meta["language"], f"{folder.name}/questions.yaml[{n}]")
        for n, item in enumerate(raw)
    )
    ids = [q.id for q in questions]
    if len(ids) != len(set(ids)):
        raise BadSiteData(f"{folder / 'questions.yaml'}: question ids repeat")
    return Site(folder.name, meta["name"], meta["language"], meta["timezone"], pages, questions)


def load_sites(names: list[str] | None = None, root: Path = SITES_DIR) -> list[Site]:
    folders = sorted(p for p in root.iterdir() if (p / "site.yaml").is_file())
    if names:
        known = {p.name for p in folders}
        missing = sorted(set(names) - known)
        if missing:
            raise BadSiteData(f"unknown sites {missing}; known: {sorted(known)}")
        folders = [p for p in folders if p.name in names]
    return [load_site(folder) for folder in folders]


def sample(site: Site, n: int | None, seed: int) -> list[Question]:
    """`n` questions of the site, every category represented (round-robin over the
    categories, each shuffled with `seed`): the same sample for the same arguments."""
    if n is None or n >= len(site.questions):
        return list(site.questions)
    rng = random.Random(f"{seed}:{site.id}")
    pools = {c: [q for q in site.questions if q.category == c] for c in CATEGORIES}
    for pool in pools.values():
        rng.shuffle(pool)
    chosen: list[Question] = []
    while len(chosen) < n:
        for category in CATEGORIES:
            if pools[category] and len(chosen) < n:
                chosen.append(pools[category].pop(0))
    return chosen


# -- the websites --------------------------------------------------------------------------
class _SiteHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        host = f"http://{self.headers.get('Host', '127.0.0.1')}"
        if self.path == "/robots.txt":
            self._text("text/plain", f"User-agent: *\nAllow: /\nSitemap: {host}/sitemap.xml\n")
        elif self.path == "/sitemap.xml":
            root = Path(self.directory)
            urls = "".join(
                f"<url><loc>{host}/{'' if p.name == 'index.html' else p.name}</loc></url>"
                for p in sorted(root.glob("*.html"))
            )
            self._text(
                "application/xml",
                '<?xml version="1.0" encoding="UTF-8"?>'
                f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>',
            )
        else:
            super().do_GET()
            if self.path.endswith(".html") or self.path == "/":
                self.server.fetched.add(self.path)  # type: ignore[attr-defined]

    def _text(self, content_type: str, body: str) -> None:
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", f"{content_type}; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@contextlib.contextmanager
def serve_pages(pages: Path, fetched: set[str]) -> Iterator[str]:
    """The site's pages on 127.0.0.1 (a thread): its base URL. The paths of the pages
    requested are added to `fetched`."""
    handler = functools.partial(_SiteHandler, directory=str(pages))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.fetched = fetched  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def widget_key(site: Site) -> str:
    return f"pk_smb_{site.id.replace('-', '_')}_0001"


def site_file(site: Site, url: str) -> dict[str, Any]:
    return {
        "id": site.id,
        "name": site.name,
        "default_language": site.language,
        "languages": [site.language, *(lang for lang in ALL_LANGUAGES if lang != site.language)],
        "knowledge": {"sources": [{"url": url + "/", "allow_private_network": True}]},
        "widget": {"public_key": widget_key(site), "allowed_origins": [url]},
        "business_hours": {"timezone": site.timezone},
        "rate_limits": dict(RATE_LIMITS),
    }


def server_env(folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("FRONTDESK_")}
    env |= {
        "FRONTDESK_DATA_DIR": str(folder / "data"),
        "FRONTDESK_SITES_DIR": str(folder / "sites"),
        "FRONTDESK_DEMO_SITE": "false",
        "FRONTDESK_LOG_LEVEL": "WARNING",
        # The trust report a crawl queues would compete with the visitors' turns here.
        "FRONTDESK_TRUST_IN_PROCESS": "false",
        "PYTHONPATH": f"{REPO / 'src'}:{REPO}",
    }
    return env


def crawl(site: Site, env: dict[str, str], log: Path) -> float:
    started = time.perf_counter()
    command = [sys.executable, "-m", "frontdesk", "kb", "crawl", site.id, "--no-progress"]
    with log.open("ab") as out:
        done = subprocess.run(command, env=env, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        tail = log.read_text("utf-8", "replace")[-2000:]
        raise RuntimeError(f"`frontdesk kb crawl {site.id}` failed:\n{tail}")
    return time.perf_counter() - started


# -- asking --------------------------------------------------------------------------------
@dataclass
class Reply:
    answer: str = ""
    routing: str = ""
    intent: str = ""
    language: str = ""
    citations: list[str] = field(default_factory=list)  # "title: excerpt"
    error: str | None = None
    seconds: float = 0.0


def chat(
    client: httpx.Client, headers: dict[str, str], session: dict[str, str], text: str
) -> Reply:
    """One turn through `POST /v1/chat`, read to the end of its event stream."""
    body = {
        "message": text,
        "session_id": session["id"],
        "session_secret": session.get("secret"),
        "page_url": headers["Origin"] + "/",
    }
    reply = Reply()
    started = time.perf_counter()
    with client.stream("POST", "/v1/chat", json=body, headers=headers) as response:
        if "X-Frontdesk-Session-Secret" in response.headers:
            session["secret"] = response.headers["X-Frontdesk-Session-Secret"]
        if response.status_code != 200:
            reply.error = f"HTTP {response.status_code}: {response.read()[:200]!r}"
            return reply
        event = ""
        for line in response.iter_lines():
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:") and event == "complete":
                meta = json.loads(line[5:])["metadata"]
                reply.answer, reply.routing = meta["answer"], meta["routing"]
                reply.intent, reply.language = meta["intent"], meta["language"]
                reply.citations = [f"{c['title']}: {c['excerpt']}" for c in meta["citations"]]
            elif line.startswith("data:") and event == "error":
                reply.error = f"error event: {line[5:].strip()[:200]}"
    reply.seconds = time.perf_counter() - started
    if not reply.error and not reply.answer:
        reply.error = "the stream ended without a complete event"
    return reply


# -- judging -------------------------------------------------------------------------------
_MARK = re.compile(r"\[\d+\]")
_NOISE = re.compile(r"\S+@\S+|https?://\S+|[+\d][\d\s:.,/–—-]*\d|[€£$₽%]")
_LEAD_END = re.compile(r"[:\n«„“\"]")
_WORD = re.compile(r"[^\W\d_]{2,}")
MIN_WORDS = 3  # fewer words (a weekday and a time) cannot tell Spanish from Portuguese


def normalise(text: str) -> str:
    """Spaces of any kind as one space; a leading zero of an hour dropped (09:30 → 9:30)."""
    text = re.sub(r"[\u00a0\u202f\u2009\s]+", " ", text)
    return re.sub(r"(?<![\d:.])0(\d[:.]\d\d)", r"\1", text)


def found(patterns: tuple[str, ...], text: str) -> list[str]:
    """The patterns that match `text` (normalised, case-insensitive)."""
    return [p for p in patterns if re.search(p, normalise(text), re.IGNORECASE)]


def reply_language_ok(answer: str, expected: str) -> bool:
    from frontdesk.text.language import detect_language

    text = _NOISE.sub(" ", _MARK.sub(" ", answer))
    words = _WORD.findall(text)
    if len(words) < MIN_WORDS or detect_language(text, default=expected) == expected:
        return True
    lead = _LEAD_END.split(text, maxsplit=1)[0]
    return bool(_WORD.findall(lead)) and detect_language(lead, default=expected) == expected


# The product's own replies that never fit small talk: "that's outside what I can help
# with", "I didn't understand", "not found" — and its introduction, which fits a greeting
# only. Read from its texts, so a reworded text is still recognised.
STOCK_REPLIES = ("redirect.offtopic", "redirect.nonsense", "not_found", "redirect.other")


def stock_replies(answer: str, language: str) -> list[str]:
    """The stock replies (text keys) `answer` starts with or contains."""
    from frontdesk.conversation.texts import TEXTS, template_for

    hits = []
    for key in STOCK_REPLIES:
        if language not in TEXTS.get(key, {}):
            continue
        # A site speaks in either register (`tone`): both wordings are the stock reply.
        templates = {template_for(key, language, tone) for tone in ("formal", "informal")}
        for template in templates:
            opening = template.split("{", 1)[0].strip()
            pattern = r"\s+".join(re.escape(word) for word in opening.split())
            if opening and re.search(pattern, normalise(answer)):
                hits.append(key)
                break
    return hits


@dataclass
class Verdict:
    site: str
    question: str
    category: Category
    turns: tuple[str, ...]
    expected_language: str
    reply: Reply
    ok: bool
    language_ok: bool
    why: str


def judge(site: Site, question: Question, reply: Reply) -> Verdict:
    answer = reply.answer
    language_ok = not reply.error and reply_language_ok(answer, question.language)
    reasons: list[str] = []
    if reply.error:
        reasons.append(reply.error)
    missing = [p for p in question.expect if p not in found(question.expect, answer)]
    if missing:
        reasons.append(f"missing {missing}")
    present = found(question.reject, answer)
    if present:
        reasons.append(f"contains {present}")
    cited = bool(reply.citations) or bool(_MARK.search(answer))
    if question.category == "absent":
        if cited:
            reasons.append("cites a passage")
        if reply.routing not in HONEST_ABSENCE:
            reasons.append(f"routing {reply.routing}")
    elif question.category == "smalltalk":
        if cited:
            reasons.append("cites a passage")
        for key in stock_replies(answer, question.language):
            if not (question.greeting and key == "redirect.other"):
                reasons.append(f"the stock reply {key}")
        if len(answer) > SMALLTALK_MAX_CHARS:
            reasons.append(f"{len(answer)} characters")
        if not language_ok:
            reasons.append(f"not in {question.language}")
    return Verdict(
        site=site.id,
        question=question.id,
        category=question.category,
        turns=question.turns,
        expected_language=question.language,
        reply=reply,
        ok=not reasons,
        language_ok=language_ok,
        why="; ".join(reasons),
    )


# -- the run -------------------------------------------------------------------------------
def run(
    sites: list[Site],
    per_site: int | None = None,
    seed: int = 0,
    folder: Path | None = None,
    progress: bool = True,
) -> list[Verdict]:
    """Serve, crawl and ask every (sampled) question of `sites`; one verdict each."""
    with contextlib.ExitStack() as stack:
        if folder is None:
            folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="fd-smb-")))
        (folder / "sites").mkdir(parents=True, exist_ok=True)
        log = folder / "server.log"
        env = server_env(folder)
        urls: dict[str, str] = {}
        fetched: dict[str, set[str]] = {site.id: set() for site in sites}
        for site in sites:
            urls[site.id] = stack.enter_context(serve_pages(site.pages, fetched[site.id]))
            (folder / "sites" / f"{site.id}.yaml").write_text(
                yaml.safe_dump(site_file(site, urls[site.id]), allow_unicode=True), "utf-8"
            )
        for site in sites:
            seconds = crawl(site, env, log)
            pages = {f"/{p.name}" for p in site.pages.glob("*.html")} - {"/index.html"}
            missed = sorted(pages - fetched[site.id])
            if progress or missed:
                print(
                    f"crawled {site.id} in {seconds:.1f} s"
                    + (f"; pages the crawler never read: {missed}" if missed else ""),
                    file=sys.stderr,
                    flush=True,
                )
        server, base = start_server(env, log, 300)
        stack.callback(stop, server)
        verdicts: list[Verdict] = []
        with httpx.Client(base_url=base, timeout=120) as client:
            for site in sites:
                headers = {
                    "X-Frontdesk-Key": widget_key(site),
                    "Origin": urls[site.id],
                }
                for question in sample(site, per_site, seed):
                    session = {"id": str(uuid.uuid4())}
                    reply = Reply()
                    for text in question.turns:
                        reply = chat(client, headers, session, text)
                        if reply.error:
                            break
                    verdict = judge(site, question, reply)
                    verdicts.append(verdict)
                    if progress:
                        mark = "ok " if verdict.ok else "FAIL"
                        print(f"{mark} {site.id}/{question.id}", file=sys.stderr, flush=True)
        return verdicts


# -- the report ----------------------------------------------------------------------------
def scores(verdicts: list[Verdict]) -> dict[str, tuple[int, int]]:
    """Per category and for the reply language: (passed, asked)."""
    out: dict[str, tuple[int, int]] = {}
    for category in CATEGORIES:
        chosen = [v for v in verdicts if v.category == category]
        out[category] = (sum(v.ok for v in chosen), len(chosen))
    out["language"] = (sum(v.language_ok for v in verdicts), len(verdicts))
    return out


def missed_targets(verdicts: list[Verdict]) -> list[str]:
    missed = []
    for key, (passed, asked) in scores(verdicts).items():
        if asked and passed / asked < TARGETS[key]:
            missed.append(f"{key} {passed}/{asked} < {TARGETS[key]:.2f}")
    return missed


def _cell(passed: int, asked: int) -> str:
    return f"{passed}/{asked} ({passed / asked:.2f})" if asked else "–"


def table(verdicts: list[Verdict], sites: list[Site]) -> str:
    """A Markdown table: one row per site, then all sites."""
    head = [
        "site",
        "language",
        "facts",
        "cross-language",
        "absent clean",
        "small talk",
        "reply language",
    ]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    keys = ["fact", "crosslang", "absent", "smalltalk", "language"]
    for site in sites:
        got = scores([v for v in verdicts if v.site == site.id])
        rows.append(
            f"| {site.id} | {site.language} | " + " | ".join(_cell(*got[k]) for k in keys) + " |"
        )
    got = scores(verdicts)
    rows.append("| **all** | | " + " | ".join(f"**{_cell(*got[k])}**" for k in keys) + " |")
    return "\n".join(rows)


def failures(verdicts: list[Verdict]) -> str:
    lines = []
    for v in verdicts:
        if v.ok and v.language_ok:
            continue
        why = v.why if not v.ok else f"reply not in {v.expected_language}"
        asked = " → ".join(v.turns)
        answer = v.reply.answer.replace("\n", " ⏎ ")
        lines.append(f"- [{v.site}/{v.question}, {v.category}] {asked}")
        lines.append(f"    answer ({v.reply.routing}, {v.reply.language}): {answer[:400]}")
        lines.append(f"    why: {why}")
        for citation in v.reply.citations[:2]:
            lines.append(f"    cited: {citation[:160]}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", default="", help="comma-separated site ids (default: all)")
    parser.add_argument("--sample", type=int, default=None, help="questions per site")
    parser.add_argument("--seed", type=int, default=0, help="which sample")
    parser.add_argument("--verbose", action="store_true", help="list every failure")
    parser.add_argument("--json", type=Path, default=None, help="write every verdict here")
    parser.add_argument("--keep", type=Path, default=None, help="data folder to keep")
    args = parser.parse_args()
    try:
        sites = load_sites([s for s in args.sites.split(",") if s] or None)
    except BadSiteData as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    started = time.perf_counter()
    verdicts = run(sites, args.sample, args.seed, args.keep)
    print(table(verdicts, sites))
    seconds = time.perf_counter() - started
    print(f"\n{len(verdicts)} questions on {len(sites)} sites in {seconds:.0f} s")
    if args.verbose:
        print("\nFailures:\n" + failures(verdicts))
    if args.json:
        dump = [asdict(v) for v in verdicts]
        args.json.write_text(json.dumps(dump, ensure_ascii=False, indent=1), "utf-8")
    missed = missed_targets(verdicts)
    print("targets: " + ("all met" if not missed else "missed: " + ", ".join(missed)))
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
