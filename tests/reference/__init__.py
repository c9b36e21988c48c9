"""Independent, brute-force reference of the Call Break rules and double-dummy value.

Written straight from the project's rules brief (restated in ``docs/rules.md``; the comments
quote the brief), without reading or importing any ``callbreak_lab`` implementation code. Used
only by the cross-check tests.
"""
