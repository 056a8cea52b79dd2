"""Reproductions of the papers' experiments, one module per paper; ``report`` holds the shared
table, plot and progress helpers."""
