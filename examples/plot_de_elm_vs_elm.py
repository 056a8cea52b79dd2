"""
DE-ELM against a plain ELM
==========================

:class:`~fastelm.DEELMClassifier` tunes the input weights of a small ELM by differential
evolution on a validation part of the training rows. With few hidden nodes the tuned layer
beats random layers of the same size; the box plot shows test accuracy over six seeds.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from fastelm import DEELMClassifier, ELMClassifier

X, y = load_breast_cancer(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0,
                                                    stratify=y)
scaler = StandardScaler().fit(X_train)
X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
seeds = range(6)
elm = [ELMClassifier(n_hidden=10, alpha=1e-3, random_state=s).fit(X_train, y_train)
       .score(X_test, y_test) for s in seeds]
de = [DEELMClassifier(n_hidden=10, random_state=s).fit(X_train, y_train).score(X_test, y_test)
      for s in seeds]
print(f"ELM, 10 nodes: {np.mean(elm):.3f} ± {np.std(elm):.3f}")
print(f"DE-ELM, 10 nodes: {np.mean(de):.3f} ± {np.std(de):.3f}")

fig, ax = plt.subplots(figsize=(5, 3.5))
ax.boxplot([elm, de])
ax.set_xticks([1, 2], ["ELM (random layer)", "DE-ELM (tuned layer)"])
ax.set(ylabel="test accuracy", title="10 hidden nodes, breast cancer, 6 seeds")
fig.tight_layout()
