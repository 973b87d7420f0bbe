"""How a text addresses the visitor: formally (Sie, vous, usted, Lei, вы, u, o senhor) or
informally (du, tu, tú, tu, ты, je, você). A site speaks in one register (`tone` in its
file); English has one.

The check reads the address words of each language (pronouns, possessives, clitics and a
few second-person verb forms). It judges texts the project writes — the reply catalog,
the widget's strings, the writer's framing — never a visitor's message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final, Literal

Tone = Literal["formal", "informal"]
TONES: Final[tuple[Tone, ...]] = ("formal", "informal")

# Languages with a formal and an informal "you" (English has one).
TWO_REGISTERS: Final[frozenset[str]] = frozenset({"ru", "fr", "de", "es", "it", "pt", "nl"})

_I = re.IGNORECASE
_FORMAL: Final[dict[str, re.Pattern[str]]] = {
    # Capitalised: "sie" is "they"; a formal "Sie" is written with a capital.
    "de": re.compile(r"\b(?:Sie|Ihnen|Ihre?[mnrs]?)\b"),
    # "rendez-vous" (an appointment) is a noun, not an address.
    "fr": re.compile(r"(?<!rendez-)\b(?:vous|votre|vos)\b", _I),
    "es": re.compile(r"\b(?:usted|ustedes)\b", _I),
    # Lei and its forms, capitalised as courtesy writes them (metterLa, Le risponderà).
    "it": re.compile(
        r"\b(?:Lei|Suo|Sua|Suoi|Sue)\b|[a-zà-ù](?:La|Le)\b|(?<=[a-zà-ù,] )(?:La|Le)\b"
    ),
    "ru": re.compile(
        r"\b(?:вы|вас|вам|вами|ваш|ваша|ваше|ваши|вашего|вашей|вашему|вашим|"
        r"вашими|ваших|вашу)\b",
        _I,
    ),
    "pt": re.compile(r"\b(?:o senhor|a senhora|os senhores|lhe)\b", _I),
    "nl": re.compile(r"\b(?:u|uw)\b", _I),
}
_INFORMAL: Final[dict[str, re.Pattern[str]]] = {
    "de": re.compile(r"\b(?:du|dich|dir|dein|deine|deinen|deinem|deiner|deines)\b", _I),
    "fr": re.compile(r"\b(?:tu|te|toi|ton|ta|tes)\b|\bt'", _I),
    "es": re.compile(
        r"\b(?:tú|te|ti|tu|tus|contigo|puedes|quieres|necesitas|tienes|"
        r"prefieres|buscas|compartes|sabes|estás|vuelves|escribes)\b",
        _I,
    ),
    "it": re.compile(r"\b(?:tu|ti|te|tuo|tua|tuoi|tue|puoi|vuoi|cerchi)\b|\w{3,}[aei]rti\b", _I),
    "ru": re.compile(
        r"\b(?:ты|тебя|тебе|тобой|твой|твоя|твоё|твое|твои|твоего|твоей|"
        r"твоему|твоим|твоих|твою)\b|\w+(?:ешь|ёшь|ишь)\b",
        _I,
    ),
    "pt": re.compile(r"\b(?:você|vocês|te|tu|teu|tua|teus|tuas|contigo)\b", _I),
    "nl": re.compile(r"\b(?:je|jij|jou|jouw)\b", _I),
}
_PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def address_forms(text: str, language: str) -> frozenset[Tone]:
    """The registers `text` addresses the visitor in (empty: it does not address them)."""
    if language not in TWO_REGISTERS:
        return frozenset()
    plain = _PLACEHOLDER.sub(" ", text)
    found: set[Tone] = set()
    if _FORMAL[language].search(plain):
        found.add("formal")
    if _INFORMAL[language].search(plain):
        found.add("informal")
    return frozenset(found)


def register_problems(
    name: str, formal: Mapping[str, str], informal: Mapping[str, str]
) -> list[str]:
    """What is wrong with one text's registers: `formal` is the text per language (the
    default register), `informal` the variants where the informal text differs."""
    problems: list[str] = []
    for language, text in informal.items():
        if language not in TWO_REGISTERS:
            problems.append(f"{name}: {language} has one register; drop its informal text")
        elif language not in formal:
            problems.append(f"{name}: informal {language} text without a formal one")
        elif text == formal[language]:
            problems.append(f"{name}: informal {language} text repeats the formal one")
        elif "formal" in address_forms(text, language):
            problems.append(f"{name}: informal {language} text addresses the visitor formally")
    for language, text in formal.items():
        forms = address_forms(text, language)
        if "informal" in forms:
            problems.append(f"{name}: {language} text addresses the visitor informally")
        if "formal" in forms and language not in informal:
            problems.append(f"{name}: {language} addresses the visitor; add its informal text")
    return problems


_ADDRESS: Final[dict[Tone, str]] = {
    "formal": "Address the visitor formally where the language has two registers (Sie, "
    "vous, usted, Lei, вы, u, o senhor), and never mix in the informal one.",
    "informal": "Address the visitor informally where the language has two registers (du, "
    "tu, tú, tu, ты, je, você), and never mix in the formal one.",
}


def address_instruction(tone: Tone) -> str:
    """The register line of a writer's prompt."""
    return _ADDRESS[tone]
