import numpy as np
import pytest

from fastelm.metrics import (
    accuracy,
    classification_report_dict,
    f_measure,
    precision,
    rmse,
    sensitivity,
    specificity,
)


def _from_confusion(matrix, labels):
    """Label vectors whose confusion matrix (rows true, columns predicted) is `matrix`."""
    y_true, y_pred = [], []
    for i, row in enumerate(matrix):
        for j, count in enumerate(row):
            y_true += [labels[i]] * count
            y_pred += [labels[j]] * count
    return np.array(y_true), np.array(y_pred)


# binary, rows/columns (negative 0, positive 1): TN=4, FP=2, FN=1, TP=3
Y_TRUE, Y_PRED = _from_confusion([[4, 2], [1, 3]], [0, 1])


def test_binary_metrics_against_hand_computed_confusion_matrix():
    assert accuracy(Y_TRUE, Y_PRED) == pytest.approx(7 / 10)
    assert precision(Y_TRUE, Y_PRED) == pytest.approx(3 / 5)
    assert sensitivity(Y_TRUE, Y_PRED) == pytest.approx(3 / 4)
    assert specificity(Y_TRUE, Y_PRED) == pytest.approx(4 / 6)
    assert f_measure(Y_TRUE, Y_PRED) == pytest.approx(2 * 3 / (2 * 3 + 2 + 1))


def test_pos_label_swaps_roles():
    # class 0 as positive: TP=4, FN=2, FP=1, TN=3
    assert precision(Y_TRUE, Y_PRED, pos_label=0) == pytest.approx(4 / 5)
    assert sensitivity(Y_TRUE, Y_PRED, pos_label=0) == pytest.approx(4 / 6)
    assert specificity(Y_TRUE, Y_PRED, pos_label=0) == pytest.approx(3 / 4)
    assert specificity(Y_TRUE, Y_PRED, pos_label=0) == pytest.approx(
        sensitivity(Y_TRUE, Y_PRED, pos_label=1))


def test_string_labels():
    y_true, y_pred = _from_confusion([[5, 1], [2, 2]], ["benign", "malignant"])
    report = classification_report_dict(y_true, y_pred, pos_label="malignant")
    assert report == pytest.approx({
        "accuracy": 7 / 10,
        "precision": 2 / 3,
        "sensitivity": 2 / 4,
        "specificity": 5 / 6,
        "f_measure": 2 * 2 / (2 * 2 + 1 + 2),
    })


def test_report_has_the_five_metrics():
    report = classification_report_dict(Y_TRUE, Y_PRED, 1)
    assert set(report) == {"accuracy", "precision", "sensitivity", "specificity", "f_measure"}
    assert all(isinstance(v, float) for v in report.values())


# three classes, rows true, columns predicted
MULTI = [[3, 1, 0], [0, 2, 2], [1, 0, 1]]


def test_macro_specificity_multiclass():
    y_true, y_pred = _from_confusion(MULTI, [0, 1, 2])
    # class 0: TN = 10-3-1-1 = 5, FP = 1; class 1: TN = 5, FP = 1; class 2: TN = 6, FP = 2
    expected = (5 / 6 + 5 / 6 + 6 / 8) / 3
    assert specificity(y_true, y_pred, average="macro") == pytest.approx(expected)


def test_macro_report_multiclass():
    y_true, y_pred = _from_confusion(MULTI, ["a", "b", "c"])
    report = classification_report_dict(y_true, y_pred, average="macro")
    assert report["accuracy"] == pytest.approx(6 / 10)
    assert report["precision"] == pytest.approx((3 / 4 + 2 / 3 + 1 / 3) / 3)
    assert report["sensitivity"] == pytest.approx((3 / 4 + 2 / 4 + 1 / 2) / 3)
    f_per_class = [2 * 3 / (6 + 1 + 1), 2 * 2 / (4 + 1 + 2), 2 * 1 / (2 + 2 + 1)]
    assert report["f_measure"] == pytest.approx(np.mean(f_per_class))


def test_binary_specificity_rejects_multiclass_and_bad_pos_label():
    y_true, y_pred = _from_confusion(MULTI, [0, 1, 2])
    with pytest.raises(ValueError, match="macro"):
        specificity(y_true, y_pred)
    with pytest.raises(ValueError, match="pos_label"):
        specificity(Y_TRUE, Y_PRED, pos_label=2)
    with pytest.raises(ValueError, match="average"):
        specificity(Y_TRUE, Y_PRED, average="weighted")


