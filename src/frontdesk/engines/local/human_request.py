"""Explicit human request: "can I speak to someone?", not "do you have human support?".

An explicit request to talk to a person routes to a handoff, even for a
negative persona, so a false positive costs a rep's time and a false negative loses
a visitor who asked. A sentence is a request when it has a first-person prefix
followed by a request phrase or a stand-alone request ("connect me with", "I'd rather
just book a call") — strong — or the bare request phrase ("talk to a human") in a
sentence that does not ask about the product ("Does your bot let customers talk to a
human?") — weak. Languages in the order en, ru, fr, de, es, it, pt, nl.
"""

from __future__ import annotations

import re

from frontdesk.engines.local.signal_patterns import compile_lexicon, fold

_WHO_EN = (
    r"(?:a |an |the |your |some |one of your )?(?:real |live |actual |human )?(?:human(?: being)?"
    r"|person|agent|someone|somebody|anyone|sales(?:person| rep| team|people)?|rep|representative"
    r"|operator|manager|specialist|expert|ceo|founder|support (?:agent|staff|team)"
    r"|customer service)\b"
)
_HUMAN_PHRASES = (  # (first-person prefix, request phrase) per language
    (
        r"\b(?:i|we)(?:'d| would| do)?(?: really| just)? (?:like|love|prefer|want|need|wanna"
        r"|rather)\b|\b(?:can|could|may) (?:i|we)\b|\bhow (?:do|can) (?:i|we)\b"
        r"|\bis it possible to\b",
        rf"\b(?:talk|speak|chat)(?:ing)? (?:to|with) {_WHO_EN}|\breach {_WHO_EN}",
    ),
    (
        r"\b(?:я\s+)?(?:хочу|хотел\w*\s+бы|хотелось\s+бы|можно|могу\s+ли\s+я|нужно|мне\s+нужно"
        r"|дайте|предпочту|как\s+мне)\b",
        r"\b(?:поговорить|говорить|пообщаться|связаться|переговорить|общаться)\s+с\s+(?:вашим\s+)?"
        r"(?:живым\s+|реальным\s+)?(?:человеком|оператором|менеджером|специалистом|сотрудником|консультантом"
        r"|представителем|кем-(?:нибудь|то))",
    ),
    (
        r"\b(?:je\s+(?:veux|voudrais|souhaite|souhaiterais|prefere|prefererais|aimerais|peux)"
        r"|j'aimerais|j'ai besoin de|puis-je|pourrais-je|est-ce que je (?:peux|pourrais))\b",
        r"\b(?:parler|discuter|echanger)\s+(?:a|avec)\s+(?:un\s+|une\s+|le\s+|la\s+|votre\s+)?"
        r"(?:vrai(?:e)?\s+)?(?:humain|personne|etre humain|quelqu'un|conseiller\w*|agent|commercial"
        r"|operat\w+|representant|vendeur|equipe|service commercial)\b",
    ),
    (
        r"\b(?:ich\s+(?:mochte|will|wurde|muss|brauche)|kann\s+ich|konnte\s+ich|darf\s+ich)\b",
        r"\bmit\s+(?:einem\s+|einer\s+|jemandem\s+|ihrem\s+|eurem\s+|dem\s+)?(?:echten\s+"
        r"|richtigen\s+)?(?:menschen|person|mitarbeiter\w*|berater\w*|vertrieb|ansprechpartner\w*"
        r"|agenten|verkaufer|jemandem)(?:\s+\S+){0,3}?\s+(?:sprechen|reden|chatten)\b",
    ),
    (
        r"\b(?:quiero|quisiera|me gustaria|prefiero|preferiria|puedo|podria|necesito)\b",
        r"\b(?:hablar|conversar|chatear)\s+con\s+(?:un\s+|una\s+|el\s+|su\s+)?(?:persona(?: real)?"
        r"|humano|ser humano|agente|asesor\w*|comercial|representante|alguien|operador\w*"
        r"|vendedor\w*|equipo|ventas)\b",
    ),
    (
        r"\b(?:voglio|vorrei|preferirei|posso|potrei|devo)\b",
        r"\b(?:parlare|chattare)\s+con\s+(?:un\s+|una\s+|uno\s+|un'|il\s+|l')?(?:persona(?: reale)?"
        r"|umano|essere umano|operat\w+|agente|consulente|commerciale|rappresentante|qualcuno"
        r"|addetto|venditore)\b",
    ),
    (
        r"\b(?:quero|queria|gostaria de|prefiro|preferia|posso|poderia|preciso)\b",
        r"\b(?:falar|conversar)\s+com\s+(?:um\s+|uma\s+|o\s+|a\s+)?(?:humano|ser humano|pessoa"
        r"(?: real)?|atendente|agente|consultor\w*|representante|alguem|vendedor\w*|comercial"
        r"|operador\w*|equipe)\b",
    ),
    (
        r"\b(?:ik\s+(?:wil|zou|heb liever|moet)|kan\s+ik|mag\s+ik)\b",
        r"\bmet\s+(?:een\s+|de\s+|iemand\s+)?(?:echte\s+)?(?:mens|persoon|medewerker|iemand"
        r"|verkoper|adviseur|vertegenwoordiger)(?:\s+\S+){0,2}?\s+(?:spreken|praten|chatten)\b",
    ),
)
_HUMAN_STRONG = compile_lexicon(
    *(rf"(?:{prefix})(?:\s+\S+){{0,3}}?\s+(?:{phrase})" for prefix, phrase in _HUMAN_PHRASES),
    r"^\W*(?:a\s+)?(?:human|real person|live agent|operator|representative|оператор\w*"
    r"|человек|humain|mensch|humano|umano|operatore|mens)\W*(?:please|пожалуйста|bitte"
    r"|por favor|per favore|alstublieft)?\W*$",
    r"\b(?:connect|transfer|put|patch) me (?:through |over )?(?:to|with)\b|\blet me (?:talk|speak)"
    r" (?:to|with)\b|\b(?:someone|somebody|a human|a person|an agent) (?:i|we) (?:can|could) "
    r"(?:talk|speak|chat)\b|\bi(?:'d| would) rather (?:just )?(?:book|schedule|have|get on|jump on"
    r"|do|set up) a (?:quick |short )?(?:call|meeting)\b|\bi (?:want|need) (?:a |an )?(?:human"
    r"|real person|live agent|operator)\b|\b(?:have|get) (?:someone|somebody) (?:to )?(?:call"
    r"|contact|reach out to) (?:me|us)\b|\bcall me back\b",
    r"\b(?:соедините|переключите|переведите|свяжите|позовите)\s+(?:меня\s+)?(?:с|на)?\s*(?:живым"
    r"\s+)?(?:человек|оператор|менеджер|специалист|сотрудник)\w*|\bперезвоните мне\b",
    r"\bmettez-moi en (?:relation|contact)\b|\bje (?:prefere|prefererais) (?:juste )?(?:reserver"
    r"|prendre|planifier) un (?:appel|rendez-vous)\b|\brappelez-moi\b",
    r"\bverbinden sie mich\b|\bich (?:wurde|hatte) lieber (?:einfach )?(?:einen termin|ein "
    r"gesprach|einen anruf)\b|\brufen sie mich (?:bitte )?zuruck\b",
    r"\b(?:comuniqueme|paseme|ponganme en contacto)\b|\bprefiero (?:solo )?(?:agendar|reservar)"
    r" una (?:llamada|reunion)\b|\bmettetemi in contatto\b|\bpreferirei (?:solo )?(?:prenotare"
    r"|fissare) una (?:chiamata|call)\b|\bme (?:transfira|coloque em contato)\b|\bprefiro (?:so )?"
    r"(?:agendar|marcar) uma (?:chamada|ligacao|reuniao)\b|\bverbind (?:me|mij) door\b",
)
_HUMAN_WEAK = compile_lexicon(
    *(phrase for _, phrase in _HUMAN_PHRASES),
    r"\bоператор\w*|\bжив(?:ой|ым|ого|ому)\s+человек\w*",  # a bare word is a request in ru
)
_PRODUCT_QUESTION = compile_lexicon(
    r"\b(?:do|does|can|could|will|is|are) (?:you|your|the|this|it)(?: \w+)? (?:have|offer|provide"
    r"|support|include|allow|let|enable|come with)\b|\b(?:your|the|this) (?:product|platform|tool"
    r"|software|app|bot|chatbot|assistant|widget|solution|system)\b|\b(?:let|allow|enable)s? "
    r"(?:my |our |your )?(?:customers|users|visitors|clients)\b|\bhuman[- ](?:support|review"
    r"|oversight|in[- ]the[- ]loop|handoff|handover|fallback|escalation)\b",
    r"\bу вас есть\b|\bесть ли\b|\bваш\w*|\bподдерживает\w*|\bумеет\b|\bпозволяет\b",
    r"\b(?:votre|vos|ce|cette) (?:bot|chatbot|produit|outil|logiciel|plateforme|assistant|widget)"
    r"\b|\b(?:avez|proposez|offrez)-vous\b|\bpermet-(?:il|elle)\b|\bsupport humain\b",
    r"\b(?:ihr|euer|eure|ihre|das) (?:bot|chatbot|produkt|tool|plattform|software|system|widget)"
    r"\b|\b(?:bietet|bieten|habt|unterstutzt) (?:ihr|sie)\b|\bmenschliche\w* (?:support|hilfe)\b",
    r"\b(?:su|tu|vuestro|el|il vostro|vostro|o seu|seu) (?:bot|chatbot|producto|prodotto|produto"
    r"|herramienta|strumento|ferramenta|plataforma|piattaforma|software|asistente|assistente"
    r"|widget)\b|\b(?:tienen|ofrecen|permite|offrite|avete|consente|oferecem|voces tem)\b"
    r"|\bsoporte humano\b|\bsupporto umano\b|\bsuporte humano\b",
    r"\b(?:jullie|uw|het|de) (?:bot|chatbot|product|tool|platform|software|assistent|widget)\b"
    r"|\b(?:hebben jullie|biedt|bieden|ondersteunt)\b|\bmenselijke (?:ondersteuning|support)\b",
)
_NEGATION = compile_lexicon(  # "I don't want to talk to a human" is not a request
    r"\b(?:don't|do not|doesn't|does not|won't|will not|not|never|rather not|no need)\b",
    r"\bне\b|\bни с кем\b|\bne\b|\bn'|\bpas\b|\bnicht\b|\bkein\w*|\bno\b|\bnunca\b|\bnon\b",
    r"\bnao\b|\bniet\b|\bgeen\b|\bnooit\b",
)
_SENTENCES = re.compile(r"[^.!?;\n]+[.!?;\n]*")
_CLAUSE_START = re.compile(r".*[,:—]")


def _affirmed(sentence: str, pattern: re.Pattern[str], guard: re.Pattern[str] | None) -> bool:
    for match in pattern.finditer(sentence):
        clause = _CLAUSE_START.sub("", sentence[: match.start()])  # "No, I want …" is a yes
        if _NEGATION.search(f"{clause[-30:]}{match.group(0)}"):
            continue
        if guard is None or not guard.search(sentence):
            return True
    return False


def is_explicit_human_request(text: str) -> bool:
    """True when the visitor asks to talk to a person now, not about the product's humans."""
    return any(
        _affirmed(sentence, _HUMAN_STRONG, None)
        or _affirmed(sentence, _HUMAN_WEAK, _PRODUCT_QUESTION)
        for sentence in _SENTENCES.findall(fold(text))
    )
