"""Size limits of the package: what the machine can do, checked before anything is allocated.

Every size argument (``M``, ``T``, ``n``, ``size``, ``chunk_size``, ``trials``, ``budget``) is
checked against these bounds at the public boundary, with a message naming it.
"""

#: Largest sketch dimension: a column is ``M`` doubles (M_MAX → 128 MiB per column).
M_MAX = 1 << 24
#: Largest horizon: the kernels loop over ``T`` steps (2^40 steps is days of work per trial).
T_MAX = 1 << 40
#: Largest number of trials per call (outputs are a few doubles per trial).
N_MAX = 1 << 30
#: Largest chunk of an engine experiment.
CHUNK_MAX = 10 ** 7
#: Largest single array a simulator may allocate (bytes).
MEM_MAX = 1 << 32
