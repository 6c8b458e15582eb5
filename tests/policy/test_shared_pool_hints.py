"""autoscaler-hints on shared GPU pools: the node-template resource tag must count what the plugin advertises."""
from nodepools.inventory.resource import Resource

from policy_builders import TAG, asg_tags, eks_pool, golden

SHARED = {"nodepools.io/gpu-sharing": "time-slicing", "nvidia.com/device-plugin.config": "time-slicing-4"}
MIG = {"nodepools.io/gpu-sharing": "mig", "nodepools.io/mig-profile": "1g.5gb", "nodepools.io/accelerator": "nvidia-a100"}


def shared_pool(labels, tags):
    pool = eks_pool("shared", "gpu-training", "g6.12xlarge", lo=0, hi=2, gpu_model="nvidia-l4")
    pool.props["labels"].update(labels)
    out = asg_tags(pool)
    for i, (key, value) in enumerate(tags.items()):
        out.append(Resource.of("aws:autoscaling/tag:Tag", f"shared-extra-{i}", {
            "autoscalingGroupName": out[0].props["autoscalingGroupName"],
            "tag": {"key": TAG + key, "value": value, "propagateAtLaunch": False}},
            dependencies=(pool.urn,), property_dependencies={"autoscalingGroupName": (pool.urn,)}))
    return pool, out


def hints(check, labels, tags, instance="g6.12xlarge"):
    pool, tag_resources = shared_pool(labels, tags)
    pool.props["instanceTypes"] = [instance]
    diags = check(golden().add(pool, *tag_resources))
    return [d.message.split("\n", 1)[1] for d in diags if d.policy == "autoscaler-hints" and d.urn == pool.urn]


def test_time_sliced_pool_tags_gpus_times_replicas(check):
    assert hints(check, SHARED, {"resources/nvidia.com/gpu": "16"}) == []
    assert hints(check, SHARED, {"resources/nvidia.com/gpu": "4"}) == [
        "aws:eks/nodeGroup:NodeGroup 'shared': aws:autoscaling/tag:Tag (node-template tags): cluster-autoscaler cannot scale this pool "
        "up from zero correctly: k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu is '4', want '16'. "
        "Fix: add an aws.autoscaling.Tag per entry on the node group's ASG (autoscaling_group_name from "
        "node_group.resources[0].autoscaling_groups[0].name, propagate_at_launch false)"]


def test_mig_pool_tags_slices_under_the_profile_resource(check):
    assert hints(check, MIG, {"resources/nvidia.com/mig-1g.5gb": "56"}, instance="p4d.24xlarge") == []
    assert hints(check, MIG, {"resources/nvidia.com/gpu": "8"}, instance="p4d.24xlarge") == [
        "aws:eks/nodeGroup:NodeGroup 'shared': aws:autoscaling/tag:Tag (node-template tags): cluster-autoscaler cannot scale this pool "
        "up from zero correctly: missing k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/mig-1g.5gb=56. "
        "Fix: add an aws.autoscaling.Tag per entry on the node group's ASG (autoscaling_group_name from "
        "node_group.resources[0].autoscaling_groups[0].name, propagate_at_launch false)"]
