"""Pack config over the real pack: levels, exemptions, per-policy settings, waivers with expiry, bad config."""
from datetime import timedelta

import pytest
from policy_builders import GPU_Q, fired, golden, quota

from nodepools.offline.analyzer import PackConfigError, PackError
from nodepools.policies.config import spread


def no_gpu_quota():
    return golden().edit("quota-services", lambda p: p["spec"]["hard"].pop(GPU_Q))


def waiver(policy, resource, expires, owner="alice", reason="GPU quota lands with the Q3 budget"):
    return {"policy": policy, "resource": resource, "owner": owner, "reason": reason, "expires": expires}


def test_active_waiver_by_name_glob(check):
    fx = no_gpu_quota()
    config = {"gpu-quota": {"waivers": [waiver("gpu-quota", "quota-serv*", "2999-12-31")]}}
    assert check(fx, config) == []


def test_expired_waiver_stops_waiving_and_says_so(check):
    fx = no_gpu_quota()
    diags = check(fx, {"gpu-quota": {"waivers": [waiver("gpu-quota", "quota-services", "2020-01-01")]}})
    assert fired(diags) == {("gpu-quota", fx.urn("quota-services"))}
    assert "(waiver by alice expired 2020-01-01: GPU quota lands with the Q3 budget; renew it or fix the resource)" \
        in diags[0].message


@pytest.mark.dated
def test_a_waiver_waives_through_its_expiry_day_as_of_the_packs_today(check, today):
    """The pack judges waivers on its ``today`` (pack config; the run's UTC date by default)."""
    fx = no_gpu_quota()
    assert check(fx, {"gpu-quota": {"waivers": [waiver("gpu-quota", "quota-services", today.isoformat())]}}) == []
    yesterday = (today - timedelta(days=1)).isoformat()
    diags = check(fx, {"gpu-quota": {"waivers": [waiver("gpu-quota", "quota-services", yesterday)]}})
    assert fired(diags) == {("gpu-quota", fx.urn("quota-services"))}
    assert diags[0].message.endswith(f"(waiver by alice expired {yesterday}: GPU quota lands with the Q3 budget; "
                                     "renew it or fix the resource)")


def test_a_policys_own_today_decides_its_waivers(check):
    fx = no_gpu_quota()
    config = {"gpu-quota": {"today": "2027-03-28", "waivers": [waiver("gpu-quota", "quota-services", "2027-03-27")]}}
    assert fired(check(fx, config)) == {("gpu-quota", fx.urn("quota-services"))}
    config["gpu-quota"]["today"] = "2027-03-27"
    assert check(fx, config) == []


def test_waiver_by_urn_waives_that_resource_only(check):
    fx = no_gpu_quota().edit("quota-batch", lambda p: p["spec"]["hard"].pop(GPU_Q))
    config = {"gpu-quota": {"waivers": [waiver("gpu-quota", fx.urn("quota-batch"), "2999-12-31")]}}
    assert fired(check(fx, config)) == {("gpu-quota", fx.urn("quota-services"))}


def test_waiver_for_a_stack_level_finding(check):
    fx = golden().drop("cpu-contention")
    config = {"throttling-monitoring": {"waivers": [waiver("throttling-monitoring", "*", "2999-12-31")]}}
    assert check(fx, config) == []


def test_exempt_namespace(check):
    fx = no_gpu_quota().edit("quota-batch", lambda p: p["spec"]["hard"].pop(GPU_Q))
    assert fired(check(fx, {"gpu-quota": {"exemptNamespaces": ["services"]}})) == {("gpu-quota", fx.urn("quota-batch"))}


def test_system_namespaces_are_always_out_of_scope(check):
    assert fired(check(golden().add(quota("kube-system", {"pods": "100"})))) == set()


@pytest.mark.parametrize("config, level", [
    (None, "mandatory"), ({"all": "advisory"}, "advisory"), ({"gpu-quota": "advisory"}, "advisory"),
    ({"all": "advisory", "gpu-quota": {"enforcementLevel": "mandatory"}}, "mandatory"),
])
def test_enforcement_levels(check, config, level):
    [d] = check(no_gpu_quota(), config)
    assert (d.policy, d.level) == ("gpu-quota", level)


