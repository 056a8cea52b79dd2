"""
FOS-ELM: pruning hidden nodes online
====================================

:class:`~fastelm.FOSELMRegressor` is an OS-ELM that, after every chunk, ranks its hidden nodes
by EFAST total sensitivity and drops those below ``delta``, re-adjusting the readout exactly.
Below: the layer's size after each chunk, and the test error of the pruned model against an
OS-ELM that keeps all 200 nodes.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_friedman2
from sklearn.preprocessing import MinMaxScaler

from fastelm import FOSELMRegressor, OSELMRegressor

X, y = make_friedman2(5000, noise=125, random_state=0)
X, y = MinMaxScaler().fit_transform(X), (y - y.min()) / np.ptp(y)
fos = FOSELMRegressor(n_hidden=200, alpha=0.1, delta=0.4 / 200, random_state=0)
full = OSELMRegressor(n_hidden=200, alpha=0.1, random_state=0)
for chunk in np.array_split(np.arange(4000), 10):
    fos.partial_fit(X[chunk], y[chunk])
    full.partial_fit(X[chunk], y[chunk])
rmse = lambda model: np.sqrt(np.mean((model.predict(X[4000:]) - y[4000:]) ** 2))
print("nodes after each chunk:", list(fos.n_nodes_history_))
print(f"test RMSE: FOS-ELM {rmse(fos):.4f} with {fos.n_nodes_} nodes, OS-ELM {rmse(full):.4f} with 200")

fig, ax = plt.subplots(figsize=(6, 3.5))
ax.step(np.arange(1, len(fos.n_nodes_history_) + 1), fos.n_nodes_history_, where="post")
ax.set(xlabel="chunks learned (400 rows each)", ylabel="hidden nodes kept",
       title="FOSELMRegressor on Friedman #2 (L0 = 200)", ylim=(0, 210))
fig.tight_layout()
