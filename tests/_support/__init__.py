"""Plain helpers the tests share: builders, runners and real servers. Fixtures live in the
conftest files beside the tests; a test imports helpers from here, never from a conftest."""