def test_disabled_policy_reports_nothing(check):
    assert check(no_gpu_quota(), {"gpu-quota": "disabled"}) == []


def test_spread_turns_one_pack_config_into_per_policy_config(check):
    config = spread({"all": "mandatory", "exemptNamespaces": ["services"],
                     "waivers": [waiver("topology-spread", "api", "2999-12-31")],
                     "spot-checkpointing": {"spotCheckpointMax": "1h"}})
    assert config["all"] == "mandatory"
    assert config["spot-checkpointing"] == {"spotCheckpointMax": "1h", "exemptNamespaces": ["services"]}
    assert config["topology-spread"] == {"exemptNamespaces": ["services"],
                                         "waivers": [waiver("topology-spread", "api", "2999-12-31")]}
    assert len(config) == 34  # every policy (33) and "all"
    fx = no_gpu_quota().edit("quota-batch", lambda p: p["spec"]["hard"].pop(GPU_Q))
    assert fired(check(fx, config)) == {("gpu-quota", fx.urn("quota-batch"))}
    dated = spread({"today": "2027-03-28", "cluster-version": {"today": "2027-03-27"}})
    assert {name: entry["today"] for name, entry in dated.items()} == {
        **{name: "2027-03-28" for name in dated}, "cluster-version": "2027-03-27"}


def test_spread_refuses_unknown_policies():
    with pytest.raises(Exception, match="waiver names 'pool-taint', not a policy of the pack"):
        spread({"waivers": [waiver("pool-taint", "x", "2999-12-31")]})


@pytest.mark.parametrize("config, message", [
    ({"gpu-quota": {"waivers": [waiver("pool-taints", "x", "2999-12-31")]}}, "Policy 'gpu-quota': waivers/0/policy"),
    ({"namespace-quota": {"batchQuotaShare": "high"}}, "Policy 'namespace-quota': batchQuotaShare: 'high' is not"),
    ({"gpu-quota": {"waivers": [{"policy": "gpu-quota", "resource": "x"}]}}, "'owner' is a required property"),
    ({"pool-taint": "mandatory"}, "unknown policy 'pool-taint'"),
    ({"all": "strict"}, "'strict' is not a valid enforcement level"),
])
def test_runner_refuses_config_the_cli_would_refuse(pack, config, message):
    with pytest.raises(PackConfigError, match=message):
        pack.configure(config)


def test_pack_refuses_bad_config_itself_naming_every_field(pack):
    """Sent unvalidated (as an older CLI might), the pack fails the run rather than guess."""
    pack.configure({"gpu-quota": {"colour": "red", "waivers": [waiver("pool-taints", "x", "2999-12-31")]},
                    "spot-checkpointing": {"spotCheckpointMax": "soon"}}, validate=False)
    with pytest.raises(PackError) as error:
        pack.analyze(list(no_gpu_quota().items))
    text = str(error.value)
    assert "unknown config key 'colour' for policy 'gpu-quota'" in text
    assert "a waiver configured on 'gpu-quota' must name it (got 'pool-taints')" in text
    pack.configure({"spot-checkpointing": {"spotCheckpointMax": "soon"}}, validate=False)
    with pytest.raises(PackError, match="'soon' is not a positive duration like 30m"):
        pack.analyze(list(golden().items))


def test_pack_wide_settings_reach_exactly_the_policies_that_read_them():
    from nodepools.policies.config import spread
    config = spread({"nodeAgentNamespaces": ["logging"], "nodeLabelSources": ["feature.node.kubernetes.io/"]})
    assert {name for name, entry in config.items() if "nodeAgentNamespaces" in entry} == {
        "no-blanket-tolerations", "toleration-approval"}
    assert {name for name, entry in config.items() if "nodeLabelSources" in entry} == {
        "gpu-device-plugin", "gpu-allocation-single", "gpu-toleration-needs-gpu", "spot-checkpointing", "schedulable", "gpu-nodes-gpu-only",
        "resident-off-spot", "shared-pool-off-peak", "gpu-model-selected", "training-disruption", "gpu-memory-fit",
        "inference-scale-headroom"}
