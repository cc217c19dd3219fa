import autojit


def test_plain_file_unchanged():
    text = "import jax\n\ndef f(x):\n    return x + 1\n"
    c = autojit.convert_source(text, "m.py")
    assert c.text == text
    assert not c.changes
