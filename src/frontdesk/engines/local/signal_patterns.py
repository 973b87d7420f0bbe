"""Lexicons for what a visitor says about themselves: fit dimensions and persona flags.

The qualification update, done with regular expressions for en, ru, fr, de, es, it, pt
and nl. Every language's patterns are tried on every message: visitors mix languages
and short messages are often mis-detected. Text is accent-folded character by
character (é → e, й → и) before matching, which keeps offsets, so evidence can be
quoted from the visitor's own words. Within each pattern the languages come in the
order en, ru, fr, de, es, it, pt, nl. Patterns are compiled once, at import.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Mapping

FLAGS = ("is_negative_persona", "is_no_fit", "is_consultant", "referral_mentioned")
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "ʼ": "'", "`": "'", "´": "'"})


def fold(text: str) -> str:
    """Strip accents and unify apostrophes without changing the text's length."""
    text = text.translate(_APOSTROPHES)
    return text if text.isascii() else "".join(map(_fold_char, text))


@functools.lru_cache(maxsize=4096)
def _fold_char(ch: str) -> str:
    base = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    return base if len(base) == 1 else ch


def compile_lexicon(*parts: str) -> re.Pattern[str]:
    """One case-insensitive pattern from alternatives written in folded form."""
    return re.compile("|".join(f"(?:{fold(p)})" for p in parts), re.IGNORECASE)


_TAIL = r"[^.!?;\n]{0,100}"


def _clause(*parts: str) -> re.Pattern[str]:
    """Like `compile_lexicon`, but the match runs on to the end of the clause, so that the
    evidence reads as the visitor's statement ("we need to automate invoice matching")."""
    return compile_lexicon(*(f"(?:{part}){_TAIL}" for part in parts))


_MONTHS = (
    r"(?:january|february|march|april|may|june|july|august|september|october|november|december"
    r"|января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря"
    r"|janvier|fevrier|mars|avril|mai|juin|juillet|aout|septembre|octobre|novembre|decembre"
    r"|januar|februar|marz|juni|juli|oktober|dezember|enero|febrero|marzo|abril|mayo|junio"
    r"|julio|agosto|septiembre|octubre|noviembre|diciembre|gennaio|febbraio|aprile|maggio"
    r"|giugno|luglio|settembre|ottobre|dicembre|janeiro|fevereiro|marco|maio|junho|julho"
    r"|setembro|outubro|novembro|dezembro|januari|februari|maart|mei|augustus)"
)
NUMBER = r"(?<![\d.,])(?!1\b(?![,.\s]\d{3}))(?:\d{1,3}(?:[,.\s]\d{3})+|\d+)(?:\s?k)?\+?"
_STAFF = (
    r"(?:people|persons|employees|staff|workers|ftes?|человек|сотрудник\w*|работник\w*"
    r"|personnes|employes|salaries|collaborateurs|mitarbeiter\w*|personen|angestellte\w*"
    r"|beschaftigte\w*|leute|personas|empleados|trabajadores|persone|dipendenti|pessoas"
    r"|funcionarios|colaboradores|mensen|medewerkers|werknemers)"
)
_ORG = (
    r"(?:company|startup|business|firm|agency|retailer|manufacturer|bank|insurer|hospital|clinic"
    r"|school|university|nonprofit|saas|scale-?up|enterprise|group|brand|marketplace|provider"
    r"|distributor|wholesaler|carrier|consultancy|studio|shop|store|chain|organi[sz]ation)"
)
HEADCOUNT = (
    rf"{NUMBER}\s*-\s*(?:person|people|strong|employee)(?:\s+[\w-]+){{0,2}}?\s+{_ORG}\b"
    rf"|{NUMBER}\s*{_STAFF}\b|{NUMBER}\s*-\s*(?:person|people|strong|employee)\b"
)

