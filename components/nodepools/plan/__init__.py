"""The offline plan: run a stack's real program under the mock engine and report it."""
