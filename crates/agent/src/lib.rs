//! deft's agent: OpenAI-compatible streaming client, tool-calling loop, prompts, events.
