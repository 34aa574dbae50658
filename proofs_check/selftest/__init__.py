"""The engine's own claims (``selftest.*``): small, real mathematics that
exercises every path of the engine.  Samplers in :mod:`.samplers`, claims in
:mod:`.claims` (loaded through the ``theorycheck.claims`` entry point)."""
