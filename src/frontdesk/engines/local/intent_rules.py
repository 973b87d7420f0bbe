"""Rules that beat statistics: keyboard mash, prompt injection and high-stakes wording.

A classifier trained on sentences has nothing to say about "sdfghj", and injection or
cancellation phrasing is regular enough that patterns are more reliable (and easier
to audit) than a probability. The classifier stays the first opinion; these are the
second signal.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterable

# --- nonsense -------------------------------------------------------------------

_VOWELS = set("aeiouyаеёиоуыэюяіє")
_KEYBOARD_ROWS = (
    "qwertyuiop",
    "asdfghjkl",
    "zxcvbnm",
    "azertyuiop",
    "qsdfghjklm",
    "wxcvbn",
    "qwertzuiop",
    "yxcvbnm",
    "йцукенгшщзхъ",
    "фывапролджэ",
    "ячсмитьбю",
)
_INTERJECTION_WORDS = (
    "hmm hm mmm mdr ptdr brr grr pff pfff psst shh xd lol lmao omg wtf thx pls plz"
)
_INTERJECTIONS = frozenset(_INTERJECTION_WORDS.split())
_LAUGHS = re.compile(r"^(?:ha|he|hi|ja|je|ji|ah|eh|xa|ха|хе|ah|lo|ol|k|l|x)+$")
_WORD = re.compile(r"[^\W\d_]+")


def _fold(text: str) -> str:
    """Lowercase and strip accents so 'é' counts as a vowel."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def _judgeable(token: str) -> bool:
    # Only Latin and Cyrillic words can be judged by vowel patterns.
    return all("a" <= ch <= "z" or "а" <= ch <= "я" or ch in "ёії" for ch in token)


def _keyboard_walk(token: str) -> bool:
    if len(token) < 4:
        return False
    adjacent = sum(
        any(_neighbours(row, a, b) for row in _KEYBOARD_ROWS) for a, b in itertools.pairwise(token)
    )
    return adjacent >= 0.7 * (len(token) - 1)


def _neighbours(row: str, a: str, b: str) -> bool:
    i, j = row.find(a), row.find(b)
    return i >= 0 and j >= 0 and abs(i - j) == 1


def _repeated_unit(token: str) -> bool:
    """'sdfsdfsdf', 'jjjjj', 'ksksks': a short unit typed over and over."""
    for size in range(1, 4):
        repeats = len(token) // size
        # Three-letter units count from two repeats ("lkjlkj"); shorter ones need
        # three so "mama" and "haha" stay words.
        enough = len(token) >= 4 and repeats >= (2 if size == 3 else 3)
        if enough and token[:size] * repeats == token[: size * repeats]:
            return True
    return False


def _gibberish_token(token: str) -> bool:
    if token in _INTERJECTIONS or _LAUGHS.match(token):
        return False
    if re.search(r"(.)\1{3,}", token) or _repeated_unit(token):
        return True
    if _keyboard_walk(token):
        return True
    vowels = sum(ch in _VOWELS for ch in token)
    if len(token) < 4:
        return len(token) == 3 and vowels == 0
    ratio = vowels / len(token)
    if ratio < 0.12:
        return True
    longest_run = max(len(run) for run in re.split(f"[{''.join(_VOWELS)}]", token))
    return longest_run >= 6 or (longest_run >= 5 and ratio < 0.25)


def looks_like_nonsense(text: str, vocabulary: Iterable[str] = ()) -> bool:
    """True for keyboard mash, lone symbols and strings with no word-like token.

    `vocabulary` holds known words (e.g. every word of the training set) so real
    but unusual words are never called gibberish.
    """
    stripped = text.strip()
    if not stripped:
        return True
    folded = _fold(stripped)
    tokens = _WORD.findall(folded)
    if not tokens:
        # Emoji and other pictographs carry meaning; bare punctuation and digits don't.
        return not any(unicodedata.category(ch) == "So" for ch in stripped)
    # The classifier passes its frozenset of training words: copying it cost ~0.2 ms a turn.
    known = vocabulary if isinstance(vocabulary, (set, frozenset)) else frozenset(vocabulary)
    judged = [t for t in tokens if _judgeable(t) and t not in known]
    if len(judged) < len(tokens) * 0.5:
        return False
    gibberish = sum(_gibberish_token(t) or len(t) == 1 for t in judged)
    return gibberish >= max(1, 0.6 * len(tokens))


# --- prompt injection ----------------------------------------------------------

