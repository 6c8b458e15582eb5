"""The policy pack's rules, importable (docs/design.md section 3).

- ``registry.POLICIES``: every policy (name, rule and fix, severity, default level, check).
- ``nodepools.pack.serve.serve(specs)``: serve any of them as a CrossGuard pack.
- ``config.spread``: one pack-wide config -> CrossGuard's per-policy config.
- Rules are plain functions over plain data: ``check(Resource, Settings)`` for resource
  policies, ``check(StackView, Settings)`` for stack policies, yielding ``Finding``s.

Importing never starts a server; only ``policy/__main__.py`` builds the pack.
"""
