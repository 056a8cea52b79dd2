"""fastelm: randomized-weight neural networks (ELM, OS-ELM, FOS-ELM, BLS, DE-ELM) on Numba kernels.

Kernels compile on first use (and are cached on disk), not at import.
"""
from .bls import BLSClassifier, BLSRegressor
from .elm import ELMClassifier, ELMRegressor, OSELMClassifier, OSELMRegressor
from .de_elm import DEELMClassifier, DEELMRegressor, StrategySelection, select_strategy
from .deelm_ssc import DEELMSSC, DEELMSSCPlus, TriDEELM
from .fos_elm import FOSELMClassifier, FOSELMRegressor
from .global_sensitivity import (EFASTResult, efast, efast_analyze, efast_sample,
                                 hidden_node_sensitivity)
from .model_selection import BLSClassifierCV, BLSRegressorCV, ELMClassifierCV, ELMRegressorCV
from .op_elm import OPELMClassifier, OPELMRegressor
from .semi_supervised import TriTrainingClassifier

__version__ = "0.1.0"

__all__ = [
    "ELMClassifier", "ELMRegressor", "OSELMClassifier", "OSELMRegressor",
    "OPELMClassifier", "OPELMRegressor",
    "FOSELMClassifier", "FOSELMRegressor", "BLSClassifier", "BLSRegressor",
    "ELMRegressorCV", "ELMClassifierCV", "BLSRegressorCV", "BLSClassifierCV",
    "DEELMClassifier", "DEELMRegressor", "StrategySelection", "select_strategy",
    "TriTrainingClassifier", "DEELMSSC", "DEELMSSCPlus", "TriDEELM",
    "EFASTResult", "efast", "efast_analyze", "efast_sample", "hidden_node_sensitivity",
]