_IGNORE_VERBS = (
    r"ignore|ignoring|disregard|forget|override|bypass|skip|discard|drop|"
    r"игнорируй|игнорируйте|проигнорируй|забудь|забудьте|отбрось|"
    r"ignorez|oublie|oubliez|néglige|négligez|"
    r"ignoriere|ignorier|ignorieren|vergiss|vergessen sie|missachte|"
    r"ignora|ignorar|ignoren|ignorate|olvida|olvide|olviden|dimentica|dimenticate|"
    r"esqueça|esquece|desconsidere|desconsidera|"
    r"negeer|vergeet|negeren"
)
_RULE_NOUNS = (
    r"instruction|directive|direction|rule|prompt|guideline|command|restriction|constraint|"
    r"programming|context|task|инструкци|правил|указани|промпт|ограничени|команд|"
    r"consigne|règle|directive|restriction|anweisung|regel|vorgabe|instruktion|eingabe|"
    r"restriktion|befehl|instruccion|instrucción|regla|indicacion|directriz|restriccion|"
    r"istruzion|regol|indicazion|direttiv|instruç|instruc|regra|diretriz|orientaç|"
    r"instructie|regels|richtlijn|aanwijzing"
)
_QUALIFIERS = (
    r"previous|prior|above|earlier|preceding|original|initial|system|all|any|your|these|"
    r"those|past|old|предыдущ|прошл|все|всё|свои|твои|ваши|системн|"
    r"précédent|toutes|tous|tes|vos|vorherig|bisherig|alle|deine|ihre|vorigen|obigen|"
    r"anterior|todas|todos|tus|sus|precedent|tutte|tutti|tue|anteriores|suas|"
    r"vorige|eerdere|alle|je|jouw|bovenstaande"
)

# Families of cues, each a feature of the injection model (`injection_cues`): words in
# eight languages carry over to phrasings and languages the model's n-grams never saw.
# Code, SQL and markup are not among them: a visitor pasting `DROP TABLE` or `<script>`
# into a support question is asking about their code, not attacking the assistant.
_OVERRIDE = [
    re.compile(
        rf"\b(?:{_IGNORE_VERBS})\b[^.?!\n]{{0,40}}?\b(?:{_QUALIFIERS})\w*\b[^.?!\n]{{0,40}}?"
        rf"(?:{_RULE_NOUNS})",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:ignore|disregard|forget)\s+(?:everything|all that|the above|what ?ever\b|"
        r"what (?:i|you) (?:have |was |were )?(?:said|told|been told))",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:instructions|rules|directives) (?:you (?:were|have been|got|received)|"
        r"(?:that )?you(?:'ve| have)? (?:been )?(?:given|received|told))",
        re.IGNORECASE,
    ),
]
_PROMPT_REVEAL = [
    re.compile(
        # The assistant's own prompt ("your", "the … above"); a visitor's own bot's prompt
        # ("the system prompt of my bot") is a product question.
        r"\b(?:your|ur|the|print|show|reveal|repeat|output|dump)\s+(?:\w+\s+)?"
        r"(?:system|initial|original|hidden|secret|pre)[ -]?(?:prompt|message|instructions)"
        r"(?!\s+(?:of|for|in)\s+(?:my|our|the)\b)|"
        r"(?:твой|свой|ваш|твои|свои)\s+(?:\w+\s+)?(?:системн\w*|скрыт\w*|исходн\w*)\s+"
        r"(?:промпт|сообщени|инструкци|запрос)|"
        r"(?:ton|votre|tes|vos)\s+(?:prompt|instructions) (?:système|systeme|initial|cachées)|"
        r"(?:deinen|ihren|den|deine)\s+(?:system-?prompt|systemnachricht|ursprünglichen prompt|"
        r"versteckten anweisungen)|(?:tu|su)\s+(?:prompt (?:del sistema|inicial)|"
        r"instrucciones ocultas)|(?:il tuo|tuo)\s+(?:prompt (?:di sistema|iniziale))|"
        r"(?:seu|o seu)\s+(?:prompt (?:do sistema|inicial))|(?:je|jouw)\s+systeemprompt",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:what|tell|show|reveal|repeat|print|list|give|share|output|summari[sz]e|describe)"
        r"\b[^.?!\n]{0,40}\b(?:your|my|previous|initial|original|first|secret|hidden)\s+"
        r"(?:\w+\s+)?(?:instructions|directives|rules you|prompt)\b",
        re.IGNORECASE,
    ),
    # "Which instructions were you given?" in the other seven languages: the rules the
    # assistant received, asked of the assistant (тебе, te, dir, ti, você, je).
    re.compile(
        r"(?:инструкци|правил|указани)\w*\s+(?:\w+\s+)?тебе\s+(?:дали|задали|запретили)|"
        r"тебе\s+(?:дали|задали)\s+(?:\w+\s+)?(?:инструкци|правил)|"
        r"(?:instructions|consignes|règles)\s+(?:t'a-t-on|t'ont été|que tu as reçu|te sont)|"
        r"(?:anweisungen|regeln|instruktionen)\s+(?:hast du|wurden dir|die du bekommen)|"
        r"(?:instrucciones|reglas)\s+(?:te (?:dieron|han dado)|que recibiste)|"
        r"(?:istruzioni|regole)\s+(?:ti hanno dato|che hai ricevuto)|"
        r"(?:instruções|regras)\s+(?:você recebeu|te deram)|"
        r"(?:instructies|regels)\s+(?:heb je gekregen|zijn je gegeven)",
        re.IGNORECASE,
    ),
]
_NO_RULES_PERSONA = [
    re.compile(
        # Not a bare "developer mode" or "jailbreak": phones and browsers have those.
        r"\bdo anything now\b|\bdan mode\b|developer mode (?:enabled|output)|god mode|"
        r"jailbreak mode|\bpwned\b|режим (?:бога|dan)|режиме разработчика|"
        r"mode développeur activé|entwicklermodus aktiviert",
        re.IGNORECASE,
    ),
    re.compile(
        r"\b(?:no|without|free (?:of|from)|unrestricted|unfiltered|uncensored)\s+"
        r"(?:any\s+)?(?:rules|restrictions|limits|filters|guidelines|censorship|content polic)|"
        r"без (?:ограничений|правил|цензуры|фильтров)|"
        r"sans (?:restrictions?|règles|limites|censure)|"
        r"ohne (?:einschränkungen|regeln|filter|zensur)|"
        r"sin (?:restricciones|reglas|límites|censura|filtros)|"
        r"senza (?:restrizioni|regole|limiti|censura|filtri)|"
        r"sem (?:restrições|regras|limites|censura|filtros)|"
        r"zonder (?:beperkingen|regels|filters|censuur)",
        re.IGNORECASE,
    ),
]
_FORGED_ROLE = [
    re.compile(
        r"<\|im_(?:start|end)\|>|</?system>|\[/?inst\]|\[system\]|^#+\s*system\b",
        re.IGNORECASE | re.MULTILINE,
    ),
]

