"""Localized framing for the local answering jobs, in the eight languages Frontdesk speaks.

Framing is the only text the extractive writer adds to quoted passages: a lead-in (also
the one saying the passages are in another language), the deflection of internal
questions, the "not found" reply and the line naming the parts of a question the
documentation does not cover. The verifier and evaluator recognise these strings and
never count them as claims. What a site says about its prices is the site's own copy
(`pricing_reply` in its configuration), never a phrase of this module.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from babel import Locale, UnknownLocaleError


class Phrases(dict[str, str]):
    """A phrase per language in the formal register, with `informal` texts for the
    languages whose informal wording differs (a site's `tone` picks one)."""

    def __init__(
        self, formal: Mapping[str, str], informal: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(formal)
        self.informal: dict[str, str] = dict(informal or {})


LEAD_IN: dict[str, str] = {
    "en": "According to our documentation:",
    "ru": "Согласно нашей документации:",
    "fr": "D'après notre documentation :",
    "de": "Laut unserer Dokumentation:",
    "es": "Según nuestra documentación:",
    "it": "Secondo la nostra documentazione:",
    "pt": "De acordo com a nossa documentação:",
    "nl": "Volgens onze documentatie:",
}

WEAK_LEAD_IN = Phrases(
    {
        "en": "I'm not sure this fully answers your question, but our documentation says:",
        "ru": "Не уверен, что это полностью отвечает на ваш вопрос, но в документации сказано:",
        "fr": "Je ne suis pas sûr que cela réponde entièrement à votre question, "
        "mais notre documentation indique :",
        "de": "Ich bin nicht sicher, ob das Ihre Frage ganz beantwortet, "
        "aber in unserer Dokumentation steht:",
        "es": "No estoy seguro de que esto responda del todo a su pregunta, "
        "pero nuestra documentación dice:",
        "it": "Non sono sicuro che questo risponda del tutto alla Sua domanda, "
        "ma la nostra documentazione dice:",
        "pt": "Não tenho certeza de que isto responde totalmente à sua pergunta, "
        "mas a nossa documentação diz:",
        "nl": "Ik weet niet zeker of dit uw vraag volledig beantwoordt, "
        "maar onze documentatie zegt:",
    },
    informal={
        "ru": "Не уверен, что это полностью отвечает на твой вопрос, но в документации сказано:",
        "fr": "Je ne suis pas sûr que cela réponde entièrement à ta question, "
        "mais notre documentation indique :",
        "de": "Ich bin nicht sicher, ob das deine Frage ganz beantwortet, "
        "aber in unserer Dokumentation steht:",
        "es": "No estoy seguro de que esto responda del todo a tu pregunta, "
        "pero nuestra documentación dice:",
        "it": "Non sono sicuro che questo risponda del tutto alla tua domanda, "
        "ma la nostra documentazione dice:",
        "nl": "Ik weet niet zeker of dit je vraag volledig beantwoordt, "
        "maar onze documentatie zegt:",
    },
)

# The graph adds one offer of a person after it (`offer_human`, or the high-stakes
# escalation): the writer never offers one itself, so a reply never offers two.
NOT_FOUND: dict[str, str] = {
    "en": "I couldn't find this in our documentation.",
    "ru": "Я не нашёл этого в нашей документации.",
    "fr": "Je n'ai pas trouvé cela dans notre documentation.",
    "de": "Das habe ich in unserer Dokumentation nicht gefunden.",
    "es": "No encontré esto en nuestra documentación.",
    "it": "Non ho trovato questa informazione nella nostra documentazione.",
    "pt": "Não encontrei isto na nossa documentação.",
    "nl": "Ik heb dit niet in onze documentatie gevonden.",
}

FOREIGN_LEAD_IN: dict[str, str] = {
    "en": "Our documentation covers this only in another language; here is what it says:",
    "ru": "В нашей документации это описано только на другом языке; вот что там сказано:",
    "fr": "Notre documentation ne traite ce point que dans une autre langue ; voici ce "
    "qu'elle dit :",
    "de": "Unsere Dokumentation behandelt das nur in einer anderen Sprache; dort steht:",
    "es": "Nuestra documentación trata esto solo en otro idioma; esto es lo que dice:",
    "it": "La nostra documentazione tratta questo solo in un'altra lingua; ecco cosa dice:",
    "pt": "A nossa documentação trata isto apenas noutro idioma; eis o que diz:",
    "nl": "Onze documentatie behandelt dit alleen in een andere taal; dit staat erin:",
}

# The same, naming the page's language in the visitor's (CLDR names via Babel).
FOREIGN_PAGE_LEAD_IN: dict[str, str] = {
    "en": "Our page on this is in {language}; it says:",
    "ru": "Наша страница об этом на другом языке ({language}); там сказано:",
    "fr": "Notre page à ce sujet est en {language} ; elle indique :",
    "de": "Unsere Seite dazu ist auf {language}; dort steht:",
    "es": "Nuestra página sobre esto está en {language}; dice:",
    "it": "La nostra pagina su questo è in {language}; dice:",
    "pt": "A nossa página sobre isto está em {language}; diz:",
    "nl": "Onze pagina hierover is in het {language}; er staat:",
}
FOREIGN_PAGE_PATTERN = re.compile(
    "|".join(
        re.escape(text).replace(re.escape("{language}"), r"[^;:.()]{1,40}?")
        for text in FOREIGN_PAGE_LEAD_IN.values()
    )
)


def language_name(code: str, in_language: str) -> str:
    """`code`'s name in `in_language` (CLDR), empty when Babel has none."""
    try:
        return str(Locale.parse(in_language).languages.get(code, ""))
    except (ValueError, UnknownLocaleError):
        return ""


def foreign_lead_in(language: str, passage_language: str) -> str:
    """The lead-in before quotes of a page in `passage_language`, in `language`."""
    name = language_name(passage_language, language)
    if not name:
        return phrase(FOREIGN_LEAD_IN, language)
    return phrase(FOREIGN_PAGE_LEAD_IN, language).format(language=name)


def quotes_foreign_page(answer: str) -> bool:
    """The answer says it quotes a page written in another language."""
    return FOREIGN_PAGE_PATTERN.search(answer) is not None or any(
        text in answer for text in FOREIGN_LEAD_IN.values()
    )


PARTS_UNKNOWN: dict[str, str] = {
    "en": "I couldn't find this in our documentation: {x}.",
    "ru": "Этого я не нашёл в нашей документации: {x}.",
    "fr": "Je n'ai pas trouvé ceci dans notre documentation : {x}.",
    "de": "Dazu habe ich in unserer Dokumentation nichts gefunden: {x}.",
    "es": "No encontré esto en nuestra documentación: {x}.",
    "it": "Non ho trovato questo nella nostra documentazione: {x}.",
    "pt": "Não encontrei isto na nossa documentação: {x}.",
    "nl": "Dit heb ik niet in onze documentatie gevonden: {x}.",
}

INTERNAL: dict[str, str] = {
    "en": "I can't share internal or confidential information.",
    "ru": "Я не могу делиться внутренней или конфиденциальной информацией.",
    "fr": "Je ne peux pas partager d'informations internes ou confidentielles.",
    "de": "Interne oder vertrauliche Informationen kann ich nicht teilen.",
    "es": "No puedo compartir información interna o confidencial.",
    "it": "Non posso condividere informazioni interne o riservate.",
    "pt": "Não posso partilhar informações internas ou confidenciais.",
    "nl": "Ik kan geen interne of vertrouwelijke informatie delen.",
}

# Word stems and phrases that make a question about prices (matched case-insensitively at a
# word start, in every language: visitors mix languages).
_PRICING = (
    r"pric|costs?\b|costing|how much (?:is|are|does|do|would|will|for)\b|discount|fees?\b|"
    r"quotes?\b|quotation|cheap|expensive|per (?:user|seat)\b|"
    r"стоимост|цен[аеуыой]\b|сколько(?:\s+\w+){0,3}\s+сто[ия]т|скидк|прайс|расценк|"
    r"дорого|дешев|дешёв|"
    r"prix|coût|cout\b|coûte|tarif|remise|"
    r"preis|kosten\b|kostet|rabatt|"
    r"precio|costo|coste\b|cuesta|descuento|"
    r"prezz|costa\b|sconto|"
    r"preço|preco|custo|custa\b|desconto|"
    r"prijs|prijzen|kost\b|korting"
)
PRICING_PATTERN = re.compile(rf"(?<!\w)(?:{_PRICING})", re.IGNORECASE)

# Plans and upgrades: a question about them is a question, not a wish to book a call.
_PLANS = (
    r"plans?\b|tiers?\b|upgrad|downgrad|subscription|membership|"
    r"тариф|подписк|апгрейд|"
    r"formule|abonnement|forfait|"
    r"tarif|abo\b|mitgliedschaft|"
    r"planes?\b|suscripci|membresía|"
    r"piano|piani|abbonament|"
    r"planos?\b|assinatura|"
    r"abonnement|lidmaatschap"
)
PLANS_PATTERN = re.compile(rf"(?<!\w)(?:{_PLANS})", re.IGNORECASE)

_INTERNAL = (
    r"confidential\b|internal[- ](?:only|documents?|information|info|data|roadmap|memos?|"
    r"wiki|metrics|numbers|financials)|trade secrets?|salar(?:y|ies)|payroll|valuation|"
    r"(?:your|annual|company's) (?:revenue|profits?|margins?)|(?:your|the) system prompt|"
    r"конфиденциальн(?:ая|ую|ой|ые|ых)\s+(?:информац|данн|документ)|"
    r"внутренн(?:ие|ей|яя|юю|их)\s+(?:документ|информаци|данн|отчёт|отчет)|зарплат|выручк|"
    r"informations? (?:internes?|confidentielles?)|documents? internes?|salaires?|"
    r"chiffre d'affaires|"
    r"vertraulich|interne (?:informationen|dokumente|daten|zahlen)|gehälter|gehalt|umsatz|"
    r"información (?:interna|confidencial)|documentos? internos?|salarios?|"
    r"informazioni (?:interne|riservate)|documenti interni|stipendi|fatturato|"
    r"informaç(?:ões|ão) (?:internas?|confidenciais|confidencial)|salários?|faturamento|"
    r"vertrouwelijk|interne (?:informatie|documenten|cijfers)|salaris|omzet"
)
INTERNAL_PATTERN = re.compile(rf"(?<!\w)(?:{_INTERNAL})", re.IGNORECASE)

# Follow-up question templates; `{x}` is a heading from the knowledge base.
SUGGEST_SETUP: dict[str, str] = {
    "en": "How do I set up {x}?",
    "ru": "Как настроить {x}?",
    "fr": "Comment configurer {x} ?",
    "de": "Wie richte ich {x} ein?",
    "es": "¿Cómo configuro {x}?",
    "it": "Come si configura {x}?",
    "pt": "Como configuro {x}?",
    "nl": "Hoe stel ik {x} in?",
}
# The visitor speaks in the site's register too: a formal site's chip reads "Können Sie
# mir mehr über … sagen?". `{x}` is a section heading, never a page's own title.
SUGGEST_ABOUT = Phrases(
    {
        "en": "Can you tell me more about {x}?",
        "ru": "Расскажите подробнее: {x}?",
        "fr": "Pouvez-vous m'en dire plus sur {x} ?",
        "de": "Können Sie mir mehr zu {x} sagen?",
        "es": "¿Puede contarme más sobre {x}?",
        "it": "Può dirmi di più su {x}?",
        "pt": "Pode contar-me mais sobre {x}?",
        "nl": "Kunt u mij meer vertellen over {x}?",
    },
    informal={
        "ru": "Расскажи подробнее: {x}?",
        "fr": "Peux-tu m'en dire plus sur {x} ?",
        "de": "Kannst du mir mehr zu {x} sagen?",
        "es": "¿Puedes contarme más sobre {x}?",
        "it": "Puoi dirmi di più su {x}?",
        "pt": "Você pode me contar mais sobre {x}?",
        "nl": "Kun je me meer vertellen over {x}?",
    },
)
SUGGEST_CODE: dict[str, str] = {
    "en": "What does error {x} mean?",
    "ru": "Что означает ошибка {x}?",
    "fr": "Que signifie l'erreur {x} ?",
    "de": "Was bedeutet der Fehler {x}?",
    "es": "¿Qué significa el error {x}?",
    "it": "Cosa significa l'errore {x}?",
    "pt": "O que significa o erro {x}?",
    "nl": "Wat betekent foutcode {x}?",
}

# Headings about something a visitor configures get the "set up" template.
SETUP_HINTS = re.compile(
    r"sign[- ]on|\bsso\b|\bsaml\b|\bscim\b|integration|connector|connection|webhook|\bapi\b|"
    r"relay|sync|authenticat|\bkeys?\b|alert|notification|environment|backup|workspace|"
    r"интеграц|подключ|коннектор|вебхук|синхрониз|единый вход|ключ|"
    r"intégration|connecteur|integration|konnektor|integración|conector|integrazione|"
    r"connettore|integração|koppeling",
    re.IGNORECASE,
)


def phrase(table: dict[str, str], language: str, tone: str = "formal") -> str:
    """`table`'s text in `language` and `tone` (English when the language is missing)."""
    if tone == "informal" and isinstance(table, Phrases) and language in table.informal:
        return table.informal[language]
    return table.get(language, table["en"])


def every_text(*tables: dict[str, str]) -> Iterator[str]:
    """Each text of `tables`, in every language and register (to recognise framing)."""
    for table in tables:
        yield from table.values()
        if isinstance(table, Phrases):
            yield from table.informal.values()


def normalise(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def strip_framing(sentence: str) -> str:
    """`sentence` without a leading lead-in (the writer puts one before the first quote)."""
    for text in every_text(LEAD_IN, WEAK_LEAD_IN, FOREIGN_LEAD_IN):
        if sentence.startswith(text):
            return sentence[len(text) :].strip()
    named = FOREIGN_PAGE_PATTERN.match(sentence)
    return sentence[named.end() :].strip() if named else sentence


def asks_pricing(text: str) -> bool:
    return PRICING_PATTERN.search(text) is not None


def mentions_plans(text: str) -> bool:
    return PLANS_PATTERN.search(text) is not None


def asks_internal(text: str) -> bool:
    return INTERNAL_PATTERN.search(text) is not None


# Words of a grievance, a threat or alarm: a message with them is for a person even when it
# ends with a question ("We are considering legal action. Who do I talk to?").
_GRIEVANCE = (
    r"legal action|lawyers?|attorney|lawsuit|sue\b|court|unacceptable|disgrace|outrage|"
    r"furious|angry|disappointed|ridiculous|scam|fraud|breach|leak|stolen data|"
    r"юрист|адвокат|суд\b|в суд|возмутительн|безобраз|недопустим|разочарован|мошен|утечк|"
    r"avocat|poursuite|tribunal|inacceptable|scandaleu|furieux|fuite|"
    r"anwalt|klage|gericht|inakzeptabel|unverschämt|wütend|datenleck|"
    r"abogado|demanda|tribunal|inaceptable|indignante|fraude|filtración|"
    r"avvocat|causa legale|tribunale|inaccettabile|vergogn|truffa|fuga di dati|"
    r"advogad|processo|inaceitável|vergonh|fraude|vazamento|"
    r"advocaat|rechtszaak|rechter|onacceptabel|schandalig|oplichting|datalek"
)
GRIEVANCE_PATTERN = re.compile(rf"(?<!\w)(?:{_GRIEVANCE})", re.IGNORECASE)


def voices_grievance(text: str) -> bool:
    return GRIEVANCE_PATTERN.search(text) is not None
