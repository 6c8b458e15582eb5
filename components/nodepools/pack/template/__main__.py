"""The nodepools CrossGuard pack: ``pulumi preview --policy-pack <this folder>``.

The rules come from the ``nodepools`` package installed in this folder's own
virtualenv (``requirements.txt``); nothing here reaches outside the folder.
Written by ``nodepools pack new``; build your own pack from ``nodepools.policies``.
"""
from nodepools.pack.serve import serve

serve()
