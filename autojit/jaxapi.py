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
        "jax.numpy.promote_types",
        "jax.numpy.can_cast",
        "jax.numpy.isdtype",
        "jax.numpy.issubdtype",
        "jax.lax.dtype",
        "jax.dtypes.issubdtype",
        "jax.dtypes.result_type",
        "jax.numpy.iscomplexobj",
        "jax.numpy.isrealobj",
        "jax.numpy.isscalar",
        "jax.dtypes.canonicalize_dtype",
        "numpy.shape",
        "numpy.ndim",
        "numpy.prod",
        "numpy.dtype",
        "numpy.iscomplexobj",
        "numpy.isrealobj",
        "numpy.isscalar",
        "numpy.result_type",
        "numpy.promote_types",
        "numpy.can_cast",
        "numpy.issubdtype",
        "math.prod",
        "math.ceil",
        "math.floor",
        "math.sqrt",
        "math.log",
    }
)

# the update methods of jax's `x.at[index]`: each takes the new values (or, `apply`, a function)
# calls that return a Python list or tuple of arrays (a pytree, not an array): a loop over
# one iterates its arrays, where a scan would walk each array's rows
SEQUENCE_RESULT_CALLS = frozenset(
    {
        *(
            f"jax.numpy.{name}"
            for name in (
                "split", "array_split", "vsplit", "hsplit", "dsplit", "unstack",
                "broadcast_arrays", "meshgrid", "gradient", "divmod", "frexp", "modf",
                "unravel_index", "tril_indices", "triu_indices", "tril_indices_from",
                "triu_indices_from", "diag_indices", "diag_indices_from", "mask_indices",
                "nonzero", "histogram", "histogram2d", "histogramdd", "ix_", "polyfit",
                "linalg.qr", "linalg.svd", "linalg.eigh", "linalg.eig", "linalg.slogdet",
                "linalg.lstsq",
            )
        ),
        "jax.lax.top_k", "jax.lax.sort_key_val", "jax.lax.scan", "jax.lax.linalg.qr",
        "jax.lax.linalg.svd", "jax.lax.linalg.eigh", "jax.tree_util.tree_leaves",
        "jax.tree_util.tree_flatten", "jax.tree.leaves", "jax.tree.flatten",
        "numpy.split", "numpy.array_split", "numpy.meshgrid", "numpy.nonzero",
        "builtins.divmod",
    }
)  # fmt: skip
# ... and these, called in some forms: `where(c)` (one argument), `atleast_2d(a, b)` (several),
# `unique(x, return_counts=True)` (a `return_*` keyword)
SEQUENCE_RESULT_FORMS = frozenset(
    {
        "jax.numpy.where", "jax.numpy.atleast_1d", "jax.numpy.atleast_2d",
        "jax.numpy.atleast_3d", "jax.numpy.unique", "numpy.where",
    }
)  # fmt: skip

AT_UPDATE_METHODS = frozenset(
    {"set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max", "apply"}
)

