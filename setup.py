"""pyproject.toml describes the package; this file only adds docs/findings.md to the wheel as
lsp_server/findings.md, so that an installed server (and the .vsix) links its diagnostics to a copy it can
reach (lsp_server/findings_doc.py)."""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

FINDINGS = Path("docs") / "findings.md"


class BuildWithFindings(build_py):
    def run(self) -> None:
        super().run()
        self.mkpath(str(Path(self.build_lib) / "lsp_server"))
        self.copy_file(str(FINDINGS), str(Path(self.build_lib) / "lsp_server" / "findings.md"))


setup(cmdclass={"build_py": BuildWithFindings})
