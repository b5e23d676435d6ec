"""codegen: schema-first code generation for LLM tool calling."""

__version__ = "0.1.0"
