"""The counting fuzzer: seeded random damage to the resources of a compliant stack, sent to
the pack as the engine would, every outcome tallied instead of stopping at the first.

Input ``i`` of a run with seed ``s`` is drawn from ``random.Random(f"{s}:{i}")`` alone, so any
input a run reports is replayed by its seed and index (``python tests/reliability/fuzz_run.py
--seed s --start i --count 1``). Inputs go round the resource types the pack reads in turn
(every type gets its share); a third damage with the preview sentinel only, whose verdicts must
all be cannot-judge notes (the base stack draws no violation at all, so a violation there is an
unknown turned into one).
"""
from __future__ import annotations

import datetime
import random
import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

from pulumi.runtime import proto

from nodepools.offline.analyzer import UNKNOWN_WIRE, Diagnostic, PackError
from nodepools.inventory.resource import Resource
from nodepools.offline.analyzer_wire import analyze_requests, stack_request

# What an exception's text looks like when it reaches a message (the pack must word its own).
EXCEPTION_TEXT = re.compile(
    r"Traceback|\b[A-Z][A-Za-z]*(Error|Exception)\b|object has no attribute|NoneType|not subscriptable|"
    r"unhashable type|is not iterable|object at 0x[0-9a-f]+|unsupported operand|invalid literal for|"
    r"can't multiply sequence|argument of type|index out of range|maximum recursion|takes \d+ positional")
# The pack's own note for a rule that raised (nodepools.pack.judge.internal_error): a crash, guarded.
INTERNAL_ERROR = "internal error in "
LEVELS = {proto.ADVISORY: "advisory", proto.MANDATORY: "mandatory", proto.REMEDIATE: "remediate",
          proto.DISABLED: "disabled"}
# Strings that mean something to some reader: quantities, label values, enum spellings, cron
# lines, the preview sentinel, and plain noise.
TRICKY = ["", " ", "0", "-1", "1e309", "NaN", "1Gi", "500m", "1.5", "abc", "nvidia.com/gpu", "NoSchedule",
          "NO_SCHEDULE", "SPOT", "ON_DEMAND", "on-demand", "resident", "batch", "gpu-training", "Exists", "Equal",
          "In", "NotIn", "Gt", "*/5 * * * *", "99 99 99 99 99", "kube-system", "true", "karpenter.sh/capacity-type",
          "node.kubernetes.io/instance-type", UNKNOWN_WIRE, "x" * 300, "ünïcødé", "{\"a\": 1}", "p3.2xlarge",
          "nvidia-tesla-t4", "1h", "-5m"]
NUMBERS = [0.0, -1.0, 1.0, 0.5, 1e300, -1e300, 2.0 ** 53, 1e-300, 3.0, 65536.0]


def leaf(rng: random.Random) -> Any:
    pick = rng.randrange(7)
    if pick == 0:
        return None
    if pick == 1:
        return rng.random() < 0.5
    if pick == 2:
        return rng.choice(NUMBERS)
    if pick == 3:
        return float(rng.randint(-(2 ** 53), 2 ** 53)) if rng.random() < 0.3 else rng.uniform(-1e6, 1e6)
    if pick == 4:
        return "".join(chr(rng.randrange(32, 0x2FF)) for _ in range(rng.randrange(12)))
    return rng.choice(TRICKY)


def json_value(rng: random.Random, depth: int = 3) -> Any:
    """Arbitrary JSON (finite numbers only: the engine never sends NaN or infinity)."""
    pick = rng.randrange(4) if depth > 0 else 0
    if pick == 1:
        return [json_value(rng, depth - 1) for _ in range(rng.randrange(5))]
    if pick == 2:
        return {_as_key(rng.choice([rng.choice(TRICKY), leaf_key(rng)])): json_value(rng, depth - 1)
                for _ in range(rng.randrange(5))}
    return leaf(rng)


def _as_key(text: str) -> str:
    """The engine sends an unknown only as a value, never as a map key; the same draws are kept
    (so inputs replay) with the sentinel spelled as a plain key instead."""
    return "unknown-sentinel-as-key" if text == UNKNOWN_WIRE else text


def leaf_key(rng: random.Random) -> str:
    return "".join(rng.choice("abcxyz/.-_") for _ in range(rng.randrange(1, 8)))


