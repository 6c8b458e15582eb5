"""The pack exposes exactly docs/design.md section 3's policies, with their default levels, over gRPC."""
from nodepools.offline.analyzer_wire import reconcile
from nodepools.policies.registry import POLICIES
from nodepools.policies.settings import Settings, parse_settings

# docs/design.md section 3, in table order.
DESIGN_NAMES = [
    "pool-taints", "gpu-pool-taint", "inference-on-demand", "scale-to-zero", "autoscaler-hints", "gpu-device-plugin",
    "gpu-allocation-single", "namespace-quota", "gpu-quota", "batch-limitrange", "priority-class-assigned", "workload-class-declared",
    "no-blanket-tolerations", "toleration-approval", "gpu-toleration-needs-gpu", "resident-guaranteed-qos",
    "spot-checkpointing", "gang-scheduling", "model-load-probes", "topology-spread", "schedulable",
    "gpu-nodes-gpu-only", "resident-off-spot", "cluster-version", "throttling-monitoring", "shared-pool-off-peak",
    "gpu-model-selected", "pool-spend-cap", "training-disruption", "gpu-memory-fit", "training-topology",
    "inference-scale-headroom", "gpu-node-repair",
]
MANDATORY = {"pool-taints", "gpu-pool-taint", "inference-on-demand", "no-blanket-tolerations",
             "gpu-toleration-needs-gpu", "namespace-quota", "gpu-quota", "schedulable", "resident-off-spot",
             "gpu-allocation-single"}


def test_registry_names_are_the_design_names_in_order():
    assert [p.name for p in POLICIES] == DESIGN_NAMES


def test_pack_info_over_grpc(pack):
    info = pack.info()
    assert info.name == "nodepools"
    assert list(info.policies) == DESIGN_NAMES
    assert {n for n, p in info.policies.items() if p.level == "mandatory"} == MANDATORY
    assert {p.level for p in info.policies.values()} == {"mandatory", "advisory"}
    for spec in POLICIES:
        remote = info.policies[spec.name]
        assert (remote.kind, remote.description, remote.severity) == (spec.scope, spec.description, spec.severity.value)
        assert ". Fix: " in remote.description, spec.name


def test_schema_defaults_are_the_settings_defaults(pack):
    """What the CLI fills in from each schema parses to exactly the documented defaults. ``today`` has no
    default in the schema (the pack fills in the run's UTC date); a runner given a date sends it."""
    for name, (level, props) in reconcile(pack.info(), {}).items():
        assert "today" not in props and "today" in pack.info().policies[name].config_schema, name
        assert parse_settings(name, next(p.config for p in POLICIES if p.name == name), props) == Settings(), name
    for name, (level, props) in pack.configure({}).items():
        assert parse_settings(name, next(p.config for p in POLICIES if p.name == name), props) == Settings(
            today=pack.today), name
    assert Settings().off_peak_window.model_dump(by_alias=True) == {"start": "00:00", "end": "06:00", "timeZone": "UTC"}
    assert (Settings().min_cluster_version, Settings().spot_checkpoint_max, Settings().batch_quota_share) == (
        "1.32", "30m", 0.6)


def test_readme_lists_every_policy_with_its_level():
    from pathlib import Path
    readme = (Path(__file__).resolve().parents[2] / "policy" / "README.md").read_text()
    for spec in POLICIES:
        assert f"| `{spec.name}` | {spec.level.value} | {spec.severity.value} |" in readme, spec.name


SAMPLES = [
    {}, {"minClusterVersion": "1.33"}, {"minClusterVersion": "1.33.2"}, {"spotCheckpointMax": "15m"},
    {"defaultModelLoadSeconds": -1}, {"batchQuotaShare": 0}, {"batchQuotaShare": 1}, {"batchQuotaShare": 1.5},
    {"nodeLabelSources": ["feature.node.kubernetes.io/"]}, {"nodeLabelSources": [""]},
    {"tolerationApprovals": {"nvidia.com/gpu": ["ml"]}}, {"tolerationApprovals": {"nvidia.com/gpu": "ml"}},
    {"offPeakWindow": {"start": "01:00"}}, {"offPeakWindow": {"begin": "01:00"}}, {"exemptNamespaces": ["ci"]},
    {"gpuDeviceClasses": ["gpu.example.com"]}, {"colour": "blue"},
    {"waivers": [{"policy": "POLICY", "resource": "web-*", "owner": "a", "reason": "b", "expires": "2030-01-31"}]},
    {"waivers": [{"policy": "POLICY", "resource": "", "owner": "a", "reason": "b", "expires": "2030-01-31"}]},
    {"waivers": [{"policy": "POLICY", "resource": "x", "owner": "a", "reason": "b", "expires": "soon"}]},
]


def test_the_schema_and_the_settings_model_accept_the_same_configs():
    """Both come from one model: what the CLI's schema refuses, parse_settings refuses too."""
    import jsonschema
    from pydantic import ValidationError
    from nodepools.policies.settings import schema_properties
    for spec in POLICIES:
        schema = {"type": "object", "additionalProperties": False,
                  "properties": schema_properties(spec.name, spec.config)}
        for sample in SAMPLES:
            config = {k: v for k, v in sample.items() if k in schema["properties"] or k == "colour"}
            config = {k: ([{**w, "policy": spec.name} for w in v] if k == "waivers" else v) for k, v in config.items()}
            schema_ok = jsonschema.Draft7Validator(schema).is_valid(config)
            try:
                parse_settings(spec.name, spec.config, config)
                model_ok = True
            except ValidationError:
                model_ok = False
            assert schema_ok == model_ok, (spec.name, config)
