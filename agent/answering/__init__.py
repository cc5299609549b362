"""Answering: from a chat turn to a checked answer.

intent classifies; prepare runs the pre-model step (analysis, retrieval, the profile, context_assembly's
Swedish-labelled block inside the token budget); llm streams the model, answer checks citations or answers
extractively, comparison sets own text beside the law; chat ties a turn together and saves it. rendering
turns answers into HTML for the pages; api and serializers are the REST endpoints for search, context,
conversations and feedback.

The entry points are `prepare.prepare_context` and `chat.answer`.
"""
