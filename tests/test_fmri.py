"""fastelm.fmri: ABIDE-layout readers, connectivity features, synthetic subjects."""

import csv
import re
import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold, cross_val_score

from fastelm.fmri import (
    PHENOTYPE_FILENAME,
    BadSubjectError,
    CroppedSeriesWarning,
    ExcludedSubjectsWarning,
    FMRIFormatError,
    PhenotypeError,
    PhenotypeMismatchError,
    align_rows,
    connectivity_features,
    load_adhd200_alff,
    load_roi_dataset,
    make_synthetic_abide,
    make_synthetic_adhd200,
    read_phenotype,
    read_roi_file,
)
from fastelm.datasets._abide import _write_roi_file

# ---------------------------------------------------------------------------------------------
# helpers: small synthetic sets and defect injection
# ---------------------------------------------------------------------------------------------


def _small(tmp_path, **kw):
    params = dict(n_subjects=12, n_rois=6, lengths=(20, 40), n_sites=3, random_state=0)
    params.update(kw)
    return make_synthetic_abide(tmp_path, **params)


def _fisher_z_reference(series, eps=1e-7):
    r = np.corrcoef(series, rowvar=False)
    iu = np.triu_indices(series.shape[1], k=1)
    return np.arctanh(np.clip(r[iu], -1 + eps, 1 - eps))


def _rewrite_column(path, col, values):
    """Replace column `col` of a ROI file by `values` (a scalar or a 1-D array)."""
    series, names = read_roi_file(path)
    series[:, col] = values
    lines = ["#" + "\t".join(names)] + ["\t".join(f"{v:.7g}" for v in row) for row in series]
    path.write_text("\n".join(lines) + "\n")


def _append_phenotype_rows(csv_path, rows):
    with open(csv_path, newline="") as fh:
        header = next(csv.reader(fh))
    with open(csv_path, "a", newline="") as fh:
        writer = csv.writer(fh)
        for row in rows:
            writer.writerow([row.get(h, "") for h in header])


def _load_quiet(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ExcludedSubjectsWarning)
        return load_roi_dataset(*args, **kw)


# ---------------------------------------------------------------------------------------------
# generator -> reader round trip
# ---------------------------------------------------------------------------------------------


def test_generator_writes_the_abide_layout(tmp_path):
    g = _small(tmp_path, n_subjects=9, n_rois=5, lengths=[20, 21, 22, 23, 24, 25, 26, 27, 28])
    assert (tmp_path / PHENOTYPE_FILENAME).is_file()
    assert len(g.files) == 9 and all(p.is_file() for p in g.files)
    for path, fid, t in zip(g.files, g.file_ids, g.lengths):
        assert path.name == f"{fid}_rois_aal.1D"
        lines = path.read_text().splitlines()
        assert lines[0] == "#1\t2\t3\t4\t5"
        assert len(lines) == 1 + t
        series, names = read_roi_file(path)
        assert series.shape == (t, 5) and names == ["1", "2", "3", "4", "5"]
    np.testing.assert_array_equal(g.lengths, np.arange(20, 29))
    assert sorted(set(g.sites)) == ["SITE01", "SITE02", "SITE03"]
    np.testing.assert_array_equal(g.target, (g.dx_group == 1).astype(int))
    for site in set(g.sites):  # balanced within each site
        labels = g.target[g.sites == site]
        assert abs(labels.sum() - (labels.size - labels.sum())) <= 1
    pheno = read_phenotype(g.phenotype_csv)
    np.testing.assert_array_equal(pheno.file_id, g.file_ids)
    np.testing.assert_array_equal(pheno.dx_group, g.dx_group)
    np.testing.assert_array_equal(pheno.site_id, g.sites)


def test_generator_is_deterministic_for_a_seed(tmp_path):
    a = _small(tmp_path / "a", random_state=3)
    b = _small(tmp_path / "b", random_state=3)
    c = _small(tmp_path / "c", random_state=4)
    for pa, pb in zip(a.files, b.files):
        assert pa.read_bytes() == pb.read_bytes()
    assert a.phenotype_csv.read_bytes() == b.phenotype_csv.read_bytes()
    assert any(pa.read_bytes() != pc.read_bytes() for pa, pc in zip(a.files, c.files))


def test_generator_rejects_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="lengths"):
        make_synthetic_abide(tmp_path, n_subjects=4, n_rois=4, lengths=[10, 20])
    with pytest.raises(ValueError, match="lengths"):
        make_synthetic_abide(tmp_path, n_subjects=4, n_rois=4, lengths=(30, 10))
    with pytest.raises(ValueError, match="effect_size"):
        make_synthetic_abide(tmp_path, n_subjects=4, n_rois=4, effect_size=-1.0)
    with pytest.raises(ValueError, match="n_effect_pairs"):
        make_synthetic_abide(tmp_path, n_subjects=4, n_rois=4, n_effect_pairs=3)


def test_round_trip_timeseries_crops_to_the_shortest(tmp_path):
    g = _small(tmp_path)
    with pytest.warns(CroppedSeriesWarning, match=r"first 20 time points, shortening 10 of 12"):
        b = _load_quiet(tmp_path, features="timeseries")
    t_min = int(g.lengths.min())
    assert b.length == t_min
    assert b.data.shape == (12, t_min * 6) and b.data.dtype == np.float64
    np.testing.assert_array_equal(b.subject_ids, g.file_ids)
    np.testing.assert_array_equal(b.target, g.target)
    np.testing.assert_array_equal(b.dx_group, g.dx_group)
    np.testing.assert_array_equal(b.sites, g.sites)
    np.testing.assert_array_equal(b.lengths, g.lengths)
    assert b.excluded == [] and b.roi_names == g.roi_names
    assert list(b.target_names[[0, 1]]) == ["control", "patient"]
    assert b.feature_names.shape == (t_min * 6,) and b.feature_names[7] == "t1_2"
    series = b.data.reshape(12, t_min, 6)
    for k, path in enumerate(g.files):  # time-major flattening of the first T rows
        full, _ = read_roi_file(path)
        np.testing.assert_array_equal(series[k], full[:t_min])
    assert set(b.phenotype) >= {"SUB_ID", "FILE_ID", "SITE_ID", "DX_GROUP", "AGE_AT_SCAN"}


def test_round_trip_with_length_excludes_short_series(tmp_path):
    g = _small(tmp_path)
    length = int(np.sort(g.lengths)[3])  # the three shortest fall out
    short = set(g.file_ids[g.lengths < length])
    assert len(short) == 3
    with pytest.warns(ExcludedSubjectsWarning, match="too short"):
        b = load_roi_dataset(tmp_path, length=length, features="timeseries")
    assert b.length == length and b.data.shape == (9, length * 6)
    assert {fid for fid, _ in b.excluded} == short
    assert all(f"< length={length}" in reason for _, reason in b.excluded)
    assert not short & set(b.subject_ids)
    with pytest.raises(BadSubjectError, match="too short") as info:
        load_roi_dataset(tmp_path, length=length, on_bad="raise", features="timeseries")
    assert {fid for fid, _ in info.value.excluded} == short
    with pytest.raises(ValueError, match="length"):
        load_roi_dataset(tmp_path, length=1)


