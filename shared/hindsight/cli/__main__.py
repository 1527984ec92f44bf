"""``python -m hindsight.cli``: the ``hindsight`` command."""

from hindsight.cli import app

if __name__ == "__main__":
    app()
