"""Monitoring: how the assistant is doing.

retrieval_logs (one row per turn, pruned after retention) → dashboard (figures per period, the daily
rollup, the cache keyed by dashboard_version) → views (the Översikt pages) and api (the same figures as
JSON); metrics are the Prometheus series; dashboard_seed makes synthetic history for the benchmarks.
"""
