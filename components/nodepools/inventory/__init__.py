"""Read pools and workloads out of raw resource properties (ours or anyone's).

One reader per concept, shared by the policy pack, the placement analysis and the plan: the one
resource record (``resource.Resource``) and the one model of a stack (``stack_model.StackModel``).
"""
