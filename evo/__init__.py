"""The run: config, the DEAP loop, hall of fame, checkpoints, the run folder, parallel
backends, report, doctor, experiment and the CLI. Nothing imports it but its console script
(`sebgen`), the benchmarks and the tests."""

__all__: list[str] = []
