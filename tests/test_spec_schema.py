"""The PoolSpec JSON schema tells the truth: preset-filled fields are optional, their default named per class."""
import pytest

from nodepools.spec import PRESETS, PoolSpec
from nodepools.spec.presets import PRESET_FIELDS as PRESET_FILLED
from nodepools.vocabulary import PoolClass

SCHEMA = PoolSpec.model_json_schema()


def test_only_name_class_and_instance_types_are_required():
    assert SCHEMA["required"] == ["name", "pool_class", "instance_types"]


@pytest.mark.parametrize("field", PRESET_FILLED)
def test_preset_filled_fields_state_each_class_default_and_claim_no_single_default(field):
    prop = SCHEMA["properties"][field]
    assert "default" not in prop
    for pool_class, preset in PRESETS.items():
        value = getattr(preset, PRESET_FILLED[field])
        assert f"{pool_class.value} {getattr(value, 'value', value)}" in prop["description"]


def test_the_description_matches_what_a_built_spec_gets():
    assert SCHEMA["properties"]["max_nodes"]["description"] == (
        "Optional; default from the class preset: resident 6, batch 10, gpu-inference 4, gpu-training 4.")
    spec = PoolSpec(name="train", pool_class=PoolClass.GPU_TRAINING, instance_types=["p5.48xlarge"])
    assert (spec.capacity.value, spec.min_nodes, spec.max_nodes, spec.disk_size_gib) == ("spot", 0, 4, 200)