@pytest.mark.mutant
def test_length_below_every_series_crops_each_to_that_length(tmp_path):
    """length= shorter than every subject's series: every subject kept, each series cropped to
    its first ``length`` rows, without a warning (planted: crop to the shortest series, which
    the test above cannot tell from length= since its length is one subject's own)."""
    g = _small(tmp_path)
    length = int(g.lengths.min()) - 7
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        b = load_roi_dataset(tmp_path, length=length, features="timeseries")
    assert b.length == length and b.data.shape == (12, length * 6) and b.excluded == []
    np.testing.assert_array_equal(b.lengths, g.lengths)
    series = b.data.reshape(12, length, 6)
    for k, path in enumerate(g.files):
        np.testing.assert_array_equal(series[k], read_roi_file(path)[0][:length])


def test_round_trip_connectivity_matches_numpy(tmp_path):
    g = _small(tmp_path)
    b = _load_quiet(tmp_path, g.phenotype_csv, features="connectivity")
    assert b.data.shape == (12, 6 * 5 // 2)
    assert np.all(np.isfinite(b.data))
    assert b.feature_names[0] == "1-2" and b.feature_names[-1] == "5-6"
    for k, path in enumerate(g.files):  # each subject's whole series, not a cropped one
        full, _ = read_roi_file(path)
        np.testing.assert_allclose(b.data[k], _fisher_z_reference(full), atol=1e-10)
        np.testing.assert_array_equal(b.series[k], full)
    direct = connectivity_features(b.series)
    np.testing.assert_allclose(b.data, direct, atol=1e-12)


def test_connectivity_features_inputs_and_clipping():
    rng = np.random.default_rng(0)
    s = rng.standard_normal((50, 4))
    one = connectivity_features(s)
    assert one.shape == (6,)
    np.testing.assert_allclose(one, _fisher_z_reference(s), atol=1e-12)
    ragged = connectivity_features([s, s[:30]])
    assert ragged.shape == (2, 6)
    np.testing.assert_allclose(ragged[1], _fisher_z_reference(s[:30]), atol=1e-12)
    dup = np.column_stack([s[:, 0], s[:, 0], -s[:, 0], s[:, 1]])  # r = +1 and -1: clipped
    z = connectivity_features(dup, eps=1e-6)
    assert np.all(np.isfinite(z))
    np.testing.assert_allclose(z[:2], [np.arctanh(1 - 1e-6), -np.arctanh(1 - 1e-6)], rtol=1e-6)
    with pytest.raises(ValueError, match="constant"):
        connectivity_features(np.column_stack([s[:, :3], np.ones(50)]))
    with pytest.raises(ValueError, match="NaN"):
        connectivity_features(np.where(np.arange(50)[:, None] == 7, np.nan, s))
    with pytest.raises(ValueError, match="constant"):
        connectivity_features(np.column_stack([s[:, :3], np.full(50, 0.1)]))
    with pytest.raises(ValueError, match="shape"):
        connectivity_features(s[:1])


def test_default_atlas_is_the_only_one_present_and_features_connectivity(tmp_path):
    """issue 24: on a folder of CC200 files ``load_roi_dataset(folder)`` failed (default
    atlas 'aal') and, given the atlas, returned cropped series; now it finds the atlas and
    returns the connectivity features the reproductions use."""
    g = _small(tmp_path, n_rois=7, atlas="cc200")
    b = _load_quiet(tmp_path)
    assert b.atlas == "cc200" and b.features == "connectivity" and b.data.shape == (12, 21)
    np.testing.assert_array_equal(b.data, _load_quiet(tmp_path, atlas="cc200",
                                                      features="connectivity").data)
    np.testing.assert_array_equal(b.subject_ids, g.file_ids)
    # the nilearn layout: the atlas found under ABIDE_pcp/<pipeline>/<strategy>/
    _nilearn_layout(tmp_path / "nilearn")
    assert _load_quiet(tmp_path / "nilearn").atlas == "cc200"


def test_several_atlases_without_a_choice_list_them(tmp_path):
    _small(tmp_path, atlas="cc200")
    _small(tmp_path / "rois_ho", atlas="ho")
    with pytest.raises(ValueError, match=r"several atlases \(cc200, ho\); choose one with atlas="):
        load_roi_dataset(tmp_path)
    assert _load_quiet(tmp_path, atlas="cc200").atlas == "cc200"
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(FileNotFoundError, match=r"no \*_rois_<atlas>.1D files"):
        load_roi_dataset(empty)


def test_other_atlas_and_site_filter(tmp_path):
    _small(tmp_path, n_rois=7, atlas="cc200")
    assert all(p.name.endswith("_rois_cc200.1D") for p in tmp_path.glob("*.1D"))
    b = _load_quiet(tmp_path, atlas="cc200", features="connectivity")
    assert b.data.shape == (12, 21)
    with pytest.raises(FileNotFoundError, match="_rois_aal.1D"):
        load_roi_dataset(tmp_path, atlas="aal")  # no such files
    # a site filter keeps one site; the other sites' files are skipped unread (one of them is
    # garbage here), and a file without any phenotype row is ignored too
    (tmp_path / "SITE02_0050002_rois_cc200.1D").write_text("not a number\n")
    (tmp_path / "OTHER_0099999_rois_cc200.1D").write_text("#1\n")
    b1 = _load_quiet(tmp_path, atlas="cc200", sites=["SITE01"], features="connectivity")
    assert set(b1.sites) == {"SITE01"} and len(b1.sites) == 4 and b1.missing == []
    np.testing.assert_array_equal(b1.data, b.data[b.sites == "SITE01"])
    with pytest.raises(PhenotypeMismatchError, match=r"\['NOPE'\].*SITE01"):
        load_roi_dataset(tmp_path, atlas="cc200", sites="NOPE")


def _nilearn_layout(root, **kw):
    """What nilearn's fetch_abide_pcp(data_dir=root, derivatives='rois_cc200') writes."""
    folder = root / "ABIDE_pcp" / "cpac" / "nofilt_noglobal"
    g = make_synthetic_abide(folder, n_subjects=12, n_rois=5, lengths=(30, 40), n_sites=3,
                             atlas="cc200", random_state=0, **kw)
    g.phenotype_csv.rename(root / "ABIDE_pcp" / g.phenotype_csv.name)
    return g, folder


def test_nilearn_layout_strategy_and_mixed_sites(tmp_path):
    g, folder = _nilearn_layout(tmp_path)
    b = _load_quiet(tmp_path, atlas="cc200", features="connectivity")
    assert b.folder == folder and b.phenotype_csv.parent == tmp_path / "ABIDE_pcp"
    np.testing.assert_array_equal(b.subject_ids, g.file_ids)
    assert len(b.series) == 12 and b.data.shape == (12, 10)
    # the same data from the ABIDE_pcp folder itself, and with the strategy named
    b2 = _load_quiet(tmp_path / "ABIDE_pcp", atlas="cc200", features="connectivity",
                     strategy="nofilt_noglobal", pipeline="cpac")
    np.testing.assert_array_equal(b2.data, b.data)
    # a second strategy downloaded next to it: ambiguous until --strategy chooses
    other = tmp_path / "ABIDE_pcp" / "cpac" / "filt_global"
    other.mkdir()
    for p in g.files[:4]:
        (other / p.name).write_bytes(p.read_bytes())
    with pytest.raises(ValueError, match="several folders.*strategy"):
        load_roi_dataset(tmp_path, atlas="cc200")
    with pytest.warns(ExcludedSubjectsWarning, match="8 phenotype row"):
        b3 = load_roi_dataset(tmp_path, atlas="cc200", strategy="filt_global")
    assert len(b3.subject_ids) == 4 and len(b3.missing) == 8  # reported, not fatal
    with pytest.raises(PhenotypeMismatchError, match="8 phenotype row"):
        load_roi_dataset(tmp_path, atlas="cc200", strategy="filt_global", on_bad="raise")
    with pytest.raises(FileNotFoundError, match="strategy='nope'"):
        load_roi_dataset(tmp_path, atlas="cc200", strategy="nope")
    # sites= on the mixed folder keeps one site's subjects and reports none missing
    b4 = _load_quiet(tmp_path, atlas="cc200", strategy="nofilt_noglobal", sites="SITE02")
    assert set(b4.sites) == {"SITE02"} and len(b4.sites) == 4 and b4.missing == []


def test_rois_subfolder_layout(tmp_path):
    g = _small(tmp_path / "rois_aal")
    g.phenotype_csv.rename(tmp_path / g.phenotype_csv.name)
    b = _load_quiet(tmp_path, features="connectivity")
    np.testing.assert_array_equal(b.subject_ids, g.file_ids)


def test_one_short_series_does_not_crop_everybody(tmp_path):
    """Issue: truncating one of 8 subjects to 3 rows cropped all to length 3 silently."""
    g = _small(tmp_path, n_subjects=8, lengths=60)
    full, names = read_roi_file(g.files[2])
    _write_roi_file(g.files[2], full[:3], names)
    with pytest.warns(ExcludedSubjectsWarning, match="too short: 3 < 30"):
        b = load_roi_dataset(tmp_path, features="timeseries")
    assert b.length == 60 and b.data.shape == (7, 60 * 6)
    assert [f for f, _ in b.excluded] == [g.file_ids[2]]
    # a shorter one above the minimum crops the rest, with a warning that says so
    _write_roi_file(g.files[2], full[:35], names)
    with pytest.warns(CroppedSeriesWarning, match=r"\(35 to 60 time points\).* first 35 time "
                      r"points, shortening 7 of 8 subjects' series \(58% of the median"):
        b = load_roi_dataset(tmp_path, features="timeseries")
    assert b.length == 35 and b.excluded == []


def test_loader_checks_eps_and_extreme_scales(tmp_path):
    """Issue: eps=1 gave all-zero features, eps=nan NaN; ROIs at 1e-170 or 1e200 NaN/zero."""
    g = _small(tmp_path, n_subjects=6)
    for eps in (1, 0.0, float("nan"), "1e-7", True):
        with pytest.raises(ValueError, match="eps"):
            load_roi_dataset(tmp_path, features="connectivity", eps=eps)
        with pytest.raises(ValueError, match="eps"):
            connectivity_features(np.ones((2, 5, 3)), eps=eps)
    reference = _load_quiet(tmp_path, features="connectivity")
    for k, scale in ((1, 1e-170), (3, 1e200)):
        full, names = read_roi_file(g.files[k])
        scaled = full.copy()
        scaled[:, 2] = (full[:, 2] - full[:, 2].mean()) * scale
        _write_roi_file(g.files[k], scaled, names)
    b = _load_quiet(tmp_path, features="connectivity")
    assert b.excluded == [] and np.isfinite(b.data).all()
    np.testing.assert_allclose(b.data, reference.data, atol=1e-5)  # 7-digit files
    # a ROI constant up to round-off at 1e-170 is constant, not NaN
    full, names = read_roi_file(g.files[4])
    full[:, 1] = 1e-170
    _write_roi_file(g.files[4], full, names)
    with pytest.warns(ExcludedSubjectsWarning, match="constant ROI"):
        b = load_roi_dataset(tmp_path, features="connectivity")
    assert [f for f, _ in b.excluded] == [g.file_ids[4]] and np.isfinite(b.data).all()


# ---------------------------------------------------------------------------------------------
# malformed ROI files
# ---------------------------------------------------------------------------------------------


def test_read_roi_file_header_variants(tmp_path):
    p = tmp_path / "Pitt_0050003_rois_aal.1D"
    p.write_text("#2001\t#2002\t#2101\n1.5\t2\t-3e-1\n\n4 5 6\n")
    series, names = read_roi_file(p)
    assert names == ["2001", "2002", "2101"]
    np.testing.assert_array_equal(series, [[1.5, 2.0, -0.3], [4.0, 5.0, 6.0]])
    p.write_text("#2001\t2002\t2101\n1 2 3\n")
    assert read_roi_file(p)[1] == ["2001", "2002", "2101"]
    p.write_text("1 2 3\n4 5 6\n")  # no header: ROIs numbered from 1
    assert read_roi_file(p)[1] == ["1", "2", "3"]


@pytest.mark.parametrize(
    "text, match",
    [
        ("", "no data rows"),
        ("#1\t2\t3\n", "no data rows"),
        ("#1\t2\t3\n1 2 3\n4 5\n", "line 3: ragged"),
        ("#1\t2\t3\n1 2 3\n4 x 6\n", "line 3, column 2: non-numeric value 'x'"),
        ("#1\t2\n1 2 3\n4 5 6\n", "header names 2 ROIs but the data rows have 3"),
    ],
)
def test_read_roi_file_malformed(tmp_path, text, match):
    p = tmp_path / "S_0000001_rois_aal.1D"
    p.write_text(text)
    with pytest.raises(FMRIFormatError, match=match) as info:
        read_roi_file(p)
    assert isinstance(info.value, ValueError) and str(p) in str(info.value)


def test_loader_propagates_malformed_file_and_mismatched_rois(tmp_path):
    g = _small(tmp_path)
    with open(g.files[4], "a") as fh:
        fh.write("1 2 3\n")
    with pytest.raises(FMRIFormatError, match="ragged"):
        load_roi_dataset(tmp_path)
    g = _small(tmp_path / "b")
    series, names = read_roi_file(g.files[2])
    g.files[2].write_text("#" + "\t".join(names[:5]) + "\n" + "\n".join(
        " ".join(map(str, row[:5])) for row in series) + "\n")
    with pytest.raises(FMRIFormatError, match="differ"):
        load_roi_dataset(tmp_path / "b")


def test_missing_directory_or_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_roi_dataset(tmp_path / "nope")
    with pytest.raises(ValueError, match="features"):
        load_roi_dataset(tmp_path, features="flat")
    with pytest.raises(ValueError, match="on_bad"):
        load_roi_dataset(tmp_path, on_bad="ignore")


# ---------------------------------------------------------------------------------------------
# phenotype CSV
# ---------------------------------------------------------------------------------------------


def test_read_phenotype_real_layout(tmp_path):
    """Unnamed index column, BOM, extra columns, 'no_filename' rows, DX_GROUP as '1.0'."""
    p = tmp_path / "pheno.csv"
    p.write_text(
        "\ufeff,SUB_ID,X,subject,SITE_ID,FILE_ID,DX_GROUP,DSM_IV_TR,AGE_AT_SCAN\n"
        "0,50002,1,50002,PITT,no_filename,1,1,16.77\n"
        "1,50003,2,50003,PITT,Pitt_0050003,1,1,24.45\n"
        "2,50004,3,50004,PITT,Pitt_0050004,2.0,0,19.09\n"
        "3,50005,4,50005,PITT,,1,1,13.73\n",
        encoding="utf-8",
    )
    ph = read_phenotype(p)
    np.testing.assert_array_equal(ph.file_id, ["Pitt_0050003", "Pitt_0050004"])
    np.testing.assert_array_equal(ph.dx_group, [1, 2])
    np.testing.assert_array_equal(ph.target, [1, 0])
    np.testing.assert_array_equal(ph.site_id, ["PITT", "PITT"])
    assert ph.n_no_filename == 2
    np.testing.assert_array_equal(ph.columns["AGE_AT_SCAN"], ["24.45", "19.09"])


@pytest.mark.parametrize(
    "body, match",
    [
        ("FILE_ID,DX_GROUP,SITE_ID\nA_1,3,S\n", "'A_1' has DX_GROUP '3'"),
        ("FILE_ID,DX_GROUP,SITE_ID\nA_1,ASD,S\n", "DX_GROUP 'ASD'"),
        ("FILE_ID,DX_GROUP,SITE_ID\nA_1,,S\n", "DX_GROUP ''"),
        ("FILE_ID,DX_GROUP,SITE_ID\nA_1,1,S\nA_2,2,S\nA_1,2,S\n", "duplicate FILE_ID.*'A_1'"),
        ("FILE_ID,SITE_ID\nA_1,S\n", r"missing column\(s\) \['DX_GROUP'\]"),
        ("FILE_ID,DX_GROUP,SITE_ID\nA_1,1\n", "line 2: 2 fields"),
        ("", "empty"),
    ],
)
def test_read_phenotype_errors(tmp_path, body, match):
    p = tmp_path / "pheno.csv"
    p.write_text(body)
    with pytest.raises(PhenotypeError, match=match):
        read_phenotype(p)


def test_no_filename_rows_are_skipped_by_the_loader(tmp_path):
    g = _small(tmp_path)
    _append_phenotype_rows(
        g.phenotype_csv,
        [{"SUB_ID": 1, "FILE_ID": "no_filename", "SITE_ID": "SITE01", "DX_GROUP": 1}] * 2,
    )
    b = _load_quiet(tmp_path)
    assert b.data.shape[0] == 12 and b.n_no_filename == 2


def test_unknown_label_and_duplicate_id_in_loader(tmp_path):
    g = _small(tmp_path)
    text = g.phenotype_csv.read_text().splitlines()
    fields = text[3].split(",")
    fields[3] = "0"  # DX_GROUP
    bad = "\n".join(text[:3] + [",".join(fields)] + text[4:]) + "\n"
    g.phenotype_csv.write_text(bad)
    with pytest.raises(PhenotypeError, match=f"{g.file_ids[2]}.*DX_GROUP '0'"):
        load_roi_dataset(tmp_path)
    g = _small(tmp_path / "b")
    _append_phenotype_rows(
        g.phenotype_csv, [{"FILE_ID": g.file_ids[5], "SITE_ID": "SITE03", "DX_GROUP": 2}]
    )
    with pytest.raises(PhenotypeError, match=f"duplicate.*{g.file_ids[5]}"):
        load_roi_dataset(tmp_path / "b")


def test_phenotype_rows_without_files(tmp_path):
    g = _small(tmp_path)
    g.files[3].unlink()
    g.files[7].unlink()
    gone = {g.file_ids[3], g.file_ids[7]}
    with pytest.raises(PhenotypeMismatchError, match="2 phenotype row") as info:
        load_roi_dataset(tmp_path, on_bad="raise")
    assert all(fid in str(info.value) for fid in gone)
    with pytest.warns(ExcludedSubjectsWarning, match="2 phenotype row.*without a"):
        b = load_roi_dataset(tmp_path)
    assert set(b.missing) == gone and b.excluded == []
    assert b.data.shape[0] == 10 and not gone & set(b.subject_ids)
    np.testing.assert_array_equal(b.target, g.target[np.isin(g.file_ids, list(gone), invert=True)])


def test_files_without_phenotype_rows(tmp_path):
    g = _small(tmp_path)
    extra = tmp_path / "OTHER_0099999_rois_aal.1D"
    extra.write_bytes(g.files[0].read_bytes())
    with pytest.raises(PhenotypeMismatchError, match="OTHER_0099999_rois_aal.1D"):
        load_roi_dataset(tmp_path, on_bad="raise")
    with pytest.warns(ExcludedSubjectsWarning, match="1 file.*without a phenotype row.*OTHER"):
        b = load_roi_dataset(tmp_path)
    assert b.orphans == ["OTHER_0099999"] and b.missing == [] and b.excluded == []
    assert "OTHER_0099999" not in b.subject_ids
    np.testing.assert_array_equal(b.subject_ids, g.file_ids)
    other = tmp_path / "other.csv"
    other.write_text("FILE_ID,DX_GROUP,SITE_ID\nX_1,1,S\nX_2,2,S\n")
    extra.unlink()
    with pytest.raises(PhenotypeMismatchError, match="12 file"):
        load_roi_dataset(tmp_path, other)


def test_phenotype_csv_is_found_or_required(tmp_path):
    g = _small(tmp_path)
    renamed = g.phenotype_csv.rename(tmp_path / "mine.csv")
    assert _load_quiet(tmp_path).phenotype_csv == renamed  # the only CSV
    (tmp_path / "second.csv").write_text("a,b\n")
    with pytest.raises(FileNotFoundError, match="phenotype_csv"):
        load_roi_dataset(tmp_path)


# ---------------------------------------------------------------------------------------------
# bad subjects: reported, never silently dropped
# ---------------------------------------------------------------------------------------------


def test_constant_roi_subject_is_reported(tmp_path):
    g = _small(tmp_path)
    _rewrite_column(g.files[5], 2, 0.0)  # ROI '3' all zeros, as in real ABIDE files
    with pytest.warns(ExcludedSubjectsWarning, match=g.file_ids[5]):
        b = load_roi_dataset(tmp_path, features="connectivity")
    assert len(b.excluded) == 1
    fid, reason = b.excluded[0]
    assert fid == g.file_ids[5] and "constant" in reason and "'3'" in reason
    assert b.data.shape == (11, 15) and np.all(np.isfinite(b.data))
    assert g.file_ids[5] not in set(b.subject_ids)
    with pytest.raises(BadSubjectError, match="constant"):
        load_roi_dataset(tmp_path, on_bad="raise")


def test_nan_and_cropped_constant_rois_are_reported(tmp_path):
    g = _small(tmp_path, lengths=[30, 30, 30, 30, 40, 40, 40, 40, 40, 40, 40, 40])
    _rewrite_column(g.files[1], 0, np.nan)
    values = np.zeros(40)
    values[35:] = 1.0  # constant within the first 30 rows only
    _rewrite_column(g.files[6], 4, values)
    with pytest.warns(ExcludedSubjectsWarning) as record:
        b = load_roi_dataset(tmp_path, features="timeseries")
    record = [w for w in record if w.category is ExcludedSubjectsWarning]
    assert len(record) == 1 and "2 subject(s) excluded" in str(record[0].message)
    reasons = dict(b.excluded)
    assert "non-finite" in reasons[g.file_ids[1]]
    assert "constant" in reasons[g.file_ids[6]] and "first 30 rows" in reasons[g.file_ids[6]]
    assert b.data.shape == (10, 30 * 6)


def test_all_subjects_bad(tmp_path):
    g = _small(tmp_path, n_subjects=2, lengths=10)
    for p in g.files:
        _rewrite_column(p, 0, 1.0)
    with pytest.warns(ExcludedSubjectsWarning):
        with pytest.raises(BadSubjectError, match="no usable subject"):
            load_roi_dataset(tmp_path)


# ---------------------------------------------------------------------------------------------
# the synthetic group effect is learnable, and absent when effect_size = 0
# ---------------------------------------------------------------------------------------------


def test_effect_pairs_carry_the_group_difference(tmp_path):
    g = make_synthetic_abide(
        tmp_path, n_subjects=40, n_rois=12, lengths=(80, 120), effect_size=1.0, random_state=1
    )
    b = _load_quiet(tmp_path, features="connectivity")
    diff = b.data[b.target == 1].mean(axis=0) - b.data[b.target == 0].mean(axis=0)
    iu = np.triu_indices(12, k=1)
    is_effect = np.zeros(len(diff), dtype=bool)
    for i, j in g.effect_pairs:
        is_effect |= (iu[0] == i) & (iu[1] == j)
    assert diff[is_effect].min() > 0.3
    assert np.abs(diff[~is_effect]).max() < diff[is_effect].min()


@pytest.mark.parametrize("seed", [0, 1])
def test_classifier_beats_chance_with_an_effect(tmp_path, seed):
    # over seeds 0..19 this gives 0.84-0.99 (mean 0.91)
    make_synthetic_abide(
        tmp_path, n_subjects=80, n_rois=20, lengths=(60, 120), effect_size=1.0, random_state=seed
    )
    b = _load_quiet(tmp_path, features="connectivity")
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    acc = cross_val_score(LogisticRegression(max_iter=1000), b.data, b.target, cv=cv).mean()
    assert acc > 0.7


@pytest.mark.parametrize("seed", [0, 1])
def test_classifier_at_chance_without_an_effect(tmp_path, seed):
    # over seeds 0..29 this gives 0.38-0.58 (mean 0.50, sd 0.05)
    make_synthetic_abide(
        tmp_path, n_subjects=120, n_rois=16, lengths=(50, 100), effect_size=0.0, random_state=seed
    )
    b = _load_quiet(tmp_path, features="connectivity")
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    acc = cross_val_score(LogisticRegression(max_iter=1000), b.data, b.target, cv=cv).mean()
    assert abs(acc - 0.5) < 0.15


# ---------------------------------------------------------------------------------------------
# ADHD-200 ALFF tables (load_adhd200_alff)
# ---------------------------------------------------------------------------------------------


def _adhd(tmp_path, **kw):
    params = dict(n_subjects=(12, 10), n_regions=116, n_unscored=2, random_state=0)
    params.update(kw)
    return make_synthetic_adhd200(tmp_path, **params)


def test_adhd200_rows_matched_by_order_and_reported(tmp_path):
    g = _adhd(tmp_path)
    with pytest.warns(ExcludedSubjectsWarning, match="4 phenotype row.*without a _alff_ds.mat"):
        b = load_adhd200_alff(tmp_path)
    np.testing.assert_array_equal(b.data, g.data)
    np.testing.assert_array_equal(b.subject_ids, g.subject_ids)
    np.testing.assert_array_equal(b.sites, g.sites)
    np.testing.assert_array_equal(b.dx, g.dx)
    np.testing.assert_array_equal(b.target, (g.dx > 0).astype(int))
    assert list(b.feature_names[:2]) == ["Precentral_L", "Precentral_R"]
    assert b.feature_names[-1] == "Vermis_10" and len(set(b.feature_names)) == 116
    rows = {}
    for table in g.csv_files:
        with open(table) as f:
            rows.update({r["ScanDir ID"]: r for r in csv.DictReader(f)})
    assert sorted(b.missing) == sorted(i for i, r in rows.items() if r["ADHD Index"] == "-999")
    np.testing.assert_array_equal(b.age, [float(rows[i]["Age"]) for i in b.subject_ids])
    np.testing.assert_array_equal(b.sex, [float(rows[i]["Gender"]) for i in b.subject_ids])
    with pytest.raises(PhenotypeMismatchError, match="4 phenotype row"):
        load_adhd200_alff(tmp_path, on_bad="raise")
    with pytest.warns(ExcludedSubjectsWarning):
        only = load_adhd200_alff(tmp_path, sites="PU")
    assert set(only.sites) == {"PU"} and only.data.shape[0] == 10


def test_adhd200_mismatched_tables_are_refused(tmp_path):
    g = _adhd(tmp_path)
    table = g.csv_files[0]
    lines = table.read_text().splitlines()
    # the DX of the first scored row changed: no order-preserving matching exists
    k = next(i for i, line in enumerate(lines[1:], 1) if not line.endswith(",-999"))
    fields = lines[k].split(",")
    fields[4] = "0" if fields[4] != "0" else "1"
    table.write_text("\n".join(lines[:k] + [",".join(fields)] + lines[k + 1:]) + "\n")
    with pytest.raises(PhenotypeMismatchError, match=r"NYU_alff_ds.mat rows: row \d+ .*match no"):
        load_adhd200_alff(tmp_path)


def test_adhd200_ambiguous_matching_is_refused(tmp_path):
    from scipy.io import loadmat, savemat

    g = _adhd(tmp_path)
    content = loadmat(g.mat_files[1])
    savemat(g.mat_files[1], {"alff": content["alff"], "tag": content["tag"]})  # no 'score'
    with pytest.raises(PhenotypeMismatchError, match="PU_alff_ds.mat rows: row .* could be"):
        load_adhd200_alff(tmp_path)


def test_align_rows_unique_or_refused():
    assert align_rows(list("ac"), list("abc")).tolist() == [0, 2]
    assert align_rows(list("ab"), list("xaybz")).tolist() == [1, 3]
    with pytest.raises(PhenotypeMismatchError, match="could be"):
        align_rows(list("a"), list("aa"))
    with pytest.raises(PhenotypeMismatchError, match=r"row 1 \('c'\)"):
        align_rows(list("ac"), list("ab"))


def test_adhd200_damaged_files_are_named(tmp_path):
    from scipy.io import savemat

    g = _adhd(tmp_path)
    g.csv_files[1].unlink()
    with pytest.raises(FileNotFoundError, match="PU_alff_ds.mat has no phenotype table"):
        load_adhd200_alff(tmp_path)
    with pytest.raises(PhenotypeMismatchError, match=r"\['XX'\]"):
        load_adhd200_alff(tmp_path, sites=["XX"])
    savemat(g.mat_files[0], {"tag": np.zeros((3, 1))})
    with pytest.raises(FMRIFormatError, match="NYU_alff_ds.mat: no 'alff'"):
        load_adhd200_alff(tmp_path, sites="NYU")
    g.mat_files[0].write_text("not a mat file")
    with pytest.raises(FMRIFormatError, match="not a readable .mat"):
        load_adhd200_alff(tmp_path, sites="NYU")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="no <SITE>_alff_ds.mat"):
        load_adhd200_alff(tmp_path / "empty")
    with pytest.raises(ValueError, match="on_bad must be"):
        load_adhd200_alff(tmp_path, on_bad="drop")


