"""Localized framing for the local answering jobs, in the eight languages Frontdesk speaks.

Framing is the only text the extractive writer adds to quoted passages: a lead-in,
the deflections for pricing and internal questions, and the "not found" reply. The
verifier and evaluator recognise these strings and never count them as claims.
"""

from __future__ import annotations

import re

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

WEAK_LEAD_IN: dict[str, str] = {
    "en": "I'm not sure this fully answers your question, but our documentation says:",
    "ru": "Не уверен, что это полностью отвечает на ваш вопрос, но в документации сказано:",
    "fr": "Je ne suis pas sûr que cela réponde entièrement à votre question, "
    "mais notre documentation indique :",
    "de": "Ich bin nicht sicher, ob das Ihre Frage ganz beantwortet, "
    "aber in unserer Dokumentation steht:",
    "es": "No estoy seguro de que esto responda del todo a su pregunta, "
    "pero nuestra documentación dice:",
    "it": "Non sono sicuro che questo risponda del tutto alla sua domanda, "
    "ma la nostra documentazione dice:",
    "pt": "Não tenho certeza de que isto responde totalmente à sua pergunta, "
    "mas a nossa documentação diz:",
    "nl": "Ik weet niet zeker of dit uw vraag volledig beantwoordt, maar onze documentatie zegt:",
}

NOT_FOUND: dict[str, str] = {
    "en": "I couldn't find this in our documentation. I can connect you with our team.",
    "ru": "Я не нашёл этого в нашей документации. Могу связать вас с нашей командой.",
    "fr": "Je n'ai pas trouvé cela dans notre documentation. "
    "Je peux vous mettre en relation avec notre équipe.",
    "de": "Das habe ich in unserer Dokumentation nicht gefunden. "
    "Ich kann Sie mit unserem Team verbinden.",
    "es": "No encontré esto en nuestra documentación. "
    "Puedo ponerle en contacto con nuestro equipo.",
    "it": "Non ho trovato questa informazione nella nostra documentazione. "
    "Posso metterla in contatto con il nostro team.",
    "pt": "Não encontrei isto na nossa documentação. "
    "Posso colocá-lo em contato com a nossa equipe.",
    "nl": "Ik heb dit niet in onze documentatie gevonden. "
    "Ik kan u met ons team in contact brengen.",
}

PRICING: dict[str, str] = {
    "en": "Pricing is quoted by our sales team for your plan and usage, so I can't give you "
    "figures here — I can connect you with them.",
    "ru": "Стоимость рассчитывает наш отдел продаж под ваш тариф и объём использования, "
    "поэтому я не могу назвать цифры — могу связать вас с ними.",
    "fr": "Les tarifs sont établis par notre équipe commerciale selon votre offre et votre usage, "
    "je ne peux donc pas donner de chiffres ici — je peux vous mettre en relation avec elle.",
    "de": "Preise erstellt unser Vertriebsteam passend zu Ihrem Plan und Ihrer Nutzung, daher "
    "kann ich hier keine Zahlen nennen — ich kann Sie gern mit dem Team verbinden.",
    "es": "Los precios los prepara nuestro equipo comercial según su plan y uso, así que no puedo "
    "darle cifras aquí — puedo ponerle en contacto con ellos.",
    "it": "I prezzi vengono preparati dal nostro team commerciale in base al piano e all'utilizzo, "
    "quindi non posso indicare cifre qui — posso metterla in contatto con loro.",
    "pt": "Os preços são preparados pela nossa equipe comercial de acordo com o seu plano e uso, "
    "por isso não posso indicar valores aqui — posso colocá-lo em contato com eles.",
    "nl": "Prijzen worden door ons salesteam opgesteld op basis van uw abonnement en gebruik, dus "
    "ik kan hier geen bedragen noemen — ik kan u met hen in contact brengen.",
}

INTERNAL: dict[str, str] = {
    "en": "I can't share internal or confidential information, but I can connect you with "
    "our team.",
    "ru": "Я не могу делиться внутренней или конфиденциальной информацией, но могу связать вас "
    "с нашей командой.",
    "fr": "Je ne peux pas partager d'informations internes ou confidentielles, mais je peux vous "
    "mettre en relation avec notre équipe.",
    "de": "Interne oder vertrauliche Informationen kann ich nicht teilen, aber ich kann Sie mit "
    "unserem Team verbinden.",
    "es": "No puedo compartir información interna o confidencial, pero puedo ponerle en contacto "
    "con nuestro equipo.",
    "it": "Non posso condividere informazioni interne o riservate, ma posso metterla in contatto "
    "con il nostro team.",
    "pt": "Não posso partilhar informações internas ou confidenciais, mas posso colocá-lo em "
    "contato com a nossa equipe.",
    "nl": "Ik kan geen interne of vertrouwelijke informatie delen, maar ik kan u met ons team in "
    "contact brengen.",
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
SUGGEST_ABOUT: dict[str, str] = {
    "en": "Can you tell me more about {x}?",
    "ru": "Расскажите подробнее про «{x}»?",
    "fr": "Pouvez-vous m'en dire plus sur « {x} » ?",
    "de": "Können Sie mir mehr über „{x}“ sagen?",
    "es": "¿Puede contarme más sobre «{x}»?",
    "it": "Può dirmi di più su «{x}»?",
    "pt": "Pode me contar mais sobre «{x}»?",
    "nl": "Kunt u mij meer vertellen over ‘{x}’?",
}
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


def phrase(table: dict[str, str], language: str) -> str:
    return table.get(language, table["en"])


def normalise(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def strip_framing(sentence: str) -> str:
    """`sentence` without a leading lead-in (the writer puts one before the first quote)."""
    for table in (LEAD_IN, WEAK_LEAD_IN):
        for text in table.values():
            if sentence.startswith(text):
                return sentence[len(text) :].strip()
    return sentence


def asks_pricing(text: str) -> bool:
    return PRICING_PATTERN.search(text) is not None


def asks_internal(text: str) -> bool:
    return INTERNAL_PATTERN.search(text) is not None
