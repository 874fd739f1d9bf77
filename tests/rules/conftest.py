"""What the rules tests share.

Dingo (``games/rules/dingo.py``) is built but not yet registered in
``games.rules`` (the integration does that), so only its own tests import it.
Its refusals are worded as it is imported (``word(...)``), and
``test_words.py`` checks the wording of every code that any module of the
engine raises: importing it here makes that hold whichever tests run. Once
Dingo is in ``RULESETS`` this import goes.
"""

import games.rules.dingo  # noqa: F401
