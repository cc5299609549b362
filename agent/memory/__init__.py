"""Memory: the company profile and each user's preferences in the context, and the proposals to
remember what a conversation revealed (profile: reading and proposing, detection: finding facts in a
message). Its API (api, serializers) edits the profile and preferences and decides proposals."""
