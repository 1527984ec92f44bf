"""The embedded local stack: Postgres+pgvector, Redis, the SQS emulator and the queue poller."""
