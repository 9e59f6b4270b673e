"""Entry point: ``python -m bot``."""

import sys

if __name__ == "__main__":
    print("koloda: the Telegram front end is not built yet; nothing to run.", file=sys.stderr)
    sys.exit(2)
