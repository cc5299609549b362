"""Evaluation and benchmarks: shared helpers (benchmarking) of the commands that measure the assistant,
`manage.py eval_*` and `bench_*` in agent/management/commands (where Django finds commands)."""
