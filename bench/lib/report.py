"""Results of one experiment: the machine description (cores, memory, disk, kernel),
medians with min/max, kiln/MariaDB ratios, and the writer of
bench/results/<experiment>-<date>.{csv,md,png} (Markdown with the command, the
machine and every server setting; CSV with one row per measured point; a matplotlib
plot with labelled axes and one line per system)."""

import csv
import datetime
import os
import platform
import shlex
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def _disk(path):
    """'<device> <size>, SSD|rotational, <fs>' of the filesystem holding path."""
    p = subprocess.run(["df", "-h", "--output=source,fstype,size", path],
                       capture_output=True, text=True)
    lines = p.stdout.split("\n")
    if p.returncode != 0 or len(lines) < 2 or not lines[1].split():
        return "?"
    src, fstype, size = (lines[1].split() + ["?", "?"])[:3]
    kind = ""
    dev = os.path.basename(src)
    for cand in (dev, dev.rstrip("0123456789"), dev.split("p")[0]):
        rot = _read(f"/sys/block/{cand}/queue/rotational").strip()
        if rot:
            kind = ", rotational" if rot == "1" else ", non-rotational"
            break
    return f"{src} {size} {fstype}{kind}"


def machine(path=None):
    """One line: cores, CPU model, memory, disk of `path` (the datadirs), kernel."""
    cpu = "?"
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            cpu = line.split(":", 1)[1].strip()
            break
    mem = "?"
    for line in _read("/proc/meminfo").splitlines():
        if line.startswith("MemTotal:"):
            mem = f"{int(line.split()[1]) / 1048576:.1f} GiB"
    return (f"{os.cpu_count()} cores ({cpu}), {mem} RAM, disk {_disk(path or '/tmp')}, "
            f"kernel {platform.release()}")


def git_commit():
    p = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        return "?"
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return p.stdout.strip() + (" (with uncommitted changes)" if dirty else "")


def summarize(values):
    """(median, min, max) of the non-None values, or None."""
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return statistics.median(vals), min(vals), max(vals)


def fmt_num(v, digits=0):
    if v is None:
        return "–"
    if digits == 0 and abs(v) >= 10:
        return f"{v:,.0f}"
    if abs(v) < 10 and digits == 0:
        return f"{v:.2f}"
    return f"{v:,.{digits}f}"


def fmt_mmm(s, digits=0):
    """'median [min–max]' of a summarize() triple."""
    if s is None:
        return "failed"
    med, lo, hi = s
    return f"{fmt_num(med, digits)} [{fmt_num(lo, digits)}–{fmt_num(hi, digits)}]"


def ratio(a, b):
    """a/b as text, '–' when either is missing."""
    if a is None or b in (None, 0):
        return "–"
    return f"{a / b:.2f}"


