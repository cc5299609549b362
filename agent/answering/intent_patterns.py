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