def test_adhd200_unusable_subject_is_reported(tmp_path):
    from scipy.io import loadmat, savemat

    g = _adhd(tmp_path, n_unscored=0)
    content = loadmat(g.mat_files[0])
    content["alff"][3, 5] = np.nan
    savemat(g.mat_files[0], {k: v for k, v in content.items() if not k.startswith("__")})
    with pytest.warns(ExcludedSubjectsWarning, match=f"{g.subject_ids[3]}: non-finite"):
        b = load_adhd200_alff(tmp_path)
    assert b.excluded == [(g.subject_ids[3], "non-finite ALFF values")]
    assert b.data.shape[0] == 21 and g.subject_ids[3] not in b.subject_ids
    with pytest.raises(BadSubjectError, match="non-finite"):
        load_adhd200_alff(tmp_path, on_bad="raise")


# ---------------------------------------------------------------------------------------------
# kill-tests of the mutation run (mutation/fmri_readers.toml): the readers' documented details
# ---------------------------------------------------------------------------------------------


@pytest.mark.mutant
def test_read_roi_file_blank_separated_header_and_comment_lines(tmp_path):
    """A '# 2001 2002 2101' header (blank separated), tab separated names with blanks in them;
    '#' lines after the header or between rows are skipped, not read as a header (planted by
    cosmic-ray: the header's body from ``[0:]``, the tab test negated, ``names is None and not
    rows`` written with ``or``)."""
    p = tmp_path / "S_0000001_rois_ho.1D"
    p.write_text("# 2001 2002 2101\n1 2 3\n")
    assert read_roi_file(p)[1] == ["2001", "2002", "2101"]
    p.write_text("#Left Amygdala\tRight Amygdala\n1 2\n")
    assert read_roi_file(p)[1] == ["Left Amygdala", "Right Amygdala"]
    p.write_text("#2001\t2002\n# TR = 2 s\n1 2\n# scanner restarted\n3 4\n")
    series, names = read_roi_file(p)
    assert names == ["2001", "2002"]
    np.testing.assert_array_equal(series, [[1.0, 2.0], [3.0, 4.0]])
    p.write_text("1 2\n# 3 4\n5 6\n")  # no header: a later '#' line is none either
    series, names = read_roi_file(p)
    assert names == ["1", "2"] and series.shape == (2, 2)


