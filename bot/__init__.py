"""Koloda's Telegram front end."""

import os

# Opt in to PTB's time periods as timedelta (RetryAfter.retry_after and friends); without it
# PTB 22 warns on every flood-control error.
os.environ.setdefault("PTB_TIMEDELTA", "1")
