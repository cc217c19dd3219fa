"""The kinds of outcome of a generated program (see ``oracle.py``), in a module of their own: the
soak's parent process reads them without importing jax."""

# a bug of the rewriter (each found program is reported)
BUGS = (
    "crash",
    "unparsable",
    "not-idempotent",
    "jit-error",
    "wrong",
    "wrong-other-dtype",
    "refusal-changed",
    "decorator-error",
    "decorator-wrong",
    "decorator-differs",
)
# what every program must end as
OK = ("converted", "refused")