@pytest.mark.mutant
@pytest.mark.parametrize("text, message", [
    ("1 2 3\n4 5 6 7\n", "line 2: ragged rows, 4 values where line 1 has 3"),
    ("\n1 2 3\n4 5\n6 7 8\n", "line 3: ragged rows, 2 values where line 2 has 3"),
    ("#1\t2\t3\n1 2\n3 4\n", "header names 3 ROIs but the data rows have 2 columns"),
])
def test_read_roi_file_longer_rows_and_longer_headers_are_refused(tmp_path, text, message):
    """A row longer than the first, or a header naming more ROIs than there are columns, is
    refused like a shorter one, the message naming the first data row's line (planted by
    cosmic-ray: ``len(tokens) != n_cols`` → ``<``, ``len(names) != n_cols`` → ``<``,
    ``line_numbers[0]`` → ``[1]``, ``[-1]``)."""
    p = tmp_path / "S_0000001_rois_aal.1D"
    p.write_text(text)
    with pytest.raises(FMRIFormatError, match=message):
        read_roi_file(p)


@pytest.mark.mutant
def test_undecodable_or_unreadable_files_are_named(tmp_path):
    """Bytes that are not UTF-8 (a ROI file, a phenotype CSV) and a CSV field past the csv
    module's limit give the readers' own errors naming the file, not a UnicodeDecodeError or
    csv.Error (planted by cosmic-ray: either ``except`` of ``_reading`` replaced)."""
    roi = tmp_path / "S_0000001_rois_aal.1D"
    roi.write_bytes(b"#1\t2\n1 2\n3 \xff\n")
    with pytest.raises(FMRIFormatError, match=rf"{roi}: not UTF-8 text \(byte \d+"):
        read_roi_file(roi)
    pheno = tmp_path / "pheno.csv"
    pheno.write_bytes(b"FILE_ID,DX_GROUP,SITE_ID\nA_1,1,S\xe9\n")
    with pytest.raises(PhenotypeError, match=rf"{pheno}: not UTF-8 text"):
        read_phenotype(pheno)
    pheno.write_text("FILE_ID,DX_GROUP,SITE_ID\nA_1,1," + "S" * 200_000 + "\n")
    with pytest.raises(PhenotypeError, match=rf"{pheno}: not a readable CSV file"):
        read_phenotype(pheno)


