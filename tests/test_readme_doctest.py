"""README.md "## Check your own bound": its example runs as a doctest, as printed."""
import doctest
import re
from pathlib import Path

from proofs_check.engine import registry

README = Path(__file__).resolve().parents[1] / "README.md"


def _section(text: str, title: str) -> str:
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def test_check_your_own_bound_runs_as_printed():
    section = _section(README.read_text(encoding="utf-8"), "Check your own bound")
    blocks = [b for b in re.findall(r"```python\n(.*?)```", section, flags=re.S) if ">>>" in b]
    assert blocks, "the section has no doctest block"
    code = "\n".join(blocks)
    # 30: the search example, plus proved / refuted / undecided in ball arithmetic (issue 22)
    assert len([line for line in code.splitlines() if line.startswith((">>>", "..."))]) <= 30
    test = doctest.DocTestParser().get_doctest(code, {}, "README.md#check-your-own-bound", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with registry.isolated():
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 10
