"""Evidence bundles: one thread, offline-verifiable, for an auditor or a court.

``collect`` reads the thread from the record, ``bundle`` lays out its files and
signs their manifest, ``report`` renders the pages, ``timestamps`` asks a TSA to
vouch for the checkpoint's time, ``export`` puts them together; ``verifier`` is
the verifier (the standard library and cryptography only), shipped in every
bundle as hfa_verify/ with verify.py to run it.

The surface is two public modules, imported by name: ``export`` (``export`` and
``verify``, what ``hfa evidence`` runs) and ``verifier`` (its own ``__all__``: the
bundle's layout, ``print_verdict`` ...). The others are the package's own;
import-linter's ``surface`` contract (pyproject.toml) keeps it so.
"""

__all__ = ["export", "verifier"]