def wrong_type(rng: random.Random, value: Any) -> Any:
    """Something of another shape carrying the same content."""
    if isinstance(value, dict):
        return rng.choice([list(value.values()), list(value), str(value), float(len(value)), True])
    if isinstance(value, list):
        return rng.choice([{str(i): x for i, x in enumerate(value)}, str(value), float(len(value)), False,
                           [value], [[x] for x in value]])
    if isinstance(value, str):
        return rng.choice([{"value": value}, [value], float(len(value)), value == "", [value, value], {value: value}])
    if isinstance(value, bool):
        return rng.choice([str(value).lower(), [value], {"value": value}, 1.0])
    if isinstance(value, float):
        return rng.choice([str(value), [value], {"value": value}, value > 0, -value, value * 1e300])
    return leaf(rng)


def huge(rng: random.Random, value: Any) -> list:
    n = rng.randint(300, 1500)
    pick = rng.randrange(3)
    if pick == 0:
        return [value] * n
    if pick == 1:
        return [leaf(rng)] * n
    return [leaf(rng) for _ in range(rng.randint(50, 120))]


def replacement(rng: random.Random, value: Any) -> Any:
    pick = rng.randrange(10)
    if pick == 0:
        return None
    if pick in (1, 2):
        return UNKNOWN_WIRE
    if pick in (3, 4, 5):
        return wrong_type(rng, value)
    if pick == 6:
        return huge(rng, value)
    return json_value(rng)


def damaged(rng: random.Random, value: Any, unknown_only: bool, path: list, descend: bool = False) -> Any:
    """``value`` with one subtree deleted or replaced, down a random path (``path`` receives it);
    ``unknown_only`` replaces by the preview sentinel only (and never deletes)."""
    if isinstance(value, (dict, list)) and value and (descend or rng.randrange(4) > 0):
        keys = list(value) if isinstance(value, dict) else list(range(len(value)))
        key = rng.choice(keys)
        path.append(key)
        copy = dict(value) if isinstance(value, dict) else list(value)
        if not unknown_only and rng.randrange(5) == 0:
            del copy[key]
            path.append("<deleted>")
        else:
            copy[key] = damaged(rng, value[key], unknown_only, path)
        return copy
    return UNKNOWN_WIRE if unknown_only else replacement(rng, value)


def damaged_props(rng: random.Random, props: dict, unknown_only: bool, path: list) -> dict:
    """Properties stay a mapping (the engine always sends an object; with ``unknown_only``
    the damage is inside it, since a preview never hides all of them)."""
    out = damaged(rng, props, unknown_only, path, descend=unknown_only or rng.randrange(6) > 0)
    return out if isinstance(out, dict) else {}


def analyze_damaged(pack: Any, items: list[Resource], damaged_urns: set[str]) -> list[Diagnostic]:
    """``Analyze`` only the damaged resources (the rest is the compliant base, whose own verdicts
    never change) and ``AnalyzeStack`` the whole stack, as the engine would."""
    out: list[Diagnostic] = []
    for item, request in zip(items, analyze_requests([i for i in items])):
        if item.urn in damaged_urns:
            out += [Diagnostic.of(d, item.urn, "analyze", LEVELS) for d in pack.call("Analyze", request).diagnostics]
    reply = pack.call("AnalyzeStack", stack_request(items))
    return out + [Diagnostic.of(d, "", "analyze-stack", LEVELS) for d in reply.diagnostics]


def problems(diagnostics: Iterable[Diagnostic], policies: set[str], unknown_only: bool) -> list[tuple[str, Any]]:
    """(kind, diagnostic) for each way ``diagnostics`` break the contract."""
    out: list[tuple[str, Any]] = []
    for d in diagnostics:
        if INTERNAL_ERROR in d.message:
            out.append(("crash", d))
        if d.policy not in policies or not d.message.strip():
            out.append(("malformed diagnostic", d))
        if EXCEPTION_TEXT.search(d.message) or UNKNOWN_WIRE in d.message:
            out.append(("exception text", d))
        if d.cannot_judge and d.level != "advisory":
            out.append(("non-advisory cannot-judge note", d))
        if unknown_only and not d.cannot_judge:
            out.append(("unknown turned into a violation", d))
    return out


@dataclass
class Case:
    """One generated input: which resources got what damage."""

    index: int
    unknown_only: bool
    stack: list[Resource]
    damage: list[tuple[str, str, list]]  # (type, name, path)

    @property
    def damaged_urns(self) -> set[str]:
        return {r.urn for r in self.stack for t, n, _ in self.damage if (r.type, r.name) == (t, n)}

    def describe(self) -> str:
        kind = "unknown" if self.unknown_only else "damage"
        return f"#{self.index} ({kind}) " + "; ".join(f"{t} '{n}' at {'.'.join(map(str, p)) or '<root>'}"
                                                      for t, n, p in self.damage)


