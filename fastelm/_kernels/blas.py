"""BLAS routines that Numba's ``np.dot`` does not reach, called from compiled kernels.

``gram_lower(A, G, n)``: G's lower triangle (C order) ← A[:n]ᵀ A[:n] by BLAS ``dsyrk`` (half the
flops of the general product ``np.dot(A.T, A)``), A (·×p) and G (p×p) C-contiguous float64.
The routine is SciPy's (``scipy.linalg.cython_blas``, the BLAS numpy's ``matmul`` and Numba's
``np.linalg`` also reach through SciPy), registered with LLVM under a fixed symbol name when this
module is imported: compiled kernels refer to it by name, so they stay cacheable on disk.
With ``NUMBA_DISABLE_JIT=1`` (kernels run as plain Python, as the mutation runs of
``mutation/`` do) an intrinsic cannot run, and ``gram_lower`` is ``gram_lower_numpy``.
"""
import numpy as np
from llvmlite import binding as llvm
from llvmlite import ir
from numba.core import cgutils, config, types
from numba.extending import get_cython_function_address, intrinsic

_SYRK = "fastelm_dsyrk"
llvm.add_symbol(_SYRK, get_cython_function_address("scipy.linalg.cython_blas", "dsyrk"))


@intrinsic
def gram_lower(typingctx, A, G, n):
    """G's lower triangle ← A[:n]ᵀ A[:n] (the strict upper triangle is left as it was)."""
    sig = types.void(A, G, n)

    def codegen(context, builder, signature, args):
        a, g, rows = args
        a = cgutils.create_struct_proxy(signature.args[0])(context, builder, value=a)
        g = cgutils.create_struct_proxy(signature.args[1])(context, builder, value=g)
        i32, f64, i8 = ir.IntType(32), ir.DoubleType(), ir.IntType(8)

        def pointer(value):
            return cgutils.alloca_once_value(builder, value)

        p = pointer(builder.trunc(builder.extract_value(g.shape, 0), i32))
        k = pointer(builder.trunc(rows, i32))
        # Fortran's view of C-ordered A (n×p) is X = Aᵀ (p×n, leading dimension p): X Xᵀ = AᵀA,
        # and Fortran's upper triangle of G is C's lower
        fnty = ir.FunctionType(ir.VoidType(), [i8.as_pointer()] * 2 + [i32.as_pointer()] * 2 +
                               [f64.as_pointer()] * 2 + [i32.as_pointer()] +
                               [f64.as_pointer()] * 2 + [i32.as_pointer()])
        syrk = cgutils.get_or_insert_function(builder.module, fnty, _SYRK)
        builder.call(syrk, [pointer(i8(ord("U"))), pointer(i8(ord("N"))), p, k,
                            pointer(f64(1.0)), builder.bitcast(a.data, f64.as_pointer()), p,
                            pointer(f64(0.0)), builder.bitcast(g.data, f64.as_pointer()), p])
        return context.get_dummy_value()

    return sig, codegen


def gram_lower_numpy(A, G, n):
    """``gram_lower`` in NumPy: G's lower triangle ← A[:n]ᵀ A[:n], the strict upper left."""
    lower = np.tril_indices(G.shape[0])
    G[lower] = (A[:n].T @ A[:n])[lower]


if config.DISABLE_JIT:
    gram_lower = gram_lower_numpy  # noqa: F811 (no intrinsic runs without the compiler)
