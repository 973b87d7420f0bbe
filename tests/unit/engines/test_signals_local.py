"""Local signals detector: interest, qualification, flags and emails (8 languages).

Explicit human requests have their own tables in test_human_request_local.py.
"""

from __future__ import annotations

import asyncio

import pytest

from frontdesk.engines.base import SignalsDetectorJob
from frontdesk.engines.local.signals import (
    INTEREST_WEIGHTS,
    LocalSignalsDetector,
    detect_signals,
    extract_email,
    fold,
    qualification_delta,
)
from frontdesk.leads.qualification import QualificationState, apply_delta

pytestmark = pytest.mark.unit

# --- qualification ----------------------------------------------------------------------

QUALIFICATION = [
    # problem_fit
    ("en", "We need to automate invoice matching across 3 ERPs", "problem_fit", "confirmed"),
    ("en", "Our team struggles with manual data entry every week", "problem_fit", "confirmed"),
    ("en", "We're building a RAG system for our knowledge base", "problem_fit", "confirmed"),
    ("en", "I'm interested in your automation builder", "problem_fit", "partially_confirmed"),
    ("en", "Could this help us with onboarding?", "problem_fit", "partially_confirmed"),
    ("ru", "Нам нужно автоматизировать сверку счетов", "problem_fit", "confirmed"),
    ("ru", "Наша команда тратит часы на ручные отчёты", "problem_fit", "confirmed"),
    ("ru", "Интересует ваш конструктор автоматизаций", "problem_fit", "partially_confirmed"),
    ("fr", "Nous avons besoin d'automatiser la facturation", "problem_fit", "confirmed"),
    ("fr", "Je suis intéressé par la synchronisation", "problem_fit", "partially_confirmed"),
    ("de", "Wir brauchen eine Lösung für die Rechnungsprüfung", "problem_fit", "confirmed"),
    ("de", "Wir wollen unsere Freigaben automatisieren", "problem_fit", "confirmed"),
    ("es", "Necesitamos automatizar la conciliación", "problem_fit", "confirmed"),
    ("es", "Me interesa la integración con SAP", "problem_fit", "partially_confirmed"),
    ("it", "Abbiamo bisogno di automatizzare gli ordini", "problem_fit", "confirmed"),
    ("it", "Stiamo valutando strumenti di automazione", "problem_fit", "partially_confirmed"),
    ("pt", "Precisamos automatizar o faturamento", "problem_fit", "confirmed"),
    ("pt", "Temos interesse na sincronização de dados", "problem_fit", "partially_confirmed"),
    ("nl", "We hebben een tool nodig voor facturatie", "problem_fit", "confirmed"),
    ("nl", "Ons team worstelt met handmatige exports", "problem_fit", "confirmed"),
    # authority_fit
    ("en", "I'm the CTO here", "authority_fit", "confirmed"),
    ("en", "I'm head of ops at a retailer", "authority_fit", "confirmed"),
    ("en", "As the founder, I sign off on tooling", "authority_fit", "confirmed"),
    ("en", "I run the operations team", "authority_fit", "confirmed"),
    ("en", "I'm evaluating this for my manager", "authority_fit", "partially_confirmed"),
    ("en", "My boss asked me to look into this", "authority_fit", "partially_confirmed"),
    ("ru", "Я руководитель отдела логистики", "authority_fit", "confirmed"),
    ("ru", "Я — основатель компании", "authority_fit", "confirmed"),
    ("ru", "Смотрю для моего руководителя", "authority_fit", "partially_confirmed"),
    ("fr", "Je suis directeur des opérations", "authority_fit", "confirmed"),
    ("fr", "Je regarde pour mon manager", "authority_fit", "partially_confirmed"),
    ("de", "Ich bin Geschäftsführer eines Logistikers", "authority_fit", "confirmed"),
    ("de", "Ich bin Leiterin der IT", "authority_fit", "confirmed"),
    ("de", "Mein Chef hat mich gebeten, das anzuschauen", "authority_fit", "partially_confirmed"),
    ("es", "Soy el director de operaciones", "authority_fit", "confirmed"),
    ("es", "Lo estoy evaluando para mi jefe", "authority_fit", "partially_confirmed"),
    ("it", "Sono il fondatore dell'azienda", "authority_fit", "confirmed"),
    ("it", "Lo valuto per il mio responsabile", "authority_fit", "partially_confirmed"),
    ("pt", "Sou a diretora de TI", "authority_fit", "confirmed"),
    ("pt", "Estou avaliando para o meu chefe", "authority_fit", "partially_confirmed"),
    ("nl", "Ik ben de oprichter", "authority_fit", "confirmed"),
    ("nl", "Ik kijk voor mijn manager", "authority_fit", "partially_confirmed"),
    # company_fit
    ("en", "We're a 200-person logistics company", "company_fit", "confirmed"),
    ("en", "We have 1,200 employees in 4 countries", "company_fit", "confirmed"),
    ("en", "We are a mid-sized fintech startup", "company_fit", "confirmed"),
    ("en", "Our company uses spreadsheets for this", "company_fit", "partially_confirmed"),
    ("ru", "У нас 300 сотрудников", "company_fit", "confirmed"),
    ("ru", "Мы логистическая компания", "company_fit", "confirmed"),
    ("ru", "В нашей компании это делают вручную", "company_fit", "partially_confirmed"),
    ("fr", "Nous sommes une PME de 80 personnes", "company_fit", "confirmed"),
    ("fr", "Notre entreprise utilise Excel", "company_fit", "partially_confirmed"),
    ("de", "Wir sind ein mittelständisches Unternehmen", "company_fit", "confirmed"),
    ("de", "Wir haben 150 Mitarbeiter", "company_fit", "confirmed"),
    ("de", "Unser Unternehmen nutzt SAP", "company_fit", "partially_confirmed"),
    ("es", "Somos una empresa de logística con 90 empleados", "company_fit", "confirmed"),
    ("es", "Nuestra empresa usa Excel", "company_fit", "partially_confirmed"),
    ("it", "Siamo un'azienda manifatturiera", "company_fit", "confirmed"),
    ("it", "La nostra azienda usa Excel", "company_fit", "partially_confirmed"),
    ("pt", "Somos uma empresa de varejo com 400 funcionários", "company_fit", "confirmed"),
    ("pt", "Nossa empresa usa planilhas", "company_fit", "partially_confirmed"),
    ("nl", "Wij zijn een groothandel met 60 medewerkers", "company_fit", "confirmed"),
    ("nl", "Ons bedrijf gebruikt Excel", "company_fit", "partially_confirmed"),
    # timing_fit
    ("en", "We want this live this quarter", "timing_fit", "confirmed"),
    ("en", "We need it by January", "timing_fit", "confirmed"),
    ("en", "Need it asap", "timing_fit", "confirmed"),
    ("en", "Starting next month", "timing_fit", "confirmed"),
    ("en", "Probably later this year", "timing_fit", "partially_confirmed"),
    ("en", "We're just exploring options", "timing_fit", "partially_confirmed"),
    ("en", "It's not urgent", "timing_fit", "partially_confirmed"),
    ("ru", "Хотим запуститься в этом квартале", "timing_fit", "confirmed"),
    ("ru", "Нужно до конца месяца, срочно", "timing_fit", "confirmed"),
    ("ru", "Может быть, в следующем году", "timing_fit", "partially_confirmed"),
    ("fr", "On veut démarrer le mois prochain", "timing_fit", "confirmed"),
    ("fr", "Peut-être l'année prochaine", "timing_fit", "partially_confirmed"),
    ("de", "Wir wollen bis Ende des Quartals live sein", "timing_fit", "confirmed"),
    ("de", "Vielleicht nächstes Jahr", "timing_fit", "partially_confirmed"),
    ("es", "Lo necesitamos este trimestre", "timing_fit", "confirmed"),
    ("es", "Quizás el año que viene", "timing_fit", "partially_confirmed"),
    ("it", "Ci serve entro gennaio", "timing_fit", "confirmed"),
    ("it", "Forse l'anno prossimo", "timing_fit", "partially_confirmed"),
    ("pt", "Precisamos disso o quanto antes", "timing_fit", "confirmed"),
    ("pt", "Talvez no próximo ano", "timing_fit", "partially_confirmed"),
    ("nl", "We willen dit kwartaal starten", "timing_fit", "confirmed"),
    ("nl", "Misschien volgend jaar", "timing_fit", "partially_confirmed"),
]


