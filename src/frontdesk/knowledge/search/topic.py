"""What a site is about, measured on its own content, and when its content supports a question.

A question is on-topic when the site's knowledge base supports it — whatever the
intent classifier thinks of its phrasing. "Supports" needs a bar, and a fixed cosine bar
does not travel: scores depend on the embedding model, the language and the site's size
(a Spanish question against English-trained MiniLM scores everything higher; a 3-page
site scores everything lower). So every site measures its own bar: a fixed set of
everyday requests that no company's website answers (weather, recipes, alarms, jokes —
`PROBES`, in every supported language) is searched against the site, and the spread of
those scores is what "unrelated" looks like *here*. A question the site supports clearly
beats it (`support_threshold`: the probes' mean plus a few of their standard deviations,
so one probe that happens to share the site's words does not lift the bar). The profile
is keyed by the site's index revision, so it is rebuilt whenever the content changes; it
also lists the site's most frequent title words (what it is about, for traces and the
docs).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from statistics import fmean, pstdev

# Everyday requests to a personal assistant, written for this purpose (not dataset rows).
PROBES: dict[str, tuple[str, ...]] = {
    "en": (
        "what's the weather going to be like tomorrow",
        "give me a recipe for banana bread",
        "set an alarm for 6 am",
        "tell me a joke",
        "who won the football match last night",
        "what is the capital of Australia",
        "how many ounces are in a pound",
        "play some relaxing music",
        "remind me to buy milk tonight",
        "what time is it in Tokyo",
        "recommend a good movie to watch tonight",
        "how do I jump start my car",
    ),
    "ru": (
        "какая завтра будет погода",
        "дай рецепт борща",
        "поставь будильник на семь утра",
        "расскажи анекдот",
        "кто выиграл матч вчера вечером",
        "какая столица Австралии",
        "сколько граммов в фунте",
        "включи спокойную музыку",
    ),
    "es": (
        "qué tiempo hará mañana",
        "dame una receta de tortilla de patatas",
        "pon una alarma a las seis",
        "cuéntame un chiste",
        "quién ganó el partido anoche",
        "cuál es la capital de Australia",
        "cuántos gramos tiene una libra",
        "pon música relajante",
    ),
    "de": (
        "wie wird das Wetter morgen",
        "gib mir ein Rezept für Apfelkuchen",
        "stell einen Wecker auf sechs Uhr",
        "erzähl mir einen Witz",
        "wer hat gestern das Spiel gewonnen",
        "was ist die Hauptstadt von Australien",
    ),
    "fr": (
        "quel temps fera-t-il demain",
        "donne-moi une recette de crêpes",
        "mets un réveil à six heures",
        "raconte-moi une blague",
        "qui a gagné le match hier soir",
        "quelle est la capitale de l'Australie",
    ),
    "it": (
        "che tempo farà domani",
        "dammi una ricetta per la carbonara",
        "raccontami una barzelletta",
        "qual è la capitale dell'Australia",
    ),
    "pt": (
        "como vai estar o tempo amanhã",
        "me dá uma receita de bolo de cenoura",
        "conta uma piada",
        "qual é a capital da Austrália",
    ),
    "nl": (
        "wat voor weer wordt het morgen",
        "geef me een recept voor pannenkoeken",
        "vertel een mop",
        "wat is de hoofdstad van Australië",
    ),
}

# The bar sits this many standard deviations above the mean of the everyday probes'
# scores on the site. Not above their maximum: one probe that happens to share the site's
# vocabulary ("how many ounces are in a pound" on a health site) lifted the bar of the
# whole site, and multilingual-e5's scores are so compressed (probes' sd ~0.03) that a
# margin over the maximum refused most of a health site's real questions. 1.75 sd leaves
# about 4 % of a normal tail of everyday requests above the bar; the intent classifier
# refuses those on its own unless the content supports them (docs/evaluation.md).
SUPPORT_SPREAD = 1.75
# With fewer probe scores the spread says little: the bar is then the best probe plus
# SUPPORT_MARGIN (an on-topic question beats everything unrelated, not merely ties).
MIN_PROBES_FOR_SPREAD = 8
SUPPORT_MARGIN = 0.03
# A passage holding most of the question's words supports it only when it also scores
# above the bulk of everyday requests (the probes' mean plus one deviation): short
# everyday requests share two words with many a page ("what is our purpose", "how many
# days have I used"), and words alone made half of them "supported" on a web-app FAQ.
WORD_SUPPORT_SPREAD = 1.0
MIN_RELEVANCE = 0.15  # below this a cosine says nothing, whatever the probes scored
TERMS = 12
_WORD = re.compile(r"[^\W\d_]{4,}")


@dataclass(frozen=True)
class TopicProfile:
    """A site's own bar for "its content supports this question" (see the module doc)."""

    support_threshold: float
    off_topic_ceiling: float  # the best everyday probe's score on this site
    probes: int
    terms: tuple[str, ...] = ()
    # The relevance threshold when the site has no calibrated one (`calibrated_threshold`).
    relevance_threshold: float | None = None
    # The score a passage sharing most of the question's words must reach to support it
    # (`word_support_threshold`); None: any passage above the relevance threshold.
    word_support_threshold: float | None = None

    def supports(self, top_score: float | None) -> bool:
        return top_score is not None and top_score >= self.support_threshold

    def as_dict(self) -> dict[str, object]:
        return {
            "support_threshold": round(self.support_threshold, 4),
            "off_topic_ceiling": round(self.off_topic_ceiling, 4),
            "probes": self.probes,
            "relevance_threshold": self.relevance_threshold,
            "word_support_threshold": None
            if self.word_support_threshold is None
            else round(self.word_support_threshold, 4),
            "terms": list(self.terms),
        }


