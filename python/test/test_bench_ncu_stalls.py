"""bench/tools/ncu_stalls.py: Nsight Compute's source page summed by kind of
instruction, on a page written here in ncu's CSV form."""

import csv
import os
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "bench", "tools"))

import ncu_stalls  # noqa: E402

STALLS = ["stall_barrier", "stall_long_sb", "stall_wait", "stall_mio"]
# (address, SASS, samples, per stall reason)
ROWS = [
    ("0x7f0000000000", "SYNCS.PHASECHK.TRANS64.TRYWAIT P0, [UR4+0x8000], R2", 2, (0, 0, 2, 0)),
    ("0x7f0000000010", "@!P0  BRA 0x7f0000000400", 40, (0, 40, 0, 0)),
    ("0x7f0000000020", "HGMMA.64x128x16.F32 R24, gdesc[UR8], RZ, !UPT", 8, (0, 0, 2, 6)),
    ("0x7f0000000030", "WARPGROUP.DEPBAR.LE gsb0, 0x1", 20, (20, 0, 0, 0)),
    ("0x7f0000000040", "MUFU.EX2 R4, R4", 10, (0, 0, 10, 0)),
    ("0x7f0000000050", "FFMA R5, R6, UR4, -R7", 10, (0, 0, 5, 0)),
    ("0x7f0000000060", "@P1  BRA 0x7f0000000000", 10, (0, 0, 10, 0)),
]


def _page(path, rows=ROWS):
    header = ["Address", "Source", ncu_stalls.SAMPLES, "# Samples", *STALLS,
              *(f"{s} (Not Issued)" for s in STALLS)]
    with open(path, "w", newline="") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(["Kernel Name", "attn_fwd_kernel", ""])
        w.writerow(header)
        for address, sass, samples, stalls in rows:
            w.writerow([address, sass, samples, samples, *stalls, *stalls])


def test_samples_by_kind(tmp_path):
    """A branch after an mbarrier try-wait is the wait's retry loop; other
    branches are control. Shares are of all samples, each kind's stall
    reasons are shares of the kind, instructions are at kernel offsets."""
    _page(tmp_path / "src.csv")
    summary = ncu_stalls.summarize(*ncu_stalls.read(str(tmp_path / "src.csv")))
    kinds = {k["kind"]: k for k in summary["kinds"]}
    assert summary["total"] == 100
    assert kinds["mbarrier wait"]["share"] == pytest.approx(0.42)
    assert kinds["mbarrier wait"]["stalls"]["long_sb"] == pytest.approx(40 / 42)
    assert kinds["wgmma wait"]["share"] == pytest.approx(0.20)
    assert kinds["wgmma issue"]["stalls"] == pytest.approx({"mio": 0.75, "wait": 0.25})
    assert kinds["special-function unit"]["share"] == pytest.approx(0.10)
    assert kinds["integer / control"]["share"] == pytest.approx(0.10)
    assert summary["kinds"][0]["kind"] == "mbarrier wait"
    first = summary["instructions"][0]
    assert first["offset"] == 0x10 and first["share"] == pytest.approx(0.40)
    text = ncu_stalls.report(summary, top=3)
    assert "| mbarrier wait | 42.0% | long_sb 95%, wait 5% |" in text
    assert "| 0x0010 |" in text


def test_main_writes_json_and_rejects_other_pages(tmp_path, capsys):
    _page(tmp_path / "src.csv")
    assert ncu_stalls.main([str(tmp_path / "src.csv"), "--json", str(tmp_path / "s.json")]) == 0
    assert "wgmma wait" in capsys.readouterr().out
    assert (tmp_path / "s.json").read_text().startswith("{")
    (tmp_path / "details.csv").write_text('"ID","Section Name","Metric Name"\n"0","SOL","x"\n')
    assert ncu_stalls.main([str(tmp_path / "details.csv")]) == 2
    assert "no source page" in capsys.readouterr().err
    _page(tmp_path / "empty.csv", [(a, s, 0, (0, 0, 0, 0)) for a, s, _, _ in ROWS])
    assert ncu_stalls.main([str(tmp_path / "empty.csv")]) == 2
    assert "no warp-state samples" in capsys.readouterr().err