@pytest.mark.parametrize(("language", "text", "dimension", "level"), QUALIFICATION)
def test_qualification_dimension(language: str, text: str, dimension: str, level: str) -> None:
    result = detect_signals(text)
    assert result.qualification.get(dimension) == level, (language, text, result.qualification)
    quote = result.evidence[dimension]
    assert quote and quote in text  # the visitor's own words, verbatim


def test_plain_questions_carry_no_qualification() -> None:
    for text in ("How does the webhook retry work?", "What is Tessellate?", "hello", "ok"):
        result = detect_signals(text)
        assert result.qualification == {} and result.flags == frozenset(), text


def test_evidence_is_the_statement_not_just_the_trigger_words() -> None:
    result = detect_signals("Hi! We need to automate invoice matching across 3 ERPs. Thanks")
    assert result.evidence["problem_fit"] == "We need to automate invoice matching across 3 ERPs"
    company = detect_signals("I'm the CTO at a 200-person logistics company.")
    assert company.evidence["company_fit"] == "200-person logistics company"
    assert company.evidence["authority_fit"] == "I'm the CTO"


def test_a_single_employee_is_not_a_company_size() -> None:
    result = detect_signals("We have 1 employee")
    assert "company_fit" not in result.qualification
    assert "is_no_fit" in result.flags


