"""Components for every Pulumi language: ``EksPlatform`` and ``GkePlatform``.

They take plain, annotated arguments the schema analyser of
``pulumi.provider.experimental`` accepts, convert them into the Python API's
specs (same validation, same messages, argument names in the schema's spelling)
and wrap the existing ``Platform``. ``nodepools.multilang.provider`` serves them;
the repository's ``PulumiPlugin.yaml`` and ``__main__.py`` make it a package
``pulumi package add`` understands.
"""
from nodepools.multilang.eks import EksPlatform, EksPlatformArgs
from nodepools.multilang.gke import GkePlatform, GkePlatformArgs

__all__ = ["EksPlatform", "EksPlatformArgs", "GkePlatform", "GkePlatformArgs"]
