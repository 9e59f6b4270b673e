"""The bot through the fake Bot API: handlers, rendering, delivery, webhook."""