# --- flags ------------------------------------------------------------------------------

FLAGGED = [
    ("en", "I'm a student working on a thesis about automation", "is_negative_persona"),
    ("en", "Are you hiring? Here is my CV", "is_negative_persona"),
    ("en", "I work for a competitor and want to see your features", "is_negative_persona"),
    ("en", "We'd like to offer you our SEO services", "is_negative_persona"),
    ("ru", "Я студент, пишу курсовую работу", "is_negative_persona"),
    ("ru", "Ищу работу, есть вакансии?", "is_negative_persona"),
    ("fr", "Je suis étudiant et je prépare un projet universitaire", "is_negative_persona"),
    ("de", "Ich schreibe meine Bachelorarbeit über Automatisierung", "is_negative_persona"),
    ("es", "Soy estudiante y hago mi tesis", "is_negative_persona"),
    ("it", "Sono uno studente, per la mia tesi", "is_negative_persona"),
    ("pt", "Sou estudante, é para o meu TCC", "is_negative_persona"),
    ("nl", "Ik ben student en schrijf mijn scriptie", "is_negative_persona"),
    ("en", "It's for my personal use", "is_no_fit"),
    ("en", "We have 1 employee", "is_no_fit"),
    ("en", "Just a hobby project, nothing serious", "is_no_fit"),
    ("ru", "Это для личного использования", "is_no_fit"),
    ("fr", "C'est pour un usage personnel", "is_no_fit"),
    ("de", "Nur für den privaten Gebrauch", "is_no_fit"),
    ("es", "Es para uso personal", "is_no_fit"),
    ("it", "È per uso personale", "is_no_fit"),
    ("pt", "É para uso pessoal", "is_no_fit"),
    ("nl", "Het is voor persoonlijk gebruik", "is_no_fit"),
    ("en", "I'm a consultant advising a client on automation tools", "is_consultant"),
    ("en", "I'm asking on behalf of a client", "is_consultant"),
    ("ru", "Я консультант, подбираю решение для клиента", "is_consultant"),
    ("fr", "Je suis consultant pour un client", "is_consultant"),
    ("de", "Ich bin Berater und suche für einen Kunden", "is_consultant"),
    ("es", "Soy consultor y busco algo para un cliente", "is_consultant"),
    ("it", "Sono un consulente, cerco per un cliente", "is_consultant"),
    ("pt", "Sou consultor, estou avaliando para um cliente", "is_consultant"),
    ("nl", "Ik ben consultant en zoek voor een klant", "is_consultant"),
    ("en", "Maria from Acme recommended you", "referral_mentioned"),
    ("en", "I was referred by a colleague", "referral_mentioned"),
    ("ru", "Мне вас порекомендовал коллега", "referral_mentioned"),
    ("fr", "Un collègue m'a recommandé votre outil", "referral_mentioned"),
    ("de", "Ein Kollege hat mir euch empfohlen", "referral_mentioned"),
    ("es", "Un amigo me recomendó su empresa", "referral_mentioned"),
    ("it", "Un collega mi ha consigliato di scrivervi", "referral_mentioned"),
    ("pt", "Um colega me indicou vocês", "referral_mentioned"),
    ("nl", "Een collega heeft mij jullie aangeraden", "referral_mentioned"),
]


