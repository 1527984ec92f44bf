"""Pure domain: memory models, limits, ranking and errors. Imports only the stdlib and pydantic."""
