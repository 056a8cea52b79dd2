"""
Choosing the penalty and the hidden size by cross-validation
============================================================

:class:`~fastelm.ELMClassifierCV` scores every (penalty, hidden size) pair from one pass of Gram
sums per fold, instead of refitting for each point as ``GridSearchCV`` would; its
``cv_results_`` has ``GridSearchCV``'s layout. Below: the mean validation score against the
penalty, one curve per hidden size.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from fastelm import ELMClassifierCV

X, y = load_digits(return_X_y=True)
X = X / 16.0
alphas = np.logspace(-6, 2, 9)
search = ELMClassifierCV(n_hidden=600, hidden_sizes=[100, 200, 400, 600], alphas=alphas,
                         scoring="accuracy", random_state=0).fit(X[:1500], y[:1500])
print("chosen:", search.best_params_, "held-out accuracy", round(search.score(X[1500:], y[1500:]), 3))

results = search.cv_results_
fig, ax = plt.subplots(figsize=(6, 3.5))
for size in [100, 200, 400, 600]:
    rows = [i for i, p in enumerate(results["params"]) if p["n_hidden"] == size]
    order = np.argsort([results["params"][i]["alpha"] for i in rows])
    rows = np.asarray(rows)[order]
    ax.errorbar([results["params"][i]["alpha"] for i in rows], results["mean_test_score"][rows],
                yerr=results["std_test_score"][rows], marker="o", ms=3, capsize=2,
                label=f"L = {size}")
ax.set(xscale="log", xlabel="ridge penalty alpha", ylabel="5-fold CV accuracy",
       title="ELMClassifierCV on digits (error bars: sd over folds)")
ax.legend()
fig.tight_layout()