def probes_for(languages: Iterable[str]) -> list[str]:
    """The probes of the site's languages, English always included."""
    chosen = ["en", *[lang for lang in languages if lang != "en"]]
    return [probe for lang in chosen for probe in PROBES.get(lang, ())]


def support_threshold(
    probe_scores: Sequence[float], floor: float | None, *, measured_model: bool = True
) -> float:
    """Pure: the bar from this site's probe scores — `SUPPORT_SPREAD` standard deviations
    above their mean — and never below `floor` (the site's calibrated or the model's
    default relevance threshold). With few probes, or a model whose scores were never
    measured (`measured_model` False: no default threshold), the bar stays above the best
    probe: nothing says such a model's spread separates anything."""
    if len(probe_scores) < MIN_PROBES_FOR_SPREAD or not measured_model:
        bar = max(probe_scores, default=0.0) + SUPPORT_MARGIN
    else:
        mean = fmean(probe_scores)
        bar = mean + SUPPORT_SPREAD * pstdev(probe_scores, mean)
    return max(bar, floor or 0.0)


def word_support_threshold(
    probe_scores: Sequence[float], *, measured_model: bool = True
) -> float | None:
    """Pure: the score above which shared words count as support — above the bulk of the
    everyday probes (`WORD_SUPPORT_SPREAD` deviations over their mean). None (no such
    bar) with few probes or an unmeasured model, where the spread says nothing."""
    if len(probe_scores) < MIN_PROBES_FOR_SPREAD or not measured_model:
        return None
    mean = fmean(probe_scores)
    return mean + WORD_SUPPORT_SPREAD * pstdev(probe_scores, mean)


def calibrated_threshold(ceiling: float, default: float | None) -> float | None:
    """Pure: the relevance threshold of a site nobody calibrated. Just above what everyday
    requests score on this site, and never above the model's default: on a 3-page site
    unrelated questions score ~0.1, so a real question at 0.349 is not lost to a default of
    0.35 tuned on bigger sites. A model without a measured default keeps no threshold
    (calibrate it with `frontdesk kb calibrate`): probes alone cannot tell whether an
    unknown model's scores separate anything."""
    if default is None:
        return None
    return min(max(ceiling + SUPPORT_MARGIN, MIN_RELEVANCE), default)


def title_terms(titles: Iterable[str], limit: int = TERMS) -> tuple[str, ...]:
    """The most frequent longer words of the site's titles and headings."""
    counts = Counter(word.casefold() for title in titles for word in _WORD.findall(title))
    return tuple(word for word, _ in counts.most_common(limit))


def build_profile(
    top_score: Callable[[str], float | None],
    languages: Iterable[str],
    relevance_threshold: float | None,
    titles: Iterable[str] = (),
    default_threshold: float | None = None,
) -> TopicProfile:
    """Search every probe (`top_score` returns the best cosine, None for no result).
    `relevance_threshold` is the site's calibrated one, if any; `default_threshold` the
    embedding model's default. The support bar never drops below the calibrated, else the
    default, relevance threshold."""
    scores = [score for probe in probes_for(languages) if (score := top_score(probe)) is not None]
    ceiling = max(scores, default=0.0)
    calibrated = calibrated_threshold(ceiling, default_threshold)
    floor = relevance_threshold if relevance_threshold is not None else default_threshold
    measured = default_threshold is not None
    return TopicProfile(
        support_threshold=support_threshold(scores, floor, measured_model=measured),
        off_topic_ceiling=ceiling,
        probes=len(scores),
        terms=title_terms(titles),
        relevance_threshold=calibrated,
        word_support_threshold=word_support_threshold(scores, measured_model=measured),
    )
