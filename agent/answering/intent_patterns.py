"""Configurable phrase lists for intent classification (agent.answering.intent).

Plain lowercase phrases; agent.answering.intent compiles them once into word-bounded
regexes (whitespace inside a phrase matches any run of whitespace). Add
phrases here rather than in code. Swedish and English side by side.
"""

from __future__ import annotations

# Small talk that opens or closes a conversation. Matched at the start of the
# message; the message is a greeting only if nothing substantive follows.
GREETING: list[str] = [
    "hej", "hejsan", "hallå", "tjena", "tja", "tjenare", "hejhej", "god morgon", "god förmiddag",
    "god eftermiddag", "god kväll", "god dag", "goddag", "morsning", "mors", "hej hej",
    "tack", "tack så mycket", "tusen tack", "stort tack", "tackar", "toppen", "perfekt", "okej", "ok",
    "bra", "super", "hej då", "hejdå", "vi hörs", "ha det bra", "trevlig helg",
    "hello there", "hi there", "hey there", "hello", "hi", "hey", "hiya", "good morning", "good afternoon", "good evening", "greetings",
    "thanks", "thank you", "thx", "cheers", "great", "bye", "goodbye",
]

# Phrases that may follow a greeting and still leave it small talk.
COURTESY: list[str] = [
    "hur mår du", "hur är läget", "läget", "allt bra", "hur går det", "trevligt att träffas",
    "how are you", "how is it going", "nice to meet you", "what's up", "whats up",
]

# Questions about the assistant itself or the conversation.
META: list[str] = [
    "vad kan du", "vad kan du göra", "vad kan du hjälpa mig med", "vad kan du hjälpa till med",
    "vem är du", "vad är du", "vad heter du", "hur fungerar du", "hur funkar du", "hur fungerar det här",
    "vilka källor använder du", "vilka lagar känner du till", "vilka lagar kan du",
    "sammanfatta vårt samtal", "sammanfatta samtalet", "sammanfatta konversationen",
    "vad pratade vi om", "vad har vi pratat om", "vad frågade jag", "upprepa det du sa",
    "what can you do", "what can you help me with", "who are you", "what are you",
    "how do you work", "what sources do you use", "summarize our conversation",
    "summarise our conversation", "summarize the conversation", "summarise the conversation",
    "what did we talk about", "what did i ask",
]

# Words that may follow a meta phrase without making it a content question.
META_FILLER: list[str] = [
    "hjälpa", "hjälp", "mig", "oss", "med", "till", "göra", "egentligen", "här", "exakt", "allt",
    "help", "me", "us", "with", "do", "exactly", "here", "really", "for", "please", "snälla", "tack", "nu", "now",
]

# Imperatives that ask for work product. Matched at the start of the message
# (after an optional greeting and politeness prefix).
TASK: list[str] = [
    "skriv", "skriva", "formulera", "sammanfatta", "sammanställ", "gör en", "göra en", "gör ett", "göra ett",
    "skapa", "ta fram", "upprätta", "jämför", "jämföra", "lista", "räkna upp", "översätt", "översätta",
    "granska", "analysera", "föreslå", "utforma", "utarbeta", "förbered", "kontrollera", "planera",
    "draft", "write", "summarize", "summarise", "create", "make", "compare", "list", "translate",
    "review", "analyse", "analyze", "prepare", "generate", "outline", "propose", "check",
]

# Prefixes that make a request polite without changing its intent.
POLITE_PREFIX: list[str] = [
    "kan du", "kan ni", "skulle du kunna", "skulle ni kunna", "vill du", "snälla", "var snäll och",
    "hjälp mig att", "hjälp mig", "jag vill att du", "jag behöver att du",
    "can you", "could you", "would you", "please", "help me", "i want you to", "i need you to",
]

# Signals of a factual question (raise confidence; factual is the default).
QUESTION_WORDS: list[str] = [
    "vad", "vilka", "vilken", "vilket", "hur", "när", "varför", "var", "vem", "måste", "får", "ska",
    "gäller", "behöver", "är det", "finns det", "krävs",
    "what", "which", "how", "when", "why", "where", "who", "must", "may", "should", "does", "is it",
    "are there", "do we",
]

# Questions about the organisation's own laglista: its items, kravpunkter, evidence, owners and actions.
# Answered from the register itself, not by retrieval. Any of these phrases is enough; they name the
# register or its state from the organisation's side ("vi", "jag"), so a question about what the law
# requires ("Måste vi ha skyddsombud?") stays factual.
REGISTER: list[str] = [
    "laglista", "laglistan", "laglistor", "laglistorna", "laglistans", "kravpunkt", "kravpunkter", "kravpunkten",
    "kravpunkterna", "lagbevakning",
    "saknar bevis", "saknas bevis", "saknar underlag", "bevis saknas", "utan bevis", "saknar dokumentation",
    "har vi bevis", "våra bevis",
    "inte bedömt", "inte bedömts", "inte bedömda", "inte bedömd", "ej bedömd", "ej bedömda", "obedömda", "obedömd",
    "har vi bedömt", "vi har bedömt", "har inte bedömt", "bedömde vi", "vi bedömde", "senast bedömd", "senast bedömda", "nästa bedömning",
    "ansvarar jag", "jag ansvarar", "är jag ansvarig", "jag är ansvarig", "mina krav", "mina åtgärder",
    "mina poster", "mina kravpunkter",
    "uppfyller vi inte", "uppfyller vi", "vi uppfyller inte", "vi inte uppfyller", "våra brister", "våra avvikelser",
    "våra åtgärder", "våra krav", "våra lagkrav",
    "our legal register", "legal register", "missing evidence", "lack evidence", "not assessed",
    "am i responsible", "i am responsible", "my requirements", "overdue actions",
]

# Which laws apply to the organisation, asked as a whole message ("Vilka lagar gäller för oss?"): its laglista
# answers, or while it is empty the company profile's suggestions. Only as the whole message: "Vilka lagar gäller
# för oss när vi anställer?" asks what the law says of hiring.
REGISTER_WHOLE_QUESTIONS: list[str] = [
    "vilka lagar gäller för oss", "vilka lagar gäller oss", "vilka lagar berör oss", "vilka lagar omfattas vi av",
    "vilka lagar måste vi följa", "vilka lagar ska vi följa", "vilka lagar gäller för vårt företag",
    "vilka lagar gäller för vår verksamhet", "vilka lagar gäller för vår organisation",
    "vilka författningar gäller för oss", "vilka författningar berör oss", "vilka författningar måste vi följa",
    "vilka lagar och regler gäller för oss", "vilka lagar och föreskrifter gäller för oss",
    "which laws apply to us", "which laws do we have to follow",
]

# An action word near a word saying it is late: "vilka åtgärder är försenade?", "förfallna åtgärder".
REGISTER_ACTION_WORDS: list[str] = ["åtgärd", "åtgärder", "åtgärderna", "avvikelse", "avvikelser", "avvikelserna"]
REGISTER_LATE_WORDS: list[str] = ["försenad", "försenade", "förfallen", "förfallna", "sena", "öppna", "passerat",
                                  "inte klara", "ej klara", "ej åtgärdade", "inte åtgärdade"]