_SECRET = (
    r"password|passphrase|pass ?word|secret (?:word|key|code|phrase)|access code|magic word|"
    r"hidden word|drowssap|пароль|секретн\w* слов|mot de passe|mot secret|passwort|kennwort|"
    r"geheime\w* wort|contraseña|palabra secreta|parola segreta|palavra secreta|geheime woord|"
    r"parola (?:segreta|d'ordine)|senha|wachtwoord"
)
_SECRET_REQUEST = re.compile(
    rf"\b(?:the|your|ton|votre|das|dein|ihr|tu|su|il|tua|sua|het|jouw|твой|ваш|этот)\s+"
    rf"(?:secret\s+|hidden\s+|секретный\s+)?(?:{_SECRET})|"
    rf"\b(?:what|tell|give|reveal|spell|share|say|print|show|write|hint|letter|encode|translate|"
    rf"скажи|назови|покажи|напиши|выведи|раскрой|выдай|dis|donne|révèle|quel est|sag|nenne|"
    rf"verrate|gib|wie lautet|dime|dame|revela|cuál es|dimmi|dammi|qual è|qual é|"
    rf"rivela|diga|mostre|revele|zeg|geef|onthul|vertel)\b[^.?!\n]{{0,40}}(?:{_SECRET})",
    re.IGNORECASE,
)
# A visitor's own password is a support matter, not an attack.
_OWN_ACCOUNT = re.compile(
    r"\b(?:policy|policies|manager|requirements?|complexity|strength|length|sso|login|log in|"
    r"wi-?fi|guest|network|router|default|device|"
    r"sign in|my|our|forgot|forgotten|reset|change|changing|update|recover|expired|lost|new|wrong|"
    r"incorrect|mon|notre|oublié|réinitialiser|changer|mein|unser|vergessen|zurücksetzen|ändern|"
    r"mi|nuestra|olvidé|restablecer|cambiar|mia|dimenticato|reimpostare|minha|esqueci|redefinir|"
    r"alterar|mijn|ons|vergeten|resetten|wijzigen|мой|мою|наш|забыл|забыла|сбросить|"
    r"восстановить|поменять|изменить|сменить)\b",
    re.IGNORECASE,
)
_WEAK_INJECTION = [
    re.compile(
        # Not "act as" or "role-play": a visitor may ask for a harmless role-play.
        r"\b(?:you are now|you're now|from now on,? you|pretend (?:to be|you are|you're)|"
        r"new instructions|new rules|obey|you must answer|"
        r"ты теперь|притворись|представь,? что ты|tu es maintenant|fais comme si|"
        r"du bist jetzt|tu eres ahora|tú eres ahora|finge que|ora sei|fingi di|"
        r"você agora é|finja que|je bent nu|doe alsof)\b",
        re.IGNORECASE,
    ),
    re.compile(r"\b[A-Za-z0-9+/]{24,}={0,2}(?:\s|$)"),
    # The persona's name, in capitals only: "meetings with Dan" is not an attack.
    re.compile(r"\bDAN\b"),
]


