"""Secure by default when a stack creates its EKS cluster (issue 26): no permanent admin for the
cluster's creator, cluster admin for one named principal, the VPC CNI's permissions on its own
service account (IRSA) rather than on every node. Exact inputs as the engine receives them."""
import json

import pytest

from nodepools.config import StackConfigError

NAME = "np-aws-dev"
ADMIN = "arn:aws:iam::123456789012:role/platform-deployer"
ISSUER = "oidc.eks.us-west-2.amazonaws.com/id/FAKE"  # the offline engine's fake issuer


def named(run, name, type_):
    (found,) = [r for r in run.of_type(type_) if r.name == name]
    return found


@pytest.fixture(scope="module")
def up():
    import yaml
    from pathlib import Path
    import runpy
    from nodepools.offline.engine import run_program
    program = Path(__file__).resolve().parents[2] / "stacks" / "__main__.py"
    config = yaml.safe_load((program.parent / "Pulumi.aws-dev.yaml").read_text())["config"]
    return run_program(lambda: runpy.run_path(str(program), run_name="__main__"), stack="aws-dev", config=config,
                       preview=False)


def test_the_creator_gets_no_admin_and_existing_clusters_are_not_replaced(up):
    cluster = named(up, NAME, "aws:eks/cluster:Cluster")
    assert cluster.inputs["accessConfig"] == {"authenticationMode": "API",
                                              "bootstrapClusterCreatorAdminPermissions": False}
    # Replace-forcing and read only at creation: a cluster created with true keeps it.
    assert cluster.ignore_changes == ["accessConfig.bootstrapClusterCreatorAdminPermissions"]


def test_the_named_principal_is_cluster_admin_and_the_provider_waits_for_it(up):
    entry = named(up, f"{NAME}-admin", "aws:eks/accessEntry:AccessEntry")
    assert entry.inputs == {"clusterName": NAME, "principalArn": ADMIN, "type": "STANDARD",
                            "tags": {"environment": "dev", "owner": "platform"}}
    association = named(up, f"{NAME}-admin", "aws:eks/accessPolicyAssociation:AccessPolicyAssociation")
    assert association.inputs == {
        "clusterName": NAME, "principalArn": ADMIN, "accessScope": {"type": "cluster"},
        "policyArn": "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"}
    assert entry.urn in association.dependencies
    assert association.urn in named(up, f"{NAME}-k8s", "pulumi:providers:kubernetes").dependencies


