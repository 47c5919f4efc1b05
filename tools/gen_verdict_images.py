#!/usr/bin/env python3
"""Draws the pictures of docs/verdicts.md: one graph per verdict, from the sample that shows
it, rendered by headless chromium (no kaleido needed) and quantised to a small PNG.

    .venv/bin/python tools/gen_verdict_images.py      # writes docs/img/verdict-*.png

Needs the 'test' extra (plotly, Pillow) and Debian's chromium.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "img"
W, H = 900, 420

#: verdict → (sample, graph kind, x range to zoom to or None, caption used in the alt text)
PICTURES = {
    "rwnd_limited": ("small_rcvbuf", "flight", None),
    "wscale_missing": ("wscale_off", "flight", None),
    "zero_window_stall": ("slow_reader", "flight", None),
    "sndbuf_limited": ("small_sndbuf", "flight", None),
    "app_slow_writer": ("app_limited", "flight", None),
    "reorder_limited": ("reordering", "sequence", (0.10, 0.30)),
    "loss_limited": ("random_loss", "sequence", None),
    "slow_start_overshoot": ("shallow_buffer", "sequence", (0.05, 0.40)),
    "bandwidth_limited": ("clean_bulk", "rtt", None),
}


def shoot(html: Path, png: Path) -> None:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        sys.exit("chromium not installed (apt-get install chromium)")
    with tempfile.TemporaryDirectory() as profile:
        subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                        "--disable-background-networking", "--disable-component-update", "--disable-sync",
                        "--hide-scrollbars", f"--user-data-dir={profile}", f"--window-size={W},{H}",
                        f"--screenshot={png}", html.as_uri()],
                       check=True, capture_output=True, timeout=120)


def main() -> None:
    from PIL import Image

    import tcpdiag

    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for verdict, (sample, kind, zoom) in PICTURES.items():
            a = tcpdiag.analyze(str(ROOT / "samples" / f"{sample}.sender.pcap.gz"))
            fig = tcpdiag.plot(a, 0, kind)
            fig.update_layout(width=W, height=H, title=dict(text=f"{verdict}: samples/{sample} ({kind})"))
            if zoom:
                from tcpdiag.report.packets import flow_packets

                d = flow_packets(a, 0).data
                d = d[(d["t"] >= zoom[0]) & (d["t"] <= zoom[1])]
                lo, hi = int(d["seq"].min()), int(d["end"].max())
                fig.update_xaxes(range=list(zoom))
                fig.update_yaxes(range=[lo - (hi - lo) * 0.05, hi + (hi - lo) * 0.3])
            page = Path(tmp) / f"{verdict}.html"
            page.write_text(fig.to_html(include_plotlyjs=True, full_html=True, config={"displayModeBar": False}))
            raw = Path(tmp) / f"{verdict}.png"
            shoot(page, raw)
            img = Image.open(raw).convert("RGB").quantize(colors=64)
            buf = io.BytesIO()
            img.save(buf, format="PNG", optimize=True)
            (OUT / f"verdict-{verdict}.png").write_bytes(buf.getvalue())
            print(f"docs/img/verdict-{verdict}.png  {len(buf.getvalue()) / 1e3:.0f} kB")


if __name__ == "__main__":
    main()
