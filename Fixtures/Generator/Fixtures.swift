// Deterministic EPM-like sales service generator (see Fixtures/README.md).