def test_the_vpc_cni_assumes_its_own_role_and_no_node_role_carries_its_policy(up):
    role = named(up, f"{NAME}-vpc-cni", "aws:iam/role:Role")
    assert json.loads(role.inputs["assumeRolePolicy"])["Statement"] == [{
        "Effect": "Allow", "Principal": {"Federated": "arn:aws:iam::123456789012:oidc-provider/" + ISSUER},
        "Action": "sts:AssumeRoleWithWebIdentity", "Condition": {"StringEquals": {
            f"{ISSUER}:sub": "system:serviceaccount:kube-system:aws-node", f"{ISSUER}:aud": "sts.amazonaws.com"}}}]
    attachments = {r.name: r.inputs for r in up.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")}
    assert attachments[f"{NAME}-vpc-cni"] == {"role": f"{NAME}-vpc-cni-id",
                                              "policyArn": "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"}
    assert [n for n, a in attachments.items() if a["policyArn"].endswith("/AmazonEKS_CNI_Policy")] == [f"{NAME}-vpc-cni"]
    addon = named(up, f"{NAME}-vpc-cni", "aws:eks/addon:Addon")
    assert addon.inputs == {"clusterName": NAME, "addonName": "vpc-cni",
                            "serviceAccountRoleArn": f"arn:aws:iam::123456789012:role/{NAME}-vpc-cni",
                            "resolveConflictsOnCreate": "OVERWRITE", "resolveConflictsOnUpdate": "OVERWRITE",
                            "tags": {"environment": "dev", "owner": "platform"}}
    # Nodes start only once the CNI has its role: every launch template waits for the add-on.
    templates = up.of_type("aws:ec2/launchTemplate:LaunchTemplate")
    assert len(templates) == 4 and all(addon.urn in t.dependencies for t in templates)


def test_creating_a_cluster_needs_a_named_admin_and_attaching_takes_none(stack_config, run_stack):
    config = stack_config("aws-dev")
    del config["nodepools:cluster"]["admin_principal_arn"]
    _, error = run_stack(config)
    assert isinstance(error, StackConfigError)
    assert error.lines == [
        "nodepools:cluster.admin_principal_arn: admin_principal_arn is required to create a cluster: the IAM role "
        "(or user) given cluster admin through an access entry, e.g. the role that runs pulumi up "
        "(arn:aws:iam::<account>:role/<name>); the cluster's creator gets no admin of its own"]
    config = stack_config("aws-attach")
    config["nodepools:cluster"]["admin_principal_arn"] = ADMIN
    _, error = run_stack(config)
    assert error.lines == ["nodepools:cluster.admin_principal_arn: admin_principal_arn is for mode 'create' only: "
                           "an attached cluster is not managed by this stack"]


GKE_KEY = "projects/nodepools-dev-4821/locations/us-central1/keyRings/nodepools/cryptoKeys/gke-secrets"


def test_a_created_gke_cluster_encrypts_secrets_with_its_key(stack_config, run_stack):
    run, error = run_stack(stack_config("gcp-dev"))
    assert error is None, error
    (cluster,) = run.of_type("gcp:container/cluster:Cluster")
    assert cluster.inputs["databaseEncryption"] == {"state": "ENCRYPTED", "keyName": GKE_KEY}


GKE_REFUSED = {
    "no key": ({"database_encryption_key": None}, [
        "nodepools:cluster.database_encryption_key: database_encryption_key is required to create a cluster: the "
        "Cloud KMS key (projects/<p>/locations/<cluster region>/keyRings/<r>/cryptoKeys/<k>) that encrypts "
        "Kubernetes secrets, with roles/cloudkms.cryptoKeyEncrypterDecrypter for the GKE service agent; or set "
        "secrets_encryption: false to opt out"]),
    "key elsewhere": ({"database_encryption_key": GKE_KEY.replace("us-central1", "europe-west4")}, [
        f"nodepools:cluster.database_encryption_key: database_encryption_key "
        f"{GKE_KEY.replace('us-central1', 'europe-west4')!r} lives in 'europe-west4'; GKE needs it in the cluster's "
        "region 'us-central1'"]),
    "not a key": ({"database_encryption_key": "gke-secrets"}, [
        "nodepools:cluster.database_encryption_key: database_encryption_key 'gke-secrets' is not a Cloud KMS key "
        "name (projects/<p>/"
        "locations/<l>/keyRings/<r>/cryptoKeys/<k>)"]),
    "opted out with a key": ({"secrets_encryption": False}, [
        "nodepools:cluster.secrets_encryption: secrets_encryption: false leaves database_encryption_key unused: "
        "drop one of them"]),
}


@pytest.mark.parametrize("case", sorted(GKE_REFUSED))
def test_gke_secrets_encryption_needs_a_key_in_the_region_or_an_explicit_opt_out(stack_config, run_stack, case):
    edits, lines = GKE_REFUSED[case]
    config = stack_config("gcp-dev")
    for key, value in edits.items():
        if value is None:
            del config["nodepools:cluster"][key]
        else:
            config["nodepools:cluster"][key] = value
    _, error = run_stack(config)
    assert isinstance(error, StackConfigError), error
    assert error.lines == lines


def test_the_opt_out_is_explicit_and_registers_no_encryption(stack_config, run_stack):
    config = stack_config("gcp-dev")
    del config["nodepools:cluster"]["database_encryption_key"]
    config["nodepools:cluster"]["secrets_encryption"] = False
    run, error = run_stack(config)
    assert error is None, error
    (cluster,) = run.of_type("gcp:container/cluster:Cluster")
    assert "databaseEncryption" not in cluster.inputs
