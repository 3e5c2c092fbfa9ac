"""Energy and CO2 with CodeCarbon's offline tracker: the real package, run on this machine with
every network connection refused."""

import math
import socket
import sys

import numpy as np
import pytest

import fastmetrics as fm

codecarbon = pytest.importorskip("codecarbon")
from codecarbon.core import cpu as codecarbon_cpu  # noqa: E402
from codecarbon.input import DataSource  # noqa: E402


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No network: every connection and name lookup fails and is recorded. Runs in an
    empty directory, so a file the tracker writes would show."""
    attempts = []

    def refuse(*args, **kwargs):
        attempts.append(args)
        raise OSError("network is not reachable in this test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.setattr(socket, "getaddrinfo", refuse)
    monkeypatch.chdir(tmp_path)
    yield attempts
    assert attempts == [], f"the tracker tried the network: {attempts}"


def busy(seconds):
    end = np.float64(0)
    import time

    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        end += np.sum(np.arange(10_000.0))
    return end


def intensity(report):
    return report.co2_kg * 1000.0 / report.kwh  # g per kWh


def test_tracks_a_block_offline_with_the_country_energy_mix(offline, tmp_path):
    with fm.track_emissions(country_iso_code="fra") as run:
        assert run.report is None
        busy(0.3)
    r = run.report
    assert isinstance(r, fm.EmissionsReport)
    assert r.duration_s >= 0.3 and r.kwh > 0 and r.co2_kg > 0
    assert r.kwh == pytest.approx(r.cpu_kwh + r.gpu_kwh + r.ram_kwh, rel=1e-9)
    assert r.country_iso_code == "FRA"
    mix = DataSource().get_global_energy_mix_data()
    assert intensity(r) == pytest.approx(mix["FRA"]["carbon_intensity"], rel=1e-6)
    # where no power meter can be read (no RAPL: most VMs), CodeCarbon's load x TDP estimate
    # applies and the report says so
    expected = "measured" if codecarbon_cpu.is_rapl_available() else "estimated"
    assert r.power_source == expected
    assert any(h.startswith("CPU") for h in r.hardware)
    assert list(tmp_path.iterdir()) == []  # no emissions.csv unless output_dir is given
    flat = r.to_flat_dict()
    assert {"co2_kg", "kwh", "duration_s"} <= flat.keys()
    assert "gco2_per_f1_point" not in flat and "gco2_per_mae_unit" not in flat
    assert flat["energy.power_source"] == expected

    q = r.with_quality(f1=0.8, mae=2.0)
    assert q.gco2_per_f1_point == pytest.approx(r.co2_kg * 1000 / 80, rel=1e-12)
    assert q.gco2_per_mae_unit == pytest.approx(r.co2_kg * 1000 / 2.0, rel=1e-12)
    assert fm.flatten(q)["gco2_per_f1_point"] == q.gco2_per_f1_point


def test_the_country_changes_the_carbon_intensity_and_a_file_when_asked(offline, tmp_path):
    with fm.track_emissions("POL", output_dir=tmp_path / "out") as run:
        busy(0.05)
    mix = DataSource().get_global_energy_mix_data()
    assert intensity(run.report) == pytest.approx(mix["POL"]["carbon_intensity"], rel=1e-6)
    assert (tmp_path / "out" / "emissions.csv").exists()


def test_the_tracker_stops_when_the_block_raises(offline):
    with pytest.raises(KeyError):
        with fm.track_emissions("FRA") as run:
            busy(0.02)
            raise KeyError("boom")
    assert run.report is not None and run.report.duration_s > 0
    assert run.tracker._scheduler is None  # CodeCarbon drops its measuring timer on stop


def test_benchmark_model_tracks_fit_and_predictions(offline):
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.metrics import f1_score, mean_absolute_error

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    r = fm.benchmark_model(LogisticRegression(), X[:200], y[:200], X[200:], y[200:],
                           n_iters=20, emissions={"country_iso_code": "FRA"})
    e = r.emissions
    assert e.co2_kg > 0 and e.duration_s >= r.fit_seconds + r.batch.seconds
    pred = LogisticRegression().fit(X[:200], y[:200]).predict(X[200:])
    assert e.f1 == r.metrics["macro_f1"] == pytest.approx(f1_score(y[200:], pred,
                                                                   average="macro"))
    flat = r.to_flat_dict()
    assert flat["gco2_per_f1_point"] == pytest.approx(e.co2_kg * 1000 / (e.f1 * 100))
    assert flat["co2_kg"] == e.co2_kg and "gco2_per_mae_unit" not in flat

    yr = X @ [1.0, 2.0, 0.0, -1.0] + rng.normal(size=300)
    r = fm.benchmark_model(LinearRegression(), X[:200], yr[:200], X[200:], yr[200:],
                           task="regression", n_iters=5, emissions=True)
    pred = LinearRegression().fit(X[:200], yr[:200]).predict(X[200:])
    assert r.metrics["mae"] == pytest.approx(mean_absolute_error(yr[200:], pred), rel=1e-12)
    assert r.emissions.mae == r.metrics["mae"] and r.emissions.country_iso_code is None
    assert r.to_flat_dict()["gco2_per_mae_unit"] == r.emissions.gco2_per_mae_unit
    # without emissions= nothing is tracked
    assert fm.benchmark_model(LinearRegression(), X, yr, X, yr, task="regression",
                              n_iters=2).emissions is None


def test_ratio_metrics():
    assert fm.gco2_per_f1_point(0.002, 0.5) == pytest.approx(2.0 / 50)
    assert fm.gco2_per_mae_unit(0.002, 4) == 0.5
    assert fm.gco2_per_f1_point(0.001, 0) == math.inf
    assert math.isnan(fm.gco2_per_mae_unit(0.0, 0.0))
    assert fm.gco2_per_f1_point(0.0, 0.9) == 0.0


@pytest.mark.parametrize("call, exc, match", [
    (lambda: fm.gco2_per_f1_point(0.1, 1.5), ValueError, r"f1 must be a finite number in \[0"),
    (lambda: fm.gco2_per_f1_point(-0.1, 0.5), ValueError, "co2_kg must be a finite number"),
    (lambda: fm.gco2_per_mae_unit(0.1, float("nan")), ValueError, "mae must be a finite"),
    (lambda: fm.gco2_per_mae_unit(0.1, "x"), TypeError, "mae must be a number"),
    (lambda: fm.gco2_per_mae_unit(True, 1.0), TypeError, "co2_kg must be a number"),
    (lambda: fm.track_emissions("FR"), ValueError, "3-letter ISO 3166-1 code"),
    (lambda: fm.track_emissions("XYZ"), ValueError, "'XYZ' is not in CodeCarbon's"),
    (lambda: fm.track_emissions(123), ValueError, "3-letter"),
    (lambda: fm.track_emissions("FRA", tracking_mode="machine"), TypeError, "process"),
    (lambda: fm.benchmark_model(None, [], [], [], [], emissions="FRA"), TypeError,
     "emissions must be None, True or a dict"),
])
def test_bad_input(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_without_codecarbon(monkeypatch):
    monkeypatch.setitem(sys.modules, "codecarbon", None)
    with pytest.raises(ImportError, match=r"pip install fastmetrics-kernels\[energy\]"):
        fm.track_emissions("FRA")


def test_codecarbon_is_imported_only_when_a_tracker_starts():
    import subprocess

    code = "import sys, fastmetrics; print('codecarbon' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_a_tracker_that_measured_nothing_is_an_error():
    class Broken:  # what CodeCarbon leaves when it swallowed an error of its own
        def start(self):
            pass

        def stop(self):
            pass

    with pytest.raises(RuntimeError, match="measured nothing"):
        with fm.EmissionsRun(Broken(), "FRA"):
            pass
    with pytest.raises(KeyError):  # the block's own error is not hidden
        with fm.EmissionsRun(Broken(), "FRA") as run:
            raise KeyError("x")
    assert run.report is None
