"""Energy and CO2 of a block of work, on CodeCarbon's offline tracker (the ``energy`` extra:
``pip install fastmetrics-kernels[energy]``).

``with fm.track_emissions(country_iso_code="FRA") as run:`` around any block gives, after the
block, ``run.report``: kg CO2-equivalent, kWh and seconds, and the quality-adjusted ratios
``gco2_per_f1_point = co2_g / (f1 * 100)`` and ``gco2_per_mae_unit = co2_g / mae`` once the
run's F1 or MAE is known. ``benchmark_model(..., emissions=...)`` wraps its fit and predictions
the same way.

CodeCarbon is imported only when a tracker starts, runs offline (``OfflineEmissionsTracker``:
the carbon intensity comes from the country's energy mix shipped with the package, nothing is
sent or fetched) with ``tracking_mode="process"`` and writes no file unless asked. Where the
machine gives no power reading (no RAPL counters, as in most VMs and containers), CodeCarbon
estimates the CPU's power from its load and a TDP; the report says which
(``power_source``).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
from dataclasses import dataclass

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType
    from typing import Any, TypeVar

    F = TypeVar("F", bound=Callable[..., Any])

__all__ = [
    "EmissionsReport",
    "EmissionsRun",
    "gco2_per_f1_point",
    "gco2_per_mae_unit",
    "track_emissions",
]

# CodeCarbon's descriptions of hardware whose power it reads from a meter; every other CPU
# description ("CPU(Cpu Load)", "CPU(<model> > <TDP>W)") is its estimate from load and TDP
_METERED = ("CPU(Intel Rapl)", "CPU(Intel Power Gadget)", "CPU(Windows Emi)",
            "AppleSiliconChip", "Raspberry")


def _ratio(co2_kg: float, denominator: float) -> float:
    """grams over ``denominator``: inf for a positive amount over 0, NaN for 0 over 0."""
    grams = co2_kg * 1000.0
    if denominator == 0.0:
        return math.inf if grams > 0 else math.nan
    return grams / denominator


def _check_amount(value: Any, name: str, upper: float | None = None) -> float:
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a number, got {value!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, got {value!r}") from None
    if not math.isfinite(v) or v < 0 or (upper is not None and v > upper):
        bound = f"in [0, {upper}]" if upper is not None else ">= 0"
        raise ValueError(f"{name} must be a finite number {bound}, got {value!r}")
    return v


def gco2_per_f1_point(co2_kg: float, f1: float | None) -> float:
    """Grams of CO2-equivalent per F1 point: ``co2_kg * 1000 / (f1 * 100)`` (F1 in [0, 1]).

    ``inf`` when F1 is 0 and something was emitted, NaN when both are 0.

    Parameters
    ----------
    co2_kg : float
        Emissions in kg CO2-equivalent (>= 0).
    f1 : float
        The run's F1 score, in [0, 1].

    Returns
    -------
    float
        Grams of CO2-equivalent per F1 point (inf or NaN as above).

    Raises
    ------
    TypeError
        If an argument is not a number.
    ValueError
        If an argument is negative or not finite, or ``f1`` is above 1.

    See Also
    --------
    fastmetrics.gco2_per_mae_unit : The same ratio for a regression error.
    fastmetrics.track_emissions : Measure the emissions of a block.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.gco2_per_f1_point(0.002, 0.8)
    0.025
    """
    return _ratio(_check_amount(co2_kg, "co2_kg"), _check_amount(f1, "f1", 1.0) * 100.0)


def gco2_per_mae_unit(co2_kg: float, mae: float | None) -> float:
    """Grams of CO2-equivalent per unit of MAE: ``co2_kg * 1000 / mae``.

    ``inf`` when the MAE is 0 and something was emitted, NaN when both are 0.

    Parameters
    ----------
    co2_kg : float
        Emissions in kg CO2-equivalent (>= 0).
    mae : float
        The run's mean absolute error (>= 0).

    Returns
    -------
    float
        Grams of CO2-equivalent per unit of MAE (inf or NaN as above).

    Raises
    ------
    TypeError
        If an argument is not a number.
    ValueError
        If an argument is negative or not finite.

    See Also
    --------
    fastmetrics.gco2_per_f1_point : The same ratio for a classification score.
    fastmetrics.track_emissions : Measure the emissions of a block.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> fm.gco2_per_mae_unit(0.002, 4.0)
    0.5
    """
    return _ratio(_check_amount(co2_kg, "co2_kg"), _check_amount(mae, "mae"))


@dataclass(frozen=True)
class EmissionsReport:
    """What CodeCarbon's offline tracker measured over a block, and the ratio metrics.

    Parameters
    ----------
    co2_kg : float
        kg CO2-equivalent (energy times the country's carbon intensity).
    kwh : float
        Energy consumed (CPU + GPU + RAM), kWh.
    duration_s : float
        Seconds tracked.
    cpu_kwh, gpu_kwh, ram_kwh : float, default=0.0
        The parts of ``kwh``.
    country_iso_code : str or None, default=None
        The country whose energy mix was used (None: CodeCarbon's world average).
    power_source : {"measured", "estimated", "unknown"}, default="unknown"
        "measured" when CodeCarbon read the CPU's power from a meter (RAPL...), "estimated"
        when it fell back on its load x TDP model (no meter readable), "unknown" when the
        tracker did not say.
    hardware : tuple of str, default=()
        CodeCarbon's description of what it tracked (``"CPU(Cpu Load)"``, ``"RAM()"``...).
    f1, mae : float or None, default=None
        The run's quality, when given (:meth:`with_quality`): they make the ratios.

    See Also
    --------
    fastmetrics.track_emissions : What measures it.

    Examples
    --------
    >>> from fastmetrics.energy import EmissionsReport
    >>> r = EmissionsReport(co2_kg=0.002, kwh=0.01, duration_s=60.0).with_quality(f1=0.8)
    >>> r.co2_g, r.gco2_per_f1_point
    (2.0, 0.025)
    """

    co2_kg: float
    kwh: float
    duration_s: float
    cpu_kwh: float = 0.0
    gpu_kwh: float = 0.0
    ram_kwh: float = 0.0
    country_iso_code: str | None = None
    power_source: str = "unknown"
    hardware: tuple[str, ...] = ()
    f1: float | None = None
    mae: float | None = None

    @property
    def co2_g(self) -> float:
        """Grams of CO2-equivalent (``co2_kg * 1000``).

        See Also
        --------
        fastmetrics.EmissionsReport.gco2_per_f1_point : Grams per F1 point.

        Examples
        --------
        >>> from fastmetrics.energy import EmissionsReport
        >>> EmissionsReport(co2_kg=0.0025, kwh=0.01, duration_s=60.0).co2_g
        2.5
        """
        return self.co2_kg * 1000.0

    # properties named as the harness keys (and as the module functions they call)
    def _per_f1_point(self) -> float | None:
        return None if self.f1 is None else gco2_per_f1_point(self.co2_kg, self.f1)

    def _per_mae_unit(self) -> float | None:
        return None if self.mae is None else gco2_per_mae_unit(self.co2_kg, self.mae)

    gco2_per_f1_point = property(_per_f1_point, doc="""``co2_g / (f1 * 100)``; None without an F1.

        See Also
        --------
        fastmetrics.gco2_per_f1_point : The same ratio of any numbers.

        Examples
        --------
        >>> from fastmetrics.energy import EmissionsReport
        >>> r = EmissionsReport(co2_kg=0.002, kwh=0.01, duration_s=60.0)
        >>> r.gco2_per_f1_point is None, r.with_quality(f1=0.5).gco2_per_f1_point
        (True, 0.04)
        """)
    gco2_per_mae_unit = property(_per_mae_unit, doc="""``co2_g / mae``; None without an MAE.

        See Also
        --------
        fastmetrics.gco2_per_mae_unit : The same ratio of any numbers.

        Examples
        --------
        >>> from fastmetrics.energy import EmissionsReport
        >>> r = EmissionsReport(co2_kg=0.002, kwh=0.01, duration_s=60.0)
        >>> r.with_quality(mae=4.0).gco2_per_mae_unit
        0.5
        """)

    def with_quality(self, *, f1: float | None = None,
                     mae: float | None = None) -> EmissionsReport:
        """A copy that knows the run's F1 (in [0, 1]) and/or MAE, for the ratio metrics.

        Parameters
        ----------
        f1 : float, default=None
            The run's F1 score, in [0, 1] (None keeps the report's).
        mae : float, default=None
            The run's mean absolute error, >= 0 (None keeps the report's).

        Returns
        -------
        EmissionsReport
            A new report with the quality set; this one is left unchanged.

        Raises
        ------
        TypeError
            If ``f1`` or ``mae`` is not a number.
        ValueError
            If ``f1`` is outside [0, 1] or ``mae`` is negative, or either is not finite.

        See Also
        --------
        fastmetrics.EmissionsReport.gco2_per_f1_point : The ratio it enables.

        Examples
        --------
        >>> from fastmetrics.energy import EmissionsReport
        >>> r = EmissionsReport(co2_kg=0.002, kwh=0.01, duration_s=60.0)
        >>> r.with_quality(mae=4.0).mae, r.mae
        (4.0, None)
        """
        return dataclasses.replace(
            self, f1=self.f1 if f1 is None else _check_amount(f1, "f1", 1.0),
            mae=self.mae if mae is None else _check_amount(mae, "mae"))

    def to_flat_dict(self) -> dict[str, Any]:
        """The harness keys ``co2_kg``, ``kwh``, ``duration_s``, ``gco2_per_f1_point`` /
        ``gco2_per_mae_unit`` (when the quality is known), and the tracker's details.

        Returns
        -------
        dict
            Flat keys (``energy.cpu_kwh``, ``energy.power_source``...) to scalars.

        See Also
        --------
        fastmetrics.ModelBenchmark.to_flat_dict : A benchmark's flat row, which
            includes these keys.

        Examples
        --------
        >>> from fastmetrics.energy import EmissionsReport
        >>> d = EmissionsReport(co2_kg=0.002, kwh=0.01, duration_s=60.0).to_flat_dict()
        >>> d["co2_kg"], d["energy.power_source"]
        (0.002, 'unknown')
        """
        out: dict[str, Any] = {"co2_kg": self.co2_kg, "kwh": self.kwh,
                               "duration_s": self.duration_s}
        if self.f1 is not None:
            out["gco2_per_f1_point"] = self.gco2_per_f1_point
        if self.mae is not None:
            out["gco2_per_mae_unit"] = self.gco2_per_mae_unit
        out.update({"energy.cpu_kwh": self.cpu_kwh, "energy.gpu_kwh": self.gpu_kwh,
                    "energy.ram_kwh": self.ram_kwh,
                    "energy.country_iso_code": self.country_iso_code,
                    "energy.power_source": self.power_source})
        return out


def _power_source(hardware: tuple[str, ...]) -> str:
    cpus = [h for h in hardware if h.startswith(("CPU", "AppleSiliconChip", "Raspberry"))]
    if not cpus:
        return "unknown"
    return "measured" if any(h.startswith(_METERED) for h in cpus) else "estimated"


def _country(code: object) -> str | None:
    """The ISO 3166-1 alpha-3 code, upper-cased, checked against the energy mixes CodeCarbon
    ships (it would otherwise log an error and use the world average silently)."""
    if code is None:
        return None
    if not isinstance(code, str) or len(code) != 3 or not code.isalpha():
        raise ValueError(f"country_iso_code must be a 3-letter ISO 3166-1 code such as 'FRA', "
                         f"got {code!r}")
    from codecarbon.input import DataSource

    code = code.upper()
    if code not in DataSource().get_global_energy_mix_data():
        raise ValueError(f"country_iso_code {code!r} is not in CodeCarbon's energy-mix data")
    return code


def _tracker_class() -> Any:
    try:
        from codecarbon import OfflineEmissionsTracker
    except ImportError as exc:
        raise ImportError(
            "energy tracking needs CodeCarbon, which is not installed: `pip install codecarbon` "
            "(or the `energy` extra: `pip install fastmetrics-kernels[energy]`)"
        ) from exc
    return OfflineEmissionsTracker


class EmissionsRun:
    """The handle ``with track_emissions(...) as run`` gives: ``run.report`` is the
    :class:`EmissionsReport` once the block has ended (None inside it); ``run.tracker`` is
    CodeCarbon's tracker.

    The tracker is stopped when the block ends, whether or not it raised.

    Parameters
    ----------
    tracker : codecarbon.OfflineEmissionsTracker
        The tracker, started when the block is entered.
    country_iso_code : str or None
        The country whose energy mix the tracker uses (None: the world average).

    See Also
    --------
    fastmetrics.track_emissions : What builds it.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> with fm.track_emissions(country_iso_code="FRA") as run:  # doctest: +SKIP
    ...     sum(range(10**6))
    >>> run.report.kwh > 0                                     # doctest: +SKIP
    True
    """

    def __init__(self, tracker: Any, country_iso_code: str | None) -> None:
        self.tracker = tracker
        self.country_iso_code = country_iso_code
        self.report: EmissionsReport | None = None

    def __enter__(self) -> EmissionsRun:
        self.tracker.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        # stopped whatever happened in the block: its measuring thread must not outlive it
        self.tracker.stop()
        if exc_type is None:
            self.report = self._report()
        else:  # the block's own error is the one to see
            try:
                self.report = self._report()
            except RuntimeError:
                pass

    def _report(self) -> EmissionsReport:
        # CodeCarbon suppresses its own errors (its __init__, start and stop catch them)
        d = getattr(self.tracker, "final_emissions_data", None)
        if d is None:
            raise RuntimeError("CodeCarbon's tracker measured nothing (it logs why at "
                               "log_level='error')")
        # CodeCarbon keeps the list of what it tracked in its configuration only
        hardware = tuple(getattr(self.tracker, "_conf", {}).get("hardware") or ())
        return EmissionsReport(
            co2_kg=float(d.emissions), kwh=float(d.energy_consumed),
            duration_s=float(d.duration), cpu_kwh=float(d.cpu_energy),
            gpu_kwh=float(d.gpu_energy), ram_kwh=float(d.ram_energy),
            country_iso_code=self.country_iso_code, power_source=_power_source(hardware),
            hardware=hardware,
        )


def track_emissions(country_iso_code: str | None = None, *, project_name: str = "fastmetrics",
                    measure_power_secs: float = 15, log_level: str = "error",
                    output_dir: str | os.PathLike[str] | None = None,
                    **tracker_kwargs: Any) -> EmissionsRun:
    """Track the energy and CO2 of a block with CodeCarbon's offline tracker.

    Parameters
    ----------
    country_iso_code : str, default=None
        ISO 3166-1 alpha-3 code of where the work runs (``"FRA"``, ``"USA"``...): its energy
        mix, shipped with CodeCarbon, gives the carbon intensity. None: CodeCarbon's world
        average.
    project_name : str, default="fastmetrics"
        CodeCarbon's project name (in its output file).
    measure_power_secs : float, default=15
        How often CodeCarbon samples power inside the block (it also measures at the end).
    log_level : str, default="error"
        CodeCarbon's logging level ("warning" shows which power readings it fell back from).
    output_dir : str, default=None
        Where CodeCarbon writes its ``emissions.csv``; None: no file.
    **tracker_kwargs
        Passed to ``codecarbon.OfflineEmissionsTracker`` (e.g. ``region``, ``pue``,
        ``force_cpu_power``). ``tracking_mode`` is always "process".

    Returns
    -------
    EmissionsRun
        A context manager; after the block its ``report`` is an :class:`EmissionsReport`.

    Raises
    ------
    ImportError
        CodeCarbon is not installed.
    ValueError
        A country code that is not 3 letters or that CodeCarbon has no energy mix for.
    TypeError
        ``tracking_mode`` given in ``tracker_kwargs`` (this process is always tracked).

    See Also
    --------
    fastmetrics.benchmark_model : Its ``emissions=`` argument tracks a benchmark.
    fastmetrics.gco2_per_f1_point : Emissions per unit of quality.

    Examples
    --------
    >>> import fastmetrics as fm
    >>> with fm.track_emissions(country_iso_code="FRA") as run:  # doctest: +SKIP
    ...     model.fit(X, y); f1 = fm.f1_score(y_test, model.predict(X_test), average="macro")
    >>> r = run.report.with_quality(f1=f1)                         # doctest: +SKIP
    >>> r.co2_kg, r.kwh, r.duration_s, r.gco2_per_f1_point, r.power_source  # doctest: +SKIP
    """
    if "tracking_mode" in tracker_kwargs:
        raise TypeError("track_emissions always tracks this process (tracking_mode='process')")
    tracker_class = _tracker_class()
    code = _country(country_iso_code)
    # the level applies from the tracker's first message (CodeCarbon sets it only after
    # logging its start-up at INFO)
    from codecarbon.external.logger import set_logger_level

    set_logger_level(log_level)
    kwargs = dict(project_name=project_name, measure_power_secs=measure_power_secs,
                  log_level=log_level, tracking_mode="process", **tracker_kwargs)
    if code is not None:
        kwargs["country_iso_code"] = code
    if output_dir is None:
        kwargs.setdefault("output_methods", [])
    else:
        os.makedirs(output_dir, exist_ok=True)  # CodeCarbon needs it to exist
        kwargs["output_dir"] = os.fspath(output_dir)
    return EmissionsRun(tracker_class(**kwargs), code)


def tracks_emissions(benchmark: F) -> F:
    """Decorator of ``benchmark_model``: its ``emissions=`` argument (True, or a dict of
    :func:`track_emissions` arguments) runs the whole benchmark (fit and every prediction)
    inside a tracker and puts the report, with the run's macro F1 or MAE, in the result's
    ``emissions``."""

    @functools.wraps(benchmark)
    def tracked(*args: Any, emissions: bool | dict[str, Any] | None = None,
                **kwargs: Any) -> Any:
        if emissions is None or emissions is False:
            return benchmark(*args, **kwargs)
        if emissions is True:
            options: dict[str, Any] = {}
        elif isinstance(emissions, dict):
            options = emissions
        else:
            raise TypeError(f"emissions must be None, True or a dict of track_emissions "
                            f"arguments, got {type(emissions).__name__}")
        with track_emissions(**options) as run:
            result = benchmark(*args, **kwargs)
        assert run.report is not None
        metrics = result.metrics
        report = run.report.with_quality(f1=metrics.get("macro_f1"), mae=metrics.get("mae"))
        return dataclasses.replace(result, emissions=report)

    # functools.wraps keeps the benchmark's signature for callers; mypy cannot see that
    return tracked  # type: ignore[return-value]