@pytest.mark.mutant
@pytest.mark.parametrize("n_duplicated, listed", [(2, 2), (10, 10), (11, 10)])
def test_messages_list_ten_ids_then_the_count_of_the_others(tmp_path, n_duplicated, listed):
    """An error lists at most 10 ids, then '... and k more' (planted by cosmic-ray: the limit
    9 or 11, ``len(ids) > 10`` → ``>=``, ``!=``, ``len(ids) - 10`` → ``+``)."""
    ids = [f"A_{k:02d}" for k in range(n_duplicated)]
    p = tmp_path / "pheno.csv"
    p.write_text("FILE_ID,DX_GROUP,SITE_ID\n" + "".join(f"{i},1,S\n" for i in ids * 2))
    with pytest.raises(PhenotypeError) as info:
        read_phenotype(p)
    shown = ", ".join(repr(i) for i in ids[:listed])
    more = f", ... and {n_duplicated - listed} more" if n_duplicated > listed else ""
    assert str(info.value) == f"{p}: duplicate FILE_ID(s) {shown}{more}"


@pytest.mark.mutant
def test_read_phenotype_blank_rows_long_rows_and_any_site_name(tmp_path):
    """Blank rows (empty or all-blank fields) are skipped without ending the file or counting
    as 'no_filename'; FILE_IDs that sort before 'no_filename' (Caltech, KKI) are kept; a row
    longer than the header is refused; a missing column's message shows the header's first 20
    names (planted by cosmic-ray: the blank-row test's ``or`` → ``and``, its ``continue`` →
    ``break``, ``file_id.lower() == 'no_filename'`` → ``<=``, ``len(row) != len(header)`` →
    ``<``, ``header[:20]`` → ``[:19]``, ``[:21]``)."""
    p = tmp_path / "pheno.csv"
    p.write_text("FILE_ID,DX_GROUP,SITE_ID\nCaltech_0051456,1,CALTECH\n,,\n\n"
                 "KKI_0050772,2,KKI\nno_filename,1,KKI\n")
    ph = read_phenotype(p)
    np.testing.assert_array_equal(ph.file_id, ["Caltech_0051456", "KKI_0050772"])
    np.testing.assert_array_equal(ph.line, [2, 5])
    assert ph.n_no_filename == 1
    p.write_text("FILE_ID,DX_GROUP,SITE_ID\nA_1,1,S,extra\n")
    with pytest.raises(PhenotypeError, match="line 2: 4 fields where the header has 3"):
        read_phenotype(p)
    header = ["FILE_ID", "SITE_ID"] + [f"H{k:02d}" for k in range(1, 24)]
    p.write_text(",".join(header) + "\n")
    with pytest.raises(PhenotypeError) as info:
        read_phenotype(p)
    assert str(info.value).endswith(f"missing column(s) ['DX_GROUP']; found {header[:20]}")


