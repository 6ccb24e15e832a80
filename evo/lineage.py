"""Where each strategy of a run came from: its parents back to the seeds, read from the run folder.

The offspring journal (`generations/gen-NNNN.offspring.json`) names every strategy a run ever
made, with its operator and parents; the evaluation journal adds its exploration value. Used by
`sebgen hof --lineage ID` and the report's lineage view.
"""

from __future__ import annotations

from pathlib import Path

from evo.config import did_you_mean
from evo.runfolder import RunFolder
from records import UserError


class LineageError(UserError):
    pass


def family(run_dir: Path) -> dict[str, dict]:
    """Every strategy of the run by id: generation first seen, operator, parents, type, EV."""
    run = RunFolder(run_dir)
    nodes: dict[str, dict] = {}
    for _gen, offspring in sorted(run.offspring().items()):
        for strategy in offspring:
            sid = strategy["id"]
            if sid in nodes:  # an unchanged genome made again keeps its first record
                continue
            nodes[sid] = {
                "id": sid,
                "generation": int(strategy.get("generation", 0)),
                "operator": strategy.get("operator", ""),
                "strategy_type": strategy.get("strategy_type", ""),
                "parents": [p for p in strategy.get("parents", []) if p != sid],
                "exploration_value": None,
            }
    for record in run.evaluations():
        if record.get("strategy_id") in nodes:
            nodes[record["strategy_id"]]["exploration_value"] = record.get("exploration_value")
    return nodes


def resolve(nodes: dict[str, dict], wanted: str) -> str:
    """The id `wanted` names: itself or a unique prefix of one."""
    if wanted in nodes:
        return wanted
    matches = [sid for sid in nodes if sid.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if matches:
        raise LineageError(f"strategy id {wanted!r} is ambiguous: it starts {', '.join(sorted(matches))}")
    raise LineageError(f"no strategy {wanted!r} in this run{did_you_mean(wanted, nodes)}")


def ancestry(nodes: dict[str, dict], sid: str) -> list[tuple[int, dict, bool]]:
    """Depth-first walk from `sid` to its seeds: (depth, node, already shown above) per line."""
    lines: list[tuple[int, dict, bool]] = []
    shown: set[str] = set()

    def visit(current: str, depth: int) -> None:
        node = nodes.get(current) or {
            "id": current,
            "generation": 0,
            "operator": "unknown",
            "parents": [],
            "strategy_type": "",
            "exploration_value": None,
        }
        lines.append((depth, node, current in shown))
        if current in shown:
            return
        shown.add(current)
        for parent in node["parents"]:
            visit(parent, depth + 1)

    visit(sid, 0)
    return lines


def ancestors(nodes: dict[str, dict], sid: str) -> set[str]:
    """`sid` and every strategy it descends from."""
    return {node["id"] for _, node, _ in ancestry(nodes, sid)}


def describe(node: dict) -> str:
    ev = node.get("exploration_value")
    return (
        f"{node['id']} generation {node['generation']}, {node['operator'] or 'unknown'}, "
        f"{node['strategy_type'] or '?'}" + (f", EV {ev:.3f}" if isinstance(ev, (int, float)) else "")
    )
