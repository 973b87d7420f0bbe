"""What the assistant says when it is not quoting the knowledge base, in eight languages.

Placeholders: {site} the company name, {topics} a short list of topics, {when} the
follow-up commitment, {email} the visitor's address.
"""

from __future__ import annotations

from typing import Final

TEXTS: Final[dict[str, dict[str, str]]] = {
    "redirect.hack": {
        "en": "I can't help with that. I'm here to answer questions about {site}.",
        "ru": "С этим я помочь не могу. Я отвечаю на вопросы о {site}.",
        "fr": "Je ne peux pas vous aider avec cela. Je réponds aux questions sur {site}.",
        "de": "Dabei kann ich nicht helfen. Ich beantworte Fragen zu {site}.",
        "es": "No puedo ayudar con eso. Estoy aquí para responder preguntas sobre {site}.",
        "it": "Non posso aiutarti con questo. Rispondo a domande su {site}.",
        "pt": "Não posso ajudar com isso. Estou aqui para responder a perguntas sobre {site}.",
        "nl": "Daar kan ik niet mee helpen. Ik beantwoord vragen over {site}.",
    },
    "redirect.offtopic": {
        "en": "That's outside what I can help with — I only answer questions about {site}. "
        "You could ask me about {topics}.",
        "ru": "Это вне моей компетенции — я отвечаю только на вопросы о {site}. "
        "Вы можете спросить меня о: {topics}.",
        "fr": "Cela dépasse ce que je peux faire — je réponds uniquement aux questions sur "
        "{site}. Vous pouvez me demander : {topics}.",
        "de": "Dabei kann ich leider nicht helfen — ich beantworte nur Fragen zu {site}. "
        "Frag mich zum Beispiel zu: {topics}.",
        "es": "Eso está fuera de lo que puedo hacer: solo respondo preguntas sobre {site}. "
        "Puedes preguntarme sobre: {topics}.",
        "it": "Questo va oltre ciò in cui posso aiutarti: rispondo solo a domande su {site}. "
        "Puoi chiedermi di: {topics}.",
        "pt": "Isso está fora do que posso ajudar — só respondo a perguntas sobre {site}. "
        "Pode perguntar-me sobre: {topics}.",
        "nl": "Daar kan ik niet bij helpen — ik beantwoord alleen vragen over {site}. "
        "Je kunt me vragen over: {topics}.",
    },
    "redirect.other": {
        "en": "Hi! I'm the assistant of {site}. Ask me about {topics}.",
        "ru": "Здравствуйте! Я ассистент {site}. Спросите меня о: {topics}.",
        "fr": "Bonjour ! Je suis l'assistant de {site}. Posez-moi vos questions sur : {topics}.",
        "de": "Hallo! Ich bin der Assistent von {site}. Frag mich zu: {topics}.",
        "es": "¡Hola! Soy el asistente de {site}. Pregúntame sobre: {topics}.",
        "it": "Ciao! Sono l'assistente di {site}. Chiedimi di: {topics}.",
        "pt": "Olá! Sou o assistente da {site}. Pergunte-me sobre: {topics}.",
        "nl": "Hallo! Ik ben de assistent van {site}. Vraag me over: {topics}.",
    },
    "redirect.nonsense": {
        "en": "Sorry, I didn't understand that. Could you rephrase? For example, ask about "
        "{topics}.",
        "ru": "Извините, я не понял. Не могли бы вы переформулировать? Например, спросите о: "
        "{topics}.",
        "fr": "Désolé, je n'ai pas compris. Pouvez-vous reformuler ? Par exemple : {topics}.",
        "de": "Entschuldigung, das habe ich nicht verstanden. Kannst du es anders formulieren? "
        "Zum Beispiel: {topics}.",
        "es": "Lo siento, no lo he entendido. ¿Puedes reformularlo? Por ejemplo: {topics}.",
        "it": "Scusa, non ho capito. Puoi riformulare? Per esempio: {topics}.",
        "pt": "Desculpe, não entendi. Pode reformular? Por exemplo: {topics}.",
        "nl": "Sorry, dat begreep ik niet. Kun je het anders formuleren? Bijvoorbeeld: {topics}.",
    },
    "redirect.stop_booking": {
        "en": "No problem — I won't book anything. Is there anything else you'd like to know "
        "about {site}?",
        "ru": "Хорошо — ничего не бронирую. Хотите узнать что-нибудь ещё о {site}?",
        "fr": "Pas de souci — je ne réserve rien. Voulez-vous savoir autre chose sur {site} ?",
        "de": "Kein Problem — ich buche nichts. Möchtest du noch etwas über {site} wissen?",
        "es": "Sin problema: no reservaré nada. ¿Quieres saber algo más sobre {site}?",
        "it": "Nessun problema, non prenoto nulla. Vuoi sapere altro su {site}?",
        "pt": "Sem problema — não vou agendar nada. Quer saber mais alguma coisa sobre {site}?",
        "nl": "Geen probleem — ik boek niets. Wil je nog iets weten over {site}?",
    },
    "redirect.support": {
        "en": "For help with your account, our support team is the fastest route. "
        "I can also connect you with a colleague.",
        "ru": "По вопросам вашего аккаунта быстрее всего поможет наша поддержка. "
        "Я также могу связать вас с коллегой.",
        "fr": "Pour votre compte, notre équipe support est la plus rapide. "
        "Je peux aussi vous mettre en relation avec un collègue.",
        "de": "Bei Fragen zu deinem Konto hilft unser Support am schnellsten. "
        "Ich kann dich auch mit einem Kollegen verbinden.",
        "es": "Para tu cuenta, nuestro equipo de soporte es la vía más rápida. "
        "También puedo ponerte en contacto con un compañero.",
        "it": "Per il tuo account, il nostro supporto è la via più rapida. "
        "Posso anche metterti in contatto con un collega.",
        "pt": "Para a sua conta, a nossa equipa de suporte é o caminho mais rápido. "
        "Também posso pô-lo em contacto com um colega.",
        "nl": "Voor je account is ons supportteam de snelste weg. "
        "Ik kan je ook met een collega verbinden.",
    },
    "clarify": {
        "en": "I couldn't find that in our documentation. Could you tell me a bit more about "
        "what you're looking for? I can also connect you with a colleague.",
        "ru": "Я не нашёл этого в нашей документации. Расскажите, пожалуйста, подробнее, что "
        "вы ищете? Я также могу связать вас с коллегой.",
        "fr": "Je n'ai pas trouvé cela dans notre documentation. Pouvez-vous préciser ce que "
        "vous cherchez ? Je peux aussi vous mettre en relation avec un collègue.",
        "de": "Das habe ich in unserer Dokumentation nicht gefunden. Kannst du genauer sagen, "
        "wonach du suchst? Ich kann dich auch mit einem Kollegen verbinden.",
        "es": "No lo encontré en nuestra documentación. ¿Puedes darme más detalles de lo que "
        "buscas? También puedo ponerte en contacto con un compañero.",
        "it": "Non l'ho trovato nella nostra documentazione. Puoi dirmi meglio cosa cerchi? "
        "Posso anche metterti in contatto con un collega.",
        "pt": "Não encontrei isso na nossa documentação. Pode dizer-me mais sobre o que "
        "procura? Também posso pô-lo em contacto com um colega.",
        "nl": "Dat heb ik niet in onze documentatie gevonden. Kun je wat meer vertellen over "
        "wat je zoekt? Ik kan je ook met een collega verbinden.",
    },
    "cannot_answer": {
        "en": "I couldn't find a reliable answer to that in our documentation. "
        "Would you like me to connect you with a colleague?",
        "ru": "Я не нашёл надёжного ответа в нашей документации. Хотите, я свяжу вас с коллегой?",
        "fr": "Je n'ai pas trouvé de réponse fiable dans notre documentation. "
        "Voulez-vous que je vous mette en relation avec un collègue ?",
        "de": "Dazu habe ich in unserer Dokumentation keine verlässliche Antwort gefunden. "
        "Soll ich dich mit einem Kollegen verbinden?",
        "es": "No encontré una respuesta fiable en nuestra documentación. "
        "¿Quieres que te ponga en contacto con un compañero?",
        "it": "Non ho trovato una risposta affidabile nella nostra documentazione. "
        "Vuoi che ti metta in contatto con un collega?",
        "pt": "Não encontrei uma resposta fiável na nossa documentação. "
        "Quer que o ponha em contacto com um colega?",
        "nl": "Ik heb daar geen betrouwbaar antwoord op gevonden in onze documentatie. "
        "Zal ik je met een collega verbinden?",
    },
    "offer.partial": {
        "en": "Need more detail? I can connect you with a colleague.",
        "ru": "Нужно больше подробностей? Я могу связать вас с коллегой.",
        "fr": "Besoin de plus de détails ? Je peux vous mettre en relation avec un collègue.",
        "de": "Brauchst du mehr Details? Ich kann dich mit einem Kollegen verbinden.",
        "es": "¿Necesitas más detalles? Puedo ponerte en contacto con un compañero.",
        "it": "Ti servono più dettagli? Posso metterti in contatto con un collega.",
        "pt": "Precisa de mais detalhes? Posso pô-lo em contacto com um colega.",
        "nl": "Meer details nodig? Ik kan je met een collega verbinden.",
    },
    "handoff.explicit_request": {
        "en": "Of course — I'll connect you with a member of our team. {when} "
        "If you share your email, they can reach you directly.",
        "ru": "Конечно — я передам ваш запрос коллеге. {when} "
        "Если оставите email, с вами свяжутся напрямую.",
        "fr": "Bien sûr — je vous mets en relation avec un membre de notre équipe. {when} "
        "Si vous laissez votre e-mail, il pourra vous contacter directement.",
        "de": "Natürlich — ich verbinde dich mit jemandem aus unserem Team. {when} "
        "Wenn du deine E-Mail teilst, meldet sich die Person direkt.",
        "es": "Por supuesto: te pongo en contacto con alguien de nuestro equipo. {when} "
        "Si compartes tu correo, te escribirán directamente.",
        "it": "Certo — ti metto in contatto con un membro del nostro team. {when} "
        "Se lasci la tua email, ti contatterà direttamente.",
        "pt": "Claro — vou pô-lo em contacto com alguém da nossa equipa. {when} "
        "Se partilhar o seu e-mail, entrarão em contacto diretamente.",
        "nl": "Natuurlijk — ik verbind je met iemand van ons team. {when} "
        "Als je je e-mail deelt, nemen ze direct contact op.",
    },
    "handoff.hot_lead": {
        "en": "It sounds like {site} could be a great fit for your team. I'd suggest a short "
        "call with one of our specialists. {when} Shall I set that up?",
        "ru": "Похоже, {site} хорошо подходит вашей команде. Предлагаю короткий звонок с нашим "
        "специалистом. {when} Организовать?",
        "fr": "{site} semble bien correspondre à votre équipe. Je vous propose un court appel "
        "avec un de nos spécialistes. {when} Voulez-vous que je l'organise ?",
        "de": "{site} scheint gut zu deinem Team zu passen. Ich schlage ein kurzes Gespräch mit "
        "einem unserer Spezialisten vor. {when} Soll ich das einrichten?",
        "es": "Parece que {site} encaja muy bien con tu equipo. Te propongo una breve llamada "
        "con uno de nuestros especialistas. {when} ¿La organizo?",
        "it": "Sembra che {site} sia adatto al tuo team. Ti propongo una breve chiamata con uno "
        "dei nostri specialisti. {when} La organizzo?",
        "pt": "Parece que a {site} se adequa bem à sua equipa. Sugiro uma chamada curta com um "
        "dos nossos especialistas. {when} Quer que a marque?",
        "nl": "{site} lijkt goed bij je team te passen. Ik stel een kort gesprek met een van "
        "onze specialisten voor. {when} Zal ik dat regelen?",
    },
    "handoff.stall": {
        "en": "If it helps, I can send you a relevant case study, or a colleague can follow up "
        "when your project is more defined — just leave your email.",
        "ru": "Если удобно, могу прислать подходящий кейс, или коллега свяжется с вами, когда "
        "проект станет конкретнее — просто оставьте email.",
        "fr": "Si cela peut aider, je peux vous envoyer une étude de cas, ou un collègue peut "
        "revenir vers vous quand votre projet sera plus précis — laissez simplement votre "
        "e-mail.",
        "de": "Wenn es hilft, schicke ich dir eine passende Fallstudie, oder jemand aus dem Team "
        "meldet sich, wenn dein Projekt konkreter ist — hinterlasse einfach deine E-Mail.",
        "es": "Si te ayuda, puedo enviarte un caso de éxito relevante, o un compañero puede "
        "contactarte cuando tu proyecto esté más definido: solo deja tu correo.",
        "it": "Se può essere utile, posso inviarti un caso di studio, oppure un collega può "
        "ricontattarti quando il progetto sarà più definito: lascia la tua email.",
        "pt": "Se ajudar, posso enviar-lhe um caso de estudo relevante, ou um colega pode "
        "contactá-lo quando o projeto estiver mais definido — basta deixar o seu e-mail.",
        "nl": "Als het helpt, kan ik je een relevante casestudy sturen, of een collega neemt "
        "contact op als je project concreter is — laat gewoon je e-mail achter.",
    },
    "handoff.high_stakes": {
        "en": "I'm sorry you're dealing with this — I understand it matters. I'm passing this to "
        "a member of our team who can look into it personally. {when}",
        "ru": "Мне жаль, что вы с этим столкнулись — понимаю, насколько это важно. Я передаю "
        "ваш вопрос коллеге, который разберётся лично. {when}",
        "fr": "Je suis désolé que vous rencontriez cela — je comprends que c'est important. Je "
        "transmets votre demande à un membre de notre équipe qui s'en occupera personnellement. "
        "{when}",
        "de": "Es tut mir leid, dass du damit zu tun hast — ich verstehe, dass es wichtig ist. "
        "Ich gebe das an jemanden aus unserem Team weiter, der sich persönlich darum kümmert. "
        "{when}",
        "es": "Siento que estés pasando por esto; entiendo que es importante. Paso tu caso a "
        "alguien de nuestro equipo que lo revisará personalmente. {when}",
        "it": "Mi dispiace che tu stia affrontando questo problema, capisco che è importante. "
        "Passo la richiesta a un membro del team che se ne occuperà personalmente. {when}",
        "pt": "Lamento que esteja a passar por isto — compreendo que é importante. Vou passar o "
        "seu caso a alguém da nossa equipa que o vai analisar pessoalmente. {when}",
        "nl": "Het spijt me dat je hiermee te maken hebt — ik begrijp dat het belangrijk is. Ik "
        "geef dit door aan iemand van ons team die er persoonlijk naar kijkt. {when}",
    },
    "handoff.llm_failure": {
        "en": "Sorry — I'm having trouble answering right now. A colleague can help you "
        "instead. {when}",
        "ru": "Извините — сейчас я не могу ответить. Вам может помочь коллега. {when}",
        "fr": "Désolé — j'ai du mal à répondre pour le moment. Un collègue peut vous aider. {when}",
        "de": "Entschuldigung — ich kann gerade nicht antworten. Ein Kollege kann dir helfen. "
        "{when}",
        "es": "Lo siento, ahora mismo no puedo responder. Un compañero puede ayudarte. {when}",
        "it": "Scusa, al momento non riesco a rispondere. Un collega può aiutarti. {when}",
        "pt": "Desculpe — neste momento não consigo responder. Um colega pode ajudá-lo. {when}",
        "nl": "Sorry — ik kan nu even niet antwoorden. Een collega kan je helpen. {when}",
    },
    "when.business_hours": {
        "en": "Someone will get back to you today.",
        "ru": "С вами свяжутся сегодня.",
        "fr": "Quelqu'un vous répondra aujourd'hui.",
        "de": "Wir melden uns noch heute.",
        "es": "Alguien te responderá hoy.",
        "it": "Qualcuno ti risponderà oggi.",
        "pt": "Alguém entrará em contacto hoje.",
        "nl": "Iemand neemt vandaag nog contact op.",
    },
    "when.next_business_day": {
        "en": "Our team is offline right now; someone will get back to you on the next "
        "business day.",
        "ru": "Сейчас команда не на связи; с вами свяжутся в следующий рабочий день.",
        "fr": "Notre équipe est hors ligne ; quelqu'un vous répondra le prochain jour ouvré.",
        "de": "Unser Team ist gerade offline; wir melden uns am nächsten Werktag.",
        "es": "Nuestro equipo no está disponible ahora; te responderán el próximo día hábil.",
        "it": "Il nostro team ora non è disponibile; ti risponderemo il prossimo giorno "
        "lavorativo.",
        "pt": "A nossa equipa está offline; alguém entrará em contacto no próximo dia útil.",
        "nl": "Ons team is nu offline; iemand neemt de volgende werkdag contact op.",
    },
    "booking.ask_email": {
        "en": "Great — let's set up a demo of {site}. What's your work email? 💌",
        "ru": "Отлично — давайте организуем демо {site}. Какой у вас рабочий email? 💌",
        "fr": "Parfait — organisons une démo de {site}. Quelle est votre adresse e-mail "
        "professionnelle ? 💌",
        "de": "Super — lass uns eine Demo von {site} vereinbaren. Wie lautet deine geschäftliche "
        "E-Mail? 💌",
        "es": "Genial: organicemos una demo de {site}. ¿Cuál es tu correo de trabajo? 💌",
        "it": "Ottimo — organizziamo una demo di {site}. Qual è la tua email di lavoro? 💌",
        "pt": "Ótimo — vamos marcar uma demo da {site}. Qual é o seu e-mail profissional? 💌",
        "nl": "Top — laten we een demo van {site} plannen. Wat is je zakelijke e-mail? 💌",
    },
    "booking.ask_email_again": {
        "en": "I just need a valid work email to arrange the demo (for example name@company.com)."
        " 💌",
        "ru": "Для организации демо нужен корректный рабочий email (например, name@company.com)."
        " 💌",
        "fr": "J'ai juste besoin d'une adresse e-mail valide (par exemple nom@entreprise.com). 💌",
        "de": "Ich brauche nur eine gültige geschäftliche E-Mail (z. B. name@firma.de). 💌",
        "es": "Solo necesito un correo válido (por ejemplo nombre@empresa.com). 💌",
        "it": "Mi serve solo un'email valida (per esempio nome@azienda.it). 💌",
        "pt": "Só preciso de um e-mail válido (por exemplo nome@empresa.com). 💌",
        "nl": "Ik heb alleen een geldig zakelijk e-mailadres nodig (bijv. naam@bedrijf.nl). 💌",
    },
    "booking.confirmed": {
        "en": "Thanks! Our team will contact you at {email}. {when} You can also pick a time "
        "right away using the button below. 👇",
        "ru": "Спасибо! Мы свяжемся с вами по адресу {email}. {when} Вы также можете сразу "
        "выбрать время по кнопке ниже. 👇",
        "fr": "Merci ! Notre équipe vous contactera à {email}. {when} Vous pouvez aussi choisir "
        "un créneau tout de suite avec le bouton ci-dessous. 👇",
        "de": "Danke! Unser Team meldet sich unter {email}. {when} Du kannst auch gleich über "
        "den Button unten einen Termin wählen. 👇",
        "es": "¡Gracias! Nuestro equipo te contactará en {email}. {when} También puedes elegir "
        "una hora ahora con el botón de abajo. 👇",
        "it": "Grazie! Il nostro team ti contatterà a {email}. {when} Puoi anche scegliere subito "
        "un orario con il pulsante qui sotto. 👇",
        "pt": "Obrigado! A nossa equipa vai contactá-lo em {email}. {when} Também pode escolher "
        "já um horário no botão abaixo. 👇",
        "nl": "Bedankt! Ons team neemt contact op via {email}. {when} Je kunt ook meteen een "
        "tijd kiezen met de knop hieronder. 👇",
    },
    "booking.already_booked": {
        "en": "Your demo request is already with our team. You can pick or change the time "
        "with the button below. 👇",
        "ru": "Ваш запрос на демо уже у нашей команды. Выбрать или изменить время можно по "
        "кнопке ниже. 👇",
        "fr": "Votre demande de démo est déjà transmise. Vous pouvez choisir ou changer le "
        "créneau avec le bouton ci-dessous. 👇",
        "de": "Deine Demo-Anfrage liegt unserem Team bereits vor. Termin wählen oder ändern "
        "kannst du über den Button unten. 👇",
        "es": "Tu solicitud de demo ya está con nuestro equipo. Puedes elegir o cambiar la hora "
        "con el botón de abajo. 👇",
        "it": "La tua richiesta di demo è già al nostro team. Puoi scegliere o cambiare orario "
        "con il pulsante qui sotto. 👇",
        "pt": "O seu pedido de demo já está com a nossa equipa. Pode escolher ou alterar o "
        "horário no botão abaixo. 👇",
        "nl": "Je demo-aanvraag ligt al bij ons team. Kies of wijzig de tijd met de knop "
        "hieronder. 👇",
    },
    "skill.propose_demo": {
        "en": "Want to see it on your own workflows? You can book a short demo with the button "
        "below. 👇",
        "ru": "Хотите увидеть это на своих процессах? Запишитесь на короткое демо по кнопке "
        "ниже. 👇",
        "fr": "Envie de le voir sur vos propres processus ? Réservez une courte démo avec le "
        "bouton ci-dessous. 👇",
        "de": "Willst du es mit deinen eigenen Abläufen sehen? Buch eine kurze Demo über den "
        "Button unten. 👇",
        "es": "¿Quieres verlo con tus propios procesos? Reserva una demo corta con el botón de "
        "abajo. 👇",
        "it": "Vuoi vederlo sui tuoi processi? Prenota una breve demo con il pulsante qui "
        "sotto. 👇",
        "pt": "Quer ver isto nos seus próprios processos? Marque uma demo curta no botão "
        "abaixo. 👇",
        "nl": "Wil je het zien met je eigen processen? Boek een korte demo met de knop "
        "hieronder. 👇",
    },
    "skill.collect_email": {
        "en": "I can send you a short case study on this — just share your work email. 💌",
        "ru": "Могу прислать короткий кейс на эту тему — просто оставьте рабочий email. 💌",
        "fr": "Je peux vous envoyer une courte étude de cas à ce sujet — laissez simplement "
        "votre e-mail professionnel. 💌",
        "de": "Ich kann dir eine kurze Fallstudie dazu schicken — teile einfach deine "
        "geschäftliche E-Mail. 💌",
        "es": "Puedo enviarte un breve caso de éxito sobre esto: solo comparte tu correo de "
        "trabajo. 💌",
        "it": "Posso inviarti un breve caso di studio su questo: lasciami la tua email di "
        "lavoro. 💌",
        "pt": "Posso enviar-lhe um caso de estudo curto sobre isto — basta partilhar o seu "
        "e-mail profissional. 💌",
        "nl": "Ik kan je hier een korte casestudy over sturen — deel gewoon je zakelijke "
        "e-mail. 💌",
    },
    "profiling.thanks": {
        "en": "Thanks, that helps.",
        "ru": "Спасибо, это помогает.",
        "fr": "Merci, cela aide.",
        "de": "Danke, das hilft.",
        "es": "Gracias, eso ayuda.",
        "it": "Grazie, è utile.",
        "pt": "Obrigado, isso ajuda.",
        "nl": "Bedankt, dat helpt.",
    },
    "profiling.done": {
        "en": "Thanks — that's everything I needed. You can book a demo tailored to your "
        "answers with the button below. 👇",
        "ru": "Спасибо — этого достаточно. Запишитесь на демо с учётом ваших ответов по кнопке "
        "ниже. 👇",
        "fr": "Merci — j'ai tout ce qu'il me faut. Réservez une démo adaptée à vos réponses "
        "avec le bouton ci-dessous. 👇",
        "de": "Danke — mehr brauche ich nicht. Buch eine auf deine Antworten zugeschnittene "
        "Demo über den Button unten. 👇",
        "es": "Gracias, es todo lo que necesitaba. Reserva una demo adaptada a tus respuestas "
        "con el botón de abajo. 👇",
        "it": "Grazie, è tutto ciò che mi serviva. Prenota una demo su misura con il pulsante "
        "qui sotto. 👇",
        "pt": "Obrigado — é tudo o que precisava. Marque uma demo adaptada às suas respostas "
        "no botão abaixo. 👇",
        "nl": "Bedankt — dat is alles wat ik nodig had. Boek een demo op maat van je antwoorden "
        "met de knop hieronder. 👇",
    },
    "gating.thanks": {
        "en": "Thanks! We'll send it to {email} shortly.",
        "ru": "Спасибо! Скоро отправим на {email}.",
        "fr": "Merci ! Nous l'envoyons très bientôt à {email}.",
        "de": "Danke! Wir schicken es in Kürze an {email}.",
        "es": "¡Gracias! Lo enviaremos a {email} en breve.",
        "it": "Grazie! Lo invieremo a breve a {email}.",
        "pt": "Obrigado! Vamos enviá-lo para {email} em breve.",
        "nl": "Bedankt! We sturen het binnenkort naar {email}.",
    },
    "handoff.stall_accepted": {
        "en": "Thanks! A colleague will follow up at {email}. {when}",
        "ru": "Спасибо! Коллега свяжется с вами по адресу {email}. {when}",
        "fr": "Merci ! Un collègue vous recontactera à {email}. {when}",
        "de": "Danke! Jemand aus dem Team meldet sich unter {email}. {when}",
        "es": "¡Gracias! Un compañero te escribirá a {email}. {when}",
        "it": "Grazie! Un collega ti ricontatterà a {email}. {when}",
        "pt": "Obrigado! Um colega entrará em contacto através de {email}. {when}",
        "nl": "Bedankt! Een collega neemt contact op via {email}. {when}",
    },
    "handoff.accepted": {
        "en": "Thanks! A member of our team will reach you at {email}. {when}",
        "ru": "Спасибо! Коллега свяжется с вами по адресу {email}. {when}",
        "fr": "Merci ! Un membre de notre équipe vous contactera à {email}. {when}",
        "de": "Danke! Jemand aus unserem Team meldet sich unter {email}. {when}",
        "es": "¡Gracias! Alguien de nuestro equipo te escribirá a {email}. {when}",
        "it": "Grazie! Un membro del nostro team ti contatterà a {email}. {when}",
        "pt": "Obrigado! Alguém da nossa equipa entrará em contacto através de {email}. {when}",
        "nl": "Bedankt! Iemand van ons team neemt contact op via {email}. {when}",
    },
    "handoff.ask_email": {
        "en": "Great — what's the best email for our team to reach you? 💌",
        "ru": "Отлично — по какому email нашей команде с вами связаться? 💌",
        "fr": "Parfait — à quelle adresse e-mail notre équipe peut-elle vous joindre ? 💌",
        "de": "Super — unter welcher E-Mail erreicht dich unser Team am besten? 💌",
        "es": "Genial: ¿a qué correo puede escribirte nuestro equipo? 💌",
        "it": "Ottimo — a quale email può contattarti il nostro team? 💌",
        "pt": "Ótimo — qual é o melhor e-mail para a nossa equipa o contactar? 💌",
        "nl": "Top — op welk e-mailadres kan ons team je het best bereiken? 💌",
    },
    "booking.status": {
        "en": "Your demo request is already with our team — they'll contact you at {email}. "
        "{when} You can pick or change the time with the button below.",
        "ru": "Ваш запрос на демо уже у нашей команды — с вами свяжутся по адресу {email}. "
        "{when} Выбрать или изменить время можно по кнопке ниже.",
        "fr": "Votre demande de démo est déjà transmise — l'équipe vous contactera à {email}. "
        "{when} Vous pouvez choisir ou changer le créneau avec le bouton ci-dessous.",
        "de": "Deine Demo-Anfrage liegt unserem Team schon vor — wir melden uns unter {email}. "
        "{when} Termin wählen oder ändern kannst du über den Button unten.",
        "es": "Tu solicitud de demo ya está con nuestro equipo: te contactarán en {email}. "
        "{when} Puedes elegir o cambiar la hora con el botón de abajo.",
        "it": "La tua richiesta di demo è già al nostro team: ti contatteranno a {email}. "
        "{when} Puoi scegliere o cambiare orario con il pulsante qui sotto.",
        "pt": "O seu pedido de demo já está com a nossa equipa — vão contactá-lo em {email}. "
        "{when} Pode escolher ou alterar o horário no botão abaixo.",
        "nl": "Je demo-aanvraag ligt al bij ons team — ze nemen contact op via {email}. "
        "{when} Kies of wijzig de tijd met de knop hieronder.",
    },
    "error.fallback": {
        "en": "Sorry — something went wrong on our side. Please try again in a moment, or "
        "contact us directly.",
        "ru": "Извините — у нас что-то пошло не так. Попробуйте ещё раз чуть позже или "
        "свяжитесь с нами напрямую.",
        "fr": "Désolé — un problème est survenu de notre côté. Réessayez dans un instant ou "
        "contactez-nous directement.",
        "de": "Entschuldigung — bei uns ist etwas schiefgelaufen. Bitte versuche es gleich "
        "noch einmal oder kontaktiere uns direkt.",
        "es": "Lo siento, algo ha fallado por nuestra parte. Inténtalo de nuevo en un momento "
        "o contáctanos directamente.",
        "it": "Scusa, qualcosa è andato storto da parte nostra. Riprova tra poco o contattaci "
        "direttamente.",
        "pt": "Desculpe — algo correu mal do nosso lado. Tente novamente daqui a pouco ou "
        "contacte-nos diretamente.",
        "nl": "Sorry — er ging iets mis aan onze kant. Probeer het zo opnieuw of neem direct "
        "contact met ons op.",
    },
}


def say(key: str, language: str, **values: str) -> str:
    """The text for `key` in `language` (English when missing), with placeholders filled."""
    variants = TEXTS[key]
    template = variants.get(language) or variants["en"]
    return template.format(**values) if values else template