@pytest.mark.mutant
def test_no_phenotype_csv_anywhere_names_the_data_folder(tmp_path):
    """Without any CSV the loader raises FileNotFoundError naming the folder it was given,
    also when the files are in its rois_<atlas>/ (planted by cosmic-ray: ``len(candidates)
    == 1`` → ``<= 1``, an IndexError on a folder without a CSV, and ``directories[0]`` →
    ``[1]``, ``[-1]``, the rois_aal/ folder)."""
    g = _small(tmp_path / "rois_aal", n_subjects=4)
    g.phenotype_csv.unlink()
    with pytest.raises(FileNotFoundError, match=re.escape(f"{tmp_path}: cannot choose a "
                                                          "phenotype CSV")):
        load_roi_dataset(tmp_path)


def _nilearn_folders(root, folders):
    """Small synthetic sets in ABIDE_pcp/<pipeline>/<strategy>/ (``folders``: path -> atlas),
    the phenotype of the first in ABIDE_pcp/."""
    for k, (folder, atlas) in enumerate(folders.items()):
        g = make_synthetic_abide(root / "ABIDE_pcp" / folder, n_subjects=4, n_rois=4,
                                 lengths=20, n_sites=1, atlas=atlas, random_state=0)
        if k == 0:
            g.phenotype_csv.rename(root / "ABIDE_pcp" / g.phenotype_csv.name)


