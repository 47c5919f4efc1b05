"""tcpdump inside a namespace: started before traffic, stopped with SIGINT so the file is whole."""

import re
import signal
import subprocess
import time

SNAPLEN = 128  # headers (IPv6 + 60-byte TCP header = 100) and a little payload
# Without --immediate-mode, TPACKET_V3 hands packets over in blocks retired by a 1 s timeout,
# and SIGINT leaves the last, unretired block unwritten: the file silently misses the end.
READY_TIMEOUT_S = 10


def whole(stats: dict) -> bool:
    """Whether a stopped capture wrote every packet its filter took in (`Capture.stop`'s
    counts): none dropped by the kernel, none left unwritten."""
    return not stats["dropped_by_kernel"] and stats["captured"] == stats["received_by_filter"]


class Capture:
    def __init__(self, ns: str, dev: str, path: str, rt_priority: int = 0):
        self.path = path
        chrt = ["chrt", "-f", str(rt_priority)] if rt_priority else []
        self.proc = subprocess.Popen(
            ["ip", "netns", "exec", ns, *chrt, "tcpdump", "-i", dev, "-n", "-s", str(SNAPLEN),
             "--time-stamp-precision=nano", "--immediate-mode", "-B", "16384", "-w", path, "tcp"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.stats = {}
        self._wait_listening()

    def _wait_listening(self) -> None:
        # tcpdump prints "listening on DEV ..." once the capture socket is bound.
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if "listening on" in line:
                return
            if not line and self.proc.poll() is not None:
                break
        raise RuntimeError(f"tcpdump did not start for {self.path}")

    def stop(self) -> dict:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        rest = self.proc.communicate(timeout=10)[1]
        for key, label in (("captured", "captured"), ("received_by_filter", "received by filter"),
                           ("dropped_by_kernel", "dropped by kernel")):
            m = re.search(rf"(\d+) packets? {label}", rest)
            self.stats[key] = int(m.group(1)) if m else None
        return self.stats

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
