"""The abuse gate: checks that run before the graph, so blocked turns cost nothing.

Priority: hack > spam > length. `spam_count` counts consecutive identical messages and
resets on a different one (temporary block); an oversized message blocks only itself.

The hack block (docs/injection.md): only confident detections count
(`counts_toward_block`), a suspected one gets the refusal and nothing more. The count
belongs to a time window: attacks older than `HACK_BLOCK_MINUTES` are forgotten
(`active_hack_count`), so a blocked session recovers by itself after that long without
an attack, and a visitor misread twice in a long conversation is not locked out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

BlockKind = Literal["hack", "spam", "length"]

HACK_BLOCK_AT = 2
HACK_BLOCK_MINUTES = 60
# The local detector's CONFIDENT_AT; an LLM classifier reports its own confidence.
HACK_CONFIDENT_AT = 0.85
SPAM_BLOCK_AT = 3
MAX_MESSAGE_CHARS = 15_000

_MESSAGES: dict[BlockKind, dict[str, str]] = {
    "hack": {
        "en": "I'm unable to continue this conversation. Please start a new session.",
        "fr": "Je ne peux pas poursuivre cette conversation. Veuillez démarrer une nouvelle "
        "session.",
        "es": "No puedo continuar esta conversación. Por favor, inicia una nueva sesión.",
        "de": "Ich kann dieses Gespräch nicht fortsetzen. Bitte starte eine neue Sitzung.",
        "it": "Non posso continuare questa conversazione. Per favore, avvia una nuova sessione.",
        "pt": "Não posso continuar esta conversa. Por favor, inicie uma nova sessão.",
        "nl": "Ik kan dit gesprek niet voortzetten. Start alstublieft een nieuwe sessie.",
        "ru": "Я не могу продолжить этот разговор. Пожалуйста, начните новую сессию.",
    },
    "spam": {
        "en": "It looks like you've sent the same message several times. "
        "Please try asking a different question.",
        "fr": "Il semble que vous ayez envoyé le même message plusieurs fois. "
        "Essayez de poser une autre question.",
        "es": "Parece que has enviado el mismo mensaje varias veces. "
        "Intenta hacer una pregunta diferente.",
        "de": "Es sieht so aus, als hättest du dieselbe Nachricht mehrmals gesendet. "
        "Bitte stelle eine andere Frage.",
        "it": "Sembra che tu abbia inviato lo stesso messaggio più volte. "
        "Prova a fare una domanda diversa.",
        "pt": "Parece que você enviou a mesma mensagem várias vezes. "
        "Tente fazer uma pergunta diferente.",
        "nl": "Het lijkt erop dat je hetzelfde bericht meerdere keren hebt gestuurd. "
        "Stel alsjeblieft een andere vraag.",
        "ru": "Похоже, вы отправили одно и то же сообщение несколько раз. "
        "Пожалуйста, задайте другой вопрос.",
    },
    "length": {
        "en": "Your message is too long for me to process. Please shorten it and ask again.",
        "fr": "Votre message est trop long. Merci de le raccourcir et de reformuler.",
        "es": "Tu mensaje es demasiado largo. Por favor, acórtalo y vuelve a preguntar.",
        "de": "Deine Nachricht ist zu lang. Bitte kürze sie und frage noch einmal.",
        "it": "Il tuo messaggio è troppo lungo. Per favore, accorcialo e riprova.",
        "pt": "A sua mensagem é demasiado longa. Por favor, encurte-a e pergunte novamente.",
        "nl": "Je bericht is te lang. Maak het korter en stel je vraag opnieuw.",
        "ru": "Ваше сообщение слишком длинное. Пожалуйста, сократите его и спросите снова.",
    },
}


@dataclass(frozen=True)
class Block:
    kind: BlockKind
    message: str


def normalise_input(text: str) -> str:
    """The form two messages are compared in (case-insensitive, trimmed)."""
    return text.strip().casefold()


def next_spam_count(last_input: str | None, message: str, spam_count: int) -> int:
    """Consecutive repeats of the previous message; a different message resets to 0."""
    if last_input is not None and normalise_input(message) == normalise_input(last_input):
        return spam_count + 1
    return 0


def counts_toward_block(confidence: float, confident_at: float = HACK_CONFIDENT_AT) -> bool:
    """Whether a turn classified as an attack adds to the session's hack count."""
    return confidence >= confident_at


def active_hack_count(
    hack_count: int,
    last_hack_at: float | None,
    now: float,
    block_minutes: int = HACK_BLOCK_MINUTES,
) -> int:
    """The attacks that still count at `now` (epoch seconds): all of them while the last
    one is younger than `block_minutes`, none after. A count without a time (a session
    saved before attacks were timed) is forgotten too."""
    if hack_count <= 0 or last_hack_at is None:
        return 0
    return hack_count if now - last_hack_at < block_minutes * 60 else 0


def check_abuse(
    *,
    hack_count: int,
    spam_count: int,
    message: str,
    language: str = "en",
    hack_block_at: int = HACK_BLOCK_AT,
    spam_block_at: int = SPAM_BLOCK_AT,
    max_chars: int = MAX_MESSAGE_CHARS,
) -> Block | None:
    """The block that applies to this turn, if any (hack > spam > length); `hack_count`
    is the active count (`active_hack_count`)."""
    kind: BlockKind | None = None
    if hack_count >= hack_block_at:
        kind = "hack"
    elif spam_count >= spam_block_at:
        kind = "spam"
    elif len(message) > max_chars:
        kind = "length"
    if kind is None:
        return None
    texts = _MESSAGES[kind]
    return Block(kind=kind, message=texts.get(language, texts["en"]))
