"""Query rewriting for the local engine: follow-ups resolved from history, retry expansion.

`rewrite` keeps a standalone question as it is. A follow-up gets the subject of the
previous turns appended: names, codes and acronyms of the last two questions first,
then the other content words of the last question, then names the last answer repeats
(at most six words). The question stays first, so the visitor's own words still lead
both the lexical and the dense search. A question is a follow-up when it has a pronoun
or demonstrative ("does it support SSO?", "а сколько это стоит?"), opens with an
ellipsis ("and …", "what about …", "а …", "und …"), has at most two content words, or
has at most four and shares one with the last turn (same topic, subject left out).
Three or four content words unrelated to the last turn are a new topic.

`expand` adds synonyms from a small multilingual table of help-centre vocabulary, in
the visitor's language and in English (many knowledge bases are written in English).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

from frontdesk.engines.base import Turn
from frontdesk.engines.local.answering.phrases import LEAD_IN, WEAK_LEAD_IN, every_text
from frontdesk.engines.local.answering.text import (
    LANGUAGES,
    content_terms,
    content_words,
    stem_language,
    term_set,
)

ANAPHORA: dict[str, frozenset[str]] = {
    lang: frozenset(words.split())
    for lang, words in {
        "en": "it its it's this that these those they them their theirs same",
        "ru": "это этот эта эти этого этой этом этим этих этому эту он она оно они его её ее "
        "их ему ей им ним ней нём нем нему тот та те того той том тому тем такой такое такая",
        "fr": "ce cela ça ceci celui celle ceux celles elle ils elles lui leur",
        "de": "das es dies dieser diese dieses er ihn ihm ihnen dafür damit davon dabei dazu "
        "darauf",
        "es": "esto eso ello él ella ellos ellas este ese esa estos esos",
        "it": "ciò esso essa questo questa quello quella questi quelli lui loro",
        "pt": "isso isto aquilo ele ela eles elas este esse essa",
        "nl": "dit dat deze hij hem haar hun daar ervan erover ermee",
    }.items()
}
ALL_ANAPHORA: frozenset[str] = frozenset().union(*ANAPHORA.values())
_TOKEN = re.compile(r"\w+")
_ELLIPSIS = re.compile(
    r"^\W*(?:and|also|but|what about|how about|and what about|"
    r"а|и|ну а|а как насч[её]т|а что насч[её]т|также|"
    r"et|et pour|mais|quid de|"
    r"und|aber|was ist mit|wie steht es mit|"
    r"y|pero|y qué hay de|qué tal|"
    r"e|ma|e per|e invece|"
    r"mas|e quanto a|"
    r"en|maar|en wat dacht je van|hoe zit het met)\b",
    re.IGNORECASE,
)
_ENTITY = re.compile(r"^(?:.*\d.*|[A-Z0-9]{2,}[A-Za-z0-9.+-]*|[A-Za-z]+[A-Z][A-Za-z]*)$")
_LATIN = re.compile(r"^[A-Za-z][A-Za-z0-9.+-]*$")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_SENTENCE_START = re.compile(r"(?:^|[.!?:]\s+)(\w[\w.+-]*)")
MAX_TOPIC_WORDS = 6
SHORT_QUESTION = 4

# Concepts of help-centre vocabulary, one string per language in LANGUAGES order
# (en, ru, fr, de, es, it, pt, nl); phrases are comma-separated.
_CONCEPTS: tuple[tuple[str, ...], ...] = (
    ("single sign-on, sso, saml, identity provider", "единый вход, sso, saml",
     "authentification unique, sso, saml", "single sign-on, sso, saml",
     "inicio de sesión único, sso, saml", "accesso singolo, sso, saml",
     "login único, sso, saml", "single sign-on, sso, saml"),
    ("price, pricing, cost, plan, quote", "цена, стоимость, тариф",
     "prix, tarif, coût, offre", "preis, kosten, tarif, plan", "precio, coste, plan",
     "prezzo, costo, piano", "preço, custo, plano", "prijs, kosten, abonnement"),
    ("cancel, cancellation, terminate, end subscription", "отменить, отмена, расторгнуть",
     "annuler, résiliation", "kündigen, kündigung", "cancelar, cancelación",
     "annullare, disdetta", "cancelar, cancelamento", "opzeggen, annuleren"),
    ("refund, money back, credit", "возврат, вернуть деньги", "remboursement",
     "erstattung, rückerstattung", "reembolso", "rimborso", "reembolso", "terugbetaling"),
    ("error, failure, issue, problem, error code", "ошибка, сбой, проблема, код ошибки",
     "erreur, échec, problème", "fehler, problem, fehlercode", "error, fallo, problema",
     "errore, problema", "erro, falha, problema", "fout, probleem, foutcode"),
    ("set up, setup, configure, install, get started, onboarding",
     "настроить, настройка, установка, подключить, начало работы",
     "configurer, installer, démarrer", "einrichten, konfigurieren, installieren",
     "configurar, instalar", "configurare, installare", "configurar, instalar",
     "instellen, configureren, installeren"),
    ("integration, connector, connect, connection", "интеграция, коннектор, подключение",
     "intégration, connecteur, connexion", "integration, konnektor, verbindung",
     "integración, conector, conexión", "integrazione, connettore, connessione",
     "integração, conector, conexão", "integratie, connector, koppeling"),
    ("password, login, sign in, account access", "пароль, вход, авторизация",
     "mot de passe, connexion", "passwort, anmeldung, login", "contraseña, iniciar sesión",
     "password, accesso", "senha, login", "wachtwoord, inloggen"),
    ("delete, remove, erase, deletion", "удалить, удаление", "supprimer, suppression",
     "löschen, entfernen", "eliminar, borrar", "eliminare, cancellare", "excluir, apagar",
     "verwijderen, wissen"),
    ("data retention, privacy, gdpr, personal data",
     "хранение данных, конфиденциальность, персональные данные",
     "conservation des données, confidentialité, rgpd", "aufbewahrung, datenschutz, dsgvo",
     "retención de datos, privacidad, rgpd", "conservazione dei dati, privacy, gdpr",
     "retenção de dados, privacidade, lgpd, rgpd", "bewaartermijn, privacy, avg"),
    ("security, encryption, compliance, soc 2", "безопасность, шифрование, соответствие",
     "sécurité, chiffrement, conformité", "sicherheit, verschlüsselung, compliance",
     "seguridad, cifrado, cumplimiento", "sicurezza, crittografia, conformità",
     "segurança, criptografia, conformidade", "beveiliging, versleuteling, compliance"),
    ("help desk, contact support, support team, ticket", "поддержка, помощь, обращение",
     "support, assistance, aide", "support, hilfe, kontakt", "soporte, ayuda, contacto",
     "supporto, assistenza, aiuto", "suporte, ajuda, contato", "ondersteuning, hulp, contact"),
    ("sla, uptime, availability, downtime, outage", "sla, доступность, простой, сбой",
     "sla, disponibilité, panne", "sla, verfügbarkeit, ausfall", "sla, disponibilidad, caída",
     "sla, disponibilità, interruzione", "sla, disponibilidade, indisponibilidade",
     "sla, beschikbaarheid, storing"),
    ("billing, invoice, payment, pay, credit card", "оплата, счёт, платёж, карта",
     "facturation, facture, paiement", "abrechnung, rechnung, zahlung",
     "facturación, factura, pago", "fatturazione, fattura, pagamento",
     "faturamento, fatura, pagamento", "facturering, factuur, betaling"),
    ("trial, free trial, demo", "пробный период, демо", "essai, essai gratuit, démo",
     "testversion, test, demo", "prueba, prueba gratuita, demo", "prova, prova gratuita, demo",
     "teste, avaliação gratuita, demo", "proefperiode, demo"),
    ("api, webhook, endpoint, api key", "api, вебхук, ключ api", "api, webhook, clé api",
     "api, webhook, api-schlüssel", "api, webhook, clave api", "api, webhook, chiave api",
     "api, webhook, chave api", "api, webhook, api-sleutel"),
    ("sync, synchronization, data sync, replication", "синхронизация, репликация",
     "synchronisation, réplication", "synchronisierung, sync, replikation",
     "sincronización, replicación", "sincronizzazione, replica", "sincronização, replicação",
     "synchronisatie, replicatie"),
    ("user, seat, editor, team member, license", "пользователь, место, лицензия",
     "utilisateur, siège, licence", "benutzer, platz, lizenz", "usuario, puesto, licencia",
     "utente, postazione, licenza", "usuário, assento, licença", "gebruiker, plaats, licentie"),
    ("limit, quota, rate limit, maximum", "лимит, ограничение, квота", "limite, quota",
     "limit, grenze, kontingent", "límite, cuota", "limite, quota", "limite, cota",
     "limiet, quotum"),
    ("report, dashboard, analytics, export", "отчёт, дашборд, аналитика, экспорт",
     "rapport, tableau de bord, analyse, export", "bericht, dashboard, analyse, export",
     "informe, panel, analítica, exportar", "report, dashboard, analisi, esportare",
     "relatório, painel, análise, exportar", "rapport, dashboard, analyse, exporteren"),
    ("workflow, automation, scenario, run", "сценарий, автоматизация, запуск",
     "workflow, automatisation, scénario", "workflow, automatisierung, ablauf",
     "flujo de trabajo, automatización", "flusso di lavoro, automazione",
     "fluxo de trabalho, automação", "workflow, automatisering"),
    ("upgrade, downgrade, change plan", "сменить тариф, повысить тариф",
     "changer d'offre, mise à niveau", "upgrade, tarif wechseln", "cambiar de plan, mejorar",
     "cambiare piano, upgrade", "mudar de plano, upgrade", "upgrade, abonnement wijzigen"),
)  # fmt: skip


@lru_cache(maxsize=16)
def _concept_stems(language: str) -> tuple[tuple[tuple[frozenset[str], str], ...], ...]:
    """Per concept: (stems, phrase) for the phrases of `language` and of English."""
    stem_lang = stem_language(language)
    table = []
    for concept in _CONCEPTS:
        phrases: list[tuple[frozenset[str], str]] = []
        for lang in dict.fromkeys((language, "en")):
            text = concept[LANGUAGES.index(lang)] if lang in LANGUAGES else ""
            for phrase in (part.strip() for part in text.split(",")):
                if phrase:
                    phrases.append((term_set(phrase, stem_lang), phrase))
        table.append(tuple(phrases))
    return tuple(table)


def synonyms(question: str, language: str) -> list[str]:
    """Phrases of the concepts `question` mentions that it does not contain yet."""
    asked = term_set(question, language)
    found: list[str] = []
    for concept in _concept_stems(language):
        if any(stems and stems <= asked for stems, _ in concept):
            found.extend(phrase for stems, phrase in concept if stems and not stems <= asked)
    return list(dict.fromkeys(found))


def _sentence_initial(text: str) -> set[str]:
    return {match.group(1) for match in _SENTENCE_START.finditer(text)}


def _is_entity(word: str, initial: set[str], in_cyrillic_text: bool) -> bool:
    if _ENTITY.match(word):
        return True
    if in_cyrillic_text and _LATIN.match(word):
        return True  # a Latin name inside Russian text: Salesforce, HubSpot
    return word[:1].isupper() and word not in initial


def _candidates(text: str, entities_only: bool) -> list[str]:
    text = text.strip()
    for lead in every_text(LEAD_IN, WEAK_LEAD_IN):
        text = text.replace(lead, " ")
    initial = _sentence_initial(text)
    cyrillic = bool(_CYRILLIC.search(text))
    found = [w for w in content_words(text) if w.lower() not in ALL_ANAPHORA and len(w) > 1]
    entities = [w for w in found if _is_entity(w, initial, cyrillic)]
    if entities_only:
        return entities
    return entities + [w for w in found if w not in entities and not w.isdigit()]


def has_anaphora(question: str, language: str) -> bool:
    """A pronoun or demonstrative pointing back to the previous turn."""
    lexicon = ANAPHORA["en"] | ANAPHORA.get(language, frozenset())
    tokens = _TOKEN.findall(question)
    for i, token in enumerate(tokens):
        word = token.lower()
        if word not in lexicon:
            continue
        before = tokens[i - 1].lower() if i else ""
        after = tokens[i + 1] if i + 1 < len(tokens) else ""
        if word == "das" and after[:1].isupper():
            continue  # German article: "das Produkt"
        if word == "es" and before in {"gibt", "geht"}:
            continue  # "gibt es", "wie geht es"
        if word == "ce" and before == "est":
            continue  # "qu'est-ce que"
        return True
    return False


def refers_back(question: str, language: str) -> bool:
    """The question points at an earlier turn itself ("their rollout", "and for …")."""
    return has_anaphora(question, language) or _ELLIPSIS.match(question) is not None


def is_follow_up(question: str, history: Sequence[Turn], language: str) -> bool:
    """Whether `question` leans on the previous turns for its subject."""
    if not history:
        return False
    if has_anaphora(question, language) or _ELLIPSIS.match(question):
        return True
    own = content_terms(question, language)
    if len(own) <= 2:
        return True
    if len(own) > SHORT_QUESTION:
        return False
    last = history[-1]
    previous = term_set(f"{last.user} {last.assistant}", language)
    return bool(set(own) & previous)  # short and on the same topic: add the missing subject


def topic_words(question: str, history: Sequence[Turn], language: str) -> list[str]:
    """Words naming the subject of the recent turns that `question` does not mention."""
    asked = set(term_set(question, language))
    recent = list(history[-2:])[::-1]
    pools: list[str] = []
    if recent:
        pools += _candidates(recent[0].user, True)
        if len(recent) > 1:
            pools += _candidates(recent[1].user, True)
        pools += _candidates(recent[0].user, False)
        if len(pools) < 2:
            counts = Counter(_candidates(recent[0].assistant, True))
            pools += [word for word, _ in counts.most_common(3)]
    chosen: list[str] = []
    for word in pools:
        stems = term_set(word, language)
        if not stems or stems <= asked:
            continue
        asked |= stems
        chosen.append(word)
        if len(chosen) >= MAX_TOPIC_WORDS:
            break
    return chosen


class LocalQueryRewriter:
    """`QueryRewriterJob` without a model: history-aware rewriting and synonym expansion."""

    async def rewrite(self, question: str, history: Sequence[Turn], language: str) -> str:
        question = " ".join(question.split())
        if not is_follow_up(question, history, language):
            return question
        subject = topic_words(question, history, language)
        return f"{question} {' '.join(subject)}" if subject else question

    async def expand(self, question: str, language: str) -> str:
        question = " ".join(question.split())
        extra = synonyms(question, language)
        return f"{question} {' '.join(extra)}" if extra else question
