"""Interest, qualification, flags, human requests and emails in one visitor message.

The local `SignalsDetectorJob` (interest signals and the qualification delta):
lexicons of regular expressions for en, ru, fr, de, es, it, pt and nl, no model and
no I/O. The interest lexicon lives here; fit dimensions and persona flags are in
`signal_patterns`, explicit human requests in `human_request`. Every language's
patterns are tried on every message, so `language` is only a hint. Within each
pattern the languages come in the order en, ru, fr, de, es, it, pt, nl.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import cast

from frontdesk.engines.base import Level, SignalsResult
from frontdesk.engines.local.human_request import is_explicit_human_request
from frontdesk.engines.local.scan import read
from frontdesk.engines.local.signal_patterns import (
    CONFIRMED,
    FLAG_PATTERNS,
    FLAGS,
    HEADCOUNT,
    NUMBER,
    PARTIAL,
    compile_lexicon,
    fold,
)
from frontdesk.leads.qualification import QualificationDelta

__all__ = [
    "INTEREST_WEIGHTS",
    "LocalSignalsDetector",
    "detect_signals",
    "extract_email",
    "fold",
    "is_explicit_human_request",
    "qualification_delta",
]

INTEREST_WEIGHTS: Mapping[str, float] = {
    "demo_interest": 0.4,
    "pricing_interest": 0.3,
    "trial_interest": 0.3,
    "implementation_timeline": 0.3,
    "security_review": 0.25,
    "integration_question": 0.2,
    "comparison_with_competitor": 0.2,
    "team_size_mention": 0.15,
}
_EVIDENCE_MAX = 200
_INTEREST: Mapping[str, re.Pattern[str]] = {
    "demo_interest": compile_lexicon(
        r"\bdemo(?:s|nstrations?)?\b|\bwalk-?through\b|\bproduct tour\b|\bsee it in action\b",
        r"\b(?:book|schedule|set up|arrange) (?:a |an )?(?:call|meeting|demo|intro call)\b",
        r"\b(?:talk|speak|chat|get in touch) (?:to|with) "
        r"(?:your |the |a |an |someone (?:from|in) )?(?:sales|account executive)\w*",
        r"\bcontact (?:your |the )?sales\b",
        r"\bотдел\w* продаж|\bсвяза\w* с (?:вашими )?продаж\w*",
        r"\bдемо\w*|\bдемонстрац\w*|\bзаписаться на (?:звонок|встречу|демо)",
        r"\bdemonstration\b|\bprendre (?:un )?rendez-vous\b|\bplanifier un (?:appel|rendez-vous)",
        r"\bvorfuhr\w*|\bproduktdemo\b|\btermin (?:vereinbaren|buchen|ausmachen)\b",
        r"\bdemostracion\b|\b(?:agendar|reservar) una (?:llamada|reunion|demo)\b",
        r"\bdimostrazione\b|\b(?:fissare|prenotare) (?:una chiamata|un appuntamento|una demo)\b",
        r"\bdemonstracao\b|\b(?:agendar|marcar) uma (?:chamada|reuniao|demo)\b",
        r"\bdemonstratie\b|\brondleiding\b|\b(?:afspraak|demo) (?:maken|inplannen)\b",
    ),
    "pricing_interest": compile_lexicon(
        r"\bpric(?:e|es|ing|ed)\b|\bcosts?\b|\bhow much\b|\b(?:get|request|send) a quote\b",
        r"\bper (?:seat|user|month|year)\b|\blicen[cs](?:e|es|ing)\b|\bquotation\b",
        r"\bцен(?:а|ы|у|е|ой|ам|ах|ами|ник\w*|ообразовани\w*)\b|\bстоимост\w*|\bсколько стоит",
        r"\bтариф\w*|\bпрайс\w*|\bрасценк\w*",
        r"\bprix\b|\btarif\w*|\bcombien (?:ca )?cout\w*|\bcout\b|\bdevis\b|\babonnement\b",
        r"\bpreis\w*|\bkost(?:en|et)\b|\blizenz\w*",
        r"\bprecios?\b|\bcuanto cuesta\b|\bcost(?:e|o|os)\b|\bcotizacion\b|\bpresupuesto\b",
        r"\bprezz(?:o|i)\b|\bquanto costa\b|\bcosti\b|\bpreventivo\b",
        r"\bprecos?\b|\bquanto custa\b|\bcustos?\b|\borcamento\b|\bassinatura\b",
        r"\bprijs\w*|\bprijzen\b|\bwat kost\b|\bofferte\b|\blicentie\w*",
    ),
    "integration_question": compile_lexicon(
        r"\bintegr(?:at|ac|az|ier|er|ar|ir)\w*|\bconnectors?\b|\bapi\b|\bwebhooks?\b",
        r"\bsync(?:s|ing|ed)?\b|\bsynchroni[sz]\w*|\bsincroniz\w*|\bplugs? into\b",
        r"\bинтеграц\w*|\bинтегрир\w*|\bконнектор\w*|\bвебхук\w*|\bсинхрониз\w*",
        r"\bconnecteurs?\b|\bschnittstelle\w*|\banbind\w*|\bconector(?:es)?\b",
        r"\bconnettor[ei]\b|\bkoppel(?:ing|en|t)\w*|\baansluiten op\b",
    ),
    "implementation_timeline": compile_lexicon(
        r"\bimplement\w*|\bimplant(?:ation|acion|acao)\b|\broll(?:ing)?[- ]?out\b",
        r"\bgo(?:ing)?[- ]live\b|\bonboarding (?:time|process|period)\b|\bdeploy(?:ment|ing)?\b",
        r"\bhow long (?:does|would|will) (?:it|the \w+|setup|onboarding) take\b",
        r"\bвнедр\w*|\bсроки (?:внедрения|запуска)|\bсколько времени (?:займ[её]т|занимает)",
        r"\bmise en (?:place|oeuvre|production)\b|\bdeploiement\b|\bcombien de temps\b",
        r"\beinfuhrung\b|\bumsetzung\b|\bwie lange dauert\b|\binbetriebnahme\b",
        r"\bpuesta en marcha\b|\bdespliegue\b|\bcuanto (?:tiempo )?tarda\b",
        r"\bmessa in (?:opera|produzione)\b|\bquanto tempo ci vuole\b",
        r"\bquanto tempo (?:leva|demora)\b|\binvoering\b|\buitrol\w*|\bhoe lang duurt\b",
    ),
    "team_size_mention": compile_lexicon(
        HEADCOUNT,
        rf"{NUMBER}\s*(?:users|seats|agents|engineers|reps|developers|пользовател\w*"
        r"|utilisateurs|nutzer\w*|usuarios|utenti|utilizadores|gebruikers)\b",
        r"\b(?:team of|команда из|equipe de|team von|equipo de|squadra di|team van) \d+",
    ),
    "comparison_with_competitor": compile_lexicon(
        r"\bcompared? (?:to|with)\b|\bvs\.?(?=\s)|\bversus\b|\balternatives? to\b|\bbetter than\b",
        r"\bdifferen(?:t|ce) (?:from|between)\b|\b(?:switch|migrat)\w* from\b|\bcompetitors?\b",
        r"\bпо сравнению с\b|\bсравн\w* с\b|\bальтернатив\w*|\bлучше,? чем\b|\bотлича\w+ от\b",
        r"\bконкурент\w*|\bcompare(?:e|r)? (?:a|avec)\b|\balternative a\b|\bmieux que\b",
        r"\bconcurren\w*|\bim vergleich (?:zu|mit)\b|\bverglichen mit\b|\balternative zu\b",
        r"\bbesser als\b|\bwettbewerber\w*|\bkonkurren\w*|\bcomparad[oa] (?:con|com|ao)\b",
        r"\balternativa (?:a|ao)\b|\bmejor que\b|\bcompetidor\w*|\bmeglio di\b|\bconcorrent\w*",
        r"\bmelhor (?:do )?que\b|\bvergeleken met\b|\balternatief voor\b|\bbeter dan\b",
    ),
    "security_review": compile_lexicon(
        r"\bsoc ?2\b|\biso ?27001\b|\bgdpr\b|\bdsgvo\b|\brgpd\b|\blgpd\b|\bhipaa\b|\bdpa\b",
        r"\bsso\b|\bsaml\b|\bpen(?:etration)? ?test\w*|\bencrypt\w*|\bsecurity\b|\bcomplian\w*",
        r"\bdata (?:residency|protection)\b|\bбезопасност\w*|\b152-?фз\b|\bшифрован\w*",
        r"\bперсональн\w+ данн\w+|\bsecurite\b|\bconformite\b|\bchiffrement\b|\bsicherheit\w*",
        r"\bdatenschutz\w*|\bverschlusselung\b|\bseguridad\b|\bcifrado\b|\bsicurezza\b",
        r"\bconformita\b|\bcrittografia\b|\bseguranca\b|\bcriptografia\b|\bbeveiliging\b",
        r"\bversleuteling\b|\bgegevensbescherming\b",
    ),
    "trial_interest": compile_lexicon(
        r"\btrial\b|\btry (?:it|you|this|the product|your \w+)(?: out)?\b|\bsandbox\b",
        r"\btest[- ]drive\b|\bpilot\w*|\bproof of concept\b|\bpoc\b|\bfree (?:plan|tier|version)\b",
        r"\bпробн\w+ (?:период|верси\w+|доступ)|\bпопробовать\b|\bтест-?драйв\w*|\bпилот\w*",
        r"\bessai\b|\bessayer\b|\bversion gratuite\b|\btestversion\b|\btestphase\b",
        r"\bausprobieren\b|\btestzugang\b|\bprueba gratuita\b|\bperiodo de prueba\b",
        r"\bprobar(?:lo|la)?\b|\bprova gratuita\b|\bperiodo di prova\b|\bprovar(?:e|lo|la)\b",
        r"\bteste gr(?:atis|atuito)\b|\bperiodo de (?:teste|avaliacao)\b|\bexperimentar\b",
        r"\bproefperiode\b|\bproefversie\b|\buitproberen\b|\bproberen\b",
    ),
}
_DECLINE = compile_lexicon(
    r"\b(?:cancel\w*|don't (?:want|need)|do not (?:want|need)|no need for)\b[^.!?\n]{0,20}",
    r"\bnot interested\b|\bno thanks\b|\brather not\b",
    r"\bотмен\w*|\bне (?:нужн\w*|надо|хочу|интересн\w*)",
    r"\bannul\w*|\bpas (?:besoin|interesse)|\bkein(?:e|en)? (?:demo|interesse)\b|\bstornier\w*",
    r"\babsagen\b|\bcancelar\b|\bno (?:me interesa|quiero|necesito)\b",
    r"\bnon (?:mi interessa|voglio)\b",
    r"\bnao (?:quero|preciso|tenho interesse)\b|\bafzeggen\b|\bgeen (?:demo|interesse)\b",
)

_EMAIL = re.compile(
    r"(?<![\w.+%-])([A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,62}[A-Za-z0-9_%+-])?"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24})(?![\w-]|\.\w)"
)


def extract_email(text: str) -> str | None:
    """The first plausible email address in the text, as written (None when there is none)."""
    for match in _EMAIL.finditer(text):
        address = match.group(1)
        if ".." not in address:
            return address
    return None


def _evidence(text: str, match: re.Match[str]) -> str:
    return text[match.start() : match.end()].strip(" \t,;:-—")[:_EVIDENCE_MAX]


def detect_signals(text: str) -> SignalsResult:
    """Everything the local engine reads in one visitor message (pure, no I/O)."""
    folded = fold(text)
    signals = [name for name, pattern in _INTEREST.items() if pattern.search(folded)]
    if "demo_interest" in signals and _DECLINE.search(folded):
        signals.remove("demo_interest")
    qualification: dict[str, Level] = {}
    evidence: dict[str, str] = {}
    for dimension, confirmed in CONFIRMED.items():
        for level, pattern in (
            ("confirmed", confirmed),
            ("partially_confirmed", PARTIAL[dimension]),
        ):
            match = pattern.search(folded)
            if match and (quote := _evidence(text, match)):
                qualification[dimension] = cast(Level, level)
                evidence[dimension] = quote
                break
    return SignalsResult(
        interest_delta=round(min(1.0, sum((INTEREST_WEIGHTS[name] for name in signals), 0.0)), 4),
        interest_signals=tuple(signals),
        qualification=qualification,
        evidence=evidence,
        flags=frozenset(name for name, pattern in FLAG_PATTERNS.items() if pattern.search(folded)),
        explicit_human_request=is_explicit_human_request(text),
        email=extract_email(text),
    )


def qualification_delta(result: SignalsResult) -> QualificationDelta:
    """The QualificationDelta for `leads.qualification.apply_delta`.

    Evidence for `apply_delta` is `result.evidence`, keyed by the same dimensions.
    """
    return QualificationDelta.model_validate(
        {
            **result.qualification,
            **{flag: flag in result.flags for flag in FLAGS},
            "explicit_human_request": result.explicit_human_request,
        }
    )


class LocalSignalsDetector:
    """`SignalsDetectorJob` for the local engine: lexicons, no model, no I/O."""

    async def detect(self, text: str, language: str) -> SignalsResult:
        # All eight lexicons are tried whatever `language` says (see the module docstring);
        # a pasted text is read at its start and end only, off the event loop (`scan`).
        return await read(detect_signals, text)