@pytest.mark.parametrize(("language", "text", "flag"), FLAGGED)
def test_flags(language: str, text: str, flag: str) -> None:
    assert flag in detect_signals(text).flags, (language, text)


@pytest.mark.parametrize(
    "text",
    [
        "How do you compare to your competitors?",  # comparison, not a competitor
        "Do you have a referral program?",
        "What do you recommend for a team of 20?",
        "Our clients complain about slow exports",  # their customers, not a consultant's
        "What stage is the API at?",
        "Can I export my data as CSV?",
    ],
)
def test_no_flag_on_ordinary_questions(text: str) -> None:
    assert detect_signals(text).flags == frozenset(), text


# --- interest ---------------------------------------------------------------------------

INTEREST = [
    ("en", "Can I see a demo?", "demo_interest"),
    ("en", "Let's book a call next week", "demo_interest"),
    ("ru", "Можно демо?", "demo_interest"),
    ("fr", "Je voudrais une démonstration", "demo_interest"),
    ("de", "Können wir einen Termin vereinbaren?", "demo_interest"),
    ("es", "¿Podemos agendar una reunión?", "demo_interest"),
    ("it", "Vorrei una dimostrazione", "demo_interest"),
    ("pt", "Quero agendar uma demonstração", "demo_interest"),
    ("nl", "Kunnen we een demo inplannen?", "demo_interest"),
    ("en", "How much does the Growth plan cost?", "pricing_interest"),
    ("ru", "Сколько стоит тариф Pro?", "pricing_interest"),
    ("fr", "Quel est le prix ?", "pricing_interest"),
    ("de", "Was kostet das?", "pricing_interest"),
    ("es", "¿Cuánto cuesta?", "pricing_interest"),
    ("it", "Quanto costa?", "pricing_interest"),
    ("pt", "Quanto custa?", "pricing_interest"),
    ("nl", "Wat kost het?", "pricing_interest"),
    ("en", "Do you integrate with HubSpot?", "integration_question"),
    ("ru", "Есть интеграция с 1С?", "integration_question"),
    ("de", "Gibt es eine Schnittstelle zu SAP?", "integration_question"),
    ("nl", "Is er een koppeling met Exact?", "integration_question"),
    ("en", "How long does implementation take?", "implementation_timeline"),
    ("ru", "Какие сроки внедрения?", "implementation_timeline"),
    ("fr", "Combien de temps pour la mise en place ?", "implementation_timeline"),
    ("es", "¿Cuánto tarda la puesta en marcha?", "implementation_timeline"),
    ("en", "We have 45 users on the ops team", "team_size_mention"),
    ("de", "Wir sind ein Team von 12", "team_size_mention"),
    ("en", "How are you different from Zapier?", "comparison_with_competitor"),
    ("ru", "Чем вы лучше, чем Zapier? Нужна альтернатива", "comparison_with_competitor"),
    ("es", "¿Es mejor que Zapier?", "comparison_with_competitor"),
    ("en", "Are you SOC 2 compliant?", "security_review"),
    ("de", "Wie sieht es mit DSGVO und Datenschutz aus?", "security_review"),
    ("fr", "Et la sécurité des données ?", "security_review"),
    ("en", "Is there a free trial?", "trial_interest"),
    ("ru", "Есть пробный период?", "trial_interest"),
    ("pt", "Posso experimentar grátis?", "trial_interest"),
    ("nl", "Is er een proefperiode?", "trial_interest"),
]