def generate(bases: dict[str, list[Resource]], types: list[tuple[str, str]], seed: str, index: int) -> Case:
    """Input ``index``: the type ``types[index % len(types)]`` damaged on its base stack,
    sometimes with a few other resources of the stack damaged too."""
    rng = random.Random(f"{seed}:{index}")
    cloud, type_ = types[index % len(types)]
    stack = list(bases[cloud])
    unknown_only = rng.randrange(3) == 0
    # By URN, not registration order (the mock engine's order may differ between processes).
    order = sorted(range(len(stack)), key=lambda i: stack[i].urn)
    picked = [rng.choice([i for i in order if stack[i].type == type_])]
    if rng.randrange(6) == 0:
        picked += rng.sample([i for i in order if i != picked[0]], rng.randint(1, 3))
    damage = []
    for i in picked:
        path: list = []
        stack[i] = replace(stack[i], props=damaged_props(rng, stack[i].props, unknown_only, path))
        damage.append((stack[i].type, stack[i].name, path))
    return Case(index, unknown_only, stack, damage)


@dataclass
class Tally:
    inputs: int = 0
    crashes: int = 0
    exception_text: int = 0
    unknown_violations: int = 0
    other: int = 0
    per_type: Counter = field(default_factory=Counter)
    examples: list[str] = field(default_factory=list)

    def add(self, case: Case, found: list[tuple[str, Any]], crash: str = "") -> None:
        self.inputs += 1
        for type_, _, _ in case.damage:
            self.per_type[type_] += 1
        kinds = {k for k, _ in found}
        self.crashes += bool(crash) or "crash" in kinds
        self.exception_text += "exception text" in kinds
        self.unknown_violations += "unknown turned into a violation" in kinds
        self.other += bool(kinds - {"crash", "exception text", "unknown turned into a violation"})
        if (crash or found) and len(self.examples) < 20:
            detail = crash or "; ".join(f"{k}: [{d.policy}] {d.message[:300]}" for k, d in found[:3])
            self.examples.append(f"{case.describe()[:400]}\n    {detail[:600]}")

    @property
    def failures(self) -> int:
        return self.crashes + self.exception_text + self.unknown_violations + self.other

    def summary(self) -> str:
        return (f"{self.inputs} inputs: {self.crashes} crashes, {self.exception_text} with exception text in "
                f"diagnostics, {self.unknown_violations} with unknowns turned into violations, {self.other} other")


def sweep_cases(bases: dict[str, list[Resource]], types: list[tuple[str, str]]) -> Iterable[Case]:
    """The sentinel in every position of every resource of every type, one at a time."""
    from fuzz_mutations import set_path

    index = 0
    for cloud, type_ in types:
        for i, res in enumerate(bases[cloud]):
            if res.type != type_:
                continue
            for path in positions(res.props):
                stack = list(bases[cloud])
                stack[i] = replace(res, props=set_path(res.props, path, UNKNOWN_WIRE))
                yield Case(index, True, stack, [(res.type, res.name, list(path))])
                index += 1


def judge(pack: Any, policies: set[str], case: Case, tally: Tally) -> None:
    try:
        diagnostics = analyze_damaged(pack, case.stack, case.damaged_urns)
    except PackError as error:
        tally.add(case, [], crash=str(error).splitlines()[0] if str(error) else "PackError")
        return
    tally.add(case, problems(diagnostics, policies, case.unknown_only))


def sweep(pack: Any, bases: dict[str, list[Resource]], types: list[tuple[str, str]]) -> Tally:
    tally = Tally()
    policies = set(pack.info().policies)
    for case in sweep_cases(bases, types):
        judge(pack, policies, case, tally)
    return tally


def run(pack: Any, bases: dict[str, list[Resource]], types: list[tuple[str, str]], seed: str,
        indexes: Iterable[int], tally: Tally | None = None, progress: Callable[[Tally], None] | None = None) -> Tally:
    """Every input of ``indexes`` through ``pack`` (anything with the runner's ``call``)."""
    tally = tally or Tally()
    policies = set(pack.info().policies)
    for index in indexes:
        judge(pack, policies, generate(bases, types, seed, index), tally)
        if progress is not None:
            progress(tally)
    return tally


def positions(value: Any, path: tuple = ()) -> Iterable[tuple]:
    """Every property path inside ``value`` (each dict value and list entry, at any depth)."""
    if isinstance(value, dict):
        items: Iterable = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, item in items:
        yield (*path, key)
        yield from positions(item, (*path, key))


def date_seed() -> str:
    """Today's date (UTC): a new slice of inputs each day, the same all day."""
    return datetime.datetime.now(datetime.timezone.utc).date().isoformat()


# The summaries of the runs a test session made (its terminal summary prints them).
RUNS: list[str] = []