# jax names that are not arrays: dtypes and similar
JAX_ARRAY_RETURNING_STATIC = frozenset(
    {
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

# Which parameters of jax functions must be Python values under jit: shapes, sizes, axes, and
# the options jax reads at trace time (dtypes, modes). One table, checked against the real jax
# signatures by tests/test_jaxapi_table.py.
#
# qualified name -> {parameter name: its position among the positional parameters, or None
# when it is keyword-only}. "<method>.NAME" entries are array methods (positions after `self`);
# a "*" parameter means every positional argument (``x.reshape(2, n)``).
STATIC_PARAMETERS: dict[str, dict[str, int | None]] = {
    # -- jax.numpy: constructors
    "jax.numpy.zeros": {"shape": 0, "dtype": 1},
    "jax.numpy.ones": {"shape": 0, "dtype": 1},
    "jax.numpy.empty": {"shape": 0, "dtype": 1},
    "jax.numpy.full": {"shape": 0, "dtype": 2},
    "jax.numpy.zeros_like": {"dtype": 1, "shape": 2},
    "jax.numpy.ones_like": {"dtype": 1, "shape": 2},
    "jax.numpy.empty_like": {"dtype": 1, "shape": 2},
    "jax.numpy.full_like": {"dtype": 2, "shape": 3},
    "jax.numpy.eye": {"N": 0, "M": 1, "k": 2, "dtype": 3},
    "jax.numpy.identity": {"n": 0, "dtype": 1},
    "jax.numpy.tri": {"N": 0, "M": 1, "k": 2, "dtype": 3},
    "jax.numpy.arange": {"start": 0, "stop": 1, "step": 2, "dtype": 3},
    "jax.numpy.linspace": {"num": 2, "endpoint": 3, "retstep": 4, "dtype": 5, "axis": 6},
    "jax.numpy.logspace": {"num": 2, "endpoint": 3, "dtype": 5, "axis": 6},
    "jax.numpy.geomspace": {"num": 2, "endpoint": 3, "dtype": 4, "axis": 5},
    "jax.numpy.indices": {"dimensions": 0, "dtype": 1, "sparse": 2},
    "jax.numpy.diag_indices": {"n": 0, "ndim": 1},
    "jax.numpy.triu_indices": {"n": 0, "k": 1, "m": 2},
    "jax.numpy.tril_indices": {"n": 0, "k": 1, "m": 2},
    "jax.numpy.triu_indices_from": {"k": 1},
    "jax.numpy.tril_indices_from": {"k": 1},
    "jax.numpy.hamming": {"M": 0},
    "jax.numpy.hanning": {"M": 0},
    "jax.numpy.bartlett": {"M": 0},
    "jax.numpy.blackman": {"M": 0},
    "jax.numpy.kaiser": {"M": 0},
    "jax.numpy.vander": {"N": 1, "increasing": 2},
    "jax.numpy.astype": {"dtype": 1},
    "jax.numpy.asarray": {"dtype": 1},
    "jax.numpy.array": {"dtype": 1, "ndmin": None},
    # -- jax.numpy: shape manipulation
    "jax.numpy.reshape": {"shape": 1, "order": 2},
    "jax.numpy.resize": {"new_shape": 1},
    "jax.numpy.broadcast_to": {"shape": 1},
    "jax.numpy.expand_dims": {"axis": 1},
    "jax.numpy.squeeze": {"axis": 1},
    "jax.numpy.transpose": {"axes": 1},
    "jax.numpy.permute_dims": {"axes": 1},
    "jax.numpy.moveaxis": {"source": 1, "destination": 2},
    "jax.numpy.swapaxes": {"axis1": 1, "axis2": 2},
    "jax.numpy.rollaxis": {"axis": 1, "start": 2},
    "jax.numpy.tile": {"reps": 1},
    "jax.numpy.repeat": {"repeats": 1, "axis": 2, "total_repeat_length": None},
    "jax.numpy.pad": {"pad_width": 1, "mode": 2},
    "jax.numpy.split": {"indices_or_sections": 1, "axis": 2},
    "jax.numpy.array_split": {"indices_or_sections": 1, "axis": 2},
    "jax.numpy.hsplit": {"indices_or_sections": 1},
    "jax.numpy.vsplit": {"indices_or_sections": 1},
    "jax.numpy.dsplit": {"indices_or_sections": 1},
    "jax.numpy.concatenate": {"axis": 1},
    "jax.numpy.concat": {"axis": None},
    "jax.numpy.stack": {"axis": 1},
    "jax.numpy.unstack": {"axis": None},
    "jax.numpy.append": {"axis": 2},
    "jax.numpy.insert": {"axis": 3},
    "jax.numpy.delete": {"axis": 2},
    "jax.numpy.partition": {"kth": 1, "axis": 2},
    "jax.numpy.argpartition": {"kth": 1, "axis": 2},
    "jax.numpy.round": {"decimals": 1},
    "jax.numpy.around": {"decimals": 1},
    "jax.numpy.ravel": {"order": 1},
    "jax.numpy.meshgrid": {"copy": None, "sparse": None, "indexing": None},
    "jax.numpy.gradient": {"axis": None, "edge_order": None},
    "jax.numpy.apply_along_axis": {"axis": 1},
    "jax.numpy.linalg.svd": {"full_matrices": 1, "compute_uv": 2, "hermitian": 3},
    "jax.numpy.linalg.qr": {"mode": 1},
    "jax.image.resize": {"shape": 1, "method": 2, "antialias": 3},
    "jax.scipy.special.logsumexp": {"axis": 1, "keepdims": 3, "return_sign": 4},
    "jax.lax.reduce_window": {"window_dimensions": 3, "window_strides": 4, "padding": 5},
    "jax.numpy.flip": {"axis": 1},
    "jax.numpy.rot90": {"k": 1, "axes": 2},
    "jax.numpy.roll": {"axis": 2},  # the shift may be traced
    "jax.numpy.diag": {"k": 1},
    "jax.numpy.diagflat": {"k": 1},
    "jax.numpy.diagonal": {"offset": 1, "axis1": 2, "axis2": 3},
    "jax.numpy.trace": {"offset": 1, "axis1": 2, "axis2": 3},
    "jax.numpy.triu": {"k": 1},
    "jax.numpy.tril": {"k": 1},
    "jax.numpy.diff": {"n": 1, "axis": 2},
    "jax.numpy.unravel_index": {"shape": 1},
    "jax.numpy.einsum": {"subscripts": 0},
    "jax.numpy.tensordot": {"axes": 2},
    "jax.numpy.take": {"axis": 2, "mode": 4},
    "jax.numpy.take_along_axis": {"axis": 2, "mode": 3},
    "jax.numpy.put_along_axis": {"axis": 3, "mode": None},
    "jax.numpy.convolve": {"mode": 2},
    "jax.numpy.correlate": {"mode": 2},
    # -- jax.numpy: reductions and other axis= functions
    "jax.numpy.sum": {"axis": 1, "dtype": 2, "keepdims": 4},
    "jax.numpy.prod": {"axis": 1, "dtype": 2, "keepdims": 4},
    "jax.numpy.mean": {"axis": 1, "dtype": 2, "keepdims": 4},
    "jax.numpy.std": {"axis": 1, "dtype": 2, "ddof": 4, "keepdims": 5},
    "jax.numpy.var": {"axis": 1, "dtype": 2, "ddof": 4, "keepdims": 5},
    "jax.numpy.max": {"axis": 1, "keepdims": 3},
    "jax.numpy.min": {"axis": 1, "keepdims": 3},
    "jax.numpy.amax": {"axis": 1, "keepdims": 3},
    "jax.numpy.amin": {"axis": 1, "keepdims": 3},
    "jax.numpy.any": {"axis": 1, "keepdims": 3},
    "jax.numpy.all": {"axis": 1, "keepdims": 3},
    "jax.numpy.argmax": {"axis": 1, "keepdims": 3},
    "jax.numpy.argmin": {"axis": 1, "keepdims": 3},
    "jax.numpy.ptp": {"axis": 1, "keepdims": 3},
    "jax.numpy.median": {"axis": 1, "keepdims": 4},
    "jax.numpy.average": {"axis": 1, "returned": 3, "keepdims": 4},
    "jax.numpy.count_nonzero": {"axis": 1, "keepdims": 2},
    "jax.numpy.nansum": {"axis": 1, "dtype": 2, "keepdims": 4},
    "jax.numpy.nanmean": {"axis": 1, "dtype": 2, "keepdims": 4},
    "jax.numpy.nanmax": {"axis": 1, "keepdims": 3},
    "jax.numpy.nanmin": {"axis": 1, "keepdims": 3},
    "jax.numpy.cumsum": {"axis": 1, "dtype": 2},
    "jax.numpy.cumprod": {"axis": 1, "dtype": 2},
    "jax.numpy.sort": {"axis": 1, "kind": None},
    "jax.numpy.argsort": {"axis": 1, "kind": None},
    "jax.numpy.lexsort": {"axis": 1},
    "jax.numpy.quantile": {"axis": 2, "method": 5, "keepdims": 6},
    "jax.numpy.percentile": {"axis": 2, "method": 5, "keepdims": 6},
    "jax.numpy.searchsorted": {"side": 2, "method": None},
    "jax.numpy.bincount": {"length": None},
    "jax.numpy.histogram": {"bins": 1},
    "jax.numpy.linalg.norm": {"ord": 1, "axis": 2, "keepdims": 3},
    "jax.numpy.fft.fft": {"n": 1, "axis": 2, "norm": 3},
    "jax.numpy.fft.ifft": {"n": 1, "axis": 2, "norm": 3},
    "jax.numpy.fft.rfft": {"n": 1, "axis": 2, "norm": 3},
    "jax.numpy.fft.irfft": {"n": 1, "axis": 2, "norm": 3},
    # -- jax.numpy: functions whose result size depends on values: size= makes it static
    "jax.numpy.nonzero": {"size": None},
    "jax.numpy.flatnonzero": {"size": None},
    "jax.numpy.argwhere": {"size": None},
    "jax.numpy.where": {"size": None},
    "jax.numpy.unique": {
        "return_index": 1,
        "return_inverse": 2,
        "return_counts": 3,
        "axis": 4,
        "size": None,
    },
    "jax.numpy.extract": {"size": None},
    "jax.numpy.compress": {"axis": 2, "size": None},
    "jax.numpy.union1d": {"size": None},
    "jax.numpy.intersect1d": {"size": None},
    "jax.numpy.setdiff1d": {"size": None},
    # -- jax.lax
    "jax.lax.iota": {"dtype": 0, "size": 1},
    "jax.lax.broadcasted_iota": {"dtype": 0, "shape": 1, "dimension": 2},
    "jax.lax.full": {"shape": 0, "dtype": 2},
    "jax.lax.full_like": {"dtype": 2, "shape": 3},
    "jax.lax.broadcast": {"sizes": 1},
    "jax.lax.broadcast_in_dim": {"shape": 1, "broadcast_dimensions": 2},
    "jax.lax.reshape": {"new_sizes": 1, "dimensions": 2},
    "jax.lax.squeeze": {"dimensions": 1},
    "jax.lax.expand_dims": {"dimensions": 1},
    "jax.lax.transpose": {"permutation": 1},
    "jax.lax.rev": {"dimensions": 1},
    "jax.lax.tile": {"reps": 1},
    "jax.lax.concatenate": {"dimension": 1},
    "jax.lax.split": {"sizes": 1, "axis": 2},
    "jax.lax.slice": {"start_indices": 1, "limit_indices": 2, "strides": 3},
    "jax.lax.slice_in_dim": {"start_index": 1, "limit_index": 2, "stride": 3, "axis": 4},
    "jax.lax.dynamic_slice": {"slice_sizes": 2},
    "jax.lax.dynamic_slice_in_dim": {"slice_size": 2, "axis": 3},
    "jax.lax.dynamic_index_in_dim": {"axis": 2, "keepdims": 3},
    "jax.lax.dynamic_update_slice_in_dim": {"axis": 3},
    "jax.lax.dynamic_update_index_in_dim": {"axis": 3},
    "jax.lax.index_in_dim": {"index": 1, "axis": 2, "keepdims": 3},
    "jax.lax.reduce_sum": {"axes": 1},
    "jax.lax.reduce_max": {"axes": 1},
    "jax.lax.reduce_min": {"axes": 1},
    "jax.lax.reduce_prod": {"axes": 1},
    "jax.lax.argmax": {"axis": 1, "index_dtype": 2},
    "jax.lax.argmin": {"axis": 1, "index_dtype": 2},
    "jax.lax.cumsum": {"axis": 1, "reverse": 2},
    "jax.lax.cumprod": {"axis": 1, "reverse": 2},
    "jax.lax.cummax": {"axis": 1, "reverse": 2},
    "jax.lax.cummin": {"axis": 1, "reverse": 2},
    "jax.lax.sort": {"dimension": 1, "is_stable": 2, "num_keys": 3},
    "jax.lax.top_k": {"k": 1},
    "jax.lax.convert_element_type": {"new_dtype": 1},
    "jax.lax.scan": {"length": 3, "reverse": 4, "unroll": 5},
    "jax.lax.dot_general": {"dimension_numbers": 2, "precision": 3, "preferred_element_type": 4},
    "jax.lax.dot": {"dimension_numbers": None, "precision": None, "preferred_element_type": None},
    "jax.lax.conv_general_dilated": {
        "window_strides": 2, "padding": 3, "lhs_dilation": 4, "rhs_dilation": 5,
        "dimension_numbers": 6, "feature_group_count": 7,
    },  # fmt: skip
    "jax.lax.pad": {"padding_config": 2},
    "jax.lax.reduce_precision": {"exponent_bits": 1, "mantissa_bits": 2},
    # -- jax.random: shapes of samples, counts of keys
    "jax.random.split": {"num": 1},
    "jax.random.normal": {"shape": 1, "dtype": 2},
    "jax.random.uniform": {"shape": 1, "dtype": 2},
    "jax.random.randint": {"shape": 1, "dtype": 4},
    "jax.random.bits": {"shape": 1, "dtype": 2},
    "jax.random.exponential": {"shape": 1, "dtype": 2},
    "jax.random.laplace": {"shape": 1, "dtype": 2},
    "jax.random.logistic": {"shape": 1, "dtype": 2},
    "jax.random.cauchy": {"shape": 1, "dtype": 2},
    "jax.random.gumbel": {"shape": 1, "dtype": 2, "mode": 3},
    "jax.random.rademacher": {"shape": 1, "dtype": 2},
    "jax.random.maxwell": {"shape": 1, "dtype": 2},
    "jax.random.truncated_normal": {"shape": 3, "dtype": 4},
    "jax.random.bernoulli": {"shape": 2, "mode": 3},
    "jax.random.gamma": {"shape": 2, "dtype": 3},
    "jax.random.loggamma": {"shape": 2, "dtype": 3},
    "jax.random.poisson": {"shape": 2, "dtype": 3},
    "jax.random.dirichlet": {"shape": 2, "dtype": 3},
    "jax.random.geometric": {"shape": 2, "dtype": 3},
    "jax.random.t": {"shape": 2, "dtype": 3},
    "jax.random.chisquare": {"shape": 2, "dtype": 3},
    "jax.random.pareto": {"shape": 2, "dtype": 3},
    "jax.random.rayleigh": {"shape": 2, "dtype": 3},
    "jax.random.lognormal": {"shape": 2, "dtype": 3},
    "jax.random.beta": {"shape": 3, "dtype": 4},
    "jax.random.binomial": {"shape": 3, "dtype": 4},
    "jax.random.multivariate_normal": {"shape": 3, "dtype": 4, "method": 5},
    "jax.random.orthogonal": {"n": 1, "shape": 2, "dtype": 3, "m": 4},
    "jax.random.ball": {"d": 1, "p": 2, "shape": 3, "dtype": 4},
    "jax.random.choice": {"shape": 2, "replace": 3, "axis": 5, "mode": 6},
    "jax.random.categorical": {"axis": 2, "shape": 3, "replace": 4, "mode": 5},
    "jax.random.permutation": {"axis": 2, "independent": 3},
    # -- jax.nn
    "jax.nn.one_hot": {"num_classes": 1, "dtype": None, "axis": None},
    "jax.nn.softmax": {"axis": 1},
    "jax.nn.log_softmax": {"axis": 1},
    "jax.nn.logsumexp": {"axis": 1, "keepdims": 3, "return_sign": 4},
    "jax.nn.standardize": {"axis": 1},
    "jax.nn.glu": {"axis": 1},
    # -- array methods (positions after `self`)
    "<method>.reshape": {"*": 0, "order": None},
    "<method>.transpose": {"*": 0},
    "<method>.astype": {"dtype": 0},
    "<method>.sum": {"axis": 0, "dtype": 1, "keepdims": 3},
    "<method>.prod": {"axis": 0, "dtype": 1, "keepdims": 3},
    "<method>.mean": {"axis": 0, "dtype": 1, "keepdims": 3},
    "<method>.std": {"axis": 0, "dtype": 1, "ddof": 3, "keepdims": 4},
    "<method>.var": {"axis": 0, "dtype": 1, "ddof": 3, "keepdims": 4},
    "<method>.max": {"axis": 0, "keepdims": 2},
    "<method>.min": {"axis": 0, "keepdims": 2},
    "<method>.any": {"axis": 0, "keepdims": 2},
    "<method>.all": {"axis": 0, "keepdims": 2},
    "<method>.argmax": {"axis": 0, "keepdims": 2},
    "<method>.argmin": {"axis": 0, "keepdims": 2},
    "<method>.ptp": {"axis": 0, "keepdims": 2},
    "<method>.cumsum": {"axis": 0, "dtype": 1},
    "<method>.cumprod": {"axis": 0, "dtype": 1},
    "<method>.squeeze": {"axis": 0},
    "<method>.swapaxes": {"axis1": 0, "axis2": 1},
    "<method>.repeat": {"repeats": 0, "axis": 1, "total_repeat_length": None},
    "<method>.sort": {"axis": 0, "kind": None},
    # (not `.flatten(order)` / `.view(dtype)`: other objects' methods of those names take other
    # things, `registry.flatten(xs)`, and a method is matched by its name alone)
    "<method>.round": {"decimals": 0},
    "<method>.argsort": {"axis": 0, "kind": None},
    "<method>.diagonal": {"offset": 0, "axis1": 1, "axis2": 2},
    "<method>.take": {"axis": 1, "mode": 3},
    "<method>.nonzero": {"size": None},
}

# the functions whose result size depends on the values unless `size=` is given
SIZE_OPTIONAL = frozenset(
    {
        "jax.numpy.nonzero",
        "jax.numpy.flatnonzero",
        "jax.numpy.argwhere",
        "jax.numpy.unique",
        "jax.numpy.extract",
        "jax.numpy.compress",
    }
)

# the arguments of jax transforms that must be Python callables: name -> positions / keywords
CALLABLE_PARAMETERS: dict[str, dict[str, int | None]] = {
    "jax.jit": {"fun": 0},
    "jax.vmap": {"fun": 0},
    "jax.grad": {"fun": 0},
    "jax.value_and_grad": {"fun": 0},
    "jax.jacfwd": {"fun": 0},
    "jax.jacrev": {"fun": 0},
    "jax.hessian": {"fun": 0},
    "jax.checkpoint": {"fun": 0},
    "jax.lax.map": {"f": 0},
    "jax.lax.scan": {"f": 0},
    "jax.lax.fori_loop": {"body_fun": 2},
    "jax.lax.while_loop": {"cond_fun": 0, "body_fun": 1},
    "jax.lax.cond": {"true_fun": 1, "false_fun": 2},
    "jax.lax.associative_scan": {"fn": 0},
}


def _as_spec(params: dict[str, int | None]) -> tuple:
    if "*" in params:
        return "*", frozenset(k for k in params if k != "*")
    return (
        frozenset(p for p in params.values() if p is not None),
        frozenset(params),
    )


# The same table as (positional indices or "*", keyword names), for quick lookups.
SHAPE_ARGUMENTS: dict[str, tuple] = {k: _as_spec(v) for k, v in STATIC_PARAMETERS.items()}
CALLABLE_ARGUMENTS: dict[str, tuple] = {k: _as_spec(v) for k, v in CALLABLE_PARAMETERS.items()}


# jax.numpy functions that work item by item (on broadcast arguments): their result at each
# position depends on their arguments' items there only
ELEMENTWISE_FUNCTIONS = frozenset(
    """abs absolute negative positive sign square sqrt cbrt exp exp2 expm1 log log1p log2 log10
    sin cos tan arcsin arccos arctan arctan2 sinh cosh tanh arcsinh arccosh arctanh floor ceil
    round rint trunc fix maximum minimum fmax fmin clip where add subtract multiply divide
    true_divide floor_divide mod remainder power float_power reciprocal logical_and logical_or
    logical_not logical_xor isnan isinf isfinite greater less equal not_equal greater_equal
    less_equal asarray float32 float16 bfloat16 int32 int8 int16 uint8 uint32 bool_ heaviside
    hypot copysign deg2rad rad2deg radians degrees""".split()
)
