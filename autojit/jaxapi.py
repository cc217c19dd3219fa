"""What the analyses know about jax's and numpy's API, as data, kept in one place."""

from __future__ import annotations

# attributes of an array that are Python values under jit
STATIC_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "weak_type"})

# calls whose result is a Python value known at trace time
STATIC_RESULT_CALLS = frozenset(
    {
        "builtins.len",
        "builtins.isinstance",
        "jax.numpy.shape",
        "jax.numpy.ndim",
        "jax.numpy.size",
        "jax.numpy.result_type",
        "jax.numpy.dtype",
        "jax.numpy.issubdtype",
        "jax.numpy.iscomplexobj",
        "jax.numpy.isscalar",
        "jax.dtypes.canonicalize_dtype",
        "numpy.shape",
        "numpy.ndim",
        "numpy.prod",
        "numpy.dtype",
        "numpy.issubdtype",
        "math.prod",
        "math.ceil",
        "math.floor",
        "math.sqrt",
        "math.log",
    }
)

# jax names that are not arrays: dtypes and similar
JAX_ARRAY_RETURNING_STATIC = frozenset(
    {
        "jax.numpy.float32",
        "jax.numpy.float64",
        "jax.numpy.int32",
        "jax.numpy.int64",
        "jax.numpy.bool_",
        "jax.numpy.finfo",
        "jax.numpy.iinfo",
        "jax.devices",
        "jax.device_count",
        "jax.local_device_count",
        "jax.default_backend",
    }
)

# numpy constructors that return a fresh mutable buffer
NUMPY_BUFFER_CONSTRUCTORS = frozenset(
    {
        "zeros",
        "ones",
        "empty",
        "full",
        "array",
        "asarray",
        "arange",
        "linspace",
        "zeros_like",
        "ones_like",
        "empty_like",
        "full_like",
        "eye",
        "identity",
        "copy",
        "stack",
        "concatenate",
    }
)

# augmented assignment operator -> the `.at[]` method that applies it, where one exists
AT_METHOD_FOR_AUGOP = {
    "Add": "add",
    "Sub": None,  # x.at[i].add(-y) would change integer overflow / unsigned meaning: use set
    "Mult": "multiply",
    "Div": "divide",
    "Pow": "power",
}

BINOP_SYMBOL = {
    "Add": "+",
    "Sub": "-",
    "Mult": "*",
    "MatMult": "@",
    "Div": "/",
    "FloorDiv": "//",
    "Mod": "%",
    "Pow": "**",
    "LShift": "<<",
    "RShift": ">>",
    "BitOr": "|",
    "BitXor": "^",
    "BitAnd": "&",
}

# Which arguments of jax functions are shapes, sizes or axes (values that must be static).
# name -> (positional indices, keyword names). "<method>.NAME" entries are array methods.
_SHAPE = ({0}, {"shape"})
SHAPE_ARGUMENTS: dict[str, tuple] = {
    "jax.numpy.zeros": _SHAPE,
    "jax.numpy.ones": _SHAPE,
    "jax.numpy.empty": _SHAPE,
    "jax.numpy.full": _SHAPE,
    "jax.numpy.eye": ({0, 1, 2}, {"N", "M", "k"}),
    "jax.numpy.identity": ({0}, {"n"}),
    "jax.numpy.arange": ({0, 1, 2}, {"start", "stop", "step"}),
    "jax.numpy.linspace": ({2}, {"num", "axis"}),
    "jax.numpy.logspace": ({2}, {"num", "axis"}),
    "jax.numpy.tri": ({0, 1, 2}, {"N", "M", "k"}),
    "jax.numpy.reshape": ({1}, {"shape", "newshape"}),
    "jax.numpy.broadcast_to": ({1}, {"shape"}),
    "jax.numpy.split": ({1, 2}, {"indices_or_sections", "axis"}),
    "jax.numpy.array_split": ({1, 2}, {"indices_or_sections", "axis"}),
    "jax.numpy.tile": ({1}, {"reps"}),
    "jax.numpy.repeat": (set(), {"total_repeat_length", "axis"}),
    "jax.numpy.expand_dims": ({1}, {"axis"}),
    "jax.numpy.squeeze": ({1}, {"axis"}),
    "jax.numpy.sum": (set(), {"axis"}),
    "jax.numpy.mean": (set(), {"axis"}),
    "jax.numpy.max": (set(), {"axis"}),
    "jax.numpy.min": (set(), {"axis"}),
    "jax.numpy.prod": (set(), {"axis"}),
    "jax.numpy.argmax": (set(), {"axis"}),
    "jax.numpy.argmin": (set(), {"axis"}),
    "jax.numpy.concatenate": (set(), {"axis"}),
    "jax.numpy.stack": (set(), {"axis"}),
    "jax.numpy.roll": ({1, 2}, {"shift", "axis"}),
    "jax.numpy.transpose": ({1}, {"axes"}),
    "jax.numpy.moveaxis": ({1, 2}, {"source", "destination"}),
    "jax.numpy.swapaxes": ({1, 2}, {"axis1", "axis2"}),
    "jax.numpy.triu": ({1}, {"k"}),
    "jax.numpy.tril": ({1}, {"k"}),
    "jax.numpy.pad": ({1}, {"pad_width", "mode"}),
    "jax.numpy.nonzero": (set(), {"size"}),
    "jax.numpy.unique": (set(), {"size"}),
    "jax.numpy.argwhere": (set(), {"size"}),
    "jax.numpy.zeros_like": (set(), {"shape"}),
    "jax.numpy.ones_like": (set(), {"shape"}),
    "jax.numpy.full_like": (set(), {"shape"}),
    "jax.random.normal": ({1}, {"shape"}),
    "jax.random.uniform": ({1}, {"shape"}),
    "jax.random.bernoulli": ({2}, {"shape"}),
    "jax.random.categorical": (set(), {"shape", "axis"}),
    "jax.random.randint": ({1}, {"shape"}),
    "jax.random.split": ({1}, {"num"}),
    "jax.random.choice": ({2}, {"shape", "replace"}),
    "jax.random.permutation": (set(), {"axis", "independent"}),
    "jax.random.truncated_normal": ({3}, {"shape"}),
    "jax.random.gumbel": ({1}, {"shape"}),
    "jax.random.bits": ({1}, {"shape"}),
    "jax.nn.one_hot": ({1}, {"num_classes", "axis"}),
    "jax.nn.softmax": (set(), {"axis"}),
    "jax.nn.log_softmax": (set(), {"axis"}),
    "jax.lax.dynamic_slice": ({2}, {"slice_sizes"}),
    "jax.lax.broadcast": ({1}, {"sizes"}),
    "jax.lax.iota": ({1}, {"size"}),
    "<method>.reshape": ("*", {"shape"}),
    "<method>.sum": ({0}, {"axis"}),
    "<method>.mean": ({0}, {"axis"}),
    "<method>.max": ({0}, {"axis"}),
    "<method>.min": ({0}, {"axis"}),
    "<method>.transpose": ("*", {"axes"}),
    "<method>.squeeze": ({0}, {"axis"}),
    "<method>.argmax": ({0}, {"axis"}),
    "<method>.argmin": ({0}, {"axis"}),
}
