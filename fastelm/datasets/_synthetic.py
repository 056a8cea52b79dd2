"""Synthetic subjects with a known group effect: in the ABIDE Preprocessed layout,
:func:`make_synthetic_abide` (numpy only; the model is in its docstring), and ADHD-200 ALFF
tables, :func:`make_synthetic_adhd200`.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from sklearn.utils import Bunch

from .._validation import RandomState
from ._abide import DX_CONTROL, DX_PATIENT, PHENOTYPE_FILENAME, PathLike, _write_roi_file

__all__ = ["make_synthetic_abide", "make_synthetic_adhd200"]


def _draw_lengths(lengths, n_subjects, rng):
    if isinstance(lengths, (int, np.integer)) and not isinstance(lengths, bool):
        out = np.full(n_subjects, int(lengths))
    elif isinstance(lengths, tuple):
        if len(lengths) != 2 or lengths[0] > lengths[1]:
            raise ValueError(f"lengths as a tuple must be (min, max), got {lengths!r}")
        out = rng.integers(int(lengths[0]), int(lengths[1]) + 1, size=n_subjects)
    else:
        out = np.asarray(lengths)
        if out.shape != (n_subjects,) or not np.issubdtype(out.dtype, np.integer):
            raise ValueError(
                f"lengths as a list must give {n_subjects} integers, got {lengths!r}"
            )
    if out.min() < 2:
        raise ValueError(f"every length must be >= 2, got min {out.min()}")
    return out.astype(np.int64)


def _disjoint_pairs(n_pairs, n_rois, rng):
    perm = rng.permutation(n_rois)[: 2 * n_pairs]
    pairs = np.sort(perm.reshape(n_pairs, 2), axis=1)
    return pairs[np.lexsort((pairs[:, 1], pairs[:, 0]))]


def _pair_loadings(pairs, n_rois, loading):
    """M×P loadings of one latent source per pair, `loading` on both of its ROIs."""
    out = np.zeros((n_rois, len(pairs)))
    cols = np.arange(len(pairs))
    out[pairs[:, 0], cols] = loading
    out[pairs[:, 1], cols] = loading
    return out


def make_synthetic_abide(
    directory: PathLike,
    n_subjects: int = 60,
    n_rois: int = 116,
    lengths: int | tuple[int, int] | Sequence[int] = (100, 200),
    effect_size: float = 0.6,
    n_sites: int = 3,
    atlas: str = "aal",
    random_state: RandomState = None,
    *,
    n_effect_pairs: int | None = None,
    site_effect: float = 0.5,
    ar: float = 0.5,
    n_networks: int = 7,
) -> Bunch:
    """Write synthetic subjects in the ABIDE Preprocessed layout, with a known group effect.

    Each subject's series is x_t = offset + scale · B s_t, t = 0..T-1, where the latent sources
    s follow independent stationary Gaussian AR(1) processes
    (s_0 ~ N(0, I), s_t = ar·s_{t-1} + sqrt(1 - ar²)·w_t), so Cov(x_t) = scale² B Bᵀ and
    Cov(x_t, x_{t+k}) = ar^k Cov(x_t). The mixing matrix B = [D | L | S | G] has:

    - D  diagonal unique noise, sd U(0.7, 1.3) per ROI and subject;
    - L  ``n_networks`` network sources, ROI i loading 0.6·(1 + 0.2·N(0,1)) on its network
      (the network of each ROI is drawn once and shared by everybody);
    - S  the site's connectivity perturbation, shared by both groups: one source per random ROI
      pair of the site (``max(1, n_rois // 10)`` pairs) with loading ``site_effect``;
    - G  patients only: one source per "effect pair" (``n_effect_pairs`` disjoint ROI pairs,
      the same for every patient) with loading ``effect_size`` on both ROIs. For two ROIs
      of unit variance otherwise uncorrelated, this raises their correlation from 0 to
      effect_size² / (1 + effect_size²); ``effect_size=0`` gives no group difference.

    Site effects on amplitude: scale = site scale exp(site_effect·N(0,1)) times a subject
    factor exp(0.1·N(0,1)); offset = site offset ``2·site_effect·N(0,1)`` plus a per-ROI
    baseline N(0, 1) shared by all subjects.

    Labels are balanced within each site (sites take subjects in turn, SITE01, SITE02, ...).
    The files are ``<FILE_ID>_rois_<atlas>.1D`` with FILE_ID ``SITEkk_00500nn``, a header
    ``#1\\t2\\t...\\tM`` and 7 significant digits, plus ``Phenotypic_V1_0b_preprocessed1.csv``
    (SUB_ID, FILE_ID, SITE_ID, DX_GROUP (1 = patient, 2 = control), DSM_IV_TR, AGE_AT_SCAN,
    SEX). Deterministic for an integer ``random_state``.

    Parameters
    ----------
    directory : str or os.PathLike
        Created if needed; existing files of the same names are overwritten.
    n_subjects : int, default 60
    n_rois : int, default 116 (AAL)
    lengths : int, (min, max) tuple, or list of n_subjects ints, default (100, 200)
        A tuple is an inclusive range drawn uniformly; any other sequence gives each
        subject's length.
    effect_size : float >= 0, default 0.6
    n_sites : int, default 3
    atlas : str, default 'aal'
    random_state : int, numpy Generator or None
    n_effect_pairs : int, optional
        Number of disjoint ROI pairs carrying the group effect; default ``max(1, n_rois // 10)``.
    site_effect : float >= 0, default 0.5
        Strength of the site effects (0 = no site effect).
    ar : float in [0, 1), default 0.5
        Lag-one autocorrelation of the latent sources.
    n_networks : int, default 7

    Returns
    -------
    Bunch with directory, phenotype_csv, files, file_ids, dx_group, target (1 = patient),
    sites, lengths, roi_names, effect_pairs (n_effect_pairs × 2 ROI indices, i < j), atlas.
    """
    if n_subjects < 2 or n_rois < 2 or n_sites < 1:
        raise ValueError("need n_subjects >= 2, n_rois >= 2 and n_sites >= 1")
    if effect_size < 0 or site_effect < 0:
        raise ValueError("effect_size and site_effect must be >= 0")
    if not 0.0 <= ar < 1.0:
        raise ValueError(f"ar must be in [0, 1), got {ar!r}")
    if n_effect_pairs is None:
        n_effect_pairs = max(1, n_rois // 10)
    if not 1 <= n_effect_pairs <= n_rois // 2:
        raise ValueError(f"n_effect_pairs must be in [1, {n_rois // 2}], got {n_effect_pairs}")
    rng = np.random.default_rng(random_state)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)

    lengths = _draw_lengths(lengths, n_subjects, rng)
    site_names = [f"SITE{k + 1:02d}" for k in range(n_sites)]
    site_of = np.arange(n_subjects) % n_sites
    dx_group = np.empty(n_subjects, dtype=np.int64)
    for k in range(n_sites):  # balanced labels within every site
        members = np.flatnonzero(site_of == k)
        labels = np.where(np.arange(members.size) % 2 == 0, DX_PATIENT, DX_CONTROL)
        dx_group[members] = rng.permutation(labels)

    n_networks = max(1, min(n_networks, n_rois))
    network = rng.integers(n_networks, size=n_rois)
    baseline = rng.standard_normal(n_rois)
    effect_pairs = _disjoint_pairs(n_effect_pairs, n_rois, rng)
    effect_mixing = _pair_loadings(effect_pairs, n_rois, effect_size)
    n_site_pairs = max(1, n_rois // 10)
    site_mixing, site_scale, site_offset = [], [], []
    for _ in range(n_sites):
        pairs = np.sort(
            np.array([rng.choice(n_rois, 2, replace=False) for _ in range(n_site_pairs)]), axis=1
        )
        site_mixing.append(_pair_loadings(pairs, n_rois, site_effect))
        site_scale.append(np.exp(site_effect * rng.standard_normal()))
        site_offset.append(2.0 * site_effect * rng.standard_normal())

    roi_names = [str(k) for k in range(1, n_rois + 1)]
    files, file_ids = [], []
    innovation_sd = np.sqrt(1.0 - ar * ar)
    for n in range(n_subjects):
        k = site_of[n]
        unique = np.diag(rng.uniform(0.7, 1.3, size=n_rois))
        net = np.zeros((n_rois, n_networks))
        net[np.arange(n_rois), network] = 0.6 * (1.0 + 0.2 * rng.standard_normal(n_rois))
        blocks = [unique, net, site_mixing[k]]
        if dx_group[n] == DX_PATIENT:
            blocks.append(effect_mixing)
        mixing = np.hstack(blocks)
        shocks = rng.standard_normal((lengths[n], mixing.shape[1]))
        sources = np.empty_like(shocks)
        sources[0] = shocks[0]
        for t in range(1, lengths[n]):
            sources[t] = ar * sources[t - 1] + innovation_sd * shocks[t]
        scale = site_scale[k] * np.exp(0.1 * rng.standard_normal())
        series = site_offset[k] + baseline + scale * (sources @ mixing.T)
        file_id = f"{site_names[k]}_{50001 + n:07d}"
        path = directory / f"{file_id}_rois_{atlas}.1D"
        _write_roi_file(path, series, roi_names)
        files.append(path)
        file_ids.append(file_id)

    phenotype_csv = directory / PHENOTYPE_FILENAME
    ages = np.round(rng.uniform(7.0, 40.0, size=n_subjects), 2)
    sexes = rng.choice([1, 2], size=n_subjects, p=[0.85, 0.15])
    with open(phenotype_csv, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(
            ["SUB_ID", "FILE_ID", "SITE_ID", "DX_GROUP", "DSM_IV_TR", "AGE_AT_SCAN", "SEX"]
        )
        for n in range(n_subjects):
            writer.writerow(
                [
                    50001 + n,
                    file_ids[n],
                    site_names[site_of[n]],
                    int(dx_group[n]),
                    1 if dx_group[n] == DX_PATIENT else 0,
                    ages[n],
                    int(sexes[n]),
                ]
            )
    return Bunch(
        directory=directory,
        phenotype_csv=phenotype_csv,
        files=files,
        file_ids=np.array(file_ids),
        dx_group=dx_group,
        target=(dx_group == DX_PATIENT).astype(np.int64),
        sites=np.array([site_names[k] for k in site_of]),
        lengths=lengths,
        roi_names=roi_names,
        effect_pairs=effect_pairs,
        atlas=atlas,
    )


def make_synthetic_adhd200(
    directory: PathLike,
    n_subjects: Sequence[int] = (60, 48),
    sites: Sequence[str] = ("NYU", "PU"),
    scales: Sequence[float] = (1.0, 8.0),
    n_regions: int = 116,
    effect_size: float = 1.0,
    n_unscored: int = 3,
    random_state: RandomState = None,
) -> Bunch:
    """Write synthetic ALFF tables in the ADHD-200 layout of
    :func:`fastelm.datasets.load_adhd200_alff`, with a known group effect and site scales.

    Subject i of site s has ALFF a_i = scale_s · exp(0.3 · (u_i + effect_size · y_i · e)),
    u_i ~ N(0, I) over the regions, e the indicator of the first ``n_regions // 10`` regions,
    y_i = 1 for ADHD (DX 1-3 drawn uniformly) and 0 for controls (half the subjects); the
    sites differ by their scale, as NYU and Peking do (about 8×). Each site's phenotype CSV
    has ``n_unscored`` more rows than its .mat, with ADHD Index -999, left out of the .mat
    as in the public files.

    Returns
    -------
    Bunch with ``mat_files``, ``csv_files`` (per site), ``data``, ``dx``, ``sites`` and
    ``subject_ids`` of the .mat rows in order.
    """
    rng = np.random.default_rng(random_state)
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    from scipy.io import savemat

    out = Bunch(mat_files=[], csv_files=[], data=[], dx=[], sites=[], subject_ids=[])
    effect = np.zeros(n_regions)
    effect[: max(1, n_regions // 10)] = 1.0
    next_id = 1000000
    for site, n, scale in zip(sites, n_subjects, scales):
        total = n + n_unscored
        patient = rng.permutation(np.arange(total) < total // 2)
        dx = np.where(patient, rng.integers(1, 4, total), 0)
        index = rng.integers(20, 90, total).astype(float)
        unscored = rng.choice(total, n_unscored, replace=False)
        index[unscored] = -999.0
        alff = scale * np.exp(0.3 * (rng.standard_normal((total, n_regions))
                                     + effect_size * patient[:, None] * effect))
        ids = [str(next_id + k) for k in range(total)]
        next_id += total
        kept = index != -999.0
        mat = directory / f"{site}_alff_ds.mat"
        savemat(mat, {"alff": alff[kept], "tag": dx[kept].astype(np.uint8)[:, None],
                      "score": index[kept][:, None]})
        table = directory / f"{site}_phenotypic.csv"
        with open(table, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["ScanDir ID", "Site", "Gender", "Age", "DX", "ADHD Index"])
            for k in range(total):
                writer.writerow([ids[k], site, int(rng.integers(0, 2)),
                                 f"{rng.uniform(7, 17):.2f}", int(dx[k]), f"{index[k]:g}"])
        out.mat_files.append(mat)
        out.csv_files.append(table)
        out.data.append(alff[kept])
        out.dx.append(dx[kept])
        out.sites += [site] * int(kept.sum())
        out.subject_ids += [i for i, k in zip(ids, kept) if k]
    out.data, out.dx = np.vstack(out.data), np.concatenate(out.dx)
    out.sites, out.subject_ids = np.array(out.sites), np.array(out.subject_ids)
    return out
