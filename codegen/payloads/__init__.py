"""The provider-payload back end: each tool of the IR as each provider's API takes it."""