@pytest.mark.mutant
def test_atlas_is_found_in_the_folder_strategy_and_pipeline_choose(tmp_path):
    """With atlas=None the atlas is the one of the folder that strategy= and pipeline= choose,
    whatever the other folders' names sort before or after, and pipeline= alone chooses among
    pipelines (planted by cosmic-ray: ``f.name == strategy`` and ``f.parent.name == pipeline``
    → ``!=``, ``<``, ``<=``, ``>``, ``>=``, their ``and`` → ``or``; ``strategy is not None or
    pipeline is not None`` → ``... or pipeline is None``, which skips pipeline= alone)."""
    _nilearn_folders(tmp_path / "s", {"cpac/filt_noglobal": "cc200", "cpac/filt_global": "ho",
                                      "cpac/nofilt_noglobal": "aal"})
    b = _load_quiet(tmp_path / "s", strategy="filt_noglobal")
    assert b.atlas == "cc200" and b.folder == tmp_path / "s/ABIDE_pcp/cpac/filt_noglobal"
    _nilearn_folders(tmp_path / "p", {"cpac/filt_noglobal": "cc200", "ccs/filt_noglobal": "ho",
                                      "ccs/nofilt_noglobal": "cc200",
                                      "dparsf/filt_noglobal": "aal",
                                      "dparsf/nofilt_noglobal": "cc200"})
    b = _load_quiet(tmp_path / "p", pipeline="cpac")
    assert b.atlas == "cc200" and b.folder == tmp_path / "p/ABIDE_pcp/cpac/filt_noglobal"


@pytest.mark.mutant
def test_loader_options_are_keyword_only(tmp_path):
    """Only the directory and the phenotype CSV may be passed by position (planted by
    cosmic-ray: the signature's ``*`` written ``/``)."""
    _small(tmp_path, n_subjects=4)
    assert _load_quiet(directory=tmp_path).data.shape == (4, 15)
    with pytest.raises(TypeError):
        load_roi_dataset(tmp_path, None, "aal")


@pytest.mark.mutant
def test_length_is_an_integer_of_at_least_2(tmp_path):
    """length=2 (and a NumPy integer) crops to that many rows; 1, 0, True, 2.5, '20' and
    np.float64(20) are refused naming length (planted by cosmic-ray: ``length < 2`` → ``<=
    2``, ``< 3``, the type test's ``or`` → ``and``, which let 2.5 through as 2)."""
    _small(tmp_path)
    for length in (2, np.int64(2)):
        b = load_roi_dataset(tmp_path, length=length, features="timeseries")
        assert b.length == 2 and b.data.shape == (12, 2 * 6)
    for length in (1, 0, True, 2.5, "20", np.float64(20)):
        with pytest.raises(ValueError, match="length must be an integer >= 2"):
            load_roi_dataset(tmp_path, length=length, features="timeseries")


def _shorten(path, n_rows):
    full, names = read_roi_file(path)
    _write_roi_file(path, full[:n_rows], names)


@pytest.mark.mutant
def test_minimum_timepoints_and_what_each_exclusion_says(tmp_path):
    """Connectivity keeps every series of MIN_TIMEPOINTS = 10 rows or more, a 12-row series
    among 40-row ones too, whatever length= says; each exclusion gives its rule; the loader
    warns once, at the caller's line, with no CroppedSeriesWarning. 'timeseries' with length=
    excludes a series below the median rule or below length, each saying which (planted by
    cosmic-ray: MIN_TIMEPOINTS 9 or 11, ``s.shape[0] < 2`` → ``shape[1]``, ``<= 2``, ``< 3``,
    ``< 1``, ``== 2``, the median rule or the length rule applied to connectivity
    (``features == 'timeseries'`` → ``<=``), the rule's text, ``s.shape[0] < shortest`` →
    ``<=``, the rows counted by ``shape[1]`` in a reason, the warning's stacklevel 2 or 4, the
    cropping warning raised for connectivity)."""
    g = _small(tmp_path, lengths=40)
    for k, n_rows in ((0, 10), (1, 9), (2, 2), (3, 1), (4, 12), (5, 30)):
        _shorten(g.files[k], n_rows)
    ids = g.file_ids
    too_short = {ids[1]: "series too short: 9 < 10 time points (minimum: 10)",
                 ids[2]: "series too short: 2 < 10 time points (minimum: 10)",
                 ids[3]: "series too short: 1 time point"}
    for length in (None, 30):
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            b = load_roi_dataset(tmp_path, length=length)
        assert [w.category for w in record] == [ExcludedSubjectsWarning]
        assert record[0].filename == __file__
        assert dict(b.excluded) == too_short and len(b.excluded) == 3
        np.testing.assert_array_equal(b.lengths, [10, 12, 30] + [40] * 6)
    with pytest.warns(ExcludedSubjectsWarning):
        b = load_roi_dataset(tmp_path, length=35, features="timeseries")
    median_rule = "time points (minimum: 10 and 0.5 × the median length)"
    assert dict(b.excluded) == {ids[0]: f"series too short: 10 < 20 {median_rule}",
                                ids[1]: f"series too short: 9 < 20 {median_rule}",
                                ids[2]: f"series too short: 2 < 20 {median_rule}",
                                ids[3]: "series too short: 1 time point",
                                ids[4]: f"series too short: 12 < 20 {median_rule}",
                                ids[5]: "series too short: 30 < length=35"}
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        load_roi_dataset(tmp_path, features="timeseries")
    cropped = [w for w in record if w.category is CroppedSeriesWarning]
    assert len(cropped) == 1 and cropped[0].filename == __file__


