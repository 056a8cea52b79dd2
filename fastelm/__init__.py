"""fastelm: randomized-weight neural networks (ELM, OS-ELM, FOS-ELM, BLS, DE-ELM) on Numba kernels.

Kernels compile on first use (and are cached on disk), not at import.
"""
from .elm import ELMClassifier, ELMRegressor, OSELMClassifier, OSELMRegressor

__version__ = "0.1.0"

__all__ = ["ELMClassifier", "ELMRegressor", "OSELMClassifier", "OSELMRegressor"]
