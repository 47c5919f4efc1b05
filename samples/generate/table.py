"""Print the README's results table from the committed truth files:
`python3 -m samples.generate.table`."""

import glob
import json
import os

SAMPLES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

COLUMNS = ("scenario | verdict (also) | s | pkts snd/rcv | goodput Mb/s (util) | "
           "rwnd/sndbuf/app share | retrans | DSACK | reord_seen | emu drops/held | "
           "min→max srtt ms | late >1 ms")


def row(t: dict) -> str:
    e = t["expected"]["evidence"]
    c = t["captures"]
    lat = t["emulator"]["delivery_lateness"]
    also = f" ({', '.join(t['expected']['also'])})" if t["expected"]["also"] else ""
    secs = (c["sender"]["last_ns"] - c["sender"]["first_ns"]) / 1e9
    return " | ".join([
        f"`{t['scenario']}`", f"{t['expected']['verdict']}{also}", f"{secs:.1f}",
        f"{c['sender']['packets']}/{c['receiver']['packets']}",
        f"{e['goodput_mbit']} ({e['link_utilisation']:.0%})",
        f"{e['rwnd_limited_share']:.2f}/{e['sndbuf_limited_share']:.2f}/"
        f"{e['app_limited_sample_share']:.2f}",
        str(e["total_retrans"]), str(e["dsack_dups"]), str(e["reord_seen"]),
        f"{e['emulator_data_drops']}/{e['emulator_reordered']}",
        f"{e['min_rtt_us'] / 1000:.0f}→{e['max_srtt_us'] / 1000:.0f}",
        f"{lat['over_1ms']}/{lat['n']}",
    ])


def main() -> None:
    print("| " + COLUMNS + " |")
    print("|" + "---|" * len(COLUMNS.split(" | ")))
    for path in sorted(glob.glob(os.path.join(SAMPLES, "*.truth.json"))):
        with open(path) as f:
            print("| " + row(json.load(f)) + " |")


if __name__ == "__main__":
    main()