CONFIRMED: Mapping[str, re.Pattern[str]] = {
    "problem_fit": _clause(
        r"\b(?:we|our (?:team|company|business))(?:'re| are)? (?:really |urgently )?(?:need(?:s)?"
        r"|looking for|trying to|want to (?:automate|replace|stop|reduce|streamline|migrate)"
        r"|struggl(?:e|es|ing) (?:with|to)|spend(?:s|ing)? (?:too much|hours|days|a lot)"
        r"|waste(?:s)? (?:too much|hours|time)|(?:have|has|are having) (?:a |serious |big )?"
        r"(?:problem|issue|pain|trouble|bottleneck)s? (?:with|in)|building|migrating)\b",
        r"\bour (?:main |biggest )?(?:problem|challenge|pain(?: point)?|bottleneck) is\b",
        r"\bi(?:'m| am) looking for (?:a |an )?(?:tool|solution|platform|way|software|system)"
        r"|\bi (?:need|want) to (?:automate|replace|streamline|consolidate)\b",
        r"\bнам (?:срочно |очень )?(?:нужн\w*|необходим\w*|требуется)"
        r"|\bмы (?:ищем|тратим|теряем"
        r"|строим)|\b(?:мы )?хотим (?:автоматизировать|заменить|упростить|перейти|избавиться)"
        r"|\bнаша (?:команда|компания) (?:тратит|теряет|не справляется|страдает|мучается)"
        r"|\bу нас (?:проблем\w*|сложност\w*|трудност\w*) с"
        r"|\bнаша главная (?:проблема|боль)",
        r"\b(?:nous avons|on a) besoin d|\b(?:nous|on) (?:re)?cherch(?:ons|e)\b|\bnous (?:voulons"
        r"|souhaitons) (?:automatiser|remplacer|simplifier|migrer|reduire)|\bnotre equipe (?:a du"
        r" mal|perd|galere|passe trop)|\bnous perdons|\bnotre (?:principal )?probleme est",
        r"\bwir (?:brauchen|benotigen|suchen|mussen|verlieren|verschwenden|bauen)\b|\bwir wollen\b"
        r"[^.!?\n]{0,60}\b(?:automatisieren|ersetzen|ablosen|vereinfachen)\b|\bunser (?:team"
        r"|unternehmen) (?:hat (?:probleme|muhe|schwierigkeiten)|kampft|verliert)",
        r"\b(?:necesitamos|buscamos|estamos buscando|perdemos|estamos construyendo)\b|\bqueremos "
        r"(?:automatizar|reemplazar|sustituir|simplificar|migrar)|\bnuestro equipo (?:tiene "
        r"(?:problemas|dificultades)|pierde|lucha)|\bnuestro (?:principal )?problema es",
        r"\b(?:abbiamo bisogno|ci serve|cerchiamo|stiamo cercando|perdiamo)\b"
        r"|\bvogliamo (?:automatizzare|sostituire|semplificare|migrare)|\bil nostro team (?:fa "
        r"fatica|ha (?:problemi|difficolta)|perde)|\bil nostro (?:principale )?problema e",
        r"\b(?:precisamos|procuramos|buscamos|estamos (?:procurando|buscando)|perdemos)\b"
        r"|\bqueremos (?:automatizar|substituir|simplificar|migrar)|\bnossa equipe (?:tem "
        r"(?:dificuldade|problemas)|perde|gasta muito)|\bnosso (?:principal )?problema e",
        r"\bwe hebben\b[^.!?\n]{0,40}\bnodig\b|\bwij? (?:zoeken|moeten|verliezen)\b|\bwe willen\b"
        r"[^.!?\n]{0,40}\b(?:automatiseren|vervangen|vereenvoudigen)\b|\bons team (?:worstelt|"
        r"heeft (?:moeite|problemen)|verliest)|\bons (?:grootste )?probleem is",
    ),
    "authority_fit": compile_lexicon(
        r"\b(?:i'?m|i am|as|being)(?:\s+(?:the|a|an|our))?(?:\s+[\w&,'-]+){0,2}?\s+(?:co-?founder"
        r"|founder|owner|ceo|cto|coo|cfo|cio|ciso|cmo|cro|cpo|vp|svp|vice president|president"
        r"|head of \w+|director|chief \w+ officer|managing director|general manager"
        r"|decision[- ]maker)\b",
        r"\bi (?:run|lead|head|own)(?: the| our| my)? (?:team|company|department|business|ops"
        r"|operations|engineering|it|sales|firm|agency|startup)\b|\bi (?:make|sign off on|approve)"
        r" (?:the )?(?:decision|purchas\w*|budget)\b|\bi(?:'m| am) in charge of\b",
        r"\bя\s+(?:[—-]\s+)?(?:являюсь\s+|работаю\s+)?(?:[\w-]+\s+){0,2}?(?:руководител\w*"
        r"|директор\w*|основател\w*|сооснователь\w*|совладел\w*|владел\w*|cto|ceo|coo|cfo|глава"
        r"|начальник\w*|head of)|\bя (?:руковожу|возглавляю|управляю)\b|\bя (?:принимаю|отвечаю за)"
        r" (?:решени\w*|закупк\w*|бюджет)",
        r"\b(?:je suis|en tant que)\s+(?:le\s+|la\s+|l'|un\s+|une\s+)?(?:[\w'-]+\s+){0,2}?"
        r"(?:directeur|directrice|fondat\w+|co-?fondat\w+|pdg|dg|dsi|daf|drh|ceo|cto|gerant\w*|proprietaire"
        r"|responsable|president\w*|associe\w*)\b|\bje (?:dirige|gere|pilote)\b",
        r"\b(?:ich bin|als)\s+(?:der\s+|die\s+|ein\s+|eine\s+)?(?:[\w-]+\s+){0,2}?"
        r"(?:geschaftsfuhr\w*|grunder\w*|mitgrunder\w*|inhaber\w*|\w*leiter\w*|ceo|cto|coo|cfo"
        r"|vorstand\w*|head of|direktor\w*|prokurist\w*)|\bich (?:leite|fuhre|verantworte)\b",
        r"\b(?:soy|sou|como)\s+(?:el\s+|la\s+|o\s+|a\s+|un\s+|una\s+|um\s+|uma\s+)?(?:[\w-]+\s+)"
        r"{0,2}?(?:diretora?|directora?|fundador\w*|cofundador\w*|ceo|cto|dono|dona|duen[oa]"
        r"|propietari\w*|proprietari\w*|jef[ea]|chefe|responsable|responsavel|gerente|socio|socia"
        r"|president[ea])\b|\b(?:eu\s+)?(?:dirijo|lidero|gerencio)\b",
        r"\bsono\s+(?:il\s+|la\s+|l'|un\s+|una\s+|uno\s+)?(?:[\w'-]+\s+){0,2}?(?:direttore"
        r"|direttrice|fondat\w+|co-?fondat\w+|ceo|cto|titolare|proprietari\w*|responsabile"
        r"|amministratore\w*|presidente)\b|\b(?:dirigo|gestisco|guido) (?:il|l'|la)",
        r"\b(?:ik ben|als)\s+(?:de\s+|het\s+|een\s+)?(?:[\w-]+\s+){0,2}?(?:directeur|oprichter"
        r"|mede-?oprichter|eigenaar|ceo|cto|hoofd \w+|teamleider|bestuurder|zaakvoerder)\b"
        r"|\bik (?:leid|run|beheer) (?:het|ons|de)\s+(?:team|bedrijf|afdeling)\b",
    ),
    "company_fit": compile_lexicon(
        HEADCOUNT,
        rf"\bwe(?:'re| are)\s+(?:a|an)\s+(?:[\w-]+\s+){{0,3}}?{_ORG}\b",
        r"\bwe (?:are|operate|work) in (?:the )?[\w-]+(?: [\w-]+)? (?:industry|sector|market)",
        r"\bмы\s+(?:[—-]\s+)?(?:[\w-]+\s+){0,3}?(?:компани\w|стартап|агентство|банк|ритейлер"
        r"|производител\w|дистрибьютор|холдинг|сеть|фирма|интернет-магазин|маркетплейс)"
        r"|\bработаем в (?:сфере|отрасли|области)\b",
        r"\b(?:nous sommes|on est)\s+une?\s+(?:[\w'-]+\s+){0,3}?(?:entreprise|societe|start-?up"
        r"|agence|pme|eti|boite|banque|distributeur|fabricant|groupe|cabinet|editeur|enseigne)\b",
        r"\bwir\s+sind\s+(?:ein|eine|einer)\s+(?:[\w-]+\s+){0,3}?(?:unternehmen|firma|startup"
        r"|agentur|mittelstandler|konzern|handler|hersteller|bank|versicherung|dienstleister"
        r"|betrieb|gruppe|grosshandler|logistiker|shop)\b"
        r"|\bwir sind in der \w+(?:branche|industrie)",
        r"\bsomos\s+una?\s+(?:[\w-]+\s+){0,3}?(?:empresa|compania|companhia|startup|agencia|pyme"
        r"|pme|banco|distribuidora|fabricante|grupo|tienda|loja|cadena|rede|consultora|consultoria)"
        r"\b|\b(?:trabajamos|trabalhamos|atuamos) (?:en el|no) set?or\b",
        r"\bsiamo\s+(?:una?|un')\s*(?:[\w'-]+\s+){0,3}?(?:azienda|societa|startup|agenzia|pmi"
        r"|banca|distributore|produttore|gruppo|catena)\b|\boperiamo nel settore\b",
        r"\bwij?\s+zijn\s+een\s+(?:[\w-]+\s+){0,3}?(?:bedrijf|organisatie|startup|bureau"
        r"|onderneming|mkb|bank|verzekeraar|groothandel|fabrikant|keten|webshop)\b",
    ),
    "timing_fit": compile_lexicon(
        r"\b(?:this|next|the coming) (?:quarter|month|week|sprint)\b|\b(?:by|before|until|bis|vor"
        r"|voor|para|antes de|entro|ate|avant|d'ici|до) (?:the )?(?:end of |early "
        rf"|mid-?|late |ende |fin de |finales de |fine )?(?:{_MONTHS}|q[1-4]|h[12])\b",
        r"\bby the end of (?:the |this )?(?:month|quarter|year)\b|\basap\b|\bas soon as possible\b",
        r"\bright away\b|\bimmediately\b|\bdeadline\b",
        r"\bwithin (?:\d+|a|one|two|three|four|six|a couple of) (?:days|weeks?|months?)\b"
        r"|\bin (?:\d+|two|three|four|six) (?:weeks|months)\b",
        r"\bв (?:этом|следующем|ближайшем) (?:квартале|месяце)\b|\bна (?:этой|следующей) неделе\b"
        r"|\b(?:до конца|к концу) (?:квартала|месяца|года)\b|\bкак можно (?:скорее|быстрее)\b"
        r"|\bк (?:январю|февралю|марту|апрелю|маю|июню|июлю|августу|сентябрю|октябрю|ноябрю"
        r"|декабрю)\b|\bentro (?:la )?fine (?:del )?(?:mese|trimestre|anno)\b"
        r"|\bв течение (?:\d+ |одного |двух |трех |пары )?(?:дн\w+|недел\w+|месяц\w*)\b"
        r"|\bв (?:январе|феврале|марте|апреле|мае|июне|июле|августе|сентябре|октябре|ноябре"
        r"|декабре)\b",
        r"\bce (?:trimestre|mois)(?:-ci)?\b|\ble (?:trimestre|mois) prochain\b|\bla semaine "
        r"prochaine\b|\bd'ici (?:la fin|\d+ (?:jours|semaines|mois))|\bdes que possible\b"
        r"|\bau plus vite",
        r"\b(?:dieses|diesem|nachstes|nachsten|kommendes|kommenden) (?:quartal|monat)\b|\bnachste "
        r"woche\b|\bbis ende (?:des )?(?:quartals|monats|jahres)\b|\bso schnell wie moglich\b"
        r"|\bschnellstmoglich\b|\binnerhalb von (?:\d+|zwei|drei|wenigen) (?:tagen|wochen|monaten)",
        r"\b(?:este|el proximo|el siguiente) (?:trimestre|mes)\b|\bel mes que viene\b|\bla proxima "
        r"semana\b|\blo antes posible\b|\bcuanto antes\b",
        r"\b(?:questo|il prossimo) (?:trimestre|mese)\b|\bil mese prossimo\b|\bla prossima "
        r"settimana\b|\bil prima possibile\b|\bal piu presto\b",
        r"\b(?:neste|no proximo) (?:trimestre|mes)\b|\bmes que vem\b|\b(?:proxima semana|semana que"
        r" vem)\b|\bo (?:mais rapido|quanto antes) possivel\b|\bo quanto antes\b",
        r"\b(?:dit|volgend|komend) kwartaal\b|\b(?:deze|volgende|komende) maand\b"
        r"|\bvolgende week\b|\bzo snel mogelijk\b",
    ),
}
PARTIAL: Mapping[str, re.Pattern[str]] = {
    "problem_fit": _clause(
        r"\b(?:interested in|curious (?:about|whether|if)|could (?:this|it|you|your \w+) help "
        r"(?:us|me)|would (?:this|it) work for (?:us|our)|how (?:could|can|would) (?:we|our team) "
        r"use|(?:we're|we are|i'm|i am) (?:considering|thinking about|looking into))",
        r"\bинтерес(?:ует|уюсь|но)\b|\bможет ли (?:это|ваш \w+) помочь|\bрассматриваем\b",
        r"\binteresse(?:e|s)? par\b|\bpourrait nous aider\b|\b(?:nous envisageons|on envisage)\b",
        r"\binteressier\w* (?:uns |mich )?(?:fur|an)\b|\bkonnte uns helfen\b|\bwir uberlegen\b",
        r"\b(?:me|nos) interesa\b|\b(?:mi|ci) interessa\b|\binteresad[oa]s? en\b",
        r"\bpodria ayudarnos\b",
        r"\bestamos (?:considerando|evaluando|avaliando)\b|\binteressat[io] a\b",
        r"\bstiamo valutando\b",
        r"\bpotrebbe aiutarci\b|\b(?:tenho|temos) interesse\b|\binteressad[oa]s? em\b",
        r"\bpoderia nos ajudar\b|\bgeinteresseerd in\b|\bzou ons kunnen helpen\b|\bwe overwegen\b",
    ),
    "authority_fit": compile_lexicon(
        r"\b(?:for|on behalf of) my (?:manager|boss|team lead|director|supervisor|ceo|cto)\b"
        r"|\bmy (?:manager|boss|director|supervisor|ceo|cto) (?:asked|wants|told|needs)\b"
        r"|\b(?:i'?m|i am|ik ben|ich bin)\s+(?:the\s+|a\s+|an\s+|de\s+|een\s+|der\s+|ein\s+)?"
        r"(?:[\w-]+\s+){0,2}?[\w-]*(?:manager|team lead)\b|\bя менеджер\b",
        r"\bдля (?:моего |своего )?(?:руководител\w*|начальник\w*|босс\w*|директор\w*)"
        r"|\b(?:мой|моя) (?:руководител\w*|начальни\w*|босс|директор\w*) (?:попросил\w*|хочет)",
        r"\bpour (?:mon|ma) (?:manager|responsable|patron\w*|chef|directeur|directrice)\b"
        r"|\b(?:mon|ma) (?:manager|responsable|patron\w*|chef) (?:m'a demande|veut)\b",
        r"\bfur (?:meinen|meine) (?:chef\w*|vorgesetzte\w*|manager\w*|geschaftsfuhrer\w*)\b"
        r"|\bmein(?:e)? (?:chef\w*|vorgesetzte\w*|manager\w*) (?:hat mich|mochte|will)\b",
        r"\bpara (?:mi|o meu|a minha|meu|minha) (?:jef[ea]|chefe|gestor\w*|gerente|diretora?"
        r"|directora?|superior)\b|\b(?:mi|meu|minha) (?:jef[ea]|chefe|gestor\w*|gerente) (?:me "
        r"pidio|quiere|pediu|quer)\b",
        r"\bper (?:il mio|la mia) (?:capo|responsabile|manager|direttore|direttrice|superiore)\b"
        r"|\b(?:il mio|la mia) (?:capo|responsabile|manager) (?:mi ha chiesto|vuole)\b",
        r"\bvoor (?:mijn|onze) (?:manager|baas|leidinggevende|directeur|teamleider)\b"
        r"|\bmijn (?:manager|baas|leidinggevende) (?:vroeg|wil|heeft gevraagd)\b",
    ),
    "company_fit": compile_lexicon(
        r"\b(?:our|my) (?:company|business|organi[sz]ation|firm|startup|employer)\b"
        r"|\b(?:наш\w*|мо\w*) (?:компани\w*|фирм\w*|организаци\w*)|\bу нас в компании\b",
        r"\b(?:notre|ma|mon) (?:entreprise|societe|organisation|boite|startup)\b",
        r"\b(?:unser|unsere|unserem|unserer|mein|meine|meinem|meiner) (?:unternehmen|firma"
        r"|organisation|betrieb)\b|\b(?:nuestra|mi|nossa|minha) (?:empresa|compania|organizacion"
        r"|organizacao)\b|\b(?:la nostra|nostra|la mia) (?:azienda|societa|organizzazione)\b",
        r"\b(?:ons|onze|mijn) (?:bedrijf|organisatie|onderneming)\b",
    ),
    "timing_fit": compile_lexicon(
        r"\blater (?:this|in the) year\b|\b(?:this|next) year\b|\bin (?:a few|a couple of|the "
        r"next few) months\b|\bexploring\b|\bjust (?:looking|browsing|researching)\b|\bno rush\b"
        r"|\beventually\b|\bat some point\b|\bin the (?:future|long run|coming months)\b"
        r"|\bnot in a hurry\b|\bearly stages?\b|\burgent\w*|\bdringend\b|\bсрочно\b",
        r"\bв (?:этом|следующем) году\b|\bчерез (?:несколько|пару) месяцев\b|\bизучаем\b"
        r"|\bприсматриваемся\b|\bне срочно\b|\bв будущем\b",
        r"\bplus tard\b|\bcette annee\b|\bl'annee prochaine\b|\bdans quelques mois\b"
        r"|\b(?:nous explorons|on explore)\b|\bpas (?:presse|urgent)\b|\ba l'avenir\b",
        r"\bspater\b|\b(?:dieses|nachstes|im nachsten) jahr\b|\bin (?:ein paar|einigen) monaten\b"
        r"|\bwir schauen uns\b[^.!?\n]{0,15}\bum\b|\bsondieren\b|\bnicht dringend\b|\birgendwann\b",
        r"\bmas adelante\b|\beste ano\b|\bel (?:proximo ano|ano que viene)\b|\ben unos meses\b"
        r"|\bexplorando\b|\bsin prisa\b|\bpiu avanti\b|\bquest'anno\b|\bl'anno prossimo\b",
        r"\btra qualche mese\b|\bstiamo esplorando\b|\bsenza fretta\b|\bmais para a frente\b"
        r"|\b(?:o )?proximo ano\b|\bano que vem\b|\bdaqui a (?:alguns|uns) meses\b|\bsem pressa\b",
        r"\blater dit jaar\b|\b(?:dit|volgend) jaar\b|\bover een paar maanden\b|\bverkennen\b"
        r"|\bwe orienteren ons\b|\bgeen haast\b",
    ),
}
FLAG_PATTERNS: Mapping[str, re.Pattern[str]] = {
    "is_negative_persona": compile_lexicon(
        r"\b(?:i'?m|i am) (?:a |an )?(?:\w+ )?(?:student|researcher|journalist|reporter)\b"
        r"|\b(?:thesis|dissertation|homework|coursework)\b|\b(?:school|university|college|class"
        r"|student|course) (?:project|assignment|paper)\b",
        r"\blooking for (?:a |an )?(?:job|internship|position)\b|\b(?:are you|is your company) "
        r"hiring\b|\bapply(?:ing)? for (?:a |the |an )?(?:\w+ )?(?:job|position|role|internship)\b"
        r"|\bmy (?:cv|resume)\b",
        r"\b(?:i|we) work (?:for|at) (?:a |one of your )?competitors?\b|\b(?:we're|we are) (?:a "
        r"|your )?competitors?\b|\bcompetitive (?:analysis|research|intelligence)\b",
        r"\b(?:we|i) (?:can|could) help (?:you|your (?:company|team|business)) (?:grow|get|with)\b"
        r"|\bwould you be interested in (?:our|my)\b|\b(?:i'd|i would|we'd|we would) like to "
        r"(?:offer|pitch|propose|present) (?:you|our|my)\b|\bpartnership proposal\b",
        r"\bя (?:\w+ )?(?:студент\w*|исследовател\w*|журналист\w*)|\b(?:курсов\w+|дипломн\w+"
        r"|учебн\w+) (?:работ\w*|проект\w*)|\bищу работу\b|\bваканси\w+|\b(?:мо[её]|отправить) "
        r"резюме\b|\bстажировк\w*|\bработаю (?:в|на|у) конкурент\w*|\bмы (?:ваши )?конкуренты\b"
        r"|\b(?:предлагаем|хотим предложить) (?:вам|вашей)\b",
        r"\bje suis (?:\w+ )?(?:etudiant\w*|chercheu\w+|journaliste)\b|\bprojet (?:d'etudes?"
        r"|scolaire|universitaire)\b|\b(?:mon|un) memoire (?:de|sur)\b|\bje cherche (?:un |une )?"
        r"(?:emploi|travail|stage|alternance)\b|\bmon cv\b|\bje travaille (?:chez|pour) un "
        r"concurrent\b|\bnous proposons (?:nos|des) services\b|\bje souhaite vous proposer\b",
        r"\bich bin (?:\w+ )?(?:student\w*|forscher\w*|journalist\w*)\b|\b(?:bachelor|master|"
        r"abschluss|haus|semester)arbeit\b|\bich suche (?:einen job|eine stelle|arbeit|ein "
        r"praktikum)\b|\bbewerbung\b|\blebenslauf\b|\bich arbeite (?:bei|fur) (?:einem )?"
        r"(?:wettbewerber|konkurrenten)\b|\bwir (?:bieten ihnen|mochten ihnen \w+ anbieten)\b",
        r"\b(?:soy|sou) (?:\w+ )?(?:estudiante|estudante|investigador\w*|pesquisador\w*"
        r"|periodista|jornalista)\b|\bproyecto (?:universitario|escolar)\b|\b(?:mi|la|minha) tes"
        r"[ie]s?\b|\btfg\b|\btcc\b|\b(?:busco|procuro) (?:trabajo|empleo|emprego|trabalho|estagio"
        r"|practicas)\b|\b(?:mi|meu) (?:curriculum|curriculo|cv)\b|\ble(?:s)? ofrecemos\b"
        r"|\boferecemos (?:os )?nossos servicos\b|\btrabaj?o (?:en|para|em) (?:un |uma? )?"
        r"(?:competidor\w*|concorrente)\b",
        r"\bsono (?:\w+ )?(?:studente|studentessa|ricercat\w+|giornalista)\b|\bla mia tesi\b"
        r"|\bprogetto (?:universitario|scolastico)\b|\bcerco (?:un )?(?:lavoro|tirocinio|stage)\b"
        r"|\bil mio (?:curriculum|cv)\b|\blavoro (?:per|presso) (?:un )?concorrente\b"
        r"|\b(?:vi offriamo|vorremmo proporvi)\b",
        r"\bik ben (?:\w+ )?(?:student|onderzoeker|journalist)\b|\bscriptie\b|\bafstudeer\w*"
        r"|\bschoolproject\b|\bop zoek naar (?:een )?(?:baan|werk|stage)\b|\bsollicit\w*"
        r"|\bmijn cv\b|\bik werk (?:bij|voor) een concurrent\b|\bwij bieden (?:u|jullie)\b",
    ),
    "is_no_fit": compile_lexicon(
        r"\bfor (?:my )?(?:own )?personal (?:use|project|needs)\b|\bjust for (?:me|myself)\b"
        r"|\bfor my(?:self| own use)\b|\b(?:hobby|side) project\b",
        r"\bwe (?:have|are) (?:only |just )?(?:1|one|a single) (?:employee|person)\b"
        r"|\bone[- ](?:person|man) (?:company|business|shop)\b|\b(?:it'?s|it is) just me\b",
        r"\bi work alone\b|\bsolopreneur\b|\bnot a (?:company|business)\b",
        r"\bдля (?:личного|собственного|домашнего) (?:использования|пользования)\b|\bдля личных "
        r"(?:целей|нужд)\b|\bдля себя\b|\b(?:всего|только) (?:1|один|одна) (?:сотрудник|человек)\b"
        r"|\bя работаю один\b|\bхобби\b|\bпет-?проект\w*",
        r"\bpour (?:mon|un) usage (?:personnel|prive)\b|\bpour moi-meme\b|\bprojet personnel\b"
        r"|\b(?:un seul|1) (?:employe|salarie)\b|\bje travaille seul\w*",
        r"\bfur den (?:privaten|personlichen|eigenen) (?:gebrauch|bedarf)\b|\bprivat nutzen\b"
        r"|\bfur mich (?:privat|selbst)\b|\b(?:nur|bloss) (?:einen|ein|1) mitarbeiter\b|\bein-?mann"
        r"\w*|\bich arbeite allein\b|\b(?:privat|hobby)projekt\b",
        r"\bpara (?:mi )?uso (?:personal|privado|pessoal)\b|\bpara (?:mi|mim) mesmo\b|\bproyecto "
        r"personal\b|\bprojeto pessoal\b|\b(?:un solo|um unico|1) (?:empleado|funcionario)\b"
        r"|\btrabajo sol[oa]\b|\btrabalho sozinh[oa]\b",
        r"\bper uso (?:personale|privato)\b|\bper me stesso\b|\bprogetto personale\b|\b(?:un solo"
        r"|1) dipendente\b|\blavoro da sol[oa]\b",
        r"\bvoor (?:persoonlijk|prive|eigen) gebruik\b|\bprivegebruik\b|\bvoor mezelf\b"
        r"|\bhobbyproject\b|\bwe hebben (?:maar |slechts )?(?:1|een) medewerker\b|\beenmanszaak\b"
        r"|\bik werk alleen\b",
    ),
    "is_consultant": compile_lexicon(
        r"\bi(?:'m| am) (?:a |an )?(?:\w+ )?(?:consultant|advisor|adviser)\b|\bon behalf of (?:a "
        r"|my |our |one of (?:my|our) )?clients?\b|\b(?:for|advising|helping) (?:a |one of (?:my"
        r"|our) )client(?:s)?\b(?! (?:portal|app|side))",
        r"\ba client of (?:mine|ours)\b|\bmy client\b",
        r"\bя (?:\w+ )?консультант\w*|\bот имени (?:моего |нашего )?клиента\b|\bдля (?:моего"
        r"|нашего|одного) клиента\b|\bмой клиент\b",
        r"\bje suis (?:\w+ )?(?:consultant\w*|conseill(?:er|ere))\b|\bpour (?:le compte d'un|un"
        r"|l'un de mes|l'un de nos) client\b|\bmon client\b",
        r"\bich bin (?:\w+ )?(?:berater\w*|consultant)\b|\b(?:fur|im auftrag) (?:einen|eines"
        r"|meinen|meines|unseren|unseres) (?:kunden|mandanten)\b|\bmein(?:em)? (?:kunde|mandant)",
        r"\b(?:soy|sou) (?:\w+ )?(?:consultor\w*|asesor\w*)\b|\ben nombre de (?:un|mi|nuestro) "
        r"cliente\b|\bem nome de (?:um|meu|nosso) cliente\b|\bpara (?:un|mi|um|meu) cliente\b"
        r"|\b(?:mi|meu) cliente\b",
        r"\bsono (?:un |una )?(?:\w+ )?consulente\b|\bper (?:conto di )?(?:un|un mio|un nostro) "
        r"cliente\b|\bil mio cliente\b",
        r"\bik ben (?:\w+ )?(?:consultant|adviseur)\b|\bnamens (?:een|mijn|onze) klant\b|\bvoor "
        r"(?:een|mijn) klant\b|\bmijn klant\b",
    ),
    "referral_mentioned": compile_lexicon(
        r"\b(?:recommended|referred|suggested) (?:you|your|that i (?:reach|contact|talk))\b"
        r"|\b(?:recommended|referred) (?:to (?:me|us) )?by\b|\breferr(?:al|ed) from\b"
        r"|\bheard (?:about|of) you (?:from|through|via)\b|\btold (?:me|us) about you\b"
        r"|\bgot your (?:name|contact) from\b",
        r"\b(?:порекомендовал|посоветовал|рекомендовал)\w*|\bпо рекомендации\b|\bузнал\w* о вас "
        r"(?:от|через)\b|\bрассказал\w* (?:мне |нам )?о вас\b",
        r"\brecommande(?:e|s)? par\b|\b(?:on )?m'a (?:recommande|conseille|parle de vous)\b"
        r"|\bsur (?:la )?recommandation d",
        r"\b(?:hat|haben) (?:mir|uns) (?:euch|sie|ihr \w+|ihre \w+) empfohlen\b|\bempfohlen "
        r"(?:von|durch)\b|\bauf empfehlung\b|\b(?:wurde|wurden) (?:mir|uns) empfohlen\b",
        r"\b(?:me|nos) (?:recomendo|recomendaron|recomendou|recomendaram|indicou|indicaram)\b"
        r"|\b(?:recomendad|indicad)[oa]s? por\b|\bpor (?:recomendacion|indicacao)\b",
        r"\b(?:mi|ci) (?:ha|hanno) (?:consigliato|raccomandato|parlato di voi)\b|\b(?:consigliat"
        r"|raccomandat)[oaie] da\b|\bsu (?:consiglio|raccomandazione) di\b",
        r"\b(?:aangeraden|aanbevolen|doorverwezen) (?:door|via)\b|\bheeft (?:me|mij|ons) (?:jullie"
        r"|u) aangeraden\b|\bop aanraden van\b",
    ),
}

# Explicit human request: a first-person prefix then the request phrase (strong), a
# stand-alone request (strong), or the bare phrase (weak, cancelled in a sentence that
# asks about the product: "Does your bot let customers talk to a human?").