INJECTION_CUES = ("override", "prompt_reveal", "no_rules_persona", "forged_role", "secret", "weak")


def injection_cues(text: str) -> tuple[float, ...]:
    """1.0 per family of INJECTION_CUES found in `text`, else 0.0 (features, not verdicts)."""
    return (
        float(any(p.search(text) for p in _OVERRIDE)),
        float(any(p.search(text) for p in _PROMPT_REVEAL)),
        float(any(p.search(text) for p in _NO_RULES_PERSONA)),
        float(any(p.search(text) for p in _FORGED_ROLE)),
        float(bool(_SECRET_REQUEST.search(text)) and not _OWN_ACCOUNT.search(text)),
        float(any(p.search(text) for p in _WEAK_INJECTION)),
    )


# --- high stakes -----------------------------------------------------------------

_HIGH_STAKES = re.compile(
    r"\bcancel(?:l?ing|l?ed)?\s+(?:my|our|the)?\s*(?:subscription|account|contract|plan|service)|"
    r"\b(?:refund|chargeback|money back|compensation|lawyer|attorney|legal action|lawsuit|sue\b|"
    r"court|overcharg|double[- ]?charg|charged (?:twice|two times|double)|unauthori[sz]ed charge|"
    r"billing dispute|dispute (?:a|the|this) charge|formal complaint|file a complaint|"
    r"unacceptable|disgrace|terminat\w+ (?:the|our|my) contract|ending the contract|data breach|"
    r"close my account|delete my account|(?:speak|talk) to (?:a|your) manager|disappointed|"
    r"furious|angry with|reporting you|(?:keep|still) (?:charging|billing)|stop billing|"
    r"refund policy|cancellation policy)|"
    r"отмен\w* (?:подписк|договор|аккаунт|тариф)|верн\w* (?:деньги|оплат)|"
    r"возврат\w* (?:денег|средств)|списал\w* (?:\w+ )?дважды|дважды списал|закрыть аккаунт|"
    r"недовол|безобраз|разочарован|юрист|адвокат|в суд|жалоб|претензи|расторг|компенсаци|"
    r"недопустимо|"
    r"annuler (?:mon|notre|l'|le) ?(?:abonnement|compte|contrat)|rembours|litige|avocat|plainte|"
    r"poursuites|inacceptable|résili|factur\w+ deux fois|"
    r"kündig|rückerstatt|geld zurück|anwalt|beschwerde|rechtliche schritte|doppelt (?:abgebucht|"
    r"berechnet)|inakzeptabel|gutschrift|"
    r"cancelar (?:mi|nuestra|la|el) ?(?:suscripción|cuenta|contrato)|reembols|"
    r"devolución del dinero|"
    r"abogado|demanda|queja|reclamación|inaceptable|cobrad\w+ dos veces|"
    r"disdir|disdett|annullare (?:il|l'|mio|nostro) ?(?:abbonamento|account|contratto)|rimbors|"
    r"avvocat|reclamo|denuncia|inaccettabile|addebitat\w+ due volte|rescind|"
    r"cancelar (?:a|minha|nossa) ?(?:assinatura|conta)|estorno|advogad|processo judicial|"
    r"reclamação|inaceitável|cobrad\w+ duas vezes|"
    r"opzeg|terugbetal|geld terug|advocaat|klacht|rechtszaak|onacceptabel|dubbel (?:afgeschreven|"
    r"gefactureerd)",
    re.IGNORECASE,
)


def high_stakes_hit(text: str) -> bool:
    return bool(_HIGH_STAKES.search(text))
