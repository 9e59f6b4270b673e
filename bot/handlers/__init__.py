"""Telegram update handlers, one module per concern; each exports ``HANDLERS``."""
