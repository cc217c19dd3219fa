"""``python -m autojit``: the same as the ``autojit`` command."""

from .cli import main

if __name__ == "__main__":
    main(prog_name="autojit")
