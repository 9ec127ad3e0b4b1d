"""Shared code of kiln's benchmark experiments (bench/run): servers.py starts and
describes the servers, sysbench.py and kilnbench.py drive the clients, report.py
writes results and describes the machine, progress.py prints progress, install.py
installs what is missing, experiment.py holds what the experiments share."""
