"""Converters: one module per family of rules; each exposes `convert(ctx)` and `CODES`."""
