"""Ships the top-level ``rules/`` catalog inside the package of a built wheel.

Everything else is declared in pyproject.toml. In a checkout (and an editable install) autojit
reads ``rules/`` directly; a wheel has no checkout, so ``build_py`` copies the rule files to
``autojit/_rules/`` where ``autojit.registry`` looks for them.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithRules(build_py):
    def run(self) -> None:
        super().run()
        if self.editable_mode:
            return
        target = Path(self.build_lib) / "autojit" / "_rules"
        target.mkdir(parents=True, exist_ok=True)
        for md in sorted((Path(__file__).parent / "rules").glob("AJ*.md")):
            (target / md.name).write_bytes(md.read_bytes())


setup(cmdclass={"build_py": BuildWithRules})
