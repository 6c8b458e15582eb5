"""The registered pack answers GetAnalyzerInfo from catalogue.json before its rules load:
the file must be exactly what the registry gives, and the pack must not trust a stale one."""
from __future__ import annotations

from nodepools.pack import catalogue
from nodepools.pack.servicer import PackServicer
from nodepools.policies.registry import POLICIES


def test_the_catalogue_is_what_the_registry_gives():
    assert catalogue.load() == catalogue.live(), (
        "components/nodepools/pack/catalogue.json is stale: run python -m nodepools.pack.catalogue")
    assert catalogue.as_text(catalogue.load()) == catalogue.as_text(catalogue.live())  # byte for byte


def test_a_stale_catalogue_answers_only_until_the_policies_load(capsys):
    stale = catalogue.load()
    stale.policies[0].description = "an old description"
    servicer = PackServicer(lambda: POLICIES, "nodepools", catalogue.live().description, "0", lambda: stale)
    assert servicer.info().policies[0].description == "an old description"
    servicer.warm_up()
    assert servicer.info() == catalogue.live()
    assert "catalogue.json is not what the registered policies give" in capsys.readouterr().err