@pytest.mark.mutant
def test_excluded_subjects_are_listed_ten_then_counted(tmp_path):
    """The warning lists each excluded subject with its reason, at most 10, then '; ... and k
    more' (planted by cosmic-ray: ``len(excluded) > 10`` negated, → ``==``, ``!=``, ``<``,
    ``<=``, ``>=``, and ``len(excluded) - 10`` → ``+``)."""
    g = _small(tmp_path)
    reason = "constant ROI(s) '1'"
    done = 0
    for n_bad in (1, 10, 11):
        for path in g.files[done:n_bad]:
            _rewrite_column(path, 0, 0.0)
        done = n_bad
        with pytest.warns(ExcludedSubjectsWarning) as record:
            load_roi_dataset(tmp_path)
        listed = "; ".join(f"{fid}: {reason}" for fid in g.file_ids[:min(n_bad, 10)])
        more = "; ... and 1 more" if n_bad == 11 else ""
        assert str(record[0].message) == f"{n_bad} subject(s) excluded: {listed}{more}"


@pytest.mark.mutant
def test_mismatched_rois_and_non_finite_rois_are_named(tmp_path):
    """A file with more ROIs than the first is refused like one with fewer, the message giving
    both counts and first three names; a NaN subject's reason names its ROI (planted by
    cosmic-ray: ``names != roi_names`` → ``<``, the names shown ``[:2]``, ``[:4]``, the
    non-finite columns ``~finite.all(axis=0)`` without ``~`` or along axis 1)."""
    g = _small(tmp_path)
    series, names = read_roi_file(g.files[2])
    _write_roi_file(g.files[2], np.column_stack([series, series[:, 0] * 2]), names + ["7"])
    with pytest.raises(FMRIFormatError) as info:
        load_roi_dataset(tmp_path)
    assert str(info.value) == (f"{g.files[2]}: ROIs (7: ['1', '2', '3']...) differ from those "
                               f"of {g.files[0]} (6: ['1', '2', '3']...)")
    _write_roi_file(g.files[2], series, names)
    _rewrite_column(g.files[4], 2, np.nan)
    with pytest.warns(ExcludedSubjectsWarning):
        b = load_roi_dataset(tmp_path)
    assert b.excluded == [(g.file_ids[4], "non-finite values (NaN/inf) in ROI(s) '3'")]


@pytest.mark.mutant
def test_descr_counts_the_kept_subjects_patients_and_features(tmp_path):
    """DESCR gives the kept subjects, their patients, the ROIs, the cropping and the number
    of features (planted by cosmic-ray: the patients counted by ``dx_group != 1``, ``<``,
    ``>``, ``>=``, the cropping's ``features == 'timeseries'`` → ``!=``, ``<``, ``<=``, ``>``,
    negated, the features by ``data.shape[0]``)."""
    g = _small(tmp_path)
    patient = int(np.flatnonzero(g.target == 1)[0])
    g.files[patient].unlink()
    assert g.target.sum() == 6  # 5 patients left of 11
    tail = (f"11 subjects (5 patients), 6 ROIs, {{}}; 0 excluded, 1 without a file.")
    with pytest.warns(ExcludedSubjectsWarning):
        b = load_roi_dataset(tmp_path)
    assert b.DESCR.endswith(tail.format("whole series, features='connectivity' (15 features)"))
    with pytest.warns(ExcludedSubjectsWarning):
        b = load_roi_dataset(tmp_path, length=20, features="timeseries")
    assert b.DESCR.endswith(tail.format("series cropped to the first 20 time points, "
                                        "features='timeseries' (120 features)"))


@pytest.mark.mutant
def test_folder_scan_and_no_subject_messages(tmp_path):
    """A stray file named just '_rois_aal.1D' is no subject and no orphan; with no phenotype
    row having a file, the message names the sites only when sites= was given (planted by
    cosmic-ray: ``len(p.name) > len(suffix)`` → ``>=``, the sites' clause's ``sites is not
    None`` negated or → ``is None``)."""
    g = _small(tmp_path)
    (tmp_path / "_rois_aal.1D").write_bytes(g.files[0].read_bytes())
    b = _load_quiet(tmp_path)
    assert b.orphans == [] and b.data.shape[0] == 12
    for path in np.array(g.files)[g.sites == "SITE01"]:
        path.unlink()
    with pytest.raises(PhenotypeMismatchError, match=re.escape(
            f"none of the 4 phenotype rows of {g.phenotype_csv} (sites ['SITE01']) has a file "
            f"<FILE_ID>_rois_aal.1D in {tmp_path}")):
        load_roi_dataset(tmp_path, sites="SITE01")
    other = tmp_path / "other.csv"
    other.write_text("FILE_ID,DX_GROUP,SITE_ID\nX_1,1,S\nX_2,2,S\n")
    with pytest.raises(PhenotypeMismatchError, match=re.escape(
            f"none of the 2 phenotype rows of {other} has a file <FILE_ID>_rois_aal.1D in "
            f"{tmp_path}; 8 file(s)")):
        load_roi_dataset(tmp_path, other)


@pytest.mark.mutant
def test_roi_constant_up_to_round_off_is_reported(tmp_path):
    """A ROI at 0.1 in every row is constant although its mean is not 0.1 to the bit (its
    centred values are round-off, ~1e-17, so their scaled copy is finite): the range test
    reports it (planted by cosmic-ray: the two tests' ``|`` → ``*``, ``ptp == 0.0`` →
    ``== -1.0``, which leave only the scaled copy's test)."""
    g = _small(tmp_path, lengths=30)
    _rewrite_column(g.files[3], 1, 0.1)
    with pytest.warns(ExcludedSubjectsWarning):
        b = load_roi_dataset(tmp_path)
    assert b.excluded == [(g.file_ids[3], "constant ROI(s) '2'")]


@pytest.mark.mutant
def test_files_in_the_folder_are_read_before_its_rois_subfolder(tmp_path):
    """Files both in the folder and in its rois_<atlas>/ are not ambiguous: the folder's own
    are read (planted by cosmic-ray: ``flat[:1]`` → ``flat[:2]``, both folders candidates)."""
    g = _small(tmp_path, n_subjects=4)
    _small(tmp_path / "rois_aal", n_subjects=4, random_state=1)
    b = _load_quiet(tmp_path)
    assert b.folder == tmp_path
    np.testing.assert_array_equal(b.series[0], read_roi_file(g.files[0])[0])


@pytest.mark.mutant
def test_the_only_csv_is_the_phenotype_when_it_has_another_name(tmp_path):
    """No file of the PCP phenotype's name but exactly one *.csv: that one is read (planted by
    cosmic-ray: the fallback's loop over the folders skipped, ``for directory in []``)."""
    g = make_synthetic_abide(tmp_path, n_subjects=8, n_rois=4, lengths=(30, 40), n_sites=2,
                             atlas="cc200", random_state=0)
    renamed = g.phenotype_csv.rename(tmp_path / "phenotype.csv")
    b = _load_quiet(tmp_path, atlas="cc200", features="connectivity")
    assert b.phenotype_csv == renamed
    np.testing.assert_array_equal(b.subject_ids, g.file_ids)
