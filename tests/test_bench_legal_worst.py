"""bench/legal_worst.py, run small: every configuration is found, and the named hands are the
states they say they are."""

import importlib.util
import json
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[1]


def load():
    spec = importlib.util.spec_from_file_location("legal_worst", ROOT / "bench" / "legal_worst.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_preset_pack_and_player_count_is_benched():
    lw = load()
    found = set(lw.configs())
    assert ("sheng-ji", 6, 4) in found and ("sheng-ji/zhao-pengyou", 7, 3) in found
    assert ("zheng-shangyou/winner", 8, 2) in found and ("zheng-shangyou/winner", 8, 1) \
        not in found                                  # one pack takes 3 or 4 players only
    assert ("zheng-shangyou/owen", 2, None) in found and ("zheng-fen", 6, None) in found
    assert {name for name, _, _ in found} == set(lw.preset_names())
    assert len(found) == 44


def test_a_small_run_reports_every_figure(tmp_path, capsys):
    lw = load()
    out = tmp_path / "r.json"
    assert lw.main(["--states", "40", "--only", "single-deck", "--reps", "1", "--top", "2",
                    "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    (row,) = data["configs"]
    assert row["preset"] == "sheng-ji/single-deck" and row["states"] == 40
    assert 0 < row["median_ms"] <= row["p99_ms"] <= row["max_ms"]
    assert row["worst_moves"] >= 1
    named = {r["name"]: r for r in data["named"]}
    # the worst climbing hands offer their plays in steps: groups by kind and rank, then a
    # group's plays or cards to pick; the full listing of every play is counted besides
    pagat = next(r for n, r in named.items() if n.startswith("pagat 2 packs 4p: lead"))
    assert pagat["state"] == "lead, offered by groups"
    assert pagat["moves"] == 403 and pagat["plays"] == 100044
    chosen = next(r for n, r in named.items() if n.startswith("pagat 2 packs 4p: the same,"))
    assert chosen["state"] == "lead, choose 16 multiple sequence 3-10x2"
    assert 0 < chosen["moves"] <= 60 and "plays" not in chosen
    picked = named["pagat 2 packs 4p: the same group, 3 cards picked"]
    assert picked["state"].endswith(", 3 picked") and 0 < picked["moves"] <= chosen["moves"]
    three = next(r for n, r in named.items() if n.startswith("pagat 2 packs 3p: lead"))
    assert three["state"] == "lead, offered by groups" and three["moves"] <= 600
    owen = next(r for n, r in named.items() if n.startswith("owen 2p: lead"))
    assert owen["moves"] == 258 and owen["plays"] == 14637
    assert owen["all_moves_ms"] > 0
    triples = named["sheng-ji 4 packs 4p: follow a throw of three triples (A K Q) with 33 spades"]
    assert triples["legal_follows"] == 873 and triples["state"] == "follow, picking card by card"
    assert triples["moves"] <= 12
    text = capsys.readouterr().out
    assert "| sheng-ji/single-deck | 4 | 1 | 40 |" in text
