"""Each cloud's spelling of the cloud-neutral vocabulary, one pure module per cloud.

The backends write these names into provider inputs; the raw-resource readers
(``nodepools.inventory``) read them back. Both import them from here, so the two
directions cannot drift. No provider SDK is imported (docs/architecture.md).
"""
