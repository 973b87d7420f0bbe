"""Function words of the eight languages Frontdesk speaks: what a message's language is
read by when lingua is unsure (`language.py`), and what the local writer leaves out of
the words it matches."""

from __future__ import annotations

_STOP: dict[str, str] = {
    "en": "a an the and or but if then so of to in on at by for with from into about as is "
    "are was were be been being am do does did doing done have has had having can could "
    "will would shall should may might must i me my mine we us our you your yours he him "
    "his she her it its they them their theirs this that these those there here what which "
    "who whom whose when where why how not no yes please tell know need want get got use "
    "using used work works any some all also just than too very more most much many there "
    "s t don doesn isn aren m ll ve re d let lets hi hello thanks thank ok okay out up "
    "tell explain show give like such",
    "ru": "и в во не что он на я с со как а то все она так его но да ты к у же вы за бы по "
    "только ее её мне было вот от меня еще ещё нет о из ему теперь когда даже ну вдруг ли "
    "если уже или ни быть был него до вас нибудь опять уж вам ведь там потом себя ничего ей "
    "может они тут где есть надо ней для мы тебя их чем была сам чтоб без будто чего раз "
    "тоже себе под будет ж тогда кто этот того потому этого какой совсем ним здесь этом "
    "один почти мой тем чтобы нее сейчас были куда зачем всех никогда можно при наконец "
    "два об другой хоть после над больше тот через эти нас про всего них какая много разве "
    "три эту моя впрочем хорошо свою этой перед иногда лучше чуть том нельзя такой им более "
    "всегда конечно всю между это эта эти этим этих можно ли как какие какой какая каких "
    "сколько скажите подскажите расскажите пожалуйста нужно хочу мой наш ваш вашей вашем "
    "ваши вашего нам работает работать работают сделать делать",
    "fr": "le la les un une des du de d l et ou mais si donc en au aux à a est sont était être "
    "ai as avez avons ont je j me m moi tu te vous nous il elle ils elles on ce cet cette "
    "ces c ça cela ceci qui que qu quoi quel quelle quels quelles comment pourquoi où quand "
    "combien ne n pas plus pour par sur dans avec sans sous mon ma mes ton ta tes votre vos "
    "notre nos leur leurs se s y peut peux puis pouvez faire fait dois doit est-ce merci "
    "bonjour svp fonctionne fonctionner marche",
    "de": "der die das den dem des ein eine einer eines einem einen und oder aber wenn dann "
    "so von zu im in am an auf für mit aus über als ist sind war waren sein bin bist seid "
    "habe hat haben hatte kann können könnte wird werden würde soll sollte muss ich mich mir "
    "mein meine wir uns unser unsere du dich dir dein ihr ihre sie er es man dies diese "
    "dieser dieses das was welche welcher welches wer wann wo warum wie nicht kein keine "
    "ja nein bitte danke auch nur noch sehr mehr viel gibt geht machen mache funktioniert "
    "funktionieren",
    "es": "el la los las un una unos unas y o pero si entonces de del a al en por para con "
    "sin sobre es son era ser estar está están he ha han tengo tiene tienen puedo puede "
    "pueden yo me mi mis tú te tu tus usted ustedes nosotros nuestro nuestra su sus él ella "
    "ellos ellas lo le les se esto eso este esta estos estas ese esa qué que cuál cuáles "
    "quién cómo como cuándo dónde por qué no sí más muy hay hacer favor gracias hola "
    "funciona",
    "it": "il lo la i gli le un uno una e o ma se allora di del della dei delle a al alla "
    "in nel nella da per con su è sono era essere ho ha hanno posso può possono io mi mio "
    "mia miei tu ti tuo tua voi vi vostro noi ci nostro nostra lui lei loro si questo "
    "questa questi quello quella che cosa quale quali chi come quando dove perché non sì più "
    "molto c fare favore grazie ciao l funziona",
    "pt": "o a os as um uma uns umas e ou mas se então de do da dos das em no na nos nas por "
    "para com sem sobre é são era ser estar está estão tenho tem têm posso pode podem eu me "
    "meu minha você vocês nós nosso nossa seu sua ele ela eles elas lhe se isto isso este "
    "esta esse essa aquilo que qual quais quem como quando onde por não sim mais muito há "
    "fazer favor obrigado obrigada olá funciona",
    "nl": "de het een en of maar als dan dus van te in op aan bij voor met uit over is zijn "
    "was waren ben heb hebt heeft hebben kan kun kunt kunnen zal zou moet ik mij me mijn wij "
    "we ons onze jij je jou jouw u uw hij hem zij ze haar het dit dat deze die wat welke wie "
    "wanneer waar waarom hoe niet geen ja nee alstublieft graag dank bedankt ook nog er "
    "veel meer doen werkt werken",
}
STOPWORDS: dict[str, frozenset[str]] = {lang: frozenset(s.split()) for lang, s in _STOP.items()}
ALL_STOPWORDS: frozenset[str] = frozenset().union(*STOPWORDS.values())
