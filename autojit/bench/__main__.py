"""``python -m autojit.bench FILE::FUNC [SPEC]...``: the ``autojit bench`` command alone."""

from .cli import main

if __name__ == "__main__":
    main()
