"""Pure Numba kernels: functions over arrays, no Python objects, compiled lazily and cached."""
