"""Unanswerable and off-topic probes of a site's trust report (pure: no I/O).

Their templates and how they are chosen are described in `trust_questions`' module doc:
unanswerable ones name the site's own title words and carry anchor words absent from its
text; off-topic ones are everyday requests, dropped when an anchor occurs in the site's text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from frontdesk.evals.text_scores import content_tokens
from frontdesk.evals.trust_questions import SourcePassage, TrustQuestion


@dataclass(frozen=True)
class Probe:
    text: str
    anchors: tuple[str, ...]  # used only when none occurs in the site's text
    needs_term: bool = field(default=False)


def _probe(text: str, *anchors: str) -> Probe:
    return Probe(text, anchors, "{term}" in text)


UNANSWERABLE: dict[str, tuple[Probe, ...]] = {
    "en": (
        _probe("Do you have an office in Reykjavik?", "reykjavik"),
        _probe("What was the price of {term} in 1987?", "1987"),
        _probe("Can I pay for {term} with Dogecoin?", "dogecoin"),
        _probe("Does {term} work on a Commodore 64?", "commodore"),
        _probe("Who was in charge of {term} at your organisation in 1962?", "1962"),
        _probe("What is the fax number of your branch in Ulaanbaatar?", "ulaanbaatar"),
        _probe("How is {term} handled for residents of Tuvalu?", "tuvalu"),
        _probe("Is there a {term} discount for staff of Antarctic research stations?",
               "antarctic"),
    ),
    "ru": (
        _probe("Есть ли у вас офис в Рейкьявике?", "рейкьявик"),
        _probe("Сколько стоило «{term}» в 1987 году?", "1987"),
        _probe("Можно ли оплатить «{term}» криптовалютой Dogecoin?", "dogecoin"),
        _probe("Работает ли «{term}» на компьютере Commodore 64?", "commodore"),
        _probe("Кто отвечал за «{term}» в вашей организации в 1962 году?", "1962"),
        _probe("Какой номер факса у вашего филиала в Улан-Баторе?", "улан"),
        _probe("Как устроено «{term}» для жителей Тувалу?", "тувалу"),
        _probe("Есть ли скидка на «{term}» для сотрудников антарктических станций?",
               "антаркт"),
    ),
    "es": (
        _probe("¿Tienen una oficina en Reikiavik?", "reikiavik"),
        _probe("¿Cuánto costaba {term} en 1987?", "1987"),
        _probe("¿Puedo pagar {term} con Dogecoin?", "dogecoin"),
        _probe("¿Funciona {term} en un Commodore 64?", "commodore"),
        _probe("¿Quién se encargaba de {term} en su organización en 1962?", "1962"),
        _probe("¿Cuál es el número de fax de su sucursal en Ulán Bator?", "ulán"),
        _probe("¿Cómo se gestiona {term} para los residentes de Tuvalu?", "tuvalu"),
        _probe("¿Hay descuento en {term} para el personal de bases antárticas?", "antárt"),
    ),
    "de": (
        _probe("Haben Sie ein Büro in Reykjavík?", "reykjav"),
        _probe("Was kostete {term} im Jahr 1987?", "1987"),
        _probe("Kann ich {term} mit Dogecoin bezahlen?", "dogecoin"),
        _probe("Läuft {term} auf einem Commodore 64?", "commodore"),
        _probe("Wer war 1962 in Ihrer Organisation für {term} zuständig?", "1962"),
        _probe("Wie lautet die Faxnummer Ihrer Filiale in Ulaanbaatar?", "ulaanbaatar"),
    ),
    "fr": (
        _probe("Avez-vous un bureau à Reykjavik ?", "reykjavik"),
        _probe("Combien coûtait {term} en 1987 ?", "1987"),
        _probe("Puis-je payer {term} en Dogecoin ?", "dogecoin"),
        _probe("Est-ce que {term} fonctionne sur un Commodore 64 ?", "commodore"),
        _probe("Qui s'occupait de {term} dans votre organisation en 1962 ?", "1962"),
        _probe("Quel est le numéro de fax de votre agence à Oulan-Bator ?", "oulan"),
    ),
}  # fmt: skip

OFF_TOPIC: dict[str, tuple[Probe, ...]] = {
    "en": (
        _probe("how do I make a sourdough starter", "sourdough"),
        _probe("who wrote Pride and Prejudice", "prejudice"),
        _probe("how far is the moon from the earth", "moon"),
        _probe("suggest a name for my new kitten", "kitten"),
        _probe("what's the best way to learn the guitar", "guitar"),
        _probe("how do I get a red wine stain out of a carpet", "wine", "stain"),
        _probe("write me a short poem about autumn leaves", "poem", "autumn"),
        _probe("explain the rules of chess", "chess"),
        _probe("how long should I boil an egg", "boil", "egg"),
        _probe("what's a good board game for four players", "board game"),
        _probe("translate good morning into Japanese", "japanese"),
        _probe("which planet has the most moons", "planet"),
        _probe("what's a good name for a fantasy novel villain", "novel", "villain"),
        _probe("how do I fold a paper crane", "origami", "crane"),
        _probe("who painted the Mona Lisa", "mona lisa", "painted"),
        _probe("what should I plant in my vegetable garden in spring", "garden", "plant"),
        _probe("give me a riddle to tell my friends", "riddle"),
        _probe("how many legs does a spider have", "spider"),
        _probe("what's the plot of Hamlet", "hamlet"),
        _probe("recommend a podcast about ancient history", "podcast", "ancient"),
    ),
    "ru": (
        _probe("как испечь хлеб на закваске", "закваск"),
        _probe("кто написал «Войну и мир»", "войн"),
        _probe("какое расстояние от Земли до Луны", "лун"),
        _probe("придумай имя для котёнка", "котён", "котен"),
        _probe("как научиться играть на гитаре", "гитар"),
        _probe("как вывести пятно от вина с ковра", "пятн"),
        _probe("напиши стихотворение про осень", "стих"),
        _probe("объясни правила игры в шахматы", "шахмат"),
        _probe("сколько варить яйцо всмятку", "яйц"),
        _probe("какая планета самая большая", "планет"),
        _probe("загадай мне загадку", "загадк"),
        _probe("кто нарисовал Мону Лизу", "мон"),
        _probe("что посадить в огороде весной", "огород"),
        _probe("сколько ног у паука", "паук"),
    ),
    "es": (
        _probe("cómo hago masa madre para pan", "masa madre"),
        _probe("quién escribió Cien años de soledad", "soledad"),
        _probe("a qué distancia está la luna de la tierra", "luna"),
        _probe("sugiere un nombre para mi gatito", "gatito"),
        _probe("cuál es la mejor forma de aprender guitarra", "guitarra"),
        _probe("cómo quito una mancha de vino de la alfombra", "mancha"),
        _probe("escríbeme un poema sobre el otoño", "poema"),
        _probe("explícame las reglas del ajedrez", "ajedrez"),
        _probe("cuánto tiempo hay que hervir un huevo", "huevo"),
        _probe("qué planeta tiene más lunas", "planeta"),
        _probe("cuéntame una adivinanza", "adivinanza"),
        _probe("quién pintó la Mona Lisa", "mona lisa"),
        _probe("qué planto en mi huerto en primavera", "huerto"),
        _probe("cuántas patas tiene una araña", "araña"),
    ),
    "de": (
        _probe("wie setze ich einen Sauerteig an", "sauerteig"),
        _probe("wer hat Faust geschrieben", "faust"),
        _probe("wie weit ist der Mond von der Erde entfernt", "mond"),
        _probe("schlag einen Namen für mein Kätzchen vor", "kätzchen"),
        _probe("wie lerne ich am besten Gitarre", "gitarre"),
        _probe("erklär mir die Schachregeln", "schach"),
    ),
    "fr": (
        _probe("comment faire un levain pour le pain", "levain"),
        _probe("qui a écrit Les Misérables", "misérables"),
        _probe("quelle distance sépare la Terre de la Lune", "lune"),
        _probe("propose un nom pour mon chaton", "chaton"),
        _probe("quelle est la meilleure façon d'apprendre la guitare", "guitare"),
        _probe("explique-moi les règles des échecs", "échecs"),
    ),
}  # fmt: skip


def site_terms(passages: Sequence[SourcePassage], language: str, limit: int = 6) -> list[str]:
    """The most frequent title words of the site's pages in `language`, most frequent first."""
    from frontdesk.knowledge.search.topic import title_terms

    titles = list(dict.fromkeys(p.title for p in passages if p.language == language))
    cyrillic = language in ("ru", "uk", "bg")
    return [
        term
        for term in title_terms(titles, limit * 3)
        if content_tokens(term)  # not a function word ("если", "можно")
        and bool(re.search("[а-яё]", term)) == cyrillic  # in the template's script
    ][:limit]


