"""Typed, versioned settings in JSON (``tomllib`` cannot write); tokens in the keyring."""
