"""Offline stand-ins for the Pulumi engine: a recording mock run and a policy-pack runner."""
