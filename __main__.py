"""The nodepools component provider, as ``PulumiPlugin.yaml`` has Pulumi run it.

``pulumi package add`` starts this with the Python language host (dependencies
from ``requirements.txt``, i.e. this package) and reads the schema the provider
infers from ``nodepools.multilang``'s annotations; ``pulumi up`` of a consuming
program starts it again to construct ``EksPlatform`` / ``GkePlatform``.
"""
from nodepools.multilang.provider import serve

if __name__ == "__main__":
    serve()