def test_zero_division():
    y_true = np.array([1, 1, 1])
    y_pred = np.array([1, 0, 1])
    # no negative sample: TN + FP = 0
    assert specificity(y_true, y_pred) == 0.0
    assert specificity(y_true, y_pred, zero_division=1.0) == 1.0
    # no predicted positive: TP + FP = 0
    assert precision(np.array([0, 1]), np.array([0, 0])) == 0.0


@pytest.mark.mutant
def test_zero_division_is_silent():
    """TN + FP = 0 gives zero_division without a RuntimeWarning, for one class or a macro
    average over classes of which one has no negative (planted: ``tn / denominator`` without
    the floor, 0/0 computed and then discarded by np.where, warning)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert specificity(np.array([1, 1, 1]), np.array([1, 0, 1])) == 0.0
        assert specificity(np.array([0, 0, 0]), np.array([0, 0, 0]), average="macro",
                           zero_division=0.5) == 0.5


@pytest.mark.mutant
def test_specificity_of_one_label_and_of_one_negative_sample():
    """Binary specificity where one label appears (pos_label present or absent: no error) and
    where TN + FP = 1 (one negative: 1 or 0, not zero_division), against hand counts
    (planted by cosmic-ray: ``labels.size > 2`` → ``!= 2``, ``labels.size == 2 and ...`` →
    ``<= 2``, ``denominator > 0`` → ``> 1``, ``np.maximum(denominator, 1)`` → ``2``)."""
    assert specificity(np.array([1, 1]), np.array([1, 1]), zero_division=0.25) == 0.25
    assert specificity(np.array([0, 0, 0]), np.array([0, 0, 0])) == 1.0  # TN = 3, FP = 0
    assert specificity(np.array([0, 1, 1]), np.array([0, 1, 0])) == 1.0  # TN = 1, FP = 0
    assert specificity(np.array([0, 1, 1]), np.array([1, 1, 0])) == 0.0  # TN = 0, FP = 1


@pytest.mark.mutant
@pytest.mark.parametrize("metric", [precision, sensitivity, specificity, f_measure])
def test_options_are_keyword_only_and_the_labels_keywords(metric):
    """y_true and y_pred may be named; pos_label, average and zero_division must be (planted
    by cosmic-ray: the ``*`` of the signature written ``/``)."""
    assert metric(y_true=Y_TRUE, y_pred=Y_PRED) == metric(Y_TRUE, Y_PRED, pos_label=1)
    with pytest.raises(TypeError):
        metric(Y_TRUE, Y_PRED, 0)


@pytest.mark.mutant
def test_report_default_positive_class_is_1():
    """classification_report_dict's default pos_label is 1, the patients (planted by
    cosmic-ray: the default 0)."""
    assert classification_report_dict(Y_TRUE, Y_PRED) == \
        classification_report_dict(Y_TRUE, Y_PRED, pos_label=1)
    assert classification_report_dict(Y_TRUE, Y_PRED)["sensitivity"] == 0.75  # TP / (TP + FN)


@pytest.mark.mutant
def test_f_measure_zero_division_default_and_any_bad_average_refused():
    """f_measure and sensitivity without any positive are 0 by default, as sklearn's; an
    average other than 'binary' or 'macro' is refused whatever its place in the alphabet
    (planted by cosmic-ray: their default 1.0; ``average != 'macro'`` written ``>``, which
    accepts 'all' as 'macro')."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn's own zero-division warning
        assert f_measure(np.array([0, 0]), np.array([0, 0])) == 0.0
        assert sensitivity(np.array([0, 0]), np.array([0, 0])) == 0.0  # no true positive
    for average in ("all", "weighted", "micro"):
        with pytest.raises(ValueError, match="average"):
            specificity(Y_TRUE, Y_PRED, average=average)


def test_perfect_prediction():
    report = classification_report_dict(Y_TRUE, Y_TRUE)
    assert report == pytest.approx(dict.fromkeys(report, 1.0))


def test_rmse():
    assert rmse([1.0, 2.0, 3.0], [1.0, 2.0, 5.0]) == pytest.approx(np.sqrt(4 / 3))
    assert rmse([0.0, 0.0], [3.0, -4.0]) == pytest.approx(np.sqrt(25 / 2))
    # two outputs: mean of the per-output RMSEs
    y_true = np.zeros((2, 2))
    y_pred = np.array([[1.0, 0.0], [1.0, 2.0]])
    assert rmse(y_true, y_pred) == pytest.approx((1.0 + np.sqrt(2.0)) / 2)
