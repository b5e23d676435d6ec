"""The text back ends: prompts for models without native function calling, and Markdown docs."""