@pytest.mark.parametrize(("language", "text", "signal"), INTEREST)
def test_interest_signals(language: str, text: str, signal: str) -> None:
    result = detect_signals(text)
    assert signal in result.interest_signals, (language, text, result.interest_signals)
    assert 0.0 < result.interest_delta <= 1.0


def test_interest_delta_is_the_capped_sum_of_weights() -> None:
    result = detect_signals(
        "Can I see a demo? What's the price, is there a free trial, do you integrate with "
        "HubSpot, how long is implementation, are you SOC 2 compliant, and how do you "
        "compare to Zapier for our 300 employees?"
    )
    assert set(result.interest_signals) == set(INTEREST_WEIGHTS)
    assert result.interest_delta == 1.0
    assert detect_signals("hello there").interest_delta == 0.0
    assert detect_signals("Can I see a demo?").interest_delta == INTEREST_WEIGHTS["demo_interest"]


def test_declining_a_demo_is_not_demo_interest() -> None:
    for text in ("Please cancel the demo", "I don't want a demo", "Отмените демо", "Kein Demo"):
        assert "demo_interest" not in detect_signals(text).interest_signals, text


# --- email ------------------------------------------------------------------------------

EMAILS = [
    ("my email is jane.doe@acme.io", "jane.doe@acme.io"),
    (
        "Write to <ops+chat@northpeak-logistics.co.uk>, thanks!",
        "ops+chat@northpeak-logistics.co.uk",
    ),
    ("почта: ivan@пример.рф или ivan.petrov@example.ru.", "ivan.petrov@example.ru"),
    ("mon e-mail : Marie.Dupont@entreprise.fr.", "Marie.Dupont@entreprise.fr"),
    ("first a@b then real@company.com and other@company.com", "real@company.com"),
    ("bad..dots@x.com, good@x.com", "good@x.com"),
]


@pytest.mark.parametrize(("text", "expected"), EMAILS)
def test_email_extraction(text: str, expected: str) -> None:
    assert extract_email(text) == expected
    assert detect_signals(text).email == expected


@pytest.mark.parametrize(
    "text", ["no email here", "name at company dot com", "user@localhost", "@acme.io"]
)
def test_no_email(text: str) -> None:
    assert extract_email(text) is None


# --- plumbing ---------------------------------------------------------------------------


def test_fold_keeps_offsets() -> None:
    text = "Je suis Directeur Général — équipe’s «ÉTÉ» ﬁn ёж"
    folded = fold(text)
    assert len(folded) == len(text)
    assert folded.startswith("Je suis Directeur General") and "'" in folded


def test_delta_feeds_the_qualification_state_machine() -> None:
    result = detect_signals("I'm the CTO. We need to automate billing this quarter, talk to sales?")
    delta = qualification_delta(result)
    assert delta.authority_fit == "confirmed" and delta.timing_fit == "confirmed"
    assert delta.company_fit is None and delta.explicit_human_request
    state = apply_delta(QualificationState(), delta, 0, result.evidence).state  # type: ignore[arg-type]
    assert state.problem_fit == "confirmed" and state.explicit_human_request


def test_detector_implements_the_job_interface() -> None:
    detector: SignalsDetectorJob = LocalSignalsDetector()
    result = asyncio.run(detector.detect("Je suis consultant pour un client", "fr"))
    assert result.flags == frozenset({"is_consultant"})
