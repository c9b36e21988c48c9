"""Independent, brute-force reference of the Call Break rules and double-dummy value.

Written straight from ``/work/shared/RULES.md`` (copied quotes in the comments), without reading
or importing any ``callbreak_lab`` implementation code. Used only by the cross-check tests.
"""
