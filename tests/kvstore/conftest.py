# The scripts run as MPI jobs (test_dist.py); they are not test modules to import.
collect_ignore = ["scripts"]
