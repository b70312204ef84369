"""The depth chart as an image, drawn with matplotlib (the optional ``plot`` extra).

matplotlib is imported only inside :func:`depth_plot`; without it, the command exits 3 with the
pip command that installs it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from paramcount.engine.report import Report, depth_limit, depth_table
from paramcount.errors import BackendUnavailable, ConfigError, install_hint

DEPTH = 8


class PlotUnavailable(BackendUnavailable):
    """--plot without matplotlib installed."""

    def __init__(self) -> None:
        super().__init__("matplotlib", "plot")
        message = "--plot requires the matplotlib package: " + install_hint("plot")
        self.args = (message,)
        self.msg = message


def _pyplot() -> Any:
    try:
        import matplotlib

        matplotlib.use("Agg")
        from matplotlib import pyplot
    except ImportError:
        raise PlotUnavailable() from None
    return pyplot


def depth_plot(report: Report, path: Path, up_to: int = DEPTH) -> None:
    """Draw the bidirectional/unidirectional ratio and both totals for 1…``up_to`` layers."""
    spec = report.spec
    if spec.single_cell:
        raise ConfigError("--plot draws the depth chart of a layer stack; drop --cell")
    pyplot = _pyplot()
    rows = depth_table(spec, up_to)
    limit = float(depth_limit(spec))
    layers = [r.layers for r in rows]
    figure, (ratio_axes, total_axes) = pyplot.subplots(1, 2, figsize=(10, 4))
    try:
        ratio_axes.bar(layers, [float(r.ratio) for r in rows], color="#4c72b0")
        ratio_axes.axhline(2, color="grey", linestyle=":", label="2× (one layer)")
        ratio_axes.axhline(limit, color="#c44e52", linestyle="--",
                           label=f"{limit:.3f}× (each further layer)")
        ratio_axes.set_xlabel("layers")
        ratio_axes.set_ylabel("bidirectional ÷ unidirectional")
        ratio_axes.set_xticks(layers)
        ratio_axes.legend(loc="lower right")
        total_axes.plot(layers, [r.unidirectional for r in rows], marker="o",
                        label="unidirectional")
        total_axes.plot(layers, [r.bidirectional for r in rows], marker="o",
                        label="bidirectional")
        total_axes.set_xlabel("layers")
        total_axes.set_ylabel("parameters")
        total_axes.set_xticks(layers)
        total_axes.legend()
        figure.suptitle(f"{report.description} — {spec.framework.display_name}")
        figure.tight_layout()
        try:
            figure.savefig(path)
        except OSError as error:
            raise ConfigError(f"--plot {path}: {error.strerror or error}") from None
    finally:
        pyplot.close(figure)
