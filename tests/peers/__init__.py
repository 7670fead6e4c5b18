"""Real Hermes gateways and a scripted fake model, run on loopback for integration tests."""
