"""Read pools and workloads out of raw resource properties (ours or anyone's).

One reader per concept, shared by the policy pack and the placement analysis.
"""
