"""The pack as it was served before nodepools' own servicer: pulumi_policy's (for the switch)."""
import gc

from pulumi_policy import EnforcementLevel, PolicyPack

from nodepools.pack.adapter import PACK_NAME, policies
from nodepools.pack.serve import DESCRIPTION

gc.collect()
gc.freeze()
gc.set_threshold(50_000, 20, 20)
PolicyPack(name=PACK_NAME, policies=policies(), enforcement_level=EnforcementLevel.ADVISORY, description=DESCRIPTION)