def _usable(probe: Probe, site_text: str) -> bool:
    return not any(anchor.casefold() in site_text for anchor in probe.anchors)


def _by_language(
    table: dict[str, tuple[Probe, ...]], languages: Sequence[str]
) -> list[tuple[str, Probe]]:
    """The probes of the site's languages: every other one in its first (default) language,
    the others taking turns between, each language starting at a different probe (so
    three languages do not ask the same thing first)."""
    chosen = [lang for lang in dict.fromkeys(languages) if lang in table] or ["en"]
    first, others = chosen[0], chosen[1:]
    queues = {lang: _rotated(table[lang], shift) for shift, lang in enumerate(chosen)}
    rows: list[tuple[str, Probe]] = []
    turn = 0
    while any(queues.values()):
        pending = [lang for lang in others if queues[lang]]
        lang = (
            first
            if (turn % 2 == 0 or not pending) and queues[first]
            else pending[(turn // 2) % len(pending)]
        )
        rows.append((lang, queues[lang].pop(0)))
        turn += 1
    return rows


def _rotated(probes: Sequence[Probe], shift: int) -> list[Probe]:
    start = shift % len(probes) if probes else 0
    return [*probes[start:], *probes[:start]]


def unanswerable_probes(
    passages: Sequence[SourcePassage], languages: Sequence[str], count: int, site_text: str
) -> list[TrustQuestion]:
    """In-domain-sounding questions the content does not answer (see the module doc).
    `site_text` is the site's whole text, casefolded (anchor check)."""
    terms = {lang: site_terms(passages, lang) for lang in dict.fromkeys(languages)}
    chosen: list[TrustQuestion] = []
    seen: set[str] = set()
    pairs = [
        (lang, p) for lang, p in _by_language(UNANSWERABLE, languages) if _usable(p, site_text)
    ]
    for round_ in range(1 + max((len(t) for t in terms.values()), default=0)):
        for lang, probe in pairs:
            own = terms.get(lang) or []
            if len(chosen) >= count:
                return chosen
            if probe.needs_term and not own:
                continue  # no page in this language to take a word from
            if round_ > 0 and not probe.needs_term:
                continue
            term = own[(round_ + len(chosen)) % len(own)] if probe.needs_term else ""
            text = probe.text.format(term=term)
            if text.casefold() not in seen:
                seen.add(text.casefold())
                chosen.append(TrustQuestion("unanswerable", text, lang, "template", source=term))
    return chosen


def off_topic_probes(languages: Sequence[str], count: int, site_text: str) -> list[TrustQuestion]:
    """Everyday requests no company site answers, in the site's languages."""
    usable = [(lang, p) for lang, p in _by_language(OFF_TOPIC, languages) if _usable(p, site_text)]
    return [TrustQuestion("off_topic", probe.text, lang, "probe") for lang, probe in usable[:count]]