class Report:
    """Collects Markdown lines and CSV rows; `write()` saves .csv, .md and .png."""

    def __init__(self, experiment, title, args, out_dir=None):
        self.experiment, self.title, self.args = experiment, title, args
        self.started = datetime.datetime.now(datetime.timezone.utc)
        stamp = self.started.strftime("%Y%m%d-%H%M")
        out_dir = out_dir or os.path.join(ROOT, "bench", "results")
        self.prefix = os.path.join(out_dir, f"{experiment}-{stamp}")
        self.rows = []
        self.body = []
        self.servers = []
        self.notes = []
        self.missing = []  # knobs or systems the experiment could not use, said in the output

    def md(self, *lines):
        self.body.extend(lines)

    def table(self, headers, rows):
        self.body.append("| " + " | ".join(headers) + " |")
        self.body.append("|" + "---|" * len(headers))
        for r in rows:
            self.body.append("| " + " | ".join(str(c) for c in r) + " |")
        self.body.append("")

    def note(self, text):
        self.notes.append(text)

    def add_server(self, desc):
        """desc: dict from Server.describe() (label, version, command, settings)."""
        if all((d["label"], d["settings"]) != (desc["label"], desc["settings"])
               for d in self.servers):
            self.servers.append(desc)

    def write(self, plot=None, datadir_path=None):
        """Writes <prefix>.csv, .md and (when plot is given) .png; returns the prefix.
        plot(path) draws the figure."""
        os.makedirs(os.path.dirname(self.prefix), exist_ok=True)
        fields = []
        for r in self.rows:
            for k in r:
                if k not in fields:
                    fields.append(k)
        with open(self.prefix + ".csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=fields or ["experiment"])
            w.writeheader()
            w.writerows(self.rows)
        png = None
        if plot is not None and self.rows:
            png = self.prefix + ".png"
            plot(png)
        cmd = getattr(self.args, "command", None) or "bench/run " + shlex.join(sys.argv[1:])
        md = [f"# {self.title} ({self.started:%Y-%m-%d %H:%M} UTC)", "",
              f"Command: `{cmd}`", "",
              f"Machine: {machine(datadir_path)}. Client and servers share the machine.", "",
              f"kiln commit: {git_commit()}.", ""]
        if getattr(self.args, "smoke", False):
            md += ["**Smoke run**: tiny sizes and one short run per point; the numbers mean "
                   "nothing.", ""]
        md += self.body
        if png:
            md += [f"![{self.experiment}]({os.path.basename(png)})", ""]
        if self.missing:
            md += ["## Not measured", ""] + [f"- {m}" for m in self.missing] + [""]
        if self.notes:
            md += ["## Notes", ""] + [f"- {n}" for n in self.notes] + [""]
        md += ["## Servers and settings", ""]
        for d in self.servers:
            md += [f"**{d['label']}** ({d['version']}):", "", "```",
                   d["command"], "```", ""]
            if d.get("settings"):
                md += ["| variable | value |", "|---|---|"]
                md += [f"| {k} | {v} |" for k, v in d["settings"]] + [""]
        with open(self.prefix + ".md", "w") as f:
            f.write("\n".join(md) + "\n")
        return self.prefix


def plot_lines(path, panels, title=None):
    """panels: list of dicts {title, xlabel, ylabel, logx, logy, series: {label:
    [(x, (median, min, max)) ...]}}; one subplot per panel, one line per series with
    min/max error bars."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    n = len(panels)
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(6.2 * cols, 4.6 * rows), squeeze=False)
    colour = {}  # one colour per system in every panel
    for p in panels:
        for label in p["series"]:
            colour.setdefault(label, f"C{len(colour) % 10}")
    for i, p in enumerate(panels):
        ax = axes[i // cols][i % cols]
        for label, pts in p["series"].items():
            pts = sorted((x, s) for x, s in pts if s is not None)
            if not pts:
                continue
            xs = [x for x, _ in pts]
            med = [s[0] for _, s in pts]
            err = [[s[0] - s[1] for _, s in pts], [s[2] - s[0] for _, s in pts]]
            ax.errorbar(xs, med, yerr=err, marker="o", capsize=3, label=label,
                        color=colour[label])
        if p.get("logx"):
            ax.set_xscale("log", base=2)
        if p.get("logy"):
            ax.set_yscale("log")
        else:
            ax.set_ylim(bottom=0)
        ax.set_title(p["title"])
        ax.set_xlabel(p["xlabel"])
        ax.set_ylabel(p["ylabel"])
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    for j in range(n, rows * cols):
        axes[j // cols][j % cols].axis("off")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_bar_panels(path, panels, title):
    """panels: {panel title: {bar label: (median, min, max) or None}}; one subplot per
    panel, one bar per system or variant, min/max whiskers. A panel whose title
    contains "seconds" gets a seconds axis, others a transactions/s axis."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 4.8), squeeze=False)
    for ax, (name, g) in zip(axes[0], panels.items()):
        labs = [k for k, v in g.items() if v]
        ax.bar(range(len(labs)), [g[k][0] for k in labs],
               yerr=[[g[k][0] - g[k][1] for k in labs], [g[k][2] - g[k][0] for k in labs]],
               capsize=3, color=[f"C{i}" for i in range(len(labs))])
        ax.set_xticks(range(len(labs)))
        ax.set_xticklabels(labs, rotation=20, ha="right", fontsize=8)
        ax.set_ylabel("seconds, median (lower is better)" if "seconds" in name
                      else "transactions/s, median")
        ax.set_title(name)
        ax.grid(True, axis="y", alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
