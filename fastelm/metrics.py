"""The metrics reported in the papers.

With the confusion matrix of a binary problem (positive = patient class, ``pos_label``)::

    accuracy    = (TP + TN) / (TP + TN + FP + FN)
    precision   = TP / (TP + FP)
    sensitivity = TP / (TP + FN)          recall of the positive class
    specificity = TN / (TN + FP)          recall of the negative class
    f_measure   = 2 * precision * sensitivity / (precision + sensitivity)
    rmse        = sqrt(mean((y_true - y_pred) ** 2))

``average='macro'`` treats each class in turn as positive and averages the per-class values.
A ratio whose denominator is zero is `zero_division` (0 by default), without a warning.
"""
from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike
from sklearn.metrics import (
    accuracy_score,
    f1_score,
    multilabel_confusion_matrix,
    precision_score,
    recall_score,
    root_mean_squared_error,
)

__all__ = [
    "accuracy",
    "classification_report_dict",
    "f_measure",
    "precision",
    "rmse",
    "sensitivity",
    "specificity",
]


def accuracy(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Fraction of correctly classified samples.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels.

    Returns
    -------
    accuracy : float
    """
    return float(accuracy_score(y_true, y_pred))


def precision(y_true: ArrayLike, y_pred: ArrayLike, *, pos_label: int | str = 1,
              average: str = "binary", zero_division: float = 0.0) -> float:
    """Precision TP / (TP + FP) of the positive class, or averaged over classes.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels.
    pos_label : int or str, default=1
        The positive class when ``average='binary'``.
    average : {'binary', 'macro', 'micro', 'weighted'}, default='binary'
        As in :func:`sklearn.metrics.precision_score`.
    zero_division : float, default=0.0
        Value returned when there is no predicted positive.

    Returns
    -------
    precision : float
    """
    return float(precision_score(y_true, y_pred, pos_label=pos_label, average=average,
                                 zero_division=zero_division))


def sensitivity(y_true: ArrayLike, y_pred: ArrayLike, *, pos_label: int | str = 1,
                average: str = "binary", zero_division: float = 0.0) -> float:
    """Sensitivity (recall) TP / (TP + FN) of the positive class, or averaged over classes.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels.
    pos_label : int or str, default=1
        The positive class when ``average='binary'``.
    average : {'binary', 'macro', 'micro', 'weighted'}, default='binary'
        As in :func:`sklearn.metrics.recall_score`.
    zero_division : float, default=0.0
        Value returned when the denominator is zero.

    Returns
    -------
    sensitivity : float
    """
    return float(recall_score(y_true, y_pred, pos_label=pos_label, average=average,
                              zero_division=zero_division))


def specificity(y_true: ArrayLike, y_pred: ArrayLike, *, pos_label: int | str = 1,
                average: str = "binary", zero_division: float = 0.0) -> float:
    """Specificity TN / (TN + FP): the recall of the negative class.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels.
    pos_label : int or str, default=1
        The positive class when ``average='binary'``; every other label is negative.
    average : {'binary', 'macro'}, default='binary'
        'macro' computes each class's specificity (that class positive, the rest
        negative) and takes their unweighted mean.
    zero_division : float, default=0.0
        Value returned for a class with no true negative sample (TN + FP = 0).

    Returns
    -------
    specificity : float
    """
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    labels = np.unique(np.concatenate([y_true.ravel(), y_pred.ravel()]))
    if average == "binary":
        if labels.size > 2:
            raise ValueError(f"average='binary' needs at most 2 labels, got {labels.tolist()};"
                             " use average='macro'")
        if labels.size == 2 and pos_label not in labels:
            raise ValueError(f"pos_label={pos_label!r} is not a valid label: {labels.tolist()}")
        labels = np.array([pos_label])
    elif average != "macro":
        raise ValueError(f"average must be 'binary' or 'macro', got {average!r}")
    # one 2 x 2 matrix [[TN, FP], [FN, TP]] per label, that label being positive
    matrices = multilabel_confusion_matrix(y_true, y_pred, labels=labels)
    tn, fp = matrices[:, 0, 0], matrices[:, 0, 1]
    denominator = tn + fp
    per_class = np.where(denominator > 0, tn / np.maximum(denominator, 1), zero_division)
    return float(per_class.mean())


def f_measure(y_true: ArrayLike, y_pred: ArrayLike, *, pos_label: int | str = 1,
              average: str = "binary", zero_division: float = 0.0) -> float:
    """F-measure, the harmonic mean of precision and sensitivity.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels.
    pos_label : int or str, default=1
        The positive class when ``average='binary'``.
    average : {'binary', 'macro', 'micro', 'weighted'}, default='binary'
        As in :func:`sklearn.metrics.f1_score`.
    zero_division : float, default=0.0
        Value returned when the denominator is zero.

    Returns
    -------
    f_measure : float
    """
    return float(f1_score(y_true, y_pred, pos_label=pos_label, average=average,
                          zero_division=zero_division))


def rmse(y_true: ArrayLike, y_pred: ArrayLike) -> float:
    """Root mean squared error, averaged over outputs for 2-D targets.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,) or (n_samples, n_outputs)
        True and predicted targets.

    Returns
    -------
    rmse : float
    """
    return float(root_mean_squared_error(y_true, y_pred))


def classification_report_dict(y_true: ArrayLike, y_pred: ArrayLike, pos_label: int | str = 1,
                               *, average: str = "binary") -> dict[str, float]:
    """Accuracy, precision, sensitivity, specificity and f_measure in one dict.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n_samples,)
        True and predicted labels.
    pos_label : int or str, default=1
        The positive (patient) class when ``average='binary'``.
    average : {'binary', 'macro'}, default='binary'
        Averaging of the four per-class metrics.

    Returns
    -------
    report : dict
        ``{'accuracy', 'precision', 'sensitivity', 'specificity', 'f_measure'}`` to floats.
    """
    kwargs: dict = {"pos_label": pos_label, "average": average}
    return {
        "accuracy": accuracy(y_true, y_pred),
        "precision": precision(y_true, y_pred, **kwargs),
        "sensitivity": sensitivity(y_true, y_pred, **kwargs),
        "specificity": specificity(y_true, y_pred, **kwargs),
        "f_measure": f_measure(y_true, y_pred, **kwargs),
    }
