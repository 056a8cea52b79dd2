"""Target coding: the compiled one-hot pass of numeric labels equals numpy's coding, and any
label outside ``classes`` is refused with the labels named, on both paths."""
import numpy as np
import pytest

from fastelm import OSELMClassifier
from fastelm._targets import one_hot

rng = np.random.default_rng(0)
CLASSES = np.array([-3, 0, 2, 7, 11])
LABELS = rng.choice(CLASSES, 500)


def _reference(y, classes, dtype):
    return (np.asarray(y)[:, None] == classes[None, :]).astype(dtype)


@pytest.mark.parametrize("kind", ["int64", "int32", "int8", "float64", "float32", "uint16",
                                  "bool", "str", "object", "strided", "many", ">i8", ">f8"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8])
def test_one_hot_equals_the_comparison_with_each_class(kind, dtype):
    if kind == "bool":
        y, classes = LABELS > 2, np.array([False, True])
    elif kind == "str":
        y, classes = LABELS.astype(str), np.sort(CLASSES.astype(str))
    elif kind == "object":
        y, classes = LABELS.astype(object), CLASSES.astype(object)
    elif kind == "strided":
        y, classes = np.repeat(LABELS, 2)[::2], CLASSES
    elif kind == "many":  # more classes than the compiled pass scans: a binary search
        classes = np.arange(-20, 40, 3)
        y = rng.choice(classes, 500)
    elif kind == "uint16":
        y, classes = (LABELS + 3).astype(kind), (CLASSES + 3).astype(kind)
    else:
        y, classes = LABELS.astype(kind), CLASSES.astype(kind)
    T = one_hot(y, classes, dtype)
    assert T.dtype == dtype
    np.testing.assert_array_equal(T, _reference(y, classes, dtype))
    np.testing.assert_array_equal(T.sum(axis=1), 1)


@pytest.mark.parametrize("unseen", [1, 12, -4, 2.5, np.nan])
def test_one_hot_refuses_a_label_outside_the_classes_and_names_it(unseen):
    many = np.arange(-20, 40, 3)  # the binary-search path
    with pytest.raises(ValueError, match=r"labels not in classes_.*: \[-19\]"):
        one_hot(np.r_[many, -19], many, np.float64)
    y = LABELS.astype(float)
    y[[3, 400]] = unseen
    with pytest.raises(ValueError, match=r"labels not in classes_ \[-3\.0, 0\.0, 2\.0, 7\.0, "
                                         r"11\.0\]: \[" + (r"nan" if np.isnan(unseen)
                                                           else str(float(unseen)))):
        one_hot(y, CLASSES.astype(float), np.float64)
    if float(unseen).is_integer():  # the same with integer labels (NaN is not)
        with pytest.raises(ValueError, match=rf"labels not in classes_.*: \[{int(unseen)}\]"):
            one_hot(y.astype(int), CLASSES, np.float64)


def test_integer_labels_skip_no_check_a_classifier_needs():
    """Integer labels are coded without scikit-learn's np.unique pass; continuous float labels
    are still refused at the first call and a later one."""
    X = rng.standard_normal((60, 3))
    with pytest.raises(ValueError, match="Unknown label type"):
        OSELMClassifier(n_hidden=5).partial_fit(X, rng.standard_normal(60), classes=[0.5, 1.5])
    model = OSELMClassifier(n_hidden=5, random_state=0).partial_fit(X, np.arange(60) % 2,
                                                                     classes=[0, 1])
    with pytest.raises(ValueError, match="Unknown label type"):
        model.partial_fit(X, np.full(60, 0.5))
    with pytest.raises(ValueError, match=r"labels not in classes_ \[0, 1\]: \[2\]"):
        model.partial_fit(X, np.arange(60) % 3)
