"""Conversation acts written for measuring only: no row here is in the training data
(`engines/local/data/phrases`). Per language, a few of each act and messages that are no
act (a question or statement, often opened with a greeting or thanks)."""

from __future__ import annotations

ACTS_HELD_OUT: dict[str, dict[str, list[str]]] = {
    "en": {
        "greeting": ["Hello!", "Hey, good morning", "hi hi", "Good evening to you"],
        "how_are_you": ["How are you today? 😊", "how are you doing?", "Hey, how have you been?"],
        "thanks": ["ok thanks", "Thanks a lot, that helps!", "Thank you very much!", "many thanks"],
        "goodbye": ["Bye!", "See you later", "Goodbye and have a nice evening", "ok bye"],
        "yes": ["Yes please", "yep", "Yes, exactly", "sure thing"],
        "no": ["No", "no thank you", "nah", "No, nothing else"],
    },
    "de": {
        "greeting": ["Hallo!", "Guten Tag zusammen", "Moin moin", "Hallo ihr Lieben"],
        "how_are_you": [
            "Wie geht's dir heute? 😊",
            "Wie geht es Ihnen?",
            "Hi, alles gut bei euch?",
        ],
        "thanks": ["ok danke", "Danke dir!", "Vielen lieben Dank!", "Dankeschön"],
        "goodbye": ["Tschüss", "Auf Wiedersehen!", "Bis dann, schönen Abend", "ciao, bis später"],
        "yes": ["Ja", "Ja, gerne", "Jawohl", "genau"],
        "no": ["Nein", "Nein danke", "Nee", "nein, das wäre alles"],
    },
    "fr": {
        "greeting": ["Bonjour !", "Salut à tous", "Bonsoir madame", "coucou !"],
        "how_are_you": ["Comment ça va ?", "Comment allez-vous aujourd'hui ?", "Salut, ça roule ?"],
        "thanks": ["Merci !", "Merci infiniment", "ok merci", "Je vous remercie"],
        "goodbye": ["Au revoir !", "À bientôt", "Bonne fin de journée", "salut, à plus tard"],
        "yes": ["Oui", "Oui, volontiers", "Tout à fait", "oui oui"],
        "no": ["Non", "Non merci", "Non, pas du tout", "non, ce sera tout"],
    },
    "es": {
        "greeting": ["¡Hola!", "Buenos días a todos", "Hola, buenas tardes", "holaa"],
        "how_are_you": ["¿Cómo estás?", "¿Qué tal estás hoy?", "Hola, ¿cómo le va?"],
        "thanks": ["¡Gracias!", "Muchísimas gracias", "ok gracias", "Se lo agradezco mucho"],
        "goodbye": ["¡Adiós!", "Hasta mañana", "Nos vemos", "chao, hasta luego"],
        "yes": ["Sí", "Sí, por favor", "Claro que sí", "sí, exacto"],
        "no": ["No", "No, gracias", "Para nada", "no, nada más"],
    },
    "it": {
        "greeting": ["Ciao!", "Buongiorno a tutti", "Salve, buonasera", "ciao ciao!"],
        "how_are_you": ["Come stai?", "Come sta oggi?", "Ciao, come va la giornata?"],
        "thanks": ["Grazie!", "Grazie infinite", "ok grazie", "La ringrazio molto"],
        "goodbye": ["Arrivederci!", "A domani", "Ci vediamo", "buona serata, ciao"],
        "yes": ["Sì", "Sì, grazie", "Certamente", "sì, esatto"],
        "no": ["No", "No, grazie", "Assolutamente no", "no, nient'altro"],
    },
    "pt": {
        "greeting": ["Olá!", "Bom dia a todos", "Oi, boa tarde", "olá olá"],
        "how_are_you": ["Como está?", "Tudo bem com você?", "Oi, como vai?"],
        "thanks": ["Obrigado!", "Muito obrigada", "ok obrigado", "Agradeço muito"],
        "goodbye": ["Tchau!", "Até amanhã", "Até a próxima", "adeus, até logo"],
        "yes": ["Sim", "Sim, por favor", "Claro", "sim, exatamente"],
        "no": ["Não", "Não, obrigado", "De jeito nenhum", "não, só isso"],
    },
    "nl": {
        "greeting": ["Hallo!", "Goedemorgen allemaal", "Hoi, goedendag", "hallo daar"],
        "how_are_you": ["Hoe gaat het met je?", "Hoe gaat het vandaag?", "Hoi, alles goed met u?"],
        "thanks": ["Bedankt!", "Heel erg bedankt", "ok dank je", "Dank u wel"],
        "goodbye": ["Tot ziens!", "Doei, tot morgen", "Fijne avond nog", "dag, tot later"],
        "yes": ["Ja", "Ja, graag", "Zeker", "ja, precies"],
        "no": ["Nee", "Nee, dank u", "Helemaal niet", "nee, verder niets"],
    },
    "ru": {
        "greeting": ["Привет!", "Добрый день всем", "Здравствуйте!", "приветик"],
        "how_are_you": ["Как дела?", "Как у вас дела сегодня?", "Привет, как ты?"],
        "thanks": ["Спасибо!", "Большое спасибо", "ок спасибо", "Благодарю вас"],
        "goodbye": ["Пока!", "До завтра", "Всего хорошего", "до свидания, хорошего вечера"],
        "yes": ["Да", "Да, пожалуйста", "Конечно", "да, именно"],
        "no": ["Нет", "Нет, спасибо", "Совсем нет", "нет, больше ничего"],
    },
}

# Messages that carry a question or a statement: never an act, always answered or routed.
NOT_ACTS: dict[str, list[str]] = {
    "en": [
        "Hi, when are you open on Saturday?",
        "Thanks! And how much is a new chain?",
        "Hello, do you repair cargo bikes?",
        "My order hasn't arrived yet",
    ],
    "de": [
        "Hallo, wann habt ihr offen?",
        "Danke! Und was kostet ein Schlauchwechsel?",
        "Guten Tag, repariert ihr auch E-Bikes?",
        "Meine Bestellung ist noch nicht da",
    ],
    "fr": [
        "Bonjour, quels sont vos horaires ?",
        "Merci ! Et combien coûte une révision ?",
        "Salut, vous livrez à Lyon ?",
        "Ma commande n'est pas arrivée",
    ],
    "es": [
        "Hola, ¿a qué hora abren?",
        "¡Gracias! ¿Y cuánto cuesta el envío?",
        "Buenas, ¿hacen reparaciones de bicis eléctricas?",
        "Mi pedido no ha llegado",
    ],
    "it": [
        "Ciao, a che ora aprite?",
        "Grazie! E quanto costa la revisione?",
        "Buongiorno, riparate anche le bici elettriche?",
        "Il mio ordine non è arrivato",
    ],
    "pt": [
        "Olá, a que horas abrem?",
        "Obrigado! E quanto custa a revisão?",
        "Bom dia, vocês consertam bicicletas elétricas?",
        "Meu pedido ainda não chegou",
    ],
    "nl": [
        "Hallo, hoe laat zijn jullie open?",
        "Bedankt! En wat kost een onderhoudsbeurt?",
        "Goedemorgen, repareren jullie ook e-bikes?",
        "Mijn bestelling is niet aangekomen",
    ],
    "ru": [
        "Здравствуйте, во сколько вы открываетесь?",
        "Спасибо! А сколько стоит ремонт?",
        "Привет, вы чините электровелосипеды?",
        "Мой заказ до сих пор не пришёл",
    ],
}
