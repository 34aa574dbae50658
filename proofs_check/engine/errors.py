"""Every error class the engine raises on purpose, in one module at the bottom of
the engine (it imports nothing), so any engine module, ``declare`` and the
command line can name them without importing each other.

Each is a ``ValueError``: the message is one line that names the claim, file or
argument at fault and says what would fix it.
"""
from __future__ import annotations

__all__ = ["ClaimDeclarationError", "UserClaimsError", "ResultFileError"]


class ClaimDeclarationError(ValueError):
    """A user claim is declared wrongly; the message names the claim and the fix."""


class UserClaimsError(ValueError):
    """A user's claims module cannot be loaded; the message is one line naming it and the fix."""


class ResultFileError(ValueError):
    """A result store or file that is corrupt, foreign or in an unusable state."""
