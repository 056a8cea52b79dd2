"""
OP-ELM: the leave-one-out error of every prefix
===============================================

:class:`~fastelm.OPELMRegressor` ranks the hidden nodes by multiresponse sparse regression and
keeps the k first whose least-squares readout has the least exact leave-one-out error (PRESS).
``press_`` holds that error for every k; the model keeps its argmin.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_friedman1

from fastelm import ELMRegressor, OPELMRegressor

X, y = make_friedman1(1500, noise=0.5, random_state=0)
op = OPELMRegressor(n_hidden=200, random_state=0).fit(X[:1000], y[:1000])
full = ELMRegressor(n_hidden=200, alpha=0.0, random_state=0).fit(X[:1000], y[:1000])
print(f"kept {op.n_selected_} of 200 nodes; test R²: OP-ELM {op.score(X[1000:], y[1000:]):.3f}, "
      f"ELM with all 200 {full.score(X[1000:], y[1000:]):.3f}")

k = np.arange(1, len(op.press_) + 1)
fig, ax = plt.subplots(figsize=(6, 3.5))
ax.plot(k, op.press_ / 1000, lw=1.5)
ax.axvline(op.n_selected_, color="grey", ls="--", lw=1, label=f"kept: k = {op.n_selected_}")
ax.set(yscale="log", xlabel="top-ranked nodes k", ylabel="leave-one-out MSE (PRESS / N)",
       title="OPELMRegressor on Friedman #1")
ax.legend()
fig.tight_layout()
