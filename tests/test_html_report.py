"""``fastmetrics report --html``: one self-contained page with every section, its curves
computed from the file's own rows, clear one-line errors; and the page opened in a real
headless Chromium (no console message, every section shown, every image decoded, a
screenshot taken).

The browser test skips, with the reason printed, only where no Chromium is installed; with
``FASTMETRICS_REQUIRE_BROWSER=1`` (set by ``.ci/run``) a missing browser fails it instead.
``FASTMETRICS_SCREENSHOT_DIR`` keeps the screenshot there to look at.
"""

from __future__ import annotations

import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("matplotlib")
import fastmetrics as fm  # noqa: E402
from fastmetrics.cli import main  # noqa: E402
from fastmetrics.cli.card import card_of  # noqa: E402

SECTIONS = {"card": "Report card", "per-class": "Per-class metrics",
            "confusion-matrix": "Confusion matrix", "calibration": "Calibration",
            "roc": "ROC curves", "precision-recall": "Precision-recall curves"}
IMG_RE = re.compile(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"')
CLASSES = ["account", "billing", "oos", "refund", "shipping", "tech_support"]


def _report(tmp_path, *args, capsys=None):
    out = tmp_path / "report.html"
    rc = main(["report", *map(str, args), "--html", str(out)])
    assert rc == 0
    return out.read_text(encoding="utf-8")


def _png_size(data: str) -> tuple[int, int]:
    import matplotlib.image

    img = matplotlib.image.imread(io.BytesIO(base64.b64decode(data)), format="png")
    return img.shape[1], img.shape[0]


def test_sample_page_has_every_section_and_no_outside_resource(tmp_path, capsys):
    page = _report(tmp_path)
    out = capsys.readouterr().out
    assert out.rstrip().endswith(f"HTML report written to {tmp_path / 'report.html'}")
    for sid, title in SECTIONS.items():
        assert f'<section id="{sid}"><h2>{title}</h2>' in page
    images = IMG_RE.findall(page)
    assert len(images) == 4  # confusion matrix, reliability diagram, ROC, PR
    for data in images:
        w, h = _png_size(data)
        assert w > 100 and h > 100
    # nothing to load from anywhere: only data: URIs, no script
    assert "<script" not in page.lower()
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert "http://" not in page and "https://" not in page
    assert "default-src 'none'" in page
    # the card's numbers, as the text report prints them
    assert "<td>accuracy</td><td>0.8177</td>" in page
    for c in CLASSES:
        assert f"<td>{c}</td>" in page


def test_curves_use_every_row_of_the_file():
    """The rows kept for the curves are the file's: each column's one-vs-rest problem is the
    sample's true labels against that class."""
    import csv
    from importlib import resources

    text = resources.files("fastmetrics").joinpath("data/sample.csv").read_text()
    rows = list(csv.DictReader(io.StringIO(text)))
    yt = np.array([r["y_true"] for r in rows])
    prob = np.array([[float(r[f"p_{c}"]) for c in CLASSES] for r in rows])
    card = card_of(["report", "--html", "unused.html"])
    s = card.scores
    assert s is not None and s.classes == CLASSES
    np.testing.assert_array_equal(s.probabilities, prob)
    np.testing.assert_array_equal(s.true_column, [CLASSES.index(v) for v in yt])
    # without --html nothing is kept
    assert card_of(["report"]).scores is None


@pytest.mark.parametrize("batch", [7, 128])
def test_streamed_rows_equal_whole_file(tmp_path, batch):
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(5)
    yt = rng.integers(-1, 4, 500)
    yp = np.where(rng.random(500) < 0.7, yt, rng.integers(-1, 4, 500))
    prob = rng.dirichlet(np.ones(5), 500)
    path = tmp_path / "i.csv"
    cols = {"y_true": yt, "y_pred": yp, **{f"p_{v}": prob[:, i] for i, v in
                                          enumerate(range(-1, 4))}}
    with open(path, "w") as f:
        f.write(",".join(cols) + "\n")
        for i in range(500):
            f.write(",".join(repr(float(c[i])) if c.dtype.kind == "f" else str(c[i])
                             for c in cols.values()) + "\n")
    args = ["report", str(path), "--prob-prefix", "p_", "--html", "x.html"]
    whole = card_of(args).scores
    streamed = card_of(args + ["--batch-rows", str(batch)]).scores
    assert whole is not None and streamed is not None
    np.testing.assert_array_equal(streamed.true_column, whole.true_column)
    np.testing.assert_array_equal(streamed.probabilities, whole.probabilities)
    assert streamed.classes == whole.classes == [-1, 0, 1, 2, 3]
    for j, c in enumerate(whole.classes):  # each curve's problem is the file's
        y = whole.true_column == j
        np.testing.assert_array_equal(y, yt == c)
        assert fm.roc_auc_score(y, whole.probabilities[:, j]) == pytest.approx(
            roc_auc_score(yt == c, prob[:, j]), rel=1e-12)


def test_probability_matrix_in_label_order(tmp_path):
    rng = np.random.default_rng(1)
    yt = rng.integers(0, 3, 200)
    prob = rng.dirichlet(np.ones(3), 200)
    np.savez(tmp_path / "m.npz", t=yt, p=yt, prob=prob)
    page = _report(tmp_path, tmp_path / "m.npz", "--true", "t", "--pred", "p",
                   "--prob", "prob")
    assert '<section id="roc">' in page and "(AUC" not in page  # legends are in the PNGs
    card = card_of(["report", str(tmp_path / "m.npz"), "--true", "t", "--pred", "p",
                    "--prob", "prob", "--html", "x.html"])
    assert card.scores.classes == [0, 1, 2]
    np.testing.assert_array_equal(card.scores.true_column, yt)


def test_without_probabilities_no_calibration_or_curves(tmp_path, capsys):
    page = _report(tmp_path, "--no-prob")
    assert '<section id="confusion-matrix">' in page
    for sid in ("calibration", "roc", "precision-recall"):
        assert f'<section id="{sid}">' not in page
    assert len(IMG_RE.findall(page)) == 1


def test_one_class_column_is_left_out_with_a_note(tmp_path, capsys):
    path = tmp_path / "b.csv"
    path.write_text("y_true,y_pred,p_a,p_b,p_c\n" + "".join(
        f"{t},{t},{pa},{1 - pa},0\n" for t, pa in [("a", .9), ("b", .2), ("a", .6),
                                                    ("b", .4)]))
    page = _report(tmp_path, path, "--labels", "a", "b", "c")  # no row is class c
    assert "Left out (one class only): c." in page
    assert '<section id="precision-recall">' in page
    assert "warning" not in capsys.readouterr().err


def test_json_output_stays_json_with_html(tmp_path, capsys):
    import json

    rc = main(["report", "--format", "json", "--html", str(tmp_path / "r.html")])
    assert rc == 0
    assert json.loads(capsys.readouterr().out)["n_examples"] == 3000
    assert (tmp_path / "r.html").stat().st_size > 10_000


def _one_line_error(capsys, rc):
    out, err = capsys.readouterr()
    assert rc == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("fastmetrics: error: "), err
    return err


def test_unwritable_path_is_a_one_line_error(tmp_path, capsys):
    rc = main(["report", "--html", str(tmp_path / "no" / "such" / "dir" / "r.html")])
    err = _one_line_error(capsys, rc)
    assert "cannot write the HTML report" in err and "No such file or directory" in err
    rc = main(["report", "--html", str(tmp_path)])  # a directory
    assert "cannot write the HTML report" in _one_line_error(capsys, rc)


@pytest.mark.parametrize("missing", ["matplotlib", "sklearn"])
def test_missing_plot_extra_is_a_one_line_error(tmp_path, capsys, monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)
    rc = main(["report", "--html", str(tmp_path / "r.html")])
    err = _one_line_error(capsys, rc)
    assert "fastmetrics-kernels[plot]" in err
    assert not (tmp_path / "r.html").exists()


# ------------------------------------------------------------------ the real browser


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    return None


def _browse(exe: str, url: str, *extra: str) -> subprocess.CompletedProcess:
    with tempfile.TemporaryDirectory() as profile:
        # --disable-dev-shm-usage: containers often give /dev/shm 64 MB, too little for it
        cmd = [exe, "--headless", "--disable-gpu", "--disable-dev-shm-usage",
               f"--user-data-dir={profile}",
               "--no-first-run", "--enable-logging=stderr", "--v=0", "--hide-scrollbars",
               *extra, url]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            cmd.insert(1, "--no-sandbox")  # Chromium's sandbox refuses to run as root
        return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


# runs in a copy of the page only (the page itself has no script): what the browser decoded
IMAGE_PROBE = """<script>
window.addEventListener("load", () => {
  const rows = Array.from(document.images).map(
    (im) => im.alt + "=" + (im.complete ? im.naturalWidth + "x" + im.naturalHeight : "pending"));
  const shown = Array.from(document.querySelectorAll("section")).map(
    (s) => s.id + "=" + Math.round(s.getBoundingClientRect().height));
  document.body.insertAdjacentHTML("beforeend",
    "<pre id='probe'>" + rows.join(";") + "|" + shown.join(";") + "</pre>");
});
</script>"""


def _chromium_or_skip() -> str:
    """The browser; where there is none, a skip with its reason printed, or a failure when
    FASTMETRICS_REQUIRE_BROWSER=1 (CI, where a skip would hide that the page went untested)."""
    exe = _chromium()
    if exe is not None:
        return exe
    reason = "no Chromium installed (apt-get install chromium)"
    if os.environ.get("FASTMETRICS_REQUIRE_BROWSER") == "1":
        pytest.fail(f"the browser test must run here (FASTMETRICS_REQUIRE_BROWSER=1): {reason}")
    print(f"SKIP test_page_in_headless_chromium: {reason}", file=sys.__stderr__)
    pytest.skip(reason)


def test_missing_browser_skips_or_fails_under_ci(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(sys, "__stderr__", io.StringIO())  # the printed reason
    monkeypatch.delenv("FASTMETRICS_REQUIRE_BROWSER", raising=False)
    with pytest.raises(pytest.skip.Exception, match="no Chromium installed"):
        _chromium_or_skip()
    assert "SKIP test_page_in_headless_chromium: no Chromium" in sys.__stderr__.getvalue()
    monkeypatch.setenv("FASTMETRICS_REQUIRE_BROWSER", "1")
    with pytest.raises(pytest.fail.Exception, match="must run here"):
        _chromium_or_skip()


def test_page_in_headless_chromium(tmp_path, capsys):
    exe = _chromium_or_skip()
    page = _report(tmp_path, "--oos-label", "oos", "--ci", "--seed", "0")
    capsys.readouterr()
    path = tmp_path / "report.html"
    t0 = time.perf_counter()
    # 1. the page as written: no console message at all (it has no script, so any message
    #    is the browser's: a blocked resource, a CSP violation, a bad image)
    dom = _browse(exe, path.as_uri(), "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    console = [ln for ln in dom.stderr.splitlines() if ":CONSOLE" in ln]
    assert not console, "\n".join(console)
    for sid, title in SECTIONS.items():
        assert re.search(rf'<section id="{sid}"><h2>{re.escape(title)}</h2>', dom.stdout), sid
    assert len(IMG_RE.findall(dom.stdout)) == 4
    # 2. every image decoded with a size, every section laid out with a height: a copy with
    #    a probe script (and without the policy that would block it)
    probe = tmp_path / "probe.html"
    probe.write_text(re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", page)
                     .replace("</body>", IMAGE_PROBE + "</body>"), encoding="utf-8")
    dom = _browse(exe, probe.as_uri(), "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    found = re.search(r"<pre id=\"probe\">([^<]*)</pre>", dom.stdout)
    assert found, dom.stdout[-2000:]
    images, sections = (dict(kv.split("=") for kv in part.split(";"))
                        for part in found.group(1).split("|"))
    assert len(images) == 4, images
    for alt, size in images.items():
        w, h = map(int, size.split("x"))
        assert w > 100 and h > 100, (alt, size)
    assert set(SECTIONS) <= set(sections)
    assert all(int(h) > 0 for h in sections.values()), sections
    # 3. a screenshot of the whole page
    shot = tmp_path / "report.png"
    snap = _browse(exe, path.as_uri(), f"--screenshot={shot}", "--window-size=1200,3900")
    assert snap.returncode == 0 and shot.exists(), snap.stderr[-2000:]
    assert not [ln for ln in snap.stderr.splitlines() if ":CONSOLE" in ln]
    w, h = _png_size(base64.b64encode(shot.read_bytes()).decode())
    assert (w, h) == (1200, 3900)
    keep = os.environ.get("FASTMETRICS_SCREENSHOT_DIR")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / "report.png")
        shutil.copy(path, Path(keep) / "report.html")
    print(f"browser checks took {time.perf_counter() - t0:.1f} s; page "
          f"{path.stat().st_size:,} bytes", file=sys.__stderr__)


# --------------------------------------------------------------------------- an evaluation's page
# The same page (fastmetrics._page) grown for an evaluation: gates, one curve a model, the
# sortable table; its one script runs because the policy names its hash.


def _evaluation():
    rng = np.random.default_rng(3)
    n = 20_000
    y = rng.integers(0, 2, n)
    new = np.clip(0.3 * y + 0.7 * rng.random(n), 0, 1)
    old = np.clip(0.15 * y + 0.85 * rng.random(n), 0, 1)
    return fm.evaluate({"y": y, "new": new, "old": old, "seg": rng.choice(["a", "b"], n)},
                       y_true="y", models={"new": "new", "old": "old"}, by="seg",
                       baseline="old", ci=0.95, gates=["roc_auc>=0.8"])


def test_evaluation_page_has_one_curve_per_model():
    from sklearn.metrics import precision_recall_curve, roc_curve

    ev = _evaluation()
    page = ev.to_html()
    for sid in ("gates", "roc", "pr", "reliability", "values"):
        assert f'<section id="{sid}">' in page, sid
    assert len(IMG_RE.findall(page)) == 3
    assert not re.search(r'(src|href)="(?!data:)', page)
    assert "<td>new</td><td></td><td></td><td>roc_auc</td>" in page
    # the script is the one the policy allows
    script = re.search(r"<script>(.*?)</script>", page, re.S).group(1)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in page and page.count("<script") == 1
    # the curves drawn are exact vertices of scikit-learn's curves of the whole table
    data = ev.curves["new"]
    fpr, tpr = data["roc"]
    assert fpr[0] == tpr[0] == 0 and fpr[-1] == tpr[-1] == 1 and 500 < fpr.shape[0] <= 1_001
    rng = np.random.default_rng(3)  # the same rows as _evaluation
    y = rng.integers(0, 2, 20_000)
    new = np.clip(0.3 * y + 0.7 * rng.random(20_000), 0, 1)
    f, t, _ = roc_curve(y, new, drop_intermediate=False)
    vertices = set(zip(f.round(12), t.round(12)))
    assert all((a, b) in vertices for a, b in zip(fpr.round(12), tpr.round(12)))
    p, r, _ = precision_recall_curve(y, new, drop_intermediate=False)
    pr_vertices = set(zip(r.round(12), p.round(12)))
    recall, precision = data["pr"]
    assert all((a, b) in pr_vertices for a, b in zip(recall.round(12), precision.round(12)))
    confidence, observed, counts = data["reliability"]
    assert counts.sum() == 20_000 and ((0 <= confidence) & (confidence <= 1)).all()
    # no probabilities, no curves; a regression task has none either
    labels = fm.evaluate({"y": y, "p": (new > 0.5).astype(int)}, y_true="y", pred="p")
    assert labels.curves == {} and '<section id="roc">' not in labels.to_html()


def test_evaluation_page_in_headless_chromium(tmp_path):
    exe = _chromium_or_skip()
    page = _evaluation().to_html()
    path = tmp_path / "evaluation.html"
    path.write_text(page, encoding="utf-8")
    # 1. as written: no console message (a script the policy refused would print one)
    dom = _browse(exe, path.as_uri(), "--dump-dom")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert not [ln for ln in dom.stderr.splitlines() if ":CONSOLE" in ln], dom.stderr[-2000:]
    # ... and the control: the same page with its script changed by one character is refused
    changed = tmp_path / "changed.html"
    changed.write_text(page.replace("a.localeCompare(c)", "c.localeCompare(a)"),
                       encoding="utf-8")
    refused = _browse(exe, changed.as_uri(), "--dump-dom")
    assert [ln for ln in refused.stderr.splitlines() if ":CONSOLE" in ln], \
        "a script outside the policy ran without a word"
    # 2. a click on the value header sorts the rows by value (a copy with a clicking probe,
    #    the policy naming both scripts' hashes)
    # (then three clicks on the first column: up, down, up again)
    click = ("<script>window.addEventListener('load',function(){"
             "var h=document.querySelectorAll('#values th');h[4].click();"
             "var col=function(i){return Array.from(document.querySelectorAll("
             "'#values tbody tr')).map(function(r){return r.cells[i].textContent})};"
             "var v=col(4),m=[];for(var k=0;k<3;k++){h[0].click();m.push(col(0)[0])}"
             "document.body.insertAdjacentHTML('beforeend','<pre id=\"pro'+'be\">'+v.join(';')"
             "+'|'+m.join(';')+'</pre>')});</script>")
    digest = base64.b64encode(hashlib.sha256(click[8:-9].encode()).digest()).decode()
    probe = tmp_path / "probe.html"
    probe.write_text(page.replace("script-src ", f"script-src 'sha256-{digest}' ")
                     .replace("</body>", click + "</body>"), encoding="utf-8")
    dom = _browse(exe, probe.as_uri(), "--dump-dom")
    found = re.search(r'<pre id="probe">([^<]*)</pre>', dom.stdout)
    assert found, dom.stderr[-2000:]
    sorted_values, firsts = found.group(1).split("|")
    values = [float(v) for v in sorted_values.split(";")]
    assert len(values) > 20 and values == sorted(values)
    assert firsts.split(";") == ["new", "old", "new"]


def test_evaluation_page_draws_any_model_name(monkeypatch):
    # "$" would start matplotlib's mathtext (a parse error), a leading "_" hides a label
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 500)
    names = {"a$\\frac{1}$b": "s1", "_hidden": "s2"}
    ev = fm.evaluate({"y": y, "s1": rng.random(500), "s2": rng.random(500)}, y_true="y",
                     models=names)
    page = ev.to_html()
    assert len(IMG_RE.findall(page)) == 3
    from fastmetrics._page import curve_sections
    import matplotlib.figure

    texts = []
    real = matplotlib.figure.Figure.savefig

    def keep(fig, *a, **k):  # each figure's legend, as it is saved
        texts.append([t.get_text() for t in fig.axes[0].get_legend().get_texts()])
        return real(fig, *a, **k)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", keep)
    curve_sections(ev.curves)
    assert len(texts) == 3 and all(t == ["a\\$\\frac{1}\\$b", "_hidden"] for t in texts), texts


def test_curve_points_of_a_binned_state_with_empty_top_bins():
    from fastmetrics._states.ranking import curve_points
    from fastmetrics.states import RankingState

    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    st = RankingState.from_arrays(y, rng.random(300) * 0.5, edges=np.linspace(0, 1, 11))
    fpr, tpr, recall, precision = curve_points(st)
    assert np.isfinite(precision).all() and np.isfinite(recall).all()
    assert recall[-1] == 1 and precision[-1] == pytest.approx(y.mean())
    assert fpr[-1] == tpr[-1] == 1
