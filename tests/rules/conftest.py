"""What the rules tests share.

DOS (``games/rules/dos.py``) is built but not yet registered in ``games.rules``
(the integration does that), so only its own tests import it. Its refusals are
worded as it is imported (``word(...)``), and ``test_words.py`` checks the
wording of every code that any module of the engine raises: importing it here
makes that hold whichever tests run. Once DOS is in ``RULESETS`` this import goes.
"""

import games.rules.dos  # noqa: F401  (worded for test_words until DOS is registered)
